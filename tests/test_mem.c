/*
 * test_mem.c - src/mem.c's blocks with the default allocator: small ones
 * from malloc, big ones (1 MiB and more) mapped by the library in huge
 * pages; a block keeps its bytes as it grows and shrinks across that line,
 * a zeroed one is zero, and the budget's count comes back to nothing.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"

#define MiB ((size_t)1 << 20)

/* Writes a pattern that tells every byte's place apart. */
static void t_fill(uint8_t *p, size_t n, unsigned seed)
{
	size_t i;
	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131u + (i >> 12) + seed);
}

/* The first byte of `p[0..n)` that is not the pattern, or n. */
static size_t t_check(const uint8_t *p, size_t n, unsigned seed)
{
	size_t i;
	for (i = 0; i < n; i++)
		if (p[i] != (uint8_t)(i * 131u + (i >> 12) + seed))
			return i;
	return n;
}

/* A block grown and shrunk through sizes on both sides of 1 MiB keeps
 * the bytes it had up to the smaller size, each step. */
Test(mem, blocks_keep_their_bytes_across_the_big_block_line)
{
	static const size_t sizes[] = {
		100, MiB - 64, MiB - 32, 1 * MiB, 2 * MiB - 32, 2 * MiB - 16, 2 * MiB, 3 * MiB, 4 * MiB - 16,
		4 * MiB + 1, 40 * MiB, 41 * MiB, 6 * MiB, 2 * MiB - 17, MiB - 40, 4096, 12 * MiB, 1,
	};
	af_mem *m = af_mem_new(NULL, UINT64_MAX);
	uint8_t *p = NULL;
	size_t held = 0, i;

	cr_assert(m);
	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		size_t n = sizes[i], keep = held < n ? held : n;
		uint8_t *q = af_realloc(m, p, n);
		cr_assert(q, "realloc to %zu bytes", n);
		cr_expect_eq(t_check(q, keep, (unsigned)i), keep,
		             "step %zu (%zu -> %zu bytes): bytes lost", i, held, n);
		t_fill(q, n, (unsigned)i + 1);
		p = q;
		held = n;
	}
	af_free(m, p);
	cr_expect_eq(atomic_load(&m->used), 0, "the budget's count ends at %llu bytes",
	             (unsigned long long)atomic_load(&m->used));
	af_mem_unref(m);
}

/* Zeroed blocks are zero at every size, reused memory or not. */
Test(mem, zeroed_blocks_are_zero)
{
	static const size_t sizes[] = {64, 3 * MiB, 100, 3 * MiB, 9 * MiB + 5};
	af_mem *m = af_mem_new(NULL, UINT64_MAX);
	size_t i, k;

	cr_assert(m);
	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		uint8_t *p = af_calloc(m, sizes[i], 1);
		cr_assert(p);
		for (k = 0; k < sizes[i] && !p[k]; k++)
			;
		cr_expect_eq(k, sizes[i], "block of %zu bytes: byte %zu is not zero", sizes[i], k);
		t_fill(p, sizes[i], 7); /* dirty it for the next one */
		af_free(m, p);
	}
	af_mem_unref(m);
}

#if defined(__SANITIZE_ADDRESS__)
#define T_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define T_SANITIZED 1
#endif
#endif

#if !defined(T_SANITIZED) && defined(__linux__)
/* The VmFlags line of the mapping holding `p` in /proc/self/smaps, or
 * an empty string. */
static void t_vm_flags(const void *p, char *flags, size_t cap)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	int inside = 0;

	flags[0] = '\0';
	cr_assert(f);
	while (fgets(line, sizeof line, f)) {
		unsigned long lo, hi;
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			inside = (uintptr_t)p >= lo && (uintptr_t)p < hi;
		else if (inside && strncmp(line, "VmFlags:", 8) == 0) {
			snprintf(flags, cap, "%s", line + 8);
			break;
		}
	}
	fclose(f);
}
#endif

#if !defined(T_SANITIZED) && defined(__linux__)
/* Lets go of `m`, whose blocks are all freed: its count must be back at 0. */
static void t_mem_done(af_mem *m)
{
	cr_expect_eq(atomic_load(&m->used), 0, "the budget's count ends at %llu bytes",
	             (unsigned long long)atomic_load(&m->used));
	af_mem_unref(m);
}
#endif

/* A big block is a mapping of its own that starts on a 2 MiB boundary
 * and may be filled with huge pages ("hg"); a small one is not.  Under
 * AddressSanitizer every block is the sanitizer's. */
Test(mem, big_blocks_are_mapped_for_huge_pages)
{
#if defined(T_SANITIZED) || !defined(__linux__)
	cr_skip_test("big blocks are malloc's under AddressSanitizer");
#else
	af_mem *m = af_mem_new(NULL, UINT64_MAX);
	uint8_t *big, *small;
	char flags[512];

	cr_assert(m);
	big = af_malloc(m, 1 * MiB);
	small = af_malloc(m, 1000);
	cr_assert(big && small);
	big[0] = small[0] = 1;
	cr_expect_eq(((uintptr_t)big - sizeof(max_align_t)) % (2 * MiB), 0,
	             "a big block's mapping starts at %p, not on a 2 MiB boundary", (void *)big);
	t_vm_flags(big, flags, sizeof flags);
	cr_expect(strstr(flags, " hg"), "a big block is not advised for huge pages: %s", flags);
	/* grown, it moves its pages and keeps the advice */
	big = af_realloc(m, big, 33 * MiB + 5);
	cr_assert(big);
	t_vm_flags(big, flags, sizeof flags);
	cr_expect(strstr(flags, " hg"), "a grown big block lost the advice: %s", flags);
	t_vm_flags(small, flags, sizeof flags);
	cr_expect(!strstr(flags, " hg"), "a small block sits in a huge-page mapping: %s", flags);
	af_free(m, big);
	af_free(m, small);
	af_mem_unref(m);
#endif
}

