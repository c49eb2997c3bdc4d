/*
 * test_pftrace.c - src/pftrace.c: a Perfetto trace's packets come out one
 * by one and in order, those of compressed batches (zlib or gzip framed)
 * inflated in place, with their byte offsets; damaged framing is told
 * with its offset; detection tells a Perfetto trace from a pprof profile
 * (whose first field is also numbered 1) and from text.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "pftrace.h"
#include "support.h"

/* A growing buffer of protobuf bytes. */
typedef struct pb {
	uint8_t b[1 << 16];
	size_t n;
} pb;

static void put_varint(pb *o, uint64_t v)
{
	do {
		o->b[o->n++] = (uint8_t)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
		v >>= 7;
	} while (v);
}

static void put_bytes(pb *o, uint32_t field, const void *p, size_t n)
{
	put_varint(o, (uint64_t)field << 3 | 2);
	put_varint(o, n);
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

/* A packet holding one varint field 8 (a timestamp) of value `ts`. */
static void put_packet(pb *o, uint64_t ts)
{
	pb p = {.n = 0};

	put_varint(&p, 8 << 3);
	put_varint(&p, ts);
	put_bytes(o, 1, p.b, p.n);
}

/* A packet whose compressed_packets (field 50) hold `inner`, deflated
 * with zlib's framing, or gzip's when `gzip` is set. */
static void put_batch(pb *o, const pb *inner, int gzip)
{
	static uint8_t z[1 << 16];
	pb p = {.n = 0};
	z_stream s;

	memset(&s, 0, sizeof s);
	cr_assert_eq(deflateInit2(&s, 9, Z_DEFLATED, gzip ? 31 : 15, 8,
	                          Z_DEFAULT_STRATEGY), Z_OK);
	s.next_in = (Bytef *)inner->b;
	s.avail_in = (uInt)inner->n;
	s.next_out = z;
	s.avail_out = sizeof z;
	cr_assert_eq(deflate(&s, Z_FINISH), Z_STREAM_END);
	put_bytes(&p, 50, z, s.total_out);
	deflateEnd(&s);
	put_bytes(o, 1, p.b, p.n);
}

/* The timestamps of every packet read, and the status of the end. */
static int read_all(const pb *in, uint64_t *ts, long long *offs, int max,
                    af_error *err)
{
	af_mem *mem = af_mem_new(NULL, 1u << 26);
	af_pf_reader *r = af_pf_reader_new(mem, in->b, in->n);
	const uint8_t *pkt;
	size_t len;
	long long off;
	int n = 0, got;

	cr_assert_not_null(r);
	while ((got = af_pf_reader_next(r, &pkt, &len, &off, err)) == 1) {
		uint64_t v = 0;
		unsigned shift = 0;
		size_t i = 1;
		cr_assert(n < max);
		cr_assert_eq(pkt[0], 8 << 3);
		do
			v |= (uint64_t)(pkt[i] & 0x7F) << shift, shift += 7;
		while (pkt[i++] & 0x80);
		cr_assert_eq(i, len);
		offs[n] = off;
		ts[n++] = v;
	}
	af_pf_reader_free(r);
	af_mem_unref(mem);
	return got < 0 ? -1 : n;
}

Test(pftrace, packets_in_order_with_batches_inflated)
{
	pb in = {.n = 0}, batch = {.n = 0}, gz = {.n = 0};
	uint64_t ts[16];
	long long off[16];
	size_t batch_at, gz_at;
	af_error err;
	int i;

	put_packet(&in, 1);
	put_packet(&in, 300);
	for (i = 0; i < 5; i++)
		put_packet(&batch, 1000 + i);
	batch_at = in.n;
	put_batch(&in, &batch, 0);
	put_packet(&in, 7);
	put_packet(&gz, 8);
	gz_at = in.n;
	put_batch(&in, &gz, 1);
	cr_assert_eq(read_all(&in, ts, off, 16, &err), 9);
	cr_assert_eq(ts[0], 1);
	cr_assert_eq(ts[1], 300);
	cr_assert_eq(off[1], 4);
	for (i = 0; i < 5; i++) {
		cr_assert_eq(ts[2 + i], 1000u + (unsigned)i);
		cr_assert_eq(off[2 + i], (long long)batch_at);
	}
	cr_assert_eq(ts[7], 7);
	cr_assert_eq(ts[8], 8);
	cr_assert_eq(off[8], (long long)gz_at);
	cr_assert_eq(af_pf_detect(in.b, in.n), 2);
	cr_assert_eq(af_pf_detect(in.b, in.n - 1), 2, "cut inside its last packet");
	cr_assert_eq(af_pf_detect(in.b, 3), 1, "cut inside its first packet");
}

Test(pftrace, damage_is_told_with_its_offset)
{
	pb in = {.n = 0}, batch = {.n = 0}, nested = {.n = 0};
	uint64_t ts[8];
	long long off[8];
	af_error err;
	size_t at;

	put_packet(&in, 1);
	at = in.n;
	put_packet(&in, 2);
	in.n--; /* the second packet cut short */
	cr_assert_eq(read_all(&in, ts, off, 8, &err), -1);
	cr_assert_eq(err.status, AF_ERR_TRUNCATED);
	cr_assert_eq(err.offset, (long long)at);
	cr_assert_str_eq(err.message, "Perfetto trace ends inside a packet");

	in.n = at;
	in.b[in.n++] = 2 << 3; /* a varint field 2 where packets go */
	in.b[in.n++] = 5;
	cr_assert_eq(read_all(&in, ts, off, 8, &err), -1);
	cr_assert_eq(err.offset, (long long)at);
	cr_assert_str_eq(err.message,
	                 "field 2 (wire type 0) where a packet (field 1) was expected");

	in.n = at;
	in.b[in.n++] = 1 << 3 | 2;
	memset(in.b + in.n, 0xFF, 11); /* a length of eleven bytes */
	in.n += 11;
	cr_assert_eq(read_all(&in, ts, off, 8, &err), -1);
	cr_assert_str_eq(err.message, "a varint of more than ten bytes");

	in.n = at;
	put_packet(&nested, 5);
	put_batch(&batch, &nested, 0);
	put_batch(&in, &batch, 0);
	cr_assert_eq(read_all(&in, ts, off, 8, &err), -1);
	cr_assert_eq(err.offset, (long long)at);
	cr_assert_str_eq(err.message, "compressed packets inside compressed packets");

	in.n = at;
	put_batch(&in, &nested, 0);
	in.b[in.n - 6] ^= 0x55; /* the deflate stream damaged */
	cr_assert_eq(read_all(&in, ts, off, 8, &err), -1);
	cr_assert_eq(err.offset, (long long)at);
	cr_assert(strncmp(err.message, "compressed packets ", 19) == 0, "%s", err.message);
}

Test(pftrace, detection_refuses_pprof_and_text)
{
	static const char folded[] = "\nmain;run;work 12\nmain;idle 3\n";
	pb prof = {.n = 0}, vt = {.n = 0};
	char path[4096];
	uint8_t *buf;
	size_t len;

	/* pprof: sample_type (1), then a sample (2) and the string table (6) */
	put_varint(&vt, 1 << 3);
	put_varint(&vt, 1);
	put_bytes(&prof, 1, vt.b, vt.n);
	put_bytes(&prof, 2, vt.b, vt.n);
	put_bytes(&prof, 6, "", 0);
	cr_assert_eq(af_pf_detect(prof.b, prof.n), 0);
	/* text after an empty line: at most "cut inside its first packet",
	 * which input.c weighs against folded stacks */
	cr_assert_eq(af_pf_detect((const uint8_t *)folded, sizeof folded - 1), 1);
	cr_assert_eq(af_pf_detect((const uint8_t *)"\n\003abc;d 1\n", 10), 0);
	cr_assert_eq(af_pf_detect(prof.b, 0), 0);

	snprintf(path, sizeof path, "%s/../inputs/pprof/go-cpu-google-pprof-large.cpu",
	         t_traces_dir());
	if (!(buf = t_read(path, &len)))
		cr_skip_test("../shared/inputs is absent: no real pprof profile to refuse");
	cr_assert_eq(af_pf_detect(buf, len), 0);
	free(buf);
}

/* Every real Perfetto trace of ../shared/inputs/perfetto is read to its
 * end with no damage found, and detected as sure. */
Test(pftrace, real_traces_read_to_the_end)
{
	static const char *const files[] = {
		"android-atrace-nowinandroid-trace.perfetto-trace",
		"android-print-statsd-perfetto-pr3203-93b86b70.pftrace.gz",
		"empty-qmljulia-trace.pftrace",
		"linux-perfsample-systing-trace.pb",
		"synthetic-heapprofd-perfetto-heap_profile.pftrace",
		"synthetic-heapprofd-perfetto-heap_profile_tracker_twoheaps.pftrace",
		"synthetic-trackevent-perfetto-nested_tracks.perfetto-trace",
	};
	size_t i;

	for (i = 0; i < sizeof files / sizeof *files; i++) {
		char path[4096];
		uint8_t *buf = NULL;
		size_t len = 0, cap = 0;
		gzFile gz;
		int n, got, packets = 0;
		af_mem *mem;
		af_pf_reader *r;
		const uint8_t *pkt;
		size_t plen;
		long long off;
		af_error err;

		snprintf(path, sizeof path, "%s/../inputs/perfetto/%s", t_traces_dir(), files[i]);
		if (!(gz = gzopen(path, "rb")))
			cr_skip_test("../shared/inputs/perfetto is absent: no real trace to read");
		do { /* gzread passes plain files through as they are */
			if (len == cap)
				cr_assert_not_null(buf = realloc(buf, cap = cap ? cap * 2 : 1 << 20));
			n = gzread(gz, buf + len, (unsigned)(cap - len));
			cr_assert(n >= 0, "%s", path);
			len += (size_t)n;
		} while (n > 0);
		gzclose(gz);
		cr_assert_eq(af_pf_detect(buf, len), 2, "%s", files[i]);
		mem = af_mem_new(NULL, 1u << 30);
		r = af_pf_reader_new(mem, buf, len);
		while ((got = af_pf_reader_next(r, &pkt, &plen, &off, &err)) == 1)
			packets++;
		cr_assert_eq(got, 0, "%s: %s (byte %lld)", files[i], err.message, err.offset);
		cr_assert_gt(packets, 0, "%s", files[i]);
		af_pf_reader_free(r);
		af_mem_unref(mem);
		free(buf);
	}
}
