/*
 * test_systrace.c - atrace/systrace text (src/systrace.c) and the slice
 * builder under it (src/slices.c): a small capture of the project's own in
 * each of its forms (plain, TRACE: + zlib, gzip, Systrace HTML), thread and
 * process choice, limits; and the real files of ../shared/inputs/systrace,
 * whose figures an independent reading of their lines gives.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <libgen.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "support.h"

#define APP AF_TEST_DATA "/systrace/app.systrace"

/* tests/data/systrace/app.systrace's graph, worked out by hand from its
 * lines (µs between a thread's events go to its innermost open slice):
 * com.example-100: activityStart 0..1000 holds inflate 100..400;
 * RenderThread-105: DrawFrame 200..700 holds syncFrameState 250..300;
 * RenderThread-305: DrawFrame 2000..2050 (same-named threads merge);
 * <...>-205 (Thread-205): an end before any begin (ignored), binder
 * transaction from 100, lock contention 900..1000, the transaction still
 * open at its thread's last event (1000). */
static const char app_folded[] =
	"RenderThread;DrawFrame 500\n"
	"RenderThread;DrawFrame;syncFrameState 50\n"
	"Thread-205;binder transaction 800\n"
	"Thread-205;binder transaction;lock contention 100\n"
	"com.example;activityStart 700\n"
	"com.example;activityStart;inflate 300\n";

static char *folded_of(const uint8_t *buf, size_t len, const af_tree_options *o)
{
	return t_folded(buf, len, AF_CLOCK_WALL, o);
}

/* `text` after a TRACE: line, zlib-compressed as atrace -z writes it. */
static uint8_t *atrace_z(const uint8_t *text, size_t len, size_t *out_len)
{
	uLongf zlen = compressBound(len);
	uint8_t *out = malloc(7 + zlen);

	cr_assert_not_null(out);
	memcpy(out, "TRACE:\n", 7);
	cr_assert_eq(compress2(out + 7, &zlen, text, len, 9), Z_OK);
	*out_len = 7 + zlen;
	return out;
}

/* `text` in a Systrace HTML page, after a block of JSON trace events. */
static uint8_t *html_of(const uint8_t *text, size_t len, size_t *out_len)
{
	static const char head[] =
		"<!DOCTYPE html>\n<html>\n<head><script>var ok = 1;</script></head>\n"
		"<body>\n<!-- BEGIN TRACE -->\n"
		"  <script class=\"trace-data\" type=\"application/text\">\n"
		"{\"traceEvents\": [], \"systemTraceEvents\": \"\"}\n  </script>\n"
		"  <script class=\"trace-data\" type=\"application/text\">\n";
	static const char tail[] = "  </script>\n<!-- END TRACE -->\n</body>\n</html>\n";
	uint8_t *out = malloc(sizeof head + len + sizeof tail);

	cr_assert_not_null(out);
	memcpy(out, head, sizeof head - 1);
	memcpy(out + sizeof head - 1, text, len);
	memcpy(out + sizeof head - 1 + len, tail, sizeof tail - 1);
	*out_len = sizeof head - 1 + len + sizeof tail - 1;
	return out;
}

