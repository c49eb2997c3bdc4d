/*
 * tree.c - the prefix tree of call chains, and the public call-tree view
 * built from a parsed trace.
 */
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "tree.h"

/* ------------------------------------------------------------------ */
/* af_ptree                                                            */

static inline size_t af_slot_of(uint32_t parent, uint32_t key, size_t mask)
{
	uint64_t h = ((uint64_t)parent << 32 | key) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 29) & mask;
}

void af_ptree_init(af_ptree *t, uint32_t max_nodes, af_mem *mem)
{
	memset(t, 0, sizeof *t);
	t->max_nodes = max_nodes ? max_nodes : UINT32_MAX - 1;
	t->mem = mem;
}

void af_ptree_free(af_ptree *t)
{
	af_mem *mem = t->mem;

	af_free(mem, t->nodes);
	af_free(mem, t->slots);
	af_ptree_init(t, t->max_nodes, mem);
}

static void af_slots_put(af_slot *slots, size_t mask, uint32_t parent, uint32_t key,
                         uint32_t idx)
{
	size_t i = af_slot_of(parent, key, mask);
	while (slots[i].node)
		i = (i + 1) & mask;
	slots[i].parent = parent;
	slots[i].key = key;
	slots[i].node = idx + 1;
}

/* Keeps the load factor at or under one half. */
static int af_slots_reserve(af_ptree *t, size_t count)
{
	size_t n = t->nslots ? t->nslots : 1024, i;
	af_slot *slots;

	/* a load of up to 3/4: probes stay short, and the table (the largest
	 * part of a big trace's memory after the nodes) stays small */
	if (count * 4 <= t->nslots * 3)
		return 0;
	while (count * 4 > n * 3) {
		if (n > SIZE_MAX / 2 / sizeof *slots)
			return -1;
		n *= 2;
	}
	slots = af_calloc(t->mem, n, sizeof *slots);
	if (!slots)
		return -1;
	af_hint_huge(slots, n * sizeof *slots);
	for (i = 0; i < t->nslots; i++)
		if (t->slots[i].node)
			af_slots_put(slots, n - 1, t->slots[i].parent, t->slots[i].key,
			             t->slots[i].node - 1);
	af_free(t->mem, t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

static uint32_t af_ptree_push(af_ptree *t, uint32_t parent, uint32_t key)
{
	af_pnode *n;

	if (t->len >= t->max_nodes)
		return AF_NONE;
	if (AF_GROW(t->mem, t->nodes, t->cap, t->len + 1))
		return AF_NONE;
	n = &t->nodes[t->len];
	memset(n, 0, sizeof *n);
	n->key = key;
	n->parent = parent;
	n->child = AF_NONE;
	n->sibling = AF_NONE;
	return (uint32_t)t->len++;
}

int af_ptree_reserve(af_ptree *t, size_t nodes)
{
	if (nodes > t->max_nodes)
		nodes = t->max_nodes;
	if (AF_GROW(t->mem, t->nodes, t->cap, nodes))
		return -1;
	return af_slots_reserve(t, nodes);
}

uint32_t af_ptree_root(af_ptree *t, uint32_t key)
{
	return af_ptree_push(t, AF_NONE, key);
}

uint32_t af_ptree_child(af_ptree *t, uint32_t parent, uint32_t key)
{
	size_t mask, i;
	uint32_t idx;

	/* the newest child is often the one asked for again */
	idx = t->nodes[parent].child;
	if (idx != AF_NONE && t->nodes[idx].key == key)
		return idx;
	if (t->nslots) {
		mask = t->nslots - 1;
		for (i = af_slot_of(parent, key, mask); t->slots[i].node;
		     i = (i + 1) & mask) {
			if (t->slots[i].key == key && t->slots[i].parent == parent)
				return t->slots[i].node - 1;
		}
	}
	if (af_slots_reserve(t, t->len + 1))
		return AF_NONE;
	idx = af_ptree_push(t, parent, key);
	if (idx == AF_NONE)
		return AF_NONE;
	t->nodes[idx].sibling = t->nodes[parent].child;
	t->nodes[parent].child = idx;
	af_slots_put(t->slots, t->nslots - 1, parent, key, idx);
	return idx;
}

uint32_t af_ptree_append(af_ptree *t, uint32_t parent, uint32_t key)
{
	uint32_t idx = af_ptree_push(t, parent, key);

	if (idx != AF_NONE) {
		t->nodes[idx].sibling = t->nodes[parent].child;
		t->nodes[parent].child = idx;
	}
	return idx;
}

int af_ptree_totals(const af_ptree *t, uint64_t (*tot)[AF_CLOCK_COUNT])
{
	size_t n = t->len, i, no = 0, top = 0;
	uint32_t *order = af_malloc(t->mem, (n ? n : 1) * sizeof *order);
	uint32_t *stack = af_malloc(t->mem, (n ? n : 1) * sizeof *stack);
	int c;

	if (!order || !stack) {
		af_free(t->mem, order);
		af_free(t->mem, stack);
		return -1;
	}
	/* parents may come after their children (orphan exits adopt a root),
	 * so walk from the roots instead of going by index */
	for (i = 0; i < n; i++) {
		if (t->nodes[i].parent != AF_NONE)
			continue;
		stack[top++] = (uint32_t)i;
		while (top) {
			uint32_t x = stack[--top], r;
			order[no++] = x;
			for (r = t->nodes[x].child; r != AF_NONE; r = t->nodes[r].sibling)
				stack[top++] = r;
		}
	}
	memset(tot, 0, n * sizeof *tot);
	for (i = no; i-- > 0;) {
		uint32_t x = order[i], p = t->nodes[x].parent;
		for (c = 0; c < AF_CLOCK_COUNT; c++) {
			tot[x][c] += t->nodes[x].self[c];
			if (p != AF_NONE)
				tot[p][c] += tot[x][c];
		}
	}
	af_free(t->mem, order);
	af_free(t->mem, stack);
	return 0;
}

int af_ptree_adopt(af_ptree *t, uint32_t new_root, uint32_t old_root,
                   uint32_t key)
{
	af_pnode *n = &t->nodes[old_root];

	if (af_slots_reserve(t, t->len))
		return -1;
	n->key = key;
	n->parent = new_root;
	n->sibling = t->nodes[new_root].child;
	t->nodes[new_root].child = old_root;
	af_slots_put(t->slots, t->nslots - 1, new_root, key, old_root);
	return 0;
}

/* ------------------------------------------------------------------ */
/* The call-tree view                                                  */

/* A name followed by the character that ends it in a folded line: a space
 * before the count when the frame has self time, else ';' before a child. */
typedef struct af_named {
	const char *s;
	uint32_t key; /* name id * 2 + 1 when ended by ';' */
} af_named;

/* Orders frames as flamegraph.pl's byte sort of folded lines does. */
static int af_named_cmp(const void *a, const void *b)
{
	const af_named *x = a, *y = b;
	const unsigned char *p = (const unsigned char *)x->s;
	const unsigned char *q = (const unsigned char *)y->s;
	unsigned cp, cq;

	while (*p && *p == *q) {
		p++;
		q++;
	}
	cp = *p ? *p : (x->key & 1 ? ';' : ' ');
	cq = *q ? *q : (y->key & 1 ? ';' : ' ');
	if (cp != cq)
		return cp < cq ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}


struct af_tree {
	af_mem *mem;        /* the trace's: allocator and budget */
	af_ptree pt;        /* keys are name ids */
	uint32_t *depth;
	uint64_t (*total)[AF_CLOCK_COUNT];
	uint64_t *base_total;
	uint64_t (*hidden)[AF_CLOCK_COUNT]; /* pruned: time of cut subtrees */
	size_t hidden_cap;
	const uint64_t (*raw_total)[AF_CLOCK_COUNT]; /* while pruning: the trace's */
	uint64_t prune_below;
	af_clock prune_clock;
	uint64_t (*offset)[AF_CLOCK_COUNT]; /* flame chart of a trace: where a
	                    call began within its caller; NULL otherwise */
	size_t offset_cap;
	af_names names;     /* interned frame names */
	af_u32map name_of;  /* method id -> name id, while building */
	uint8_t *hashed;    /* while building: see af_set_hashed() */
	uint32_t *rank;     /* per name id * 2 (+1 when ended by ';'): order */
	size_t hashed_cap;
	int is_time;        /* values are µs (trace input) */
	int differential;   /* folded input with two counts */
};

/* Rebuilds `tree->pt` with every path turned around (leaf first), as
 * flamegraph.pl --reverse does with each folded line.  A node's calls go
 * to its own frame, now at depth 1. */
static af_status af_tree_reverse(af_tree *tree, af_error *err)
{
	af_ptree out;
	af_pnode *old = tree->pt.nodes;
	size_t n = tree->pt.len, i;
	uint32_t *path = NULL, root;
	size_t cap = 0;

	af_ptree_init(&out, tree->pt.max_nodes, tree->mem);
	root = af_ptree_root(&out, old[0].key);
	if (root == AF_NONE)
		goto nomem;
	for (i = 1; i < n; i++) {
		size_t depth = 0, k;
		uint32_t v, node = root;
		int c;
		for (v = (uint32_t)i; v != 0; v = old[v].parent) {
			if (AF_GROW(tree->mem, path, cap, depth + 1))
				goto nomem;
			path[depth++] = old[v].key;
		}
		for (k = 0; k < depth; k++) {
			node = af_ptree_child(&out, node, path[k]);
			if (node == AF_NONE)
				goto nomem;
			if (k == 0)
				out.nodes[node].calls += old[i].calls;
		}
		for (c = 0; c < AF_CLOCK_COUNT; c++)
			out.nodes[node].self[c] += old[i].self[c];
		out.nodes[node].base += old[i].base;
	}
	af_free(tree->mem, path);
	af_ptree_free(&tree->pt);
	tree->pt = out;
	return AF_OK;
nomem:
	af_free(tree->mem, path);
	af_ptree_free(&out);
	return af_fail(err, AF_ERR_NOMEM, -1, "out of memory reversing the tree");
}

static int af_thread_selected(const af_thread *th, const af_tree_options *opt)
{
	size_t i;
	char num[16];

	if (!opt || !opt->threads || opt->nthreads == 0)
		return 1;
	for (i = 0; i < opt->nthreads; i++) {
		const char *want = opt->threads[i];
		if (strcmp(want, th->name) == 0)
			return 1;
		snprintf(num, sizeof num, "%u", th->tid);
		if (strcmp(want, num) == 0)
			return 1;
		snprintf(num, sizeof num, "%u", th->record_tid);
		if (strcmp(want, num) == 0)
			return 1;
	}
	return 0;
}

/* The interned display name of a raw node's key, cached per build. */
static uint32_t af_view_name(af_tree *tree, const af_trace *trace, uint32_t key,
                             const af_tree_options *opt)
{
	uint32_t name;

	if (af_u32map_get(&tree->name_of, key, &name))
		return name;
	if (trace->info.variant == AF_VARIANT_FOLDED) {
		const char *s = trace->frames.str[key];
		name = af_names_intern(&tree->names, s, strlen(s));
	} else {
		name = af_trace_frame_name(trace, key, opt && opt->signatures, &tree->names);
	}
	if (name == AF_NONE || af_u32map_put(&tree->name_of, key, name))
		return AF_NONE;
	return name;
}

/* Marks whether view node `v` must find its children by hash: it gathers
 * more than one raw node (overloads under one name, same-named threads),
 * so their children can meet.  Everything below such a node is hashed too.
 * Elsewhere the view has the raw tree's shape and children are appended. */
static int af_set_hashed(af_tree *tree, uint32_t v, int hashed)
{
	size_t old = tree->hashed_cap;
	if (AF_GROW(tree->mem, tree->hashed, tree->hashed_cap, (size_t)v + 1))
		return -1;
	if (tree->hashed_cap > old)
		memset(tree->hashed + old, 0, tree->hashed_cap - old);
	tree->hashed[v] = (uint8_t)hashed;
	return 0;
}

typedef struct af_pair {
	uint32_t raw, view;
} af_pair;

/* Copies the raw subtree below `raw_root` (a thread's root) under the view
 * node `view_root`, in pre-order so that parents precede children. */
static af_status af_tree_copy(af_tree *tree, const af_trace *trace,
                              uint32_t raw_root, uint32_t view_root,
                              const af_tree_options *opt, af_error *err)
{
	const af_ptree *raw = &trace->tree;
	af_pair *stack = NULL;
	size_t depth = 0, cap = 0;
	af_u32map seen = {.mem = tree->mem};
	uint32_t r = raw_root, v = view_root;
	af_status st = AF_OK;
	int c;

	for (;;) {
		size_t group = depth;
		int hashed = !trace->flamechart && tree->hashed[v];

		size_t end, k;

		/* the children of r, oldest first (the list is newest first), so a
		 * flame chart's siblings keep their order */
		for (r = raw->nodes[r].child; r != AF_NONE; r = raw->nodes[r].sibling) {
			if (AF_GROW(tree->mem, stack, cap, depth + 1))
				goto nomem;
			stack[depth++].raw = r;
		}
		end = depth;
		for (k = 0; k < (end - group) / 2; k++) {
			uint32_t tmp = stack[group + k].raw;
			stack[group + k].raw = stack[end - 1 - k].raw;
			stack[end - 1 - k].raw = tmp;
		}
		depth = group;
		/* ...as children of v */
		while (depth < end) {
			uint32_t name, vc = AF_NONE;
			r = stack[depth].raw;
			name = af_view_name(tree, trace, raw->nodes[r].key, opt);
			if (name == AF_NONE)
				goto nomem;
			if (hashed) {
				vc = af_ptree_child(&tree->pt, v, name);
			} else if (!trace->flamechart) {
				/* two raw children with one name (overloads) share a node */
				if (depth - group <= 16) {
					for (k = group; k < depth; k++)
						if (tree->pt.nodes[stack[k].view].key == name)
							vc = stack[k].view;
				} else {
					if (depth - group == 17) {
						af_u32map_free(&seen);
						for (k = group; k < depth; k++)
							if (af_u32map_put(&seen, tree->pt.nodes[stack[k].view].key,
							                  stack[k].view))
								goto nomem;
					}
					af_u32map_get(&seen, name, &vc);
				}
				if (vc != AF_NONE && af_set_hashed(tree, vc, 1))
					goto nomem;
			}
			if (vc == AF_NONE) {
				vc = af_ptree_append(&tree->pt, v, name);
				if (vc != AF_NONE && depth - group >= 16 &&
				    af_u32map_put(&seen, name, vc))
					goto nomem;
			}
			if (vc == AF_NONE && tree->pt.len < tree->pt.max_nodes)
				goto nomem;
			if (vc == AF_NONE) {
				st = af_fail(err, AF_ERR_LIMIT, -1,
				             "call tree has more than %u nodes", tree->pt.max_nodes);
				goto out;
			}
			if (((size_t)vc >= tree->hashed_cap || hashed) &&
			    af_set_hashed(tree, vc, hashed || ((size_t)vc < tree->hashed_cap &&
			                                       tree->hashed[vc])))
				goto nomem;
			stack[depth++].view = vc;
		}
		/* for drawing, a subtree far under a pixel that merges with
		 * nothing is kept as its total alone (exact where it is drawn) */
		if (tree->raw_total) {
			size_t kept = group;
			for (k = group; k < depth; k++) {
				uint32_t rr = stack[k].raw, vv = stack[k].view;
				if (!tree->hashed[vv] && !trace->started &&
				    tree->raw_total[rr][tree->prune_clock] < tree->prune_below) {
					size_t old = tree->hidden_cap;
					const af_pnode *rn = &raw->nodes[rr];
					if (AF_GROW(tree->mem, tree->hidden, tree->hidden_cap, tree->pt.len))
						goto nomem;
					if (tree->hidden_cap > old)
						memset(tree->hidden + old, 0,
						       (tree->hidden_cap - old) * sizeof *tree->hidden);
					for (c = 0; c < AF_CLOCK_COUNT; c++) {
						tree->pt.nodes[vv].self[c] += rn->self[c];
						tree->hidden[vv][c] += tree->raw_total[rr][c] - rn->self[c];
					}
					tree->pt.nodes[vv].calls += rn->calls;
					continue;
				}
				stack[kept++] = stack[k];
			}
			depth = kept;
		}
		if (depth == 0)
			break;
		r = stack[--depth].raw;
		v = stack[depth].view;
		{
			const af_pnode *rn = &raw->nodes[r];
			if (trace->started) {
				uint32_t rp = rn->parent;
				if (AF_GROW(tree->mem, tree->offset, tree->offset_cap, tree->pt.len))
					goto nomem;
				for (c = 0; c < AF_CLOCK_COUNT; c++) {
					uint64_t a = trace->started[r][c];
					uint64_t b = raw->nodes[rp].parent == AF_NONE ? 0
					                                              : trace->started[rp][c];
					tree->offset[v][c] = a > b ? a - b : 0;
				}
			}
			for (c = 0; c < AF_CLOCK_COUNT; c++)
				tree->pt.nodes[v].self[c] += rn->self[c];
			tree->pt.nodes[v].calls += rn->calls;
			tree->pt.nodes[v].base += rn->base;
		}
	}
	goto out;
nomem:
	st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory building the call tree");
out:
	af_u32map_free(&seen);
	af_free(tree->mem, stack);
	return st;
}

static af_status af_tree_build(const af_trace *trace, const af_tree_options *opt,
                               af_tree **out, af_error *err)
{
	af_tree *tree;
	af_u32map tnames = {.mem = trace->mem}; /* thread name id -> threads
	                                           with that name */
	uint32_t root, all;
	size_t i, n, selected = 0;
	af_status st;

	*out = NULL;
	tree = af_calloc(trace->mem, 1, sizeof *tree);
	if (!tree)
		return af_mem_explain(trace->mem,
		                      af_fail(err, AF_ERR_NOMEM, -1,
		                              "out of memory building the call tree"),
		                      err);
	tree->mem = af_mem_ref(trace->mem);
	tree->names.mem = tree->mem;
	tree->name_of.mem = tree->mem;
	af_ptree_init(&tree->pt, trace->limits.max_nodes, tree->mem);
	all = af_names_intern(&tree->names, "all", 3);
	root = all == AF_NONE ? AF_NONE : af_ptree_root(&tree->pt, all);
	if (root == AF_NONE) {
		af_tree_free(tree);
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
	}
	/* same-named threads merge: their nodes find children by hash */
	for (i = 0; i < trace->nthreads; i++) {
		const af_thread *th = &trace->threads[i];
		uint32_t tname, count = 0;
		if (!th->records ||
		    (opt && opt->one_thread ? i != opt->thread : !af_thread_selected(th, opt)))
			continue;
		tname = af_names_intern_clean(&tree->names, th->name, strlen(th->name));
		if (tname == AF_NONE)
			goto nomem;
		af_u32map_get(&tnames, tname, &count);
		if (af_u32map_put(&tnames, tname, count + 1))
			goto nomem;
	}
	if (af_set_hashed(tree, root, 0))
		goto nomem;
	if (opt && opt->prune > 0 && !trace->started && !opt->reverse && trace->totals) {
		uint64_t whole = 0;
		tree->prune_clock = (unsigned)opt->prune_clock < AF_CLOCK_COUNT
		                            ? opt->prune_clock : AF_CLOCK_WALL;
		tree->raw_total = (const uint64_t(*)[AF_CLOCK_COUNT])trace->totals;
		/* the share is of what this tree will hold: the selected threads */
		if (trace->info.variant == AF_VARIANT_FOLDED)
			whole = tree->raw_total[0][tree->prune_clock];
		for (i = 0; i < trace->nthreads; i++) {
			const af_thread *th = &trace->threads[i];
			if (!th->records ||
			    (opt->one_thread ? i != opt->thread : !af_thread_selected(th, opt)))
				continue;
			whole += tree->raw_total[th->root][tree->prune_clock];
		}
		tree->prune_below = (uint64_t)(opt->prune * (double)whole);
	}
	if (trace->info.variant == AF_VARIANT_FOLDED) {
		st = af_tree_copy(tree, trace, 0, root, opt, err);
		if (st != AF_OK)
			goto fail;
		selected = 1;
	}
	for (i = 0; i < trace->nthreads; i++) {
		const af_thread *th = &trace->threads[i];
		uint32_t tname, v, count = 0;

		if (!th->records)
			continue;
		if (opt && opt->one_thread ? i != opt->thread : !af_thread_selected(th, opt))
			continue;
		selected++;
		tname = af_names_intern_clean(&tree->names, th->name, strlen(th->name));
		/* a flame chart keeps same-named threads apart: each has its time */
		v = tname == AF_NONE ? AF_NONE
		    : trace->flamechart ? af_ptree_append(&tree->pt, root, tname)
		                        : af_ptree_child(&tree->pt, root, tname);
		if (v == AF_NONE || af_set_hashed(tree, v, !trace->flamechart &&
		                                           af_u32map_get(&tnames, tname, &count) &&
		                                           count > 1))
			goto nomem;
		st = af_tree_copy(tree, trace, th->root, v, opt, err);
		if (st != AF_OK)
			goto fail;
	}
	af_u32map_free(&tnames);
	if (!selected) {
		af_tree_free(tree);
		return af_fail(err, AF_ERR_EMPTY, -1, opt && opt->nthreads
		               ? "no thread with records matches the --thread filter"
		               : "the trace has no method records");
	}

	af_u32map_free(&tree->name_of);
	af_free(tree->mem, tree->hashed);
	tree->hashed = NULL;
	tree->raw_total = NULL;
	tree->is_time = trace->info.variant != AF_VARIANT_FOLDED;
	tree->differential = trace->info.differential;
	if (opt && opt->reverse && (st = af_tree_reverse(tree, err)) != AF_OK) {
		af_tree_free(tree);
		return st;
	}
	n = tree->pt.len;
	tree->depth = af_calloc(tree->mem, n, sizeof *tree->depth);
	tree->total = af_calloc(tree->mem, n, sizeof *tree->total);
	/* only differential input has a first count to sum */
	tree->base_total = tree->differential
	                   ? af_calloc(tree->mem, n, sizeof *tree->base_total) : NULL;
	if (!tree->depth || !tree->total || (tree->differential && !tree->base_total)) {
		af_tree_free(tree);
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
	}
	/* siblings are drawn in name order: rank every name once, both ways */
	{
		size_t nn = tree->names.len;
		af_named *named = af_malloc(tree->mem, (nn ? nn : 1) * 2 * sizeof *named);
		tree->rank = af_malloc(tree->mem, (nn ? nn : 1) * 2 * sizeof *tree->rank);
		if (!named || !tree->rank) {
			af_free(tree->mem, named);
			af_tree_free(tree);
			return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
		}
		for (i = 0; i < 2 * nn; i++) {
			named[i].s = tree->names.str[i / 2];
			named[i].key = (uint32_t)i;
		}
		qsort(named, 2 * nn, sizeof *named, af_named_cmp);
		for (i = 0; i < 2 * nn; i++)
			tree->rank[named[i].key] = (uint32_t)i;
		af_free(tree->mem, named);
	}
	/* parents precede children: depths forwards, totals backwards */
	for (i = 1; i < n; i++)
		tree->depth[i] = tree->depth[tree->pt.nodes[i].parent] + 1;
	for (i = n; i-- > 0;) {
		const af_pnode *nd = &tree->pt.nodes[i];
		int c;
		for (c = 0; c < AF_CLOCK_COUNT; c++) {
			tree->total[i][c] += nd->self[c];
			if (i < tree->hidden_cap)
				tree->total[i][c] += tree->hidden[i][c];
			if (i > 0)
				tree->total[nd->parent][c] += tree->total[i][c];
		}
		if (tree->base_total) {
			tree->base_total[i] += nd->base;
			if (i > 0)
				tree->base_total[nd->parent] += tree->base_total[i];
		}
	}
	*out = tree;
	return AF_OK;
nomem:
	st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory building the call tree");
fail:
	af_u32map_free(&tnames);
	af_tree_free(tree);
	return st;
}

af_status af_tree_from_trace(const af_trace *trace, const af_tree_options *opt,
                             af_tree **out, af_error *err)
{
	return af_mem_explain(trace->mem, af_tree_build(trace, opt, out, err), err);
}

void af_tree_free(af_tree *tree)
{
	af_mem *mem;

	if (!tree)
		return;
	mem = tree->mem;
	af_ptree_free(&tree->pt);
	af_names_free(&tree->names);
	af_u32map_free(&tree->name_of);
	af_free(mem, tree->hashed);
	af_free(mem, tree->hidden);
	af_free(mem, tree->rank);
	af_free(mem, tree->depth);
	af_free(mem, tree->total);
	af_free(mem, tree->base_total);
	af_free(mem, tree->offset);
	af_free(mem, tree);
	af_mem_unref(mem);
}

af_mem *af_tree_mem(const af_tree *tree)
{
	return tree->mem;
}

int af_tree_is_pruned(const af_tree *tree)
{
	return tree->hidden != NULL;
}

int af_tree_is_time(const af_tree *tree)
{
	return tree->is_time;
}

int af_tree_is_differential(const af_tree *tree)
{
	return tree->differential;
}

size_t af_tree_size(const af_tree *tree)
{
	return tree->pt.len;
}

void af_tree_node(const af_tree *tree, size_t i, af_node_info *info)
{
	const af_pnode *n = &tree->pt.nodes[i];
	int c;

	info->name = tree->names.str[n->key];
	info->parent = n->parent;
	info->depth = tree->depth[i];
	for (c = 0; c < AF_CLOCK_COUNT; c++) {
		info->self[c] = n->self[c];
		info->total[c] = tree->total[i][c];
	}
	info->calls = n->calls;
	info->base_self = n->base;
	info->base_total = tree->base_total ? tree->base_total[i] : 0;
}

const af_pnode *af_tree_nodes(const af_tree *tree)
{
	return tree->pt.nodes;
}

const char *af_tree_name(const af_tree *tree, uint32_t node)
{
	return tree->names.str[tree->pt.nodes[node].key];
}

uint32_t af_tree_name_id(const af_tree *tree, uint32_t node)
{
	return tree->pt.nodes[node].key;
}

uint32_t af_tree_name_count(const af_tree *tree)
{
	return tree->names.len;
}

const char *af_tree_name_by_id(const af_tree *tree, uint32_t id)
{
	return tree->names.str[id];
}

uint64_t af_tree_total(const af_tree *tree, uint32_t node, af_clock clock)
{
	return tree->total[node][clock];
}

int af_tree_offset(const af_tree *tree, uint32_t node, af_clock clock,
                   uint64_t *offset)
{
	if (!tree->offset || tree->depth[node] < 2 || node >= tree->offset_cap)
		return 0;
	*offset = tree->offset[node][clock];
	return 1;
}

const uint32_t *af_tree_ranks(const af_tree *tree)
{
	return tree->rank;
}

uint32_t af_tree_depth(const af_tree *tree, uint32_t node)
{
	return tree->depth[node];
}

/* ------------------------------------------------------------------ */
/* Interned names                                                      */

static uint64_t af_hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	size_t i;
	for (i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 0x100000001b3ull;
	}
	return h ^ (h >> 31);
}

static int af_names_rehash(af_names *n)
{
	size_t ns = n->nslots ? n->nslots * 2 : 256, i, mask = ns - 1;
	uint32_t *slots;

	if (ns > SIZE_MAX / sizeof *slots)
		return -1;
	slots = af_calloc(n->mem, ns, sizeof *slots);
	if (!slots)
		return -1;
	for (i = 0; i < n->len; i++) {
		size_t j = af_hash_bytes(n->str[i], strlen(n->str[i])) & mask;
		while (slots[j])
			j = (j + 1) & mask;
		slots[j] = (uint32_t)i + 1;
	}
	af_free(n->mem, n->slots);
	n->slots = slots;
	n->nslots = ns;
	return 0;
}

uint32_t af_names_intern(af_names *n, const char *s, size_t len)
{
	size_t mask, j;
	char *copy;

	if ((n->len + 1) * 2 > n->nslots && af_names_rehash(n))
		return AF_NONE;
	mask = n->nslots - 1;
	for (j = af_hash_bytes(s, len) & mask; n->slots[j]; j = (j + 1) & mask) {
		const char *t = n->str[n->slots[j] - 1];
		if (strncmp(t, s, len) == 0 && t[len] == '\0')
			return n->slots[j] - 1;
	}
	if (n->len >= UINT32_MAX - 1 || AF_GROW(n->mem, n->str, n->cap, n->len + 1))
		return AF_NONE;
	copy = af_malloc(n->mem, len + 1);
	if (!copy)
		return AF_NONE;
	memcpy(copy, s, len);
	copy[len] = '\0';
	n->str[n->len] = copy;
	n->slots[j] = (uint32_t)n->len + 1;
	return (uint32_t)n->len++;
}

uint32_t af_names_intern_clean(af_names *n, const char *s, size_t len)
{
	af_buf b = {.mem = n->mem};
	size_t i = 0;
	uint32_t id;
	int dirty = 0;

	/* most names are clean ASCII: check before copying */
	for (i = 0; i < len && !dirty; i++) {
		unsigned char c = (unsigned char)s[i];
		dirty = c < 0x20 || c == 0x7F || c == ';' || c >= 0x80;
	}
	if (!dirty)
		return af_names_intern(n, s, len);
	for (i = 0; i < len;) {
		uint32_t cp;
		size_t k = af_utf8_decode((const unsigned char *)s + i, len - i, &cp);
		int bad;
		if (k == 0) {
			bad = af_buf_append(&b, "\xEF\xBF\xBD", 3);
			i++;
		} else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) ||
		           cp == 0xFFFE || cp == 0xFFFF) {
			bad = 0;
			i += k;
		} else if (cp == ';') {
			bad = af_buf_append(&b, ":", 1);
			i += k;
		} else {
			bad = af_buf_append(&b, s + i, k);
			i += k;
		}
		if (bad) {
			af_buf_free(&b);
			return AF_NONE;
		}
	}
	id = af_names_intern(n, b.data ? b.data : "", b.len);
	af_buf_free(&b);
	return id;
}

