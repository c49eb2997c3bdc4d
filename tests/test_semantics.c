/*
 * test_semantics.c - each rule of the README's "Semantics" section, pinned
 * with exact folded output on traces written by the project's writer.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define A 4u
#define B 8u
#define C 12u
#define D 16u
#define X 20u
#define Y 24u

/* A dual-clock ART trace with methods a, b, c, d, x, y of com.example.App
 * and a "main" thread with id 1. */
static af_writer *app(void)
{
	af_writer_options o = {.variant = AF_VARIANT_REGULAR,
	                       .clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	const char *names[] = {"a", "b", "c", "d", "x", "y"};
	unsigned i;

	cr_assert_not_null(w);
	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	for (i = 0; i < 6; i++)
		cr_assert_eq(af_writer_method(w, 4 * (i + 1), "com.example.App",
		                              names[i], "()V", "App.java"), 0);
	return w;
}

static void rec(af_writer *w, uint32_t tid, uint32_t id, int action,
                uint32_t cpu, uint32_t wall)
{
	cr_assert_eq(af_writer_record(w, tid, id, action, cpu, wall), 0);
}

/* A finished trace: the writer's bytes, parsed as often as a test asks. */
typedef struct {
	uint8_t *buf;
	size_t len;
} bytes;

static bytes done(af_writer *w)
{
	bytes b;
	b.buf = t_finish(w, &b.len, NULL);
	return b;
}

static af_trace *parse(bytes b)
{
	return t_parse(b.buf, b.len);
}

static void expect(bytes b, af_clock clock, const char *want)
{
	char *got = t_folded(b.buf, b.len, clock, NULL);
	cr_assert_str_eq(got, want);
	free(got);
}

Test(semantics, self_time_is_time_between_records)
{
	af_writer *w = app();
	bytes b;

	rec(w, 1, A, AF_ENTER, 0, 0);
	rec(w, 1, B, AF_ENTER, 10, 100);
	rec(w, 1, B, AF_EXIT, 30, 300);
	rec(w, 1, A, AF_EXIT, 40, 400);
	b = done(w);
	expect(b, AF_CLOCK_WALL, "main;com.example.App.a 200\n"
	                         "main;com.example.App.a;com.example.App.b 200\n");
	expect(b, AF_CLOCK_CPU, "main;com.example.App.a 20\n"
	                        "main;com.example.App.a;com.example.App.b 20\n");
	free(b.buf);
}

Test(semantics, unwind_is_an_exit)
{
	af_writer *w = app();
	bytes b;
	af_trace *t;

	rec(w, 1, A, AF_ENTER, 0, 0);
	rec(w, 1, B, AF_ENTER, 0, 10);
	rec(w, 1, C, AF_ENTER, 0, 20);
	rec(w, 1, C, AF_UNWIND, 0, 30);
	rec(w, 1, B, AF_UNWIND, 0, 40);
	rec(w, 1, A, AF_UNWIND, 0, 50);
	b = done(w);
	t = parse(b);
	cr_assert_eq(af_trace_get_info(t)->unwinds, 3);
	cr_assert_eq(af_trace_get_info(t)->orphan_exits, 0);
	cr_assert_eq(af_trace_get_info(t)->open_at_end, 0);
	af_trace_free(t);
	expect(b, AF_CLOCK_WALL,
	       "main;com.example.App.a 20\n"
	       "main;com.example.App.a;com.example.App.b 20\n"
	       "main;com.example.App.a;com.example.App.b;com.example.App.c 10\n");
	free(b.buf);
}

Test(semantics, exit_naming_another_method_pops_the_top)
{
	af_writer *w = app();
	bytes b;
	af_trace *t;

	rec(w, 1, A, AF_ENTER, 0, 0);
	rec(w, 1, B, AF_ENTER, 0, 10);
	rec(w, 1, C, AF_EXIT, 0, 20); /* names c, pops b */
	rec(w, 1, A, AF_EXIT, 0, 30);
	b = done(w);
	t = parse(b);
	cr_assert_eq(af_trace_get_info(t)->mismatched_exits, 1);
	cr_assert_eq(af_trace_get_info(t)->open_at_end, 0);
	af_trace_free(t);
	expect(b, AF_CLOCK_WALL, "main;com.example.App.a 20\n"
	                         "main;com.example.App.a;com.example.App.b 10\n");
	free(b.buf);
}

/* Dalvik traces begin inside the methods that started tracing. */
Test(semantics, orphan_exits_at_start_reroot_the_thread)
{
	af_writer *w = app();
	bytes b;
	af_trace *t;
	af_tree *tree;
	af_error e;
	size_t i, n;
	int seen = 0;

	rec(w, 1, C, AF_EXIT, 1, 10);
	rec(w, 1, B, AF_EXIT, 2, 20);
	rec(w, 1, D, AF_ENTER, 3, 25);
	rec(w, 1, D, AF_EXIT, 4, 35);
	rec(w, 1, A, AF_EXIT, 5, 50);
	b = done(w);
	t = parse(b);
	cr_assert_eq(af_trace_get_info(t)->orphan_exits, 3);
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
	/* every frame is one call: the re-rooted ones included */
	n = af_tree_size(tree);
	for (i = 2; i < n; i++) {
		af_node_info ni;
		af_tree_node(tree, i, &ni);
		cr_assert_eq(ni.calls, 1, "%s has %llu calls", ni.name,
		             (unsigned long long)ni.calls);
		seen++;
	}
	cr_assert_eq(seen, 4);
	af_tree_free(tree);
	af_trace_free(t);
	expect(b, AF_CLOCK_WALL,
	       "main;com.example.App.a 20\n"
	       "main;com.example.App.a;com.example.App.b 10\n"
	       "main;com.example.App.a;com.example.App.d 10\n");
	expect(b, AF_CLOCK_CPU,
	       "main;com.example.App.a 2\n"
	       "main;com.example.App.a;com.example.App.b 1\n"
	       "main;com.example.App.a;com.example.App.d 1\n");
	free(b.buf);
}

Test(semantics, orphan_exit_mid_trace_adopts_what_came_before)
{
	af_writer *w = app();
	bytes b;

	rec(w, 1, A, AF_ENTER, 0, 0);
	rec(w, 1, B, AF_ENTER, 0, 10);
	rec(w, 1, B, AF_EXIT, 0, 20);
	rec(w, 1, A, AF_EXIT, 0, 30);
	rec(w, 1, X, AF_EXIT, 0, 45); /* x called a */
	rec(w, 1, Y, AF_ENTER, 0, 50);
	rec(w, 1, Y, AF_EXIT, 0, 60);
	b = done(w);
	expect(b, AF_CLOCK_WALL,
	       "main;com.example.App.x 15\n"
	       "main;com.example.App.x;com.example.App.a 20\n"
	       "main;com.example.App.x;com.example.App.a;com.example.App.b 10\n"
	       "main;com.example.App.y 10\n");
	free(b.buf);
}

Test(semantics, open_frames_close_at_the_threads_last_record)
{
	af_writer *w = app();
	bytes b;
	af_trace *t;

	cr_assert_eq(af_writer_thread(w, 2, "worker"), 0);
	rec(w, 1, A, AF_ENTER, 0, 0);
	rec(w, 1, B, AF_ENTER, 0, 10);
	rec(w, 2, D, AF_ENTER, 0, 15);
	rec(w, 1, C, AF_ENTER, 0, 30);
	rec(w, 2, D, AF_EXIT, 0, 1000); /* later records of another thread */
	b = done(w);
	t = parse(b);
	cr_assert_eq(af_trace_get_info(t)->open_at_end, 3);
	af_trace_free(t);
	expect(b, AF_CLOCK_WALL, "main;com.example.App.a 10\n"
	                         "main;com.example.App.a;com.example.App.b 20\n"
	                         "worker;com.example.App.d 985\n");
	free(b.buf);
}

Test(semantics, only_per_thread_order_matters)
{
	/* the same events, once by time, once in per-thread chunks (ART 14+) */
	static const uint32_t ev[][4] = {
		{1, A, AF_ENTER, 0},  {2, B, AF_ENTER, 5},  {1, C, AF_ENTER, 10},
		{2, D, AF_ENTER, 12}, {1, C, AF_EXIT, 20},  {2, D, AF_EXIT, 40},
		{1, A, AF_EXIT, 45},  {2, B, AF_EXIT, 50},
	};
	static const char want[] = "main;com.example.App.a 35\n"
	                           "main;com.example.App.a;com.example.App.c 10\n"
	                           "worker;com.example.App.b 17\n"
	                           "worker;com.example.App.b;com.example.App.d 28\n";
	size_t i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		af_writer *w = app();
		bytes b;
		uint32_t tid;

		cr_assert_eq(af_writer_thread(w, 2, "worker"), 0);
		if (pass == 0) {
			for (i = 0; i < 8; i++)
				rec(w, ev[i][0], ev[i][1], (int)ev[i][2], ev[i][3], ev[i][3]);
		} else {
			for (tid = 2; tid >= 1; tid--)
				for (i = 0; i < 8; i++)
					if (ev[i][0] == tid)
						rec(w, tid, ev[i][1], (int)ev[i][2], ev[i][3],
						    ev[i][3]);
		}
		b = done(w);
		expect(b, AF_CLOCK_WALL, want);
		free(b.buf);
	}
}

