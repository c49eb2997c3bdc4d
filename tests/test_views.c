/*
 * test_views.c - the views of a call tree: the wait clock, deobfuscation,
 * focus, exclude, collapsed recursion, labels without the package and the
 * minimum share, each pinned with exact folded output on traces written
 * by the project's writer; then the same from the CLI in every format.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

#define RUN 4u
#define WORK 8u
#define GET 12u
#define WAIT 16u
#define FIB 20u
#define LOG 24u

#define SAMPLE AF_TEST_SAMPLES "/app.trace"

static void rec(af_writer *w, uint32_t tid, uint32_t id, int action,
                uint32_t cpu, uint32_t wall)
{
	cr_assert_eq(af_writer_record(w, tid, id, action, cpu, wall), 0);
}

/*
 * Thread main (tid 1) and worker (tid 2), dual clock.  Self times
 * (cpu, wall) in µs, worked out from the records below:
 *
 *   main;run                      (20, 20)
 *   main;run;work                 (30, 30)
 *   main;run;work;get             (10, 20)    wait 10
 *   main;run;work;get;wait        ( 0,100)    wait 100
 *   main;run;work;fib             (20, 20)
 *   main;run;work;fib;fib         (15, 20)    wait 5
 *   main;run;work;fib;fib;fib     (23, 20)    wait 0 (cpu > wall)
 *   main;run;work;fib;fib;fib;log ( 2, 20)    wait 18
 *   worker;run                    (15, 60)    wait 45
 *   worker;run;get                ( 5, 10)    wait 5
 *
 * Wall totals: main 250, worker 70, all 320.
 */
static uint8_t *app(size_t *len)
{
	af_writer_options o = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);

	cr_assert_not_null(w);
	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_thread(w, 2, "worker"), 0);
	cr_assert_eq(af_writer_method(w, RUN, "com.example.app.Main", "run", "()V", "Main.java"), 0);
	cr_assert_eq(af_writer_method(w, WORK, "com.example.app.Main$Inner", "work",
	                              "(Ljava/lang/String;)V", "Main.java"), 0);
	cr_assert_eq(af_writer_method(w, GET, "com.example.net.Http", "get", "()V", "Http.java"), 0);
	cr_assert_eq(af_writer_method(w, WAIT, "java.lang.Object", "wait", "()V", "Object.java"), 0);
	cr_assert_eq(af_writer_method(w, FIB, "com.example.app.Main", "fib", "(I)I", "Main.java"), 0);
	cr_assert_eq(af_writer_method(w, LOG, "com.example.app.Util", "log", "()V", "Util.java"), 0);
	rec(w, 1, RUN, AF_ENTER, 0, 0);
	rec(w, 1, WORK, AF_ENTER, 10, 10);
	rec(w, 1, GET, AF_ENTER, 20, 20);
	rec(w, 1, WAIT, AF_ENTER, 25, 30);
	rec(w, 1, WAIT, AF_EXIT, 25, 130);
	rec(w, 1, GET, AF_EXIT, 30, 140);
	rec(w, 1, FIB, AF_ENTER, 40, 150);
	rec(w, 1, FIB, AF_ENTER, 50, 160);
	rec(w, 1, FIB, AF_ENTER, 60, 170);
	rec(w, 1, LOG, AF_ENTER, 70, 180);
	rec(w, 1, LOG, AF_EXIT, 72, 200);
	rec(w, 1, FIB, AF_EXIT, 85, 210);
	rec(w, 1, FIB, AF_EXIT, 90, 220);
	rec(w, 1, FIB, AF_EXIT, 100, 230);
	rec(w, 1, WORK, AF_EXIT, 110, 240);
	rec(w, 1, RUN, AF_EXIT, 120, 250);
	rec(w, 2, RUN, AF_ENTER, 0, 0);
	rec(w, 2, GET, AF_ENTER, 5, 50);
	rec(w, 2, GET, AF_EXIT, 10, 60);
	rec(w, 2, RUN, AF_EXIT, 20, 70);
	return t_finish(w, len, NULL);
}

#define P_RUN "com.example.app.Main.run"
#define P_WORK P_RUN ";com.example.app.Main$Inner.work"
#define P_GET P_WORK ";com.example.net.Http.get"
#define P_FIB P_WORK ";com.example.app.Main.fib"

/* The app's wall-clock folded text, every frame kept. */
#define APP_WALL                                                               \
	"main;" P_RUN " 20\n"                                                      \
	"main;" P_WORK " 30\n"                                                     \
	"main;" P_FIB " 20\n"                                                      \
	"main;" P_FIB ";com.example.app.Main.fib 20\n"                             \
	"main;" P_FIB ";com.example.app.Main.fib;com.example.app.Main.fib 20\n"    \
	"main;" P_FIB ";com.example.app.Main.fib;com.example.app.Main.fib;"         \
	"com.example.app.Util.log 20\n"                                            \
	"main;" P_GET " 20\n"                                                      \
	"main;" P_GET ";java.lang.Object.wait 100\n"                               \
	"worker;" P_RUN " 60\n"                                                    \
	"worker;" P_RUN ";com.example.net.Http.get 10\n"

/* Folded text of the app trace with the options. */
static char *app_folded(af_clock clock, const af_tree_options *o)
{
	size_t len;
	uint8_t *buf = app(&len);
	char *text = t_folded(buf, len, clock, o);
	free(buf);
	return text;
}

static void expect_app(af_clock clock, const af_tree_options *o, const char *want)
{
	char *got = app_folded(clock, o);
	cr_assert_str_eq(got, want);
	free(got);
}

/* The same options on the app's wall-clock folded text give the same
 * text: the views work on folded input alike. */
static void expect_folded_alike(const af_tree_options *o)
{
	char *plain = app_folded(AF_CLOCK_WALL, NULL);
	char *viewed = app_folded(AF_CLOCK_WALL, o);
	char *again = t_folded((const uint8_t *)plain, strlen(plain), AF_CLOCK_WALL, o);
	cr_assert_str_eq(again, viewed);
	free(plain);
	free(viewed);
	free(again);
}

