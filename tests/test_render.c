/*
 * test_render.c - the font metrics and fitting rule, colours, escaping, and
 * the SVG/PNG/PDF a hostile name cannot break.
 */
#include <cairo.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "support.h"

TestSuite(render, .init = t_font_open, .fini = t_font_close);

Test(render, metrics_are_proportional_and_linear)
{
	double w = af_font_text_width(t_font, "W", 1, 12);
	double i = af_font_text_width(t_font, "i", 1, 12);
	double w24 = af_font_text_width(t_font, "W", 1, 24);
	double ab = af_font_text_width(t_font, "ab", 2, 12);

	cr_assert_gt(w, 2 * i, "W %f, i %f", w, i);
	cr_assert_float_eq(w24, 2 * w, 1e-9);
	cr_assert_float_eq(ab, af_font_text_width(t_font, "a", 1, 12) +
	                           af_font_text_width(t_font, "b", 1, 12), 1e-9);
	/* DejaVu Sans: "W" is 0.989 em wide */
	cr_assert_float_eq(w, 12 * 0.989, 0.05);
}

Test(render, fitting_keeps_whole_characters_and_adds_dots)
{
	const char *name = "com.example.shop.MainActivity.onCreate";
	double full = af_font_text_width(t_font, name, strlen(name), 12);
	double dots = af_font_text_width(t_font, "..", 2, 12);
	int d;
	size_t n;

	cr_assert_eq(af_font_fit(t_font, name, full, 12, &d), strlen(name));
	cr_assert_eq(d, 0);
	n = af_font_fit(t_font, name, full - 1, 12, &d);
	cr_assert(d);
	cr_assert_lt(n, strlen(name));
	cr_assert_leq(af_font_text_width(t_font, name, n, 12) + dots, full - 1);
	/* one more character would not have fit */
	cr_assert_gt(af_font_text_width(t_font, name, n + 1, 12) + dots, full - 1);
	/* too narrow for one character and the dots: nothing */
	cr_assert_eq(af_font_fit(t_font, name, dots, 12, &d), 0);
	cr_assert_eq(d, 0);
	cr_assert_eq(af_font_fit(t_font, name, -5, 12, &d), 0);
}

Test(render, fitting_never_splits_a_utf8_character)
{
	const char *name = "\xe5\x90\x8e\xe5\x8f\xb0\xe5\x90\x8e\xe5\x8f\xb0\xe5\x90\x8e";
	double avail;
	int d;

	for (avail = 0; avail < 120; avail += 0.5) {
		size_t n = af_font_fit(t_font, name, avail, 12, &d);
		cr_assert_eq(n % 3, 0, "cut at byte %zu for %f px", n, avail);
	}
}

static uint32_t pixel(cairo_surface_t *img, int x, int y)
{
	const unsigned char *row;
	cairo_surface_flush(img);
	row = cairo_image_surface_get_data(img) + y * cairo_image_surface_get_stride(img);
	return ((const uint32_t *)row)[x];
}

static char *svg_with(const uint8_t *buf, size_t len, const af_render_options *opt,
                      size_t *out_len)
{
	af_trace *t = t_parse(buf, len);
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_error e;
	af_render_options ro = *opt;
	char *svg = NULL;
	FILE *f;

	ro.font = t_font;
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
	cr_assert_eq(af_layout_build(tree, NULL, &l, &e), AF_OK);
	f = open_memstream(&svg, out_len);
	cr_assert_eq(af_svg_write(l, &ro, f, &e), AF_OK, "%s", e.message);
	fclose(f);
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
	return svg;
}

static char *svg_of(const uint8_t *buf, size_t len, size_t *out_len)
{
	af_render_options ro = {0};
	return svg_with(buf, len, &ro, out_len);
}

static size_t count_of(const char *s, const char *what)
{
	size_t n = 0;
	for (; (s = strstr(s, what)) != NULL; s++)
		n++;
	return n;
}