Test(semantics, thread_ids_match_the_key_by_their_low_bits)
{
	af_writer *w = app();
	bytes b;
	af_trace *t;
	af_thread_info ti;
	size_t i, n;

	/* ART <= 13 writes full kernel tids in the key, 16 bits in records */
	cr_assert_eq(af_writer_thread(w, 70001, "big"), 0);
	cr_assert_eq(af_writer_thread(w, 2, "pool"), 0);
	cr_assert_eq(af_writer_thread(w, 3, "pool"), 0);
	rec(w, 70001 & 0xFFFF, A, AF_ENTER, 0, 0);
	rec(w, 70001 & 0xFFFF, A, AF_EXIT, 0, 7);
	rec(w, 2, B, AF_ENTER, 0, 0);
	rec(w, 2, B, AF_EXIT, 0, 5);
	rec(w, 3, B, AF_ENTER, 0, 0);
	rec(w, 3, B, AF_EXIT, 0, 6);
	rec(w, 9, C, AF_ENTER, 0, 0);
	rec(w, 9, C, AF_EXIT, 0, 4);
	b = done(w);
	t = parse(b);
	cr_assert_eq(af_trace_get_info(t)->unknown_threads, 1);
	n = af_trace_thread_count(t);
	cr_assert_eq(n, 4);
	for (i = 0; i < n; i++) {
		af_trace_thread(t, i, &ti);
		if (strcmp(ti.name, "big") == 0)
			cr_assert_eq(ti.tid, 70001);
		if (ti.tid == 9)
			cr_assert_str_eq(ti.name, "Thread-9");
	}
	af_trace_free(t);
	/* same-named threads merge */
	expect(b, AF_CLOCK_WALL, "Thread-9;com.example.App.c 4\n"
	                         "big;com.example.App.a 7\n"
	                         "pool;com.example.App.b 11\n");
	free(b.buf);
}

