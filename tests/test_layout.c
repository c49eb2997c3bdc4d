/*
 * test_layout.c - the layout as numbers: flamegraph.pl's geometry, siblings
 * by name, narrow frames left out.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

/* main: a (b inside) for 60 µs of which b 30, then c for 40 µs, then d
 * for `d_us` µs. */
static af_tree *sample_tree(af_trace **trace, uint8_t **buf, uint32_t d_us)
{
	af_writer_options o = {.clock = AF_WRITER_WALL, .version = 2};
	af_writer *w = af_writer_new(&o);
	size_t len;
	af_tree *tree = NULL;
	af_error e;

	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, 4, "x.Y", "c", "()V", ""), 0);
	cr_assert_eq(af_writer_method(w, 8, "x.Y", "a", "()V", ""), 0);
	cr_assert_eq(af_writer_method(w, 12, "x.Y", "b", "()V", ""), 0);
	cr_assert_eq(af_writer_method(w, 16, "x.Y", "d", "()V", ""), 0);
	/* c is recorded first: order on the image comes from names */
	cr_assert_eq(af_writer_record(w, 1, 4, AF_ENTER, 0, 0), 0);
	cr_assert_eq(af_writer_record(w, 1, 4, AF_EXIT, 0, 40), 0);
	cr_assert_eq(af_writer_record(w, 1, 8, AF_ENTER, 0, 40), 0);
	cr_assert_eq(af_writer_record(w, 1, 12, AF_ENTER, 0, 50), 0);
	cr_assert_eq(af_writer_record(w, 1, 12, AF_EXIT, 0, 80), 0);
	cr_assert_eq(af_writer_record(w, 1, 8, AF_EXIT, 0, 100), 0);
	cr_assert_eq(af_writer_record(w, 1, 16, AF_ENTER, 0, 100), 0);
	cr_assert_eq(af_writer_record(w, 1, 16, AF_EXIT, 0, 100 + d_us), 0);
	*buf = t_finish(w, &len, NULL);
	*trace = t_parse(*buf, len);
	cr_assert_eq(af_tree_from_trace(*trace, NULL, &tree, &e), AF_OK);
	return tree;
}

static const char *frame_name(const af_layout *l, size_t i)
{
	af_node_info ni;
	af_tree_node(l->tree, l->rects[i].node, &ni);
	return ni.name;
}

#define NEAR(a, b) (fabs((a) - (b)) < 1e-9)

Test(layout, flamegraph_geometry)
{
	uint8_t *buf;
	af_trace *t;
	af_tree *tree = sample_tree(&t, &buf, 0);
	af_layout *l = NULL;
	af_error e;
	static const char *order[] = {"all", "main", "x.Y.a", "x.Y.b", "x.Y.c"};
	/* a's own 30 µs come before b, as flamegraph.pl draws the folded
	 * lines "main;x.Y.a 30" and "main;x.Y.a;x.Y.b 30" */
	static const double x[] = {10, 10, 10, 10 + 354, 10 + 708};
	static const double w[] = {1180, 1180, 708, 354, 472};
	static const unsigned depth[] = {0, 1, 2, 3, 2};
	size_t i;

	cr_assert_eq(af_layout_build(tree, NULL, &l, &e), AF_OK, "%s", e.message);
	cr_assert_eq(l->total, 100);
	cr_assert(NEAR(l->width, 1200));
	/* four levels of 16 px, 36 px above for the title, 34 below */
	cr_assert(NEAR(l->height, 4 * 16 + 36 + 34), "%f", l->height);
	cr_assert_eq(l->max_depth, 3);
	cr_assert_eq(l->nrects, 5);
	for (i = 0; i < 5; i++) {
		const af_rect *r = &l->rects[i];
		cr_assert_str_eq(frame_name(l, i), order[i]);
		cr_assert(NEAR(r->x, x[i]), "%s x %f", order[i], r->x);
		cr_assert(NEAR(r->w, w[i]), "%s w %f", order[i], r->w);
		cr_assert_eq(r->depth, depth[i]);
		cr_assert(NEAR(r->y, l->height - 34 - (depth[i] + 1) * 16.0 + 1));
		cr_assert(NEAR(r->h, 15));
	}
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
	free(buf);
}

