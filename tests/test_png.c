/*
 * test_png.c - render/png.c: what it writes decodes (with libpng, through
 * cairo) to exactly the pixels it was given, at every width, for flat bands,
 * text and noise alike, and a failed write says so.
 */
#include <cairo.h>
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png.h"
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

static void round_trip(int w, int h)
{
	cairo_surface_t *s = picture(w, h, (unsigned)(w * 31 + h)), *back;
	af_mem *mem = af_mem_new(NULL, 1u << 30);
	af_error e = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	int y, stride = cairo_image_surface_get_stride(s);

	cr_assert(mem && f);
	cr_assert_eq(af_png_write(cairo_image_surface_get_data(s), w, h, stride, mem, f, &e),
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

	for (i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		round_trip(sizes[i][0], sizes[i][1]);
}

/* Compressed data over several IDAT chunks (64 KiB each). */
Test(png, spans_many_chunks)
{
	round_trip(2000, 700);
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
	                          cairo_image_surface_get_stride(s), mem, f, &e),
	             AF_ERR_IO);
	cr_assert_str_eq(e.message, "write failed");
	fclose(f);
	cairo_surface_destroy(s);
	af_mem_unref(mem);
}
