/*
 * btrace.c - btrace 2.0 ("RheaTrace") binary method traces and their
 * method mapping files.  Spec: trace-formats.md §8.
 *
 * The trace: a 32-byte header (u4 version 5, u4 tid of the thread that
 * started tracing, u8 boot-time ns, u8 the time base: elapsedRealtimeNanos
 * at the first start, u8 the same at the latest (re)start), then one
 * 16-byte record per finished call, written when the call ends, so in
 * order of end time, children before their parents:
 *   w0 = start << 19 | duration >> 26
 *   w1 = (duration & 0x3FFFFFF) << 38 | tid << 23 | method id
 * (start and duration 45 bits of ns, the start from the time base; tid 15
 * bits; method id 23 bits).  The writer masks nothing: a tid of 32768 or
 * more spills into the duration, as btrace's own reader finds it; both
 * are masked here as it masks them.  The file is pre-sized (2,000,000
 * bytes at least) and its unused tail is zeros: an all-zero second word
 * is an unused slot.
 *
 * Calls are rebuilt per thread by containment: sorted by start, the longer
 * first on a tie (the later record first when both are equal: a parent is
 * written after its children), each call nests in the innermost open call
 * that is still running when it begins.  A call that begins inside
 * another and ends after it (clocks read on two cores; a damaged record)
 * is cut at the end of the one it began in, and counted
 * (af_trace_info.calls_clipped).  The calls then reach the record machine
 * as enters and exits in each thread's time order, in µs of wall time.
 *
 * Times: a start with its top bit (bit 44) set is a call begun before the
 * time base (the writer's start is begin - base, which it lets go
 * negative); btrace's reader moves starts before the latest (re)start to
 * it, and so does this one (af_trace_info.starts_clamped).  A call that
 * ended before that start is left from an earlier run (a restart rewrites
 * the file from its first record and leaves the older records after the
 * new ones): dropped (af_trace_info.calls_stale).  Calls shorter than
 * btrace's threshold (debug.rhea.methodDurThreshold) were never written:
 * their time is their caller's.
 *
 * Names: threads have none in the file ("thread <tid>"); methods come from
 * the mapping file, else are "method#<id>".
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mapping.h"
#include "trace.h"

#define AF_BT_HEADER 32u
#define AF_BT_RECORD 16u
#define AF_BT_CLOCK (UINT64_C(1) << 45) /* the 45-bit start and duration */
#define AF_BT_MID_MASK 0x7FFFFFu
#define AF_BT_TID_MASK 0x7FFFu

/* ------------------------------------------------------------------ */
/* The method mapping file                                             */

typedef struct af_bt_method {
	uint32_t id;
	uint32_t line;
	const char *cls, *name, *sig; /* in the mapping's copy of the text */
} af_bt_method;

struct af_btrace_mapping {
	af_mem *mem;
	char *text;          /* the file's bytes, fields cut with NULs */
	af_bt_method *methods; /* sorted by id, unique */
	size_t n, cap;
};

void af_btrace_mapping_free(af_btrace_mapping *m)
{
	af_mem *mem;

	if (!m)
		return;
	mem = m->mem;
	af_free(mem, m->text);
	af_free(mem, m->methods);
	af_free(mem, m);
	af_mem_unref(mem);
}

size_t af_btrace_mapping_count(const af_btrace_mapping *m)
{
	return m ? m->n : 0;
}

static af_status af_bt_line_fail(af_error *err, af_status st, size_t line,
                                 const char *fmt, ...) AF_PRINTF(4, 5);

/* Fails with `st` at `line` of the mapping (no byte applies). */
static af_status af_bt_line_fail(af_error *err, af_status st, size_t line,
                                 const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	af_fail(err, st, -1, "%s", msg);
	if (err)
		err->line = (long long)line;
	return st;
}

/* Reads a decimal number of at most 10 digits at *p (before `end`), moving
 * *p past it: 0, or -1 when there is none or it passes 2^32 - 1. */
static int af_bt_number(char **p, const char *end, uint32_t *out)
{
	uint64_t v = 0;
	char *s = *p;

	if (s == end || *s < '0' || *s > '9')
		return -1;
	while (s < end && *s >= '0' && *s <= '9') {
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > UINT32_MAX)
			return -1;
		s++;
	}
	*p = s;
	*out = (uint32_t)v;
	return 0;
}

