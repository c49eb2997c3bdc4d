/*
 * pfintern.h - the interned tables of a Perfetto trace's profiles
 * (perfetto_prof.c): strings, mappings, frames and callstacks, each packet
 * sequence's interning ids mapped to one table shared by the trace, and a
 * callstack's frames walked into the trace's prefix tree.
 */
#ifndef AF_PFINTERN_H
#define AF_PFINTERN_H

#include "perfetto_prof.pb-c.h"
#include "trace.h"

typedef Aflame__Pfprof__InternedString af_pfi_pbstr;
typedef Aflame__Pfprof__Mapping af_pfi_pbmapping;
typedef Aflame__Pfprof__Frame af_pfi_pbframe;
typedef Aflame__Pfprof__Callstack af_pfi_pbstack;

#define AF_PFP "Perfetto trace"

/* An interned string, in the trace's arena. */
typedef struct af_pfi_str {
	const char *s;
	size_t len;
} af_pfi_str;

/* A frame: its name in the trace's frame names, its mapping (an index in
 * af_pfi.mappings, AF_NONE for none). */
typedef struct af_pfi_frame {
	uint32_t name;
	uint32_t mapping;
} af_pfi_frame;

/* A callstack: its frames (indices in af_pfi.frames), outermost first, at
 * `first` in af_pfi.pool. */
typedef struct af_pfi_stack {
	size_t first;
	uint32_t len;
} af_pfi_stack;

/* A packet sequence's interning ids: iid -> index in the tables of af_pfi.
 * Zeroed is empty. */
typedef struct af_pfi_ids {
	af_u64map fn, path, build, mapping, frame, stack;
} af_pfi_ids;

/* The tables of every sequence.  Zeroed, then t and mem set; `off` is the
 * byte offset of the packet being read, for messages. */
typedef struct af_pfi {
	af_trace *t;
	af_mem *mem;
	long long off;
	af_pfi_str *strs;
	size_t nstrs, strs_cap;
	const char **mappings; /* mapping paths, "/"-joined */
	const char **libs;     /* per mapping: its library, "" for none */
	size_t nmappings, mappings_cap, libs_cap;
	af_pfi_frame *frames;
	size_t nframes, frames_cap;
	uint32_t *pool; /* the frames of every callstack */
	size_t npool, pool_cap;
	af_pfi_stack *stacks;
	size_t nstacks, stacks_cap;
	af_buf dm; /* a demangled name */
} af_pfi;

/** The error for memory running out while reading the current packet. */
AF_NODISCARD af_status af_pfi_nomem(const af_pfi *in, af_error *err);

/** Copies `len` bytes into the trace's arena as a string of the table;
 * its index in *idx.  Longer than the trace's max_name_len: refused. */
AF_NODISCARD af_status af_pfi_str_add(af_pfi *in, const uint8_t *s, size_t len,
                                      uint32_t *idx, af_error *err);

/** Interns `n` strings, their iids into the id tables `a` (and `b`, `c`
 * when not NULL). */
AF_NODISCARD af_status af_pfi_strings(af_pfi *in, af_u64map *a, af_u64map *b,
                                      af_u64map *c, af_pfi_pbstr **v, size_t n,
                                      af_error *err);

/** Interns `n` mappings of the sequence whose ids are `ids`, their paths
 * joined and their libraries named. */
AF_NODISCARD af_status af_pfi_mappings(af_pfi *in, af_pfi_ids *ids, af_pfi_pbmapping **v,
                                       size_t n, af_error *err);

/** Interns `n` frames, named. */
AF_NODISCARD af_status af_pfi_frames(af_pfi *in, af_pfi_ids *ids, af_pfi_pbframe **v,
                                     size_t n, af_error *err);

/** Interns `n` callstacks, their frames resolved, outermost first. */
AF_NODISCARD af_status af_pfi_stacks(af_pfi *in, af_pfi_ids *ids, af_pfi_pbstack **v,
                                     size_t n, af_error *err);

/** The node of callstack `stack` below node `root` of the trace's tree, made
 * when new; in *leaf. */
AF_NODISCARD af_status af_pfi_path(af_pfi *in, uint32_t root, uint32_t stack,
                                   uint32_t *leaf, af_error *err);

/** Forgets a sequence's ids (its incremental state was cleared). */
void af_pfi_ids_clear(af_pfi_ids *ids);
void af_pfi_ids_free(af_mem *mem, af_pfi_ids *ids);

/** Frees the tables; the strings stay in the trace's arena. */
void af_pfi_free(af_pfi *in);

#endif
