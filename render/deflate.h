/*
 * deflate.h - a zlib stream (RFC 1950, 1951) made quickly from the filtered
 * rows of an image of flat colours: a run of one byte becomes a literal and
 * matches one byte back, every other byte a literal, and each block of
 * them is coded with Huffman codes made for it.  Nothing else is searched
 * for: zlib does that, slower (af_png_write's AF_PNG_SMALL).  For images
 * drawn by the dozen, as a set's thumbnails.
 */
#ifndef AF_DEFLATE_H
#define AF_DEFLATE_H

#include <stdint.h>

#include "internal.h"

typedef struct af_deflate {
	af_mem *mem;
	uint16_t *tokens; /* a literal byte, or 256 + a run's length - 3 */
	size_t ntokens, cap;
	uint32_t lfreq[286]; /* the block's literals and lengths, counted */
	uint32_t runs;       /* and its matches (all one byte back) */
	uint64_t a, b;       /* Adler-32's sums of the bytes given */
	af_buf out;       /* the stream so far, whole bytes; the caller may take
	                     them and set out.len to 0 */
	uint64_t bits;    /* bits not yet in `out`, the first lowest */
	unsigned nbits;
	int failed;       /* out of memory */
} af_deflate;

/** Starts a stream, its zlib header in d->out.  Non-zero when out of
 * memory (then af_deflate_free() is still called). */
int af_deflate_init(af_deflate *d, af_mem *mem);

/** Compresses `n` more bytes; non-zero when out of memory. */
int af_deflate_write(af_deflate *d, const unsigned char *p, size_t n);

/** The same for byte `first` and `zeros` zeros after it (a PNG row that
 * repeats the one above), without their bytes. */
int af_deflate_zeros(af_deflate *d, unsigned char first, size_t zeros);

/** Ends the stream: its last block and the Adler-32 of the bytes, in
 * d->out.  Non-zero when out of memory. */
int af_deflate_finish(af_deflate *d);

void af_deflate_free(af_deflate *d);

#endif
