/*
 * layout.c - a call tree to rectangles, by flamegraph.pl's geometry: the
 * root ("all") at the bottom, children side by side in alphabetical order
 * above their parent, widths proportional to total time, frames narrower
 * than min_width left out.
 */
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "tree.h"

typedef struct af_kid {
	uint32_t parent, rank, node;
	uint64_t weight; /* heaviest first when sorting by weight, else 0 */
} af_kid;

typedef struct af_pending {
	uint32_t node;
	uint64_t start; /* time before this frame along its parent, µs */
} af_pending;

static int af_kid_cmp(const void *a, const void *b)
{
	const af_kid *x = a, *y = b;
	if (x->parent != y->parent)
		return x->parent < y->parent ? -1 : 1;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The public struct, and the allocator its blocks came from. */
typedef struct af_layout_full {
	af_layout pub;
	af_mem *mem;
} af_layout_full;

af_mem *af_layout_mem(const af_layout *layout)
{
	return ((const af_layout_full *)layout)->mem;
}

void af_layout_free(af_layout *layout)
{
	af_mem *mem;

	if (!layout)
		return;
	mem = af_layout_mem(layout);
	af_free(mem, layout->rects);
	af_free(mem, layout->title);
	af_free(mem, layout->subtitle);
	af_free(mem, layout);
	af_mem_unref(mem);
}

static af_status af_layout_make(const af_tree *tree, const af_layout_options *opt,
                                af_layout **out, af_error *err)
{
	af_mem *mem = af_tree_mem(tree);
	af_layout_full *full;
	af_layout_options o = {0};
	const af_pnode *nodes = af_tree_nodes(tree);
	size_t n = af_tree_size(tree), i;
	size_t nkids = n - 1, top = 0, pcap = 0, rcap = 0;
	const uint32_t *rank = af_tree_ranks(tree);
	uint32_t *first = NULL;
	af_kid *kids = NULL;
	af_pending *stack = NULL;
	af_layout *L = NULL;
	double wpt, ypad1, ypad2, min_px;
	uint64_t total;
	af_status st = AF_OK;

	*out = NULL;
	if (opt)
		o = *opt;
	if ((unsigned)o.clock >= AF_CLOCK_COUNT)
		return af_fail(err, AF_ERR_ARG, -1, "unknown clock");
	if (o.thumb_width > 0 || o.thumb_height > 0) {
		if (o.thumb_width < 16 || o.thumb_height < 16 || o.thumb_width > 8192 ||
		    o.thumb_height > 8192)
			return af_fail(err, AF_ERR_ARG, -1,
			               "thumbnail size %dx%d out of range (16 to 8192 px a side)",
			               o.thumb_width, o.thumb_height);
		o.width = o.thumb_width;
		o.min_width = 1; /* a frame under a pixel merges into its parent */
		o.min_width_pct = 0;
		o.keep_narrow = 0;
		o.subtitle = NULL;
		o.legend = 0;
	}
	if (o.width == 0)
		o.width = 1200;
	if (o.frame_height == 0)
		o.frame_height = 16;
	if (o.font_size == 0)
		o.font_size = 12;
	if (o.keep_narrow) {
		o.min_width = 0;
		o.min_width_pct = 0;
	} else if (o.min_width == 0) {
		o.min_width = 0.1;
	}
	if (o.factor == 0)
		o.factor = 1;
	if (!o.title)
		o.title = o.inverted ? "Icicle Graph" : "Flame Graph";
	if (!(o.width >= (o.thumb_width ? 16 : 100) && o.width <= 1e6) ||
	    !(o.frame_height >= 2 && o.frame_height <= 1000) ||
	    !(o.font_size > 0 && o.font_size <= 1000) || !(o.min_width >= 0) ||
	    !(o.min_width_pct >= 0 && o.min_width_pct <= 100) || !(o.factor > 0))
		return af_fail(err, AF_ERR_ARG, -1, "image geometry out of range");
	total = af_tree_total(tree, 0, o.clock);
	if (total == 0)
		return af_fail(err, AF_ERR_EMPTY, -1, "no time recorded on the %s clock",
		               o.clock == AF_CLOCK_WALL ? "wall"
		               : o.clock == AF_CLOCK_CPU ? "thread-cpu" : "wait");

	full = af_calloc(mem, 1, sizeof *full);
	if (full) {
		full->mem = af_mem_ref(mem);
		L = &full->pub;
	}
	kids = af_malloc(mem, (nkids ? nkids : 1) * sizeof *kids);
	first = af_malloc(mem, (n + 1) * sizeof *first);
	if (!L || !kids || !first)
		goto nomem;
	L->title = af_strdup(mem, o.title);
	if (!L->title || (o.subtitle && !(L->subtitle = af_strdup(mem, o.subtitle))))
		goto nomem;

	/* children grouped by parent (a counting sort); a group is put in
	 * order only when its parent is drawn, so hidden subtrees cost nothing */
	memset(first, 0, (n + 1) * sizeof *first);
	for (i = 1; i < n; i++)
		first[nodes[i].parent + 1]++;
	for (i = 0; i < n; i++)
		first[i + 1] += first[i];
	for (i = 1; i < n; i++) {
		af_kid *k = &kids[first[nodes[i].parent]++];
		k->parent = nodes[i].parent;
		/* a diff's removed band comes after AFTER's threads */
		k->rank = o.flamechart ? (uint32_t)i
		          : i == af_tree_band(tree) ? UINT32_MAX
		          : rank[nodes[i].key * 2 + (af_tree_self(tree, (uint32_t)i, o.clock) == 0)];
		k->node = (uint32_t)i;
		k->weight = o.sort_weight ? af_tree_total(tree, (uint32_t)i, o.clock) : 0;
	}
	for (i = n; i > 0; i--) /* the fill moved each start to the next one's */
		first[i] = first[i - 1];
	first[0] = 0;

	L->tree = tree;
	L->clock = o.clock;
	L->width = o.width;
	L->frame_height = o.frame_height;
	L->font_size = o.font_size;
	L->thumbnail = o.thumb_width > 0;
	L->xpad = L->thumbnail ? 0 : 10;
	L->inverted = o.inverted;
	L->factor = o.factor;
	if (o.total > total)
		total = o.total;
	L->total = total;
	wpt = (o.width - 2 * L->xpad) / (double)total;
	min_px = o.min_width_pct > 0 ? o.min_width_pct / 100 * (o.width - 2 * L->xpad)
	                             : o.min_width;
	for (i = 1; i < n; i++) {
		uint64_t a = af_tree_self(tree, (uint32_t)i, o.clock), b = nodes[i].base;
		uint64_t d = a > b ? a - b : b - a;
		if (d > L->max_delta)
			L->max_delta = d;
	}

	/* pre-order walk; an explicit stack keeps deep trees off the C stack */
	if (AF_GROW(mem, stack, pcap, 1))
		goto nomem;
	stack[top].node = 0;
	stack[top++].start = 0;
	while (top > 0) {
		af_pending p = stack[--top];
		uint64_t t = af_tree_total(tree, p.node, o.clock), at;
		uint32_t k, depth = af_tree_depth(tree, p.node);
		af_rect *r;

		if (AF_GROW(mem, L->rects, rcap, L->nrects + 1))
			goto nomem;
		r = &L->rects[L->nrects++];
		r->x = L->xpad + (double)p.start * wpt;
		r->w = (double)t * wpt;
		r->node = p.node;
		r->depth = depth;
		if (depth > L->max_depth)
			L->max_depth = depth;
		/* push children last-first so the first by name is drawn first */
		if (first[p.node + 1] - first[p.node] > 1)
			qsort(kids + first[p.node], first[p.node + 1] - first[p.node],
			      sizeof *kids, af_kid_cmp);
		at = p.start + t - af_tree_self(tree, p.node, o.clock);
		for (k = first[p.node + 1]; k-- > first[p.node];) {
			uint32_t c = kids[k].node;
			uint64_t ct = af_tree_total(tree, c, o.clock), off;
			at -= ct;
			if ((double)ct * wpt < min_px || ct == 0)
				continue;
			if (AF_GROW(mem, stack, pcap, top + 1))
				goto nomem;
			stack[top].node = c;
			/* a trace's flame chart puts a call where it began */
			stack[top++].start = af_tree_offset(tree, c, o.clock, &off)
			                             ? p.start + off : at;
		}
	}
	if (L->thumbnail) {
		/* the deepest levels go when even a pixel a level cannot hold them */
		double fh = (double)o.thumb_height / (L->max_depth + 1);
		size_t kept = 0;
		if (fh > o.frame_height)
			fh = o.frame_height;
		if (fh < 1)
			fh = 1;
		L->frame_height = fh;
		L->height = o.thumb_height;
		for (i = 0; i < L->nrects; i++) {
			af_rect r = L->rects[i];
			r.h = fh >= 3 ? fh - 1 : fh;
			r.y = o.inverted ? r.depth * fh : o.thumb_height - (r.depth + 1) * fh;
			if (r.y < 0 || r.y + r.h > o.thumb_height + 1e-9)
				continue;
			L->rects[kept++] = r;
		}
		L->nrects = kept;
		*out = L;
		L = NULL;
		goto out;
	}
	/* flamegraph.pl's pads: the title above, the details line below, and
	 * two more font heights for a subtitle */
	ypad1 = o.font_size * 3 + (o.subtitle ? o.font_size * 2 : 0);
	L->legend = o.legend;
	L->legend_y = ypad1 + o.font_size;
	if (o.legend)
		ypad1 += o.font_size * 2;
	ypad2 = o.font_size * 2 + 10;
	L->height = (L->max_depth + 1) * o.frame_height + ypad1 + ypad2;
	L->top = ypad1;
	for (i = 0; i < L->nrects; i++) {
		af_rect *r = &L->rects[i];
		if (o.inverted)
			r->y = ypad1 + r->depth * o.frame_height;
		else
			r->y = L->height - ypad2 - (r->depth + 1) * o.frame_height + 1;
		r->h = o.frame_height - 1;
	}
	*out = L;
	L = NULL;
	goto out;
nomem:
	st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory laying out the graph");
out:
	af_layout_free(L);
	af_free(mem, kids);
	af_free(mem, first);
	af_free(mem, stack);
	return st;
}

af_status af_layout_build(const af_tree *tree, const af_layout_options *opt,
                          af_layout **out, af_error *err)
{
	return af_mem_explain(af_tree_mem(tree), af_layout_make(tree, opt, out, err),
	                      err);
}
