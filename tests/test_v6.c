/*
 * test_v6.c - ART long-running methods traces (version 6,
 * trace-formats.md §7): the 2026 form with its "SLOW" 0xF6 header, and the
 * headerless dump of earlier builds.
 *
 * No public trace of this kind exists, so the project's writer makes them
 * from the layout ART's writer and parser and Perfetto's reader give: every
 * case of test_v2.c that exits naming no method can hold is written as a
 * regular V1 trace (wall clock) and again in each version-6 form (with the
 * header, with its summary record, headerless, one record a block), and
 * each must give the folded output of the V1 form.  Then what only this
 * trace has: methods on the stack at the start, exits with no entry,
 * descriptor class names; bad input; the dump and the command line.
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
#define REC(t, m, a, w) {0, (t), NULL, (m), (a), (w), (w)}

static const struct {
	const char *what;
	af_writer_options o;
} forms[] = {
	{"0xF6", {.variant = AF_VARIANT_ART_V6}},
	{"0xF6 with its summary record", {.variant = AF_VARIANT_ART_V6, .v6_summary = 1}},
	{"headerless", {.variant = AF_VARIANT_ART_V6, .v6_headerless = 1}},
	{"one record a block", {.variant = AF_VARIANT_ART_V6, .v2_block_records = 1}},
};

static void same_as_v1(const op *ops, size_t n)
{
	af_writer_options v1 = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_WALL};
	size_t len1, f;
	uint8_t *one = t_write_case(v1, ops, n, &len1);
	af_trace *t1 = t_parse(one, len1);
	char *want = t_folded(one, len1, AF_CLOCK_WALL, NULL);

	for (f = 0; f < sizeof forms / sizeof *forms; f++) {
		size_t len2;
		uint8_t *two = t_write_case(forms[f].o, ops, n, &len2);
		af_trace *t2 = NULL;
		af_error e = {0};
		const af_trace_info *i1 = af_trace_get_info(t1), *i2;
		char *got;

		cr_assert_eq(af_trace_parse(two, len2, NULL, &t2, &e), AF_OK,
		             "%s: %s (byte %lld)", forms[f].what, e.message, e.offset);
		i2 = af_trace_get_info(t2);
		cr_assert_eq(i2->variant, AF_VARIANT_ART_V6, "%s", forms[f].what);
		cr_assert_eq(i2->version, forms[f].o.v6_headerless ? 6u : 0xF6u);
		cr_assert_eq(i2->records, i1->records, "%s", forms[f].what);
		cr_assert_eq(i2->open_at_end, i1->open_at_end, "%s", forms[f].what);
		cr_assert_eq(i2->time_backwards[AF_CLOCK_WALL], i1->time_backwards[AF_CLOCK_WALL]);
		cr_assert(i2->has_clock[AF_CLOCK_WALL]);
		cr_assert_not(i2->has_clock[AF_CLOCK_CPU]);
		af_trace_free(t2);
		got = t_folded(two, len2, AF_CLOCK_WALL, NULL);
		cr_assert_str_eq(got, want, "%s", forms[f].what);
		free(got);
		free(two);
	}
	af_trace_free(t1);
	free(want);
	free(one);
}

#define SAME(ops) same_as_v1((ops), sizeof(ops) / sizeof *(ops))

Test(v6, self_time_is_time_between_records)
{
	static const op ops[] = {
		THREAD(1, "main"),
		REC(1, A, AF_ENTER, 0),   REC(1, B, AF_ENTER, 100),
		REC(1, B, AF_EXIT, 300), REC(1, A, AF_EXIT, 400),
	};
	SAME(ops);
}

Test(v6, unwind_and_exits_naming_another_method)
{
	static const op ops[] = {
		THREAD(1, "main"),
		REC(1, A, AF_ENTER, 0),   REC(1, B, AF_ENTER, 10),
		REC(1, C, AF_ENTER, 20),  REC(1, C, AF_UNWIND, 30),
		REC(1, D, AF_EXIT, 40), /* names d, closes b */
		REC(1, A, AF_UNWIND, 50),
	};
	SAME(ops);
}

Test(v6, open_frames_close_at_the_threads_last_record)
{
	static const op ops[] = {
		THREAD(1, "main"), THREAD(2, "worker"),
		REC(1, A, AF_ENTER, 0),  REC(1, B, AF_ENTER, 10),
		REC(2, D, AF_ENTER, 15), REC(1, C, AF_ENTER, 30),
		REC(2, D, AF_EXIT, 1000),
	};
	SAME(ops);
}

