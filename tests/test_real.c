/*
 * test_real.c - the real traces in ../shared/traces (recorded by others;
 * see PROVENANCE.md there): each parses with the counts its provenance
 * lists, and renders to every format.  Skips, saying so, without them.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

typedef struct expected {
	const char *file;
	unsigned version, record_size;
	int wall;               /* has a wall clock */
	uint32_t declared, with_records, methods;
	uint64_t records, orphans, open, unwinds, unknown_calls;
} expected;

static const expected real[] = {
	{"firefox-profiler-art-trace-regular.trace.gz", 3, 14, 1, 66, 40, 2067, 13295, 0, 259, 0, 31},
	{"firefox-profiler-art-trace-streaming.trace.gz", 0xF3, 14, 1, 0, 52, 3963, 39377, 0, 393, 0, 19},
	{"android-methods-profiler-legacy.trace", 3, 14, 1, 14, 6, 287, 16472, 0, 30, 0, 0},
	{"BurrOakApp-dmtrace.trace", 3, 14, 1, 10, 3, 1674, 26875, 10, 9, 56, 0},
	{"JAGAndroidFramework-dmtrace.trace", 3, 14, 1, 12, 1, 101, 4115, 4, 3, 0, 0},
	{"perflib-basic-api10.trace", 1, 9, 0, 8, 1, 7, 10, 2, 2, 0, 0},
	{"perflib-basic.trace", 3, 14, 1, 11, 1, 7, 9, 3, 2, 0, 0},
	{"perflib-exception.trace", 3, 14, 1, 11, 1, 14, 23, 3, 2, 3, 0},
	{"perflib-mismatched.trace", 3, 14, 1, 11, 1, 8, 9, 5, 2, 0, 0},
};

static af_trace *open_real(const char *name)
{
	char *path = t_trace_path(name);
	af_trace *t = NULL;
	af_error e = {0};
	af_status st = af_trace_open(path, NULL, &t, &e);
	cr_assert_eq(st, AF_OK, "%s: %s (byte %lld)", name, e.message, e.offset);
	free(path);
	return t;
}

Test(real, counts_match_the_provenance)
{
	size_t k;

	if (!t_have_traces())
		cr_skip_test("real traces not found in %s", t_traces_dir());
	for (k = 0; k < sizeof real / sizeof real[0]; k++) {
		const expected *x = &real[k];
		af_trace *t = open_real(x->file);
		const af_trace_info *i = af_trace_get_info(t);

		cr_expect_eq(i->version, x->version, "%s version", x->file);
		cr_expect_eq(i->record_size, x->record_size, "%s record size", x->file);
		cr_expect_eq(i->has_clock[AF_CLOCK_WALL], x->wall, "%s wall", x->file);
		cr_expect(i->has_clock[AF_CLOCK_CPU], "%s cpu", x->file);
		if (x->declared)
			cr_expect_eq(i->threads_declared, x->declared, "%s declared %u",
			             x->file, i->threads_declared);
		cr_expect_eq(i->threads_with_records, x->with_records, "%s threads",
		             x->file);
		cr_expect_eq(i->methods, x->methods, "%s methods", x->file);
		cr_expect_eq(i->records, x->records, "%s records", x->file);
		cr_expect_eq(i->orphan_exits, x->orphans, "%s orphans", x->file);
		cr_expect_eq(i->open_at_end, x->open, "%s open", x->file);
		cr_expect_eq(i->unwinds, x->unwinds, "%s unwinds", x->file);
		cr_expect_eq(i->unknown_method_calls, x->unknown_calls,
		             "%s unknown calls %llu", x->file,
		             (unsigned long long)i->unknown_method_calls);
		cr_expect_eq(i->mismatched_exits, 0, "%s mismatches", x->file);
		cr_expect_eq(i->truncated_bytes, 0, "%s truncated", x->file);
		cr_expect_eq(i->bad_actions, 0, "%s bad actions", x->file);
		af_trace_free(t);
	}
}

