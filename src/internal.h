/*
 * internal.h - helpers shared by the library's modules: the allocator and
 * its budget, growable arrays and byte strings, checked arithmetic; error
 * reporting and UTF-8 come from error.h, below it.  Not installed.
 */
#ifndef AF_INTERNAL_H
#define AF_INTERNAL_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/** The clocks records hold (wall and thread-cpu): arrays of raw times have
 * this many entries.  AF_CLOCK_WAIT comes after them and is derived. */
#define AF_CLOCK_RECORDED 2

/** An index or id that names nothing (a node, a name, a method). */
#define AF_NONE UINT32_MAX

/** Multiplies with an overflow check: returns 0 and sets *out on success. */
static inline int af_mul_overflow(size_t a, size_t b, size_t *out)
{
	return __builtin_mul_overflow(a, b, out);
}

/* ------------------------------------------------------------------ */
/* Memory (mem.c)                                                      */

/** An allocator with its budget, shared (by reference count) by a trace
 * and everything made from it.  The counts are atomic: trees of one trace
 * are built on several threads at once. */
typedef struct af_mem {
	af_allocator a;
	uint64_t limit;            /* bytes, headers included */
	_Atomic uint64_t used, peak;
	_Atomic uint32_t refused;  /* allocations the budget refused */
	_Atomic uint32_t refs;
	int is_static;             /* mem.c's fallback context: never freed */
} af_mem;

/** Half the physical memory, or 4 GiB when it cannot be told. */
uint64_t af_mem_default_budget(void);

/** A new context over `a` (NULL: malloc) with a budget of `limit` bytes,
 * holding one reference; NULL when out of memory. */
af_mem *af_mem_new(const af_allocator *a, uint64_t limit);
af_mem *af_mem_ref(af_mem *m);
/** Drops a reference; the last one frees the context.  NULL is a no-op. */
void af_mem_unref(af_mem *m);

void *af_malloc(af_mem *m, size_t size);
void *af_calloc(af_mem *m, size_t n, size_t size);
void *af_realloc(af_mem *m, void *ptr, size_t size);
void af_free(af_mem *m, void *ptr);
char *af_strdup(af_mem *m, const char *s);
/** zlib's allocation functions over the af_mem in z_stream.opaque, so that
 * zlib's state and window count against the same budget (the types are
 * zlib's alloc_func and free_func, spelled without its header). */
void *af_zlib_alloc(void *mem, unsigned items, unsigned size);
void af_zlib_free(void *mem, void *p);

/** 1 once the budget has refused an allocation. */
int af_mem_refused(const af_mem *m);
/** The most bytes held at once, headers included. */
uint64_t af_mem_peak(const af_mem *m);

/** What a public entry point returns: AF_ERR_NOMEM caused by the budget
 * becomes AF_ERR_LIMIT with a message naming the budget (the offset is
 * kept); anything else is returned as it is. */
af_status af_mem_explain(const af_mem *m, af_status st, af_error *err);

/** Grows `*ptr` (an array of `elem` bytes per item, `*cap` items) so that it
 * holds at least `need` items.  Keeps the old block on failure. */
int af_grow(af_mem *m, void **ptr, size_t *cap, size_t need, size_t elem);

/** Asks the kernel to back a large block with huge pages: tables of
 * millions of nodes otherwise spend much of their time in page faults.
 * A hint only; harmless where it is not supported. */
void af_hint_huge(void *p, size_t bytes);

/** The default limits on a name and on an input (af_limits), which also
 * bound mapping files, read without a trace's limits. */
#define AF_DEFAULT_MAX_NAME (1u << 20)
#define AF_DEFAULT_MAX_INPUT (2ull << 30)

/* ------------------------------------------------------------------ */
/* Mapped files that shrink (guard.c)                                   */

/** Guards the mapping [p, p + len) of a file: a read past the file's end
 * (another program truncated it) then reads zeros instead of killing the
 * process with SIGBUS.  Returns a slot for the calls below, or -1 when the
 * mapping cannot be guarded (the caller then reads the file instead). */
int af_guard_add(const void *p, size_t len);
/** 1 when a read of the mapping found the file cut short. */
int af_guard_hit(int slot);
/** Ends the guard, before the mapping is unmapped.  -1 is a no-op. */
void af_guard_remove(int slot);

#define AF_MAX(a, b) ((a) > (b) ? (a) : (b))

/* The test is inline: records that need no growth make no call. */
#define AF_GROW(mem, ptr, cap, need)                \
	(AF_LIKELY((need) <= (cap)) ? 0             \
	 : af_grow((mem), (void **)&(ptr), &(cap), (need), sizeof *(ptr)))

/** Little-endian reads; the caller has checked the bytes are there. */
static inline uint16_t af_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline uint32_t af_rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
	       ((uint32_t)p[3] << 24);
}

static inline uint64_t af_rd64(const uint8_t *p)
{
	return (uint64_t)af_rd32(p) | ((uint64_t)af_rd32(p + 4) << 32);
}

/** A growable byte string (never NUL-terminated unless asked). */
typedef struct af_buf {
	char *data;
	size_t len, cap;
	af_mem *mem;
} af_buf;

int af_buf_append(af_buf *b, const void *data, size_t len);
/** Frees the bytes (the struct itself is the caller's). */
void af_buf_free(af_buf *b);
int af_buf_printf(af_buf *b, const char *fmt, ...) AF_PRINTF(2, 3);

#endif
