/*
 * layout.c - a call tree to rectangles, by flamegraph.pl's geometry: the
 * root ("all") at the bottom, children side by side above their parent in
 * the order of flamegraph.pl's sorted folded lines, widths proportional to
 * total time, frames narrower than min_width left out.
 *
 * flamegraph.pl sorts the folded lines and walks them, opening and closing
 * frames as consecutive lines share a prefix.  A frame's own line ("a;b 5")
 * sorts before its children's ("a;b;c 1": a space before ';'), so a frame's
 * own time comes first, then its children; and where another line sorts
 * between a frame's own line and its children's ("a;b-x", '-' before ';'),
 * the frame is drawn twice: its own time, then the sibling, then its
 * children under a second frame of the same name.  The walk here does the
 * same over the merged tree: each child of a frame gives up to two spans,
 * its own time (its line ends in a space) and its children's (its lines go
 * on with ';'), ranked as af_tree_ranks() orders them, and consecutive spans
 * of one node make one frame.  A trace is drawn as flamegraph.pl draws its
 * folded output.
 */
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "tree.h"

enum { AF_PART_SELF = 1, AF_PART_KIDS = 2 };

/* One span among a frame's children. */
/* Its time is copied from the tree when the spans are made, in the
 * tree's order: the walk then reads a frame's children from their group
 * alone, not from nodes all over the tree. */
typedef struct af_span {
	uint32_t node, rank;
	uint64_t weight; /* heaviest first when sorting by weight, else 0 */
	uint64_t value;  /* the time of its parts */
	uint8_t parts;   /* AF_PART_SELF, AF_PART_KIDS or both */
} af_span;

typedef struct af_pending {
	uint32_t node, depth;
	uint8_t parts;
	uint64_t start; /* time before this frame along the root */
	uint64_t value; /* its width in time */
} af_pending;

static int af_span_cmp(const void *a, const void *b)
{
	const af_span *x = a, *y = b;
	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Puts a parent's spans in order, keeping the order of equal ones as
 * glibc's qsort (a merge sort) does.  Most parents have a few children:
 * an insertion sort inline is several times cheaper there than a call
 * through qsort's generic copies.  `by_weight`: weights differ (else all
 * are 0, and the ranks alone order them). */
static void af_sort_spans(af_span *s, size_t n, int by_weight)
{
	size_t i, j;

	if (n > 16) {
		qsort(s, n, sizeof *s, af_span_cmp);
		return;
	}
	for (i = 1; i < n; i++) {
		af_span x = s[i];
		if (by_weight)
			for (j = i; j > 0 && af_span_cmp(&x, &s[j - 1]) < 0; j--)
				s[j] = s[j - 1];
		else
			for (j = i; j > 0 && x.rank < s[j - 1].rank; j--)
				s[j] = s[j - 1];
		s[j] = x;
	}
}

/* The public struct, the allocator its blocks came from, and what a
 * thumbnail of it needs: the options it was laid out with and the time
 * under which it left frames out. */
