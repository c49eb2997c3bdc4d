/*
 * writer.h - writes Android method traces: regular (data versions 1, 2, 3,
 * any clock) and ART streaming (0xF2, 0xF3, with or without the summary).
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
	int no_summary;        /* streaming: stop before the summary (a cut trace) */
	const af_allocator *allocator; /* the writer's own blocks (NULL: malloc);
	                                  the finished bytes come from malloc */
} af_writer_options;

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
