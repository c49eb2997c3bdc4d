/*
 * writer.c - writes method traces (see aflame/writer.h).  Tests rely on it
 * to produce exactly what Dalvik and ART produce, byte for byte in layout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aflame/writer.h"
#include "internal.h"

/* ART V2 and btrace: a thread's times so far. */
typedef struct af_v2_clock {
	uint32_t tid;
	uint32_t last[2]; /* the µs given last: cpu, wall */
	int64_t abs[2];   /* unwrapped */
	int seen;
	/* btrace: the calls open, innermost last */
	uint32_t *ids;
	int64_t *starts;  /* wall µs, unwrapped */
	size_t depth, cap, starts_cap;
} af_v2_clock;

struct af_writer {
	af_mem *mem;
	af_writer_options o;
	unsigned record_size;
	af_buf threads;  /* key lines */
	af_buf methods;  /* key lines */
	af_buf data;     /* records (and streaming items, V2 packets) */
	uint64_t nrecords;
	int failed;
	int btrace;
	int v6;          /* ART long-running methods (uses the V2 block state) */
	/* ART V2 */
	int v2;
	af_v2_clock *clocks;
	size_t nclocks, clocks_cap;
	af_buf block;    /* the open event block's payload */
	int block_open;
	uint32_t block_tid, block_count;
	uint64_t prev[4]; /* method|action (B) or time|action (C), wall, cpu,
	                     the last entry's method (C) */
};

af_writer *af_writer_new(const af_writer_options *opt)
{
	af_mem *mem = af_mem_new(opt ? opt->allocator : NULL, UINT64_MAX);
	af_writer *w = mem ? af_calloc(mem, 1, sizeof *w) : NULL;

	if (!w) {
		af_mem_unref(mem);
		return NULL;
	}
	w->mem = mem;
	w->threads.mem = w->methods.mem = w->data.mem = mem;
	if (opt)
		w->o = *opt;
	w->block.mem = mem;
	if (w->o.variant == AF_VARIANT_ART_V6) {
		w->v6 = 1;
		w->o.clock = AF_WRITER_WALL;
		w->o.version = w->o.v6_headerless ? 6 : 0xF6;
		return w;
	}
	if (w->o.variant == AF_VARIANT_BTRACE) {
		w->btrace = 1;
		w->o.clock = AF_WRITER_WALL;
		w->o.version = 5;
		return w;
	}
	if (w->o.variant == AF_VARIANT_ART_V2) {
		w->v2 = 1;
		if (w->o.v2_revision == 0)
			w->o.v2_revision = 'B';
		if (w->o.v2_revision != 'B' && w->o.v2_revision != 'C')
			goto bad;
		w->o.version = (w->o.clock == AF_WRITER_DUAL ? 5u : 4u) |
		               (w->o.v2_streaming ? 0xF0u : 0u);
		return w;
	}
	if (w->o.version == 0)
		w->o.version = w->o.clock == AF_WRITER_DUAL ? 3 : 2;
	if (w->o.variant == AF_VARIANT_STREAMING) {
		w->record_size = w->o.clock == AF_WRITER_DUAL ? 14 : 10;
	} else if (w->o.version == 1 || w->o.version == 2) {
		w->record_size = w->o.version == 1 ? 9 : 10;
		if (w->o.clock == AF_WRITER_DUAL)
			goto bad;
	} else if (w->o.version == 3) {
		w->record_size = w->o.clock == AF_WRITER_DUAL ? 14 : 10;
	} else {
		goto bad;
	}
	return w;
bad:
	af_writer_free(w);
	return NULL;
}

void af_writer_free(af_writer *w)
{
	af_mem *mem;
	size_t i;

	if (!w)
		return;
	mem = w->mem;
	af_buf_free(&w->threads);
	af_buf_free(&w->methods);
	af_buf_free(&w->data);
	af_buf_free(&w->block);
	for (i = 0; i < w->nclocks; i++) {
		af_free(mem, w->clocks[i].ids);
		af_free(mem, w->clocks[i].starts);
	}
	af_free(mem, w->clocks);
	af_free(mem, w);
	af_mem_unref(mem);
}

