/*
 * slices.c - threads' nested begin/end slices as call paths with wall time
 * (slices.h has the semantics).  The parsers of slice formats (systrace.c,
 * and any other that has begin and end events per thread) feed it.
 */
#include <stdio.h>
#include <string.h>

#include "slices.h"

/* What a line or descriptor told of a thread, slices or not. */
typedef struct af_slice_tinfo {
	uint32_t tid;
	uint32_t pid;  /* 0: unknown */
	uint32_t name; /* id in `comms`, AF_NONE: unknown */
} af_slice_tinfo;

struct af_slices {
	af_trace *t;
	af_u32map thread_of;   /* tid -> index in t->threads */
	struct af_slice_times {
		uint64_t first, last; /* a thread's first and last event, µs */
	} *times;              /* per thread, as t->threads */
	size_t times_cap;
	af_u32map tinfo_of;    /* tid -> index in tinfo */
	af_slice_tinfo *tinfo;
	size_t ntinfo, tinfo_cap;
	af_u32map pname_of;    /* pid -> name id in `comms` (af_slices_process) */
	af_names comms;        /* thread and process names */
};

af_slices *af_slices_new(af_trace *t)
{
	af_slices *s = af_calloc(t->mem, 1, sizeof *s);

	if (!s)
		return NULL;
	s->t = t;
	s->thread_of.mem = s->tinfo_of.mem = s->pname_of.mem = t->mem;
	s->comms.mem = t->mem;
	t->info.has_clock[AF_CLOCK_WALL] = 1;
	return s;
}

void af_slices_free(af_slices *s)
{
	af_mem *mem;

	if (!s)
		return;
	mem = s->t->mem;
	af_u32map_free(&s->thread_of);
	af_u32map_free(&s->tinfo_of);
	af_u32map_free(&s->pname_of);
	af_names_free(&s->comms);
	af_free(mem, s->times);
	af_free(mem, s->tinfo);
	af_free(mem, s);
}

/* "<...>" (ftrace's comm cache missed it) and "<7952>" name nobody. */
static int af_placeholder(const char *name, size_t len)
{
	return len == 0 || (len >= 2 && name[0] == '<' && name[len - 1] == '>');
}

static af_status af_slices_nomem(long long off, af_error *err)
{
	return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
}

/* The tinfo entry of `tid`, made when missing. */
static af_status af_tinfo_for(af_slices *s, uint32_t tid, long long off,
                              af_slice_tinfo **out, af_error *err)
{
	uint32_t k;

	if (af_u32map_get(&s->tinfo_of, tid, &k)) {
		*out = &s->tinfo[k];
		return AF_OK;
	}
	if (tid == UINT32_MAX || AF_GROW(s->t->mem, s->tinfo, s->tinfo_cap, s->ntinfo + 1) ||
	    af_u32map_put(&s->tinfo_of, tid, (uint32_t)s->ntinfo))
		return tid == UINT32_MAX ? af_fail(err, AF_ERR_FORMAT, off,
		                                   "thread id 4294967295 is out of range")
		                         : af_slices_nomem(off, err);
	*out = &s->tinfo[s->ntinfo++];
	(*out)->tid = tid;
	(*out)->pid = 0;
	(*out)->name = AF_NONE;
	return AF_OK;
}

af_status af_slices_thread(af_slices *s, uint32_t tid, uint32_t pid,
                           const char *name, size_t len, long long off,
                           af_error *err)
{
	af_slice_tinfo *ti = NULL;

	AF_FORWARD(af_tinfo_for(s, tid, off, &ti, err));
	if (pid && !ti->pid)
		ti->pid = pid;
	if (name && !af_placeholder(name, len)) {
		if (len > s->t->limits.max_name_len)
			return af_fail(err, AF_ERR_LIMIT, off, "thread name longer than "
			               "%u bytes", s->t->limits.max_name_len);
		/* the comm is usually the one already known: no interning */
		if (ti->name != AF_NONE && strlen(s->comms.str[ti->name]) == len &&
		    memcmp(s->comms.str[ti->name], name, len) == 0)
			return AF_OK;
		ti->name = af_names_intern_clean(&s->comms, name, len);
		if (ti->name == AF_NONE)
			return af_slices_nomem(off, err);
	}
	return AF_OK;
}

af_status af_slices_process(af_slices *s, uint32_t pid, const char *name,
                            size_t len, long long off, af_error *err)
{
	uint32_t id;

	if (!pid || pid == UINT32_MAX || !name || af_placeholder(name, len))
		return AF_OK;
	if (len > s->t->limits.max_name_len)
		return af_fail(err, AF_ERR_LIMIT, off, "process name longer than %u "
		               "bytes", s->t->limits.max_name_len);
	id = af_names_intern_clean(&s->comms, name, len);
	if (id == AF_NONE || af_u32map_put(&s->pname_of, pid, id))
		return af_slices_nomem(off, err);
	return AF_OK;
}

