/*
 * test_folded.c - folded stacks as input (flamegraph.pl's and
 * difffolded.pl's), and flamegraph.pl's options over them: the same frames
 * at the same places, colours, tooltips.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

TestSuite(folded, .init = t_font_open, .fini = t_font_close);

typedef struct drawn {
	af_trace *trace;
	af_tree *tree;
	af_layout *layout;
	char *svg;
	size_t len;
} drawn;

static drawn draw(const char *text, const af_tree_options *to,
                  const af_layout_options *lo, const af_render_options *ro_in)
{
	drawn d = {0};
	af_error e = {0};
	af_render_options ro = {0};
	FILE *f;

	if (ro_in)
		ro = *ro_in;
	ro.font = t_font;
	d.trace = t_parse((const uint8_t *)text, strlen(text));
	cr_assert_eq(af_tree_from_trace(d.trace, to, &d.tree, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_layout_build(d.tree, lo, &d.layout, &e), AF_OK, "%s", e.message);
	f = open_memstream(&d.svg, &d.len);
	cr_assert_eq(af_svg_write(d.layout, &ro, f, &e), AF_OK, "%s", e.message);
	fclose(f);
	return d;
}

static void drop(drawn *d)
{
	free(d->svg);
	af_layout_free(d->layout);
	af_tree_free(d->tree);
	af_trace_free(d->trace);
}

static const af_rect *rect_named(const drawn *d, const char *name)
{
	size_t i;
	for (i = 0; i < d->layout->nrects; i++) {
		af_node_info ni;
		af_tree_node(d->tree, d->layout->rects[i].node, &ni);
		if (strcmp(ni.name, name) == 0)
			return &d->layout->rects[i];
	}
	cr_assert_fail("no frame %s", name);
	return NULL;
}

#define NEAR(a, b) (fabs((a) - (b)) < 0.05)

/* flamegraph.pl sorts the lines, then lays frames out along them: x = 10 +
 * start * 1180 / total, y from the bottom, 16 px a level. */
Test(folded, same_places_as_flamegraph_pl)
{
	af_render_options st = {.no_javascript = 1};
	drawn d = draw("d 1\na;c 1\na;b 2\n", NULL, NULL, &st);
	const af_rect *a = rect_named(&d, "a"), *b = rect_named(&d, "b");
	const af_rect *c = rect_named(&d, "c"), *dd = rect_named(&d, "d");

	cr_assert(NEAR(a->x, 10) && NEAR(a->w, 885));
	cr_assert(NEAR(b->x, 10) && NEAR(b->w, 590));
	cr_assert(NEAR(c->x, 600) && NEAR(c->w, 295));
	cr_assert(NEAR(dd->x, 895) && NEAR(dd->w, 295));
	/* 3 levels: (2 + 1) * 16 + 36 + 34 */
	cr_assert(NEAR(d.layout->height, 118));
	cr_assert(NEAR(b->y, 118 - 34 - 3 * 16 + 1));
	cr_assert(strstr(d.svg, "<title>b (2 samples, 50.00%)</title>"), "%s", d.svg);
	drop(&d);
}

Test(folded, sibling_order_follows_the_sorted_lines)
{
	/* "c" has no self time: its lines continue with ';', which sorts after
	 * '.', so "c.x" comes first; "b" ends its line with a space */
	drawn d = draw("a;c;d 1\na;c.x;y 1\na;b2 1\na;b 1\n", NULL, NULL, NULL);
	cr_assert(NEAR(rect_named(&d, "b")->x, 10));
	cr_assert(NEAR(rect_named(&d, "b2")->x, 305));
	cr_assert(NEAR(rect_named(&d, "c.x")->x, 600));
	cr_assert(NEAR(rect_named(&d, "c")->x, 895));
	drop(&d);
}

Test(folded, invalid_lines_are_counted_and_skipped)
{
	const char *text = "main;a 3\nno count here\nmain;b -4\nmain;c x7\n\r\nmain;d 2.6\n";
	af_trace *t = t_parse((const uint8_t *)text, strlen(text));
	char *f;

	cr_assert_eq(af_trace_get_info(t)->variant, AF_VARIANT_FOLDED);
	cr_assert_eq(af_trace_get_info(t)->lines, 2);
	cr_assert_eq(af_trace_get_info(t)->ignored_lines, 3);
	af_trace_free(t);
	f = t_folded((const uint8_t *)text, strlen(text), AF_CLOCK_WALL, NULL);
	cr_assert_str_eq(f, "main;a 3\nmain;d 2.6\n"); /* fractions are kept */
	free(f);
}

