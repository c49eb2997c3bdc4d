/*
 * trace_regular.c - the binary half of a regular trace: the "SLOW" data
 * header and fixed-size records (9, 10 or 14 bytes; version 3 states its
 * record size).
 */
#include "trace.h"

#define AF_MAGIC 0x574F4C53u /* "SLOW" */

af_status af_trace_regular_data(af_trace *t, const uint8_t *data, size_t len,
                                long long base, af_error *err)
{
	unsigned version, offset, rs;
	size_t pos;

	if (len < 4)
		return af_fail(err, AF_ERR_TRUNCATED, base + (long long)len,
		               "input ends before the data header");
	if (af_rd32(data) != AF_MAGIC)
		return af_fail(err, AF_ERR_HEADER, base,
		               "data section does not start with the SLOW magic");
	if (len < 16)
		return af_fail(err, AF_ERR_TRUNCATED, base + (long long)len,
		               "input ends inside the data header");
	version = af_rd16(data + 4);
	offset = af_rd16(data + 6);
	switch (version) {
	case 1: rs = 9; break;
	case 2: rs = 10; break;
	case 3:
		if (len < 18)
			return af_fail(err, AF_ERR_TRUNCATED, base + (long long)len,
			               "input ends inside the data header");
		rs = af_rd16(data + 16);
		if (rs != 10 && rs != 14)
			return af_fail(err, AF_ERR_HEADER, base + 16,
			               "unsupported record size %u (expected 10 or 14)",
			               rs);
		break;
	default:
		return af_fail(err, AF_ERR_HEADER, base + 4,
		               "unsupported data version %u (expected 1, 2 or 3)",
		               version);
	}
	if (offset < (version == 3 ? 18u : 16u))
		return af_fail(err, AF_ERR_HEADER, base + 6,
		               "data offset %u points inside the header", offset);
	if (offset > len)
		return af_fail(err, AF_ERR_TRUNCATED, base + 6,
		               "data offset %u is past the end of the input", offset);

	t->info.version = version;
	t->info.record_size = rs;
	t->tid_mask = version == 1 ? 0xFF : 0xFFFF;
	af_trace_set_clocks(t, rs >= 14);
	/* a first guess at the distinct paths saves rehashing as they come */
	if (af_ptree_reserve(&t->tree, (len - offset) / rs / 16 + 64))
		return af_fail(err, AF_ERR_NOMEM, base + offset, "out of memory");

	for (pos = offset; len - pos >= rs; pos += rs) {
		const uint8_t *p = data + pos;
		uint32_t tid, ma, t0, t1;
		if (version == 1) {
			tid = p[0];
			ma = af_rd32(p + 1);
			t0 = t1 = af_rd32(p + 5);
		} else {
			tid = af_rd16(p);
			ma = af_rd32(p + 2);
			t0 = af_rd32(p + 6);
			t1 = rs >= 14 ? af_rd32(p + 10) : t0;
		}
		AF_FORWARD(af_trace_record(t, tid, ma, t0, t1,
		                           base + (long long)pos, err));
		af_trace_progress(t, pos, len);
	}
	t->info.truncated_bytes = len - pos;
	t->info.data_end = (uint64_t)base + pos;
	return AF_OK;
}
