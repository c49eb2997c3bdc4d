/*
 * writer.c - writes method traces (see aflame/writer.h).  Tests rely on it
 * to produce exactly what Dalvik and ART produce, byte for byte in layout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aflame/writer.h"
#include "internal.h"

struct af_writer {
	af_mem *mem;
	af_writer_options o;
	unsigned record_size;
	af_buf threads;  /* key lines */
	af_buf methods;  /* key lines */
	af_buf data;     /* records (and streaming items) */
	uint64_t nrecords;
	int failed;
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

	if (!w)
		return;
	mem = w->mem;
	af_buf_free(&w->threads);
	af_buf_free(&w->methods);
	af_buf_free(&w->data);
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

int af_writer_thread(af_writer *w, uint32_t tid, const char *name)
{
	size_t len = strlen(name);

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

int af_writer_finish(af_writer *w, uint8_t **out, size_t *len, size_t *key_len)
{
	af_buf b = {.mem = w->mem};
	uint8_t h[32] = {'S', 'L', 'O', 'W'};
	int r = 0;

	*out = NULL;
	*len = 0;
	if (w->failed)
		return -1;
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
	/* the caller frees the bytes with free(): the one block not from the
	 * writer's allocator */
	*out = r ? NULL : malloc(b.len ? b.len : 1);
	if (*out) {
		memcpy(*out, b.data, b.len);
		*len = b.len;
	}
	af_buf_free(&b);
	return *out ? 0 : -1;
}