/* Thread `tid`'s state, made at its first slice event. */
static af_status af_slice_thread_for(af_slices *s, uint32_t tid, long long off,
                                     af_thread **out, uint32_t *index,
                                     af_error *err)
{
	af_trace *t = s->t;
	af_thread *th;
	uint32_t k, root;

	if (af_u32map_get(&s->thread_of, tid, &k)) {
		*out = &t->threads[k];
		*index = k;
		return AF_OK;
	}
	if (tid == UINT32_MAX)
		return af_fail(err, AF_ERR_FORMAT, off, "thread id 4294967295 is out "
		               "of range");
	root = af_ptree_root(&t->tree, AF_NONE);
	if (root == AF_NONE)
		return af_trace_no_path(t, off, err);
	if (AF_GROW(t->mem, t->threads, t->threads_cap, t->nthreads + 1) ||
	    AF_GROW(t->mem, s->times, s->times_cap, t->nthreads + 1) ||
	    af_u32map_put(&s->thread_of, tid, (uint32_t)t->nthreads))
		return af_slices_nomem(off, err);
	th = &t->threads[t->nthreads];
	memset(th, 0, sizeof *th);
	th->record_tid = th->tid = tid;
	th->root = root;
	th->first_off = off;
	*index = (uint32_t)t->nthreads++;
	*out = th;
	return AF_OK;
}

/* Charges the time since the thread's last event to its open slice. */
static void af_slice_charge(af_slices *s, af_thread *th, uint32_t k, uint64_t us)
{
	af_trace *t = s->t;
	uint64_t d;

	t->info.records++;
	if (th->records++ == 0) {
		s->times[k].first = s->times[k].last = us;
		return;
	}
	if (us < s->times[k].last) {
		t->info.time_backwards[AF_CLOCK_WALL]++;
		return;
	}
	d = us - s->times[k].last;
	s->times[k].last = us;
	th->elapsed[AF_CLOCK_WALL] = us - s->times[k].first;
	if (th->depth) {
		t->tree.nodes[th->stack[th->depth - 1]].self[AF_CLOCK_WALL] += d;
		th->charged[AF_CLOCK_WALL] += d;
	} else {
		th->empty[AF_CLOCK_WALL] += d;
	}
}

/* The method standing for a slice name: its id is the name's, times four
 * (method ids keep their low two bits clear), plus four. */
static af_status af_slice_method(af_slices *s, const char *name, size_t len,
                                 long long off, uint32_t *mid, af_error *err)
{
	af_trace *t = s->t;
	uint32_t id;

	if (len > t->limits.max_name_len)
		return af_fail(err, AF_ERR_LIMIT, off, "slice name longer than %u bytes",
		               t->limits.max_name_len);
	id = af_names_intern_clean(&t->frames, name, len);
	if (id == AF_NONE)
		return af_slices_nomem(off, err);
	if (id >= (UINT32_MAX >> 2) - 1)
		return af_fail(err, AF_ERR_LIMIT, off, "more than %u distinct slice "
		               "names", (UINT32_MAX >> 2) - 2);
	if (id == t->nmethods) {
		af_method *m;
		if (AF_GROW(t->mem, t->methods, t->methods_cap, t->nmethods + 1) ||
		    af_u32map_put(&t->method_index, (id + 1) << 2, id))
			return af_slices_nomem(off, err);
		m = &t->methods[t->nmethods++];
		m->id = (id + 1) << 2;
		m->cls = m->sig = m->file = "";
		m->name = t->frames.str[id];
		t->info.methods++;
	}
	*mid = (id + 1) << 2;
	return AF_OK;
}

af_status af_slices_begin(af_slices *s, uint32_t tid, uint32_t pid, uint64_t ts,
                          const char *name, size_t len, long long off,
                          af_error *err)
{
	af_trace *t = s->t;
	af_thread *th = NULL;
	uint32_t k = 0, mid = 0, node, parent;

	AF_FORWARD(af_slice_method(s, name, len, off, &mid, err));
	AF_FORWARD(af_slice_thread_for(s, tid, off, &th, &k, err));
	if (pid && !th->pid)
		th->pid = pid;
	af_slice_charge(s, th, k, ts / 1000);
	t->info.enters++;
	if (th->depth >= t->limits.max_depth)
		return af_fail(err, AF_ERR_LIMIT, off, "thread %u's slices nest deeper "
		               "than %u", tid, t->limits.max_depth);
	parent = th->depth ? th->stack[th->depth - 1] : th->root;
	if (t->flamechart) {
		/* every slice its own node, remembering when it began */
		node = af_ptree_append(&t->tree, parent, mid);
		if (node != AF_NONE &&
		    AF_GROW(t->mem, t->started, t->started_cap, t->tree.len))
			return af_slices_nomem(off, err);
		if (node != AF_NONE) {
			t->started[node][AF_CLOCK_WALL] = th->charged[AF_CLOCK_WALL];
			t->started[node][AF_CLOCK_CPU] = 0;
		}
	} else {
		node = af_ptree_child(&t->tree, parent, mid);
	}
	if (node == AF_NONE)
		return af_trace_no_path(t, off, err);
	if (AF_GROW(t->mem, th->stack, th->cap, th->depth + 1))
		return af_slices_nomem(off, err);
	t->tree.nodes[node].calls++;
	th->calls++;
	th->stack[th->depth++] = node;
	return AF_OK;
}

