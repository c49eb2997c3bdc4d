/*
 * names.c - the string interner (each name stored once, dense ids) and a
 * small map from u32 to u32.  Neither knows what the strings or numbers
 * stand for.
 */
#include <string.h>

#include "names.h"

/* ------------------------------------------------------------------ */
/* Interned names                                                      */

/* Eight bytes at a time, each word mixed in by a multiply and a shift
 * (the table's slots are the low bits: the last shift brings the high
 * bits down). */
static uint64_t af_hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull ^ len, w;
	size_t whole = len;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 29;
	}
	if (len) {
		/* the last bytes as the low ones of a word: read with the bytes
		 * before them when there are (one load), or one by one */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		if (whole >= 8) {
			memcpy(&w, s + len - 8, 8);
			w >>= (8 - len) * 8;
		} else
#endif
		{
			w = 0;
			memcpy(&w, s, len);
		}
		h = (h ^ w) * 0x94d049bb133111ebull;
	}
	return h ^ (h >> 31);
}

#define AF_ONES 0x0101010101010101ull
#define AF_HIGHS 0x8080808080808080ull

/* Whether a byte of the word `w` may need cleaning: a control character
 * (below 0x20, or 0x7F), ';', or not ASCII.  (Bytes found zero by
 * subtracting one from each: the usual test, exact for whether there is
 * one.) */
static int af_word_dirty(uint64_t w)
{
	uint64_t del = w ^ (0x7F * AF_ONES), semi = w ^ (';' * AF_ONES);

	return ((w & AF_HIGHS) | ((w - 0x20 * AF_ONES) & ~w & AF_HIGHS) |
	        ((del - AF_ONES) & ~del & AF_HIGHS) | ((semi - AF_ONES) & ~semi & AF_HIGHS)) != 0;
}

/* Slots for at least `want` names, twice as many as the names held. */
static int af_names_rehash(af_names *n, size_t want)
{
	size_t ns = n->nslots ? n->nslots * 2 : 256, i, mask;
	uint32_t *slots;

	while (ns < want * 2 && ns <= SIZE_MAX / 4)
		ns *= 2;
	mask = ns - 1;

	if (ns > SIZE_MAX / sizeof *slots)
		return -1;
	slots = af_calloc(n->mem, ns, sizeof *slots);
	if (!slots)
		return -1;
	for (i = 0; i < n->len; i++) {
		size_t j = af_hash_bytes(n->str[i], strlen(n->str[i])) & mask;
		while (slots[j])
			j = (j + 1) & mask;
		slots[j] = (uint32_t)i + 1;
	}
	af_free(n->mem, n->slots);
	n->slots = slots;
	n->nslots = ns;
	return 0;
}

#define AF_NAMES_BLOCK 65536

/* `size` bytes for a string, cut from the newest block (a new one when it
 * has no room: a string of its own when that is larger); NULL when out of
 * memory. */
static char *af_names_room(af_names *n, size_t size)
{
	char *b;

	if (size > n->room) {
		size_t want = size > AF_NAMES_BLOCK - sizeof b ? size : AF_NAMES_BLOCK - sizeof b;
		if (!(b = af_malloc(n->mem, sizeof b + want)))
			return NULL;
		memcpy(b, &n->block, sizeof b);
		n->block = b;
		n->room = want;
	}
	n->room -= size;
	return n->block + sizeof b + n->room;
}

int af_names_reserve(af_names *n, size_t count)
{
	if ((n->len + count) * 2 <= n->nslots)
		return 0;
	return af_names_rehash(n, n->len + count);
}

uint32_t af_names_intern(af_names *n, const char *s, size_t len)
{
	size_t mask, j;
	char *copy;

	if ((n->len + 1) * 2 > n->nslots && af_names_rehash(n, n->len + 1))
		return AF_NONE;
	mask = n->nslots - 1;
	for (j = af_hash_bytes(s, len) & mask; n->slots[j]; j = (j + 1) & mask) {
		const char *t = n->str[n->slots[j] - 1];
		if (strncmp(t, s, len) == 0 && t[len] == '\0')
			return n->slots[j] - 1;
	}
	if (n->len >= UINT32_MAX - 1 || AF_GROW(n->mem, n->str, n->cap, n->len + 1) ||
	    !(copy = af_names_room(n, len + 1)))
		return AF_NONE;
	memcpy(copy, s, len);
	copy[len] = '\0';
	n->str[n->len] = copy;
	n->slots[j] = (uint32_t)n->len + 1;
	return (uint32_t)n->len++;
}

