/*
 * trace_v2.c - ART's "V2" compact method traces (data versions 4, 5, 0xF4,
 * 0xF5; Android 15 and later): a 32-byte "SLOW" header, then packets of
 * thread info, method info, LEB128-coded event blocks (one thread each) and
 * a summary, the last.  Spec: trace-formats.md §6.
 *
 * Two revisions are read:
 *  - B: per record a SLEB delta of (ArtMethod* | action), then a ULEB wall
 *    delta and a ULEB thread-cpu delta (those the clock has), µs or ns as
 *    the summary's elapsed-time-usec / -nsec key says.  The previous values
 *    start at 0 at every flush; a flush that spilled into a second block of
 *    the same thread goes on from the block before (told by its first
 *    method being unknown when read from 0 and known when read on);
 *  - C (header bytes 14-29 not all zero: u8 start tick at 14, u8 tick
 *    frequency at 22; or, those zero as ART's 2026 writer leaves them, a
 *    first event block that reads as C and not as B; the rate is needed
 *    only for a trace with a wall clock): a SLEB delta of
 *    (time << 2 | action), the time being timestamp-counter ticks (or the
 *    thread-cpu ns in a thread-cpu trace), then in a dual trace a ULEB
 *    thread-cpu ns delta, then for entries only a SLEB delta of the method
 *    against the block's previous entry.  Exits name no method: they close
 *    the thread's innermost frame.
 *
 * The packets are read twice: once to learn the threads, the methods (by
 * pointer) and the summary wherever they are, once for the records, so
 * the order of the packets does not matter.  Method pointers become dense
 * ids (their rank, times 4) and kernel thread ids dense record ids (their
 * rank + 1); the thread keeps its kernel id.  Times reach the record
 * machine as µs, as V1 traces hold them.
 *
 * A trace cut short (no summary, a packet cut by the end) is read up to
 * its last whole packet, as a streaming V1 trace is.  A record naming a
 * method no packet names is drawn as an unknown method, as V1 draws an id
 * its key lacks (§9.8).  A block of an unknown thread, a bad or overlong
 * LEB128, a record running past its block are errors naming their byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

enum { AF_V2_THREAD = 0, AF_V2_METHOD = 1, AF_V2_BLOCK = 2, AF_V2_SUMMARY = 3 };

typedef struct af_v2 {
	af_trace *t;
	const uint8_t *buf;
	size_t len;
	size_t end;            /* where the whole packets end */
	af_v2_index ix;         /* the methods, the threads, their stacks */
	int rev_c;
	int summary;           /* the summary packet is there */
	int dual, wall;        /* the clocks the records hold */
	int ns;                /* revision B: deltas in ns (else µs) */
	uint64_t start_tick, freq; /* revision C */
	af_v2_record_fn cb;
	void *ctx;
} af_v2;

/* Reads a ULEB128 of at most 10 bytes from p (before `end`): 0 and the
 * value, -1 when it runs past `end`, -2 when it is overlong. */
static int af_v2_uleb(const uint8_t *p, const uint8_t *end, uint64_t *out,
                      size_t *n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < 10; i++) {
		uint8_t b;
		if (p + i >= end)
			return -1;
		b = p[i];
		if (i == 9 && (b & 0xFE))
			return -2; /* more than 64 bits */
		v |= (uint64_t)(b & 0x7F) << (7 * i);
		if (!(b & 0x80)) {
			*out = v;
			*n = i + 1;
			return 0;
		}
	}
	return -2;
}

int af_v2_sleb(const uint8_t *p, const uint8_t *end, uint64_t *out,
                      size_t *n)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < 10; i++) {
		uint8_t b;
		if (p + i >= end)
			return -1;
		b = p[i];
		if (i == 9) {
			/* bit 63 and its sign extension, no continuation */
			if ((b & 0x80) || (b & 0x7E) != ((b & 1) ? 0x7E : 0))
				return -2;
			v |= (uint64_t)(b & 1) << 63;
			*out = v;
			*n = 10;
			return 0;
		}
		v |= (uint64_t)(b & 0x7F) << (7 * i);
		if (!(b & 0x80)) {
			if ((b & 0x40) && i < 9)
				v |= ~(uint64_t)0 << (7 * (i + 1));
			*out = v;
			*n = i + 1;
			return 0;
		}
	}
	return -2;
}

