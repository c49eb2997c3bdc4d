/*
 * trace.c - the record state machine every trace variant feeds, the method
 * and thread tables, and the public accessors of af_trace.
 *
 * Semantics (also in the README):
 *  - the time between two consecutive records of a thread is charged, as
 *    self time, to the frame on top of that thread's stack after the first;
 *  - enter pushes; exit and unwind pop one frame; an exit naming another
 *    method than the top still pops and counts a mismatch;
 *  - an exit on an empty stack is a frame entered before tracing began:
 *    the thread's tree so far is re-rooted under it, and the time the thread
 *    spent with an empty stack since its first record (or its previous such
 *    exit) becomes that frame's self time;
 *  - frames still open at the end close at the thread's last record;
 *  - clocks are unwrapped per thread; a step backwards counts as zero.
 */
#define _DEFAULT_SOURCE /* madvise */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace.h"

#define AF_ARENA_CHUNK (64 * 1024)

/* A trace whose blocks come from `mem` (the reference is the trace's). */
static af_trace *af_trace_alloc(af_mem *mem, af_limits lim,
                                const af_parse_options *opt)
{
	af_trace *t = af_calloc(mem, 1, sizeof *t);

	if (!t) {
		af_mem_unref(mem);
		return NULL;
	}
	if (pthread_mutex_init(&t->names_lock, NULL)) {
		af_free(mem, t);
		af_mem_unref(mem);
		return NULL;
	}
	t->mem = mem;
	t->limits = lim;
	if (opt) {
		t->flamechart = opt->flamechart;
		t->wakers = opt->wakers;
		t->jobs = opt->jobs;
		t->sample_type = opt->sample_type;
		t->btrace_mapping = opt->btrace_mapping;
		t->heap_view = opt->heap_view;
		t->heap_dump = opt->heap_dump;
		t->no_demangle = opt->no_demangle;
		t->progress = opt->progress;
		t->progress_ctx = opt->progress_ctx;
	}
	t->frames.mem = mem;
	t->libs.mem = mem;
	t->method_index.mem = mem;
	if (!t->limits.max_depth)
		t->limits.max_depth = 1000000;
	if (!t->limits.max_nodes)
		t->limits.max_nodes = 50000000;
	if (!t->limits.max_name_len)
		t->limits.max_name_len = AF_DEFAULT_MAX_NAME;
	if (!t->limits.max_input)
		t->limits.max_input = AF_DEFAULT_MAX_INPUT;
	af_ptree_init(&t->tree, t->limits.max_nodes, mem);
	t->tid_mask = 0xFFFF;
	t->tick_block = UINT32_MAX;
	t->single_clock = AF_CLOCK_CPU;
	t->info.vm = "";
	return t;
}

af_status af_trace_new(const af_parse_options *opt, af_trace **out, af_error *err)
{
	af_limits lim = opt ? opt->limits : (af_limits){0};
	af_status st = AF_OK;
	af_mem *mem;

	if (!lim.max_memory)
		lim.max_memory = af_mem_default_budget();
	mem = af_mem_new(opt ? opt->allocator : NULL, lim.max_memory);
	*out = mem ? af_trace_alloc(af_mem_ref(mem), lim, opt) : NULL;
	/* a budget too small for the trace itself is said as such */
	if (!*out)
		st = af_mem_explain(mem, af_fail(err, AF_ERR_NOMEM, -1, "out of memory"), err);
	af_mem_unref(mem);
	return st;
}

void af_trace_free(af_trace *t)
{
	af_mem *mem;
	size_t i;

	if (!t)
		return;
	mem = t->mem;
	while (t->arena) {
		char *prev;
		memcpy(&prev, t->arena, sizeof prev);
		af_free(mem, t->arena);
		t->arena = prev;
	}
	for (i = 0; i < t->nthreads; i++)
		af_free(mem, t->threads[i].stack);
	af_free(mem, t->threads);
	af_free(mem, t->thread_of);
	af_free(mem, t->decl);
	af_free(mem, t->started);
	af_free(mem, t->totals);
	af_free(mem, t->methods);
	af_u32map_free(&t->method_index);
	af_free(mem, t->dense);
	af_free(mem, t->called);
	af_names_free(&t->frames);
	af_names_free(&t->libs);
	af_free(mem, t->frame_lib);
	af_ptree_free(&t->tree);
	if (t->shared_names)
		t->shared_names_unref(t->shared_names);
	pthread_mutex_destroy(&t->names_lock);
	af_free(mem, t);
	af_mem_unref(mem);
}

