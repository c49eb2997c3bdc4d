/*
 * internal.h - helpers shared by the library's modules: error reporting,
 * checked arithmetic and growable arrays.  Not installed.
 */
#ifndef AF_INTERNAL_H
#define AF_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "aflame/aflame.h"

/** The clocks records hold (wall and thread-cpu): arrays of raw times have
 * this many entries.  AF_CLOCK_WAIT comes after them and is derived. */
#define AF_CLOCK_RECORDED 2

#if defined(__GNUC__)
#define AF_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define AF_LIKELY(x) __builtin_expect(!!(x), 1)
#define AF_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define AF_PRINTF(f, a)
#define AF_LIKELY(x) (x)
#define AF_UNLIKELY(x) (x)
#endif

/** Fills `err` (when not NULL) and returns `status`, so that a failing
 * path reads `return af_fail(err, AF_ERR_KEY, off, "...", ...);`.
 * `offset` < 0 means no position applies. */
af_status af_fail(af_error *err, af_status status, long long offset,
                  const char *fmt, ...) AF_PRINTF(4, 5);

/** Return `status` from the enclosing function when it is not AF_OK. */
#define AF_FORWARD(expr)                       \
	do {                                   \
		af_status af_fwd_ = (expr);    \
		if (AF_UNLIKELY(af_fwd_ != AF_OK)) \
			return af_fwd_;        \
	} while (0)

/** Multiplies with an overflow check: returns 0 and sets *out on success. */
static inline int af_mul_overflow(size_t a, size_t b, size_t *out)
{
	return __builtin_mul_overflow(a, b, out);
}

/** Grows `*ptr` (an array of `elem` bytes per item, `*cap` items) so that it
 * holds at least `need` items.  Keeps the old block on failure. */
int af_grow(void **ptr, size_t *cap, size_t need, size_t elem);

/** Asks the kernel to back a large block with huge pages: tables of
 * millions of nodes otherwise spend much of their time in page faults.
 * A hint only; harmless where it is not supported. */
void af_hint_huge(void *p, size_t bytes);

#define AF_MAX(a, b) ((a) > (b) ? (a) : (b))

#define AF_GROW(ptr, cap, need) \
	af_grow((void **)&(ptr), &(cap), (need), sizeof *(ptr))

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
} af_buf;

int af_buf_append(af_buf *b, const void *data, size_t len);
int af_buf_printf(af_buf *b, const char *fmt, ...) AF_PRINTF(2, 3);

/** Length of the valid UTF-8 sequence starting at s[0] (1..4), or 0 when the
 * bytes there are not valid UTF-8.  Sets *cp to the code point. */
size_t af_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

#endif