Test(semantics, version1_thread_ids_are_8_bits)
{
	af_writer_options o = {.variant = AF_VARIANT_REGULAR, .version = 1,
	                       .clock = AF_WRITER_THREAD_CPU, .dalvik = 1};
	af_writer *w = af_writer_new(&o);
	bytes b;

	cr_assert_eq(af_writer_thread(w, 300, "wide"), 0);
	cr_assert_eq(af_writer_method(w, 0x4006e8f0, "android.os.Looper", "loop",
	                              "()V", "Looper.java"), 0);
	rec(w, 300, 0x4006e8f0, AF_ENTER, 10, 0);
	rec(w, 300, 0x4006e8f0, AF_EXIT, 25, 0);
	b = done(w);
	expect(b, AF_CLOCK_CPU, "wide;android.os.Looper.loop 15\n");
	free(b.buf);
}

Test(semantics, clocks_unwrap_and_never_step_back)
{
	af_writer *w = app();
	bytes b;
	af_trace *t;

	/* 32-bit µs wrap after 71.6 minutes */
	rec(w, 1, A, AF_ENTER, 0xFFFFFFF0u, 0xFFFFFF00u);
	rec(w, 1, A, AF_EXIT, 0x10, 0x100);
	b = done(w);
	expect(b, AF_CLOCK_CPU, "main;com.example.App.a 32\n");
	expect(b, AF_CLOCK_WALL, "main;com.example.App.a 512\n");
	free(b.buf);

	/* Dalvik's gettimeofday can step back: that step counts as zero */
	w = app();
	rec(w, 1, A, AF_ENTER, 0, 100);
	rec(w, 1, B, AF_ENTER, 0, 50);
	rec(w, 1, B, AF_EXIT, 0, 80);
	rec(w, 1, A, AF_EXIT, 0, 90);
	b = done(w);
	t = parse(b);
	cr_assert_eq(af_trace_get_info(t)->time_backwards[AF_CLOCK_WALL], 1);
	cr_assert_eq(af_trace_get_info(t)->time_backwards[AF_CLOCK_CPU], 0);
	af_trace_free(t);
	expect(b, AF_CLOCK_WALL, "main;com.example.App.a 10\n"
	                         "main;com.example.App.a;com.example.App.b 30\n");
	free(b.buf);
}

