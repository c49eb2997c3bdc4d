/*
 * test_profile.c - --report-format html, the method table as one page with
 * every method's callers and callees (tests/browser/profile.test.mjs
 * drives it in Chromium), and the view's rules in every --report format.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

/* The call graph of the file at `path`, as --report builds it. */
static af_call_graph *graph_of(const char *path, const af_tree_options *o, af_trace **t,
                               af_tree **tree)
{
	af_call_graph *g = NULL;
	af_error e = {0};

	af_clock clock;

	cr_assert_eq(af_trace_open(path, NULL, t, &e), AF_OK, "%s: %s", path, e.message);
	/* the command's default: wall when the trace has it */
	clock = af_trace_get_info(*t)->has_clock[AF_CLOCK_WALL] ? AF_CLOCK_WALL : AF_CLOCK_CPU;
	cr_assert_eq(af_tree_from_trace(*t, o, tree, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_call_graph_build(*tree, clock, &g, &e), AF_OK, "%s", e.message);
	return g;
}

/* The first `what` in `s`, or NULL.  strstr() would do, but under the
 * sanitizers it reads the whole rest of a page of megabytes at each call. */
static const char *find(const char *s, const char *what)
{
	size_t n = strlen(what);
	for (; *s; s++)
		if (*s == *what && strncmp(s, what, n) == 0)
			return s;
	return NULL;
}

static size_t count(const char *s, const char *what)
{
	size_t n = 0;
	for (; (s = find(s, what)) != NULL; s += strlen(what))
		n++;
	return n;
}

/* The page of `path` with the command's extra `args`; caller frees. */
static char *page_of(const char *args, const char *path)
{
	char *html = t_tmp("profile.html"), cmd[4096], *err = NULL;
	uint8_t *data;
	size_t len;

	snprintf(cmd, sizeof cmd, "--report '%s' --report-format html %s '%s'", html, args, path);
	cr_assert_eq(t_cli(cmd, NULL, NULL, &err), 0, "%s: %s", cmd, err);
	free(err);
	data = t_read(html, &len);
	cr_assert_not_null(data);
	unlink(html);
	free(html);
	return (char *)data;
}

/* The page holds a section per method, in the table's order, with as
 * many callers and callees as the graph, and its links all lead to a
 * method of the page. */
static void check_page(const char *page, const af_call_graph *g, const char *what)
{
	const af_method_table *t = &g->methods;
	size_t i;
	const char *p, *from = page;

	cr_assert(strncmp(page, "<!DOCTYPE html>", 15) == 0, "%s", what);
	cr_assert_eq(count(page, "<tbody class=\"method\""), t->nrows, "%s: %zu sections, %zu "
	             "methods", what, count(page, "<tbody class=\"method\""), t->nrows);
	for (i = 0; i < t->nrows; i++) {
		char id[128];
		const char *sec, *end, *callees;
		size_t ncallers, ncallees;
		snprintf(id, sizeof id, "<tbody class=\"method\" id=\"m%zu\" data-rank=\"%zu\"", i, i);
		sec = find(from, id); /* in the table's order */
		cr_assert_not_null(sec, "%s: no section m%zu", what, i);
		from = sec + 1;
		end = find(sec + 1, "<tbody class=\"method\"");
		if (!end)
			end = sec + strlen(sec);
		callees = find(sec, "<tbody class=\"callees\">");
		cr_assert(callees && callees < end);
		/* rows of the two lists: callers; self and the callees */
		{
			char *callers = strndup(sec, (size_t)(callees - sec));
			char *rest = strndup(callees, (size_t)(end - callees));
			ncallers = count(find(callers, "<tbody class=\"callers\">"), "<tr><td>");
			ncallees = count(rest, "<tr><td>");
			free(callers);
			free(rest);
		}
		cr_assert_eq(ncallers, g->callers_of[i + 1] - g->callers_of[i], "%s: m%zu callers",
		             what, i);
		cr_assert_eq(ncallees, g->calls_from[i + 1] - g->calls_from[i], "%s: m%zu callees",
		             what, i);
	}
	/* every link leads to a section */
	for (p = page; (p = find(p, "href=\"#m")) != NULL; p++) {
		unsigned m;
		cr_assert_eq(sscanf(p, "href=\"#m%u\"", &m), 1);
		cr_assert_lt(m, t->nrows, "%s: a link to m%u", what, m);
	}
	/* nothing fetched */
	cr_assert_null(strstr(page, "http:"), "%s", what);
	cr_assert_null(strstr(page, "https:"), "%s", what);
	cr_assert_null(strstr(page, " src="), "%s", what);
	cr_assert_null(strstr(page, "<link"), "%s", what);
	cr_assert_eq(count(page, "<script>"), 1, "%s", what);
}

Test(profile, a_section_per_method_with_its_callers_and_callees)
{
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_call_graph *g = graph_of(AF_TEST_SAMPLES "/app.trace", NULL, &t, &tree);
	char *page = page_of("", AF_TEST_SAMPLES "/app.trace");
	const char *p;

	check_page(page, g, "app.trace");
	cr_assert(strstr(page, "<title>Profile of "), "%s", page);
	cr_assert(strstr(page, "32 methods, 712.0 ms of wall time in all"));
	/* loadCart's section: its callers, then its own time and its callees */
	p = strstr(page, "data-name=\"com.example.shop.data.ProductRepository.loadCart\"");
	cr_assert_not_null(p);
	cr_assert(strstr(p, "java.<wbr>util.<wbr>concurrent.<wbr>ThreadPoolExecutor$<wbr>Worker.<wbr>"
	                    "run</a></td><td class=\"num\">55/86</td><td class=\"num\">135.7 ms</td>"
	                    "<td class=\"num\">68.4%</td>"),
	          "%.2000s", p);
	cr_assert(strstr(p, "<tr class=\"self\"><td>self</td><td></td><td class=\"num\">20.5 ms</td>"
	                    "<td class=\"num\">10.3%</td>"));
	free(page);
	af_call_graph_free(g);
	af_tree_free(tree);
	af_trace_free(t);
}

/* --report, in each format, applies the view's rules as the graph does:
 * the obfuscated release trace read with its mapping gives the sample's
 * own table, and --focus leaves the focused method's calls only. */
Test(profile, the_view_rules_apply_to_every_format)
{
	static const char *formats[] = {"tsv", "text", "html"};
	af_tree_options focus = {.focus = "Choreographer\\.doFrame$"};
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_call_graph *g;
	char *page;
	size_t f;

	for (f = 0; f < sizeof formats / sizeof formats[0]; f++) {
		char a[1024], b[1024], *x = NULL, *y = NULL, *err = NULL;
		snprintf(a, sizeof a, "--report - --report-format %s --mapping '%s' '%s'", formats[f],
		         AF_TEST_SAMPLES "/app-mapping.txt", AF_TEST_SAMPLES "/app-obfuscated.trace");
		snprintf(b, sizeof b, "--report - --report-format %s '%s'", formats[f],
		         AF_TEST_SAMPLES "/app.trace");
		cr_assert_eq(t_cli(a, NULL, &x, &err), 0, "%s", err);
		free(err);
		cr_assert_eq(t_cli(b, NULL, &y, &err), 0, "%s", err);
		free(err);
		if (f < 2) {
			cr_assert_str_eq(x, y, "%s", formats[f]);
		} else { /* the titles name the input */
			cr_assert_str_eq(strstr(x, "<table"), strstr(y, "<table"));
		}
		cr_assert(strstr(x, "com.example.shop.data"), "%s", formats[f]);
		free(x);
		free(y);
	}
	g = graph_of(AF_TEST_SAMPLES "/app.trace", &focus, &t, &tree);
	page = page_of("--focus 'Choreographer\\.doFrame$'", AF_TEST_SAMPLES "/app.trace");
	check_page(page, g, "focus");
	cr_assert_null(strstr(page, "ActivityThread.main"));
	free(page);
	af_call_graph_free(g);
	af_tree_free(tree);
	af_trace_free(t);
}

/* Names are text: markup in a method name is escaped, never run. */
Test(profile, hostile_names_stay_text)
{
	af_writer_options wo = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_WALL};
	af_writer *w = af_writer_new(&wo);
	char *trace = t_tmp("hostile-profile.trace"), *page;
	uint8_t *buf;
	size_t len;

	cr_assert_eq(af_writer_thread(w, 1, "<b>main</b>"), 0);
	cr_assert_eq(af_writer_method(w, 4, "x\"><script>alert(1)</script>", "m'&amp;", "()V",
	                              "x"), 0);
	cr_assert_eq(af_writer_record(w, 1, 4, AF_ENTER, 0, 0), 0);
	cr_assert_eq(af_writer_record(w, 1, 4, AF_EXIT, 0, 10), 0);
	buf = t_finish(w, &len, NULL);
	t_write(trace, buf, len);
	free(buf);
	page = page_of("--title '<i>t</i>'", trace);
	cr_assert_null(strstr(page, "<script>alert"));
	cr_assert_null(strstr(page, "<i>t"));
	/* (class names' slashes are dots, ';' is ':', as in every output) */
	cr_assert(strstr(page, "data-name=\"x&quot;&gt;&lt;script&gt;alert(1)&lt;.script&gt;.m&apos;"
	                       "&amp;amp:\""), "%s", page);
	cr_assert_eq(count(page, "<script>"), 1);
	free(page);
	unlink(trace);
	free(trace);
}

