/*
 * tree_names.c - the names a trace's trees share when no rule renames a
 * frame: every frame and thread named once, and the order siblings are
 * drawn in (flamegraph.pl's sort of folded lines), ranked once.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "tree_names.h"

/* ------------------------------------------------------------------ */
/* The order of names                                                  */

/* A name followed by the character that ends it in a folded line: a space
 * before the count when the frame has self time, else ';' before a child. */
typedef struct af_named {
	const char *s;
	size_t len;
	uint32_t key; /* name id * 2 + 1 when ended by ';' */
} af_named;

/* The byte of `x`'s line at `i` (past its name: the end, ' ' or ';'), or,
 * one byte further, the count's first digit after an end in ' ': taken as
 * just below '0', whatever the count, so that the order is one order. */
static unsigned af_named_at(const af_named *x, size_t i)
{
	if (i < x->len)
		return (unsigned char)x->s[i] * 2u;
	if (i == x->len)
		return (x->key & 1 ? ';' : ' ') * 2u;
	return '0' * 2u - 1;
}

/* Orders frames as flamegraph.pl's byte sort of folded lines does: the
 * name, then ' ' and the count (self time) or ';' and a child.  Names hold
 * no ';', so past the shorter name two lines differ within two bytes. */
static int af_named_cmp(const af_named *x, const af_named *y)
{
	size_t m = x->len < y->len ? x->len : y->len, i;
	int c = memcmp(x->s, y->s, m);

	if (c)
		return c;
	for (i = m; i < m + 2; i++) {
		unsigned cx = af_named_at(x, i), cy = af_named_at(y, i);
		if (cx != cy)
			return cx < cy ? -1 : 1;
	}
	return (x->key > y->key) - (x->key < y->key);
}

/* Half of a table to sort, on a thread of its own. */
typedef struct af_sort_job {
	af_named *a, *tmp;
	size_t n;
} af_sort_job;

static void af_sort_named(af_named *a, af_named *tmp, size_t n, int threads);

static void *af_sort_half(void *arg)
{
	af_sort_job *j = arg;
	af_sort_named(j->a, j->tmp, j->n, 0);
	return NULL;
}

/* Sorts the `n` names at `a` by af_named_cmp, with `tmp` room for as many:
 * a merge sort, its comparison inlined (qsort's call through a pointer
 * cost more than the comparing); with `threads`, the halves of a large
 * table are sorted on two threads. */
static void af_sort_named(af_named *a, af_named *tmp, size_t n, int threads)
{
	size_t n1 = n / 2, n2 = n - n1, i = 0, k = 0, o = 0;
	af_sort_job left = {a, tmp, n1};
	pthread_t helper;

	if (n <= 1)
		return;
	if (threads && n >= 8192 && pthread_create(&helper, NULL, af_sort_half, &left) == 0) {
		af_sort_named(a + n1, tmp + n1, n2, 0);
		pthread_join(helper, NULL);
	} else {
		af_sort_named(a, tmp, n1, 0);
		af_sort_named(a + n1, tmp + n1, n2, 0);
	}
	while (i < n1 && k < n2)
		tmp[o++] = af_named_cmp(&a[i], &a[n1 + k]) <= 0 ? a[i++] : a[n1 + k++];
	while (i < n1)
		tmp[o++] = a[i++];
	memcpy(a, tmp, o * sizeof *a);
}

/* Every name's place in sibling order, both ways it can end (see
 * af_tree_ranks()); NULL when out of memory. */
uint32_t *af_rank_names(af_mem *mem, const af_names *names)
{
	size_t nn = names->len, i;
	af_named *named = af_malloc(mem, (nn ? nn : 1) * 4 * sizeof *named);
	uint32_t *rank = af_malloc(mem, (nn ? nn : 1) * 2 * sizeof *rank);

	if (!named || !rank) {
		af_free(mem, named);
		af_free(mem, rank);
		return NULL;
	}
	for (i = 0; i < 2 * nn; i++) {
		named[i].s = names->str[i / 2];
		named[i].len = i % 2 ? named[i - 1].len : strlen(named[i].s);
		named[i].key = (uint32_t)i;
	}
	af_sort_named(named, named + 2 * nn, 2 * nn, 1);
	for (i = 0; i < 2 * nn; i++)
		rank[named[i].key] = (uint32_t)i;
	af_free(mem, named);
	return rank;
}

/* ------------------------------------------------------------------ */
/* The names of a trace's default view                                 */

static atomic_uint_fast64_t af_names_serials; /* the last serial given */

void af_shared_names_unref(af_shared_names *s)
{
	af_mem *mem;

	if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	mem = s->mem;
	if (s->ranking) {
		pthread_join(s->ranker, NULL);
		af_free(mem, s->ranked);
	}
	af_names_free(&s->names);
	af_free(mem, s->of_index);
	af_u32map_free(&s->of_key);
	af_free(mem, s->thread);
	af_free(mem, s->keys);
	af_free(mem, s->rank);
	pthread_mutex_destroy(&s->rank_lock);
	af_free(mem, s);
	af_mem_unref(mem);
}

static void *af_rank_thread(void *arg)
{
	af_shared_names *s = arg;
	s->ranked = af_rank_names(s->mem, &s->names);
	return NULL;
}

/* Starts ranking the names on a thread of its own, unless that has begun
 * (or no thread starts: af_shared_ranks() ranks them then). */
