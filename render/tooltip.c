/*
 * tooltip.c - a frame's tooltip: its name, value, share of the graph and
 * calls, and for differential input or a diff its change (style.h).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "layout.h"
#include "style.h"
#include "tree.h"

/* 1234567 -> "1,234,567", as flamegraph.pl prints counts. */
static void af_grouped(char *out, size_t n, double v)
{
	char digits[32];
	int len, i, o = 0;

	len = snprintf(digits, sizeof digits, "%.0f", v);
	for (i = 0; i < len && (size_t)o + 2 < n; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
}

/* The same for a whole count, exactly. */
static void af_grouped_exact(char *out, size_t n, uint64_t v)
{
	char digits[32];
	int len, i, o = 0;

	len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
	for (i = 0; i < len && (size_t)o + 2 < n; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
}

/* A count's value in the tree's unit, as a count (see af_tree_decimals()). */
static double af_counts(const af_style *s, double v)
{
	unsigned d;
	for (d = af_tree_decimals(s->layout->tree); d > 0; d--)
		v /= 10;
	return v;
}

const char *af_style_countname(const af_layout *l, const af_render_options *opt)
{
	const char *u = af_tree_unit(l->tree);

	if (opt->countname)
		return opt->countname;
	return u && *u && strcmp(u, "count") != 0 ? u : "samples";
}

const char *af_style_unit(const af_layout *l, const af_render_options *opt)
{
	const char *u = af_tree_unit(l->tree);

	if (!u || opt->countname)
		return "";
	return strcmp(u, "bytes") == 0 ? "bytes" : strcmp(u, "nanoseconds") == 0 ? "ns" : "";
}

/* "512 B", "1.50 KiB", "12.3 MiB", "734 GiB". */
static void af_style_bytes(char *t, size_t n, double v)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	int k = 0;

	if (v < 1023.5) {
		snprintf(t, n, "%.0f B", v);
		return;
	}
	while (v >= 1024 && k < 6) {
		v /= 1024;
		k++;
	}
	snprintf(t, n, v < 10 ? "%.2f %s" : v < 100 ? "%.1f %s" : "%.0f %s", v, units[k]);
}

/* A value in the unit its input names (af_style_unit): bytes as KiB and
 * MiB, nanoseconds as a time.  0 when the unit is none of those. */
static int af_style_unit_value(const af_layout *l, const af_render_options *opt, char *t,
                               size_t n, double value)
{
	const char *u = af_style_unit(l, opt);

	if (strcmp(u, "bytes") == 0) {
		af_style_bytes(t, n, value);
		return 1;
	}
	if (strcmp(u, "ns") == 0) {
		/* "850 ns", "1.50 µs", "12.3 µs", then as af_style_time */
		double us = value / 1000;
		if (value < 999.5)
			snprintf(t, n, "%.0f ns", value);
		else if (us < 999.5)
			snprintf(t, n, us < 10 ? "%.2f \xC2\xB5s" : us < 100 ? "%.1f \xC2\xB5s"
			                                                      : "%.0f \xC2\xB5s", us);
		else
			af_style_time(t, n, (uint64_t)(us + 0.5));
		return 1;
	}
	return 0;
}

/* A value of the graph: a time, an amount in the input's unit, or a count
 * with its unit. */
static void af_style_value(af_style *s, char *t, size_t n, double value)
{
	value = af_counts(s, value);
	if (af_tree_is_time(s->layout->tree) && !s->opt->countname) {
		af_style_time(t, n, (uint64_t)(value + 0.5));
	} else if (af_style_unit_value(s->layout, s->opt, t, n, value)) {
		/* written */
	} else {
		unsigned d = af_tree_decimals(s->layout->tree);
		size_t k;
		af_grouped(t, n - 1, d ? floor(value) : value);
		k = strlen(t);
		if (d) { /* counts with decimals: as many as the input has */
			char frac[32];
			int m = snprintf(frac, sizeof frac, "%.*f", (int)d, value - floor(value));
			while (m > 0 && frac[m - 1] == '0')
				frac[--m] = '\0';
			if (m > 2 && frac[0] == '0' && frac[1] == '.')
				snprintf(t + k, n - k, "%s", frac + 1);
			k = strlen(t);
		}
		snprintf(t + k, n - k, " %s", af_style_countname(s->layout, s->opt));
	}
}

/* "12.3 ms → 15.0 ms (+2.7 ms, +22%)": both values, the change, and the
 * change as a share of BEFORE ("new" when BEFORE had none). */
static int af_change(af_style *s, af_buf *b, uint64_t before, uint64_t after)
{
	double f = s->layout->factor;
	uint64_t d = after > before ? after - before : before - after;
	char x[64], y[64], z[64];
	int bad;

	af_style_value(s, x, sizeof x, (double)before * f);
	af_style_value(s, y, sizeof y, (double)after * f);
	af_style_value(s, z, sizeof z, (double)d * f);
	bad = af_buf_printf(b, "%s \xE2\x86\x92 %s (%s%s, ", x, y, after < before ? "-" : "+", z);
	if (before == 0) {
		bad |= af_buf_printf(b, "%s)", after ? "new" : "+0%");
	} else {
		double p = 100.0 * ((double)after - (double)before) / (double)before;
		bad |= af_buf_printf(b, p <= -10 || p >= 10 ? "%+.0f%%)" : "%+.1f%%)", p);
	}
	return bad;
}

void af_style_diff_values(const af_style *s, const af_rect *r, const af_node_info *ni,
                          uint64_t v[4])
{
	const af_layout *l = s->layout;
	af_clock c = l->clock;

	v[0] = ni->base_total;
	v[1] = ni->total[c];
	v[2] = ni->base_self;
	v[3] = ni->self[c];
	if (ni->removed) { /* the band holds BEFORE's time */
		v[0] = v[1];
		v[1] = 0;
		v[2] = v[3];
		v[3] = 0;
	} else if (r->node == 0 && af_tree_band(l->tree) != AF_NONE) {
		v[1] -= af_tree_total(l->tree, af_tree_band(l->tree), c);
	}
}

/* ", 1 call", ", 20,933 calls" */
static int af_calls(af_buf *b, uint64_t calls)
{
	char n[32];

	af_grouped(n, sizeof n, (double)calls);
	return af_buf_printf(b, ", %s call%s", n, calls == 1 ? "" : "s");
}

/* The frame's name as tooltips begin: with its library for a native
 * frame ("art::Thread::Run() in libart.so"). */
static int af_tip_name(af_buf *b, const af_node_info *ni)
{
	int bad = af_buf_append(b, ni->name, af_style_shown(ni->name, strlen(ni->name)));
	if (ni->library)
		bad |= af_buf_printf(b, " in %s", ni->library);
	return bad;
}

/* A diff's tooltip: the frame, its share of the graph and calls in AFTER,
 * then total and self time BEFORE -> AFTER. */
static int af_diff_tooltip(af_style *s, af_buf *b, const af_rect *r,
                           const af_node_info *ni)
{
	const af_layout *l = s->layout;
	uint64_t v[4];
	/* a frame drawn twice (see af_layout_build) shows the part it holds,
	 * then the whole frame's change */
	double pct = l->total ? 100.0 * (double)r->value / (double)l->total : 0;
	char t[64];
	int bad;

	af_style_diff_values(s, r, ni, v);
	af_style_value(s, t, sizeof t, (double)r->value * l->factor);
	bad = af_tip_name(b, ni);
	bad |= af_buf_printf(b, " (%s, %.2f%%", t, pct);
	if (ni->calls)
		bad |= af_calls(b, ni->calls);
	bad |= af_buf_append(b, "): ", 3);
	bad |= af_change(s, b, v[0], v[1]);
	if (v[2] || v[3]) {
		bad |= af_buf_append(b, "; self ", 7);
		bad |= af_change(s, b, v[2], v[3]);
	}
	return bad;
}

int af_style_tooltip(af_style *s, af_buf *b, const af_rect *r)
{
	const af_layout *l = s->layout;
	const af_render_options *opt = s->opt;
	af_node_info ni;
	char t[64];
	double pct, value;
	int bad;

	af_tree_node(l->tree, r->node, &ni);
	if (af_tree_is_diff(l->tree))
		return af_diff_tooltip(s, b, r, &ni);
	/* a frame drawn twice (see af_layout_build) shows the part it holds */
	value = af_counts(s, (double)r->value) * l->factor;
	pct = l->total ? 100.0 * (double)r->value / (double)l->total : 0;
	if (af_tree_is_time(l->tree) && !opt->countname) {
		af_style_time(t, sizeof t, (uint64_t)(value + 0.5));
	} else if (af_style_unit_value(l, opt, t, sizeof t, value)) {
		/* written */
	} else {
		size_t k;
		if (l->factor == 1 && !af_tree_decimals(l->tree))
			af_grouped_exact(t, sizeof t - 1, r->value); /* past 2^53 too */
		else
			af_grouped(t, sizeof t - 1, value);
		k = strlen(t);
		snprintf(t + k, sizeof t - k, " %s", af_style_countname(l, opt));
		/* flamegraph.pl's share is of the count as shown, rounded
		 * (--factor, fractional counts); the root is the whole */
		if (r->node != 0 && l->total)
			pct = 100.0 * rint(value) / (af_counts(s, (double)l->total) * l->factor);
	}
	bad = af_tip_name(b, &ni);
	bad |= af_buf_printf(b, " (%s, %.2f%%", t, pct);
	if (ni.calls)
		bad |= af_calls(b, ni.calls);
	if (s->differential && r->changed && r->node != 0) {
		/* flamegraph.pl's: of the total times the factor, "+" only when
		 * it grew */
		double d = af_style_change(s, &ni, r);
		d = l->total ? 100 * af_counts(s, d) / (af_counts(s, (double)l->total) * l->factor)
		             : 0;
		bad |= af_buf_printf(b, d > 0 ? "; +%.2f%%" : "; %.2f%%", d);
	}
	bad |= af_buf_append(b, ")", 1);
	return bad;
}
