/*
 * bytes.h - an input's bytes, whatever holds them: a regular file is
 * mapped, anything else (a pipe, a terminal) read into memory, gzip
 * inflated.  A large input is a window: a large file is mapped without
 * being read ahead in one call, and a large pipe or inflated stream goes
 * to a temporary file with no name, mapped in turn, so that the parse can
 * hand back the pages behind it (af_trace.window) and memory stays that
 * of the call paths.  Nothing here knows what a trace is: the caller says
 * which first bytes to refuse at once.
 */
#ifndef AF_BYTES_H
#define AF_BYTES_H

#include "internal.h"

typedef struct af_bytes {
	uint8_t *data;
	size_t len;
	int mapped; /* a mapping, of the file itself or of a spill */
	int window; /* large: pages behind the parse may be handed back */
	int guard;  /* guard.c's slot of the input file's mapping, or -1 */
	int fd;     /* the mapped file, kept open to tell what became of it */
	int own_fd; /* closed with the bytes (not standard input) */
	af_mem *mem;
} af_bytes;

/** Whether the first `n` bytes already rule out every input the caller
 * knows (1), so that /dev/zero or a gzip bomb of zeros stops early; the
 * refusal's message is given with it. */
typedef struct af_bytes_sniff {
	int (*refuse)(const uint8_t *b, size_t n);
	const char *why;
} af_bytes_sniff;

void af_bytes_init(af_bytes *b, af_mem *mem);
void af_bytes_free(af_bytes *b);

/** AF_ERR_IO when a read of a mapped file found it cut short meanwhile
 * (what a parse said of the zeros read instead does not count); `who`
 * names the file when the caller's name for the input is another one. */
af_status af_bytes_check(const af_bytes *b, const char *who, af_error *err);

/** The bytes of `path` ("-": standard input), at most `max` of them. */
af_status af_bytes_read_path(af_mem *mem, const char *path, uint64_t max,
                             const af_bytes_sniff *sniff, af_bytes *b,
                             af_error *err);

/** 1 when `b` starts as gzip data. */
int af_bytes_is_gzip(const uint8_t *b, size_t len);

/** Inflates gzip (one or more members) into `out`, at most `max` bytes;
 * `sniff` looks at the first inflated kilobytes.  `window`: `in` is a
 * window (af_bytes.window), whose pages are handed back as they are
 * inflated. */
af_status af_bytes_gunzip(af_mem *mem, const uint8_t *in, size_t len, int window,
                          uint64_t max, const af_bytes_sniff *sniff, af_bytes *out,
                          af_error *err);

#endif