static char *folded_of(const char *name, af_clock clock)
{
	char *path = t_trace_path(name);
	size_t len;
	uint8_t *buf = t_read(path, &len);
	char *f;

	cr_assert_not_null(buf, "cannot read %s", path);
	f = t_folded(buf, len, clock, NULL);
	free(buf);
	free(path);
	return f;
}

/* Worked by hand from the records (see README, Semantics). */
Test(real, perflib_exception_exact)
{
	char *f;

	if (!t_have_traces())
		cr_skip_test("real traces not found in %s", t_traces_dir());
	f = folded_of("perflib-exception.trace", AF_CLOCK_WALL);
#define T "AsyncTask #1;"
#define E "com.test.android.traceview.Exceptions."
#define R E "foo;" E "bar;" E "baz;java.lang.RuntimeException.<init>"
	cr_assert_str_eq(f,
		T "android.os.Debug.startMethodTracing 3\n"
		T "android.os.Debug.startMethodTracing;android.os.Debug.startMethodTracing 2\n"
		T "android.os.Debug.stopMethodTracing 3\n"
		T E "foo 5\n"
		T E "foo;" E "bar 5\n"
		T E "foo;" E "bar;" E "baz 9\n"
		T R " 5\n"
		T R ";java.lang.Exception.<init> 4\n"
		T R ";java.lang.Exception.<init>;java.lang.Throwable.<init> 7\n"
		T R ";java.lang.Exception.<init>;java.lang.Throwable.<init>;"
		    "java.lang.Throwable.fillInStackTrace 6\n"
		T R ";java.lang.Exception.<init>;java.lang.Throwable.<init>;"
		    "java.lang.Throwable.fillInStackTrace;"
		    "java.lang.Throwable.nativeFillInStackTrace 9\n"
		T R ";java.lang.Exception.<init>;java.lang.Throwable.<init>;"
		    "java.util.Collections.emptyList 2\n");
	free(f);
}

Test(real, perflib_orphans_exact)
{
	char *f;

	if (!t_have_traces())
		cr_skip_test("real traces not found in %s", t_traces_dir());
	f = folded_of("perflib-basic.trace", AF_CLOCK_CPU);
	cr_assert_str_eq(f,
		"AsyncTask #1;android.os.Debug.startMethodTracing 2\n"
		"AsyncTask #1;android.os.Debug.startMethodTracing;android.os.Debug.startMethodTracing 4\n"
		"AsyncTask #1;android.os.Debug.stopMethodTracing 16\n"
		"AsyncTask #1;com.test.android.traceview.Basic.foo 5\n"
		"AsyncTask #1;com.test.android.traceview.Basic.foo;com.test.android.traceview.Basic.bar 2\n");
	free(f);
	/* exits below where tracing began, in the middle of the trace */
	f = folded_of("perflib-mismatched.trace", AF_CLOCK_WALL);
#define MM "com.test.android.traceview.MisMatched."
	cr_assert_str_eq(f,
		"AsyncTask #1;android.os.Debug.stopMethodTracing 3\n"
		"AsyncTask #1;" MM "foo 2\n"
		"AsyncTask #1;" MM "foo;" MM "bar 8\n"
		"AsyncTask #1;" MM "foo;" MM "bar;android.os.Debug.startMethodTracing 2\n"
		"AsyncTask #1;" MM "foo;" MM "bar;android.os.Debug.startMethodTracing;"
		"android.os.Debug.startMethodTracing 3\n"
		"AsyncTask #1;" MM "foo;" MM "bar;" MM "baz 2\n");
	free(f);
}

Test(real, header_only_fake_fails_cleanly)
{
	char *path;
	af_trace *t = NULL;
	af_error e = {0};

	if (!t_have_traces())
		cr_skip_test("real traces not found in %s", t_traces_dir());
	path = t_trace_path("perflib-header.trace");
	cr_assert_eq(af_trace_open(path, NULL, &t, &e), AF_ERR_HEADER);
	cr_assert_null(t);
	cr_assert_str_eq(e.message, "unsupported data version 25610 (expected 1, 2 or 3)");
	cr_assert_eq(e.offset, 561);
	free(path);
}

