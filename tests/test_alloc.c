/*
 * test_alloc.c - the library through an allocator of the test's own:
 * allocation made to fail at the 1st, 2nd, 3rd, ... call over the whole
 * pipeline (sqlite's approach), the memory budget, and memory staying
 * bounded on large inputs.
 */
#define _DEFAULT_SOURCE
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "support.h"

/* ------------------------------------------------------------------ */
/* A counting allocator that can be told to fail                       */

typedef struct t_alloc {
	long calls;     /* malloc and realloc calls so far */
	long fail_at;   /* the call that fails (1-based); 0: none */
	int once;       /* only that call fails; else every call from it on */
	int refused;    /* the failing call was reached */
	long live;      /* blocks held */
	size_t bytes;   /* bytes held */
	size_t peak;
} t_alloc;

/* The two-core reader allocates from two threads at once. */
static pthread_mutex_t t_lock = PTHREAD_MUTEX_INITIALIZER;

/* Each block keeps its size in front, so frees can be counted. */
typedef union t_head {
	size_t size;
	max_align_t align;
} t_head;

static int t_refuse(t_alloc *a)
{
	a->calls++;
	if (a->fail_at && (a->once ? a->calls == a->fail_at : a->calls >= a->fail_at)) {
		a->refused = 1;
		return 1;
	}
	return 0;
}

static void t_took(t_alloc *a, size_t size)
{
	a->bytes += size;
	if (a->bytes > a->peak)
		a->peak = a->bytes;
}

static void *t_malloc_locked(t_alloc *a, size_t size)
{
	t_head *h;

	if (t_refuse(a) || !(h = malloc(sizeof *h + size)))
		return NULL;
	h->size = size;
	a->live++;
	t_took(a, size);
	return h + 1;
}

static void *t_malloc(void *ctx, size_t size)
{
	void *p;

	pthread_mutex_lock(&t_lock);
	p = t_malloc_locked(ctx, size);
	pthread_mutex_unlock(&t_lock);
	return p;
}

static void *t_realloc(void *ctx, void *p, size_t size)
{
	t_alloc *a = ctx;
	t_head *h, *nh = NULL;

	pthread_mutex_lock(&t_lock);
	if (!p) {
		nh = t_malloc_locked(a, size);
		pthread_mutex_unlock(&t_lock);
		return nh;
	}
	if (!t_refuse(a)) {
		h = (t_head *)p - 1;
		a->bytes -= h->size;
		nh = realloc(h, sizeof *nh + size);
		if (!nh) {
			a->bytes += h->size;
		} else {
			nh->size = size;
			t_took(a, size);
			nh++;
		}
	}
	pthread_mutex_unlock(&t_lock);
	return nh;
}

static void t_free(void *ctx, void *p)
{
	t_alloc *a = ctx;
	t_head *h;

	if (!p)
		return;
	h = (t_head *)p - 1;
	pthread_mutex_lock(&t_lock);
	a->live--;
	a->bytes -= h->size;
	pthread_mutex_unlock(&t_lock);
	free(h);
}

static af_allocator t_allocator(t_alloc *a)
{
	af_allocator al = {t_malloc, t_realloc, t_free, a};
	return al;
}

/* ------------------------------------------------------------------ */
/* The pipeline, step by step                                          */

typedef enum t_source { T_BYTES, T_PAIR } t_source;

typedef struct t_case t_case;

/* One run of a scenario through allocator `a`, everything it writes going
 * to `sink`; returns 1 when it went to the end. */
typedef int (*t_scenario)(t_alloc *a, const t_case *c, FILE *sink);

struct t_case {
	const char *name;
	t_scenario run;      /* NULL: the pipeline (t_run) */
	t_source source;
	const uint8_t *buf;  /* T_BYTES */
	size_t len;
	const char *base;    /* T_PAIR: base name of base.key + base.data */
	int flamechart;
	int jobs;            /* af_parse_options.jobs */
	const uint8_t *buf2; /* a diff's BEFORE */
	size_t len2;
	const char *mapping; /* mapping text, parsed through the allocator */
	const char *mapping_path; /* or a mapping file, loaded through it */
};

/* Checks a step's failure: only the injected one may happen, and it says
 * so.  Returns 1 when the step failed. */
static int t_failed(const t_alloc *a, af_status st, const af_error *e,
                    const char *step)
{
	if (st == AF_OK)
		return 0;
	cr_assert(a->refused, "%s failed with no allocation refused: %s", step,
	          e->message);
	cr_assert_eq(st, AF_ERR_NOMEM, "%s: status %d (%s) after a refused allocation",
	             step, st, e->message);
	cr_assert(strstr(e->message, "out of memory") != NULL,
	          "%s: \"%s\" does not say what failed", step, e->message);
	return 1;
}

/* Draws `tree` as interactive and static SVG, PNG (when `png`: cairo's
 * side is the same for every tree) and (unless pruned) folded text. */
static int t_draw(const t_alloc *a, const af_tree *tree, af_clock clock,
                  FILE *sink, int folded, int png)
{
	af_layout_options lo = {.clock = clock, .width = 400, .legend = 1,
	                        .subtitle = "sub"};
	af_render_options ro = {.font = t_font, .palette = AF_PALETTE_ANDROID,
	                        .notes = "a -- note"};
	af_render_options still = ro, quick = ro;
	af_layout *l = NULL;
	af_error e = {0};
	af_status st;
	int failed;

	still.no_javascript = 1;
	quick.quick_png = 1; /* deflate.c, as a set's thumbnails */
	st = af_layout_build(tree, &lo, &l, &e);
	if (t_failed(a, st, &e, "layout"))
		return 1;
	failed = t_failed(a, af_svg_write(l, &ro, sink, &e), &e, "svg") ||
	         t_failed(a, af_svg_write(l, &still, sink, &e), &e, "static svg") ||
	         (png && (t_failed(a, af_cairo_write(l, AF_FORMAT_PNG, &ro, sink, &e), &e,
	                           "png") ||
	                  t_failed(a, af_cairo_write(l, AF_FORMAT_PNG, &quick, sink, &e), &e,
	                           "quick png")));
	af_layout_free(l);
	if (failed)
		return 1;
	if (folded && t_failed(a, af_folded_write(tree, clock, sink, &e), &e, "folded"))
		return 1;
	return 0;
}

/* Parses the case's input (its BEFORE with `before`) through `a`. */
static int t_parse_case(t_alloc *a, const t_case *c, int before, af_trace **t)
{
	af_allocator al = t_allocator(a);
	af_parse_options po = {.allocator = &al, .flamechart = c->flamechart,
	                       .jobs = c->jobs};
	af_error e = {0};
	af_status st;

	*t = NULL;
	if (before)
		st = af_trace_parse(c->buf2, c->len2, &po, t, &e);
	else if (c->source == T_PAIR)
		st = af_trace_open(c->base, &po, t, &e);
	else
		st = af_trace_parse(c->buf, c->len, &po, t, &e);
	if (t_failed(a, st, &e, "parse")) {
		cr_assert_null(*t);
		return 1;
	}
	return 0;
}

