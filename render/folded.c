/*
 * folded.c - a call tree written as flamegraph.pl's collapsed-stack text,
 * "a;b;c COUNT" per line (difffolded.pl's "a;b;c BEFORE AFTER" for a
 * differential tree), in flamegraph.pl's order.  The reader is
 * src/folded.c.
 */
#include <stdlib.h>
#include <string.h>

#include "tree.h"

/* The most folded text written at once (bytes). */
#define AF_FOLDED_MAX (4ull << 30)

/* An entry among a node's children: the child's own line (its name ends
 * with a space) or the lines of its subtree (the name goes on with ';').
 * Sorting entries by name with those endings gives flamegraph.pl's byte
 * order of whole lines, so the text is written in one walk, not sorted. */
typedef struct af_entry {
	uint32_t node;
	uint32_t rank; /* af_tree_ranks() of name id * 2, + 1 for a subtree */
	int subtree;
} af_entry;

static int af_entry_cmp(const void *a, const void *b)
{
	const af_entry *x = a, *y = b;
	return (x->rank > y->rank) - (x->rank < y->rank);
}

typedef struct af_level {
	size_t next, end;  /* entries still to write at this level */
	size_t path_len;   /* length of the path before this level's names */
} af_level;

/* Whether node `i` writes a line: its self time, or for a differential
 * tree either count (difffolded.pl's "BEFORE AFTER"); a diff's removed band
 * is a drawing of paths already written with AFTER 0. */
static int af_has_line(const af_tree *tree, const af_pnode *nodes, size_t i,
                       af_clock clock, int two)
{
	if (!two)
		return af_tree_self(tree, (uint32_t)i, clock) != 0;
	if (af_tree_band(tree) != AF_NONE) {
		af_node_info ni;
		af_tree_node(tree, i, &ni);
		if (ni.removed)
			return 0;
	}
	return af_tree_self(tree, (uint32_t)i, clock) != 0 || nodes[i].base != 0;
}

/* " COUNT": a value of the tree, in counts (af_tree_decimals(), at most
 * 6: the reader's limit). */
static void af_count_write(FILE *out, uint64_t v, unsigned dec)
{
	uint64_t p = 1, frac;
	unsigned k;

	for (k = 0; k < dec; k++)
		p *= 10;
	frac = v % p;
	fprintf(out, " %llu", (unsigned long long)(v / p));
	if (frac) {
		while (frac % 10 == 0) {
			frac /= 10;
			dec--;
		}
		fprintf(out, ".%0*llu", (int)dec, (unsigned long long)frac);
	}
}