Test(layout, frames_narrower_than_min_width_are_left_out)
{
	uint8_t *buf;
	af_trace *t;
	/* d: 5 µs of 100,105: 0.059 px at 1200 px */
	af_tree *tree = sample_tree(&t, &buf, 100005);
	af_layout *l = NULL;
	af_layout_options o = {.min_width = 0.1};
	af_error e;
	size_t i;
	int d_seen = 0;

	cr_assert_eq(af_layout_build(tree, &o, &l, &e), AF_OK);
	for (i = 0; i < l->nrects; i++)
		d_seen |= strcmp(frame_name(l, i), "x.Y.d") == 0;
	cr_assert(d_seen); /* d itself is wide: 100,005 µs */
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
	free(buf);

	tree = sample_tree(&t, &buf, 100000000);
	cr_assert_eq(af_layout_build(tree, &o, &l, &e), AF_OK);
	/* a, b and c are now under 0.1 px: only all, main and d remain */
	cr_assert_eq(l->nrects, 3);
	cr_assert_str_eq(frame_name(l, 2), "x.Y.d");
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
	free(buf);
}

Test(layout, options_and_empty_clocks)
{
	uint8_t *buf;
	af_trace *t;
	af_tree *tree = sample_tree(&t, &buf, 0);
	af_layout *l = NULL;
	af_layout_options o = {.width = 600, .frame_height = 20, .title = "T"};
	af_error e;

	cr_assert_eq(af_layout_build(tree, &o, &l, &e), AF_OK);
	cr_assert(NEAR(l->rects[0].w, 580));
	cr_assert(NEAR(l->height, 4 * 20 + 36 + 34));
	cr_assert_str_eq(l->title, "T");
	af_layout_free(l);
	/* a wall-only trace has no thread-cpu time to draw */
	o.clock = AF_CLOCK_CPU;
	cr_assert_eq(af_layout_build(tree, &o, &l, &e), AF_ERR_EMPTY);
	cr_assert_null(l);
	cr_assert_str_eq(e.message, "no time recorded on the thread-cpu clock");
	af_tree_free(tree);
	af_trace_free(t);
	free(buf);
}

/* Android Studio's Call Chart: every call apart, where it began. */
Test(layout, trace_flame_chart_places_calls_in_time)
{
	af_writer_options wo = {.clock = AF_WRITER_WALL, .version = 2};
	af_writer *w = af_writer_new(&wo);
	af_parse_options po = {.flamechart = 1};
	af_layout_options lo = {.flamechart = 1};
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_error e;
	uint8_t *buf;
	size_t len, i, bs = 0;
	double wpt = 1180.0 / 60, bx[2] = {0, 0};

	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, 4, "x.Y", "a", "()V", ""), 0);
	cr_assert_eq(af_writer_method(w, 8, "x.Y", "b", "()V", ""), 0);
	cr_assert_eq(af_writer_record(w, 1, 4, AF_ENTER, 0, 0), 0);
	cr_assert_eq(af_writer_record(w, 1, 8, AF_ENTER, 0, 10), 0);
	cr_assert_eq(af_writer_record(w, 1, 8, AF_EXIT, 0, 30), 0);
	cr_assert_eq(af_writer_record(w, 1, 8, AF_ENTER, 0, 40), 0);
	cr_assert_eq(af_writer_record(w, 1, 8, AF_EXIT, 0, 50), 0);
	cr_assert_eq(af_writer_record(w, 1, 4, AF_EXIT, 0, 60), 0);
	buf = t_finish(w, &len, NULL);
	cr_assert_eq(af_trace_parse(buf, len, &po, &t, &e), AF_OK);
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
	cr_assert_eq(af_layout_build(tree, &lo, &l, &e), AF_OK);
	cr_assert_eq(l->nrects, 5); /* all, main, a, b, b */
	for (i = 0; i < l->nrects; i++) {
		if (strcmp(frame_name(l, i), "x.Y.b") == 0) {
			cr_assert_lt(bs, 2);
			bx[bs++] = l->rects[i].x;
		}
	}
	cr_assert_eq(bs, 2);
	cr_assert(NEAR(bx[0], 10 + 10 * wpt), "%f", bx[0]);
	cr_assert(NEAR(bx[1], 10 + 40 * wpt), "%f", bx[1]);
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
	free(buf);
}