static af_clock t_clock_of(const af_trace *t)
{
	return af_trace_get_info(t)->has_clock[AF_CLOCK_WALL] ? AF_CLOCK_WALL
	                                                      : AF_CLOCK_CPU;
}

/* Builds and draws the tree of each of `views` (as PNG too when `png`,
 * else only the first); 1 when one failed. */
static int t_views(t_alloc *a, const af_trace *t, af_tree_options *views, size_t n,
                   af_clock clock, FILE *sink, int png)
{
	size_t v;

	for (v = 0; v < n; v++) {
		af_tree *tree = NULL;
		af_error e = {0};
		af_status st;
		int failed;

		st = af_tree_from_trace(t, &views[v], &tree, &e);
		if (t_failed(a, st, &e, "tree")) {
			cr_assert_null(tree);
			return 1;
		}
		failed = t_draw(a, tree, views[v].min_share > 0 ? views[v].clock : clock,
		                sink, views[v].prune == 0, png || v == 0);
		af_tree_free(tree);
		if (failed)
			return 1;
	}
	return 0;
}

/* The whole pipeline: parse, the command's views, drawing. */
static int t_run(t_alloc *a, const t_case *c, FILE *sink)
{
	af_tree_options views[4] = {
		{0},                                   /* merged, for folded text */
		{.prune = 0.001, .signatures = 1},     /* as the command draws */
		{.reverse = 1},
		{.one_thread = 1, .thread = 0},        /* the per-thread view */
	};
	af_trace *t = NULL;
	af_clock clock;
	int failed;

	if (t_parse_case(a, c, 0, &t))
		return 0;
	clock = t_clock_of(t);
	views[1].prune_clock = clock;
	if (c->flamechart) /* flame charts are not pruned */
		views[1] = views[0];
	failed = t_views(a, t, views, 4, clock, sink, 1);
	af_trace_free(t);
	return !failed;
}

/* Parse, the merged tree, folded text. */
static int t_run_folded(t_alloc *a, const t_case *c, FILE *sink)
{
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_error e = {0};
	af_status st;
	int failed = 1;

	if (t_parse_case(a, c, 0, &t))
		return 0;
	st = af_tree_from_trace(t, NULL, &tree, &e);
	if (!t_failed(a, st, &e, "tree"))
		failed = t_failed(a, af_folded_write(tree, AF_CLOCK_WALL, sink, &e), &e,
		                  "folded");
	af_tree_free(tree);
	af_trace_free(t);
	return !failed;
}

/* Each view rule alone, then all together. */
static int t_run_rules(t_alloc *a, const t_case *c, FILE *sink)
{
	af_tree_options views[] = {
		{.focus = "App\\.(run|fib)"},
		{.exclude = "View\\.draw|a\\.c\\."},
		{.collapse_recursion = 1},
		{.strip_package = 1, .signatures = 1},
		{.min_share = 0.05, .clock = AF_CLOCK_WALL},
		{.min_share = 0.05, .clock = AF_CLOCK_WAIT},
		{.focus = "fib", .exclude = "a\\.c\\.a", .collapse_recursion = 1,
		 .min_share = 0.01, .strip_package = 1, .reverse = 1},
	};
	af_trace *t = NULL;
	size_t n = sizeof views / sizeof views[0], v;
	int failed;

	/* a flame chart's calls are each a small share */
	for (v = 0; v < n; v++)
		if (c->flamechart && views[v].min_share > 0)
			views[v].min_share /= 10;
	if (t_parse_case(a, c, 0, &t))
		return 0;
	if (!af_trace_get_info(t)->has_clock[AF_CLOCK_WAIT])
		for (v = 0; v < n; v++)
			views[v].clock = t_clock_of(t);
	failed = t_views(a, t, views, n, t_clock_of(t), sink, 0);
	af_trace_free(t);
	return !failed;
}

/* Trees deobfuscated through a mapping read with the same allocator. */
static int t_run_mapping(t_alloc *a, const t_case *c, FILE *sink)
{
	af_allocator al = t_allocator(a);
	af_tree_options views[3] = {
		{.signatures = 1},
		{.strip_package = 1},
		{.signatures = 1, .reverse = 1, .exclude = "Util"},
	};
	af_mapping *m = NULL;
	af_trace *t = NULL;
	af_error e = {0};
	af_status st;
	size_t v;
	int failed;

	st = c->mapping_path ? af_mapping_load_with(c->mapping_path, &al, &m, &e)
	                     : af_mapping_parse_with(c->mapping, strlen(c->mapping), &al,
	                                             &m, &e);
	if (t_failed(a, st, &e, "mapping")) {
		cr_assert_null(m);
		return 0;
	}
	for (v = 0; v < 3; v++)
		views[v].mapping = m;
	failed = t_parse_case(a, c, 0, &t) ||
	         t_views(a, t, views, 3, t_clock_of(t), sink, 0);
	af_trace_free(t);
	af_mapping_free(m);
	return !failed;
}

static int t_has_band(const af_tree *d)
{
	size_t i;

	for (i = 0; i < af_tree_size(d); i++) {
		af_node_info ni;
		af_tree_node(d, i, &ni);
		if (ni.removed)
			return 1;
	}
	return 0;
}

/* Diffs of BEFORE (buf2) and AFTER (buf) on each clock, one normalized. */
static int t_run_diff(t_alloc *a, const t_case *c, FILE *sink)
{
	af_diff_options how[] = {
		{.clock = AF_CLOCK_WALL},
		{.clock = AF_CLOCK_WALL, .normalize = 1},
		{.clock = AF_CLOCK_CPU},
		{.clock = AF_CLOCK_WAIT},
	};
	af_tree_options topt = {.signatures = 1};
	af_trace *tb = NULL, *ta = NULL;
	af_tree *before = NULL, *after = NULL;
	af_error e = {0};
	af_status st;
	size_t i;
	int failed = 1;

	if (t_parse_case(a, c, 1, &tb) || t_parse_case(a, c, 0, &ta))
		goto out;
	st = af_tree_from_trace(tb, &topt, &before, &e);
	if (t_failed(a, st, &e, "tree"))
		goto out;
	st = af_tree_from_trace(ta, &topt, &after, &e);
	if (t_failed(a, st, &e, "tree"))
		goto out;
	for (i = 0; i < sizeof how / sizeof how[0]; i++) {
		af_tree *d = NULL;
		int bad;
		if (!af_trace_get_info(ta)->has_clock[how[i].clock])
			continue;
		st = af_tree_diff(before, after, &how[i], &d, &e);
		if (t_failed(a, st, &e, "diff")) {
			cr_assert_null(d);
			goto out;
		}
		cr_assert(t_has_band(d), "%s: no removed band", c->name);
		bad = t_draw(a, d, how[i].clock, sink, 1, i == 0);
		af_tree_free(d);
		if (bad)
			goto out;
	}
	failed = 0;
out:
	af_tree_free(before);
	af_tree_free(after);
	af_trace_free(tb);
	af_trace_free(ta);
	return !failed;
}

