/*
 * folded.c - flamegraph.pl's collapsed-stack text, "a;b;c COUNT" per line,
 * read as input (also difffolded.pl's "a;b;c BEFORE AFTER").  The writer
 * is render/folded.c.
 */
#include <stdlib.h>
#include <string.h>

#include "trace.h"

/* The most decimals a count keeps (finer fractions are rounded): counts
 * are whole numbers of 10^-decimals, so sums are exact. */
#define AF_MAX_DECIMALS 6

static const uint64_t af_pow10[AF_MAX_DECIMALS + 1] = {
	1, 10, 100, 1000, 10000, 100000, 1000000};

/* Whitespace as Perl's \s sees it within a line. */
static int af_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* A count as flamegraph.pl reads it, \d+(\.\d*)?: its whole part and its
 * fraction in millionths (rounded), with how many decimals the fraction
 * needs. */
typedef struct af_count {
	uint64_t whole;
	uint32_t micro;
	unsigned decimals;
	int huge;          /* the whole part is over 64 bits */
} af_count;

/* Where the count that ends at s[end) begins: a digit, then digits with
 * at most one '.', after a whitespace character; SIZE_MAX when there is
 * none. */
static size_t af_count_token(const char *s, size_t end)
{
	size_t start = end, dots = 0;

	while (start > 0 && ((s[start - 1] >= '0' && s[start - 1] <= '9') || s[start - 1] == '.')) {
		dots += s[start - 1] == '.';
		start--;
	}
	if (start == end || dots > 1 || s[start] == '.' || start == 0 || !af_space(s[start - 1]))
		return SIZE_MAX;
	return start;
}

static void af_count_read(const char *s, size_t n, af_count *c)
{
	size_t i = 0, k;
	uint32_t micro = 0;

	memset(c, 0, sizeof *c);
	for (; i < n && s[i] != '.'; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (c->whole > (UINT64_MAX - d) / 10)
			c->huge = 1;
		c->whole = c->whole * 10 + d;
	}
	/* the fraction: six digits, rounded half up at the seventh */
	for (k = 0, i++; k < AF_MAX_DECIMALS; k++, i++)
		micro = micro * 10 + (i < n ? (uint32_t)(s[i] - '0') : 0);
	if (i < n && s[i] >= '5' && ++micro == 1000000) {
		micro = 0;
		if (c->whole == UINT64_MAX)
			c->huge = 1;
		c->whole++;
	}
	c->micro = micro;
	for (c->decimals = AF_MAX_DECIMALS; c->decimals > 0 && micro % 10 == 0; micro /= 10)
		c->decimals--;
}

/* A line as flamegraph.pl splits it, ^(.*)\s+?(\d+(?:\.\d*)?)$: the stack
 * is everything before the whitespace character just before the count, so
 * "a;b;  3" has a frame " "; a second count before that (difffolded.pl's
 * BEFORE AFTER) is taken the same way.  Unlike flamegraph.pl, whitespace
 * after the count (a CRLF file, a trailing space) is allowed. */
typedef struct af_fline {
	size_t stack;      /* its length */
	af_count before, after;
	size_t at[2], len[2]; /* where the counts are: BEFORE, AFTER */
	int two;
} af_fline;

static int af_folded_line(const char *s, size_t n, af_fline *l)
{
	size_t end = n, tok;

	while (end > 0 && af_space(s[end - 1]))
		end--;
	if ((tok = af_count_token(s, end)) == SIZE_MAX)
		return 0;
	af_count_read(s + tok, end - tok, &l->after);
	l->at[1] = tok;
	l->len[1] = end - tok;
	l->stack = tok - 1;
	l->two = 0;
	memset(&l->before, 0, sizeof l->before);
	if ((tok = af_count_token(s, l->stack)) != SIZE_MAX) {
		af_count_read(s + tok, l->stack - tok, &l->before);
		l->at[0] = tok;
		l->len[0] = l->stack - tok;
		l->stack = tok - 1;
		l->two = 1;
	}
	return 1;
}

