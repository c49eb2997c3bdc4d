/*
 * out.h - buffered output for the renderers: the many small pieces of an
 * SVG go into a buffer, and to the file in large writes (stdio's own
 * buffer costs a call and a lock check a piece).
 */
#ifndef AF_OUT_H
#define AF_OUT_H

#include <stdio.h>
#include <string.h>

#include "internal.h"

typedef struct af_out {
	FILE *f;
	size_t len;
	int failed; /* a write to `f` failed */
	char buf[32 * 1024];
} af_out;

void af_out_init(af_out *o, FILE *f);

/** Writes what is buffered to the file; non-zero when any write failed. */
int af_out_flush(af_out *o);

/** For af_out_write: what does not fit in what is left of the buffer. */
void af_out_spill(af_out *o, const void *p, size_t n);

void af_out_printf(af_out *o, const char *fmt, ...) AF_PRINTF(2, 3);

static inline void af_out_write(af_out *o, const void *p, size_t n)
{
	if (n > sizeof o->buf - o->len) {
		af_out_spill(o, p, n);
		return;
	}
	memcpy(o->buf + o->len, p, n);
	o->len += n;
}

static inline void af_out_puts(af_out *o, const char *s)
{
	af_out_write(o, s, strlen(s));
}

static inline void af_out_putc(af_out *o, char c)
{
	if (o->len == sizeof o->buf)
		af_out_flush(o);
	o->buf[o->len++] = c;
}

#endif
