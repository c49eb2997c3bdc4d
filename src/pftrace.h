/*
 * pftrace.h - the packets of a Perfetto trace, one at a time, for the
 * readers of what they hold (perfetto.c: slices; perfetto_prof.c: heap and
 * CPU profiles).  A trace is a protobuf `Trace` message: field 1, a
 * `TracePacket`, over and over.  Batches of packets that the writer
 * compressed (`TracePacket.compressed_packets`, zlib) are inflated here and
 * handed out in order, so a reader never sees them.  Only the framing is
 * read; what a packet holds is the readers' (decoded by protobuf-c).
 */
#ifndef AF_PFTRACE_H
#define AF_PFTRACE_H

#include "internal.h"

/** How much the first bytes of `buf` (up to 64 KiB of them) look like a
 * Perfetto trace: 2 when they are whole packets (field 1), up to where
 * they end or the look ends inside a packet; 1 when they end inside the
 * first packet (a truncated trace, for its reader to explain, or text
 * that happens to start so: the caller weighs it); 0 otherwise.  A pprof
 * profile, whose first field is also numbered 1, has others soon after. */
int af_pf_detect(const uint8_t *buf, size_t len);

typedef struct af_pf_reader af_pf_reader;

/** A reader of the `len` bytes of `buf` (which must outlive it); the
 * buffers of inflated batches come from `mem`.  NULL when out of memory. */
af_pf_reader *af_pf_reader_new(af_mem *mem, const uint8_t *buf, size_t len);

/** The next packet: 1 with its bytes in *pkt, *len and its byte offset in
 * the input in *off (for a packet of a compressed batch, the batch's
 * offset); 0 at the end; the failure's af_status, negated, with `err`
 * filled (when not NULL) when the framing is damaged, a batch does not
 * inflate, or memory runs out.  *pkt is valid until the next call. */
int af_pf_reader_next(af_pf_reader *r, const uint8_t **pkt, size_t *len,
                      long long *off, af_error *err);

/** Frees the reader.  NULL is a no-op. */
void af_pf_reader_free(af_pf_reader *r);

#endif