uint32_t af_names_find(const af_names *n, const char *s, size_t len)
{
	size_t mask, j;

	if (!n->nslots)
		return AF_NONE;
	mask = n->nslots - 1;
	for (j = af_hash_bytes(s, len) & mask; n->slots[j]; j = (j + 1) & mask) {
		const char *t = n->str[n->slots[j] - 1];
		if (strncmp(t, s, len) == 0 && t[len] == '\0')
			return n->slots[j] - 1;
	}
	return AF_NONE;
}

void af_names_free(af_names *n)
{
	af_mem *mem = n->mem;
	size_t i;

	for (i = 0; i < n->len; i++)
		af_free(mem, n->str[i]);
	af_free(mem, n->str);
	af_free(mem, n->slots);
	memset(n, 0, sizeof *n);
	n->mem = mem;
}

/* ------------------------------------------------------------------ */
/* u32 -> u32 map                                                      */

static size_t af_u32_slot(uint32_t key, size_t mask)
{
	return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

int af_u32map_get(const af_u32map *m, uint32_t key, uint32_t *value)
{
	size_t mask, i;

	if (!m->nslots)
		return 0;
	mask = m->nslots - 1;
	for (i = af_u32_slot(key, mask); m->slots[i]; i = (i + 1) & mask) {
		if ((uint32_t)(m->slots[i] >> 32) == key + 1) {
			*value = (uint32_t)m->slots[i];
			return 1;
		}
	}
	return 0;
}

int af_u32map_put(af_u32map *m, uint32_t key, uint32_t value)
{
	size_t mask, i;

	if ((m->len + 1) * 2 > m->nslots) {
		size_t ns = m->nslots ? m->nslots * 2 : 64, j;
		uint64_t *slots = af_calloc(m->mem, ns, sizeof *slots);
		if (!slots)
			return -1;
		for (j = 0; j < m->nslots; j++) {
			if (m->slots[j]) {
				size_t k = af_u32_slot((uint32_t)(m->slots[j] >> 32) - 1,
				                       ns - 1);
				while (slots[k])
					k = (k + 1) & (ns - 1);
				slots[k] = m->slots[j];
			}
		}
		af_free(m->mem, m->slots);
		m->slots = slots;
		m->nslots = ns;
	}
	mask = m->nslots - 1;
	for (i = af_u32_slot(key, mask); m->slots[i]; i = (i + 1) & mask) {
		if ((uint32_t)(m->slots[i] >> 32) == key + 1) {
			m->slots[i] = ((uint64_t)(key + 1) << 32) | value;
			return 0;
		}
	}
	m->slots[i] = ((uint64_t)(key + 1) << 32) | value;
	m->len++;
	return 0;
}

void af_u32map_free(af_u32map *m)
{
	af_mem *mem = m->mem;

	af_free(mem, m->slots);
	memset(m, 0, sizeof *m);
	m->mem = mem;
}
