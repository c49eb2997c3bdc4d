/*
 * out.c - buffered output for the renderers (out.h).
 */
#include <stdarg.h>

#include "out.h"

void af_out_init(af_out *o, FILE *f)
{
	o->f = f;
	o->len = 0;
	o->failed = 0;
}

int af_out_flush(af_out *o)
{
	if (o->len && fwrite(o->buf, 1, o->len, o->f) != o->len)
		o->failed = 1;
	o->len = 0;
	return o->failed;
}

void af_out_spill(af_out *o, const void *p, size_t n)
{
	af_out_flush(o);
	if (n >= sizeof o->buf) {
		if (fwrite(p, 1, n, o->f) != n)
			o->failed = 1;
		return;
	}
	memcpy(o->buf, p, n);
	o->len = n;
}

void af_out_printf(af_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, sizeof o->buf - o->len, fmt, ap);
	va_end(ap);
	if (n < 0) {
		o->failed = 1;
		return;
	}
	if ((size_t)n < sizeof o->buf - o->len) {
		o->len += (size_t)n;
		return;
	}
	/* it did not fit: on its own, after what is buffered */
	af_out_flush(o);
	va_start(ap, fmt);
	if ((size_t)n < sizeof o->buf) {
		vsnprintf(o->buf, sizeof o->buf, fmt, ap);
		o->len = (size_t)n;
	} else if (vfprintf(o->f, fmt, ap) < 0) {
		o->failed = 1;
	}
	va_end(ap);
}
