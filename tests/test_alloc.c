/*
 * test_alloc.c - the library through an allocator of the test's own:
 * allocation made to fail at the 1st, 2nd, 3rd, ... call over the whole
 * pipeline (sqlite's approach), the memory budget, and memory staying
 * bounded on large inputs.
 */
#define _DEFAULT_SOURCE
#include <criterion/criterion.h>
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
	int refused;    /* the failing call was reached */
	long live;      /* blocks held */
	size_t bytes;   /* bytes held */
	size_t peak;
} t_alloc;

/* Each block keeps its size in front, so frees can be counted. */
typedef union t_head {
	size_t size;
	max_align_t align;
} t_head;

static int t_refuse(t_alloc *a)
{
	a->calls++;
	if (a->fail_at && a->calls >= a->fail_at) {
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

static void *t_malloc(void *ctx, size_t size)
{
	t_alloc *a = ctx;
	t_head *h;

	if (t_refuse(a) || !(h = malloc(sizeof *h + size)))
		return NULL;
	h->size = size;
	a->live++;
	t_took(a, size);
	return h + 1;
}

static void *t_realloc(void *ctx, void *p, size_t size)
{
	t_alloc *a = ctx;
	t_head *h, *nh;

	if (!p)
		return t_malloc(ctx, size);
	if (t_refuse(a))
		return NULL;
	h = (t_head *)p - 1;
	a->bytes -= h->size;
	nh = realloc(h, sizeof *nh + size);
	if (!nh) {
		a->bytes += h->size;
		return NULL;
	}
	nh->size = size;
	t_took(a, size);
	return nh + 1;
}

static void t_free(void *ctx, void *p)
{
	t_alloc *a = ctx;
	t_head *h;

	if (!p)
		return;
	h = (t_head *)p - 1;
	a->live--;
	a->bytes -= h->size;
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

typedef struct t_case {
	const char *name;
	t_source source;
	const uint8_t *buf;  /* T_BYTES */
	size_t len;
	const char *base;    /* T_PAIR: base name of base.key + base.data */
	int flamechart;
} t_case;

static af_font *font;

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

/* Draws `tree` as SVG, PNG and (unless pruned) folded text. */
static int t_draw(const t_alloc *a, const af_tree *tree, af_clock clock,
                  FILE *sink, int folded)
{
	af_layout_options lo = {.clock = clock, .width = 400, .legend = 1,
	                        .subtitle = "sub"};
	af_render_options ro = {.font = font, .palette = AF_PALETTE_ANDROID,
	                        .notes = "a -- note"};
	af_layout *l = NULL;
	af_error e = {0};
	af_status st;
	int failed;

	st = af_layout_build(tree, &lo, &l, &e);
	if (t_failed(a, st, &e, "layout"))
		return 1;
	failed = t_failed(a, af_svg_write(l, &ro, sink, &e), &e, "svg") ||
	         t_failed(a, af_cairo_write(l, AF_FORMAT_PNG, &ro, sink, &e), &e, "png");
	af_layout_free(l);
	if (failed)
		return 1;
	if (folded && t_failed(a, af_folded_write(tree, clock, sink, &e), &e, "folded"))
		return 1;
	return 0;
}

/* One run of the whole pipeline; returns 1 when it went to the end. */
static int t_run(t_alloc *a, const t_case *c)
{
	af_allocator al = t_allocator(a);
	af_parse_options po = {.allocator = &al, .flamechart = c->flamechart};
	af_tree_options views[4] = {
		{0},                                   /* merged, for folded text */
		{.prune = 0.001, .signatures = 1},     /* as the command draws */
		{.reverse = 1},
		{.one_thread = 1, .thread = 0},        /* the per-thread view */
	};
	af_trace *t = NULL;
	af_error e = {0};
	af_status st;
	FILE *sink = fopen("/dev/null", "w");
	size_t v;
	int done = 0;
	af_clock clock;

	cr_assert_not_null(sink);
	st = c->source == T_PAIR ? af_trace_open(c->base, &po, &t, &e)
	                         : af_trace_parse(c->buf, c->len, &po, &t, &e);
	if (t_failed(a, st, &e, "parse")) {
		cr_assert_null(t);
		goto out;
	}
	clock = af_trace_get_info(t)->has_clock[AF_CLOCK_WALL] ? AF_CLOCK_WALL
	                                                       : AF_CLOCK_CPU;
	for (v = 0; v < sizeof views / sizeof views[0]; v++) {
		af_tree *tree = NULL;
		int failed;
		views[v].prune_clock = clock;
		if (c->flamechart && v == 1)
			continue; /* flame charts are not pruned */
		st = af_tree_from_trace(t, &views[v], &tree, &e);
		if (t_failed(a, st, &e, "tree")) {
			cr_assert_null(tree);
			goto out;
		}
		failed = t_draw(a, tree, clock, sink, views[v].prune == 0);
		af_tree_free(tree);
		if (failed)
			goto out;
	}
	done = 1;
out:
	af_trace_free(t);
	fclose(sink);
	return done;
}

/* Runs the pipeline with allocation N failing, N = 1, 2, ... until a run
 * needs fewer than N allocations; every run must fail cleanly and give
 * back every block. */
static void t_inject(const t_case *c)
{
	t_alloc clean = {0};
	long n;

	cr_assert_eq(t_run(&clean, c), 1, "%s: the pipeline fails without injection",
	             c->name);
	cr_assert_eq(clean.live, 0, "%s: %ld blocks leaked", c->name, clean.live);
	cr_assert_gt(clean.calls, 10);
	for (n = 1;; n++) {
		t_alloc a = {.fail_at = n};
		int done = t_run(&a, c);
		cr_assert_eq(a.live, 0, "%s: %ld blocks leaked when allocation %ld failed",
		             c->name, a.live, n);
		cr_assert_eq(a.bytes, 0);
		if (done) {
			/* only a run that never reached the failing call may finish */
			cr_assert_not(a.refused, "%s: allocation %ld failed unnoticed",
			              c->name, n);
			break;
		}
	}
	cr_assert_eq(n, clean.calls + 1, "%s: %ld runs for %ld allocations", c->name,
	             n, clean.calls);
	cr_log_info("%s: allocation made to fail at each of %ld calls\n", c->name,
	            clean.calls);
}

static void t_open_font(void)
{
	af_error e = {0};
	cr_assert_eq(af_font_open(NULL, &font, &e), AF_OK, "%s", e.message);
}

static void t_close_font(void)
{
	af_font_free(font);
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

static uint8_t *t_gzip(const uint8_t *in, size_t len, size_t *out_len)
{
	z_stream z;
	uint8_t *out = malloc(len + 1024);

	memset(&z, 0, sizeof z);
	cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY),
	             Z_OK);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)(len + 1024);
	cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	*out_len = z.total_out;
	deflateEnd(&z);
	return out;
}

static void t_inject_writer(const char *name, af_writer_options o, int flamechart)
{
	size_t len;
	uint8_t *buf = t_trace(&o, &len, NULL);
	t_case c = {.name = name, .buf = buf, .len = len, .flamechart = flamechart};

	t_inject(&c);
	free(buf);
}

TestSuite(alloc, .init = t_open_font, .fini = t_close_font, .timeout = 600);

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
	cr_assert_eq(n, 4); /* the context, the font, its table of advances */
	unlink(path);
	free(path);
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
	cr_assert(strstr(e.message, "MB exceeded building the call tree; "
	                            "--max-memory raises it"), "%s", e.message);
	cr_assert_eq(e.offset, -1);
	/* freeing the first tree gives its share back */
	af_tree_free(one);
	cr_assert_eq(af_tree_from_trace(t, NULL, &two, &e), AF_OK, "%s", e.message);
	af_tree_free(two);
	af_trace_free(t);
	free(text);
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