/* --minwidth 0 (and 0%) keeps every frame, as flamegraph.pl does; zeroed
 * options still mean the default 0.1 px. */
Test(layout, min_width_zero_keeps_every_frame)
{
	uint8_t *buf;
	af_trace *t;
	/* a, b and c under 0.1 px */
	af_tree *tree = sample_tree(&t, &buf, 100000000);
	af_layout *l = NULL;
	af_layout_options o = {.keep_narrow = 1, .min_width = 5, .min_width_pct = 2};
	af_error e;

	cr_assert_eq(af_layout_build(tree, &o, &l, &e), AF_OK);
	cr_assert_eq(l->nrects, 6); /* all, main, a, b, c, d */
	af_layout_free(l);
	o = (af_layout_options){0};
	cr_assert_eq(af_layout_build(tree, &o, &l, &e), AF_OK);
	cr_assert_eq(l->nrects, 3);
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
	free(buf);
}

/* Frames in flamegraph.pl's SVG and in ours (static: one <title> a
 * frame) for the same folded input and --minwidth. */
static int count_titles(const char *svg)
{
	int n = 0;
	while ((svg = strstr(svg, "<title>")) != NULL) {
		n++;
		svg++;
	}
	return n;
}

Test(layout, min_width_counts_as_flamegraph_pl)
{
	static const char *const widths[] = {"", "--minwidth 0", "--minwidth 0%",
	                                     "--minwidth 0.1", "--minwidth 0.01%",
	                                     "--minwidth 0.5", "--minwidth 2% --minwidth 0"};
	const char *fg = AF_TEST_SOURCE "/../shared/flamegraph/flamegraph.pl";
	char *in = t_tmp("minwidth.folded"), *svg = t_tmp("minwidth-fg.svg"), cmd[2048];
	/* at 1180 px for 1,000,006 samples: 0.00118 px a sample */
	const char *text = "a;b 1000000\nc 1\nc;d 1\ne;f;g 2\nh 1\nh;i;j 1\n";
	size_t k, len;

	if (access(fg, R_OK) != 0 || system("perl -e 1 2>/dev/null") != 0)
		cr_skip_test("skipped: flamegraph.pl or perl not found (%s)", fg);
	t_write(in, text, strlen(text));
	for (k = 0; k < sizeof widths / sizeof widths[0]; k++) {
		char *ours = NULL, *err = NULL, *theirs;
		snprintf(cmd, sizeof cmd, "perl '%s' %s '%s' >'%s' 2>/dev/null", fg, widths[k],
		         in, svg);
		cr_assert_eq(system(cmd), 0, "%s", cmd);
		theirs = (char *)t_read(svg, &len);
		snprintf(cmd, sizeof cmd, "--no-javascript %s '%s'", widths[k], in);
		cr_assert_eq(t_cli(cmd, NULL, &ours, &err), 0, "%s", err);
		cr_expect_eq(count_titles(ours), count_titles(theirs), "%s", widths[k]);
		if (k == 1 || k == 2 || k == 6)
			cr_expect_eq(count_titles(ours), 11, "%s: every frame", widths[k]);
		free(ours);
		free(err);
		free(theirs);
	}
	unlink(svg);
	free(svg);
	free(in);
}

/* A thumbnail taken from a drawn graph's frames is the thumbnail laid out
 * from the tree, frame for frame, whatever the options: where the graph
 * left out frames a thumbnail draws, it is laid out again. */
static void same_thumbnail(const af_tree *tree, const af_layout_options *lo, int w, int h,
                           const char *what)
{
	af_layout_options to = *lo;
	af_layout *full = NULL, *got = NULL, *want = NULL;
	af_error e;
	size_t i;

	to.thumb_width = w;
	to.thumb_height = h;
	cr_assert_eq(af_layout_build(tree, lo, &full, &e), AF_OK, "%s: %s", what, e.message);
	cr_assert_eq(af_layout_build(tree, &to, &want, &e), AF_OK, "%s: %s", what, e.message);
	cr_assert_eq(af_layout_thumbnail(full, w, h, &got, &e), AF_OK, "%s: %s", what, e.message);
	cr_assert_eq(got->nrects, want->nrects, "%s %dx%d: %zu frames, not %zu", what, w, h,
	             got->nrects, want->nrects);
	for (i = 0; i < want->nrects; i++)
		cr_assert(memcmp(&got->rects[i], &want->rects[i], sizeof want->rects[i]) == 0,
		          "%s %dx%d: frame %zu differs", what, w, h, i);
	cr_assert(got->width == want->width && got->height == want->height &&
	          got->frame_height == want->frame_height && got->xpad == want->xpad &&
	          got->max_depth == want->max_depth && got->thumbnail && !got->legend &&
	          !got->subtitle && strcmp(got->title, want->title) == 0 &&
	          got->total == want->total && got->max_delta == want->max_delta, "%s", what);
	af_layout_free(full);
	af_layout_free(got);
	af_layout_free(want);
}

