/*
 * font.c - the pinned fonts and their metrics.  Labels are measured here
 * once for every renderer, so SVG, PNG and PDF cut names the same way, and
 * the SVG's script with the numbers written beside it.  fontconfig is
 * asked through the project's own configuration, never the process-wide
 * one, so the fonts cannot change with the machine's settings.
 *
 * Plain text (see af_font_plain()) is measured with DejaVu Sans's advances
 * and drawn with cairo directly, as a sum: most names are ASCII, and Pango
 * is not even loaded for them (pango.h).  A text with any other character
 * goes through Pango, at AF_REF_SIZE to be measured; the places a shaped name
 * may be cut are kept per name (af_font_cuts()), so a graph lays out each
 * such name once, however many frames it names.
 */
#include <cairo-ft.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "font.h"
#include "internal.h"
#include "pango.h"

#define AF_FONT_FAMILY "DejaVu Sans"
#define AF_REF_SIZE 64.0 /* px at which advances are measured */
#define AF_BMP 65536
/* Pango units at AF_REF_SIZE in one unit of width at size 1 */
#define AF_REF_UNITS (AF_REF_SIZE * PANGO_SCALE)
/* shaped the same whatever the script: no kerning, no optional ligatures,
 * so a plain text is exactly the sum of its advances (the browser is told
 * the same in the SVG's style sheet) */
#define AF_FEATURES "kern 0, liga 0, clig 0"

/* What is known of a BMP code point.  They come in blocks of 256, each
 * made when first asked for: a font made for a thread touches the few
 * blocks its names use (ASCII's above all), not the whole plane. */
typedef struct af_cp {
	float advance;    /* at size 1, when `measured` */
	uint16_t glyph;   /* when plain: its glyph */
	uint8_t plain;    /* 0 unknown, 1 plain, 2 not */
	uint8_t measured;
} af_cp;

/* A name that needs shaping, with the places it may be cut. */
typedef struct af_shaped {
	char *key; /* NULL: a free slot */
	size_t len;
	uint64_t hash;
	af_cut *cuts;
	size_t ncuts;
} af_shaped;

struct af_font {
	af_mem *mem;
	FcConfig *config;
	cairo_font_face_t *face; /* DejaVu Sans, for plain text */
	cairo_font_options_t *options;
	cairo_scaled_font_t *ref; /* the face at AF_REF_SIZE */
	af_cp *cps[AF_BMP / 256]; /* per BMP code point, by blocks */
	cairo_glyph_t *glyphs;    /* plain text being drawn */
	size_t glyphs_cap;
	/* Pango, loaded and started for the first text that is not plain */
	const af_pango *pg;
	const char *no_pango; /* why Pango could not be loaded, or NULL */
	PangoFontMap *map;
	PangoContext *measure_ctx, *draw_ctx;
	PangoLayout *measure, *draw; /* at AF_REF_SIZE; at draw_size */
	double draw_size;
	/* the shaped names, an open-addressing table */
	af_shaped *slots;
	size_t nslots, nused;
	int failed;
};

static const char *af_font_conf_path(void)
{
	const char *env = getenv("AFLAME_FONTCONF");

	if (env && *env)
		return env;
	if (access(AF_FONTCONF_INSTALLED, R_OK) == 0)
		return AF_FONTCONF_INSTALLED;
	return AF_FONTCONF_SOURCE;
}

void af_font_free(af_font *f)
{
	af_mem *mem;
	size_t i;

	if (!f)
		return;
	mem = f->mem;
	for (i = 0; i < f->nslots; i++) {
		af_free(mem, f->slots[i].key);
		af_free(mem, f->slots[i].cuts);
	}
	af_free(mem, f->slots);
	if (f->measure)
		f->pg->g_object_unref(f->measure);
	if (f->draw)
		f->pg->g_object_unref(f->draw);
	if (f->measure_ctx)
		f->pg->g_object_unref(f->measure_ctx);
	if (f->draw_ctx)
		f->pg->g_object_unref(f->draw_ctx);
	if (f->map)
		f->pg->g_object_unref(f->map);
	if (f->ref)
		cairo_scaled_font_destroy(f->ref);
	if (f->face)
		cairo_font_face_destroy(f->face);
	if (f->options)
		cairo_font_options_destroy(f->options);
	if (f->config)
		FcConfigDestroy(f->config);
	for (i = 0; i < AF_BMP / 256; i++)
		af_free(mem, f->cps[i]);
	af_free(mem, f->glyphs);
	af_free(mem, f);
	af_mem_unref(mem);
}

