/*
 * methods.c - the per-method table of a trace (dmtracedump's and
 * Traceview's profile): calls, recursive calls, inclusive and exclusive
 * time per method, from the raw prefix tree the parser built.
 *
 * A raw node is one call path; its calls and self time are exact.  A
 * method's exclusive time is the sum of its nodes' self times.  Its
 * inclusive time sums the subtree totals of its outermost nodes only (no
 * caller of the same name), so a recursive method is counted once per
 * outermost activation; calls under a caller of the same name are
 * recursive calls.  The walk keeps, per name, how many frames of that name
 * are on the path, with an explicit stack.
 */
#include <stdlib.h>
#include <string.h>

#include "methods.h"
#include "trace.h"

/* The table with what owns its names. */
typedef struct af_methods {
	af_method_table pub; /* first: the public pointer is this struct's */
	af_names names;
	af_mem *mem;         /* the trace's allocator, referenced */
} af_methods;

typedef struct af_visit {
	uint32_t node;
	int leave; /* 1: the node's subtree is done */
} af_visit;

int af_method_row_cmp(const void *a, const void *b)
{
	const af_method_row *x = a, *y = b;

	if (x->inclusive != y->inclusive)
		return x->inclusive > y->inclusive ? -1 : 1;
	if (x->exclusive != y->exclusive)
		return x->exclusive > y->exclusive ? -1 : 1;
	if (x->calls + x->recursive_calls != y->calls + y->recursive_calls)
		return x->calls + x->recursive_calls > y->calls + y->recursive_calls ? -1 : 1;
	return strcmp(x->name, y->name);
}

void af_method_table_free(af_method_table *table)
{
	af_methods *m = (af_methods *)table;
	af_mem *mem;

	if (!m)
		return;
	mem = m->mem;
	af_free(mem, m->pub.rows);
	af_names_free(&m->names);
	af_free(mem, m);
	af_mem_unref(mem);
}

/* The name id of raw key `key`, cached in `ids`. */
static uint32_t af_method_name(af_methods *m, const af_trace *trace, af_u32map *ids,
                               uint32_t key, int signatures)
{
	uint32_t id;

	if (af_u32map_get(ids, key, &id))
		return id;
	if (trace->info.variant == AF_VARIANT_FOLDED) {
		const char *s = trace->frames.str[key];
		id = af_names_intern(&m->names, s, strlen(s));
	} else {
		id = af_trace_frame_name(trace, key, signatures, &m->names);
	}
	if (id == AF_NONE || af_u32map_put(ids, key, id))
		return AF_NONE;
	return id;
}

/* Per raw node, the off-CPU time of its subtree (the wait clock is not
 * recorded, so the parse keeps no totals of it).  NULL when out of memory. */
static uint64_t *af_wait_totals(const af_ptree *t)
{
	size_t n = t->len, i;
	uint64_t *tot = af_calloc(t->mem, n ? n : 1, sizeof *tot);
	uint32_t *order = af_malloc(t->mem, (n ? n : 1) * sizeof *order);
	uint32_t *stack = af_malloc(t->mem, (n ? n : 1) * sizeof *stack);

	if (!tot || !order || !stack) {
		af_free(t->mem, tot);
		tot = NULL;
		goto out;
	}
	for (i = af_ptree_order(t, order, stack); i-- > 0;) {
		uint32_t x = order[i], p = t->nodes[x].parent;
		tot[x] += af_pnode_wait(&t->nodes[x]);
		if (p != AF_NONE)
			tot[p] += tot[x];
	}
out:
	af_free(t->mem, order);
	af_free(t->mem, stack);
	return tot;
}

