/*
 * error.c - status strings, af_fail(), UTF-8 decoding and times for people:
 * what every module uses, needing nothing but the C library.
 */
#include <stdarg.h>
#include <stdio.h>

#include "error.h"

const char *af_strerror(af_status status)
{
	switch (status) {
	case AF_OK: return "success";
	case AF_ERR_NOMEM: return "out of memory";
	case AF_ERR_IO: return "input/output error";
	case AF_ERR_FORMAT: return "not an Android method trace";
	case AF_ERR_TRUNCATED: return "input ends too early";
	case AF_ERR_KEY: return "malformed key section";
	case AF_ERR_HEADER: return "malformed data header";
	case AF_ERR_RECORD: return "malformed record";
	case AF_ERR_GZIP: return "corrupt gzip data";
	case AF_ERR_LIMIT: return "limit exceeded";
	case AF_ERR_CLOCK: return "clock not recorded in this trace";
	case AF_ERR_ARG: return "invalid argument";
	case AF_ERR_FONT: return "font not available";
	case AF_ERR_RENDER: return "rendering failed";
	case AF_ERR_EMPTY: return "nothing to draw";
	}
	return "unknown error";
}

af_status af_fail(af_error *err, af_status status, long long offset,
                  const char *fmt, ...)
{
	if (err) {
		va_list ap;
		err->status = status;
		err->offset = offset;
		err->line = 0;
		va_start(ap, fmt);
		vsnprintf(err->message, sizeof err->message, fmt, ap);
		va_end(ap);
	}
	return status;
}

size_t af_utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c;
	size_t len, i;

	if (n == 0)
		return 0;
	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xC2 && s[0] <= 0xDF) {
		len = 2;
		c = s[0] & 0x1F;
	} else if (s[0] >= 0xE0 && s[0] <= 0xEF) {
		len = 3;
		c = s[0] & 0x0F;
	} else if (s[0] >= 0xF0 && s[0] <= 0xF4) {
		len = 4;
		c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	/* overlong forms, surrogates and code points past U+10FFFF */
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10FFFF)) ||
	    (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return len;
}

void af_format_us(char *out, size_t n, uint64_t us)
{
	if (us < 1000)
		snprintf(out, n, "%llu \xC2\xB5s", (unsigned long long)us);
	else if (us < 10000)
		snprintf(out, n, "%.2f ms", (double)us / 1e3);
	else if (us < 1000000)
		snprintf(out, n, "%.1f ms", (double)us / 1e3);
	else if (us < 10000000)
		snprintf(out, n, "%.3f s", (double)us / 1e6);
	else
		snprintf(out, n, "%.2f s", (double)us / 1e6);
}
