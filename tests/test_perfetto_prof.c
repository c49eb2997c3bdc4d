/*
 * test_perfetto_prof.c - src/perfetto_prof.c: the heap dumps (heapprofd)
 * and CPU samples (perf_sample) of Perfetto traces as stacks with values.
 *
 * Traces written here by a small encoder of this file's own check what no
 * real file covers: the four heap views, the choice of dump, processes and
 * heaps as threads, the interned tables of Android 10 (inline) and later,
 * state cleared on a sequence, unsymbolized frames and the offline symbols
 * (ModuleSymbols) that name them, thread names.
 *
 * The real files of ../shared/inputs/perfetto are read when present (the
 * tests say so and skip otherwise):
 *  - synthetic-heapprofd-perfetto-heap_profile.pftrace encodes Perfetto's
 *    test fixture test/trace_processor/diff_tests/parser/profiling/
 *    heap_profile.textproto: process 2 ("system_server") has callstack 1
 *    (f1 f2 f3: 2000 bytes in 2 allocations, 1000 in 1 freed) and
 *    callstack 2 (f1, then f2 of another mapping: 100 bytes in 10
 *    allocations, 10 in 1 freed).  The expected figures are those samples
 *    under the definitions of heapprofd's documentation (unreleased =
 *    allocated - freed): unreleased 1000 + 90 bytes, 1 + 9 allocations;
 *    total 2000 + 100 bytes, 2 + 10 allocations.  (Perfetto's suite at
 *    commit ec5d16b1 has no expected output naming this fixture.)  It ends
 *    with ModuleSymbols for f2 and f3 at their pcs (mapping /liblib.so,
 *    build id "build-id"): frames that have names keep them.
 *  - synthetic-heapprofd-perfetto-heap_profile_tracker_twoheaps.pftrace
 *    encodes heap_profile_tracker_twoheaps.textproto, whose expected
 *    output is in tests_heap_graph.py (test_heap_profile_tracker_twoheaps):
 *    heaps "libc.malloc" and "custom" of upid 0, each one allocation of 1
 *    byte (count 1, size 1) and its free (-1, -1): nothing unreleased, a
 *    total of 1 byte in 1 allocation per heap.
 *  - linux-perfsample-systing-trace.pb (systing): its CPU samples per
 *    thread are counted here by a separate walk (the packet reader and
 *    af_pb_field, no protobuf-c) and must be what the graph holds: 355
 *    samples, as `protoc --decode_raw` also counts (field 66 packets).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pb.h"
#include "pftrace.h"
#include "support.h"

/* ------------------------------------------------------------------ */
/* A protobuf encoder for the tests' traces                            */

typedef struct pb {
	uint8_t b[1 << 14];
	size_t n;
} pb;