af_status af_font_open(const char *conf_path, af_font **out, af_error *err)
{
	return af_font_open_with(conf_path, NULL, out, err);
}

/* A font with nothing measured, in `mem` (its reference now the
 * font's); NULL when out of memory. */
static af_font *af_font_new(af_mem *mem)
{
	af_font *f = mem ? af_calloc(mem, 1, sizeof *f) : NULL;

	if (f)
		f->mem = mem;
	else
		af_mem_unref(mem);
	return f;
}

/* The entry of BMP code point `cp`, its block made when first needed;
 * NULL when out of memory (the font is marked failed). */
static af_cp *af_cp_of(af_font *f, uint32_t cp)
{
	af_cp **block = &f->cps[cp >> 8];

	if (!*block && !(*block = af_calloc(f->mem, 256, sizeof **block)))
		f->failed = 1;
	return *block ? &(*block)[cp & 255] : NULL;
}

af_status af_font_open_with(const char *conf_path, const af_allocator *allocator,
                            af_font **out, af_error *err)
{
	af_font *f = af_font_new(af_mem_new(allocator, UINT64_MAX));
	FcPattern *want = NULL, *match = NULL;
	FcResult res;
	FcChar8 *family = NULL;
	cairo_matrix_t size, ident;
	const char *path = conf_path ? conf_path : af_font_conf_path();

	*out = NULL;
	if (!f)
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory loading the font");
	if (!(f->config = FcConfigCreate()))
		goto nomem;
	/* fontconfig prints a missing file to stderr (and with complain off
	 * reports success), so an unreadable path is caught here first; a
	 * malformed file still makes fontconfig print its parse error */
	if (access(path, R_OK) != 0) {
		int e = errno;
		af_font_free(f);
		return af_fail(err, AF_ERR_FONT, -1,
		               "cannot read the font configuration %s: %s", path,
		               strerror(e));
	}
	if (!FcConfigParseAndLoad(f->config, (const FcChar8 *)path, FcTrue) ||
	    !FcConfigBuildFonts(f->config)) {
		af_font_free(f);
		return af_fail(err, AF_ERR_FONT, -1,
		               "cannot load the font configuration %s", path);
	}
	want = FcNameParse((const FcChar8 *)AF_FONT_FAMILY);
	if (!want)
		goto nomem;
	FcConfigSubstitute(f->config, want, FcMatchPattern);
	FcDefaultSubstitute(want);
	match = FcFontMatch(f->config, want, &res);
	FcPatternDestroy(want);
	if (!match || FcPatternGetString(match, FC_FAMILY, 0, &family) != FcResultMatch ||
	    strcmp((const char *)family, AF_FONT_FAMILY) != 0) {
		if (match)
			FcPatternDestroy(match);
		af_font_free(f);
		return af_fail(err, AF_ERR_FONT, -1,
		               "font " AF_FONT_FAMILY " not found (install Debian's "
		               "fonts-dejavu-core)");
	}
	f->face = cairo_ft_font_face_create_for_pattern(match);
	FcPatternDestroy(match); /* the face keeps its own reference */
	f->options = cairo_font_options_create();
	if (cairo_font_face_status(f->face) != CAIRO_STATUS_SUCCESS ||
	    cairo_font_options_status(f->options) != CAIRO_STATUS_SUCCESS)
		goto nomem;
	/* unhinted metrics scale linearly, so one measurement serves all sizes
	 * and cairo draws exactly the widths measured here */
	cairo_font_options_set_hint_metrics(f->options, CAIRO_HINT_METRICS_OFF);
	cairo_font_options_set_hint_style(f->options, CAIRO_HINT_STYLE_NONE);
	cairo_matrix_init_scale(&size, AF_REF_SIZE, AF_REF_SIZE);
	cairo_matrix_init_identity(&ident);
	f->ref = cairo_scaled_font_create(f->face, &size, &ident, f->options);
	if (cairo_scaled_font_status(f->ref) != CAIRO_STATUS_SUCCESS)
		goto nomem;
	*out = f;
	return AF_OK;
nomem:
	af_font_free(f);
	return af_fail(err, AF_ERR_NOMEM, -1, "out of memory loading the font");
}

