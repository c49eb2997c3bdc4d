/*
 * view.c - the rules of a call-tree view.  Naming: deobfuscation through a
 * ProGuard/R8 mapping and labels without the package.  Shape: paths turned
 * around, frames excluded with their subtrees, paths re-rooted at a focus
 * frame, direct recursion collapsed, frames under a share of the total
 * dropped.  Every
 * walk goes by index (parents come before children), never by recursion.
 */
#include <stdlib.h>
#include <string.h>

#include "mapping.h"
#include "view.h"

#define HIT_CHECKED 1
#define HIT_FOCUS 2
#define HIT_EXCLUDE 4
#define HIT_THREAD 8

#define KEEP_DROP AF_NONE        /* gone, with its subtree */
#define KEEP_PENDING (AF_NONE - 1) /* not drawn; a focus frame may follow */

static af_status af_view_regcomp(regex_t *re, const char *pattern,
                                 const char *what, af_error *err)
{
	int rc = regcomp(re, pattern, REG_EXTENDED | REG_NOSUB);
	char msg[160];

	if (rc == 0)
		return AF_OK;
	/* the C library's own allocation failed: not the pattern's fault */
	if (rc == REG_ESPACE)
		return af_fail(err, AF_ERR_NOMEM, -1,
		               "out of memory compiling the %s regular expression", what);
	regerror(rc, re, msg, sizeof msg);
	return af_fail(err, AF_ERR_ARG, -1, "bad %s regular expression '%.60s': %s",
	               what, pattern, msg);
}

af_status af_view_init(af_view *v, af_mem *mem, const af_tree_options *opt,
                       int wait, int flamechart, af_error *err)
{
	af_status st;

	memset(v, 0, sizeof *v);
	v->mem = mem;
	v->opt = opt;
	v->wait = wait;
	v->flamechart = flamechart;
	if (!opt)
		return AF_OK;
	if (opt->focus) {
		if ((st = af_view_regcomp(&v->focus, opt->focus, "focus", err)) != AF_OK)
			return st;
		v->has_focus = 1;
	}
	if (opt->exclude) {
		if ((st = af_view_regcomp(&v->exclude, opt->exclude, "exclude", err)) != AF_OK) {
			af_view_free(v);
			return st;
		}
		v->has_exclude = 1;
	}
	return AF_OK;
}

void af_view_free(af_view *v)
{
	if (v->has_focus)
		regfree(&v->focus);
	if (v->has_exclude)
		regfree(&v->exclude);
	af_free(v->mem, v->hit);
	memset(v, 0, sizeof *v);
}

int af_view_renames(const af_tree_options *opt)
{
	return opt && (opt->mapping || opt->strip_package);
}

int af_view_reshapes(const af_tree_options *opt)
{
	return opt && (opt->focus || opt->exclude || opt->collapse_recursion ||
	               opt->min_share > 0);
}

/* ------------------------------------------------------------------ */
/* Names                                                               */

/* How many leading bytes of `s` are its package: in "pkg.Class.method(..)"
 * everything up to the last '.' or '/' before the class; 0 when there is
 * no package (or no class). */
static size_t af_package_len(const char *s, size_t len)
{
	const char *paren = memchr(s, '(', len);
	size_t end = paren ? (size_t)(paren - s) : len, dot, k;

	for (dot = end; dot > 0 && s[dot - 1] != '.'; dot--)
		;
	if (dot == 0)
		return 0;
	for (k = dot - 1; k > 0; k--)
		if (s[k - 1] == '.' || s[k - 1] == '/')
			return k;
	return 0;
}

/* Interns b's text, without its package when asked; `full` then maps the
 * short name's id to the whole name's (colours go by the package). */
static uint32_t af_view_intern(af_buf *b, const af_tree_options *opt,
                               af_names *names, af_u32map *full)
{
	size_t skip = opt->strip_package ? af_package_len(b->data ? b->data : "", b->len)
	                                 : 0;
	uint32_t id = af_names_intern_clean(names, b->data ? b->data + skip : "",
	                                    b->len - skip), whole;

	if (skip == 0 || id == AF_NONE || !full)
		return id;
	whole = af_names_intern_clean(names, b->data, b->len);
	if (whole == AF_NONE || af_u32map_put(full, id, whole))
		return AF_NONE;
	return id;
}

/* Appends class + '.' + method, or the method alone when the mapping gave
 * it qualified (or there is no class). */