Test(semantics, unknown_method_ids_get_a_placeholder)
{
	af_writer *w = app();
	bytes b;
	af_trace *t;

	rec(w, 1, A, AF_ENTER, 0, 0);
	rec(w, 1, 0x400, AF_ENTER, 0, 5);
	rec(w, 1, 0x400, AF_EXIT, 0, 12);
	rec(w, 1, A, AF_EXIT, 0, 20);
	b = done(w);
	t = parse(b);
	cr_assert_eq(af_trace_get_info(t)->unknown_methods, 1);
	cr_assert_eq(af_trace_get_info(t)->unknown_method_calls, 1);
	af_trace_free(t);
	expect(b, AF_CLOCK_WALL,
	       "main;com.example.App.a 13\n"
	       "main;com.example.App.a;(unknown method 0x400) 7\n");
	free(b.buf);
}

static uint8_t *overloads(size_t *len)
{
	af_writer_options o = {.variant = AF_VARIANT_REGULAR,
	                       .clock = AF_WRITER_WALL};
	af_writer *w = af_writer_new(&o);

	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, 4, "com.example.Util", "put", "(I)V", ""), 0);
	cr_assert_eq(af_writer_method(w, 8, "com.example.Util", "put",
	                              "(Ljava/lang/String;[[JZ)Ljava/lang/Object;", ""), 0);
	rec(w, 1, 4, AF_ENTER, 0, 0);
	rec(w, 1, 4, AF_EXIT, 0, 10);
	rec(w, 1, 8, AF_ENTER, 0, 10);
	rec(w, 1, 8, AF_EXIT, 0, 30);
	return t_finish(w, len, NULL);
}

Test(semantics, overloads_merge_unless_signatures_are_asked_for)
{
	size_t len;
	uint8_t *buf = overloads(&len);
	af_tree_options sig = {.signatures = 1};
	char *plain = t_folded(buf, len, AF_CLOCK_WALL, NULL);
	char *full = t_folded(buf, len, AF_CLOCK_WALL, &sig);

	cr_assert_str_eq(plain, "main;com.example.Util.put 30\n");
	cr_assert_str_eq(full,
	                 "main;com.example.Util.put(int) 10\n"
	                 "main;com.example.Util.put(java.lang.String, long[][], boolean) 20\n");
	free(plain);
	free(full);
	free(buf);
}

Test(semantics, labels_are_dotted_and_clean)
{
	af_writer_options o = {.variant = AF_VARIANT_REGULAR,
	                       .clock = AF_WRITER_DUAL, .dalvik = 1};
	af_writer *w = af_writer_new(&o);
	bytes b;

	cr_assert_eq(af_writer_thread(w, 1, "ui;thread\x01"), 0);
	cr_assert_eq(af_writer_method(w, 0x40000010, "com.example.Outer$Inner",
	                              "run\xff", "()V", "Outer.java"), 0);
	rec(w, 1, 0x40000010, AF_ENTER, 0, 0);
	rec(w, 1, 0x40000010, AF_EXIT, 0, 3);
	b = done(w);
	expect(b, AF_CLOCK_WALL, "ui:thread;com.example.Outer$Inner.run\xEF\xBF\xBD 3\n");
	free(b.buf);
}

/* Names as long as the buffer they are made in, a byte shorter and longer,
 * and far longer: dotted alike, with and without signatures. */
