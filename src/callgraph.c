/*
 * callgraph.c - the call graph of a named call tree: one method per frame
 * name, valued as the method table (methods.c) values it, and an edge per
 * caller and callee with its calls and inclusive time: dmtracedump's -g
 * graph and Traceview's profile panel (a method's parents and children).
 *
 * One walk of the tree with an explicit stack keeps, per name, how many
 * frames of that name are on the path.  A frame under one of its own name
 * is a recursive call: it counts as such, and its time is left to the
 * outermost activation, which holds it already.  Each frame gives one
 * (caller, callee) pair; sorting the pairs merges them into edges.  The
 * tree's nodes are distinct call paths, so memory grows with them, never
 * with records.
 */
#include <stdlib.h>
#include <string.h>

#include "callgraph.h"
#include "methods.h"
#include "tree.h"

/* One frame's call of its method, then, merged, one edge.  Callers and
 * callees are name ids while walking, row indices after; the root is
 * AF_NONE, then nrows (so it sorts last). */
typedef struct af_pair {
	uint32_t caller, callee;
	uint64_t calls, recursive_calls, inclusive, outer_calls;
} af_pair;

typedef struct af_visit {
	uint32_t node;
	int leave; /* 1: the node's subtree is done */
} af_visit;

/* A row with its name id, to sort rows and keep where each name went. */
typedef struct af_ranked {
	af_method_row row; /* first: af_method_row_cmp() sees a row */
	uint32_t id;
} af_ranked;

/* An edge with its index, to order the callers of each method. */
typedef struct af_indexed {
	af_call_edge e;
	uint32_t index;
} af_indexed;

static int af_pair_cmp(const void *a, const void *b)
{
	const af_pair *x = a, *y = b;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	return (x->callee > y->callee) - (x->callee < y->callee);
}

/* Heaviest first: inclusive time, calls, recursive calls (descending). */
static int af_weight_cmp(const af_call_edge *x, const af_call_edge *y)
{
	if (x->inclusive != y->inclusive)
		return x->inclusive > y->inclusive ? -1 : 1;
	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	if (x->recursive_calls != y->recursive_calls)
		return x->recursive_calls > y->recursive_calls ? -1 : 1;
	return 0;
}

/* Edges by caller (the root, AF_CALL_ROOT, last), then weight, then callee. */
static int af_out_cmp(const void *a, const void *b)
{
	const af_call_edge *x = a, *y = b;
	int c;

	if (x->caller != y->caller)
		return x->caller < y->caller ? -1 : 1;
	if ((c = af_weight_cmp(x, y)) != 0)
		return c;
	return (x->callee > y->callee) - (x->callee < y->callee);
}

/* Edges by callee, then weight, then caller (the root last). */
static int af_in_cmp(const void *a, const void *b)
{
	const af_indexed *x = a, *y = b;
	int c;

	if (x->e.callee != y->e.callee)
		return x->e.callee < y->e.callee ? -1 : 1;
	if ((c = af_weight_cmp(&x->e, &y->e)) != 0)
		return c;
	return (x->e.caller > y->e.caller) - (x->e.caller < y->e.caller);
}

static int af_ranked_cmp(const void *a, const void *b)
{
	return af_method_row_cmp(a, b);
}

void af_call_graph_free(af_call_graph *graph)
{
	af_cgraph *g = (af_cgraph *)graph;
	af_mem *mem;

	if (!g)
		return;
	mem = g->mem;
	af_free(mem, g->pub.methods.rows);
	af_free(mem, g->pub.edges);
	af_free(mem, g->pub.calls_from);
	af_free(mem, g->pub.callers);
	af_free(mem, g->pub.callers_of);
	af_free(mem, g);
	af_mem_unref(mem);
}

/* The walk: per name id, its row's values in `acc`; one pair per method
 * frame in `pairs` (*npairs of them). */
