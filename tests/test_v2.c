/*
 * test_v2.c - ART V2 compact method traces (trace-formats.md §6).
 *
 * No public V2 trace exists (Perfetto's only sample, art-method-v2.trace,
 * lives outside git), so the project's writer makes them from the spec:
 * every case below is written once as a regular V1 trace and again in each
 * V2 form (revisions B and C, µs and ns, one clock or two, 4/5 and
 * 0xF4/0xF5, one record per block, a flush spilled over two blocks), and
 * each V2 form must give the folded output of the V1 form of the same
 * records.  The cases are those of test_semantics.c and test_variants.c:
 * edge cases, clocks, per-thread chunks; then truncation, the dump, bad
 * input.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T_CASE_IDS
#include "support.h"

typedef t_op op;

#define THREAD(t, n) {1, (t), (n), 0, 0, 0, 0}
#define REC(t, m, a, c, w) {0, (t), NULL, (m), (a), (c), (w)}

/* The V2 forms a case is written in. */
typedef struct form {
	const char *what;
	af_writer_options o;
	int orphans; /* gives V1's answer for exits on an empty stack */
} form;

static const form forms[] = {
	{"B µs", {.variant = AF_VARIANT_ART_V2, .v2_revision = 'B'}, 1},
	{"B ns", {.variant = AF_VARIANT_ART_V2, .v2_revision = 'B', .v2_ns = 1}, 1},
	{"B 0xF_", {.variant = AF_VARIANT_ART_V2, .v2_streaming = 1}, 1},
	{"B one record a block", {.variant = AF_VARIANT_ART_V2, .v2_block_records = 1}, 1},
	{"B a flush over blocks", {.variant = AF_VARIANT_ART_V2, .v2_block_records = 2,
	                           .v2_spill = 1, .v2_ns = 1}, 1},
	{"C", {.variant = AF_VARIANT_ART_V2, .v2_revision = 'C'}, 0},
	{"C 0xF_ one record a block", {.variant = AF_VARIANT_ART_V2, .v2_revision = 'C',
	                               .v2_streaming = 1, .v2_block_records = 1}, 0},
};

static const af_writer_clock clocks[] = {AF_WRITER_DUAL, AF_WRITER_WALL,
                                         AF_WRITER_THREAD_CPU};

/* The text with each "(unknown method 0x...)" as "(unknown method)": V1 names
 * the method id its key lacks, V2 the dense id of the pointer. */
static char *unknown_unnamed(char *s)
{
	char *p = s, *o = s;
	static const char tag[] = "(unknown method 0x";

	while (*p) {
		if (strncmp(p, tag, sizeof tag - 1) == 0 && strchr(p, ')')) {
			o += sprintf(o, "(unknown method)");
			p = strchr(p, ')') + 1;
		} else {
			*o++ = *p++;
		}
	}
	*o = '\0';
	return s;
}

/* Every V2 form of the case, on every clock, folds as its V1 form. */
static void same_as_v1(const op *ops, size_t n, int orphans)
{
	size_t f, c;

	for (c = 0; c < 3; c++) {
		af_writer_options v1 = {.variant = AF_VARIANT_REGULAR, .clock = clocks[c]};
		size_t len1;
		uint8_t *one = t_write_case(v1, ops, n, &len1);
		af_trace *t1 = t_parse(one, len1);
		const af_trace_info *i1 = af_trace_get_info(t1);

		for (f = 0; f < sizeof forms / sizeof *forms; f++) {
			af_writer_options o = forms[f].o;
			size_t len2;
			uint8_t *two;
			af_trace *t2;
			const af_trace_info *i2;
			int k;

			if (orphans && !forms[f].orphans)
				continue; /* revision C's exits do not name their method */
			o.clock = clocks[c];
			two = t_write_case(o, ops, n, &len2);
			{
				af_error e = {0};
				cr_assert_eq(af_trace_parse(two, len2, NULL, &t2, &e), AF_OK,
				             "%s, writer clock %zu: %s (byte %lld)", forms[f].what,
				             c, e.message, e.offset);
			}
			i2 = af_trace_get_info(t2);
			cr_assert_eq(i2->variant, AF_VARIANT_ART_V2);
			cr_assert_eq(i2->records, i1->records, "%s", forms[f].what);
			cr_assert_eq(i2->open_at_end, i1->open_at_end, "%s", forms[f].what);
			cr_assert_eq(i2->orphan_exits, i1->orphan_exits, "%s", forms[f].what);
			cr_assert_eq(i2->unwinds, i1->unwinds, "%s", forms[f].what);
			cr_assert_eq(i2->unknown_methods, i1->unknown_methods, "%s", forms[f].what);
			cr_assert_eq(i2->unknown_method_calls, i1->unknown_method_calls, "%s",
			             forms[f].what);
			for (k = 0; k < AF_CLOCK_WAIT; k++) {
				cr_assert_eq(i2->has_clock[k], i1->has_clock[k], "%s clock %d",
				             forms[f].what, k);
				cr_assert_eq(i2->time_backwards[k], i1->time_backwards[k],
				             "%s clock %d", forms[f].what, k);
				if (i1->has_clock[k]) {
					char *a = unknown_unnamed(t_folded(one, len1, (af_clock)k, NULL));
					char *b = unknown_unnamed(t_folded(two, len2, (af_clock)k, NULL));
					cr_assert_str_eq(b, a, "%s, clock %d of writer clock %zu",
					                 forms[f].what, k, c);
					free(a);
					free(b);
				}
			}
			af_trace_free(t2);
			free(two);
		}
		af_trace_free(t1);
		free(one);
	}
}

