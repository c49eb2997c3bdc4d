/*
 * pfintern.h - the interned tables of a Perfetto trace's profiles
 * (perfetto_prof.c): strings, mappings, frames and callstacks, each packet
 * sequence's interning ids mapped to one table shared by the trace, and a
 * callstack's frames walked into the trace's prefix tree.  A frame that
 * the profile leaves unnamed (a pc in a mapping) is named at the end, by
 * the offline symbols of the trace (ModuleSymbols) when they know its
 * address, else by its library and pc.
 */
#ifndef AF_PFINTERN_H
#define AF_PFINTERN_H

#include "perfetto_prof.pb-c.h"
#include "trace.h"

typedef Aflame__Pfprof__InternedString af_pfi_pbstr;
typedef Aflame__Pfprof__Mapping af_pfi_pbmapping;
typedef Aflame__Pfprof__Frame af_pfi_pbframe;
typedef Aflame__Pfprof__Callstack af_pfi_pbstack;
typedef Aflame__Pfprof__ModuleSymbols af_pfi_pbsyms;

#define AF_PFP "Perfetto trace"

/* An interned string, in the trace's arena. */
typedef struct af_pfi_str {
	const char *s;
	size_t len;
} af_pfi_str;

/* A frame: its name in the trace's frame names (AF_NONE for an unnamed
 * frame until af_pfi_name_unnamed), its mapping (an index in
 * af_pfi.mappings, AF_NONE for none), its symbol (an index in af_pfi.syms,
 * AF_NONE for none: then its name is drawn). */
typedef struct af_pfi_frame {
	uint32_t name;
	uint32_t mapping;
	uint32_t sym;
} af_pfi_frame;

/* An unnamed frame waiting for its symbol: its mapping's module (an id in
 * af_pfi.modules, AF_NONE for none) and its pc relative to the mapping. */
typedef struct af_pfi_want {
	uint32_t module, frame;
	uint64_t pc;
} af_pfi_want;

/* The symbol of an address: its functions, outermost first (the function
 * of the address, then those inlined into it), at `first` in
 * af_pfi.symnames. */
typedef struct af_pfi_sym {
	size_t first;
	uint32_t len;
} af_pfi_sym;

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
	uint32_t *mods;        /* per mapping: its module, AF_NONE for none */
	size_t nmappings, mappings_cap, libs_cap, mods_cap;
	af_names modules; /* what ModuleSymbols name: "b" and the build id in
	                     hex, or "p" and the path when it has none */
	af_pfi_frame *frames;
	size_t nframes, frames_cap;
	uint32_t *pool; /* the frames of every callstack */
	size_t npool, pool_cap;
	af_pfi_stack *stacks;
	size_t nstacks, stacks_cap;
	af_pfi_want *want; /* the unnamed frames; sorted by module and
	                      pc while nsorted == nwant */
	size_t nwant, want_cap, nsorted;
	af_pfi_sym *syms; /* the symbols of unnamed frames' addresses */
	size_t nsyms, syms_cap;
	uint32_t *symnames; /* their functions' names */
	size_t nsymnames, symnames_cap;
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

/** Offline symbols: each address of the module that an unnamed frame
 * read so far has (its mapping matched by build id, or by path when it has
 * none, and its pc) becomes that frame's symbol, the last given winning;
 * the others are not kept. */
AF_NODISCARD af_status af_pfi_symbols(af_pfi *in, const af_pfi_pbsyms *ms, af_error *err);

/** Names the unnamed frames that no symbol named, once every packet is
 * read: by their library and pc ("libc.so+0x4a2c"), and gives symbolized
 * frames' names their library. */
AF_NODISCARD af_status af_pfi_name_unnamed(af_pfi *in, af_error *err);

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