Test(layout, thumbnail_from_the_graph_is_the_thumbnail_from_the_tree)
{
	static const char *const samples[] = {"app.trace", "app-dalvik-v1.trace",
	                                      "app-streaming.trace", "app-after.trace"};
	static const char *const real[] = {"BurrOakApp-dmtrace.trace",
	                                   "JAGAndroidFramework-dmtrace.trace",
	                                   "android-methods-profiler-legacy.trace"};
	size_t k, n = sizeof samples / sizeof *samples + sizeof real / sizeof *real;

	for (k = 0; k < n; k++) {
		int is_real = k >= sizeof samples / sizeof *samples;
		char *path = NULL;
		af_node_info root;
		af_clock clock;
		af_trace *trace = NULL;
		af_tree *tree = NULL;
		af_error e;
		int v;

		if (is_real) {
			if (!t_have_traces())
				continue;
			path = t_trace_path(real[k - sizeof samples / sizeof *samples]);
		} else {
			path = malloc(strlen(AF_TEST_SOURCE) + strlen(samples[k]) + 10);
			cr_assert(path);
			sprintf(path, "%s/samples/%s", AF_TEST_SOURCE, samples[k]);
		}
		cr_assert_eq(af_trace_open(path, NULL, &trace, &e), AF_OK, "%s: %s", path,
		             e.message);
		cr_assert_eq(af_tree_from_trace(trace, NULL, &tree, &e), AF_OK);
		af_tree_node(tree, 0, &root);
		clock = af_trace_get_info(trace)->has_clock[AF_CLOCK_WALL] ? AF_CLOCK_WALL
		                                                           : AF_CLOCK_CPU;
		for (v = 0; v < 8; v++) {
			af_layout_options lo = {.legend = 1, .subtitle = "s", .title = "t",
			                        .clock = clock};
			if (v == 1)
				lo.inverted = 1;
			if (v == 2)
				lo.sort_weight = 1;
			if (v == 3)
				lo.keep_narrow = 1;
			if (v == 4)
				lo.min_width_pct = 0.5; /* wider than a thumbnail's pixel */
			if (v == 5)
				lo.min_width = 5;
			if (v == 6)
				lo.width = 200;
			if (v == 7)
				lo.total = 10 * root.total[clock];
			same_thumbnail(tree, &lo, 480, 150, path);
			same_thumbnail(tree, &lo, 960, 200, path);
			same_thumbnail(tree, &lo, 16, 16, path);
			same_thumbnail(tree, &lo, 3000, 900, path);
		}
		af_tree_free(tree);
		af_trace_free(trace);
		free(path);
	}
}

/* The command's graph of `path` (options `args`, static SVG) has as many
 * frames as the layout `lo` of trace `t`'s whole tree: a frame is a
 * <title> in a graph, a <rect> after the background in a thumbnail. */
static void pruned_draws_as_whole(const af_trace *t, const char *path, const char *args,
                                  const af_layout_options *lo)
{
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_error e;
	char *ours = NULL, *err = NULL, cmd[4096];
	const char *p;
	size_t drawn = 0;

	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_layout_build(tree, lo, &l, &e), AF_OK, "%s", e.message);
	snprintf(cmd, sizeof cmd, "--no-javascript %s '%s'", args, path);
	cr_assert_eq(t_cli(cmd, NULL, &ours, &err), 0, "%s: %s", path, err);
	for (p = ours; (p = strstr(p, lo->thumb_width ? "<rect" : "<title>")); p++)
		drawn++;
	if (lo->thumb_width)
		drawn--;
	cr_expect_eq(drawn, l->nrects, "%s %s: %zu frames, not %zu", args, path, drawn,
	             l->nrects);
	free(ours);
	free(err);
	af_layout_free(l);
	af_tree_free(tree);
}

