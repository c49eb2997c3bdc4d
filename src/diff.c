/*
 * diff.c - the comparison of two call trees (af_tree_diff): AFTER's paths
 * with their widths, BEFORE's self times beside them, and a band of the
 * paths only BEFORE has.
 */
#include <string.h>

#include "tree.h"

/* The node of `out` for path `src_node` of `src`, made when missing;
 * `map` holds the answers for src's nodes, whose parents come first. */
static uint32_t af_diff_node(af_tree *out, const af_tree *src, const uint32_t *map,
                             uint32_t src_node)
{
	const char *name = af_tree_name(src, src_node);
	uint32_t key = af_names_intern(&out->own, name, strlen(name));

	if (key == AF_NONE || af_tree_set_lib(out, key, af_tree_lib(src, af_tree_name_id(src, src_node))))
		return AF_NONE;
	return af_ptree_child(&out->pt, map[src->pt.nodes[src_node].parent], key);
}

static af_status af_tree_compare(const af_tree *before, const af_tree *after,
                                 const af_diff_options *opt, af_tree **out,
                                 af_error *err)
{
	af_clock clock = opt ? opt->clock : AF_CLOCK_WALL;
	size_t na = after->pt.len, nb = before->pt.len, n, i;
	uint32_t *map = NULL, *copy = NULL, *up = NULL, key;
	uint64_t *tot_after = NULL, *tot_before = NULL, ka, kb;
	unsigned dec;
	double scale = 1;
	af_tree *t;
	af_status st;
	af_mem *mem = after->mem;
	/* the wait clock is kept as wall time with no cpu time beside it, so
	 * the diff's own wait clock reads it back unchanged */
	int slot = clock == AF_CLOCK_WAIT ? AF_CLOCK_WALL : (int)clock;

	*out = NULL;
	if ((unsigned)clock >= AF_CLOCK_COUNT)
		return af_fail(err, AF_ERR_ARG, -1, "unknown clock");
	if (after->total[0][clock] == 0)
		return af_fail(err, AF_ERR_EMPTY, -1, "AFTER has no time on the %s clock",
		               clock == AF_CLOCK_WALL ? "wall"
		               : clock == AF_CLOCK_WAIT ? "wait" : "thread-cpu");
	/* counts with decimals: both sides in the finer unit */
	dec = after->decimals > before->decimals ? after->decimals : before->decimals;
	for (ka = 1, i = after->decimals; i < dec; i++)
		ka *= 10;
	for (kb = 1, i = before->decimals; i < dec; i++)
		kb *= 10;
	if (after->total[0][clock] > UINT64_MAX / ka || before->total[0][clock] > UINT64_MAX / kb)
		return af_fail(err, AF_ERR_LIMIT, -1, "the counts of BEFORE and AFTER, "
		               "with %u decimals, add up to more than 64 bits hold", dec);
	if (opt && opt->normalize && before->total[0][clock])
		scale = (double)after->total[0][clock] * (double)ka /
		        ((double)before->total[0][clock] * (double)kb);
	t = af_calloc(mem, 1, sizeof *t);
	if (!t)
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory comparing the profiles");
	t->mem = af_mem_ref(mem);
	t->own.mem = mem;
	t->names = &t->own;
	t->name_of.mem = mem;
	t->full.mem = mem;
	t->libs.mem = mem;
	t->lib.mem = mem;
	t->wait = clock == AF_CLOCK_WAIT;
	af_ptree_init(&t->pt, 0, mem);
	t->band = AF_NONE;
	t->diff = t->differential = 1;
	t->not_threads = after->not_threads;
	t->is_time = before->is_time && after->is_time;
	t->decimals = dec;
	key = af_names_intern(&t->own, "all", 3);
	if (key == AF_NONE || af_ptree_root(&t->pt, key) == AF_NONE)
		goto nomem;
	map = af_malloc(mem, (na > nb ? na : nb) * sizeof *map);
	if (!map)
		goto nomem;
	/* AFTER's paths with their widths and calls */
	map[0] = 0;
	for (i = 1; i < na; i++) {
		const af_pnode *a = &after->pt.nodes[i];
		if ((map[i] = af_diff_node(t, after, map, (uint32_t)i)) == AF_NONE)
			goto nomem;
		t->pt.nodes[map[i]].self[slot] += af_tree_self(after, (uint32_t)i, clock) * ka;
		t->pt.nodes[map[i]].calls += a->calls;
	}
	/* BEFORE's self times on the same paths; its other paths join with no
	 * width, as difffolded.pl's lines with an AFTER count of 0 */
	for (i = 1; i < nb; i++) {
		uint64_t b = af_tree_self(before, (uint32_t)i, clock) * kb;
		if ((map[i] = af_diff_node(t, before, map, (uint32_t)i)) == AF_NONE)
			goto nomem;
		t->pt.nodes[map[i]].base += (uint64_t)((double)b * scale + 0.5);
	}
	/* the removed band: each path with BEFORE's time and none of AFTER's
	 * whose caller has some, copied under "[removed]" with its callers */
	n = t->pt.len;
	tot_after = af_calloc(mem, n, sizeof *tot_after);
	tot_before = af_calloc(mem, n, sizeof *tot_before);
	copy = af_malloc(mem, n * sizeof *copy);
	up = af_malloc(mem, n * sizeof *up);
	if (!tot_after || !tot_before || !copy || !up)
		goto nomem;
	for (i = n; i-- > 0;) {
		tot_after[i] += t->pt.nodes[i].self[slot];
		tot_before[i] += t->pt.nodes[i].base;
		if (i > 0) {
			tot_after[t->pt.nodes[i].parent] += tot_after[i];
			tot_before[t->pt.nodes[i].parent] += tot_before[i];
		}
	}
	copy[0] = AF_NONE;
	for (i = 1; i < n; i++) {
		uint32_t p = t->pt.nodes[i].parent, v;
		copy[i] = AF_NONE;
		if (tot_after[i] || !tot_before[i])
			continue;
		if (copy[p] == AF_NONE) {
			/* the callers' chain, made once per caller */
			size_t depth = 0;
			if (t->band == AF_NONE) {
				key = af_names_intern(&t->own, "[removed]", 9);
				if (key == AF_NONE ||
				    (t->band = af_ptree_append(&t->pt, 0, key)) == AF_NONE)
					goto nomem;
			}
			copy[0] = t->band;
			for (v = p; copy[v] == AF_NONE; v = t->pt.nodes[v].parent)
				up[depth++] = v;
			while (depth--) {
				v = up[depth];
				copy[v] = af_ptree_child(&t->pt, copy[t->pt.nodes[v].parent],
				                         t->pt.nodes[v].key);
				if (copy[v] == AF_NONE)
					goto nomem;
			}
		}
		copy[i] = af_ptree_child(&t->pt, copy[p], t->pt.nodes[i].key);
		if (copy[i] == AF_NONE)
			goto nomem;
		t->pt.nodes[copy[i]].self[slot] = t->pt.nodes[i].base;
	}
	t->removed = af_calloc(mem, t->pt.len, 1);
	if (!t->removed)
		goto nomem;
	for (i = n; i < t->pt.len; i++)
		t->removed[i] = 1;
	af_free(mem, map);
	af_free(mem, copy);
	af_free(mem, up);
	af_free(mem, tot_after);
	af_free(mem, tot_before);
	if ((st = af_tree_seal(t, err)) != AF_OK) {
		af_tree_free(t);
		return st == AF_ERR_NOMEM ? af_fail(err, st, -1, "out of memory comparing "
		                                    "the profiles") : st;
	}
	*out = t;
	return AF_OK;
nomem:
	af_free(mem, map);
	af_free(mem, copy);
	af_free(mem, up);
	af_free(mem, tot_after);
	af_free(mem, tot_before);
	af_tree_free(t);
	return af_fail(err, AF_ERR_NOMEM, -1, "out of memory comparing the profiles");
}

af_status af_tree_diff(const af_tree *before, const af_tree *after,
                       const af_diff_options *opt, af_tree **out, af_error *err)
{
	/* the diff's blocks come from AFTER's allocator and budget */
	return af_mem_explain(after->mem, af_tree_compare(before, after, opt, out, err),
	                      err);
}
