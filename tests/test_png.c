/*
 * test_png.c - render/png.c: what it writes decodes (with libpng, through
 * cairo) to exactly the pixels it was given, at every width, for flat bands,
 * text and noise alike, compressed for size or (thumbnails) for speed, and
 * a failed write says so; and render/raster.c:
 * boxes filled straight into pixels, by the area they cover.
 */
#include <cairo.h>
#include <criterion/criterion.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "deflate.h"
#include "png.h"
#include "raster.h"
#include "support.h"

/* An RGB24 image of `w` x `h`: bands of flat colour as a flame graph has,
 * a line of text, and a patch of noise. */
static cairo_surface_t *picture(int w, int h, unsigned seed)
{
	cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
	cairo_t *cr = cairo_create(s);
	int i;

	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	for (i = 0; i < 12; i++) {
		cairo_set_source_rgb(cr, (i * 37 % 256) / 255.0, (i * 91 % 256) / 255.0, 0.3);
		cairo_rectangle(cr, i * w / 12.0 + 0.3, h - (i % 4 + 1) * 16.0, w / 7.0, 15);
		cairo_fill(cr);
	}
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_move_to(cr, 2, 12);
	cairo_show_text(cr, "com.example.Main.onCreate()");
	cairo_destroy(cr);
	cairo_surface_flush(s);
	{
		unsigned char *d = cairo_image_surface_get_data(s);
		int stride = cairo_image_surface_get_stride(s), x, y;
		for (y = h / 2; y < h / 2 + 3 && y < h; y++)
			for (x = 0; x < w / 3; x++) {
				seed = seed * 1103515245u + 12345u;
				((uint32_t *)(void *)(d + (size_t)y * stride))[x] = seed >> 8;
			}
		cairo_surface_mark_dirty(s);
	}
	return s;
}

static void round_trip_of(cairo_surface_t *s, int w, int h, af_png_effort effort);

static void round_trip(int w, int h, af_png_effort effort)
{
	round_trip_of(picture(w, h, (unsigned)(w * 31 + h)), w, h, effort);
}

/* af_png_write() of `s` decodes to its very pixels; `s` is destroyed. */
static void round_trip_of(cairo_surface_t *s, int w, int h, af_png_effort effort)
{
	cairo_surface_t *back;
	af_mem *mem = af_mem_new(NULL, 1u << 30);
	af_error e = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int y, stride = cairo_image_surface_get_stride(s);

	cr_assert(mem && f);
	cr_assert_eq(af_png_write(cairo_image_surface_get_data(s), w, h, stride, effort, mem, f,
	                          &e),
	             AF_OK, "%s", e.message);
	cr_assert_eq(fclose(f), 0);
	back = t_png_image(buf, len);
	cr_assert_eq(cairo_surface_status(back), CAIRO_STATUS_SUCCESS, "%d x %d: %s", w, h,
	             cairo_status_to_string(cairo_surface_status(back)));
	cr_assert_eq(cairo_image_surface_get_width(back), w);
	cr_assert_eq(cairo_image_surface_get_height(back), h);
	for (y = 0; y < h; y++) {
		const uint32_t *a = (const uint32_t *)(const void *)(cairo_image_surface_get_data(s) +
		                                                    (size_t)y * stride);
		const uint32_t *b = (const uint32_t *)(const void *)(
			cairo_image_surface_get_data(back) +
			(size_t)y * cairo_image_surface_get_stride(back));
		int x;
		for (x = 0; x < w; x++)
			cr_assert_eq(a[x] & 0xFFFFFF, b[x] & 0xFFFFFF,
			             "%d x %d: pixel (%d, %d) is %06x, drawn %06x", w, h, x, y,
			             b[x] & 0xFFFFFF, a[x] & 0xFFFFFF);
	}
	cairo_surface_destroy(back);
	cairo_surface_destroy(s);
	free(buf);
	af_mem_unref(mem);
}