static int af_append_qualified(af_buf *b, const char *cls, size_t clen,
                               const char *name, size_t nlen)
{
	if (clen && !memchr(name, '.', nlen) &&
	    (af_buf_append(b, cls, clen) || af_buf_append(b, ".", 1)))
		return -1;
	return af_buf_append(b, name, nlen);
}

uint32_t af_view_method_name(const af_trace *t, uint32_t mid,
                             const af_tree_options *opt, af_names *names,
                             af_u32map *full)
{
	af_buf b = {.mem = names->mem}, cls = {.mem = names->mem};
	const af_method *m;
	const char *ocls = NULL, *oname = NULL, *c;
	uint32_t idx, id;
	int bad = 0;

	/* unknown ids keep their placeholder, which has no package */
	if (!af_view_renames(opt) || !af_trace_method(t, mid, &idx))
		return af_trace_frame_name(t, mid, opt && opt->signatures, names);
	m = &t->methods[idx];
	for (c = m->cls; *c && !bad; c++)
		bad = af_buf_append(&cls, *c == '/' ? "." : c, 1);
	bad |= af_buf_append(&cls, "", 1);
	if (!bad && opt->mapping) {
		ocls = af_mapping_class(opt->mapping, cls.data);
		bad = af_mapping_lookup(opt->mapping, cls.data, m->name, m->sig,
		                        names->mem, &oname);
	}
	if (!ocls)
		ocls = cls.data;
	if (!oname)
		oname = m->name;
	bad |= af_append_qualified(&b, ocls ? ocls : "", ocls ? strlen(ocls) : 0, oname,
	                           strlen(oname));
	if (opt->signatures)
		bad |= af_mapping_params(opt->mapping, m->sig, &b);
	id = bad ? AF_NONE : af_view_intern(&b, opt, names, full);
	af_buf_free(&b);
	af_buf_free(&cls);
	return id;
}

uint32_t af_view_frame_name(const char *frame, const af_tree_options *opt,
                            af_names *names, af_u32map *full)
{
	size_t len = strlen(frame), end, dot;
	const char *paren = memchr(frame, '(', len);
	af_buf b = {.mem = names->mem}, cls = {.mem = names->mem},
	       name = {.mem = names->mem};
	const char *ocls = NULL, *oname = NULL;
	uint32_t id;
	int bad = 0;

	if (!af_view_renames(opt))
		return af_names_intern(names, frame, len);
	end = paren ? (size_t)(paren - frame) : len;
	for (dot = end; dot > 0 && frame[dot - 1] != '.'; dot--)
		;
	if (opt->mapping && dot > 1 && dot < end) {
		size_t k;
		for (k = 0; k + 1 < dot && !bad; k++)
			bad = af_buf_append(&cls, frame[k] == '/' ? "." : frame + k, 1);
		bad |= af_buf_append(&cls, "", 1);
		bad |= af_buf_append(&name, frame + dot, end - dot);
		bad |= af_buf_append(&name, "", 1);
		if (!bad) {
			ocls = af_mapping_class(opt->mapping, cls.data);
			bad = af_mapping_lookup(opt->mapping, cls.data, name.data, NULL,
			                        names->mem, &oname);
		}
	}
	if (ocls || oname) {
		bad |= af_append_qualified(&b, ocls ? ocls : frame, ocls ? strlen(ocls) : dot - 1,
		                           oname ? oname : frame + dot,
		                           oname ? strlen(oname) : end - dot);
		bad |= af_buf_append(&b, frame + end, len - end);
	} else {
		bad |= af_buf_append(&b, frame, len);
	}
	id = bad ? AF_NONE : af_view_intern(&b, opt, names, full);
	af_buf_free(&b);
	af_buf_free(&cls);
	af_buf_free(&name);
	return id;
}

/* ------------------------------------------------------------------ */
/* Shape                                                               */

static int af_view_hits(af_view *v, size_t need)
{
	size_t old = v->hit_cap;
	if (need <= old)
		return 0;
	if (AF_GROW(v->mem, v->hit, v->hit_cap, need))
		return -1;
	memset(v->hit + old, 0, v->hit_cap - old);
	return 0;
}

int af_view_thread_name(af_view *v, uint32_t name)
{
	if (af_view_hits(v, (size_t)name + 1))
		return -1;
	v->hit[name] = HIT_CHECKED | HIT_THREAD;
	return 0;
}

