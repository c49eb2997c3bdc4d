/*
 * out.h - buffered output for the renderers: the many small pieces of an
 * SVG go into a buffer, and to the file in large writes (stdio's own
 * buffer costs a call and a lock check a piece); and the escapes of text
 * written into XML and scripts.
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

/** Room for `n` bytes (at most the buffer's size) at the end of what is
 * buffered, written out first when less is left: the caller puts its bytes
 * there and adds their count to o->len. */
static inline char *af_out_room(af_out *o, size_t n)
{
	if (n > sizeof o->buf - o->len)
		af_out_flush(o);
	return o->buf + o->len;
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

/** Writes `len` bytes of `s` as XML character data: markup characters
 * escaped, invalid UTF-8 as U+FFFD, characters XML forbids dropped. */
void af_xml_escape(FILE *out, const char *s, size_t len);
void af_out_xml(af_out *out, const char *s, size_t len);

/** Writes `len` bytes of `s` as a double-quoted JavaScript (and JSON)
 * string, cleaned as af_xml_escape() cleans text (invalid UTF-8 as U+FFFD,
 * af_text_dropped() characters left out) so a script sees the same text as
 * the <title> of a static SVG.  '<', '>' and '&' are written as \u escapes,
 * so the string can never end a CDATA section or a <script> element, and
 * U+2028/U+2029 as well, for older parsers. */
void af_js_string(FILE *out, const char *s, size_t len);
void af_out_js(af_out *out, const char *s, size_t len);

/** Appends `len` bytes of `s` to `b` as drawable text, NUL-terminated:
 * invalid UTF-8 as U+FFFD and af_text_dropped() characters left out, as
 * af_xml_escape() does (cairo refuses invalid UTF-8).  Returns non-zero
 * when out of memory. */
int af_text_clean(af_buf *b, const char *s, size_t len);

#endif