Test(png, decodes_to_the_pixels_drawn)
{
	static const int sizes[][2] = {{1, 1}, {1, 70}, {3, 2}, {17, 5}, {480, 150},
	                               {1200, 430}, {4099, 37}};
	size_t i;

	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		round_trip(sizes[i][0], sizes[i][1], AF_PNG_SMALL);
		round_trip(sizes[i][0], sizes[i][1], AF_PNG_QUICK);
	}
}

/* Compressed data over several IDAT chunks (64 KiB each). */
Test(png, spans_many_chunks)
{
	round_trip(2000, 700, AF_PNG_SMALL);
	round_trip(2000, 700, AF_PNG_QUICK);
}

/* An image of 1 MiB of rows and more is compressed in two halves at once,
 * joined into one stream.  The second half's filters must see the row above
 * it: there the rows are noise of bytes close to 0 (mod 256), the first
 * row of the half a repeat of the one above, the next one nearly the same,
 * so that "Up" is its filter, as it would be against a row of zeros. */
Test(png, a_large_image_compressed_in_halves_decodes_the_same)
{
	static const int sizes[][2] = {{1200, 430}, {1200, 431}, {600, 583}, {4000, 90}};
	static const unsigned char near0[] = {254, 255, 0, 1, 2};
	size_t i;

	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		int w = sizes[i][0], h = sizes[i][1], x, y;
		cairo_surface_t *s = picture(w, h, (unsigned)i);
		unsigned char *d = cairo_image_surface_get_data(s);
		int stride = cairo_image_surface_get_stride(s);
		unsigned seed = (unsigned)i + 1;
		uint32_t *row;

		round_trip_of(picture(w, h, (unsigned)i + 7), w, h, AF_PNG_SMALL);
		row = (uint32_t *)(void *)(d + (size_t)(h / 2 - 1) * stride);
		for (x = 0; x < w; x++) {
			uint32_t px = 0;
			int k;
			for (k = 0; k < 3; k++) {
				seed = seed * 1103515245u + 12345u;
				px = px << 8 | near0[(seed >> 16) % 5];
			}
			row[x] = px;
		}
		for (y = h / 2; y <= h / 2 + 1; y++)
			memcpy(d + (size_t)y * stride, row, (size_t)w * 4);
		row = (uint32_t *)(void *)(d + (size_t)(h / 2 + 1) * stride);
		for (x = 0; x < w; x += 10)
			row[x] ^= 1;
		cairo_surface_mark_dirty(s);
		round_trip_of(s, w, h, AF_PNG_SMALL);
	}
}

/* deflate.h's stream of `n` bytes (given `piece` at a time, and runs of
 * zeros after a byte through af_deflate_zeros where `zeros` says) inflates
 * to those bytes, by zlib. */
static void deflate_round_trip(const unsigned char *data, size_t n, size_t piece,
                               const char *what)
{
	af_mem *mem = af_mem_new(NULL, 1u << 30);
	af_deflate d;
	unsigned char *back = malloc(n + 1);
	uLongf back_len = (uLongf)n + 1;
	size_t at = 0;
	int zr;

	cr_assert(mem && back);
	cr_assert_eq(af_deflate_init(&d, mem), 0);
	while (at < n) {
		size_t k = n - at < piece ? n - at : piece, z = 0;
		/* a piece that is a byte and zeros goes the short way */
		while (1 + z < k && data[at + 1 + z] == 0)
			z++;
		if (k > 1 && 1 + z == k)
			cr_assert_eq(af_deflate_zeros(&d, data[at], z), 0);
		else
			cr_assert_eq(af_deflate_write(&d, data + at, k), 0);
		at += k;
	}
	cr_assert_eq(af_deflate_finish(&d), 0);
	zr = uncompress(back, &back_len, (const Bytef *)d.out.data, (uLong)d.out.len);
	cr_assert_eq(zr, Z_OK, "%s: zlib says %d", what, zr);
	cr_assert_eq(back_len, n, "%s: %lu bytes back, not %zu", what, (unsigned long)back_len, n);
	cr_assert(n == 0 || memcmp(back, data, n) == 0, "%s: other bytes back", what);
	af_deflate_free(&d);
	af_mem_unref(mem);
	free(back);
}

