/*
 * pftrace.c - a Perfetto trace's packets one at a time, compressed batches
 * inflated on the way (see pftrace.h).
 */
#include <string.h>
#include <zlib.h>

#include "pb.h"
#include "pftrace.h"

enum {
	AF_PF_PACKET = 1,      /* Trace.packet */
	AF_PF_COMPRESSED = 50, /* TracePacket.compressed_packets */
	AF_PF_SNIFF = 1 << 16  /* bytes af_pf_detect() looks at */
};

struct af_pf_reader {
	af_mem *mem;
	const uint8_t *buf;
	size_t len, pos;
	uint8_t *batch;     /* the inflated batch being handed out */
	size_t batch_cap, batch_len, batch_pos;
	long long batch_off; /* where it was in the input; -1: none open */
};

int af_pf_detect(const uint8_t *buf, size_t len)
{
	size_t p = 0, n = len < AF_PF_SNIFF ? len : AF_PF_SNIFF;
	int whole = 0;
	af_pb_field_t f;

	if (n == 0 || buf[0] != (AF_PF_PACKET << 3 | AF_PB_LEN))
		return 0;
	while (p < n) {
		int r = af_pb_field(buf, n, &p, &f);
		if (r == 1) /* the look ends inside a packet (cut, or a prefix) */
			break;
		if (r < 0 || f.number != AF_PF_PACKET || f.wire != AF_PB_LEN)
			return 0;
		whole++;
	}
	return whole ? 2 : 1;
}

af_pf_reader *af_pf_reader_new(af_mem *mem, const uint8_t *buf, size_t len)
{
	af_pf_reader *r = af_calloc(mem, 1, sizeof *r);

	if (!r)
		return NULL;
	r->mem = mem;
	r->buf = buf;
	r->len = len;
	r->batch_off = -1;
	return r;
}

void af_pf_reader_free(af_pf_reader *r)
{
	if (!r)
		return;
	af_free(r->mem, r->batch);
	af_free(r->mem, r);
}

/* Inflates the compressed batch of `n` bytes at `in` (zlib or gzip framed)
 * into r->batch. */
static af_status af_pf_inflate(af_pf_reader *r, const uint8_t *in, size_t n,
                               long long off, af_error *err)
{
	z_stream z;
	int zr;
	af_status st = AF_OK;

	memset(&z, 0, sizeof z);
	z.zalloc = af_zlib_alloc;
	z.zfree = af_zlib_free;
	z.opaque = r->mem;
	if (inflateInit2(&z, 32 + 15) != Z_OK)
		return af_fail(err, AF_ERR_NOMEM, off, "out of memory starting zlib");
	r->batch_len = 0;
	z.next_in = (Bytef *)in;
	for (;;) {
		if (r->batch_len == r->batch_cap &&
		    AF_GROW(r->mem, r->batch, r->batch_cap,
		            r->batch_cap ? r->batch_cap * 2 : n * 4 + 4096)) {
			st = af_fail(err, AF_ERR_NOMEM, off,
			             "out of memory inflating compressed packets");
			break;
		}
		z.avail_in = (uInt)(n - (size_t)(z.next_in - in) > UINT32_MAX / 2
		                    ? UINT32_MAX / 2 : n - (size_t)(z.next_in - in));
		z.next_out = r->batch + r->batch_len;
		z.avail_out = (uInt)(r->batch_cap - r->batch_len > UINT32_MAX / 2
		                     ? UINT32_MAX / 2 : r->batch_cap - r->batch_len);
		zr = inflate(&z, Z_NO_FLUSH);
		r->batch_len = (size_t)(z.next_out - r->batch);
		if (zr == Z_STREAM_END)
			break;
		if (zr == Z_BUF_ERROR && z.avail_out > 0) {
			st = af_fail(err, AF_ERR_TRUNCATED, off,
			             "compressed packets end before their end marker");
			break;
		}
		if (zr != Z_OK && zr != Z_BUF_ERROR) {
			st = af_fail(err, zr == Z_MEM_ERROR ? AF_ERR_NOMEM : AF_ERR_FORMAT, off,
			             "compressed packets do not inflate: %s",
			             zr == Z_MEM_ERROR ? "out of memory"
			                               : z.msg ? z.msg : "corrupt data");
			break;
		}
	}
	inflateEnd(&z);
	if (st != AF_OK)
		return st;
	r->batch_pos = 0;
	r->batch_off = off;
	return AF_OK;
}

/* The packet field at b[*p] (before `len`), checked; `at` is the byte
 * offset told when it is not sound, `in` says where it was. */
static af_status af_pf_frame(const uint8_t *b, size_t len, size_t *p, long long at,
                             const char *in, af_pb_field_t *f, af_error *err)
{
	int r = af_pb_field(b, len, p, f);

	if (r == 1)
		return af_fail(err, AF_ERR_TRUNCATED, at, "Perfetto trace ends inside a packet%s",
		               in);
	if (r == -2)
		return af_fail(err, AF_ERR_FORMAT, at, "a varint of more than ten bytes%s", in);
	if (r == -1)
		return af_fail(err, AF_ERR_FORMAT, at, "a malformed field tag%s", in);
	if (f->number != AF_PF_PACKET || f->wire != AF_PB_LEN)
		return af_fail(err, AF_ERR_FORMAT, at,
		               "field %u (wire type %d) where a packet (field 1) was expected%s",
		               (unsigned)f->number, f->wire, in);
	return AF_OK;
}

/* Where the packet's compressed batch is: 1 with its bytes, else 0.  A
 * packet whose fields do not parse is left to its decoder to explain. */
static int af_pf_compressed(const uint8_t *pkt, size_t n, const uint8_t **in,
                            size_t *in_len)
{
	size_t p = 0;
	af_pb_field_t f;

	while (p < n) {
		if (af_pb_field(pkt, n, &p, &f) != 0)
			return 0;
		if (f.number == AF_PF_COMPRESSED && f.wire == AF_PB_LEN) {
			*in = pkt + f.data;
			*in_len = (size_t)f.value;
			return 1;
		}
	}
	return 0;
}

int af_pf_reader_next(af_pf_reader *r, const uint8_t **pkt, size_t *len,
                      long long *off, af_error *err)
{
	af_pb_field_t f;
	af_status st;

	for (;;) {
		const uint8_t *in;
		size_t in_len;
		long long at;

		if (r->batch_off >= 0) {
			if (r->batch_pos < r->batch_len) {
				if ((st = af_pf_frame(r->batch, r->batch_len, &r->batch_pos,
				                      r->batch_off, " in compressed packets", &f, err)))
					return -(int)st;
				if (af_pf_compressed(r->batch + f.data, (size_t)f.value,
				                     &in, &in_len))
					return -(int)af_fail(err, AF_ERR_FORMAT, r->batch_off,
					                     "compressed packets inside compressed packets");
				*pkt = r->batch + f.data;
				*len = (size_t)f.value;
				*off = r->batch_off;
				return 1;
			}
			r->batch_off = -1;
		}
		if (r->pos == r->len)
			return 0;
		at = (long long)r->pos;
		if ((st = af_pf_frame(r->buf, r->len, &r->pos, at, "", &f, err)))
			return -(int)st;
		if (!af_pf_compressed(r->buf + f.data, (size_t)f.value, &in, &in_len)) {
			*pkt = r->buf + f.data;
			*len = (size_t)f.value;
			*off = at;
			return 1;
		}
		if ((st = af_pf_inflate(r, in, in_len, at, err)))
			return -(int)st;
	}
}
