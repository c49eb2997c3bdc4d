/*
 * pfclock.c - the clocks of a Perfetto trace's track events (pfclock.h).
 */
#include <string.h>

#include "pfclock.h"

#define AF_PF "Perfetto trace"
#define AF_PF_BOOTTIME 6

void af_pfclock_init(af_pf_clocks *g)
{
	memset(g, 0, sizeof *g);
	g->primary = AF_PF_BOOTTIME;
}

af_status af_pfclock_snapshot(af_mem *mem, af_pf_clocks *g, af_pf_clock **seq,
                              const Aflame__Pftrace__ClockSnapshot *cs, long long off,
                              af_error *err)
{
	const Aflame__Pftrace__ClockSnapshot__Clock *ref = NULL, *c;
	uint64_t ref_ns = 0, prim = 0;
	int has_prim = 0;
	size_t i;

	if (cs->has_primary_trace_clock && cs->primary_trace_clock > 0 &&
	    cs->primary_trace_clock < AF_PF_SEQ_CLOCKS)
		g->primary = cs->primary_trace_clock;
	for (i = 0; i < cs->n_clocks; i++) {
		c = cs->clocks[i];
		if (c->has_clock_id && c->clock_id == g->primary && c->has_timestamp) {
			has_prim = 1;
			prim = c->timestamp;
			ref = c;
		}
	}
	for (i = 0; i < cs->n_clocks; i++) {
		c = cs->clocks[i];
		if (!c->has_clock_id || !c->has_timestamp || c->clock_id == 0 ||
		    c->clock_id >= AF_PF_SEQ_CLOCKS)
			continue;
		if (!ref)
			ref = c;
		if (has_prim && (prim >= c->timestamp ? prim - c->timestamp
		                                      : c->timestamp - prim) <= INT64_MAX) {
			g->has_off[c->clock_id] = 1;
			g->off[c->clock_id] = prim >= c->timestamp
			                      ? (int64_t)(prim - c->timestamp)
			                      : -(int64_t)(c->timestamp - prim);
		}
	}
	if (ref) {
		ref_ns = ref->timestamp;
		if (ref->clock_id != g->primary && g->has_off[ref->clock_id]) {
			int64_t o = g->off[ref->clock_id];
			uint64_t mag = o >= 0 ? (uint64_t)o : (uint64_t)-(o + 1) + 1;
			if (o >= 0 ? ref_ns > UINT64_MAX - mag : ref_ns < mag)
				ref = NULL; /* out of the clock's range: unrelated */
			else
				ref_ns = o >= 0 ? ref_ns + mag : ref_ns - mag;
		}
	}
	for (i = 0; i < cs->n_clocks; i++) {
		af_pf_clock *k;
		uint64_t mult;
		c = cs->clocks[i];
		if (!c->has_clock_id || c->clock_id < AF_PF_SEQ_CLOCKS ||
		    c->clock_id >= AF_PF_SEQ_CLOCKS_END)
			continue;
		if (!*seq) {
			*seq = af_calloc(mem, AF_PF_SEQ_CLOCKS_END - AF_PF_SEQ_CLOCKS, sizeof **seq);
			if (!*seq)
				return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
		}
		k = &(*seq)[c->clock_id - AF_PF_SEQ_CLOCKS];
		memset(k, 0, sizeof *k);
		mult = c->has_unit_multiplier_ns && c->unit_multiplier_ns ? c->unit_multiplier_ns : 1;
		if (!ref || !c->has_timestamp || c->timestamp > UINT64_MAX / mult)
			continue; /* nothing to relate it to: its events are refused */
		k->defined = 1;
		k->incremental = c->has_is_incremental && c->is_incremental;
		k->mult = mult;
		k->snap = c->timestamp * mult;
		k->ref = ref_ns;
		k->last = c->timestamp;
	}
	return AF_OK;
}

void af_pfclock_tick(af_pf_clock *seq, uint32_t clock, uint64_t ts)
{
	af_pf_clock *k;

	if (!seq || clock < AF_PF_SEQ_CLOCKS || clock >= AF_PF_SEQ_CLOCKS_END)
		return;
	k = &seq[clock - AF_PF_SEQ_CLOCKS];
	if (!k->defined || !k->incremental)
		return;
	if (k->last > UINT64_MAX - ts)
		k->last_bad = 1;
	else
		k->last += ts;
}

af_status af_pfclock_time(const af_pf_clock *seq, uint32_t clock, uint64_t ts,
                          uint32_t seqid, long long off, uint64_t *out, af_error *err)
{
	const af_pf_clock *k;
	uint64_t units, ns;

	if (clock < AF_PF_SEQ_CLOCKS) {
		*out = ts;
		return AF_OK;
	}
	k = clock < AF_PF_SEQ_CLOCKS_END && seq ? &seq[clock - AF_PF_SEQ_CLOCKS] : NULL;
	if (!k || !k->defined)
		return af_fail(err, AF_ERR_FORMAT, off, AF_PF ": a track event timed by "
		               "clock %u, which no clock snapshot of its packet sequence "
		               "relates to a builtin clock", clock);
	units = k->incremental ? k->last : ts;
	if (k->last_bad || units > UINT64_MAX / k->mult)
		return af_fail(err, AF_ERR_RECORD, off, AF_PF ": a track event's time on "
		               "clock %u of packet sequence %u is past the clock's range",
		               clock, seqid);
	ns = units * k->mult;
	if (ns >= k->snap ? ns - k->snap > UINT64_MAX - k->ref : k->snap - ns > k->ref)
		return af_fail(err, AF_ERR_RECORD, off, AF_PF ": a track event's time on "
		               "clock %u of packet sequence %u is outside the trace "
		               "clock's range", clock, seqid);
	*out = ns >= k->snap ? k->ref + (ns - k->snap) : k->ref - (k->snap - ns);
	return AF_OK;
}