/* The quick deflate on what breaks a coder: nothing, a byte, runs just
 * under, at and over 258 (and leaving 1 or 2), runs over a block's end, a
 * byte of each value (no run; every literal used), skewed frequencies
 * (codes over 15 bits before they are limited), zeros by the megabyte. */
Test(png, the_quick_deflate_inflates_to_what_it_was_given)
{
	static const size_t runs[] = {1, 2, 3, 4, 5, 257, 258, 259, 260, 261, 262, 515, 516, 517};
	size_t n = 3u << 20, i, k, at;
	unsigned char *data = malloc(n);
	unsigned seed = 12345;
	char what[64];

	cr_assert(data);
	deflate_round_trip(data, 0, 1, "nothing");
	data[0] = 7;
	deflate_round_trip(data, 1, 1, "a byte");
	for (k = 0; k < sizeof runs / sizeof runs[0]; k++) {
		memset(data, 'x', runs[k]);
		data[runs[k]] = 'y';
		snprintf(what, sizeof what, "a run of %zu", runs[k]);
		deflate_round_trip(data, runs[k] + 1, 1000, what);
		deflate_round_trip(data, runs[k] + 1, 7, what);
	}
	for (i = 0; i < 256 * 40; i++)
		data[i] = (unsigned char)(i * 7);
	deflate_round_trip(data, 256 * 40, 1441, "every byte value");
	/* frequencies of a Fibonacci kind: Huffman's lengths grow one a symbol */
	for (i = 0, at = 0, k = 1; i < 30 && at + k < n; i++) {
		size_t f = k, j;
		for (j = 0; j < f; j++)
			data[at + j] = (unsigned char)(j % 2 ? i : (i + 128) % 256);
		at += f;
		k = i < 2 ? 1 + i : k + k / 2 + 1;
	}
	deflate_round_trip(data, at, 65536 * 2 + 5, "skewed frequencies");
	/* random bytes and runs of random length over several blocks */
	for (at = 0; at < n;) {
		size_t len;
		seed = seed * 1103515245u + 12345u;
		len = (seed >> 16) % 600 + 1;
		if (len > n - at)
			len = n - at;
		memset(data + at, (seed >> 8) % 5 == 0 ? (int)(seed >> 24) : 0, len);
		if ((seed >> 20) % 3 == 0)
			for (k = 0; k < len; k++, seed = seed * 1103515245u + 12345u)
				data[at + k] = (unsigned char)(seed >> 24);
		at += len;
	}
	deflate_round_trip(data, n, 1441, "runs and noise, rows of 1441");
	deflate_round_trip(data, n, 200000, "runs and noise, large pieces");
	memset(data, 0, n);
	data[0] = 2;
	deflate_round_trip(data, n, n, "a byte and zeros by the megabyte");
	deflate_round_trip(data, n, 24577, "zeros in rows");
	free(data);
}

/* A block that opens with its rarest tokens, two long runs, coded with
 * the longest codes: after headers of every length (one more literal
 * value each time), the first tokens' bits meet whatever the header left
 * over in the bit buffer. */
Test(png, the_quick_deflate_codes_a_block_opening_with_its_longest_codes)
{
	size_t cap = 1u << 20, n, i, k;
	unsigned char *data = malloc(cap);
	int values;
	char what[64];

	cr_assert(data);
	for (values = 3; values < 200; values++) {
		n = 0;
		/* two runs of lengths with 5 extra bits, once each */
		data[n++] = 1;
		memset(data + n, 1, 200);
		n += 200;
		data[n++] = 2;
		memset(data + n, 2, 150);
		n += 150;
		/* then literals, value v about 2^(v/8) times as often as the
		 * rarest: a code deep enough to be limited to 15 bits */
		for (i = 0; i < (size_t)values && n < cap / 2; i++)
			for (k = 0; k <= (1u << (i / 8)) && n < cap / 2; k++) {
				data[n++] = (unsigned char)(3 + i);
				data[n++] = (unsigned char)(3 + (i + 1) % (size_t)values);
			}
		snprintf(what, sizeof what, "long codes first, %d values", values);
		deflate_round_trip(data, n, n, what);
	}
	free(data);
}

