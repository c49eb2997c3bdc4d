/*
 * tree.h - the public call tree (af_tree): a prefix tree (ptree.h) keyed by
 * interned frame names (names.h), built from a parsed trace through a view's
 * rules, or by comparing two trees.
 */
#ifndef AF_TREE_H
#define AF_TREE_H

#include "names.h"
#include "ptree.h"

/** The tree's allocator and budget, for the layout and renderers. */
af_mem *af_tree_mem(const af_tree *tree);

/* ------------------------------------------------------------------ */
/* Interned names (names.h) shared by a trace's trees                  */

/** The frame and thread names of a trace's default view (no renaming
 * rules), made once on first use and shared, with their order, by every
 * tree that needs no other names.  Counted references: the trace holds
 * one, each tree using them another. */
typedef struct af_shared_names af_shared_names;
void af_shared_names_unref(af_shared_names *s);

/* ------------------------------------------------------------------ */
/* Private access to the public call-tree view, for layout and output  */

const af_pnode *af_tree_nodes(const af_tree *tree);
const char *af_tree_name(const af_tree *tree, uint32_t node);
uint32_t af_tree_name_id(const af_tree *tree, uint32_t node);
uint32_t af_tree_name_count(const af_tree *tree);
const char *af_tree_name_by_id(const af_tree *tree, uint32_t id);
uint64_t af_tree_total(const af_tree *tree, uint32_t node, af_clock clock);
/** A node's self time on any clock, the derived wait clock included. */
uint64_t af_tree_self(const af_tree *tree, uint32_t node, af_clock clock);
uint32_t af_tree_depth(const af_tree *tree, uint32_t node);

/** The order of names among siblings, as flamegraph.pl sorts folded lines:
 * entry name_id * 2 for a frame with self time (its line ends in a space),
 * name_id * 2 + 1 for one without (its lines go on with ';'). */
const uint32_t *af_tree_ranks(const af_tree *tree);

/** A diff's removed band (see af_tree_diff), or AF_NONE. */
uint32_t af_tree_band(const af_tree *tree);

/** 1 when subtrees were cut for drawing (af_tree_options.prune). */
int af_tree_is_pruned(const af_tree *tree);

/** In a trace's flame chart, where call `node` began within its caller, in
 * µs of `clock`; 0 when the tree places frames by order instead (folded
 * input, and the wait clock, which no record measures). */
int af_tree_offset(const af_tree *tree, uint32_t node, af_clock clock,
                   uint64_t *offset);

#endif