/* Every clock a trace has, through every renderer, in memory. */
Test(real, every_trace_renders_to_every_format)
{
	af_font *font = NULL;
	af_error e = {0};
	size_t k;

	if (!t_have_traces())
		cr_skip_test("real traces not found in %s", t_traces_dir());
	cr_assert_eq(af_font_open(NULL, &font, &e), AF_OK, "%s", e.message);
	for (k = 0; k < sizeof real / sizeof real[0]; k++) {
		af_trace *t = open_real(real[k].file);
		af_tree *tree = NULL;
		int c;

		cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
		for (c = 0; c < AF_CLOCK_COUNT; c++) {
			af_layout_options lo = {.clock = (af_clock)c};
			af_render_options ro = {.font = font};
			af_layout *l = NULL;
			char *svg = NULL, *png = NULL, *pdf = NULL, *why = NULL;
			size_t slen, plen, dlen;
			FILE *f;

			if (!af_trace_get_info(t)->has_clock[c])
				continue;
			if (c == AF_CLOCK_WAIT) {
				/* a trace can have no off-CPU time at all */
				af_node_info root;
				af_tree_node(tree, 0, &root);
				if (root.total[c] == 0) {
					cr_assert_eq(af_layout_build(tree, &lo, &l, &e), AF_ERR_EMPTY);
					continue;
				}
			}
			cr_assert_eq(af_layout_build(tree, &lo, &l, &e), AF_OK,
			             "%s: %s", real[k].file, e.message);
			cr_assert_gt(l->nrects, 1);
			f = open_memstream(&svg, &slen);
			cr_assert_eq(af_svg_write(l, &ro, f, &e), AF_OK, "%s", e.message);
			fclose(f);
			cr_assert(t_xml_ok(svg, slen, &why), "%s: SVG not XML: %s",
			          real[k].file, why ? why : "");
			cr_assert(strstr(svg, "<text") && strstr(svg, "names:[\"all\","));
			f = open_memstream(&png, &plen);
			cr_assert_eq(af_cairo_write(l, AF_FORMAT_PNG, &ro, f, &e), AF_OK,
			             "%s", e.message);
			fclose(f);
			cr_assert_gt(plen, 24);
			cr_assert(memcmp(png, "\x89PNG", 4) == 0);
			f = open_memstream(&pdf, &dlen);
			cr_assert_eq(af_cairo_write(l, AF_FORMAT_PDF, &ro, f, &e), AF_OK,
			             "%s", e.message);
			fclose(f);
			cr_assert(memcmp(pdf, "%PDF", 4) == 0);
			free(svg);
			free(png);
			free(pdf);
			af_layout_free(l);
		}
		af_tree_free(tree);
		af_trace_free(t);
	}
	af_font_free(font);
}

/* Text of a trace's folded output on both recorded clocks, its counts and
 * thread order, read with `jobs` cores. */
static char *read_with(const char *name, int jobs)
{
	char *path = t_trace_path(name), *text = NULL;
	af_parse_options po = {.jobs = jobs};
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_error e = {0};
	size_t tlen = 0, i;
	FILE *f = open_memstream(&text, &tlen);
	const af_trace_info *in;
	af_clock c;

	cr_assert_eq(af_trace_open(path, &po, &t, &e), AF_OK, "%s: %s", name, e.message);
	in = af_trace_get_info(t);
	fprintf(f, "%llu %llu %llu %llu %llu %llu\n", (unsigned long long)in->records,
	        (unsigned long long)in->orphan_exits, (unsigned long long)in->open_at_end,
	        (unsigned long long)in->unwinds, (unsigned long long)in->unknown_method_calls,
	        (unsigned long long)in->mismatched_exits);
	for (i = 0; i < af_trace_thread_count(t); i++) {
		af_thread_info ti;
		af_trace_thread(t, i, &ti);
		fprintf(f, "%u %s\n", ti.tid, ti.name);
	}
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
	for (c = 0; c < AF_CLOCK_COUNT; c++)
		if (in->has_clock[c])
			cr_assert_eq(af_folded_write(tree, c, f, &e), AF_OK);
	af_tree_free(tree);
	tree = NULL;
	{
		/* every path's subtree totals (added up on two cores when two
		 * read the records), through a tree cut at a share of them; its
		 * nodes in any order */
		af_tree_options to = {.prune = 0.001, .prune_clock = in->has_clock[AF_CLOCK_WALL]
		                                                        ? AF_CLOCK_WALL
		                                                        : AF_CLOCK_CPU};
		char *cut;
		cr_assert_eq(af_tree_from_trace(t, &to, &tree, &e), AF_OK, "%s", e.message);
		cut = t_node_totals(tree);
		fputs(cut, f);
		free(cut);
	}
	fclose(f);
	af_tree_free(tree);
	af_trace_free(t);
	free(path);
	return text;
}