af_status af_font_clone(const af_font *src, af_font **out, af_error *err)
{
	af_font *f = af_font_new(af_mem_ref(src->mem));

	*out = NULL;
	if (!f)
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory loading the font");
	f->config = FcConfigReference(src->config);
	f->face = cairo_font_face_reference(src->face);
	f->options = cairo_font_options_copy(src->options);
	f->ref = cairo_scaled_font_reference(src->ref);
	if (cairo_font_options_status(f->options) != CAIRO_STATUS_SUCCESS) {
		af_font_free(f);
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory loading the font");
	}
	*out = f;
	return AF_OK;
}

cairo_font_face_t *af_font_face(af_font *f, const cairo_font_options_t **options)
{
	*options = f->options;
	return f->face;
}

int af_font_failed(af_font *f)
{
	int failed = f->failed;
	f->failed = 0;
	return failed;
}

const char *af_font_no_pango(const af_font *f)
{
	return f->no_pango;
}

/* `cp` in UTF-8; returns its length. */
static size_t af_encode(uint32_t cp, char *utf8)
{
	if (cp < 0x80) {
		utf8[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		utf8[0] = (char)(0xC0 | (cp >> 6));
		utf8[1] = (char)(0x80 | (cp & 0x3F));
		return 2;
	}
	if (cp < 0x10000) {
		utf8[0] = (char)(0xE0 | (cp >> 12));
		utf8[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		utf8[2] = (char)(0x80 | (cp & 0x3F));
		return 3;
	}
	utf8[0] = (char)(0xF0 | (cp >> 18));
	utf8[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
	utf8[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
	utf8[3] = (char)(0x80 | (cp & 0x3F));
	return 4;
}

/* Decodes one character of `s`; invalid bytes count as U+FFFD, as drawn. */
static size_t af_next(const char *s, size_t len, uint32_t *cp)
{
	size_t k = af_utf8_decode((const unsigned char *)s, len, cp);
	if (k == 0) {
		*cp = 0xFFFD;
		k = 1;
	}
	return k;
}

/* DejaVu Sans's advance of `cp` at size 1, and its glyph (0: none). */
static double af_measure(af_font *f, uint32_t cp, unsigned long *glyph)
{
	char utf8[4];
	cairo_glyph_t *glyphs = NULL;
	int nglyphs = 0;
	cairo_text_extents_t ext;
	double adv = 0;

	*glyph = 0;
	if (cairo_scaled_font_text_to_glyphs(f->ref, 0, 0, utf8, (int)af_encode(cp, utf8),
	                                     &glyphs, &nglyphs, NULL, NULL,
	                                     NULL) == CAIRO_STATUS_SUCCESS &&
	    nglyphs == 1) {
		cairo_scaled_font_glyph_extents(f->ref, glyphs, nglyphs, &ext);
		adv = ext.x_advance / AF_REF_SIZE;
		*glyph = glyphs[0].index;
	}
	cairo_glyph_free(glyphs);
	return adv;
}

int af_font_plain(af_font *f, uint32_t cp)
{
	af_cp *e;

	if (cp < 0x80 || af_text_dropped(cp))
		return 1;
	if (!af_pango_unneeded(cp) || !(e = af_cp_of(f, cp)))
		return 0;
	if (!e->plain) {
		unsigned long glyph;
		double adv = af_measure(f, cp, &glyph);
		e->plain = glyph && glyph <= UINT16_MAX ? 1 : 2;
		if (e->plain == 1) {
			e->advance = (float)adv;
			e->glyph = (uint16_t)glyph;
			e->measured = 1;
		}
	}
	return e->plain == 1;
}

/* Advance of a plain code point at size 1: zero for what is never drawn. */
static double af_advance_plain(af_font *f, uint32_t cp)
{
	af_cp *e;

	if (af_text_dropped(cp) || !(e = af_cp_of(f, cp)))
		return 0;
	if (!e->measured) {
		unsigned long glyph;
		e->advance = (float)af_measure(f, cp, &glyph);
		e->glyph = (uint16_t)(glyph <= UINT16_MAX ? glyph : 0);
		e->measured = 1;
	}
	return e->advance;
}

/* ------------------------------------------------------------------ */
/* Pango                                                               */

static void af_pango_size(const af_pango *pg, PangoLayout *l, double size)
{
	PangoFontDescription *d = pg->pango_font_description_new();

	pg->pango_font_description_set_family_static(d, AF_FONT_FAMILY);
	pg->pango_font_description_set_absolute_size(d, size * PANGO_SCALE);
	pg->pango_layout_set_font_description(l, d);
	pg->pango_font_description_free(d);
}

static PangoContext *af_pango_context(af_font *f)
{
	const af_pango *pg = f->pg;
	PangoContext *c = pg->pango_font_map_create_context(f->map);

	pg->pango_cairo_context_set_font_options(c, f->options);
	/* positions in fractions of a pixel, so widths scale with the size */
	pg->pango_context_set_round_glyph_positions(c, FALSE);
	/* not the locale's: the same fonts on every machine */
	pg->pango_context_set_language(c, pg->pango_language_from_string("en"));
	return c;
}

static PangoLayout *af_pango_layout(const af_pango *pg, PangoContext *c, double size)
{
	PangoLayout *l = pg->pango_layout_new(c);
	PangoAttrList *attrs = pg->pango_attr_list_new();

	pg->pango_attr_list_insert(attrs, pg->pango_attr_font_features_new(AF_FEATURES));
	pg->pango_layout_set_attributes(l, attrs);
	pg->pango_attr_list_unref(attrs);
	/* a name is one line, whatever separators it holds */
	pg->pango_layout_set_single_paragraph_mode(l, TRUE);
	af_pango_size(pg, l, size);
	return l;
}

/* Loads Pango and starts it over the font's own fontconfig configuration,
 * once. */
static int af_pango_start(af_font *f)
{
	if (f->map)
		return 0;
	if (!f->pg && !(f->pg = af_pango_load(&f->no_pango)))
		return -1;
	f->map = f->pg->pango_cairo_font_map_new_for_font_type(CAIRO_FONT_TYPE_FT);
	if (!f->map)
		return -1;
	f->pg->pango_fc_font_map_set_config((PangoFcFontMap *)f->map, f->config);
	f->measure_ctx = af_pango_context(f);
	f->draw_ctx = af_pango_context(f);
	f->measure = af_pango_layout(f->pg, f->measure_ctx, AF_REF_SIZE);
	f->draw = af_pango_layout(f->pg, f->draw_ctx, 12);
	f->draw_size = 12;
	return 0;
}

/* The sum of the glyphs' widths of the measuring layout, in Pango units;
 * with `cluster` and `start` (one entry a byte of its text, zeroed), the
 * width of the glyphs of the cluster that starts at each byte, and which
 * bytes start one. */
static int64_t af_pango_widths(af_font *f, int64_t *cluster, unsigned char *start)
{
	GSList *lines = f->pg->pango_layout_get_lines_readonly(f->measure), *r;
	int64_t total = 0;

	for (; lines; lines = lines->next) {
		PangoLayoutLine *line = lines->data;
		for (r = line->runs; r; r = r->next) {
			PangoGlyphItem *run = r->data;
			PangoGlyphString *g = run->glyphs;
			int i;
			for (i = 0; i < g->num_glyphs; i++) {
				total += g->glyphs[i].geometry.width;
				if (cluster) {
					size_t at = (size_t)run->item->offset + (size_t)g->log_clusters[i];
					cluster[at] += g->glyphs[i].geometry.width;
					start[at] = 1;
				}
			}
		}
	}
	return total;
}

/* Appends `len` bytes of `s` to `b` as drawn: invalid UTF-8 as U+FFFD,
 * af_text_dropped() characters left out; NUL-terminated.  Non-zero when
 * out of memory. */
static int af_clean(af_buf *b, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		uint32_t cp;
		char utf8[4];
		i += af_next(s + i, len - i, &cp);
		if (!af_text_dropped(cp) && af_buf_append(b, utf8, af_encode(cp, utf8)))
			return -1;
	}
	if (af_buf_append(b, "", 1))
		return -1;
	b->len--;
	return 0;
}

/* The width at size 1 of clean `text` laid out whole; -1 without Pango. */
static double af_shaped_units(af_font *f, const char *text)
{
	if (af_pango_start(f))
		return -1;
	f->pg->pango_layout_set_text(f->measure, text, -1);
	return (double)af_pango_widths(f, NULL, NULL);
}

double af_font_shaped_width(af_font *f, const char *text, double size)
{
	double units = af_shaped_units(f, text);
	return units < 0 ? -1 : units / AF_REF_UNITS * size;
}

int af_font_unknown_glyphs(af_font *f, const char *text)
{
	if (af_pango_start(f))
		return -1;
	f->pg->pango_layout_set_text(f->measure, text, -1);
	return f->pg->pango_layout_get_unknown_glyphs_count(f->measure);
}

double af_font_advance(af_font *f, uint32_t cp)
{
	char utf8[5];
	double units;
	af_cp *e = NULL;

	if (af_font_plain(f, cp))
		return af_advance_plain(f, cp);
	if (cp < AF_BMP && (e = af_cp_of(f, cp)) != NULL && e->measured)
		return e->advance;
	utf8[af_encode(cp, utf8)] = '\0';
	units = af_shaped_units(f, utf8);
	if (units < 0) {
		f->failed = 1;
		return 0;
	}
	if (e) {
		e->advance = (float)(units / AF_REF_UNITS);
		e->measured = 1;
	}
	/* in the plane, kept as a float like every advance */
	return cp < AF_BMP ? (float)(units / AF_REF_UNITS) : units / AF_REF_UNITS;
}

double af_font_text_width(af_font *f, const char *text, size_t len, double size)
{
	af_buf clean = {.mem = f->mem};
	double w = 0;
	size_t i = 0;
	int plain = 1;

	while (i < len && plain) {
		uint32_t cp;
		i += af_next(text + i, len - i, &cp);
		plain = af_font_plain(f, cp);
		w += plain ? af_advance_plain(f, cp) : 0;
	}
	if (plain)
		return w * size;
	/* not plain: laid out whole */
	if (af_clean(&clean, text, len) || (w = af_shaped_units(f, clean.data)) < 0) {
		af_buf_free(&clean);
		f->failed = 1;
		return 0;
	}
	af_buf_free(&clean);
	return w / AF_REF_UNITS * size;
}

/* ------------------------------------------------------------------ */
/* Where a shaped name may be cut                                      */

static uint64_t af_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 0x100000001b3ull;
	return h;
}

/* The slot of `name`: its own, or the free one it would take. */
static af_shaped *af_slot(af_font *f, const char *name, size_t len, uint64_t h)
{
	size_t mask = f->nslots - 1, j;

	for (j = (size_t)h & mask;; j = (j + 1) & mask) {
		af_shaped *s = &f->slots[j];
		if (!s->key || (s->hash == h && s->len == len && memcmp(s->key, name, len) == 0))
			return s;
	}
}

static int af_slots_grow(af_font *f)
{
	size_t n = f->nslots ? 2 * f->nslots : 64, i;
	af_shaped *old = f->slots, *slots;
	size_t nold = f->nslots;

	slots = af_calloc(f->mem, n, sizeof *slots);
	if (!slots)
		return -1;
	f->slots = slots;
	f->nslots = n;
	for (i = 0; i < nold; i++)
		if (old[i].key)
			*af_slot(f, old[i].key, old[i].len, old[i].hash) = old[i];
	af_free(f->mem, old);
	return 0;
}

/* What is known of each character of the shaped part of a name. */
typedef struct af_char {
	size_t at;    /* its first byte in the clean text */
	size_t end;   /* the bytes of the name up to its end */
	uint32_t u16; /* UTF-16 code units of the clean name up to its end */
} af_char;

/* UTF-16 code units of `cp` as drawn. */
static uint32_t af_units16(uint32_t cp)
{
	return af_text_dropped(cp) ? 0 : cp >= 0x10000 ? 2 : 1;
}

/* Appends a place to `s`.  Non-zero when out of memory. */
static int af_push(af_font *f, af_shaped *s, size_t *cap, size_t end, uint32_t u16,
                   double w)
{
	if (AF_GROW(f->mem, s->cuts, *cap, s->ncuts + 1))
		return -1;
	s->cuts[s->ncuts].end = end;
	s->cuts[s->ncuts].u16 = u16;
	s->cuts[s->ncuts].w = w;
	s->ncuts++;
	return 0;
}

/* The places of `name` (which holds a character that is not plain) into
 * `s`.  Non-zero when out of memory or without Pango. */
static int af_shape(af_font *f, const char *name, size_t len, af_shaped *s)
{
	af_buf text = {.mem = f->mem};
	af_char *chars = NULL;
	int64_t *cluster = NULL, units = 0;
	unsigned char *start = NULL;
	size_t cap = 0, ccap = 0, n = 0, i = 0, count = 0, c;
	uint32_t u16 = 0;
	double w = 0;
	int drawn = 0, bad = -1;
	const PangoLogAttr *attrs;
	int nattrs;

	/* the plain part, as af_font_fit_len() walks it: it stops before the
	 * character ahead of the first that is not plain */
	while (i < len && count < AF_FONT_SHAPED) {
		uint32_t cp, next;
		size_t k = af_next(name + i, len - i, &cp);
		if (!af_font_plain(f, cp) ||
		    (i + k < len && (af_next(name + i + k, len - i - k, &next), !af_font_plain(f, next))))
			break;
		w += af_advance_plain(f, cp);
		i += k;
		count++;
		u16 += af_units16(cp);
		drawn |= !af_text_dropped(cp);
		if (drawn && af_push(f, s, &cap, i, u16, w))
			goto out;
	}
	/* the rest, shaped as it is drawn, up to AF_FONT_SHAPED characters */
	while (i < len && count < AF_FONT_SHAPED) {
		uint32_t cp;
		size_t k = af_next(name + i, len - i, &cp);
		i += k;
		count++;
		u16 += af_units16(cp);
		if (af_text_dropped(cp))
			continue;
		if (AF_GROW(f->mem, chars, ccap, n + 1))
			goto out;
		chars[n].at = text.len;
		chars[n].end = i;
		chars[n].u16 = u16;
		n++;
		{
			char utf8[4];
			if (af_buf_append(&text, utf8, af_encode(cp, utf8)))
				goto out;
		}
	}
	if (af_buf_append(&text, "", 1))
		goto out;
	text.len--;
	if (n > 0) {
		cluster = af_calloc(f->mem, text.len + 1, sizeof *cluster);
		start = af_calloc(f->mem, text.len + 1, 1);
		if (!cluster || !start)
			goto out;
		if (af_pango_start(f))
			goto out;
		f->pg->pango_layout_set_text(f->measure, text.data, (int)text.len);
		af_pango_widths(f, cluster, start);
		attrs = f->pg->pango_layout_get_log_attrs_readonly(f->measure, &nattrs);
		/* a place: after character c, where a cursor may stand and a
		 * cluster of glyphs begins (or at the end) */
		for (c = 0; c < n; c++) {
			size_t at = chars[c].at, to = c + 1 < n ? chars[c + 1].at : text.len;
			for (; at < to; at++)
				units += cluster[at];
			if (c + 1 < n && !((int)(c + 1) < nattrs && attrs[c + 1].is_cursor_position &&
			                   start[to]))
				continue;
			if (af_push(f, s, &cap, chars[c].end, chars[c].u16,
			            w + (double)units / AF_REF_UNITS))
				goto out;
		}
	}
	if (i < len) {
		/* longer than what is measured: it never fits whole */
		while (i < len) {
			uint32_t cp;
			i += af_next(name + i, len - i, &cp);
			u16 += af_units16(cp);
		}
		if (af_push(f, s, &cap, len, u16, AF_FONT_NEVER))
			goto out;
	} else if (s->ncuts > 0) {
		s->cuts[s->ncuts - 1].end = len; /* with the dropped ones after it */
	} else if (af_push(f, s, &cap, len, u16, w)) {
		goto out;
	}
	bad = 0;
out:
	af_buf_free(&text);
	af_free(f->mem, chars);
	af_free(f->mem, cluster);
	af_free(f->mem, start);
	return bad;
}

/* The places of `name` into *out (NULL for a plain name).  Non-zero when
 * out of memory or without Pango. */
static int af_cuts(af_font *f, const char *name, size_t len, const af_shaped **out)
{
	af_shaped *s, made = {0};
	uint64_t h;
	size_t i = 0;

	*out = NULL;
	while (i < len) {
		uint32_t cp = (unsigned char)name[i]; /* most names are all ASCII: plain */
		size_t k = cp < 0x80 ? 1 : af_next(name + i, len - i, &cp);
		if (cp >= 0x80 && !af_font_plain(f, cp))
			break;
		i += k;
	}
	if (i == len)
		return 0;
	h = af_hash(name, len);
	if ((f->nused + 1) * 2 > f->nslots && af_slots_grow(f))
		goto nomem;
	s = af_slot(f, name, len, h);
	if (!s->key) {
		made.key = af_malloc(f->mem, len ? len : 1);
		if (!made.key || af_shape(f, name, len, &made))
			goto nomem;
		memcpy(made.key, name, len);
		made.len = len;
		made.hash = h;
		*s = made;
		f->nused++;
	}
	*out = s;
	return 0;
nomem:
	af_free(f->mem, made.key);
	af_free(f->mem, made.cuts);
	f->failed = 1;
	return -1;
}

const af_cut *af_font_cuts(af_font *f, const char *name, size_t len, size_t *n)
{
	const af_shaped *s;

	*n = 0;
	if (af_cuts(f, name, len, &s) || !s)
		return NULL;
	*n = s->ncuts;
	return s->cuts;
}

/* ------------------------------------------------------------------ */
/* Fitting                                                             */

/* af_font_fit_len() over the places `s` of a shaped name (none when out
 * of memory: then nothing fits). */
static size_t af_fit_cuts(const af_shaped *s, size_t len, double avail, double dot,
                          int *dots)
{
	size_t j, fit = 0;

	if (!s)
		return 0;
	for (j = 0; j < s->ncuts && s->cuts[j].w <= avail; j++)
		if (s->cuts[j].w + dot <= avail)
			fit = s->cuts[j].end;
	if (j == s->ncuts)
		return len;
	*dots = fit > 0;
	return fit;
}

size_t af_font_fit(af_font *f, const char *name, double avail, double size,
                   int *dots)
{
	return af_font_fit_len(f, name, strlen(name), avail, size, dots);
}

size_t af_font_fit_len(af_font *f, const char *name, size_t len, double avail,
                       double size, int *dots)
{
	size_t i = 0, fit = 0, count = 0;
	double w = 0, dot = 2 * af_advance_plain(f, '.');
	int drawn = 0, plain = 0;
	const af_shaped *s;

	*dots = 0;
	avail /= size;
	/* the first pass stops as soon as the name cannot fit whole; a name
	 * that is not plain is fitted on its places, from the character before
	 * the first one that is not plain (af_font_cuts() gives the same
	 * places as this loop up to there) */
	while (i < len) {
		uint32_t cp, next;
		size_t k;
		if (count == AF_FONT_SHAPED && !plain) {
			/* as far as a shaped name is measured: is this one? */
			if (af_cuts(f, name, len, &s) || s)
				return af_fit_cuts(s, len, avail, dot, dots);
			plain = 1;
		}
		k = af_next(name + i, len - i, &cp);
		if (!af_font_plain(f, cp) ||
		    (i + k < len && (af_next(name + i + k, len - i - k, &next), !af_font_plain(f, next))))
			return af_fit_cuts(af_cuts(f, name, len, &s) ? NULL : s, len, avail, dot,
			                   dots);
		w += af_advance_plain(f, cp);
		if (w > avail)
			break;
		i += k;
		count++;
		/* a label is never dots alone: the script's names have no
		 * dropped characters to stand before them */
		drawn |= !af_text_dropped(cp);
		if (drawn && w + dot <= avail)
			fit = i;
	}
	if (i == len)
		return len;
	*dots = fit > 0;
	return fit;
}

/* ------------------------------------------------------------------ */
/* Drawing                                                             */

/* 1 when every character of the NUL-terminated `text` is plain. */
static int af_text_plain(af_font *f, const char *text)
{
	const unsigned char *p = (const unsigned char *)text;

	for (; *p; p++) {
		if (*p >= 0x80) {
			size_t len = strlen((const char *)p), i = 0;
			while (i < len) {
				uint32_t cp;
				i += af_next((const char *)p + i, len - i, &cp);
				if (!af_font_plain(f, cp))
					return 0;
			}
			return 1;
		}
	}
	return 1;
}

int af_font_show_shaped(af_font *f, cairo_t *cr, const char *text, double size)
{
	double x, y;

	if (af_pango_start(f))
		return -1;
	if (size != f->draw_size) {
		af_pango_size(f->pg, f->draw, size);
		f->draw_size = size;
	}
	/* the glyphs are rasterized for the device: HiDPI PNGs are scaled */
	f->pg->pango_cairo_update_context(cr, f->draw_ctx);
	f->pg->pango_layout_set_text(f->draw, text, -1);
	cairo_get_current_point(cr, &x, &y);
	cairo_save(cr); /* Pango sets its own fonts */
	cairo_move_to(cr, x, y);
	f->pg->pango_cairo_show_layout_line(cr, f->pg->pango_layout_get_line_readonly(f->draw, 0));
	cairo_restore(cr);
	return 0;
}

int af_font_show(af_font *f, cairo_t *cr, const char *text, double size)
{
	size_t len, i = 0, n = 0;
	double x, y, w = 0;

	if (!af_text_plain(f, text))
		return af_font_show_shaped(f, cr, text, size);
	/* each glyph where Pango would put it: after the advances measured,
	 * which are exact multiples of its units at whole sizes */
	len = strlen(text);
	if (AF_GROW(f->mem, f->glyphs, f->glyphs_cap, len + 1))
		return -1;
	cairo_get_current_point(cr, &x, &y);
	while (i < len) {
		uint32_t cp;
		i += af_next(text + i, len - i, &cp);
		if (af_text_dropped(cp))
			continue;
		f->glyphs[n].x = x + w * size;
		f->glyphs[n].y = y;
		w += af_advance_plain(f, cp);
		f->glyphs[n++].index = f->cps[cp >> 8] ? f->cps[cp >> 8][cp & 255].glyph : 0;
	}
	cairo_show_glyphs(cr, f->glyphs, (int)n);
	return 0;
}