af_trace *af_trace_worker(const af_trace *t)
{
	/* the same allocator and budget: the worker's tables become t's */
	af_trace *w = af_trace_alloc(af_mem_ref(t->mem), t->limits, NULL);

	if (w)
		w->tid_mask = t->tid_mask;
	return w;
}

static int af_by_first_record(const void *a, const void *b)
{
	const af_thread *x = a, *y = b;
	return (x->first_off > y->first_off) - (x->first_off < y->first_off);
}

af_status af_trace_absorb(af_trace *t, af_trace *w, af_error *err)
{
	uint32_t off;
	size_t i, top = 0;
	int c;

	if (t->tree.len == 0) {
		/* the first worker's tree is taken whole, not copied */
		af_ptree tmp = t->tree;
		t->tree = w->tree;
		t->tree.max_nodes = tmp.max_nodes;
		w->tree = tmp;
		off = 0;
	} else if (af_ptree_absorb(&t->tree, &w->tree, &off)) {
		if (t->tree.len + w->tree.len > t->tree.max_nodes)
			return af_fail(err, AF_ERR_LIMIT, -1,
			               "cannot add %zu call paths (limit %u)", w->tree.len,
			               t->tree.max_nodes);
		return af_fail(err, AF_ERR_NOMEM, -1,
		               "out of memory merging the threads read on two cores");
	}
	if (AF_GROW(t->mem, t->threads, t->threads_cap, t->nthreads + w->nthreads))
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
	for (i = 0; i < w->nthreads; i++) {
		af_thread *th = &t->threads[t->nthreads + i];
		size_t k;
		*th = w->threads[i];
		th->root += off;
		for (k = 0; k < th->depth; k++)
			th->stack[k] += off;
	}
	t->nthreads += w->nthreads;
	w->nthreads = 0; /* the stacks are t's now */
	qsort(t->threads, t->nthreads, sizeof *t->threads, af_by_first_record);

	/* the record tid -> thread table, for the new order */
	for (i = 0; i < t->nthreads; i++)
		top = AF_MAX(top, (size_t)t->threads[i].record_tid + 1);
	if (top > t->thread_of_len) {
		if (AF_GROW(t->mem, t->thread_of, t->thread_of_len, top))
			return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
	}
	memset(t->thread_of, 0, t->thread_of_len * sizeof *t->thread_of);
	for (i = 0; i < t->nthreads; i++)
		t->thread_of[t->threads[i].record_tid] = (uint32_t)i + 1;

	t->info.records += w->info.records;
	t->info.enters += w->info.enters;
	t->info.exits += w->info.exits;
	t->info.unwinds += w->info.unwinds;
	t->info.orphan_exits += w->info.orphan_exits;
	t->info.mismatched_exits += w->info.mismatched_exits;
	t->info.bad_actions += w->info.bad_actions;
	for (c = 0; c < AF_CLOCK_COUNT; c++)
		t->info.time_backwards[c] += w->info.time_backwards[c];
	return AF_OK;
}

int af_trace_frame_lib(af_trace *t, uint32_t frame, const char *lib, size_t len)
{
	size_t old = t->frame_lib_cap, i;
	uint32_t id;

	if (len == 0)
		return 0;
	if ((size_t)frame >= old) {
		if (AF_GROW(t->mem, t->frame_lib, t->frame_lib_cap, (size_t)frame + 1))
			return -1;
		for (i = old; i < t->frame_lib_cap; i++)
			t->frame_lib[i] = AF_NONE;
	}
	id = af_names_list_add(&t->libs, t->frame_lib[frame], lib, len, 4);
	if (id == AF_NONE)
		return -1;
	t->frame_lib[frame] = id;
	return 0;
}

/* Chunks start with a pointer to the previous chunk.  A string larger than
 * a chunk gets a chunk of its own. */
