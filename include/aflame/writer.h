/*
 * writer.h - writes Android method traces: regular (data versions 1, 2, 3,
 * any clock), ART streaming (0xF2, 0xF3, with or without the summary) and
 * ART V2 compact traces (4, 5, 0xF4, 0xF5; revisions B and C, as
 * trace-formats.md §6 describes them: no public V2 trace exists to test
 * with, so the tests make them with this writer), and btrace 2.0 binary
 * traces with their method mapping (§8; none public either).
 * Used by the project's tests, samples and benchmarks to make traces whose
 * answers are known.
 */
#ifndef AFLAME_WRITER_H
#define AFLAME_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "aflame/aflame.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum af_writer_clock {
	AF_WRITER_DUAL,      /* thread-cpu then wall, 14-byte records */
	AF_WRITER_WALL,      /* one field */
	AF_WRITER_THREAD_CPU /* one field */
} af_writer_clock;

typedef struct af_writer_options {
	af_variant variant;    /* REGULAR or STREAMING (KEY_DATA: see finish) */
	unsigned version;      /* regular: 1, 2 or 3 (0: 3 for dual, else 2) */
	af_writer_clock clock;
	int dalvik;            /* Dalvik style: slash class names, 6 fields, "0x%08x" ids */
	int no_summary;        /* streaming, V2: stop before the summary (a cut trace) */
	/* AF_VARIANT_ART_V2 only.  Method `id` is written as the ArtMethod*
	 * AF_WRITER_V2_POINTER(id); each run of records of one thread is an
	 * event block (a per-thread flush); times are the µs given, unwrapped
	 * per thread, in the unit of the revision. */
	char v2_revision;      /* 'B' (or 0): method|action, wall, cpu deltas;
	                          'C': (ticks << 2 | action), cpu ns, entries'
	                          methods, with the tick rate in the header */
	int v2_ns;             /* revision B: ns deltas, "elapsed-time-nsec"
	                          (else µs, "elapsed-time-usec") */
	int v2_streaming;      /* version 0xF4/0xF5 rather than 4/5 */
	unsigned v2_block_records; /* at most this many records per block
	                          (0: no limit) */
	int v2_spill;          /* revision B: a block the limit starts goes on
	                          from the one before (one flush over two
	                          blocks), as ART does when its buffer fills */
	/* AF_VARIANT_BTRACE only.  Records are written as btrace writes them:
	 * one per call, when it ends (an exit or unwind closes the thread's
	 * innermost call, whatever method it names; an exit with no call open
	 * is a call that was running when tracing began: begun at the time
	 * base).  Times are the wall µs given, unwrapped per thread, as ns
	 * since the time base.  Thread names are not written (btrace has
	 * none); method ids are written as id >> 2, their names go to the
	 * mapping (af_writer_btrace_mapping()). */
	int btrace_no_padding; /* the file ends after its last record (else it
	                          is padded with zeros to 2,000,000 bytes, as
	                          btrace pre-sizes it) */
	int btrace_drop_open;  /* calls still open at the end are not written,
	                          as btrace never writes them (else each is
	                          closed at its thread's last time, as a V1
	                          reader closes it) */
	uint64_t btrace_restart_ns; /* the latest (re)start, in ns after the
	                          time base (header byte 24) */
	/* AF_VARIANT_ART_V6 only (the long-running methods trace, §7): each
	 * run of records of one thread is an event block (v2_block_records
	 * caps it); times are the wall µs given, unwrapped per thread, as ns
	 * after AF_WRITER_V6_START_NS; an exit or unwind names no method;
	 * thread and method packets follow the blocks, as ART writes them. */
	int v6_headerless;     /* the dump of earlier builds: no SLOW header */
	int v6_summary;        /* the 17-byte summary record after the header */
	const af_allocator *allocator; /* the writer's own blocks (NULL: malloc);
	                                  the finished bytes come from malloc */
} af_writer_options;

/** The ArtMethod* an ART V2 trace names method `id` by. */
#define AF_WRITER_V2_POINTER(id) (UINT64_C(0x70A0000000) + ((uint64_t)(id) << 3))

/** The time base a btrace trace's starts count from (elapsedRealtimeNanos). */
#define AF_WRITER_BTRACE_BASE UINT64_C(86400000000000)

/** The monotonic ns a long-running methods trace starts at. */
#define AF_WRITER_V6_START_NS UINT64_C(5000000000000)

/** Revision C's timestamp counter: its rate (Hz) and value at the start. */
#define AF_WRITER_V2_TICK_HZ 24000000u
#define AF_WRITER_V2_START_TICK UINT64_C(0x5A5A0000)

/** Actions of a record. */
enum { AF_ENTER = 0, AF_EXIT = 1, AF_UNWIND = 2 };

typedef struct af_writer af_writer;

/** A new writer; NULL when out of memory or the options are invalid. */
af_writer *af_writer_new(const af_writer_options *opt);
void af_writer_free(af_writer *w);

/** Declares a thread.  Streaming writers emit a thread item at once. */
AF_NODISCARD int af_writer_thread(af_writer *w, uint32_t tid, const char *name);

/** Declares a method; `id` has its low two bits clear.  `cls` in dotted
 * form ("com.example.Foo"); Dalvik style writes it with slashes.  Streaming
 * writers emit a method item at once. */
AF_NODISCARD int af_writer_method(af_writer *w, uint32_t id, const char *cls,
                                  const char *name, const char *sig,
                                  const char *file);

/** Appends a record; `cpu` and `wall` are µs (one-clock traces use the
 * clock they name and ignore the other). */
AF_NODISCARD int af_writer_record(af_writer *w, uint32_t tid, uint32_t id,
                                  int action, uint32_t cpu, uint32_t wall);

/** btrace: appends one record as btrace's writer packs it, nothing
 * masked (a tid of 32768 or more spills into the duration bits, a method
 * id of 2^23 or more into the tid): `start` ns after the time base (as
 * two's complement when negative), `dur` ns. */
AF_NODISCARD int af_writer_btrace_record(af_writer *w, uint64_t start, uint64_t dur,
                                         uint32_t tid, uint32_t mid);

/** btrace: the method mapping of the methods declared so far ("#<uuid>",
 * then "<id >> 2>,1,<class> <name>[ <descriptor>]" lines), in a new
 * malloc'd buffer the caller frees (not NUL-terminated). */
AF_NODISCARD int af_writer_btrace_mapping(af_writer *w, uint8_t **out, size_t *len);

/** Appends raw bytes to the record stream (for hostile-input tests). */
AF_NODISCARD int af_writer_raw(af_writer *w, const void *bytes, size_t len);

/** The finished trace in a new malloc'd buffer the caller frees.  For a
 * regular trace `*key_len` (when not NULL) receives the length of the key
 * text, so the bytes can be split into a .key and a .data file. */
AF_NODISCARD int af_writer_finish(af_writer *w, uint8_t **out, size_t *len,
                                  size_t *key_len);

#ifdef __cplusplus
}
#endif

#endif
