/*
 * tree.h - the public call tree (af_tree): a prefix tree (ptree.h) keyed by
 * interned frame names (names.h), built from a parsed trace through a view's
 * rules, or by comparing two trees.
 */
#ifndef AF_TREE_H
#define AF_TREE_H

#include "names.h"
#include "ptree.h"

/* ------------------------------------------------------------------ */
/* Interned names (names.h) shared by a trace's trees                  */

/** The frame and thread names of a trace's default view (no renaming
 * rules), made once on first use and shared, with their order, by every
 * tree that needs no other names.  Counted references: the trace holds
 * one, each tree using them another. */
typedef struct af_shared_names af_shared_names;
void af_shared_names_unref(af_shared_names *s);

struct af_tree {
	af_mem *mem;        /* the trace's: allocator and budget */
	af_ptree pt;        /* keys are name ids */
	uint32_t *depth;
	uint64_t (*total)[AF_CLOCK_COUNT];
	uint64_t *base_total;
	uint64_t (*hidden)[AF_CLOCK_RECORDED]; /* pruned: time of cut subtrees */
	size_t hidden_cap;
	const uint64_t (*raw_total)[AF_CLOCK_RECORDED]; /* while pruning: the trace's */
	uint64_t prune_below;
	af_clock prune_clock;
	uint64_t (*offset)[AF_CLOCK_RECORDED]; /* flame chart of a trace: where a
	                    call began within its caller; NULL otherwise */
	size_t offset_cap;
	af_names own;       /* names this tree interned itself */
	const af_names *names; /* &own, or the trace's shared names */
	af_shared_names *shared; /* held while the tree borrows its names */
	af_u32map name_of;  /* method id -> name id, while building */
	af_u32map full;     /* name id -> id of the name with its package,
	                       where labels are without it */
	af_names libs;      /* the libraries of native frames */
	af_u32map lib;      /* name id -> id in libs, for frames with one */
	uint8_t *hashed;    /* while building: see af_set_hashed() */
	const uint32_t *rank; /* per name id * 2 (+1 when ended by ';'): order */
	uint32_t *own_rank; /* the rank this tree made, when its names are own */
	size_t hashed_cap;
	int is_time;        /* values are µs (trace input) */
	int wait;           /* both recorded clocks: the wait clock is there */
	int differential;   /* folded input with two counts */
	int diff;           /* made by af_tree_diff() */
	int not_threads;    /* the root's children are frames, not threads
	                       (--reverse, --focus) */
	unsigned decimals;  /* values are whole numbers of 10^-decimals */
	char *unit;         /* af_tree_unit(): the input's unit, or NULL */
	uint8_t *removed;   /* diff: 1 for the nodes of the removed band */
	uint32_t band;      /* diff: the band's head under the root, or AF_NONE */
};

/** The library of the frames named by name id `name` (a native frame's,
 * "libart.so"), or NULL. */
const char *af_tree_lib(const af_tree *tree, uint32_t name);

/** Gives the frames named `name` the library `lib` (NULL: none), unless
 * they have one: the first found stays.  -1 when out of memory. */
int af_tree_set_lib(af_tree *tree, uint32_t name, const char *lib);

/** Depths, totals and the order of names, once the nodes are final;
 * parents must precede their children.  AF_ERR_NOMEM when out of memory. */
af_status af_tree_seal(af_tree *tree, af_error *err);

/** The tree's allocator and budget, for the layout and renderers. */
af_mem *af_tree_mem(const af_tree *tree);

/* ------------------------------------------------------------------ */
/* Private access to the public call-tree view, for layout and output  */
/* (inline: the layout and the writers ask them several times a frame) */

static inline const af_pnode *af_tree_nodes(const af_tree *tree)
{
	return tree->pt.nodes;
}

static inline uint32_t af_tree_name_id(const af_tree *tree, uint32_t node)
{
	return tree->pt.nodes[node].key;
}

static inline const char *af_tree_name_by_id(const af_tree *tree, uint32_t id)
{
	return tree->names->str[id];
}

/* Every name by id, as af_tree_name_by_id() reads them. */
static inline const char *const *af_tree_name_table(const af_tree *tree)
{
	return (const char *const *)tree->names->str;
}

static inline const char *af_tree_name(const af_tree *tree, uint32_t node)
{
	return af_tree_name_by_id(tree, af_tree_name_id(tree, node));
}

uint32_t af_tree_name_count(const af_tree *tree);
/** Non-zero when the tree names its frames with its trace's shared names
 * (no renaming rules): the same number in every such tree of the trace,
 * and in no other tree of the process.  Name ids mean the same in trees
 * with the same number. */
uint64_t af_tree_names_serial(const af_tree *tree);

static inline uint64_t af_tree_total(const af_tree *tree, uint32_t node, af_clock clock)
{
	return tree->total[node][clock];
}

/** A node's self time on any clock, the derived wait clock included. */
static inline uint64_t af_tree_self(const af_tree *tree, uint32_t node, af_clock clock)
{
	const af_pnode *n = &tree->pt.nodes[node];
	if (clock == AF_CLOCK_WAIT)
		return tree->wait ? af_pnode_wait(n) : 0;
	return n->self[clock];
}

static inline uint32_t af_tree_depth(const af_tree *tree, uint32_t node)
{
	return tree->depth[node];
}

/** The order of names among siblings, as flamegraph.pl sorts folded lines:
 * entry name_id * 2 for a frame with self time (its line ends in a space),
 * name_id * 2 + 1 for one without (its lines go on with ';'). */
const uint32_t *af_tree_ranks(const af_tree *tree);

/** A diff's removed band (see af_tree_diff), or AF_NONE. */
static inline uint32_t af_tree_band(const af_tree *tree)
{
	return tree->diff ? tree->band : AF_NONE;
}

/** 1 when subtrees were cut for drawing (af_tree_options.prune). */
int af_tree_is_pruned(const af_tree *tree);

/** In a trace's flame chart, where call `node` began within its caller, in
 * µs of `clock`; 0 when the tree places frames by order instead (folded
 * input, and the wait clock, which no record measures). */
static inline int af_tree_offset(const af_tree *tree, uint32_t node, af_clock clock,
                                 uint64_t *offset)
{
	if (!tree->offset || tree->depth[node] < 2 || node >= tree->offset_cap ||
	    (unsigned)clock >= AF_CLOCK_RECORDED)
		return 0;
	*offset = tree->offset[node][clock];
	return 1;
}

#endif
