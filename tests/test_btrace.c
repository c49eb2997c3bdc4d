/*
 * test_btrace.c - btrace 2.0 binary method traces and their method
 * mapping files (trace-formats.md §8).
 *
 * No btrace trace is public, so the project's writer makes them from the
 * spec: the cases of test_v2.c (those of test_semantics.c and
 * test_variants.c) that a trace of finished calls can hold are written as
 * a regular V1 trace and again as btrace (padded to 2,000,000 bytes as
 * btrace pre-sizes its file, or not), and each btrace form must give the
 * folded wall-time output of the V1 form.  Then what only btrace has:
 * thread and method ids that spill, begins clamped, calls the threshold
 * dropped, records in any order, calls that overlap; the mapping file;
 * bad input; the command line.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define T_CASE_IDS
#include "support.h"

typedef t_op op;

/* btrace names threads "thread <tid>": the V1 forms are named so too */
#define THREAD(t) {1, (t), "thread " #t, 0, 0, 0, 0}
#define REC(t, m, a, w) {0, (t), NULL, (m), (a), (w), (w)}

static uint8_t *write_case(af_writer_options o, const op *ops, size_t n, size_t *len,
                           uint8_t **map, size_t *map_len)
{
	af_writer *w = t_case_writer(o, ops, n);

	if (map)
		cr_assert_eq(af_writer_btrace_mapping(w, map, map_len), 0);
	return t_finish(w, len, NULL);
}

/* Parses a btrace trace with the mapping text `map` (NULL: none). */
static af_status parse_with(const uint8_t *buf, size_t len, const uint8_t *map,
                            size_t map_len, af_trace **t, af_error *e)
{
	af_btrace_mapping *m = NULL;
	af_parse_options po = {0};
	af_status st;

	if (map) {
		cr_assert_eq(af_btrace_mapping_parse(map, map_len, &m, e), AF_OK,
		             "%s (line %lld)", e->message, e->line);
		po.btrace_mapping = m;
	}
	st = af_trace_parse(buf, len, &po, t, e);
	af_btrace_mapping_free(m);
	return st;
}

/* The folded wall-time text of a btrace trace read with its mapping. */
static char *folded_with(const uint8_t *buf, size_t len, const uint8_t *map,
                         size_t map_len, const af_tree_options *topt)
{
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_error e = {0};
	char *text = NULL;
	size_t tlen = 0;
	FILE *f;

	cr_assert_eq(parse_with(buf, len, map, map_len, &t, &e), AF_OK,
	             "%s (byte %lld)", e.message, e.offset);
	cr_assert_eq(af_tree_from_trace(t, topt, &tree, &e), AF_OK, "%s", e.message);
	f = open_memstream(&text, &tlen);
	cr_assert_eq(af_folded_write(tree, AF_CLOCK_WALL, f, &e), AF_OK);
	fclose(f);
	af_tree_free(tree);
	af_trace_free(t);
	return text;
}

static const struct {
	const char *what;
	af_writer_options o;
} forms[] = {
	{"padded", {.variant = AF_VARIANT_BTRACE}},
	{"unpadded", {.variant = AF_VARIANT_BTRACE, .btrace_no_padding = 1}},
};

/* Each btrace form of the case folds as its V1 form, on wall time. */
static void same_as_v1(const op *ops, size_t n)
{
	af_writer_options v1 = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_WALL};
	size_t len1, f;
	uint8_t *one = write_case(v1, ops, n, &len1, NULL, NULL);
	char *want = t_folded(one, len1, AF_CLOCK_WALL, NULL);

	for (f = 0; f < sizeof forms / sizeof *forms; f++) {
		size_t len2, mlen;
		uint8_t *map, *two = write_case(forms[f].o, ops, n, &len2, &map, &mlen);
		af_trace *t = NULL;
		af_error e = {0};
		char *got;

		cr_assert_eq(parse_with(two, len2, map, mlen, &t, &e), AF_OK, "%s: %s",
		             forms[f].what, e.message);
		cr_assert_eq(af_trace_get_info(t)->variant, AF_VARIANT_BTRACE);
		cr_assert_eq(af_trace_get_info(t)->open_at_end, 0);
		cr_assert_eq(af_trace_get_info(t)->names_missing, 0);
		cr_assert(af_trace_get_info(t)->has_clock[AF_CLOCK_WALL]);
		cr_assert_not(af_trace_get_info(t)->has_clock[AF_CLOCK_CPU]);
		if (!forms[f].o.btrace_no_padding)
			cr_assert_eq(len2, 2000000);
		af_trace_free(t);
		got = folded_with(two, len2, map, mlen, NULL);
		cr_assert_str_eq(got, want, "%s", forms[f].what);
		free(got);
		free(map);
		free(two);
	}
	free(want);
	free(one);
}