Test(folded, differential_colours_and_deltas)
{
	af_layout_options lo = {0};
	af_render_options neg = {.negate = 1, .no_javascript = 1};
	af_render_options st = {.no_javascript = 1};
	drawn d = draw("m;grew 10 16\nm;shrank 9 6\nm;same 4 4\n", NULL, &lo, &st);

	/* widths from the second count; red where it grew, blue where it shrank */
	cr_assert_eq(d.layout->total, 26);
	cr_assert(strstr(d.svg, "<title>grew (16 samples, 61.54%; +23.08%)</title>"), "%s", d.svg);
	cr_assert(strstr(d.svg, "fill=\"#ff0000\""));
	cr_assert(strstr(d.svg, "fill=\"#6969ff\""));
	/* flamegraph.pl writes no sign on a change of 0 */
	cr_assert(strstr(d.svg, "<title>same (4 samples, 15.38%; 0.00%)</title>"));
	drop(&d);
	d = draw("m;grew 10 16\nm;shrank 9 6\n", NULL, &lo, &neg);
	cr_assert(strstr(d.svg, "fill=\"#0000ff\""));
	cr_assert(strstr(d.svg, "<title>grew (16 samples, 72.73%; -27.27%)</title>"), "%s", d.svg);
	drop(&d);
}

