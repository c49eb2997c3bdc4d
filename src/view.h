/*
 * view.h - the rules of a call-tree view: how frames are named
 * (deobfuscation, labels without the package) and how the named tree is
 * shaped (paths reversed, exclude, focus, collapsed recursion, a minimum
 * share).  tree.c calls these while building an af_tree; nothing else
 * needs them.
 */
#ifndef AF_VIEW_H
#define AF_VIEW_H

#include <regex.h>

#include "trace.h"

typedef struct af_view {
	const af_tree_options *opt;
	regex_t focus, exclude;
	int has_focus, has_exclude;
	uint8_t *hit;         /* per name id: bit 0 checked, 1 focus, 2 exclude */
	size_t hit_cap;
	int wait;             /* the trace has both recorded clocks */
	int flamechart;       /* siblings never merge; offsets follow frames */
	af_mem *mem;          /* the tree's allocator */
} af_view;

/** Compiles the view's expressions; AF_ERR_ARG with regerror's words when
 * one is not a valid POSIX extended regular expression. */
af_status af_view_init(af_view *v, af_mem *mem, const af_tree_options *opt,
                       int wait, int flamechart, af_error *err);
void af_view_free(af_view *v);

/** Marks name id `name` as a thread's: expressions never match it (threads
 * are chosen with af_tree_options.threads).  0, or -1 when out of memory. */
int af_view_thread_name(af_view *v, uint32_t name);

/** 1 when names are rewritten (mapping, strip_package). */
int af_view_renames(const af_tree_options *opt);

/** 1 when the shape of the tree changes (focus, exclude, collapse,
 * min_share): subtrees cannot be cut for drawing while it is built. */
int af_view_reshapes(const af_tree_options *opt);

/** The interned display name of method `mid`, as af_trace_frame_name()
 * gives it, then deobfuscated and stripped as the options say.  When the
 * package is stripped, `full` (if not NULL) maps the name's id to the id
 * of the whole name.  AF_NONE when out of memory. */
uint32_t af_view_method_name(const af_trace *t, uint32_t mid,
                             const af_tree_options *opt, af_names *names,
                             af_u32map *full);

/** The interned display name of a folded frame, deobfuscated ("a.b.c" is
 * method c of class a.b; slashes are package separators) and stripped;
 * `full` as for af_view_method_name(). */
uint32_t af_view_frame_name(const char *frame, const af_tree_options *opt,
                            af_names *names, af_u32map *full);

/** Rebuilds `pt` (keys are name ids; parents before children, one root)
 * with every path turned around, leaf first, as flamegraph.pl --reverse
 * does with each folded line.  A node's calls go to its own frame, now at
 * depth 1.  AF_ERR_NOMEM when out of memory (or over the node limit). */
af_status af_view_reverse(af_view *v, af_ptree *pt, af_error *err);

/** Applies the shape rules to `pt` (keys are ids in `names`; parents
 * before children), replacing it.  `offset`, when not NULL, holds per node
 * where a flame chart's call began within its caller; it is rebuilt to
 * match.  AF_ERR_EMPTY when nothing is left. */
af_status af_view_reshape(af_view *v, af_ptree *pt, const af_names *names,
                          uint64_t (**offset)[AF_CLOCK_RECORDED],
                          size_t *offset_cap, af_error *err);

#endif
