/*
 * test_callgraph.c - the call graph (--call-graph, -o FILE.dot): its
 * methods against the method table, its edges against their methods, the
 * threshold as dmtracedump applies it (and dmtracedump's own graphs on
 * the real traces), the view's rules, the DOT text read back, and the
 * images Graphviz's library draws.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#define A 4u
#define B 8u
#define C 12u

/* ------------------------------------------------------------------ */
/* Helpers                                                             */

static af_trace *open_trace(const char *path)
{
	af_trace *t = NULL;
	af_error e = {0};
	cr_assert_eq(af_trace_open(path, NULL, &t, &e), AF_OK, "%s: %s", path, e.message);
	return t;
}

/* The call graph of `t` on `clock` with the view `o` (NULL: none); the
 * tree it borrows its names from in *tree. */
static af_call_graph *graph_of(const af_trace *t, const af_tree_options *o, af_clock clock,
                               af_tree **tree)
{
	af_tree_options topt = {0};
	af_call_graph *g = NULL;
	af_error e = {0};

	if (o)
		topt = *o;
	topt.clock = clock;
	cr_assert_eq(af_tree_from_trace(t, &topt, tree, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_call_graph_build(*tree, clock, &g, &e), AF_OK, "%s", e.message);
	return g;
}

static size_t row_of(const af_call_graph *g, const char *name)
{
	size_t i;
	for (i = 0; i < g->methods.nrows; i++)
		if (strcmp(g->methods.rows[i].name, name) == 0)
			return i;
	return (size_t)-1;
}

static const af_call_edge *edge_of(const af_call_graph *g, uint32_t caller, uint32_t callee)
{
	size_t i;
	for (i = 0; i < g->nedges; i++)
		if (g->edges[i].caller == caller && g->edges[i].callee == callee)
			return &g->edges[i];
	return NULL;
}

/* Every edge belongs to its caller's and its callee's groups, in order,
 * and the edges into a method add up to its calls and inclusive time. */
static void check_edges(const af_call_graph *g, const char *what)
{
	size_t n = g->methods.nrows, i, k;

	cr_assert_eq(g->calls_from[0], 0);
	cr_assert_eq(g->calls_from[n + 1], g->nedges, "%s", what);
	cr_assert_eq(g->callers_of[n], g->nedges, "%s", what);
	for (i = 0; i <= n; i++)
		for (k = g->calls_from[i]; k < g->calls_from[i + 1]; k++) {
			const af_call_edge *e = &g->edges[k];
			cr_assert_eq(e->caller, i == n ? AF_CALL_ROOT : (uint32_t)i, "%s", what);
			cr_assert_lt(e->callee, n);
			cr_assert_leq(e->outer_calls, e->calls + e->recursive_calls);
			if (k > g->calls_from[i])
				cr_assert_geq(g->edges[k - 1].inclusive, e->inclusive, "%s", what);
		}
	for (i = 0; i < n; i++) {
		const af_method_row *r = &g->methods.rows[i];
		uint64_t calls = 0, rec = 0, incl = 0;
		for (k = g->callers_of[i]; k < g->callers_of[i + 1]; k++) {
			const af_call_edge *e = &g->edges[g->callers[k]];
			cr_assert_eq(e->callee, i, "%s", what);
			calls += e->calls;
			rec += e->recursive_calls;
			incl += e->inclusive;
		}
		cr_assert_eq(calls, r->calls, "%s: %s: callers' calls %llu, method %llu", what,
		             r->name, (unsigned long long)calls, (unsigned long long)r->calls);
		cr_assert_eq(rec, r->recursive_calls, "%s: %s", what, r->name);
		cr_assert_eq(incl, r->inclusive, "%s: %s: callers' time %llu, method %llu", what,
		             r->name, (unsigned long long)incl, (unsigned long long)r->inclusive);
	}
}

/* The graph's methods are the method table's, row for row. */
static void check_against_table(const af_trace *t, const af_tree_options *o,
                                af_clock clock, const char *what)
{
	af_method_table *m = NULL;
	af_tree *tree = NULL;
	af_call_graph *g = graph_of(t, o, clock, &tree);
	af_error e = {0};
	size_t i;

	cr_assert_eq(af_method_table_build(t, o, clock, &m, &e), AF_OK, "%s", e.message);
	cr_assert_eq(g->methods.total, m->total, "%s: total", what);
	cr_assert_eq(g->methods.nrows, m->nrows, "%s: %zu methods, the table %zu", what,
	             g->methods.nrows, m->nrows);
	for (i = 0; i < m->nrows; i++) {
		const af_method_row *x = &g->methods.rows[i], *y = &m->rows[i];
		cr_assert_str_eq(x->name, y->name, "%s: row %zu", what, i);
		cr_assert(x->calls == y->calls && x->recursive_calls == y->recursive_calls &&
		                  x->inclusive == y->inclusive && x->exclusive == y->exclusive,
		          "%s: %s: %llu+%llu calls %llu incl %llu excl; table %llu+%llu %llu "
		          "%llu", what, x->name, (unsigned long long)x->calls,
		          (unsigned long long)x->recursive_calls, (unsigned long long)x->inclusive,
		          (unsigned long long)x->exclusive, (unsigned long long)y->calls,
		          (unsigned long long)y->recursive_calls, (unsigned long long)y->inclusive,
		          (unsigned long long)y->exclusive);
	}
	check_edges(g, what);
	af_method_table_free(m);
	af_call_graph_free(g);
	af_tree_free(tree);
}

/* main: A (0..60) calls B (10..20) and A (25..50), which calls B (30..45)
 * and C (46..49); worker: B (0..40).  Both clocks alike. */
static af_trace *small(void)
{
	af_writer_options wo = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&wo);
	static const struct {
		uint32_t tid, id;
		int act;
		uint32_t t;
	} r[] = {{1, A, AF_ENTER, 0},  {1, B, AF_ENTER, 10}, {1, B, AF_EXIT, 20},
	         {1, A, AF_ENTER, 25}, {1, B, AF_ENTER, 30}, {1, B, AF_EXIT, 45},
	         {1, C, AF_ENTER, 46}, {1, C, AF_EXIT, 49},  {1, A, AF_EXIT, 50},
	         {1, A, AF_EXIT, 60},  {2, B, AF_ENTER, 0},  {2, B, AF_EXIT, 40}};
	uint8_t *buf;
	size_t len, i;
	af_trace *t;

	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_thread(w, 2, "worker"), 0);
	cr_assert_eq(af_writer_method(w, A, "com.example.App", "a", "()V", "App.java"), 0);
	cr_assert_eq(af_writer_method(w, B, "com.example.App", "b", "()V", "App.java"), 0);
	cr_assert_eq(af_writer_method(w, C, "com.example.App", "c", "()V", "App.java"), 0);
	for (i = 0; i < sizeof r / sizeof r[0]; i++)
		cr_assert_eq(af_writer_record(w, r[i].tid, r[i].id, r[i].act, r[i].t, r[i].t), 0);
	buf = t_finish(w, &len, NULL);
	t = t_parse(buf, len);
	free(buf);
	return t;
}