Test(systrace, own_capture_gives_the_hand_worked_graph_and_counts)
{
	size_t len;
	uint8_t *buf = t_read(APP, &len);
	af_trace *t;
	const af_trace_info *i;
	char *f;

	cr_assert_not_null(buf);
	f = folded_of(buf, len, NULL);
	cr_expect_str_eq(f, app_folded);
	free(f);
	t = t_parse(buf, len);
	i = af_trace_get_info(t);
	cr_expect_eq(i->variant, AF_VARIANT_SYSTRACE);
	cr_expect(i->has_clock[AF_CLOCK_WALL] && !i->has_clock[AF_CLOCK_CPU]);
	cr_expect_eq(i->enters, 7);  /* the B lines */
	cr_expect_eq(i->exits, 6);   /* E lines that closed a slice */
	cr_expect_eq(i->unmatched_ends, 1);
	cr_expect_eq(i->open_at_end, 1);
	cr_expect_eq(i->async_ignored, 2);    /* S| and F| */
	cr_expect_eq(i->counters_ignored, 1); /* C| */
	cr_expect_eq(i->marks_ignored, 1);    /* the clock sync */
	cr_expect_eq(i->ignored_lines, 1);    /* the continuation line */
	cr_expect_eq(i->lines, 19);
	cr_expect_eq(i->methods, 6);          /* distinct slice names */
	cr_expect_eq(i->processes, 3);
	cr_expect_eq(i->threads_with_records, 4);
	cr_assert_eq(af_trace_thread_count(t), 4);
	{
		/* threads in order of their first slice, with their processes */
		static const struct {
			uint32_t tid, pid;
			const char *name, *process;
			uint64_t total;
		} want[] = {
			{100, 100, "com.example", "com.example", 1000},
			{105, 100, "RenderThread", "com.example", 500},
			{205, 200, "Thread-205", "system_server", 900},
			{305, 300, "RenderThread", "Process-300", 50},
		};
		size_t k;
		for (k = 0; k < 4; k++) {
			af_thread_info ti;
			af_trace_thread(t, k, &ti);
			cr_expect_eq(ti.tid, want[k].tid, "thread %zu", k);
			cr_expect_eq(ti.pid, want[k].pid, "thread %zu", k);
			cr_expect_str_eq(ti.name, want[k].name, "thread %zu", k);
			cr_expect_str_eq(ti.process, want[k].process, "thread %zu", k);
			cr_expect_eq(ti.total[AF_CLOCK_WALL], want[k].total, "thread %zu", k);
		}
	}
	af_trace_free(t);
	free(buf);
}

Test(systrace, every_container_gives_the_same_graph)
{
	size_t len, zlen, hlen, glen;
	uint8_t *buf = t_read(APP, &len), *z, *h, *g;
	char *f;

	cr_assert_not_null(buf);
	z = atrace_z(buf, len, &zlen);
	f = folded_of(z, zlen, NULL);
	cr_expect_str_eq(f, app_folded, "TRACE: + zlib");
	free(f);
	h = html_of(buf, len, &hlen);
	f = folded_of(h, hlen, NULL);
	cr_expect_str_eq(f, app_folded, "Systrace HTML");
	free(f);
	g = t_gzip(buf, len, &glen);
	f = folded_of(g, glen, NULL);
	cr_expect_str_eq(f, app_folded, "gzip");
	free(f);
	free(g);
	/* atrace's own output has a line before the header: still found */
	{
		size_t plen = strlen("capturing trace... done\n");
		uint8_t *p = malloc(plen + zlen);
		cr_assert_not_null(p);
		memcpy(p, "capturing trace... done\n", plen);
		memcpy(p + plen, z, zlen);
		f = folded_of(p, plen + zlen, NULL);
		cr_expect_str_eq(f, app_folded, "capturing trace... done, then TRACE:");
		free(f);
		free(p);
	}
	free(h);
	free(z);
	free(buf);
}

