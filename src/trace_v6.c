/*
 * trace_v6.c - ART's low-overhead "long-running methods" traces (data
 * version 6), as ART's TraceProfiler dumps them.  Spec: trace-formats.md
 * §7; the layout read from ART's writer (runtime/trace_profile.cc, its
 * DumpLongRunningMethodBuffer) and its parser
 * (tools/trace_parser/long_running_method_trace_parser.cc), and from
 * Perfetto's reader of the 2026 form (importers/proto/
 * art_method_trace_module.cc).
 *
 * Two forms:
 *  - 2026: a 32-byte "SLOW" header with version 0xF6 (6 | the streaming
 *    flag) and the u8 monotonic ns of the session's start at offset 6;
 *  - the headerless dump of earlier builds: the packets alone (told by a
 *    first packet that is an event block or a method packet whose length
 *    fits the input).
 * Then packets, each a u1 type: event blocks (2: u4 kernel tid, u3 record
 * count, u4 payload length, the payload), written first, then the thread
 * (0: u4 tid, u2 length, name) and method (1: u8 ArtMethod*, u2 length,
 * "class\tname\tdescriptor\tsource\n", the class dotted or as a
 * descriptor) packets, and in newer builds a fixed 17-byte summary record
 * (3: two u8 times, not needed here) anywhere among them.  A block's
 * records: a SLEB delta of (time ns << 1 | is exit), then for an entry a
 * SLEB delta of the ArtMethod*, both from the block's previous record
 * (0 at the block's start).  Times are absolute monotonic ns; they reach
 * the record machine as µs since the header's start (the first record's
 * time in a headerless dump).
 *
 * Exits name no method: each closes the thread's innermost call.  ART
 * records the methods on a thread's stack when tracing starts as entries
 * stamped with the start time, but only the innermost ~1,000: the stack
 * unwinding past them gives exits with no entry, which are counted
 * (af_trace_info.unmatched_ends) and ignored.  Only the long-running form
 * is read; the "all methods" trace of the same profiler writes no times.
 *
 * A dump cut short is read up to its last whole packet; as ART writes the
 * method packets last, its entries of methods whose packet was cut off
 * are drawn as unknown methods (counted).  In a whole file, an entry
 * naming a method no packet names is an error, as are a bad LEB128 and a
 * record past its block, naming their byte.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"

enum { AF_V6_THREAD = 0, AF_V6_METHOD = 1, AF_V6_BLOCK = 2, AF_V6_SUMMARY = 3 };

typedef struct af_v6 {
	af_trace *t;
	const uint8_t *buf;
	size_t len, begin, end; /* packets from `begin` to `end` (whole ones) */
	uint64_t start_ns;
	int have_start;
	af_v2_index ix;         /* the methods, the threads, their stacks */
	int declare;            /* the parse (else the dump) */
	af_v2_record_fn cb;
	void *ctx;
} af_v6;

int af_v6_detect(const uint8_t *b, size_t len)
{
	if (len >= 6 && af_rd32(b) == 0x574F4C53u && af_rd16(b + 4) == 0xF6)
		return 1;
	if (len >= 12 && b[0] == AF_V6_BLOCK && af_rd32(b + 8) <= len - 12)
		return 1;
	return len >= 11 && b[0] == AF_V6_METHOD && af_rd16(b + 9) <= len - 11 &&
	       !(af_rd64(b + 1) & 1);
}

/* Adds the method of every entry of the blocks to the method table (those
 * no packet names become unknown methods).  A bad LEB ends a block: the
 * records' pass says where. */
static af_status af_v6_entries(af_v6 *v, af_error *err)
{
	size_t pos = v->begin;

	while (pos < v->end) {
		const uint8_t *p = v->buf + pos, *q, *end;
		uint64_t ta = 0, ptr = 0;

		if (p[0] != AF_V6_BLOCK) {
			pos += p[0] == AF_V6_THREAD   ? 7 + (size_t)af_rd16(p + 5)
			       : p[0] == AF_V6_METHOD ? 11 + (size_t)af_rd16(p + 9)
			                              : 17;
			continue;
		}
		q = p + 12;
		end = q + af_rd32(p + 8);
		while (q < end) {
			uint64_t d;
			size_t n;
			if (af_v2_sleb(q, end, &d, &n))
				break;
			q += n;
			ta += d;
			if (ta & 1)
				continue;
			if (af_v2_sleb(q, end, &d, &n))
				break;
			q += n;
			ptr += d;
			if (AF_GROW(v->t->mem, v->ix.ptrs, v->ix.ptrs_cap, v->ix.nptrs + 1))
				return af_fail(err, AF_ERR_NOMEM, (long long)pos, "out of memory");
			v->ix.ptrs[v->ix.nptrs++] = ptr;
		}
		pos = (size_t)(end - v->buf);
	}
	return AF_OK;
}

