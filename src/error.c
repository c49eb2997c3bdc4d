/*
 * error.c - status strings, af_fail(), UTF-8 decoding and times for people:
 * what every module uses, needing nothing but the C library.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

/* The escape for code point `cp` that a terminal could take for a command
 * or that reorders the text around it: C0 and C1 controls, DEL, the
 * bidirectional controls and the line and paragraph separators; 0 when it
 * prints as itself. */
static int af_escaped(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C ||
	       cp == 0x200E || cp == 0x200F || (cp >= 0x2028 && cp <= 0x202E) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

size_t af_text_escape(char *out, size_t size, const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0, o = 0;

	if (size == 0)
		return 0;
	while (i < len) {
		char unit[16];
		size_t n, k;
		uint32_t cp = 0;

		k = af_utf8_decode(s + i, len - i, &cp);
		if (k == 0) {
			snprintf(unit, sizeof unit, "\\x%02X", s[i]);
			k = 1;
		} else if (cp == '\t' || cp == '\n' || cp == '\r') {
			snprintf(unit, sizeof unit, "\\%c", cp == '\t' ? 't' : cp == '\n' ? 'n' : 'r');
		} else if (cp < 0x80 && af_escaped(cp)) {
			snprintf(unit, sizeof unit, "\\x%02X", (unsigned)cp);
		} else if (af_escaped(cp)) {
			snprintf(unit, sizeof unit, "\\u%04X", (unsigned)cp);
		} else {
			memcpy(unit, s + i, k);
			unit[k] = '\0';
		}
		n = strlen(unit);
		if (o + n >= size)
			break; /* a whole character or escape, or nothing */
		memcpy(out + o, unit, n);
		o += n;
		i += k;
	}
	out[o] = '\0';
	return o;
}

af_status af_fail(af_error *err, af_status status, long long offset,
                  const char *fmt, ...)
{
	if (err) {
		/* room for a message that escaping lengthens, then cut to fit;
		 * messages quote input bytes, and they reach terminals */
		char raw[4 * sizeof err->message];
		va_list ap;
		int n;

		err->status = status;
		err->offset = offset;
		err->line = 0;
		va_start(ap, fmt);
		n = vsnprintf(raw, sizeof raw, fmt, ap);
		va_end(ap);
		if (n < 0)
			n = 0;
		af_text_escape(err->message, sizeof err->message, raw,
		               (size_t)n < sizeof raw ? (size_t)n : sizeof raw - 1);
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
