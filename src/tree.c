/*
 * tree.c - the public call-tree view built from a parsed trace: frames
 * named, threads chosen, the view's rules applied, and its accessors.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "tree.h"
#include "view.h"

/* ------------------------------------------------------------------ */
/* The call-tree view                                                  */

/* A name followed by the character that ends it in a folded line: a space
 * before the count when the frame has self time, else ';' before a child. */
typedef struct af_named {
	const char *s;
	size_t len;
	uint32_t key; /* name id * 2 + 1 when ended by ';' */
} af_named;

/* The byte of `x`'s line at `i` (past its name: the end, ' ' or ';'), or,
 * one byte further, the count's first digit after an end in ' ': taken as
 * just below '0', whatever the count, so that the order is one order. */
static unsigned af_named_at(const af_named *x, size_t i)
{
	if (i < x->len)
		return (unsigned char)x->s[i] * 2u;
	if (i == x->len)
		return (x->key & 1 ? ';' : ' ') * 2u;
	return '0' * 2u - 1;
}

/* Orders frames as flamegraph.pl's byte sort of folded lines does: the
 * name, then ' ' and the count (self time) or ';' and a child.  Names hold
 * no ';', so past the shorter name two lines differ within two bytes. */
static int af_named_cmp(const af_named *x, const af_named *y)
{
	size_t m = x->len < y->len ? x->len : y->len, i;
	int c = memcmp(x->s, y->s, m);

	if (c)
		return c;
	for (i = m; i < m + 2; i++) {
		unsigned cx = af_named_at(x, i), cy = af_named_at(y, i);
		if (cx != cy)
			return cx < cy ? -1 : 1;
	}
	return (x->key > y->key) - (x->key < y->key);
}

/* Half of a table to sort, on a thread of its own. */
typedef struct af_sort_job {
	af_named *a, *tmp;
	size_t n;
} af_sort_job;

static void af_sort_named(af_named *a, af_named *tmp, size_t n, int threads);

static void *af_sort_half(void *arg)
{
	af_sort_job *j = arg;
	af_sort_named(j->a, j->tmp, j->n, 0);
	return NULL;
}

/* Sorts the `n` names at `a` by af_named_cmp, with `tmp` room for as many:
 * a merge sort, its comparison inlined (qsort's call through a pointer
 * cost more than the comparing); with `threads`, the halves of a large
 * table are sorted on two threads. */
static void af_sort_named(af_named *a, af_named *tmp, size_t n, int threads)
{
	size_t n1 = n / 2, n2 = n - n1, i = 0, k = 0, o = 0;
	af_sort_job left = {a, tmp, n1};
	pthread_t helper;

	if (n <= 1)
		return;
	if (threads && n >= 8192 && pthread_create(&helper, NULL, af_sort_half, &left) == 0) {
		af_sort_named(a + n1, tmp + n1, n2, 0);
		pthread_join(helper, NULL);
	} else {
		af_sort_named(a, tmp, n1, 0);
		af_sort_named(a + n1, tmp + n1, n2, 0);
	}
	while (i < n1 && k < n2)
		tmp[o++] = af_named_cmp(&a[i], &a[n1 + k]) <= 0 ? a[i++] : a[n1 + k++];
	while (i < n1)
		tmp[o++] = a[i++];
	memcpy(a, tmp, o * sizeof *a);
}

/* Every name's place in sibling order, both ways it can end (see
 * af_tree_ranks()); NULL when out of memory. */
static uint32_t *af_rank_names(af_mem *mem, const af_names *names)
{
	size_t nn = names->len, i;
	af_named *named = af_malloc(mem, (nn ? nn : 1) * 4 * sizeof *named);
	uint32_t *rank = af_malloc(mem, (nn ? nn : 1) * 2 * sizeof *rank);

	if (!named || !rank) {
		af_free(mem, named);
		af_free(mem, rank);
		return NULL;
	}
	for (i = 0; i < 2 * nn; i++) {
		named[i].s = names->str[i / 2];
		named[i].len = i % 2 ? named[i - 1].len : strlen(named[i].s);
		named[i].key = (uint32_t)i;
	}
	af_sort_named(named, named + 2 * nn, 2 * nn, 1);
	for (i = 0; i < 2 * nn; i++)
		rank[named[i].key] = (uint32_t)i;
	af_free(mem, named);
	return rank;
}