/* The first pass: every packet's framing checked, threads (of blocks and
 * of thread packets) and method pointers gathered. */
static af_status af_v6_scan(af_v6 *v, int declare, af_error *err)
{
	af_trace *t = v->t;
	const uint8_t *buf = v->buf;
	size_t pos = v->begin, len = v->len, need;
	uint64_t seq = 0;

	while (pos < len) {
		const uint8_t *p = buf + pos;
		size_t left = len - pos;
		long long off = (long long)pos;
		af_v2_tid d = {0, 0, 0, 0};

		switch (p[0]) {
		case AF_V6_THREAD:
			if (left < 7 || left - 7 < (need = af_rd16(p + 5)))
				goto cut;
			if (memchr(p + 7, 0, need))
				return af_fail(err, AF_ERR_RECORD, off + 7,
				               "NUL byte in a thread packet's name");
			d = (af_v2_tid){af_rd32(p + 1), need ? pos + 7 : 0, need,
			                    need ? ++seq : 0};
			pos += 7 + need;
			break;
		case AF_V6_METHOD:
			if (left < 11 || left - 11 < (need = af_rd16(p + 9)))
				goto cut;
			if (memchr(p + 11, 0, need))
				return af_fail(err, AF_ERR_RECORD, off + 11,
				               "NUL byte in a method packet's text");
			if (AF_GROW(t->mem, v->ix.ptrs, v->ix.ptrs_cap, v->ix.nptrs + 1))
				return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
			v->ix.ptrs[v->ix.nptrs++] = af_rd64(p + 1);
			pos += 11 + need;
			continue;
		case AF_V6_BLOCK:
			if (left < 12 || left - 12 < (need = af_rd32(p + 8)))
				goto cut;
			d.tid = af_rd32(p + 1);
			pos += 12 + need;
			break;
		case AF_V6_SUMMARY:
			if (left < 17)
				goto cut;
			pos += 17;
			continue;
		default:
			return af_fail(err, AF_ERR_RECORD, off,
			               "unknown packet type %u in a long-running methods "
			               "trace", p[0]);
		}
		if (AF_GROW(t->mem, v->ix.tids, v->ix.tids_cap, v->ix.ntids + 1))
			return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
		v->ix.tids[v->ix.ntids++] = d;
	}
cut:
	v->end = pos;
	if (declare) {
		t->info.truncated_bytes = len - pos;
		t->info.data_end = pos;
	}
	/* ART writes the method packets after the blocks: a dump cut short
	 * loses some, and its entries of those methods are drawn as unknown */
	if (pos < len)
		AF_FORWARD(af_v6_entries(v, err));
	af_v2_sort_ptrs(&v->ix);
	if (v->ix.nptrs > (UINT32_MAX >> 2))
		return af_fail(err, AF_ERR_LIMIT, (long long)v->begin, "more than 2^30 methods");
	/* by id, the last named entry of each id kept (an unnamed one has seq 0) */
	af_v2_sort_tids(&v->ix);
	if (v->ix.ntids > 0xFFFF)
		return af_fail(err, AF_ERR_LIMIT, (long long)v->begin,
		               "more than 65535 threads in one trace");
	return AF_OK;
}

/* Declares the threads and methods the scan found. */
static af_status af_v6_declare(af_v6 *v, af_error *err)
{
	af_trace *t = v->t;
	const uint8_t *buf = v->buf;
	size_t pos = v->begin, i;
	char *line = NULL;
	size_t line_cap = 0;
	af_status st = AF_OK;

	for (i = 0; i < v->ix.ntids; i++) {
		const af_v2_tid *d = &v->ix.tids[i];
		char name[32];
		int n = snprintf(name, sizeof name, "Thread-%u", d->tid);
		AF_FORWARD(af_trace_declare_thread(
		    t, (uint32_t)i + 1, d->name_len ? (const char *)buf + d->name_off : name,
		    d->name_len ? d->name_len : (size_t)n, (long long)d->name_off, err));
		t->decl[t->ndecl - 1].full = d->tid;
	}
	/* methods in file order, so that the first definition of one wins */
	while (pos < v->end && st == AF_OK) {
		const uint8_t *p = buf + pos;

		if (p[0] != AF_V6_METHOD) {
			pos += p[0] == AF_V6_THREAD  ? 7 + (size_t)af_rd16(p + 5)
			       : p[0] == AF_V6_BLOCK ? 12 + (size_t)af_rd32(p + 8)
			                             : 17;
			continue;
		}
		st = af_v2_declare_method(t, &v->ix, buf, pos, 1, &line, &line_cap, err);
		pos += 11 + (size_t)af_rd16(p + 9);
	}
	af_free(t->mem, line);
	return st;
}

