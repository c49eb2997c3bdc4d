/*
 * systrace.c - atrace and systrace text (systrace.h): ftrace event lines
 *
 *   <comm>-<tid> [(<tgid>)] [<cpu>] [<flags>] <seconds>.<fraction>: <event>: <text>
 *
 * of which the tracing_mark_write (or print) events hold atrace's marks:
 * "B|pid|name" begins a slice on the line's thread, "E" or "E|pid" ends the
 * innermost one; "S|", "F|", "T|", "U|", "G|", "H|" (async) and "C|"
 * (counters) are counted and ignored, as are other marks and events.
 * Three containers hold the lines: none, "TRACE:" and zlib data (atrace
 * -z), and the <script class="trace-data"> blocks of Systrace HTML.
 */
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "slices.h"
#include "systrace.h"

/* Where the lines being read come from, for messages. */
typedef struct af_systext {
	af_trace *t;
	af_slices *s;
	long long base;          /* byte of the text in the input */
	unsigned long long line; /* line number of the text's first line */
	int inflated;            /* the text is the inflated zlib data */
} af_systext;

/* One ftrace event line, its parts pointing into the line. */
typedef struct af_ftrace {
	const char *comm;
	size_t comm_len;
	uint32_t tid, tgid; /* tgid 0: no column, or "-----" */
	uint64_t ts;        /* ns */
	const char *event, *text;
	size_t event_len, text_len;
} af_ftrace;

static int af_isdigit(char c)
{
	return c >= '0' && c <= '9';
}

static int af_isspace(char c)
{
	return c == ' ' || c == '\t';
}

/* "683201.354908" into ns: 0 on success. */
static int af_ts_of(const char *s, size_t n, uint64_t *out)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0, digits = 0;

	while (i < n && af_isdigit(s[i])) {
		if (++digits > 10)
			return -1; /* more seconds than 64 bits of ns hold */
		sec = sec * 10 + (uint64_t)(s[i++] - '0');
	}
	if (digits == 0 || i == n || s[i] != '.' || i + 1 == n)
		return -1;
	for (i++, digits = 0; i < n; i++, digits++) {
		if (!af_isdigit(s[i]))
			return -1;
		if (digits < 9)
			frac = frac * 10 + (uint64_t)(s[i] - '0');
	}
	for (; digits < 9; digits++)
		frac *= 10;
	*out = sec * 1000000000u + frac;
	return 0;
}

/* Reads an ftrace event line; 0 when `l` is not one. */
static int af_ftrace_parse(const char *l, size_t n, af_ftrace *f)
{
	size_t i = 0, j, k, dash, tok;

	while (i < n && af_isspace(l[i]))
		i++;
	/* the cpu column: the first "[digits]" after "-tid" */
	for (j = i; j < n; j++) {
		size_t e = j + 1, p;
		if (l[j] != '[')
			continue;
		while (e < n && af_isdigit(l[e]))
			e++;
		if (e == j + 1 || e == n || l[e] != ']')
			continue;
		k = j;
		while (k > i && af_isspace(l[k - 1]))
			k--;
		f->tgid = 0;
		if (k > i && l[k - 1] == ')') {
			size_t close = k - 1, a, b;
			for (p = close; p > i && l[p - 1] != '('; p--)
				;
			if (p == i)
				continue;
			a = p;
			b = close;
			while (a < b && af_isspace(l[a]))
				a++;
			while (b > a && af_isspace(l[b - 1]))
				b--;
			if (a < b && l[a] != '-' && af_mark_u32(l + a, b - a, &f->tgid))
				continue;
			k = p - 1;
			while (k > i && af_isspace(l[k - 1]))
				k--;
		}
		for (p = k; p > i && af_isdigit(l[p - 1]); p--)
			;
		if (p == k || p == i || l[p - 1] != '-' || af_mark_u32(l + p, k - p, &f->tid))
			continue;
		dash = p - 1;
		f->comm = l + i;
		f->comm_len = dash - i;
		i = e + 1;
		break;
	}
	if (j >= n)
		return 0;
	/* the flags column, when there is one, then the timestamp */
	for (k = 0; k < 2; k++) {
		while (i < n && af_isspace(l[i]))
			i++;
		for (tok = i; i < n && !af_isspace(l[i]); i++)
			;
		if (i > tok + 1 && l[i - 1] == ':' && af_ts_of(l + tok, i - 1 - tok, &f->ts) == 0)
			break;
	}
	if (k == 2)
		return 0;
	while (i < n && af_isspace(l[i]))
		i++;
	for (tok = i; i < n && l[i] != ':' && !af_isspace(l[i]); i++)
		;
	if (i == tok || i == n || l[i] != ':')
		return 0;
	f->event = l + tok;
	f->event_len = i - tok;
	i++;
	while (i < n && af_isspace(l[i]))
		i++;
	f->text = l + i;
	f->text_len = n - i;
	while (f->text_len && (af_isspace(f->text[f->text_len - 1]) || f->text[f->text_len - 1] == '\r'))
		f->text_len--;
	return 1;
}