/* The status of building the app's tree with the options. */
static af_status t_parse_tree_status(const af_tree_options *o)
{
	size_t len;
	uint8_t *buf = app(&len);
	af_trace *t = t_parse(buf, len);
	af_tree *tree = NULL;
	af_error e = {0};
	af_status st = af_tree_from_trace(t, o, &tree, &e);
	af_tree_free(tree);
	af_trace_free(t);
	free(buf);
	return st;
}

Test(views, wall_and_cpu_as_recorded)
{
	expect_app(AF_CLOCK_WALL, NULL, APP_WALL);
	expect_app(AF_CLOCK_CPU, NULL,
	           "main;" P_RUN " 20\n"
	           "main;" P_WORK " 30\n"
	           "main;" P_FIB " 20\n"
	           "main;" P_FIB ";com.example.app.Main.fib 15\n"
	           "main;" P_FIB ";com.example.app.Main.fib;com.example.app.Main.fib 23\n"
	           "main;" P_FIB ";com.example.app.Main.fib;com.example.app.Main.fib;"
	           "com.example.app.Util.log 2\n"
	           "main;" P_GET " 10\n"
	           "worker;" P_RUN " 15\n"
	           "worker;" P_RUN ";com.example.net.Http.get 5\n");
}

Test(views, wait_is_wall_minus_cpu_never_below_zero)
{
	size_t len, i;
	uint8_t *buf = app(&len);
	af_trace *t = t_parse(buf, len);
	af_tree *tree = NULL;
	af_error e = {0};
	af_node_info ni;
	af_thread_info ti;

	expect_app(AF_CLOCK_WAIT, NULL,
	           "main;" P_FIB ";com.example.app.Main.fib 5\n"
	           "main;" P_FIB ";com.example.app.Main.fib;com.example.app.Main.fib;"
	           "com.example.app.Util.log 18\n"
	           "main;" P_GET " 10\n"
	           "main;" P_GET ";java.lang.Object.wait 100\n"
	           "worker;" P_RUN " 45\n"
	           "worker;" P_RUN ";com.example.net.Http.get 5\n");
	cr_assert(af_trace_get_info(t)->has_clock[AF_CLOCK_WAIT]);
	cr_assert_eq(af_trace_get_info(t)->time_backwards[AF_CLOCK_WAIT], 0);
	af_trace_thread(t, 0, &ti);
	cr_assert_str_eq(ti.name, "main");
	cr_assert_eq(ti.total[AF_CLOCK_WAIT], 133);
	cr_assert_eq(ti.time[AF_CLOCK_WAIT], 130); /* 250 wall - 120 cpu */
	af_trace_thread(t, 1, &ti);
	cr_assert_eq(ti.total[AF_CLOCK_WAIT], 50);
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
	af_tree_node(tree, 0, &ni);
	cr_assert_eq(ni.total[AF_CLOCK_WAIT], 183);
	for (i = 1; i < af_tree_size(tree); i++) {
		af_tree_node(tree, i, &ni);
		if (strcmp(ni.name, "com.example.app.Util.log") == 0) {
			cr_assert_eq(ni.self[AF_CLOCK_WAIT], 18);
			cr_assert_eq(ni.total[AF_CLOCK_WAIT], 18);
		}
		if (strcmp(ni.name, "com.example.net.Http.get") == 0 && ni.depth == 4) {
			cr_assert_eq(ni.self[AF_CLOCK_WAIT], 10);
			cr_assert_eq(ni.total[AF_CLOCK_WAIT], 110);
		}
	}
	af_tree_free(tree);
	af_trace_free(t);
	free(buf);
}

Test(views, wait_needs_both_clocks)
{
	af_writer_options o = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_WALL};
	af_writer *w = af_writer_new(&o);
	size_t len;
	uint8_t *buf;
	af_trace *t;

	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, RUN, "com.example.app.Main", "run", "()V", ""), 0);
	rec(w, 1, RUN, AF_ENTER, 0, 0);
	rec(w, 1, RUN, AF_EXIT, 0, 10);
	buf = t_finish(w, &len, NULL);
	t = t_parse(buf, len);
	cr_assert_not(af_trace_get_info(t)->has_clock[AF_CLOCK_WAIT]);
	af_trace_free(t);
	free(buf);
	t = t_parse((const uint8_t *)"a;b 3\n", 6);
	cr_assert_not(af_trace_get_info(t)->has_clock[AF_CLOCK_WAIT]);
	af_trace_free(t);
}

Test(views, focus_reroots_at_the_frame)
{
	af_tree_options o = {.focus = "Http\\.get$"};

	/* both threads' calls of get, merged under the new root */
	expect_app(AF_CLOCK_WALL, &o,
	           "com.example.net.Http.get 30\n"
	           "com.example.net.Http.get;java.lang.Object.wait 100\n");
	expect_app(AF_CLOCK_WAIT, &o,
	           "com.example.net.Http.get 15\n"
	           "com.example.net.Http.get;java.lang.Object.wait 100\n");
	expect_folded_alike(&o);
}

Test(views, focus_takes_the_outermost_match)
{
	af_tree_options o = {.focus = "fib"};

	expect_app(AF_CLOCK_WALL, &o,
	           "com.example.app.Main.fib 20\n"
	           "com.example.app.Main.fib;com.example.app.Main.fib 20\n"
	           "com.example.app.Main.fib;com.example.app.Main.fib;com.example.app.Main.fib 20\n"
	           "com.example.app.Main.fib;com.example.app.Main.fib;com.example.app.Main.fib;"
	           "com.example.app.Util.log 20\n");
	expect_folded_alike(&o);
}