/* Real regular traces (orphan exits, unwinds, open frames, unknown ids)
 * read on two cores, each taking some of the threads, give exactly what
 * one core gives, every path's subtree totals too. */
Test(real, two_cores_read_what_one_reads)
{
	size_t k;

	if (!t_have_traces())
		cr_skip_test("real traces not found in %s", t_traces_dir());
	for (k = 0; k < sizeof real / sizeof real[0]; k++) {
		char *one, *two;
		if (real[k].version > 3 || real[k].with_records < 2)
			continue; /* streaming, or one thread: nothing to split */
		one = read_with(real[k].file, 1);
		two = read_with(real[k].file, 2);
		cr_assert(strcmp(one, two) == 0, "%s differs on two cores", real[k].file);
		free(one);
		free(two);
	}
}

/* Each thread's SVG of every real trace, one after another through one
 * render cache (as a per-thread set's worker draws them), is the SVG drawn
 * without it, legend included: in one palette and then another, the cache
 * carried from trace to trace. */
Test(real, a_render_cache_draws_every_thread_as_none_does)
{
	static const af_palette palettes[] = {AF_PALETTE_ANDROID, AF_PALETTE_JAVA};
	af_render_cache *cache = NULL;
	af_font *font = NULL;
	af_error e = {0};
	size_t k, p, drawn = 0;

	if (!t_have_traces())
		cr_skip_test("real traces not found in %s", t_traces_dir());
	cr_assert_eq(af_font_open(NULL, &font, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_render_cache_new(&cache, &e), AF_OK);
	for (p = 0; p < 2; p++)
		for (k = 0; k < sizeof real / sizeof real[0]; k++) {
			af_trace *t = open_real(real[k].file);
			size_t i;

			for (i = 0; i < af_trace_thread_count(t); i++) {
				af_tree_options to = {.one_thread = 1, .thread = i};
				af_layout_options lo = {.legend = 1}; /* kinds from the fills */
				af_render_options plain = {.font = font, .palette = palettes[p]}, kept;
				af_tree *tree = NULL;
				af_layout *l = NULL;
				char *a = NULL, *b = NULL;
				size_t la, lb;
				FILE *f;

				if (af_tree_from_trace(t, &to, &tree, &e) != AF_OK ||
				    af_layout_build(tree, &lo, &l, &e) != AF_OK) {
					af_tree_free(tree); /* a thread with no time */
					continue;
				}
				kept = plain;
				kept.cache = cache;
				f = open_memstream(&a, &la);
				cr_assert_eq(af_svg_write(l, &plain, f, &e), AF_OK, "%s", e.message);
				fclose(f);
				f = open_memstream(&b, &lb);
				cr_assert_eq(af_svg_write(l, &kept, f, &e), AF_OK, "%s", e.message);
				fclose(f);
				cr_assert(la == lb && memcmp(a, b, la) == 0,
				          "%s: thread %zu differs with the cache", real[k].file, i);
				free(a);
				free(b);
				af_layout_free(l);
				af_tree_free(tree);
				drawn++;
			}
			af_trace_free(t);
		}
	cr_assert_gt(drawn, 20);
	af_render_cache_free(cache);
	af_font_free(font);
}