static int af_is(const char *s, size_t n, const char *lit)
{
	size_t m = strlen(lit);
	return n == m && memcmp(s, lit, m) == 0;
}

/* One atrace mark of line `f` at byte `off`. */
static af_status af_systrace_mark(af_systext *x, const af_ftrace *f, const char *line,
                                  long long off, af_error *err)
{
	const char *m = f->text;
	size_t n = f->text_len;
	af_trace *t = x->t;
	af_mark mk;

	if (n >= 20 && memcmp(m, "tracing_mark_write: ", 20) == 0) {
		m += 20; /* print events of some kernels name the marker's writer */
		n -= 20;
	}
	switch (af_mark_parse(t, m, n, &mk)) {
	case AF_MARK_BEGIN:
		return af_slices_begin(x->s, f->tid, f->tgid ? f->tgid : mk.pid, f->ts, mk.name,
		                       mk.name_len, off, err);
	case AF_MARK_END:
		return af_slices_end(x->s, f->tid, f->ts, off, err);
	case AF_MARK_BAD_PID:
		return af_fail(err, AF_ERR_FORMAT, off + (long long)(m + mk.pid_at - line),
		               "a begin mark whose pid is not a number: \"%.*s\"",
		               (int)(mk.pid_len > 40 ? 40 : mk.pid_len), m + mk.pid_at);
	default:
		return AF_OK;
	}
}

/* Says where a failure of line `lineno` is: "line N: " before the message;
 * the offset of inflated text is a byte of that text, not of the file, and
 * the message says so. */
static af_status af_systrace_where(const af_systext *x, af_status st,
                                   unsigned long long lineno, af_error *err)
{
	char tmp[sizeof err->message];

	if (!err || st == AF_OK || st == AF_ERR_NOMEM)
		return st;
	if (x->inflated) {
		snprintf(tmp, sizeof tmp, "line %llu of the inflated trace (its byte "
		         "below): %.160s", lineno, err->message);
	} else {
		snprintf(tmp, sizeof tmp, "line %llu: %.200s", lineno, err->message);
	}
	memcpy(err->message, tmp, sizeof tmp);
	return st;
}

/* The lines of `len` bytes of text. */
static af_status af_systrace_lines(af_systext *x, const uint8_t *buf, size_t len,
                                   af_error *err)
{
	af_trace *t = x->t;
	unsigned long long lineno = x->line;
	size_t pos = 0;

	while (pos < len) {
		const char *line = (const char *)buf + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos, i = 0;
		long long off = x->base + (long long)pos;
		af_status st;
		af_ftrace f;

		pos += n + (nl != NULL);
		af_trace_progress(t, (const uint8_t *)line, pos, len);
		if (n && line[n - 1] == '\r')
			n--;
		while (i < n && af_isspace(line[i]))
			i++;
		if (i == n || line[i] == '#') {
			lineno++;
			continue;
		}
		if (!af_ftrace_parse(line, n, &f)) {
			if (!t->info.ignored_lines++)
				t->info.first_ignored_line = (uint64_t)off;
			lineno++;
			continue;
		}
		t->info.lines++;
		st = af_slices_thread(x->s, f.tid, f.tgid, f.comm, f.comm_len, off, err);
		if (st == AF_OK && (af_is(f.event, f.event_len, "tracing_mark_write") ||
		                    af_is(f.event, f.event_len, "print")))
			st = af_systrace_mark(x, &f, line, off, err);
		if (st != AF_OK)
			return af_systrace_where(x, st, lineno, err);
		lineno++;
	}
	return AF_OK;
}

/* Inflates the zlib stream at `in` (byte `base` of the input) into a new
 * buffer from the trace's allocator.  What follows the stream's end is
 * counted in af_trace_info.trailing_bytes. */
