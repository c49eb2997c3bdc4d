/*
 * namemap.h - what namemap.c (the maps, palette.map, reading the files)
 * and nameattr.c (cleaning a name-attribute line) share.
 */
#ifndef AF_NAMEMAP_H
#define AF_NAMEMAP_H

#include "names.h"

/* Items of each kind named in the warning; the rest are counted. */
#define AF_NOTES_SHOWN 8

/* One kind of note: the first items as text, and how many in all. */
typedef struct af_notes {
	af_buf text;
	size_t n;
} af_notes;

struct af_namemap {
	af_mem *mem;
	af_namemap_kind kind;
	af_names names; /* keys; a name's id indexes values */
	char **values;
	size_t cap;
	long long line;   /* the line being read; 0 in af_namemap_set() */
	af_notes dropped; /* attributes left out, or damaged palette lines */
	af_notes repeated;/* attributes given twice (the last one kept) */
	char *warning;    /* the notes as one message; NULL: none */
};

/** Adds "TEXT (line N)" to `notes` for m's warning: the text cut to 40
 * bytes, anything but printable ASCII as \xNN, so that no byte of the file
 * reaches a terminal.  `text` NULL: only the line (damaged palette lines).
 * 0, or -1 when out of memory. */
int af_namemap_note(af_namemap *m, af_notes *notes, const char *text, size_t len);

/** Cleans one line's `attr=value<TAB>...` (the `n` bytes at `s`) into the
 * map's form in `out`, noting in m->dropped and m->repeated what it leaves
 * out (nameattr.c).  0, or -1 when out of memory. */
int af_nameattr_clean(af_namemap *m, const char *s, size_t n, af_buf *out);

#endif
