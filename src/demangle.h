/*
 * demangle.h - C++ names of native frames made readable for the readers of
 * profiles (pprof.c, perfetto_prof.c): "_ZN7android14AndroidRuntime15java
 * ThreadShellEPv" becomes "android::AndroidRuntime::javaThreadShell(void*)".
 */
#ifndef AF_DEMANGLE_H
#define AF_DEMANGLE_H

#include "internal.h"

/** The longest mangled name demangled: longer ones are kept as written
 * (libiberty's demangler keeps tables on the C stack in proportion to the
 * name's length). */
#define AF_DEMANGLE_MAX 4096

/** Demangles the `len` bytes at `s` (an Itanium C++ ABI name, "_Z...")
 * into `out` (emptied first, from its allocator; NUL-terminated): 1 when
 * it did, 0 when the bytes are no mangled name, are longer than
 * AF_DEMANGLE_MAX or hold a NUL (`out` is then empty), -1 when out of
 * memory.  Hostile names cannot exhaust the stack: libiberty bounds its
 * recursion. */
int af_demangle(af_buf *out, const char *s, size_t len);

#endif
