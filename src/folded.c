/*
 * folded.c - flamegraph.pl's collapsed-stack text: "a;b;c SELF" per path.
 */
#include <stdlib.h>
#include <string.h>

#include "tree.h"

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
