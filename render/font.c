/*
 * font.c - the pinned font (DejaVu Sans) and its metrics.  Labels are
 * measured here once for every renderer, so SVG, PNG and PDF truncate names
 * the same way.  fontconfig is asked through the project's own
 * configuration, never the process-wide one, so the font cannot change with
 * the machine's settings.
 */
#include <cairo-ft.h>
#include <errno.h>
#include <fontconfig/fontconfig.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "font.h"
#include "internal.h"

#define AF_FONT_FAMILY "DejaVu Sans"
#define AF_REF_SIZE 64.0 /* px at which advances are measured */
#define AF_BMP 65536

struct af_font {
	af_mem *mem;
	FcConfig *config;
	cairo_font_face_t *face;
	cairo_font_options_t *options;
	cairo_scaled_font_t *ref; /* the face at AF_REF_SIZE */
	float *advance;           /* per BMP code point at size 1; < 0 = unknown */
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

	if (!f)
		return;
	if (f->ref)
		cairo_scaled_font_destroy(f->ref);
	if (f->face)
		cairo_font_face_destroy(f->face);
	if (f->options)
		cairo_font_options_destroy(f->options);
	if (f->config)
		FcConfigDestroy(f->config);
	mem = f->mem;
	af_free(mem, f->advance);
	af_free(mem, f);
	af_mem_unref(mem);
}

af_status af_font_open(const char *conf_path, af_font **out, af_error *err)
{
	return af_font_open_with(conf_path, NULL, out, err);
}

af_status af_font_open_with(const char *conf_path, const af_allocator *allocator,
                            af_font **out, af_error *err)
{
	af_mem *mem = af_mem_new(allocator, UINT64_MAX);
	af_font *f;
	FcPattern *want = NULL, *match = NULL;
	FcResult res;
	FcChar8 *family = NULL;
	cairo_matrix_t size, ident;
	size_t i;
	const char *path = conf_path ? conf_path : af_font_conf_path();

	*out = NULL;
	f = mem ? af_calloc(mem, 1, sizeof *f) : NULL;
	if (!f) {
		af_mem_unref(mem);
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory loading the font");
	}
	f->mem = mem;
	f->advance = af_malloc(mem, AF_BMP * sizeof *f->advance);
	f->config = FcConfigCreate();
	if (!f->advance || !f->config)
		goto nomem;
	for (i = 0; i < AF_BMP; i++)
		f->advance[i] = -1;
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

cairo_font_face_t *af_font_face(af_font *f, const cairo_font_options_t **options)
{
	*options = f->options;
	return f->face;
}

static double af_measure(af_font *f, uint32_t cp)
{
	char utf8[4];
	int n;
	cairo_glyph_t *glyphs = NULL;
	int nglyphs = 0;
	cairo_text_extents_t ext;
	double adv = 0;

	if (cp < 0x80) {
		utf8[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		utf8[0] = (char)(0xC0 | (cp >> 6));
		utf8[1] = (char)(0x80 | (cp & 0x3F));
		n = 2;
	} else if (cp < 0x10000) {
		utf8[0] = (char)(0xE0 | (cp >> 12));
		utf8[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
		utf8[2] = (char)(0x80 | (cp & 0x3F));
		n = 3;
	} else {
		utf8[0] = (char)(0xF0 | (cp >> 18));
		utf8[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
		utf8[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
		utf8[3] = (char)(0x80 | (cp & 0x3F));
		n = 4;
	}
	if (cairo_scaled_font_text_to_glyphs(f->ref, 0, 0, utf8, n, &glyphs, &nglyphs,
	                                     NULL, NULL, NULL) == CAIRO_STATUS_SUCCESS) {
		cairo_scaled_font_glyph_extents(f->ref, glyphs, nglyphs, &ext);
		adv = ext.x_advance / AF_REF_SIZE;
	}
	cairo_glyph_free(glyphs);
	return adv;
}

/* Advance of one code point at size 1: zero for what is never drawn. */
static double af_advance(af_font *f, uint32_t cp)
{
	if (af_text_dropped(cp))
		return 0;
	if (cp >= AF_BMP)
		return af_measure(f, cp);
	if (f->advance[cp] < 0)
		f->advance[cp] = (float)af_measure(f, cp);
	return f->advance[cp];
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

double af_font_text_width(af_font *f, const char *text, size_t len, double size)
{
	double w = 0;
	size_t i = 0;

	while (i < len) {
		uint32_t cp;
		i += af_next(text + i, len - i, &cp);
		w += af_advance(f, cp);
	}
	return w * size;
}

size_t af_font_fit(af_font *f, const char *name, double avail, double size,
                   int *dots)
{
	return af_font_fit_len(f, name, strlen(name), avail, size, dots);
}

size_t af_font_fit_len(af_font *f, const char *name, size_t len, double avail,
                       double size, int *dots)
{
	size_t i = 0, fit = 0;
	double w = 0, dot = 2 * af_advance(f, '.');

	*dots = 0;
	avail /= size;
	/* the first pass stops as soon as the name cannot fit whole */
	while (i < len) {
		uint32_t cp;
		size_t k = af_next(name + i, len - i, &cp);
		w += af_advance(f, cp);
		if (w > avail)
			break;
		i += k;
		if (w + dot <= avail)
			fit = i;
	}
	if (i == len)
		return len;
	*dots = fit > 0;
	return fit;
}