static int af_cgraph_walk(const af_tree *tree, af_clock clock, af_method_row *acc,
                          af_pair *pairs, size_t *npairs)
{
	const af_pnode *nodes = af_tree_nodes(tree);
	af_mem *mem = tree->mem;
	uint32_t *active =
	    af_calloc(mem, AF_MAX(af_tree_name_count(tree), 1u), sizeof *active);
	af_visit *stack = NULL;
	size_t depth = 0, cap = 0, np = 0;
	/* a trace's tree has its threads under the root; they are not methods */
	int threads = tree->is_time && !tree->not_threads;
	uint32_t k;
	int failed = 1;

	if (!active)
		return -1;
	for (k = nodes[0].child; k != AF_NONE; k = nodes[k].sibling) {
		if (AF_GROW(mem, stack, cap, depth + 1))
			goto out;
		stack[depth].node = k;
		stack[depth++].leave = 0;
	}
	while (depth) {
		af_visit v = stack[--depth];
		const af_pnode *n = &nodes[v.node];
		uint32_t p = n->parent;
		af_method_row *row = &acc[n->key];
		af_pair *pair;

		if (v.leave) {
			active[n->key]--;
			continue;
		}
		if (!(threads && p == 0)) {
			pair = &pairs[np++];
			/* called by the root, a thread, or a frame */
			pair->caller = p == 0 || (threads && nodes[p].parent == 0)
			                   ? AF_NONE
			                   : nodes[p].key;
			pair->callee = n->key;
			if (active[n->key]) {
				row->recursive_calls += n->calls;
				pair->calls = pair->inclusive = 0;
				pair->recursive_calls = n->calls;
			} else {
				row->calls += n->calls;
				row->inclusive += af_tree_total(tree, v.node, clock);
				pair->calls = n->calls;
				pair->recursive_calls = 0;
				pair->inclusive = af_tree_total(tree, v.node, clock);
			}
			/* the caller is one of the active frames of its name */
			pair->outer_calls =
			    pair->caller == AF_NONE || active[pair->caller] == 1
			        ? n->calls
			        : 0;
			row->exclusive += af_tree_self(tree, v.node, clock);
			active[n->key]++;
			if (AF_GROW(mem, stack, cap, depth + 1))
				goto out;
			stack[depth].node = v.node;
			stack[depth++].leave = 1;
		}
		for (k = n->child; k != AF_NONE; k = nodes[k].sibling) {
			if (AF_GROW(mem, stack, cap, depth + 1))
				goto out;
			stack[depth].node = k;
			stack[depth++].leave = 0;
		}
	}
	failed = 0;
out:
	*npairs = np;
	af_free(mem, active);
	af_free(mem, stack);
	return failed ? -1 : 0;
}

/* Rows from the values per name: those with calls or time, in the table's
 * order; rowof[id] is each name's row (AF_NONE: none).  -1 when out of
 * memory. */
static int af_cgraph_rows(af_cgraph *g, const af_tree *tree, const af_method_row *acc,
                          uint32_t nn, uint32_t *rowof)
{
	af_ranked *ranked = af_malloc(g->mem, AF_MAX(nn, 1u) * sizeof *ranked);
	af_method_table *t = &g->pub.methods;
	size_t kept = 0, i;

	if (!ranked)
		return -1;
	for (i = 0; i < nn; i++) {
		const af_method_row *r = &acc[i];
		rowof[i] = AF_NONE;
		if (!r->calls && !r->recursive_calls && !r->inclusive && !r->exclusive)
			continue;
		ranked[kept].row = *r;
		ranked[kept].row.name = af_tree_name_by_id(tree, (uint32_t)i);
		ranked[kept].row.library = af_tree_lib(tree, (uint32_t)i);
		ranked[kept++].id = (uint32_t)i;
	}
	qsort(ranked, kept, sizeof *ranked, af_ranked_cmp);
	t->rows = af_malloc(g->mem, AF_MAX(kept, 1u) * sizeof *t->rows);
	if (!t->rows) {
		af_free(g->mem, ranked);
		return -1;
	}
	for (i = 0; i < kept; i++) {
		t->rows[i] = ranked[i].row;
		rowof[ranked[i].id] = (uint32_t)i;
	}
	t->nrows = kept;
	af_free(g->mem, ranked);
	return 0;
}

