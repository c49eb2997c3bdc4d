/*
 * tree_names.h - the names every tree of a trace shares when no rule
 * renames a frame (tree_names.c), and the order siblings are drawn in.
 */
#ifndef AF_TREE_NAMES_H
#define AF_TREE_NAMES_H

#include <pthread.h>
#include <stdatomic.h>

#include "trace.h"
#include "tree.h"

struct af_shared_names {
	atomic_uint refs;   /* the trace's, and one per tree using them */
	af_mem *mem;
	af_names names;     /* "all" (id 0), thread names, frame names */
	uint32_t *of_index; /* method index, or folded frame id -> name id */
	af_u32map of_key;   /* method ids the method table does not name -> name id */
	uint32_t *thread;   /* trace thread index -> name id */
	uint8_t *keys;      /* name id -> how many frame keys have it, up to 2 */
	uint64_t serial;    /* unique in the process: see af_tree_names_serial() */
	/* as af_tree_ranks(): made on a thread of their own, started as
	 * soon as the names are made, while the trees are built (every tree
	 * sealed over the names wants them); by the first tree sealed when
	 * no thread starts */
	pthread_mutex_t rank_lock;
	uint32_t *rank;
	int ranking;        /* `ranker` is making `ranked` */
	pthread_t ranker;
	uint32_t *ranked;
};

/** Every name's place in sibling order, both ways it can end (see
 * af_tree_ranks()); NULL when out of memory. */
uint32_t *af_rank_names(af_mem *mem, const af_names *names);

/** A reference to the trace's shared names, made by the first caller (the
 * trace is const to its readers: its lock guards this one lazy field);
 * NULL when out of memory.  af_shared_names_unref() lets it go. */
af_shared_names *af_trace_names_ref(const af_trace *trace);

/** The names' ranks, waited for or made by the first caller; NULL when out
 * of memory. */
const uint32_t *af_shared_ranks(af_shared_names *s);

#endif
