/*
 * ptree.c - the prefix tree: nodes found by (parent, key), kept in one
 * array and linked by index.  It knows nothing of what the keys stand for.
 */
#include <string.h>

#include "ptree.h"

static inline size_t af_slot_of(uint32_t parent, uint32_t key, size_t mask)
{
	uint64_t h = ((uint64_t)parent << 32 | key) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 29) & mask;
}

void af_ptree_init(af_ptree *t, uint32_t max_nodes, af_mem *mem)
{
	memset(t, 0, sizeof *t);
	t->max_nodes = max_nodes ? max_nodes : UINT32_MAX - 1;
	t->mem = mem;
}

void af_ptree_free(af_ptree *t)
{
	af_mem *mem = t->mem;

	af_free(mem, t->nodes);
	af_free(mem, t->slots);
	af_ptree_init(t, t->max_nodes, mem);
}

static void af_slots_put(af_slot *slots, size_t mask, uint32_t parent, uint32_t key,
                         uint32_t idx)
{
	size_t i = af_slot_of(parent, key, mask);
	while (slots[i].node)
		i = (i + 1) & mask;
	slots[i].parent = parent;
	slots[i].key = key;
	slots[i].node = idx + 1;
}

/* Makes room for `count` keys in the hash table. */
static int af_slots_reserve(af_ptree *t, size_t count)
{
	size_t n = t->nslots ? t->nslots : 1024, i;
	af_slot *slots;

	/* a load of up to 3/4: probes stay short, and the table stays small */
	if (count * 4 <= t->nslots * 3)
		return 0;
	while (count * 4 > n * 3) {
		if (n > SIZE_MAX / 2 / sizeof *slots)
			return -1;
		n *= 2;
	}
	slots = af_calloc(t->mem, n, sizeof *slots);
	if (!slots)
		return -1;
	af_hint_huge(slots, n * sizeof *slots);
	for (i = 0; i < t->nslots; i++)
		if (t->slots[i].node)
			af_slots_put(slots, n - 1, t->slots[i].parent, t->slots[i].key,
			             t->slots[i].node - 1);
	af_free(t->mem, t->slots);
	t->slots = slots;
	t->nslots = n;
	return 0;
}

static uint32_t af_ptree_push(af_ptree *t, uint32_t parent, uint32_t key)
{
	af_pnode *n;

	if (t->len >= t->max_nodes)
		return AF_NONE;
	if (AF_GROW(t->mem, t->nodes, t->cap, t->len + 1))
		return AF_NONE;
	n = &t->nodes[t->len];
	memset(n, 0, sizeof *n);
	n->key = key;
	n->parent = parent;
	n->child = AF_NONE;
	n->sibling = AF_NONE;
	return (uint32_t)t->len++;
}

int af_ptree_reserve(af_ptree *t, size_t nodes)
{
	if (nodes > t->max_nodes)
		nodes = t->max_nodes;
	return AF_GROW(t->mem, t->nodes, t->cap, nodes);
}

uint32_t af_ptree_root(af_ptree *t, uint32_t key)
{
	return af_ptree_push(t, AF_NONE, key);
}

/* Links `idx` in as the newest child of `parent`; when that makes the
 * parent wide, its children go into the hash table (all of them the first
 * time).  Returns 0, or -1 when out of memory. */
static int af_ptree_link(af_ptree *t, uint32_t parent, uint32_t idx)
{
	af_pnode *p = &t->nodes[parent];
	uint32_t r;

	/* room first: a failure leaves the parent as it was */
	if (p->nkids + 1 > AF_PTREE_NARROW && af_slots_reserve(t, t->nhashed + p->nkids + 1))
		return -1;
	t->nodes[idx].sibling = p->child;
	p->child = idx;
	if (++p->nkids <= AF_PTREE_NARROW)
		return 0;
	if (p->nkids == AF_PTREE_NARROW + 1) {
		for (r = p->child; r != AF_NONE; r = t->nodes[r].sibling)
			af_slots_put(t->slots, t->nslots - 1, parent, t->nodes[r].key, r);
		t->nhashed += p->nkids;
	} else {
		af_slots_put(t->slots, t->nslots - 1, parent, t->nodes[idx].key, idx);
		t->nhashed++;
	}
	return 0;
}