Test(views, focus_counts_calls_and_fails_when_nothing_matches)
{
	size_t len;
	uint8_t *buf = app(&len);
	af_trace *t = t_parse(buf, len);
	af_tree_options o = {.focus = "Http\\.get$"};
	af_tree *tree = NULL;
	af_error e = {0};
	af_node_info ni;

	cr_assert_eq(af_tree_from_trace(t, &o, &tree, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_tree_size(tree), 3);
	af_tree_node(tree, 1, &ni);
	cr_assert_str_eq(ni.name, "com.example.net.Http.get");
	cr_assert_eq(ni.depth, 1);
	cr_assert_eq(ni.calls, 2);
	cr_assert_eq(ni.total[AF_CLOCK_WALL], 130);
	af_tree_free(tree);
	o.focus = "^nothing$";
	cr_assert_eq(af_tree_from_trace(t, &o, &tree, &e), AF_ERR_EMPTY);
	cr_assert_null(tree);
	cr_assert_str_eq(e.message, "no frame matches the focus expression");
	o.focus = "(";
	cr_assert_eq(af_tree_from_trace(t, &o, &tree, &e), AF_ERR_ARG);
	cr_assert(strstr(e.message, "bad focus regular expression '('"), "%s", e.message);
	o.focus = NULL;
	o.exclude = "a[";
	cr_assert_eq(af_tree_from_trace(t, &o, &tree, &e), AF_ERR_ARG);
	cr_assert(strstr(e.message, "bad exclude regular expression"), "%s", e.message);
	af_trace_free(t);
	free(buf);
}

Test(views, exclude_drops_frames_with_their_subtrees)
{
	af_tree_options o = {.exclude = "Main\\.fib|Http"};

	expect_app(AF_CLOCK_WALL, &o,
	           "main;" P_RUN " 20\n"
	           "main;" P_WORK " 30\n"
	           "worker;" P_RUN " 60\n");
	expect_folded_alike(&o);
	/* a trace's thread names are not frames to the expressions */
	o.exclude = "^main$";
	o.focus = "^worker$";
	cr_assert_eq(t_parse_tree_status(&o), AF_ERR_EMPTY);
	o.focus = NULL;
	expect_app(AF_CLOCK_WALL, &o, APP_WALL);
}

Test(views, exclude_before_focus)
{
	af_tree_options o = {.exclude = "Object\\.wait", .focus = "Http"};

	expect_app(AF_CLOCK_WALL, &o, "com.example.net.Http.get 30\n");
}

Test(views, collapse_recursion_merges_a_run)
{
	af_tree_options o = {.collapse_recursion = 1};
	size_t len, i;
	uint8_t *buf;
	af_trace *t;
	af_tree *tree = NULL;
	af_error e = {0};
	int seen = 0;

	expect_app(AF_CLOCK_WALL, &o,
	           "main;" P_RUN " 20\n"
	           "main;" P_WORK " 30\n"
	           "main;" P_FIB " 60\n"
	           "main;" P_FIB ";com.example.app.Util.log 20\n"
	           "main;" P_GET " 20\n"
	           "main;" P_GET ";java.lang.Object.wait 100\n"
	           "worker;" P_RUN " 60\n"
	           "worker;" P_RUN ";com.example.net.Http.get 10\n");
	/* wait is taken per path of the graph: fib's merged (58, 60) -> 2 */
	expect_app(AF_CLOCK_WAIT, &o,
	           "main;" P_FIB " 2\n"
	           "main;" P_FIB ";com.example.app.Util.log 18\n"
	           "main;" P_GET " 10\n"
	           "main;" P_GET ";java.lang.Object.wait 100\n"
	           "worker;" P_RUN " 45\n"
	           "worker;" P_RUN ";com.example.net.Http.get 5\n");
	expect_folded_alike(&o);
	buf = app(&len);
	t = t_parse(buf, len);
	cr_assert_eq(af_tree_from_trace(t, &o, &tree, &e), AF_OK);
	for (i = 1; i < af_tree_size(tree); i++) {
		af_node_info ni;
		af_tree_node(tree, i, &ni);
		if (strcmp(ni.name, "com.example.app.Main.fib") == 0) {
			cr_assert_eq(ni.calls, 3);
			cr_assert_eq(ni.total[AF_CLOCK_WALL], 80);
			seen++;
		}
	}
	cr_assert_eq(seen, 1);
	af_tree_free(tree);
	af_trace_free(t);
	free(buf);
	/* with focus: the re-rooted frame takes in its recursion */
	o.focus = "fib";
	expect_app(AF_CLOCK_WALL, &o,
	           "com.example.app.Main.fib 60\n"
	           "com.example.app.Main.fib;com.example.app.Util.log 20\n");
}

Test(views, strip_package_keeps_inner_classes)
{
	af_tree_options o = {.strip_package = 1};

	expect_app(AF_CLOCK_WALL, &o,
	           "main;Main.run 20\n"
	           "main;Main.run;Main$Inner.work 30\n"
	           "main;Main.run;Main$Inner.work;Http.get 20\n"
	           "main;Main.run;Main$Inner.work;Http.get;Object.wait 100\n"
	           "main;Main.run;Main$Inner.work;Main.fib 20\n"
	           "main;Main.run;Main$Inner.work;Main.fib;Main.fib 20\n"
	           "main;Main.run;Main$Inner.work;Main.fib;Main.fib;Main.fib 20\n"
	           "main;Main.run;Main$Inner.work;Main.fib;Main.fib;Main.fib;Util.log 20\n"
	           "worker;Main.run 60\n"
	           "worker;Main.run;Http.get 10\n");
	/* colours still go by the whole name */
	{
		size_t len, i;
		uint8_t *buf = app(&len);
		af_trace *t = t_parse(buf, len);
		af_tree *tree = NULL;
		af_error e = {0};
		int seen = 0;
		cr_assert_eq(af_tree_from_trace(t, &o, &tree, &e), AF_OK);
		for (i = 0; i < af_tree_size(tree); i++) {
			af_node_info ni;
			af_tree_node(tree, i, &ni);
			if (strcmp(ni.name, "Object.wait") == 0) {
				cr_assert_str_eq(ni.full_name, "java.lang.Object.wait");
				seen++;
			}
			if (strcmp(ni.name, "main") == 0 || strcmp(ni.name, "all") == 0)
				cr_assert_eq(ni.full_name, ni.name);
		}
		cr_assert_eq(seen, 1);
		af_tree_free(tree);
		af_trace_free(t);
		free(buf);
	}
	o.signatures = 1;
	o.focus = "log";
	expect_app(AF_CLOCK_WALL, &o, "Util.log() 20\n");
	/* the package goes, not the dots of the parameter types */
	o.focus = "work";
	o.exclude = "fib|get";
	expect_app(AF_CLOCK_WALL, &o, "Main$Inner.work(java.lang.String) 30\n");
	/* folded frames: slashes are package separators too */
	{
		af_tree_options s = {.strip_package = 1};
		const char *in = "java/lang/Thread.run;com.a.B$C.d(java.lang.String);main;"
		                 "(unknown method 0x10) 3\n";
		char *got = t_folded((const uint8_t *)in, strlen(in), AF_CLOCK_WALL, &s);
		cr_assert_str_eq(got, "Thread.run;B$C.d(java.lang.String);main;"
		                      "(unknown method 0x10) 3\n");
		free(got);
	}
}

Test(views, min_share_drops_small_frames_with_their_time)
{
	af_tree_options o = {.min_share = 0.10, .clock = AF_CLOCK_WALL};

	/* 10% of 320 is 32: log (20) and worker's get (10) go */
	expect_app(AF_CLOCK_WALL, &o,
	           "main;" P_RUN " 20\n"
	           "main;" P_WORK " 30\n"
	           "main;" P_FIB " 20\n"
	           "main;" P_FIB ";com.example.app.Main.fib 20\n"
	           "main;" P_FIB ";com.example.app.Main.fib;com.example.app.Main.fib 20\n"
	           "main;" P_GET " 20\n"
	           "main;" P_GET ";java.lang.Object.wait 100\n"
	           "worker;" P_RUN " 60\n");
	/* 20% is 64: the inner fibs (60, 40) go, worker (70) stays */
	o.min_share = 0.20;
	expect_app(AF_CLOCK_WALL, &o,
	           "main;" P_RUN " 20\n"
	           "main;" P_WORK " 30\n"
	           "main;" P_FIB " 20\n"
	           "main;" P_GET " 20\n"
	           "main;" P_GET ";java.lang.Object.wait 100\n"
	           "worker;" P_RUN " 60\n");
	expect_folded_alike(&o);
	/* measured on the wait clock: 30% of 183 is 54.9 */
	o.min_share = 0.30;
	o.clock = AF_CLOCK_WAIT;
	expect_app(AF_CLOCK_WAIT, &o,
	           "main;" P_GET " 10\n"
	           "main;" P_GET ";java.lang.Object.wait 100\n");
}

Test(views, reverse_then_focus)
{
	af_tree_options o = {.reverse = 1, .focus = "Object\\.wait"};

	expect_app(AF_CLOCK_WALL, &o,
	           "java.lang.Object.wait;com.example.net.Http.get;"
	           "com.example.app.Main$Inner.work;com.example.app.Main.run;main 100\n");
}

/* The root's children are threads only when nothing re-rooted the paths:
 * a focus frame or a reversed path's leaf is a frame, coloured as one. */
Test(views, first_frames_are_threads_unless_focused_or_reversed)
{
	size_t len, i;
	uint8_t *buf = app(&len);
	af_trace *t = t_parse(buf, len);
	af_tree_options plain = {0}, focus = {.focus = "Http\\.get$"}, rev = {.reverse = 1};
	const af_tree_options *opts[] = {&plain, &focus, &rev};
	char *out = NULL, *err = NULL, *svg;
	unsigned r, g, b;

	for (i = 0; i < 3; i++) {
		af_tree *tree = NULL;
		af_error e = {0};
		af_node_info ni;
		size_t k;
		cr_assert_eq(af_tree_from_trace(t, opts[i], &tree, &e), AF_OK, "%s", e.message);
		for (k = 1; k < af_tree_size(tree); k++) {
			af_tree_node(tree, k, &ni);
			cr_assert_eq(ni.thread, i == 0 && ni.depth == 1, "%s", ni.name);
		}
		af_tree_free(tree);
	}
	af_trace_free(t);
	free(buf);

	/* the android palette's beige is for threads: {215..235, 205..225, 150..170} */
	cr_assert_eq(t_cli("--no-javascript --focus 'Choreographer\\.doFrame$' " SAMPLE, NULL,
	                   &out, &err), 0, "%s", err);
	svg = strstr(out, "<title>android.view.Choreographer.doFrame (");
	cr_assert_not_null(svg);
	svg = strstr(svg, "fill=\"#");
	cr_assert(svg && sscanf(svg + 7, "%2x%2x%2x", &r, &g, &b) == 3);
	cr_assert(!(r >= 215 && r <= 235 && g >= 205 && g <= 225 && b >= 150 && b <= 170),
	          "the focus frame is coloured as a thread: #%02x%02x%02x", r, g, b);
	free(out);
	free(err);
	cr_assert_eq(t_cli("--no-javascript " SAMPLE, NULL, &out, &err), 0, "%s", err);
	svg = strstr(out, "<title>main (");
	cr_assert_not_null(svg);
	svg = strstr(svg, "fill=\"#");
	cr_assert(svg && sscanf(svg + 7, "%2x%2x%2x", &r, &g, &b) == 3);
	cr_assert(r >= 215 && r <= 235 && g >= 205 && g <= 225 && b >= 150 && b <= 170,
	          "#%02x%02x%02x", r, g, b);
	free(out);
	free(err);
}

Test(views, deep_recursion_without_the_c_stack)
{
	af_writer_options wo = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&wo);
	af_tree_options o = {.collapse_recursion = 1, .focus = "fib", .exclude = "never"};
	size_t len;
	uint8_t *buf;
	char *got;
	uint32_t i, n = 100000;

	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, RUN, "com.example.app.Main", "run", "()V", ""), 0);
	cr_assert_eq(af_writer_method(w, FIB, "com.example.app.Main", "fib", "(I)I", ""), 0);
	rec(w, 1, RUN, AF_ENTER, 0, 0);
	for (i = 0; i < n; i++)
		rec(w, 1, FIB, AF_ENTER, 2 * i + 1, 3 * i + 1);
	for (i = 0; i < n; i++)
		rec(w, 1, FIB, AF_EXIT, 2 * n + 1, 3 * n + 1);
	rec(w, 1, RUN, AF_EXIT, 2 * n + 1, 3 * n + 1);
	buf = t_finish(w, &len, NULL);
	got = t_folded(buf, len, AF_CLOCK_WALL, &o);
	cr_assert_str_eq(got, "com.example.app.Main.fib 300000\n");
	free(got);
	o.min_share = 0.5;
	o.clock = AF_CLOCK_WAIT;
	got = t_folded(buf, len, AF_CLOCK_WAIT, &o);
	cr_assert_str_eq(got, "com.example.app.Main.fib 100000\n");
	free(got);
	free(buf);
}