/* The number of first frames of folded input the thread filter keeps. */
static size_t af_first_frames_selected(const af_trace *trace,
                                       const af_tree_options *opt)
{
	size_t n = 0;
	uint32_t r;

	if (!trace->tree.len)
		return 0;
	for (r = trace->tree.nodes[0].child; r != AF_NONE; r = trace->tree.nodes[r].sibling)
		n += (size_t)af_first_frame_selected(trace, r, opt);
	return n;
}

/* ------------------------------------------------------------------ */
/* The names of a trace's default view                                 */

struct af_shared_names {
	atomic_uint refs;   /* the trace's, and one per tree using them */
	af_mem *mem;
	af_names names;     /* "all" (id 0), thread names, frame names */
	uint32_t *of_index; /* method index, or folded frame id -> name id */
	af_u32map of_key;   /* method ids the method table does not name -> name id */
	uint32_t *thread;   /* trace thread index -> name id */
	uint64_t serial;    /* unique in the process: see af_tree_names_serial() */
	/* as af_tree_ranks(): made by the first tree sealed, not with the
	 * names, so that the trees of a set's other workers are built while
	 * one of them ranks */
	pthread_mutex_t rank_lock;
	uint32_t *rank;
};

static atomic_uint_fast64_t af_names_serials; /* the last serial given */

void af_shared_names_unref(af_shared_names *s)
{
	af_mem *mem;

	if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	mem = s->mem;
	af_names_free(&s->names);
	af_free(mem, s->of_index);
	af_u32map_free(&s->of_key);
	af_free(mem, s->thread);
	af_free(mem, s->rank);
	pthread_mutex_destroy(&s->rank_lock);
	af_free(mem, s);
	af_mem_unref(mem);
}

/* Names every frame and thread of `t` as a tree without renaming rules
 * does; NULL when out of memory. */
static af_shared_names *af_shared_names_make(const af_trace *t)
{
	af_shared_names *s = af_calloc(t->mem, 1, sizeof *s);
	size_t i;

	if (!s)
		return NULL;
	atomic_init(&s->refs, 1);
	s->serial = atomic_fetch_add(&af_names_serials, 1) + 1;
	if (pthread_mutex_init(&s->rank_lock, NULL)) {
		af_free(t->mem, s);
		return NULL;
	}
	s->mem = af_mem_ref(t->mem);
	s->names.mem = s->mem;
	s->of_key.mem = s->mem;
	s->thread = af_malloc(s->mem, (t->nthreads ? t->nthreads : 1) * sizeof *s->thread);
	if (!s->thread || af_names_intern(&s->names, "all", 3) == AF_NONE)
		goto fail;
	for (i = 0; i < t->nthreads; i++) {
		const char *name = t->threads[i].name;
		s->thread[i] = af_names_intern_clean(&s->names, name, strlen(name));
		if (s->thread[i] == AF_NONE)
			goto fail;
	}
	if (t->info.variant == AF_VARIANT_FOLDED) {
		s->of_index = af_malloc(s->mem, (t->frames.len ? t->frames.len : 1) * sizeof *s->of_index);
		for (i = 0; s->of_index && i < t->frames.len; i++) {
			const char *f = t->frames.str[i];
			if ((s->of_index[i] = af_names_intern(&s->names, f, strlen(f))) == AF_NONE)
				goto fail;
		}
	} else {
		/* the methods the calls name, then any ids the table does not */
		s->of_index = af_malloc(s->mem, (t->nmethods ? t->nmethods : 1) * sizeof *s->of_index);
		for (i = 0; s->of_index && i < t->nmethods; i++) {
			s->of_index[i] = AF_NONE; /* named by no call path */
			if (t->called[i / 8] & (1u << (i % 8)) &&
			    (s->of_index[i] = af_trace_frame_name(t, t->methods[i].id, 0,
			                                          &s->names)) == AF_NONE)
				goto fail;
		}
		for (i = 0; s->of_index && t->info.unknown_methods && i < t->tree.len; i++) {
			const af_pnode *n = &t->tree.nodes[i];
			uint32_t id;
			if (n->parent == AF_NONE || af_trace_method(t, n->key, &id) ||
			    af_u32map_get(&s->of_key, n->key, &id))
				continue;
			id = af_trace_frame_name(t, n->key, 0, &s->names);
			if (id == AF_NONE || af_u32map_put(&s->of_key, n->key, id))
				goto fail;
		}
	}
	if (s->of_index)
		return s;
fail:
	af_shared_names_unref(s);
	return NULL;
}

