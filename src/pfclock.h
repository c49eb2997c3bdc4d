/*
 * pfclock.h - the clocks of a Perfetto trace's track events (perfetto.c).
 * Clock ids 1-63 are the builtin clocks (6, BOOTTIME, the trace's by
 * default), taken as one timeline as they come; 64-127 a packet sequence's
 * own, absolute or incremental (each timestamp a delta from the previous
 * one on that clock), in units of `unit_multiplier_ns`, related to a
 * builtin clock by the sequence's ClockSnapshots as Perfetto's trace
 * processor relates them; from 128 on reserved (not read).
 */
#ifndef AF_PFCLOCK_H
#define AF_PFCLOCK_H

#include "internal.h"
#include "perfetto.pb-c.h"

#define AF_PF_SEQ_CLOCKS 64
#define AF_PF_SEQ_CLOCKS_END 128

/* A sequence's own clock, as its last ClockSnapshot gave it. */
typedef struct af_pf_clock {
	uint8_t defined;      /* a snapshot related it to a builtin clock */
	uint8_t incremental;  /* timestamps are deltas from the last one */
	uint8_t last_bad;     /* the running sum left the clock's range */
	uint64_t mult;        /* ns per unit */
	uint64_t snap;        /* its reading at the snapshot, ns */
	uint64_t ref;         /* the trace clock's at the same moment, ns */
	uint64_t last;        /* incremental: the last timestamp, units */
} af_pf_clock;

/* What the trace's snapshots said of the builtin clocks. */
typedef struct af_pf_clocks {
	uint32_t primary;     /* the trace's clock */
	uint8_t has_off[AF_PF_SEQ_CLOCKS];
	int64_t off[AF_PF_SEQ_CLOCKS]; /* builtin clock -> primary: add this */
} af_pf_clocks;

/** BOOTTIME the trace's clock, no offsets known. */
void af_pfclock_init(af_pf_clocks *g);

/** A ClockSnapshot of a sequence whose own clocks are *seq (an array of
 * AF_PF_SEQ_CLOCKS_END - AF_PF_SEQ_CLOCKS made from `mem` when first
 * needed, NULL before; the caller frees it): the trace's clock, the
 * builtin clocks' offsets to it, and the sequence's clocks, each related
 * to the snapshot's reading of the trace's clock (or of another builtin
 * clock, through the offsets, else as it is). */
AF_NODISCARD af_status af_pfclock_snapshot(af_mem *mem, af_pf_clocks *g, af_pf_clock **seq,
                                           const Aflame__Pftrace__ClockSnapshot *cs,
                                           long long off, af_error *err);

/** A packet of the sequence timed `ts` on `clock`: an incremental clock's
 * running sum moves. */
void af_pfclock_tick(af_pf_clock *seq, uint32_t clock, uint64_t ts);

/** The time of a track event timed `ts` on `clock` of sequence `seqid`
 * (its clocks `seq`), in ns of the trace's clock: fails with the byte `off`
 * when no snapshot of the sequence related the clock to a builtin one, or
 * the time leaves the clock's range. */
AF_NODISCARD af_status af_pfclock_time(const af_pf_clock *seq, uint32_t clock, uint64_t ts,
                                       uint32_t seqid, long long off, uint64_t *out,
                                       af_error *err);

#endif