Test(systrace, thread_and_process_choose)
{
	size_t len;
	uint8_t *buf = t_read(APP, &len);
	const char *com[] = {"com.example"}, *pid300[] = {"300"}, *rt[] = {"RenderThread"},
	           *p100[] = {"100"}, *tid305[] = {"305"}, *nope[] = {"nope"};
	af_tree_options o = {0};
	af_trace *t;
	af_tree *tree = NULL;
	af_error e = {0};
	char *f;

	cr_assert_not_null(buf);
	o.processes = com;
	o.nprocesses = 1;
	f = folded_of(buf, len, &o);
	cr_expect_str_eq(f, "RenderThread;DrawFrame 450\n"
	                    "RenderThread;DrawFrame;syncFrameState 50\n"
	                    "com.example;activityStart 700\n"
	                    "com.example;activityStart;inflate 300\n");
	free(f);
	o.processes = pid300;
	f = folded_of(buf, len, &o);
	cr_expect_str_eq(f, "RenderThread;DrawFrame 50\n");
	free(f);
	/* both filters: a thread must pass each */
	o.processes = p100;
	o.threads = rt;
	o.nthreads = 1;
	f = folded_of(buf, len, &o);
	cr_expect_str_eq(f, "RenderThread;DrawFrame 450\n"
	                    "RenderThread;DrawFrame;syncFrameState 50\n");
	free(f);
	o.processes = NULL;
	o.nprocesses = 0;
	o.threads = tid305;
	f = folded_of(buf, len, &o);
	cr_expect_str_eq(f, "RenderThread;DrawFrame 50\n");
	free(f);
	o.threads = NULL;
	o.nthreads = 0;
	o.processes = nope;
	o.nprocesses = 1;
	t = t_parse(buf, len);
	cr_expect_eq(af_tree_from_trace(t, &o, &tree, &e), AF_ERR_EMPTY);
	cr_expect_str_eq(e.message, "no thread with records matches the --process filter");
	af_trace_free(t);
	free(buf);
	/* the command: --process, and --per-thread with it */
	t_cli_says(0, "", "-q --format folded --process system_server '%s'", APP);
	{
		char *out = NULL, *err = NULL;
		cr_assert_eq(t_cli("-q --format folded --process system_server '" APP "'", NULL,
		                   &out, &err), 0, "%s", err);
		cr_expect_str_eq(out, "Thread-205;binder transaction 800\n"
		                      "Thread-205;binder transaction;lock contention 100\n");
		free(out);
		free(err);
	}
	/* a per-thread set draws the threads of the chosen process only */
	{
		char *dir = t_tmp("systrace-set"), *args = NULL, *out = NULL, *err = NULL,
		     *path = NULL;
		static const struct { const char *file; int there; } files[] = {
			{"100-com.example.svg", 1}, {"105-RenderThread.svg", 1},
			{"305-RenderThread.svg", 0}, {"205-Thread-205.svg", 0},
		};
		size_t k;
		cr_assert_neq(asprintf(&args, "-q --per-thread --format svg --process 100 -o '%s' '%s'",
		                       dir, APP), -1);
		cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
		for (k = 0; k < sizeof files / sizeof files[0]; k++) {
			FILE *fp;
			cr_assert_neq(asprintf(&path, "%s/%s", dir, files[k].file), -1);
			fp = fopen(path, "r");
			cr_expect_eq(fp != NULL, files[k].there, "%s", path);
			if (fp)
				fclose(fp);
			free(path);
		}
		free(args);
		free(out);
		free(err);
		free(dir);
	}
	/* a method trace knows no processes */
	t_cli_says(1, "the trace names no processes (--process needs systrace or Perfetto input)",
	           "--process 1 --format folded '%s'", AF_TEST_SAMPLES "/app.trace");
}

Test(systrace, the_command_warns_of_what_it_left_out)
{
	char *out = NULL, *err = NULL;

	cr_assert_eq(t_cli("--format folded '" APP "'", NULL, &out, &err), 0, "%s", err);
	cr_expect_str_eq(out, app_folded);
	cr_expect(strstr(err, "warning: 1 slices still open at the end, closed at their "
	                      "thread's last event"), "%s", err);
	cr_expect(strstr(err, "warning: ignored 1 slice ends with no slice open on their "
	                      "thread"), "%s", err);
	cr_expect(strstr(err, "warning: ignored 1 lines that are no ftrace event, the "
	                      "first at byte 1800"), "%s", err);
	free(out);
	free(err);
	t_cli_says(1, "systrace text has no method records to dump", "--dump '%s'", APP);
}

