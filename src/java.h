/*
 * java.h - Java names, as traces and mapping files write them.  Used by
 * the trace parser (frame names with parameter types) and the mapping
 * reader (deobfuscated descriptors, which the view shows); it knows
 * nothing of either.
 */
#ifndef AF_JAVA_H
#define AF_JAVA_H

#include "internal.h"

/** Appends the Java type at d[*i] (a descriptor type, "[I" or
 * "Lcom/x/Foo;") in source form ("int[]", "com.x.Foo") and moves *i past
 * it; each class is passed through `rename` when given (NULL back: kept).
 * 0, -1 when it does not parse, -2 when out of memory. */
int af_java_type(af_buf *b, const char *d, size_t len, size_t *i,
                 const char *(*rename)(const void *ctx, const char *cls),
                 const void *ctx);

#endif