/* Which expressions name id `key` matches (cached: names repeat). */
static int af_view_hit(af_view *v, const af_names *names, uint32_t key)
{
	if (af_view_hits(v, names->len > key ? names->len : (size_t)key + 1))
		return -1;
	if (!(v->hit[key] & HIT_CHECKED)) {
		const char *s = names->str[key];
		uint8_t h = HIT_CHECKED;
		if (v->has_focus && regexec(&v->focus, s, 0, NULL, 0) == 0)
			h |= HIT_FOCUS;
		if (v->has_exclude && regexec(&v->exclude, s, 0, NULL, 0) == 0)
			h |= HIT_EXCLUDE;
		v->hit[key] = h;
	}
	return v->hit[key];
}

static uint64_t af_view_value(const af_view *v, const af_pnode *n, af_clock clock)
{
	if (clock == AF_CLOCK_WAIT)
		return v->wait ? af_pnode_wait(n) : 0;
	return n->self[clock];
}

/* Exclude, focus and collapse, in one pass in index order. */
static af_status af_view_cut(af_view *v, const af_ptree *pt, const af_names *names,
                             const uint64_t (*offset)[AF_CLOCK_RECORDED],
                             af_ptree *out, uint64_t (**noff)[AF_CLOCK_RECORDED],
                             size_t *ncap, af_error *err)
{
	const af_tree_options *opt = v->opt;
	size_t n = pt->len, i;
	uint32_t *map = af_malloc(v->mem, (n ? n : 1) * sizeof *map), root;
	uint8_t *inside = af_calloc(v->mem, n ? n : 1, 1);
	uint64_t (*rel)[AF_CLOCK_RECORDED] = offset ? af_calloc(v->mem, n ? n : 1, sizeof *rel) : NULL;
	af_status st = AF_OK;
	int c;

	if (!map || !inside || (offset && !rel))
		goto nomem;
	root = af_ptree_root(out, pt->nodes[0].key);
	if (root == AF_NONE)
		goto nomem;
	map[0] = root;
	if (rel) {
		if (AF_GROW(v->mem, *noff, *ncap, 1))
			goto nomem;
		memset((*noff)[0], 0, sizeof (*noff)[0]);
	}
	for (i = 1; i < n; i++) {
		const af_pnode *o = &pt->nodes[i];
		uint32_t p = o->parent, up, x;
		int hit;

		if (map[p] == KEEP_DROP) {
			map[i] = KEEP_DROP;
			continue;
		}
		hit = af_view_hit(v, names, o->key);
		if (hit < 0)
			goto nomem;
		if (hit & HIT_EXCLUDE) {
			map[i] = KEEP_DROP;
			continue;
		}
		if (v->has_focus && !inside[p]) {
			/* the outermost focus frame on a path: a new first frame */
			if (!(hit & HIT_FOCUS)) {
				map[i] = KEEP_PENDING;
				continue;
			}
			up = root;
		} else {
			up = map[p];
		}
		inside[i] = 1;
		if (opt->collapse_recursion && up != root && out->nodes[up].key == o->key) {
			/* A;A: one frame; the inner call's children are placed
			 * where they were, measured from the outer one */
			map[i] = up;
			af_pnode_add(&out->nodes[up], o);
			if (rel)
				for (c = 0; c < AF_CLOCK_RECORDED; c++)
					rel[i][c] = rel[p][c] + offset[i][c];
			continue;
		}
		x = v->flamechart ? af_ptree_append(out, up, o->key)
		                  : af_ptree_child(out, up, o->key);
		if (x == AF_NONE) {
			st = out->len >= out->max_nodes
			             ? af_fail(err, AF_ERR_LIMIT, -1, "call tree has more than %u nodes",
			                       out->max_nodes)
			             : af_fail(err, AF_ERR_NOMEM, -1,
			                       "out of memory cutting the call tree");
			goto out;
		}
		map[i] = x;
		af_pnode_add(&out->nodes[x], o);
		if (rel) {
			if (AF_GROW(v->mem, *noff, *ncap, out->len))
				goto nomem;
			for (c = 0; c < AF_CLOCK_RECORDED; c++)
				(*noff)[x][c] = up == root ? 0 : rel[p][c] + offset[i][c];
		}
	}
	goto out;
nomem:
	st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory cutting the call tree");
out:
	af_free(v->mem, map);
	af_free(v->mem, inside);
	af_free(v->mem, rel);
	return st;
}