/* A PNG's width and height, from its IHDR chunk. */
static void png_size(const uint8_t *p, size_t len, unsigned *w, unsigned *h)
{
	cr_assert_gt(len, 24);
	cr_assert_eq(memcmp(p, "\x89PNG\r\n\x1a\n", 8), 0, "not a PNG");
	*w = (unsigned)p[16] << 24 | (unsigned)p[17] << 16 | (unsigned)p[18] << 8 | p[19];
	*h = (unsigned)p[20] << 24 | (unsigned)p[21] << 16 | (unsigned)p[22] << 8 | p[23];
}

/* ------------------------------------------------------------------ */
/* The graph                                                           */

Test(callgraph, calls_and_times_of_a_small_trace)
{
	af_trace *t = small();
	af_tree *tree = NULL;
	af_call_graph *g = graph_of(t, NULL, AF_CLOCK_WALL, &tree);
	const af_method_row *rows = g->methods.rows;
	uint32_t a, b, c;
	const af_call_edge *e;

	cr_assert_eq(g->methods.total, 100);
	cr_assert_eq(g->methods.nrows, 3);
	b = (uint32_t)row_of(g, "com.example.App.b");
	a = (uint32_t)row_of(g, "com.example.App.a");
	c = (uint32_t)row_of(g, "com.example.App.c");
	cr_assert(b == 0 && a == 1 && c == 2, "rows by inclusive time: %u %u %u", b, a, c);
	cr_assert(rows[a].calls == 1 && rows[a].recursive_calls == 1 && rows[a].inclusive == 60 &&
	          rows[a].exclusive == 32);
	cr_assert(rows[b].calls == 3 && rows[b].recursive_calls == 0 && rows[b].inclusive == 65 &&
	          rows[b].exclusive == 65);
	cr_assert(rows[c].calls == 1 && rows[c].inclusive == 3);
	cr_assert_eq(g->nedges, 5);
	e = edge_of(g, AF_CALL_ROOT, a);
	cr_assert(e && e->calls == 1 && e->inclusive == 60 && e->outer_calls == 1);
	e = edge_of(g, AF_CALL_ROOT, b); /* the worker's */
	cr_assert(e && e->calls == 1 && e->inclusive == 40);
	e = edge_of(g, a, b); /* once from the outer A, once from the inner */
	cr_assert(e && e->calls == 2 && e->recursive_calls == 0 && e->inclusive == 25 &&
	          e->outer_calls == 1);
	e = edge_of(g, a, a); /* recursive: counted, its time already A's */
	cr_assert(e && e->calls == 0 && e->recursive_calls == 1 && e->inclusive == 0 &&
	          e->outer_calls == 1);
	e = edge_of(g, a, c); /* only from the inner A */
	cr_assert(e && e->calls == 1 && e->inclusive == 3 && e->outer_calls == 0);
	/* groups: A's calls heaviest first, then the root's */
	cr_assert_eq(g->calls_from[0], 0);
	cr_assert_eq(g->calls_from[1], 0);
	cr_assert_eq(g->calls_from[2], 3);
	cr_assert_eq(g->edges[0].callee, b);
	cr_assert_eq(g->edges[1].callee, c);
	cr_assert_eq(g->edges[2].callee, a);
	cr_assert_eq(g->edges[3].callee, a);
	cr_assert_eq(g->edges[3].caller, AF_CALL_ROOT);
	/* B's callers: the root (40) before A (25) */
	cr_assert_eq(g->edges[g->callers[g->callers_of[b]]].caller, AF_CALL_ROOT);
	cr_assert_eq(g->edges[g->callers[g->callers_of[b] + 1]].caller, a);
	check_edges(g, "small");
	af_call_graph_free(g);
	af_tree_free(tree);
	af_trace_free(t);
}

/* dmtracedump's rule: a callee whose inclusive time is at least P% of its
 * caller's, followed from the root, only through calls the caller made
 * while not itself recursive. */