Test(views, flame_chart_keeps_calls_where_they_began)
{
	size_t len, i;
	uint8_t *buf = app(&len);
	af_parse_options po = {.flamechart = 1};
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_error e = {0};
	af_tree_options o = {.one_thread = 1, .thread = 0, .collapse_recursion = 1};
	af_layout_options lo = {.clock = AF_CLOCK_WALL, .flamechart = 1};
	int seen = 0;

	cr_assert_eq(af_trace_parse(buf, len, &po, &t, &e), AF_OK);
	cr_assert_eq(af_tree_from_trace(t, &o, &tree, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_layout_build(tree, &lo, &l, &e), AF_OK);
	/* log began at 180 µs of main's 250: in the collapsed fib, still there */
	for (i = 0; i < l->nrects; i++) {
		af_node_info ni;
		af_tree_node(tree, l->rects[i].node, &ni);
		if (strcmp(ni.name, "com.example.app.Util.log") == 0) {
			cr_assert_float_eq(l->rects[i].x, 10 + 180.0 * 1180 / 250, 1e-9);
			cr_assert_eq(l->rects[i].depth, 5);
			seen++;
		}
		if (strcmp(ni.name, "com.example.app.Main.fib") == 0) {
			cr_assert_float_eq(l->rects[i].x, 10 + 150.0 * 1180 / 250, 1e-9);
			seen++;
		}
	}
	cr_assert_eq(seen, 2);
	af_layout_free(l);
	af_tree_free(tree);
	/* focus: the frame is the new root's child; its callee keeps its place */
	o.collapse_recursion = 0;
	o.focus = "Http";
	cr_assert_eq(af_tree_from_trace(t, &o, &tree, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_layout_build(tree, &lo, &l, &e), AF_OK);
	cr_assert_eq(l->nrects, 3);
	cr_assert_float_eq(l->rects[2].x, 10 + 10.0 * 1180 / 120, 1e-9);
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
	free(buf);
}

/* ------------------------------------------------------------------ */
/* Deobfuscation                                                       */

static const char mapping_txt[] =
	"# compiler: R8\n"
	"# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.0\"}\n"
	"com.example.app.MainActivity -> a.a:\n"
	"# {\"id\":\"sourceFile\",\"fileName\":\"MainActivity.kt\"}\n"
	"    int counter -> a\n"
	"    android.os.Bundle state -> b\n"
	"    1:4:void onCreate(android.os.Bundle):20:23 -> onCreate\n"
	"    5:5:void load(int):30:30 -> b\n"
	"    6:6:void load(java.lang.String):40:40 -> b\n"
	"    7:7:void helper():50:50 -> c\n"
	"    7:7:void render():60 -> c\n"
	"    8:9:void com.example.app.Util.inlined():5:6 -> d\n"
	"    8:9:void show():70:71 -> d\n"
	"    10:10:void open(int):80:80 -> e\n"
	"    11:11:void close(com.example.app.Repo, int[]):90:90 -> e\n"
	"com.example.app.Repo -> a.b:\n"
	"    java.lang.String name() -> b\n"
	"    java.lang.String title() -> b\n"
	"    void save(com.example.app.MainActivity) -> a\r\n"
	"\n";

static af_mapping *mapping(void)
{
	af_mapping *m = NULL;
	af_error e = {0};
	cr_assert_eq(af_mapping_parse(mapping_txt, sizeof mapping_txt - 1, &m, &e), AF_OK,
	             "%s (line %lld)", e.message, e.line);
	return m;
}

Test(views, mapping_lookups)
{
	af_mapping *m = mapping();

	cr_assert_str_eq(af_mapping_class(m, "a.a"), "com.example.app.MainActivity");
	cr_assert_str_eq(af_mapping_class(m, "a.b"), "com.example.app.Repo");
	cr_assert_null(af_mapping_class(m, "a.c"));
	cr_assert_str_eq(af_mapping_method(m, "a.a", "onCreate", "(Landroid/os/Bundle;)V"),
	                 "onCreate");
	/* overloads of one name are one name */
	cr_assert_str_eq(af_mapping_method(m, "a.a", "b", NULL), "load");
	/* frames inlined into a method are not candidates */
	cr_assert_str_eq(af_mapping_method(m, "a.a", "c", "()V"), "render");
	cr_assert_str_eq(af_mapping_method(m, "a.a", "d", NULL), "show");
	/* the descriptor picks, with its classes deobfuscated */
	cr_assert_str_eq(af_mapping_method(m, "a.a", "e", "(I)V"), "open");
	cr_assert_str_eq(af_mapping_method(m, "a.a", "e", "(La/b;[I)V"), "close");
	cr_assert_str_eq(af_mapping_method(m, "a.a", "e", NULL), "open|close");
	cr_assert_str_eq(af_mapping_method(m, "a.a", "e", "(J)V"), "open|close");
	cr_assert_str_eq(af_mapping_method(m, "a.a", "e", "garbage"), "open|close");
	/* the same types: cannot tell */
	cr_assert_str_eq(af_mapping_method(m, "a.b", "b", "()Ljava/lang/String;"),
	                 "name|title");
	cr_assert_str_eq(af_mapping_method(m, "a.b", "a", "(La/a;)V"), "save");
	cr_assert_null(af_mapping_method(m, "a.b", "zz", NULL));
	cr_assert_null(af_mapping_method(m, "x.y", "a", NULL));
	af_mapping_free(m);
}

/* A trace of the obfuscated app: its answer is the original names. */
static uint8_t *obfuscated(size_t *len, int dalvik)
{
	af_writer_options o = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_DUAL,
	                       .dalvik = dalvik};
	af_writer *w = af_writer_new(&o);

	cr_assert_not_null(w);
	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, 4, "a.a", "onCreate", "(Landroid/os/Bundle;)V", ""), 0);
	cr_assert_eq(af_writer_method(w, 8, "a.a", "e", "(I)V", ""), 0);
	cr_assert_eq(af_writer_method(w, 12, "a.a", "e", "(La/b;[I)V", ""), 0);
	cr_assert_eq(af_writer_method(w, 16, "a.b", "b", "()Ljava/lang/String;", ""), 0);
	cr_assert_eq(af_writer_method(w, 20, "a.a", "zz", "()V", ""), 0);
	cr_assert_eq(af_writer_method(w, 24, "x.y.Kept", "run", "()V", ""), 0);
	cr_assert_eq(af_writer_method(w, 28, "a.a", "c", "()V", ""), 0);
	rec(w, 1, 4, AF_ENTER, 0, 0);
	rec(w, 1, 8, AF_ENTER, 1, 1);
	rec(w, 1, 8, AF_EXIT, 3, 3);
	rec(w, 1, 12, AF_ENTER, 3, 3);
	rec(w, 1, 16, AF_ENTER, 6, 6);
	rec(w, 1, 16, AF_EXIT, 10, 10);
	rec(w, 1, 12, AF_EXIT, 15, 15);
	rec(w, 1, 20, AF_ENTER, 15, 15);
	rec(w, 1, 20, AF_EXIT, 21, 21);
	rec(w, 1, 24, AF_ENTER, 21, 21);
	rec(w, 1, 28, AF_ENTER, 22, 22);
	rec(w, 1, 28, AF_EXIT, 30, 30);
	rec(w, 1, 24, AF_EXIT, 30, 30);
	rec(w, 1, 4, AF_EXIT, 31, 31);
	return t_finish(w, len, NULL);
}

