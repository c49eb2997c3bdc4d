/*
 * svg.c - the project's own SVG writer.  Text stays <text>, so names can be
 * searched and selected; every frame carries a <title> with its full name,
 * time, share and call count.  Shared attributes live in one <style> block.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame_js.h"
#include "style.h"

#define AF_MATCH_FILL "rgb(230,0,230)"

/* The script's settings: geometry, and the font's advances at size 1 so
 * labels are re-fitted after a zoom by arithmetic, not by measuring nodes. */
static void af_svg_script(FILE *out, const af_layout *l, af_font *font)
{
	double ypad2 = l->font_size * 2 + 10;
	int c;

	fputs("<script type=\"text/ecmascript\"><![CDATA[\nvar AF={", out);
	fprintf(out, "width:%g,xpad:%g,fs:%g,fh:%g,bottom:%g,top:%g,inverted:false,",
	        l->width, l->xpad, l->font_size, l->frame_height,
	        l->height - ypad2 + 1 - l->frame_height, l->font_size * 3 + 1);
	fputs("match:\"" AF_MATCH_FILL "\",cw:[", out);
	for (c = 32; c < 127; c++) {
		char ch = (char)c;
		fprintf(out, "%s%.4f", c > 32 ? "," : "", af_font_text_width(font, &ch, 1, 1));
	}
	fprintf(out, "],other:%.4f,wide:1};\n",
	        af_font_text_width(font, "\xC3\xA9", 2, 1));
	fputs(af_flame_js, out);
	fputs("]]></script>\n", out);
}

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
	             "#frames rect{rx:2px;ry:2px}#frames g{cursor:pointer}"
	             "#frames g:hover rect{stroke:#000;stroke-width:.5}"
	             ".parent{opacity:.5}.hide{display:none}#matched{text-anchor:end}"
	             "#unzoom,#search,#ignorecase{cursor:pointer;fill:#555}"
	             "#ignorecase.on{fill:#000;font-weight:bold}</style>\n",
	        fs, fs + 5);
	fputs("<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
	      "fill=\"url(#background)\" rx=\"0\" ry=\"0\"/>\n<text id=\"title\" x=\"",
	      out);
	af_num(out, l->width / 2);
	fputs("\" y=\"", out);
	af_num(out, fs * 2);
	fputs("\">", out);
	af_xml_escape(out, l->title, strlen(l->title));
	fputs("</text>\n", out);
	if (!opt->no_javascript) {
		double ypad2 = fs * 2 + 10;
		fprintf(out, "<text id=\"unzoom\" class=\"hide\" x=\"%g\" y=\"%g\">Reset Zoom</text>\n"
		             "<text id=\"search\" x=\"%g\" y=\"%g\">Search</text>\n"
		             "<text id=\"ignorecase\" x=\"%g\" y=\"%g\">ic</text>\n"
		             "<text id=\"details\" x=\"%g\" y=\"%g\"> </text>\n"
		             "<text id=\"matched\" x=\"%g\" y=\"%g\"></text>\n",
		        l->xpad, fs * 2, l->width - l->xpad - 100, fs * 2,
		        l->width - l->xpad - 16, fs * 2, l->xpad, l->height - ypad2 / 2,
		        l->width - l->xpad, l->height - ypad2 / 2);
		af_svg_script(out, l, opt->font);
	}
	fputs("<g id=\"frames\">\n", out);

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
		fprintf(out, "<g v=\"%llu\"><title>",
		        (unsigned long long)ni.total[l->clock]);
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