/* Method tables on every clock the trace has, written both ways. */
static int t_run_methods(t_alloc *a, const t_case *c, FILE *sink)
{
	af_tree_options opts[3] = {{0}, {.signatures = 1}, {.one_thread = 1, .thread = 1}};
	af_trace *t = NULL;
	int clock, failed = 1;
	size_t o;

	if (t_parse_case(a, c, 0, &t))
		return 0;
	for (clock = 0; clock < AF_CLOCK_COUNT; clock++) {
		if (!af_trace_get_info(t)->has_clock[clock])
			continue;
		for (o = 0; o < 3; o++) {
			af_method_table *tab = NULL;
			af_error e = {0};
			af_status st = af_method_table_build(t, &opts[o], (af_clock)clock, &tab, &e);
			if (t_failed(a, st, &e, "method table")) {
				cr_assert_null(tab);
				goto out;
			}
			cr_assert_gt(tab->nrows, 2);
			cr_assert_eq(af_method_table_write(tab, AF_TABLE_TSV, sink, &e), AF_OK);
			cr_assert_eq(af_method_table_write(tab, AF_TABLE_TEXT, sink, &e), AF_OK);
			af_method_table_free(tab);
		}
	}
	failed = 0;
out:
	af_trace_free(t);
	return !failed;
}

/* One run into a memory stream; the bytes written in *out (caller frees). */
static int t_run_into(t_alloc *a, const t_case *c, char **out, size_t *len)
{
	FILE *sink = open_memstream(out, len);
	int done;

	cr_assert_not_null(sink);
	done = (c->run ? c->run : t_run)(a, c, sink);
	cr_assert_eq(fclose(sink), 0);
	return done;
}

/* Runs the scenario with allocation N failing, N = 1, 2, ... until a run
 * needs fewer than N allocations: every run must fail cleanly and give
 * back every block.  Then each allocation alone fails: a run may recover
 * (the two-core reader falls back to one core) but must then write
 * exactly what a run without failures writes. */
static long t_inject(const t_case *c)
{
	t_alloc clean = {0};
	char *want = NULL, *got = NULL;
	size_t want_len = 0, got_len = 0;
	long n, recovered = 0;

	cr_assert_eq(t_run_into(&clean, c, &want, &want_len), 1,
	             "%s: the scenario fails without injection", c->name);
	cr_assert_eq(clean.live, 0, "%s: %ld blocks leaked", c->name, clean.live);
	cr_assert_gt(clean.calls, 10);
	for (n = 1;; n++) {
		t_alloc a = {.fail_at = n};
		int done = t_run_into(&a, c, &got, &got_len);
		cr_assert_eq(a.live, 0, "%s: %ld blocks leaked when allocation %ld failed",
		             c->name, a.live, n);
		cr_assert_eq(a.bytes, 0);
		if (done) {
			/* only a run that never reached the failing call may finish */
			cr_assert_not(a.refused, "%s: allocation %ld failed unnoticed",
			              c->name, n);
			cr_assert(got_len == want_len && memcmp(got, want, want_len) == 0,
			          "%s: a second run wrote something else", c->name);
			free(got);
			break;
		}
		free(got);
	}
	cr_assert_eq(n, clean.calls + 1, "%s: %ld runs for %ld allocations", c->name,
	             n, clean.calls);
	for (n = 1; n <= clean.calls; n++) {
		t_alloc a = {.fail_at = n, .once = 1};
		int done = t_run_into(&a, c, &got, &got_len);
		cr_assert_eq(a.live, 0, "%s: %ld blocks leaked when allocation %ld alone "
		             "failed", c->name, a.live, n);
		cr_assert(a.refused);
		if (done) {
			cr_assert(got_len == want_len && memcmp(got, want, want_len) == 0,
			          "%s: allocation %ld failed and the run went on to write "
			          "something else (%zu bytes, not %zu)", c->name, n, got_len,
			          want_len);
			recovered++;
		}
		free(got);
	}
	cr_log_info("%s: allocation made to fail at each of %ld calls (%ld recovered "
	            "from)\n", c->name, clean.calls, recovered);
	free(want);
	return recovered;
}

/* ------------------------------------------------------------------ */
/* Inputs                                                              */

/* Two threads, nested calls, an orphan exit, an unknown method id, a
 * signature; `o` picks the variant and clock. */
static uint8_t *t_trace(const af_writer_options *o, size_t *len, size_t *key_len)
{
	af_writer *w = af_writer_new(o);
	uint32_t k = 0;
	int i;

	cr_assert_not_null(w);
	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_thread(w, 7, "Render\xff\x01Thread"), 0);
	cr_assert_eq(af_writer_method(w, 4, "com.example.App", "run", "()V", "A.java"), 0);
	cr_assert_eq(af_writer_method(w, 8, "com.example.App", "draw", "(I[J)V", ""), 0);
	cr_assert_eq(af_writer_method(w, 12, "android.os.Looper", "loop", "()V", ""), 0);
	if (o->variant == AF_VARIANT_ART_V2 || o->variant == AF_VARIANT_ART_V6)
		/* V2 declares every method; version 6 each it names */
		cr_assert_eq(af_writer_method(w, 0x40, "a.B", "c", "()V", ""), 0);
	if (o->v2_revision != 'C') /* its exits name no method */
		cr_assert_eq(af_writer_record(w, 1, 12, AF_EXIT, k, k), 0); /* orphan */
	for (i = 0; i < 30; i++, k += 10) {
		cr_assert_eq(af_writer_record(w, 1, 4, AF_ENTER, k, k), 0);
		cr_assert_eq(af_writer_record(w, 1, 8 + 4 * (uint32_t)(i % 2), AF_ENTER,
		                              k + 1, k + 2), 0);
		cr_assert_eq(af_writer_record(w, 7, 8, AF_ENTER, k, k + 1), 0);
		cr_assert_eq(af_writer_record(w, 7, 0x40, AF_ENTER, k + 3, k + 4), 0);
		cr_assert_eq(af_writer_record(w, 7, 0x40, AF_EXIT, k + 4, k + 5), 0);
		cr_assert_eq(af_writer_record(w, 7, 8, AF_EXIT, k + 5, k + 7), 0);
		cr_assert_eq(af_writer_record(w, 1, 8, AF_EXIT, k + 6, k + 8), 0);
		cr_assert_eq(af_writer_record(w, 1, 4, AF_UNWIND, k + 7, k + 9), 0);
	}
	return t_finish(w, len, key_len);
}

static void t_inject_writer(const char *name, af_writer_options o, int flamechart)
{
	size_t len;
	uint8_t *buf = t_trace(&o, &len, NULL);
	t_case c = {.name = name, .buf = buf, .len = len, .flamechart = flamechart};

	t_inject(&c);
	free(buf);
}