uint32_t af_names_intern_clean(af_names *n, const char *s, size_t len)
{
	af_buf b = {.mem = n->mem};
	size_t i = 0;
	uint32_t id;
	int dirty = 0;

	/* most names are clean ASCII: check before copying, a word at a time */
	for (; i + 8 <= len && !dirty; i += 8) {
		uint64_t w;
		memcpy(&w, s + i, 8);
		dirty = af_word_dirty(w);
	}
	for (; i < len && !dirty; i++) {
		unsigned char c = (unsigned char)s[i];
		dirty = c < 0x20 || c == 0x7F || c == ';' || c >= 0x80;
	}
	if (!dirty)
		return af_names_intern(n, s, len);
	for (i = 0; i < len;) {
		uint32_t cp;
		size_t k = af_utf8_decode((const unsigned char *)s + i, len - i, &cp);
		int bad;
		if (k == 0) {
			bad = af_buf_append(&b, "\xEF\xBF\xBD", 3);
			i++;
		} else if (cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp < 0xA0) ||
		           af_noncharacter(cp)) {
			bad = 0;
			i += k;
		} else if (cp == ';') {
			bad = af_buf_append(&b, ":", 1);
			i += k;
		} else {
			bad = af_buf_append(&b, s + i, k);
			i += k;
		}
		if (bad) {
			af_buf_free(&b);
			return AF_NONE;
		}
	}
	id = af_names_intern(n, b.data ? b.data : "", b.len);
	af_buf_free(&b);
	return id;
}

uint32_t af_names_list_add(af_names *n, uint32_t list, const char *s, size_t len,
                           size_t max)
{
	uint32_t item = af_names_intern_clean(n, s, len), id;
	const char *have, *p, *it;
	size_t count = 1, k;
	af_buf b = {.mem = n->mem};

	if (item == AF_NONE || list == AF_NONE)
		return item;
	have = n->str[list];
	it = n->str[item];
	k = strlen(it);
	for (p = have;; count++) {
		const char *end = strstr(p, ", ");
		size_t m = end ? (size_t)(end - p) : strlen(p);
		if (m == k && memcmp(p, it, k) == 0)
			return list;
		if (!end)
			break;
		p = end + 2;
	}
	if (count >= max)
		return list;
	if (af_buf_append(&b, have, strlen(have)) || af_buf_append(&b, ", ", 2) ||
	    af_buf_append(&b, it, k)) {
		af_buf_free(&b);
		return AF_NONE;
	}
	id = af_names_intern(n, b.data, b.len);
	af_buf_free(&b);
	return id;
}

uint32_t af_names_find(const af_names *n, const char *s, size_t len)
{
	size_t mask, j;

	if (!n->nslots)
		return AF_NONE;
	mask = n->nslots - 1;
	for (j = af_hash_bytes(s, len) & mask; n->slots[j]; j = (j + 1) & mask) {
		const char *t = n->str[n->slots[j] - 1];
		if (strncmp(t, s, len) == 0 && t[len] == '\0')
			return n->slots[j] - 1;
	}
	return AF_NONE;
}

void af_names_free(af_names *n)
{
	af_mem *mem = n->mem;

	while (n->block) {
		char *before;
		memcpy(&before, n->block, sizeof before);
		af_free(mem, n->block);
		n->block = before;
	}
	af_free(mem, n->str);
	af_free(mem, n->slots);
	memset(n, 0, sizeof *n);
	n->mem = mem;
}

/* ------------------------------------------------------------------ */
/* u32 -> u32 map                                                      */