#define SAME(ops) same_as_v1((ops), sizeof(ops) / sizeof *(ops))

Test(btrace, self_time_is_time_between_records)
{
	static const op ops[] = {
		THREAD(1),
		REC(1, A, AF_ENTER, 0),   REC(1, B, AF_ENTER, 100),
		REC(1, B, AF_EXIT, 300), REC(1, A, AF_EXIT, 400),
	};
	SAME(ops);
}

Test(btrace, unwind_and_exits_naming_another_method)
{
	static const op ops[] = {
		THREAD(1),
		REC(1, A, AF_ENTER, 0),   REC(1, B, AF_ENTER, 10),
		REC(1, C, AF_ENTER, 20),  REC(1, C, AF_UNWIND, 30),
		REC(1, D, AF_EXIT, 40), /* names d, closes b */
		REC(1, A, AF_UNWIND, 50),
	};
	SAME(ops);
}

Test(btrace, open_calls_close_at_the_threads_last_record)
{
	static const op ops[] = {
		THREAD(1), THREAD(2),
		REC(1, A, AF_ENTER, 0),  REC(1, B, AF_ENTER, 10),
		REC(2, D, AF_ENTER, 15), REC(1, C, AF_ENTER, 30),
		REC(2, D, AF_EXIT, 1000),
	};
	SAME(ops);
}

Test(btrace, per_thread_chunks_and_interleaving)
{
	static const op by_time[] = {
		THREAD(1), THREAD(2),
		REC(1, A, AF_ENTER, 0),  REC(2, B, AF_ENTER, 5),
		REC(1, C, AF_ENTER, 10), REC(2, D, AF_ENTER, 12),
		REC(1, C, AF_EXIT, 20),  REC(2, D, AF_EXIT, 40),
		REC(1, A, AF_EXIT, 45),  REC(2, B, AF_EXIT, 50),
	};
	static const op chunks[] = {
		THREAD(2),
		REC(2, B, AF_ENTER, 5),  REC(2, D, AF_ENTER, 12),
		REC(2, D, AF_EXIT, 40),
		THREAD(1),
		REC(1, A, AF_ENTER, 0),  REC(1, C, AF_ENTER, 10),
		REC(2, B, AF_EXIT, 50),
		REC(1, C, AF_EXIT, 20),  REC(1, A, AF_EXIT, 45),
	};
	SAME(by_time);
	SAME(chunks);
}

Test(btrace, clock_wraps_in_the_record_machine)
{
	/* 71 minutes in: past 2^32 µs, which the record machine unwraps */
	static const op wrap[] = {
		THREAD(1),
		REC(1, A, AF_ENTER, 0xFFFFFF00u), REC(1, B, AF_ENTER, 0xFFFFFFF0u),
		REC(1, B, AF_EXIT, 0x10), REC(1, A, AF_EXIT, 0x100),
	};
	SAME(wrap);
}

