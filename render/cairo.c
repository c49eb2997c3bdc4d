/*
 * cairo.c - PNG and PDF, drawn with cairo from the same rectangles, fonts
 * and fitting rule as the SVG; font.c draws the texts (Pango for any that
 * is not plain).
 */
#include <cairo-pdf.h>
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "font.h"
#include "layout.h"
#include "legend.h"
#include "png.h"
#include "raster.h"
#include "style.h"
#include "tree.h"

#define AF_CAIRO_MAX_SIDE 32767 /* cairo's image surface limit */

static cairo_status_t af_write_file(void *closure, const unsigned char *data,
                                    unsigned int len)
{
	FILE *f = closure;
	return fwrite(data, 1, len, f) == len ? CAIRO_STATUS_SUCCESS
	                                      : CAIRO_STATUS_WRITE_ERROR;
}

static void af_rounded(cairo_t *cr, double x, double y, double w, double h,
                       double r)
{
	/* a quarter circle as cairo draws a small one: a single Bézier whose
	 * handles are 4/3 tan(pi/8) of the radius, without the trigonometry */
	double k;

	if (r > w / 2)
		r = w / 2;
	if (r > h / 2)
		r = h / 2;
	if (!(r > 0)) {
		cairo_rectangle(cr, x, y, w, h);
		return;
	}
	k = 0.55228474983079340 * r;
	cairo_new_sub_path(cr);
	cairo_move_to(cr, x + w - r, y);
	cairo_curve_to(cr, x + w - r + k, y, x + w, y + r - k, x + w, y + r);
	cairo_line_to(cr, x + w, y + h - r);
	cairo_curve_to(cr, x + w, y + h - r + k, x + w - r + k, y + h, x + w - r, y + h);
	cairo_line_to(cr, x + r, y + h);
	cairo_curve_to(cr, x + r - k, y + h, x, y + h - r + k, x, y + h - r);
	cairo_line_to(cr, x, y + r);
	cairo_curve_to(cr, x, y + r - k, x + r - k, y, x + r, y);
	cairo_close_path(cr);
}

/* Draws `len` bytes of `text` at `size` (the size `cr` is set to) with the
 * left end of its baseline at (x, y), cleaned as the SVG writer escapes it:
 * cairo and Pango refuse invalid UTF-8.  `tmp` is reused from call to
 * call. */
static int af_show(cairo_t *cr, af_buf *tmp, af_font *font, const char *text,
                   size_t len, const char *tail, double size, double x, double y)
{
	tmp->len = 0;
	if (af_text_clean(tmp, text, len) || af_buf_append(tmp, tail, strlen(tail)))
		return -1;
	if (tmp->len == 0)
		return 0;
	cairo_move_to(cr, x, y);
	return af_font_show(font, cr, tmp->data, size);
}

static int af_centered(cairo_t *cr, af_buf *tmp, af_font *font, const char *text,
                       double size, double cx, double y)
{
	double w = af_font_text_width(font, text, strlen(text), size);
	cairo_set_font_size(cr, size);
	return af_show(cr, tmp, font, text, strlen(text), "", size, cx - w / 2, y);
}

/* The android palette's kinds, in one centred row under the title, as
 * legend.c places it. */
static int af_cairo_legend(cairo_t *cr, af_buf *tmp, const af_layout *l, af_style *st,
                           af_font *font, af_rgb ink)
{
	af_legend g;
	double x;
	size_t i;
	int bad = 0;

	af_legend_place(font, l, st, &g);
	x = g.x;
	cairo_set_font_size(cr, g.size);
	for (i = 0; i < g.count; i++) {
		af_rgb c;
		const char *label = af_legend_entry(&g, i, &c);
		cairo_rectangle(cr, x, l->legend_y - g.box, g.box, g.box);
		cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
		cairo_fill(cr);
		x += g.box + g.pad;
		cairo_set_source_rgb(cr, ink.r / 255.0, ink.g / 255.0, ink.b / 255.0);
		bad |= af_show(cr, tmp, font, label, strlen(label), "", g.size, x, l->legend_y);
		x += af_font_text_width(font, label, strlen(label), g.size) + g.gap;
	}
	return bad;
}

/* A frame's corners are rounded where a pixel can show it. */
static double af_corner(const af_rect *r)
{
	return r->h >= 6 && r->w >= 2 ? 2 : 0;
}

static const char *af_label_name(const af_layout *l, const af_rect *r)
{
	return af_tree_name_by_id(l->tree, af_tree_name_id(l->tree, r->node));
}

/* The length of the label of frame `r` (0: none), *dots whether ".."
 * follows; a thumbnail's frame too short to read has none. */
static size_t af_label(const af_layout *l, af_style *st, const af_rect *r, int *dots)
{
	*dots = 0;
	if (l->thumbnail && r->h < l->font_size + 2)
		return 0;
	return af_style_fit(st, af_label_name(l, r), r->w, dots);
}