/* Drops frames whose total on the clock is under the share. */
static af_status af_view_min_share(af_view *v, af_ptree *pt,
                                   uint64_t (**offset)[AF_CLOCK_RECORDED],
                                   af_error *err)
{
	size_t n = pt->len, i;
	uint64_t *tot = af_calloc(v->mem, n ? n : 1, sizeof *tot);
	uint32_t *map = af_malloc(v->mem, (n ? n : 1) * sizeof *map);
	uint64_t (*noff)[AF_CLOCK_RECORDED] = NULL;
	size_t ncap = 0;
	af_ptree out;
	af_clock clock = (unsigned)v->opt->clock < AF_CLOCK_COUNT ? v->opt->clock
	                                                           : AF_CLOCK_WALL;
	double least;

	af_ptree_init(&out, pt->max_nodes, pt->mem);
	if (!tot || !map)
		goto nomem;
	for (i = n; i-- > 0;) {
		tot[i] += af_view_value(v, &pt->nodes[i], clock);
		if (i > 0)
			tot[pt->nodes[i].parent] += tot[i];
	}
	least = v->opt->min_share * (double)tot[0];
	map[0] = af_ptree_root(&out, pt->nodes[0].key);
	if (map[0] == AF_NONE || (*offset && AF_GROW(v->mem, noff, ncap, 1)))
		goto nomem;
	if (*offset)
		memset(noff[0], 0, sizeof noff[0]);
	for (i = 1; i < n; i++) {
		const af_pnode *o = &pt->nodes[i];
		uint32_t x;
		if (map[o->parent] == KEEP_DROP || (double)tot[i] < least) {
			map[i] = KEEP_DROP;
			continue;
		}
		x = af_ptree_append(&out, map[o->parent], o->key);
		if (x == AF_NONE)
			goto nomem;
		map[i] = x;
		af_pnode_add(&out.nodes[x], o);
		if (*offset) {
			if (AF_GROW(v->mem, noff, ncap, out.len))
				goto nomem;
			memcpy(noff[x], (*offset)[i], sizeof noff[x]);
		}
	}
	af_free(v->mem, tot);
	af_free(v->mem, map);
	af_ptree_free(pt);
	*pt = out;
	if (*offset) {
		af_free(v->mem, *offset);
		*offset = noff;
	}
	return AF_OK;
nomem:
	af_free(v->mem, tot);
	af_free(v->mem, map);
	af_free(v->mem, noff);
	af_ptree_free(&out);
	return af_fail(err, AF_ERR_NOMEM, -1, "out of memory cutting the call tree");
}

/* ------------------------------------------------------------------ */
/* Reversed paths                                                      */

/* A node of the reversed tree found by its path's first frame and the node
 * of the rest of the path: the reversed tree's suffix links, looked up the
 * other way round. */
typedef struct af_link {
	uint32_t rest, key;
	uint32_t node; /* node + 1, 0 = empty */
} af_link;

typedef struct af_links {
	af_link *slots; /* open addressing, a power of two of them */
	size_t nslots, len;
	af_mem *mem;
} af_links;

static size_t af_link_slot(uint32_t rest, uint32_t key, size_t mask)
{
	uint64_t h = ((uint64_t)rest << 32 | key) * 0x9E3779B97F4A7C15ull;
	return (size_t)(h >> 29) & mask;
}

/* The node of path `key` + path(`rest`), or AF_NONE when not made yet. */
static uint32_t af_links_get(const af_links *l, uint32_t rest, uint32_t key)
{
	size_t mask = l->nslots - 1, i;

	if (!l->nslots)
		return AF_NONE;
	for (i = af_link_slot(rest, key, mask); l->slots[i].node; i = (i + 1) & mask)
		if (l->slots[i].rest == rest && l->slots[i].key == key)
			return l->slots[i].node - 1;
	return AF_NONE;
}

