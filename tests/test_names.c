/*
 * test_names.c - src/names.c's interner: ids stay dense and stable while
 * its strings fill several blocks, one larger than a block has its own,
 * every string keeps its bytes, and lookups find them whatever their
 * length (the hash takes eight bytes at a time, then the rest).
 */
#include <criterion/criterion.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

/* Name `i`: its length varies from 1 to 40 bytes, so words and tails of
 * every size are hashed. */
static size_t t_name(char *buf, size_t cap, unsigned i)
{
	size_t len = (size_t)snprintf(buf, cap, "m%u.", i), want = 1 + i % 40;

	for (; len < want && len + 1 < cap; len++)
		buf[len] = (char)('a' + (i + len) % 26);
	buf[want < len ? want : len] = '\0';
	return strlen(buf);
}

Test(names, strings_in_many_blocks_keep_their_ids_and_bytes)
{
	af_mem *mem = af_mem_new(NULL, (uint64_t)1 << 30);
	af_names n = {.mem = mem};
	char buf[64], *big;
	unsigned i, count = 20000; /* about 400 KB: several 64 KiB blocks */
	size_t bigl = 200000;
	uint32_t bid;

	cr_assert_not_null(mem);
	for (i = 0; i < count; i++) {
		size_t len = t_name(buf, sizeof buf, i);
		uint32_t id = af_names_intern(&n, buf, len);
		/* short names can repeat: a repeat has the first one's id */
		cr_assert_neq(id, AF_NONE);
		cr_assert_leq(id, i);
		cr_assert_str_eq(n.str[id], buf);
	}
	big = malloc(bigl + 1);
	cr_assert_not_null(big);
	memset(big, 'x', bigl);
	big[bigl] = '\0';
	bid = af_names_intern(&n, big, bigl);
	cr_assert_neq(bid, AF_NONE);
	cr_assert_eq(strlen(n.str[bid]), bigl);
	cr_assert_eq(af_names_intern(&n, "after", 5), bid + 1);
	/* every name again: found, never added, bytes unchanged */
	{
		size_t len = n.len;
		for (i = 0; i < count; i++) {
			size_t l = t_name(buf, sizeof buf, i);
			uint32_t id = af_names_find(&n, buf, l);
			cr_assert_neq(id, AF_NONE, "name %u (%s) lost", i, buf);
			cr_assert_str_eq(n.str[id], buf);
			cr_assert_eq(af_names_intern(&n, buf, l), id);
		}
		cr_assert_eq(af_names_intern(&n, big, bigl), bid);
		cr_assert_eq(af_names_find(&n, big, bigl - 1), AF_NONE);
		cr_assert_eq(n.len, len);
	}
	free(big);
	af_names_free(&n);
	cr_assert_eq(n.len, 0);
	cr_assert_null(n.block);
	cr_assert_eq(atomic_load(&mem->used), 0, "the blocks are all given back");
	af_mem_unref(mem);
}

Test(names, a_refused_block_is_said_and_the_names_before_it_stay)
{
	/* a budget of little more than one block: the second is refused */
	af_mem *mem = af_mem_new(NULL, 96 * 1024);
	af_names n = {.mem = mem};
	char buf[64];
	unsigned i;
	uint32_t id = 0;

	cr_assert_not_null(mem);
	for (i = 0; i < 100000 && id != AF_NONE; i++)
		id = af_names_intern(&n, buf, t_name(buf, sizeof buf, i));
	cr_assert_eq(id, AF_NONE, "the budget refused a block");
	cr_assert_gt(n.len, 1000);
	for (i = 0; i < 1000; i++) {
		size_t l = t_name(buf, sizeof buf, i);
		uint32_t f = af_names_find(&n, buf, l);
		cr_assert_neq(f, AF_NONE);
		cr_assert_str_eq(n.str[f], buf);
	}
	af_names_free(&n);
	cr_assert_eq(atomic_load(&mem->used), 0);
	af_mem_unref(mem);
}

/* A name made safe: control characters dropped, ';' made ':', invalid
 * UTF-8 made U+FFFD, valid UTF-8 kept; at every place in a name of three
 * words and a tail, where the check reads a word at a time. */
Test(names, unsafe_bytes_are_cleaned_at_every_place)
{
	static const struct {
		const char *bad, *clean;
	} cases[] = {{"\x01", ""}, {"\x1f", ""}, {"\x7f", ""}, {";", ":"},
	             {"\xff", "\xEF\xBF\xBD"}, {"\xC3\xA9", "\xC3\xA9"}};
	af_mem *mem = af_mem_new(NULL, (uint64_t)1 << 30);
	af_names n = {.mem = mem};
	size_t c, at;

	cr_assert_not_null(mem);
	for (c = 0; c < sizeof cases / sizeof cases[0]; c++)
		for (at = 0; at <= 27; at++) {
			char in[64], want[64];
			const char *base = "abcdefghijklmnopqrstuvwxyz0"; /* 27 bytes */
			uint32_t id;
			snprintf(in, sizeof in, "%.*s%s%s", (int)at, base, cases[c].bad, base + at);
			snprintf(want, sizeof want, "%.*s%s%s", (int)at, base, cases[c].clean,
			         base + at);
			id = af_names_intern_clean(&n, in, strlen(in));
			cr_assert_neq(id, AF_NONE);
			cr_assert_str_eq(n.str[id], want, "case %zu at %zu", c, at);
		}
	af_names_free(&n);
	af_mem_unref(mem);
}
