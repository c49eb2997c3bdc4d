/*
 * demangle.c - C++ names demangled by libiberty (Debian's libiberty-dev),
 * the demangler of GCC and binutils (c++filt).  Its callback form is used:
 * the text comes out in pieces appended to the caller's buffer, so every
 * byte kept is the library allocator's.  libiberty stops at a depth of
 * DEMANGLE_RECURSION_LIMIT unless DMGL_NO_RECURSE_LIMIT is given (it is
 * not), which bounds the stack a hostile name can take; the tables it
 * keeps on the stack grow with the name's length, hence AF_DEMANGLE_MAX.
 */
#include <string.h>

#include <libiberty/demangle.h>

#include "demangle.h"

/* libiberty's pieces, into the buffer; a failed append is remembered. */
typedef struct af_dm {
	af_buf *out;
	int failed;
} af_dm;

static void af_dm_piece(const char *s, size_t len, void *opaque)
{
	af_dm *dm = opaque;
	if (!dm->failed && af_buf_append(dm->out, s, len))
		dm->failed = 1;
}

int af_demangle(af_buf *out, const char *s, size_t len)
{
	char name[AF_DEMANGLE_MAX + 1];
	af_dm dm = {out, 0};

	out->len = 0;
	if (len < 3 || len > AF_DEMANGLE_MAX || s[0] != '_' || s[1] != 'Z' ||
	    memchr(s, '\0', len))
		return 0;
	memcpy(name, s, len);
	name[len] = '\0';
	if (!cplus_demangle_v3_callback(name, DMGL_PARAMS | DMGL_ANSI, af_dm_piece, &dm)) {
		out->len = 0;
		return 0;
	}
	if (dm.failed || af_buf_append(out, "", 1)) {
		out->len = 0;
		return -1;
	}
	out->len--; /* the NUL stays, out of the length */
	return 1;
}
