/*
 * png.c - the PNG file of an image cairo drew: 8-bit RGB, compressed with
 * zlib.  A flame graph is bands of flat colour: most rows repeat the one
 * above (filtered "Up", all zeros, found with a memcmp), and the others
 * are told "Up" or "Sub" by the sum of their differences.  libpng (through
 * cairo) weighs five filters on every row and compresses harder, for files
 * about 6% smaller in four to five times the time.  Thumbnails, drawn by
 * the dozen for a per-thread set, are compressed by deflate.h instead, in
 * a third of the time of zlib's quickest strategy (see af_png_effort).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "deflate.h"
#include "png.h"

#define AF_PNG_CHUNK (64 * 1024) /* compressed bytes per IDAT chunk */
#define AF_PNG_LEVEL 3           /* 6% larger than libpng's files, in a fifth of its time */

enum { AF_FILTER_SUB = 1, AF_FILTER_UP = 2 };

static void af_put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

/* One chunk: length, type, data, CRC of type and data. */
static int af_chunk(FILE *out, const char type[4], const unsigned char *data,
                    uint32_t len)
{
	unsigned char head[8], tail[4];
	uLong crc = crc32(0, (const Bytef *)type, 4);

	af_put32(head, len);
	memcpy(head + 4, type, 4);
	if (len)
		crc = crc32(crc, data, len);
	af_put32(tail, (uint32_t)crc);
	return fwrite(head, 1, 8, out) == 8 && (!len || fwrite(data, 1, len, out) == len) &&
	       fwrite(tail, 1, 4, out) == 4 ? 0 : -1;
}

static unsigned af_abs8(unsigned char d)
{
	int v = (signed char)d;
	return (unsigned)(v < 0 ? -v : v);
}

/* Row `y` of the image, its RGB bytes kept in `cur` (the row above's are in
 * `prev`), as a filter byte and filtered bytes in `out`: "Up" or "Sub",
 * whichever leaves the smaller sum of differences (libpng's heuristic, over
 * the two filters that suit flat bands of colour).  Returns 1 when `cur`
 * and `out` were filled; 0 when the row repeats the one above: filtered
 * "Up", it is all zeros (`out` untouched, `prev` stands for the row). */
static int af_filter_row(const unsigned char *pixels, int w, int stride, int y,
                         const unsigned char *prev, unsigned char *cur, unsigned char *out)
{
	const uint32_t *px = (const uint32_t *)(const void *)(pixels + (size_t)y * stride);
	size_t n = (size_t)w * 3, i;
	unsigned sum_up = 0, sum_sub = 0;
	int x;

	if (y > 0 && memcmp(px, pixels + (size_t)(y - 1) * stride, (size_t)w * 4) == 0)
		return 0;
	for (x = 0; x < w; x++) {
		cur[3 * x] = (unsigned char)(px[x] >> 16);
		cur[3 * x + 1] = (unsigned char)(px[x] >> 8);
		cur[3 * x + 2] = (unsigned char)px[x];
	}
	for (i = 0; y > 0 && i < n; i++) {
		sum_up += af_abs8((unsigned char)(cur[i] - prev[i]));
		sum_sub += af_abs8((unsigned char)(cur[i] - (i >= 3 ? cur[i - 3] : 0)));
	}
	out[0] = y > 0 && sum_up < sum_sub ? AF_FILTER_UP : AF_FILTER_SUB;
	if (out[0] == AF_FILTER_UP) {
		for (i = 0; i < n; i++)
			out[1 + i] = (unsigned char)(cur[i] - prev[i]);
	} else {
		for (i = 0; i < n; i++)
			out[1 + i] = (unsigned char)(cur[i] - (i >= 3 ? cur[i - 3] : 0));
	}
	return 1;
}

