/*
 * svg.c - the project's own SVG writer.  Text stays <text>, so names can be
 * searched and selected, and labels show without a script.
 *
 * The interactive SVG stores what a tooltip says once: each distinct name in
 * a table, and per frame (in drawing order) the index of its name, its total
 * and its call count, in the script at the end.  flame.js builds the hover
 * details and a <title> from them.  A frame is then only
 * <g><rect x y width fill/>[<text>label</text>]</g>: the rects' common height
 * is set once in the style sheet (an SVG 2 geometry property).  The static
 * SVG (--no-javascript, thumbnails) keeps a full <title> and a height on
 * every frame, for viewers without a script or CSS geometry.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "flame_js.h"
#include "font.h"
#include "layout.h"
#include "legend.h"
#include "style.h"
#include "tree.h"

#define AF_MATCH_FILL "#e600e6"
#define AF_SVG_AHEAD 4 /* frames between the fetches of a frame's parts */

/* `v` in the fewest digits that read back as exactly `v` (the script must
 * compute with the very doubles the C side used). */
static void af_svg_exact(af_out *out, double v)
{
	char buf[40];
	int digits;

	for (digits = 15; digits < 17; digits++) {
		snprintf(buf, sizeof buf, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	if (digits == 17)
		snprintf(buf, sizeof buf, "%.17g", v);
	af_out_puts(out, buf);
}

static int af_cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* A name of the script's table, looked at once: its id, the length its
 * labels show (af_style_shown) and whether it is all ASCII (then it adds no
 * advance to the script's ASCII table, and it is plain: no cuts). */
typedef struct af_svg_name {
	uint32_t id;
	int ascii;
	size_t shown;
} af_svg_name;

static void af_svg_name_init(af_svg_name *e, uint32_t id, const char *name)
{
	const unsigned char *p = (const unsigned char *)name;
	unsigned high = 0;

	for (; *p; p++)
		high |= *p;
	e->id = id;
	e->ascii = high < 0x80;
	e->shown = af_style_shown(name, (size_t)(p - (const unsigned char *)name));
}

/* Writes the advances, at size 1, of the characters beyond ASCII that the
 * names (and tooltips) hold, as "{cp:advance,...}": with the ASCII table,
 * the script fits every label with the very numbers the C side used.
 * Returns non-zero when out of memory. */
static int af_svg_advances(af_out *out, const af_layout *l, af_font *font,
                           const af_svg_name *names, size_t nnames)
{
	af_mem *mem = af_layout_mem(l);
	uint32_t *cps = NULL;
	size_t n = 0, cap = 0, i, k;

	/* and those of the tooltips' own text: "µs", "→" */
	if (af_grow(mem, (void **)&cps, &cap, 2, sizeof *cps))
		return -1;
	cps[n++] = 0xB5;
	cps[n++] = 0x2192;
	for (i = 0; i < nnames; i++) {
		const char *name;
		size_t len, at = 0;
		if (names[i].ascii)
			continue;
		name = af_tree_name_by_id(l->tree, names[i].id);
		len = strlen(name);
		while (at < len) {
			uint32_t cp;
			size_t step;
			if ((unsigned char)name[at] < 0x80) { /* in the ASCII table */
				at++;
				continue;
			}
			step = af_utf8_decode((const unsigned char *)name + at, len - at, &cp);
			if (step == 0) { /* drawn, and written to the script, as U+FFFD */
				cp = 0xFFFD;
				step = 1;
			}
			at += step;
			if (cp < 0x80 || af_text_dropped(cp))
				continue;
			if (af_grow(mem, (void **)&cps, &cap, n + 1, sizeof *cps)) {
				af_free(mem, cps);
				return -1;
			}
			cps[n++] = cp;
		}
	}
	if (n)
		qsort(cps, n, sizeof *cps, af_cmp_u32);
	af_out_putc(out, '{');
	for (i = 0, k = 0; i < n; i++) {
		if (i && cps[i] == cps[i - 1])
			continue;
		af_out_printf(out, "%s%lu:", k++ ? "," : "", (unsigned long)cps[i]);
		af_svg_exact(out, af_font_advance(font, cps[i]));
	}
	af_out_putc(out, '}');
	af_free(mem, cps);
	return 0;
}

/* Writes, as "{i:[u16,w,...],...}", the places the names that are not
 * plain may end at (font.h's af_font_cuts()), for the i-th name of the
 * table: the script fits those with them, as af_style_fit() does.  A name's
 * places end with the first one wider than the graph, which no zoom can
 * pass.  Returns non-zero when out of memory. */
static int af_svg_cuts(af_out *out, const af_layout *l, af_font *font,
                       const af_svg_name *names, size_t nnames)
{
	double limit = l->width / l->font_size;
	size_t i, j, n, k = 0;

	af_out_putc(out, '{');
	for (i = 0; i < nnames; i++) {
		const af_cut *c;
		if (names[i].ascii)
			continue;
		c = af_font_cuts(font, af_tree_name_by_id(l->tree, names[i].id), names[i].shown,
		                 &n);
		if (!c)
			continue;
		af_out_printf(out, "%s%zu:[", k++ ? "," : "", i);
		for (j = 0; j < n; j++) {
			af_out_printf(out, "%s%lu,", j ? "," : "", (unsigned long)c[j].u16);
			af_svg_exact(out, c[j].w);
			if (c[j].w > limit)
				break;
		}
		af_out_putc(out, ']');
	}
	af_out_putc(out, '}');
	return af_font_failed(font);
}

/* The script, after the frames: the settings (geometry, the font's advances
 * at size 1 so labels are re-fitted after a zoom by the same arithmetic as
 * here, how values are printed), the name table and the frames' data, then
 * flame.js.  Returns non-zero when out of memory. */
static int af_svg_script(af_out *out, const af_layout *l, const af_render_options *opt,
                         double rect_h, const af_style *st, const af_svg_name *names,
                         size_t nnames, const af_buf *data)
{
	double ypad2 = l->font_size * 2 + 10, unit;
	af_font *font = opt->font;
	size_t i;
	int c;

	af_out_puts(out, "<script type=\"text/ecmascript\"><![CDATA[\nvar AF={");
	af_out_printf(out, "width:%g,height:%g,xpad:%g,fs:%g,fh:%g,rh:%g,bottom:%g,top:%g,"
	             "inverted:%s,",
	        l->width, l->height, l->xpad, l->font_size, l->frame_height, rect_h,
	        l->height - ypad2 + 1 - l->frame_height, l->top,
	        l->inverted ? "true" : "false");
	af_out_puts(out, "fontwidth:");
	af_svg_exact(out, opt->fontwidth > 0 ? opt->fontwidth : 0);
	af_out_putc(out, ',');
	af_out_puts(out, "nametype:");
	af_out_js(out, opt->nametype ? opt->nametype : "",
	             opt->nametype ? strlen(opt->nametype) : 0);
	/* how a tooltip prints a value: as style.c's af_style_tooltip does;
	 * diff: differential input (a change per frame), cmp: a diff of two
	 * profiles (BEFORE and AFTER per frame); a count's factor takes it
	 * from the tree's unit (af_tree_decimals) */
	for (c = 0, unit = 1; c < (int)af_tree_decimals(l->tree); c++)
		unit *= 10;
	af_out_printf(out, ",total:%llu,unit:%.17g,factor:%.17g,time:%s,diff:%s,cmp:%s,countname:",
	        (unsigned long long)l->total, unit, l->factor / unit,
	        af_tree_is_time(l->tree) && !opt->countname ? "true" : "false",
	        st->differential && !af_tree_is_diff(l->tree) ? "true" : "false",
	        af_tree_is_diff(l->tree) ? "true" : "false");
	af_out_js(out, af_style_countname(l, opt), strlen(af_style_countname(l, opt)));
	/* the input's unit (af_style_unit): bytes and nanoseconds as amounts */
	af_out_printf(out, ",vunit:\"%s\"", af_style_unit(l, opt));
	af_out_puts(out, ",match:\"" AF_MATCH_FILL "\",cw:[");
	for (c = 32; c < 127; c++) {
		char ch = (char)c;
		if (c > 32)
			af_out_putc(out, ',');
		af_svg_exact(out, af_font_text_width(font, &ch, 1, 1));
	}
	af_out_puts(out, "],cx:");
	if (af_svg_advances(out, l, font, names, nnames))
		return -1;
	af_out_puts(out, ",cuts:");
	if (opt->fontwidth > 0)
		af_out_puts(out, "{}"); /* flamegraph.pl's rule counts characters */
	else if (af_svg_cuts(out, l, font, names, nnames))
		return -1;
	af_out_puts(out, ",\n");
	/* one string a name, in order of first use */
	af_out_puts(out, "names:[");
	for (i = 0; i < nnames; i++) {
		if (i)
			af_out_putc(out, ',');
		af_out_js(out, af_tree_name_by_id(l->tree, names[i].id), names[i].shown);
	}
	/* native frames: each name's library (0: none), when some have one */
	for (i = 0; i < nnames && !af_tree_lib(l->tree, names[i].id); i++)
		;
	if (i < nnames) {
		af_out_puts(out, "],\nlibs:[");
		for (i = 0; i < nnames; i++) {
			const char *lib = af_tree_lib(l->tree, names[i].id);
			if (i)
				af_out_putc(out, ',');
			if (lib)
				af_out_js(out, lib, strlen(lib));
			else
				af_out_putc(out, '0');
		}
	}
	/* per frame: name index, total, calls, then with diff the change, with
	 * cmp total BEFORE and AFTER, self BEFORE and AFTER */
	af_out_puts(out, "],\nframes:[");
	if (data->len)
		af_out_write(out, data->data, data->len - 1); /* no trailing ',' */
	af_out_puts(out, "]};\n");
	af_out_puts(out, af_flame_js);
	af_out_puts(out, "]]></script>\n");
	return 0;
}

/* `k` in decimal at `d`, which has room for 24 bytes: its digits are made
 * two at a time backwards, then moved by a copy of fixed size (no call).
 * Returns their count (at most 20). */
static size_t af_utoa(char *d, unsigned long long k)
{
	static const char pairs[] = "00010203040506070809101112131415161718192021222324"
	                            "25262728293031323334353637383940414243444546474849"
	                            "50515253545556575859606162636465666768697071727374"
	                            "75767778798081828384858687888990919293949596979899";
	char tmp[48], *end = tmp + 24, *p = end;

	while (k >= 100) {
		unsigned i = (unsigned)(k % 100) * 2;
		k /= 100;
		*--p = pairs[i + 1];
		*--p = pairs[i];
	}
	if (k >= 10) {
		*--p = pairs[k * 2 + 1];
		*--p = pairs[k * 2];
	} else {
		*--p = (char)('0' + k);
	}
	memcpy(d, p, 24);
	return (size_t)(end - p);
}

/* One decimal, without "-0.0". */
static void af_num(af_out *out, double v)
{
	double t = v * 10;
	long long q;
	unsigned long long k;
	char *d, *p;

	if (!(fabs(t) < 1e15)) { /* never for coordinates; kept exact anyway */
		double r = round(t) / 10;
		af_out_printf(out, r == floor(r) ? "%.0f" : "%.1f", r == 0 ? 0 : r);
		return;
	}
	/* round(t), half away from zero, without a call: adding the double
	 * just under one half and cutting the fraction gives the same integer
	 * for every |t| below 2^52 */
	q = (long long)(t + copysign(0.49999999999999994, t));
	/* tenths as an integer: "12", "12.5", "-0.5", never "-0" */
	k = (unsigned long long)(q < 0 ? -q : q);
	d = p = af_out_room(out, 28);
	if (q < 0)
		*p++ = '-';
	p += af_utoa(p, k / 10);
	if (k % 10) {
		*p++ = '.';
		*p++ = (char)('0' + k % 10);
	}
	out->len += (size_t)(p - d);
}

/* Ends a <rect> with its fill: `" fill="#rrggbb"/>`. */
static void af_fill(af_out *out, af_rgb c)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char v[3] = {c.r, c.g, c.b};
	char tail[] = "\" fill=\"#rrggbb\"/>";
	int i;

	for (i = 0; i < 3; i++) {
		tail[9 + 2 * i] = hex[v[i] >> 4];
		tail[10 + 2 * i] = hex[v[i] & 15];
	}
	af_out_puts(out, tail);
}

/* Appends `v` in decimal and a comma to the script's data. */
static int af_data_uint(af_buf *b, unsigned long long v)
{
	if (AF_GROW(b->mem, b->data, b->cap, b->len + 26))
		return -1;
	b->len += af_utoa(b->data + b->len, v);
	b->data[b->len++] = ',';
	b->data[b->len] = '\0';
	return 0;
}

/* A frame's opening: `<a ...>` when --nameattr makes it a link, then
 * `<g ...>` with the attributes given for it.  namemap.c kept only safe
 * attributes with plain names, each once (af_namemap_get() gives their
 * form); this writes them.  Returns 1 when an <a> was opened; *title is the
 * tooltip given for the frame (*tlen bytes), or NULL. */
static int af_svg_open_frame(af_out *out, const af_namemap *map, const char *name,
                             const char **title, size_t *tlen)
{
	const char *attrs = map ? af_namemap_get(map, name) : NULL;
	int link = 0, pass;

	*title = NULL;
	*tlen = 0;
	for (pass = 0; pass < 2; pass++) { /* the <a>'s, then the <g>'s */
		const char *p = attrs;
		if (pass == 1)
			af_out_puts(out, "<g");
		while (p && *p) {
			const char *end = strchr(p, '\t'), *eq = strchr(p, '=');
			size_t len = end ? (size_t)(end - p) : strlen(p), klen, vlen;
			int for_a, is_a_extra;

			if (eq && eq < p + len) {
				klen = (size_t)(eq - p);
				vlen = len - klen - 1;
				is_a_extra = klen > 2 && memcmp(p, "a:", 2) == 0;
				for_a = is_a_extra || (klen == 4 && memcmp(p, "href", 4) == 0) ||
				        (klen == 6 && memcmp(p, "target", 6) == 0);
				if (klen == 5 && memcmp(p, "title", 5) == 0) {
					*title = eq + 1;
					*tlen = vlen;
				} else if (for_a == (pass == 0)) {
					if (pass == 0 && !link) {
						af_out_puts(out, "<a");
						link = 1;
					}
					af_out_printf(out, " %.*s=\"", (int)(klen - (is_a_extra ? 2 : 0)),
					        p + (is_a_extra ? 2 : 0));
					af_out_xml(out, eq + 1, vlen);
					af_out_putc(out, '"');
				}
			}
			p = end ? end + 1 : NULL;
		}
		if (link || pass == 1)
			af_out_putc(out, '>');
	}
	return link;
}

static void af_svg_text(af_out *out, const char *attrs, double x, double y,
                        const char *text)
{
	af_out_printf(out, "<text %s x=\"", attrs);
	af_num(out, x);
	af_out_puts(out, "\" y=\"");
	af_num(out, y);
	af_out_puts(out, "\">");
	af_out_xml(out, text, strlen(text));
	af_out_puts(out, "</text>\n");
}

/* The android palette's kinds, in one centred row under the title, as
 * legend.c places it. */
static void af_svg_legend(af_out *out, const af_layout *l, const af_render_options *opt,
                          af_style *style)
{
	af_legend g;
	double x;
	size_t i;

	af_legend_place(opt->font, l, style, &g);
	x = g.x;
	af_out_puts(out, "<g id=\"legend\">");
	for (i = 0; i < g.count; i++) {
		af_rgb c;
		const char *label = af_legend_entry(&g, i, &c);
		af_out_puts(out, "<rect x=\"");
		af_num(out, x);
		af_out_puts(out, "\" y=\"");
		af_num(out, l->legend_y - g.box);
		af_out_printf(out, "\" width=\"%.2f\" height=\"%.2f\" fill=\"#%02x%02x%02x\"/>", g.box,
		        g.box, c.r, c.g, c.b);
		x += g.box + g.pad;
		af_out_puts(out, "<text x=\"");
		af_num(out, x);
		af_out_puts(out, "\" y=\"");
		af_num(out, l->legend_y);
		/* smaller to fit: a style, as the style sheet sets every text's size */
		if (g.size != l->font_size)
			af_out_printf(out, "\" style=\"font-size:%.2fpx", g.size);
		af_out_puts(out, "\">");
		af_out_xml(out, label, strlen(label));
		af_out_puts(out, "</text>");
		x += af_font_text_width(opt->font, label, strlen(label), g.size) + g.gap;
	}
	af_out_puts(out, "</g>\n");
}

/* The frames, then (interactive) the script with their data. */
static af_status af_svg_frames(const af_layout *l, const af_render_options *opt,
                               af_style *st, int interactive, double rect_h,
                               af_out *out, af_error *err)
{
	af_mem *mem = af_layout_mem(l);
	af_buf tip = {.mem = mem}, data = {.mem = mem};
	uint32_t *index = NULL;
	af_svg_name *names = NULL;
	size_t i, nnames = 0, count = af_tree_name_count(l->tree);
	double fs = l->font_size;
	af_status status = AF_OK;
	int bad = 0;
	const af_pnode *nodes = af_tree_nodes(l->tree);
	const char *const *names_of = af_tree_name_table(l->tree);

	if (interactive) {
		/* name id -> place in the table (UINT32_MAX: not yet in it) */
		index = af_malloc(mem, (count ? count : 1) * sizeof *index);
		names = af_malloc(mem, (count ? count : 1) * sizeof *names);
		if (!index || !names) {
			status = af_fail(err, AF_ERR_NOMEM, -1, "out of memory writing SVG");
			goto done;
		}
		memset(index, 0xFF, count * sizeof *index);
	}
	af_out_puts(out, "<g id=\"frames\">\n");
	for (i = 0; i < l->nrects && !bad; i++) {
		const af_rect *r = &l->rects[i];
		const af_pnode *nd = &nodes[r->node];
		/* frames are drawn in an order the tree's nodes and names do not
		 * lie in: a frame's node, its name's entry and then its name are
		 * fetched some frames ahead, each once the one before is in */
		if (i + 3 * AF_SVG_AHEAD < l->nrects)
			__builtin_prefetch(&nodes[l->rects[i + 3 * AF_SVG_AHEAD].node]);
		if (i + 2 * AF_SVG_AHEAD < l->nrects)
			__builtin_prefetch(&names_of[nodes[l->rects[i + 2 * AF_SVG_AHEAD].node].key]);
		if (i + AF_SVG_AHEAD < l->nrects)
			__builtin_prefetch(names_of[nodes[l->rects[i + AF_SVG_AHEAD].node].key]);
		const char *name = af_tree_name_by_id(l->tree, nd->key);
		af_node_info ni; /* the node's whole record: read only for a change */
		af_rgb col = af_style_fill_at(st, i, r);
		const char *title;
		size_t n, tlen;
		int dots, link;

		link = af_svg_open_frame(out, opt->nameattr, name, &title, &tlen);
		if (title && interactive) {
			/* flame.js shows it instead of the tooltip it builds */
			af_out_puts(out, "<title>");
			af_out_xml(out, title, tlen);
			af_out_puts(out, "</title>");
		}
		if (interactive) {
			uint32_t id = nd->key;
			if (index[id] == UINT32_MAX) {
				index[id] = (uint32_t)nnames;
				af_svg_name_init(&names[nnames++], id, name);
			}
			bad = af_data_uint(&data, index[id]) |
			      af_data_uint(&data, r->value) |
			      af_data_uint(&data, nd->calls);
			if (af_tree_is_diff(l->tree) || (st->differential && r->changed))
				af_tree_node(l->tree, r->node, &ni);
			if (af_tree_is_diff(l->tree)) {
				uint64_t v[4];
				int k;
				af_style_diff_values(st, r, &ni, v);
				for (k = 0; k < 4; k++)
					bad |= af_data_uint(&data, v[k]);
			} else if (st->differential && r->changed && r->node != 0) {
				/* the change, or none (the root's, a frame of a
				 * line with one count) */
				bad |= af_buf_printf(&data, "%.0f,", af_style_change(st, &ni, r));
			} else if (st->differential) {
				bad |= af_buf_append(&data, "null,", 5);
			}
		} else {
			tip.len = 0;
			bad = title ? af_buf_append(&tip, title, tlen)
			            : af_style_tooltip(st, &tip, r);
			af_out_puts(out, "<title>");
			af_out_xml(out, tip.data, tip.len);
			af_out_puts(out, "</title>");
		}
		af_out_puts(out, "<rect x=\"");
		af_num(out, r->x);
		af_out_puts(out, "\" y=\"");
		af_num(out, r->y);
		af_out_puts(out, "\" width=\"");
		af_num(out, r->w);
		if (r->h != rect_h) {
			af_out_puts(out, "\" height=\"");
			af_num(out, r->h);
		}
		af_fill(out, col);
		/* fit first, escape after: an entity is never cut in two */
		/* flamegraph.pl labels every frame wide enough, however tall
		 * the font; a thumbnail only where the label can be read */
		n = !l->thumbnail || r->h >= fs + 2 ? af_style_fit(st, name, r->w, &dots) : 0;
		if (n > 0) {
			/* white on dark fills: every label stands out 4.5:1 */
			af_out_puts(out, af_style_label_light(col) ? "<text class=\"w\" x=\"" : "<text x=\"");
			af_num(out, r->x + 3);
			af_out_puts(out, "\" y=\"");
			af_num(out, r->y + r->h / 2 + 3);
			af_out_puts(out, "\">");
			af_out_xml(out, name, n);
			if (dots)
				af_out_puts(out, "..");
			af_out_puts(out, "</text>");
		}
		af_out_puts(out, link ? "</g></a>\n" : "</g>\n");
	}
	af_out_puts(out, "</g>\n");
	if (bad) {
		status = af_fail(err, AF_ERR_NOMEM, -1, "out of memory writing SVG");
		goto done;
	}
	if (st->failed) {
		status = af_fail(err, AF_ERR_NOMEM, -1, "out of memory growing the palette map");
		goto done;
	}
	if (af_font_failed(opt->font)) {
		status = af_font_no_pango(opt->font)
		         ? af_fail(err, AF_ERR_RENDER, -1, "%s", af_font_no_pango(opt->font))
		         : af_fail(err, AF_ERR_NOMEM, -1, "out of memory measuring labels");
		goto done;
	}
	if (interactive && af_svg_script(out, l, opt, rect_h, st, names, nnames, &data)) {
		status = af_fail(err, AF_ERR_NOMEM, -1, "out of memory writing SVG");
		goto done;
	}
	af_out_puts(out, "</svg>\n");
	if (af_out_flush(out) || fflush(out->f) || ferror(out->f))
		status = af_fail(err, AF_ERR_IO, -1, "write failed");
done:
	af_buf_free(&tip);
	af_buf_free(&data);
	af_free(mem, index);
	af_free(mem, names);
	return status;
}

static af_status af_svg_emit(const af_layout *l, const af_render_options *opt,
                             af_style *style, af_out *out, af_error *err)
{
	const af_style *st = style;
	double fs = l->font_size, rect_h;
	const char *enc = opt && opt->encoding ? opt->encoding : "UTF-8";
	const char *c;
	size_t i;
	int interactive;
	char height_css[48] = "";
	af_rgb ink, muted, button;

	interactive = !opt->no_javascript && !l->thumbnail;
	/* the height the style sheet gives every rect, when they share one */
	rect_h = l->nrects ? l->rects[0].h : 0;
	for (i = 1; i < l->nrects && rect_h > 0; i++)
		if (l->rects[i].h != rect_h)
			rect_h = 0;
	if (!interactive)
		rect_h = 0;
	for (c = enc; *c; c++)
		if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') ||
		      (*c >= '0' && *c <= '9') || *c == '-' || *c == '_' || *c == '.'))
			return af_fail(err, AF_ERR_ARG, -1, "bad encoding name '%s'", enc);
	af_out_printf(out, "<?xml version=\"1.0\" encoding=\"%s\" standalone=\"no\"?>\n", enc);
	af_out_puts(out, "<svg version=\"1.1\" width=\"");
	af_num(out, l->width);
	af_out_puts(out, "\" height=\"");
	af_num(out, l->height);
	af_out_puts(out, "\" viewBox=\"0 0 ");
	af_num(out, l->width);
	af_out_putc(out, ' ');
	af_num(out, l->height);
	af_out_puts(out, "\" xmlns=\"http://www.w3.org/2000/svg\">\n");
	if (opt->notes) {
		/* a comment may not hold "--": runs of '-' become one */
		af_buf note = {.mem = af_layout_mem(l)};
		for (c = opt->notes; *c; c++)
			if (!(*c == '-' && c > opt->notes && c[-1] == '-') && *c != '<' &&
			    *c != '>' && af_buf_append(&note, c, 1)) {
				af_buf_free(&note);
				return af_fail(err, AF_ERR_NOMEM, -1, "out of memory writing SVG");
			}
		af_out_puts(out, "<!-- ");
		af_out_xml(out, note.data ? note.data : "", note.len);
		af_out_puts(out, " -->\n");
		af_buf_free(&note);
	}
	af_out_printf(out, "<defs><linearGradient id=\"background\" x1=\"0\" y1=\"0\" x2=\"0\" y2=\"1\">"
	             "<stop stop-color=\"#%02x%02x%02x\" offset=\"5%%\"/>"
	             "<stop stop-color=\"#%02x%02x%02x\" offset=\"95%%\"/></linearGradient></defs>\n",
	        st->bg[0].r, st->bg[0].g, st->bg[0].b, st->bg[1].r, st->bg[1].g, st->bg[1].b);
	if (rect_h > 0)
		snprintf(height_css, sizeof height_css, ";height:%gpx", rect_h);
	af_out_puts(out, "<style>text{font-family:");
	if (opt->font_family) {
		for (c = opt->font_family; *c; c++)
			if (*c != '<' && *c != '>' && *c != '&' && *c != '{' && *c != '}' &&
			    *c != ';')
				af_out_putc(out, *c);
	} else {
		af_out_puts(out, AF_FONT_FAMILIES);
	}
	/* drawn as measured: no kerning, no optional ligatures (font.c) */
	af_out_puts(out, ";font-kerning:none;font-variant-ligatures:no-common-ligatures");
	/* every text stands out at least 4.5:1 from the background (style.c) */
	ink = af_style_ink(st, AF_INK_TEXT);
	muted = af_style_ink(st, AF_INK_MUTED);
	button = af_style_ink(st, AF_INK_BUTTON);
	af_out_printf(out, ";font-size:%gpx;fill:#%02x%02x%02x}#frames text{fill:#000}#frames text.w{fill:#fff}"
	             "#title{text-anchor:middle;font-size:%gpx}"
	             "#subtitle{text-anchor:middle;fill:#%02x%02x%02x}"
	             "#frames rect{rx:2px;ry:2px%s}%s"
	             "#frames g:hover rect{stroke:#000;stroke-width:.5}",
	        fs, ink.r, ink.g, ink.b, fs + 5, muted.r, muted.g, muted.b, height_css,
	        interactive ? "#frames g{cursor:pointer}" : "");
	if (interactive) /* the buttons and lines the script draws */
		af_out_printf(out, ".parent{opacity:.5}.hide{display:none}#matched,#search{text-anchor:end}"
		             "#unzoom,#search,#ignorecase{cursor:pointer;fill:#%02x%02x%02x}"
		             "#ignorecase.on{fill:#%02x%02x%02x;font-weight:bold}",
		        button.r, button.g, button.b, ink.r, ink.g, ink.b);
	af_out_puts(out, "</style>\n");
	af_out_puts(out, "<rect x=\"0\" y=\"0\" width=\"100%\" height=\"100%\" "
	      "fill=\"url(#background)\"/>\n");
	if (!l->thumbnail)
		af_svg_text(out, "id=\"title\"", l->width / 2, fs * 2, l->title);
	if (l->subtitle && !l->thumbnail)
		af_svg_text(out, "id=\"subtitle\"", l->width / 2, fs * 4, l->subtitle);
	if (l->legend && opt->palette == AF_PALETTE_ANDROID)
		af_svg_legend(out, l, opt, style);
	return af_svg_frames(l, opt, style, interactive, rect_h, out, err);
}

af_status af_svg_write(const af_layout *l, const af_render_options *opt,
                       FILE *f, af_error *err)
{
	af_out *out = af_malloc(af_layout_mem(l), sizeof *out);
	af_style style;
	af_status st;

	if (!out)
		return af_mem_explain(af_layout_mem(l),
		                      af_fail(err, AF_ERR_NOMEM, -1, "out of memory writing SVG"),
		                      err);
	/* thousands of small writes, gathered into large ones */
	af_out_init(out, f);
	if (!opt || !opt->font)
		st = af_fail(err, AF_ERR_ARG, -1, "no font given to the SVG writer");
	else if ((st = af_style_init(&style, l, opt, err)) == AF_OK) {
		st = af_svg_emit(l, opt, &style, out, err);
		af_style_free(&style);
	}
	af_free(af_layout_mem(l), out);
	return af_mem_explain(af_layout_mem(l), st, err);
}