af_status af_slices_end(af_slices *s, uint32_t tid, uint64_t ts, long long off,
                        af_error *err)
{
	af_thread *th;
	uint32_t k;

	if (!af_u32map_get(&s->thread_of, tid, &k) || !s->t->threads[k].depth) {
		/* begun before the trace did, or never begun */
		s->t->info.unmatched_ends++;
		if (af_u32map_get(&s->thread_of, tid, &k))
			af_slice_charge(s, &s->t->threads[k], k, ts / 1000);
		return AF_OK;
	}
	th = &s->t->threads[k];
	af_slice_charge(s, th, k, ts / 1000);
	s->t->info.exits++;
	th->depth--;
	(void)err;
	(void)off;
	return AF_OK;
}

int af_mark_u32(const char *s, size_t n, uint32_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0 || n > 10)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	if (v >= UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

af_mark_kind af_mark_parse(af_trace *t, const char *m, size_t n, af_mark *out)
{
	size_t i;

	memset(out, 0, sizeof *out);
	if (n == 0 || (n >= 2 && m[1] != '|')) {
		t->info.marks_ignored++;
		return AF_MARK_IGNORED;
	}
	switch (m[0]) {
	case 'B':
		if (n < 2) {
			t->info.marks_ignored++;
			return AF_MARK_IGNORED;
		}
		for (i = 2; i < n && m[i] != '|'; i++)
			;
		if (af_mark_u32(m + 2, i - 2, &out->pid)) {
			out->pid_at = 2;
			out->pid_len = i - 2;
			return AF_MARK_BAD_PID;
		}
		if (i == n) {
			t->info.marks_ignored++; /* "B|pid" names no slice */
			return AF_MARK_IGNORED;
		}
		out->name = m + i + 1;
		out->name_len = n - i - 1;
		return AF_MARK_BEGIN;
	case 'E':
		return AF_MARK_END;
	case 'S': case 'F': case 'T': case 'U': case 'G': case 'H':
		t->info.async_ignored++;
		return AF_MARK_IGNORED;
	case 'C':
		t->info.counters_ignored++;
		return AF_MARK_IGNORED;
	default:
		t->info.marks_ignored++;
		return AF_MARK_IGNORED;
	}
}

/* The name a thread is known by: its comm, else "Thread-<tid>". */
static const char *af_slice_name(af_slices *s, uint32_t id, const char *fallback,
                                 uint32_t num)
{
	char tmp[32];
	int n;

	if (id != AF_NONE)
		return af_trace_strdup(s->t, s->comms.str[id], strlen(s->comms.str[id]));
	n = snprintf(tmp, sizeof tmp, "%s%u", fallback, num);
	return af_trace_strdup(s->t, tmp, (size_t)n);
}

af_status af_slices_finish(af_slices *s, af_error *err)
{
	af_trace *t = s->t;
	long long end = (long long)t->input_len;
	af_u32map seen = {.mem = t->mem};
	size_t i;

	for (i = 0; i < t->nthreads; i++) {
		af_thread *th = &t->threads[i];
		af_slice_tinfo *ti = NULL;
		uint32_t k, pname = AF_NONE, dummy;

		/* open slices close at the thread's last event: it was charged */
		t->info.open_at_end += th->depth;
		th->depth = 0;
		if (af_u32map_get(&s->tinfo_of, th->tid, &k))
			ti = &s->tinfo[k];
		if (ti && ti->pid && !th->pid)
			th->pid = ti->pid;
		th->name = af_slice_name(s, ti ? ti->name : AF_NONE, "Thread-", th->tid);
		if (!th->name)
			goto nomem;
		if (!th->pid)
			continue;
		if (!af_u32map_get(&s->pname_of, th->pid, &pname) &&
		    af_u32map_get(&s->tinfo_of, th->pid, &k))
			pname = s->tinfo[k].name; /* its main thread's comm */
		th->process = af_slice_name(s, pname, "Process-", th->pid);
		if (!th->process)
			goto nomem;
		if (!af_u32map_get(&seen, th->pid, &dummy)) {
			if (af_u32map_put(&seen, th->pid, 0))
				goto nomem;
			t->info.processes++;
		}
	}
	af_u32map_free(&seen);
	return AF_OK;
nomem:
	af_u32map_free(&seen);
	return af_fail(err, AF_ERR_NOMEM, end, "out of memory");
}
