/*
 * mem.c - every block the library allocates, through the caller's allocator
 * (or malloc), counted against a budget; growable arrays and byte strings
 * (af_buf) on top of it.
 *
 * Each block starts with a small header holding its size, so frees and
 * reallocations keep the count exact whatever allocator is underneath
 * (sqlite's approach).  Blocks are per table growth, per interned name and
 * per arena chunk, never per record, so the header and the atomic counts
 * cost nothing measurable.
 *
 * With the default allocator, blocks of 1 MiB and more are mapped here
 * rather than by malloc, in whole huge pages (see af_is_big), and count as
 * those pages.
 */
#define _GNU_SOURCE /* madvise, mremap */
#include <assert.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "internal.h"

/* Keeps what follows aligned as malloc's blocks are. */
typedef union af_block {
	size_t size;
	max_align_t align;
} af_block;

static void *af_libc_malloc(void *ctx, size_t size)
{
	(void)ctx;
	return malloc(size);
}

static void *af_libc_realloc(void *ctx, void *ptr, size_t size)
{
	(void)ctx;
	return realloc(ptr, size);
}

static void af_libc_free(void *ctx, void *ptr)
{
	(void)ctx;
	free(ptr);
}

static const af_allocator af_libc = {af_libc_malloc, af_libc_realloc,
                                     af_libc_free, NULL};

/* What af_mem_check falls back on in a release build: malloc, no budget,
 * never freed.  Only here: every object holds the context it was given. */
static af_mem af_mem_default = {
	.a = {af_libc_malloc, af_libc_realloc, af_libc_free, NULL},
	.limit = UINT64_MAX,
	.is_static = 1,
};

uint64_t af_mem_default_budget(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGE_SIZE);

	if (pages <= 0 || size <= 0)
		return 4ull << 30;
	return (uint64_t)pages * (uint64_t)size / 2;
}

/* Contexts alive: when the last goes, so do the big blocks kept for reuse. */
static atomic_uint af_mem_live;
static void af_pool_release(void);

af_mem *af_mem_new(const af_allocator *a, uint64_t limit)
{
	const af_allocator *use = a ? a : &af_libc;
	af_mem *m = use->malloc(use->ctx, sizeof *m);

	if (!m)
		return NULL;
	memset(m, 0, sizeof *m);
	m->a = *use;
	m->limit = limit;
	atomic_init(&m->used, 0);
	atomic_init(&m->peak, 0);
	atomic_init(&m->refused, 0);
	atomic_init(&m->refs, 1);
	atomic_fetch_add(&af_mem_live, 1);
	return m;
}

af_mem *af_mem_ref(af_mem *m)
{
	if (!m->is_static)
		atomic_fetch_add_explicit(&m->refs, 1, memory_order_relaxed);
	return m;
}

void af_mem_unref(af_mem *m)
{
	if (!m || m->is_static)
		return;
	if (atomic_fetch_sub_explicit(&m->refs, 1, memory_order_acq_rel) != 1)
		return;
	m->a.free(m->a.ctx, m);
	if (atomic_fetch_sub(&af_mem_live, 1) == 1)
		af_pool_release();
}

/* Takes `bytes` from the budget; 0 on success. */
static int af_mem_take(af_mem *m, size_t bytes)
{
	uint64_t now = atomic_fetch_add_explicit(&m->used, bytes,
	                                         memory_order_relaxed) + bytes;
	uint64_t peak = atomic_load_explicit(&m->peak, memory_order_relaxed);

	if (now > m->limit || now < bytes) {
		atomic_fetch_sub_explicit(&m->used, bytes, memory_order_relaxed);
		atomic_fetch_add_explicit(&m->refused, 1, memory_order_relaxed);
		return -1;
	}
	while (now > peak &&
	       !atomic_compare_exchange_weak_explicit(&m->peak, &peak, now,
	                                              memory_order_relaxed,
	                                              memory_order_relaxed))
		;
	return 0;
}

static void af_mem_give(af_mem *m, size_t bytes)
{
	atomic_fetch_sub_explicit(&m->used, bytes, memory_order_relaxed);
}

/* ------------------------------------------------------------------ */
/* Big blocks of the default allocator                                 */

