/*
 * folded.c - flamegraph.pl's collapsed-stack text, "a;b;c COUNT" per line:
 * read as input (also difffolded.pl's "a;b;c BEFORE AFTER"), and written
 * from a call tree.
 */
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "tree.h"

/* The most folded text written at once (bytes). */
#define AF_FOLDED_MAX (4ull << 30)

/* ------------------------------------------------------------------ */
/* Reading                                                             */

/* A count: digits with an optional fraction, rounded to a whole number.
 * Returns the bytes it took from the end of s[0..n), 0 when none. */
static size_t af_count_at_end(const char *s, size_t n, uint64_t *out)
{
	size_t end = n, start, dot = SIZE_MAX, i;
	uint64_t v = 0;

	while (end > 0 && (s[end - 1] == ' ' || s[end - 1] == '\t'))
		end--;
	start = end;
	while (start > 0 && ((s[start - 1] >= '0' && s[start - 1] <= '9') ||
	                     (s[start - 1] == '.' && dot == SIZE_MAX))) {
		if (s[start - 1] == '.')
			dot = start - 1;
		start--;
	}
	if (start == end || s[start] == '.' || start == 0 ||
	    (s[start - 1] != ' ' && s[start - 1] != '\t'))
		return 0;
	for (i = start; i < end && i != dot; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return 0;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (dot != SIZE_MAX && dot + 1 < end && s[dot + 1] >= '5')
		v++;
	*out = v;
	while (start > 0 && (s[start - 1] == ' ' || s[start - 1] == '\t'))
		start--;
	return n - start;
}

/* Splits a line into its stack and counts; returns the stack's length, or
 * 0 when the line is not of the form. */
static size_t af_folded_line(const char *s, size_t n, uint64_t *before,
                             uint64_t *after, int *two)
{
	size_t k = af_count_at_end(s, n, after), k2;

	*two = 0;
	if (k == 0 || k == n)
		return 0;
	n -= k;
	k2 = af_count_at_end(s, n, before);
	if (k2 > 0 && k2 < n) {
		*two = 1;
		n -= k2;
	}
	return n;
}

int af_folded_detect(const uint8_t *buf, size_t len)
{
	size_t i = 0, end;
	uint64_t a, b;
	int two;

	while (i < len && (buf[i] == '\n' || buf[i] == '\r'))
		i++;
	for (end = i; end < len && buf[end] != '\n'; end++)
		if (buf[end] == 0)
			return 0;
	if (end > i && buf[end - 1] == '\r')
		end--;
	return end > i && af_folded_line((const char *)buf + i, end - i, &a, &b, &two) > 0;
}

const char *af_folded_reject(const uint8_t *buf, size_t len, size_t *off)
{
	size_t i = 0, end, e, tok;

	while (i < len && (buf[i] == '\n' || buf[i] == '\r'))
		i++;
	for (end = i; end < len && buf[end] != '\n'; end++)
		if (buf[end] < 0x20 && buf[end] != '\t' && buf[end] != '\r')
			return NULL; /* not text */
	e = end;
	while (e > i && (buf[e - 1] == '\r' || buf[e - 1] == ' ' || buf[e - 1] == '\t'))
		e--;
	for (tok = e; tok > i && buf[tok - 1] != ' ' && buf[tok - 1] != '\t'; tok--)
		;
	if (tok == i) {
		*off = e;
		return "line 1 has no count after its stack";
	}
	*off = tok;
	if (buf[tok] == '-' && tok + 1 < e && buf[tok + 1] >= '0' && buf[tok + 1] <= '9')
		return "line 1 ends in a negative count";
	return "line 1 does not end in a count";
}

af_status af_trace_folded(af_trace *t, const uint8_t *buf, size_t len,
                          af_error *err)
{
	size_t pos = 0, prev_len = 0, ncap = 0, ecap = 0;
	const char *prev = NULL;    /* the stack part of the line before */
	uint32_t *at = NULL;        /* per depth: its node on that line */
	size_t *end = NULL, ndepth = 0; /* per depth: where its frame ends */
	uint32_t root = af_ptree_root(&t->tree, AF_NONE);
	uint64_t sum = 0;           /* the counts so far: where a line begins */
	af_status st = AF_OK;

	if (root == AF_NONE)
		return af_fail(err, AF_ERR_NOMEM, 0, "out of memory");
	while (pos < len) {
		const char *line = (const char *)buf + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos, stack, i, start, depth;
		uint64_t before = 0, after = 0;
		uint32_t node = root;
		int two, same = 1;

		pos += n + (nl != NULL);
		if (n && line[n - 1] == '\r')
			n--;
		if (n == 0)
			continue;
		stack = af_folded_line(line, n, &before, &after, &two);
		if (stack == 0 || memchr(line, 0, n)) {
			if (!t->info.ignored_lines++)
				t->info.first_ignored_line = (uint64_t)(line - (const char *)buf);
			continue;
		}
		depth = start = 0;
		if (!t->flamechart && prev) {
			/* lines come sorted, so most of a path is the line before's:
			 * its frames up to the first difference are the same nodes */
			size_t common = 0, most = stack < prev_len ? stack : prev_len;
			while (common < most && line[common] == prev[common])
				common++;
			while (depth < ndepth &&
			       (end[depth] < common ||
			        (end[depth] == common && common == prev_len &&
			         (common == stack || line[common] == ';')))) {
				node = at[depth];
				start = end[depth] + 1;
				depth++;
			}
		}
		for (i = start; i <= stack; i++) {
			uint32_t name;
			if (i < stack && line[i] != ';')
				continue;
			if (i - start > t->limits.max_name_len) {
				st = af_fail(err, AF_ERR_LIMIT,
				             (long long)(line + start - (const char *)buf),
				             "frame name longer than %u bytes",
				             t->limits.max_name_len);
				goto out;
			}
			if (++depth > t->limits.max_depth) {
				st = af_fail(err, AF_ERR_LIMIT,
				             (long long)(line + start - (const char *)buf),
				             "stack deeper than %u frames", t->limits.max_depth);
				goto out;
			}
			name = af_names_intern_clean(&t->frames, line + start, i - start);
			if (name == AF_NONE) {
				st = af_fail(err, AF_ERR_NOMEM, (long long)(line - (const char *)buf),
				             "out of memory");
				goto out;
			}
			if (t->flamechart) {
				/* flamegraph.pl's walk in line order: a frame merges only
				 * with the same frame of the line before, under the same
				 * callers; a new one remembers where it began */
				if (same && depth - 1 < ndepth && t->tree.nodes[at[depth - 1]].key == name) {
					node = at[depth - 1];
				} else {
					same = 0;
					node = af_ptree_append(&t->tree, node, name);
					if (node != AF_NONE &&
					    AF_GROW(t->mem, t->started, t->started_cap, t->tree.len)) {
						st = af_fail(err, AF_ERR_NOMEM,
						             (long long)(line - (const char *)buf),
						             "out of memory");
						goto out;
					}
					if (node != AF_NONE)
						t->started[node][AF_CLOCK_WALL] = sum;
				}
			} else {
				node = af_ptree_child(&t->tree, node, name);
			}
			if (node == AF_NONE) {
				st = t->tree.len >= t->tree.max_nodes
				     ? af_fail(err, AF_ERR_LIMIT,
				               (long long)(line - (const char *)buf),
				               "cannot add call path %zu (limit %u)",
				               t->tree.len + 1, t->tree.max_nodes)
				     : af_fail(err, AF_ERR_NOMEM,
				               (long long)(line - (const char *)buf),
				               "out of memory adding call path %zu",
				               t->tree.len + 1);
				goto out;
			}
			{
				if (AF_GROW(t->mem, at, ncap, depth) ||
				    AF_GROW(t->mem, end, ecap, depth)) {
					st = af_fail(err, AF_ERR_NOMEM,
					             (long long)(line - (const char *)buf),
					             "out of memory");
					goto out;
				}
				at[depth - 1] = node;
				end[depth - 1] = i;
			}
			start = i + 1;
		}
		prev = line;
		prev_len = stack;
		ndepth = depth;
		t->tree.nodes[node].self[AF_CLOCK_WALL] += after;
		sum += after;
		t->tree.nodes[node].base += before;
		t->info.lines++;
		t->info.differential |= two;
	}
	if (t->info.lines == 0) {
		st = af_fail(err, AF_ERR_FORMAT, 0, "no line of folded stacks "
		             "(\"frame;frame COUNT\") in the input");
		goto out;
	}
	t->info.has_clock[AF_CLOCK_WALL] = 1;
out:
	af_free(t->mem, at);
	af_free(t->mem, end);
	return st;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */

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

static af_status af_folded_emit(const af_tree *tree, af_clock clock, FILE *out,
                                af_error *err)
{
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
		if (path.len && af_buf_append(&path, ";", 1))
			goto nomem;
		if (af_buf_append(&path, name, strlen(name)))
			goto nomem;
		if (!e->subtree) {
			fwrite(path.data, 1, path.len, out);
			if (two)
				fprintf(out, " %llu", (unsigned long long)nodes[e->node].base);
			fprintf(out, " %llu\n", (unsigned long long)af_tree_self(tree, e->node, clock));
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