#define M "com.example.app.MainActivity."

Test(views, mapping_names_a_trace)
{
	af_mapping *m = mapping();
	af_tree_options o = {.mapping = m};
	size_t len;
	int dalvik;
	uint8_t *buf;
	char *got;

	for (dalvik = 0; dalvik < 2; dalvik++) {
		buf = obfuscated(&len, dalvik);
		got = t_folded(buf, len, AF_CLOCK_WALL, &o);
		cr_assert_str_eq(got,
		                 "main;" M "onCreate 2\n"
		                 "main;" M "onCreate;" M "close 8\n"
		                 "main;" M "onCreate;" M "close;com.example.app.Repo.name|title 4\n"
		                 "main;" M "onCreate;" M "open 2\n"
		                 "main;" M "onCreate;" M "zz 6\n"
		                 "main;" M "onCreate;x.y.Kept.run 1\n"
		                 "main;" M "onCreate;x.y.Kept.run;" M "render 8\n",
		                 "dalvik %d", dalvik);
		free(got);
		free(buf);
	}
	buf = obfuscated(&len, 0);
	o.signatures = 1;
	o.focus = "close";
	got = t_folded(buf, len, AF_CLOCK_WALL, &o);
	cr_assert_str_eq(got, M "close(com.example.app.Repo, int[]) 8\n"
	                      M "close(com.example.app.Repo, int[]);"
	                      "com.example.app.Repo.name|title() 4\n");
	free(got);
	o.signatures = 0;
	o.strip_package = 1;
	got = t_folded(buf, len, AF_CLOCK_WALL, &o);
	cr_assert_str_eq(got, "MainActivity.close 8\n"
	                      "MainActivity.close;Repo.name|title 4\n");
	free(got);
	/* without the mapping, the names as recorded */
	got = t_folded(buf, len, AF_CLOCK_WALL, NULL);
	cr_assert(strstr(got, "main;a.a.onCreate;a.a.e 10\n"), "%s", got);
	free(got);
	free(buf);
	af_mapping_free(m);
}