static af_status af_method_table_make(const af_trace *trace,
                                      const af_tree_options *opt, af_clock clock,
                                      af_method_table **out, af_error *err)
{
	const af_pnode *nodes = trace->tree.nodes;
	const uint64_t(*tot)[AF_CLOCK_RECORDED] = (const uint64_t(*)[AF_CLOCK_RECORDED])trace->totals;
	uint64_t *wait = NULL; /* the wait clock's subtree totals */
	af_methods *m;
	af_mem *mem = trace->mem;
	af_u32map ids = {.mem = mem};
	af_visit *stack = NULL;
	uint32_t *active = NULL; /* per name id: frames of that name on the path */
	size_t depth = 0, cap = 0, acap = 0, rcap = 0, i, nroots = 0;
	uint32_t *roots = NULL;
	int signatures = opt && opt->signatures;
	int folded = trace->info.variant == AF_VARIANT_FOLDED;
	af_status st = AF_OK;

	*out = NULL;
	if ((unsigned)clock >= AF_CLOCK_COUNT)
		return af_fail(err, AF_ERR_ARG, -1, "unknown clock");
	if (!trace->info.has_clock[clock])
		return af_fail(err, AF_ERR_CLOCK, -1, "the trace has no %s clock",
		               clock == AF_CLOCK_WALL ? "wall"
		               : clock == AF_CLOCK_WAIT ? "wait (it needs both clocks)"
		                                        : "thread-cpu");
	m = af_calloc(mem, 1, sizeof *m);
	if (m) {
		m->mem = af_mem_ref(mem);
		m->names.mem = mem;
	}
	if (!m || (clock == AF_CLOCK_WAIT && !(wait = af_wait_totals(&trace->tree)))) {
		af_method_table_free(m ? &m->pub : NULL);
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory building the method table");
	}
	m->pub.clock = clock;
	m->pub.is_time = trace->info.variant != AF_VARIANT_FOLDED;
	m->pub.decimals = trace->info.decimals;

	/* the roots whose children are methods: one per selected thread, or
	 * the one root of folded input */
	roots = af_malloc(mem, (trace->nthreads + 1) * sizeof *roots);
	if (!roots)
		goto nomem;
	if (folded) {
		/* the one root; the thread filter picks among its children */
		uint32_t c;
		for (c = trace->tree.len ? nodes[0].child : AF_NONE; c != AF_NONE;
		     c = nodes[c].sibling)
			if (af_first_frame_selected(trace, c, opt)) {
				roots[nroots++] = 0;
				break;
			}
	} else {
		for (i = 0; i < trace->nthreads; i++) {
			const af_thread *th = &trace->threads[i];
			if (!th->records ||
			    (opt && opt->one_thread ? i != opt->thread : !af_thread_selected(th, opt)))
				continue;
			roots[nroots++] = th->root;
		}
	}
	if (!nroots) {
		st = af_fail(err, AF_ERR_EMPTY, -1, "%s", af_empty_message(trace, opt));
		goto out;
	}

	for (i = 0; i < nroots; i++) {
		uint32_t c;
		if (!folded)
			m->pub.total += wait ? wait[roots[i]] : tot[roots[i]][clock];
		for (c = nodes[roots[i]].child; c != AF_NONE; c = nodes[c].sibling) {
			if (folded) {
				if (!af_first_frame_selected(trace, c, opt))
					continue;
				m->pub.total += tot[c][clock];
			}
			if (AF_GROW(mem, stack, cap, depth + 1))
				goto nomem;
			stack[depth].node = c;
			stack[depth++].leave = 0;
		}
		while (depth) {
			af_visit v = stack[--depth];
			const af_pnode *n = &nodes[v.node];
			uint32_t name = af_method_name(m, trace, &ids, n->key, signatures), k;
			af_method_row *row;

			if (name == AF_NONE)
				goto nomem;
			if (v.leave) {
				active[name]--;
				continue;
			}
			if (name >= acap) {
				size_t old = acap;
				if (AF_GROW(mem, active, acap, (size_t)name + 1))
					goto nomem;
				memset(active + old, 0, (acap - old) * sizeof *active);
			}
			if (name >= m->pub.nrows) {
				size_t old = rcap;
				if (AF_GROW(mem, m->pub.rows, rcap, (size_t)name + 1))
					goto nomem;
				memset(m->pub.rows + old, 0, (rcap - old) * sizeof *m->pub.rows);
				m->pub.nrows = (size_t)name + 1;
			}
			row = &m->pub.rows[name];
			if (active[name]) {
				row->recursive_calls += n->calls;
			} else {
				row->calls += n->calls;
				row->inclusive += wait ? wait[v.node] : tot[v.node][clock];
			}
			row->exclusive += wait ? af_pnode_wait(n) : n->self[clock];
			active[name]++;
			if (AF_GROW(mem, stack, cap, depth + 1))
				goto nomem;
			stack[depth].node = v.node;
			stack[depth++].leave = 1;
			for (k = n->child; k != AF_NONE; k = nodes[k].sibling) {
				if (AF_GROW(mem, stack, cap, depth + 1))
					goto nomem;
				stack[depth].node = k;
				stack[depth++].leave = 0;
			}
		}
	}
	/* rows are indexed by name id until now; a frame with no call and no
	 * time (a folded line counting 0) is left out */
	{
		size_t kept = 0;
		for (i = 0; i < m->pub.nrows; i++) {
			af_method_row *r = &m->pub.rows[i];
			if (!r->calls && !r->recursive_calls && !r->inclusive && !r->exclusive)
				continue;
			r->name = m->names.str[i];
			r->library = NULL;
			m->pub.rows[kept++] = *r;
		}
		m->pub.nrows = kept;
	}
	qsort(m->pub.rows, m->pub.nrows, sizeof *m->pub.rows, af_method_row_cmp);
	*out = &m->pub;
	m = NULL;
	goto out;
nomem:
	st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory building the method table");
out:
	af_method_table_free(m ? &m->pub : NULL);
	af_u32map_free(&ids);
	af_free(mem, wait);
	af_free(mem, stack);
	af_free(mem, active);
	af_free(mem, roots);
	return st;
}

af_status af_method_table_build(const af_trace *trace, const af_tree_options *opt,
                                af_clock clock, af_method_table **out,
                                af_error *err)
{
	return af_mem_explain(trace->mem,
	                      af_method_table_make(trace, opt, clock, out, err), err);
}

