/*
 * raster.c - rounded boxes straight into pixels (raster.h).
 */
#include <math.h>
#include <stddef.h>

#include "raster.h"

#define AF_CORNER_SAMPLES 4

/* `v` as an index from 0 to `n`. */
static int af_clamp(double v, int n)
{
	return v > 0 ? (v < n ? (int)v : n) : 0;
}

/* What of pixel column `px` the span [a, b) covers. */
static double af_span_cover(double a, double b, int px)
{
	double lo = a > px ? a : px, hi = b < px + 1 ? b : px + 1;
	return hi > lo ? hi - lo : 0;
}

/* Blends `k` (0 to 1) of the colour into the pixel. */
static void af_blend(uint32_t *p, uint32_t rgb, double k)
{
	uint32_t d = *p, out = 0;
	int shift;

	if (k >= 1) {
		*p = rgb;
		return;
	}
	for (shift = 0; shift <= 16; shift += 8) {
		double a = (d >> shift) & 0xFF, b = (rgb >> shift) & 0xFF;
		out |= (uint32_t)(a + (b - a) * k + 0.5) << shift;
	}
	*p = out;
}

/* What of pixel `px` the row's spans cover (see af_row). */
static double af_row_cover(double x, double w, const double *inset, int n, int px)
{
	double cover = 0;
	int i;

	for (i = 0; i < n; i++)
		cover += af_span_cover(x + inset[i], x + w - inset[i], px);
	return cover;
}

/* Pixels of a row of the box from `x` to `x + w`, where its spans lie: from
 * `px`, in part up to `in`, whole up to `out`, in part again up to `end`. */
typedef struct af_cols {
	int px, in, out, end;
} af_cols;

static af_cols af_row_cols(const af_canvas *c, double x, double w, double most)
{
	af_cols k = {af_clamp(floor(x), c->width), af_clamp(ceil(x + most), c->width),
	             af_clamp(floor(x + w - most), c->width), af_clamp(ceil(x + w), c->width)};
	return k;
}

/* The pixels every span covers whole, [from, k->out), take `share` of the
 * colour; under them lie runs of one colour (the background, a frame
 * below), each blended once. */
static void af_row_inside(uint32_t *row, int from, const af_cols *k, double share,
                          uint32_t rgb)
{
	uint32_t under = 0, blended = 0;
	int px;

	if (share >= 1) { /* most rows: a plain fill, a vector at a time */
		for (px = from; px < k->out; px++)
			row[px] = rgb;
		return;
	}
	for (px = from; px < k->out; px++) {
		if (px > k->in && row[px] == under) {
			row[px] = blended;
		} else {
			under = row[px];
			af_blend(&row[px], rgb, share);
			blended = row[px];
		}
	}
}

/* Row `py` of the box from `x` to `x + w`: at each of `n` heights the part
 * from `x + inset[i]` to `x + w - inset[i]` is in, `share` of the row's
 * height for each. */
static void af_row(af_canvas *c, int py, double x, double w, const double *inset, int n,
                   double share, uint32_t rgb)
{
	uint32_t *row = (uint32_t *)(void *)(c->pixels + (size_t)py * c->stride);
	double most = 0, cover;
	af_cols k;
	int px, i;

	for (i = 0; i < n; i++)
		if (inset[i] > most)
			most = inset[i];
	k = af_row_cols(c, x, w, most);
	for (px = k.px; px < k.end && px < k.in; px++)
		if ((cover = af_row_cover(x, w, inset, n, px)) > 0)
			af_blend(&row[px], rgb, cover * share);
	af_row_inside(row, px, &k, n * share, rgb);
	for (px = px > k.out ? px : k.out; px < k.end; px++)
		if ((cover = af_row_cover(x, w, inset, n, px)) > 0)
			af_blend(&row[px], rgb, cover * share);
}

/* The rows of a box with straight sides share their columns: the pixels
 * cut by the sides (at most one each) are covered alike in every row. */
typedef struct af_sides {
	af_cols k;
	int left, right;         /* the pixels cut, or -1 */
	double lcover, rcover;   /* and what of them the box covers */
} af_sides;

static af_sides af_box_sides(const af_canvas *c, double x, double w)
{
	static const double none[1] = {0};
	af_sides s;

	s.k = af_row_cols(c, x, w, 0);
	s.left = s.k.px < s.k.end && s.k.px < s.k.in ? s.k.px : -1;
	s.lcover = s.left >= 0 ? af_row_cover(x, w, none, 1, s.left) : 0;
	s.right = -1;
	s.rcover = 0;
	{
		int from = s.left >= 0 ? s.left + 1 : s.k.px;
		int px = from > s.k.out ? from : s.k.out;
		if (px < s.k.end) {
			s.right = px;
			s.rcover = af_row_cover(x, w, none, 1, px);
		}
	}
	return s;
}

/* A row of straight sides, `share` of it covered: as af_row() with no
 * inset. */
static void af_row_straight(af_canvas *c, int py, const af_sides *s, double share,
                            uint32_t rgb)
{
	uint32_t *row = (uint32_t *)(void *)(c->pixels + (size_t)py * c->stride);

	if (s->left >= 0 && s->lcover > 0)
		af_blend(&row[s->left], rgb, s->lcover * share);
	af_row_inside(row, s->left >= 0 ? s->left + 1 : s->k.px, &s->k, share, rgb);
	if (s->right >= 0 && s->rcover > 0)
		af_blend(&row[s->right], rgb, s->rcover * share);
}

/* How far in from the side a corner of radius `r` starts at `dy` from the
 * box's top or bottom (0 past the corner). */
static double af_corner_inset(double r, double dy)
{
	double t = r - dy;
	return dy >= r ? 0 : r - sqrt(r * r - t * t);
}

void af_canvas_box(af_canvas *c, double x, double y, double w, double h, double r,
                   uint8_t red, uint8_t green, uint8_t blue)
{
	uint32_t rgb = (uint32_t)red << 16 | (uint32_t)green << 8 | blue;
	double bottom = y + h;
	int py = af_clamp(floor(y), c->height), end = af_clamp(ceil(bottom), c->height);
	af_sides sides;

	if (!(w > 0 && h > 0 && isfinite(x) && isfinite(y) && isfinite(w) && isfinite(h)))
		return;
	if (!(r <= w / 2))
		r = w / 2;
	if (r > h / 2)
		r = h / 2;
	sides = af_box_sides(c, x, w);
	for (; py < end; py++) {
		double top = y > py ? y : py, low = bottom < py + 1 ? bottom : py + 1;
		double inset[AF_CORNER_SAMPLES] = {0};
		int s, n = 0;

		if (!(r > 0) || (top >= y + r && low <= bottom - r)) {
			/* straight sides: the exact area */
			af_row_straight(c, py, &sides, low - top, rgb);
			continue;
		}
		/* a corner's rows: the span at a few heights */
		for (s = 0; s < AF_CORNER_SAMPLES; s++) {
			double sy = py + (s + 0.5) / AF_CORNER_SAMPLES;
			if (sy >= y && sy < bottom)
				inset[n++] = af_corner_inset(r, sy - y < bottom - sy ? sy - y
				                                                     : bottom - sy);
		}
		af_row(c, py, x, w, inset, n, 1.0 / AF_CORNER_SAMPLES, rgb);
	}
}