/* Pairs to edges: merged by (caller, callee), then ordered both ways.
 * -1 when out of memory. */
static int af_cgraph_edges(af_cgraph *g, af_pair *pairs, size_t np, const uint32_t *rowof)
{
	af_call_graph *pub = &g->pub;
	size_t nrows = pub->methods.nrows, n = 0, i;
	af_indexed *in;

	/* to rows; a pair naming a method without calls or time has neither */
	for (i = 0; i < np; i++) {
		af_pair p = pairs[i];
		uint32_t caller = p.caller == AF_NONE ? (uint32_t)nrows : rowof[p.caller];
		if (caller == AF_NONE || rowof[p.callee] == AF_NONE)
			continue;
		p.caller = caller;
		p.callee = rowof[p.callee];
		pairs[n++] = p;
	}
	qsort(pairs, n, sizeof *pairs, af_pair_cmp);
	pub->edges = af_malloc(g->mem, AF_MAX(n, 1u) * sizeof *pub->edges);
	pub->calls_from = af_calloc(g->mem, nrows + 2, sizeof *pub->calls_from);
	pub->callers_of = af_calloc(g->mem, nrows + 1, sizeof *pub->callers_of);
	pub->callers = af_malloc(g->mem, AF_MAX(n, 1u) * sizeof *pub->callers);
	in = af_malloc(g->mem, AF_MAX(n, 1u) * sizeof *in);
	if (!pub->edges || !pub->calls_from || !pub->callers_of || !pub->callers || !in) {
		af_free(g->mem, in);
		return -1;
	}
	for (i = 0; i < n; i++) {
		af_call_edge *e;
		if (pub->nedges && pairs[i].caller == pairs[i - 1].caller &&
		    pairs[i].callee == pairs[i - 1].callee) {
			e = &pub->edges[pub->nedges - 1];
			e->calls += pairs[i].calls;
			e->recursive_calls += pairs[i].recursive_calls;
			e->inclusive += pairs[i].inclusive;
			e->outer_calls += pairs[i].outer_calls;
			continue;
		}
		e = &pub->edges[pub->nedges++];
		e->caller = pairs[i].caller == nrows ? AF_CALL_ROOT : pairs[i].caller;
		e->callee = pairs[i].callee;
		e->calls = pairs[i].calls;
		e->recursive_calls = pairs[i].recursive_calls;
		e->inclusive = pairs[i].inclusive;
		e->outer_calls = pairs[i].outer_calls;
	}
	qsort(pub->edges, pub->nedges, sizeof *pub->edges, af_out_cmp);
	/* offsets: count per caller, then running sums */
	for (i = 0; i < pub->nedges; i++) {
		uint32_t c = pub->edges[i].caller;
		pub->calls_from[(c == AF_CALL_ROOT ? nrows : c) + 1]++;
		pub->callers_of[pub->edges[i].callee + 1]++;
		in[i].e = pub->edges[i];
		in[i].index = (uint32_t)i;
	}
	for (i = 0; i < nrows + 1; i++)
		pub->calls_from[i + 1] += pub->calls_from[i];
	for (i = 0; i < nrows; i++)
		pub->callers_of[i + 1] += pub->callers_of[i];
	qsort(in, pub->nedges, sizeof *in, af_in_cmp);
	for (i = 0; i < pub->nedges; i++)
		pub->callers[i] = in[i].index;
	af_free(g->mem, in);
	return 0;
}