#define AF_BT_FORM \
	"method line is not \"<id>,<access flags>,<class> <method>[ <descriptor>]\": %s"

/* One "<id>,<flags>,<class> <method>[ <descriptor>]" line, [s, end), cut
 * into NUL-terminated fields in place. */
static af_status af_bt_method_line(af_btrace_mapping *m, char *s, char *end,
                                   size_t line, af_error *err)
{
	af_bt_method *bm;
	uint32_t id, flags;
	char *word[4];
	size_t nw = 0;

	if (af_bt_number(&s, end, &id) || s == end || *s != ',')
		return af_bt_line_fail(err, AF_ERR_FORMAT, line, AF_BT_FORM,
		                       "no method id before the first comma");
	s++;
	if (af_bt_number(&s, end, &flags) || s == end || *s != ',')
		return af_bt_line_fail(err, AF_ERR_FORMAT, line, AF_BT_FORM,
		                       "no access flags before the second comma");
	s++;
	if (id > AF_BT_MID_MASK)
		return af_bt_line_fail(err, AF_ERR_FORMAT, line,
		                       "method id %u does not fit the 23 bits of a "
		                       "btrace record", id);
	while (s < end) {
		char *w = s;
		while (s < end && *s != ' ')
			s++;
		if (s == w || nw == 3)
			return af_bt_line_fail(err, AF_ERR_FORMAT, line, AF_BT_FORM,
			                       s == w ? "two spaces in a row, or a space "
			                                "at an end"
			                              : "more than three words after the "
			                                "flags");
		word[nw++] = w;
		if (s < end)
			*s++ = '\0';
		if (s == end && s[-1] == '\0')
			return af_bt_line_fail(err, AF_ERR_FORMAT, line, AF_BT_FORM,
			                       "a space at the end");
	}
	*end = '\0';
	if (nw < 2)
		return af_bt_line_fail(err, AF_ERR_FORMAT, line, AF_BT_FORM,
		                       nw ? "no method name after the class"
		                          : "no class and method after the flags");
	if (nw == 3 && word[2][0] != '(')
		return af_bt_line_fail(err, AF_ERR_FORMAT, line, AF_BT_FORM,
		                       "the descriptor does not begin with '('");
	if (AF_GROW(m->mem, m->methods, m->cap, m->n + 1))
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory reading the mapping");
	bm = &m->methods[m->n++];
	bm->id = id;
	bm->line = line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
	bm->cls = word[0];
	bm->name = word[1];
	bm->sig = nw == 3 ? word[2] : "";
	return AF_OK;
}

