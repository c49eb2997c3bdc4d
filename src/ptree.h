/*
 * ptree.h - the prefix tree of call chains.
 *
 * af_ptree is a tree whose nodes are found by (parent, key): the parser keys
 * nodes by method id, the call-tree view by interned frame name.  Nodes live
 * in one array; links are indices, so the whole tree frees in one call and
 * no walk recurses on the C stack.  It knows nothing of traces.
 */
#ifndef AF_PTREE_H
#define AF_PTREE_H

#include "internal.h"

typedef struct af_pnode {
	/* what the record loop touches comes first: these 40 bytes share one
	 * cache line more often than the whole node does */
	uint64_t self[AF_CLOCK_RECORDED]; /* wall, cpu: wait is derived */
	uint64_t calls;
	uint32_t key;
	uint32_t child;   /* first child, AF_NONE when a leaf */
	uint32_t sibling; /* next sibling, AF_NONE when last */
	uint32_t nkids;   /* children added by af_ptree_child/adopt */
	uint32_t parent;  /* AF_NONE for a root */
	uint32_t lines;   /* folded input: AF_LINE_* of the lines ending here */
	uint64_t base;    /* differential folded input: the first count */
} af_pnode;

/* What af_pnode.lines records: the path had a line of its own (even with
 * a count of 0), with one count or with two (BEFORE AFTER).  flamegraph.pl
 * colours a frame by its change only when the first line through it has
 * two counts. */
#define AF_LINE_ONE 1u
#define AF_LINE_TWO 2u

/** Adds node `from`'s own time and counts to node `to` (paths merged). */
static inline void af_pnode_add(af_pnode *to, const af_pnode *from)
{
	int c;
	for (c = 0; c < AF_CLOCK_RECORDED; c++)
		to->self[c] += from->self[c];
	to->calls += from->calls;
	to->base += from->base;
	to->lines |= from->lines;
}

/** Off-CPU self time of a node: wall minus thread-cpu, never below zero. */
static inline uint64_t af_pnode_wait(const af_pnode *n)
{
	return n->self[AF_CLOCK_WALL] > n->self[AF_CLOCK_CPU]
	               ? n->self[AF_CLOCK_WALL] - n->self[AF_CLOCK_CPU] : 0;
}

/* A node with up to AF_PTREE_NARROW children finds them by walking its
 * list (they are few, and the newest is checked first); the children of a
 * wider node are all in the hash table.  Most nodes are narrow, so the table
 * stays small and most lookups touch no memory but the nodes. */
#define AF_PTREE_NARROW 8

/* A hash slot holds its key, so probing never touches the nodes. */
typedef struct af_slot {
	uint32_t parent, key;
	uint32_t node; /* node index + 1, 0 = empty */
} af_slot;

typedef struct af_ptree {
	af_pnode *nodes;
	size_t len, cap;
	af_slot *slots;  /* open addressing */
	size_t nslots;   /* a power of two */
	size_t nhashed;  /* slots in use */
	uint32_t max_nodes;
	int adopted;     /* a root became a child: parents may follow children */
	af_mem *mem;
} af_ptree;

void af_ptree_init(af_ptree *t, uint32_t max_nodes, af_mem *mem);

/** Makes room for about `nodes` nodes at once (a hint; 0 on success). */
int af_ptree_reserve(af_ptree *t, size_t nodes);
void af_ptree_free(af_ptree *t);

/** Adds a root with `key`; returns its index or AF_NONE when out of memory
 * or over max_nodes. */
uint32_t af_ptree_root(af_ptree *t, uint32_t key);

/** Finds the child of `parent` with `key`, adding it when missing; returns
 * its index or AF_NONE when out of memory or over max_nodes. */
uint32_t af_ptree_child(af_ptree *t, uint32_t parent, uint32_t key);

/** Appends a new child of `parent` with `key`, never merging with an
 * existing one (for flame charts); AF_NONE when out of memory.  A tree
 * built this way is not searched with af_ptree_child(). */
uint32_t af_ptree_append(af_ptree *t, uint32_t parent, uint32_t key);

/** Appends every node of `src` to `dst` (their links moved by the old
 * length of `dst`, which is returned in `*offset`); `src` is left as it
 * was.  Returns 0, or -1 when out of memory or over max_nodes. */
int af_ptree_absorb(af_ptree *dst, const af_ptree *src, uint32_t *offset);

/** Fills `order` (room for every node) with the nodes, each parent before
 * its children, walking from the roots (an adopted root can come after its
 * children by index).  Returns how many; `stack` is scratch of the same
 * size. */
size_t af_ptree_order(const af_ptree *t, uint32_t *order, uint32_t *stack);

/** Turns the root `old_root` into a child of the root `new_root` under
 * `key`.  `new_root` must have no child with `key` yet.  Everything below
 * `old_root` keeps its indices.  Returns 0, or -1 when out of memory. */
int af_ptree_adopt(af_ptree *t, uint32_t new_root, uint32_t old_root,
                   uint32_t key);

#endif