/* How far detection looks for a first line of folded stacks, past lines
 * that are not (a header such as "# austin: 3.3.0"). */
#define AF_DETECT_LINES 100
#define AF_DETECT_BYTES (1u << 20)

int af_folded_detect(const uint8_t *buf, size_t len)
{
	size_t i = 0, end, lines = 0;
	af_fline l;

	while (i < len && i < AF_DETECT_BYTES && lines < AF_DETECT_LINES) {
		for (end = i; end < len && buf[end] != '\n'; end++)
			if (buf[end] == 0)
				return 0; /* not text */
		if (end > i && af_folded_line((const char *)buf + i, end - i, &l))
			return 1;
		lines += end > i;
		i = end + 1;
	}
	return 0;
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

/* The largest count `decimals` can hold, for messages: "184467440737095516.15". */
static void af_count_max(char *out, size_t n, unsigned decimals)
{
	uint64_t p = af_pow10[decimals];

	if (decimals)
		snprintf(out, n, "%llu.%0*llu", (unsigned long long)(UINT64_MAX / p),
		         (int)decimals, (unsigned long long)(UINT64_MAX % p));
	else
		snprintf(out, n, "%llu", (unsigned long long)UINT64_MAX);
}

/* Counts are kept as whole numbers of 10^-decimals: a line with more
 * decimals than any before multiplies what the tree holds so far.  0, or
 * -1 when the sums would no longer fit. */
static int af_folded_rescale(af_trace *t, unsigned decimals, uint64_t *sum,
                             uint64_t *base_sum)
{
	uint64_t k = af_pow10[decimals - t->info.decimals];
	size_t i;

	if (*sum > UINT64_MAX / k || *base_sum > UINT64_MAX / k)
		return -1;
	*sum *= k;
	*base_sum *= k;
	for (i = 0; i < t->tree.len; i++) {
		t->tree.nodes[i].self[AF_CLOCK_WALL] *= k;
		t->tree.nodes[i].base *= k;
		if (t->started && i < t->started_cap)
			t->started[i][AF_CLOCK_WALL] *= k;
	}
	t->info.decimals = decimals;
	return 0;
}

/* `c` in whole numbers of 10^-decimals; -1 when over 64 bits. */
static int af_count_units(const af_count *c, unsigned decimals, uint64_t *out)
{
	uint64_t p = af_pow10[decimals];

	if (c->huge || c->whole > (UINT64_MAX - c->micro / af_pow10[AF_MAX_DECIMALS - decimals]) / p)
		return -1;
	*out = c->whole * p + c->micro / af_pow10[AF_MAX_DECIMALS - decimals];
	return 0;
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
	uint64_t base_sum = 0;      /* the BEFORE counts so far */
	unsigned long long lineno = 0;
	size_t next_input = 0;
	af_buf wname = {.mem = t->mem}; /* a waker's frame, with "_[w]" */
	af_status st = AF_OK;

	if (root == AF_NONE)
		return af_fail(err, AF_ERR_NOMEM, 0, "out of memory");
	while (pos < len) {
		const char *line = (const char *)buf + pos;
		const char *nl = memchr(line, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - line) : len - pos, stack, i, start, depth;
		long long off = (long long)(line - (const char *)buf);
		uint64_t before = 0, after = 0;
		uint32_t node = root;
		unsigned dec;
		af_fline fl;
		int same = 1, waker;

		/* several inputs read as one: each counts its own lines */
		while (next_input < t->ninputs && (size_t)off >= t->input_starts[next_input]) {
			next_input++;
			lineno = 0;
		}
		pos += n + (nl != NULL);
		lineno++;
		if (n && line[n - 1] == '\r')
			n--;
		if (n == 0)
			continue;
		if (!af_folded_line(line, n, &fl) || memchr(line, 0, n)) {
			if (!t->info.ignored_lines++)
				t->info.first_ignored_line = (uint64_t)off;
			continue;
		}
		/* the counts, exactly: whole numbers of 10^-decimals */
		dec = fl.after.decimals > fl.before.decimals ? fl.after.decimals
		                                            : fl.before.decimals;
		if (fl.after.huge || fl.before.huge) {
			int k = fl.before.huge ? 0 : 1;
			st = af_fail(err, AF_ERR_LIMIT, off + (long long)fl.at[k],
			             "line %llu: the count %.*s is larger than "
			             "18446744073709551615", lineno,
			             (int)(fl.len[k] > 64 ? 64 : fl.len[k]), line + fl.at[k]);
			goto out;
		}
		if ((dec > t->info.decimals && af_folded_rescale(t, dec, &sum, &base_sum)) ||
		    af_count_units(&fl.after, t->info.decimals, &after) ||
		    (fl.two && af_count_units(&fl.before, t->info.decimals, &before)) ||
		    after > UINT64_MAX - sum || before > UINT64_MAX - base_sum) {
			char max[32];
			af_count_max(max, sizeof max, dec > t->info.decimals ? dec : t->info.decimals);
			st = af_fail(err, AF_ERR_LIMIT, off,
			             "line %llu: the counts add up to more than %s%s", lineno, max,
			             t->info.decimals || dec ? " (counts with decimals are kept "
			                                       "exactly, in 64 bits)" : "");
			goto out;
		}
		/* flamegraph.pl splits the stack as Perl's split does: trailing
		 * empty frames go ("a;b; 3" is a;b, ";;;; 3" the root alone) */
		stack = fl.stack;
		while (stack > 0 && line[stack - 1] == ';')
			stack--;
		depth = start = 0;
		waker = 0;
		if (!t->flamechart && !t->wakers && prev) {
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
		for (i = start; stack > 0 && i <= stack; i++) {
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
			if (t->wakers) {
				/* flamegraph.pl --colors chain: "a;--;b;c" is a;--;b_[w];c_[w] */
				int sep = i - start == 2 && line[start] == '-' && line[start + 1] == '-';
				wname.len = 0;
				if (af_buf_append(&wname, line + start, i - start) ||
				    (waker && !(sep && i < stack) && af_buf_append(&wname, "_[w]", 4))) {
					st = af_fail(err, AF_ERR_NOMEM, off, "out of memory");
					goto out;
				}
				waker |= sep && depth > 1 && i < stack;
				name = af_names_intern_clean(&t->frames, wname.data ? wname.data : "",
				                             wname.len);
			} else {
				name = af_names_intern_clean(&t->frames, line + start, i - start);
			}
			if (name == AF_NONE) {
				st = af_fail(err, AF_ERR_NOMEM, off, "out of memory");
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
						st = af_fail(err, AF_ERR_NOMEM, off, "out of memory");
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
				     ? af_fail(err, AF_ERR_LIMIT, off,
				               "cannot add call path %zu (limit %u)",
				               t->tree.len + 1, t->tree.max_nodes)
				     : af_fail(err, AF_ERR_NOMEM, off,
				               "out of memory adding call path %zu",
				               t->tree.len + 1);
				goto out;
			}
			if (AF_GROW(t->mem, at, ncap, depth) || AF_GROW(t->mem, end, ecap, depth)) {
				st = af_fail(err, AF_ERR_NOMEM, off, "out of memory");
				goto out;
			}
			at[depth - 1] = node;
			end[depth - 1] = i;
			start = i + 1;
		}
		prev = line;
		prev_len = stack;
		ndepth = depth;
		t->tree.nodes[node].self[AF_CLOCK_WALL] += after;
		t->tree.nodes[node].base += before;
		t->tree.nodes[node].lines |= fl.two ? AF_LINE_TWO : AF_LINE_ONE;
		sum += after;
		base_sum += before;
		t->info.lines++;
		t->info.differential |= fl.two;
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
	af_buf_free(&wname);
	return st;
}