Test(render, hostile_names_stay_well_formed_xml)
{
	static const char *evil[] = {
		"<script>alert('x')</script>", "a&b\"c'd>e\\", "]]>", "\xff\xfe\x80",
		"\xed\xa0\x80 surrogate", "\xc0\xaf overlong", "\x01\x02\x1b[31m",
		"\xef\xbf\xbf", "caf\xc3\xa9 \xf0\x9f\x94\xa5", "&amp;&#0;&#xD800;",
		"x]]>]]]>\xe2\x80\xa8</script>",
	};
	af_writer_options o = {.clock = AF_WRITER_WALL, .version = 2};
	af_writer *w = af_writer_new(&o);
	af_render_options ro = {.nametype = "]]></script>\"", .countname = "]]>\\"};
	size_t i, len, slen;
	uint8_t *buf;
	char *svg, *why = NULL, *script, *end;

	cr_assert_eq(af_writer_thread(w, 1, "<main & \"friends\">"), 0);
	for (i = 0; i < sizeof evil / sizeof evil[0]; i++)
		cr_assert_eq(af_writer_method(w, (uint32_t)(i + 1) * 4, evil[i], evil[i],
		                              "()V", ""), 0);
	for (i = 0; i < sizeof evil / sizeof evil[0]; i++) {
		cr_assert_eq(af_writer_record(w, 1, (uint32_t)(i + 1) * 4, AF_ENTER, 0,
		                              (uint32_t)i * 100), 0);
		cr_assert_eq(af_writer_record(w, 1, (uint32_t)(i + 1) * 4, AF_EXIT, 0,
		                              (uint32_t)i * 100 + 90), 0);
	}
	buf = t_finish(w, &len, NULL);
	/* static: names in <title> and <text> */
	ro.no_javascript = 1;
	svg = svg_with(buf, len, &ro, &slen);
	cr_assert(t_xml_ok(svg, slen, &why), "%s", why);
	cr_assert(strstr(svg, "&lt;main &amp; &quot;friends&quot;&gt;"));
	cr_assert_null(strstr(svg, "<script"));
	cr_assert(strstr(svg, "&lt;script&gt;alert"));
	cr_assert(strstr(svg, "caf\xc3\xa9 \xf0\x9f\x94\xa5"));
	free(svg);
	/* interactive: the same names once each in the script's table, as
	 * strings no name can end, nor the CDATA section around them */
	ro.no_javascript = 0;
	svg = svg_with(buf, len, &ro, &slen);
	cr_assert(t_xml_ok(svg, slen, &why), "%s", why);
	script = strstr(svg, "<script type=\"text/ecmascript\"><![CDATA[");
	cr_assert_not_null(script);
	end = strstr(script, "]]>");
	cr_assert_not_null(end);
	cr_assert_str_eq(end, "]]></script>\n</svg>\n", "a name ended the CDATA section");
	cr_assert_eq(count_of(svg, "<script"), 1);
	cr_assert(strstr(script, "nametype:\"]]\\u003e\\u003c/script\\u003e\\\"\","));
	cr_assert(strstr(script, "countname:\"]]\\u003e\\\\\","));
	cr_assert(strstr(script, "\"\\u003cmain \\u0026 \\\"friends\\\"\\u003e\""), "%s", script);
	cr_assert(strstr(script, "\\u003cscript\\u003ealert('x')\\u003c/script\\u003e\""),
	          "%s", script);
	cr_assert(strstr(script, ".a\\u0026b\\\"c'd\\u003ee\\\\\""));
	cr_assert(strstr(script, "\"]]\\u003e.]]\\u003e\""));
	cr_assert(strstr(script, ".x]]\\u003e]]]\\u003e\\u2028\\u003c/script\\u003e\""));
	/* invalid bytes as U+FFFD, controls dropped: as the <title> shows them */
	cr_assert(strstr(script, "\"\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd.\xef\xbf\xbd"), "%s", script);
	cr_assert(strstr(script, "\"[31m.[31m\""));
	cr_assert(strstr(script, "\"caf\xc3\xa9 \xf0\x9f\x94\xa5."));
	/* frame labels are still text, escaped */
	cr_assert(strstr(svg, ">&lt;script&gt;alert"));
	free(svg);
	free(buf);
}