Test(systrace, limits_and_bad_marks_stop_with_the_place)
{
	static const char deep[] =
		"# tracer: nop\n"
		"  app-9 (    9) [000] ...1 1.000000: tracing_mark_write: B|9|a\n"
		"  app-9 (    9) [000] ...1 1.000001: tracing_mark_write: B|9|b\n"
		"  app-9 (    9) [000] ...1 1.000002: tracing_mark_write: B|9|c\n";
	af_parse_options p = {.limits = {.max_depth = 2}};
	af_trace *t = NULL;
	af_error e = {0};
	size_t zlen;
	uint8_t *z;

	cr_assert_eq(af_trace_parse(deep, sizeof deep - 1, &p, &t, &e), AF_ERR_LIMIT);
	cr_expect_str_eq(e.message, "line 4: thread 9's slices nest deeper than 2");
	cr_expect_eq(e.offset, (long long)(strstr(deep, "  app-9 (    9) [000] ...1 1.000002") - deep));
	z = atrace_z((const uint8_t *)deep, sizeof deep - 1, &zlen);
	cr_assert_eq(af_trace_parse(z, zlen, &p, &t, &e), AF_ERR_LIMIT);
	cr_expect_str_eq(e.message, "line 4 of the inflated trace (its byte below): "
	                            "thread 9's slices nest deeper than 2");
	free(z);
	/* the input limit bounds what the zlib data inflates to */
	{
		size_t n = 1 << 20;
		uint8_t *zeros = calloc(1, n), *bomb;
		af_parse_options small = {.limits = {.max_input = 4096}};
		cr_assert_not_null(zeros);
		memcpy(zeros, "# tracer: nop\n", 14);
		bomb = atrace_z(zeros, n, &zlen);
		cr_assert_eq(af_trace_parse(bomb, zlen, &small, &t, &e), AF_ERR_LIMIT);
		cr_expect(strstr(e.message, "inflates past the 4096-byte input limit"), "%s",
		          e.message);
		free(bomb);
		free(zeros);
	}
	cr_assert_null(t);
}

/* ------------------------------------------------------------------ */
/* Real files                                                          */

/* ../shared/inputs/systrace, beside the real traces' folder. */
static char *inputs_dir(void)
{
	char *d = strdup(t_traces_dir()), *out = NULL;

	cr_assert_not_null(d);
	cr_assert_neq(asprintf(&out, "%s/inputs/systrace", dirname(d)), -1);
	free(d);
	return out;
}

static uint8_t *real(const char *name, size_t *len)
{
	char *dir = inputs_dir(), *path = NULL;
	uint8_t *buf;

	cr_assert_neq(asprintf(&path, "%s/%s", dir, name), -1);
	buf = t_read(path, len);
	if (!buf) {
		cr_log_info("%s is not there: the tests of real systrace files skip", path);
		cr_skip_test("%s is not there (the real systrace files are in ../shared/inputs); "
		             "skipped", path);
	}
	free(path);
	free(dir);
	return buf;
}

/* What a reading of the text independent of the parser finds: a POSIX
 * regular expression over each line, a stack of begins per thread. */
typedef struct oracle {
	unsigned begins, ends, unmatched, open;
	unsigned long long total;  /* µs under outermost slices, open ones closed
	                              at their thread's last begin or end */
	unsigned long long named;  /* µs of the slices named `name`, outermost
	                              of their name */
} oracle;