Test(semantics, long_names_are_made_whole)
{
	static const size_t totals[] = {255, 256, 257, 600};
	size_t i;

	for (i = 0; i < sizeof totals / sizeof totals[0]; i++) {
		af_writer_options o = {.variant = AF_VARIANT_REGULAR,
		                       .clock = AF_WRITER_WALL, .dalvik = 1};
		af_writer *w = af_writer_new(&o);
		af_tree_options sig = {.signatures = 1};
		size_t nc = totals[i] - 4, len, k; /* class "." "run" */
		char *cls = malloc(nc + 1), want[1024];
		uint8_t *buf;
		char *plain, *full;

		cr_assert(w && cls);
		for (k = 0; k < nc; k++) /* packages of 9 letters */
			cls[k] = k % 10 == 9 ? '.' : (char)('a' + k % 10);
		cls[nc] = '\0';
		cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
		cr_assert_eq(af_writer_method(w, 4, cls, "run", "(I)V", ""), 0);
		rec(w, 1, 4, AF_ENTER, 0, 0);
		rec(w, 1, 4, AF_EXIT, 0, 3);
		buf = t_finish(w, &len, NULL);
		plain = t_folded(buf, len, AF_CLOCK_WALL, NULL);
		full = t_folded(buf, len, AF_CLOCK_WALL, &sig);
		snprintf(want, sizeof want, "main;%s.run 3\n", cls);
		cr_assert_str_eq(plain, want, "%zu bytes", totals[i]);
		snprintf(want, sizeof want, "main;%s.run(int) 3\n", cls);
		cr_assert_str_eq(full, want, "%zu bytes", totals[i]);
		free(plain);
		free(full);
		free(buf);
		free(cls);
	}
}

Test(semantics, thread_filter_by_name_or_id)
{
	af_writer *w = app();
	const char *by_name[] = {"worker"};
	const char *by_id[] = {"1"};
	af_tree_options o1 = {.threads = by_name, .nthreads = 1};
	af_tree_options o2 = {.threads = by_id, .nthreads = 1};
	const char *none[] = {"nobody"};
	af_tree_options o3 = {.threads = none, .nthreads = 1};
	size_t len;
	uint8_t *buf;
	char *f;
	af_trace *t;
	af_tree *tree = NULL;
	af_error e;

	cr_assert_eq(af_writer_thread(w, 2, "worker"), 0);
	rec(w, 1, A, AF_ENTER, 0, 0);
	rec(w, 1, A, AF_EXIT, 0, 5);
	rec(w, 2, B, AF_ENTER, 0, 0);
	rec(w, 2, B, AF_EXIT, 0, 6);
	buf = t_finish(w, &len, NULL);
	f = t_folded(buf, len, AF_CLOCK_WALL, &o1);
	cr_assert_str_eq(f, "worker;com.example.App.b 6\n");
	free(f);
	f = t_folded(buf, len, AF_CLOCK_WALL, &o2);
	cr_assert_str_eq(f, "main;com.example.App.a 5\n");
	free(f);
	t = t_parse(buf, len);
	cr_assert_eq(af_tree_from_trace(t, &o3, &tree, &e), AF_ERR_EMPTY);
	cr_assert_null(tree);
	af_trace_free(t);
	free(buf);
}

Test(semantics, tree_totals_and_counts)
{
	af_writer *w = app();
	size_t len, i;
	uint8_t *buf;
	af_trace *t;
	af_tree *tree;
	af_error e;
	af_node_info root, ni;

	for (i = 0; i < 3; i++) {
		rec(w, 1, A, AF_ENTER, (uint32_t)i * 10, (uint32_t)i * 100);
		rec(w, 1, B, AF_ENTER, (uint32_t)i * 10 + 2, (uint32_t)i * 100 + 20);
		rec(w, 1, B, AF_EXIT, (uint32_t)i * 10 + 5, (uint32_t)i * 100 + 50);
		rec(w, 1, A, AF_EXIT, (uint32_t)i * 10 + 8, (uint32_t)i * 100 + 80);
	}
	buf = t_finish(w, &len, NULL);
	t = t_parse(buf, len);
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
	af_tree_node(tree, 0, &root);
	cr_assert_str_eq(root.name, "all");
	cr_assert_eq(root.parent, UINT32_MAX);
	cr_assert_eq(root.total[AF_CLOCK_WALL], 240);
	cr_assert_eq(root.total[AF_CLOCK_CPU], 24);
	for (i = 1; i < af_tree_size(tree); i++) {
		af_tree_node(tree, i, &ni);
		cr_assert_lt(ni.parent, i);
		if (strcmp(ni.name, "com.example.App.b") == 0) {
			cr_assert_eq(ni.calls, 3);
			cr_assert_eq(ni.depth, 3);
			cr_assert_eq(ni.total[AF_CLOCK_WALL], 90);
		}
		if (strcmp(ni.name, "com.example.App.a") == 0) {
			cr_assert_eq(ni.calls, 3);
			cr_assert_eq(ni.self[AF_CLOCK_WALL], 150);
			cr_assert_eq(ni.total[AF_CLOCK_WALL], 240);
		}
	}
	af_tree_free(tree);
	af_trace_free(t);
	free(buf);
}

