/*
 * out.c - buffered output for the renderers, and the escapes of text
 * written into XML and scripts (out.h).
 */
#include <stdarg.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "font.h"
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

/* Bytes written as they are: printable ASCII but for the few an escape
 * names; AF_PLAIN_XML in XML text and attributes, AF_PLAIN_JS in a
 * script's string. */
enum { AF_PLAIN_XML = 1, AF_PLAIN_JS = 2 };
#define AF_PL(c)                                                                        \
	((c) < 0x20 || (c) >= 0x7F || (c) == '&' || (c) == '<' || (c) == '>' || (c) == '"' \
	         ? 0                                                                    \
	 : (c) == '\'' ? AF_PLAIN_JS                                                    \
	 : (c) == '\\' ? AF_PLAIN_XML                                                   \
	                : AF_PLAIN_XML | AF_PLAIN_JS)
#define AF_PL4(c) AF_PL(c), AF_PL((c) + 1), AF_PL((c) + 2), AF_PL((c) + 3)
#define AF_PL16(c) AF_PL4(c), AF_PL4((c) + 4), AF_PL4((c) + 8), AF_PL4((c) + 12)
#define AF_PL64(c) AF_PL16(c), AF_PL16((c) + 16), AF_PL16((c) + 32), AF_PL16((c) + 48)
static const unsigned char af_plain[256] = {AF_PL64(0), AF_PL64(64), AF_PL64(128),
                                            AF_PL64(192)};
#undef AF_PL64
#undef AF_PL16
#undef AF_PL4
#undef AF_PL

#if defined(__SSE2__)
/* Whether any of the 16 bytes at `s` may need an escape: a control, not
 * ASCII, or one of & < > " ' \ (signed, bytes of 0x80 and above are below
 * the space too). */
static int af_care16(const char *s)
{
	const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
	__m128i care = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
	                            _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7F)));
	care = _mm_or_si128(care, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('&')),
	                                       _mm_cmpeq_epi8(v, _mm_set1_epi8('<'))));
	care = _mm_or_si128(care, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('>')),
	                                       _mm_cmpeq_epi8(v, _mm_set1_epi8('"'))));
	care = _mm_or_si128(care, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\'')),
	                                       _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
	return _mm_movemask_epi8(care) != 0;
}
#endif

/* The length of the run of plain bytes (`kind`) that `s` starts with.
 * Names are mostly plain: sixteen bytes at a time are passed over while
 * none is a control, not ASCII, or one of the characters either escape
 * names; from the first that may be, byte by byte. */
static size_t af_plain_run(const char *s, size_t len, unsigned kind)
{
	size_t i = 0;
#if defined(__SSE2__)
	for (; i + 16 <= len; i += 16)
		if (af_care16(s + i))
			break;
	/* the last bytes, with some before them that are plain (one load) */
	if (i + 16 > len && i < len && len >= 16 && !af_care16(s + len - 16))
		return len;
#endif
	while (i < len && af_plain[(unsigned char)s[i]] & kind)
		i++;
	return i;
}

void af_out_xml(af_out *out, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t run = af_plain_run(s + i, len - i, AF_PLAIN_XML), k = 1;
		const char *rep = NULL;
		uint32_t cp;

		/* clean runs in one copy; stop at anything that needs care */
		af_out_write(out, s + i, run);
		if ((i += run) == len)
			break;
		switch (s[i]) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&apos;"; break;
		default:
			k = af_utf8_decode((const unsigned char *)s + i, len - i, &cp);
			if (k == 0) {
				rep = "\xEF\xBF\xBD";
				k = 1;
			} else if (af_text_dropped(cp)) {
				rep = "";
			} else {
				af_out_write(out, s + i, k);
			}
			break;
		}
		if (rep)
			af_out_puts(out, rep);
		i += k;
	}
}

void af_out_js(af_out *out, const char *s, size_t len)
{
	size_t i = 0;

	af_out_putc(out, '"');
	while (i < len) {
		size_t run = af_plain_run(s + i, len - i, AF_PLAIN_JS), k;
		unsigned char c;
		uint32_t cp;

		af_out_write(out, s + i, run);
		if ((i += run) == len)
			break;
		c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			af_out_putc(out, '\\');
			af_out_putc(out, (char)c);
			i++;
			continue;
		}
		if (c == '<' || c == '>' || c == '&') {
			af_out_printf(out, "\\u%04x", c);
			i++;
			continue;
		}
		k = af_utf8_decode((const unsigned char *)s + i, len - i, &cp);
		if (k == 0) {
			af_out_puts(out, "\xEF\xBF\xBD");
			k = 1;
		} else if (cp == 0x2028 || cp == 0x2029) {
			af_out_printf(out, "\\u%04x", (unsigned)cp);
		} else if (!af_text_dropped(cp)) {
			af_out_write(out, s + i, k);
		}
		i += k;
	}
	af_out_putc(out, '"');
}

void af_xml_escape(FILE *f, const char *s, size_t len)
{
	af_out out;

	af_out_init(&out, f);
	af_out_xml(&out, s, len);
	af_out_flush(&out);
}

void af_js_string(FILE *f, const char *s, size_t len)
{
	af_out out;

	af_out_init(&out, f);
	af_out_js(&out, s, len);
	af_out_flush(&out);
}

int af_text_clean(af_buf *b, const char *s, size_t len)
{
	size_t i = 0, start = 0;
	int bad = 0;

	/* copy clean runs whole; only bad bytes break a run */
	while (i < len) {
		uint32_t cp;
		size_t k = af_utf8_decode((const unsigned char *)s + i, len - i, &cp);
		if (k > 0 && !af_text_dropped(cp)) {
			i += k;
			continue;
		}
		bad |= af_buf_append(b, s + start, i - start);
		if (k == 0)
			bad |= af_buf_append(b, "\xEF\xBF\xBD", 3);
		i += k ? k : 1;
		start = i;
	}
	bad |= af_buf_append(b, s + start, i - start);
	return bad;
}
