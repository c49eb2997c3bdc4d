/*
 * callgraph.h - the call graph's private side (callgraph.c), for the
 * renderers that draw it (render/dot.c, render/profile_html.c).
 */
#ifndef AF_CALLGRAPH_H
#define AF_CALLGRAPH_H

#include "internal.h"

/** The graph with what owns its arrays. */
typedef struct af_cgraph {
	af_call_graph pub; /* first: the public pointer is this struct's */
	af_mem *mem;       /* the tree's allocator, referenced */
} af_cgraph;

/** The allocator (and budget) the graph's arrays came from, for the
 * renderers' scratch. */
static inline af_mem *af_call_graph_mem(const af_call_graph *g)
{
	return ((const af_cgraph *)g)->mem;
}

#endif
