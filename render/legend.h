/*
 * legend.h - where the android palette's legend goes: one centred row under
 * the title that always fits the image's width, for the SVG and cairo
 * renderers alike.
 */
#ifndef AF_LEGEND_H
#define AF_LEGEND_H

#include <stddef.h>

#include "style.h"

typedef struct af_legend {
	double size;  /* font size of the labels, px */
	double box;   /* side of a colour square */
	double pad;   /* between a square and its label */
	double gap;   /* between two entries */
	int brief;    /* short labels ("libraries" for "java / kotlin / androidx") */
	double x;     /* left edge of the first square */
	size_t count; /* entries: the kinds the graph's frames are drawn in */
	size_t kind[32]; /* entry i is kind kind[i] of af_style_legend */
} af_legend;

/** Places the legend of `l` (the kinds its frames are drawn in, in the
 * palette's order) in its width: the full labels at the font size
 * when they fit, else closer together, else with short labels, else all of
 * it smaller.  The row is centred; it never runs past a margin. */
void af_legend_place(af_font *font, const af_layout *l, af_style *s, af_legend *g);

/** Entry `i` as placed: its label and colour. */
const char *af_legend_entry(const af_legend *g, size_t i, af_rgb *color);

#endif
