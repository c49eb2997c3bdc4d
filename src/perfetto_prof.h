/*
 * perfetto_prof.h - the profiles of a Perfetto trace: heapprofd's heap
 * dumps (ProfilePacket) and traced_perf's CPU samples (PerfSample), read
 * packet by packet (pftrace.c) into the trace's prefix tree as stacks with
 * values, one thread of the tree per process (heap dumps) or per thread
 * (CPU samples).
 */
#ifndef AF_PERFETTO_PROF_H
#define AF_PERFETTO_PROF_H

#include "trace.h"

/** 1 when `buf` is a Perfetto trace (af_pf_detect) one of whose packets
 * holds a heap dump (profile_packet) or a CPU sample (perf_sample), 0
 * otherwise (a trace of slices, damaged framing: for the slices reader to
 * take or explain).  It stops at the first such packet, else reads the
 * packets' framing to the end, front to back: where `buf` is t's window
 * (af_trace.window), the pages behind are handed back as the parse's are,
 * so that a large trace of slices is not all in memory when its parse
 * begins.  Compressed batches are inflated with t's allocator; nothing
 * stays allocated, nothing else of `t` changes. */
int af_pfprof_detect(af_trace *t, const uint8_t *buf, size_t len);

/** Parses the profiles of a Perfetto trace (not gzip'd) into `t`: the heap
 * dumps when it holds any (af_parse_options.heap_view and heap_dump choose
 * the values and the dump), else its CPU samples.  Every failure has a
 * message and the byte offset of its packet. */
af_status af_trace_pfprof(af_trace *t, const uint8_t *buf, size_t len, af_error *err);

#endif