/* The bytes af_png_write() makes of the pixels of PNG file `path`. */
static char *encoded_again(const char *path, af_png_effort effort, size_t *len)
{
	size_t flen;
	uint8_t *file = t_read(path, &flen);
	cairo_surface_t *s = t_png_image(file, flen);
	af_mem *mem = af_mem_new(NULL, 1u << 30);
	af_error e = {0};
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	cr_assert_eq(cairo_surface_status(s), CAIRO_STATUS_SUCCESS, "%s", path);
	cr_assert(mem && f);
	cr_assert_eq(af_png_write(cairo_image_surface_get_data(s),
	                          cairo_image_surface_get_width(s),
	                          cairo_image_surface_get_height(s),
	                          cairo_image_surface_get_stride(s), effort, mem, f, &e),
	             AF_OK, "%s", e.message);
	cr_assert_eq(fclose(f), 0);
	cairo_surface_destroy(s);
	af_mem_unref(mem);
	free(file);
	return buf;
}

/* A thumbnail drawn on its own is a file the user keeps: compressed for
 * size.  A set's thumbnails, drawn by the dozen, are compressed for speed. */
Test(png, a_thumbnail_alone_is_compressed_for_size)
{
	char *one = t_tmp("alone.thumb.png"), *dir = t_tmp("thumbset"), *set;
	char *small, *quick, *file;
	size_t small_len, quick_len, len;

	t_cli_says(0, "", "--thumbnail 480x150 -o '%s' '%s'", one, AF_TEST_SAMPLES "/app.trace");
	t_cli_says(0, "", "--per-thread --thumbnail 480x150 -o '%s' '%s'", dir,
	           AF_TEST_SAMPLES "/app.trace");
	small = encoded_again(one, AF_PNG_SMALL, &small_len);
	quick = encoded_again(one, AF_PNG_QUICK, &quick_len);
	cr_assert(small_len != quick_len || memcmp(small, quick, small_len) != 0,
	          "the two efforts make the same bytes: nothing to tell apart");
	file = (char *)t_read(one, &len);
	cr_assert(len == small_len && memcmp(file, small, len) == 0,
	          "--thumbnail alone: %zu bytes, compressed for size %zu, for speed %zu", len,
	          small_len, quick_len);
	free(file);
	free(small);
	free(quick);
	set = malloc(strlen(dir) + 32);
	cr_assert(set);
	sprintf(set, "%s/all.thumb.png", dir);
	quick = encoded_again(set, AF_PNG_QUICK, &quick_len);
	file = (char *)t_read(set, &len);
	cr_assert(len == quick_len && memcmp(file, quick, len) == 0,
	          "a set's thumbnail: %zu bytes, compressed for speed %zu", len, quick_len);
	free(file);
	free(quick);
	free(set);
	free(one);
	free(dir);
}

Test(png, a_failed_write_is_an_io_error)
{
	cairo_surface_t *s = picture(300, 200, 7);
	af_mem *mem = af_mem_new(NULL, 1u << 30);
	af_error e = {0};
	FILE *f = fopen("/dev/full", "w");

	cr_assert(mem);
	if (!f)
		cr_skip_test("no /dev/full here");
	setvbuf(f, NULL, _IONBF, 0);
	cr_assert_eq(af_png_write(cairo_image_surface_get_data(s), 300, 200,
	                          cairo_image_surface_get_stride(s), AF_PNG_SMALL, mem, f, &e),
	             AF_ERR_IO);
	cr_assert_str_eq(e.message, "write failed");
	fclose(f);
	cairo_surface_destroy(s);
	af_mem_unref(mem);
}

/* Every block of an image compressed in halves refused in turn: the
 * encoder says it ran out of memory, and gives back every block. */