Test(callgraph, threshold_as_dmtracedump)
{
	af_trace *t = small();
	af_tree *tree = NULL;
	af_call_graph *g = graph_of(t, NULL, AF_CLOCK_WALL, &tree);
	unsigned char keep[3], edge[5];
	uint32_t a = (uint32_t)row_of(g, "com.example.App.a");
	uint32_t b = (uint32_t)row_of(g, "com.example.App.b");
	uint32_t c = (uint32_t)row_of(g, "com.example.App.c");

	/* 20%: A (60 of 100) and B (65); C is called by the inner A only */
	cr_assert_eq(af_call_graph_select(g, 20, keep, edge), 2);
	cr_assert(keep[a] && keep[b] && !keep[c]);
	cr_assert(edge[edge_of(g, a, b) - g->edges] && edge[edge_of(g, a, a) - g->edges]);
	cr_assert(!edge[edge_of(g, a, c) - g->edges]);
	/* even at 0% */
	cr_assert_eq(af_call_graph_select(g, 0, keep, edge), 2);
	cr_assert(!keep[c]);
	/* 62%: B (65) only; A (60) is under it */
	cr_assert_eq(af_call_graph_select(g, 62, keep, edge), 1);
	cr_assert(keep[b] && !keep[a]);
	cr_assert(edge[edge_of(g, AF_CALL_ROOT, b) - g->edges]);
	cr_assert(!edge[edge_of(g, a, b) - g->edges]);
	/* the boundary is included: 60 is 60% of 100 */
	cr_assert_eq(af_call_graph_select(g, 60, keep, edge), 2);
	cr_assert_eq(af_call_graph_select(g, 99, keep, edge), 0);
	af_call_graph_free(g);
	af_tree_free(tree);
	af_trace_free(t);
}

/* A caller without time draws no callee, whatever the threshold (0 of 0
 * is no share: dmtracedump's division gives nothing either). */
Test(callgraph, threshold_of_a_caller_without_time)
{
	af_writer_options wo = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_WALL};
	af_writer *w = af_writer_new(&wo);
	af_tree *tree = NULL;
	af_call_graph *g;
	af_trace *t;
	uint8_t *buf;
	size_t len;
	unsigned char keep[3], edge[3];

	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, A, "x.Y", "a", "()V", "f"), 0);
	cr_assert_eq(af_writer_method(w, B, "x.Y", "b", "()V", "f"), 0);
	cr_assert_eq(af_writer_method(w, C, "x.Y", "c", "()V", "f"), 0);
	cr_assert_eq(af_writer_record(w, 1, C, AF_ENTER, 0, 0), 0);
	cr_assert_eq(af_writer_record(w, 1, C, AF_EXIT, 0, 10), 0);
	cr_assert_eq(af_writer_record(w, 1, A, AF_ENTER, 0, 10), 0); /* A and B take no time */
	cr_assert_eq(af_writer_record(w, 1, B, AF_ENTER, 0, 10), 0);
	cr_assert_eq(af_writer_record(w, 1, B, AF_EXIT, 0, 10), 0);
	cr_assert_eq(af_writer_record(w, 1, A, AF_EXIT, 0, 10), 0);
	buf = t_finish(w, &len, NULL);
	t = t_parse(buf, len);
	g = graph_of(t, NULL, AF_CLOCK_WALL, &tree);
	cr_assert_eq(g->methods.nrows, 3);
	cr_assert_eq(af_call_graph_select(g, 0, keep, edge), 2);
	cr_assert(keep[row_of(g, "x.Y.c")] && keep[row_of(g, "x.Y.a")]);
	cr_assert(!keep[row_of(g, "x.Y.b")]);
	af_call_graph_free(g);
	af_tree_free(tree);
	af_trace_free(t);
	free(buf);
}

/* Without view rules the graph's methods are the method table's (built
 * by another walk, over the raw tree), on every trace at hand. */
Test(callgraph, methods_are_the_method_table_rows, .timeout = 600)
{
	static const char *samples[] = {"app.trace", "app-streaming.trace", "app-dalvik-v1.trace",
	                                "app-after.trace", "app-obfuscated.trace"};
	static const char *real[] = {
		"BurrOakApp-dmtrace.trace", "JAGAndroidFramework-dmtrace.trace",
		"android-methods-profiler-legacy.trace", "firefox-profiler-art-trace-regular.trace.gz",
		"firefox-profiler-art-trace-streaming.trace.gz", "perflib-basic-api10.trace",
		"perflib-basic.trace", "perflib-exception.trace", "perflib-mismatched.trace"};
	const char *main_only[] = {"main"};
	size_t nfiles = sizeof samples / sizeof samples[0], f;
	int have = t_have_traces();

	if (have)
		nfiles += sizeof real / sizeof real[0];
	for (f = 0; f < nfiles; f++) {
		char *path, what[512];
		af_trace *t;
		int clock, sig;
		if (f < sizeof samples / sizeof samples[0]) {
			path = malloc(strlen(AF_TEST_SAMPLES) + strlen(samples[f]) + 2);
			sprintf(path, "%s/%s", AF_TEST_SAMPLES, samples[f]);
		} else {
			path = t_trace_path(real[f - sizeof samples / sizeof samples[0]]);
		}
		t = open_trace(path);
		for (clock = AF_CLOCK_WALL; clock <= AF_CLOCK_CPU; clock++) {
			if (!af_trace_get_info(t)->has_clock[clock])
				continue;
			for (sig = 0; sig < 2; sig++) {
				af_tree_options o = {.signatures = sig};
				snprintf(what, sizeof what, "%s, clock %d, signatures %d", path, clock, sig);
				check_against_table(t, &o, (af_clock)clock, what);
			}
		}
		if (f == 0) { /* one thread */
			af_tree_options o = {.threads = main_only, .nthreads = 1};
			check_against_table(t, &o, AF_CLOCK_WALL, "app.trace, main");
		}
		af_trace_free(t);
		free(path);
	}
}

