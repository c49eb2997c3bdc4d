/*
 * png.h - writes the pixels cairo drew (CAIRO_FORMAT_RGB24) as a PNG file.
 */
#ifndef AF_PNG_H
#define AF_PNG_H

#include <stdio.h>

#include "internal.h"

/** How hard af_png_write() compresses. */
typedef enum af_png_effort {
	AF_PNG_SMALL, /* zlib level 3: the images a user keeps, one at a time
	                 (a --thumbnail of its own among them) */
	AF_PNG_QUICK  /* deflate.h: repeats of the byte before only, which is
	                 what the bands of flat colour leave: a set's thumbnails
	                 (af_render_options.quick_png), 15 to 85% bigger in a
	                 third to a half of the time */
} af_png_effort;

/** Writes the `w` x `h` image at `pixels` (rows `stride` bytes apart, each
 * pixel a native 32-bit 0x00RRGGBB) to `out` as an 8-bit RGB PNG; working
 * memory from `mem`.  AF_ERR_IO when a write fails. */
af_status af_png_write(const unsigned char *pixels, int w, int h, int stride,
                       af_png_effort effort, af_mem *mem, FILE *out, af_error *err);

#endif
