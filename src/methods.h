/*
 * methods.h - what the method table (methods.c) shares with the call graph
 * (callgraph.c), which gives the same rows from a named call tree.
 */
#ifndef AF_METHODS_H
#define AF_METHODS_H

#include "internal.h"

/** The table's order: inclusive time, then exclusive time, then calls and
 * recursive calls (all descending), then name (bytes).  For qsort() over
 * af_method_row. */
int af_method_row_cmp(const void *a, const void *b);

#endif