Test(btrace, deep_recursion_and_many_calls)
{
	enum { DEEP = 500, SHORT = 2500 };
	static op ops[1 + 2 * DEEP + 2 * SHORT];
	size_t n = 0, i;
	uint32_t t;

	ops[n++] = (op)THREAD(1);
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

Test(btrace, variants_program_and_counts)
{
	static const op ops[] = {
		THREAD(1), THREAD(2),
		REC(1, A, AF_ENTER, 0), REC(1, B, AF_ENTER, 10),
		REC(2, B, AF_ENTER, 12), REC(2, B, AF_EXIT, 19),
		REC(1, B, AF_EXIT, 60), REC(1, A, AF_EXIT, 80),
	};
	af_writer_options o = {.variant = AF_VARIANT_BTRACE};
	size_t len, mlen;
	uint8_t *map, *buf = write_case(o, ops, sizeof ops / sizeof *ops, &len, &map, &mlen);
	af_trace *t = NULL;
	af_error e = {0};
	const af_trace_info *i;

	cr_assert_eq(parse_with(buf, len, map, mlen, &t, &e), AF_OK, "%s", e.message);
	i = af_trace_get_info(t);
	cr_assert_eq(i->version, 5);
	cr_assert_eq(i->record_size, 16);
	cr_assert_eq(i->enters, 3);
	cr_assert_eq(i->exits, 3);
	cr_assert_eq(i->methods, 2); /* the ones called */
	cr_assert_eq(i->threads_with_records, 2);
	cr_assert_eq(i->truncated_bytes, 0);
	cr_assert_eq(i->calls_clipped + i->calls_stale + i->starts_clamped, 0);
	af_trace_free(t);
	free(map);
	free(buf);
	SAME(ops);
}

/* ------------------------------------------------------------------ */
/* What only btrace has                                                */

/* A trace of raw records (start ns, duration ns, tid, method id), with
 * methods 1 to 6 named a to f in the mapping. */
typedef struct rec {
	uint64_t start, dur;
	uint32_t tid, mid;
} rec;

static uint8_t *write_raw(const rec *r, size_t n, uint64_t restart, size_t *len,
                          uint8_t **map, size_t *map_len)
{
	static const char *const names[] = {"a", "b", "c", "d", "e", "f"};
	af_writer_options o = {.variant = AF_VARIANT_BTRACE, .btrace_no_padding = 1,
	                       .btrace_restart_ns = restart};
	af_writer *w = af_writer_new(&o);
	size_t i;

	cr_assert_not_null(w);
	for (i = 0; i < 6; i++)
		cr_assert_eq(af_writer_method(w, 4 * ((uint32_t)i + 1), "x.Y", names[i],
		                              i == 5 ? "" : "(ILjava/lang/String;)V", ""), 0);
	for (i = 0; i < n; i++)
		cr_assert_eq(af_writer_btrace_record(w, r[i].start, r[i].dur, r[i].tid,
		                                     r[i].mid), 0);
	cr_assert_eq(af_writer_btrace_mapping(w, map, map_len), 0);
	return t_finish(w, len, NULL);
}

static void raw_folds_as(const rec *r, size_t n, uint64_t restart, const char *want,
                         af_trace_info *info)
{
	size_t len, mlen;
	uint8_t *map, *buf = write_raw(r, n, restart, &len, &map, &mlen);
	char *got = folded_with(buf, len, map, mlen, NULL);

	cr_assert_str_eq(got, want);
	if (info) {
		af_trace *t = NULL;
		af_error e = {0};
		cr_assert_eq(parse_with(buf, len, map, mlen, &t, &e), AF_OK);
		*info = *af_trace_get_info(t);
		af_trace_free(t);
	}
	free(got);
	free(map);
	free(buf);
}

#define US 1000u

Test(btrace, thread_ids_past_15_bits_spill_into_the_duration)
{
	/* 40000 = 0x9C40: its bit 15 lands on the duration's bit 0, as btrace's
	 * unmasked writer puts it; the reader masks the tid to 7232 and reads
	 * a duration 1 ns longer: a call from 1 ns to 999 ns (0 µs) ends at
	 * 1000 ns (1 µs) */
	static const rec r[] = {{1, 998, 40000, 1}, {1, 998, 7, 2}};
	raw_folds_as(r, 2, 0, "thread 7232;x.Y.a 1\n", NULL);
}

Test(btrace, method_ids_past_23_bits_spill_into_the_thread_id)
{
	/* bit 23 of the method id lands on the tid's bit 0: thread 2 reads as
	 * 3, and the method as 2^23 + 5 masked: 5 */
	static const rec r[] = {{0, 7 * US, 2, (1u << 23) | 5}};
	raw_folds_as(r, 1, 0, "thread 3;x.Y.e 7\n", NULL);
}

Test(btrace, begins_before_the_latest_start_are_clamped_to_it)
{
	/* restarted 5 µs after the time base: a call begun at the time base
	 * (btrace's begin of -1) or before it (a negative start) is begun at
	 * 5 µs; a call that ended before 5 µs is left from the run before */
	static const rec r[] = {
		{0, 4 * US, 1, 3},                 /* ended at 4 µs: stale */
		{1 * US, 2 * US, 1, 3},            /* ended at 3 µs: stale */
		{0, 20 * US, 1, 1},                /* 5 to 20 µs */
		{(uint64_t)-3000, 33 * US, 2, 2},  /* 5 to 30 µs */
	};
	af_trace_info i;

	raw_folds_as(r, 4, 5 * US, "thread 1;x.Y.a 15\nthread 2;x.Y.b 25\n", &i);
	cr_assert_eq(i.calls_stale, 2);
	cr_assert_eq(i.starts_clamped, 2);
	/* with no restart, a negative start is clamped to the time base */
	raw_folds_as(r + 3, 1, 0, "thread 2;x.Y.b 30\n", &i);
	cr_assert_eq(i.starts_clamped, 1);
	cr_assert_eq(i.calls_stale, 0);
}

Test(btrace, calls_under_the_threshold_leave_their_time_to_the_caller)
{
	/* a calls b (10 to 20 µs), which called c (not written: under the
	 * threshold), then d (50 to 60 µs) */
	static const rec r[] = {
		{10 * US, 10 * US, 1, 2}, {50 * US, 10 * US, 1, 4}, {0, 100 * US, 1, 1},
	};
	raw_folds_as(r, 3, 0, "thread 1;x.Y.a 80\nthread 1;x.Y.a;x.Y.b 10\n"
	                      "thread 1;x.Y.a;x.Y.d 10\n", NULL);
}

Test(btrace, records_in_any_order_nest_by_containment)
{
	/* the same calls in end order (as btrace writes them), reversed, and
	 * threads mixed */
	static const rec ends[] = {
		{20 * US, 5 * US, 1, 3}, {10 * US, 30 * US, 1, 2}, {5 * US, 1 * US, 2, 4},
		{0, 100 * US, 1, 1},     {0, 50 * US, 2, 5},
	};
	static const rec mixed[] = {
		{0, 50 * US, 2, 5},      {0, 100 * US, 1, 1}, {5 * US, 1 * US, 2, 4},
		{10 * US, 30 * US, 1, 2}, {20 * US, 5 * US, 1, 3},
	};
	const char *want = "thread 1;x.Y.a 70\nthread 1;x.Y.a;x.Y.b 25\n"
	                   "thread 1;x.Y.a;x.Y.b;x.Y.c 5\nthread 2;x.Y.e 49\n"
	                   "thread 2;x.Y.e;x.Y.d 1\n";

	raw_folds_as(ends, 5, 0, want, NULL);
	raw_folds_as(mixed, 5, 0, want, NULL);
}

Test(btrace, equal_calls_nest_the_earlier_record_in_the_later)
{
	/* b's record comes first: it ended first (or at once), so it is the
	 * callee; written the other way round, a is */
	static const rec r[] = {{0, 10 * US, 1, 2}, {0, 10 * US, 1, 1}};
	static const rec swapped[] = {{0, 10 * US, 1, 1}, {0, 10 * US, 1, 2}};

	raw_folds_as(r, 2, 0, "thread 1;x.Y.a;x.Y.b 10\n", NULL);
	raw_folds_as(swapped, 2, 0, "thread 1;x.Y.b;x.Y.a 10\n", NULL);
}

Test(btrace, overlapping_calls_are_cut_at_the_end_of_the_one_they_began_in)
{
	/* b begins inside a and ends after it: cut at a's end, and counted */
	static const rec r[] = {{50 * US, 100 * US, 1, 2}, {0, 100 * US, 1, 1},
	                        {120 * US, 10 * US, 1, 3}};
	af_trace_info i;

	raw_folds_as(r, 3, 0, "thread 1;x.Y.a 50\nthread 1;x.Y.a;x.Y.b 50\n"
	                      "thread 1;x.Y.c 10\n", &i);
	cr_assert_eq(i.calls_clipped, 1);
}

Test(btrace, unused_slots_and_a_cut_record)
{
	static const rec r[] = {{0, 10 * US, 1, 1}};
	static const uint8_t slot[16] = {0xFF, 0xFF}; /* w1 zero: unused */
	static const uint8_t cut[5] = {1, 2, 3, 4, 5};
	af_writer_options o = {.variant = AF_VARIANT_BTRACE, .btrace_no_padding = 1};
	af_writer *w = af_writer_new(&o);
	af_trace *t;
	size_t len;
	uint8_t *buf;

	cr_assert_eq(af_writer_raw(w, slot, sizeof slot), 0);
	cr_assert_eq(af_writer_btrace_record(w, r[0].start, r[0].dur, 1, 1), 0);
	cr_assert_eq(af_writer_raw(w, cut, sizeof cut), 0);
	buf = t_finish(w, &len, NULL);
	t = t_parse(buf, len);
	cr_assert_eq(af_trace_get_info(t)->enters, 1);
	cr_assert_eq(af_trace_get_info(t)->truncated_bytes, 5);
	cr_assert_eq(af_trace_get_info(t)->data_end, len - 5);
	af_trace_free(t);
	/* a zero tail of any length is the file's unused part */
	memset(buf + len - 5, 0, 5);
	t = t_parse(buf, len);
	cr_assert_eq(af_trace_get_info(t)->truncated_bytes, 0);
	af_trace_free(t);
	free(buf);
}

/* ------------------------------------------------------------------ */
/* Names                                                               */

Test(btrace, names_come_from_the_mapping)
{
	static const rec r[] = {{0, 10 * US, 1, 1}, {2 * US, 3 * US, 1, 6}};
	size_t len, mlen;
	uint8_t *map, *buf = write_raw(r, 2, 0, &len, &map, &mlen);
	af_tree_options sig = {.signatures = 1};
	char *f;

	cr_assert_eq(memcmp(map, "#", 1), 0);
	cr_assert(memmem(map, mlen, "\n1,1,x.Y a (ILjava/lang/String;)V\n", 34));
	cr_assert(memmem(map, mlen, "\n6,1,x.Y f\n", 11)); /* native: no descriptor */
	f = folded_with(buf, len, map, mlen, &sig);
	cr_assert_str_eq(f, "thread 1;x.Y.a(int, java.lang.String) 7\n"
	                    "thread 1;x.Y.a(int, java.lang.String);x.Y.f 3\n");
	free(f);
	free(map);
	free(buf);
}

Test(btrace, without_a_mapping_methods_are_named_by_id)
{
	static const rec r[] = {{0, 10 * US, 1, 1}, {2 * US, 3 * US, 1, 6}};
	size_t len, mlen;
	uint8_t *map, *buf = write_raw(r, 2, 0, &len, &map, &mlen);
	af_trace *t = t_parse(buf, len);
	char *f;

	cr_assert(af_trace_get_info(t)->names_missing);
	af_trace_free(t);
	f = t_folded(buf, len, AF_CLOCK_WALL, NULL);
	cr_assert_str_eq(f, "thread 1;method#1 7\nthread 1;method#1;method#6 3\n");
	free(f);
	free(map);
	free(buf);
}

Test(btrace, a_method_the_mapping_lacks_is_an_error)
{
	static const rec r[] = {{0, 10 * US, 1, 1}, {2 * US, 3 * US, 1, 9}};
	size_t len, mlen;
	uint8_t *map, *buf = write_raw(r, 2, 0, &len, &map, &mlen);
	af_trace *t = NULL;
	af_error e = {0};

	cr_assert_neq(parse_with(buf, len, map, mlen, &t, &e), AF_OK);
	cr_assert_null(t);
	cr_assert_str_eq(e.message, "record of method id 9, which the method mapping "
	                            "does not name (a mapping of another build?)");
	cr_assert_eq(e.offset, 32 + 16 + 8);
	free(map);
	free(buf);
}

/* The error of parsing a mapping text: "message (line N)". */
static void mapping_says(const char *text, const char *want)
{
	af_btrace_mapping *m = NULL;
	af_error e = {0};
	char got[512];

	cr_assert_neq(af_btrace_mapping_parse(text, strlen(text), &m, &e), AF_OK,
	              "parsed: %s", text);
	cr_assert_null(m);
	cr_assert_eq(e.offset, -1);
	snprintf(got, sizeof got, "%s (line %lld)", e.message, e.line);
	cr_assert_str_eq(got, want);
}

Test(btrace, malformed_mappings_name_their_line)
{
	af_btrace_mapping *m = NULL;
	af_error e = {0};
	static const char good[] = "#8f0a\r\n1,17,a.B c (I)V\r\n\r\n2,8,a.B d\n# note\n";

	cr_assert_eq(af_btrace_mapping_parse(good, sizeof good - 1, &m, &e), AF_OK,
	             "%s (line %lld)", e.message, e.line);
	cr_assert_eq(af_btrace_mapping_count(m), 2);
	af_btrace_mapping_free(m);

	mapping_says("", "the method mapping is empty (no \"#<uuid>\" line) (line 1)");
	mapping_says("1,1,a.B c\n", "not a btrace method mapping: its first line is "
	                            "not \"#<uuid>\" (line 1)");
	mapping_says("#u\n1,1,a.B c\nx,1,a.B d\n",
	             "method line is not \"<id>,<access flags>,<class> <method>[ "
	             "<descriptor>]\": no method id before the first comma (line 3)");
	mapping_says("#u\n1;1,a.B c\n",
	             "method line is not \"<id>,<access flags>,<class> <method>[ "
	             "<descriptor>]\": no method id before the first comma (line 2)");
	mapping_says("#u\n1,,a.B c\n",
	             "method line is not \"<id>,<access flags>,<class> <method>[ "
	             "<descriptor>]\": no access flags before the second comma (line 2)");
	mapping_says("#u\n1,1,a.B\n",
	             "method line is not \"<id>,<access flags>,<class> <method>[ "
	             "<descriptor>]\": no method name after the class (line 2)");
	mapping_says("#u\n1,1,\n",
	             "method line is not \"<id>,<access flags>,<class> <method>[ "
	             "<descriptor>]\": no class and method after the flags (line 2)");
	mapping_says("#u\n1,1,a.B c V\n",
	             "method line is not \"<id>,<access flags>,<class> <method>[ "
	             "<descriptor>]\": the descriptor does not begin with '(' (line 2)");
	mapping_says("#u\n1,1,a.B c ()V x\n",
	             "method line is not \"<id>,<access flags>,<class> <method>[ "
	             "<descriptor>]\": more than three words after the flags (line 2)");
	mapping_says("#u\n1,1,a.B  c\n",
	             "method line is not \"<id>,<access flags>,<class> <method>[ "
	             "<descriptor>]\": two spaces in a row, or a space at an end (line 2)");
	mapping_says("#u\n1,1,a.B c \n",
	             "method line is not \"<id>,<access flags>,<class> <method>[ "
	             "<descriptor>]\": a space at the end (line 2)");
	mapping_says("#u\n8388608,1,a.B c\n",
	             "method id 8388608 does not fit the 23 bits of a btrace record "
	             "(line 2)");
	mapping_says("#u\n99999999999,1,a.B c\n",
	             "method line is not \"<id>,<access flags>,<class> <method>[ "
	             "<descriptor>]\": no method id before the first comma (line 2)");
	mapping_says("#u\n3,1,a.B c\n4,1,a.B d\n3,1,a.B e\n",
	             "method id 3 given twice (first on line 2) (line 4)");
	mapping_says("#u\n3,1,a.B\tc\n", "a tab in a line of the method mapping (line 2)");
	{
		static const char nul[] = "#u\n3,1,a.B c\0\n";
		cr_assert_neq(af_btrace_mapping_parse(nul, sizeof nul - 1, &m, &e), AF_OK);
		cr_assert_str_eq(e.message, "a NUL byte in a line of the method mapping");
		cr_assert_eq(e.line, 2);
	}
}

/* ------------------------------------------------------------------ */
/* Bad traces                                                          */

static void trace_says(const uint8_t *buf, size_t len, const char *want)
{
	af_trace *t = NULL;
	af_error e = {0};
	char got[512];

	cr_assert_neq(af_trace_parse(buf, len, NULL, &t, &e), AF_OK);
	cr_assert_null(t);
	snprintf(got, sizeof got, "%s (byte %lld)", e.message, e.offset);
	cr_assert_str_eq(got, want);
}

Test(btrace, bad_traces_name_their_byte)
{
	static const rec past[] = {{0, 10 * US, 1, 1},
	                           {(UINT64_C(1) << 44) - 1, (UINT64_C(1) << 44) + 1, 1, 1}};
	static const rec before[] = {{(uint64_t)-5000, 2000, 1, 1}};
	size_t len, mlen;
	uint8_t *map, *buf = write_raw(past, 2, 0, &len, &map, &mlen);

	trace_says(buf, 20, "input ends inside the 32-byte btrace header (byte 20)");
	trace_says(buf, 4, "input ends inside the 32-byte btrace header (byte 4)");
	trace_says(buf, len, "the call's duration (17592186044417 ns from its start at "
	                     "17592186044415 ns) runs past the end of the 45-bit clock "
	                     "(byte 48)");
	free(map);
	free(buf);
	buf = write_raw(before, 1, 0, &len, &map, &mlen);
	trace_says(buf, len, "the call ends 3000 ns before the trace's time base (byte 32)");
	free(map);
	free(buf);
}

/* Cut at every byte: the header is needed, whole records are read. */
Test(btrace, cut_at_every_byte)
{
	static const rec r[] = {{0, 10 * US, 1, 1}, {2 * US, 3 * US, 1, 2},
	                        {20 * US, 3 * US, 2, 3}};
	size_t len, mlen, cut;
	uint8_t *map, *buf = write_raw(r, 3, 0, &len, &map, &mlen);

	for (cut = 0; cut <= len; cut++) {
		af_trace *t = NULL;
		af_error e = {0};
		af_status st = parse_with(buf, cut, map, mlen, &t, &e);
		if (cut < 32) {
			if (cut >= 4)
				cr_assert_eq(st, AF_ERR_TRUNCATED, "cut at %zu: %s", cut, e.message);
			cr_assert_null(t);
			continue;
		}
		cr_assert_eq(st, AF_OK, "cut at %zu: %s", cut, e.message);
		cr_assert_eq(af_trace_get_info(t)->data_end +
		                     af_trace_get_info(t)->truncated_bytes, cut);
		cr_assert_eq(af_trace_get_info(t)->enters, (cut - 32) / 16);
		af_trace_free(t);
	}
	free(map);
	free(buf);
}

/* data/bad/btrace-*.btrace with their .btmap mapping: refused with the
 * .error's text (the trace's byte, or the mapping's line). */
Test(btrace, bad_files_with_their_mapping)
{
	DIR *d = opendir(AF_TEST_DATA "/bad");
	struct dirent *ent;
	int count = 0;

	cr_assert_not_null(d);
	while ((ent = readdir(d)) != NULL) {
		char path[1024], mpath[1024], epath[1024], got[512];
		size_t nl = strlen(ent->d_name), len, mlen, elen;
		uint8_t *buf, *map, *want;
		af_trace *t = NULL;
		af_error e = {0};
		af_btrace_mapping *m = NULL;
		af_parse_options po = {0};

		if (nl < 8 || strcmp(ent->d_name + nl - 7, ".btrace") != 0)
			continue;
		snprintf(path, sizeof path, "%s/bad/%s", AF_TEST_DATA, ent->d_name);
		snprintf(mpath, sizeof mpath, "%s/bad/%.*s.btmap", AF_TEST_DATA,
		         (int)(nl - 7), ent->d_name);
		snprintf(epath, sizeof epath, "%s/bad/%.*s.error", AF_TEST_DATA,
		         (int)(nl - 7), ent->d_name);
		buf = t_read(path, &len);
		map = t_read(mpath, &mlen);
		want = t_read(epath, &elen);
		cr_assert(buf && map && want, "%s needs its .btmap and .error", ent->d_name);
		if (af_btrace_mapping_parse(map, mlen, &m, &e) != AF_OK) {
			snprintf(got, sizeof got, "%s (line %lld)\n", e.message, e.line);
		} else {
			po.btrace_mapping = m;
			cr_assert_neq(af_trace_parse(buf, len, &po, &t, &e), AF_OK, "%s parsed",
			              ent->d_name);
			cr_assert_null(t);
			snprintf(got, sizeof got, "%s (byte %lld)\n", e.message, e.offset);
		}
		cr_expect_str_eq(got, (char *)want, "%s", ent->d_name);
		af_btrace_mapping_free(m);
		free(buf);
		free(map);
		free(want);
		count++;
	}
	closedir(d);
	cr_assert_geq(count, 3);
}

/* ------------------------------------------------------------------ */
/* The dump and the command line                                        */

Test(btrace, dump_lists_the_rebuilt_enters_and_exits)
{
	static const rec r[] = {{2 * US, 3 * US, 1, 2}, {0, 10 * US, 1, 1}};
	size_t len, mlen;
	uint8_t *map, *buf = write_raw(r, 2, 0, &len, &map, &mlen);
	char *text = NULL;
	size_t tlen = 0;
	FILE *out = open_memstream(&text, &tlen);
	af_error e = {0};

	cr_assert_eq(af_trace_dump_buffer(buf, len, NULL, out, &e), AF_OK, "%s", e.message);
	fclose(out);
	cr_assert_str_eq(text,
	                 "offset\ttid\tthread\taction\tmethod_id\tmethod\tcpu\tcpu_unwrapped"
	                 "\twall\twall_unwrapped\n"
	                 "48\t1\tthread 1\tenter\t0x4\tmethod#1\t-\t-\t0\t0\n"
	                 "32\t1\tthread 1\tenter\t0x8\tmethod#2\t-\t-\t2\t2\n"
	                 "32\t1\tthread 1\texit\t0x8\tmethod#2\t-\t-\t5\t5\n"
	                 "48\t1\tthread 1\texit\t0x4\tmethod#1\t-\t-\t10\t10\n");
	free(text);
	free(map);
	free(buf);
}

Test(btrace, command_line_reads_it_with_its_mapping)
{
	static const rec r[] = {{2 * US, 3 * US, 1, 2}, {0, 10 * US, 1, 1}};
	size_t len, mlen;
	uint8_t *map, *buf = write_raw(r, 2, 0, &len, &map, &mlen);
	char *path = t_tmp("bt.bin"), *mpath = t_tmp("bt-mapping.txt");
	char *bad = t_tmp("bt-bad-mapping.txt"), *svg = t_tmp("bt.svg");
	char *out = NULL, *err = NULL, *args;

	t_write(path, buf, len);
	t_write(mpath, map, mlen);
	t_write(bad, "#u\n1,1,x.Y a\nnonsense\n", 22);
	cr_assert(asprintf(&args, "-v --btrace-mapping '%s' --format folded '%s'", mpath,
	                   path) > 0);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert_str_eq(out, "thread 1;x.Y.a 7\nthread 1;x.Y.a;x.Y.b 3\n");
	cr_assert(strstr(err, ": btrace 2.0 trace, 16-byte records, clock wall: 2 calls "
	                      "on 1 threads\n"), "%s", err);
	cr_assert_null(strstr(err, "warning"), "%s", err);
	free(out);
	free(err);
	free(args);
	/* without the mapping: drawn by id, and told */
	cr_assert(asprintf(&args, "--format folded '%s'", path) > 0);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert_str_eq(out, "thread 1;method#1 7\nthread 1;method#1;method#2 3\n");
	cr_assert(strstr(err, "warning: btrace names its methods in a separate mapping "
	                      "file; without --btrace-mapping FILE they are drawn as "
	                      "method#ID\n"), "%s", err);
	free(out);
	free(err);
	free(args);
	/* a malformed mapping: its line, and no output left behind */
	unlink(svg);
	t_cli_says(1, "bt-bad-mapping.txt: method line is not \"<id>,<access flags>,"
	              "<class> <method>[ <descriptor>]\": no method id before the first "
	              "comma (line 3)\n", "--btrace-mapping '%s' -o '%s' '%s'", bad, svg,
	           path);
	cr_assert_neq(access(svg, F_OK), 0);
	t_cli_says(1, "bt-missing.txt: cannot open", "--btrace-mapping '%s/bt-missing.txt' "
	           "-o '%s' '%s'", AF_TEST_TMP, svg, path);
	cr_assert_neq(access(svg, F_OK), 0);
	free(path);
	free(mpath);
	free(bad);
	free(svg);
	free(map);
	free(buf);
}

Test(btrace, exits_with_no_call_open_began_at_the_time_base)
{
	/* btrace's begin of -1: the writer starts them at the time base, where
	 * this thread's first record is; V1 re-roots them there too */
	static const op ops[] = {
		THREAD(1),
		REC(1, D, AF_ENTER, 0), REC(1, D, AF_EXIT, 5),
		REC(1, A, AF_EXIT, 10), REC(1, Y, AF_ENTER, 15),
		REC(1, Y, AF_EXIT, 20), REC(1, X, AF_EXIT, 30),
	};
	SAME(ops);
}