/* ns (absolute) as the record machine's µs since the start, floored. */
static uint32_t af_v6_us(const af_v6 *v, uint64_t ns)
{
	int64_t s = (int64_t)(ns - v->start_ns);
	return (uint32_t)(uint64_t)(s >= 0 ? s / 1000 : -((-(s + 1)) / 1000) - 1);
}

/* One event block's records. */
static af_status af_v6_block(af_v6 *v, size_t pos, af_error *err)
{
	const uint8_t *p = v->buf + pos, *q = p + 12, *end = p + 12 + af_rd32(p + 8);
	uint32_t tid = af_rd32(p + 1), k = af_v2_find_tid(&v->ix, tid);
	uint64_t ta = 0, ptr = 0;
	af_mem *mem = v->t->mem;

	while (q < end) {
		long long off = (long long)(q - v->buf);
		uint64_t d;
		size_t n;
		uint32_t idx, us;
		int r;

		if ((r = af_v2_sleb(q, end, &d, &n)))
			return af_v2_bad_leb(r, "time and action", off, err);
		q += n;
		ta += d;
		if (!v->have_start) {
			v->start_ns = ta >> 1; /* headerless: times from the first one */
			v->have_start = 1;
		}
		us = af_v6_us(v, (uint64_t)((int64_t)ta >> 1));
		if (!(ta & 1)) {
			if ((r = af_v2_sleb(q, end, &d, &n)))
				return af_v2_bad_leb(r, "method", (long long)(q - v->buf), err);
			q += n;
			ptr += d;
			if (!af_v2_find_ptr(&v->ix, ptr, &idx))
				return af_fail(err, AF_ERR_RECORD, off,
				               "entry of method 0x%llx, which no method packet "
				               "names", (unsigned long long)ptr);
			if (af_v2_push(&v->ix, mem, k - 1, idx, v->t->limits.max_depth))
				return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
			AF_FORWARD(v->cb(v->ctx, off, k, idx << 2, us, us, err));
		} else if (v->ix.depth[k - 1]) {
			idx = v->ix.stack[k - 1][--v->ix.depth[k - 1]];
			AF_FORWARD(v->cb(v->ctx, off, k, (idx << 2) | 1, us, us, err));
		} else if (v->declare) {
			/* an exit of a call entered before the innermost ones ART
			 * recorded at the start */
			v->t->info.unmatched_ends++;
		}
	}
	return AF_OK;
}

af_status af_trace_v6_walk(af_trace *t, const uint8_t *buf, size_t len, int declare,
                           af_v2_record_fn cb, void *ctx, af_error *err)
{
	af_v6 v = {.t = t, .buf = buf, .len = len, .cb = cb, .ctx = ctx,
	           .declare = declare};
	size_t pos;
	af_status st;

	if (len >= 4 && af_rd32(buf) == 0x574F4C53u) {
		if (len < 32)
			return af_fail(err, AF_ERR_TRUNCATED, (long long)len,
			               "input ends inside the long-running methods trace's "
			               "32-byte header");
		v.begin = 32;
		v.start_ns = af_rd64(buf + 6);
		v.have_start = 1;
	}
	st = af_v6_scan(&v, declare, err);
	if (st == AF_OK && declare)
		st = af_v6_declare(&v, err);
	if (st == AF_OK && declare) {
		t->info.version = v.begin ? af_rd16(buf + 4) : 6;
		t->info.record_size = 0;
		t->records_begin = v.begin;
		t->info.has_clock[AF_CLOCK_WALL] = 1;
		t->single_clock = AF_CLOCK_WALL;
		t->clock_named = 1;
	}
	if (st == AF_OK) {
		if (af_v2_stacks_new(&v.ix, t->mem))
			st = af_fail(err, AF_ERR_NOMEM, (long long)v.begin, "out of memory");
	}
	for (pos = v.begin; st == AF_OK && pos < v.end;) {
		const uint8_t *p = buf + pos;
		if (p[0] == AF_V6_BLOCK) {
			st = af_v6_block(&v, pos, err);
			pos += 12 + (size_t)af_rd32(p + 8);
			af_trace_progress(t, p, pos, len);
		} else {
			pos += p[0] == AF_V6_THREAD   ? 7 + (size_t)af_rd16(p + 5)
			       : p[0] == AF_V6_METHOD ? 11 + (size_t)af_rd16(p + 9)
			                              : 17;
		}
	}
	af_v2_index_free(&v.ix, t->mem);
	return st;
}

af_status af_trace_v6(af_trace *t, const uint8_t *buf, size_t len, af_error *err)
{
	return af_trace_v6_walk(t, buf, len, 1, af_v2_feed, t, err);
}
