/*
 * folded.c - flamegraph.pl's collapsed-stack text, "a;b;c COUNT" per line,
 * read as input (also difffolded.pl's "a;b;c BEFORE AFTER").  The writer
 * is render/folded.c.
 */
#include <stdlib.h>
#include <string.h>

#include "trace.h"

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
