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
#include "tree_names.h"
#include "view.h"

/* ------------------------------------------------------------------ */
/* The call-tree view                                                  */

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

/* Adds the time of raw node `r`'s children's subtrees, which are not
 * copied, to view node `v` as hidden; -1 when out of memory. */
static int af_tree_hide(af_tree *tree, const af_trace *trace, uint32_t v, uint32_t r)
{
	size_t old = tree->hidden_cap;
	int c;

	if (AF_GROW(tree->mem, tree->hidden, tree->hidden_cap, tree->pt.len))
		return -1;
	if (tree->hidden_cap > old)
		memset(tree->hidden + old, 0, (tree->hidden_cap - old) * sizeof *tree->hidden);
	for (c = 0; c < AF_CLOCK_RECORDED; c++)
		tree->hidden[v][c] += tree->raw_total[r][c] - trace->tree.nodes[r].self[c];
	return 0;
}

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
					if (af_tree_hide(tree, trace, vv, rr))
						goto nomem;
					af_pnode_add(&tree->pt.nodes[vv], &raw->nodes[rr]);
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
			af_pnode_add(&tree->pt.nodes[v], rn);
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

/* 1 when the threads `opt` picks hold at least a quarter of the trace's
 * records: then one pass over all its nodes (af_tree_copy_flat) reads
 * fewer cache lines than walking their subtrees.  A few threads of many
 * (--thread) are walked.  Folded lines are picked by their first frame,
 * not counted by thread: one pass. */
static int af_one_pass_pays(const af_trace *trace, const af_tree_options *opt)
{
	uint64_t picked = 0, all = 0;
	size_t i;

	if (trace->info.variant == AF_VARIANT_FOLDED)
		return 1;
	for (i = 0; i < trace->nthreads; i++) {
		const af_thread *th = &trace->threads[i];
		all += th->records;
		if (th->records && af_thread_selected(th, opt))
			picked += th->records;
	}
	return picked >= all / 4;
}

/* Copies, for drawing, the raw subtrees whose roots `view_of` maps to view
 * nodes (every other entry AF_NONE) in one pass over the trace's nodes as
 * they lie in memory, where af_tree_copy's walk from the roots misses the
 * cache at nearly every node.  Parents come before children by index when
 * no root was adopted.  The view's siblings come in another order than
 * af_tree_copy's, which drawing does not show: it sorts them by name.
 * `view_of` is left mapping each raw node copied to its view node.
 *
 * A subtree under the share `prune` is kept as its total alone when its
 * node can merge with nothing: its parent has one raw node, and its name
 * one frame key.  (af_tree_copy sees a whole family at once and needs only
 * the first; here a sibling of the same name may come later.) */
static af_status af_tree_copy_flat(af_tree *tree, const af_trace *trace,
                                   uint32_t *view_of, const af_tree_options *opt,
                                   af_error *err)
{
	const af_pnode *raw = trace->tree.nodes;
	const uint8_t *keys = tree->shared->keys;
	size_t n = trace->tree.len, i;
	int folded = trace->info.variant == AF_VARIANT_FOLDED;

	for (i = 0; i < n; i++) {
		const af_pnode *rn = &raw[i];
		uint32_t v = rn->parent == AF_NONE ? AF_NONE : view_of[rn->parent];
		uint32_t name, vc;
		int merges;

		if (v == AF_NONE ||
		    (folded && rn->parent == 0 && !af_first_frame_selected(trace, (uint32_t)i, opt)))
			continue;
		name = af_view_name(tree, trace, rn->key, opt);
		if (name == AF_NONE ||
		    (trace->frame_lib && af_tree_set_lib(tree, name, af_key_lib(trace, rn->key))))
			goto nomem;
		/* a name that can have come before under v is looked for; any
		 * other is new there (a lookup for one name only ever meets the
		 * nodes of that name, which all came through af_ptree_child) */
		merges = tree->hashed[v] || keys[name] > 1;
		vc = merges ? af_ptree_child(&tree->pt, v, name) : af_ptree_append(&tree->pt, v, name);
		if (vc == AF_NONE) {
			if (tree->pt.len < tree->pt.max_nodes)
				goto nomem;
			return af_fail(err, AF_ERR_LIMIT, -1, "call tree has more than %u nodes",
			               tree->pt.max_nodes);
		}
		if (af_set_hashed(tree, vc, merges))
			goto nomem;
		af_pnode_add(&tree->pt.nodes[vc], rn);
		if (!merges && tree->raw_total[i][tree->prune_clock] < tree->prune_below) {
			if (af_tree_hide(tree, trace, vc, (uint32_t)i))
				goto nomem;
			continue; /* its children find no view node */
		}
		view_of[i] = vc;
	}
	return AF_OK;
nomem:
	return af_fail(err, AF_ERR_NOMEM, -1, "out of memory building the call tree");
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
	if (!tree->rank && tree->shared)
		tree->rank = af_shared_ranks(tree->shared);
	else if (!tree->rank)
		tree->rank = tree->own_rank = af_rank_names(tree->mem, &tree->own);
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
	uint32_t root, all, *view_of = NULL; /* raw node -> view node: see
	                                        af_tree_copy_flat() */
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
		/* drawn from more than one thread: one pass over all the nodes */
		if (tree->shared && tree->shared->keys && !trace->tree.adopted &&
		    !opt->one_thread && af_one_pass_pays(trace, opt)) {
			view_of = af_malloc(tree->mem, (trace->tree.len ? trace->tree.len : 1) *
			                                   sizeof *view_of);
			if (!view_of)
				goto nomem;
			memset(view_of, 0xff, trace->tree.len * sizeof *view_of);
		}
	}
	if (trace->info.variant == AF_VARIANT_FOLDED &&
	    (selected = af_first_frames_selected(trace, opt)) > 0) {
		if (view_of)
			view_of[0] = root;
		else if ((st = af_tree_copy(tree, trace, 0, root, opt, err)) != AF_OK)
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
		if (view_of)
			view_of[th->root] = v;
		else if ((st = af_tree_copy(tree, trace, th->root, v, opt, err)) != AF_OK)
			goto fail;
	}
	if (view_of && (st = af_tree_copy_flat(tree, trace, view_of, opt, err)) != AF_OK)
		goto fail;
	af_free(tree->mem, view_of);
	view_of = NULL;
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
	af_free(tree->mem, view_of);
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

uint64_t af_tree_names_serial(const af_tree *tree)
{
	return tree->shared && tree->full.len == 0 ? tree->shared->serial : 0;
}

uint32_t af_tree_name_count(const af_tree *tree)
{
	return tree->names->len;
}

const uint32_t *af_tree_ranks(const af_tree *tree)
{
	return tree->rank;
}
