/*
 * fuzz_pipeline.c - one input through the whole pipeline: parse (any
 * variant, detected from the bytes), call tree, layout, SVG and PNG in
 * memory, the call graph as DOT and the HTML profile, the record dump;
 * then the same bytes as a ProGuard/R8 mapping, and a view of the
 * trace with every rule (and that mapping, when it parses), its paths
 * reversed for some inputs.  Built as a libFuzzer target with -DAFLAME_FUZZ (one binary per
 * input surface, told apart by AF_FUZZ_PAIR), and linked into the replay
 * driver that runs under ctest in every build.
 *
 * AF_FUZZ_PAIR: the input is a legacy key + data pair: the bytes up to and
 * including the first "*end\n" go to base.key, the rest to base.data, and
 * the pair is opened by its base name.
 */
#define _DEFAULT_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aflame/aflame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static af_font *font;

/* dmtracedump's outputs of a tree: the call graph as DOT with every
 * method, and the HTML profile.  Graphviz's own layout is not run: it is
 * Graphviz's code, and slow. */
static void calls(const af_tree *tree, af_clock clock, FILE *sink)
{
	af_call_graph_options go = {.threshold = 0};
	af_call_graph *g = NULL;
	af_error e;
	af_status st;

	if (af_call_graph_build(tree, clock, &g, &e) != AF_OK)
		return;
	st = af_call_graph_write_dot(g, &go, sink, &e);
	if (st != AF_OK && st != AF_ERR_NOMEM)
		abort();
	st = af_profile_html_write(g, NULL, sink, &e);
	if (st != AF_OK && st != AF_ERR_NOMEM)
		abort();
	af_call_graph_free(g);
}

static void draw(const af_trace *t, af_clock clock)
{
	af_tree_options to = {0};
	af_layout_options lo = {.clock = clock, .width = 300};
	af_render_options ro = {0};
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_error e;
	FILE *sink = fopen("/dev/null", "w");

	if (!sink)
		return;
	ro.font = font;
	if (af_tree_from_trace(t, &to, &tree, &e) == AF_OK &&
	    af_layout_build(tree, &lo, &l, &e) == AF_OK) {
		if (af_svg_write(l, &ro, sink, &e) != AF_OK)
			abort(); /* writing to /dev/null cannot fail */
		af_layout_free(l);
		l = NULL;
		lo.thumb_width = 64;
		lo.thumb_height = 32;
		if (af_layout_build(tree, &lo, &l, &e) == AF_OK &&
		    af_cairo_write(l, AF_FORMAT_PNG, &ro, sink, &e) != AF_OK)
			abort();
		if (af_folded_write(tree, clock, sink, &e) != AF_OK)
			abort();
	}
	if (tree)
		calls(tree, clock, sink);
	af_layout_free(l);
	af_tree_free(tree);
	fclose(sink);
}

/* A view with every rule: focus, exclude, collapse, min share, names, and
 * the paths reversed or not. */
static void view(const af_trace *t, af_clock clock, const af_mapping *m, int reverse)
{
	af_tree_options to = {.focus = "[aeiou]", .exclude = "^(x|Thread)",
	                      .collapse_recursion = 1, .min_share = 0.01, .clock = clock,
	                      .strip_package = 1, .signatures = 1, .mapping = m,
	                      .reverse = reverse};
	af_tree *tree = NULL;
	af_error e;
	FILE *sink = fopen("/dev/null", "w");

	if (!sink)
		return;
	if (af_tree_from_trace(t, &to, &tree, &e) == AF_OK &&
	    af_folded_write(tree, clock, sink, &e) != AF_OK)
		abort();
	af_tree_free(tree);
	fclose(sink);
}

#ifdef AF_FUZZ_PAIR
/* Writes the two halves to files and opens them by base name. */
static af_status open_pair(const uint8_t *data, size_t size,
                           const af_parse_options *po, af_trace **t, af_error *e)
{
	char base[64], key[80], dat[80];
	const uint8_t *end = NULL;
	size_t cut, i;
	FILE *f;
	af_status st;

	for (i = 0; i + 5 <= size; i++)
		if (memcmp(data + i, "*end\n", 5) == 0) {
			end = data + i + 5;
			break;
		}
	cut = end ? (size_t)(end - data) : size;
	snprintf(base, sizeof base, "/tmp/af-fuzz-%d", (int)getpid());
	snprintf(key, sizeof key, "%s.key", base);
	snprintf(dat, sizeof dat, "%s.data", base);
	f = fopen(key, "wb");
	if (!f)
		return AF_ERR_IO;
	fwrite(data, 1, cut, f);
	fclose(f);
	f = fopen(dat, "wb");
	if (!f)
		return AF_ERR_IO;
	fwrite(data + cut, 1, size - cut, f);
	fclose(f);
	st = af_trace_open(base, po, t, e);
	unlink(key);
	unlink(dat);
	return st;
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* limits small enough that no input runs long or large: folded text
	 * repeats every path in full, so its size grows with depth squared */
	af_parse_options po = {.limits = {.max_depth = 256, .max_nodes = 100000,
	                                  .max_name_len = 1 << 16,
	                                  .max_input = 16u << 20}};
	af_trace *t = NULL;
	af_mapping *m = NULL;
	af_error e;
	af_status st;
	af_clock clocks[AF_CLOCK_COUNT];
	size_t nclocks = 0;
	int c;

	if (!font && af_font_open(NULL, &font, &e) != AF_OK)
		abort();
	e.message[0] = '\0';
	if (af_mapping_parse(data, size, &m, &e) != AF_OK && (m || e.message[0] == '\0'))
		abort();
	e.message[0] = '\0';
#ifdef AF_FUZZ_PAIR
	st = open_pair(data, size, &po, &t, &e);
#else
	st = af_trace_parse(data, size, &po, &t, &e);
#endif
	if (st != AF_OK) {
		if (t || e.message[0] == '\0')
			abort(); /* a failure always explains itself and returns nothing */
		af_mapping_free(m);
		return 0;
	}
#ifndef AF_FUZZ_PAIR
	/* the record dump (--dump) reads the same bytes again; folded stacks
	 * and the slices of systrace text and Perfetto traces have no records */
	if (af_trace_get_info(t)->variant != AF_VARIANT_FOLDED &&
	    af_trace_get_info(t)->variant != AF_VARIANT_SYSTRACE &&
	    af_trace_get_info(t)->variant != AF_VARIANT_PERFETTO) {
		FILE *sink = fopen("/dev/null", "w");
		if (sink) {
			if (af_trace_dump_buffer(data, size, &po, sink, &e) != AF_OK)
				abort(); /* the bytes parsed once already */
			fclose(sink);
		}
	}
#endif
	/* one clock the trace has, drawn, and the next one viewed: which, the
	 * input decides (its last byte), so every clock meets every path while
	 * each run does a third of the work of doing them all; its last but one
	 * byte, whether the view reverses the paths */
	for (c = 0; c < AF_CLOCK_COUNT; c++)
		if (af_trace_get_info(t)->has_clock[c])
			clocks[nclocks++] = (af_clock)c;
	if (nclocks > 0) {
		size_t pick = size ? data[size - 1] % nclocks : 0;
		draw(t, clocks[pick]);
		view(t, clocks[(pick + 1) % nclocks], m, size > 1 && (data[size - 2] & 1));
	}
	af_mapping_free(m);
	af_trace_free(t);
	return 0;
}
