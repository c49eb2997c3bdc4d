/*
 * mapping.h - what the call-tree view needs of a ProGuard/R8 mapping beyond
 * the public lookups.
 */
#ifndef AF_MAPPING_H
#define AF_MAPPING_H

#include "internal.h"

/** Appends the readable parameter list of descriptor `desc` with class
 * names deobfuscated: "(La/b;I)V" -> "(com.example.Foo, int)".  A
 * descriptor that does not parse is appended as written.  `m` may be NULL.
 * Returns 0, or -1 when out of memory. */
int af_mapping_params(const af_mapping *m, const char *desc, af_buf *out);

/** af_mapping_method() with its scratch blocks from `scratch` (the caller's
 * allocator), telling a failure from a name the mapping lacks: returns 0
 * with *out the original name or NULL when the mapping does not name it,
 * or -1 when out of memory. */
int af_mapping_lookup(const af_mapping *m, const char *cls, const char *name,
                      const char *desc, af_mem *scratch, const char **out);

/** Reads the text file at `path` as a mapping is read (up to the input
 * limit, stopping after a NUL) into *b, drawn from a new *mem of
 * `allocator`; `what` names it in the message of a file too large.  On an
 * error nothing is left to give back. */
af_status af_mapping_read(const char *path, const af_allocator *allocator,
                          const char *what, af_mem **mem, af_buf *b, af_error *err);

#endif