Test(png, a_refused_block_of_the_halves_is_said_and_nothing_leaks)
{
	cairo_surface_t *s = picture(1200, 430, 3);
	long k;

	for (k = 0; k < 100000; k++) {
		t_refuser r = {.refuse = -1}; /* the context itself is not refused */
		af_allocator a = t_refuser_allocator(&r);
		af_mem *mem = af_mem_new(&a, 1u << 30);
		af_error e = {0};
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		af_status st;

		cr_assert(mem && f);
		r.refuse = k;
		atomic_store(&r.calls, 0);
		atomic_store(&r.held, 0);
		st = af_png_write(cairo_image_surface_get_data(s), 1200, 430,
		                  cairo_image_surface_get_stride(s), AF_PNG_SMALL, mem, f, &e);
		fclose(f);
		cr_assert(st == AF_OK || st == AF_ERR_NOMEM, "block %ld: %s", k, e.message);
		if (st != AF_OK) {
			cr_assert_str_eq(e.message, "out of memory for the PNG encoder");
		} else { /* every block given: a whole image */
			cairo_surface_t *back = t_png_image(buf, len);
			cr_assert_eq(cairo_surface_status(back), CAIRO_STATUS_SUCCESS);
			cairo_surface_destroy(back);
		}
		free(buf);
		cr_assert_eq(atomic_load(&r.held), 0, "block %ld: %ld blocks kept", k,
		             (long)atomic_load(&r.held));
		af_mem_unref(mem);
		if (st == AF_OK)
			break;
	}
	cr_assert_gt(k, 4, "so few blocks: the halves were not taken");
	cairo_surface_destroy(s);
}

/* A white canvas of w x h with a guard row above and below (ASan and the
 * guards catch a write outside it). */
static uint32_t *white(int w, int h, af_canvas *c)
{
	uint32_t *px = malloc((size_t)w * (h + 2) * 4);
	int i;

	cr_assert(px);
	for (i = 0; i < w * (h + 2); i++)
		px[i] = 0xFFFFFF;
	c->pixels = (unsigned char *)(px + w);
	c->width = w;
	c->height = h;
	c->stride = w * 4;
	return px;
}

/* How much of a blue fill over white pixel `p` holds: white's red goes. */
static double red_share(uint32_t p)
{
	return (255 - ((p >> 16) & 0xFF)) / 255.0;
}

Test(raster, a_box_on_whole_pixels_fills_exactly_them)
{
	af_canvas c;
	uint32_t *px = white(20, 10, &c), *img = (uint32_t *)(void *)c.pixels;
	int x, y;

	af_canvas_box(&c, 2, 3, 5, 4, 0, 0, 0, 255);
	for (y = 0; y < 10; y++)
		for (x = 0; x < 20; x++)
			cr_assert_eq(img[y * 20 + x], x >= 2 && x < 7 && y >= 3 && y < 7 ? 0xFFu : 0xFFFFFFu,
			             "pixel %d,%d is %06x", x, y, img[y * 20 + x]);
	free(px);
}

Test(raster, a_pixel_covered_in_part_takes_the_colour_in_part)
{
	af_canvas c;
	uint32_t *px = white(10, 4, &c), *img = (uint32_t *)(void *)c.pixels;

	/* x from 1.25 to 3.5, y from 0.5 to 2: (1,1) is 3/4 in, (3,0) 1/4 */
	af_canvas_box(&c, 1.25, 0.5, 2.25, 1.5, 0, 0, 0, 255);
	cr_assert_float_eq(red_share(img[1 * 10 + 1]), 0.75, 0.01);
	cr_assert_float_eq(red_share(img[0 * 10 + 3]), 0.25, 0.01);
	cr_assert_float_eq(red_share(img[0 * 10 + 2]), 0.5, 0.01);
	cr_assert_eq(img[1 * 10 + 2], 0xFFu);
	cr_assert_eq(img[2 * 10 + 2], 0xFFFFFFu);
	free(px);
}

/* Boxes with straight sides narrower than a pixel, or across one pixel's
 * edge with no pixel whole, or cut by the image's edge: each pixel takes
 * the share of its area the box covers, in every row alike (the columns
 * are worked out once a box). */