typedef struct af_layout_full {
	af_layout pub;
	af_mem *mem;
	af_layout_options opt;
	double min_time;
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

/* The time of the parts of `node` a span or frame holds. */
static uint64_t af_parts_value(const af_tree *tree, uint32_t node, unsigned parts,
                               af_clock clock)
{
	uint64_t self = af_tree_self(tree, node, clock);
	return (parts & AF_PART_SELF ? self : 0) +
	       (parts & AF_PART_KIDS ? af_tree_total(tree, node, clock) - self : 0);
}

/* Which spans node `i` gives among its parent's children: its own line
 * and its children's lines.  Folded input keeps a line whose count is 0
 * (it can still put itself between two parts of a sibling); a trace's
 * folded output has no such line, so a frame without time gives none. */
static unsigned af_node_parts(const af_tree *tree, const af_pnode *nodes, uint32_t i,
                              af_clock clock, int lines_of_zero)
{
	uint64_t self = af_tree_self(tree, i, clock);
	uint64_t kids = af_tree_total(tree, i, clock) - self;
	unsigned parts = 0;

	if (self > 0 || (lines_of_zero && nodes[i].lines))
		parts |= AF_PART_SELF;
	if (kids > 0 || (lines_of_zero && nodes[i].child != AF_NONE))
		parts |= AF_PART_KIDS;
	return parts;
}

/* Differential folded input: for each node, whether the first line
 * through its children, in flamegraph.pl's order, has two counts (a frame
 * opened by a line with one count has no change; see af_rect.changed).
 * `two` gets the same for the node itself.  Children come after their
 * parents, so one pass backwards sees every child first.  -1 when out of
 * memory. */
static int af_first_lines(const af_tree *tree, const af_pnode *nodes, size_t n,
                          af_clock clock, uint8_t *kids_two, uint8_t *two)
{
	af_mem *mem = af_tree_mem(tree);
	const uint32_t *rank = af_tree_ranks(tree);
	uint32_t *best = af_malloc(mem, (n ? n : 1) * sizeof *best);
	size_t i;

	if (!best)
		return -1;
	memset(best, 0xFF, n * sizeof *best);
	memset(kids_two, 0, n);
	for (i = n; i-- > 0;) {
		unsigned parts = i == 0 ? AF_PART_SELF | AF_PART_KIDS
		                        : af_node_parts(tree, nodes, (uint32_t)i, clock, 1);
		int self = (parts & AF_PART_SELF) != 0;
		uint32_t r, p;
		two[i] = self && nodes[i].lines ? (nodes[i].lines & AF_LINE_TWO) != 0
		                                : kids_two[i];
		if (i == 0)
			break;
		if (!parts)
			continue; /* no line goes through it (a path --reverse left empty) */
		p = nodes[i].parent;
		r = rank[nodes[i].key * 2 + !self];
		if (r < best[p] || best[p] == UINT32_MAX) {
			best[p] = r;
			kids_two[p] = two[i];
		}
	}
	af_free(mem, best);
	return 0;
}

/* A thumbnail's rows: as many levels as `height` holds at one pixel a
 * level at least, no taller than `frame_height`; deeper frames go. */
static void af_thumb_rows(af_layout *L, int height, double frame_height)
{
	double fh = (double)height / (L->max_depth + 1);
	size_t i, kept = 0;

	if (fh > frame_height)
		fh = frame_height;
	if (fh < 1)
		fh = 1;
	L->frame_height = fh;
	L->height = height;
	for (i = 0; i < L->nrects; i++) {
		af_rect r = L->rects[i];
		r.h = fh >= 3 ? fh - 1 : fh;
		r.y = L->inverted ? r.depth * fh : height - (r.depth + 1) * fh;
		if (r.y < 0 || r.y + r.h > height + 1e-9)
			continue;
		L->rects[kept++] = r;
	}
	L->nrects = kept;
}

static af_status af_layout_make(const af_tree *tree, const af_layout_options *opt,
                                af_layout **out, af_error *err)
{
	af_mem *mem = af_tree_mem(tree);
	af_layout_full *full;
	af_layout_options o = {0};
	const af_pnode *nodes = af_tree_nodes(tree);
	size_t n = af_tree_size(tree), i;
	size_t nspans = 0, top = 0, pcap = 0, rcap = 0;
	const uint32_t *rank = af_tree_ranks(tree);
	size_t *first = NULL;
	uint8_t *parts = NULL, *kids_two = NULL, *two = NULL;
	af_span *spans = NULL;
	af_pending *stack = NULL;
	af_layout *L = NULL;
	double wpt, ypad1, ypad2, min_time;
	uint64_t total;
	int flow, lines_of_zero, lines_two, differential, is_diff;
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
	/* flamegraph.pl's walk, unless the order is the recording's or weight */
	flow = !o.flamechart && !o.sort_weight;
	lines_of_zero = !af_tree_is_time(tree) && !af_tree_is_diff(tree);
	/* differential folded input: some frames may have no change */
	lines_two = af_tree_is_differential(tree) && !af_tree_is_diff(tree);
	is_diff = af_tree_is_diff(tree);
	differential = af_tree_is_differential(tree) || is_diff;

	full = af_calloc(mem, 1, sizeof *full);
	if (full) {
		full->mem = af_mem_ref(mem);
		L = &full->pub;
	}
	first = af_malloc(mem, (n + 1) * sizeof *first);
	parts = af_malloc(mem, n ? n : 1);
	if (!L || !first || !parts)
		goto nomem;
	L->title = af_strdup(mem, o.title);
	if (!L->title || (o.subtitle && !(L->subtitle = af_strdup(mem, o.subtitle))))
		goto nomem;

	/* children's spans grouped by parent (a counting sort); a group is put
	 * in order only when its parent is drawn, so hidden subtrees cost
	 * nothing */
	memset(first, 0, (n + 1) * sizeof *first);
	for (i = 1; i < n; i++) {
		unsigned p = flow ? af_node_parts(tree, nodes, (uint32_t)i, o.clock, lines_of_zero)
		                  : AF_PART_SELF | AF_PART_KIDS;
		parts[i] = (uint8_t)p;
		first[nodes[i].parent + 1] += !flow ? 1 : (p & AF_PART_SELF ? 1 : 0) +
		                                          (p & AF_PART_KIDS ? 1 : 0);
	}
	for (i = 0; i < n; i++)
		first[i + 1] += first[i];
	nspans = first[n];
	spans = af_malloc(mem, (nspans ? nspans : 1) * sizeof *spans);
	if (!spans)
		goto nomem;
	for (i = 1; i < n; i++) {
		uint32_t key = nodes[i].key;
		int band = i == af_tree_band(tree);
		unsigned k;
		for (k = AF_PART_SELF; k <= AF_PART_KIDS; k <<= 1) {
			af_span *s;
			if (flow && !(parts[i] & k))
				continue;
			if (!flow && k == AF_PART_KIDS)
				break;
			s = &spans[first[nodes[i].parent]++];
			s->node = (uint32_t)i;
			s->parts = flow ? (uint8_t)k : parts[i];
			s->weight = o.sort_weight ? af_tree_total(tree, (uint32_t)i, o.clock) : 0;
			s->value = af_parts_value(tree, (uint32_t)i, s->parts, o.clock);
			/* a diff's removed band comes after AFTER's threads */
			s->rank = o.flamechart ? (uint32_t)i
			          : band ? UINT32_MAX
			          : flow ? rank[key * 2 + (k == AF_PART_KIDS)]
			                 : rank[key * 2 + (af_tree_self(tree, (uint32_t)i, o.clock) == 0)];
		}
	}
	for (i = n; i > 0; i--) /* the fill moved each start to the next one's */
		first[i] = first[i - 1];
	first[0] = 0;
	if (lines_two) {
		kids_two = af_malloc(mem, n);
		two = af_malloc(mem, n);
		if (!kids_two || !two)
			goto nomem;
		if (af_first_lines(tree, nodes, n, o.clock, kids_two, two))
			goto nomem;
	}

	L->tree = tree;
	L->clock = o.clock;
	L->width = o.width;
	L->frame_height = o.frame_height;
	L->font_size = o.font_size;
	L->thumbnail = o.thumb_width > 0;
	L->xpad = L->thumbnail ? 0 : 10;
	L->inverted = o.inverted;
	L->factor = o.factor;
	/* --total: the root is that wide, and that is 100%.  It is a count;
	 * the tree's values may be of a finer unit (af_tree_decimals()) */
	if (o.total > 0) {
		uint64_t want = o.total;
		unsigned d;
		for (d = 0; d < af_tree_decimals(tree); d++) {
			if (want > UINT64_MAX / 10) {
				st = af_fail(err, AF_ERR_ARG, -1, "--total %llu is larger than 64 "
				             "bits hold with the input's %u decimals",
				             (unsigned long long)o.total, af_tree_decimals(tree));
				goto out;
			}
			want *= 10;
		}
		if (want > total)
			total = want;
	}
	L->total = total;
	wpt = (o.width - 2 * L->xpad) / (double)total;
	/* flamegraph.pl leaves out what is narrower than this, in time */
	min_time = o.min_width_pct > 0 ? (double)total * o.min_width_pct / 100
	                               : o.min_width / wpt;
	/* a profile with one count has no change to colour by */
	for (i = lines_two ? 0 : 1; differential && i < n; i++) {
		uint64_t a = af_tree_self(tree, (uint32_t)i, o.clock), b = nodes[i].base;
		uint64_t d = a > b ? a - b : b - a;
		if (lines_two && !(nodes[i].lines & AF_LINE_TWO))
			continue; /* flamegraph.pl: only lines with two counts */
		if (d > L->max_delta)
			L->max_delta = d;
	}
	if (lines_two) {
		/* flamegraph.pl's largest change starts at one count */
		uint64_t one = 1;
		unsigned d;
		for (d = 0; d < af_tree_decimals(tree); d++)
			one *= 10;
		if (L->max_delta < one)
			L->max_delta = one;
	}

	/* pre-order walk; an explicit stack keeps deep trees off the C stack */
	if (AF_GROW(mem, stack, pcap, 1))
		goto nomem;
	stack[top].node = 0;
	stack[top].depth = af_tree_depth(tree, 0);
	stack[top].parts = AF_PART_SELF | AF_PART_KIDS;
	stack[top].value = total;
	stack[top++].start = 0;
	while (top > 0) {
		af_pending p = stack[--top];
		uint64_t v = p.value, at;
		uint32_t depth = p.depth;
		size_t lo = first[p.node], k;
		af_rect *r;

		if (AF_GROW(mem, L->rects, rcap, L->nrects + 1))
			goto nomem;
		r = &L->rects[L->nrects++];
		/* x2 - x1 as flamegraph.pl computes them, so labels are cut alike */
		r->x = L->xpad + (double)p.start * wpt;
		r->w = (L->xpad + (double)(p.start + v) * wpt) - r->x;
		r->value = v;
		r->start = p.start;
		r->node = p.node;
		r->depth = depth;
		r->own = (p.parts & AF_PART_SELF) != 0;
		r->changed = is_diff ||
		             (lines_two && (r->own && nodes[p.node].lines
		                                    ? (nodes[p.node].lines & AF_LINE_TWO) != 0
		                                    : kids_two[p.node]));
		if (depth > L->max_depth)
			L->max_depth = depth;
		if (!(p.parts & AF_PART_KIDS) || first[p.node + 1] == lo)
			continue;
		/* push children last-first so the first in order is drawn first */
		af_sort_spans(spans + lo, first[p.node + 1] - lo, o.sort_weight);
		at = p.start + (p.node == 0 ? af_tree_total(tree, 0, o.clock) : v);
		for (k = first[p.node + 1]; k-- > lo;) {
			uint32_t c = spans[k].node;
			unsigned cp = spans[k].parts;
			uint64_t cv = spans[k].value, off;
			/* consecutive spans of one node are one frame */
			while (k > lo && spans[k - 1].node == c) {
				cp |= spans[--k].parts;
				cv += spans[k].value;
			}
			at -= cv;
			if (cv == 0 || (double)cv < min_time)
				continue;
			if (AF_GROW(mem, stack, pcap, top + 1))
				goto nomem;
			stack[top].node = c;
			stack[top].depth = depth + 1;
			stack[top].parts = (uint8_t)cp;
			stack[top].value = cv;
			/* a trace's flame chart puts a call where it began */
			stack[top++].start = af_tree_offset(tree, c, o.clock, &off)
			                             ? p.start + off : at;
		}
	}
	full->opt = o;
	full->opt.title = full->opt.subtitle = NULL; /* not kept: the layout's own */
	full->min_time = min_time;
	if (L->thumbnail) {
		af_thumb_rows(L, o.thumb_height, o.frame_height);
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
	af_free(mem, spans);
	af_free(mem, parts);
	af_free(mem, kids_two);
	af_free(mem, two);
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

af_status af_layout_thumbnail(const af_layout *layout, int width, int height,
                              af_layout **out, af_error *err)
{
	const af_layout_full *from = (const af_layout_full *)layout;
	af_mem *mem = af_layout_mem(layout);
	af_layout_options o = from->opt;
	af_layout_full *full;
	af_layout *L;
	double wpt, min_time;
	size_t i;

	*out = NULL;
	o.title = layout->title;
	o.thumb_width = width;
	o.thumb_height = height;
	if (width < 16 || height < 16 || width > 8192 || height > 8192)
		return af_layout_build(layout->tree, &o, out, err); /* says why */
	/* the frames a thumbnail keeps are those at least a pixel wide: among
	 * this layout's when it left out no wider one */
	wpt = width / (double)layout->total;
	min_time = 1 / wpt; /* as af_layout_make() computes them */
	if (layout->thumbnail || !(from->min_time <= min_time))
		return af_layout_build(layout->tree, &o, out, err);
	full = af_calloc(mem, 1, sizeof *full);
	if (!full)
		return af_mem_explain(mem, af_fail(err, AF_ERR_NOMEM, -1,
		                                   "out of memory laying out the graph"), err);
	full->mem = af_mem_ref(mem);
	full->opt = from->opt;
	full->min_time = min_time;
	L = &full->pub;
	*L = *layout;
	L->rects = NULL;
	L->nrects = 0;
	L->subtitle = NULL;
	L->legend = 0;
	L->legend_y = 0;
	L->top = 0;
	L->thumbnail = 1;
	L->xpad = 0;
	L->width = width;
	L->max_depth = 0;
	L->title = af_strdup(mem, layout->title);
	L->rects = af_malloc(mem, (layout->nrects ? layout->nrects : 1) * sizeof *L->rects);
	if (!L->title || !L->rects) {
		af_layout_free(L);
		return af_mem_explain(mem, af_fail(err, AF_ERR_NOMEM, -1,
		                                   "out of memory laying out the graph"), err);
	}
	for (i = 0; i < layout->nrects; i++) {
		af_rect r = layout->rects[i];
		if (r.node != 0 && (r.value == 0 || (double)r.value < min_time))
			continue; /* and so is everything above it */
		r.x = (double)r.start * wpt;
		r.w = (double)(r.start + r.value) * wpt - r.x;
		if (r.depth > L->max_depth)
			L->max_depth = r.depth;
		L->rects[L->nrects++] = r;
	}
	af_thumb_rows(L, height, from->opt.frame_height);
	*out = L;
	return AF_OK;
}