/* A fault brings in one 4 KiB page; the tables of a large trace take
 * thousands, and on a virtual machine each can cost 20 to 30 µs (more than
 * the work done in the page).  A mapping whose length is a whole number of
 * 2 MiB is placed on a 2 MiB boundary by Linux, and MADV_HUGEPAGE lets it be
 * filled 2 MiB at a fault.  Blocks of 1 MiB and more are per table, never
 * per record, and few: the unused part of their last huge page is small
 * against the faults it saves (the 4M-record trace's merged SVG: 11.9k
 * faults with malloc's mappings, 2.6k so; its peak RSS no higher).
 * Not under AddressSanitizer, which must see every block to guard it. */
#if defined(__SANITIZE_ADDRESS__)
#define AF_MAP_BIG 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define AF_MAP_BIG 0
#endif
#endif
#if !defined(AF_MAP_BIG) && defined(MADV_HUGEPAGE)
#define AF_MAP_BIG 1
#endif
#ifndef AF_MAP_BIG
#define AF_MAP_BIG 0
#endif

#define AF_HUGE_PAGE ((size_t)2 << 20)

/* Whether a block of `bytes` (its header included) is mapped by
 * af_map_big(): 1 MiB or more, and the context's allocator is malloc. */
static int af_is_big(const af_mem *m, size_t bytes)
{
	return AF_MAP_BIG && bytes >= AF_HUGE_PAGE / 2 && m->a.malloc == af_libc_malloc;
}

/* The length mapped for `bytes`: whole huge pages. */
static size_t af_map_len(size_t bytes)
{
	return (bytes + AF_HUGE_PAGE - 1) & ~(AF_HUGE_PAGE - 1);
}

/* What a block of `bytes` (its header included) costs the budget: a big
 * block its whole huge pages, each in memory whole once touched. */
static size_t af_charge(const af_mem *m, size_t bytes)
{
	size_t len = af_map_len(bytes);

	return af_is_big(m, bytes) && len >= bytes ? len : bytes;
}

/* Big blocks freed are kept, up to AF_POOL_BYTES, and handed out again:
 * their pages are in memory already, where each huge page of a fresh
 * mapping costs a fault that zeroes it (0.3 to 3 ms on a virtual machine,
 * against about 0.1 ms to clear the page by memset).  The parse frees its
 * workers' tables just before the call tree and layout want as much, and
 * each graph of a set frees what the next one takes.  A kept mapping may
 * be split: Linux treats any run of its pages as a block of its own.  They
 * go back to the system when the last context (af_mem) is let go.  Kept,
 * they are in no context's budget. */
#define AF_POOL_SLOTS 16
#define AF_POOL_BYTES ((size_t)32 << 20)

static struct af_pooled {
	char *p;
	size_t len;
} af_pool[AF_POOL_SLOTS];
static size_t af_npooled, af_pool_bytes;
static pthread_mutex_t af_pool_lock = PTHREAD_MUTEX_INITIALIZER;

#if AF_MAP_BIG
/* A kept mapping of exactly `len` bytes (the smallest that holds them, its
 * rest kept), or NULL. */
static void *af_pool_take(size_t len)
{
	size_t i, best = AF_POOL_SLOTS;
	char *p = NULL;

	pthread_mutex_lock(&af_pool_lock);
	for (i = 0; i < af_npooled; i++)
		if (af_pool[i].len >= len &&
		    (best == AF_POOL_SLOTS || af_pool[i].len < af_pool[best].len))
			best = i;
	if (best < AF_POOL_SLOTS) {
		p = af_pool[best].p;
		af_pool_bytes -= len;
		if (af_pool[best].len > len) {
			af_pool[best].p += len;
			af_pool[best].len -= len;
		} else {
			af_pool[best] = af_pool[--af_npooled];
		}
	}
	pthread_mutex_unlock(&af_pool_lock);
	return p;
}
#endif

/* Keeps the mapping `p` of `len` bytes for af_pool_take; 0 when full. */
static int af_pool_keep(void *p, size_t len)
{
	int kept = 0;

	pthread_mutex_lock(&af_pool_lock);
	if (af_npooled < AF_POOL_SLOTS && af_pool_bytes + len <= AF_POOL_BYTES) {
		af_pool[af_npooled].p = p;
		af_pool[af_npooled++].len = len;
		af_pool_bytes += len;
		kept = 1;
	}
	pthread_mutex_unlock(&af_pool_lock);
	return kept;
}

static void af_pool_release(void)
{
	pthread_mutex_lock(&af_pool_lock);
	while (af_npooled > 0) {
		af_npooled--;
		munmap(af_pool[af_npooled].p, af_pool[af_npooled].len);
	}
	af_pool_bytes = 0;
	pthread_mutex_unlock(&af_pool_lock);
}