/* A reference to the trace's shared names, made by the first caller (the
 * trace is const to its readers: the lock guards this one lazy field). */
static af_shared_names *af_trace_names_ref(const af_trace *trace)
{
	af_trace *t = (af_trace *)trace;
	af_shared_names *s;

	pthread_mutex_lock(&t->names_lock);
	if (!t->shared_names) {
		t->shared_names = af_shared_names_make(t);
		t->shared_names_unref = af_shared_names_unref;
	}
	s = t->shared_names;
	if (s)
		atomic_fetch_add(&s->refs, 1);
	pthread_mutex_unlock(&t->names_lock);
	return s;
}

/* The name id of trace thread `th` (index `i`) in the tree's names. */
static uint32_t af_tree_thread_name(af_tree *tree, const af_thread *th, size_t i)
{
	if (tree->shared)
		return tree->shared->thread[i];
	return af_names_intern_clean(&tree->own, th->name, strlen(th->name));
}

/* The interned display name of a raw node's key, cached per build. */
static uint32_t af_view_name(af_tree *tree, const af_trace *trace, uint32_t key,
                             const af_tree_options *opt)
{
	uint32_t name;

	if (tree->shared) {
		const af_shared_names *s = tree->shared;
		if (trace->info.variant == AF_VARIANT_FOLDED)
			return s->of_index[key];
		if (af_trace_method(trace, key, &name))
			return s->of_index[name];
		return af_u32map_get(&s->of_key, key, &name) ? name : AF_NONE;
	}
	if (af_u32map_get(&tree->name_of, key, &name))
		return name;
	if (trace->info.variant == AF_VARIANT_FOLDED)
		name = af_view_frame_name(trace->frames.str[key], opt, &tree->own,
		                          &tree->full);
	else
		name = af_view_method_name(trace, key, opt, &tree->own, &tree->full);
	if (name == AF_NONE || af_u32map_put(&tree->name_of, key, name))
		return AF_NONE;
	return name;
}

const char *af_tree_lib(const af_tree *tree, uint32_t name)
{
	uint32_t id;
	return tree->lib.len && af_u32map_get(&tree->lib, name, &id) ? tree->libs.str[id] : NULL;
}

int af_tree_set_lib(af_tree *tree, uint32_t name, const char *lib)
{
	uint32_t id;

	if (!lib || af_u32map_get(&tree->lib, name, &id))
		return 0;
	id = af_names_intern(&tree->libs, lib, strlen(lib));
	return id == AF_NONE || af_u32map_put(&tree->lib, name, id) ? -1 : 0;
}