Test(views, mapping_names_folded_frames)
{
	af_mapping *m = mapping();
	af_tree_options o = {.mapping = m};
	const char *in = "main;a.a.onCreate;a.a.e;a/b.b 5\n"
	                 "main;a.a.onCreate;a.a.qq(int);nodot 2\n";
	char *got = t_folded((const uint8_t *)in, strlen(in), AF_CLOCK_WALL, &o);

	cr_assert_str_eq(got, "main;" M "onCreate;" M "open|close;com.example.app.Repo.name|title 5\n"
	                      "main;" M "onCreate;" M "qq(int);nodot 2\n");
	free(got);
	af_mapping_free(m);
}

/* samples/app-obfuscated.trace is the sample app renamed by R8, with
 * samples/app-mapping.txt: deobfuscated, it is the sample, names and
 * parameter types alike. */
Test(views, mapping_restores_the_release_sample)
{
	static const char *const sig[] = {"", "--signatures "};
	char args[1024], *want = NULL, *got = NULL, *raw = NULL, *err = NULL;
	int k;

	for (k = 0; k < 2; k++) {
		snprintf(args, sizeof args, "%s--format folded %s", sig[k], SAMPLE);
		cr_assert_eq(t_cli(args, NULL, &want, &err), 0, "%s", err);
		free(err);
		snprintf(args, sizeof args, "%s--format folded %s/app-obfuscated.trace", sig[k],
		         AF_TEST_SAMPLES);
		cr_assert_eq(t_cli(args, NULL, &raw, &err), 0, "%s", err);
		free(err);
		cr_assert(strstr(raw, ";o.d.a") && !strstr(raw, "Json.parse"));
		snprintf(args, sizeof args,
		         "%s--mapping %s/app-mapping.txt --format folded %s/app-obfuscated.trace",
		         sig[k], AF_TEST_SAMPLES, AF_TEST_SAMPLES);
		cr_assert_eq(t_cli(args, NULL, &got, &err), 0, "%s", err);
		free(err);
		cr_assert_str_eq(got, want);
		free(want);
		free(got);
		free(raw);
	}
}