static oracle read_marks(const uint8_t *buf, size_t len, const char *name)
{
	enum { MAXT = 64, MAXD = 64 };
	struct { unsigned long tid; int depth, seen; unsigned long long last;
	         unsigned long long ts[MAXD]; char *nm[MAXD]; } th[MAXT];
	regex_t re;
	regmatch_t m[11];
	oracle o = {0};
	char *text = strndup((const char *)buf, len), *line, *save = NULL;
	int nth = 0, k, d;

	cr_assert_not_null(text);
	cr_assert_eq(regcomp(&re, "-([0-9]+) +(\\( *[-0-9]+\\) +)?\\[[0-9]+\\] +([^ ]+ +)?"
	                          "([0-9]+)\\.([0-9]{6}): tracing_mark_write: "
	                          "([BE])(\\|([0-9]+)(\\|(.*))?)?$", REG_EXTENDED), 0);
	memset(th, 0, sizeof th);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long tid;
		unsigned long long us;
		if (regexec(&re, line, 11, m, 0) != 0)
			continue;
		tid = strtoul(line + m[1].rm_so, NULL, 10);
		us = strtoull(line + m[4].rm_so, NULL, 10) * 1000000ull +
		     strtoull(line + m[5].rm_so, NULL, 10);
		for (k = 0; k < nth && th[k].tid != tid; k++)
			;
		if (line[m[6].rm_so] == 'B') {
			if (k == nth) {
				cr_assert_lt(nth, MAXT);
				th[nth++].tid = tid;
			}
			cr_assert_lt(th[k].depth, MAXD);
			cr_assert_neq(m[10].rm_so, -1, "a begin with no name: %s", line);
			th[k].nm[th[k].depth] = line + m[10].rm_so;
			th[k].ts[th[k].depth++] = us;
			th[k].seen = 1;
			th[k].last = us;
			o.begins++;
			continue;
		}
		if (k == nth || th[k].depth == 0) {
			o.unmatched++;
			if (k < nth)
				th[k].last = us;
			continue;
		}
		th[k].last = us;
		o.ends++;
		d = --th[k].depth;
		if (d == 0)
			o.total += us - th[k].ts[0];
		if (strcmp(th[k].nm[d], name) == 0) {
			int j, outer = 1;
			for (j = 0; j < d; j++)
				outer &= strcmp(th[k].nm[j], name) != 0;
			if (outer)
				o.named += us - th[k].ts[d];
		}
	}
	for (k = 0; k < nth; k++) {
		o.open += (unsigned)th[k].depth;
		if (th[k].depth)
			o.total += th[k].last - th[k].ts[0];
	}
	regfree(&re);
	free(text);
	return o;
}

/* The sum of a folded text's counts, and of the lines through `name`. */
static void folded_sums(const char *f, const char *name, unsigned long long *total,
                        unsigned long long *named)
{
	char *text = strdup(f), *line, *save = NULL, pat[256];

	*total = *named = 0;
	snprintf(pat, sizeof pat, ";%s;", name);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *sp = strrchr(line, ' '), path[8192];
		unsigned long long c = strtoull(sp + 1, NULL, 10);
		*total += c;
		snprintf(path, sizeof path, "%.*s;", (int)(sp - line), line);
		if (strstr(path, pat))
			*named += c;
	}
	free(text);
}

static void check_real(const char *file, const char *name, unsigned long long hand)
{
	size_t len;
	uint8_t *buf = real(file, &len);
	oracle o = read_marks(buf, len, name);
	af_trace *t = t_parse(buf, len);
	const af_trace_info *i = af_trace_get_info(t);
	unsigned long long total, named;
	char *f = folded_of(buf, len, NULL);

	cr_expect_eq(i->enters, o.begins, "%s", file);
	cr_expect_eq(i->exits, o.ends, "%s", file);
	cr_expect_eq(i->unmatched_ends, o.unmatched, "%s", file);
	cr_expect_eq(i->open_at_end, o.open, "%s", file);
	folded_sums(f, name, &total, &named);
	cr_expect_eq(total, o.total, "%s: the graph's total", file);
	cr_expect_eq(named, o.named, "%s: %s", file, name);
	cr_expect_eq(named, hand, "%s: %s", file, name);
	free(f);
	af_trace_free(t);
	free(buf);
}

/* catapult's test data: the same atrace output compressed (TRACE: + zlib,
 * as atrace -z writes it) and not.  grep counts 463 "tracing_mark_write: B|"
 * and 463 "E" lines, 26 async (S|, F|) and 88 counter (C|) marks; an awk
 * script keeping a stack of begins per thread sums the Choreographer#doFrame
 * slices to 65,747 µs and DrawFrame to 85,446 µs. */
