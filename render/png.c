/*
 * png.c - the PNG file of an image cairo drew: 8-bit RGB, compressed with
 * zlib.  A flame graph is bands of flat colour: most rows repeat the one
 * above (filtered "Up", all zeros, found with a memcmp), and the others
 * are told "Up" or "Sub" by the sum of their differences.  libpng (through
 * cairo) weighs five filters on every row and compresses harder, for files
 * about 6% smaller in four to five times the time; a large image's two
 * halves are compressed at once, on two threads, into one stream.
 * Thumbnails, drawn by the dozen for a per-thread set, are compressed by
 * deflate.h instead, in a third of the time of zlib's quickest strategy
 * (see af_png_effort).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

#include "deflate.h"
#include "png.h"

#define AF_PNG_CHUNK (64 * 1024) /* compressed bytes per IDAT chunk */
#define AF_PNG_LEVEL 3           /* 6% larger than libpng's files, in a fifth of its time */
#define AF_PNG_HALVES (1 << 20)  /* bytes of rows from which zlib takes halves at once */

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

/* The RGB bytes of row `y` into `rgb`. */
static void af_rgb_row(const unsigned char *pixels, int w, int stride, int y,
                       unsigned char *rgb)
{
	const uint32_t *px = (const uint32_t *)(const void *)(pixels + (size_t)y * stride);
	int x = 0;

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* four bytes a pixel, R G B and one the next pixel writes over */
	for (; x + 1 < w; x++) {
		uint32_t v = __builtin_bswap32(px[x]) >> 8;
		memcpy(rgb + 3 * x, &v, 4);
	}
#endif
	for (; x < w; x++) {
		rgb[3 * x] = (unsigned char)(px[x] >> 16);
		rgb[3 * x + 1] = (unsigned char)(px[x] >> 8);
		rgb[3 * x + 2] = (unsigned char)px[x];
	}
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
	size_t n = (size_t)w * 3, i;
	unsigned sum_up = 0, sum_sub = 0;

	if (y > 0 && memcmp(pixels + (size_t)y * stride, pixels + (size_t)(y - 1) * stride,
	                    (size_t)w * 4) == 0)
		return 0;
	af_rgb_row(pixels, w, stride, y, cur);
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

/* Rows [y0, y1) of an image, filtered, compressed by zlib into `out` as raw
 * deflate data that ends on a byte (a sync flush), or with the final block
 * (`last`); `adler` their Adler-32.  Halves of the stream made this way,
 * each from no history, join into one stream. */
typedef struct af_zpart {
	const unsigned char *pixels;
	int w, stride, y0, y1, last;
	af_mem *mem;
	af_buf out;
	uLong adler;
	int failed;
} af_zpart;

static void *af_zpart_run(void *arg)
{
	af_zpart *p = arg;
	size_t rowlen = 1 + (size_t)p->w * 3;
	unsigned char *row = af_malloc(p->mem, 3 * rowlen), *prev, *cur;
	z_stream z;
	int y, zr = Z_OK;

	memset(&z, 0, sizeof z);
	z.zalloc = af_zlib_alloc;
	z.zfree = af_zlib_free;
	z.opaque = p->mem;
	p->adler = adler32(0, NULL, 0);
	if (!row || deflateInit2(&z, AF_PNG_LEVEL, Z_DEFLATED, -MAX_WBITS, 8,
	                         Z_DEFAULT_STRATEGY) != Z_OK) {
		af_free(p->mem, row);
		p->failed = 1;
		return NULL;
	}
	prev = row + rowlen;
	cur = prev + rowlen;
	if (p->y0 > 0) /* the row above, as the filters see it */
		af_rgb_row(p->pixels, p->w, p->stride, p->y0 - 1, prev);
	for (y = p->y0; y < p->y1 && zr != Z_STREAM_END && !p->failed; y++) {
		int flush = y + 1 < p->y1 ? Z_NO_FLUSH : p->last ? Z_FINISH : Z_SYNC_FLUSH;
		if (af_filter_row(p->pixels, p->w, p->stride, y, prev, cur, row)) {
			unsigned char *t = prev;
			prev = cur;
			cur = t;
		} else {
			row[0] = AF_FILTER_UP;
			memset(row + 1, 0, rowlen - 1);
		}
		p->adler = adler32(p->adler, row, (uInt)rowlen);
		z.next_in = row;
		z.avail_in = (uInt)rowlen;
		do { /* until the row is taken, and at the end all is out */
			if (AF_GROW(p->mem, p->out.data, p->out.cap, p->out.len + AF_PNG_CHUNK)) {
				p->failed = 1;
				break;
			}
			z.next_out = (Bytef *)p->out.data + p->out.len;
			z.avail_out = (uInt)(p->out.cap - p->out.len);
			zr = deflate(&z, flush);
			p->out.len = p->out.cap - z.avail_out;
		} while (zr == Z_OK && (z.avail_in > 0 || z.avail_out == 0));
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
			p->failed = 1;
	}
	deflateEnd(&z);
	af_free(p->mem, row);
	return NULL;
}

/* `n` bytes at `data` as IDAT chunks of AF_PNG_CHUNK bytes at most. */
static int af_idat(FILE *out, const unsigned char *data, size_t n)
{
	size_t at;

	for (at = 0; at < n; at += AF_PNG_CHUNK)
		if (af_chunk(out, "IDAT", data + at,
		             (uint32_t)(n - at < AF_PNG_CHUNK ? n - at : AF_PNG_CHUNK)))
			return -1;
	return 0;
}

/* The rows of the image, filtered, through zlib (compressed for size).
 * From AF_PNG_HALVES bytes of rows, the two halves are compressed at once,
 * the second on a thread of its own: an image the user keeps is made while
 * the rest of the run waits for it. */
static af_status af_png_zlib(const unsigned char *pixels, int w, int h, int stride,
                             af_mem *mem, FILE *out, af_error *err)
{
	int halves = (size_t)h * w * 3 >= AF_PNG_HALVES && h >= 2, mid = halves ? h / 2 : h;
	af_zpart part[2] = {
		{.pixels = pixels, .w = w, .stride = stride, .y0 = 0, .y1 = mid, .last = !halves,
		 .mem = mem, .out = {.mem = mem}},
		{.pixels = pixels, .w = w, .stride = stride, .y0 = mid, .y1 = h, .last = 1,
		 .mem = mem, .out = {.mem = mem}}};
	af_zpart *end = &part[halves];
	/* zlib's header for level 3 and a 32 KiB window, the deflate data,
	 * then the Adler-32 of all the filtered rows */
	static const unsigned char head[2] = {0x78, 0x5E};
	unsigned char tail[4];
	uLong adler;
	pthread_t helper;
	int threaded = 0, i;
	af_status st = AF_OK;

	if (af_buf_append(&part[0].out, head, 2))
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory for the PNG encoder");
	if (halves)
		threaded = pthread_create(&helper, NULL, af_zpart_run, &part[1]) == 0;
	af_zpart_run(&part[0]);
	if (threaded)
		pthread_join(helper, NULL);
	else if (halves)
		af_zpart_run(&part[1]);
	adler = halves ? adler32_combine(part[0].adler, part[1].adler,
	                                 (z_off_t)((size_t)(h - mid) * (1 + (size_t)w * 3)))
	               : part[0].adler;
	af_put32(tail, (uint32_t)adler);
	if (part[0].failed || end->failed || af_buf_append(&end->out, tail, 4))
		st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory for the PNG encoder");
	for (i = 0; i <= halves && st == AF_OK; i++)
		if (af_idat(out, (unsigned char *)part[i].out.data, part[i].out.len))
			st = af_fail(err, AF_ERR_IO, -1, "write failed");
	af_buf_free(&part[0].out);
	af_buf_free(&part[1].out);
	return st;
}

/* The same through deflate.h (compressed for speed): an IDAT chunk each
 * time AF_PNG_CHUNK bytes or more are made. */
static af_status af_png_quick(const unsigned char *pixels, int w, int h, int stride,
                              af_mem *mem, FILE *out, af_error *err)
{
	size_t rowlen = 1 + (size_t)w * 3;
	/* the filtered row, then the RGB bytes of the row above and of this one */
	unsigned char *row = af_malloc(mem, 3 * rowlen), *prev, *cur;
	af_deflate d;
	af_status st = AF_OK;
	int y, bad;

	if (!row)
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory for the PNG encoder");
	prev = row + rowlen;
	cur = prev + rowlen;
	bad = af_deflate_init(&d, mem);
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
				st = af_fail(err, AF_ERR_IO, -1, "write failed");
				break;
			}
			d.out.len = 0;
		}
	}
	if (!bad && st == AF_OK)
		bad = af_deflate_finish(&d);
	if (bad)
		st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory for the PNG encoder");
	else if (st == AF_OK &&
	         af_chunk(out, "IDAT", (const unsigned char *)d.out.data, (uint32_t)d.out.len))
		st = af_fail(err, AF_ERR_IO, -1, "write failed");
	af_deflate_free(&d);
	af_free(mem, row);
	return st;
}

af_status af_png_write(const unsigned char *pixels, int w, int h, int stride,
                       af_png_effort effort, af_mem *mem, FILE *out, af_error *err)
{
	static const unsigned char sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
	unsigned char ihdr[13] = {0};
	af_status st;

	af_put32(ihdr, (uint32_t)w);
	af_put32(ihdr + 4, (uint32_t)h);
	ihdr[8] = 8; /* bits a sample */
	ihdr[9] = 2; /* RGB; compression, filter and interlace methods 0 */
	if (fwrite(sig, 1, sizeof sig, out) != sizeof sig || af_chunk(out, "IHDR", ihdr, 13))
		st = af_fail(err, AF_ERR_IO, -1, "write failed");
	else if (effort == AF_PNG_QUICK)
		st = af_png_quick(pixels, w, h, stride, mem, out, err);
	else
		st = af_png_zlib(pixels, w, h, stride, mem, out, err);
	if (st == AF_OK && af_chunk(out, "IEND", NULL, 0))
		st = af_fail(err, AF_ERR_IO, -1, "write failed");
	return st;
}