#define SAME(ops, orphans) same_as_v1((ops), sizeof(ops) / sizeof *(ops), (orphans))

Test(v2, self_time_is_time_between_records)
{
	static const op ops[] = {
		THREAD(1, "main"),
		REC(1, A, AF_ENTER, 0, 0),   REC(1, B, AF_ENTER, 10, 100),
		REC(1, B, AF_EXIT, 30, 300), REC(1, A, AF_EXIT, 40, 400),
	};
	SAME(ops, 0);
}

Test(v2, unwind_and_exits_naming_another_method)
{
	static const op ops[] = {
		THREAD(1, "main"),
		REC(1, A, AF_ENTER, 0, 0),   REC(1, B, AF_ENTER, 0, 10),
		REC(1, C, AF_ENTER, 0, 20),  REC(1, C, AF_UNWIND, 0, 30),
		REC(1, D, AF_EXIT, 3, 40), /* names d, pops b */
		REC(1, A, AF_UNWIND, 5, 50),
	};
	SAME(ops, 0);
}

Test(v2, orphan_exits_reroot_in_revision_b)
{
	static const op ops[] = {
		THREAD(1, "main"),
		REC(1, C, AF_EXIT, 1, 10),  REC(1, B, AF_EXIT, 2, 20),
		REC(1, D, AF_ENTER, 3, 25), REC(1, D, AF_EXIT, 4, 35),
		REC(1, A, AF_EXIT, 5, 50),  REC(1, Y, AF_ENTER, 6, 55),
		REC(1, Y, AF_EXIT, 7, 60),  REC(1, X, AF_EXIT, 8, 70),
	};
	SAME(ops, 1);
}

Test(v2, open_frames_close_at_the_threads_last_record)
{
	static const op ops[] = {
		THREAD(1, "main"), THREAD(2, "worker"),
		REC(1, A, AF_ENTER, 0, 0),  REC(1, B, AF_ENTER, 0, 10),
		REC(2, D, AF_ENTER, 0, 15), REC(1, C, AF_ENTER, 0, 30),
		REC(2, D, AF_EXIT, 9, 1000),
	};
	SAME(ops, 0);
}

Test(v2, per_thread_chunks_and_interleaving)
{
	static const op by_time[] = {
		THREAD(1, "main"), THREAD(2, "worker"),
		REC(1, A, AF_ENTER, 0, 0),  REC(2, B, AF_ENTER, 0, 5),
		REC(1, C, AF_ENTER, 1, 10), REC(2, D, AF_ENTER, 2, 12),
		REC(1, C, AF_EXIT, 3, 20),  REC(2, D, AF_EXIT, 4, 40),
		REC(1, A, AF_EXIT, 5, 45),  REC(2, B, AF_EXIT, 6, 50),
	};
	static const op chunks[] = {
		THREAD(2, "worker"),
		REC(2, B, AF_ENTER, 0, 5),  REC(2, D, AF_ENTER, 2, 12),
		REC(2, D, AF_EXIT, 4, 40),
		THREAD(1, "main"),
		REC(1, A, AF_ENTER, 0, 0),  REC(1, C, AF_ENTER, 1, 10),
		REC(2, B, AF_EXIT, 6, 50),
		REC(1, C, AF_EXIT, 3, 20),  REC(1, A, AF_EXIT, 5, 45),
	};
	SAME(by_time, 0);
	SAME(chunks, 0);
}