/* Draws the whole graph; returns a non-zero cairo status on failure.  An
 * image's frames go straight into its pixels, `canvas`, `scale` times the
 * size of the layout; a PDF's (canvas NULL) are cairo's paths. */
static cairo_status_t af_draw(cairo_t *cr, const af_layout *l, af_font *font,
                              af_style *st, af_canvas *canvas, double scale)
{
	const cairo_font_options_t *fo;
	cairo_font_face_t *face = af_font_face(font, &fo);
	cairo_pattern_t *bg;
	double fs = l->font_size;
	size_t i, k, nlabeled = 0, *labeled = NULL;
	af_buf label = {.mem = af_layout_mem(l)};
	af_rgb ink, muted;
	int bad = 0;

	bg = cairo_pattern_create_linear(0, 0, 0, l->height);
	cairo_pattern_add_color_stop_rgb(bg, 0.05, st->bg[0].r / 255.0, st->bg[0].g / 255.0,
	                                 st->bg[0].b / 255.0);
	cairo_pattern_add_color_stop_rgb(bg, 0.95, st->bg[1].r / 255.0, st->bg[1].g / 255.0,
	                                 st->bg[1].b / 255.0);
	cairo_set_source(cr, bg);
	cairo_paint(cr);
	cairo_pattern_destroy(bg);

	cairo_set_font_face(cr, face);
	cairo_set_font_options(cr, fo);
	/* the texts stand out 4.5:1 from the background, as in the SVG */
	ink = af_style_ink(st, AF_INK_TEXT);
	muted = af_style_ink(st, AF_INK_MUTED);
	cairo_set_source_rgb(cr, ink.r / 255.0, ink.g / 255.0, ink.b / 255.0);
	if (!l->thumbnail)
		bad |= af_centered(cr, &label, font, l->title, fs + 5, l->width / 2, fs * 2);
	if (l->subtitle && !l->thumbnail) {
		cairo_set_source_rgb(cr, muted.r / 255.0, muted.g / 255.0, muted.b / 255.0);
		bad |= af_centered(cr, &label, font, l->subtitle, fs, l->width / 2, fs * 4);
	}
	if (l->legend && st->opt->palette == AF_PALETTE_ANDROID)
		bad |= af_cairo_legend(cr, &label, l, st, font, ink);
	cairo_set_font_size(cr, fs);

	if (canvas) {
		/* the frames straight into the pixels, noting those with a label
		 * while their nodes are at hand; then the labels */
		size_t cap = 0;
		cairo_surface_flush(cairo_get_target(cr));
		const af_pnode *nodes = af_tree_nodes(l->tree);
		const char *const *names_of = af_tree_name_table(l->tree);
		/* a thumbnail's frames are mostly too short for a label */
		size_t ahead = !l->thumbnail || l->frame_height >= fs + 2 ? l->nrects : 0;
		for (i = 0; i < l->nrects; i++) {
			const af_rect *r = &l->rects[i];
			af_rgb c = af_style_fill_at(st, i, r);
			int dots;
			/* as svg.c: a frame's node, name entry and name fetched ahead */
			if (i + 12 < ahead)
				__builtin_prefetch(&nodes[l->rects[i + 12].node]);
			if (i + 8 < ahead)
				__builtin_prefetch(&names_of[nodes[l->rects[i + 8].node].key]);
			if (i + 4 < ahead)
				__builtin_prefetch(names_of[nodes[l->rects[i + 4].node].key]);
			af_canvas_box(canvas, r->x * scale, r->y * scale, r->w * scale, r->h * scale,
			              af_corner(r) * scale, c.r, c.g, c.b);
			if (bad || !af_label(l, st, r, &dots))
				continue;
			bad = AF_GROW(af_layout_mem(l), labeled, cap, nlabeled + 1);
			if (!bad)
				labeled[nlabeled++] = i;
		}
		cairo_surface_mark_dirty(cairo_get_target(cr));
	}
	for (k = 0; k < (canvas ? nlabeled : l->nrects) && !bad; k++) {
		size_t at = canvas ? labeled[k] : k;
		const af_rect *r = &l->rects[at];
		af_rgb c = af_style_fill_at(st, at, r);
		size_t n;
		int dots;

		if (!canvas) {
			af_rounded(cr, r->x, r->y, r->w, r->h, af_corner(r));
			cairo_set_source_rgb(cr, c.r / 255.0, c.g / 255.0, c.b / 255.0);
			cairo_fill(cr);
		}
		if ((n = af_label(l, st, r, &dots)) == 0)
			continue;
		if (af_style_label_light(c))
			cairo_set_source_rgb(cr, 1, 1, 1);
		else
			cairo_set_source_rgb(cr, 0, 0, 0);
		bad |= af_show(cr, &label, font, af_label_name(l, r), n, dots ? ".." : "", fs,
		               r->x + 3, r->y + r->h / 2 + 3);
	}
	af_free(af_layout_mem(l), labeled);
	af_buf_free(&label);
	/* a label measured without memory was left out: the picture is wrong */
	bad |= af_font_failed(font);
	return bad ? CAIRO_STATUS_NO_MEMORY : cairo_status(cr);
}