/* The library of trace frame `key`, or NULL. */
static const char *af_key_lib(const af_trace *trace, uint32_t key)
{
	if (trace->info.variant != AF_VARIANT_FOLDED || (size_t)key >= trace->frame_lib_cap ||
	    trace->frame_lib[key] == AF_NONE)
		return NULL;
	return trace->libs.str[trace->frame_lib[key]];
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
 * node `view_root`, in pre-order so that parents precede children.  Below
 * the root of folded input, only the first frames the thread filter keeps
 * are copied. */
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
		int folded_root = trace->info.variant == AF_VARIANT_FOLDED && r == 0;

		size_t end, k;

		/* the children of r, oldest first (the list is newest first), so a
		 * flame chart's siblings keep their order */
		for (r = raw->nodes[r].child; r != AF_NONE; r = raw->nodes[r].sibling) {
			if (folded_root && !af_first_frame_selected(trace, r, opt))
				continue;
			if (AF_GROW(tree->mem, stack, cap, depth + 1))
				goto nomem;
			stack[depth++].raw = r;
			if (tree->raw_total) /* read by the pruning below */
				__builtin_prefetch(tree->raw_total[r]);
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
			if (name == AF_NONE ||
			    (trace->frame_lib &&
			     af_tree_set_lib(tree, name, af_key_lib(trace, raw->nodes[r].key))))
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
			if (vc == AF_NONE && !hashed) {
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
		/* for drawing, a subtree under the share `prune` that merges with
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
					for (c = 0; c < AF_CLOCK_RECORDED; c++) {
						tree->pt.nodes[vv].self[c] += rn->self[c];
						tree->hidden[vv][c] += tree->raw_total[rr][c] - rn->self[c];
					}
					tree->pt.nodes[vv].calls += rn->calls;
					tree->pt.nodes[vv].base += rn->base;
					tree->pt.nodes[vv].lines |= rn->lines;
					continue;
				}
				stack[kept++] = stack[k];
			}
			depth = kept;
		}
		/* the walk chases links through the trace's nodes, each a cache
		 * miss: the first child of every node left to visit is fetched
		 * while the others are */
		for (k = group; k < depth; k++)
			if (raw->nodes[stack[k].raw].child != AF_NONE)
				__builtin_prefetch(&raw->nodes[raw->nodes[stack[k].raw].child]);
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
				for (c = 0; c < AF_CLOCK_RECORDED; c++) {
					uint64_t a = trace->started[r][c];
					uint64_t b = raw->nodes[rp].parent == AF_NONE ? 0
					                                              : trace->started[rp][c];
					tree->offset[v][c] = a > b ? a - b : 0;
				}
			}
			for (c = 0; c < AF_CLOCK_RECORDED; c++)
				tree->pt.nodes[v].self[c] += rn->self[c];
			tree->pt.nodes[v].calls += rn->calls;
			tree->pt.nodes[v].base += rn->base;
			tree->pt.nodes[v].lines |= rn->lines;
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

af_status af_tree_seal(af_tree *tree, af_error *err)
{
	size_t n, i;

	n = tree->pt.len;
	tree->depth = af_calloc(tree->mem, n, sizeof *tree->depth);
	tree->total = af_calloc(tree->mem, n, sizeof *tree->total);
	/* only differential input has a first count to sum */
	tree->base_total = tree->differential
	                   ? af_calloc(tree->mem, n, sizeof *tree->base_total) : NULL;
	if (!tree->depth || !tree->total || (tree->differential && !tree->base_total))
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory building the call tree");
	/* siblings are drawn in name order */
	if (!tree->rank && tree->shared) {
		af_shared_names *s = tree->shared;
		pthread_mutex_lock(&s->rank_lock);
		if (!s->rank)
			s->rank = af_rank_names(s->mem, &s->names);
		tree->rank = s->rank;
		pthread_mutex_unlock(&s->rank_lock);
	} else if (!tree->rank) {
		tree->rank = tree->own_rank = af_rank_names(tree->mem, &tree->own);
	}
	if (!tree->rank)
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory building the call tree");
	/* parents precede children: depths forwards, totals backwards */
	for (i = 1; i < n; i++)
		tree->depth[i] = tree->depth[tree->pt.nodes[i].parent] + 1;
	for (i = n; i-- > 0;) {
		const af_pnode *nd = &tree->pt.nodes[i];
		int c;
		for (c = 0; c < AF_CLOCK_RECORDED; c++) {
			tree->total[i][c] += nd->self[c];
			if (i < tree->hidden_cap)
				tree->total[i][c] += tree->hidden[i][c];
		}
		tree->total[i][AF_CLOCK_WAIT] += tree->wait ? af_pnode_wait(nd) : 0;
		if (i > 0)
			for (c = 0; c < AF_CLOCK_COUNT; c++)
				tree->total[nd->parent][c] += tree->total[i][c];
		if (tree->base_total) {
			tree->base_total[i] += nd->base;
			if (i > 0)
				tree->base_total[nd->parent] += tree->base_total[i];
		}
	}
	return AF_OK;
}

static af_status af_tree_build(const af_trace *trace, const af_tree_options *opt,
                               af_tree **out, af_error *err)
{
	af_tree *tree;
	af_u32map tnames = {.mem = trace->mem}; /* thread name id -> threads
	                                           with that name */
	af_view view;
	uint32_t root, all;
	size_t i, selected = 0;
	af_status st;

	*out = NULL;
	st = af_view_init(&view, trace->mem, opt, trace->info.has_clock[AF_CLOCK_WAIT],
	                  trace->flamechart, err);
	if (st != AF_OK)
		return st;
	tree = af_calloc(trace->mem, 1, sizeof *tree);
	if (!tree) {
		af_view_free(&view);
		return af_mem_explain(trace->mem,
		                      af_fail(err, AF_ERR_NOMEM, -1,
		                              "out of memory building the call tree"),
		                      err);
	}
	tree->mem = af_mem_ref(trace->mem);
	tree->own.mem = tree->mem;
	tree->names = &tree->own;
	tree->name_of.mem = tree->mem;
	tree->full.mem = tree->mem;
	tree->libs.mem = tree->mem;
	tree->lib.mem = tree->mem;
	af_ptree_init(&tree->pt, trace->limits.max_nodes, tree->mem);
	/* without renaming rules every tree of a trace names its frames alike:
	 * those names are made and ranked once, and shared */
	if (!af_view_renames(opt) &&
	    (trace->info.variant == AF_VARIANT_FOLDED || !(opt && opt->signatures))) {
		tree->shared = af_trace_names_ref(trace);
		if (!tree->shared) {
			af_tree_free(tree);
			af_view_free(&view);
			return af_fail(err, AF_ERR_NOMEM, -1, "out of memory naming frames");
		}
		tree->names = &tree->shared->names;
	}
	all = tree->shared ? 0 : af_names_intern(&tree->own, "all", 3);
	root = all == AF_NONE ? AF_NONE : af_ptree_root(&tree->pt, all);
	if (root == AF_NONE) {
		af_tree_free(tree);
		af_view_free(&view);
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory building the call tree");
	}
	/* same-named threads merge: their nodes find children by hash */
	for (i = 0; i < trace->nthreads; i++) {
		const af_thread *th = &trace->threads[i];
		uint32_t tname, count = 0;
		if (!th->records ||
		    (opt && opt->one_thread ? i != opt->thread : !af_thread_selected(th, opt)))
			continue;
		tname = af_tree_thread_name(tree, th, i);
		if (tname == AF_NONE || af_view_thread_name(&view, tname))
			goto nomem;
		af_u32map_get(&tnames, tname, &count);
		if (af_u32map_put(&tnames, tname, count + 1))
			goto nomem;
	}
	if (af_set_hashed(tree, root, 0))
		goto nomem;
	/* cutting subtrees while building needs the final shape and a
	 * recorded clock: not with rules that reshape the tree, nor for wait */
	if (opt && opt->prune > 0 && !trace->started && !opt->reverse && trace->totals &&
	    !trace->info.differential && /* a frame has a change by the lines under it */
	    (unsigned)opt->prune_clock < AF_CLOCK_RECORDED && !af_view_reshapes(opt)) {
		uint64_t whole = 0;
		tree->prune_clock = opt->prune_clock;
		tree->raw_total = (const uint64_t(*)[AF_CLOCK_RECORDED])trace->totals;
		/* the share is of what this tree will hold: the selected threads */
		if (trace->info.variant == AF_VARIANT_FOLDED && trace->tree.len) {
			uint32_t r;
			for (r = trace->tree.nodes[0].child; r != AF_NONE;
			     r = trace->tree.nodes[r].sibling)
				if (af_first_frame_selected(trace, r, opt))
					whole += tree->raw_total[r][tree->prune_clock];
		}
		for (i = 0; i < trace->nthreads; i++) {
			const af_thread *th = &trace->threads[i];
			if (!th->records ||
			    (opt->one_thread ? i != opt->thread : !af_thread_selected(th, opt)))
				continue;
			whole += tree->raw_total[th->root][tree->prune_clock];
		}
		tree->prune_below = (uint64_t)(opt->prune * (double)whole);
	}
	if (trace->info.variant == AF_VARIANT_FOLDED &&
	    (selected = af_first_frames_selected(trace, opt)) > 0) {
		st = af_tree_copy(tree, trace, 0, root, opt, err);
		if (st != AF_OK)
			goto fail;
	}
	/* folded lines with no frame (" 3", ";;;; 3") count for the root,
	 * unless --thread picks lines by a first frame they lack */
	if (trace->info.variant == AF_VARIANT_FOLDED && trace->tree.len &&
	    (!opt || (!opt->nthreads && !opt->nprocesses) || opt->one_thread) &&
	    trace->tree.nodes[0].lines) {
		tree->pt.nodes[root].self[AF_CLOCK_WALL] += trace->tree.nodes[0].self[AF_CLOCK_WALL];
		tree->pt.nodes[root].base += trace->tree.nodes[0].base;
		tree->pt.nodes[root].lines |= trace->tree.nodes[0].lines;
		selected++;
	}
	for (i = 0; i < trace->nthreads; i++) {
		const af_thread *th = &trace->threads[i];
		uint32_t tname, v, count = 0;

		if (!th->records)
			continue;
		if (opt && opt->one_thread ? i != opt->thread : !af_thread_selected(th, opt))
			continue;
		selected++;
		tname = af_tree_thread_name(tree, th, i);
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
		af_view_free(&view);
		return af_fail(err, AF_ERR_EMPTY, -1, "%s", af_empty_message(trace, opt));
	}

	af_u32map_free(&tree->name_of);
	af_free(tree->mem, tree->hashed);
	tree->hashed = NULL;
	tree->raw_total = NULL;
	tree->is_time = trace->info.variant != AF_VARIANT_FOLDED;
	tree->differential = trace->info.differential;
	tree->decimals = trace->info.decimals;
	if (trace->info.sample_unit && !(tree->unit = af_strdup(tree->mem, trace->info.sample_unit))) {
		af_tree_free(tree);
		af_view_free(&view);
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
	}
	tree->not_threads = opt && (opt->reverse || opt->focus);
	tree->wait = trace->info.has_clock[AF_CLOCK_WAIT];
	if (opt && opt->reverse && (st = af_view_reverse(&view, &tree->pt, err)) != AF_OK) {
		af_tree_free(tree);
		af_view_free(&view);
		return st;
	}
	if (opt && opt->reverse) {
		/* a reversed path began nowhere: a flame chart places it by order */
		af_free(tree->mem, tree->offset);
		tree->offset = NULL;
		tree->offset_cap = 0;
	}
	st = af_view_reshape(&view, &tree->pt, tree->names,
	                     tree->offset ? &tree->offset : NULL, &tree->offset_cap, err);
	af_view_free(&view);
	if (st != AF_OK) {
		af_tree_free(tree);
		return st;
	}
	if ((st = af_tree_seal(tree, err)) != AF_OK) {
		af_tree_free(tree);
		return st;
	}
	*out = tree;
	return AF_OK;
nomem:
	st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory building the call tree");
fail:
	af_u32map_free(&tnames);
	af_tree_free(tree);
	af_view_free(&view);
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
	af_names_free(&tree->own);
	af_shared_names_unref(tree->shared);
	af_u32map_free(&tree->name_of);
	af_u32map_free(&tree->full);
	af_names_free(&tree->libs);
	af_u32map_free(&tree->lib);
	af_free(mem, tree->hashed);
	af_free(mem, tree->hidden);
	af_free(mem, tree->own_rank);
	af_free(mem, tree->depth);
	af_free(mem, tree->total);
	af_free(mem, tree->base_total);
	af_free(mem, tree->offset);
	af_free(mem, tree->removed);
	af_free(mem, tree->unit);
	af_free(mem, tree);
	af_mem_unref(mem);
}

af_mem *af_tree_mem(const af_tree *tree)
{
	return tree->mem;
}

int af_tree_is_diff(const af_tree *tree)
{
	return tree->diff;
}

uint32_t af_tree_band(const af_tree *tree)
{
	return tree->diff ? tree->band : AF_NONE;
}

int af_tree_is_pruned(const af_tree *tree)
{
	return tree->hidden != NULL;
}

const char *af_tree_unit(const af_tree *tree)
{
	return tree->unit;
}

int af_tree_is_time(const af_tree *tree)
{
	return tree->is_time;
}

int af_tree_is_differential(const af_tree *tree)
{
	return tree->differential;
}

unsigned af_tree_decimals(const af_tree *tree)
{
	return tree->decimals;
}

size_t af_tree_size(const af_tree *tree)
{
	return tree->pt.len;
}

void af_tree_node(const af_tree *tree, size_t i, af_node_info *info)
{
	const af_pnode *n = &tree->pt.nodes[i];
	int c;

	uint32_t whole;

	info->name = tree->names->str[n->key];
	info->full_name = af_u32map_get(&tree->full, n->key, &whole) ? tree->names->str[whole]
	                                                              : info->name;
	info->library = af_tree_lib(tree, n->key);
	info->parent = n->parent;
	info->depth = tree->depth[i];
	for (c = 0; c < AF_CLOCK_COUNT; c++) {
		info->self[c] = af_tree_self(tree, (uint32_t)i, (af_clock)c);
		info->total[c] = tree->total[i][c];
	}
	info->calls = n->calls;
	info->base_self = n->base;
	info->base_total = tree->base_total ? tree->base_total[i] : 0;
	info->removed = tree->removed ? tree->removed[i] : 0;
	info->thread = info->depth == 1 && !tree->not_threads;
}

size_t af_tree_hottest(const af_tree *tree, af_clock clock, uint32_t min_depth)
{
	size_t i, best = 0;
	uint64_t most = 0;

	for (i = 1; i < tree->pt.len; i++) {
		uint64_t self = af_tree_self(tree, (uint32_t)i, clock);
		if (tree->depth[i] >= min_depth && self > most) {
			most = self;
			best = i;
		}
	}
	return best;
}

const af_pnode *af_tree_nodes(const af_tree *tree)
{
	return tree->pt.nodes;
}

const char *af_tree_name(const af_tree *tree, uint32_t node)
{
	return tree->names->str[tree->pt.nodes[node].key];
}

uint32_t af_tree_name_id(const af_tree *tree, uint32_t node)
{
	return tree->pt.nodes[node].key;
}

uint64_t af_tree_names_serial(const af_tree *tree)
{
	return tree->shared && tree->full.len == 0 ? tree->shared->serial : 0;
}

uint32_t af_tree_name_count(const af_tree *tree)
{
	return tree->names->len;
}

const char *af_tree_name_by_id(const af_tree *tree, uint32_t id)
{
	return tree->names->str[id];
}

uint64_t af_tree_self(const af_tree *tree, uint32_t node, af_clock clock)
{
	const af_pnode *n = &tree->pt.nodes[node];
	if (clock == AF_CLOCK_WAIT)
		return tree->wait ? af_pnode_wait(n) : 0;
	return n->self[clock];
}

uint64_t af_tree_total(const af_tree *tree, uint32_t node, af_clock clock)
{
	return tree->total[node][clock];
}

int af_tree_offset(const af_tree *tree, uint32_t node, af_clock clock,
                   uint64_t *offset)
{
	if (!tree->offset || tree->depth[node] < 2 || node >= tree->offset_cap ||
	    (unsigned)clock >= AF_CLOCK_RECORDED)
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