TestSuite(alloc, .init = t_font_open, .fini = t_font_close, .timeout = 600);

Test(alloc, failing_allocations_regular)
{
	t_inject_writer("regular v3 dual", (af_writer_options){.clock = AF_WRITER_DUAL}, 0);
}

Test(alloc, failing_allocations_regular_v1)
{
	t_inject_writer("regular v1 dalvik",
	                (af_writer_options){.version = 1, .clock = AF_WRITER_THREAD_CPU,
	                                    .dalvik = 1}, 0);
}

Test(alloc, failing_allocations_streaming)
{
	t_inject_writer("streaming",
	                (af_writer_options){.variant = AF_VARIANT_STREAMING,
	                                    .clock = AF_WRITER_DUAL}, 0);
	t_inject_writer("streaming cut before its summary",
	                (af_writer_options){.variant = AF_VARIANT_STREAMING,
	                                    .clock = AF_WRITER_WALL, .no_summary = 1}, 0);
}

Test(alloc, failing_allocations_art_v2)
{
	t_inject_writer("ART V2 revision B",
	                (af_writer_options){.variant = AF_VARIANT_ART_V2,
	                                    .clock = AF_WRITER_DUAL}, 0);
	t_inject_writer("ART V2 revision C, cut before its summary",
	                (af_writer_options){.variant = AF_VARIANT_ART_V2,
	                                    .clock = AF_WRITER_WALL, .v2_revision = 'C',
	                                    .no_summary = 1}, 0);
}

Test(alloc, failing_allocations_art_v6_and_btrace)
{
	t_inject_writer("ART long-running methods",
	                (af_writer_options){.variant = AF_VARIANT_ART_V6, .v6_summary = 1}, 0);
	t_inject_writer("btrace 2.0 (no mapping)",
	                (af_writer_options){.variant = AF_VARIANT_BTRACE,
	                                    .btrace_no_padding = 1}, 0);
}

Test(alloc, failing_allocations_flamechart)
{
	t_inject_writer("flame chart", (af_writer_options){.clock = AF_WRITER_DUAL}, 1);
}

Test(alloc, failing_allocations_gzip)
{
	af_writer_options o = {.clock = AF_WRITER_DUAL};
	size_t len, zlen;
	uint8_t *buf = t_trace(&o, &len, NULL), *z = t_gzip(buf, len, &zlen);
	t_case c = {.name = "gzip", .buf = z, .len = zlen};

	t_inject(&c);
	free(z);
	free(buf);
}

Test(alloc, failing_allocations_pair)
{
	af_writer_options o = {.clock = AF_WRITER_DUAL};
	size_t len, key_len;
	uint8_t *buf = t_trace(&o, &len, &key_len);
	char *base = t_tmp("alloc-pair"), path[1024];
	t_case c = {.name = "key+data pair", .source = T_PAIR, .base = base};

	snprintf(path, sizeof path, "%s.key", base);
	t_write(path, buf, key_len);
	snprintf(path, sizeof path, "%s.data", base);
	t_write(path, buf + key_len, len - key_len);
	t_inject(&c);
	snprintf(path, sizeof path, "%s.data", base);
	c.base = path; /* the data half named: the key is found beside it */
	c.name = "key+data pair by its data file";
	t_inject(&c);
	unlink(path);
	snprintf(path, sizeof path, "%s.key", base);
	unlink(path);
	free(base);
	free(buf);
}

Test(alloc, failing_allocations_folded)
{
	static const char text[] =
		"main;a.b.C.run;a.b.C.draw 30\n"
		"main;a.b.C.run 12\n"
		"Render\xe2\x80\x94Thread;x;y;z 5\n"
		"not a line\n"
		"main;a.b.C.run;a.b.C.draw;\xff\x01odd 3.5\n";
	static const char diff[] = "a;b 10 20\na;c 5 1\nd 0 7\n";
	t_case c = {.name = "folded", .buf = (const uint8_t *)text,
	            .len = sizeof text - 1};

	t_inject(&c);
	c.flamechart = 1;
	c.name = "folded flame chart";
	t_inject(&c);
	c.flamechart = 0;
	c.buf = (const uint8_t *)diff;
	c.len = sizeof diff - 1;
	c.name = "differential folded";
	t_inject(&c);
}

/* A pprof profile (protobuf-c decodes through the trace's allocator),
 * plain and gzip'd, merged and as a flame chart. */
Test(alloc, failing_allocations_pprof)
{
	size_t len, glen;
	uint8_t *pb = t_read(AF_TEST_SOURCE "/tests/fuzz/corpus/pprof/small.pb", &len);
	uint8_t *gz = t_read(AF_TEST_SOURCE "/tests/fuzz/corpus/pprof/small.pb.gz", &glen);
	t_case c = {.name = "pprof", .buf = pb, .len = len};

	cr_assert_not_null(pb);
	cr_assert_not_null(gz);
	t_inject(&c);
	c.flamechart = 1;
	c.name = "pprof flame chart";
	t_inject(&c);
	c.flamechart = 0;
	c.buf = gz;
	c.len = glen;
	c.name = "pprof gzip";
	t_inject(&c);
	free(pb);
	free(gz);
}

Test(alloc, failing_allocations_systrace)
{
	size_t len;
	uint8_t *buf = t_read(AF_TEST_DATA "/systrace/app.systrace", &len), *z;
	uLongf zlen;
	t_case c = {.name = "systrace"};

	cr_assert_not_null(buf);
	c.buf = buf;
	c.len = len;
	t_inject(&c);
	c.flamechart = 1;
	c.name = "systrace flame chart";
	t_inject(&c);
	/* TRACE: and zlib, as atrace -z writes it: the inflater's blocks too */
	zlen = compressBound(len);
	z = malloc(7 + zlen);
	cr_assert_not_null(z);
	memcpy(z, "TRACE:\n", 7);
	cr_assert_eq(compress2(z + 7, &zlen, buf, len, 9), Z_OK);
	c.flamechart = 0;
	c.buf = z;
	c.len = 7 + zlen;
	c.name = "compressed systrace";
	t_inject(&c);
	free(z);
	free(buf);
}

/* ------------------------------------------------------------------ */
/* Views, mappings, diffs, method tables, the two-core reader          */

/* Method ids of t_rich. */
enum { M_RUN = 4, M_FIB = 8, M_LOOP = 12, M_PUTI = 16, M_PUTS = 20, M_CLEAR = 24,
       M_STORE = 28, M_LOG = 32, M_DRAW = 36 };

static void t_call(af_writer *w, uint32_t tid, uint32_t id, int action, uint32_t *cpu,
                   uint32_t *wall, uint32_t cpu_step, uint32_t wall_step)
{
	*cpu += cpu_step;
	*wall += wall_step;
	cr_assert_eq(af_writer_record(w, tid, id, action, *cpu, *wall), 0);
}