static size_t af_u32_slot(uint32_t key, size_t mask)
{
	return (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

int af_u32map_get(const af_u32map *m, uint32_t key, uint32_t *value)
{
	size_t mask, i;

	if (!m->nslots)
		return 0;
	mask = m->nslots - 1;
	for (i = af_u32_slot(key, mask); m->slots[i]; i = (i + 1) & mask) {
		if ((uint32_t)(m->slots[i] >> 32) == key + 1) {
			*value = (uint32_t)m->slots[i];
			return 1;
		}
	}
	return 0;
}

int af_u32map_put(af_u32map *m, uint32_t key, uint32_t value)
{
	size_t mask, i;

	if ((m->len + 1) * 2 > m->nslots) {
		size_t ns = m->nslots ? m->nslots * 2 : 64, j;
		uint64_t *slots = af_calloc(m->mem, ns, sizeof *slots);
		if (!slots)
			return -1;
		for (j = 0; j < m->nslots; j++) {
			if (m->slots[j]) {
				size_t k = af_u32_slot(af_u32map_key(m->slots[j]), ns - 1);
				while (slots[k])
					k = (k + 1) & (ns - 1);
				slots[k] = m->slots[j];
			}
		}
		af_free(m->mem, m->slots);
		m->slots = slots;
		m->nslots = ns;
	}
	mask = m->nslots - 1;
	for (i = af_u32_slot(key, mask); m->slots[i]; i = (i + 1) & mask) {
		if ((uint32_t)(m->slots[i] >> 32) == key + 1) {
			m->slots[i] = ((uint64_t)(key + 1) << 32) | value;
			return 0;
		}
	}
	m->slots[i] = ((uint64_t)(key + 1) << 32) | value;
	m->len++;
	return 0;
}

void af_u32map_free(af_u32map *m)
{
	af_mem *mem = m->mem;

	af_free(mem, m->slots);
	memset(m, 0, sizeof *m);
	m->mem = mem;
}

/* af_u64map: linear probing over two arrays, a power of two long. */
static size_t af_u64_hash(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xFF51AFD7ED558CCDull;
	k ^= k >> 33;
	return (size_t)k;
}

int af_u64map_get(const af_u64map *m, uint64_t k, uint32_t *v)
{
	size_t i;

	if (!m->cap)
		return 0;
	for (i = af_u64_hash(k) & (m->cap - 1); m->vals[i] != AF_NONE; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == k) {
			*v = m->vals[i];
			return 1;
		}
	return 0;
}

int af_u64map_put(af_mem *mem, af_u64map *m, uint64_t k, uint32_t v)
{
	size_t i;

	if ((m->len + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64, j;
		uint64_t *keys = af_malloc(mem, cap * sizeof *keys);
		uint32_t *vals = af_malloc(mem, cap * sizeof *vals);
		if (!keys || !vals || cap > SIZE_MAX / 2 / sizeof *keys) {
			af_free(mem, keys);
			af_free(mem, vals);
			return -1;
		}
		for (j = 0; j < cap; j++)
			vals[j] = AF_NONE;
		for (j = 0; j < m->cap; j++) {
			if (m->vals[j] == AF_NONE)
				continue;
			for (i = af_u64_hash(m->keys[j]) & (cap - 1); vals[i] != AF_NONE;
			     i = (i + 1) & (cap - 1))
				;
			keys[i] = m->keys[j];
			vals[i] = m->vals[j];
		}
		af_free(mem, m->keys);
		af_free(mem, m->vals);
		m->keys = keys;
		m->vals = vals;
		m->cap = cap;
	}
	for (i = af_u64_hash(k) & (m->cap - 1); m->vals[i] != AF_NONE; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == k) {
			m->vals[i] = v;
			return 0;
		}
	m->keys[i] = k;
	m->vals[i] = v;
	m->len++;
	return 0;
}

void af_u64map_clear(af_u64map *m)
{
	size_t i;

	for (i = 0; i < m->cap; i++)
		m->vals[i] = AF_NONE;
	m->len = 0;
}

void af_u64map_free(af_mem *mem, af_u64map *m)
{
	af_free(mem, m->keys);
	af_free(mem, m->vals);
	memset(m, 0, sizeof *m);
}