Test(callgraph, folded_input_frames_are_methods)
{
	const char *text = "main;f;f;g 3\nmain;f 1\nmain;g 2\nworker;g 4\n";
	af_trace *t = t_parse((const uint8_t *)text, strlen(text));
	af_tree *tree = NULL;
	af_call_graph *g = graph_of(t, NULL, AF_CLOCK_WALL, &tree);
	uint32_t mainr = (uint32_t)row_of(g, "main"), f = (uint32_t)row_of(g, "f");
	const af_call_edge *e;

	cr_assert_eq(g->methods.is_time, 0);
	cr_assert_eq(g->methods.nrows, 4);
	e = edge_of(g, AF_CALL_ROOT, mainr);
	cr_assert(e && e->inclusive == 6);
	e = edge_of(g, f, f); /* folded lines count no calls: a recursive edge has no time */
	cr_assert(e && e->calls == 0 && e->inclusive == 0);
	check_against_table(t, NULL, AF_CLOCK_WALL, "folded");
	af_call_graph_free(g);
	af_tree_free(tree);
	af_trace_free(t);
}

/* --mapping, --focus, --exclude, --collapse-recursion and --strip-package
 * shape the graph as they shape the flame graph. */
Test(callgraph, views_apply)
{
	af_trace *t = open_trace(AF_TEST_SAMPLES "/app.trace");
	af_trace *obf = open_trace(AF_TEST_SAMPLES "/app-obfuscated.trace");
	af_mapping *map = NULL;
	af_tree *tree = NULL, *tree2 = NULL;
	af_call_graph *g, *g2;
	af_error e = {0};
	size_t i;
	uint32_t parse;

	/* focus: the focused method is the root's one callee */
	{
		af_tree_options o = {.focus = "Choreographer\\.doFrame$"};
		g = graph_of(t, &o, AF_CLOCK_WALL, &tree);
		cr_assert_eq(g->calls_from[g->methods.nrows + 1] - g->calls_from[g->methods.nrows], 1);
		cr_assert_str_eq(g->methods.rows[g->edges[g->calls_from[g->methods.nrows]].callee].name,
		                 "android.view.Choreographer.doFrame");
		cr_assert_eq(row_of(g, "android.app.ActivityThread.main"), (size_t)-1);
		check_edges(g, "focus");
		af_call_graph_free(g);
		af_tree_free(tree);
	}
	/* exclude: the frame and what it called are gone */
	{
		af_tree_options o = {.exclude = "MessageQueue\\.next$"};
		g = graph_of(t, &o, AF_CLOCK_WALL, &tree);
		cr_assert_eq(row_of(g, "android.os.MessageQueue.next"), (size_t)-1);
		cr_assert_eq(row_of(g, "android.os.MessageQueue.nativePollOnce"), (size_t)-1);
		cr_assert_neq(row_of(g, "android.os.Looper.loop"), (size_t)-1);
		check_edges(g, "exclude");
		af_call_graph_free(g);
		af_tree_free(tree);
	}
	/* collapsed recursion: Json.parse calls itself no more */
	{
		af_tree_options o = {.collapse_recursion = 1};
		g = graph_of(t, &o, AF_CLOCK_WALL, &tree);
		parse = (uint32_t)row_of(g, "com.example.shop.data.Json.parse");
		cr_assert_neq(parse, (uint32_t)-1);
		cr_assert_eq(g->methods.rows[parse].recursive_calls, 0);
		cr_assert_null(edge_of(g, parse, parse));
		af_call_graph_free(g);
		af_tree_free(tree);
		g = graph_of(t, NULL, AF_CLOCK_WALL, &tree);
		parse = (uint32_t)row_of(g, "com.example.shop.data.Json.parse");
		cr_assert_gt(g->methods.rows[parse].recursive_calls, 0);
		cr_assert_not_null(edge_of(g, parse, parse));
		af_call_graph_free(g);
		af_tree_free(tree);
	}
	/* strip-package: names without it */
	{
		af_tree_options o = {.strip_package = 1};
		g = graph_of(t, &o, AF_CLOCK_WALL, &tree);
		cr_assert_neq(row_of(g, "Json.parse"), (size_t)-1);
		cr_assert_eq(row_of(g, "com.example.shop.data.Json.parse"), (size_t)-1);
		af_call_graph_free(g);
		af_tree_free(tree);
	}
	/* mapping: the obfuscated release trace gives the sample's own graph */
	cr_assert_eq(af_mapping_load(AF_TEST_SAMPLES "/app-mapping.txt", &map, &e), AF_OK, "%s",
	             e.message);
	{
		af_tree_options o = {.mapping = map};
		g = graph_of(obf, &o, AF_CLOCK_WALL, &tree);
		g2 = graph_of(t, NULL, AF_CLOCK_WALL, &tree2);
		cr_assert_eq(g->methods.nrows, g2->methods.nrows);
		for (i = 0; i < g->methods.nrows; i++) {
			cr_assert_str_eq(g->methods.rows[i].name, g2->methods.rows[i].name);
			cr_assert_eq(g->methods.rows[i].inclusive, g2->methods.rows[i].inclusive);
		}
		cr_assert_eq(g->nedges, g2->nedges);
		for (i = 0; i < g->nedges; i++)
			cr_assert(g->edges[i].caller == g2->edges[i].caller &&
			          g->edges[i].callee == g2->edges[i].callee &&
			          g->edges[i].calls == g2->edges[i].calls &&
			          g->edges[i].inclusive == g2->edges[i].inclusive);
		af_call_graph_free(g);
		af_call_graph_free(g2);
		af_tree_free(tree);
		af_tree_free(tree2);
	}
	/* the wait clock: the graph's total is the tree's */
	{
		af_node_info root;
		g = graph_of(t, NULL, AF_CLOCK_WAIT, &tree);
		af_tree_node(tree, 0, &root);
		cr_assert_eq(g->methods.total, root.total[AF_CLOCK_WAIT]);
		cr_assert_gt(g->methods.total, 0);
		check_edges(g, "wait");
		af_call_graph_free(g);
		af_tree_free(tree);
	}
	af_mapping_free(map);
	af_trace_free(t);
	af_trace_free(obf);
}