/* A big block counts its whole huge pages against the budget: once
 * touched, each is in memory whole.  Two blocks of a little over 1 MiB
 * take 4 MiB, more than a budget of 3 MiB, where their bytes alone would
 * fit; growing one past its pages is refused the same way, and leaves it
 * as it was. */
Test(mem, a_big_block_counts_its_whole_pages_against_the_budget)
{
#if defined(T_SANITIZED) || !defined(__linux__)
	cr_skip_test("big blocks are malloc's under AddressSanitizer");
#else
	af_mem *m = af_mem_new(NULL, 3 * MiB);
	uint8_t *a, *b, *c;

	cr_assert(m);
	a = af_malloc(m, MiB + 100);
	cr_assert(a);
	cr_expect_eq(atomic_load(&m->used), 2 * MiB,
	             "a big block of 1 MiB + 100 counts %llu bytes, not its 2 MiB page",
	             (unsigned long long)atomic_load(&m->used));
	t_fill(a, MiB + 100, 5);
	b = af_malloc(m, MiB + 100);
	cr_expect_null(b, "a second big block went past a budget of 3 MiB");
	cr_expect(af_mem_refused(m), "the refusal was not counted");
	/* within its page, it grows; past it, with the header, it may not */
	c = af_realloc(m, a, 2 * MiB - 4096);
	cr_assert(c, "a big block could not grow within its page");
	a = c;
	c = af_realloc(m, a, 2 * MiB);
	cr_expect_null(c, "a big block grew past its page and the budget");
	cr_expect_eq(t_check(a, MiB + 100, 5), MiB + 100,
	             "a refused growth lost the bytes");
	af_free(m, b);
	af_free(m, a);
	t_mem_done(m);
#endif
}

/* A big block freed is kept and handed out again, in whole or in part:
 * its pages are in memory already.  Handed out for af_calloc, it is zero
 * again; its pieces do not overlap, and a piece grows as any block. */
Test(mem, freed_big_blocks_are_handed_out_again_zeroed_when_asked)
{
#if defined(T_SANITIZED) || !defined(__linux__)
	cr_skip_test("big blocks are malloc's under AddressSanitizer");
#else
	af_mem *m = af_mem_new(NULL, UINT64_MAX);
	uint8_t *a, *b, *c;
	size_t i, zero = 0;

	cr_assert(m);
	a = af_malloc(m, 3 * MiB); /* two huge pages */
	cr_assert(a);
	t_fill(a, 3 * MiB, 7);
	af_free(m, a);
	b = af_calloc(m, 1, MiB + 100); /* the first of them */
	cr_assert(b);
	cr_expect_eq(b, a, "a freed big block was not handed out again (%p, then %p)",
	             (void *)a, (void *)b);
	for (i = 0; i < MiB + 100; i++)
		zero += b[i] == 0;
	cr_expect_eq(zero, MiB + 100, "a block handed out again for af_calloc kept %zu "
	             "bytes of the old one", MiB + 100 - zero);
	c = af_malloc(m, MiB); /* the second */
	cr_assert(c);
	cr_expect_eq(c, a + 2 * MiB, "the rest of a freed block was not handed out");
	t_fill(c, MiB, 3);
	for (i = 0, zero = 0; i < MiB + 100; i++)
		zero += b[i] == 0;
	cr_expect_eq(zero, MiB + 100, "two blocks cut from one freed block overlap");
	c = af_realloc(m, c, 9 * MiB);
	cr_assert(c);
	cr_expect_eq(t_check(c, MiB, 3), MiB, "a piece of a freed block lost its bytes growing");
	af_free(m, b);
	af_free(m, c);
	t_mem_done(m);
#endif
}

/* The big blocks kept for reuse go back to the system when the last
 * context is let go: a library user who has freed everything holds none. */
Test(mem, kept_big_blocks_go_back_with_the_last_context)
{
#if defined(T_SANITIZED) || !defined(__linux__)
	cr_skip_test("big blocks are malloc's under AddressSanitizer");
#else
	af_mem *m = af_mem_new(NULL, UINT64_MAX), *other = af_mem_new(NULL, UINT64_MAX);
	uint8_t *a;
	void *page;

	cr_assert(m && other);
	a = af_malloc(m, 3 * MiB);
	cr_assert(a);
	a[0] = 1;
	page = (void *)((uintptr_t)a & ~(uintptr_t)4095);
	af_free(m, a);
	af_mem_unref(m);
	/* another context is alive: the block is kept */
	cr_expect_eq(msync(page, 4096, MS_ASYNC), 0, "a freed big block was unmapped "
	             "while a context was alive");
	af_mem_unref(other);
	cr_expect(msync(page, 4096, MS_ASYNC) == -1 && errno == ENOMEM,
	          "a big block was still mapped after the last context went");
#endif
}