static af_status af_cairo_emit(const af_layout *l, af_format format,
                               const af_render_options *opt, af_style *st, FILE *out,
                               af_error *err)
{
	double scale = opt->scale > 0 ? opt->scale : 1;
	af_mem *mem = af_layout_mem(l);
	unsigned char *pixels = NULL; /* the PNG's, from the layout's allocator */
	cairo_surface_t *s;
	cairo_t *cr;
	cairo_status_t cs;

	if (format == AF_FORMAT_PNG) {
		double w = ceil(l->width * scale), h = ceil(l->height * scale);
		if (w > AF_CAIRO_MAX_SIDE || h > AF_CAIRO_MAX_SIDE)
			return af_fail(err, AF_ERR_LIMIT, -1,
			               "a %.0f x %.0f px PNG is larger than cairo's %d px "
			               "limit (a stack %u frames deep); use SVG or PDF",
			               w, h, AF_CAIRO_MAX_SIDE, l->max_depth);
		int stride = cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, (int)w);
		pixels = stride > 0 ? af_calloc(mem, (size_t)h, (size_t)stride) : NULL;
		if (!pixels)
			return af_fail(err, AF_ERR_NOMEM, -1,
			               "out of memory for a %.0f x %.0f px image", w, h);
		s = cairo_image_surface_create_for_data(pixels, CAIRO_FORMAT_RGB24,
		                                        (int)w, (int)h, stride);
	} else if (format == AF_FORMAT_PDF) {
		s = cairo_pdf_surface_create_for_stream(af_write_file, out, l->width,
		                                        l->height);
		/* a fixed date: the same input gives the same bytes */
		cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATE_DATE,
		                               "2000-01-01T00:00:00Z");
		cairo_pdf_surface_set_metadata(s, CAIRO_PDF_METADATA_CREATOR,
		                               "aflame-render");
		scale = 1;
	} else {
		return af_fail(err, AF_ERR_ARG, -1, "cairo draws PNG and PDF only");
	}
	if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
		cs = cairo_surface_status(s);
		cairo_surface_destroy(s);
		af_free(mem, pixels);
		return af_fail(err, cs == CAIRO_STATUS_NO_MEMORY ? AF_ERR_NOMEM : AF_ERR_RENDER,
		               -1, "cairo: %s", cairo_status_to_string(cs));
	}
	cr = cairo_create(s);
	cairo_scale(cr, scale, scale);
	{
		af_canvas canvas = {pixels, cairo_image_surface_get_width(s),
		                    cairo_image_surface_get_height(s),
		                    cairo_image_surface_get_stride(s)};
		cs = af_draw(cr, l, opt->font, st, pixels ? &canvas : NULL, scale);
	}
	cairo_destroy(cr);
	if (cs == CAIRO_STATUS_SUCCESS) {
		cairo_surface_finish(s);
		cs = cairo_surface_status(s);
	}
	if (cs == CAIRO_STATUS_SUCCESS && format == AF_FORMAT_PNG) {
		af_status ps = af_png_write(pixels, cairo_image_surface_get_width(s),
		                            cairo_image_surface_get_height(s),
		                            cairo_image_surface_get_stride(s),
		                            opt->quick_png ? AF_PNG_QUICK : AF_PNG_SMALL, mem, out,
		                            err);
		if (ps != AF_OK) {
			cairo_surface_destroy(s);
			af_free(mem, pixels);
			return ps;
		}
	}
	cairo_surface_destroy(s);
	af_free(mem, pixels);
	if (cs == CAIRO_STATUS_WRITE_ERROR)
		return af_fail(err, AF_ERR_IO, -1, "write failed");
	if (cs == CAIRO_STATUS_NO_MEMORY && af_font_no_pango(opt->font))
		return af_fail(err, AF_ERR_RENDER, -1, "%s", af_font_no_pango(opt->font));
	if (cs != CAIRO_STATUS_SUCCESS)
		return af_fail(err, cs == CAIRO_STATUS_NO_MEMORY ? AF_ERR_NOMEM : AF_ERR_RENDER,
		               -1, "cairo: %s", cairo_status_to_string(cs));
	if (fflush(out) || ferror(out))
		return af_fail(err, AF_ERR_IO, -1, "write failed");
	return AF_OK;
}

af_status af_cairo_write(const af_layout *l, af_format format,
                         const af_render_options *opt, FILE *out, af_error *err)
{
	af_style st;
	af_status s;

	if (!opt || !opt->font)
		return af_fail(err, AF_ERR_ARG, -1, "no font given to the cairo renderer");
	if ((s = af_style_init(&st, l, opt, err)) == AF_OK) {
		s = af_cairo_emit(l, format, opt, &st, out, err);
		af_style_free(&st);
	}
	return af_mem_explain(af_layout_mem(l), s, err);
}