/* No wait clock without both clocks; no graph of a diff. */
Test(callgraph, refuses_what_it_cannot_read)
{
	const char *text = "main;f 3\n";
	af_trace *t = t_parse((const uint8_t *)text, strlen(text));
	af_tree *tree = NULL, *diff = NULL;
	af_diff_options d = {.clock = AF_CLOCK_WALL};
	af_call_graph *g = NULL;
	af_error e = {0};

	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
	cr_assert_eq(af_call_graph_build(tree, AF_CLOCK_WAIT, &g, &e), AF_ERR_CLOCK);
	cr_assert_null(g);
	cr_assert_eq(af_tree_diff(tree, tree, &d, &diff, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_call_graph_build(diff, AF_CLOCK_WALL, &g, &e), AF_ERR_ARG);
	cr_assert_null(g);
	af_tree_free(diff);
	af_tree_free(tree);
	af_trace_free(t);
}

/* ------------------------------------------------------------------ */
/* The DOT text                                                        */

typedef struct dot_node {
	char id[16];
	char *tooltip;
} dot_node;

typedef struct dot_edge {
	char from[16], to[16];
	unsigned long long calls, recursive;
} dot_edge;

typedef struct dot_graph {
	dot_node *nodes;
	size_t nnodes;
	dot_edge *edges;
	size_t nedges;
} dot_graph;

/* Reads the node and edge lines of the DOT aflame writes (one a line). */
static dot_graph dot_read(const char *text)
{
	dot_graph d = {0};
	const char *line = text;

	while (*line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char *l = strndup(line, len), *p;
		char from[16], to[16];
		int n = 0;

		if (sscanf(l, "  %15[a-z0-9] -> %15[a-z0-9] [label=\"%n", from, to, &n) == 2 && n) {
			dot_edge *e;
			d.edges = realloc(d.edges, (d.nedges + 1) * sizeof *d.edges);
			e = &d.edges[d.nedges++];
			memset(e, 0, sizeof *e);
			strcpy(e->from, from);
			strcpy(e->to, to);
			unsigned long long v;
			int m = 0;
			cr_assert(sscanf(l + n, "%llu %n", &v, &m) == 1 && m, "%s", l);
			if (strncmp(l + n + m, "recursive", 9) == 0) {
				e->recursive = v;
			} else {
				cr_assert(strncmp(l + n + m, "call", 4) == 0, "%s", l);
				e->calls = v;
				if ((p = strstr(l + n, " + ")))
					cr_assert(sscanf(p, " + %llu recursive", &e->recursive) == 1, "%s", l);
			}
		} else if (sscanf(l, "  %15[a-z0-9] [label=\"%n", from, &n) == 1 && n &&
		           (p = strstr(l, "tooltip=\""))) {
			dot_node *nd;
			char *q = strrchr(p, '"');
			d.nodes = realloc(d.nodes, (d.nnodes + 1) * sizeof *d.nodes);
			nd = &d.nodes[d.nnodes++];
			strcpy(nd->id, from);
			nd->tooltip = strndup(p + 9, (size_t)(q - p - 9));
		}
		free(l);
		line += len + (end != NULL);
	}
	return d;
}

static void dot_free(dot_graph *d)
{
	size_t i;
	for (i = 0; i < d->nnodes; i++)
		free(d->nodes[i].tooltip);
	free(d->nodes);
	free(d->edges);
}

/* The DOT the command writes holds the methods and edges the library
 * selects, with their calls, and nothing else. */
Test(callgraph, dot_text_read_back)
{
	char *dot = t_tmp("calls.dot"), args[1024];
	af_trace *t = open_trace(AF_TEST_SAMPLES "/app.trace");
	af_tree *tree = NULL;
	af_call_graph *g = graph_of(t, NULL, AF_CLOCK_WALL, &tree);
	unsigned char *keep = calloc(g->methods.nrows + 1, 1), *edge = calloc(g->nedges + 1, 1);
	size_t kept = af_call_graph_select(g, 5, keep, edge), len, i, k, nedges = 0;
	uint8_t *text;
	dot_graph d;

	snprintf(args, sizeof args, "--call-graph-threshold 5 -o '%s' '%s'", dot,
	         AF_TEST_SAMPLES "/app.trace");
	cr_assert_eq(t_cli(args, NULL, NULL, NULL), 0);
	text = t_read(dot, &len);
	cr_assert_not_null(text);
	cr_assert(strncmp((char *)text, "// aflame-render call graph: ", 29) == 0);
	d = dot_read((char *)text);
	cr_assert_eq(d.nnodes, kept + 1, "%zu nodes, %zu methods selected", d.nnodes, kept);
	cr_assert_gt(kept, 17); /* more than at 20% */
	cr_assert_str_eq(d.nodes[0].id, "root");
	for (i = 1; i < d.nnodes; i++) {
		unsigned m;
		cr_assert_eq(sscanf(d.nodes[i].id, "m%u", &m), 1);
		cr_assert(m < g->methods.nrows && keep[m]);
		cr_assert_str_eq(d.nodes[i].tooltip, g->methods.rows[m].name);
	}
	for (k = 0; k < g->nedges; k++)
		nedges += edge[k];
	cr_assert_eq(d.nedges, nedges);
	for (i = 0; i < d.nedges; i++) {
		unsigned from = AF_CALL_ROOT, to;
		const af_call_edge *e;
		if (strcmp(d.edges[i].from, "root") != 0)
			cr_assert_eq(sscanf(d.edges[i].from, "m%u", &from), 1);
		cr_assert_eq(sscanf(d.edges[i].to, "m%u", &to), 1);
		e = edge_of(g, from, to);
		cr_assert(e && edge[e - g->edges], "%s -> %s", d.edges[i].from, d.edges[i].to);
		cr_assert_eq(d.edges[i].calls, e->calls);
		cr_assert_eq(d.edges[i].recursive, e->recursive_calls);
	}
	free(text);
	dot_free(&d);
	free(keep);
	free(edge);
	unlink(dot);
	free(dot);
	af_call_graph_free(g);
	af_tree_free(tree);
	af_trace_free(t);
}

/* Names that mean something to DOT or Graphviz's labels stay text. */
Test(callgraph, hostile_names_stay_text)
{
	af_writer_options wo = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_WALL};
	af_writer *w = af_writer_new(&wo);
	char *trace = t_tmp("hostile-cg.trace"), *svg = t_tmp("hostile-cg.svg");
	char *dot = t_tmp("hostile-cg.dot"), args[1024], *why = NULL;
	uint8_t *buf, *text;
	size_t len;

	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, A, "q\"uo\\te", "a&amp;<b>\\N\\l", "()V", "x"), 0);
	cr_assert_eq(af_writer_method(w, B, "x}{y", "z\"];digraph{", "()V", "x"), 0);
	cr_assert_eq(af_writer_record(w, 1, A, AF_ENTER, 0, 0), 0);
	cr_assert_eq(af_writer_record(w, 1, B, AF_ENTER, 0, 5), 0);
	cr_assert_eq(af_writer_record(w, 1, B, AF_EXIT, 0, 9), 0);
	cr_assert_eq(af_writer_record(w, 1, A, AF_EXIT, 0, 10), 0);
	buf = t_finish(w, &len, NULL);
	t_write(trace, buf, len);
	free(buf);
	snprintf(args, sizeof args, "--call-graph -o '%s' '%s'", svg, trace);
	cr_assert_eq(t_cli(args, NULL, NULL, NULL), 0);
	text = t_read(svg, &len);
	cr_assert(t_xml_ok((char *)text, len, &why), "%s", why);
	/* the names as the graph has them (';' is ':' there): "&amp:" stays
	 * text, backslashes stay, in the label and the tooltip */
	cr_assert(strstr((char *)text, ">q&quot;uo\\te.a&amp;amp:&lt;b&gt;\\N\\l</text>"), "%s",
	          text);
	cr_assert(strstr((char *)text, "xlink:title=\"q&quot;uo\\te.a&amp;amp:&lt;b&gt;\\N\\l\""),
	          "%s", text);
	cr_assert(strstr((char *)text, ">x}{y.z&quot;]:digraph{</text>"), "%s", text);
	free(text);
	snprintf(args, sizeof args, "-o '%s' '%s'", dot, trace);
	cr_assert_eq(t_cli(args, NULL, NULL, NULL), 0);
	text = t_read(dot, &len);
	cr_assert(strstr((char *)text, "tooltip=\"q\\\"uo\\\\\\\\te.a&amp;amp:<b>\\\\\\\\N\\\\\\\\l\""),
	          "%s", text);
	free(text);
	unlink(trace);
	unlink(svg);
	unlink(dot);
	free(trace);
	free(svg);
	free(dot);
}