/* A mapping of af_map_len(bytes), zero-filled when `zero`; NULL when
 * refused. */
static void *af_map_big(size_t bytes, int zero)
{
#if AF_MAP_BIG
	size_t len = af_map_len(bytes);
	void *p;

	if (len < bytes)
		return NULL;
	if ((p = af_pool_take(len)) != NULL) {
		if (zero)
			memset(p, 0, bytes);
		return p;
	}
	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	madvise(p, len, MADV_HUGEPAGE);
	return p;
#else
	(void)bytes;
	(void)zero;
	return NULL;
#endif
}

static void af_unmap_big(void *p, size_t bytes)
{
	if (!af_pool_keep(p, af_map_len(bytes)))
		munmap(p, af_map_len(bytes));
}

/* Resizes a big block that stays big: the pages move, none is copied. */
static void *af_remap_big(void *p, size_t old, size_t bytes)
{
#if AF_MAP_BIG && defined(MREMAP_MAYMOVE)
	size_t len = af_map_len(bytes);
	void *q;

	if (len < bytes)
		return NULL;
	if (len == af_map_len(old))
		return p;
	q = mremap(p, af_map_len(old), len, MREMAP_MAYMOVE);
	return q == MAP_FAILED ? NULL : q;
#else
	void *q = af_map_big(bytes, 0);
	if (q) {
		memcpy(q, p, old < bytes ? old : bytes);
		af_unmap_big(p, old);
	}
	return q;
#endif
}

/* ------------------------------------------------------------------ */
/* Blocks                                                              */

static af_mem *af_mem_check(af_mem *m)
{
	/* every structure knows its allocator; a NULL here is a bug that
	 * would send blocks past the caller's allocator and budget */
	assert(m != NULL);
	return m ? m : &af_mem_default;
}

/* A block of `size` bytes; `zero` fills it with zeros (a fresh mapping
 * already is). */
static void *af_alloc(af_mem *m, size_t size, int zero)
{
	af_block *b;
	size_t bytes;

	m = af_mem_check(m);
	if (size > SIZE_MAX - sizeof *b)
		return NULL;
	bytes = size + sizeof *b;
	if (af_mem_take(m, af_charge(m, bytes)))
		return NULL;
	if (af_is_big(m, bytes)) {
		b = af_map_big(bytes, zero);
		zero = 0;
	} else {
		b = m->a.malloc(m->a.ctx, bytes);
	}
	if (!b) {
		af_mem_give(m, af_charge(m, bytes));
		return NULL;
	}
	if (zero)
		memset(b + 1, 0, size);
	b->size = size;
	return b + 1;
}

void *af_malloc(af_mem *m, size_t size)
{
	return af_alloc(m, size, 0);
}

void *af_calloc(af_mem *m, size_t n, size_t size)
{
	size_t bytes;

	if (af_mul_overflow(n, size, &bytes))
		return NULL;
	return af_alloc(m, bytes, 1);
}

/* Moves block `b` of `old` bytes to one of `size`, where one of the two
 * is big and the other is not (or both are, with another allocator). */
static af_block *af_move(af_mem *m, af_block *b, size_t old, size_t size)
{
	int was_big = af_is_big(m, old + sizeof *b), is_big = af_is_big(m, size + sizeof *b);
	af_block *nb;

	if (!was_big && !is_big)
		return m->a.realloc(m->a.ctx, b, size + sizeof *b);
	if (was_big && is_big)
		return af_remap_big(b, old + sizeof *b, size + sizeof *b);
	nb = is_big ? af_map_big(size + sizeof *b, 0) : m->a.malloc(m->a.ctx, size + sizeof *b);
	if (!nb)
		return NULL;
	memcpy(nb, b, sizeof *b + (old < size ? old : size));
	if (was_big)
		af_unmap_big(b, old + sizeof *b);
	else
		m->a.free(m->a.ctx, b);
	return nb;
}

void *af_realloc(af_mem *m, void *ptr, size_t size)
{
	af_block *b, *nb;
	size_t old, was, now;

	if (!ptr)
		return af_malloc(m, size);
	m = af_mem_check(m);
	b = (af_block *)ptr - 1;
	old = b->size;
	if (size > SIZE_MAX - sizeof *b)
		return NULL;
	was = af_charge(m, old + sizeof *b);
	now = af_charge(m, size + sizeof *b);
	if (now > was && af_mem_take(m, now - was))
		return NULL;
	nb = af_move(m, b, old, size);
	if (!nb) {
		if (now > was)
			af_mem_give(m, now - was);
		return NULL;
	}
	if (now < was)
		af_mem_give(m, was - now);
	nb->size = size;
	return nb + 1;
}