/* Four threads (two named alike), direct recursion, obfuscated classes
 * with overloads, off-CPU time; `before` gives a BEFORE profile that
 * differs from it (another mix, and a path AFTER lacks). */
static uint8_t *t_rich(af_writer_options o, int before, size_t *len)
{
	static const uint32_t tids[4] = {1, 7, 9, 12};
	af_writer *w = af_writer_new(&o);
	uint32_t cpu[4] = {0}, wall[4] = {0};
	int i, k, d;

	cr_assert_not_null(w);
	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_thread(w, 7, "RenderThread"), 0);
	cr_assert_eq(af_writer_thread(w, 9, "worker"), 0);
	cr_assert_eq(af_writer_thread(w, 12, "main"), 0);
	cr_assert_eq(af_writer_method(w, M_RUN, "com.example.App", "run", "()V", "A.java"), 0);
	cr_assert_eq(af_writer_method(w, M_FIB, "com.example.App", "fib", "(I)I", "A.java"), 0);
	cr_assert_eq(af_writer_method(w, M_LOOP, "android.os.Looper", "loop", "()V", ""), 0);
	cr_assert_eq(af_writer_method(w, M_PUTI, "a.b", "a", "(I)V", ""), 0);
	cr_assert_eq(af_writer_method(w, M_PUTS, "a.b", "a", "(Ljava/lang/String;)V", ""), 0);
	cr_assert_eq(af_writer_method(w, M_CLEAR, "a.b", "c", "()V", ""), 0);
	cr_assert_eq(af_writer_method(w, M_STORE, "a.b", "d", "(La/b;[J)V", ""), 0);
	cr_assert_eq(af_writer_method(w, M_LOG, "a.c", "a", "(La/b;)V", ""), 0);
	cr_assert_eq(af_writer_method(w, M_DRAW, "com.example.View", "draw",
	                              "(Landroid/graphics/Canvas;)V", ""), 0);
	for (i = 0; i < 12; i++) {
		for (k = 0; k < 4; k++) {
			uint32_t tid = tids[k], *c = &cpu[k], *wl = &wall[k];
			int depth = 2 + (i + k) % 3;
			t_call(w, tid, M_LOOP, AF_ENTER, c, wl, 1, 2);
			t_call(w, tid, M_RUN, AF_ENTER, c, wl, 2, 3);
			for (d = 0; d < depth; d++)
				t_call(w, tid, M_FIB, AF_ENTER, c, wl, 3 + d, 5 + 2 * d);
			t_call(w, tid, (i + k) % 2 ? M_PUTI : M_PUTS, AF_ENTER, c, wl, 2, 9);
			t_call(w, tid, M_STORE, AF_ENTER, c, wl, 1, 4);
			t_call(w, tid, M_STORE, AF_EXIT, c, wl, 4, 20);
			t_call(w, tid, (i + k) % 2 ? M_PUTI : M_PUTS, AF_EXIT, c, wl, 1, 1);
			for (d = 0; d < depth; d++)
				t_call(w, tid, M_FIB, AF_EXIT, c, wl, 2, 3);
			if (before ? k != 2 : k == 2) {
				t_call(w, tid, M_LOG, AF_ENTER, c, wl, 1, 1);
				t_call(w, tid, M_CLEAR, AF_ENTER, c, wl, 6, 30);
				t_call(w, tid, M_CLEAR, AF_EXIT, c, wl, 1, 2);
				t_call(w, tid, M_LOG, AF_EXIT, c, wl, 1, 1);
			}
			t_call(w, tid, M_RUN, AF_EXIT, c, wl, 1, 1);
			t_call(w, tid, M_DRAW, AF_ENTER, c, wl, 5 + before * 4, 7);
			t_call(w, tid, M_DRAW, AF_EXIT, c, wl, 9, 11 + 3 * k);
			t_call(w, tid, M_LOOP, AF_EXIT, c, wl, 1, 1);
		}
	}
	return t_finish(w, len, NULL);
}

/* Four threads each calling `n` methods of their own under one frame: the
 * two cores' trees outgrow what they reserved, and so does the merge. */
static uint8_t *t_wide(uint32_t n, size_t *len)
{
	af_writer *w = af_writer_new(&(af_writer_options){.clock = AF_WRITER_DUAL});
	uint32_t tid, i, clock = 0;
	char name[32];

	cr_assert_not_null(w);
	cr_assert_eq(af_writer_method(w, 4, "com.example.Work", "run", "()V", ""), 0);
	for (i = 0; i < 4 * n; i++) {
		snprintf(name, sizeof name, "step%u", i);
		cr_assert_eq(af_writer_method(w, 8 + 4 * i, "com.example.Work", name, "()V", ""),
		             0);
	}
	for (tid = 1; tid <= 4; tid++) {
		snprintf(name, sizeof name, "worker-%u", tid);
		cr_assert_eq(af_writer_thread(w, tid, name), 0);
	}
	for (tid = 1; tid <= 4; tid++)
		cr_assert_eq(af_writer_record(w, tid, 4, AF_ENTER, clock, clock), 0);
	for (i = 0; i < n; i++)
		for (tid = 1; tid <= 4; tid++) {
			uint32_t id = 8 + 4 * ((tid - 1) * n + i);
			clock += 3;
			cr_assert_eq(af_writer_record(w, tid, id, AF_ENTER, clock, clock + 1), 0);
			cr_assert_eq(af_writer_record(w, tid, id, AF_EXIT, clock + 2, clock + 5), 0);
		}
	for (tid = 1; tid <= 4; tid++)
		cr_assert_eq(af_writer_record(w, tid, 4, AF_EXIT, clock + 9, clock + 9), 0);
	return t_finish(w, len, NULL);
}

static const char t_mapping_txt[] =
	"# compiler: R8\n"
	"com.example.app.Cache -> a.b:\n"
	"    int size -> a\n"
	"    1:3:void put(int):12:14 -> a\n"
	"    4:6:void put(java.lang.String):20:22 -> a\n"
	"    void clear() -> c\n"
	"    7:9:void helper():30:32 -> d\n"
	"    7:9:void store(com.example.app.Cache,long[]):40:42 -> d\n"
	"com.example.app.Util -> a.c:\n"
	"    void log(com.example.app.Cache) -> a\n";

/* The two-core reader on a trace of four threads, each allocation of the
 * workers and of the merge failing in turn (a worker's failure falls back
 * to one core, which must give the same graphs). */
Test(alloc, failing_allocations_two_cores)
{
	size_t len;
	uint8_t *buf = t_rich((af_writer_options){.clock = AF_WRITER_DUAL}, 0, &len);
	t_case c = {.name = "two cores", .buf = buf, .len = len, .jobs = 2};
	long recovered = t_inject(&c);

	/* the workers' failures are the ones recovered from */
	cr_assert_gt(recovered, 0, "no failure fell back to one core");
	c.name = "two cores, method tables";
	c.run = t_run_methods;
	t_inject(&c);
	free(buf);
	buf = t_wide(50, &len);
	c = (t_case){.name = "two cores, trees outgrowing their room", .run = t_run_folded,
	             .buf = buf, .len = len, .jobs = 2};
	t_inject(&c);
	free(buf);
}