/* ------------------------------------------------------------------ */
/* Images by Graphviz's library                                        */

Test(callgraph, png_svg_pdf_drawn_by_graphviz, .timeout = 300)
{
	char *png = t_tmp("calls.png"), *png2 = t_tmp("calls@2x.png"), *svg = t_tmp("calls.svg");
	char *pdf = t_tmp("calls.pdf"), args[1024], *why = NULL;
	unsigned w1, h1, w2, h2;
	uint8_t *data;
	size_t len;

	snprintf(args, sizeof args, "--call-graph -o '%s' '%s'", png, AF_TEST_SAMPLES "/app.trace");
	cr_assert_eq(t_cli(args, NULL, NULL, NULL), 0);
	data = t_read(png, &len);
	cr_assert_not_null(data);
	png_size(data, len, &w1, &h1);
	/* 18 boxes, about six levels of them */
	cr_assert(w1 > 600 && w1 < 3000 && h1 > 600 && h1 < 4000, "%ux%u", w1, h1);
	free(data);
	snprintf(args, sizeof args, "--call-graph --scale 2 -o '%s' '%s'", png2,
	         AF_TEST_SAMPLES "/app.trace");
	cr_assert_eq(t_cli(args, NULL, NULL, NULL), 0);
	data = t_read(png2, &len);
	png_size(data, len, &w2, &h2);
	cr_assert(w2 >= 2 * w1 - 4 && w2 <= 2 * w1 + 4 && h2 >= 2 * h1 - 4 && h2 <= 2 * h1 + 4,
	          "%ux%u at scale 2, %ux%u at 1", w2, h2, w1, h1);
	free(data);
	snprintf(args, sizeof args, "--format svg --call-graph --theme dark -o '%s' '%s'", svg,
	         AF_TEST_SAMPLES "/app.trace");
	cr_assert_eq(t_cli(args, NULL, NULL, NULL), 0);
	data = t_read(svg, &len);
	cr_assert(t_xml_ok((char *)data, len, &why), "%s", why);
	cr_assert(strstr((char *)data, ">Json.parse</text>"));
	cr_assert(strstr((char *)data, "fill=\"#1e1e1e\""));
	free(data);
	snprintf(args, sizeof args, "--call-graph -o '%s' '%s'", pdf, AF_TEST_SAMPLES "/app.trace");
	cr_assert_eq(t_cli(args, NULL, NULL, NULL), 0);
	data = t_read(pdf, &len);
	cr_assert(len > 1000 && memcmp(data, "%PDF-", 5) == 0);
	free(data);
	unlink(png);
	unlink(png2);
	unlink(svg);
	unlink(pdf);
	free(png);
	free(png2);
	free(svg);
	free(pdf);
}

