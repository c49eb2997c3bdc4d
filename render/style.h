/*
 * style.h - what the SVG and cairo renderers share: frame colours (every
 * flamegraph.pl palette, and differential red/blue), backgrounds, tooltip
 * text and XML escaping.
 */
#ifndef AF_STYLE_H
#define AF_STYLE_H

#include <stdio.h>

#include "internal.h"
#include "out.h"

typedef struct af_rgb {
	unsigned char r, g, b;
} af_rgb;

/* A name's fill, worked out once (see af_palette_fill). */
typedef struct af_fill_memo {
	af_rgb c;
	unsigned char known;
	unsigned char kind; /* the android kind + 1; 0 until worked out */
} af_fill_memo;

/* What an af_render_cache keeps: the memos of the trees with one names
 * serial (af_tree_names_serial), in one palette and colour mode. */
struct af_render_cache {
	af_mem *mem;
	uint64_t serial;
	af_palette palette;
	af_color_mode color_mode;
	af_fill_memo *memo;
	size_t n;
};

typedef struct af_style {
	const af_layout *layout;
	const af_render_options *opt;
	int differential;
	af_rgb bg[2];     /* background gradient, top and bottom */
	uint64_t seed;    /* AF_COLOR_RANDOM */
	int failed;       /* the colour map could not grow */
	af_fill_memo *memo; /* by name id; NULL until needed, or without memory */
	int no_memo;      /* it could not be made */
	int cached;       /* `memo` is the render cache's */
	af_rgb *fills;    /* the layout's frames' fills, in order: see
	                     af_style_kinds(); NULL until made, or without
	                     memory */
	unsigned kinds;   /* the android kinds among them (bit i: entry i) */
	int kinds_made;
} af_style;

/** Checks the options (palette, background) and resolves defaults.  A
 * style that was made is given back with af_style_free(). */
af_status af_style_init(af_style *s, const af_layout *l,
                        const af_render_options *opt, af_error *err);
void af_style_free(af_style *s);

/** The fill of frame `r`, whose node is `ni`. */
af_rgb af_style_fill(af_style *s, const af_node_info *ni, const af_rect *r);

/** af_style_fill() of frame `r`, its node read only when the fill of its
 * name is not known yet (most frames of a graph share a name's fill). */
af_rgb af_style_fill_rect(af_style *s, const af_rect *r);

/** The android kinds of the layout's frames, for the legend: bit i for
 * entry i of af_style_legend (separators and a differential graph's frames
 * coloured by their change count for none).  Worked out with every frame's
 * fill, in one pass made once; the fills are kept for af_style_fill_at()
 * (without memory for them, each frame is coloured again when drawn). */
unsigned af_style_kinds(af_style *s);

/** The fill of frame `i` of the layout, `r`: af_style_kinds()'s, or
 * af_style_fill_rect()'s when they were not made. */
static inline af_rgb af_style_fill_at(af_style *s, size_t i, const af_rect *r)
{
	return s->fills ? s->fills[i] : af_style_fill_rect(s, r);
}

/** Differential input: the change frame `r` is coloured by (AFTER minus
 * BEFORE, negated with --negate), in the tree's unit.  Only for frames
 * with r->changed. */
double af_style_change(const af_style *s, const af_node_info *ni, const af_rect *r);

/** The tooltip of a frame: "NAME (VALUE, P%, N calls)", "NAME in LIBRARY
 * (...)" for a native frame whose library is known. */
int af_style_tooltip(af_style *s, af_buf *b, const af_rect *r);

/** The values a diff's tooltip compares, for frame `r`: total BEFORE and
 * AFTER, self BEFORE and AFTER (the root's AFTER without the removed band;
 * the band's frames BEFORE's time and nothing AFTER). */
void af_style_diff_values(const af_style *s, const af_rect *r, const af_node_info *ni,
                          uint64_t v[4]);

/** What a text is, for its colour. */
typedef enum af_ink {
	AF_INK_TEXT,   /* title, details, legend */
	AF_INK_MUTED,  /* the subtitle */
	AF_INK_BUTTON  /* Reset Zoom, Search, ic */
} af_ink;

/** The colour of a text of `role` on the style's background: the theme's,
 * with a contrast of at least 4.5:1 against both ends of the gradient. */
af_rgb af_style_ink(const af_style *s, af_ink role);

/** 1 when a label on `fill` is drawn white rather than black: the one of
 * the two that stands out more (at least 4.58:1 whatever the fill). */
int af_style_label_light(af_rgb fill);

/** WCAG contrast ratio of two colours, 1 to 21. */
double af_style_contrast(af_rgb a, af_rgb b);

/** Entry `i` of the android palette's legend; returns how many there are. */
size_t af_style_legend(size_t i, const char **label, af_rgb *color);

/** The android palette's kind of the frame of `rect`: its entry in
 * af_style_legend (noted with its fill: a name is looked at once). */
size_t af_style_kind(af_style *s, const af_node_info *ni, const af_rect *rect);

/** af_style_kind() of frame `r` when its name's kind is known already
 * (the node is not read), else -1. */
int af_style_kind_known(af_style *s, const af_rect *r);

/** The length of `name`, `len` bytes, as labels and tooltips show it:
 * without the annotation flamegraph.pl strips, perf's "_[k]" (kernel),
 * "_[w]" (waker), "_[i]" (inlined) or "_[j]" (jit) at its end.  The
 * annotation still chooses the colour. */
size_t af_style_shown(const char *name, size_t len);

/** The label of a frame `w` px wide: the length in bytes of the prefix of
 * `name` to draw (never the annotation, see af_style_shown()), and in
 * *dots whether ".." follows.  Real font metrics, or flamegraph.pl's fixed
 * glyph width when the options give one. */
size_t af_style_fit(af_style *s, const char *name, double w, int *dots);

/** The name of the graph's counts: --countname, else the input's unit
 * (af_tree_unit) when it is not "count", else "samples". */
const char *af_style_countname(const af_layout *l, const af_render_options *opt);

/** How tooltips write the graph's values when the input names their unit
 * (and --countname does not): "bytes" (KiB, MiB), "ns" (a time), or "" for
 * counts. */
const char *af_style_unit(const af_layout *l, const af_render_options *opt);

/** "850 µs", "12.3 ms", "1.23 s". */
static inline void af_style_time(char *out, size_t n, uint64_t us)
{
	af_format_us(out, n, us); /* error.c: the method table uses it too */
}

#endif