Test(views, bad_mappings_say_the_line)
{
	static const struct {
		const char *text, *message;
		long long line;
	} bad[] = {
		{"    int a -> b\n", "member line before any class line", 1},
		{"com.A -> a:\n    void f()\n", "expected 'type name -> obfuscated' in a member line", 2},
		{"# c\ncom.A a:\n", "expected 'original.Class -> obfuscated:'", 2},
		{"com.A -> a\n", "expected 'original.Class -> obfuscated:'", 1},
		{"com.A -> a:\n    1:x:void f() -> a\n",
		 "bad line range before a method (expected 'FIRST:LAST:')", 2},
		{"com.A -> a:\n    void f(int -> a\n", "unbalanced parentheses in a method", 2},
		{"com.A -> a:\n    void f()x -> a\n", "unexpected text after a method's parameters", 2},
		{"com.A -> a:\ncom.B -> a:\n", "class 'a' is mapped twice (first on line 1)", 2},
		{"", "no class line: not a mapping file", 1},
		{"# only\n# comments\n", "no class line: not a mapping file", 2},
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		af_mapping *m = NULL;
		af_error e = {0};
		cr_assert_eq(af_mapping_parse(bad[i].text, strlen(bad[i].text), &m, &e),
		             AF_ERR_FORMAT, "%zu", i);
		cr_assert_null(m);
		cr_assert_str_eq(e.message, bad[i].message, "%zu", i);
		cr_assert_eq(e.line, bad[i].line, "%zu: line %lld", i, e.line);
	}
}

/* ------------------------------------------------------------------ */
/* From the command line                                               */

static int exists(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && st.st_size > 0;
}

Test(views, every_view_in_every_format)
{
	static const char *const views[] = {
		"--clock wait",
		"--focus 'onCreate$' --collapse-recursion",
		"--exclude 'nativePollOnce|RenderThread' --strip-package",
		"--min-share 2 --clock cpu",
		"--focus Looper --min-share 5 --clock wait --strip-package --reverse",
	};
	static const char *const ext[] = {"svg", "png", "pdf", "folded"};
	size_t v, f;

	for (v = 0; v < sizeof views / sizeof views[0]; v++) {
		for (f = 0; f < 4; f++) {
			char name[64], args[1024], *out, *err = NULL;
			snprintf(name, sizeof name, "view%zu.%s", v, ext[f]);
			out = t_tmp(name);
			unlink(out);
			snprintf(args, sizeof args, "-q %s -o '%s' '%s'", views[v], out, SAMPLE);
			cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s: %s", args, err);
			cr_assert(exists(out), "%s", args);
			if (f == 0) {
				size_t len;
				char *why = NULL;
				uint8_t *svg = t_read(out, &len);
				cr_assert(t_xml_ok((char *)svg, len, &why), "%s: %s", args, why);
				free(svg);
			}
			free(err);
			free(out);
		}
	}
}

Test(views, folded_output_matches_the_view)
{
	char *out = NULL, *err = NULL, *line;
	int lines = 0;

	cr_assert_eq(t_cli("--format folded --focus '\\.onCreate$' --strip-package '" SAMPLE "'",
	                   NULL, &out, &err), 0, "%s", err);
	/* every path starts at an onCreate, named without its package */
	for (line = out; *line; line = strchr(line, '\n') + 1) {
		size_t first = strcspn(line, "; ");
		const char *dot = memchr(line, '.', first);
		cr_assert_not_null(dot, "%.80s", line);
		cr_assert(first > 9 && memcmp(line + first - 9, ".onCreate", 9) == 0, "%.80s", line);
		cr_assert_eq(dot, line + first - 9, "%.80s", line);
		lines++;
	}
	cr_assert_gt(lines, 0);
	free(out);
	free(err);
}

Test(views, per_thread_sets_with_views)
{
	char *dir = t_tmp("views-set"), args[1024], *err = NULL, path[1200];
	size_t len;
	uint8_t *html;

	snprintf(args, sizeof args,
	         "-q --per-thread --clock wait --focus 'Looper.loop' --format svg,folded "
	         "-j 2 -o '%s' '%s'", dir, SAMPLE);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s", err);
	snprintf(path, sizeof path, "%s/index.html", dir);
	html = t_read(path, &len);
	cr_assert_not_null(html);
	cr_assert(strstr((char *)html, ">4 threads with nothing left in the view, not drawn<"), "%s", html);
	cr_assert(strstr((char *)html, "<th>wait</th>") || strstr((char *)html, "<dt>wait</dt>"));
	snprintf(path, sizeof path, "%s/all.folded", dir);
	free(html);
	html = t_read(path, &len);
	cr_assert_not_null(html);
	cr_assert(strncmp((char *)html, "android.os.Looper.loop", 22) == 0, "%.100s", html);
	free(html);
	free(err);
	free(dir);
}

