/*
 * raster.h - frames drawn straight into an image's pixels: a flame graph
 * is thousands of small boxes with rounded corners, and cairo's general
 * path filler costs a polygon's tessellation for each.
 */
#ifndef AF_RASTER_H
#define AF_RASTER_H

#include <stdint.h>

/* 32-bit xRGB pixels (cairo's RGB24), `stride` bytes a row. */
typedef struct af_canvas {
	unsigned char *pixels;
	int width, height, stride;
} af_canvas;

/** Fills the box (x, y, w, h), in pixels, its corners rounded to radius
 * `r`, with the colour (red, green, blue) over what is there: each pixel
 * covered in part takes the colour in the part's proportion (the area,
 * exact along straight edges, sampled 4 times a row along a corner). */
void af_canvas_box(af_canvas *c, double x, double y, double w, double h, double r,
                   uint8_t red, uint8_t green, uint8_t blue);

#endif