/* ------------------------------------------------------------------ */
/* Writing                                                             */

static double af_pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0;
}

/* `v` whole numbers of 10^-dec as an exact decimal: "12", "1.5"; with
 * `group`, the whole part in groups of three: "1,234.5". */
static void af_units(char *out, size_t n, uint64_t v, unsigned dec, int group)
{
	char digits[32], frac[16] = "";
	uint64_t p = 1, f;
	unsigned k;
	int len, i;
	size_t o = 0;

	for (k = 0; k < dec; k++)
		p *= 10;
	f = v % p;
	if (f) {
		while (f % 10 == 0) {
			f /= 10;
			dec--;
		}
		snprintf(frac, sizeof frac, ".%0*llu", (int)dec, (unsigned long long)f);
	}
	len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)(v / p));
	for (i = 0; i < len && o + 2 < n; i++) {
		if (group && i > 0 && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
	snprintf(out + o, n - o, "%s", frac);
}

/* A value for people: a time, or a count with thousands separators. */
static void af_human(char *out, size_t n, uint64_t v, int is_time, unsigned dec)
{
	if (is_time)
		af_format_us(out, n, v);
	else
		af_units(out, n, v, dec, 1);
}

/* Columns of the text table are as wide as their widest cell; a "µs"
 * takes two bytes for one column. */
static size_t af_cols(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

af_status af_method_table_write(const af_method_table *t, af_table_format format,
                                FILE *out, af_error *err)
{
	size_t i;

	if (format == AF_TABLE_TSV) {
		const char *unit = t->is_time ? "_us" : "";
		fprintf(out, "method\tcalls\trecursive_calls\tinclusive%s\tinclusive_pct\t"
		             "exclusive%s\texclusive_pct\n", unit, unit);
		for (i = 0; i < t->nrows; i++) {
			const af_method_row *r = &t->rows[i];
			char a[48], b[48];
			af_units(a, sizeof a, r->inclusive, t->decimals, 0);
			af_units(b, sizeof b, r->exclusive, t->decimals, 0);
			fprintf(out, "%s\t%llu\t%llu\t%s\t%.2f\t%s\t%.2f\n", r->name,
			        (unsigned long long)r->calls,
			        (unsigned long long)r->recursive_calls, a,
			        af_pct(r->inclusive, t->total), b, af_pct(r->exclusive, t->total));
		}
	} else if (format == AF_TABLE_TEXT) {
		size_t wi = strlen("inclusive"), we = strlen("exclusive");
		size_t wc = strlen("calls"), wr = strlen("recursive");
		char a[48], b[48];

		for (i = 0; i < t->nrows; i++) {
			const af_method_row *r = &t->rows[i];
			size_t k;
			af_human(a, sizeof a, r->inclusive, t->is_time, t->decimals);
			af_human(b, sizeof b, r->exclusive, t->is_time, t->decimals);
			if ((k = af_cols(a)) > wi)
				wi = k;
			if ((k = af_cols(b)) > we)
				we = k;
			if ((k = (size_t)snprintf(a, sizeof a, "%llu",
			                          (unsigned long long)r->calls)) > wc)
				wc = k;
			if ((k = (size_t)snprintf(a, sizeof a, "%llu",
			                          (unsigned long long)r->recursive_calls)) > wr)
				wr = k;
		}
		af_human(a, sizeof a, t->total, t->is_time, t->decimals);
		fprintf(out, "%zu methods, %s%s in all\n\n", t->nrows, a,
		        !t->is_time ? ""
		        : t->clock == AF_CLOCK_WALL ? " of wall time"
		        : t->clock == AF_CLOCK_WAIT ? " off CPU (wait)" : " of thread-cpu time");
		fprintf(out, "%*s %7s  %*s %7s  %*s %*s  %s\n", (int)wi, "inclusive", "%",
		        (int)we, "exclusive", "%", (int)wc, "calls", (int)wr, "recursive",
		        "method");
		for (i = 0; i < t->nrows; i++) {
			const af_method_row *r = &t->rows[i];
			af_human(a, sizeof a, r->inclusive, t->is_time, t->decimals);
			af_human(b, sizeof b, r->exclusive, t->is_time, t->decimals);
			/* pad by columns, not bytes */
			fprintf(out, "%*s%s %6.2f%%  %*s%s %6.2f%%  %*llu %*llu  %s\n",
			        (int)(wi - af_cols(a)), "", a, af_pct(r->inclusive, t->total),
			        (int)(we - af_cols(b)), "", b, af_pct(r->exclusive, t->total),
			        (int)wc, (unsigned long long)r->calls, (int)wr,
			        (unsigned long long)r->recursive_calls, r->name);
		}
	} else {
		return af_fail(err, AF_ERR_ARG, -1, "unknown table format");
	}
	if (fflush(out) || ferror(out))
		return af_fail(err, AF_ERR_IO, -1, "write failed");
	return AF_OK;
}