Test(systrace, catapult_compressed_and_plain_give_one_graph)
{
	size_t zlen, plen;
	uint8_t *z = real("catapult-compressed_atrace_data.txt", &zlen);
	uint8_t *p = real("catapult-decompressed_atrace_data.txt", &plen);
	char *fz = folded_of(z, zlen, NULL), *fp = folded_of(p, plen, NULL);
	af_trace *t = t_parse(z, zlen);
	const af_trace_info *i = af_trace_get_info(t);

	cr_expect_str_eq(fz, fp);
	cr_expect_gt(strlen(fp), 1000);
	cr_expect_eq(i->enters, 463);
	cr_expect_eq(i->exits, 463);
	cr_expect_eq(i->async_ignored, 26);
	cr_expect_eq(i->counters_ignored, 88);
	/* 17,600 bytes follow the zlib stream in catapult's file; its own
	 * reader leaves them too (its test compares the stream's text only) */
	cr_expect_eq(i->trailing_bytes, 17600);
	af_trace_free(t);
	free(fz);
	free(fp);
	free(z);
	free(p);
	check_real("catapult-decompressed_atrace_data.txt", "Choreographer#doFrame", 65747);
	check_real("catapult-decompressed_atrace_data.txt", "DrawFrame", 85446);
}

/* trappy's Systrace HTML (its trace-data blocks: ftrace text, then JSON):
 * grep counts 70 B and 70 E marks; the awk script gives 10,396 µs of
 * DrawFrame and 6,090 µs of Choreographer#doFrame. */
Test(systrace, trappy_surfaceflinger_html)
{
	size_t len;
	uint8_t *buf = real("trappy-trace_surfaceflinger.html", &len);
	af_trace *t = t_parse(buf, len);

	cr_expect_eq(af_trace_get_info(t)->enters, 70);
	cr_expect_eq(af_trace_get_info(t)->exits, 70);
	af_trace_free(t);
	free(buf);
	check_real("trappy-trace_surfaceflinger.html", "DrawFrame", 10396);
	check_real("trappy-trace_surfaceflinger.html", "Choreographer#doFrame", 6090);
}

/* trappy's small HTML holds one mark, a bare "E" with nothing open: no
 * slice, and the command says so. */
Test(systrace, trappy_systrace_html_has_no_slices)
{
	size_t len;
	uint8_t *buf = real("trappy-trace_systrace.html", &len);
	af_trace *t = t_parse(buf, len);
	char *dir = inputs_dir();

	cr_expect_eq(af_trace_get_info(t)->enters, 0);
	cr_expect_eq(af_trace_get_info(t)->unmatched_ends, 1);
	cr_expect_eq(af_trace_get_info(t)->marks_ignored, 1); /* the clock sync */
	af_trace_free(t);
	free(buf);
	t_cli_says(1, "the trace has no begin/end slices", "-o x.svg '%s/%s'", dir,
	           "trappy-trace_systrace.html");
	free(dir);
}

/* Perfetto's malformed print: an event whose text runs over three lines.
 * Perfetto's trace processor skips the two lines that are no event and
 * reads the slice: its test (test/trace_processor/diff_tests/parser/atrace/
 * tests_error_handling.py, test_bad_print_systrace_list_slices) expects one
 * slice, ts 10852771242000, dur 3000 ns, "some event": 3 µs here, on
 * surfaceflinger's thread, with the two lines counted. */
Test(systrace, perfetto_bad_print_as_perfetto_reads_it)
{
	size_t len;
	uint8_t *buf = real("perfetto-bad_print.systrace", &len);
	af_trace *t = t_parse(buf, len);
	char *f = folded_of(buf, len, NULL);

	cr_expect_str_eq(f, "surfaceflinger;some event 3\n");
	cr_expect_eq(af_trace_get_info(t)->ignored_lines, 2);
	cr_expect_eq(af_trace_get_info(t)->enters, 1);
	free(f);
	af_trace_free(t);
	free(buf);
	check_real("perfetto-bad_print.systrace", "some event", 3);
}