Test(raster, narrow_boxes_cover_their_pixels_in_part_in_every_row)
{
	static const struct {
		double x, w;
		int px[3];
		double share[3]; /* of pixels px[0..2], -1 ending the list */
	} box[] = {
		{2.2, 0.5, {2, -1, -1}, {0.5, 0, 0}},          /* inside one pixel */
		{2.5, 1.2, {2, 3, -1}, {0.5, 0.7, 0}},         /* across an edge */
		{2.75, 1.5, {2, 3, 4}, {0.25, 1, 0.25}},       /* one pixel whole */
		{-0.5, 1.25, {0, -1, -1}, {0.75, 0, 0}},       /* cut on the left */
		{9.5, 3, {9, -1, -1}, {0.5, 0, 0}},            /* cut on the right */
	};
	size_t b;

	for (b = 0; b < sizeof box / sizeof box[0]; b++) {
		af_canvas c;
		uint32_t *px = white(10, 6, &c), *img = (uint32_t *)(void *)c.pixels;
		int x, y, k;
		af_canvas_box(&c, box[b].x, 1, box[b].w, 4, 0, 0, 0, 255);
		for (y = 0; y < 6; y++)
			for (x = 0; x < 10; x++) {
				double want = 0;
				for (k = 0; k < 3 && box[b].px[k] >= 0; k++)
					if (box[b].px[k] == x && y >= 1 && y < 5)
						want = box[b].share[k];
				cr_assert_float_eq(red_share(img[y * 10 + x]), want, 0.003,
				                   "box %zu, pixel %d,%d: %f, not %f", b, x, y,
				                   red_share(img[y * 10 + x]), want);
			}
		free(px);
	}
}

Test(raster, rounded_corners_leave_out_what_the_circle_does)
{
	af_canvas c;
	uint32_t *px = white(40, 40, &c), *img = (uint32_t *)(void *)c.pixels;
	double area = 0;
	int i;

	af_canvas_box(&c, 5, 5, 30, 20, 4, 0, 0, 255);
	for (i = 0; i < 40 * 40; i++)
		area += red_share(img[i]);
	/* the box less four corners of (4 - pi) r^2 / 4 */
	cr_assert_float_eq(area, 30 * 20 - (4 - 3.14159265358979) * 16, 0.5, "covered %f", area);
	cr_assert_eq(img[5 * 40 + 5], 0xFFFFFFu);                    /* a corner's tip */
	cr_assert_eq(img[15 * 40 + 5], 0xFFu);                       /* the side */
	cr_assert_eq(img[5 * 40 + 20], 0xFFu);                       /* the top */
	cr_assert_eq(img[5 * 40 + 34], img[24 * 40 + 5]);            /* symmetric */
	free(px);
}

Test(raster, boxes_outside_or_not_numbers_draw_nothing_outside)
{
	static const double odd[][5] = {
		{-10, -10, 5, 5, 2}, {50, 50, 5, 5, 2}, {-5, 2, 100, 3, 2}, {2, -1e300, 3, 2e300, 2},
		{1e300, 1, 1, 1, 0}, {NAN, 1, 2, 2, 0}, {1, 1, INFINITY, 2, 0}, {1, 1, -2, 2, 0},
		{1, 1, 2, 2, NAN}, {1, 1, 2, 2, -3}, {1, 1, 0, 0, 0}};
	af_canvas c;
	uint32_t *px = white(16, 8, &c);
	size_t i;
	int k;

	for (i = 0; i < sizeof odd / sizeof odd[0]; i++)
		af_canvas_box(&c, odd[i][0], odd[i][1], odd[i][2], odd[i][3], odd[i][4], 0, 0, 0);
	for (k = 0; k < 16; k++) { /* the guard rows */
		cr_assert_eq(px[k], 0xFFFFFFu);
		cr_assert_eq(px[16 * 9 + k], 0xFFFFFFu);
	}
	free(px);
}