Test(alloc, failing_allocations_view_rules)
{
	size_t len;
	uint8_t *buf = t_rich((af_writer_options){.clock = AF_WRITER_DUAL}, 0, &len);
	t_case c = {.name = "view rules", .run = t_run_rules, .buf = buf, .len = len};
	static const char folded[] =
		"main;com.example.App.run;com.example.App.fib;com.example.App.fib 30\n"
		"main;com.example.App.run;a.b.a 12\n"
		"main;android.os.Looper.loop;com.example.View.draw 20\n"
		"worker;com.example.App.fib;com.example.App.fib;com.example.App.fib 7\n";

	t_inject(&c);
	c.name = "view rules, flame chart";
	c.flamechart = 1;
	t_inject(&c);
	free(buf);
	c.name = "view rules, folded";
	c.flamechart = 0;
	c.buf = (const uint8_t *)folded;
	c.len = sizeof folded - 1;
	t_inject(&c);
}

Test(alloc, failing_allocations_mapping)
{
	size_t len;
	uint8_t *buf = t_rich((af_writer_options){.clock = AF_WRITER_DUAL}, 0, &len);
	char *path = t_tmp("alloc-mapping.txt");
	t_case c = {.name = "mapping", .run = t_run_mapping, .buf = buf, .len = len,
	            .mapping = t_mapping_txt};
	static const char folded[] =
		"main;a.b.a;a.b.d 5\n"
		"main;a.c.a;a.b.c 3\n"
		"main;a/b.a 2\n";

	t_inject(&c);
	t_write(path, t_mapping_txt, sizeof t_mapping_txt - 1);
	c.name = "mapping loaded from a file";
	c.mapping_path = path;
	t_inject(&c);
	c.name = "mapping, folded";
	c.mapping_path = NULL;
	c.buf = (const uint8_t *)folded;
	c.len = sizeof folded - 1;
	t_inject(&c);
	unlink(path);
	free(path);
	free(buf);
}

Test(alloc, failing_allocations_diff)
{
	size_t len, len2;
	uint8_t *after = t_rich((af_writer_options){.clock = AF_WRITER_DUAL}, 0, &len);
	uint8_t *before = t_rich((af_writer_options){.clock = AF_WRITER_DUAL}, 1, &len2);
	t_case c = {.name = "diff of two traces", .run = t_run_diff, .buf = after,
	            .len = len, .buf2 = before, .len2 = len2};
	static const char fa[] = "main;a;b 10\nmain;a;c 5\nmain;d 7\n";
	static const char fb[] = "main;a;b 4\nmain;e;f 9\nmain;d 7\n";

	t_inject(&c);
	c.name = "diff of two traces read on two cores";
	c.jobs = 2;
	t_inject(&c);
	c.name = "diff of folded profiles";
	c.jobs = 0;
	c.buf = (const uint8_t *)fa;
	c.len = sizeof fa - 1;
	c.buf2 = (const uint8_t *)fb;
	c.len2 = sizeof fb - 1;
	t_inject(&c);
	free(after);
	free(before);
}

Test(alloc, failing_allocations_method_table)
{
	size_t len;
	uint8_t *buf = t_rich((af_writer_options){.clock = AF_WRITER_DUAL}, 0, &len);
	t_case c = {.name = "method table", .run = t_run_methods, .buf = buf, .len = len};
	static const char folded[] = "main;a;b;a 10\nmain;a;c 5\nworker;d;a 7\n";

	t_inject(&c);
	free(buf);
	c.name = "method table, folded";
	c.buf = (const uint8_t *)folded;
	c.len = sizeof folded - 1;
	t_inject(&c);
}

/* The name maps and the font take an allocator too. */
Test(alloc, failing_allocations_namemap_and_font)
{
	char *path = t_tmp("alloc-palette.map");
	static const char map[] = "a.b.C.run->rgb(1,2,3)\nx->rgb(4,5,6)\n";
	long n;

	t_write(path, map, sizeof map - 1);
	for (n = 1;; n++) {
		t_alloc a = {.fail_at = n};
		af_allocator al = t_allocator(&a);
		af_namemap *m = NULL;
		af_error e = {0};
		af_status st = af_namemap_load_with(path, AF_NAMEMAP_PALETTE, &al, &m, &e);
		if (st == AF_OK) {
			st = af_namemap_set(m, "new.name", "rgb(7,8,9)");
			if (st == AF_OK)
				st = af_namemap_save(m, path, &e);
		}
		af_namemap_free(m);
		cr_assert_eq(a.live, 0, "namemap: %ld blocks leaked at %ld", a.live, n);
		if (!a.refused) {
			cr_assert_eq(st, AF_OK, "%s", e.message);
			break;
		}
		cr_assert_eq(st, AF_ERR_NOMEM);
	}
	cr_assert_gt(n, 3);
	for (n = 1;; n++) {
		t_alloc a = {.fail_at = n};
		af_allocator al = t_allocator(&a);
		af_font *f = NULL;
		af_error e = {0};
		af_status st = af_font_open_with(NULL, &al, &f, &e);
		af_font_free(f);
		cr_assert_eq(a.live, 0);
		if (!a.refused) {
			cr_assert_eq(st, AF_OK, "%s", e.message);
			break;
		}
		cr_assert_eq(st, AF_ERR_NOMEM);
		cr_assert_null(f);
	}
	cr_assert_eq(n, 3); /* the context and the font: what it measures comes later */
	/* a clone takes its blocks from the context of the font it clones,
	 * and outlives that font */
	{
		t_alloc a = {0};
		af_allocator al = t_allocator(&a);
		af_font *f = NULL, *g = NULL;
		af_error e = {0};
		cr_assert_eq(af_font_open_with(NULL, &al, &f, &e), AF_OK, "%s", e.message);
		a.fail_at = a.calls + 1;
		cr_assert_eq(af_font_clone(f, &g, &e), AF_ERR_NOMEM);
		cr_assert_null(g);
		a.fail_at = 0;
		cr_assert_eq(af_font_clone(f, &g, &e), AF_OK, "%s", e.message);
		af_font_free(f);
		cr_assert_gt(af_font_text_width(g, "run()", 5, 12), 0);
		af_font_free(g);
		cr_assert_eq(a.live, 0);
	}
	unlink(path);
	free(path);
}

/* A name that needs shaping is measured once and kept by the font, with
 * the font's allocator: a refusal there fails the drawing (never a label
 * measured wrong), and the font still gives every block back. */