/* The rows of the image, filtered, through zlib (compressed for size). */
static af_status af_png_zlib(const unsigned char *pixels, int w, int h, int stride,
                             af_mem *mem, unsigned char *row, FILE *out, af_error *err)
{
	size_t rowlen = 1 + (size_t)w * 3;
	unsigned char *prev = row + rowlen, *cur = prev + rowlen;
	unsigned char *buf = af_malloc(mem, AF_PNG_CHUNK);
	af_status st = AF_OK;
	z_stream z;
	int y = 0, zr;

	memset(&z, 0, sizeof z);
	z.zalloc = af_zlib_alloc;
	z.zfree = af_zlib_free;
	z.opaque = mem;
	if (!buf || deflateInit2(&z, AF_PNG_LEVEL, Z_DEFLATED, MAX_WBITS, 8,
	                         Z_DEFAULT_STRATEGY) != Z_OK) {
		af_free(mem, buf);
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory for the PNG encoder");
	}
	z.next_out = buf;
	z.avail_out = AF_PNG_CHUNK;
	do {
		if (z.avail_in == 0 && y < h) {
			if (af_filter_row(pixels, w, stride, y++, prev, cur, row)) {
				unsigned char *t = prev;
				prev = cur;
				cur = t;
			} else {
				row[0] = AF_FILTER_UP;
				memset(row + 1, 0, rowlen - 1);
			}
			z.next_in = row;
			z.avail_in = (uInt)rowlen;
		}
		zr = deflate(&z, y == h ? Z_FINISH : Z_NO_FLUSH);
		if (zr == Z_STREAM_ERROR) {
			st = af_fail(err, AF_ERR_RENDER, -1, "zlib could not compress the PNG");
			break;
		}
		if (z.avail_out == 0 || zr == Z_STREAM_END) {
			if (af_chunk(out, "IDAT", buf, (uint32_t)(AF_PNG_CHUNK - z.avail_out))) {
				st = af_fail(err, AF_ERR_IO, -1, "write failed");
				break;
			}
			z.next_out = buf;
			z.avail_out = AF_PNG_CHUNK;
		}
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	af_free(mem, buf);
	return st;
}

/* The same through deflate.h (compressed for speed): an IDAT chunk each
 * time AF_PNG_CHUNK bytes or more are made. */
static af_status af_png_quick(const unsigned char *pixels, int w, int h, int stride,
                              af_mem *mem, unsigned char *row, FILE *out, af_error *err)
{
	size_t rowlen = 1 + (size_t)w * 3;
	unsigned char *prev = row + rowlen, *cur = prev + rowlen;
	af_deflate d;
	int y, bad = af_deflate_init(&d, mem);

	for (y = 0; y < h && !bad; y++) {
		if (af_filter_row(pixels, w, stride, y, prev, cur, row)) {
			unsigned char *t = prev;
			prev = cur;
			cur = t;
			bad = af_deflate_write(&d, row, rowlen);
		} else {
			bad = af_deflate_zeros(&d, AF_FILTER_UP, rowlen - 1);
		}
		if (!bad && d.out.len >= AF_PNG_CHUNK) {
			if (af_chunk(out, "IDAT", (const unsigned char *)d.out.data,
			             (uint32_t)d.out.len)) {
				af_deflate_free(&d);
				return af_fail(err, AF_ERR_IO, -1, "write failed");
			}
			d.out.len = 0;
		}
	}
	if (!bad)
		bad = af_deflate_finish(&d);
	if (bad) {
		af_deflate_free(&d);
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory for the PNG encoder");
	}
	if (af_chunk(out, "IDAT", (const unsigned char *)d.out.data, (uint32_t)d.out.len)) {
		af_deflate_free(&d);
		return af_fail(err, AF_ERR_IO, -1, "write failed");
	}
	af_deflate_free(&d);
	return AF_OK;
}

af_status af_png_write(const unsigned char *pixels, int w, int h, int stride,
                       af_png_effort effort, af_mem *mem, FILE *out, af_error *err)
{
	static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
	unsigned char ihdr[13] = {0};
	size_t rowlen = 1 + (size_t)w * 3;
	/* the filtered row, then the RGB bytes of the row above and of this one */
	unsigned char *row = af_malloc(mem, 3 * rowlen);
	af_status st;

	if (!row)
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory for the PNG encoder");
	af_put32(ihdr, (uint32_t)w);
	af_put32(ihdr + 4, (uint32_t)h);
	ihdr[8] = 8; /* bits a sample */
	ihdr[9] = 2; /* RGB; compression, filter and interlace methods 0 */
	if (fwrite(sig, 1, sizeof sig, out) != sizeof sig || af_chunk(out, "IHDR", ihdr, 13))
		st = af_fail(err, AF_ERR_IO, -1, "write failed");
	else if (effort == AF_PNG_QUICK)
		st = af_png_quick(pixels, w, h, stride, mem, row, out, err);
	else
		st = af_png_zlib(pixels, w, h, stride, mem, row, out, err);
	if (st == AF_OK && af_chunk(out, "IEND", NULL, 0))
		st = af_fail(err, AF_ERR_IO, -1, "write failed");
	af_free(mem, row);
	return st;
}
