/*
 * font.h - the pinned fonts, for every renderer: how wide a text is, where
 * a label may end, and drawing a text with cairo.  Which characters no
 * renderer draws is here too (the style and the font agree on them).
 *
 * Text is measured and drawn in one of two ways.  A text of plain
 * characters (ASCII and the characters of DejaVu Sans that need no shaping,
 * see af_font_plain()) is a sum of per-character advances and is drawn with
 * DejaVu Sans directly; any other text is laid out by Pango (HarfBuzz
 * shaping, bidi, the fallback fonts fonts/fonts.conf pins), which is made
 * on first need.  The two agree to the pixel on plain text (tests/
 * test_font.c checks it), so the plain way is only the faster one.
 */
#ifndef AF_FONT_H
#define AF_FONT_H

#include <cairo.h>

#include "error.h"

/** The families fonts/fonts.conf pins, in its order, as a CSS font-family
 * list (Verdana is DejaVu Sans's stand-in there, for viewers without it). */
#define AF_FONT_FAMILIES \
	"\"DejaVu Sans\",Verdana,\"Noto Sans CJK SC\",\"Noto Color Emoji\",sans-serif"

/** The face and the font options of plain text; both stay owned by `f`. */
cairo_font_face_t *af_font_face(af_font *f, const cairo_font_options_t **options);

/** 1 for the code points no renderer draws: C0 controls, DEL and the
 * non-characters (XML forbids U+FFFE/U+FFFF, cairo refuses them all).  The
 * font measures them as zero wide, so widths match what is drawn. */
static inline int af_text_dropped(uint32_t cp)
{
	return cp < 0x20 || cp == 0x7F || af_noncharacter(cp);
}

/** 1 when `cp` is a plain character: drawn alone from DejaVu Sans, its
 * advance the same whatever stands beside it, a place a label may end on
 * either side (ASCII, the characters af_text_dropped() leaves out, and the
 * Latin, Greek, Cyrillic, punctuation and symbol blocks DejaVu Sans has a
 * glyph for that need no shaping). */
int af_font_plain(af_font *f, uint32_t cp);

/** The advance of `cp` at size 1, as a text of that one character. */
double af_font_advance(af_font *f, uint32_t cp);

/** One place a label of a shaped name may end: `end` bytes of the name are
 * kept, drawn as `u16` UTF-16 code units (the index the SVG's script cuts
 * the cleaned name at), `w` wide at size 1. */
typedef struct af_cut {
	size_t end;
	uint32_t u16;
	double w;
} af_cut;

/** The width of a name longer than what is shaped of it: it never fits. */
#define AF_FONT_NEVER 1e300

/** The places `len` bytes of `name` may be cut, when the name holds a
 * character that is not plain: in order, the last one the whole name.  A
 * place is never inside a grapheme cluster or a cluster of glyphs, and
 * its width is that of the shaped name up to it.  Up to the character
 * before the first one that is not plain the places are those of a plain
 * name, every character with the sums af_font_fit() makes, so a fit that
 * stops there gives the same result either way.  Only the first
 * AF_FONT_SHAPED characters are measured; a longer name ends with a place
 * AF_FONT_NEVER wide.  NULL with *n = 0 for a plain name, and when out of
 * memory (then af_font_failed() says so).  Owned by `f` until it is
 * freed. */
const af_cut *af_font_cuts(af_font *f, const char *name, size_t len, size_t *n);

/** Characters of a name measured shaped (see af_font_cuts()). */
#define AF_FONT_SHAPED 1024

/** af_font_fit() of the first `len` bytes of `name`. */
size_t af_font_fit_len(af_font *f, const char *name, size_t len, double avail,
                       double size, int *dots);

/** Draws the NUL-terminated `text` (valid UTF-8 without af_text_dropped()
 * characters) at `size` px, the left end of its baseline at the current
 * point of `cr`, in the current source.  For plain text `cr` must have
 * af_font_face() set at `size`; it keeps it.  Non-zero when Pango could
 * not be started. */
int af_font_show(af_font *f, cairo_t *cr, const char *text, double size);

/** As af_font_show(), always through Pango (the tests compare the two). */
int af_font_show_shaped(af_font *f, cairo_t *cr, const char *text, double size);

/** The width in px of `text` (as af_font_show() takes it) laid out by
 * Pango at `size` px; -1 when Pango could not be started. */
double af_font_shaped_width(af_font *f, const char *text, double size);

/** How many characters of `text` (as af_font_show() takes it) no pinned
 * font has a glyph for (Pango draws them as boxes); -1 when Pango could
 * not be started. */
int af_font_unknown_glyphs(af_font *f, const char *text);

/** 1 when the font ran out of memory since the last call (a label was then
 * measured as not fitting); the call clears it.  Renderers ask it when
 * they are done. */
int af_font_failed(af_font *f);

/** Why Pango (which shapes the labels that are not plain text) could not
 * be loaded, or NULL: a failure af_font_failed() tells of is then that,
 * not a lack of memory. */
const char *af_font_no_pango(const af_font *f);

#endif
