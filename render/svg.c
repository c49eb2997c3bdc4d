/*
 * svg.c - the project's own SVG writer.  Text stays <text>, so names can be
 * searched and selected; every frame carries a <title> with its full name,
 * time, share and call count.  Shared attributes live in one <style> block.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "style.h"

/* One decimal, without "-0.0". */
static void af_num(FILE *out, double v)
{
	double r = round(v * 10) / 10;
	if (r == 0)
		r = 0;
	if (r == floor(r))
		fprintf(out, "%.0f", r);
	else
		fprintf(out, "%.1f", r);
}

af_status af_svg_write(const af_layout *l, const af_render_options *opt,
                       FILE *out, af_error *err)
{
	af_buf tip = {0};
	size_t i;
	double fs = l->font_size;

	if (!opt || !opt->font)
		return af_fail(err, AF_ERR_ARG, -1, "no font given to the SVG writer");
	fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
	             "<svg version=\"1.1\" width=\"");
	af_num(out, l->width);
	fputs("\" height=\"", out);
	af_num(out, l->height);
	fputs("\" viewBox=\"0 0 ", out);
	af_num(out, l->width);
	fputc(' ', out);
	af_num(out, l->height);
	fputs("\" xmlns=\"http://www.w3.org/2000/svg\">\n"
	      "<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
	      "<stop stop-color=\"#eeeeee\" offset=\"5%\"/>"
	      "<stop stop-color=\"#eeeeb0\" offset=\"95%\"/></linearGradient></defs>\n",
	      out);
	fprintf(out, "<style>text{font-family:\"DejaVu Sans\",Verdana,sans-serif;"
	             "font-size:%gpx;fill:#000}#title{text-anchor:middle;font-size:%gpx}"
	             "rect{rx:2px;ry:2px}</style>\n",
	        fs, fs + 5);
	fputs("<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
	      "fill=\"url(#background)\" rx=\"0\" ry=\"0\"/>\n<text id=\"title\" x=\"",
	      out);
	af_num(out, l->width / 2);
	fputs("\" y=\"", out);
	af_num(out, fs * 2);
	fputs("\">", out);
	af_xml_escape(out, l->title, strlen(l->title));
	fputs("</text>\n<g id=\"frames\">\n", out);

	for (i = 0; i < l->nrects; i++) {
		const af_rect *r = &l->rects[i];
		af_node_info ni;
		const char *name;
		af_rgb c;
		size_t n;
		int dots;

		af_tree_node(l->tree, r->node, &ni);
		name = ni.name;
		c = af_style_color(name);
		tip.len = 0;
		if (af_style_tooltip(&tip, l, r)) {
			free(tip.data);
			return af_fail(err, AF_ERR_NOMEM, -1, "out of memory writing SVG");
		}
		fputs("<g><title>", out);
		af_xml_escape(out, tip.data, tip.len);
		fputs("</title><rect x=\"", out);
		af_num(out, r->x);
		fputs("\" y=\"", out);
		af_num(out, r->y);
		fputs("\" width=\"", out);
		af_num(out, r->w);
		fputs("\" height=\"", out);
		af_num(out, r->h);
		fprintf(out, "\" fill=\"rgb(%u,%u,%u)\"/>", c.r, c.g, c.b);
		/* fit first, escape after: an entity is never cut in two */
		n = af_font_fit(opt->font, name, r->w - 6, fs, &dots);
		if (n > 0) {
			fputs("<text x=\"", out);
			af_num(out, r->x + 3);
			fputs("\" y=\"", out);
			af_num(out, r->y + r->h / 2 + 3);
			fputs("\">", out);
			af_xml_escape(out, name, n);
			if (dots)
				fputs("..", out);
			fputs("</text>", out);
		}
		fputs("</g>\n", out);
	}
	fputs("</g>\n</svg>\n", out);
	free(tip.data);
	if (fflush(out) || ferror(out))
		return af_fail(err, AF_ERR_IO, -1, "write failed");
	return AF_OK;
}