Test(v6, per_thread_chunks_and_interleaving)
{
	static const op by_time[] = {
		THREAD(1, "main"), THREAD(2, "worker"),
		REC(1, A, AF_ENTER, 0),  REC(2, B, AF_ENTER, 5),
		REC(1, C, AF_ENTER, 10), REC(2, D, AF_ENTER, 12),
		REC(1, C, AF_EXIT, 20),  REC(2, D, AF_EXIT, 40),
		REC(1, A, AF_EXIT, 45),  REC(2, B, AF_EXIT, 50),
	};
	static const op chunks[] = {
		THREAD(2, "worker"),
		REC(2, B, AF_ENTER, 5),  REC(2, D, AF_ENTER, 12),
		REC(2, D, AF_EXIT, 40),
		THREAD(1, "main"),
		REC(1, A, AF_ENTER, 0),  REC(1, C, AF_ENTER, 10),
		REC(2, B, AF_EXIT, 50),
		REC(1, C, AF_EXIT, 20),  REC(1, A, AF_EXIT, 45),
	};
	SAME(by_time);
	SAME(chunks);
}

Test(v6, clocks_unwrap_and_never_step_back)
{
	static const op wrap[] = {
		THREAD(1, "main"),
		REC(1, A, AF_ENTER, 0xFFFFFF00u), REC(1, A, AF_EXIT, 0x100),
	};
	static const op back[] = {
		THREAD(1, "main"),
		REC(1, A, AF_ENTER, 100), REC(1, B, AF_ENTER, 50),
		REC(1, B, AF_EXIT, 80),   REC(1, A, AF_EXIT, 90),
	};
	SAME(wrap);
	SAME(back);
}

Test(v6, deep_recursion_and_many_blocks)
{
	enum { DEEP = 500, SHORT = 2500 };
	static op ops[1 + 2 * DEEP + 2 * SHORT];
	size_t n = 0, i;
	uint32_t t;

	ops[n++] = (op)THREAD(1, "main");
	for (i = 0; i < DEEP; i++)
		ops[n++] = (op)REC(1, i % 2 ? A : B, AF_ENTER, (uint32_t)(3 * i));
	for (i = DEEP; i-- > 0;)
		ops[n++] = (op)REC(1, i % 2 ? A : B, AF_EXIT, (uint32_t)(6 * DEEP - 3 * i));
	t = 2 * DEEP + 1;
	for (i = 0; i < SHORT; i++, t += 2) {
		ops[n++] = (op)REC(1, i % 3 ? A : B, AF_ENTER, 3 * t);
		ops[n++] = (op)REC(1, i % 3 ? A : B, AF_EXIT, 3 * t + 2);
	}
	same_as_v1(ops, n);
}

Test(v6, kernel_thread_ids_and_threads_without_a_name)
{
	/* ART's latest builds write no thread packets for this trace */
	static const op ops[] = {
		THREAD(4000001, "big"),
		REC(4000001, A, AF_ENTER, 0), REC(4000001, A, AF_EXIT, 7),
		REC(70002, B, AF_ENTER, 0),   REC(70002, B, AF_EXIT, 6),
	};
	af_writer_options o = {.variant = AF_VARIANT_ART_V6};
	size_t len;
	uint8_t *buf = t_write_case(o, ops, sizeof ops / sizeof *ops, &len);
	char *f = t_folded(buf, len, AF_CLOCK_WALL, NULL);

	cr_assert_str_eq(f, "Thread-70002;com.example.App.b 6\nbig;com.example.App.a 7\n");
	free(f);
	f = t_folded(buf, len, AF_CLOCK_WALL,
	             &(af_tree_options){.threads = (const char *[]){"70002"}, .nthreads = 1});
	cr_assert_str_eq(f, "Thread-70002;com.example.App.b 6\n");
	free(f);
	free(buf);
}

/* ART records the methods on the stack at the start as entries stamped
 * with the start time, at most ~1,000 deep: exits past them have no
 * entry, and are counted and ignored. */
Test(v6, stack_at_start_and_exits_with_no_entry)
{
	static const op ops[] = {
		THREAD(1, "main"),
		REC(1, A, AF_ENTER, 0),  REC(1, B, AF_ENTER, 0), /* on the stack */
		REC(1, C, AF_ENTER, 10), REC(1, C, AF_EXIT, 30),
		REC(1, B, AF_EXIT, 40),  REC(1, A, AF_EXIT, 45),
		REC(1, X, AF_EXIT, 50),  REC(1, Y, AF_EXIT, 60), /* cut off below */
		REC(1, D, AF_ENTER, 70), REC(1, D, AF_EXIT, 75),
	};
	size_t f;

	for (f = 0; f < sizeof forms / sizeof *forms; f++) {
		size_t len;
		uint8_t *buf = t_write_case(forms[f].o, ops, sizeof ops / sizeof *ops, &len);
		af_trace *t = t_parse(buf, len);
		char *got;

		cr_assert_eq(af_trace_get_info(t)->unmatched_ends, 2, "%s", forms[f].what);
		cr_assert_eq(af_trace_get_info(t)->orphan_exits, 0);
		af_trace_free(t);
		got = t_folded(buf, len, AF_CLOCK_WALL, NULL);
		cr_assert_str_eq(got, "main;com.example.App.a 5\n"
		                      "main;com.example.App.a;com.example.App.b 20\n"
		                      "main;com.example.App.a;com.example.App.b;"
		                      "com.example.App.c 20\n"
		                      "main;com.example.App.d 5\n", "%s", forms[f].what);
		free(got);
		free(buf);
	}
}