Test(v2, kernel_thread_ids_of_any_size)
{
	static const op ops[] = {
		THREAD(4000001, "big"), THREAD(2, "pool"), THREAD(70002, "pool"),
		REC(4000001, A, AF_ENTER, 0, 0), REC(4000001, A, AF_EXIT, 0, 7),
		REC(2, B, AF_ENTER, 0, 0),       REC(2, B, AF_EXIT, 0, 5),
		REC(70002, B, AF_ENTER, 0, 0),   REC(70002, B, AF_EXIT, 0, 6),
	};
	af_writer_options o = {.variant = AF_VARIANT_ART_V2, .clock = AF_WRITER_DUAL};
	size_t len, i, n;
	uint8_t *buf = t_write_case(o, ops, sizeof ops / sizeof *ops, &len);
	af_trace *t = t_parse(buf, len);
	char *f;

	/* V2 keeps the whole kernel id: no truncation, no collision */
	n = af_trace_thread_count(t);
	cr_assert_eq(n, 3);
	for (i = 0; i < n; i++) {
		af_thread_info ti;
		af_trace_thread(t, i, &ti);
		if (strcmp(ti.name, "big") == 0)
			cr_assert_eq(ti.tid, 4000001);
		else
			cr_assert(ti.tid == 2 || ti.tid == 70002, "tid %u", ti.tid);
	}
	cr_assert_eq(af_trace_get_info(t)->thread_id_collisions, 0);
	af_trace_free(t);
	f = t_folded(buf, len, AF_CLOCK_WALL, &(af_tree_options){.threads = (const char *[]){"4000001"}, .nthreads = 1});
	cr_assert_str_eq(f, "big;com.example.App.a 7\n");
	free(f);
	free(buf);
}

Test(v2, clocks_unwrap_and_never_step_back)
{
	static const op wrap[] = {
		THREAD(1, "main"),
		REC(1, A, AF_ENTER, 0xFFFFFFF0u, 0xFFFFFF00u),
		REC(1, A, AF_EXIT, 0x10, 0x100),
	};
	static const op back[] = {
		THREAD(1, "main"),
		REC(1, A, AF_ENTER, 0, 100), REC(1, B, AF_ENTER, 0, 50),
		REC(1, B, AF_EXIT, 0, 80),   REC(1, A, AF_EXIT, 0, 90),
	};
	SAME(wrap, 0);
	SAME(back, 0);
}

/* 500 frames deep, then 2,500 short calls: 6,000 records, a block each in
 * the one-record-per-block forms.  (Deeper still, the folded text of every
 * form and clock, a line per depth, grows with the square of the depth.) */
Test(v2, deep_recursion_and_many_blocks)
{
	enum { DEEP = 500, SHORT = 2500 };
	static op ops[1 + 2 * DEEP + 2 * SHORT];
	size_t n = 0, i;
	uint32_t t;

	ops[n++] = (op)THREAD(1, "main");
	for (i = 0; i < DEEP; i++)
		ops[n++] = (op)REC(1, i % 2 ? A : B, AF_ENTER, (uint32_t)i, (uint32_t)(3 * i));
	for (i = DEEP; i-- > 0;)
		ops[n++] = (op)REC(1, i % 2 ? A : B, AF_EXIT, (uint32_t)(2 * DEEP - i),
		                   (uint32_t)(6 * DEEP - 3 * i));
	t = 2 * DEEP + 1;
	for (i = 0; i < SHORT; i++, t += 2) {
		ops[n++] = (op)REC(1, i % 3 ? A : B, AF_ENTER, t, 3 * t);
		ops[n++] = (op)REC(1, i % 3 ? A : B, AF_EXIT, t + 1, 3 * t + 2);
	}
	same_as_v1(ops, n, 0);
}