/* flamegraph.pl's folded text: the table and the data can be checked whole. */
Test(render, interactive_svg_stores_each_name_once)
{
	const char *text = "a;b 3\nc;b 2\nc 1\n";
	size_t slen;
	char *svg = svg_of((const uint8_t *)text, strlen(text), &slen), *why = NULL;

	cr_assert(t_xml_ok(svg, slen, &why), "%s", why);
	/* pre-order: all, a, b, c, b; "b" once in the table */
	cr_assert(strstr(svg, "names:[\"all\",\"a\",\"b\",\"c\"],\n"
	                      "frames:[0,6,0,1,3,0,2,3,0,3,3,0,2,2,0]};"), "%s", svg);
	cr_assert_eq(count_of(svg, "<g><rect "), 5);
	*strstr(svg, "<script") = '\0'; /* the frames, not the script */
	cr_assert_eq(count_of(svg, "<title>"), 0);
	cr_assert_eq(count_of(svg, " height="), 2); /* the <svg> and the background */
	cr_assert(strstr(svg, "#frames rect{rx:2px;ry:2px;height:15px}"));
	cr_assert(strstr(svg, "<g><rect x=\"10\" y=\"69\" width=\"1180\" fill=\"#"), "%s", svg);
	cr_assert(strstr(svg, "\"/><text x=\"13\" y=\"79.5\">all</text></g>\n"), "%s", svg);
	free(svg);
}

Test(render, svg_frames_carry_titles_and_fitted_labels)
{
	size_t len, slen;
	uint8_t *buf = t_read(AF_TEST_SAMPLES "/app.trace", &len);
	af_render_options ro = {.no_javascript = 1};
	char *svg, *js, *why = NULL;
	size_t frames, titles, texts;

	cr_assert_not_null(buf);
	svg = svg_with(buf, len, &ro, &slen);
	frames = count_of(svg, "<g><title>");
	titles = count_of(svg, "</title>");
	texts = count_of(svg, "<text x=");
	cr_assert_gt(frames, 50);
	cr_assert_eq(frames, titles);
	cr_assert_gt(texts, 10);
	cr_assert_eq(count_of(svg, " height=\"15\" fill=\"#"), frames);
	cr_assert(strstr(svg, "<title>all (712.0 ms, 100.00%)</title>"), "%.600s", svg);
	cr_assert(strstr(svg, "com.example.shop.MainActivity.onCreate ("));
	cr_assert(strstr(svg, " calls)</title>"));
	cr_assert(strstr(svg, "font-family:\"DejaVu Sans\""));
	/* interactive: the same frames and labels, no title, one data entry each */
	js = svg_of(buf, len, &slen);
	cr_assert(t_xml_ok(js, slen, &why), "%s", why);
	cr_assert_eq(count_of(js, "<g><rect "), frames);
	cr_assert_eq(count_of(js, "<text x="), texts);
	cr_assert_eq(count_of(js, "<title>"), count_of(strstr(js, "<script"), "<title>"));
	cr_assert(strstr(js, "names:[\"all\","));
	cr_assert(strstr(js, "time:true,diff:false,"));
	{
		const char *p = strstr(js, "frames:["), *q = strstr(p, "]};");
		size_t commas = 0;
		for (; p < q; p++)
			commas += *p == ',';
		cr_assert_eq(commas + 1, 3 * frames);
	}
	/* far smaller than with a title on every frame */
	cr_assert_lt(slen - strlen(strstr(js, "<script")), strlen(strstr(svg, "<g id=\"frames\">")));
	free(js);
	free(svg);
	free(buf);
}