/* The command builds its tree without the call paths too narrow to be
 * drawn (af_tree_options.prune, at the layout's own threshold): it draws
 * every frame the layout of the whole tree draws, at the threshold and
 * either side of it, for --minwidth in pixels and percent and thumbnails. */
Test(layout, a_pruned_tree_draws_every_frame_the_whole_tree_does)
{
	static const struct {
		const char *text, *args;
		af_layout_options lo;
	} cases[] = {
		/* at 1180 px, 0.1 px is 100 samples in 1,180,000 */
		{"a;b;d 100\na;c 1179900\n", "", {0}},
		{"a;b;d 100\na;c 1180000\n", "", {0}},
		{"a;b;d 100\na;c 1179800\n", "", {0}},
		{"a;b;d 200\na;c 589800\n", "--minwidth 0.4", {.min_width = 0.4}},
		{"a;b;d 200\na;c 589900\n", "--minwidth 0.4", {.min_width = 0.4}},
		{"a;b;d 100\na;c 9900\n", "--minwidth 1%", {.min_width_pct = 1}},
		{"a;b;d 100\na;c 10000\n", "--minwidth 1%", {.min_width_pct = 1}},
		/* a thumbnail leaves out what is under one of its pixels */
		{"a;b;d 100\na;c 23900\n", "--thumbnail 240x60 --format svg",
		 {.thumb_width = 240, .thumb_height = 60}},
		{"a;b;d 100\na;c 24000\n", "--thumbnail 240x60 --format svg",
		 {.thumb_width = 240, .thumb_height = 60}},
	};
	char *in = t_tmp("pruned.folded");
	size_t k;

	for (k = 0; k < sizeof cases / sizeof cases[0]; k++) {
		const char *text = cases[k].text;
		af_trace *t = t_parse((const uint8_t *)text, strlen(text));
		t_write(in, text, strlen(text));
		pruned_draws_as_whole(t, in, cases[k].args, &cases[k].lo);
		af_trace_free(t);
	}
	free(in);
}

/* The frames of layouts `a` and `b` are the same: names, places, values. */
static void same_frames(const af_layout *a, const af_layout *b, const char *what)
{
	size_t i;

	cr_assert_eq(a->nrects, b->nrects, "%s: %zu frames, not %zu", what, b->nrects,
	             a->nrects);
	for (i = 0; i < a->nrects; i++) {
		const af_rect *x = &a->rects[i], *y = &b->rects[i];
		cr_assert_str_eq(frame_name(b, i), frame_name(a, i),
		                 "%s: frame %zu", what, i);
		cr_assert(x->x == y->x && x->y == y->y && x->w == y->w && x->value == y->value &&
		                  x->own == y->own && x->start == y->start,
		          "%s: frame %zu (%s) moved", what, i, frame_name(a, i));
	}
}

/* Trace `t` drawn from a tree pruned as the command prunes it and from its
 * whole tree: the same frames, for all its threads (the tree copied in one
 * pass over the trace's nodes) and each thread alone (walked from its
 * root), on each clock it has. */