Test(callgraph, command_line)
{
	char *out = NULL, *err = NULL, *x = t_tmp("calls.txt"), *svg = t_tmp("calls-none.svg");

	/* no -o: SVG on standard output */
	cr_assert_eq(t_cli("--call-graph '" AF_TEST_SAMPLES "/app.trace'", NULL, &out, &err), 0,
	             "%s", err);
	cr_assert(strstr(out, "<svg") && strstr(out, "Generated by graphviz"));
	free(out);
	free(err);
	cr_assert_eq(t_cli("--format dot --thread main '" AF_TEST_SAMPLES "/app.trace'", NULL,
	                   &out, &err), 0, "%s", err);
	cr_assert(strstr(out, "digraph calls {"));
	cr_assert_null(strstr(out, "Thread.run"), "main's graph has no worker frames");
	free(out);
	free(err);
	t_cli_says(2, "--call-graph-threshold takes a percentage under 100, not '100'",
	           "--call-graph --call-graph-threshold 100 x.trace");
	t_cli_says(2, "--call-graph-threshold takes a percentage under 100, not '-1'",
	           "--call-graph --call-graph-threshold -1 x.trace");
	t_cli_says(2, "--call-graph-threshold goes with --call-graph",
	           "--call-graph-threshold 5 -o x.svg x.trace");
	t_cli_says(2, "cannot tell the call graph's format from", "--call-graph -o '%s' x.trace", x);
	t_cli_says(2, "--call-graph draws one graph", "--call-graph --per-thread -o d x.trace");
	t_cli_says(2, "--call-graph draws one graph", "--call-graph --diff a.trace b.trace");
	t_cli_says(2, "--format dot does not go with --per-thread",
	           "--format svg,dot --per-thread -o d x.trace");
	t_cli_says(2, "not folded", "--call-graph --format folded x.trace");
	/* a trace that cannot be drawn leaves no file */
	t_cli_says(1, "no thread with records matches", "--call-graph --thread nobody -o '%s' '%s'",
	           svg, AF_TEST_SAMPLES "/app.trace");
	cr_assert(access(svg, F_OK) != 0);
	free(x);
	free(svg);
}

/* ------------------------------------------------------------------ */
/* The real traces, and dmtracedump                                     */

Test(callgraph, every_real_trace, .timeout = 600)
{
	static const char *files[] = {
		"BurrOakApp-dmtrace.trace", "JAGAndroidFramework-dmtrace.trace",
		"android-methods-profiler-legacy.trace", "firefox-profiler-art-trace-regular.trace.gz",
		"firefox-profiler-art-trace-streaming.trace.gz", "perflib-basic-api10.trace",
		"perflib-basic.trace", "perflib-exception.trace", "perflib-mismatched.trace"};
	char *dot, *png;
	size_t f;

	if (!t_have_traces())
		return;
	t_traces_listed(files, sizeof files / sizeof files[0], "perflib-header.trace");
	dot = t_tmp("real-calls.dot");
	png = t_tmp("real-calls.png");
	/* perflib-header.trace is a key and no records (PROVENANCE.md): it is
	 * refused, and nothing is written */
	{
		char *path = t_trace_path("perflib-header.trace");
		t_cli_says(1, "unsupported data version", "-o '%s' '%s'", dot, path);
		cr_assert(access(dot, F_OK) != 0);
		free(path);
	}
	for (f = 0; f < sizeof files / sizeof files[0]; f++) {
		char *path = t_trace_path(files[f]), args[2048], *err = NULL;
		uint8_t *data;
		size_t len;
		unsigned w, h;
		dot_graph d;

		snprintf(args, sizeof args, "-o '%s' '%s'", dot, path);
		cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s: %s", files[f], err);
		free(err);
		data = t_read(dot, &len);
		d = dot_read((char *)data);
		cr_assert_geq(d.nnodes, 2, "%s", files[f]);
		cr_assert_geq(d.nedges, d.nnodes - 1, "%s: every method drawn is reached", files[f]);
		fprintf(stderr, "call graph of %s: %zu methods, %zu calls drawn\n", files[f],
		        d.nnodes - 1, d.nedges);
		dot_free(&d);
		free(data);
		snprintf(args, sizeof args, "--call-graph -o '%s' '%s'", png, path);
		cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s: %s", files[f], err);
		free(err);
		data = t_read(png, &len);
		png_size(data, len, &w, &h);
		cr_assert(w >= 50 && h >= 50, "%s: %ux%u", files[f], w, h);
		free(data);
		free(path);
	}
	unlink(dot);
	unlink(png);
	free(dot);
	free(png);
}

/* dmtracedump's graph (-g; -k keeps its DOT) of the same trace on its
 * clock (thread-cpu) holds the same methods and calls, on the four real
 * traces where the two readers agree on the times.  On the others they
 * differ by the methods that return on an empty stack, entered before
 * tracing began: dmtracedump makes them children of its "(toplevel)"
 * timed from clock 0, with no callees; aflame re-roots the thread under
 * them (README, Semantics), so more of the trace is under 20% of a caller.
 * Methods are matched by name with their parameter types. */