Test(views, cli_errors)
{
	char *out = NULL, *err = NULL, *folded = t_tmp("views.folded");
	char args[1024];

	t_cli_says(2, "aflame-render: --focus: bad regular expression '('",
	           "--focus '(' '" SAMPLE "'");
	t_cli_says(2, "--exclude: bad regular expression", "--exclude 'a[' '" SAMPLE "'");
	t_cli_says(2, "(wall, cpu or wait)", "--clock moon '" SAMPLE "'");
	cr_assert_eq(t_cli("--focus '^nothing here$' '" SAMPLE "'", NULL, &out, &err), 1);
	cr_assert_str_eq(err, "aflame-render: " SAMPLE ": no frame matches the focus expression\n");
	free(out);
	free(err);
	/* every frame excluded: the threads are left with no time at all */
	cr_assert_eq(t_cli("--exclude . '" SAMPLE "'", NULL, &out, &err), 1);
	cr_assert_str_eq(err, "aflame-render: " SAMPLE ": the view's rules leave no frame\n");
	free(out);
	free(err);
	cr_assert_eq(t_cli("--mapping /nonexistent/mapping.txt '" SAMPLE "'", NULL, &out, &err), 1);
	cr_assert_str_eq(err, "aflame-render: /nonexistent/mapping.txt: cannot open: "
	                      "No such file or directory\n");
	free(out);
	free(err);
	t_write(folded, "a;b 3\n", 6);
	snprintf(args, sizeof args, "--clock wait '%s'", folded);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 1);
	cr_assert(strstr(err, "--clock wait needs a trace with both wall and thread-cpu "
	                      "times; folded stacks have one count"), "%s", err);
	free(out);
	free(err);
	cr_assert_eq(t_cli("--clock wait '" AF_TEST_SAMPLES "/app-dalvik-v1.trace'", NULL, &out,
	                   &err), 1);
	cr_assert(strstr(err, "--clock wait needs a trace with both wall and thread-cpu "
	                      "times; this one records"), "%s", err);
	free(out);
	free(err);
	free(folded);
}

/* tests/data/bad/NAME.mapping gives "aflame-render: PATH: " + NAME.error */
Test(views, every_bad_mapping_through_the_cli)
{
	DIR *d = opendir(AF_TEST_DATA "/bad");
	struct dirent *ent;
	char *out = t_tmp("bad-mapping.svg");
	int n = 0;

	cr_assert_not_null(d);
	while ((ent = readdir(d)) != NULL) {
		char path[1024], epath[1024], args[2048], want[2048], *err = NULL;
		size_t len, nl = strlen(ent->d_name);
		uint8_t *msg;

		if (nl < 9 || strcmp(ent->d_name + nl - 8, ".mapping") != 0)
			continue;
		snprintf(path, sizeof path, "%s/bad/%s", AF_TEST_DATA, ent->d_name);
		snprintf(epath, sizeof epath, "%s/bad/%.*s.error", AF_TEST_DATA,
		         (int)(nl - 8), ent->d_name);
		msg = t_read(epath, &len);
		cr_assert_not_null(msg, "%s", epath);
		snprintf(want, sizeof want, "aflame-render: %s: %s", path, (char *)msg);
		snprintf(args, sizeof args, "--mapping '%s' -o '%s' '%s'", path, out, SAMPLE);
		cr_assert_eq(t_cli(args, NULL, NULL, &err), 1, "%s", ent->d_name);
		cr_expect_str_eq(err, want, "%s", ent->d_name);
		cr_assert_not(exists(out), "%s left %s", ent->d_name, out);
		free(msg);
		free(err);
		n++;
	}
	closedir(d);
	free(out);
	cr_assert_geq(n, 6);
}

/* ------------------------------------------------------------------ */
/* Real traces                                                         */

Test(views, wait_on_real_dual_clock_traces)
{
	static const char *const dual[] = {
		"BurrOakApp-dmtrace.trace", "android-methods-profiler-legacy.trace",
		"firefox-profiler-art-trace-regular.trace.gz",
		"firefox-profiler-art-trace-streaming.trace.gz", "JAGAndroidFramework-dmtrace.trace",
	};
	size_t k;

	if (!t_have_traces())
		cr_skip_test("real traces not found in %s", t_traces_dir());
	for (k = 0; k < sizeof dual / sizeof dual[0]; k++) {
		char *path = t_trace_path(dual[k]), *svg = t_tmp("real-wait.svg"), args[2048];
		char *err = NULL;
		size_t len, i;
		uint8_t *buf = t_read(path, &len);
		af_trace *t = t_parse(buf, len);
		af_tree *tree = NULL;
		af_error e = {0};
		af_node_info root;
		uint64_t sum = 0;

		cr_assert(af_trace_get_info(t)->has_clock[AF_CLOCK_WAIT], "%s", dual[k]);
		cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
		af_tree_node(tree, 0, &root);
		/* every path's wait is its wall minus cpu, at least 0 */
		for (i = 1; i < af_tree_size(tree); i++) {
			af_node_info ni;
			af_tree_node(tree, i, &ni);
			cr_assert_eq(ni.self[AF_CLOCK_WAIT],
			             ni.self[AF_CLOCK_WALL] > ni.self[AF_CLOCK_CPU]
			                     ? ni.self[AF_CLOCK_WALL] - ni.self[AF_CLOCK_CPU] : 0);
			sum += ni.self[AF_CLOCK_WAIT];
		}
		cr_assert_eq(root.total[AF_CLOCK_WAIT], sum);
		cr_assert_gt(sum, 0, "%s", dual[k]);
		cr_assert_geq(sum, root.total[AF_CLOCK_WALL] - root.total[AF_CLOCK_CPU]);
		snprintf(args, sizeof args, "-q --clock wait -o '%s' '%s'", svg, path);
		cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s", err);
		free(err);
		af_tree_free(tree);
		af_trace_free(t);
		free(buf);
		free(path);
		free(svg);
	}
}

Test(views, focus_on_real_traces)
{
	char *path, *out = NULL, *err = NULL, args[2048];

	if (!t_have_traces())
		cr_skip_test("real traces not found in %s", t_traces_dir());
	path = t_trace_path("BurrOakApp-dmtrace.trace");
	snprintf(args, sizeof args,
	         "-q --format folded --focus 'ViewRootImpl\\.performTraversals$' "
	         "--collapse-recursion --strip-package '%s'", path);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert(strncmp(out, "ViewRootImpl.performTraversals", 30) == 0, "%.200s", out);
	{
		char *line;
		for (line = out; *line; line = strchr(line, '\n') + 1) {
			cr_assert(strncmp(line, "ViewRootImpl.performTraversals", 30) == 0,
			          "%.100s", line);
			cr_assert_null(strstr(line, "android."), "%.100s", line);
		}
	}
	free(out);
	free(err);
	free(path);
}