static void pruned_frames_as_whole(const af_trace *t, const char *what)
{
	size_t n = af_trace_thread_count(t), i;
	int c;

	/* i < n: thread i alone; i < 2n: the threads of thread i - n's name,
	 * picked as --thread does (walked when they hold under a quarter of
	 * the records, else copied in one pass); 2n: all */
	for (c = AF_CLOCK_WALL; c <= AF_CLOCK_CPU; c++) {
		if (!af_trace_get_info(t)->has_clock[c])
			continue;
		for (i = 0; i <= 2 * n; i++) {
			af_layout_options lo = {.clock = (af_clock)c};
			af_tree_options whole = {.clock = (af_clock)c,
			                         .one_thread = i < n, .thread = i < n ? i : 0};
			const char *picked[1];
			af_tree_options pruned;
			if (i >= n && i < 2 * n) {
				af_thread_info ti;
				af_trace_thread(t, i - n, &ti);
				picked[0] = ti.name;
				whole.threads = picked;
				whole.nthreads = 1;
			}
			pruned = whole;
			af_tree *tw = NULL, *tp = NULL;
			af_layout *lw = NULL, *lp = NULL;
			af_error e;
			char label[256];
			af_status st;

			pruned.prune = 0.1 / (1200 - 20);
			pruned.prune_clock = (af_clock)c;
			/* a thread with no time on this clock fails alike */
			st = af_tree_from_trace(t, &whole, &tw, &e);
			if (st == AF_OK)
				st = af_layout_build(tw, &lo, &lw, &e);
			cr_assert_eq(af_tree_from_trace(t, &pruned, &tp, &e), AF_OK, "%s", e.message);
			cr_assert_eq(af_layout_build(tp, &lo, &lp, &e), st, "%s", what);
			snprintf(label, sizeof label, "%s, clock %d, %s %zu", what, c,
			         i < n ? "thread" : i < 2 * n ? "--thread" : "all of",
			         i < n ? i : i < 2 * n ? i - n : n);
			if (st == AF_OK)
				same_frames(lw, lp, label);
			af_layout_free(lw);
			af_layout_free(lp);
			af_tree_free(tw);
			af_tree_free(tp);
		}
	}
}

/* The same on the real traces of every layout, as graphs and thumbnails;
 * and the pruned trees' frames are the whole trees' (all threads, each
 * alone, every clock). */
Test(layout, a_pruned_tree_draws_every_frame_of_a_real_trace)
{
	static const af_layout_options thumb = {.thumb_width = 240, .thumb_height = 60};
	static const af_layout_options whole = {0};
	DIR *d;
	struct dirent *ent;
	int n = 0;

	if (!t_have_traces())
		cr_skip_test("skipped: real traces not found in %s", t_traces_dir());
	cr_assert((d = opendir(t_traces_dir())));
	while ((ent = readdir(d)) != NULL) {
		char *path = t_trace_path(ent->d_name);
		af_trace *t = NULL;
		af_error e;
		if (ent->d_name[0] != '.' && !strstr(ent->d_name, ".md") &&
		    af_trace_open(path, NULL, &t, &e) == AF_OK) {
			/* the command's clock: wall when recorded, else thread-cpu */
			int wall = af_trace_get_info(t)->has_clock[AF_CLOCK_WALL];
			af_layout_options g = whole, th = thumb;
			g.clock = th.clock = wall ? AF_CLOCK_WALL : AF_CLOCK_CPU;
			pruned_draws_as_whole(t, path, "", &g);
			pruned_draws_as_whole(t, path, "--thumbnail 240x60 --format svg", &th);
			pruned_frames_as_whole(t, ent->d_name);
			n++;
		}
		af_trace_free(t);
		free(path);
	}
	closedir(d);
	cr_expect_geq(n, 8, "%d real traces drawn", n);
}

/* Pruning keeps a frame whole where its parts merge: overloads of one name
 * (f, each under the share, together over it, and g below both), threads
 * of one name (worker: k under the share in each, over it together, in
 * the whole graph and in the workers' own, which --thread worker walks, as
 * they hold few of the records), and a lone call under the share (k in
 * main). */