void af_free(af_mem *m, void *ptr)
{
	af_block *b;

	if (!ptr)
		return;
	m = af_mem_check(m);
	b = (af_block *)ptr - 1;
	af_mem_give(m, af_charge(m, b->size + sizeof *b));
	if (af_is_big(m, b->size + sizeof *b))
		af_unmap_big(b, b->size + sizeof *b);
	else
		m->a.free(m->a.ctx, b);
}

char *af_strdup(af_mem *m, const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = af_malloc(m, n);

	if (p)
		memcpy(p, s, n);
	return p;
}

void af_hint_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	/* whole pages around the block: a large block is its own mapping, and
	 * advising all of it keeps it one area that mremap can still move */
	uintptr_t start = (uintptr_t)p & ~(uintptr_t)4095;
	uintptr_t end = ((uintptr_t)p + bytes + 4095) & ~(uintptr_t)4095;
	if (bytes >= (4u << 20))
		madvise((void *)start, end - start, MADV_HUGEPAGE);
#else
	(void)p;
	(void)bytes;
#endif
}

int af_grow(af_mem *m, void **ptr, size_t *cap, size_t need, size_t elem)
{
	size_t ncap, bytes;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 16;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return -1;
		ncap *= 2;
	}
	if (af_mul_overflow(ncap, elem, &bytes))
		return -1;
	p = af_realloc(m, *ptr, bytes);
	if (!p)
		return -1;
	af_hint_huge(p, bytes);
	*ptr = p;
	*cap = ncap;
	return 0;
}

int af_buf_append(af_buf *b, const void *data, size_t len)
{
	if (len > SIZE_MAX - b->len - 1)
		return -1;
	if (AF_GROW(b->mem, b->data, b->cap, b->len + len + 1))
		return -1;
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

void af_buf_free(af_buf *b)
{
	af_free(b->mem, b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

int af_buf_printf(af_buf *b, const char *fmt, ...)
{
	va_list ap;
	char tmp[512];
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -1;
	if ((size_t)n < sizeof tmp)
		return af_buf_append(b, tmp, (size_t)n);
	if (AF_GROW(b->mem, b->data, b->cap, b->len + (size_t)n + 1))
		return -1;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

int af_mem_refused(const af_mem *m)
{
	return atomic_load_explicit(&((af_mem *)m)->refused, memory_order_relaxed) != 0;
}

uint64_t af_mem_peak(const af_mem *m)
{
	return atomic_load_explicit(&((af_mem *)m)->peak, memory_order_relaxed);
}

af_status af_mem_explain(const af_mem *m, af_status st, af_error *err)
{
	char doing[sizeof err->message], size[32];

	if (st != AF_ERR_NOMEM || !m || !af_mem_refused(m))
		return st;
	if (!err)
		return AF_ERR_LIMIT;
	/* "out of memory building the call tree" -> "building the call tree" */
	snprintf(doing, sizeof doing, "%s",
	         strncmp(err->message, "out of memory", 13) == 0 ? err->message + 13
	                                                         : "");
	/* in the unit that shows it exactly, or to 0.01 MB past one MB: never
	 * "0.00 MB" */
	if (m->limit % (1u << 20) == 0)
		snprintf(size, sizeof size, "%llu MB", (unsigned long long)(m->limit >> 20));
	else if (m->limit >= (1u << 20))
		snprintf(size, sizeof size, "%.2f MB", (double)m->limit / (1u << 20));
	else if (m->limit % 1024 == 0)
		snprintf(size, sizeof size, "%llu KB", (unsigned long long)(m->limit >> 10));
	else
		snprintf(size, sizeof size, "%llu bytes", (unsigned long long)m->limit);
	return af_fail(err, AF_ERR_LIMIT, err->offset,
	               "memory budget of %s exceeded%s; --max-memory raises it",
	               size, doing);
}

void *af_zlib_alloc(void *mem, unsigned items, unsigned size)
{
	return af_calloc(mem, items, size);
}

void af_zlib_free(void *mem, void *p)
{
	af_free(mem, p);
}