Test(callgraph, agrees_with_dmtracedump, .timeout = 600)
{
	static const char *files[] = {"android-methods-profiler-legacy.trace",
	                              "firefox-profiler-art-trace-regular.trace.gz",
	                              "JAGAndroidFramework-dmtrace.trace",
	                              "perflib-exception.trace"};
	size_t f;

	if (!t_have_traces())
		return;
	if (system("command -v dmtracedump >/dev/null 2>&1") != 0) {
		cr_log_info("skipped: dmtracedump is not installed (apt-get install dmtracedump)");
		return;
	}
	for (f = 0; f < sizeof files / sizeof files[0]; f++) {
		char *path = t_trace_path(files[f]), *plain = path, cmd[4096], *text, *line;
		char *save = NULL, **idx = NULL, *graph = t_tmp("dmt-graph.png");
		char *gdot = NULL, *ours = t_tmp("dmt-ours.dot");
		size_t nidx = 0, len, i, j, matched = 0;
		uint8_t *data;
		dot_graph d, o;

		if (strstr(files[f], ".gz")) {
			plain = t_tmp("dmt-graph-plain.trace");
			snprintf(cmd, sizeof cmd, "gzip -dc '%s' > '%s'", path, plain);
			cr_assert_eq(system(cmd), 0);
		}
		/* method names by dmtracedump's index, from its profile */
		snprintf(cmd, sizeof cmd, "cd '%s' && dmtracedump -k -g '%s' '%s' 2>/dev/null",
		         AF_TEST_TMP, graph, plain);
		text = t_popen_text(cmd);
		for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			int k, n = 0;
			unsigned long long a, b, c;
			double x;
			if (sscanf(line, "[%d] %lf%% %llu+%llu %llu %n", &k, &x, &a, &b, &c, &n) == 5 &&
			    n && k >= 0) {
				if ((size_t)k >= nidx) {
					idx = realloc(idx, ((size_t)k + 1) * sizeof *idx);
					memset(idx + nidx, 0, ((size_t)k + 1 - nidx) * sizeof *idx);
					nidx = (size_t)k + 1;
				}
				idx[k] = t_dmt_name(line + n);
			}
		}
		free(text);
		gdot = malloc(strlen(graph) + 5);
		sprintf(gdot, "%s.dot", graph);
		data = t_read(gdot, &len);
		cr_assert_not_null(data, "%s: dmtracedump -k left no %s", files[f], gdot);
		/* dmtracedump's "nodeN[label = ...]" and "nodeN -> nodeM", made
		 * like ours: ids, then names through its index */
		{
			char *p;
			d = (dot_graph){0};
			for (p = (char *)data; (p = strstr(p, "node")) != NULL;) {
				int a, b, n = 0;
				if (sscanf(p, "node%d -> node%d%n", &a, &b, &n) == 2 && n) {
					d.edges = realloc(d.edges, (d.nedges + 1) * sizeof *d.edges);
					snprintf(d.edges[d.nedges].from, 16, "%d", a);
					snprintf(d.edges[d.nedges++].to, 16, "%d", b);
					p += n;
				} else if (sscanf(p, "node%d[label%n", &a, &n) == 1 && n) {
					d.nodes = realloc(d.nodes, (d.nnodes + 1) * sizeof *d.nodes);
					snprintf(d.nodes[d.nnodes].id, 16, "%d", a);
					d.nodes[d.nnodes++].tooltip =
						strdup(a == 0 ? "(toplevel)" : (size_t)a < nidx && idx[a] ? idx[a] : "?");
					p += n;
				} else {
					p += 4;
				}
			}
		}
		free(data);
		snprintf(cmd, sizeof cmd, "--clock cpu --signatures -o '%s' '%s'", ours, plain);
		cr_assert_eq(t_cli(cmd, NULL, NULL, NULL), 0);
		data = t_read(ours, &len);
		o = dot_read((char *)data);
		free(data);
		/* nodes: dmtracedump's (toplevel) is our root */
		cr_assert_eq(o.nnodes, d.nnodes, "%s: %zu methods, dmtracedump %zu", files[f],
		             o.nnodes - 1, d.nnodes - 1);
		for (i = 1; i < o.nnodes; i++) {
			for (j = 0; j < d.nnodes && strcmp(d.nodes[j].tooltip, o.nodes[i].tooltip); j++)
				;
			cr_assert_lt(j, d.nnodes, "%s: %s is not in dmtracedump's graph", files[f],
			             o.nodes[i].tooltip);
			matched++;
		}
		/* edges, by the names at their ends */
		cr_assert_eq(o.nedges, d.nedges, "%s: %zu calls, dmtracedump %zu", files[f], o.nedges,
		             d.nedges);
		for (i = 0; i < o.nedges; i++) {
			const char *from = "(toplevel)", *to = NULL;
			size_t k;
			for (k = 0; k < o.nnodes; k++) {
				if (strcmp(o.nodes[k].id, o.edges[i].from) == 0 && k)
					from = o.nodes[k].tooltip;
				if (strcmp(o.nodes[k].id, o.edges[i].to) == 0)
					to = o.nodes[k].tooltip;
			}
			for (j = 0; j < d.nedges; j++) {
				int a = atoi(d.edges[j].from), b = atoi(d.edges[j].to);
				const char *df = a == 0 ? "(toplevel)" : (size_t)a < nidx ? idx[a] : NULL;
				const char *dt = (size_t)b < nidx ? idx[b] : NULL;
				if (df && dt && to && strcmp(df, from) == 0 && strcmp(dt, to) == 0)
					break;
			}
			cr_assert_lt(j, d.nedges, "%s: %s -> %s is not in dmtracedump's graph", files[f],
			             from, to);
		}
		fprintf(stderr, "dmtracedump -g %s: the same %zu methods and %zu calls\n", files[f],
		        matched, o.nedges);
		dot_free(&d);
		dot_free(&o);
		for (i = 0; i < nidx; i++)
			free(idx[i]);
		free(idx);
		unlink(gdot);
		unlink(graph);
		unlink(ours);
		free(gdot);
		free(graph);
		free(ours);
		if (plain != path) {
			unlink(plain);
			free(plain);
		}
		free(path);
	}
}