Test(alloc, failing_allocations_measuring_shaped_names)
{
	static const char folded[] =
		"t;\xe5\x90\x8e\xe5\x8f\xb0 sync \xf0\x9f\x94\x84;"
		"\xd9\x85\xd8\xb1\xd8\xad\xd8\xa8\xd8\xa7 3\n"
		"t;e\xcc\x81t\xc3\xa9 2\n";
	long n;

	for (n = 1;; n++) {
		t_alloc a = {.fail_at = n, .once = 1};
		af_allocator al = t_allocator(&a);
		af_font *f = NULL;
		af_error e = {0};
		af_trace *t = t_parse((const uint8_t *)folded, sizeof folded - 1);
		af_tree *tree = NULL;
		af_layout *l = NULL;
		af_render_options ro = {0};
		af_status st[2];
		FILE *sink = fopen("/dev/null", "w");
		long opened;

		/* the font opens (three blocks), then measures */
		a.fail_at = 0;
		cr_assert_eq(af_font_open_with(NULL, &al, &f, &e), AF_OK, "%s", e.message);
		opened = a.calls;
		a.fail_at = opened + n;
		ro.font = f;
		cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK);
		cr_assert_eq(af_layout_build(tree, NULL, &l, &e), AF_OK);
		st[0] = af_svg_write(l, &ro, sink, &e);
		st[1] = af_cairo_write(l, AF_FORMAT_PNG, &ro, sink, &e);
		fclose(sink);
		af_layout_free(l);
		af_tree_free(tree);
		af_trace_free(t);
		af_font_free(f);
		cr_assert_eq(a.live, 0, "%ld blocks of the font leaked (refusal %ld)", a.live, n);
		if (!a.refused) {
			cr_assert(st[0] == AF_OK && st[1] == AF_OK, "%s", e.message);
			break;
		}
		cr_assert(st[0] == AF_ERR_NOMEM || st[1] == AF_ERR_NOMEM,
		          "refusal %ld went unnoticed", n);
	}
	cr_assert_gt(n, 3);
}

/* ------------------------------------------------------------------ */
/* The memory budget                                                   */

/* Folded text with `n` distinct call paths, three frames each. */
static char *t_paths(size_t n, size_t *len)
{
	size_t cap = n * 48 + 1, i;
	char *text = malloc(cap);

	*len = 0;
	cr_assert_not_null(text);
	for (i = 0; i < n; i++)
		*len += (size_t)snprintf(text + *len, cap - *len,
		                         "main;com.example.F%zu;com.example.G%zu %zu\n",
		                         i / 1000, i % 1000, i % 7 + 1);
	return text;
}

Test(alloc, budget_stops_the_parse_with_its_offset)
{
	size_t len;
	char *text = t_paths(20000, &len);
	af_parse_options po = {.limits = {.max_memory = 1u << 20}};
	af_trace *t = NULL;
	af_error e = {0};

	cr_assert_eq(af_trace_parse(text, len, &po, &t, &e), AF_ERR_LIMIT);
	cr_assert_null(t);
	cr_assert(strncmp(e.message, "memory budget of 1 MB exceeded", 30) == 0, "%s",
	          e.message);
	cr_assert(strstr(e.message, "; --max-memory raises it"), "%s", e.message);
	cr_assert_gt(e.offset, 0);
	cr_assert_lt(e.offset, (long long)len);
	/* the byte is the start of the line being read */
	cr_assert_eq(text[e.offset - 1], '\n');
	/* with room enough, the same text parses */
	po.limits.max_memory = 64u << 20;
	cr_assert_eq(af_trace_parse(text, len, &po, &t, &e), AF_OK, "%s", e.message);
	af_trace_free(t);
	free(text);
}