char *af_trace_strdup(af_trace *t, const char *s, size_t len)
{
	char *p;

	if (len >= t->arena_left) {
		size_t size;
		char *chunk;
		if (len > SIZE_MAX - sizeof(char *) - 1)
			return NULL;
		size = sizeof(char *) + len + 1;
		if (size < AF_ARENA_CHUNK)
			size = AF_ARENA_CHUNK;
		chunk = af_malloc(t->mem, size);
		if (!chunk)
			return NULL;
		memcpy(chunk, &t->arena, sizeof(char *));
		t->arena = chunk;
		t->arena_pos = chunk + sizeof(char *);
		t->arena_left = size - sizeof(char *);
	}
	p = t->arena_pos;
	memcpy(p, s, len);
	p[len] = '\0';
	t->arena_pos += len + 1;
	t->arena_left -= len + 1;
	return p;
}

/* ------------------------------------------------------------------ */
/* Threads and methods                                                 */

af_status af_trace_declare_thread(af_trace *t, uint32_t tid, const char *name,
                                  size_t len, long long off, af_error *err)
{
	af_decl_thread *d;

	if (AF_GROW(t->mem, t->decl, t->decl_cap, t->ndecl + 1))
		return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
	d = &t->decl[t->ndecl];
	d->tid = tid;
	d->full = 0;
	d->name = af_trace_strdup(t, name, len);
	if (!d->name)
		return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
	t->ndecl++;
	return AF_OK;
}