Test(profile, folded_input_has_counts_not_calls)
{
	char *in = t_tmp("profile.folded"), *page;
	const char *text = "main;f;g 3\nmain;g 2\n";
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_call_graph *g;

	t_write(in, text, strlen(text));
	g = graph_of(in, NULL, &t, &tree);
	page = page_of("", in);
	check_page(page, g, "folded");
	cr_assert_null(strstr(page, "data-key=\"calls\""));
	cr_assert(strstr(page, "3 methods, 5 in all"), "%s", page);
	free(page);
	af_call_graph_free(g);
	af_tree_free(tree);
	af_trace_free(t);
	unlink(in);
	free(in);
}

Test(profile, every_real_trace, .timeout = 600)
{
	static const char *files[] = {
		"BurrOakApp-dmtrace.trace", "JAGAndroidFramework-dmtrace.trace",
		"android-methods-profiler-legacy.trace", "firefox-profiler-art-trace-regular.trace.gz",
		"firefox-profiler-art-trace-streaming.trace.gz", "perflib-basic-api10.trace",
		"perflib-basic.trace", "perflib-exception.trace", "perflib-mismatched.trace"};
	size_t f;

	if (!t_have_traces())
		return;
	t_traces_listed(files, sizeof files / sizeof files[0], "perflib-header.trace");
	/* perflib-header.trace is a key and no records (PROVENANCE.md): it is
	 * refused, and no page is written */
	{
		char *path = t_trace_path("perflib-header.trace"), *html = t_tmp("header.html");
		t_cli_says(1, "unsupported data version", "--report '%s' --report-format html '%s'",
		           html, path);
		cr_assert(access(html, F_OK) != 0);
		free(html);
		free(path);
	}
	for (f = 0; f < sizeof files / sizeof files[0]; f++) {
		char *path = t_trace_path(files[f]), *page;
		af_trace *t = NULL;
		af_tree *tree = NULL;
		af_call_graph *g = graph_of(path, NULL, &t, &tree);
		page = page_of("", path);
		check_page(page, g, files[f]);
		fprintf(stderr, "HTML profile of %s: %zu methods, %zu calls between them\n", files[f],
		        g->methods.nrows, g->nedges);
		free(page);
		af_call_graph_free(g);
		af_tree_free(tree);
		af_trace_free(t);
		free(path);
	}
}

Test(profile, command_line)
{
	char *html = t_tmp("profile-none.html");

	t_cli_says(2, "--report-format takes tsv, text or html, not 'xml'",
	           "--report - --report-format xml x.trace");
	t_cli_says(1, "no thread with records matches",
	           "--report '%s' --report-format html --thread nobody '%s'", html,
	           AF_TEST_SAMPLES "/app.trace");
	cr_assert(access(html, F_OK) != 0);
	free(html);
}
