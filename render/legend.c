/*
 * legend.c - see legend.h.
 */
#include <string.h>

#include "layout.h"
#include "legend.h"

/* Shorter names for the longest labels, to fit narrow images. */
static const char *af_legend_brief(const char *label)
{
	static const char *const brief[][2] = {
		{"java / kotlin / androidx", "libraries"},
	};
	size_t i;

	for (i = 0; i < sizeof brief / sizeof brief[0]; i++)
		if (strcmp(label, brief[i][0]) == 0)
			return brief[i][1];
	return label;
}

const char *af_legend_entry(const af_legend *g, size_t i, af_rgb *color)
{
	const char *label = NULL;

	af_style_legend(g->kind[i], &label, color);
	return g->brief ? af_legend_brief(label) : label;
}

/* Width of the whole row as `g` has it. */
static double af_legend_width(af_font *font, const af_legend *g)
{
	double w = 0;
	size_t i;

	for (i = 0; i < g->count; i++) {
		af_rgb c;
		const char *label = af_legend_entry(g, i, &c);
		w += g->box + g->pad + af_font_text_width(font, label, strlen(label), g->size) +
		     (i + 1 < g->count ? g->gap : 0);
	}
	return w;
}

void af_legend_place(af_font *font, const af_layout *l, af_style *s, af_legend *g)
{
	double fs = l->font_size, avail = l->width - 2 * l->xpad, w;
	af_rgb c;
	const char *label = NULL;
	size_t i, n = af_style_legend(0, &label, &c);
	unsigned kinds = af_style_kinds(s);

	g->count = 0;
	for (i = 0; i < n && i < sizeof g->kind / sizeof g->kind[0]; i++)
		if (kinds & (1u << i))
			g->kind[g->count++] = i;
	g->size = fs;
	g->box = fs * 0.8;
	g->pad = fs / 3;
	g->gap = fs * 1.5;
	g->brief = 0;
	w = af_legend_width(font, g);
	if (w > avail) {
		g->gap = fs * 0.8;
		w = af_legend_width(font, g);
	}
	if (w > avail) {
		g->brief = 1;
		w = af_legend_width(font, g);
	}
	if (w > avail && avail > 0) {
		/* everything scales with the size: the row is then exactly `avail` */
		double k = avail / w;
		g->size *= k;
		g->box *= k;
		g->pad *= k;
		g->gap *= k;
		w = avail;
	}
	g->x = l->width / 2 - w / 2;
}