static void af_rank_start(af_shared_names *s)
{
	pthread_mutex_lock(&s->rank_lock);
	if (!s->rank && !s->ranking && pthread_create(&s->ranker, NULL, af_rank_thread, s) == 0)
		s->ranking = 1;
	pthread_mutex_unlock(&s->rank_lock);
}

const uint32_t *af_shared_ranks(af_shared_names *s)
{
	pthread_mutex_lock(&s->rank_lock);
	if (s->ranking) {
		pthread_join(s->ranker, NULL);
		s->ranking = 0;
		s->rank = s->ranked;
		s->ranked = NULL;
	}
	if (!s->rank)
		s->rank = af_rank_names(s->mem, &s->names);
	pthread_mutex_unlock(&s->rank_lock);
	return s->rank;
}

/* Names every frame and thread of `t` as a tree without renaming rules
 * does; NULL when out of memory. */
static af_shared_names *af_shared_names_make(const af_trace *t)
{
	af_shared_names *s = af_calloc(t->mem, 1, sizeof *s);
	size_t i;

	if (!s)
		return NULL;
	atomic_init(&s->refs, 1);
	s->serial = atomic_fetch_add(&af_names_serials, 1) + 1;
	if (pthread_mutex_init(&s->rank_lock, NULL)) {
		af_free(t->mem, s);
		return NULL;
	}
	s->mem = af_mem_ref(t->mem);
	s->names.mem = s->mem;
	s->of_key.mem = s->mem;
	s->thread = af_malloc(s->mem, (t->nthreads ? t->nthreads : 1) * sizeof *s->thread);
	if (!s->thread || af_names_intern(&s->names, "all", 3) == AF_NONE)
		goto fail;
	for (i = 0; i < t->nthreads; i++) {
		const char *name = t->threads[i].name;
		s->thread[i] = af_names_intern_clean(&s->names, name, strlen(name));
		if (s->thread[i] == AF_NONE)
			goto fail;
	}
	if (t->info.variant == AF_VARIANT_FOLDED) {
		s->of_index = af_malloc(s->mem, (t->frames.len ? t->frames.len : 1) * sizeof *s->of_index);
		for (i = 0; s->of_index && i < t->frames.len; i++) {
			const char *f = t->frames.str[i];
			if ((s->of_index[i] = af_names_intern(&s->names, f, strlen(f))) == AF_NONE)
				goto fail;
		}
	} else {
		/* the methods the calls name, then any ids the table does not */
		size_t called = 0;
		for (i = 0; i < (t->nmethods + 7) / 8; i++)
			called += (size_t)__builtin_popcount(t->called[i]);
		s->of_index = af_malloc(s->mem, (t->nmethods ? t->nmethods : 1) * sizeof *s->of_index);
		if (af_names_reserve(&s->names, called))
			goto fail;
		for (i = 0; s->of_index && i < t->nmethods; i++) {
			s->of_index[i] = AF_NONE; /* named by no call path */
			if (t->called[i / 8] & (1u << (i % 8)) &&
			    (s->of_index[i] = af_trace_frame_name(t, t->methods[i].id, 0,
			                                          &s->names)) == AF_NONE)
				goto fail;
		}
		for (i = 0; s->of_index && t->info.unknown_methods && i < t->tree.len; i++) {
			const af_pnode *n = &t->tree.nodes[i];
			uint32_t id;
			if (n->parent == AF_NONE || af_trace_method(t, n->key, &id) ||
			    af_u32map_get(&s->of_key, n->key, &id))
				continue;
			id = af_trace_frame_name(t, n->key, 0, &s->names);
			if (id == AF_NONE || af_u32map_put(&s->of_key, n->key, id))
				goto fail;
		}
	}
	/* the keys each name stands for: a name of one key merges no siblings */
	if (s->of_index && (s->keys = af_calloc(s->mem, s->names.len, 1))) {
		size_t nk = t->info.variant == AF_VARIANT_FOLDED ? t->frames.len : t->nmethods;
		for (i = 0; i < nk; i++)
			if (s->of_index[i] != AF_NONE && s->keys[s->of_index[i]] < 2)
				s->keys[s->of_index[i]]++;
		for (i = 0; i < s->of_key.nslots; i++)
			if (s->of_key.slots[i] && s->keys[(uint32_t)s->of_key.slots[i]] < 2)
				s->keys[(uint32_t)s->of_key.slots[i]]++;
		return s;
	}
fail:
	af_shared_names_unref(s);
	return NULL;
}

/* A reference to the trace's shared names, made by the first caller (the
 * trace is const to its readers: the lock guards this one lazy field). */
af_shared_names *af_trace_names_ref(const af_trace *trace)
{
	af_trace *t = (af_trace *)trace;
	af_shared_names *s;

	pthread_mutex_lock(&t->names_lock);
	if (!t->shared_names) {
		t->shared_names = af_shared_names_make(t);
		t->shared_names_unref = af_shared_names_unref;
		/* every tree sealed over them wants their ranks: they are made
		 * while the trees are built (a per-thread set's first threads
		 * would otherwise wait for them) */
		if (t->shared_names)
			af_rank_start(t->shared_names);
	}
	s = t->shared_names;
	if (s)
		atomic_fetch_add(&s->refs, 1);
	pthread_mutex_unlock(&t->names_lock);
	return s;
}