static int af_bt_cmp_method(const void *a, const void *b)
{
	const af_bt_method *x = a, *y = b;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

static af_status af_bt_mapping_lines(af_btrace_mapping *m, size_t len, af_error *err)
{
	char *s = m->text, *all_end = m->text + len;
	size_t line = 0, i;

	while (s < all_end) {
		char *nl = memchr(s, '\n', (size_t)(all_end - s)), *end = nl ? nl : all_end;
		char *bad;

		line++;
		if ((size_t)(end - s) > AF_DEFAULT_MAX_NAME)
			return af_bt_line_fail(err, AF_ERR_LIMIT, line,
			                       "line longer than %u bytes", AF_DEFAULT_MAX_NAME);
		if (end > s && end[-1] == '\r')
			end--;
		bad = memchr(s, '\0', (size_t)(end - s));
		if (!bad)
			bad = memchr(s, '\t', (size_t)(end - s));
		if (bad)
			return af_bt_line_fail(err, AF_ERR_FORMAT, line,
			                       "%s in a line of the method mapping",
			                       *bad ? "a tab" : "a NUL byte");
		if (line == 1) {
			if (s == end || *s != '#')
				return af_bt_line_fail(
				    err, AF_ERR_FORMAT, line, "%s",
				    "not a btrace method mapping: its first line is not "
				    "\"#<uuid>\"");
		} else if (end > s && *s != '#') {
			AF_FORWARD(af_bt_method_line(m, s, end, line, err));
		}
		s = nl ? nl + 1 : all_end;
	}
	if (line == 0)
		return af_bt_line_fail(err, AF_ERR_FORMAT, 1, "%s",
		                       "the method mapping is empty (no \"#<uuid>\" line)");
	if (m->n)
		qsort(m->methods, m->n, sizeof *m->methods, af_bt_cmp_method);
	for (i = 1; i < m->n; i++)
		if (m->methods[i].id == m->methods[i - 1].id)
			return af_bt_line_fail(err, AF_ERR_FORMAT, m->methods[i].line,
			                       "method id %u given twice (first on line %u)",
			                       m->methods[i].id, m->methods[i - 1].line);
	return AF_OK;
}

/* Parses `len` bytes at `buf` into a mapping made with `mem`. */
static af_status af_bt_mapping_parse_mem(const void *buf, size_t len, af_mem *mem,
                                         af_btrace_mapping **out, af_error *err)
{
	af_btrace_mapping *m = af_calloc(mem, 1, sizeof *m);
	af_status st;

	*out = NULL;
	if (err)
		err->line = 0;
	if (!m)
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory reading the mapping");
	m->mem = af_mem_ref(mem);
	if (!(m->text = af_malloc(mem, len + 1))) {
		af_btrace_mapping_free(m);
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory reading the mapping");
	}
	if (len)
		memcpy(m->text, buf, len);
	m->text[len] = '\0';
	st = af_bt_mapping_lines(m, len, err);
	if (st != AF_OK) {
		af_btrace_mapping_free(m);
		return st;
	}
	*out = m;
	return AF_OK;
}

af_status af_btrace_mapping_parse(const void *buf, size_t len,
                                  af_btrace_mapping **out, af_error *err)
{
	af_mem *mem = af_mem_new(NULL, UINT64_MAX);
	af_status st;

	*out = NULL;
	if (!mem)
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory reading the mapping");
	st = af_bt_mapping_parse_mem(buf ? buf : "", len, mem, out, err);
	af_mem_unref(mem);
	return st;
}

af_status af_btrace_mapping_load(const char *path, af_btrace_mapping **out,
                                 af_error *err)
{
	af_mem *mem;
	af_buf b;
	af_status st;

	*out = NULL;
	if (err)
		err->line = 0;
	AF_FORWARD(af_mapping_read(path, NULL, "method mapping", &mem, &b, err));
	st = af_bt_mapping_parse_mem(b.data ? b.data : "", b.len, mem, out, err);
	af_buf_free(&b);
	af_mem_unref(mem);
	return st;
}

/* The mapping's method `id`, NULL when it names none. */
static const af_bt_method *af_bt_mapped(const af_btrace_mapping *m, uint32_t id)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->methods[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->n && m->methods[lo].id == id ? &m->methods[lo] : NULL;
}

/* ------------------------------------------------------------------ */
/* The trace                                                           */

int af_btrace_detect(const uint8_t *buf, size_t len)
{
	return len >= 4 && af_rd32(buf) == 5;
}

/* A call, as its record gives it (times in ns from the time base). */
typedef struct af_bt_call {
	uint64_t start, end;
	uint32_t tid, mid;
	uint32_t rec;  /* its record's index: byte 32 + 16 * rec */
} af_bt_call;

static int af_bt_cmp_call(const void *a, const void *b)
{
	const af_bt_call *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1; /* the longer (the caller) first */
	return x->rec > y->rec ? -1 : x->rec < y->rec; /* the parent, written last */
}

static long long af_bt_off(uint32_t rec)
{
	return (long long)AF_BT_HEADER + (long long)rec * AF_BT_RECORD;
}

/* The calls of the records, checked; stale ones left out, starts clamped. */
static af_status af_bt_calls(af_trace *t, const uint8_t *buf, size_t nrec,
                             int declare, af_bt_call **out, size_t *nout,
                             af_error *err)
{
	uint64_t base = af_rd64(buf + 16), restart = af_rd64(buf + 24);
	uint64_t clamp = restart > base ? restart - base : 0;
	af_bt_call *calls = NULL;
	size_t n = 0, cap = 0, r;

	if (nrec > UINT32_MAX)
		return af_fail(err, AF_ERR_LIMIT, AF_BT_HEADER,
		               "more than 2^32 btrace records");
	for (r = 0; r < nrec; r++) {
		const uint8_t *p = buf + AF_BT_HEADER + r * AF_BT_RECORD;
		uint64_t w0 = af_rd64(p), w1 = af_rd64(p + 8);
		uint64_t dur = ((w0 & 0x7FFFF) << 26) | (w1 >> 38);
		int64_t s = (int64_t)(w0 >> 19), e;
		uint32_t mid = (uint32_t)(w1 & AF_BT_MID_MASK);

		af_trace_progress(t, p, (size_t)af_bt_off((uint32_t)r), t->input_len);
		if (w1 == 0)
			continue; /* an unused slot */
		if (s & (int64_t)(AF_BT_CLOCK >> 1))
			s -= (int64_t)AF_BT_CLOCK; /* begun before the time base */
		e = s + (int64_t)dur;
		if (e >= (int64_t)AF_BT_CLOCK) {
			af_free(t->mem, calls);
			return af_fail(err, AF_ERR_RECORD, af_bt_off((uint32_t)r),
			               "the call's duration (%llu ns from its start at "
			               "%lld ns) runs past the end of the 45-bit clock",
			               (unsigned long long)dur, (long long)s);
		}
		if (e < 0) {
			af_free(t->mem, calls);
			return af_fail(err, AF_ERR_RECORD, af_bt_off((uint32_t)r),
			               "the call ends %lld ns before the trace's time base",
			               -(long long)e);
		}
		if (declare && t->btrace_mapping && !af_bt_mapped(t->btrace_mapping, mid)) {
			af_free(t->mem, calls);
			return af_fail(err, AF_ERR_RECORD, af_bt_off((uint32_t)r) + 8,
			               "record of method id %u, which the method mapping "
			               "does not name (a mapping of another build?)", mid);
		}
		if ((uint64_t)e < clamp) {
			if (declare)
				t->info.calls_stale++;
			continue;
		}
		if (s < 0 || (uint64_t)s < clamp) {
			if (declare)
				t->info.starts_clamped++;
			s = (int64_t)clamp;
		}
		if (AF_GROW(t->mem, calls, cap, n + 1)) {
			af_free(t->mem, calls);
			return af_fail(err, AF_ERR_NOMEM, af_bt_off((uint32_t)r), "out of memory");
		}
		calls[n++] = (af_bt_call){(uint64_t)s, (uint64_t)e,
		                          (uint32_t)(w1 >> 23) & AF_BT_TID_MASK, mid,
		                          (uint32_t)r};
	}
	if (n)
		qsort(calls, n, sizeof *calls, af_bt_cmp_call);
	*out = calls;
	*nout = n;
	return AF_OK;
}

/* Declares each thread and each method the calls name. */
static af_status af_bt_declare(af_trace *t, const af_bt_call *calls, size_t n,
                               af_error *err)
{
	const af_btrace_mapping *m = t->btrace_mapping;
	uint8_t *seen = af_calloc(t->mem, (AF_BT_MID_MASK >> 3) + 1, 1);
	af_buf line = {.mem = t->mem};
	af_status st = AF_OK;
	size_t i;

	if (!seen)
		return af_fail(err, AF_ERR_NOMEM, AF_BT_HEADER, "out of memory");
	for (i = 0; i < n && st == AF_OK; i++) {
		const af_bt_call *c = &calls[i];
		long long off = af_bt_off(c->rec);
		if (i == 0 || c->tid != calls[i - 1].tid) {
			char name[32];
			int k = snprintf(name, sizeof name, "thread %u", c->tid);
			st = af_trace_declare_thread(t, c->tid, name, (size_t)k, off, err);
		}
		if (st != AF_OK || (seen[c->mid >> 3] >> (c->mid & 7)) & 1)
			continue;
		seen[c->mid >> 3] |= (uint8_t)(1u << (c->mid & 7));
		line.len = 0;
		if (m) {
			const af_bt_method *bm = af_bt_mapped(m, c->mid);
			if (af_buf_printf(&line, "%#x\t%s\t%s\t%s", c->mid << 2, bm->cls,
			                  bm->name, bm->sig))
				st = af_fail(err, AF_ERR_NOMEM, off, "out of memory");
		} else if (af_buf_printf(&line, "%#x\t\tmethod#%u", c->mid << 2, c->mid)) {
			st = af_fail(err, AF_ERR_NOMEM, off, "out of memory");
		}
		if (st == AF_OK)
			st = af_trace_method_line(t, line.data, line.len, off, err);
	}
	af_buf_free(&line);
	af_free(t->mem, seen);
	return st;
}

/* A time in ns from the time base as the record machine's µs (modulo
 * 2^32: it unwraps each thread's steps). */
static uint32_t af_bt_us(uint64_t ns)
{
	return (uint32_t)(ns / 1000);
}

/* Each thread's calls, nested by containment, as enters and exits. */
static af_status af_bt_emit(af_trace *t, af_bt_call *calls, size_t n,
                            af_v2_record_fn cb, void *ctx, int declare,
                            af_error *err)
{
	size_t *stack = NULL, depth = 0, cap = 0, i;
	af_status st = AF_OK;

	for (i = 0; i <= n && st == AF_OK; i++) {
		af_bt_call *c = i < n ? &calls[i] : NULL;
		/* close what ended before this call began, and a whole thread
		 * before the next thread's first call */
		while (depth && st == AF_OK) {
			const af_bt_call *top = &calls[stack[depth - 1]];
			if (c && c->tid == top->tid && top->end > c->start)
				break;
			depth--;
			st = cb(ctx, af_bt_off(top->rec), top->tid, (top->mid << 2) | 1,
			        af_bt_us(top->end), af_bt_us(top->end), err);
		}
		if (!c || st != AF_OK)
			break;
		if (depth && c->end > calls[stack[depth - 1]].end) {
			c->end = calls[stack[depth - 1]].end;
			if (declare)
				t->info.calls_clipped++;
		}
		if (AF_GROW(t->mem, stack, cap, depth + 1)) {
			st = af_fail(err, AF_ERR_NOMEM, af_bt_off(c->rec), "out of memory");
			break;
		}
		stack[depth++] = i;
		st = cb(ctx, af_bt_off(c->rec), c->tid, c->mid << 2, af_bt_us(c->start),
		        af_bt_us(c->start), err);
	}
	af_free(t->mem, stack);
	return st;
}

af_status af_trace_btrace_walk(af_trace *t, const uint8_t *buf, size_t len,
                               int declare, af_v2_record_fn cb, void *ctx,
                               af_error *err)
{
	size_t nrec, tail, i;
	af_bt_call *calls = NULL;
	size_t ncalls = 0;
	af_status st;

	if (len < AF_BT_HEADER)
		return af_fail(err, AF_ERR_TRUNCATED, (long long)len,
		               "input ends inside the 32-byte btrace header");
	if (af_rd32(buf) != 5)
		return af_fail(err, AF_ERR_HEADER, 0,
		               "unsupported btrace format version %u (expected 5)",
		               af_rd32(buf));
	nrec = (len - AF_BT_HEADER) / AF_BT_RECORD;
	tail = (len - AF_BT_HEADER) % AF_BT_RECORD;
	if (declare) {
		t->info.version = 5;
		t->info.record_size = AF_BT_RECORD;
		t->info.has_clock[AF_CLOCK_WALL] = 1;
		t->single_clock = AF_CLOCK_WALL;
		t->clock_named = 1;
		t->records_begin = AF_BT_HEADER;
		t->info.names_missing = !t->btrace_mapping;
		t->info.data_end = len;
		for (i = len - tail; i < len; i++)
			if (buf[i]) {
				/* a record cut short; zeros are the file's unused tail */
				t->info.truncated_bytes = tail;
				t->info.data_end = len - tail;
				break;
			}
	}
	AF_FORWARD(af_bt_calls(t, buf, nrec, declare, &calls, &ncalls, err));
	st = declare ? af_bt_declare(t, calls, ncalls, err) : AF_OK;
	if (st == AF_OK)
		st = af_bt_emit(t, calls, ncalls, cb, ctx, declare, err);
	af_free(t->mem, calls);
	return st;
}

af_status af_trace_btrace(af_trace *t, const uint8_t *buf, size_t len, af_error *err)
{
	return af_trace_btrace_walk(t, buf, len, 1, af_v2_feed, t, err);
}