static void put_varint(pb *o, uint64_t v)
{
	do {
		cr_assert_lt(o->n, sizeof o->b);
		o->b[o->n++] = (uint8_t)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void vi(pb *o, uint32_t field, uint64_t v)
{
	put_varint(o, (uint64_t)field << 3);
	put_varint(o, v);
}

static void ld(pb *o, uint32_t field, const void *p, size_t n)
{
	put_varint(o, (uint64_t)field << 3 | 2);
	put_varint(o, n);
	cr_assert_leq(o->n + n, sizeof o->b);
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void sub(pb *o, uint32_t field, const pb *m)
{
	ld(o, field, m->b, m->n);
}

static void str(pb *o, uint32_t field, const char *s)
{
	ld(o, field, s, strlen(s));
}

/* An InternedString {iid, str} as field `field` of `o`. */
static void istr(pb *o, uint32_t field, uint64_t iid, const char *s)
{
	pb m = {.n = 0};
	vi(&m, 1, iid);
	if (s) /* NULL: no bytes at all */
		str(&m, 2, s);
	sub(o, field, &m);
}

/* A Frame as field `field`: function name iid, mapping iid, rel_pc. */
static void frame(pb *o, uint32_t field, uint64_t iid, uint64_t fn, uint64_t map, uint64_t pc)
{
	pb m = {.n = 0};
	vi(&m, 1, iid);
	if (fn)
		vi(&m, 2, fn);
	if (map)
		vi(&m, 3, map);
	if (pc)
		vi(&m, 4, pc);
	sub(o, field, &m);
}

/* A Callstack of `n` frame iids, outermost first. */
static void stack(pb *o, uint32_t field, uint64_t iid, const uint64_t *frames, size_t n)
{
	pb m = {.n = 0};
	size_t i;
	vi(&m, 1, iid);
	for (i = 0; i < n; i++)
		vi(&m, 2, frames[i]);
	sub(o, field, &m);
}

/* A Mapping whose path is made of `n` strings. */
static void mapping(pb *o, uint32_t field, uint64_t iid, const uint64_t *paths, size_t n)
{
	pb m = {.n = 0};
	size_t i;
	vi(&m, 1, iid);
	for (i = 0; i < n; i++)
		vi(&m, 7, paths[i]);
	sub(o, field, &m);
}

/* A packet of sequence `seq` (0: none) holding `body`. */
static void packet(pb *o, uint32_t seq, const pb *body)
{
	pb p = {.n = 0};
	if (seq)
		vi(&p, 10, seq);
	memcpy(p.b + p.n, body->b, body->n);
	p.n += body->n;
	sub(o, 1, &p);
}

/* A HeapSample. */
static void hsample(pb *o, uint64_t cs, uint64_t alloc, uint64_t freed, uint64_t na,
                    uint64_t nf)
{
	pb m = {.n = 0};
	vi(&m, 1, cs);
	vi(&m, 2, alloc);
	vi(&m, 3, freed);
	vi(&m, 5, na);
	vi(&m, 6, nf);
	sub(o, 2, &m);
}

/* Interned tables on sequence 1, state cleared: main -> work -> malloc
 * (callstack 1), main -> an unsymbolized frame of libfoo.so (callstack
 * 2), main alone (callstack 3). */
static void put_interned(pb *o)
{
	pb body = {.n = 0}, d = {.n = 0};
	static const uint64_t cs1[] = {1, 2, 3}, cs2[] = {1, 4}, cs3[] = {1};
	static const uint64_t libc[] = {1, 2}, libfoo[] = {3};

	istr(&d, 5, 1, "main");
	istr(&d, 5, 2, "work");
	istr(&d, 5, 3, "malloc");
	istr(&d, 17, 1, "system");
	istr(&d, 17, 2, "libc.so");
	istr(&d, 17, 3, "libfoo.so");
	mapping(&d, 19, 1, libc, 2);
	mapping(&d, 19, 2, libfoo, 1);
	frame(&d, 6, 1, 1, 1, 0x10);
	frame(&d, 6, 2, 2, 1, 0x20);
	frame(&d, 6, 3, 3, 1, 0x30);
	frame(&d, 6, 4, 0, 2, 0x4a2c);
	stack(&d, 7, 1, cs1, 3);
	stack(&d, 7, 2, cs2, 2);
	stack(&d, 7, 3, cs3, 1);
	vi(&body, 13, 1);
	sub(&body, 12, &d);
	packet(o, 1, &body);
}

/* A process_tree naming processes 10 and 20. */
static void put_processes(pb *o)
{
	pb body = {.n = 0}, tree = {.n = 0}, p = {.n = 0};

	vi(&p, 1, 10);
	str(&p, 3, "/system/bin/surfaceflinger");
	sub(&tree, 1, &p);
	p.n = 0;
	vi(&p, 1, 20);
	str(&p, 3, "com.example.app");
	sub(&tree, 1, &p);
	sub(&body, 2, &tree);
	packet(o, 0, &body);
}

/* One heap dump of sequence 1 in two packets (the first continued):
 * process 10 with callstacks 1 and 2, process 20 with callstack 3 and a
 * Java heap (com.android.art) with callstack 1.  Values grow by `k` per
 * dump, as heapprofd's running totals do. */
static void put_dump(pb *o, uint64_t k)
{
	pb body = {.n = 0}, prof = {.n = 0}, d = {.n = 0};

	vi(&d, 1, 10);
	hsample(&d, 1, 1000 * k, 400 * k, 10 * k, 4 * k);
	hsample(&d, 2, 300 * k, 0, 3 * k, 0);
	sub(&prof, 5, &d);
	vi(&prof, 6, 1); /* continued */
	vi(&prof, 7, 2 * k - 2);
	sub(&body, 37, &prof);
	packet(o, 1, &body);

	body.n = prof.n = d.n = 0;
	vi(&d, 1, 20);
	hsample(&d, 3, 64 * k, 64 * k, k, k);
	sub(&prof, 5, &d);
	d.n = 0;
	vi(&d, 1, 20);
	str(&d, 11, "com.android.art");
	hsample(&d, 1, 50 * k, 20 * k, 5 * k, 2 * k);
	sub(&prof, 5, &d);
	vi(&prof, 7, 2 * k - 1);
	sub(&body, 37, &prof);
	packet(o, 1, &body);
}

/* A heap profile: the process tree, the tables, two dumps. */
static void heap_trace(pb *o)
{
	o->n = 0;
	put_processes(o);
	put_interned(o);
	put_dump(o, 1);
	put_dump(o, 2);
}

/* Folded text of `buf` with a view and a dump. */
static char *folded_with(const pb *in, const char *view, unsigned dump,
                         const af_tree_options *topt)
{
	af_parse_options po = {.heap_view = view, .heap_dump = dump};

	return t_folded_with(in->b, in->n, &po, AF_CLOCK_WALL, topt);
}

Test(perfetto_prof, the_last_dump_unreleased_size_by_default)
{
	pb in;
	char *f;

	heap_trace(&in);
	f = folded_with(&in, NULL, 0, NULL);
	/* dump 2: process 10: 2000 - 800 under main;work;malloc, 600 under
	 * main;libfoo.so+0x4a2c; process 20: nothing left of callstack 3;
	 * its Java heap: 100 - 40 */
	cr_expect_str_eq(f, "/system/bin/surfaceflinger;main;libfoo.so+0x4a2c 600\n"
	                    "/system/bin/surfaceflinger;main;work;malloc 1200\n"
	                    "com.example.app [com.android.art];main;work;malloc 60\n");
	free(f);
}

Test(perfetto_prof, the_four_views)
{
	pb in;
	char *f;

	heap_trace(&in);
	f = folded_with(&in, "unreleased-count", 0, NULL);
	cr_expect_str_eq(f, "/system/bin/surfaceflinger;main;libfoo.so+0x4a2c 6\n"
	                    "/system/bin/surfaceflinger;main;work;malloc 12\n"
	                    "com.example.app [com.android.art];main;work;malloc 6\n");
	free(f);
	f = folded_with(&in, "total-size", 0, NULL);
	cr_expect_str_eq(f, "/system/bin/surfaceflinger;main;libfoo.so+0x4a2c 600\n"
	                    "/system/bin/surfaceflinger;main;work;malloc 2000\n"
	                    "com.example.app [com.android.art];main;work;malloc 100\n"
	                    "com.example.app;main 128\n");
	free(f);
	f = folded_with(&in, "total-count", 0, NULL);
	cr_expect_str_eq(f, "/system/bin/surfaceflinger;main;libfoo.so+0x4a2c 6\n"
	                    "/system/bin/surfaceflinger;main;work;malloc 20\n"
	                    "com.example.app [com.android.art];main;work;malloc 10\n"
	                    "com.example.app;main 2\n");
	free(f);
}

Test(perfetto_prof, a_dump_by_number)
{
	pb in;
	char *f;

	heap_trace(&in);
	f = folded_with(&in, "total-size", 1, NULL);
	cr_expect_str_eq(f, "/system/bin/surfaceflinger;main;libfoo.so+0x4a2c 300\n"
	                    "/system/bin/surfaceflinger;main;work;malloc 1000\n"
	                    "com.example.app [com.android.art];main;work;malloc 50\n"
	                    "com.example.app;main 64\n");
	free(f);
}

/* A profile cut inside its last packet stops as truncated, with or
 * without an af_error to fill. */
Test(perfetto_prof, a_profile_cut_short_is_truncated)
{
	pb in;
	af_parse_options po = {.heap_view = "total-count"};
	af_trace *t = NULL;
	af_error e = {0};

	heap_trace(&in);
	cr_assert_eq(af_trace_parse(in.b, in.n - 2, &po, &t, &e), AF_ERR_TRUNCATED, "%s",
	             e.message);
	cr_assert_null(t);
	cr_assert_eq(af_trace_parse(in.b, in.n - 2, &po, &t, NULL), AF_ERR_TRUNCATED);
	cr_assert_null(t);
}

Test(perfetto_prof, a_process_selected_and_units)
{
	pb in;
	char *f;
	const char *procs[] = {"10"};
	af_tree_options topt = {.processes = procs, .nprocesses = 1};
	af_parse_options po = {.heap_view = "total-count"};
	af_trace *t = NULL;
	af_error e = {0};
	const af_trace_info *info;

	heap_trace(&in);
	f = folded_with(&in, NULL, 0, &topt);
	cr_expect_str_eq(f, "/system/bin/surfaceflinger;main;libfoo.so+0x4a2c 600\n"
	                    "/system/bin/surfaceflinger;main;work;malloc 1200\n");
	free(f);
	cr_assert_eq(af_trace_parse(in.b, in.n, &po, &t, &e), AF_OK, "%s", e.message);
	info = af_trace_get_info(t);
	cr_expect_eq(info->perfetto_profile, 1);
	cr_expect_str_eq(info->sample_type, "total-count");
	cr_expect_str_eq(info->sample_unit, "count");
	cr_expect_eq(info->processes, 2);
	af_trace_free(t);
}

/* Android 10's form: the tables inside the ProfilePacket, and a pid no
 * process tree names. */
Test(perfetto_prof, inline_tables)
{
	pb in = {.n = 0}, body = {.n = 0}, prof = {.n = 0}, d = {.n = 0};
	static const uint64_t cs[] = {1, 2}, path[] = {3};
	char *f;

	istr(&prof, 1, 1, "alloc_big");
	istr(&prof, 1, 2, "_Znwm");
	istr(&prof, 1, 3, "libart.so");
	mapping(&prof, 4, 1, path, 1);
	frame(&prof, 2, 1, 1, 1, 0x10);
	frame(&prof, 2, 2, 2, 1, 0x20);
	stack(&prof, 3, 7, cs, 2);
	vi(&d, 1, 4242);
	hsample(&d, 7, 4096, 1024, 4, 1);
	sub(&prof, 5, &d);
	sub(&body, 37, &prof);
	packet(&in, 3, &body);
	f = folded_with(&in, NULL, 0, NULL);
	cr_expect_str_eq(f, "pid 4242;alloc_big;operator new(unsigned long) 3072\n");
	free(f);
}

/* CPU samples: counted per thread and call path; threads named by their
 * descriptors, a main thread by its process. */
Test(perfetto_prof, cpu_samples_per_thread)
{
	pb in = {.n = 0}, body = {.n = 0}, td = {.n = 0}, th = {.n = 0};
	char *f;
	int i;

	put_interned(&in);
	vi(&th, 1, 20);
	vi(&th, 2, 21);
	str(&th, 5, "RenderThread");
	sub(&td, 4, &th);
	sub(&body, 60, &td);
	packet(&in, 2, &body);
	put_processes(&in);
	for (i = 0; i < 7; i++) {
		pb ps = {.n = 0};
		body.n = 0;
		vi(&body, 8, 1000 + (uint64_t)i);
		vi(&ps, 2, 20);
		vi(&ps, 3, i < 4 ? 21 : 20);
		vi(&ps, 4, i < 3 ? 1 : 2);
		vi(&ps, 5, 2);
		sub(&body, 66, &ps);
		packet(&in, 1, &body);
	}
	{ /* a lost-records notice: no callstack, not a sample */
		pb ps = {.n = 0};
		body.n = 0;
		vi(&ps, 17, 5);
		sub(&body, 66, &ps);
		packet(&in, 1, &body);
	}
	f = folded_with(&in, NULL, 0, NULL);
	cr_expect_str_eq(f, "RenderThread;main;libfoo.so+0x4a2c 1\n"
	                    "RenderThread;main;work;malloc 3\n"
	                    "com.example.app;main;libfoo.so+0x4a2c 3\n");
	free(f);
}

/* One heap dump of sequence 1 in a packet of 600 samples of process 10:
 * 400 of callstack 1 and 200 of callstack 2, each 1000 bytes allocated
 * and 400 freed.  Packets of 8 KiB, as heapprofd's are large. */
static void put_big_dump(pb *o, uint64_t index)
{
	pb body = {.n = 0}, prof = {.n = 0}, d = {.n = 0};
	int i;

	vi(&d, 1, 10);
	for (i = 0; i < 600; i++)
		hsample(&d, i % 3 == 2 ? 2 : 1, 1000, 400, 10, 4);
	sub(&prof, 5, &d);
	vi(&prof, 7, index);
	sub(&body, 37, &prof);
	packet(o, 1, &body);
}

/* Progress callback: counts the calls and checks they go forward. */
static void count_progress(void *ctx, uint64_t done, uint64_t total)
{
	uint64_t *c = ctx; /* [calls, last done, total] */
	cr_assert_geq(done, c[1]);
	cr_assert_leq(done, total);
	c[0]++;
	c[1] = done;
	c[2] = total;
}

/* Progress (and the pages behind the parse handed back, on the same tick)
 * is told in each 4 MiB of a Perfetto trace whose packets step over the
 * marks: 24 MiB of 8 KiB heap dumps tell it 6 times. */
Test(perfetto_prof, progress_is_told_every_4_mib_of_large_packets)
{
	size_t cap = 25u << 20;
	uint8_t *buf = malloc(cap);
	pb *in = malloc(sizeof *in);
	size_t len = 0;
	uint64_t k, c[3] = {0};
	af_parse_options po = {.progress = count_progress, .progress_ctx = c};
	af_trace *t = NULL;
	af_error e = {0};

	cr_assert_not_null(buf);
	cr_assert_not_null(in);
	in->n = 0;
	put_processes(in);
	put_interned(in);
	for (k = 0; len + in->n < (24u << 20); k++) {
		memcpy(buf + len, in->b, in->n);
		len += in->n;
		in->n = 0;
		put_big_dump(in, k);
	}
	cr_assert_eq(af_trace_parse(buf, len, &po, &t, &e), AF_OK, "%s", e.message);
	cr_expect_eq(c[0], 6, "%llu calls", (unsigned long long)c[0]);
	cr_expect_eq(c[2], len);
	af_trace_free(t);
	free(in);
	free(buf);
}

/* Issue 16: a trace of gigabytes needs memory for its call paths only.
 * 160 MiB of heap dumps of 8 KiB packets (each steps over the 4 MiB marks
 * the pages behind the parse were handed back at), from a file, from
 * standard input and gzip'd (inflated to a temporary file): the command's
 * peak resident memory stays far under the trace's size, and the graph is
 * that of its last dump, the same as a trace of that one dump alone
 * gives. */
Test(perfetto_prof, a_large_trace_is_read_in_memory_of_its_call_paths, .timeout = 900)
{
#if defined(__SANITIZE_ADDRESS__)
	/* a sanitizer's peak is its own (shadow, quarantine, malloc stacks:
	 * over 400 MB here under ctest's options), and a long test beside
	 * others trips Criterion's runner leak under LeakSanitizer */
	cr_skip_test("peak memory is measured in the release build");
#endif
	char *path = t_tmp("large-heap.pftrace"), *out = t_tmp("large-heap.folded");
	char cmd[4096], *want;
	static const char *const ways[] = {"file", "standard input", "gzip'd file"};
	char *gz = NULL;
	FILE *f = fopen(path, "wb");
	pb *in = malloc(sizeof *in);
	size_t len = 0;
	uint64_t k;
	int i;

	cr_assert_not_null(f);
	cr_assert_not_null(in);
	/* the graph of one dump */
	in->n = 0;
	put_processes(in);
	put_interned(in);
	put_big_dump(in, 0);
	want = folded_with(in, NULL, 0, NULL);
	in->n = 0;
	put_processes(in);
	put_interned(in);
	for (k = 0; len < (160u << 20); k++) {
		put_big_dump(in, k);
		cr_assert_eq(fwrite(in->b, 1, in->n, f), in->n);
		len += in->n;
		in->n = 0;
	}
	cr_assert_eq(fclose(f), 0);
	free(in);
	cr_assert_neq(asprintf(&gz, "%s.gz", path), -1);
	snprintf(cmd, sizeof cmd, "gzip -1 -c '%s' > '%s'", path, gz);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	for (i = 0; i < 3; i++) {
		long peak = t_cli_peak(out, want, ways[i], "%s'%s'", i == 1 ? "- < " : "",
		                       i == 2 ? gz : path);
		/* in KiB: the 16 MiB kept behind the parse, the read-ahead, the
		 * program, not 160; 33 MiB here */
		cr_expect_lt(peak, 96L << 10, "%s: a peak of %ld KiB for a trace of %zu bytes",
		             ways[i], peak, len);
	}
	remove(out);
	remove(path);
	remove(gz);
	free(gz);
	free(want);
	free(out);
	free(path);
}

Test(perfetto_prof, options_refused)
{
	pb in;
	af_parse_options po = {.heap_view = "peak"};
	af_trace *t = NULL;
	af_error e = {0};

	heap_trace(&in);
	cr_assert_eq(af_trace_parse(in.b, in.n, &po, &t, &e), AF_ERR_ARG);
	cr_expect_str_eq(e.message, "no heap view \"peak\" (unreleased-size, "
	                            "unreleased-count, total-size or total-count)");
	po.heap_view = NULL;
	po.heap_dump = 3;
	cr_assert_eq(af_trace_parse(in.b, in.n, &po, &t, &e), AF_ERR_ARG);
	cr_expect_str_eq(e.message, "no heap dump 3 in the trace (it has 2)");
	cr_assert_null(t);
}

Test(perfetto_prof, cli_options)
{
	pb in;
	char *path = t_tmp("heap.pftrace"), *out = t_tmp("heap.folded"), *text;
	size_t len;

	heap_trace(&in);
	t_write(path, in.b, in.n);
	t_cli_says(0, "", "--heap-view total-size --heap-dump 1 -o '%s' '%s'", out, path);
	text = (char *)t_read(out, &len);
	cr_assert_not_null(text);
	cr_expect(strstr(text, "/system/bin/surfaceflinger;main;work;malloc 1000\n"), "%s", text);
	free(text);
	t_cli_says(2, "--heap-dump takes a dump number from 1, not '0'",
	           "--heap-dump 0 -o '%s' '%s'", out, path);
	t_cli_says(1, "no heap view \"bytes\"", "--heap-view bytes -o '%s' '%s'", out, path);
	free(path);
	free(out);
}

/* ------------------------------------------------------------------ */
/* Real files                                                          */

static char *input_path(const char *name)
{
	char *p = malloc(4096);
	struct stat st;

	cr_assert_not_null(p);
	snprintf(p, 4096, "%s/../inputs/perfetto/%s", t_traces_dir(), name);
	if (stat(p, &st) != 0) {
		cr_log_info("skipped: %s not found (../shared/inputs/perfetto)", p);
		free(p);
		return NULL;
	}
	return p;
}

/* Folded text of a real file with a heap view. */
static char *folded_file(const char *path, const char *view)
{
	size_t len;
	uint8_t *buf = t_read(path, &len);
	pb *in = malloc(sizeof *in);
	char *f;

	cr_assert_not_null(buf);
	cr_assert_not_null(in);
	cr_assert_leq(len, sizeof in->b);
	memcpy(in->b, buf, len);
	in->n = len;
	f = folded_with(in, view, 0, NULL);
	free(in);
	free(buf);
	return f;
}

Test(perfetto_prof, perfetto_heap_profile_fixture)
{
	char *path = input_path("synthetic-heapprofd-perfetto-heap_profile.pftrace"), *f;

	if (!path)
		cr_skip_test("real Perfetto files not found");
	f = folded_file(path, NULL);
	cr_expect_str_eq(f, "system_server;f1;f2 90\n"
	                    "system_server;f1;f2;f3 1000\n");
	free(f);
	f = folded_file(path, "unreleased-count");
	cr_expect_str_eq(f, "system_server;f1;f2 9\n"
	                    "system_server;f1;f2;f3 1\n");
	free(f);
	f = folded_file(path, "total-size");
	cr_expect_str_eq(f, "system_server;f1;f2 100\n"
	                    "system_server;f1;f2;f3 2000\n");
	free(f);
	f = folded_file(path, "total-count");
	cr_expect_str_eq(f, "system_server;f1;f2 10\n"
	                    "system_server;f1;f2;f3 2\n");
	free(f);
	free(path);
}

Test(perfetto_prof, perfetto_twoheaps_fixture)
{
	char *path = input_path("synthetic-heapprofd-perfetto-heap_profile_tracker_twoheaps.pftrace");
	char *f;
	size_t len;
	uint8_t *buf;
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_error e = {0};

	if (!path)
		cr_skip_test("real Perfetto files not found");
	/* the one frame: a mapping without a path, rel_pc 0x123 */
	f = folded_file(path, "total-size");
	cr_expect_str_eq(f, "pid 0 [custom];0x123 1\n"
	                    "pid 0;0x123 1\n");
	free(f);
	f = folded_file(path, "total-count");
	cr_expect_str_eq(f, "pid 0 [custom];0x123 1\n"
	                    "pid 0;0x123 1\n");
	free(f);
	/* each allocation was freed: nothing to draw */
	buf = t_read(path, &len);
	cr_assert_eq(af_trace_parse(buf, len, NULL, &t, &e), AF_OK, "%s", e.message);
	cr_expect_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_ERR_EMPTY);
	af_trace_free(t);
	free(buf);
	free(path);
}

/* The CPU samples of each thread, counted by a walk of its own: packets
 * whose field 66 (perf_sample) holds a callstack_iid (field 4), by tid
 * (field 3). */
static size_t count_samples(const uint8_t *buf, size_t len, uint32_t *tids, uint64_t *n,
                            size_t max, uint64_t *total)
{
	af_mem *mem = af_mem_new(NULL, 1u << 28);
	af_pf_reader *r = af_pf_reader_new(mem, buf, len);
	const uint8_t *pkt;
	size_t plen, nt = 0, i;
	long long off;
	af_error e = {0};

	cr_assert_not_null(r);
	*total = 0;
	while (af_pf_reader_next(r, &pkt, &plen, &off, &e) == 1) {
		size_t p = 0;
		af_pb_field_t f;
		while (af_pb_field(pkt, plen, &p, &f) == 0) {
			size_t q = 0;
			af_pb_field_t g;
			uint64_t tid = 0;
			int has_stack = 0;
			if (f.number != 66 || f.wire != 2)
				continue;
			while (af_pb_field(pkt + f.data, (size_t)f.value, &q, &g) == 0) {
				if (g.number == 3)
					tid = g.value;
				if (g.number == 4)
					has_stack = 1;
			}
			if (!has_stack)
				continue;
			for (i = 0; i < nt && tids[i] != tid; i++)
				;
			if (i == nt) {
				cr_assert_lt(nt, max);
				tids[nt] = (uint32_t)tid;
				n[nt++] = 0;
			}
			n[i]++;
			(*total)++;
		}
	}
	af_pf_reader_free(r);
	af_mem_unref(mem);
	return nt;
}

Test(perfetto_prof, systing_cpu_samples)
{
	char *path = input_path("linux-perfsample-systing-trace.pb");
	uint32_t tids[256];
	uint64_t n[256], total, sum = 0;
	size_t len, nt, i, k;
	uint8_t *buf;
	af_trace *t = NULL;
	af_error e = {0};

	if (!path)
		cr_skip_test("real Perfetto files not found");
	buf = t_read(path, &len);
	cr_assert_not_null(buf);
	nt = count_samples(buf, len, tids, n, 256, &total);
	cr_expect_eq(total, 355);
	cr_assert_eq(af_trace_parse(buf, len, NULL, &t, &e), AF_OK, "%s", e.message);
	cr_expect_eq(af_trace_get_info(t)->perfetto_profile, 2);
	cr_expect_eq(af_trace_thread_count(t), nt);
	for (i = 0; i < nt; i++) {
		af_thread_info ti;
		const char *one[1];
		char num[16];
		af_tree_options topt = {.threads = one, .nthreads = 1};
		af_tree *tree = NULL;
		af_node_info ni;
		for (k = 0; k < af_trace_thread_count(t); k++) {
			af_trace_thread(t, k, &ti);
			if (ti.tid == tids[i])
				break;
		}
		cr_assert_lt(k, af_trace_thread_count(t), "thread %u missing", tids[i]);
		snprintf(num, sizeof num, "%u", tids[i]);
		one[0] = num;
		cr_assert_eq(af_tree_from_trace(t, &topt, &tree, &e), AF_OK, "%s", e.message);
		af_tree_node(tree, 0, &ni);
		cr_expect_eq(ni.total[AF_CLOCK_WALL], n[i], "thread %u: %llu samples, not %llu",
		             tids[i], (unsigned long long)ni.total[AF_CLOCK_WALL],
		             (unsigned long long)n[i]);
		sum += ni.total[AF_CLOCK_WALL];
		af_tree_free(tree);
	}
	cr_expect_eq(sum, 355);
	af_trace_free(t);
	free(buf);
	free(path);
}

/* ------------------------------------------------------------------ */
/* Native frames: C++ names demangled                                  */

/* A heap dump whose one frame is named `name` (Android 10's form). */
static void named_frame_trace(pb *in, const char *name)
{
	pb body = {.n = 0}, prof = {.n = 0}, d = {.n = 0};
	static const uint64_t cs[] = {1};

	in->n = 0;
	istr(&prof, 1, 1, name);
	frame(&prof, 2, 1, 1, 0, 0);
	stack(&prof, 3, 1, cs, 1);
	vi(&d, 1, 1);
	hsample(&d, 1, 8, 0, 1, 0);
	sub(&prof, 5, &d);
	sub(&body, 37, &prof);
	packet(in, 1, &body);
}

static char *folded_demangled(const pb *in, int no_demangle)
{
	af_parse_options po = {.no_demangle = no_demangle};

	return t_folded_with(in->b, in->n, &po, AF_CLOCK_WALL, NULL);
}

Test(perfetto_prof, cpp_names_demangled_unless_asked)
{
	pb *in = malloc(sizeof *in);
	char *f;

	cr_assert_not_null(in);
	named_frame_trace(in, "_ZN7android14AndroidRuntime15javaThreadShellEPv");
	f = folded_demangled(in, 0);
	cr_expect_str_eq(f, "pid 1;android::AndroidRuntime::javaThreadShell(void*) 8\n");
	free(f);
	f = folded_demangled(in, 1);
	cr_expect_str_eq(f, "pid 1;_ZN7android14AndroidRuntime15javaThreadShellEPv 8\n");
	free(f);
	/* not a mangled name: as written */
	named_frame_trace(in, "_Znotmangled");
	f = folded_demangled(in, 0);
	cr_expect_str_eq(f, "pid 1;_Znotmangled 8\n");
	free(f);
	free(in);
}

/* An interned string with no bytes (the field left out, as a writer may
 * for an empty string) is an empty name, read as one written empty: once
 * copied from a NULL pointer (UBSan). */
Test(perfetto_prof, an_interned_string_without_bytes_is_empty)
{
	pb *in = malloc(sizeof *in);
	char *absent, *empty;

	cr_assert_not_null(in);
	named_frame_trace(in, NULL);
	absent = folded_demangled(in, 0);
	named_frame_trace(in, "");
	empty = folded_demangled(in, 0);
	cr_expect_str_eq(absent, empty);
	cr_expect_str_eq(absent, "pid 1;unknown 8\n");
	free(absent);
	free(empty);
	free(in);
}

/* Hostile names: nesting past libiberty's recursion limit, and a name
 * longer than AF_DEMANGLE_MAX, are kept as written, without a crash. */
Test(perfetto_prof, hostile_mangled_names_kept)
{
	pb *in = malloc(sizeof *in);
	char name[6000], *f, *want;
	size_t n;

	cr_assert_not_null(in);
	memcpy(name, "_Z1f", 4);
	for (n = 4; n < 4 + 3000; n++)
		name[n] = 'P';
	name[n++] = 'i';
	name[n] = '\0';
	named_frame_trace(in, name);
	f = folded_demangled(in, 0);
	want = malloc(strlen(name) + 16);
	cr_assert_not_null(want);
	sprintf(want, "pid 1;%s 8\n", name);
	cr_expect_str_eq(f, want);
	free(f);
	free(want);
	/* 5,000 bytes: a valid name, too long to demangle */
	memcpy(name, "_Z5000", 6);
	for (n = 6; n < 5006; n++)
		name[n] = 'a';
	memcpy(name + n, "v", 2);
	named_frame_trace(in, name);
	f = folded_demangled(in, 0);
	cr_expect_eq(strncmp(f, "pid 1;_Z5000aaa", 15), 0, "%.40s", f);
	free(f);
	free(in);
}

/* --colors android: the fill of the frame whose tooltip begins `name`. */
static void fill_in(const char *svg, const char *name, unsigned *r, unsigned *g, unsigned *b)
{
	char title[256];
	const char *p;

	snprintf(title, sizeof title, "<title>%s (", name);
	p = strstr(svg, title);
	cr_assert_not_null(p, "no frame %s", name);
	p = strstr(p, "fill=\"#");
	cr_assert_not_null(p);
	cr_assert_eq(sscanf(p, "fill=\"#%2x%2x%2x\"", r, g, b), 3);
}

/* The android palette knows native frames (C++ names, frames named by
 * their library), ART's own (art::, as the platform) and the kernel's. */
Test(perfetto_prof, android_colors_for_native_frames)
{
	char *in = t_tmp("native.folded"), *out = t_tmp("native.svg"), *svg;
	static const char text[] =
		"main;art::Thread::Run;libc.so+0x4a2c;android::AndroidRuntime::start(char const*) 3\n"
		"main;std::vector<int>::push_back(int const&);schedule_[k] 2\n"
		"main;[kernel.kallsyms]+0x10 1\n";
	unsigned r, g, b;
	size_t len;

	t_write(in, text, sizeof text - 1);
	t_cli_says(0, "", "--colors android --no-javascript -o '%s' '%s'", out, in);
	svg = (char *)t_read(out, &len);
	cr_assert_not_null(svg);
	fill_in(svg, "art::Thread::Run", &r, &g, &b);
	cr_expect(r > g && g > b && r >= 225, "art:: is the platform's orange: %u,%u,%u", r, g, b);
	fill_in(svg, "android::AndroidRuntime::start(char const*)", &r, &g, &b);
	cr_expect(r > g && g > b && r >= 225, "android:: is orange: %u,%u,%u", r, g, b);
	fill_in(svg, "libc.so+0x4a2c", &r, &g, &b);
	cr_expect(b > r && r > g, "a library's frame is native purple: %u,%u,%u", r, g, b);
	fill_in(svg, "std::vector&lt;int&gt;::push_back(int const&amp;)", &r, &g, &b);
	cr_expect(b > r && r > g, "C++ is native purple: %u,%u,%u", r, g, b);
	fill_in(svg, "schedule", &r, &g, &b); /* "_[k]" left out of the tooltip */
	cr_expect(r == g && b == r + 10, "the kernel is grey-blue: %u,%u,%u", r, g, b);
	fill_in(svg, "[kernel.kallsyms]+0x10", &r, &g, &b);
	cr_expect(r == g && b == r + 10, "the kernel is grey-blue: %u,%u,%u", r, g, b);
	cr_expect(strstr(svg, ">native</text>") && strstr(svg, ">kernel</text>"), "legend");
	free(svg);
	free(in);
	free(out);
}

/* A frame of the kernel's mapping gets perf's "_[k]" mark. */
Test(perfetto_prof, kernel_frames_marked)
{
	pb in = {.n = 0}, body = {.n = 0}, d = {.n = 0}, ps = {.n = 0};
	static const uint64_t cs[] = {1, 2}, kpath[] = {2};
	char *f;

	istr(&d, 5, 1, "_ZN3art6Thread3RunEv");
	istr(&d, 5, 2, "schedule");
	istr(&d, 17, 2, "[kernel.kallsyms]");
	mapping(&d, 19, 1, kpath, 1);
	frame(&d, 6, 1, 1, 0, 0);
	frame(&d, 6, 2, 2, 1, 0x40);
	stack(&d, 7, 1, cs, 2);
	sub(&body, 12, &d);
	packet(&in, 1, &body);
	body.n = 0;
	vi(&ps, 2, 7);
	vi(&ps, 3, 7);
	vi(&ps, 4, 1);
	sub(&body, 66, &ps);
	packet(&in, 1, &body);
	f = folded_with(&in, NULL, 0, NULL);
	cr_expect_str_eq(f, "Thread-7;art::Thread::Run();schedule_[k] 1\n");
	free(f);
}

/* ------------------------------------------------------------------ */
/* Libraries of native frames                                          */

/* The static SVG (--no-javascript) of trace `in` with `args`, written
 * through the command; its path (caller frees). */
static char *svg_file(const pb *in, const char *name, const char *args)
{
	char tname[64], sname[64], *tp, *sp;

	snprintf(tname, sizeof tname, "%s.pftrace", name);
	snprintf(sname, sizeof sname, "%s.svg", name);
	tp = t_tmp(tname);
	sp = t_tmp(sname);
	t_write(tp, in->b, in->n);
	t_cli_says(0, "", "%s -o '%s' '%s'", args, sp, tp);
	free(tp);
	return sp;
}

/* Fails unless the SVG at `path` has a frame whose tooltip is `want`. */
static void expect_title(const char *path, const char *prefix, const char *want)
{
	char *title = t_svg_title(path, prefix);

	cr_expect_not_null(title, "no tooltip begins \"%s\"", prefix);
	if (title)
		cr_expect_str_eq(title, want);
	free(title);
}

/* A heap profile written here: the tooltip of each frame with a mapping
 * names its library, the base name of the mapping's path (main, work and
 * malloc are in /system/libc.so, the unsymbolized frame in libfoo.so);
 * folded text stays names alone. */
Test(perfetto_prof, tooltips_name_the_library)
{
	pb in;
	char *svg, *f, *text;
	size_t len;

	heap_trace(&in);
	svg = svg_file(&in, "lib-heap", "--no-javascript");
	expect_title(svg, "malloc", "malloc in libc.so (1.17 KiB, 64.52%)");
	expect_title(svg, "libfoo.so+0x4a2c", "libfoo.so+0x4a2c in libfoo.so (600 B, 32.26%)");
	expect_title(svg, "all", "all (1.82 KiB, 100.00%)"); /* 1200 + 600 + 60 B */
	free(svg);
	/* the script's tooltips: each name's library beside the names */
	svg = svg_file(&in, "lib-heap-js", "");
	text = (char *)t_read(svg, &len);
	cr_assert_not_null(text);
	cr_expect_not_null(strstr(text, "libs:["), "no table of libraries");
	cr_expect_not_null(strstr(text, "\"libfoo.so\""));
	free(text);
	free(svg);
	f = folded_with(&in, NULL, 0, NULL);
	cr_expect_null(strstr(f, " in "), "%s", f);
	free(f);
}

/* One function name in two libraries is one frame, whose tooltip names
 * both in the order they were found; a mapping without a path names none.
 * CPU samples (perf_sample) written here. */
Test(perfetto_prof, a_name_in_two_libraries_names_both)
{
	pb in = {.n = 0}, body = {.n = 0}, d = {.n = 0}, ps = {.n = 0};
	static const uint64_t cs1[] = {1, 2}, cs2[] = {1, 3}, cs3[] = {4};
	static const uint64_t art[] = {1, 2}, c[] = {1, 3};
	char *svg;
	int i;

	istr(&d, 5, 1, "main");
	istr(&d, 5, 2, "memcpy");
	istr(&d, 17, 1, "apex");
	istr(&d, 17, 2, "libart.so");
	istr(&d, 17, 3, "libc.so");
	mapping(&d, 19, 1, art, 2);
	mapping(&d, 19, 2, c, 2);
	mapping(&d, 19, 3, NULL, 0);
	frame(&d, 6, 1, 1, 0, 0);
	frame(&d, 6, 2, 2, 1, 0x10);
	frame(&d, 6, 3, 2, 2, 0x20);
	frame(&d, 6, 4, 2, 3, 0x30); /* memcpy again, of a mapping without a path */
	stack(&d, 7, 1, cs1, 2);
	stack(&d, 7, 2, cs2, 2);
	stack(&d, 7, 3, cs3, 1);
	sub(&body, 12, &d);
	packet(&in, 1, &body);
	for (i = 1; i <= 3; i++) {
		body.n = ps.n = 0;
		vi(&ps, 2, 7);
		vi(&ps, 3, 7);
		vi(&ps, 4, (uint64_t)i);
		sub(&body, 66, &ps);
		packet(&in, 1, &body);
	}
	svg = svg_file(&in, "lib-two", "--no-javascript");
	expect_title(svg, "memcpy in libart.so", "memcpy in libart.so, libc.so (2 samples, 66.67%)");
	expect_title(svg, "main (", "main (2 samples, 66.67%)");
	free(svg);
}

/* The real heapprofd fixture (see the top of this file): f1, f2 and f3 are
 * in mapping "/liblib.so" (path strings "liblib.so"); the twoheaps
 * fixture's frame has a mapping without a path, so no library. */
Test(perfetto_prof, real_heapprofd_tooltips_name_the_library)
{
	char *path = input_path("synthetic-heapprofd-perfetto-heap_profile.pftrace");
	char *two = input_path("synthetic-heapprofd-perfetto-heap_profile_tracker_twoheaps.pftrace");
	char *svg = t_tmp("lib-real-heap.svg");

	if (!path || !two) {
		free(path);
		free(two);
		free(svg);
		cr_skip_test("real Perfetto files not found");
	}
	t_cli_says(0, "", "--no-javascript -o '%s' '%s'", svg, path);
	expect_title(svg, "f3", "f3 in liblib.so (1000 B, 91.74%)");
	expect_title(svg, "f1", "f1 in liblib.so (1.06 KiB, 100.00%)");
	t_cli_says(0, "", "--no-javascript --heap-view total-size -o '%s' '%s'", svg, two);
	expect_title(svg, "0x123", "0x123 (1 B, 50.00%)");
	free(svg);
	free(path);
	free(two);
}

/* ------------------------------------------------------------------ */
/* heapprofd's dump_at_max                                             */

/* A HeapSample of a dump_at_max dump: heapprofd (bookkeeping_dump.cc)
 * writes self_max (field 8) and self_max_count (9) and none of
 * self_allocated, self_freed, alloc_count, free_count. */
static void hsample_max(pb *o, uint64_t cs, uint64_t max, uint64_t max_count)
{
	pb m = {.n = 0};
	vi(&m, 1, cs);
	vi(&m, 8, max);
	vi(&m, 9, max_count);
	sub(o, 2, &m);
}

/* No real dump_at_max trace is public: this one is written here, with
 * the tables of put_interned.  Process 10 had, at its heap's peak, 4096
 * bytes in 3 allocations unreleased at main;work;malloc and 512 bytes in
 * 1 at the libfoo.so frame.  The unreleased views draw those; the dump
 * has no totals, so the total views draw them too, as Perfetto's trace
 * processor reads such a sample (self_max as allocated, nothing freed). */
Test(perfetto_prof, dump_at_max_draws_the_peak)
{
	pb in = {.n = 0}, body = {.n = 0}, prof = {.n = 0}, d = {.n = 0};
	char *f;

	put_processes(&in);
	put_interned(&in);
	vi(&d, 1, 10);
	hsample_max(&d, 1, 4096, 3);
	hsample_max(&d, 2, 512, 1);
	hsample_max(&d, 3, 0, 0); /* nothing left at the peak: not drawn */
	sub(&prof, 5, &d);
	sub(&body, 37, &prof);
	packet(&in, 1, &body);
	f = folded_with(&in, NULL, 0, NULL);
	cr_expect_str_eq(f, "/system/bin/surfaceflinger;main;libfoo.so+0x4a2c 512\n"
	                    "/system/bin/surfaceflinger;main;work;malloc 4096\n");
	free(f);
	f = folded_with(&in, "unreleased-count", 0, NULL);
	cr_expect_str_eq(f, "/system/bin/surfaceflinger;main;libfoo.so+0x4a2c 1\n"
	                    "/system/bin/surfaceflinger;main;work;malloc 3\n");
	free(f);
	f = folded_with(&in, "total-size", 0, NULL);
	cr_expect_str_eq(f, "/system/bin/surfaceflinger;main;libfoo.so+0x4a2c 512\n"
	                    "/system/bin/surfaceflinger;main;work;malloc 4096\n");
	free(f);
	f = folded_with(&in, "total-count", 0, NULL);
	cr_expect_str_eq(f, "/system/bin/surfaceflinger;main;libfoo.so+0x4a2c 1\n"
	                    "/system/bin/surfaceflinger;main;work;malloc 3\n");
	free(f);
}

/* A mapping without a path is named by its build id (InternedData
 * build_ids, field 16; Mapping.build_id, field 2) in hex, as Perfetto's UI
 * shows it.  CPU samples written here. */
Test(perfetto_prof, a_mapping_without_a_path_names_its_build_id)
{
	pb in = {.n = 0}, body = {.n = 0}, d = {.n = 0}, ps = {.n = 0}, m = {.n = 0};
	static const uint64_t cs1[] = {1, 2}, cs2[] = {1, 3};
	static const uint8_t binary[] = {0x9f, 0x3c, 0x01, 0xab};
	char *svg;
	int i;

	istr(&d, 5, 1, "main");
	istr(&d, 5, 2, "alloc");
	istr(&d, 5, 3, "grow");
	vi(&m, 1, 1); /* InternedString {iid 1, str 9f3c01ab} */
	ld(&m, 2, binary, sizeof binary);
	sub(&d, 16, &m);
	istr(&d, 16, 2, "abc-1");
	m.n = 0;
	vi(&m, 1, 1);
	vi(&m, 2, 1);
	sub(&d, 19, &m);
	m.n = 0;
	vi(&m, 1, 2);
	vi(&m, 2, 2);
	sub(&d, 19, &m);
	frame(&d, 6, 1, 1, 0, 0);
	frame(&d, 6, 2, 2, 1, 0x10);
	frame(&d, 6, 3, 3, 2, 0x20);
	stack(&d, 7, 1, cs1, 2);
	stack(&d, 7, 2, cs2, 2);
	sub(&body, 12, &d);
	packet(&in, 1, &body);
	for (i = 1; i <= 2; i++) {
		body.n = ps.n = 0;
		vi(&ps, 2, 7);
		vi(&ps, 3, 7);
		vi(&ps, 4, (uint64_t)i);
		sub(&body, 66, &ps);
		packet(&in, 1, &body);
	}
	svg = svg_file(&in, "lib-build-id", "--no-javascript");
	expect_title(svg, "alloc", "alloc in build id 9f3c01ab (1 samples, 50.00%)");
	expect_title(svg, "grow", "grow in build id 6162632d31 (1 samples, 50.00%)");
	free(svg);
}

/* ------------------------------------------------------------------ */
/* Frames without a function name, and offline symbols                 */

/* A Mapping whose path is made of `n` strings and whose build id is
 * interned string `build` (0: none). */
static void mapping_b(pb *o, uint64_t iid, uint64_t build, const uint64_t *paths, size_t n)
{
	pb m = {.n = 0};
	size_t i;
	vi(&m, 1, iid);
	if (build)
		vi(&m, 2, build);
	for (i = 0; i < n; i++)
		vi(&m, 7, paths[i]);
	sub(o, 19, &m);
}

/* An InternedString of raw bytes (a build id) as field 16 of `o`. */
static void ibuild(pb *o, uint64_t iid, const uint8_t *b, size_t n)
{
	pb m = {.n = 0};
	vi(&m, 1, iid);
	ld(&m, 2, b, n);
	sub(o, 16, &m);
}

/* One CPU sample of thread 7 (process 7) with callstack `cs`. */
static void cpu_sample(pb *o, uint64_t cs)
{
	pb body = {.n = 0}, ps = {.n = 0};
	vi(&ps, 2, 7);
	vi(&ps, 3, 7);
	vi(&ps, 4, cs);
	sub(&body, 66, &ps);
	packet(o, 1, &body);
}

/* AddressSymbols {address, lines}: `n` function names, innermost first as
 * Perfetto's symbolizer writes them (field 3 of ModuleSymbols). */
static void addr_syms(pb *o, uint64_t addr, const char *const *fns, size_t n)
{
	pb a = {.n = 0}, l = {.n = 0};
	size_t i;
	vi(&a, 1, addr);
	for (i = 0; i < n; i++) {
		l.n = 0;
		str(&l, 1, fns[i]);
		str(&l, 2, "src/file.cc"); /* source file and line: not read */
		vi(&l, 3, 10 + i);
		sub(&a, 2, &l);
	}
	sub(o, 3, &a);
}

/* A packet of ModuleSymbols (TracePacket field 61: path 1, build_id 2,
 * address_symbols 3) of the binary of `path` (NULL: none) and build id
 * `build` (`blen` raw bytes, 0: none) with the AddressSymbols in `addrs`. */
static void module_syms(pb *o, const char *path, const uint8_t *build, size_t blen,
                        const pb *addrs)
{
	pb body = {.n = 0}, ms = {.n = 0};
	if (path)
		str(&ms, 1, path);
	if (blen)
		ld(&ms, 2, build, blen);
	memcpy(ms.b + ms.n, addrs->b, addrs->n);
	ms.n += addrs->n;
	sub(&body, 61, &ms);
	packet(o, 0, &body);
}

/* Frames the profile leaves unnamed are named by their library and their
 * pc relative to the mapping, whatever the library's length; a mapping
 * known by its build id alone by that (as tooltips name it), one with
 * neither by the pc alone; no mapping: "unknown". */
Test(perfetto_prof, unnamed_frames_named_by_library_and_pc)
{
	pb in = {.n = 0}, body = {.n = 0}, d = {.n = 0};
	static const uint64_t cs1[] = {1, 2}, cs2[] = {1, 3}, cs3[] = {1, 4}, cs4[] = {1, 5};
	static const uint64_t longp[] = {1};
	static const uint8_t id[] = {0x9f, 0x3c, 0x01, 0xab};
	char *f;

	istr(&d, 5, 1, "main");
	istr(&d, 17, 1, "libcom.example.a.library.with.a.very.long.name_arm64.so");
	ibuild(&d, 1, id, sizeof id);
	mapping_b(&d, 1, 0, longp, 1);
	mapping_b(&d, 2, 1, NULL, 0);
	mapping_b(&d, 3, 0, NULL, 0);
	frame(&d, 6, 1, 1, 0, 0);
	frame(&d, 6, 2, 0, 1, 0x1a2b);
	frame(&d, 6, 3, 0, 2, 0x10);
	frame(&d, 6, 4, 0, 3, 0x20);
	frame(&d, 6, 5, 0, 0, 0x30);
	stack(&d, 7, 1, cs1, 2);
	stack(&d, 7, 2, cs2, 2);
	stack(&d, 7, 3, cs3, 2);
	stack(&d, 7, 4, cs4, 2);
	sub(&body, 12, &d);
	packet(&in, 1, &body);
	cpu_sample(&in, 1);
	cpu_sample(&in, 2);
	cpu_sample(&in, 3);
	cpu_sample(&in, 4);
	f = folded_with(&in, NULL, 0, NULL);
	cr_expect_str_eq(f, "Thread-7;main;0x20 1\n"
	                    "Thread-7;main;build id 9f3c01ab+0x10 1\n"
	                    "Thread-7;main;libcom.example.a.library.with.a.very.long.name_arm64.so"
	                    "+0x1a2b 1\n"
	                    "Thread-7;main;unknown 1\n");
	free(f);
}

/* A symbolized trace: CPU samples whose frames in libfoo.so (build id
 * deadbeef), libbar.so (no build id) and libbaz.so (build id 0102) are
 * unnamed but one, then, after the samples as traceconv symbolize appends
 * them, ModuleSymbols.  Callstacks: main -> libfoo 0x100 -> libbar 0x200;
 * main -> libfoo 0x300; main -> "keep" (libfoo 0x400, named);
 * main -> libbaz 0x100. */
static void symbolized_trace(pb *in)
{
	pb body = {.n = 0}, d = {.n = 0}, a = {.n = 0};
	static const uint64_t cs1[] = {1, 2, 3}, cs2[] = {1, 4}, cs3[] = {1, 5}, cs4[] = {1, 6};
	static const uint64_t foo[] = {1, 2, 3}, bar[] = {4, 5}, baz[] = {1, 2, 6};
	static const uint8_t foo_id[] = {0xde, 0xad, 0xbe, 0xef}, baz_id[] = {1, 2};
	static const uint8_t other_id[] = {1, 3};
	static const char *const run[] = {"inner_inlined_function_1", "middle_inlined",
	                                  "_ZN3foo3runEv"};
	static const char *const barfn[] = {"bar_fn"}, *const unused[] = {"unused"};
	static const char *const keep[] = {"not_drawn"}, *const bazfn[] = {"baz_fn"};

	in->n = 0;
	istr(&d, 5, 1, "main");
	istr(&d, 5, 2, "keep");
	istr(&d, 17, 1, "system");
	istr(&d, 17, 2, "lib64");
	istr(&d, 17, 3, "libfoo.so");
	istr(&d, 17, 4, "data");
	istr(&d, 17, 5, "libbar.so");
	istr(&d, 17, 6, "libbaz.so");
	ibuild(&d, 1, foo_id, sizeof foo_id);
	ibuild(&d, 2, baz_id, sizeof baz_id);
	mapping_b(&d, 1, 1, foo, 3);
	mapping_b(&d, 2, 0, bar, 2);
	mapping_b(&d, 3, 2, baz, 3);
	frame(&d, 6, 1, 1, 0, 0);
	frame(&d, 6, 2, 0, 1, 0x100);
	frame(&d, 6, 3, 0, 2, 0x200);
	frame(&d, 6, 4, 0, 1, 0x300);
	frame(&d, 6, 5, 2, 1, 0x400);
	frame(&d, 6, 6, 0, 3, 0x100);
	stack(&d, 7, 1, cs1, 3);
	stack(&d, 7, 2, cs2, 2);
	stack(&d, 7, 3, cs3, 2);
	stack(&d, 7, 4, cs4, 2);
	vi(&body, 13, 1);
	sub(&body, 12, &d);
	packet(in, 1, &body);
	cpu_sample(in, 1);
	cpu_sample(in, 1);
	cpu_sample(in, 2);
	cpu_sample(in, 3);
	cpu_sample(in, 4);
	/* libfoo by its build id (the path the symbolizer found differs) */
	addr_syms(&a, 0x100, run, 3);
	addr_syms(&a, 0x400, keep, 1);  /* a named frame keeps its name */
	addr_syms(&a, 0x999, unused, 1); /* no frame has it */
	module_syms(in, "/symbols/libfoo.so", foo_id, sizeof foo_id, &a);
	/* libbar by its path, having no build id */
	a.n = 0;
	addr_syms(&a, 0x200, barfn, 1);
	module_syms(in, "/data/libbar.so", NULL, 0, &a);
	/* libbaz's path but another build: another binary, not used */
	a.n = 0;
	addr_syms(&a, 0x100, bazfn, 1);
	module_syms(in, "/system/lib64/libbaz.so", other_id, sizeof other_id, &a);
}

/* Unnamed frames take the function names of the trace's ModuleSymbols
 * for their mapping and pc, read after the samples; an address with
 * inlined functions is nested outermost first (see af_pfi_sym_add). */
Test(perfetto_prof, module_symbols_name_unnamed_frames)
{
	pb *in = malloc(sizeof *in);
	char *f, *svg;

	cr_assert_not_null(in);
	symbolized_trace(in);
	f = folded_with(in, NULL, 0, NULL);
	cr_expect_str_eq(f, "Thread-7;main;foo::run();middle_inlined;inner_inlined_function_1;bar_fn 2\n"
	                    "Thread-7;main;keep 1\n"
	                    "Thread-7;main;libbaz.so+0x100 1\n"
	                    "Thread-7;main;libfoo.so+0x300 1\n");
	free(f);
	/* a symbol's functions are in its mapping's library */
	svg = svg_file(in, "symbolized", "--no-javascript");
	expect_title(svg, "inner_inlined_function_1",
	             "inner_inlined_function_1 in libfoo.so (2 samples, 40.00%)");
	expect_title(svg, "bar_fn", "bar_fn in libbar.so (2 samples, 40.00%)");
	free(svg);
	free(in);
}

/* Inlined functions count against the depth limit, and an address symbol
 * against the name length limit, as frames and their names do. */
Test(perfetto_prof, symbols_within_the_limits)
{
	pb *in = malloc(sizeof *in);
	af_parse_options po = {.limits = {.max_depth = 4}};
	af_trace *t = NULL;
	af_error e = {0};

	cr_assert_not_null(in);
	symbolized_trace(in);
	cr_expect_eq(af_trace_parse(in->b, in->n, &po, &t, &e), AF_ERR_LIMIT);
	cr_expect_str_eq(e.message, "Perfetto trace: a callstack is deeper than 4 frames with "
	                            "the functions its symbols inline");
	af_trace_free(t);
	t = NULL;
	po.limits.max_depth = 0;
	po.limits.max_name_len = 23; /* the paths fit, inner_inlined_function_1 not */
	memset(&e, 0, sizeof e);
	cr_expect_eq(af_trace_parse(in->b, in->n, &po, &t, &e), AF_ERR_LIMIT);
	cr_expect_str_eq(e.message, "Perfetto trace: a function of the symbol of address 0x100 "
	                            "has a name longer than 23 bytes");
	af_trace_free(t);
	free(in);
}

/* The ModuleSymbols of Perfetto's heap_profile fixture (see the top of
 * this file), appended to CPU samples of unnamed frames of its mapping
 * (/liblib.so, build id "build-id") at the pcs it symbolizes: 0x2000 and
 * 0x4000 are "symbolized f2", 0x3000 "symbolized f3"; 0x5000 has none. */
Test(perfetto_prof, real_module_symbols_name_unnamed_frames)
{
	char *path = input_path("synthetic-heapprofd-perfetto-heap_profile.pftrace");
	pb *in = malloc(sizeof *in);
	pb body = {.n = 0}, d = {.n = 0};
	static const uint64_t cs1[] = {1, 2}, cs2[] = {3}, cs3[] = {4}, lib[] = {1};
	static const uint8_t id[] = "build-id";
	af_mem *mem;
	af_pf_reader *r;
	const uint8_t *pkt;
	size_t len, plen, found = 0;
	long long off;
	af_error e = {0};
	uint8_t *buf;
	char *f;

	cr_assert_not_null(in);
	if (!path) {
		free(in);
		cr_skip_test("real Perfetto files not found");
	}
	in->n = 0;
	istr(&d, 17, 1, "liblib.so");
	ibuild(&d, 1, id, sizeof id - 1);
	mapping_b(&d, 1, 1, lib, 1);
	frame(&d, 6, 1, 0, 1, 0x2000);
	frame(&d, 6, 2, 0, 1, 0x3000);
	frame(&d, 6, 3, 0, 1, 0x4000);
	frame(&d, 6, 4, 0, 1, 0x5000);
	stack(&d, 7, 1, cs1, 2);
	stack(&d, 7, 2, cs2, 1);
	stack(&d, 7, 3, cs3, 1);
	sub(&body, 12, &d);
	packet(in, 1, &body);
	cpu_sample(in, 1);
	cpu_sample(in, 2);
	cpu_sample(in, 3);
	/* the fixture's packets holding module_symbols (TracePacket field 61) */
	buf = t_read(path, &len);
	cr_assert_not_null(buf);
	mem = af_mem_new(NULL, 1u << 24);
	r = af_pf_reader_new(mem, buf, len);
	cr_assert_not_null(r);
	while (af_pf_reader_next(r, &pkt, &plen, &off, &e) == 1)
		if (af_pb_field_offset(pkt, plen, 61, 0) >= 0) {
			ld(in, 1, pkt, plen);
			found++;
		}
	af_pf_reader_free(r);
	af_mem_unref(mem);
	cr_assert_eq(found, 1, "the fixture has %zu packets of ModuleSymbols", found);
	f = folded_with(in, NULL, 0, NULL);
	cr_expect_str_eq(f, "Thread-7;liblib.so+0x5000 1\n"
	                    "Thread-7;symbolized f2 1\n"
	                    "Thread-7;symbolized f2;symbolized f3 1\n");
	free(f);
	free(buf);
	free(path);
	free(in);
}
