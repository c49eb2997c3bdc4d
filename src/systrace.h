/*
 * systrace.h - the text atrace and systrace capture: ftrace lines whose
 * tracing_mark_write (or print) events hold atrace marks, plain, after a
 * "TRACE:" header and zlib (atrace -z), or in the trace-data blocks of a
 * Systrace HTML file.  Its slices go through slices.h.
 */
#ifndef AF_SYSTRACE_H
#define AF_SYSTRACE_H

#include "trace.h"

/** 1 when the bytes are systrace input in one of its forms: a "TRACE:"
 * header, an ftrace "# tracer:" header or event line first, or an HTML
 * document (whose trace data af_trace_systrace() then looks for). */
int af_systrace_detect(const uint8_t *buf, size_t len);

/** Parses systrace input of any form into `t` (made with af_trace_new()):
 * begin and end marks become slices per thread; async and counter marks,
 * other events and other lines are counted and ignored.  Fails with the
 * byte (and line) of a mark it cannot read, on damaged zlib data, on HTML
 * without a trace-data block of text, and past the trace's limits. */
AF_NODISCARD af_status af_trace_systrace(af_trace *t, const uint8_t *buf, size_t len,
                                         af_error *err);

#endif