static void af_put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void af_put32(uint8_t *p, uint32_t v)
{
	af_put16(p, v);
	af_put16(p + 2, v >> 16);
}

static int af_ok(af_writer *w, int r)
{
	if (r)
		w->failed = 1;
	return r;
}

static void af_put64(uint8_t *p, uint64_t v)
{
	af_put32(p, (uint32_t)v);
	af_put32(p + 4, (uint32_t)(v >> 32));
}

static int af_put_uleb(af_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	do {
		tmp[n] = (uint8_t)(v & 0x7F);
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	return af_buf_append(b, tmp, n);
}

static int af_put_sleb(af_buf *b, uint64_t u)
{
	int64_t v = (int64_t)u;
	uint8_t tmp[10];
	size_t n = 0;
	int more = 1;

	while (more) {
		uint8_t byte = (uint8_t)(v & 0x7F);
		v = v < 0 ? ~(~v >> 7) : v >> 7; /* arithmetic shift */
		if ((v == 0 && !(byte & 0x40)) || (v == -1 && (byte & 0x40)))
			more = 0;
		else
			byte |= 0x80;
		tmp[n++] = byte;
	}
	return af_buf_append(b, tmp, n);
}

/* ART V2: the open event block as a packet in the data. */
static int af_v2_close(af_writer *w)
{
	uint8_t h[12] = {2};

	if (!w->block_open)
		return 0;
	w->block_open = 0;
	af_put32(h + 1, w->block_tid);
	h[5] = (uint8_t)w->block_count;
	h[6] = (uint8_t)(w->block_count >> 8);
	h[7] = (uint8_t)(w->block_count >> 16);
	af_put32(h + 8, (uint32_t)w->block.len);
	if (af_buf_append(&w->data, h, sizeof h) ||
	    (w->block.len && af_buf_append(&w->data, w->block.data, w->block.len)))
		return -1;
	w->block.len = 0;
	return 0;
}

/* ART V2: thread `tid`'s clocks. */
static af_v2_clock *af_v2_clock_of(af_writer *w, uint32_t tid)
{
	size_t i;

	for (i = w->nclocks; i-- > 0;)
		if (w->clocks[i].tid == tid)
			return &w->clocks[i];
	if (AF_GROW(w->mem, w->clocks, w->clocks_cap, w->nclocks + 1))
		return NULL;
	memset(&w->clocks[w->nclocks], 0, sizeof *w->clocks);
	w->clocks[w->nclocks].tid = tid;
	return &w->clocks[w->nclocks++];
}

static int af_v2_record(af_writer *w, uint32_t tid, uint32_t id, int action,
                        uint32_t cpu, uint32_t wall)
{
	af_v2_clock *c = af_v2_clock_of(w, tid);
	const uint32_t now[2] = {cpu, wall};
	int dual = w->o.clock == AF_WRITER_DUAL;
	int has_wall = dual || w->o.clock == AF_WRITER_WALL;
	int has_cpu = dual || w->o.clock == AF_WRITER_THREAD_CPU;
	uint64_t ptr = AF_WRITER_V2_POINTER(id & ~3u), act = (uint64_t)action & 3;
	int i, r = 0, cap_hit;

	if (!c)
		return -1;
	for (i = 0; i < 2; i++) {
		/* one thread's µs, unwrapped as the reader unwraps them */
		c->abs[i] = c->seen ? c->abs[i] + (int32_t)(now[i] - c->last[i])
		                    : (int64_t)now[i];
		c->last[i] = now[i];
	}
	c->seen = 1;
	cap_hit = w->block_open && w->block_tid == tid && w->o.v2_block_records &&
	          w->block_count >= w->o.v2_block_records;
	if (w->block_open && (w->block_tid != tid || cap_hit) && af_v2_close(w))
		return -1;
	if (!w->block_open) {
		if (!(cap_hit && w->o.v2_spill && w->o.v2_revision == 'B'))
			memset(w->prev, 0, sizeof w->prev);
		w->block_open = 1;
		w->block_tid = tid;
		w->block_count = 0;
	}
	if (w->o.v2_revision == 'B') {
		uint64_t ma = ptr | act, scale = w->o.v2_ns ? 1000 : 1;
		uint64_t wt = (uint64_t)c->abs[1] * scale, ct = (uint64_t)c->abs[0] * scale;
		r |= af_put_sleb(&w->block, ma - w->prev[0]);
		w->prev[0] = ma;
		if (has_wall) {
			r |= af_put_uleb(&w->block, wt - w->prev[1]);
			w->prev[1] = wt;
		}
		if (has_cpu) {
			r |= af_put_uleb(&w->block, ct - w->prev[2]);
			w->prev[2] = ct;
		}
	} else {
		uint64_t ticks = AF_WRITER_V2_START_TICK +
		                 (uint64_t)c->abs[1] * (AF_WRITER_V2_TICK_HZ / 1000000u);
		uint64_t cns = (uint64_t)c->abs[0] * 1000u;
		uint64_t ta = ((has_wall ? ticks : cns) << 2) | act;
		r |= af_put_sleb(&w->block, ta - w->prev[0]);
		w->prev[0] = ta;
		if (dual) {
			r |= af_put_uleb(&w->block, cns - w->prev[2]);
			w->prev[2] = cns;
		}
		if (act == AF_ENTER) {
			r |= af_put_sleb(&w->block, ptr - w->prev[3]);
			w->prev[3] = ptr;
		}
	}
	w->block_count++;
	w->nrecords++;
	return r;
}

/* The finished bytes of `b` (unless `failed`) in a block the caller frees
 * with free(): the one kind of block not from the writer's allocator.  `b`
 * is freed. */
static int af_hand_over(af_buf *b, int failed, uint8_t **out, size_t *len)
{
	*out = failed ? NULL : malloc(b->len ? b->len : 1);
	if (*out) {
		if (b->len)
			memcpy(*out, b->data, b->len);
		*len = b->len;
	}
	af_buf_free(b);
	return *out ? 0 : -1;
}

/* btrace: one record, packed as btrace packs it. */
static int af_bt_put(af_writer *w, uint64_t start, uint64_t dur, uint32_t tid,
                     uint32_t mid)
{
	uint8_t r[16];

	af_put64(r, start << 19 | dur >> 26);
	af_put64(r + 8, (dur & 0x3FFFFFFu) << 38 | (uint64_t)tid << 23 | mid);
	w->nrecords++;
	return af_buf_append(&w->data, r, sizeof r);
}

/* btrace: thread c's innermost call ends at `now` µs. */
static int af_bt_close(af_writer *w, af_v2_clock *c, int64_t now)
{
	int64_t start = c->starts[--c->depth];

	return af_bt_put(w, (uint64_t)start * 1000u,
	                 (uint64_t)(now > start ? now - start : 0) * 1000u, c->tid,
	                 c->ids[c->depth] >> 2);
}

static int af_bt_record(af_writer *w, uint32_t tid, uint32_t id, int action,
                        uint32_t wall)
{
	af_v2_clock *c = af_v2_clock_of(w, tid);
	int64_t now;

	if (!c)
		return -1;
	c->abs[1] = c->seen ? c->abs[1] + (int32_t)(wall - c->last[1]) : (int64_t)wall;
	c->last[1] = wall;
	c->seen = 1;
	now = c->abs[1];
	if (action != AF_ENTER) {
		if (c->depth)
			return af_bt_close(w, c, now);
		/* running when tracing began: btrace's begin of -1, the time base */
		return af_bt_put(w, 0, (uint64_t)(now > 0 ? now : 0) * 1000u, tid, id >> 2);
	}
	if (AF_GROW(w->mem, c->ids, c->cap, c->depth + 1) ||
	    AF_GROW(w->mem, c->starts, c->starts_cap, c->depth + 1))
		return -1;
	c->ids[c->depth] = id & ~3u;
	c->starts[c->depth++] = now;
	return 0;
}

int af_writer_btrace_record(af_writer *w, uint64_t start, uint64_t dur,
                            uint32_t tid, uint32_t mid)
{
	if (!w->btrace)
		return af_ok(w, -1);
	return af_ok(w, af_bt_put(w, start, dur, tid, mid));
}

int af_writer_btrace_mapping(af_writer *w, uint8_t **out, size_t *len)
{
	af_buf b = {.mem = w->mem};
	int r;

	*out = NULL;
	*len = 0;
	if (!w->btrace || w->failed)
		return -1;
	r = af_buf_printf(&b, "#5b1e4c2a-7d3f-4e8b-9a61-0c2d3e4f5a6b\n");
	if (w->methods.len)
		r |= af_buf_append(&b, w->methods.data, w->methods.len);
	return af_hand_over(&b, r, out, len);
}

/* btrace: the header, the records, the calls left open, the padding. */
static int af_bt_finish(af_writer *w, af_buf *b)
{
	uint8_t h[32] = {5};
	size_t i;
	int r = 0;

	af_put32(h + 4, w->nclocks ? w->clocks[0].tid : 1);
	af_put64(h + 8, AF_WRITER_BTRACE_BASE + UINT64_C(3600000000000));
	af_put64(h + 16, AF_WRITER_BTRACE_BASE);
	af_put64(h + 24, AF_WRITER_BTRACE_BASE + w->o.btrace_restart_ns);
	for (i = 0; i < w->nclocks && !w->o.btrace_drop_open; i++)
		while (w->clocks[i].depth && !r)
			r = af_bt_close(w, &w->clocks[i], w->clocks[i].abs[1]);
	r |= af_buf_append(b, h, sizeof h);
	if (w->data.len)
		r |= af_buf_append(b, w->data.data, w->data.len);
	while (!r && !w->o.btrace_no_padding && b->len < 2000000) {
		static const uint8_t zeros[4096];
		r = af_buf_append(b, zeros, 2000000 - b->len < sizeof zeros ? 2000000 - b->len
		                                                          : sizeof zeros);
	}
	return r;
}

/* ART long-running methods: a record in the thread's event block. */
static int af_v6_record(af_writer *w, uint32_t tid, uint32_t id, int action,
                        uint32_t wall)
{
	af_v2_clock *c = af_v2_clock_of(w, tid);
	uint64_t ta, ptr = AF_WRITER_V2_POINTER(id & ~3u);
	int cap_hit, r;

	if (!c)
		return -1;
	c->abs[1] = c->seen ? c->abs[1] + (int32_t)(wall - c->last[1]) : (int64_t)wall;
	c->last[1] = wall;
	c->seen = 1;
	cap_hit = w->block_open && w->block_tid == tid && w->o.v2_block_records &&
	          w->block_count >= w->o.v2_block_records;
	if (w->block_open && (w->block_tid != tid || cap_hit) && af_v2_close(w))
		return -1;
	if (!w->block_open) {
		memset(w->prev, 0, sizeof w->prev);
		w->block_open = 1;
		w->block_tid = tid;
		w->block_count = 0;
	}
	ta = (AF_WRITER_V6_START_NS + (uint64_t)c->abs[1] * 1000u) << 1 |
	     (action != AF_ENTER);
	r = af_put_sleb(&w->block, ta - w->prev[0]);
	w->prev[0] = ta;
	if (action == AF_ENTER) {
		r |= af_put_sleb(&w->block, ptr - w->prev[3]);
		w->prev[3] = ptr;
	}
	w->block_count++;
	w->nrecords++;
	return r;
}

/* ART long-running methods: the header, the blocks, then the thread and
 * method packets. */
static int af_v6_finish(af_writer *w, af_buf *b)
{
	uint8_t h[32] = {'S', 'L', 'O', 'W'};
	int r = af_v2_close(w);

	if (!w->o.v6_headerless) {
		af_put16(h + 4, 0xF6);
		af_put64(h + 6, AF_WRITER_V6_START_NS);
		r |= af_buf_append(b, h, sizeof h);
		if (w->o.v6_summary) {
			uint8_t s[17] = {3};
			af_put64(s + 1, AF_WRITER_V6_START_NS);
			af_put64(s + 9, AF_WRITER_V6_START_NS + 1000000000u);
			r |= af_buf_append(b, s, sizeof s);
		}
	}
	if (w->data.len)
		r |= af_buf_append(b, w->data.data, w->data.len);
	if (w->threads.len)
		r |= af_buf_append(b, w->threads.data, w->threads.len);
	if (w->methods.len)
		r |= af_buf_append(b, w->methods.data, w->methods.len);
	return r;
}

/* ART V2: a thread or method packet (the open block closed first). */
static int af_v2_packet(af_writer *w, uint8_t type, uint64_t id, const char *text,
                        size_t len)
{
	uint8_t h[11] = {type};
	size_t hl = type == 0 ? 7 : 11;

	if (len > 0xFFFF || af_v2_close(w))
		return -1;
	if (type == 0) {
		af_put32(h + 1, (uint32_t)id);
		af_put16(h + 5, (uint32_t)len);
	} else {
		af_put64(h + 1, id);
		af_put16(h + 9, (uint32_t)len);
	}
	return af_buf_append(&w->data, h, hl) ||
	       (len && af_buf_append(&w->data, text, len));
}

int af_writer_thread(af_writer *w, uint32_t tid, const char *name)
{
	size_t len = strlen(name);

	if (w->btrace)
		return 0; /* btrace writes no thread names */
	if (w->v6) {
		uint8_t h[7] = {0};
		if (len > 0xFFFF)
			return af_ok(w, -1);
		af_put32(h + 1, tid);
		af_put16(h + 5, (uint32_t)len);
		return af_ok(w, af_buf_append(&w->threads, h, sizeof h) ||
		                    af_buf_append(&w->threads, name, len));
	}
	if (w->v2)
		return af_ok(w, af_v2_packet(w, 0, tid, name, len));

	if (w->o.variant == AF_VARIANT_STREAMING) {
		uint8_t h[7] = {0, 0, 2};
		if (len > 0xFFFF)
			return af_ok(w, -1);
		af_put16(h + 3, tid);
		af_put16(h + 5, (uint32_t)len);
		if (af_ok(w, af_buf_append(&w->data, h, sizeof h)) ||
		    af_ok(w, af_buf_append(&w->data, name, len)))
			return -1;
	}
	return af_ok(w, af_buf_printf(&w->threads, "%u\t%s\n", tid, name));
}

int af_writer_method(af_writer *w, uint32_t id, const char *cls,
                     const char *name, const char *sig, const char *file)
{
	af_buf line = {.mem = w->mem};
	int r;

	if (w->btrace) {
		r = af_buf_printf(&w->methods, "%u,1,%s %s%s%s\n", id >> 2, cls, name,
		                  *sig ? " " : "", sig);
		return af_ok(w, r);
	}
	if (w->v6) {
		uint8_t h[11] = {1};
		r = af_buf_printf(&line, "%s\t%s\t%s\t%s\n", cls, name, sig, file);
		if (!r && line.len > 0xFFFF)
			r = -1;
		af_put64(h + 1, AF_WRITER_V2_POINTER(id & ~3u));
		af_put16(h + 9, (uint32_t)line.len);
		if (!r)
			r = af_buf_append(&w->methods, h, sizeof h) ||
			    af_buf_append(&w->methods, line.data, line.len);
		af_buf_free(&line);
		return af_ok(w, r);
	}
	if (w->v2) {
		r = af_buf_printf(&line, "%s\t%s\t%s\t%s\n", cls, name, sig, file);
		if (!r)
			r = af_v2_packet(w, 1, AF_WRITER_V2_POINTER(id & ~3u), line.data,
			                 line.len);
		af_buf_free(&line);
		return af_ok(w, r);
	}
	if (w->o.dalvik) {
		const char *c;
		r = af_buf_printf(&line, "0x%08x\t", id);
		for (c = cls; *c && !r; c++)
			r = af_buf_append(&line, *c == '.' ? "/" : c, 1);
		r |= af_buf_printf(&line, "\t%s\t%s\t%s\t-1\n", name, sig, file);
	} else {
		/* ART prints ids with %#x: the first one is "0", not "0x0" */
		r = id ? af_buf_printf(&line, "%#x\t", id) : af_buf_printf(&line, "0\t");
		r |= af_buf_printf(&line, "%s\t%s\t%s\t%s\n", cls, name, sig, file);
	}
	if (!r && w->o.variant == AF_VARIANT_STREAMING) {
		uint8_t h[5] = {0, 0, 1};
		if (line.len > 0xFFFF) {
			r = -1;
		} else {
			af_put16(h + 3, (uint32_t)line.len);
			r = af_buf_append(&w->data, h, sizeof h) ||
			    af_buf_append(&w->data, line.data, line.len);
		}
	}
	if (!r)
		r = af_buf_append(&w->methods, line.data, line.len);
	af_buf_free(&line);
	return af_ok(w, r);
}

int af_writer_record(af_writer *w, uint32_t tid, uint32_t id, int action,
                     uint32_t cpu, uint32_t wall)
{
	uint8_t r[14];
	uint32_t ma = (id & ~3u) | ((uint32_t)action & 3);
	uint32_t one = w->o.clock == AF_WRITER_WALL ? wall : cpu;

	if (w->btrace)
		return af_ok(w, af_bt_record(w, tid, id, action, wall));
	if (w->v6)
		return af_ok(w, af_v6_record(w, tid, id, action, wall));
	if (w->v2)
		return af_ok(w, af_v2_record(w, tid, id, action, cpu, wall));
	if (w->record_size == 9) {
		r[0] = (uint8_t)tid;
		af_put32(r + 1, ma);
		af_put32(r + 5, one);
	} else {
		af_put16(r, tid);
		af_put32(r + 2, ma);
		if (w->record_size == 14) {
			af_put32(r + 6, cpu);
			af_put32(r + 10, wall);
		} else {
			af_put32(r + 6, one);
		}
	}
	w->nrecords++;
	return af_ok(w, af_buf_append(&w->data, r, w->record_size));
}

int af_writer_raw(af_writer *w, const void *bytes, size_t len)
{
	if ((w->v2 || w->v6) && af_v2_close(w))
		return af_ok(w, -1);
	return af_ok(w, af_buf_append(&w->data, bytes, len));
}

static const char *af_clock_word(af_writer_clock c)
{
	return c == AF_WRITER_DUAL ? "dual" : c == AF_WRITER_WALL ? "wall" : "thread-cpu";
}

/* The key text: *version to *end.  A streaming summary lists the threads
 * and leaves *methods empty, as ART does. */
static int af_key_text(af_writer *w, af_buf *k, int summary)
{
	int r = af_buf_printf(k, "*version\n%u\ndata-file-overflow=false\n"
	                         "clock=%s\nelapsed-time-usec=1000\n",
	                      summary ? (w->record_size == 14 ? 3u : 2u) : w->o.version,
	                      af_clock_word(w->o.clock));
	if (!summary)
		r |= af_buf_printf(k, "num-method-calls=%llu\n",
		                   (unsigned long long)w->nrecords);
	r |= af_buf_printf(k, "clock-call-overhead-nsec=500\nvm=%s\n",
	                   w->o.dalvik ? "dalvik" : "art");
	r |= af_buf_append(k, "*threads\n", 9);
	if (w->threads.len)
		r |= af_buf_append(k, w->threads.data, w->threads.len);
	r |= af_buf_append(k, "*methods\n", 9);
	if (!summary && w->methods.len)
		r |= af_buf_append(k, w->methods.data, w->methods.len);
	r |= af_buf_append(k, "*end\n", 5);
	return r;
}

/* ART V2: the header, the packets, the summary. */
static int af_v2_finish(af_writer *w, af_buf *b)
{
	uint8_t h[32] = {'S', 'L', 'O', 'W'};
	int ns = w->o.v2_ns || w->o.v2_revision == 'C', r;

	if (af_v2_close(w))
		return -1;
	af_put16(h + 4, w->o.version);
	af_put64(h + 6, ns ? UINT64_C(749848949749000) : UINT64_C(749848949749));
	if (w->o.v2_revision == 'C') {
		af_put64(h + 14, AF_WRITER_V2_START_TICK);
		af_put64(h + 22, AF_WRITER_V2_TICK_HZ);
	}
	r = af_buf_append(b, h, sizeof h);
	if (w->data.len)
		r |= af_buf_append(b, w->data.data, w->data.len);
	if (!r && !w->o.no_summary) {
		af_buf k = {.mem = w->mem};
		uint8_t s[3] = {3};
		r = af_buf_printf(&k, "*version\n%u\ndata-file-overflow=false\n"
		                      "clock=%s\nelapsed-time-%s=1000\n"
		                      "num-method-calls=%llu\nclock-call-overhead-nsec=500\n"
		                      "vm=art\n*end\n",
		                  w->o.version & 0xF, af_clock_word(w->o.clock),
		                  ns ? "nsec" : "usec", (unsigned long long)w->nrecords);
		if (!r && k.len > 0xFFFF)
			r = -1;
		af_put16(s + 1, (uint32_t)k.len);
		r |= af_buf_append(b, s, sizeof s);
		r |= af_buf_append(b, k.data, k.len);
		af_buf_free(&k);
	}
	return r;
}

int af_writer_finish(af_writer *w, uint8_t **out, size_t *len, size_t *key_len)
{
	af_buf b = {.mem = w->mem};
	uint8_t h[32] = {'S', 'L', 'O', 'W'};
	int r = 0;

	*out = NULL;
	*len = 0;
	if (w->failed)
		return -1;
	if (w->v2 || w->btrace || w->v6) {
		if (key_len)
			*key_len = 0;
		r = w->btrace ? af_bt_finish(w, &b) : w->v6 ? af_v6_finish(w, &b)
		                                            : af_v2_finish(w, &b);
		goto done;
	}
	if (w->o.variant != AF_VARIANT_STREAMING)
		r = af_key_text(w, &b, 0);
	if (key_len)
		*key_len = b.len;
	af_put16(h + 4, w->o.variant == AF_VARIANT_STREAMING
	                        ? (0xF0u | (w->record_size == 14 ? 3u : 2u))
	                        : w->o.version);
	af_put16(h + 6, 32);
	af_put32(h + 8, 0x2C9E91C4u); /* a start time; readers ignore it */
	af_put32(h + 12, 0x9A);
	if (w->o.version == 3 || w->o.variant == AF_VARIANT_STREAMING)
		af_put16(h + 16, w->record_size);
	r |= af_buf_append(&b, h, sizeof h);
	if (w->data.len)
		r |= af_buf_append(&b, w->data.data, w->data.len);
	if (!r && w->o.variant == AF_VARIANT_STREAMING && !w->o.no_summary) {
		af_buf k = {.mem = w->mem};
		uint8_t s[7] = {0, 0, 3};
		r = af_key_text(w, &k, 1);
		af_put32(s + 3, (uint32_t)k.len);
		r |= af_buf_append(&b, s, sizeof s);
		r |= af_buf_append(&b, k.data, k.len);
		af_buf_free(&k);
	}
done:
	return af_hand_over(&b, r, out, len);
}