Test(v6, descriptor_class_names_read_dotted)
{
	af_writer_options o = {.variant = AF_VARIANT_ART_V6};
	af_writer *w = af_writer_new(&o);
	af_tree_options sig = {.signatures = 1};
	size_t len;
	uint8_t *buf;
	char *f;

	cr_assert_eq(af_writer_method(w, A, "Lcom/example/Main;", "run", "(I)V", "Main.java"), 0);
	cr_assert_eq(af_writer_method(w, B, "Lib.Dotted", "go", "()V", ""), 0);
	cr_assert_eq(af_writer_record(w, 1, A, AF_ENTER, 0, 0), 0);
	cr_assert_eq(af_writer_record(w, 1, B, AF_ENTER, 0, 2), 0);
	cr_assert_eq(af_writer_record(w, 1, B, AF_EXIT, 0, 5), 0);
	cr_assert_eq(af_writer_record(w, 1, A, AF_EXIT, 0, 9), 0);
	buf = t_finish(w, &len, NULL);
	f = t_folded(buf, len, AF_CLOCK_WALL, &sig);
	cr_assert_str_eq(f, "Thread-1;com.example.Main.run(int) 6\n"
	                    "Thread-1;com.example.Main.run(int);Lib.Dotted.go() 3\n");
	free(f);
	free(buf);
}

/* ------------------------------------------------------------------ */
/* Bad input                                                           */

static void says(const uint8_t *buf, size_t len, const char *want)
{
	af_trace *t = NULL;
	af_error e = {0};
	char got[512];

	cr_assert_neq(af_trace_parse(buf, len, NULL, &t, &e), AF_OK);
	cr_assert_null(t);
	snprintf(got, sizeof got, "%s (byte %lld)", e.message, e.offset);
	cr_assert_str_eq(got, want);
}

Test(v6, bad_records_name_their_byte)
{
	af_writer_options o = {.variant = AF_VARIANT_ART_V6};
	af_writer *w;
	size_t len;
	uint8_t *buf;
	/* a block of thread 1: an entry whose method LEB runs past the block */
	static const uint8_t cut[] = {2, 1, 0, 0, 0, 1, 0, 0, 2, 0, 0, 0, 0x04, 0x85};
	static const uint8_t overlong[] = {2, 1, 0, 0, 0, 1, 0, 0, 11, 0, 0, 0,
	                                   0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
	                                   0x80, 0x80, 0x80, 0x80, 0x00};
	static const uint8_t unknown[] = {9, 1, 2, 3};

	w = af_writer_new(&o);
	cr_assert_eq(af_writer_record(w, 1, A, AF_ENTER, 0, 0), 0);
	buf = t_finish(w, &len, NULL);
	says(buf, len, "entry of method 0x70a0000020, which no method packet names "
	               "(byte 44)");
	says(buf, 20, "input ends inside the long-running methods trace's 32-byte "
	              "header (byte 20)");
	free(buf);

	w = af_writer_new(&o);
	cr_assert_eq(af_writer_raw(w, cut, sizeof cut), 0);
	buf = t_finish(w, &len, NULL);
	says(buf, len, "the method LEB128 runs past the end of its event block (byte 45)");
	free(buf);

	w = af_writer_new(&o);
	cr_assert_eq(af_writer_raw(w, overlong, sizeof overlong), 0);
	buf = t_finish(w, &len, NULL);
	says(buf, len, "the time and action LEB128 is longer than 64 bits (byte 44)");
	free(buf);

	w = af_writer_new(&o);
	cr_assert_eq(af_writer_raw(w, unknown, sizeof unknown), 0);
	buf = t_finish(w, &len, NULL);
	says(buf, len, "unknown packet type 9 in a long-running methods trace (byte 32)");
	free(buf);
}

/* Cut at every byte: never a crash; the whole packets before the cut are
 * read, or the cut is an error naming its byte. */
