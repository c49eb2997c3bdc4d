/*
 * error.h - the bottom of the library: filling an af_error, and decoding
 * UTF-8.  It needs no memory of its own; everything else is above it
 * (internal.h: the allocator).  Not installed.
 */
#ifndef AF_ERROR_H
#define AF_ERROR_H

#include <stddef.h>
#include <stdint.h>

#include "aflame/aflame.h"

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

/** 1 for Unicode's non-characters (U+FDD0..U+FDEF and the last two code
 * points of every plane): never text, and cairo refuses them. */
static inline int af_noncharacter(uint32_t cp)
{
	return (cp & 0xFFFE) == 0xFFFE || (cp >= 0xFDD0 && cp <= 0xFDEF);
}

/** Length of the valid UTF-8 sequence starting at s[0] (1..4), or 0 when the
 * bytes there are not valid UTF-8.  Sets *cp to the code point. */
size_t af_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

#endif
