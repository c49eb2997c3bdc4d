/*
 * test_mapping.c - the ProGuard/R8 mapping reader at its edges: one class
 * of very many methods sharing an obfuscated name (the quadratic
 * case, which must stay linear in parsing and cheap in every lookup), the
 * names it joins, the limit on names, and files that are no mapping at
 * all.  The common lookups are pinned in test_views.c.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* One class of `n` methods all obfuscated to "a", each with its own
 * parameter type, as R8 writes a class it overloads hard. */
static char *one_big_class(size_t n, size_t *len)
{
	size_t cap = 64 + n * 64, i;
	char *s = malloc(cap);
	int k;

	cr_assert_not_null(s);
	k = snprintf(s, cap, "com.example.Big -> a:\n");
	*len = (size_t)k;
	for (i = 0; i < n; i++) {
		k = snprintf(s + *len, cap - *len, "    %zu:%zu:void method%zu(com.example.T%zu):"
		             "7:7 -> a\n", i + 1, i + 1, i, i);
		cr_assert(k > 0 && (size_t)k < cap - *len);
		*len += (size_t)k;
	}
	return s;
}

/* The case: 160,000 methods of one class sharing an obfuscated
 * name took 56 s to parse (each name was compared with every one before
 * it), and each lookup by descriptor walked all of them.  Now both are
 * linear: the timeout is far above what a sanitized build takes and far
 * below what the quadratic code took. */
Test(mapping, one_class_of_160k_methods_is_read_and_looked_up_in_linear_time,
     .timeout = 60)
{
	size_t n = 160000, len, i, bars = 0, more = 0;
	char *text = one_big_class(n, &len), desc[64], want[64];
	const char *joined, *tail;
	af_mapping *m = NULL;
	af_error e = {0};

	cr_assert_eq(af_mapping_parse(text, len, &m, &e), AF_OK, "%s (line %lld)",
	             e.message, e.line);
	for (i = 0; i < n; i++) {
		snprintf(desc, sizeof desc, "(Lcom/example/T%zu;)V", i);
		snprintf(want, sizeof want, "method%zu", i);
		cr_assert_str_eq(af_mapping_method(m, "a", "a", desc), want);
	}
	/* nothing picks one: the names joined, as many as fit in a name, and
	 * how many more there are */
	joined = af_mapping_method(m, "a", "a", NULL);
	cr_assert_not_null(joined);
	cr_assert_leq(strlen(joined), 1u << 20);
	cr_assert(strncmp(joined, "method0|method1|method2|", 24) == 0);
	for (i = 0; joined[i]; i++)
		bars += joined[i] == '|';
	tail = strrchr(joined, '|');
	cr_assert_eq(sscanf(tail, "|(%zu more)", &more), 1, "%s", tail);
	cr_assert_eq(bars + more, n, "%zu names shown, %zu more", bars, more);
	/* unknown types: the joined names */
	cr_assert_eq(af_mapping_method(m, "a", "a", "(J)V"), joined);
	af_mapping_free(m);
	free(text);
}

/* The joined name and the pick by types keep their rules when the group is
 * read in one pass: a name once, frames inlined into a method left out,
 * types two methods share pick neither. */
Test(mapping, overloads_inlined_frames_and_repeated_names)
{
	static const char text[] =
		"com.example.C -> a:\n"
		"    void put(int) -> a\n"
		"    void put(long) -> a\n"
		"    void putAll(int) -> a\n"
		"    3:3:void inl(int):5:5 -> a\n"
		"    3:3:void outer(java.lang.String):9:9 -> a\n"
		"    void put(int) -> a\n"
		"com.example.D -> b:\n"
		"    void c.Other.moved(int) -> a\n"
		"    void stay(long) -> a\n";
	af_mapping *m = NULL;
	af_error e = {0};

	cr_assert_eq(af_mapping_parse(text, sizeof text - 1, &m, &e), AF_OK, "%s", e.message);
	cr_assert_str_eq(af_mapping_method(m, "a", "a", NULL), "put|putAll|outer");
	cr_assert_str_eq(af_mapping_method(m, "a", "a", "(I)V"), "put|putAll|outer");
	cr_assert_str_eq(af_mapping_method(m, "a", "a", "(J)V"), "put");
	cr_assert_str_eq(af_mapping_method(m, "a", "a", "(Ljava/lang/String;)V"), "outer");
	/* mixed: the plain name gets its class, so none loses it */
	cr_assert_str_eq(af_mapping_method(m, "b", "a", NULL),
	                 "c.Other.moved|com.example.D.stay");
	cr_assert_str_eq(af_mapping_method(m, "b", "a", "(I)V"), "c.Other.moved");
	af_mapping_free(m);
}

/* The same answers from a group large enough to find types by hash, not
 * by searching its members. */
