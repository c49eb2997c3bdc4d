/*
 * trace_streaming.c - ART's streaming trace: a "SLOW" header with version
 * 0xF2 or 0xF3, then records interleaved with method and thread items, and
 * the key text as a summary item at the very end.  A trace cut short (the
 * app died, the copy stopped) has no summary: what is there is used, the
 * clock is inferred from the record size, and the caller is told.
 */
#include <string.h>

#include "trace.h"

/* Names in items are text: a NUL byte means the bytes are damaged. */
static af_status af_no_nul(const uint8_t *p, size_t n, long long off,
                           af_error *err)
{
	const uint8_t *nul = memchr(p, 0, n);

	if (nul)
		return af_fail(err, AF_ERR_RECORD, off + (nul - p),
		               "NUL byte in a streaming item's name");
	return AF_OK;
}

af_status af_trace_streaming(af_trace *t, const uint8_t *buf, size_t len,
                             af_error *err)
{
	unsigned version, offset, rs;
	size_t pos;
	int summary = 0;

	if (len < 32)
		return af_fail(err, AF_ERR_TRUNCATED, (long long)len,
		               "input ends inside the streaming header");
	version = af_rd16(buf + 4);
	offset = af_rd16(buf + 6);
	if (version != 0xF2 && version != 0xF3)
		return af_fail(err, AF_ERR_HEADER, 4,
		               "unsupported streaming version 0x%X (expected 0xF2 or 0xF3)",
		               version);
	rs = af_rd16(buf + 16);
	if (version == 0xF2 && rs == 0)
		rs = 10;
	if (rs != 10 && rs != 14)
		return af_fail(err, AF_ERR_HEADER, 16,
		               "unsupported record size %u (expected 10 or 14)", rs);
	if (offset < 18)
		return af_fail(err, AF_ERR_HEADER, 6,
		               "data offset %u points inside the header", offset);
	if (offset > len)
		return af_fail(err, AF_ERR_TRUNCATED, 6,
		               "data offset %u is past the end of the input", offset);
	t->info.version = version;
	t->info.record_size = rs;
	t->records_begin = offset;
	if (af_ptree_reserve(&t->tree, (len - offset) / rs / 16 + 64))
		return af_fail(err, AF_ERR_NOMEM, offset, "out of memory");

	for (pos = offset; pos < len;) {
		const uint8_t *p = buf + pos;
		size_t left = len - pos, need;
		long long off = (long long)pos;

		if (left < 2)
			break;
		if (af_rd16(p) != 0) {
			uint32_t t0;
			if (left < rs)
				break; /* a partial last record */
			t0 = af_rd32(p + 6);
			AF_FORWARD(af_trace_record(t, af_rd16(p), af_rd32(p + 2), t0,
			                           rs >= 14 ? af_rd32(p + 10) : t0,
			                           off, err));
			pos += rs;
			af_trace_progress(t, p, pos, len);
			continue;
		}
		if (left < 3)
			break;
		switch (p[2]) {
		case 1: /* method: u2 length, one *methods line ending in \n */
			if (left < 5 || left - 5 < (need = af_rd16(p + 3)))
				goto cut;
			if (need && p[5 + need - 1] == '\n')
				need--;
			AF_FORWARD(af_no_nul(p + 5, need, off + 5, err));
			AF_FORWARD(af_trace_method_line(t, (const char *)p + 5, need,
			                                off, err));
			pos += 5 + af_rd16(p + 3);
			break;
		case 2: /* thread: u2 id, u2 length, name */
			if (left < 7 || left - 7 < (need = af_rd16(p + 5)))
				goto cut;
			AF_FORWARD(af_no_nul(p + 7, need, off + 7, err));
			AF_FORWARD(af_trace_declare_thread(t, af_rd16(p + 3),
			                                   (const char *)p + 7, need,
			                                   off, err));
			pos += 7 + need;
			break;
		case 3: { /* summary: u4 length, key text; the last item */
			size_t end;
			if (left < 7 || left - 7 < (need = af_rd32(p + 3)))
				goto cut;
			AF_FORWARD(af_trace_key(t, p + 7, need, off + 7, &end, err));
			pos += 7 + need;
			if (pos != len)
				return af_fail(err, AF_ERR_RECORD, (long long)pos,
				               "data after the summary, which must be last");
			summary = 1;
			break;
		}
		default:
			return af_fail(err, AF_ERR_RECORD, off + 2,
			               "unknown streaming item type %u", p[2]);
		}
	}
cut:
	t->info.truncated_bytes = len - pos;
	t->info.data_end = pos;
	if (!summary) {
		/* the clock is only named in the summary: infer it */
		t->info.summary_missing = 1;
		t->clock_named = 0;
		t->single_clock = AF_CLOCK_WALL; /* ART's single-clock default */
	}
	af_trace_set_clocks(t, rs >= 14);
	if (!summary)
		t->info.clock_assumed = 1;
	return AF_OK;
}