static af_status af_systrace_inflate(af_trace *t, const uint8_t *in, size_t len,
                                     long long base, uint8_t **out, size_t *out_len,
                                     af_error *err)
{
	z_stream z;
	uint8_t *buf = NULL;
	size_t cap = 0, used = 0;
	af_status st = AF_OK;
	int r;

	memset(&z, 0, sizeof z);
	z.zalloc = af_zlib_alloc;
	z.zfree = af_zlib_free;
	z.opaque = t->mem;
	r = inflateInit(&z);
	if (r != Z_OK)
		return af_fail(err, r == Z_MEM_ERROR ? AF_ERR_NOMEM : AF_ERR_GZIP, base,
		               r == Z_MEM_ERROR ? "out of memory starting zlib"
		                                : "cannot start zlib");
	z.next_in = (Bytef *)in;
	for (;;) {
		size_t at;
		if (used == cap) {
			size_t want = cap ? cap * 2 : (len < (1u << 18) ? (1u << 20) : len * 4);
			if ((uint64_t)cap >= t->limits.max_input) {
				st = af_fail(err, AF_ERR_LIMIT, base + (long long)z.total_in,
				             "the zlib data after TRACE: inflates past the "
				             "%llu-byte input limit",
				             (unsigned long long)t->limits.max_input);
				goto out;
			}
			if ((uint64_t)want > t->limits.max_input)
				want = (size_t)t->limits.max_input;
			if (AF_GROW(t->mem, buf, cap, want)) {
				st = af_fail(err, AF_ERR_NOMEM, base + (long long)z.total_in,
				             "out of memory inflating the trace");
				goto out;
			}
		}
		at = (size_t)(z.next_in - in);
		z.avail_in = (uInt)((len - at) > UINT32_MAX / 2 ? UINT32_MAX / 2 : len - at);
		z.next_out = buf + used;
		z.avail_out = (uInt)((cap - used) > UINT32_MAX / 2 ? UINT32_MAX / 2 : cap - used);
		r = inflate(&z, Z_NO_FLUSH);
		used = (size_t)(z.next_out - buf);
		if (r == Z_STREAM_END) {
			t->info.trailing_bytes = len - (size_t)(z.next_in - in);
			break;
		}
		if (r == Z_BUF_ERROR && z.avail_out > 0) {
			st = af_fail(err, AF_ERR_TRUNCATED, base + (long long)len,
			             "the zlib data after TRACE: ends before its end marker");
			goto out;
		}
		if (r != Z_OK && r != Z_BUF_ERROR) {
			st = r == Z_MEM_ERROR
			     ? af_fail(err, AF_ERR_NOMEM, base + (long long)(z.next_in - in),
			               "out of memory inflating the trace")
			     : af_fail(err, AF_ERR_GZIP, base + (long long)(z.next_in - in),
			               "corrupt zlib data after the TRACE: line: %s",
			               z.msg ? z.msg : "inflate failed");
			goto out;
		}
	}
out:
	inflateEnd(&z);
	if (st != AF_OK) {
		af_free(t->mem, buf);
		return st;
	}
	*out = buf;
	*out_len = used;
	return AF_OK;
}

/* Skips a UTF-8 byte order mark and white space. */
static size_t af_systrace_skip(const uint8_t *b, size_t len)
{
	size_t i = len >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF ? 3 : 0;

	while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'))
		i++;
	return i;
}

static int af_starts_nocase(const uint8_t *b, size_t len, const char *lit)
{
	size_t i, m = strlen(lit);

	if (len < m)
		return 0;
	for (i = 0; i < m; i++) {
		uint8_t c = b[i];
		if (c >= 'A' && c <= 'Z')
			c = (uint8_t)(c - 'A' + 'a');
		if (c != (uint8_t)lit[i])
			return 0;
	}
	return 1;
}

/* The length of a "TRACE:" line at `b` (its line end included), 0 when
 * there is none. */
static size_t af_trace_header(const uint8_t *b, size_t len)
{
	if (len >= 7 && memcmp(b, "TRACE:\n", 7) == 0)
		return 7;
	if (len >= 8 && memcmp(b, "TRACE:\r\n", 8) == 0)
		return 8;
	return 0;
}

/* Where the bytes after a "TRACE:" line begin, when that line is one of
 * the first three (atrace prints "capturing trace..." and "done" before it
 * on its standard output); 0 when there is none. */
static size_t af_trace_body(const uint8_t *b, size_t len)
{
	size_t i = af_systrace_skip(b, len), k;

	for (k = 0; k < 3 && i < len; k++) {
		size_t h = af_trace_header(b + i, len - i);
		const uint8_t *nl;
		if (h)
			return i + h;
		nl = memchr(b + i, '\n', len - i < 200 ? len - i : 200);
		if (!nl || memchr(b + i, 0, (size_t)(nl - (b + i))))
			return 0;
		i = (size_t)(nl - b) + 1;
	}
	return 0;
}

/* 1 when the text's first line that is not blank is "# tracer:" or an
 * ftrace event line. */
static int af_systrace_text_detect(const uint8_t *b, size_t len)
{
	size_t i = af_systrace_skip(b, len), n;
	const uint8_t *nl;
	af_ftrace f;

	if (len - i >= 9 && memcmp(b + i, "# tracer:", 9) == 0)
		return 1;
	nl = memchr(b + i, '\n', len - i);
	n = nl ? (size_t)(nl - (b + i)) : len - i;
	return af_ftrace_parse((const char *)b + i, n, &f) &&
	       !memchr(b + i, 0, n);
}