static af_status af_folded_emit(const af_tree *tree, af_clock clock, FILE *out,
                                af_error *err)
{
	unsigned dec = af_tree_decimals(tree);
	af_mem *mem = af_tree_mem(tree);
	int two = af_tree_is_differential(tree);
	const af_pnode *nodes = af_tree_nodes(tree);
	const uint32_t *rank = af_tree_ranks(tree);
	size_t n = af_tree_size(tree), i, nentries = 0, top = 0, lcap = 0;
	size_t *first = NULL, *fill = NULL;
	uint64_t *sub = NULL, bytes = 0, *plen = NULL;
	af_entry *entries = NULL;
	af_level *levels = NULL;
	af_buf path = {.mem = mem};
	af_status st = AF_OK;

	if ((unsigned)clock >= AF_CLOCK_COUNT)
		return af_fail(err, AF_ERR_ARG, -1, "unknown clock");
	if (af_tree_is_pruned(tree))
		return af_fail(err, AF_ERR_ARG, -1,
		               "a tree pruned for drawing cannot be written as folded text");
	first = af_calloc(mem, n + 1, sizeof *first);
	fill = af_calloc(mem, n + 1, sizeof *fill);
	sub = af_calloc(mem, n, sizeof *sub);
	plen = af_calloc(mem, n, sizeof *plen);
	if (!first || !fill || !sub || !plen)
		goto nomem;
	/* the text's size first: every line repeats its whole path, so deep
	 * stacks make it grow with depth squared; refuse before writing */
	for (i = 1; i < n; i++) {
		size_t len = strlen(af_tree_name(tree, (uint32_t)i));
		plen[i] = (nodes[i].parent ? plen[nodes[i].parent] + 1 : 0) + len;
		if (af_has_line(tree, nodes, i, clock, two))
			bytes += plen[i] + 44;
	}
	if (bytes > AF_FOLDED_MAX) {
		st = af_fail(err, AF_ERR_LIMIT, -1,
		             "folded text would take about %.1f GB (every line repeats "
		             "its path, and the stacks are deep); draw SVG or PDF instead",
		             (double)bytes / 1e9);
		goto out;
	}
	/* which nodes have lines below them */
	for (i = n; i-- > 1;)
		if (af_has_line(tree, nodes, i, clock, two) || sub[i])
			sub[nodes[i].parent] = 1;
	for (i = 1; i < n; i++) {
		uint32_t p = nodes[i].parent;
		first[p + 1] += af_has_line(tree, nodes, i, clock, two) + (sub[i] != 0);
	}
	for (i = 0; i < n; i++)
		first[i + 1] += first[i];
	nentries = first[n];
	entries = af_malloc(mem, (nentries ? nentries : 1) * sizeof *entries);
	if (!entries)
		goto nomem;
	memcpy(fill, first, (n + 1) * sizeof *fill);
	for (i = 1; i < n; i++) {
		uint32_t p = nodes[i].parent, key = nodes[i].key;
		if (af_has_line(tree, nodes, i, clock, two)) {
			entries[fill[p]].node = (uint32_t)i;
			entries[fill[p]].subtree = 0;
			entries[fill[p]++].rank = rank[key * 2];
		}
		if (sub[i]) {
			entries[fill[p]].node = (uint32_t)i;
			entries[fill[p]].subtree = 1;
			entries[fill[p]++].rank = rank[key * 2 + 1];
		}
	}
	for (i = 0; i < n; i++)
		if (first[i + 1] - first[i] > 1)
			qsort(entries + first[i], first[i + 1] - first[i], sizeof *entries,
			      af_entry_cmp);

	/* the root's own count (lines with no frame, ";;;; 3") first: an
	 * empty stack, " 3", sorts before every other line */
	if (af_has_line(tree, nodes, 0, clock, two)) {
		if (two && !(nodes[0].lines == AF_LINE_ONE && !nodes[0].base))
			af_count_write(out, nodes[0].base, dec);
		af_count_write(out, af_tree_self(tree, 0, clock), dec);
		fputc('\n', out);
	}
	/* one walk; the path so far is kept in `path` */
	if (AF_GROW(mem, levels, lcap, 1))
		goto nomem;
	levels[0].next = first[0];
	levels[0].end = first[1];
	levels[0].path_len = 0;
	top = 1;
	while (top > 0) {
		af_level *lv = &levels[top - 1];
		const af_entry *e;
		const char *name;

		if (lv->next == lv->end) {
			top--;
			continue;
		}
		e = &entries[lv->next++];
		name = af_tree_name(tree, e->node);
		path.len = lv->path_len;
		/* a leading empty frame is kept: ";a 2" is not "a 2" */
		if (top > 1 && af_buf_append(&path, ";", 1))
			goto nomem;
		if (af_buf_append(&path, name, strlen(name)))
			goto nomem;
		if (!e->subtree) {
			fwrite(path.data, 1, path.len, out);
			/* a line of differential input with one count keeps one */
			if (two && !(nodes[e->node].lines == AF_LINE_ONE && !nodes[e->node].base))
				af_count_write(out, nodes[e->node].base, dec);
			af_count_write(out, af_tree_self(tree, e->node, clock), dec);
			fputc('\n', out);
			continue;
		}
		if (AF_GROW(mem, levels, lcap, top + 1))
			goto nomem;
		levels[top].next = first[e->node];
		levels[top].end = first[e->node + 1];
		levels[top].path_len = path.len;
		top++;
	}
	if (fflush(out) || ferror(out))
		st = af_fail(err, AF_ERR_IO, -1, "write failed");
	goto out;
nomem:
	st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory writing folded text");
out:
	af_free(mem, first);
	af_free(mem, fill);
	af_free(mem, sub);
	af_free(mem, plen);
	af_free(mem, entries);
	af_free(mem, levels);
	af_buf_free(&path);
	return st;
}

af_status af_folded_write(const af_tree *tree, af_clock clock, FILE *out,
                          af_error *err)
{
	return af_mem_explain(af_tree_mem(tree), af_folded_emit(tree, clock, out, err),
	                      err);
}