/* Parses "0x1a4", "0" or "420" into *out; returns 0 on success. */
static int af_parse_id(const char *s, size_t len, uint32_t *out)
{
	uint64_t v = 0;
	size_t i = 0;
	int base = 10;

	if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	}
	if (i == len)
		return -1;
	for (; i < len; i++) {
		int d;
		char c = s[i];
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (base == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (base == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		v = v * (uint64_t)base + (uint64_t)d;
		if (v > UINT32_MAX)
			return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

af_status af_trace_method_line(af_trace *t, const char *line, size_t len,
                               long long off, af_error *err)
{
	const char *field[6];
	size_t flen[6], nf = 0, i, start = 0;
	af_method *m;
	uint32_t id, idx;
	const char *sig = "", *file = "", *cls = "", *name;
	size_t sig_len = 0, file_len = 0, cls_len = 0, name_len;

	for (i = 0; i <= len && nf < 6; i++) {
		if (i == len || line[i] == '\t') {
			field[nf] = line + start;
			flen[nf++] = i - start;
			start = i + 1;
		}
	}
	if (nf < 2)
		return af_fail(err, AF_ERR_KEY, off,
		               "method line has no tab after the id");
	if (af_parse_id(field[0], flen[0], &id))
		return af_fail(err, AF_ERR_KEY, off,
		               "method id \"%.*s\" is not a number",
		               (int)(flen[0] > 32 ? 32 : flen[0]), field[0]);
	id &= ~3u;
	if (nf == 2) {
		name = field[1];
		name_len = flen[1];
	} else {
		cls = field[1];
		cls_len = flen[1];
		name = field[2];
		name_len = flen[2];
		if (nf >= 4 && (nf >= 5 || (flen[3] > 0 && field[3][0] == '('))) {
			sig = field[3];
			sig_len = flen[3];
		} else if (nf == 4) {
			file = field[3];
			file_len = flen[3];
		}
		if (nf >= 5) {
			file = field[4];
			file_len = flen[4];
		}
	}
	if (af_u32map_get(&t->method_index, id, &idx))
		return AF_OK; /* the first definition wins */
	if (t->nmethods >= UINT32_MAX - 1 ||
	    AF_GROW(t->mem, t->methods, t->methods_cap, t->nmethods + 1))
		return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
	m = &t->methods[t->nmethods];
	m->id = id;
	m->cls = af_trace_strdup(t, cls, cls_len);
	m->name = af_trace_strdup(t, name, name_len);
	m->sig = af_trace_strdup(t, sig, sig_len);
	m->file = af_trace_strdup(t, file, file_len);
	if (!m->cls || !m->name || !m->sig || !m->file ||
	    af_u32map_put(&t->method_index, id, (uint32_t)t->nmethods))
		return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
	t->nmethods++;
	t->info.methods++;
	return AF_OK;
}

/* ------------------------------------------------------------------ */
/* Records                                                             */

static af_status af_thread_for(af_trace *t, uint32_t tid, long long off,
                               af_thread **out, af_error *err)
{
	af_thread *th;
	uint32_t root;

	if (tid < t->thread_of_len && t->thread_of[tid]) {
		*out = &t->threads[t->thread_of[tid] - 1];
		return AF_OK;
	}
	if (tid >= t->thread_of_len) {
		size_t old = t->thread_of_len;
		if (AF_GROW(t->mem, t->thread_of, t->thread_of_len, (size_t)tid + 1))
			return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
		memset(t->thread_of + old, 0, (t->thread_of_len - old) * sizeof *t->thread_of);
	}
	/* a new thread's root is a call path too: it can meet the limit */
	root = af_ptree_root(&t->tree, AF_NONE);
	if (root == AF_NONE)
		return af_trace_no_path(t, off, err);
	if (AF_GROW(t->mem, t->threads, t->threads_cap, t->nthreads + 1))
		return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
	th = &t->threads[t->nthreads];
	memset(th, 0, sizeof *th);
	th->record_tid = tid;
	th->tid = tid;
	th->root = root;
	t->thread_of[tid] = (uint32_t)++t->nthreads;
	*out = th;
	return AF_OK;
}

af_status af_trace_no_path(const af_trace *t, long long off, af_error *err)
{
	if (t->tree.len >= t->tree.max_nodes)
		return af_fail(err, AF_ERR_LIMIT, off, "cannot add call path %zu (limit %u)",
		               t->tree.len + 1, t->tree.max_nodes);
	return af_fail(err, AF_ERR_NOMEM, off, "out of memory adding call path %zu",
	               t->tree.len + 1);
}

af_status af_trace_record_rest(af_trace *t, uint32_t tid, uint32_t method_action,
                               uint32_t t0, uint32_t t1, long long off,
                               af_error *err)
{
	af_thread *th = NULL;
	uint32_t mid = method_action & ~3u, node;
	af_pnode *nodes;
	int c;

	AF_FORWARD(af_thread_for(t, tid & t->tid_mask, off, &th, err));
	t->info.records++;
	if (th->records++ == 0) {
		th->first_off = off;
		th->last[AF_CLOCK_CPU] = t0;
		th->last[AF_CLOCK_WALL] = t1;
	} else {
		af_trace_charge(t, th, t0, t1);
	}
	nodes = t->tree.nodes;

	switch (method_action & 3) {
	case 0: /* enter */
		t->info.enters++;
		if (th->depth >= t->limits.max_depth)
			return af_fail(err, AF_ERR_LIMIT, off,
			               "thread %u's stack is deeper than %u frames",
			               th->record_tid, t->limits.max_depth);
		if (t->flamechart) {
			/* every call its own node, remembering when it began */
			node = af_ptree_append(&t->tree,
			                       th->depth ? th->stack[th->depth - 1] : th->root,
			                       mid);
			if (node != AF_NONE &&
			    AF_GROW(t->mem, t->started, t->started_cap, t->tree.len))
				return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
			if (node != AF_NONE)
				for (c = 0; c < AF_CLOCK_RECORDED; c++)
					t->started[node][c] = th->charged[c];
		} else {
			node = af_ptree_child(&t->tree,
			                      th->depth ? th->stack[th->depth - 1] : th->root,
			                      mid);
		}
		if (node == AF_NONE)
			return af_trace_no_path(t, off, err);
		if (AF_GROW(t->mem, th->stack, th->cap, th->depth + 1))
			return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
		t->tree.nodes[node].calls++;
		th->calls++;
		th->stack[th->depth++] = node;
		break;
	case 1: /* exit */
	case 2: /* unwind: an exit caused by an exception */
		if ((method_action & 3) == 1)
			t->info.exits++;
		else
			t->info.unwinds++;
		if (th->depth) {
			node = th->stack[--th->depth];
			if (nodes[node].key != mid)
				t->info.mismatched_exits++;
		} else {
			/* entered before tracing began: adopt everything so far */
			uint32_t root = af_ptree_root(&t->tree, AF_NONE);
			if (root == AF_NONE)
				return af_trace_no_path(t, off, err);
			if (af_ptree_adopt(&t->tree, root, th->root, mid))
				return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
			nodes = t->tree.nodes;
			for (c = 0; c < AF_CLOCK_RECORDED; c++) {
				nodes[th->root].self[c] += th->empty[c];
				th->charged[c] += th->empty[c];
				th->empty[c] = 0;
			}
			if (t->flamechart) {
				/* the adopted frame began with the thread; so did the root */
				if (AF_GROW(t->mem, t->started, t->started_cap, t->tree.len))
					return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
				for (c = 0; c < AF_CLOCK_RECORDED; c++)
					t->started[th->root][c] = t->started[root][c] = 0;
			}
			nodes[th->root].calls++;
			th->calls++;
			th->root = root;
			t->info.orphan_exits++;
		}
		break;
	default:
		t->info.bad_actions++;
		break;
	}
	return AF_OK;
}

/* Indexes the method table by id without hashing when the ids are dense
 * enough (at most four slots per method); -1 when out of memory. */
static int af_trace_index_dense(af_trace *t)
{
	uint32_t lo = UINT32_MAX, hi = 0;
	size_t i, len;

	for (i = 0; i < t->nmethods; i++) {
		lo = t->methods[i].id < lo ? t->methods[i].id : lo;
		hi = t->methods[i].id > hi ? t->methods[i].id : hi;
	}
	len = t->nmethods ? (size_t)((hi - lo) >> 2) + 1 : 0;
	if (!t->nmethods || len > 4 * t->nmethods + 1024)
		return 0;
	t->dense = af_calloc(t->mem, len, sizeof *t->dense);
	if (!t->dense)
		return -1;
	for (i = 0; i < t->nmethods; i++)
		t->dense[(t->methods[i].id - lo) >> 2] = (uint32_t)i + 1;
	t->dense_lo = lo;
	t->dense_len = len;
	return 0;
}

/* What one part of the paths adds up (af_trace_sums): their subtree
 * totals and off-CPU time into the trace's arrays, the methods they call
 * into `called`, those the method table does not name into `unknown`. */
typedef struct af_sums {
	af_trace *t;
	const uint32_t *order; /* the paths, parents first; NULL: by index */
	size_t lo, hi;         /* [lo, hi) of the order, or of the indices */
	uint64_t *waited;      /* NULL without both clocks */
	uint8_t *called;
	af_u32map unknown;     /* method id -> 0 */
	uint64_t unknown_calls;
	int failed;            /* out of memory */
} af_sums;

static void af_sums_part(af_sums *s)
{
	af_trace *t = s->t;
	af_pnode *nodes = t->tree.nodes;
	uint64_t(*tot)[AF_CLOCK_RECORDED] = t->totals;
	int methods = t->info.variant != AF_VARIANT_FOLDED;
	size_t k, i;
	uint32_t idx;
	int c;

	for (k = s->hi; k-- > s->lo;) {
		af_pnode *nd = &nodes[i = s->order ? s->order[k] : k];
		uint32_t p = nd->parent;
		for (c = 0; c < AF_CLOCK_RECORDED; c++) {
			if (!t->info.has_clock[c])
				nd->self[c] = 0;
			tot[i][c] += nd->self[c];
		}
		if (s->waited && nd->self[AF_CLOCK_WALL] > nd->self[AF_CLOCK_CPU])
			s->waited[i] += nd->self[AF_CLOCK_WALL] - nd->self[AF_CLOCK_CPU];
		if (p == AF_NONE)
			continue;
		for (c = 0; c < AF_CLOCK_RECORDED; c++)
			tot[p][c] += tot[i][c];
		if (s->waited)
			s->waited[p] += s->waited[i];
		if (methods && af_trace_method(t, nd->key, &idx)) {
			s->called[idx / 8] |= (uint8_t)(1u << (idx % 8));
		} else if (methods) {
			s->unknown_calls += nd->calls;
			if (!af_u32map_get(&s->unknown, nd->key, &idx) &&
			    af_u32map_put(&s->unknown, nd->key, 0))
				s->failed = 1;
		}
	}
}

static void *af_sums_thread(void *arg)
{
	af_sums_part(arg);
	return NULL;
}

/* One pass over the paths, children before parents: each path's subtree
 * totals, each thread's off-CPU time (dual clock: wall minus thread-cpu,
 * never below zero, per path) and the calls to methods the method table
 * does not name.  A clock the trace lacks is cleared first: one-clock
 * records fed their value to both.  The paths two cores read (from
 * t->split on, the second core's threads) are added up on two cores.
 * Returns -1 when out of memory. */
static int af_trace_sums(af_trace *t)
{
	size_t n = t->tree.len, nb = t->nmethods / 8 + 1, i;
	uint32_t *order = NULL, *stack = NULL;
	int wait = t->info.has_clock[AF_CLOCK_WALL] && t->info.has_clock[AF_CLOCK_CPU];
	af_sums s[2] = {{.t = t, .hi = n, .unknown = {.mem = t->mem}},
	                {.t = t, .hi = n, .unknown = {.mem = t->mem}}};
	pthread_t th;
	int two = 0, r = -1;

	t->totals = af_calloc(t->mem, n ? n : 1, sizeof *t->totals);
	t->called = af_calloc(t->mem, nb, 1);
	s[0].called = t->called;
	if (!t->totals || !t->called ||
	    (wait && !(s[0].waited = af_calloc(t->mem, n ? n : 1, sizeof *s[0].waited))))
		goto out;
	s[1].waited = s[0].waited;
	if (t->tree.adopted) {
		/* an orphan exit made an older root the child of a newer one */
		order = af_malloc(t->mem, (n ? n : 1) * sizeof *order);
		stack = af_malloc(t->mem, (n ? n : 1) * sizeof *stack);
		if (!order || !stack)
			goto out;
		s[0].order = order;
		s[0].hi = af_ptree_order(&t->tree, order, stack);
	} else if (t->split > 0 && t->split < n) {
		/* the two cores' paths: no path of one has a parent in the other */
		s[0].hi = s[1].lo = t->split;
		s[1].called = af_calloc(t->mem, nb, 1);
		two = s[1].called && pthread_create(&th, NULL, af_sums_thread, &s[1]) == 0;
		if (!two)
			s[0].hi = n;
	}
	af_sums_part(&s[0]);
	if (two)
		pthread_join(th, NULL);
	if (s[0].failed || s[1].failed)
		goto out;
	/* the second part's findings joined to the first's */
	for (i = 0; two && i < nb; i++)
		s[0].called[i] |= s[1].called[i];
	for (i = 0; two && i < s[1].unknown.nslots; i++) {
		uint64_t slot = s[1].unknown.slots[i];
		uint32_t key = af_u32map_key(slot), idx;
		if (slot && !af_u32map_get(&s[0].unknown, key, &idx) &&
		    af_u32map_put(&s[0].unknown, key, 0))
			goto out;
	}
	t->info.unknown_method_calls += s[0].unknown_calls + s[1].unknown_calls;
	t->info.unknown_methods += s[0].unknown.len;
	for (i = 0; i < t->nthreads; i++)
		t->threads[i].waited = wait ? s[0].waited[t->threads[i].root] : 0;
	r = 0;
out:
	af_u32map_free(&s[0].unknown);
	af_u32map_free(&s[1].unknown);
	af_free(t->mem, s[1].called);
	af_free(t->mem, s[0].waited);
	af_free(t->mem, order);
	af_free(t->mem, stack);
	return r;
}

af_status af_trace_finish(af_trace *t, af_error *err)
{
	long long end = (long long)t->input_len;
	size_t i, top = 0;
	uint32_t *decl_of;
	int c;

	/* declared ids, truncated to the records' width, and record ids */
	for (i = 0; i < t->ndecl; i++)
		top = AF_MAX(top, (size_t)(t->decl[i].tid & t->tid_mask) + 1);
	top = AF_MAX(top, t->thread_of_len);
	decl_of = af_calloc(t->mem, top ? top : 1, sizeof *decl_of);
	if (!decl_of)
		return af_fail(err, AF_ERR_NOMEM, end, "out of memory");
	/* the first declaration of a (truncated) id names the thread */
	for (i = 0; i < t->ndecl; i++) {
		uint32_t k = t->decl[i].tid & t->tid_mask;
		if (!decl_of[k]) {
			decl_of[k] = (uint32_t)i + 1;
			t->info.threads_declared++;
		} else if (t->decl[decl_of[k] - 1].tid != t->decl[i].tid) {
			t->info.thread_id_collisions++;
			t->info.threads_declared++;
		}
	}
	for (i = 0; i < t->nthreads; i++) {
		af_thread *th = &t->threads[i];
		uint32_t k;
		t->info.open_at_end += th->depth;
		if (th->name)
			continue; /* named by its parser (slices.c) */
		k = decl_of[th->record_tid];
		if (k) {
			th->tid = t->decl[k - 1].full ? t->decl[k - 1].full
			                              : t->decl[k - 1].tid;
			th->name = t->decl[k - 1].name;
		} else {
			char tmp[32];
			int n = snprintf(tmp, sizeof tmp, "Thread-%u", th->record_tid);
			th->name = af_trace_strdup(t, tmp, (size_t)n);
			if (!th->name) {
				af_free(t->mem, decl_of);
				return af_fail(err, AF_ERR_NOMEM, end, "out of memory");
			}
			t->info.unknown_threads++;
		}
	}
	af_free(t->mem, decl_of);
	t->info.threads_with_records = (uint32_t)t->nthreads;
	for (i = 0; i < t->nthreads; i++)
		for (c = 0; c < AF_CLOCK_RECORDED; c++)
			if (!t->info.has_clock[c])
				t->threads[i].elapsed[c] = 0;
	if (af_trace_index_dense(t) || af_trace_sums(t))
		return af_fail(err, AF_ERR_NOMEM, end, "out of memory");
	t->info.has_clock[AF_CLOCK_WAIT] =
		t->info.has_clock[AF_CLOCK_WALL] && t->info.has_clock[AF_CLOCK_CPU];
	return AF_OK;
}

/* Sets which clocks a trace holds from its record layout and its key. */
void af_trace_set_clocks(af_trace *t, int dual)
{
	if (dual) {
		t->info.has_clock[AF_CLOCK_CPU] = 1;
		t->info.has_clock[AF_CLOCK_WALL] = 1;
		return;
	}
	if (t->clock_named == 2 || !t->clock_named)
		t->info.clock_assumed = 1; /* "dual" with one field, or no clock= */
	if (t->clock_named == 2)
		t->single_clock = AF_CLOCK_WALL;
	t->info.has_clock[t->single_clock] = 1;
}

/* ------------------------------------------------------------------ */
/* Public accessors                                                    */

const af_trace_info *af_trace_get_info(const af_trace *trace)
{
	return &trace->info;
}

size_t af_trace_thread_count(const af_trace *trace)
{
	return trace->nthreads;
}

void af_trace_thread(const af_trace *trace, size_t i, af_thread_info *info)
{
	const af_thread *th = &trace->threads[i];
	int c;

	info->tid = th->tid;
	info->name = th->name;
	info->pid = th->pid;
	info->process = th->process;
	info->records = th->records;
	info->calls = th->calls;
	for (c = 0; c < AF_CLOCK_RECORDED; c++) {
		info->time[c] = th->elapsed[c];
		info->total[c] = trace->info.has_clock[c] ? th->charged[c] : 0;
	}
	info->time[AF_CLOCK_WAIT] = 0;
	info->total[AF_CLOCK_WAIT] = 0;
	if (trace->info.has_clock[AF_CLOCK_WAIT]) {
		if (th->elapsed[AF_CLOCK_WALL] > th->elapsed[AF_CLOCK_CPU])
			info->time[AF_CLOCK_WAIT] =
				th->elapsed[AF_CLOCK_WALL] - th->elapsed[AF_CLOCK_CPU];
		info->total[AF_CLOCK_WAIT] = th->waited;
	}
}

/* ------------------------------------------------------------------ */
/* The thread filter                                                   */

/* --process: a thread of a process named or numbered so; threads of no
 * known process (method traces) pass no such filter. */
static int af_process_selected(const af_thread *th, const af_tree_options *opt)
{
	size_t i;
	char num[16];

	if (!opt || !opt->processes || opt->nprocesses == 0)
		return 1;
	if (!th->pid && !th->process)
		return 0;
	snprintf(num, sizeof num, "%u", th->pid);
	for (i = 0; i < opt->nprocesses; i++)
		if ((th->process && strcmp(opt->processes[i], th->process) == 0) ||
		    (th->pid && strcmp(opt->processes[i], num) == 0))
			return 1;
	return 0;
}

int af_thread_selected(const af_thread *th, const af_tree_options *opt)
{
	size_t i;
	char num[16];

	if (!af_process_selected(th, opt))
		return 0;
	if (!opt || !opt->threads || opt->nthreads == 0)
		return 1;
	for (i = 0; i < opt->nthreads; i++) {
		const char *want = opt->threads[i];
		if (strcmp(want, th->name) == 0)
			return 1;
		snprintf(num, sizeof num, "%u", th->tid);
		if (strcmp(want, num) == 0)
			return 1;
		snprintf(num, sizeof num, "%u", th->record_tid);
		if (strcmp(want, num) == 0)
			return 1;
	}
	return 0;
}

int af_first_frame_selected(const af_trace *trace, uint32_t node,
                            const af_tree_options *opt)
{
	const char *name = trace->frames.str[trace->tree.nodes[node].key];
	size_t i;

	if (opt && opt->nprocesses && !opt->one_thread)
		return 0; /* folded stacks name no processes */
	if (!opt || !opt->threads || opt->nthreads == 0 || opt->one_thread)
		return 1;
	for (i = 0; i < opt->nthreads; i++)
		if (strcmp(opt->threads[i], name) == 0)
			return 1;
	return 0;
}

const char *af_empty_message(const af_trace *trace, const af_tree_options *opt)
{
	if (!opt || (!opt->nthreads && !opt->nprocesses) || opt->one_thread)
		return trace->info.perfetto_profile == 1
		       ? "the heap dump has no call path with a value in this view (--heap-view)"
		       : trace->info.perfetto_profile ? "the trace has no CPU sample with a callstack"
		       : trace->info.variant == AF_VARIANT_FOLDED ? "the input has no stacks"
		       : trace->info.variant == AF_VARIANT_SYSTRACE ||
		         trace->info.variant == AF_VARIANT_PERFETTO
		       ? "the trace has no begin/end slices"
		       : "the trace has no method records";
	if (opt->nprocesses && trace->info.variant == AF_VARIANT_FOLDED &&
	    !trace->info.perfetto_profile)
		return "folded stacks name no processes (--process)";
	if (opt->nprocesses && !trace->info.processes)
		return "the trace names no processes (--process needs systrace or "
		       "Perfetto input)";
	if (opt->nprocesses && opt->nthreads)
		return "no thread with records matches both the --thread and the "
		       "--process filters";
	if (opt->nprocesses)
		return "no thread with records matches the --process filter";
	return trace->info.variant == AF_VARIANT_FOLDED && !trace->info.perfetto_profile
	       ? "no line's first frame matches the --thread filter"
	       : "no thread with records matches the --thread filter";
}

/* How far behind the parse a window's pages are kept: a second core
 * feeding another part of the threads reads the same records a little
 * behind or ahead (a page it needs again is only mapped again). */
#define AF_WINDOW_LAG (16u << 20)

void af_trace_window(af_trace *t, const uint8_t *at)
{
	static size_t page;
	size_t done;

	if (!t->window || at < t->window || at > t->window + t->window_len)
		return;
	if (!page)
		page = (size_t)sysconf(_SC_PAGESIZE);
	done = (size_t)(at - t->window);
	if (done + AF_WINDOW_LAG < t->window_freed)
		t->window_freed = 0; /* a pass over the bytes again */
	if (done <= AF_WINDOW_LAG)
		return;
	done = (done - AF_WINDOW_LAG) & ~(page - 1);
	if (done > t->window_freed) {
		/* a file's clean pages: they read back from it if ever needed */
		madvise((void *)(t->window + t->window_freed), done - t->window_freed,
		        MADV_DONTNEED);
		t->window_freed = done;
	}
}

void af_trace_tick(af_trace *t, const uint8_t *at, size_t done, size_t total)
{
	if (t->progress)
		t->progress(t->progress_ctx, done, total);
	af_trace_window(t, at);
}