Test(mapping, overloads_of_a_large_group_pick_the_same)
{
	static const char head[] =
		"com.example.C -> a:\n"
		"    void put(int) -> a\n"
		"    void put(long) -> a\n"
		"    void putAll(int) -> a\n"
		"    3:3:void inl(boolean):5:5 -> a\n"
		"    3:3:void outer(java.lang.String):9:9 -> a\n"
		"    void put(int) -> a\n";
	char text[4096], desc[64], want[64];
	size_t len = sizeof head - 1;
	af_mapping *m = NULL;
	af_error e = {0};
	int i;

	memcpy(text, head, len);
	for (i = 0; i < 40; i++)
		len += (size_t)snprintf(text + len, sizeof text - len,
		                        "    void fill%d(com.f.F%d) -> a\n", i, i);
	cr_assert_eq(af_mapping_parse(text, len, &m, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_mapping_method(m, "a", "a", "(I)V"), af_mapping_method(m, "a", "a", NULL));
	cr_assert(strncmp(af_mapping_method(m, "a", "a", NULL), "put|putAll|outer|fill0|", 23) == 0);
	cr_assert_str_eq(af_mapping_method(m, "a", "a", "(J)V"), "put");
	cr_assert_str_eq(af_mapping_method(m, "a", "a", "(Ljava/lang/String;)V"), "outer");
	/* a frame inlined into a method is no candidate */
	cr_assert_eq(af_mapping_method(m, "a", "a", "(Z)V"), af_mapping_method(m, "a", "a", NULL));
	for (i = 0; i < 40; i++) {
		snprintf(desc, sizeof desc, "(Lcom/f/F%d;)V", i);
		snprintf(want, sizeof want, "fill%d", i);
		cr_assert_str_eq(af_mapping_method(m, "a", "a", desc), want);
	}
	af_mapping_free(m);
}

/* Builds "com.A -> a:\n    void NAME() -> b\n" with NAME `n` bytes. */
static char *long_name_mapping(size_t n, size_t *len)
{
	static const char head[] = "com.A -> a:\n    void ", tail[] = "() -> b\n";
	char *s = malloc(sizeof head + n + sizeof tail);

	cr_assert_not_null(s);
	memcpy(s, head, sizeof head - 1);
	memset(s + sizeof head - 1, 'x', n);
	memcpy(s + sizeof head - 1 + n, tail, sizeof tail);
	*len = sizeof head - 1 + n + sizeof tail - 1;
	return s;
}

/* Names from a mapping are held to the limit on names that traces' names
 * keep (1 MiB): a 100 MB name used to reach the SVG whole. */
Test(mapping, names_past_the_name_limit_are_refused)
{
	size_t len, fits = (1u << 20) - strlen("    void () -> b");
	char *text = long_name_mapping(fits, &len);
	af_mapping *m = NULL;
	af_error e = {0};
	const char *got;

	/* a line of exactly the limit is read, its name whole */
	cr_assert_eq(af_mapping_parse(text, len, &m, &e), AF_OK, "%s", e.message);
	got = af_mapping_method(m, "a", "b", NULL);
	cr_assert_not_null(got);
	cr_assert_eq(strlen(got), fits);
	af_mapping_free(m);
	m = NULL;
	free(text);
	/* one byte more is refused, with the line */
	text = long_name_mapping(fits + 1, &len);
	cr_assert_eq(af_mapping_parse(text, len, &m, &e), AF_ERR_LIMIT);
	cr_assert_null(m);
	cr_assert_str_eq(e.message, "line longer than 1048576 bytes, the limit on names");
	cr_assert_eq(e.line, 2);
	free(text);
	/* and the command says so (a 100 MB name would be read the same) */
	t_cli_says(1, "data/bad/mapping-long-name.mapping: line longer than 1048576 "
	              "bytes, the limit on names (line 2)",
	           "--mapping '%s/bad/mapping-long-name.mapping' -o '%s/m.svg' '%s/app.trace'",
	           AF_TEST_DATA, AF_TEST_TMP, AF_TEST_SAMPLES);
}

/* A file that never ends in text is refused at its first NUL: /dev/zero
 * used to be read until memory ran out. */
Test(mapping, dev_zero_is_refused_at_once, .timeout = 30)
{
	af_mapping *m = NULL;
	af_error e = {0};

	cr_assert_eq(af_mapping_load("/dev/zero", &m, &e), AF_ERR_FORMAT, "%s", e.message);
	cr_assert_null(m);
	cr_assert_str_eq(e.message, "NUL byte: not a mapping file");
	cr_assert_eq(e.line, 1);
	/* a folder: the reason, not just "read failed" */
	cr_assert_eq(af_mapping_load(AF_TEST_DATA, &m, &e), AF_ERR_IO);
	cr_assert_str_eq(e.message, "read failed: Is a directory");
}