/* The program of test_variants.c, in the V2 forms; the counts checked. */
Test(v2, variants_program_and_counts)
{
	static const op ops[] = {
		THREAD(1, "main"), THREAD(2, "worker"),
		REC(1, A, AF_ENTER, 0, 0), REC(1, B, AF_ENTER, 1, 10),
		REC(2, B, AF_ENTER, 0, 12), REC(2, B, AF_EXIT, 1, 19),
		REC(1, B, AF_EXIT, 6, 60), REC(1, A, AF_EXIT, 8, 80),
	};
	af_writer_options o = {.variant = AF_VARIANT_ART_V2, .clock = AF_WRITER_DUAL,
	                       .v2_streaming = 1};
	size_t len;
	uint8_t *buf = t_write_case(o, ops, sizeof ops / sizeof *ops, &len);
	af_trace *t = t_parse(buf, len);
	const af_trace_info *i = af_trace_get_info(t);

	cr_assert_eq(i->version, 0xF5);
	cr_assert_eq(i->records, 6);
	cr_assert_eq(i->methods, 6);
	cr_assert_eq(i->threads_with_records, 2);
	cr_assert_eq(i->summary_missing, 0);
	cr_assert_eq(i->clock_assumed, 0);
	af_trace_free(t);
	free(buf);
	SAME(ops, 0);
}

/* Revision C converts the timestamp counter with the header's rate. */
Test(v2, revision_c_ticks_become_time)
{
	static const op ops[] = {
		THREAD(1, "main"),
		REC(1, A, AF_ENTER, 0, 1000000), REC(1, A, AF_EXIT, 0, 3500000),
	};
	af_writer_options o = {.variant = AF_VARIANT_ART_V2, .clock = AF_WRITER_WALL,
	                       .v2_revision = 'C'};
	size_t len;
	uint8_t *buf = t_write_case(o, ops, sizeof ops / sizeof *ops, &len);
	char *f;

	cr_assert_eq(buf[22] | buf[23] << 8 | buf[24] << 16 | buf[25] << 24,
	             AF_WRITER_V2_TICK_HZ);
	f = t_folded(buf, len, AF_CLOCK_WALL, NULL);
	cr_assert_str_eq(f, "main;com.example.App.a 2500000\n");
	free(f);
	free(buf);
}

/* Two threads, calls nested and not (the cut and zero-tick cases). */
static const op two_threads[] = {
	THREAD(1, "main"), THREAD(2, "worker"),
	REC(1, A, AF_ENTER, 0, 0), REC(1, B, AF_ENTER, 1, 10),
	REC(2, B, AF_ENTER, 0, 12), REC(2, B, AF_EXIT, 1, 19),
	REC(1, B, AF_EXIT, 6, 60), REC(1, A, AF_EXIT, 8, 80),
};

/* A revision C trace of one clock, thread-cpu, needs no tick rate: with
 * its header's tick fields zero (bytes 14-29, as ART's 2026 writer leaves
 * them) it is still read as revision C, told by its first block, and folds
 * as its V1 form; a wall-clock one without its rate is refused. */
Test(v2, revision_c_with_zero_tick_fields)
{
	const op *ops = two_threads;
	size_t n = sizeof two_threads / sizeof *two_threads, len, len1;
	af_writer_options o = {.variant = AF_VARIANT_ART_V2, .clock = AF_WRITER_THREAD_CPU,
	                       .v2_revision = 'C'};
	af_writer_options v1 = {.variant = AF_VARIANT_REGULAR,
	                        .clock = AF_WRITER_THREAD_CPU};
	uint8_t *buf = t_write_case(o, ops, n, &len), *one = t_write_case(v1, ops, n, &len1);
	char *got, *want = t_folded(one, len1, AF_CLOCK_CPU, NULL);
	af_trace *t;
	af_error e = {0};

	memset(buf + 14, 0, 16);
	got = t_folded(buf, len, AF_CLOCK_CPU, NULL);
	cr_assert_str_eq(got, want);
	free(got);
	free(buf);

	o.clock = AF_WRITER_WALL;
	buf = t_write_case(o, ops, n, &len);
	memset(buf + 14, 0, 16);
	cr_assert_eq(af_trace_parse(buf, len, NULL, &t, &e), AF_ERR_HEADER);
	cr_assert_str_eq(e.message, "timestamp-counter frequency 0 Hz (expected 1 Hz to "
	                            "10 GHz)");
	cr_assert_eq(e.offset, 22);
	free(buf);
	free(want);
	free(one);
}

/* Cut at every byte: never a crash; the whole packets before the cut are
 * read (no summary: said so), or the cut is an error naming its byte. */