static int af_v2_cmp_ptr(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int af_v2_cmp_tid(const void *a, const void *b)
{
	const af_v2_tid *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void af_v2_sort_ptrs(af_v2_index *ix)
{
	size_t i, k = 1;

	if (ix->nptrs == 0)
		return;
	qsort(ix->ptrs, ix->nptrs, sizeof *ix->ptrs, af_v2_cmp_ptr);
	for (i = 1; i < ix->nptrs; i++)
		if (ix->ptrs[i] != ix->ptrs[k - 1])
			ix->ptrs[k++] = ix->ptrs[i];
	ix->nptrs = k;
}

void af_v2_sort_tids(af_v2_index *ix)
{
	size_t i, k = 0;

	if (ix->ntids == 0)
		return;
	/* by id, then by seq: the last of each id is the one kept */
	qsort(ix->tids, ix->ntids, sizeof *ix->tids, af_v2_cmp_tid);
	for (i = 0; i < ix->ntids; i++) {
		if (k && ix->tids[k - 1].tid == ix->tids[i].tid)
			k--;
		ix->tids[k++] = ix->tids[i];
	}
	ix->ntids = k;
}

int af_v2_find_ptr(const af_v2_index *ix, uint64_t ptr, uint32_t *idx)
{
	size_t lo = 0, hi = ix->nptrs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->ptrs[mid] < ptr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == ix->nptrs || ix->ptrs[lo] != ptr)
		return 0;
	*idx = (uint32_t)lo;
	return 1;
}

int af_v2_method_or_unknown(af_v2_index *ix, af_mem *mem, uint64_t ptr,
                            uint32_t *idx)
{
	if (af_v2_find_ptr(ix, ptr, idx) || af_u64map_get(&ix->unknown, ptr, idx))
		return 0;
	if (ix->nptrs + ix->nunknown >= (UINT32_MAX >> 2))
		return -2;
	*idx = (uint32_t)ix->nptrs + ix->nunknown;
	if (af_u64map_put(mem, &ix->unknown, ptr, *idx))
		return -1;
	ix->nunknown++;
	return 0;
}

uint32_t af_v2_find_tid(const af_v2_index *ix, uint32_t tid)
{
	size_t lo = 0, hi = ix->ntids;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (ix->tids[mid].tid < tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < ix->ntids && ix->tids[lo].tid == tid ? (uint32_t)lo + 1 : 0;
}

int af_v2_stacks_new(af_v2_index *ix, af_mem *mem)
{
	size_t n = AF_MAX(ix->ntids, 1u);

	ix->stack = af_calloc(mem, n, sizeof *ix->stack);
	ix->nstacks = ix->stack ? n : 0;
	ix->depth = af_calloc(mem, n, sizeof *ix->depth);
	ix->cap = af_calloc(mem, n, sizeof *ix->cap);
	ix->last_enter = af_calloc(mem, n, sizeof *ix->last_enter);
	return ix->stack && ix->depth && ix->cap && ix->last_enter ? 0 : -1;
}

int af_v2_push(af_v2_index *ix, af_mem *mem, uint32_t k, uint32_t m,
               uint32_t max_depth)
{
	ix->last_enter[k] = m + 1;
	if (ix->depth[k] >= max_depth)
		return 0; /* the record machine stops it with its message */
	if (AF_GROW(mem, ix->stack[k], ix->cap[k], ix->depth[k] + 1))
		return -1;
	ix->stack[k][ix->depth[k]++] = m;
	return 0;
}

void af_v2_index_free(af_v2_index *ix, af_mem *mem)
{
	size_t i;

	for (i = 0; i < ix->nstacks; i++)
		af_free(mem, ix->stack[i]);
	af_free(mem, ix->stack);
	af_free(mem, ix->depth);
	af_free(mem, ix->cap);
	af_free(mem, ix->last_enter);
	af_free(mem, ix->ptrs);
	af_free(mem, ix->tids);
	af_u64map_free(mem, &ix->unknown);
}

/* 1 when a line of the summary text begins with `line`. */
static int af_v2_has_line(const uint8_t *text, size_t len, const char *line)
{
	size_t n = strlen(line), i = 0;

	while (i < len) {
		const uint8_t *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) : len;
		if (e - i >= n && memcmp(text + i, line, n) == 0)
			return 1;
		i = e + 1;
	}
	return 0;
}

static af_status af_v2_no_nul(const uint8_t *p, size_t n, long long off,
                              af_error *err)
{
	const uint8_t *nul = memchr(p, 0, n);

	if (nul)
		return af_fail(err, AF_ERR_RECORD, off + (nul - p),
		               "NUL byte in a V2 packet's name");
	return AF_OK;
}

/* The first pass: every packet's framing checked, the threads and methods
 * gathered, the summary read (when `declare`, into the trace). */
static af_status af_v2_scan(af_v2 *v, int declare, af_error *err)
{
	af_trace *t = v->t;
	const uint8_t *buf = v->buf;
	size_t pos = 32, len = v->len;
	uint64_t seq = 0;

	while (pos < len) {
		const uint8_t *p = buf + pos;
		size_t left = len - pos, need;
		long long off = (long long)pos;

		switch (p[0]) {
		case AF_V2_THREAD:
			if (left < 7 || left - 7 < (need = af_rd16(p + 5)))
				goto cut;
			AF_FORWARD(af_v2_no_nul(p + 7, need, off + 7, err));
			if (AF_GROW(t->mem, v->ix.tids, v->ix.tids_cap, v->ix.ntids + 1))
				return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
			v->ix.tids[v->ix.ntids++] = (af_v2_tid){af_rd32(p + 1), pos + 7, need, seq++};
			pos += 7 + need;
			break;
		case AF_V2_METHOD:
			if (left < 11 || left - 11 < (need = af_rd16(p + 9)))
				goto cut;
			AF_FORWARD(af_v2_no_nul(p + 11, need, off + 11, err));
			if (af_rd64(p + 1) & 3)
				return af_fail(err, AF_ERR_RECORD, off + 1,
				               "method pointer 0x%llx has its low two bits "
				               "set (they hold the action)",
				               (unsigned long long)af_rd64(p + 1));
			if (AF_GROW(t->mem, v->ix.ptrs, v->ix.ptrs_cap, v->ix.nptrs + 1))
				return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
			v->ix.ptrs[v->ix.nptrs++] = af_rd64(p + 1);
			pos += 11 + need;
			break;
		case AF_V2_BLOCK:
			if (left < 12 || left - 12 < (need = af_rd32(p + 8)))
				goto cut;
			pos += 12 + need;
			break;
		case AF_V2_SUMMARY: {
			size_t end;
			if (left < 3 || left - 3 < (need = af_rd16(p + 1)))
				goto cut;
			if (pos + 3 + need != len)
				return af_fail(err, AF_ERR_RECORD, (long long)(pos + 3 + need),
				               "data after the V2 summary, which must be last");
			if (declare)
				AF_FORWARD(af_trace_key(t, p + 3, need, off + 3, &end, err));
			v->ns = af_v2_has_line(p + 3, need, "elapsed-time-nsec=");
			pos += 3 + need;
			v->summary = 1;
			break;
		}
		default:
			return af_fail(err, AF_ERR_RECORD, off,
			               "unknown V2 packet type %u", p[0]);
		}
	}
cut:
	v->end = pos;
	if (declare) {
		t->info.truncated_bytes = len - pos;
		t->info.data_end = pos;
		if (!v->summary) {
			t->info.summary_missing = 1;
			t->clock_named = 0;
			t->single_clock = AF_CLOCK_WALL; /* ART's one-clock default */
		}
	}
	/* methods: sorted and unique, a method's rank its id */
	af_v2_sort_ptrs(&v->ix);
	if (v->ix.nptrs > (UINT32_MAX >> 2))
		return af_fail(err, AF_ERR_LIMIT, 32, "more than 2^30 methods");
	/* threads: sorted by id, the last name of each kept */
	af_v2_sort_tids(&v->ix);
	if (v->ix.ntids > 0xFFFF)
		return af_fail(err, AF_ERR_LIMIT, 32,
		               "more than 65535 threads in one trace");
	return AF_OK;
}

af_status af_v2_declare_method(af_trace *t, const af_v2_index *ix, const uint8_t *buf,
                               size_t pos, int descriptors, char **line,
                               size_t *line_cap, af_error *err)
{
	const uint8_t *p = buf + pos;
	size_t need = af_rd16(p + 9);
	uint32_t idx;
	char *l;
	int n;

	if (!af_v2_find_ptr(ix, af_rd64(p + 1), &idx))
		return AF_OK; /* cannot be: the scan put it there */
	if (AF_GROW(t->mem, *line, *line_cap, need + 16))
		return af_fail(err, AF_ERR_NOMEM, (long long)pos, "out of memory");
	l = *line;
	n = snprintf(l, 16, "%#x\t", idx << 2);
	memcpy(l + n, p + 11, need);
	if (need && l[n + need - 1] == '\n')
		need--;
	/* Perfetto's long-running reader takes "Lpkg/Cls;" classes too */
	if (descriptors && need >= 2 && l[n] == 'L') {
		char *tab = memchr(l + n, '\t', need);
		if (tab && tab > l + n + 1 && tab[-1] == ';') {
			memmove(l + n, l + n + 1, (size_t)(tab - l - n) - 2);
			memmove(tab - 2, tab, need - (size_t)(tab - l - n));
			need -= 2;
		}
	}
	return af_trace_method_line(t, l, (size_t)n + need, (long long)pos, err);
}

/* Declares the threads and methods the scan found. */
static af_status af_v2_declare(af_v2 *v, af_error *err)
{
	af_trace *t = v->t;
	const uint8_t *buf = v->buf;
	size_t pos = 32;
	char *line = NULL;
	size_t line_cap = 0, i;
	af_status st = AF_OK;

	for (i = 0; i < v->ix.ntids; i++) {
		const af_v2_tid *d = &v->ix.tids[i];
		AF_FORWARD(af_trace_declare_thread(t, (uint32_t)i + 1,
		                                   (const char *)buf + d->name_off,
		                                   d->name_len, (long long)d->name_off,
		                                   err));
		t->decl[t->ndecl - 1].full = d->tid;
	}
	/* methods in file order, so that the first definition of one wins */
	while (pos < v->end && st == AF_OK) {
		const uint8_t *p = buf + pos;

		if (p[0] == AF_V2_THREAD) {
			pos += 7 + (size_t)af_rd16(p + 5);
			continue;
		}
		if (p[0] == AF_V2_BLOCK) {
			pos += 12 + (size_t)af_rd32(p + 8);
			continue;
		}
		if (p[0] != AF_V2_METHOD)
			break; /* the summary */
		st = af_v2_declare_method(t, &v->ix, buf, pos, 0, &line, &line_cap, err);
		pos += 11 + (size_t)af_rd16(p + 9);
	}
	af_free(t->mem, line);
	return st;
}

/* ticks since the start tick, in ns (signed: a counter before the start
 * gives a negative time). */
static uint64_t af_v2_ticks_ns(const af_v2 *v, uint64_t ticks)
{
	uint64_t d = ticks - v->start_tick, q, r;
	int neg = (int64_t)d < 0;

	if (neg)
		d = 0 - d;
	q = d / v->freq;
	r = d % v->freq;
	d = q * 1000000000u + r * 1000000000u / v->freq;
	return neg ? 0 - d : d;
}

/* A 64-bit time in ns or µs as the record machine's 32-bit µs. */
static uint32_t af_v2_us(uint64_t time, int ns)
{
	int64_t s = (int64_t)time;

	if (!ns)
		return (uint32_t)time;
	/* floor division, so that ns = 1000 µs exactly gives those µs back */
	return (uint32_t)(uint64_t)(s >= 0 ? s / 1000 : -((-(s + 1)) / 1000) - 1);
}

af_status af_v2_bad_leb(int r, const char *what, long long off, af_error *err)
{
	if (r == -1)
		return af_fail(err, AF_ERR_RECORD, off,
		               "the %s LEB128 runs past the end of its event block", what);
	return af_fail(err, AF_ERR_RECORD, off,
	               "the %s LEB128 is longer than 64 bits", what);
}

/* The dense id of the method a record at `off` names: one no packet names
 * is drawn as an unknown method, as a V1 trace draws a method id its key
 * lacks (trace-formats.md §9.8). */
static af_status af_v2_method_at(af_v2 *v, uint64_t ptr, uint32_t *idx, long long off,
                                 af_error *err)
{
	int r = af_v2_method_or_unknown(&v->ix, v->t->mem, ptr, idx);

	if (r == -1)
		return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
	if (r == -2)
		return af_fail(err, AF_ERR_LIMIT, off, "more than 2^30 methods");
	return AF_OK;
}

/* One event block's records. */
static af_status af_v2_block(af_v2 *v, size_t pos, uint64_t prev[3], af_error *err)
{
	const uint8_t *p = v->buf + pos, *q = p + 12, *end = p + 12 + af_rd32(p + 8);
	uint32_t tid = af_rd32(p + 1), k = af_v2_find_tid(&v->ix, tid);
	uint64_t ma = prev[0], wall = prev[1], cpu = prev[2], entry = 0;
	int one_cpu = !v->dual && !v->wall;

	if (!k)
		return af_fail(err, AF_ERR_RECORD, (long long)pos + 1,
		               "event block of thread %u, which no thread packet names",
		               tid);
	while (q < end) {
		long long off = (long long)(q - v->buf);
		uint64_t d, ptr;
		uint32_t idx, act, t0, t1;
		size_t n;
		int r;

		if ((r = af_v2_sleb(q, end, &d, &n)))
			return af_v2_bad_leb(r, v->rev_c ? "time and action" : "method",
			                     (long long)(q - v->buf), err);
		q += n;
		ma += d;
		act = (uint32_t)(ma & 3);
		if (!v->rev_c) {
			if (v->wall || v->dual) {
				if ((r = af_v2_uleb(q, end, &d, &n)))
					return af_v2_bad_leb(r, "wall time", (long long)(q - v->buf), err);
				q += n;
				wall += d;
			}
			if (v->dual || one_cpu) {
				if ((r = af_v2_uleb(q, end, &d, &n)))
					return af_v2_bad_leb(r, "thread-cpu time",
					                     (long long)(q - v->buf), err);
				q += n;
				cpu += d;
			}
			ptr = ma & ~(uint64_t)3;
			AF_FORWARD(af_v2_method_at(v, ptr, &idx, off, err));
			t1 = af_v2_us(wall, v->ns);
			t0 = af_v2_us(cpu, v->ns);
		} else {
			uint64_t time = (uint64_t)((int64_t)ma >> 2);
			if (v->dual) {
				if ((r = af_v2_uleb(q, end, &d, &n)))
					return af_v2_bad_leb(r, "thread-cpu time",
					                     (long long)(q - v->buf), err);
				q += n;
				cpu += d;
			}
			if (one_cpu)
				cpu = time;
			else
				wall = af_v2_ticks_ns(v, time);
			if (act == 3) {
				idx = 0; /* a bad action: the record machine counts it */
			} else if (act == 0) {
				if ((r = af_v2_sleb(q, end, &d, &n)))
					return af_v2_bad_leb(r, "method", (long long)(q - v->buf), err);
				q += n;
				entry += d;
				if (entry & 3)
					return af_fail(err, AF_ERR_RECORD, off,
					               "entry of method 0x%llx, which has its low "
					               "two bits set (no method pointer has)",
					               (unsigned long long)entry);
				AF_FORWARD(af_v2_method_at(v, entry, &idx, off, err));
				if (af_v2_push(&v->ix, v->t->mem, k - 1, idx,
				               v->t->limits.max_depth))
					return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
			} else if (v->ix.depth[k - 1]) {
				idx = v->ix.stack[k - 1][--v->ix.depth[k - 1]];
			} else if (v->ix.last_enter[k - 1]) {
				idx = v->ix.last_enter[k - 1] - 1; /* as Perfetto does */
			} else {
				return af_fail(err, AF_ERR_RECORD, off,
				               "exit of thread %u before any entry: revision C "
				               "exits do not name their method", tid);
			}
			t1 = af_v2_us(wall, 1);
			t0 = af_v2_us(cpu, 1);
		}
		if (!v->dual)
			t0 = t1 = one_cpu ? t0 : t1;
		AF_FORWARD(v->cb(v->ctx, off, k, (idx << 2) | act, t0, t1, err));
	}
	prev[0] = ma;
	prev[1] = wall;
	prev[2] = cpu;
	return AF_OK;
}

/* 1 when the first event block reads as revision C and not as B: its first
 * record's method, read as B, is not a known one, and read as C it is an
 * entry of a known one (trace-formats.md §12: a trace with zero tick
 * fields is told by decoding its first block both ways). */
static int af_v2_looks_c(const af_v2 *v)
{
	size_t pos = 32;
	const uint8_t *p, *q, *end;
	uint64_t d, ptr;
	size_t n;
	uint32_t idx;

	while (pos < v->end &&
	       (v->buf[pos] == AF_V2_THREAD || v->buf[pos] == AF_V2_METHOD))
		pos += v->buf[pos] == AF_V2_THREAD ? 7 + (size_t)af_rd16(v->buf + pos + 5)
		                                   : 11 + (size_t)af_rd16(v->buf + pos + 9);
	if (pos >= v->end || v->buf[pos] != AF_V2_BLOCK)
		return 0;
	p = v->buf + pos;
	q = p + 12;
	end = q + af_rd32(p + 8);
	if (af_v2_sleb(q, end, &d, &n) || af_v2_find_ptr(&v->ix, d & ~(uint64_t)3, &idx))
		return 0;
	if (d & 3)
		return 0; /* as C: not an entry */
	q += n;
	if (v->dual && (af_v2_uleb(q, end, &d, &n) == 0))
		q += n;
	else if (v->dual)
		return 0;
	return af_v2_sleb(q, end, &ptr, &n) == 0 && af_v2_find_ptr(&v->ix, ptr, &idx);
}

/* Revision B: 1 when the block at `pos` reads as the rest of the flush
 * before it (its first method unknown from 0, known from `prev`, or
 * neither known and its first value not a pointer). */
static int af_v2_continues(const af_v2 *v, size_t pos, const uint64_t prev[3])
{
	const uint8_t *p = v->buf + pos, *end = p + 12 + af_rd32(p + 8);
	uint64_t d;
	size_t n;
	uint32_t idx;

	if (af_v2_sleb(p + 12, end, &d, &n))
		return 0;
	if (af_v2_find_ptr(&v->ix, d & ~(uint64_t)3, &idx))
		return 0;
	if (af_v2_find_ptr(&v->ix, (prev[0] + d) & ~(uint64_t)3, &idx))
		return 1;
	/* neither names a known method (one no packet names is drawn as
	 * unknown): a delta is negative or below every method pointer, a
	 * flush's first record a pointer */
	return (int64_t)d < 0 || (v->ix.nptrs && (d & ~(uint64_t)3) < v->ix.ptrs[0]);
}

/* The second pass: every block's records to `cb`. */
static af_status af_v2_records(af_v2 *v, af_error *err)
{
	size_t pos = 32;
	uint64_t prev[3] = {0};
	uint32_t last_tid = 0;
	int last_block = 0;

	while (pos < v->end) {
		const uint8_t *p = v->buf + pos;
		if (p[0] == AF_V2_THREAD) {
			pos += 7 + (size_t)af_rd16(p + 5);
			last_block = 0;
		} else if (p[0] == AF_V2_METHOD) {
			pos += 11 + (size_t)af_rd16(p + 9);
			last_block = 0;
		} else if (p[0] == AF_V2_BLOCK) {
			if (v->rev_c || !last_block || last_tid != af_rd32(p + 1) ||
			    !af_v2_continues(v, pos, prev))
				memset(prev, 0, sizeof prev);
			AF_FORWARD(af_v2_block(v, pos, prev, err));
			last_block = 1;
			last_tid = af_rd32(p + 1);
			pos += 12 + (size_t)af_rd32(p + 8);
			af_trace_progress(v->t, p, pos, v->len);
		} else {
			break; /* the summary */
		}
	}
	return AF_OK;
}

af_status af_trace_v2_walk(af_trace *t, const uint8_t *buf, size_t len, int declare,
                           af_v2_record_fn cb, void *ctx, af_error *err)
{
	af_v2 v = {.t = t, .buf = buf, .len = len, .cb = cb, .ctx = ctx};
	unsigned version;
	size_t i;
	af_status st;

	if (len < 32)
		return af_fail(err, AF_ERR_TRUNCATED, (long long)len,
		               "input ends inside the V2 header");
	version = af_rd16(buf + 4);
	if (version != 4 && version != 5 && version != 0xF4 && version != 0xF5)
		return af_fail(err, AF_ERR_HEADER, 4,
		               "unsupported V2 version 0x%X (expected 4, 5, 0xF4 or 0xF5)",
		               version);
	v.dual = (version & 0xF) == 5;
	for (i = 14; i < 30; i++)
		v.rev_c |= buf[i] != 0;
	v.start_tick = af_rd64(buf + 14);
	v.freq = af_rd64(buf + 22);
	st = af_v2_scan(&v, declare, err);
	/* zero tick fields: revision C all the same when its first block reads
	 * as C (ART's writer of 2026 leaves them zero) */
	if (st == AF_OK && !v.rev_c)
		v.rev_c = af_v2_looks_c(&v);
	if (st == AF_OK && !v.summary && !v.rev_c) {
		v.ns = 0; /* revision B before the ns change: µs (assumed) */
		if (declare)
			t->info.clock_assumed = 1;
	}
	if (st == AF_OK && declare)
		st = af_v2_declare(&v, err);
	if (st == AF_OK && declare) {
		t->info.version = version;
		t->info.record_size = 0;
		t->records_begin = 32;
		af_trace_set_clocks(t, v.dual);
	}
	v.wall = v.dual || t->info.has_clock[AF_CLOCK_WALL];
	/* the ticks of a trace with a wall clock need their rate */
	if (st == AF_OK && v.rev_c && v.wall &&
	    (v.freq == 0 || v.freq > 10000000000ull))
		st = af_fail(err, AF_ERR_HEADER, 22,
		             "timestamp-counter frequency %llu Hz (expected 1 Hz to 10 GHz)",
		             (unsigned long long)v.freq);
	if (st == AF_OK && v.rev_c) {
		if (af_v2_stacks_new(&v.ix, t->mem))
			st = af_fail(err, AF_ERR_NOMEM, 32, "out of memory");
	}
	if (st == AF_OK)
		st = af_v2_records(&v, err);
	af_v2_index_free(&v.ix, t->mem);
	return st;
}

af_status af_v2_feed(void *ctx, long long off, uint32_t tid, uint32_t ma,
                            uint32_t t0, uint32_t t1, af_error *err)
{
	return af_trace_record(ctx, tid, ma, t0, t1, off, err);
}

af_status af_trace_v2(af_trace *t, const uint8_t *buf, size_t len, af_error *err)
{
	return af_trace_v2_walk(t, buf, len, 1, af_v2_feed, t, err);
}