/* Trees count against the budget of their trace, all of them together. */
Test(alloc, budget_covers_the_trees_of_a_trace)
{
	size_t len;
	char *text = t_paths(20000, &len);
	t_alloc a = {0};
	af_allocator al = t_allocator(&a);
	af_parse_options po = {.allocator = &al};
	af_trace *t = NULL;
	af_tree *one = NULL, *two = NULL;
	af_error e = {0};
	size_t after_parse, with_one;

	cr_assert_eq(af_trace_parse(text, len, &po, &t, &e), AF_OK);
	after_parse = a.bytes;
	cr_assert_eq(af_tree_from_trace(t, NULL, &one, &e), AF_OK);
	with_one = a.bytes;
	af_tree_free(one);
	af_trace_free(t);
	cr_assert_eq(a.live, 0);

	/* a budget that holds the trace and one tree, but not two */
	po.allocator = NULL;
	po.limits.max_memory = with_one + (with_one - after_parse) / 2;
	cr_assert_eq(af_trace_parse(text, len, &po, &t, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_tree_from_trace(t, NULL, &one, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_tree_from_trace(t, NULL, &two, &e), AF_ERR_LIMIT);
	cr_assert_null(two);
	cr_assert(strncmp(e.message, "memory budget of ", 17) == 0, "%s", e.message);
	cr_assert(strstr(e.message, " exceeded building the call tree; "
	                            "--max-memory raises it"), "%s", e.message);
	cr_assert_eq(e.offset, -1);
	/* freeing the first tree gives its share back */
	af_tree_free(one);
	cr_assert_eq(af_tree_from_trace(t, NULL, &two, &e), AF_OK, "%s", e.message);
	af_tree_free(two);
	af_trace_free(t);
	free(text);
}

/* The method table and a diff count against the budget of their trace
 * (a diff: AFTER's), and say so when it stops them. */
Test(alloc, budget_covers_method_tables_and_diffs)
{
	size_t len, len2;
	uint8_t *after = t_rich((af_writer_options){.clock = AF_WRITER_DUAL}, 0, &len);
	uint8_t *before = t_rich((af_writer_options){.clock = AF_WRITER_DUAL}, 1, &len2);
	af_parse_options po = {0};
	af_diff_options how = {.clock = AF_CLOCK_WAIT, .normalize = 1};
	af_trace *tb = NULL;
	af_tree *bt = NULL;
	af_error e = {0};
	uint64_t limit;
	int stopped[2] = {0, 0}, done[2] = {0, 0};

	cr_assert_eq(af_trace_parse(before, len2, NULL, &tb, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_tree_from_trace(tb, NULL, &bt, &e), AF_OK, "%s", e.message);
	for (limit = 4096; !(done[0] && done[1]); limit += 256) {
		af_trace *t = NULL;
		af_tree *at = NULL, *d = NULL;
		af_method_table *tab = NULL;
		af_status st;

		cr_assert_lt(limit, 8u << 20, "no budget was enough");
		po.limits.max_memory = limit;
		if (af_trace_parse(after, len, &po, &t, &e) != AF_OK) {
			cr_assert(strncmp(e.message, "memory budget of ", 17) == 0, "%s", e.message);
			continue;
		}
		if (!done[0]) {
			st = af_method_table_build(t, NULL, AF_CLOCK_WAIT, &tab, &e);
			af_method_table_free(tab);
			if (st == AF_OK) {
				done[0] = 1;
			} else {
				cr_assert_eq(st, AF_ERR_LIMIT, "%s", e.message);
				cr_assert(strstr(e.message, " exceeded building the method table; "
				                            "--max-memory raises it"), "%s", e.message);
				stopped[0]++;
			}
		}
		if (!done[1] && af_tree_from_trace(t, NULL, &at, &e) == AF_OK) {
			st = af_tree_diff(bt, at, &how, &d, &e);
			af_tree_free(d);
			if (st == AF_OK) {
				done[1] = 1;
			} else {
				cr_assert_eq(st, AF_ERR_LIMIT, "%s", e.message);
				cr_assert(strstr(e.message, " exceeded comparing the profiles; "
				                            "--max-memory raises it"), "%s", e.message);
				stopped[1]++;
			}
		}
		af_tree_free(at);
		af_trace_free(t);
	}
	cr_assert_gt(stopped[0], 0);
	cr_assert_gt(stopped[1], 0);
	af_tree_free(bt);
	af_trace_free(tb);
	free(after);
	free(before);
}

Test(alloc, max_memory_option)
{
	size_t len;
	char *text = t_paths(20000, &len);
	char *in = t_tmp("budget.folded"), *out = t_tmp("budget.svg"), *err = NULL;
	char args[2048], want[1024];

	t_write(in, text, len);
	snprintf(args, sizeof args, "--max-memory 1M -o '%s' '%s'", out, in);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 1);
	snprintf(want, sizeof want, "aflame-render: %s: memory budget of 1 MB exceeded", in);
	cr_assert(strncmp(err, want, strlen(want)) == 0, "%s", err);
	cr_assert(strstr(err, "; --max-memory raises it (byte "), "%s", err);
	cr_assert_eq(access(out, F_OK), -1, "an output was left behind");
	free(err);
	snprintf(args, sizeof args, "--max-memory 256M -o '%s' '%s'", out, in);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s", err);
	free(err);
	snprintf(args, sizeof args, "--max-memory 0.5G --per-thread -o '%s.d' '%s'", out, in);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s", err);
	free(err);
	cr_assert_eq(t_cli("--max-memory lots x.trace", NULL, NULL, &err), 2);
	cr_assert(strstr(err, "--max-memory takes a size such as 512M or 4G, not 'lots'"),
	          "%s", err);
	free(err);
	cr_assert_eq(t_cli("--max-memory 0 x.trace", NULL, NULL, &err), 2);
	free(err);
	unlink(out);
	unlink(in);
	free(in);
	free(out);
	free(text);
}

/* ------------------------------------------------------------------ */
/* Memory stays bounded on large inputs                                */

/* Parse, merged tree, layout and folded text of `path` or `buf`; returns
 * the most bytes held at once. */
static size_t t_peak(const char *path, const void *buf, size_t len)
{
	t_alloc a = {0};
	af_allocator al = t_allocator(&a);
	af_parse_options po = {.allocator = &al};
	af_layout_options lo = {0};
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_error e = {0};
	FILE *sink = fopen("/dev/null", "w");

	cr_assert_eq(path ? af_trace_open(path, &po, &t, &e)
	                  : af_trace_parse(buf, len, &po, &t, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_layout_build(tree, &lo, &l, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_folded_write(tree, AF_CLOCK_WALL, sink, &e), AF_OK, "%s", e.message);
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
	fclose(sink);
	cr_assert_eq(a.live, 0);
	return a.peak;
}

/* 200,000 distinct call paths: memory grows with the paths, by a few
 * hundred bytes each (nodes, hash slots and totals in the trace, again in
 * the call tree, and the folded writer's tables). */
Test(alloc, distinct_paths_take_bounded_memory)
{
	size_t len, n = 200000, peak;
	char *text = t_paths(n, &len);

	peak = t_peak(NULL, text, len);
	cr_log_info("%zu distinct paths: peak %.1f MB (%.0f bytes a path)\n", n,
	            peak / 1e6, (double)peak / n);
	cr_assert_lt(peak, n * 600, "%zu bytes for %zu paths", peak, n);
	free(text);
}

/* 50 MB of folded text with few distinct paths: the file is mapped, not
 * copied, and memory is that of the paths, not of the text. */
Test(alloc, large_folded_input_takes_memory_of_its_paths_only)
{
	char *path = t_tmp("large.folded");
	FILE *f = fopen(path, "w");
	size_t written = 0, i = 0, peak;

	cr_assert_not_null(f);
	while (written < (50u << 20)) {
		int n = fprintf(f, "main;com.example.App.run;com.example.Work.step%zu;"
		                   "com.example.Work.leaf %zu\n", i % 500, i % 13 + 1);
		cr_assert_gt(n, 0);
		written += (size_t)n;
		i++;
	}
	cr_assert_eq(fclose(f), 0);
	peak = t_peak(path, NULL, 0);
	cr_log_info("50 MB of folded text (%zu lines): peak %.2f MB\n", i, peak / 1e6);
	cr_assert_lt(peak, 2u << 20, "%zu bytes held for 50 MB of text", peak);
	unlink(path);
	free(path);
}

/* Name attributes and damaged palette lines: their cleaning, notes and
 * warning take from the map's allocator too. */
Test(alloc, failing_allocations_namemap_cleaning)
{
	static const char attrs[] =
		"a\tclass=x\tclass=y\ttitle=T\thref=https://e.example/\tonclick=z\n"
		"b\tg_extra=style=\"fill:red\" onload='x' data-k=\"&amp;\"\ta_extra=rel=\"n\"\t"
		"xlink:href=/r\tfoo:bar=1\n";
	static const char pal[] = "a->rgb(1,2,3)\ndamaged\nb->rgb(4,5,6)\n";
	int kind;

	for (kind = 0; kind < 2; kind++) {
		const char *text = kind ? pal : attrs;
		long n;
		for (n = 1;; n++) {
			t_alloc a = {.fail_at = n};
			af_allocator al = t_allocator(&a);
			af_namemap *m = NULL;
			af_error e = {0};
			af_status st = af_namemap_parse(text, strlen(text),
			                                kind ? AF_NAMEMAP_PALETTE : AF_NAMEMAP_ATTRS,
			                                &al, &m, &e);
			if (st == AF_OK)
				st = af_namemap_set(m, "c", kind ? "rgb(7,8,9)" : "onclick=x\tclass=k");
			if (st == AF_OK)
				cr_assert_not_null(af_namemap_warning(m));
			af_namemap_free(m);
			cr_assert_eq(a.live, 0, "namemap: %ld blocks leaked at %ld", a.live, n);
			if (!a.refused) {
				cr_assert_eq(st, AF_OK, "%s", e.message);
				break;
			}
			cr_assert_eq(st, AF_ERR_NOMEM, "kind %d at %ld: %d %s", kind, n, st, e.message);
		}
		cr_assert_gt(n, 5);
	}
}