Test(render, colours_are_stable_and_warm)
{
	size_t len, plen, i;
	uint8_t *buf = t_read(AF_TEST_SAMPLES "/app.trace", &len);
	af_trace *t = t_parse(buf, len);
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_error e;
	af_render_options ro = {.font = t_font, .scale = 1};
	char *a = NULL, *b = NULL;
	size_t alen, blen;
	FILE *f;

	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
	cr_assert_eq(af_layout_build(tree, NULL, &l, &e), AF_OK);
	/* the same input gives the same bytes */
	f = open_memstream(&a, &alen);
	cr_assert_eq(af_svg_write(l, &ro, f, &e), AF_OK);
	fclose(f);
	f = open_memstream(&b, &blen);
	cr_assert_eq(af_svg_write(l, &ro, f, &e), AF_OK);
	fclose(f);
	cr_assert_eq(alen, blen);
	cr_assert(memcmp(a, b, alen) == 0);
	/* every fill is in the warm range: red high, blue low */
	for (i = 0; i + 4 < alen; i++) {
		unsigned r, g, bl;
		if (sscanf(a + i, "fill=\"#%2x%2x%2x\"", &r, &g, &bl) == 3) {
			cr_assert(r >= 205 && r <= 255 && g <= 230 && bl <= 55);
		}
	}
	free(a);
	free(b);
	/* PNG: the stated size, and frames drawn (not a blank page) */
	a = NULL;
	f = open_memstream(&a, &plen);
	ro.scale = 2;
	cr_assert_eq(af_cairo_write(l, AF_FORMAT_PNG, &ro, f, &e), AF_OK, "%s", e.message);
	fclose(f);
	cr_assert(memcmp(a, "\x89PNG", 4) == 0);
	cr_assert_eq(((unsigned char)a[16] << 24 | (unsigned char)a[17] << 16 |
	              (unsigned char)a[18] << 8 | (unsigned char)a[19]), 2400);
	{
		/* decode it and sample pixels: background, the root frame, a label */
		cairo_surface_t *img = t_png_image(a, plen);
		const af_rect *root = &l->rects[0];
		uint32_t bg, frame;
		unsigned dark = 0, x;
		cr_assert_eq(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
		cr_assert_eq(cairo_image_surface_get_width(img), 2400);
		cr_assert_eq(cairo_image_surface_get_height(img), (int)(2 * l->height + 0.5));
		bg = pixel(img, 4, 4);
		cr_assert_eq(bg & 0xFFFFFF, 0xEEEEEE, "background %06x", bg & 0xFFFFFF);
		frame = pixel(img, (int)(2 * (root->x + root->w - 4)), (int)(2 * (root->y + 2)));
		cr_assert_geq((frame >> 16) & 0xFF, 205, "root frame %06x", frame & 0xFFFFFF);
		/* the label "all" is drawn in black over the root frame */
		for (x = 0; x < 60; x++)
			dark += ((pixel(img, (int)(2 * root->x) + 6 + (int)x,
			                (int)(2 * (root->y + root->h / 2))) >> 16) & 0xFF) < 80;
		cr_assert_gt(dark, 2);
		cairo_surface_destroy(img);
	}
	free(a);
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
	free(buf);
}

Test(render, widths_count_what_is_drawn)
{
	double a = af_font_text_width(t_font, "a", 1, 12);
	double fffd = af_font_text_width(t_font, "\xef\xbf\xbd", 3, 12);

	/* control characters are dropped by both renderers: no width */
	cr_assert_float_eq(af_font_text_width(t_font, "a\x01\x1b\x7f", 4, 12), a, 1e-9);
	/* an invalid byte is drawn, and measured, as U+FFFD */
	cr_assert_float_eq(af_font_text_width(t_font, "\xff", 1, 12), fffd, 1e-9);
	cr_assert_gt(fffd, 0);
}

Test(render, a_missing_font_configuration_is_a_font_error)
{
	af_font *f = NULL;
	af_error e = {0};

	cr_assert_eq(af_font_open("/nonexistent/aflame-fonts.conf", &f, &e), AF_ERR_FONT);
	cr_assert_null(f);
	cr_assert(strstr(e.message, "/nonexistent/aflame-fonts.conf"), "%s", e.message);
}

/* cairo refuses invalid UTF-8: the title and subtitle are user text, and
 * must be cleaned as the SVG writer escapes them, not fail the image. */
Test(render, cairo_draws_invalid_utf8_titles)
{
	size_t len, olen;
	uint8_t *buf = t_read(AF_TEST_SAMPLES "/app.trace", &len);
	af_trace *t;
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_layout_options lo = {.title = "bad \xff\xc3 title\x01",
	                        .subtitle = "\xed\xa0\x80\x1b[31m"};
	af_error e = {0};
	af_render_options ro = {.font = t_font};
	char *out = NULL;
	FILE *f;

	cr_assert_not_null(buf);
	t = t_parse(buf, len);
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
	cr_assert_eq(af_layout_build(tree, &lo, &l, &e), AF_OK);

	f = open_memstream(&out, &olen);
	cr_assert_eq(af_cairo_write(l, AF_FORMAT_PNG, &ro, f, &e), AF_OK, "%s", e.message);
	fclose(f);
	cr_assert(olen > 8 && memcmp(out, "\x89PNG", 4) == 0);
	free(out);

	out = NULL;
	f = open_memstream(&out, &olen);
	cr_assert_eq(af_cairo_write(l, AF_FORMAT_PDF, &ro, f, &e), AF_OK, "%s", e.message);
	fclose(f);
	cr_assert(olen > 4 && memcmp(out, "%PDF", 4) == 0);
	free(out);

	out = NULL;
	f = open_memstream(&out, &olen);
	cr_assert_eq(af_svg_write(l, &ro, f, &e), AF_OK, "%s", e.message);
	fclose(f);
	{
		char *why = NULL;
		cr_assert(t_xml_ok(out, olen, &why), "%s", why);
		cr_assert(strstr(out, "bad \xef\xbf\xbd\xef\xbf\xbd title<"));
	}
	free(out);

	/* a PNG past cairo's side limit is refused before drawing */
	ro.scale = 40;
	out = NULL;
	f = open_memstream(&out, &olen);
	cr_assert_eq(af_cairo_write(l, AF_FORMAT_PNG, &ro, f, &e), AF_ERR_LIMIT);
	fclose(f);
	cr_assert(strstr(e.message, "32767"), "%s", e.message);
	free(out);

	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
	free(buf);
}

/* Non-characters (U+FDD0..U+FDEF, U+xFFFE/U+xFFFF in every plane) are
 * never text: names lose them at once, so every renderer draws the same
 * label, and cairo, which refuses them, draws the PNG (found by fuzzing). */
Test(render, noncharacters_are_dropped_from_names)
{
	static const char text[] =
		"main;a\xF0\xBF\xBF\xBF" "b\xEF\xB7\x90" "c\xF4\x8F\xBF\xBF" "d\xF0\x9F\x94\xA5 3\n";
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_layout_options lo = {0};
	af_render_options ro = {.font = t_font};
	af_error e = {0};
	char *out = NULL;
	size_t olen, i;
	FILE *f;
	int found = 0;

	cr_assert_eq(af_trace_parse(text, sizeof text - 1, NULL, &t, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
	for (i = 0; i < af_tree_size(tree); i++) {
		af_node_info ni;
		af_tree_node(tree, i, &ni);
		/* U+3FFFF, U+FDD0 and U+10FFFF gone; U+1F525 (an emoji) kept */
		found |= strcmp(ni.name, "abcd\xF0\x9F\x94\xA5") == 0;
	}
	cr_assert(found);
	cr_assert_eq(af_layout_build(tree, &lo, &l, &e), AF_OK);
	f = open_memstream(&out, &olen);
	cr_assert_eq(af_cairo_write(l, AF_FORMAT_PNG, &ro, f, &e), AF_OK, "%s", e.message);
	fclose(f);
	free(out);
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
}

/* The android legend stays inside the margins of a narrow PNG: shortened,
 * then smaller, never cut (it ran from x = -41 to 441 at 400 px). */
Test(render, png_legend_fits_a_narrow_graph)
{
	size_t len, olen;
	uint8_t *buf = t_read(AF_TEST_SAMPLES "/app.trace", &len);
	static const int widths[] = {400, 300, 200, 1200};
	size_t k;

	cr_assert_not_null(buf);
	for (k = 0; k < sizeof widths / sizeof widths[0]; k++) {
		af_trace *t = t_parse(buf, len);
		af_tree *tree = NULL;
		af_layout *l = NULL;
		af_layout_options lo = {.width = widths[k], .legend = 1};
		af_error e = {0};
		/* a plain white background: anything else in the margins is ink */
		af_render_options ro = {.font = t_font, .palette = AF_PALETTE_ANDROID,
		                        .bgcolors = "#ffffff"};
		char *out = NULL;
		cairo_surface_t *img;
		int x, y, inked = 0;
		FILE *f;

		cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
		cr_assert_eq(af_layout_build(tree, &lo, &l, &e), AF_OK);
		f = open_memstream(&out, &olen);
		cr_assert_eq(af_cairo_write(l, AF_FORMAT_PNG, &ro, f, &e), AF_OK, "%s", e.message);
		fclose(f);
		img = t_png_image(out, olen);
		cr_assert_eq(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
		for (y = (int)(l->legend_y - l->font_size); y <= (int)l->legend_y + 3; y++) {
			for (x = 0; x < widths[k]; x++) {
				uint32_t p = pixel(img, x, y) & 0xFFFFFF;
				int margin = x < (int)l->xpad || x >= widths[k] - (int)l->xpad;
				cr_assert(!margin || p == 0xFFFFFF,
				          "%d px: the legend reaches x=%d (y=%d: %06x)", widths[k], x, y, p);
				inked += p != 0xFFFFFF;
			}
		}
		cr_assert_gt(inked, 100, "%d px: no legend drawn", widths[k]);
		cairo_surface_destroy(img);
		free(out);
		af_layout_free(l);
		af_tree_free(tree);
		af_trace_free(t);
	}
	free(buf);
}

/* A frame's fill is worked out once per name (render/style.c), yet the
 * android palette colours threads by what they are: "main" as a thread
 * keeps the thread colour, and "main" as a method, under either thread,
 * the one colour its name gives. */
Test(render, a_name_keeps_one_fill_but_threads_have_their_own)
{
	static const char folded[] = "main;main;foo 1\nother;main 1\n";
	af_render_options ro = {.palette = AF_PALETTE_ANDROID, .no_javascript = 1};
	size_t len, n = 0;
	char *svg = svg_with((const uint8_t *)folded, sizeof folded - 1, &ro, &len);
	const char *at = svg;
	unsigned fill[3];

	while ((at = strstr(at, "<title>main (")) != NULL) {
		const char *f = strstr(at, "fill=\"#");
		cr_assert(f && n < 3);
		cr_assert_eq(sscanf(f, "fill=\"#%6x\"", &fill[n]), 1);
		n++;
		at++;
	}
	cr_assert_eq(n, 3, "%zu frames named main", n);
	/* in drawing order: the thread, then the method under each thread */
	cr_expect_neq(fill[0], fill[1], "the thread main has the method's fill #%06x", fill[1]);
	cr_expect_eq(fill[1], fill[2], "one name, two fills: #%06x and #%06x", fill[1], fill[2]);
	free(svg);
}

/* The SVG of `t`'s tree as `to` makes it, drawn with `ro`. */
static char *svg_of_tree(const af_trace *t, const af_tree_options *to,
                         const af_render_options *ro)
{
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_error e;
	char *svg = NULL;
	size_t len;
	FILE *f;

	cr_assert_eq(af_tree_from_trace(t, to, &tree, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_layout_build(tree, NULL, &l, &e), AF_OK);
	f = open_memstream(&svg, &len);
	cr_assert_eq(af_svg_write(l, ro, f, &e), AF_OK, "%s", e.message);
	fclose(f);
	af_layout_free(l);
	af_tree_free(tree);
	return svg;
}

Test(render, a_render_cache_draws_every_graph_as_none_does)
{
	static const char folded[] = "app.Main.run;com.android.Foo.bar 5\n"
	                             "app.Main.run;java.util.List.get 3\nkernel_[k] 1\n";
	size_t len, i, drawn = 0;
	uint8_t *buf = t_read(AF_TEST_SAMPLES "/app.trace", &len);
	af_trace *t = t_parse(buf, len), *other = t_parse((const uint8_t *)folded,
	                                                  sizeof folded - 1);
	af_render_cache *cache = NULL;
	af_render_options plain = {.font = t_font, .palette = AF_PALETTE_ANDROID}, kept;
	af_error e;
	/* the threads' graphs, one palette after another, then renamed
	 * frames (signatures: names of the tree's own), then another input:
	 * every graph as it is drawn without the cache */
	const af_palette palettes[] = {AF_PALETTE_ANDROID, AF_PALETTE_HOT, AF_PALETTE_JAVA};

	cr_assert_eq(af_render_cache_new(&cache, &e), AF_OK);
	kept = plain;
	kept.cache = cache;
	for (i = 0; i < 3 * af_trace_thread_count(t); i++) {
		af_tree_options to = {.one_thread = 1, .thread = i % af_trace_thread_count(t)};
		af_thread_info ti;
		char *a, *b;
		af_trace_thread(t, to.thread, &ti);
		if (!ti.records)
			continue;
		plain.palette = kept.palette = palettes[i / af_trace_thread_count(t)];
		to.signatures = i % 2;
		a = svg_of_tree(t, &to, &plain);
		b = svg_of_tree(t, &to, &kept);
		cr_expect_str_eq(b, a, "thread %zu, palette %d", to.thread, plain.palette);
		free(a);
		free(b);
		drawn++;
	}
	cr_assert_gt(drawn, 3);
	{
		char *a = svg_of_tree(other, NULL, &plain), *b = svg_of_tree(other, NULL, &kept);
		cr_expect_str_eq(b, a, "another input, after the sample's names");
		free(a);
		free(b);
	}
	af_render_cache_free(cache);
	af_trace_free(other);
	af_trace_free(t);
	free(buf);
}

/* `s` (`len` bytes) escaped as XML text or a script's string (without
 * its quotes), in a string the caller frees. */
static char *t_escaped(const char *s, size_t len, int js)
{
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);
	af_out o;

	cr_assert_not_null(f);
	af_out_init(&o, f);
	if (js)
		af_out_js(&o, s, len);
	else
		af_out_xml(&o, s, len);
	cr_assert_eq(af_out_flush(&o), 0);
	fclose(f);
	if (js) { /* the quotes */
		memmove(text, text + 1, n - 2);
		text[n - 2] = '\0';
	}
	return text;
}

/* The escapes pass over plain text sixteen bytes at a time: a byte that
 * needs one is found at every place of a long name (the last sixteen
 * bytes, read in one load, too), in XML and in a script's string, and
 * escaped as it is alone. */
Test(render, escapes_find_every_byte_that_needs_one_in_a_long_name)
{
	static const char *const odd[] = {"&", "<", ">", "\"", "'", "\\", "\x01", "\x7f",
	                                  "\xc3\xa9", "\xff", "\xe2\x80\xa8"};
	char name[64], want[256];
	size_t len, at, k;
	int js;

	for (js = 0; js < 2; js++)
		for (k = 0; k < sizeof odd / sizeof odd[0]; k++)
			for (len = 16; len <= 40; len += 8)
				for (at = 0; at + strlen(odd[k]) <= len; at++) {
					char *alone = t_escaped(odd[k], strlen(odd[k]), js), *got;
					memset(name, 'x', len);
					memcpy(name + at, odd[k], strlen(odd[k]));
					snprintf(want, sizeof want, "%.*s%s%.*s", (int)at, name, alone,
					         (int)(len - at - strlen(odd[k])),
					         name + at + strlen(odd[k]));
					got = t_escaped(name, len, js);
					cr_assert_str_eq(got, want, "%s, byte %zu of %zu: %s", js ? "js" : "xml",
					                 at, len, got);
					free(got);
					free(alone);
				}
}