Test(v2, cut_at_every_byte)
{
	const op *ops = two_threads;
	size_t f;

	for (f = 0; f < sizeof forms / sizeof *forms; f++) {
		af_writer_options o = forms[f].o;
		size_t len, cut;
		uint8_t *buf;

		o.clock = AF_WRITER_DUAL;
		buf = t_write_case(o, ops, sizeof two_threads / sizeof *two_threads, &len);
		for (cut = 0; cut < len; cut++) {
			af_trace *t = NULL;
			af_error e = {0};
			af_status st = af_trace_parse(buf, cut, NULL, &t, &e);
			if (st != AF_OK) {
				cr_assert_null(t);
				cr_assert_geq(e.offset, 0, "%s cut at %zu: %s", forms[f].what,
				              cut, e.message);
				continue;
			}
			cr_assert(cut >= 32);
			cr_assert(af_trace_get_info(t)->summary_missing, "cut at %zu", cut);
			cr_assert_eq(af_trace_get_info(t)->data_end +
			                     af_trace_get_info(t)->truncated_bytes,
			             cut);
			af_trace_free(t);
		}
		free(buf);
	}
}

/* A trace with no summary: the records are there, the clock is assumed. */
Test(v2, without_its_summary)
{
	static const op ops[] = {
		THREAD(1, "main"),
		REC(1, A, AF_ENTER, 0, 0), REC(1, A, AF_EXIT, 5, 70),
	};
	af_writer_options o = {.variant = AF_VARIANT_ART_V2, .clock = AF_WRITER_DUAL,
	                       .no_summary = 1};
	size_t len;
	uint8_t *buf = t_write_case(o, ops, sizeof ops / sizeof *ops, &len);
	af_trace *t = t_parse(buf, len);
	char *f;

	cr_assert(af_trace_get_info(t)->summary_missing);
	cr_assert(af_trace_get_info(t)->clock_assumed);
	cr_assert_eq(af_trace_get_info(t)->truncated_bytes, 0);
	af_trace_free(t);
	f = t_folded(buf, len, AF_CLOCK_WALL, NULL);
	cr_assert_str_eq(f, "main;com.example.App.a 70\n");
	free(f);
	f = t_folded(buf, len, AF_CLOCK_CPU, NULL);
	cr_assert_str_eq(f, "main;com.example.App.a 5\n");
	free(f);
	free(buf);
}

/* The error of a parse of `buf`, "message (byte N)". */
static char *error_of(const uint8_t *buf, size_t len)
{
	af_trace *t = NULL;
	af_error e = {0};
	char *s;

	cr_assert_neq(af_trace_parse(buf, len, NULL, &t, &e), AF_OK);
	cr_assert_null(t);
	cr_assert(asprintf(&s, "%s (byte %lld)", e.message, e.offset) > 0);
	return s;
}

static void says(const uint8_t *buf, size_t len, const char *want)
{
	char *got = error_of(buf, len);
	cr_assert_str_eq(got, want);
	free(got);
}

/* A record of a method no packet names is drawn as an unknown method, as
 * V1 draws a method id its key lacks: the same graph, the same counts (it
 * was an error before). */
Test(v2, records_of_undeclared_methods_drawn_as_v1_draws_them)
{
	/* 28 and 32: ids no method packet (no key line) names */
	static const op ops[] = {
		THREAD(1, "main"),        THREAD(2, "worker"),
		REC(1, A, AF_ENTER, 0, 0),    REC(1, 28, AF_ENTER, 10, 20),
		REC(1, B, AF_ENTER, 15, 30),  REC(1, B, AF_EXIT, 25, 50),
		REC(1, 28, AF_EXIT, 30, 60),  REC(2, 32, AF_ENTER, 0, 0),
		REC(2, 32, AF_EXIT, 7, 9),    REC(1, 28, AF_ENTER, 31, 61),
		REC(1, 28, AF_EXIT, 40, 70),  REC(1, A, AF_EXIT, 45, 80),
	};
	size_t len;
	uint8_t *one = t_write_case((af_writer_options){.variant = AF_VARIANT_REGULAR},
	                            ops, sizeof ops / sizeof *ops, &len);
	af_trace *t = t_parse(one, len);
	char *f = t_folded(one, len, AF_CLOCK_WALL, NULL);

	cr_assert_eq(af_trace_get_info(t)->unknown_methods, 2);
	cr_assert_eq(af_trace_get_info(t)->unknown_method_calls, 3);
	cr_assert(strstr(f, "(unknown method 0x1c)"), "%s", f);
	free(f);
	af_trace_free(t);
	free(one);
	SAME(ops, 0);
}

