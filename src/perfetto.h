/*
 * perfetto.h - the slices of a Perfetto trace (a stream of TracePackets):
 * atrace marks in ftrace print events and TrackEvent slices, fed to
 * slices.h as a systrace's are, threads and processes named from the
 * trace's process tree and descriptors.
 */
#ifndef AF_PERFETTO_H
#define AF_PERFETTO_H

#include "trace.h"

/** af_pf_detect()'s answer (2 sure, 1 likely, 0 not a Perfetto trace),
 * but 0 for text: "\n" is a packet's tag, so lines of text may walk as
 * packets, while a trace's first packet holds the tags of its own fields
 * (0x08, 0x10...) within its first bytes. */
int af_perfetto_detect(const uint8_t *buf, size_t len);

/** Parses the Perfetto trace of `len` bytes at `buf` into `t` (made with
 * af_trace_new()).  Packets are framed by pftrace.h (compressed ones
 * inflated) and each decoded by protobuf-c from src/perfetto.proto:
 *  - ftrace print events "B|pid|name", "E|pid" and "E" are slices of the
 *    event's thread; async, counter and other marks are counted and
 *    ignored (af_trace_info);
 *  - TrackEvent TYPE_SLICE_BEGIN and TYPE_SLICE_END, and the legacy
 *    form's phases 'B', 'E' and 'X' (complete, with its duration), are
 *    slices of their track's thread (a track with no thread is a
 *    pseudo-thread of its own, named after the track; a legacy tid
 *    override names the thread), names given or interned on their packet
 *    sequence; instants, counters and async events are counted and
 *    ignored;
 *  - timestamps on a sequence's own clocks are resolved through its clock
 *    snapshots (pfclock.h);
 *  - events reach the slices in time order, merged from their sources'
 *    queues as soon as no earlier event can come (memory: a window of
 *    events, not all of them).
 * Fails with the byte offset of the packet at fault: damaged framing or
 * fields, an interned name never defined, a track event without a
 * timestamp or on a clock no snapshot relates, a complete event without a
 * duration, and past the trace's limits. */
AF_NODISCARD af_status af_trace_perfetto(af_trace *t, const uint8_t *buf, size_t len,
                                         af_error *err);

#endif
