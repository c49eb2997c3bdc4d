/*
 * folded.c - flamegraph.pl's collapsed-stack text, "a;b;c COUNT" per line:
 * read as input (also difffolded.pl's "a;b;c BEFORE AFTER"), and written
 * from a call tree.
 */
#include <stdlib.h>
#include <string.h>

#include "trace.h"
#include "tree.h"

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

af_status af_trace_folded(af_trace *t, const uint8_t *buf, size_t len,
                          af_error *err)
{
	size_t pos = 0;
	uint32_t root = af_ptree_root(&t->tree, AF_NONE);

	if (root == AF_NONE)
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
	while (pos < len) {
		const char *line = (const char *)buf + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos, stack, i, start;
		uint64_t before = 0, after = 0;
		uint32_t node = root;
		int two;

		pos += n + (nl != NULL);
		if (n && line[n - 1] == '\r')
			n--;
		if (n == 0)
			continue;
		stack = af_folded_line(line, n, &before, &after, &two);
		if (stack == 0 || memchr(line, 0, n)) {
			t->info.ignored_lines++;
			continue;
		}
		for (i = 0, start = 0; i <= stack; i++) {
			uint32_t name;
			if (i < stack && line[i] != ';')
				continue;
			name = af_names_intern_clean(&t->frames, line + start, i - start);
			if (name == AF_NONE)
				return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
			if (t->flamechart) {
				/* only the same frame of the line before merges */
				uint32_t last = t->tree.nodes[node].child;
				node = last != AF_NONE && t->tree.nodes[last].key == name
				               ? last : af_ptree_append(&t->tree, node, name);
			} else {
				node = af_ptree_child(&t->tree, node, name);
			}
			if (node == AF_NONE)
				return af_fail(err, t->tree.len >= t->tree.max_nodes
				                        ? AF_ERR_LIMIT : AF_ERR_NOMEM,
				               (long long)(line - (const char *)buf),
				               "cannot add call path %zu (limit %u)",
				               t->tree.len + 1, t->tree.max_nodes);
			start = i + 1;
		}
		t->tree.nodes[node].self[AF_CLOCK_WALL] += after;
		t->tree.nodes[node].base += before;
		t->info.lines++;
		t->info.differential |= two;
	}
	if (t->info.lines == 0)
		return af_fail(err, AF_ERR_FORMAT, 0, "no line of folded stacks "
		               "(\"frame;frame COUNT\") in the input");
	t->info.has_clock[AF_CLOCK_WALL] = 1;
	return AF_OK;
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */

/* Names hold no NUL (the tree cleans them), so each line is a C string. */
static int af_line_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

af_status af_folded_write(const af_tree *tree, af_clock clock, FILE *out,
                          af_error *err)
{
	const af_pnode *nodes = af_tree_nodes(tree);
	size_t n = af_tree_size(tree), i, nlines = 0, lcap = 0;
	af_buf text = {0};
	size_t *offs = NULL;
	const char **lines = NULL;
	uint32_t *path = NULL;
	size_t pcap = 0;
	af_status st = AF_OK;

	if ((unsigned)clock >= AF_CLOCK_COUNT)
		return af_fail(err, AF_ERR_ARG, -1, "unknown clock");
	for (i = 1; i < n; i++) {
		size_t depth = 0, start = text.len, k;
		uint32_t v;
		if (!nodes[i].self[clock])
			continue;
		for (v = (uint32_t)i; v != 0; v = nodes[v].parent) {
			if (AF_GROW(path, pcap, depth + 1))
				goto nomem;
			path[depth++] = v;
		}
		for (k = depth; k-- > 0;) {
			const char *name = af_tree_name(tree, path[k]);
			if (af_buf_append(&text, name, strlen(name)) ||
			    (k && af_buf_append(&text, ";", 1)))
				goto nomem;
		}
		if (af_buf_printf(&text, " %llu",
		                  (unsigned long long)nodes[i].self[clock]) ||
		    af_buf_append(&text, "", 1) || AF_GROW(offs, lcap, nlines + 1))
			goto nomem;
		offs[nlines++] = start;
	}
	/* the text is complete: its lines can be pointed at and sorted */
	if (nlines) {
		lines = malloc(nlines * sizeof *lines);
		if (!lines)
			goto nomem;
		for (i = 0; i < nlines; i++)
			lines[i] = text.data + offs[i];
		qsort(lines, nlines, sizeof *lines, af_line_cmp);
	}
	for (i = 0; i < nlines; i++) {
		fputs(lines[i], out);
		fputc('\n', out);
	}
	if (fflush(out) || ferror(out))
		st = af_fail(err, AF_ERR_IO, -1, "write failed");
	goto out;
nomem:
	st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory writing folded text");
out:
	free(text.data);
	free(lines);
	free(offs);
	free(path);
	return st;
}