uint32_t af_ptree_child(af_ptree *t, uint32_t parent, uint32_t key)
{
	af_pnode *nodes = t->nodes;
	uint32_t idx = nodes[parent].child, prev;

	/* the child asked for last is often the one asked for again */
	if (idx != AF_NONE && nodes[idx].key == key)
		return idx;
	if (nodes[parent].nkids <= AF_PTREE_NARROW) {
		for (prev = idx; idx != AF_NONE; prev = idx, idx = nodes[idx].sibling)
			if (nodes[idx].key == key) {
				/* move it to the front, where the next call looks first */
				nodes[prev].sibling = nodes[idx].sibling;
				nodes[idx].sibling = nodes[parent].child;
				nodes[parent].child = idx;
				return idx;
			}
	} else {
		size_t mask = t->nslots - 1, i;
		for (i = af_slot_of(parent, key, mask); t->slots[i].node;
		     i = (i + 1) & mask)
			if (t->slots[i].key == key && t->slots[i].parent == parent)
				return t->slots[i].node - 1;
	}
	idx = af_ptree_push(t, parent, key);
	if (idx == AF_NONE)
		return AF_NONE;
	if (af_ptree_link(t, parent, idx)) {
		t->len--; /* the node was never reachable */
		return AF_NONE;
	}
	return idx;
}

uint32_t af_ptree_append(af_ptree *t, uint32_t parent, uint32_t key)
{
	uint32_t idx = af_ptree_push(t, parent, key);

	if (idx != AF_NONE) {
		t->nodes[idx].sibling = t->nodes[parent].child;
		t->nodes[parent].child = idx;
	}
	return idx;
}

int af_ptree_absorb(af_ptree *dst, const af_ptree *src, uint32_t *offset)
{
	size_t i, off = dst->len;

	if (src->len > dst->max_nodes || off > dst->max_nodes - src->len ||
	    AF_GROW(dst->mem, dst->nodes, dst->cap, off + src->len) ||
	    af_slots_reserve(dst, dst->nhashed + src->nhashed))
		return -1;
	for (i = 0; i < src->len; i++) {
		af_pnode *n = &dst->nodes[off + i];
		*n = src->nodes[i];
		if (n->parent != AF_NONE)
			n->parent += (uint32_t)off;
		if (n->child != AF_NONE)
			n->child += (uint32_t)off;
		if (n->sibling != AF_NONE)
			n->sibling += (uint32_t)off;
	}
	for (i = 0; i < src->nslots; i++) {
		const af_slot *sl = &src->slots[i];
		if (sl->node)
			af_slots_put(dst->slots, dst->nslots - 1, sl->parent + (uint32_t)off,
			             sl->key, sl->node - 1 + (uint32_t)off);
	}
	dst->len = off + src->len;
	dst->nhashed += src->nhashed;
	dst->adopted |= src->adopted;
	*offset = (uint32_t)off;
	return 0;
}

size_t af_ptree_order(const af_ptree *t, uint32_t *order, uint32_t *stack)
{
	size_t i, no = 0, top = 0;

	for (i = 0; i < t->len; i++) {
		if (t->nodes[i].parent != AF_NONE)
			continue;
		stack[top++] = (uint32_t)i;
		while (top) {
			uint32_t x = stack[--top], r;
			order[no++] = x;
			for (r = t->nodes[x].child; r != AF_NONE; r = t->nodes[r].sibling)
				stack[top++] = r;
		}
	}
	return no;
}

int af_ptree_adopt(af_ptree *t, uint32_t new_root, uint32_t old_root,
                   uint32_t key)
{
	t->nodes[old_root].key = key;
	t->nodes[old_root].parent = new_root;
	t->adopted = 1;
	return af_ptree_link(t, new_root, old_root);
}