/* Adds a link af_links_get() does not find; -1 when out of memory. */
static int af_links_put(af_links *l, uint32_t rest, uint32_t key, uint32_t node)
{
	size_t mask, i, j;

	if ((l->len + 1) * 2 > l->nslots) {
		size_t ns = l->nslots ? l->nslots * 2 : 1024;
		af_link *slots;
		if (ns > SIZE_MAX / sizeof *slots)
			return -1;
		slots = af_calloc(l->mem, ns, sizeof *slots);
		if (!slots)
			return -1;
		af_hint_huge(slots, ns * sizeof *slots);
		for (j = 0; j < l->nslots; j++) {
			const af_link *k = &l->slots[j];
			if (!k->node)
				continue;
			for (i = af_link_slot(k->rest, k->key, ns - 1); slots[i].node;
			     i = (i + 1) & (ns - 1))
				;
			slots[i] = *k;
		}
		af_free(l->mem, l->slots);
		l->slots = slots;
		l->nslots = ns;
	}
	mask = l->nslots - 1;
	for (i = af_link_slot(rest, key, mask); l->slots[i].node; i = (i + 1) & mask)
		;
	l->slots[i].rest = rest;
	l->slots[i].key = key;
	l->slots[i].node = node + 1;
	l->len++;
	return 0;
}

/* Whether a node holds anything of its own: time, calls, a base count or
 * a folded line ending there. */
static int af_view_holds(const af_pnode *n)
{
	return n->lines || n->calls || n->base || n->self[AF_CLOCK_WALL] ||
	       n->self[AF_CLOCK_CPU];
}

/* Drops the nodes of a reversed tree under which nothing is held: the
 * turned-around path of a frame of folded input that only leads to others
 * (flamegraph.pl --reverse turns lines around, and such a frame ends no
 * line).  Parents come before their children in `pt`. */
static af_status af_view_drop_empty(af_view *v, af_ptree *pt, af_error *err)
{
	size_t n = pt->len, i;
	uint8_t *keep;
	uint32_t *map;
	af_ptree out;

	for (i = 1; i < n && af_view_holds(&pt->nodes[i]); i++)
		;
	if (i >= n)
		return AF_OK; /* the common case: nothing to drop */
	keep = af_calloc(v->mem, n, sizeof *keep);
	map = af_malloc(v->mem, n * sizeof *map);
	af_ptree_init(&out, pt->max_nodes, pt->mem);
	if (!keep || !map)
		goto nomem;
	for (i = n; i-- > 1;)
		if (keep[i] || af_view_holds(&pt->nodes[i]))
			keep[i] = keep[pt->nodes[i].parent] = 1;
	map[0] = af_ptree_root(&out, pt->nodes[0].key);
	if (map[0] == AF_NONE)
		goto nomem;
	af_pnode_add(&out.nodes[map[0]], &pt->nodes[0]);
	for (i = 1; i < n; i++) {
		const af_pnode *o = &pt->nodes[i];
		if (!keep[i])
			continue;
		map[i] = af_ptree_child(&out, map[o->parent], o->key);
		if (map[i] == AF_NONE)
			goto nomem;
		af_pnode_add(&out.nodes[map[i]], o);
	}
	af_free(v->mem, keep);
	af_free(v->mem, map);
	af_ptree_free(pt);
	*pt = out;
	return AF_OK;
nomem:
	af_free(v->mem, keep);
	af_free(v->mem, map);
	af_ptree_free(&out);
	return af_fail(err, AF_ERR_NOMEM, -1, "out of memory reversing the tree");
}

/* Every node's path turned around is its own frame followed by its
 * parent's path turned around, whose node is known (parents come first).
 * The node of "frame + path" is the child, under the frame, of the node of
 * "frame + the path less its last frame": a walk up the parent's reversed
 * path to the first such node already made, then back down making the
 * missing ones, each remembered by (rest, frame).  Every step of a walk
 * makes a node, so the whole costs the size of the reversed tree, not the
 * sum of every path's depth.  The nodes are made in the order, and with
 * the values, that making each path's frames from the first would give. */