static int af_is_html(const uint8_t *b, size_t len)
{
	size_t i = af_systrace_skip(b, len);
	return af_starts_nocase(b + i, len - i, "<!doctype html") ||
	       af_starts_nocase(b + i, len - i, "<html");
}

int af_systrace_detect(const uint8_t *buf, size_t len)
{
	return af_trace_body(buf, len) || af_is_html(buf, len) ||
	       af_systrace_text_detect(buf, len);
}

/* 1 when `n` bytes at `b` begin a zlib stream (RFC 1950 header). */
static int af_is_zlib(const uint8_t *b, size_t n)
{
	return n >= 2 && (b[0] & 0x0F) == 8 && (b[0] >> 4) <= 7 &&
	       ((unsigned)b[0] * 256 + b[1]) % 31 == 0;
}

static const uint8_t *af_find(const uint8_t *b, size_t len, const char *lit)
{
	size_t m = strlen(lit), i;

	for (i = 0; i + m <= len; i++) {
		const uint8_t *p = memchr(b + i, lit[0], len - i - m + 1);
		if (!p)
			return NULL;
		if (memcmp(p, lit, m) == 0)
			return p;
		i = (size_t)(p - b);
	}
	return NULL;
}

static unsigned long long af_count_lines(const uint8_t *b, size_t n)
{
	unsigned long long c = 1;
	const uint8_t *p = b, *end = b + n;

	while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		c++;
		p++;
	}
	return c;
}

/* The trace-data blocks of a Systrace HTML file: the text ones are read,
 * the JSON ones (Chrome's trace events) left. */
static af_status af_systrace_html(af_systext *x, const uint8_t *b, size_t len,
                                  af_error *err)
{
	size_t pos = 0, text_blocks = 0, blocks = 0;

	for (;;) {
		const uint8_t *tag = af_find(b + pos, len - pos, "<script"), *close, *end, *body;
		size_t i;
		if (!tag)
			break;
		close = memchr(tag, '>', len - (size_t)(tag - b));
		if (!close)
			break;
		pos = (size_t)(close - b) + 1;
		if (!af_find(tag, (size_t)(close - tag), "trace-data"))
			continue;
		blocks++;
		body = close + 1;
		end = af_find(body, len - (size_t)(body - b), "</script>");
		if (!end)
			return af_fail(err, AF_ERR_TRUNCATED, (long long)(tag - b),
			               "a Systrace trace-data block without its </script> "
			               "end");
		pos = (size_t)(end - b) + 9;
		i = af_systrace_skip(body, (size_t)(end - body));
		if (body + i < end && (body[i] == '{' || body[i] == '['))
			continue; /* JSON trace events: not atrace text */
		text_blocks++;
		x->base = (long long)(body - b);
		x->line = af_count_lines(b, (size_t)(body - b));
		AF_FORWARD(af_systrace_lines(x, body, (size_t)(end - body), err));
	}
	if (!blocks)
		return af_fail(err, AF_ERR_FORMAT, 0, "an HTML file without Systrace "
		               "trace data (no <script class=\"trace-data\"> block)");
	if (!text_blocks)
		return af_fail(err, AF_ERR_FORMAT, 0, "a Systrace HTML file whose %zu "
		               "trace-data block%s hold%s JSON trace events only, no "
		               "atrace text", blocks, blocks == 1 ? "" : "s",
		               blocks == 1 ? "s" : "");
	return AF_OK;
}

af_status af_trace_systrace(af_trace *t, const uint8_t *buf, size_t len, af_error *err)
{
	af_systext x = {.t = t, .line = 1};
	size_t at = af_trace_body(buf, len);
	af_status st;

	x.s = af_slices_new(t);
	if (!x.s)
		return af_fail(err, AF_ERR_NOMEM, 0, "out of memory");
	if (at) {
		x.line = af_count_lines(buf, at);
		if (af_is_zlib(buf + at, len - at)) {
			uint8_t *raw = NULL;
			size_t rlen = 0;
			st = af_systrace_inflate(t, buf + at, len - at, (long long)at, &raw,
			                         &rlen, err);
			if (st == AF_OK) {
				x.inflated = 1;
				x.line = 1;
				st = af_systrace_lines(&x, raw, rlen, err);
				af_free(t->mem, raw);
			}
		} else if (at == len || af_systrace_text_detect(buf + at, len - at)) {
			x.base = (long long)at;
			st = af_systrace_lines(&x, buf + at, len - at, err);
		} else {
			st = af_fail(err, AF_ERR_FORMAT, (long long)at, "after its TRACE: "
			             "header, neither zlib data nor ftrace text");
		}
	} else if (af_is_html(buf, len)) {
		st = af_systrace_html(&x, buf, len, err);
	} else {
		st = af_systrace_lines(&x, buf, len, err);
	}
	if (st == AF_OK)
		st = af_slices_finish(x.s, err);
	af_slices_free(x.s);
	return st;
}
