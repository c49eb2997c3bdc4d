/*
 * names.h - a string interner and a map from u32 to u32: the bottom of the
 * house, used by the parsers, the mapping reader, the view and the call tree.
 * They know nothing of traces.
 */
#ifndef AF_NAMES_H
#define AF_NAMES_H

#include "internal.h"

/** A set of NUL-terminated strings, each stored once; ids are dense. */
typedef struct af_names {
	char **str;
	size_t len, cap;
	uint32_t *slots; /* id + 1, 0 = empty */
	size_t nslots;
	af_mem *mem;     /* set before the first use */
	char *block;     /* the strings' blocks, the newest first (each begins
	                    with a pointer to the one before) */
	size_t room;     /* bytes free at the newest block's end */
} af_names;

/** Returns the id of the `len` bytes at `s`, adding them when new;
 * AF_NONE when out of memory. */
uint32_t af_names_intern(af_names *n, const char *s, size_t len);

/** Makes room for `count` more names at once, where growing by halves
 * would hash the names held again and again; 0, or -1 when out of memory. */
int af_names_reserve(af_names *n, size_t count);

/** As af_names_intern, after making the text safe for every output: invalid
 * UTF-8 becomes U+FFFD, control characters are dropped, and ';' (the folded
 * format's separator) becomes ':'. */
uint32_t af_names_intern_clean(af_names *n, const char *s, size_t len);

/** A list of names kept as one ("a, b, c"): the id of list `list` (an id
 * in `n`, AF_NONE for the empty list) with the `len` bytes at `s` added
 * (made safe as af_names_intern_clean makes them) unless listed already or
 * the list holds `max` names.  AF_NONE when out of memory. */
uint32_t af_names_list_add(af_names *n, uint32_t list, const char *s, size_t len,
                           size_t max);

/** The id of the `len` bytes at `s`, or AF_NONE when they are not in. */
uint32_t af_names_find(const af_names *n, const char *s, size_t len);

/** Frees the strings and tables; the map stays usable (its mem is kept). */
void af_names_free(af_names *n);

/** A map from u32 to u32, for small caches. */
typedef struct af_u32map {
	uint64_t *slots; /* key << 32 | value, with key + 1 so 0 = empty */
	size_t nslots, len;
	af_mem *mem;     /* set before the first use */
} af_u32map;

/** Looks `key` up; returns 1 and sets *value when present. */
int af_u32map_get(const af_u32map *m, uint32_t key, uint32_t *value);
/** Sets `key`; returns -1 when out of memory.  `key` must be < UINT32_MAX. */
int af_u32map_put(af_u32map *m, uint32_t key, uint32_t value);
void af_u32map_free(af_u32map *m);
/** The key held by a slot of the map that is not 0 (an empty slot). */
static inline uint32_t af_u32map_key(uint64_t slot)
{
	return (uint32_t)(slot >> 32) - 1;
}

/** A map from any 64-bit key to an index below AF_NONE (Perfetto's
 * interning ids, pid and tid pairs).  Zeroed is empty. */
typedef struct af_u64map {
	uint64_t *keys;
	uint32_t *vals;  /* AF_NONE: an empty slot */
	size_t cap, len; /* cap is 0 or a power of two */
} af_u64map;

/** Looks `k` up; returns 1 and sets *v when present. */
int af_u64map_get(const af_u64map *m, uint64_t k, uint32_t *v);
/** Sets `k` to `v` (replacing its value when present), allocating from
 * `mem`; -1 when out of memory. */
int af_u64map_put(af_mem *mem, af_u64map *m, uint64_t k, uint32_t v);
/** Empties the map, keeping its room. */
void af_u64map_clear(af_u64map *m);
/** Frees the map's room; it is empty and usable again. */
void af_u64map_free(af_mem *mem, af_u64map *m);

#endif
