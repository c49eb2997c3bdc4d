/*
 * dl.h - a library opened at run time, the first time it is needed, and
 * its functions found by name (dl.c): Pango (pango.c) and Graphviz
 * (dot.c), which a program linked with them would load at every start.
 */
#ifndef AF_DL_H
#define AF_DL_H

#include <stddef.h>

/** Opens `soname` and finds `names[0..n)` in it and the libraries it
 * needs, into `fns` (each to be cast back to its own type).  0, or -1 with
 * `why` ("cannot load WHAT: ...", `why_len` bytes at most).  The library
 * stays open: GLib's types, Graphviz's plugins cannot be unloaded. */
int af_dl_load(const char *soname, const char *what, const char *const *names,
               void (**fns)(void), size_t n, char *why, size_t why_len);

#endif