Test(folded, reverse_merges_from_the_leaf)
{
	af_tree_options rev = {.reverse = 1};
	const char *text = "main;a;leaf 3\nmain;b;leaf 2\nmain;b 1\n";
	char *f = t_folded((const uint8_t *)text, strlen(text), AF_CLOCK_WALL, &rev);
	cr_assert_str_eq(f, "b;main 1\nleaf;a;main 3\nleaf;b;main 2\n");
	free(f);
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --reverse turns every line around and merges the lines that become the
 * same, in flamegraph.pl's byte order of lines: checked against that, done
 * here line by line, on stacks thousands of frames deep whose reversed
 * paths share most of their frames (a method recursing, a cycle of three)
 * and on distinct frames. */
Test(folded, reverse_of_deep_stacks_is_every_line_turned_around)
{
	af_tree_options rev = {.reverse = 1};
	char *text = NULL, *want = NULL, *got, **lines = NULL, frame[32];
	size_t text_len = 0, want_len = 0, n = 0, cap = 0, i, j;
	FILE *in = open_memstream(&text, &text_len), *out = open_memstream(&want, &want_len);
	int kind, d, k;

	cr_assert(in && out);
	for (kind = 0; kind < 3; kind++) {
		for (d = 1; d <= (kind == 2 ? 300 : 2500); d += kind == 2 ? 3 : 7) {
			char *line = NULL;
			size_t line_len = 0;
			FILE *l = open_memstream(&line, &line_len);
			cr_assert(l);
			/* the line, then its frames the other way round */
			for (k = 0; k < 2 * d; k++) {
				int f = k < d ? k : 2 * d - 1 - k;
				if (kind == 0)
					snprintf(frame, sizeof frame, "a");
				else if (kind == 1)
					snprintf(frame, sizeof frame, "%s", f == 0 ? "main" : f % 3 ? "b" : "c");
				else
					snprintf(frame, sizeof frame, "f%d", f);
				fprintf(k < d ? in : l, "%s%s", k % d ? ";" : "", frame);
			}
			fprintf(in, " %d\n", d % 5 + 1);
			/* "STACK COUNT": a space sorts as it does in the line */
			fprintf(l, " %d", d % 5 + 1);
			fclose(l);
			if (n == cap)
				lines = realloc(lines, (cap = cap ? cap * 2 : 64) * sizeof *lines);
			lines[n++] = line;
		}
	}
	fclose(in);
	qsort(lines, n, sizeof *lines, cmp_line);
	for (i = 0; i < n; i = j) {
		size_t stack = (size_t)(strrchr(lines[i], ' ') - lines[i]);
		long count = 0;
		/* one stack from several lines: one line, the counts summed */
		for (j = i; j < n && (size_t)(strrchr(lines[j], ' ') - lines[j]) == stack &&
		            strncmp(lines[j], lines[i], stack) == 0;
		     j++)
			count += atol(lines[j] + stack + 1);
		fprintf(out, "%.*s %ld\n", (int)stack, lines[i], count);
	}
	fclose(out);
	got = t_folded((const uint8_t *)text, text_len, AF_CLOCK_WALL, &rev);
	cr_assert_not_null(got);
	cr_assert(strcmp(got, want) == 0, "reversed:\n%.300s\nexpected:\n%.300s", got, want);
	for (i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	free(got);
	free(text);
	free(want);
}

Test(folded, icicle_subtitle_and_minwidth_percent)
{
	af_layout_options lo = {.inverted = 1, .subtitle = "release build",
	                        .min_width_pct = 10};
	drawn d = draw("a;b 95\na;c 5\n", NULL, &lo, NULL);
	size_t i;

	cr_assert_str_eq(d.layout->title, "Icicle Graph");
	/* the subtitle adds two font heights above the frames */
	cr_assert(NEAR(rect_named(&d, "all")->y, 36 + 24));
	cr_assert(NEAR(rect_named(&d, "b")->y, 36 + 24 + 32));
	cr_assert(strstr(d.svg, ">release build</text>"));
	for (i = 0; i < d.layout->nrects; i++) { /* c is 5% < 10%: left out */
		af_node_info ni;
		af_tree_node(d.tree, d.layout->rects[i].node, &ni);
		cr_assert_str_neq(ni.name, "c");
	}
	drop(&d);
}

Test(folded, counts_factor_total_and_notes)
{
	af_layout_options lo = {.factor = 1000, .total = 40};
	af_render_options ro = {.countname = "bytes", .notes = "built -- by CI <x>",
	                        .palette = AF_PALETTE_MEM, .nametype = "Function:",
	                        .no_javascript = 1};
	drawn d = draw("a 10\nb 10\n", NULL, &lo, &ro);

	cr_assert(strstr(d.svg, "<title>a (10,000 bytes, 25.00%)</title>"), "%s", d.svg);
	cr_assert(NEAR(rect_named(&d, "a")->w, 295));
	cr_assert(strstr(d.svg, "<!-- built - by CI x -->"));
	/* mem: green-blue hues, on a green background */
	cr_assert(strstr(d.svg, "fill=\"#00"));
	cr_assert(strstr(d.svg, "stop-color=\"#eef2ee\""));
	drop(&d);
	/* the script prints values the same way: it is told how */
	ro.no_javascript = 0;
	d = draw("a 10\nb 10\n", NULL, &lo, &ro);
	cr_assert(strstr(d.svg, "nametype:\"Function:\""), "%s", d.svg);
	cr_assert(strstr(d.svg, ",total:40,unit:1,factor:1000,time:false,diff:false,cmp:false,"
	                        "countname:\"bytes\","), "%s", d.svg);
	drop(&d);
}

Test(folded, every_palette_and_background)
{
	static const char *names[] = {"hot", "mem", "io", "wakeup", "chain", "java",
	                              "js", "perl", "red", "green", "blue", "aqua",
	                              "yellow", "purple", "orange"};
	size_t i;
	char *why = NULL;

	cr_assert_eq(af_palette_from_name("rainbow"), -1);
	for (i = 0; i < 15; i++) {
		af_render_options ro = {.bgcolors = i % 2 ? "#102030" : "grey"};
		drawn d;
		ro.palette = (af_palette)af_palette_from_name(names[i]);
		cr_assert_eq((int)ro.palette, (int)i);
		d = draw("java.lang.Thread.run;com.example.App.work 3\nfoo::bar_[k] 2\n", NULL,
		         NULL, &ro);
		cr_assert(t_xml_ok(d.svg, d.len, &why), "%s: %s", names[i], why);
		drop(&d);
	}
	{
		af_render_options ro = {.palette = AF_PALETTE_JAVA, .no_javascript = 1};
		drawn d = draw("java.lang.Thread.run 3\n", NULL, NULL, &ro);
		const char *p = strstr(d.svg, "java.lang.Thread.run (");
		unsigned r, g, b;
		cr_assert_not_null(p);
		p = strstr(p, "fill=\"#");
		cr_assert_eq(sscanf(p, "fill=\"#%2x%2x%2x\"", &r, &g, &b), 3);
		cr_assert(g >= 200 && r < 120 && b < 120, "java frames are green");
		drop(&d);
	}
}

Test(folded, through_the_cli_like_flamegraph_pl)
{
	char *in = t_tmp("in.folded"), *out = NULL, *err = NULL, args[1024];
	const char *text = "main;a;b 10\nmain;c 5\n";

	t_write(in, text, strlen(text));
	/* no -o: SVG on standard output; single-dash long options too */
	snprintf(args, sizeof args,
	         "-title 'My graph' --colors=blue --countname ms --no-javascript '%s'", in);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert(strstr(out, ">My graph</text>"));
	cr_assert(strstr(out, "<title>b (10 ms, 66.67%)</title>"));
	free(out);
	free(err);
	cr_assert_eq(t_cli("--format folded -", in, &out, &err), 0, "%s", err);
	cr_assert_str_eq(out, "main;a;b 10\nmain;c 5\n");
	free(out);
	free(err);
	cr_assert_eq(t_cli("--colors rainbow -", in, &out, &err), 2);
	cr_assert(strstr(err, "unknown palette 'rainbow'"), "%s", err);
	free(out);
	free(err);
	cr_assert_eq(t_cli("--bgcolors pink -", in, &out, &err), 2);
	cr_assert(strstr(err, "--bgcolors takes yellow, blue, green, grey or #rrggbb, "
	                      "not 'pink'"), "%s", err);
	free(out);
	free(err);
	free(in);
}

Test(folded, flamechart_keeps_line_order)
{
	af_parse_options po = {.flamechart = 1};
	af_layout_options lo = {.flamechart = 1};
	const char *text = "a;b 1\nc 2\na;b 1\na 3\n";
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_error e;
	static const char *order[] = {"all", "a", "b", "c", "a", "b"};
	static const double x[] = {10, 10, 10, 178.57, 515.71, 515.71};
	size_t i;

	cr_assert_eq(af_trace_parse(text, strlen(text), &po, &t, &e), AF_OK);
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
	cr_assert_eq(af_layout_build(tree, &lo, &l, &e), AF_OK);
	cr_assert_eq(l->nrects, 6);
	for (i = 0; i < 6; i++) {
		af_node_info ni;
		af_tree_node(tree, l->rects[i].node, &ni);
		cr_assert_str_eq(ni.name, order[i]);
		cr_assert(fabs(l->rects[i].x - x[i]) < 0.01, "%s at %f", order[i], l->rects[i].x);
	}
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
}

Test(folded, sort_by_weight_puts_the_heaviest_first)
{
	af_layout_options lo = {.sort_weight = 1};
	drawn d = draw("a;b 1\nc 2\nd;e 5\n", NULL, &lo, NULL);
	cr_assert(NEAR(rect_named(&d, "d")->x, 10));
	cr_assert(NEAR(rect_named(&d, "c")->x, 747.5));
	cr_assert(NEAR(rect_named(&d, "a")->x, 1042.5));
	drop(&d);
}

Test(folded, fontwidth_fits_like_flamegraph_pl)
{
	af_render_options ro = {.fontwidth = 0.59};
	/* 295 px / (12 * 0.59) = 41 characters: 39 and ".." */
	drawn d = draw("abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz 1\nz 3\n",
	               NULL, NULL, &ro);
	cr_assert(strstr(d.svg, ">abcdefghijklmnopqrstuvwxyzabcdefghijklm..</text>"), "%s", d.svg);
	cr_assert(strstr(d.svg, "fontwidth:0.59,"));
	drop(&d);
}

/* How many times `what` occurs between `from` and `to`. */
static size_t count_of(const char *from, const char *to, const char *what)
{
	size_t n = 0;
	const char *p = from;

	while ((p = strstr(p, what)) != NULL && (!to || p < to)) {
		n++;
		p += strlen(what);
	}
	return n;
}

Test(folded, android_palette_legend_and_dark_theme)
{
	af_layout_options lo = {.legend = 1};
	af_render_options ro = {.palette = AF_PALETTE_ANDROID, .dark = 1, .no_javascript = 1};
	drawn d = draw("main;com.example.App.onCreate;java.lang.Object.wait 5\n"
	               "main;android.os.Looper.loop;android.os.MessageQueue.nativePollOnce 5\n",
	               NULL, &lo, &ro);
	const char *p;
	unsigned r, g, b;

	cr_assert(strstr(d.svg, "<g id=\"legend\">"));
	cr_assert(strstr(d.svg, ">blocked</text>"));
	/* the legend's line pushes the frames down by two font heights */
	cr_assert(NEAR(d.layout->height, 4 * 16 + 36 + 24 + 34));
	cr_assert(strstr(d.svg, "stop-color=\"#1e1f24\""), "dark background");
	p = strstr(strstr(d.svg, "<title>java.lang.Object.wait ("), "fill=\"#");
	cr_assert_eq(sscanf(p, "fill=\"#%2x%2x%2x\"", &r, &g, &b), 3);
	cr_assert(r > 200 && g < 100 && b < 100, "blocked is red: %u,%u,%u", r, g, b);
	p = strstr(strstr(d.svg, "<title>android.os.MessageQueue.nativePollOnce ("), "fill=\"#");
	cr_assert_eq(sscanf(p, "fill=\"#%2x%2x%2x\"", &r, &g, &b), 3);
	cr_assert(r == g && g == b, "idle is grey: %u,%u,%u", r, g, b);
	p = strstr(strstr(d.svg, "<title>com.example.App.onCreate ("), "fill=\"#");
	cr_assert_eq(sscanf(p, "fill=\"#%2x%2x%2x\"", &r, &g, &b), 3);
	cr_assert(g > r && g > b, "app code is green: %u,%u,%u", r, g, b);
	drop(&d);
}

/* The Android palette's legend of `text` has `entries` kinds (`which`),
 * `kind` among them. */
static void expect_legend(const char *text, size_t entries, const char *which,
                          const char *kind)
{
	af_layout_options lo = {.legend = 1};
	af_render_options ro = {.palette = AF_PALETTE_ANDROID, .no_javascript = 1};
	drawn d = draw(text, NULL, &lo, &ro);
	const char *legend = strstr(d.svg, "<g id=\"legend\">");

	cr_assert_not_null(legend);
	cr_expect_eq(count_of(legend, strstr(legend, "</g>"), "<text"), entries, "%s", which);
	cr_expect_not_null(strstr(legend, kind), "no %s", kind);
	drop(&d);
}

/* The legend lists the kinds the graph's frames are drawn in, in the
 * palette's order, and no other: app code, idle and blocked frames and the
 * threads (the root and "main") here; a C++ frame adds "native". */
Test(folded, android_legend_lists_the_kinds_present)
{
	static const char *const want[] = {
		">app</text><rect", ">idle</text><rect", ">blocked</text><rect", ">thread</text></g>"};
	af_layout_options lo = {.legend = 1};
	af_render_options ro = {.palette = AF_PALETTE_ANDROID, .no_javascript = 1};
	drawn d = draw("main;com.example.App.onCreate;java.lang.Object.wait 5\n"
	               "main;android.os.MessageQueue.nativePollOnce 5\n",
	               NULL, &lo, &ro);
	const char *legend = strstr(d.svg, "<g id=\"legend\">"), *p = legend;
	size_t i;

	cr_assert_not_null(legend);
	for (i = 0; i < sizeof want / sizeof *want; i++) {
		const char *at = strstr(legend, want[i]);
		cr_assert_not_null(at, "no %s", want[i]);
		cr_expect(at > p, "%s out of order", want[i]);
		p = at;
	}
	cr_expect_eq(count_of(legend, strstr(legend, "</g>"), "<text"), 4);
	drop(&d);
	expect_legend("main;art::Thread::Run 5\n", 2, "android and thread", ">android</text>");
	expect_legend("main;memcpy;schedule_[k] 5\n", 3, "app, thread, kernel", ">kernel</text>");
}

/* `text` drawn as SVG and PNG with the legend, through `al` (NULL: libc),
 * one after the other into one buffer. */
static char *draw_both(const char *text, const af_allocator *al, size_t *len,
                       size_t *nrects)
{
	af_parse_options po = {.allocator = al};
	af_layout_options lo = {.legend = 1};
	af_render_options ro = {.font = t_font, .palette = AF_PALETTE_ANDROID};
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_error e = {0};
	char *out = NULL;
	FILE *f = open_memstream(&out, len);

	cr_assert_eq(af_trace_parse((const uint8_t *)text, strlen(text), &po, &t, &e), AF_OK,
	             "%s", e.message);
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_layout_build(tree, &lo, &l, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_svg_write(l, &ro, f, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_cairo_write(l, AF_FORMAT_PNG, &ro, f, &e), AF_OK, "%s", e.message);
	fclose(f);
	*nrects = l->nrects;
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
	return out;
}

/* The frames' fills are worked out once, before the legend, which reads
 * its kinds from them.  Without memory to keep them, each frame is
 * coloured again as it is drawn: the same SVG and PNG, byte for byte. */
Test(folded, legend_and_fills_without_memory_for_the_fills)
{
	static const char *const kinds[][2] = {
		{"com.example.App.m", ""}, {"android.view.View.m", ""}, {"java.util.List.m", ""},
		{"memcpy", ""}, {"schedule", "_[k]"}, {"java.lang.Object.wait", ""}};
	t_refuser r = {.refuse = -1};
	af_allocator al = t_refuser_allocator(&r);
	char text[64 * 300], name[48], *want, *got;
	size_t n = 0, i, want_len, got_len, nrects, again;

	for (i = 0; i < 300; i++) {
		snprintf(name, sizeof name, "%s%d%s", kinds[i % 6][0], (int)i, kinds[i % 6][1]);
		n += (size_t)snprintf(text + n, sizeof text - n, "main;com.example.App.run;%s %d\n",
		                      name, (int)(i % 7) + 1);
	}
	want = draw_both(text, NULL, &want_len, &nrects);
	cr_assert_gt(nrects, 300);
	/* the fills' block: a colour of 3 bytes a frame, after the library's
	 * header (src/mem.c: aligned as malloc's blocks are) */
	r.size = nrects * 3 + sizeof(max_align_t);
	got = draw_both(text, &al, &got_len, &again);
	cr_assert_eq(again, nrects);
	cr_assert_gt(atomic_load(&r.refused), 0, "the fills were not refused");
	cr_assert_eq(got_len, want_len);
	cr_assert(memcmp(got, want, want_len) == 0, "drawn otherwise without the fills");
	free(want);
	free(got);
}

/* The fill of the frame named `name` in `d`'s SVG. */
static void fill_of(const drawn *d, const char *name, unsigned *r, unsigned *g, unsigned *b)
{
	char title[256];
	const char *p;

	snprintf(title, sizeof title, "<title>%s (", name);
	p = strstr(d->svg, title);
	cr_assert(p, "no frame %s", name);
	p = strstr(p, "fill=\"#");
	cr_assert(p && sscanf(p, "fill=\"#%2x%2x%2x\"", r, g, b) == 3, "%s", name);
}

/* Under a blocked frame, the runtime's own way of blocking is red too:
 * Dalvik's VMThread.sleep under Thread.sleep (it was blue, 14.7% of a real
 * trace's wall time), ART's Thread.parkFor$ under Unsafe.park; what the
 * runtime does there without blocking stays blue, and so does unpark. */
Test(folded, the_runtimes_way_of_blocking_is_red)
{
	af_render_options ro = {.palette = AF_PALETTE_ANDROID, .no_javascript = 1};
	drawn d = draw("main;com.example.App.nap;java.lang.Thread.sleep;"
	               "java.lang.VMThread.sleep 50\n"
	               "main;com.example.App.nap;java.lang.Thread.sleep;"
	               "java.lang.Thread.currentThread 1\n"
	               "main;com.example.App.take;java.util.concurrent.locks.LockSupport.park;"
	               "sun.misc.Unsafe.park;java.lang.Thread.parkFor$;java.lang.Object.wait 40\n"
	               "main;com.example.App.give;java.lang.Thread.unpark$ 9\n"
	               "main;com.example.App.idle;java.lang.Thread.parkUntil$ 9\n",
	               NULL, NULL, &ro);
	static const char *const red[] = {
		"java.lang.Thread.sleep", "java.lang.VMThread.sleep",
		"java.util.concurrent.locks.LockSupport.park", "sun.misc.Unsafe.park",
		"java.lang.Thread.parkFor$", "java.lang.Object.wait", "java.lang.Thread.parkUntil$"};
	static const char *const blue[] = {"java.lang.Thread.currentThread",
	                                   "java.lang.Thread.unpark$"};
	unsigned r, g, b;
	size_t i;

	for (i = 0; i < sizeof red / sizeof red[0]; i++) {
		fill_of(&d, red[i], &r, &g, &b);
		cr_assert(r > 200 && g < 100 && b < 100, "%s is red: %u,%u,%u", red[i], r, g, b);
	}
	for (i = 0; i < sizeof blue / sizeof blue[0]; i++) {
		fill_of(&d, blue[i], &r, &g, &b);
		cr_assert(b > 200 && r < 150, "%s is blue: %u,%u,%u", blue[i], r, g, b);
	}
	drop(&d);
}

Test(folded, palette_map_keeps_colours_between_graphs)
{
	char *dir = t_tmp("cp"), cmd[2048], *out1 = NULL, *out2 = NULL, *err = NULL;
	char *in = t_tmp("cp.folded"), args[1024], *map;
	size_t len;

	t_write(in, "a;b 3\nc 2\n", 10);
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	cr_assert_eq(system(cmd), 0);
	/* palette.map lives in the current folder, as with flamegraph.pl */
	snprintf(args, sizeof args, "--cp --random '%s'", in);
	cr_assert_eq(chdir(dir), 0);
	cr_assert_eq(t_cli(args, NULL, &out1, &err), 0, "%s", err);
	free(err);
	cr_assert_eq(t_cli(args, NULL, &out2, &err), 0, "%s", err);
	free(err);
	map = (char *)t_read("palette.map", &len);
	cr_assert_not_null(map);
	cr_assert(strncmp(map, "a->rgb(", 7) == 0, "%s", map);
	cr_assert(strstr(map, "\nall->rgb(") && strstr(map, "\nb->rgb(") &&
	          strstr(map, "\nc->rgb("), "%s", map);
	/* random colours, yet both graphs agree: the second read the map */
	cr_assert_str_eq(strstr(out1, "<g id=\"frames\">"), strstr(out2, "<g id=\"frames\">"));
	free(map);
	free(out1);
	free(out2);
	free(in);
	free(dir);
}

Test(folded, nameattr_links_and_attributes)
{
	char *in = t_tmp("na.folded"), *attrs = t_tmp("na.txt"), args[1024];
	char *out = NULL, *err = NULL, *why = NULL;
	const char *a = "b\thref=https://docs.example/b?x=1&y=2\ttarget=_top\tclass=hot\n"
	                "c\tbad name=1\tdata-k=\"<v>\"\n";

	t_write(in, "a;b 3\nc 2\n", 10);
	t_write(attrs, a, strlen(a));
	snprintf(args, sizeof args, "--nameattr '%s' '%s'", attrs, in);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert(t_xml_ok(out, strlen(out), &why), "%s", why);
	cr_assert(strstr(out, "<a href=\"https://docs.example/b?x=1&amp;y=2\" target=\"_top\">"
	                      "<g class=\"hot\"><rect "), "%s", out);
	cr_assert(strstr(out, "<g data-k=\"&lt;v&gt;\"><rect "), "%s", out);
	free(out);
	free(err);
	free(in);
	free(attrs);
}

/* --thread on folded input keeps the lines whose first frame is one of the
 * names given (flamegraph users' stacks often begin with the thread), as
 * for a trace's threads: before --reverse and the view's rules, and the
 * share --minwidth prunes by is of the lines kept. */
Test(folded, thread_selects_lines_by_their_first_frame)
{
	const char *text = "main;a;b 5\nmain;a 2\nRenderThread;c 7\nmain;c;d 1\n"
	                   "pool-1;a;a 3\n";
	const uint8_t *in = (const uint8_t *)text;
	const char *main_only[] = {"main"}, *two[] = {"pool-1", "main"};
	const char *inner[] = {"a"}, *none[] = {"Main"};
	af_tree_options o = {.threads = main_only, .nthreads = 1};
	af_trace *t = t_parse(in, strlen(text));
	af_tree *tree = NULL;
	af_error e = {0};
	af_node_info ni;
	char *s;
	size_t i;
	int has_d = 0;

	s = t_folded(in, strlen(text), AF_CLOCK_WALL, &o);
	cr_assert_str_eq(s, "main;a 2\nmain;a;b 5\nmain;c;d 1\n");
	free(s);
	o.threads = two;
	o.nthreads = 2;
	s = t_folded(in, strlen(text), AF_CLOCK_WALL, &o);
	cr_assert_str_eq(s, "main;a 2\nmain;a;b 5\nmain;c;d 1\npool-1;a;a 3\n");
	free(s);
	o.threads = main_only;
	o.nthreads = 1;
	o.reverse = 1;
	s = t_folded(in, strlen(text), AF_CLOCK_WALL, &o);
	cr_assert_str_eq(s, "a;main 2\nb;a;main 5\nd;c;main 1\n");
	free(s);
	o.reverse = 0;
	o.focus = "^a$"; /* pool-1's a;a is not there to merge */
	s = t_folded(in, strlen(text), AF_CLOCK_WALL, &o);
	cr_assert_str_eq(s, "a 2\na;b 5\n");
	free(s);
	o.focus = NULL;
	o.exclude = "^a$";
	s = t_folded(in, strlen(text), AF_CLOCK_WALL, &o);
	cr_assert_str_eq(s, "main;c;d 1\n");
	free(s);
	o.exclude = NULL;

	/* pruning for drawing: 10% of main's 8 keeps d (1); of all 18, not */
	o.prune = 0.1;
	o.prune_clock = AF_CLOCK_WALL;
	cr_assert_eq(af_tree_from_trace(t, &o, &tree, &e), AF_OK, "%s", e.message);
	af_tree_node(tree, 0, &ni);
	cr_assert_eq(ni.total[AF_CLOCK_WALL], 8);
	for (i = 0; i < af_tree_size(tree); i++) {
		af_tree_node(tree, i, &ni);
		has_d |= strcmp(ni.name, "d") == 0;
	}
	cr_assert(has_d, "d was pruned against the whole input");
	af_tree_free(tree);
	o.prune = 0;

	/* only first frames count, and names are exact */
	o.threads = inner;
	cr_assert_eq(af_tree_from_trace(t, &o, &tree, &e), AF_ERR_EMPTY);
	cr_assert_str_eq(e.message, "no line's first frame matches the --thread filter");
	o.threads = none;
	cr_assert_eq(af_tree_from_trace(t, &o, &tree, &e), AF_ERR_EMPTY);
	af_trace_free(t);
}

Test(folded, thread_from_the_cli_for_graphs_tables_and_diffs)
{
	char *in = t_tmp("threads.folded"), *after = t_tmp("threads-after.folded");
	char *out = NULL, *err = NULL, args[2048];
	const char *text = "main;a;b 10\nmain;c 5\nworker;c 20\n";
	const char *text2 = "main;a;b 30\nmain;c 5\nworker;c 1\n";

	t_write(in, text, strlen(text));
	t_write(after, text2, strlen(text2));
	snprintf(args, sizeof args, "--thread main --no-javascript '%s'", in);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert(strstr(out, "<title>c (5 samples, 33.33%)</title>"), "%s", out);
	cr_assert_null(strstr(out, "worker"));
	free(out);
	free(err);
	snprintf(args, sizeof args, "--thread main --report - '%s'", in);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert_str_eq(out, "method\tcalls\trecursive_calls\tinclusive\tinclusive_pct\t"
	                      "exclusive\texclusive_pct\n"
	                      "main\t0\t0\t15\t100.00\t0\t0.00\n"
	                      "b\t0\t0\t10\t66.67\t10\t66.67\n"
	                      "a\t0\t0\t10\t66.67\t0\t0.00\n"
	                      "c\t0\t0\t5\t33.33\t5\t33.33\n");
	free(out);
	free(err);
	snprintf(args, sizeof args, "--thread main --diff '%s' '%s' --format folded", in,
	         after);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert_str_eq(out, "main;a;b 10 30\nmain;c 5 5\n");
	free(out);
	free(err);
	snprintf(args, sizeof args, "--thread nobody --report - '%s'", in);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 1);
	cr_assert(strstr(err, ": no line's first frame matches the --thread filter\n"), "%s",
	          err);
	free(out);
	free(err);
	unlink(in);
	unlink(after);
	free(in);
	free(after);
}