af_status af_view_reverse(af_view *v, af_ptree *pt, af_error *err)
{
	af_ptree out;
	const af_pnode *old = pt->nodes;
	size_t n = pt->len, i, cap = 0;
	uint32_t *rev = NULL, *up = NULL, root;
	af_links links = {.mem = v->mem};
	int full;

	af_ptree_init(&out, pt->max_nodes, v->mem);
	root = af_ptree_root(&out, old[0].key);
	rev = af_malloc(v->mem, n * sizeof *rev);
	if (root == AF_NONE || !rev)
		goto nomem;
	rev[0] = root; /* the root's path is empty */
	for (i = 1; i < n; i++) {
		uint32_t key = old[i].key, u = rev[old[i].parent], x, first;
		size_t depth = 0;
		int c;
		/* up the parent's reversed path to the first node with `key`
		 * before it; the empty path has one when key's node at depth 1
		 * is made */
		while ((x = af_links_get(&links, u, key)) == AF_NONE && u != root) {
			if (AF_GROW(v->mem, up, cap, depth + 1))
				goto nomem;
			up[depth++] = u;
			u = out.nodes[u].parent;
		}
		if (x == AF_NONE) {
			x = af_ptree_child(&out, root, key);
			if (x == AF_NONE || af_links_put(&links, root, key, x))
				goto nomem;
		}
		/* ...and down again, making what is missing */
		while (depth--) {
			u = up[depth];
			x = af_ptree_child(&out, x, out.nodes[u].key);
			if (x == AF_NONE || af_links_put(&links, u, key, x))
				goto nomem;
		}
		rev[i] = x;
		first = af_links_get(&links, root, key);
		out.nodes[first].calls += old[i].calls;
		for (c = 0; c < AF_CLOCK_RECORDED; c++)
			out.nodes[x].self[c] += old[i].self[c];
		out.nodes[x].base += old[i].base;
		out.nodes[x].lines |= old[i].lines;
	}
	af_free(v->mem, rev);
	af_free(v->mem, up);
	af_free(v->mem, links.slots);
	af_ptree_free(pt);
	*pt = out;
	return af_view_drop_empty(v, pt, err);
nomem:
	/* a reversed tree can have more paths than the tree it turns round:
	 * the node limit, not memory, may be what stops it */
	full = out.len >= out.max_nodes;
	af_free(v->mem, rev);
	af_free(v->mem, up);
	af_free(v->mem, links.slots);
	af_ptree_free(&out);
	if (full)
		return af_fail(err, AF_ERR_LIMIT, -1, "call tree has more than %u nodes",
		               out.max_nodes);
	return af_fail(err, AF_ERR_NOMEM, -1, "out of memory reversing the tree");
}

af_status af_view_reshape(af_view *v, af_ptree *pt, const af_names *names,
                          uint64_t (**offset)[AF_CLOCK_RECORDED],
                          size_t *offset_cap, af_error *err)
{
	const af_tree_options *opt = v->opt;
	af_status st;

	if (!af_view_reshapes(opt))
		return AF_OK;
	if (v->has_focus || v->has_exclude || opt->collapse_recursion) {
		af_ptree out;
		uint64_t (*noff)[AF_CLOCK_RECORDED] = NULL;
		size_t ncap = 0;

		af_ptree_init(&out, pt->max_nodes, pt->mem);
		st = af_view_cut(v, pt, names, offset ? (const uint64_t(*)[AF_CLOCK_RECORDED])*offset
		                                      : NULL,
		                 &out, &noff, &ncap, err);
		if (st != AF_OK) {
			af_ptree_free(&out);
			af_free(v->mem, noff);
			return st;
		}
		af_ptree_free(pt);
		*pt = out;
		if (offset) {
			af_free(v->mem, *offset);
			*offset = noff;
			*offset_cap = ncap;
		}
	}
	if (opt->min_share > 0) {
		uint64_t (*none)[AF_CLOCK_RECORDED] = NULL;
		if ((st = af_view_min_share(v, pt, offset ? offset : &none, err)) != AF_OK)
			return st;
		if (offset)
			*offset_cap = *offset ? pt->len : 0;
	}
	/* empty: nothing under the root, or (a trace's) only threads with no
	 * time of their own left */
	{
		uint32_t k;
		int empty = 1;
		for (k = pt->nodes[0].child; k != AF_NONE && empty; k = pt->nodes[k].sibling) {
			int hit = af_view_hit(v, names, pt->nodes[k].key);
			if (hit < 0)
				return af_fail(err, AF_ERR_NOMEM, -1, "out of memory cutting the call tree");
			empty = (hit & HIT_THREAD) && pt->nodes[k].child == AF_NONE &&
			        !pt->nodes[k].self[AF_CLOCK_WALL] && !pt->nodes[k].self[AF_CLOCK_CPU];
		}
		if (empty)
			return af_fail(err, AF_ERR_EMPTY, -1, "%s",
			               v->has_focus ? "no frame matches the focus expression"
			                            : "the view's rules leave no frame");
	}
	return AF_OK;
}