Test(v6, cut_at_every_byte)
{
	static const op ops[] = {
		THREAD(1, "main"), THREAD(2, "worker"),
		REC(1, A, AF_ENTER, 0), REC(1, B, AF_ENTER, 10),
		REC(2, B, AF_ENTER, 12), REC(2, B, AF_EXIT, 19),
		REC(1, B, AF_EXIT, 60), REC(1, A, AF_EXIT, 80),
	};
	size_t f;

	for (f = 0; f < sizeof forms / sizeof *forms; f++) {
		size_t len, cut;
		uint8_t *buf = t_write_case(forms[f].o, ops, sizeof ops / sizeof *ops, &len);

		for (cut = 0; cut < len; cut++) {
			af_trace *t = NULL;
			af_error e = {0};
			af_status st = af_trace_parse(buf, cut, NULL, &t, &e);
			if (st != AF_OK) {
				cr_assert_null(t);
				cr_assert_geq(e.offset, 0, "%s cut at %zu: %s", forms[f].what, cut,
				              e.message);
				continue;
			}
			cr_assert_eq(af_trace_get_info(t)->data_end +
			                     af_trace_get_info(t)->truncated_bytes,
			             cut, "%s cut at %zu", forms[f].what, cut);
			af_trace_free(t);
		}
		free(buf);
	}
}

/* ------------------------------------------------------------------ */
/* The dump and the command line                                        */

Test(v6, dump_and_command_line)
{
	static const op ops[] = {
		THREAD(70001, "main"),
		REC(70001, A, AF_ENTER, 0), REC(70001, B, AF_ENTER, 10),
		REC(70001, B, AF_EXIT, 60), REC(70001, A, AF_EXIT, 80),
	};
	af_writer_options o = {.variant = AF_VARIANT_ART_V6, .v6_summary = 1};
	size_t len;
	uint8_t *buf = t_write_case(o, ops, sizeof ops / sizeof *ops, &len);
	char *path = t_tmp("v6.trace"), *out = NULL, *err = NULL, *args;

	t_write(path, buf, len);
	cr_assert(asprintf(&args, "-v --format folded '%s'", path) > 0);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert_str_eq(out, "main;com.example.App.a 30\n"
	                      "main;com.example.App.a;com.example.App.b 50\n");
	cr_assert(strstr(err, ": ART long-running methods trace, version 246 (0xF6), "
	                      "LEB128 records, clock wall"), "%s", err);
	free(out);
	free(err);
	free(args);
	cr_assert(asprintf(&args, "--dump '%s'", path) > 0);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert(strstr(out, "\t70001\tmain\tenter\t0x4\tcom.example.App.b()\t-\t-\t10\t10\n"),
	          "%s", out);
	cr_assert(strstr(out, "\t70001\tmain\texit\t0x0\tcom.example.App.a()\t-\t-\t80\t80\n"),
	          "%s", out);
	free(out);
	free(err);
	free(args);
	free(path);
	free(buf);
}

/* ART writes the method packets after the blocks: a dump cut inside them
 * draws the entries of the methods cut off as unknown methods. */
Test(v6, a_dump_cut_in_its_method_packets)
{
	static const op ops[] = {
		THREAD(1, "main"),
		REC(1, A, AF_ENTER, 0), REC(1, B, AF_ENTER, 10),
		REC(1, B, AF_EXIT, 60), REC(1, A, AF_EXIT, 80),
	};
	af_writer_options o = {.variant = AF_VARIANT_ART_V6};
	size_t len;
	uint8_t *buf = t_write_case(o, ops, sizeof ops / sizeof *ops, &len);
	/* the method packets come last, a to y, 11 + 31 bytes each: cut
	 * inside d's (x and y are gone with it; none is called) */
	size_t cut = len - 2 * 42 - 5;
	af_trace *t = NULL;
	af_error e = {0};
	char *f;

	cr_assert_eq(af_trace_parse(buf, cut, NULL, &t, &e), AF_OK, "%s (byte %lld)",
	             e.message, e.offset);
	cr_assert_eq(af_trace_get_info(t)->truncated_bytes, 37);
	cr_assert_eq(af_trace_get_info(t)->unknown_methods, 0);
	af_trace_free(t);
	f = t_folded(buf, cut, AF_CLOCK_WALL, NULL);
	cr_assert_str_eq(f, "main;com.example.App.a 30\nmain;com.example.App.a;"
	                    "com.example.App.b 50\n");
	free(f);
	/* cut inside b's packet: b's entry is an unknown method */
	cut = len - 4 * 42 - 5;
	cr_assert_eq(af_trace_parse(buf, cut, NULL, &t, &e), AF_OK, "%s (byte %lld)",
	             e.message, e.offset);
	cr_assert_eq(af_trace_get_info(t)->unknown_methods, 1);
	cr_assert_eq(af_trace_get_info(t)->unknown_method_calls, 1);
	af_trace_free(t);
	f = t_folded(buf, cut, AF_CLOCK_WALL, NULL);
	cr_assert_str_eq(f, "main;com.example.App.a 30\nmain;com.example.App.a;"
	                    "(unknown method 0x4) 50\n");
	free(f);
	free(buf);
}