/* One trace, methods numbered from `base` by `step` (ART numbers its
 * methods densely; Dalvik's ids are addresses), main calling a, b and an id
 * the key does not name, b calling a. */
static uint8_t *ids_trace(uint32_t base, uint32_t step, size_t *len)
{
	af_writer_options o = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	uint32_t a = base, b = base + step, unknown = base + 7 * step;

	cr_assert_not_null(w);
	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, a, "com.example.App", "a", "()V", "App.java"), 0);
	cr_assert_eq(af_writer_method(w, b, "com.example.App", "b", "()V", "App.java"), 0);
	rec(w, 1, a, 0, 0, 0);
	rec(w, 1, a, 1, 10, 20);
	rec(w, 1, b, 0, 10, 20);
	rec(w, 1, a, 0, 15, 30);
	rec(w, 1, a, 1, 17, 40);
	rec(w, 1, b, 1, 20, 45);
	rec(w, 1, unknown, 0, 20, 45);
	rec(w, 1, unknown, 1, 23, 50);
	return t_finish(w, len, NULL);
}

Test(semantics, dense_and_sparse_method_ids_name_frames_alike)
{
	size_t ld, ls;
	uint8_t *dense = ids_trace(4, 4, &ld), *sparse = ids_trace(0x6da60000u, 0x100000u, &ls);
	char *fd = t_folded(dense, ld, AF_CLOCK_WALL, NULL);
	char *fs = t_folded(sparse, ls, AF_CLOCK_WALL, NULL);

	cr_assert_str_eq(fd, "main;(unknown method 0x20) 5\n"
	                     "main;com.example.App.a 20\n"
	                     "main;com.example.App.b 15\n"
	                     "main;com.example.App.b;com.example.App.a 10\n");
	/* the same frames, but for the unnamed id */
	cr_assert_str_eq(fs, "main;(unknown method 0x6e160000) 5\n"
	                     "main;com.example.App.a 20\n"
	                     "main;com.example.App.b 15\n"
	                     "main;com.example.App.b;com.example.App.a 10\n");
	free(fd);
	free(fs);
	free(dense);
	free(sparse);
}

/* Trees of one trace share its frame names: they must outlive the trace. */
Test(semantics, trees_keep_their_names_after_the_trace_is_freed)
{
	size_t len, i, n;
	uint8_t *buf = ids_trace(4, 4, &len);
	af_trace *t = t_parse(buf, len);
	af_tree_options one = {.threads = (const char *[]){"main"}, .nthreads = 1};
	af_tree *all = NULL, *main_only = NULL;
	af_node_info ni;
	af_error e;
	int seen = 0;

	cr_assert_eq(af_tree_from_trace(t, NULL, &all, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_tree_from_trace(t, &one, &main_only, &e), AF_OK, "%s", e.message);
	af_trace_free(t);
	free(buf);
	cr_assert_eq(af_tree_size(all), af_tree_size(main_only));
	for (i = 0, n = af_tree_size(all); i < n; i++) {
		af_node_info other;
		af_tree_node(all, i, &ni);
		af_tree_node(main_only, i, &other);
		cr_assert_str_eq(ni.name, other.name);
		seen += strcmp(ni.name, "(unknown method 0x20)") == 0;
	}
	cr_assert_eq(seen, 1);
	af_tree_free(all);
	af_tree_free(main_only);
}
