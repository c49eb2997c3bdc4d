/*
 * slices.h - nested begin/end slices of threads (atrace marks,
 * Trace.beginSection, a Perfetto trace's slices) turned into call paths
 * with wall time, in the trace's prefix tree as a method trace's calls are:
 * each distinct slice name is a method, each thread a thread, so that every
 * view, output and option reads them unchanged.
 *
 * Semantics:
 *  - the time between two consecutive events of a thread is charged to the
 *    slice open on top of its stack (to nothing when none is open);
 *  - an end on a thread with no slice open is counted and ignored;
 *  - slices still open at the end close at their thread's last event,
 *    counted in af_trace_info.open_at_end;
 *  - a step back in a thread's time counts as zero
 *    (af_trace_info.time_backwards).
 * Times are nanoseconds in, microseconds in the tree (each timestamp is
 * floored to a microsecond first, so the durations add up exactly).
 */
#ifndef AF_SLICES_H
#define AF_SLICES_H

#include "trace.h"

typedef struct af_slices af_slices;

/** A builder feeding `t` (made with af_trace_new()).  It holds the trace,
 * not owning it; NULL when out of memory.  Marks `t` as holding wall time. */
af_slices *af_slices_new(af_trace *t);

/** Frees the builder (not the trace).  NULL is a no-op. */
void af_slices_free(af_slices *s);

/** Names thread `tid` (`len` bytes of `name`; len 0 or a placeholder such
 * as "<...>" says nothing) and gives its process `pid` (0: unknown).  The
 * last name given wins; a pid once known is kept.  `off` is for messages. */
AF_NODISCARD af_status af_slices_thread(af_slices *s, uint32_t tid, uint32_t pid,
                                        const char *name, size_t len,
                                        long long off, af_error *err);

/** Names process `pid`: wins over the name of its main thread, which
 * names it otherwise. */
AF_NODISCARD af_status af_slices_process(af_slices *s, uint32_t pid,
                                         const char *name, size_t len,
                                         long long off, af_error *err);

/** A slice named by `len` bytes of `name` begins on thread `tid` (of
 * process `pid`, 0 when unknown) at `ts` ns.  Fails with AF_ERR_LIMIT past
 * the trace's depth, node or name limits. */
AF_NODISCARD af_status af_slices_begin(af_slices *s, uint32_t tid, uint32_t pid,
                                       uint64_t ts, const char *name, size_t len,
                                       long long off, af_error *err);

/** The innermost slice open on thread `tid` ends at `ts` ns. */
AF_NODISCARD af_status af_slices_end(af_slices *s, uint32_t tid, uint64_t ts,
                                     long long off, af_error *err);

/** What an atrace mark (the text a process writes to trace_marker, as
 * systrace text and a Perfetto trace's ftrace print events carry it) is. */
typedef enum af_mark_kind {
	AF_MARK_BEGIN,   /* "B|pid|name": a slice begins */
	AF_MARK_END,     /* "E|pid", "E" or "E|pid|name": the innermost ends */
	AF_MARK_IGNORED, /* counted in af_trace_info: async ("S|", "F|"...),
	                    counters ("C|"), "B|pid" without a name, others */
	AF_MARK_BAD_PID  /* a begin whose pid is not a number */
} af_mark_kind;

typedef struct af_mark {
	uint32_t pid;         /* AF_MARK_BEGIN */
	const char *name;     /* AF_MARK_BEGIN: the slice's name, `name_len` bytes */
	size_t name_len;
	size_t pid_at, pid_len; /* AF_MARK_BAD_PID: where the pid is in the mark */
} af_mark;

/** Decimal digits [s, s + n) into a u32 below UINT32_MAX (a pid or tid):
 * 0 on success, -1 otherwise. */
int af_mark_u32(const char *s, size_t n, uint32_t *out);

/** Reads the `n` bytes of mark `m` into *out; an ignored mark is counted
 * in `t`'s af_trace_info. */
af_mark_kind af_mark_parse(af_trace *t, const char *m, size_t n, af_mark *out);

/** Closes the slices still open at their thread's last event and names
 * threads and processes.  Call once, before af_trace_finish(). */
AF_NODISCARD af_status af_slices_finish(af_slices *s, af_error *err);

#endif