Test(v2, bad_records_name_their_byte)
{
	af_writer_options o = {.variant = AF_VARIANT_ART_V2, .clock = AF_WRITER_WALL};
	af_writer *w;
	size_t len;
	uint8_t *buf;
	/* a block of thread 1: one record, then an 11-byte LEB */
	static const uint8_t overlong[] = {2, 1, 0, 0, 0, 1, 0, 0, 11, 0, 0, 0,
	                                   0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	                                   0x80, 0x80, 0x80, 0x80, 0x00};
	/* a record whose wall LEB runs past its block */
	static const uint8_t cut[] = {2, 1, 0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0x04, 0x85};

	/* a block of a thread no packet names */
	w = af_writer_new(&o);
	cr_assert_eq(af_writer_method(w, A, "a.B", "c", "()V", "B.java"), 0);
	cr_assert_eq(af_writer_record(w, 9, A, AF_ENTER, 0, 0), 0);
	buf = t_finish(w, &len, NULL);
	says(buf, len, "event block of thread 9, which no thread packet names (byte 61)");
	free(buf);

	w = af_writer_new(&o);
	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_raw(w, overlong, sizeof overlong), 0);
	buf = t_finish(w, &len, NULL);
	says(buf, len, "the method LEB128 is longer than 64 bits (byte 55)");
	free(buf);

	w = af_writer_new(&o);
	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_raw(w, cut, sizeof cut), 0);
	buf = t_finish(w, &len, NULL);
	says(buf, len, "the wall time LEB128 runs past the end of its event block "
	               "(byte 56)");
	free(buf);
}

/* The dump reads V2 records as it reads V1 ones: the same lines but for
 * their offsets and method ids. */
Test(v2, dump_lists_every_record)
{
	static const op ops[] = {
		THREAD(70001, "main"),
		REC(70001, A, AF_ENTER, 0, 0), REC(70001, B, AF_ENTER, 1, 10),
		REC(70001, B, AF_EXIT, 6, 60), REC(70001, A, AF_EXIT, 8, 80),
	};
	size_t f;

	for (f = 0; f < sizeof forms / sizeof *forms; f++) {
		af_writer_options o = forms[f].o;
		size_t len;
		uint8_t *buf;
		char *text = NULL;
		size_t tlen = 0;
		FILE *out = open_memstream(&text, &tlen);
		af_error e = {0};

		o.clock = AF_WRITER_DUAL;
		buf = t_write_case(o, ops, sizeof ops / sizeof *ops, &len);
		cr_assert_eq(af_trace_dump_buffer(buf, len, NULL, out, &e), AF_OK, "%s",
		             e.message);
		fclose(out);
		/* offsets vary with the form; the rest does not */
		cr_assert(strstr(text, "\t70001\tmain\tenter\t0x4\tcom.example.App.b()"
		                       "\t1\t1\t10\t10\n"),
		          "%s:\n%s", forms[f].what, text);
		cr_assert(strstr(text, "\t70001\tmain\texit\t0x0\tcom.example.App.a()"
		                       "\t8\t8\t80\t80\n"),
		          "%s:\n%s", forms[f].what, text);
		cr_assert_eq(strncmp(text, "offset\t", 7), 0);
		free(text);
		free(buf);
	}
}

Test(v2, command_line_reads_and_dumps_it)
{
	static const op ops[] = {
		THREAD(1, "main"),
		REC(1, A, AF_ENTER, 0, 0), REC(1, A, AF_EXIT, 5, 70),
	};
	af_writer_options o = {.variant = AF_VARIANT_ART_V2, .clock = AF_WRITER_DUAL,
	                       .v2_revision = 'C'};
	size_t len;
	uint8_t *buf = t_write_case(o, ops, sizeof ops / sizeof *ops, &len);
	char *path = t_tmp("v2.trace"), *out = NULL, *err = NULL, *args;

	t_write(path, buf, len);
	cr_assert(asprintf(&args, "-v --format folded '%s'", path) > 0);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert_str_eq(out, "main;com.example.App.a 70\n");
	cr_assert(strstr(err, ": ART V2 trace, version 5 (0x5), LEB128 records, clock "
	                      "dual, vm art\n"), "%s", err);
	free(out);
	free(err);
	free(args);
	cr_assert(asprintf(&args, "--dump '%s'", path) > 0);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert(strstr(out, "\t1\tmain\texit\t0x0\tcom.example.App.a()\t5\t5\t70\t70\n"),
	          "%s", out);
	free(out);
	free(err);
	free(args);
	free(path);
	free(buf);
}