static af_status af_call_graph_make(const af_tree *tree, af_clock clock,
                                    af_call_graph **out, af_error *err)
{
	af_mem *mem = tree->mem;
	uint32_t nn = af_tree_name_count(tree), *rowof = NULL;
	size_t n = af_tree_size(tree), np = 0, bytes;
	af_method_row *acc = NULL;
	af_pair *pairs = NULL;
	af_cgraph *g;
	af_status st = AF_OK;

	*out = NULL;
	if ((unsigned)clock >= AF_CLOCK_COUNT)
		return af_fail(err, AF_ERR_ARG, -1, "unknown clock");
	if (clock == AF_CLOCK_WAIT && !tree->wait)
		return af_fail(err, AF_ERR_CLOCK, -1,
		               "the tree has no wait clock (it needs both clocks)");
	if (tree->diff || af_tree_is_pruned(tree))
		return af_fail(err, AF_ERR_ARG, -1,
		               "a call graph needs a whole call tree, "
		               "not a diff or a tree pruned for drawing");
	if (af_mul_overflow(n, sizeof *pairs, &bytes))
		return af_fail(err, AF_ERR_NOMEM, -1,
		               "out of memory building the call graph");
	g = af_calloc(mem, 1, sizeof *g);
	if (!g)
		return af_fail(err, AF_ERR_NOMEM, -1,
		               "out of memory building the call graph");
	g->mem = af_mem_ref(mem);
	g->pub.methods.clock = clock;
	g->pub.methods.is_time = af_tree_is_time(tree);
	g->pub.methods.total = af_tree_total(tree, 0, clock);
	acc = af_calloc(mem, AF_MAX(nn, 1u), sizeof *acc);
	rowof = af_malloc(mem, AF_MAX(nn, 1u) * sizeof *rowof);
	pairs = af_malloc(mem, AF_MAX(bytes, sizeof *pairs));
	if (!acc || !rowof || !pairs || af_cgraph_walk(tree, clock, acc, pairs, &np) ||
	    af_cgraph_rows(g, tree, acc, nn, rowof) ||
	    af_cgraph_edges(g, pairs, np, rowof)) {
		st = af_fail(err, AF_ERR_NOMEM, -1,
		             "out of memory building the call graph");
		af_call_graph_free(&g->pub);
	} else {
		*out = &g->pub;
	}
	af_free(mem, acc);
	af_free(mem, rowof);
	af_free(mem, pairs);
	return st;
}

af_status af_call_graph_build(const af_tree *tree, af_clock clock, af_call_graph **out,
                              af_error *err)
{
	return af_mem_explain(tree->mem, af_call_graph_make(tree, clock, out, err), err);
}

size_t af_call_graph_select(const af_call_graph *graph, double percent,
                            unsigned char *keep_method, unsigned char *keep_edge)
{
	const af_cgraph *g = (const af_cgraph *)graph;
	size_t nrows = graph->methods.nrows, head = 0, tail = 0, kept = 0;
	uint32_t *queue = af_malloc(g->mem, (nrows + 1) * sizeof *queue);

	if (!queue)
		return (size_t)-1;
	memset(keep_method, 0, nrows);
	memset(keep_edge, 0, graph->nedges);
	/* breadth first from the root, each method looked at once */
	queue[tail++] = (uint32_t)nrows;
	while (head < tail) {
		uint32_t m = queue[head++];
		double whole = (double)(m == nrows ? graph->methods.total
		                                   : graph->methods.rows[m].inclusive);
		size_t e;

		/* a share of nothing is no share: dmtracedump's 0/0 draws nothing */
		if (whole == 0)
			continue;
		for (e = graph->calls_from[m]; e < graph->calls_from[m + 1]; e++) {
			uint32_t c = graph->edges[e].callee;
			if (!graph->edges[e].outer_calls ||
			    (double)graph->methods.rows[c].inclusive * 100.0 <
			        percent * whole)
				continue;
			keep_edge[e] = 1;
			if (!keep_method[c]) {
				keep_method[c] = 1;
				kept++;
				queue[tail++] = c;
			}
		}
	}
	af_free(g->mem, queue);
	return kept;
}