Test(layout, a_pruned_tree_keeps_what_merges)
{
	af_writer_options o = {.clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	static const struct {
		uint32_t tid, f, g, h, us;
	} calls[] = {
		{1, 4, 12, 16, 60}, {1, 8, 12, 16, 60},  {2, 20, 12, 0, 60}, {3, 20, 12, 0, 60},
		{1, 20, 0, 0, 10},  {4, 16, 0, 0, 500000}, {2, 16, 0, 0, 800000},
	};
	uint8_t *buf;
	size_t len, key, k;
	uint32_t clk = 0;
	af_trace *t;

	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_thread(w, 2, "worker"), 0);
	cr_assert_eq(af_writer_thread(w, 3, "worker"), 0);
	cr_assert_eq(af_writer_thread(w, 4, "bg"), 0);
	cr_assert_eq(af_writer_thread(w, 5, "noise"), 0);
	cr_assert_eq(af_writer_method(w, 4, "x.Y", "f", "()V", ""), 0);
	cr_assert_eq(af_writer_method(w, 8, "x.Y", "f", "(I)V", ""), 0);
	cr_assert_eq(af_writer_method(w, 12, "x.Y", "g", "()V", ""), 0);
	cr_assert_eq(af_writer_method(w, 16, "x.Y", "h", "()V", ""), 0);
	cr_assert_eq(af_writer_method(w, 20, "x.Y", "k", "()V", ""), 0);
	for (k = 0; k < sizeof calls / sizeof calls[0]; k++) {
		uint32_t us = calls[k].us;
		cr_assert_eq(af_writer_record(w, calls[k].tid, calls[k].f, AF_ENTER, clk, clk), 0);
		if (calls[k].g)
			cr_assert_eq(af_writer_record(w, calls[k].tid, calls[k].g, AF_ENTER, clk, clk), 0);
		if (calls[k].h)
			cr_assert_eq(af_writer_record(w, calls[k].tid, calls[k].h, AF_ENTER, clk, clk), 0);
		if (calls[k].h)
			cr_assert_eq(af_writer_record(w, calls[k].tid, calls[k].h, AF_EXIT,
			                              clk + us * 2 / 3, clk + us * 2 / 3), 0);
		if (calls[k].g)
			cr_assert_eq(af_writer_record(w, calls[k].tid, calls[k].g, AF_EXIT,
			                              clk + us * 5 / 6, clk + us * 5 / 6), 0);
		clk += us;
		cr_assert_eq(af_writer_record(w, calls[k].tid, calls[k].f, AF_EXIT, clk, clk), 0);
	}
	for (k = 0; k < 20; k++, clk++) { /* most of the records */
		cr_assert_eq(af_writer_record(w, 5, 16, AF_ENTER, clk, clk), 0);
		cr_assert_eq(af_writer_record(w, 5, 16, AF_EXIT, clk + 1, clk + 1), 0);
	}
	buf = t_finish(w, &len, &key);
	t = t_parse(buf, len);
	pruned_frames_as_whole(t, "overloads and namesakes");
	{
		/* and the merged frames are there to be kept */
		af_tree *tree = NULL;
		af_layout *l = NULL;
		af_tree_options to = {.prune = 0.1 / (1200 - 20), .prune_clock = AF_CLOCK_WALL};
		af_layout_options lo = {0};
		af_error e;
		size_t f = 0, kk = 0;
		cr_assert_eq(af_tree_from_trace(t, &to, &tree, &e), AF_OK, "%s", e.message);
		cr_assert_eq(af_layout_build(tree, &lo, &l, &e), AF_OK, "%s", e.message);
		for (k = 0; k < l->nrects; k++) {
			f += strcmp(frame_name(l, k), "x.Y.f") == 0;
			kk += strcmp(frame_name(l, k), "x.Y.k") == 0;
		}
		cr_expect_eq(f, 1, "f drawn %zu times", f);
		cr_expect_eq(kk, 1, "k drawn %zu times (once for the workers)", kk);
		af_layout_free(l);
		af_tree_free(tree);
	}
	af_trace_free(t);
	free(buf);
}

Test(layout, siblings_whose_names_begin_others_sort_as_their_lines)
{
	/* names with spaces that begin others: flamegraph.pl sorts the lines
	 * "a  b 2" < "a 4" < "a 5" < "a b 5" < "a b;z3 1" < "a c 2" < "a;z1 4"
	 * (a count's digit after "a " comes after a space, before a letter),
	 * so "a" is drawn twice, its own time and then its child; the same
	 * input is drawn by flamegraph.pl itself in test_flamegraph.c */
	static const char folded[] = "a c 2\na 4\na b 5\na;z1 4\na  b 2\na 5\na b;z3 1\n";
	static const char *const order[] = {"a  b", "a", "a b", "a c", "a"};
	af_trace *t = t_parse((const uint8_t *)folded, sizeof folded - 1);
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_error e;
	size_t i, k = 0;
	double x = -1;

	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_layout_build(tree, NULL, &l, &e), AF_OK, "%s", e.message);
	for (i = 0; i < l->nrects; i++) {
		if (l->rects[i].depth != 1)
			continue;
		cr_assert_lt(k, 5, "a sixth frame: %s", frame_name(l, i));
		cr_expect_str_eq(frame_name(l, i), order[k], "frame %zu", k);
		cr_expect_gt(l->rects[i].x, x);
		x = l->rects[i].x;
		k++;
	}
	cr_assert_eq(k, 5);
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
}
