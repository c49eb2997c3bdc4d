/*
 * perfetto_prof.c - the profiles of a Perfetto trace read as stacks with
 * values: heapprofd's heap dumps (ProfilePacket) and traced_perf's CPU
 * samples (PerfSample).  Packets come one at a time from pftrace.c and are
 * decoded by protobuf-c from src/perfetto_prof.proto.
 *
 * Interned tables (function names, mapping paths, mappings, frames,
 * callstacks: pfintern.c) belong to a packet sequence and are emptied when
 * the sequence says its incremental state was cleared; a sample only names
 * its callstack.  Frames the profile leaves unnamed are named once every
 * packet is read, by the offline symbols (ModuleSymbols) the trace may
 * carry after its samples, else by their library and pc.  Android 10's
 * heap dumps carry the same tables inline (ProfilePacket.strings,
 * frames...): they go into the same tables of the sequence.
 *
 * A heap dump is the run of ProfilePackets of a sequence up to the one not
 * `continued`; its values are totals since profiling began, so one dump is
 * drawn: the last of each sequence, or the N-th (af_parse_options
 * heap_dump); a dump written with heapprofd's dump_at_max holds, instead
 * of totals, what was unreleased at the heap's peak (self_max, its count).
 * Its samples are kept apart (the thread, the callstack, the view's value)
 * until the choice is known at the end; CPU samples are counted per thread
 * and callstack as they come.  One thread of the tree per process and heap
 * (heap dumps) or per thread (CPU samples).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"
#include "perfetto_prof.h"
#include "pfintern.h"
#include "pftrace.h"

typedef Aflame__Pfprof__TracePacket af_pfp_packet;
typedef Aflame__Pfprof__ProfilePacket af_pfp_profile;
typedef Aflame__Pfprof__ProfilePacket__ProcessHeapSamples af_pfp_dump;
typedef Aflame__Pfprof__ProfilePacket__HeapSample af_pfp_hsample;

/* TracePacket's field numbers that make a packet a profile's. */
enum { AF_PFP_PROFILE_PACKET = 37, AF_PFP_PERF_SAMPLE = 66 };

/* TracePacket.sequence_flags: SEQ_INCREMENTAL_STATE_CLEARED. */
#define AF_PFP_CLEARED 1u

/* The four views of heapprofd's documentation, by the names of
 * --heap-view, with the unit of their values. */
static const struct {
	const char *name, *unit;
} af_pfp_views[] = {
	{"unreleased-size", "bytes"}, /* allocated and not freed (default) */
	{"unreleased-count", "count"},
	{"total-size", "bytes"},      /* allocated, freed or not */
	{"total-count", "count"},
};

/* A sample of a heap dump waiting for the choice of dump. */
typedef struct af_pfp_hs {
	uint32_t thread, stack;
	uint64_t value;
} af_pfp_hs;

/* A packet sequence: its interned tables and its heap dumps. */
typedef struct af_pfp_seq {
	uint32_t id;
	af_pfi_ids ids;    /* its interning ids */
	int open;          /* inside a dump (the last packet was continued) */
	uint32_t dumps;    /* dumps begun */
	af_pfp_hs *cur, *kept; /* the dump being read, the one chosen so far */
	size_t ncur, cur_cap, nkept, kept_cap;
} af_pfp_seq;

/* A thread of the tree: a process's heap, or a sampled thread. */
typedef struct af_pfp_thr {
	uint32_t pid, tid;
	uint32_t heap;     /* heap dumps: the heap's name in strs, AF_NONE for none */
	uint64_t samples;  /* samples with a value */
} af_pfp_thr;

/* A CPU sample count per thread and callstack. */
typedef struct af_pfp_count {
	uint32_t thread, stack;
	uint64_t n;
} af_pfp_count;

/* What a parse holds while it runs. */
typedef struct af_pfp {
	af_trace *t;
	af_mem *mem;
	int view;             /* index in af_pfp_views */
	uint32_t want_dump;   /* 0: the last */
	af_pfp_seq *seqs;
	size_t nseqs, seqs_cap;
	af_pfi in;            /* the interned tables, the packet's offset */
	af_pfp_thr *thr;
	size_t nthr, thr_cap;
	af_u64map thr_of;    /* CPU samples: pid << 32 | tid -> index in thr */
	af_pfp_count *counts;
	size_t ncounts, counts_cap;
	af_u64map count_of;  /* thread << 32 | stack -> index in counts */
	af_u64map proc_name; /* pid -> strs */
	af_u64map thread_name; /* tid -> strs */
	uint64_t heap_packets, perf_samples;
} af_pfp;

/* The sequence numbered `id`, made when new. */
static af_pfp_seq *af_pfp_seq_for(af_pfp *pp, uint32_t id)
{
	size_t i;

	for (i = pp->nseqs; i-- > 0;)
		if (pp->seqs[i].id == id)
			return &pp->seqs[i];
	if (AF_GROW(pp->mem, pp->seqs, pp->seqs_cap, pp->nseqs + 1))
		return NULL;
	memset(&pp->seqs[pp->nseqs], 0, sizeof *pp->seqs);
	pp->seqs[pp->nseqs].id = id;
	return &pp->seqs[pp->nseqs++];
}

/* The thread of sampled thread `tid` of process `pid`. */
static af_status af_pfp_thread(af_pfp *pp, uint32_t pid, uint32_t tid, uint32_t heap,
                               uint32_t *out, af_error *err)
{
	if (pp->nthr >= AF_NONE - 1 || AF_GROW(pp->mem, pp->thr, pp->thr_cap, pp->nthr + 1))
		return af_pfi_nomem(&pp->in, err);
	pp->thr[pp->nthr].pid = pid;
	pp->thr[pp->nthr].tid = tid;
	pp->thr[pp->nthr].heap = heap;
	pp->thr[pp->nthr].samples = 0;
	*out = (uint32_t)pp->nthr++;
	return AF_OK;
}

/* The thread of heap `name` ("" for none) of process `pid`: heaps are
 * few, found by a walk. */
static af_status af_pfp_heap_thread(af_pfp *pp, uint32_t pid, const char *name,
                                    uint32_t *out, af_error *err)
{
	size_t i, len = strlen(name);
	uint32_t heap = AF_NONE;

	for (i = 0; i < pp->nthr; i++) {
		const af_pfp_thr *p = &pp->thr[i];
		if (p->pid == pid && (p->heap == AF_NONE ? len == 0
		                      : pp->in.strs[p->heap].len == len &&
		                        memcmp(pp->in.strs[p->heap].s, name, len) == 0)) {
			*out = (uint32_t)i;
			return AF_OK;
		}
	}
	if (len)
		AF_FORWARD(af_pfi_str_add(&pp->in, (const uint8_t *)name, len, &heap, err));
	return af_pfp_thread(pp, pid, 0, heap, out, err);
}

/* The thread of `tid` of `pid` (CPU samples), by its map. */
static af_status af_pfp_perf_thread(af_pfp *pp, uint32_t pid, uint32_t tid, uint32_t *out,
                                    af_error *err)
{
	uint64_t key = (uint64_t)pid << 32 | tid;

	if (af_u64map_get(&pp->thr_of, key, out))
		return AF_OK;
	AF_FORWARD(af_pfp_thread(pp, pid, tid, AF_NONE, out, err));
	return af_u64map_put(pp->mem, &pp->thr_of, key, *out) ? af_pfi_nomem(&pp->in, err) : AF_OK;
}

/* Ends the sequence's dump being read: the one to draw when it is the
 * last so far, or the one asked for. */
static void af_pfp_dump_end(af_pfp *pp, af_pfp_seq *sq)
{
	sq->open = 0;
	if (!pp->want_dump || sq->dumps == pp->want_dump) {
		af_pfp_hs *tmp = sq->kept;
		size_t cap = sq->kept_cap;
		sq->kept = sq->cur;
		sq->kept_cap = sq->cur_cap;
		sq->nkept = sq->ncur;
		sq->cur = tmp;
		sq->cur_cap = cap;
	}
	sq->ncur = 0;
}

/* A ProfilePacket: its tables, and its samples kept for the dump they
 * belong to. */
static af_status af_pfp_profile_packet(af_pfp *pp, af_pfp_seq *sq, const af_pfp_profile *p,
                                       af_error *err)
{
	size_t i, k;
	int keep;

	pp->heap_packets++;
	AF_FORWARD(af_pfi_strings(&pp->in, &sq->ids.fn, &sq->ids.path, &sq->ids.build, p->strings, p->n_strings,
	                          err));
	AF_FORWARD(af_pfi_mappings(&pp->in, &sq->ids, p->mappings, p->n_mappings, err));
	AF_FORWARD(af_pfi_frames(&pp->in, &sq->ids, p->frames, p->n_frames, err));
	AF_FORWARD(af_pfi_stacks(&pp->in, &sq->ids, p->callstacks, p->n_callstacks, err));
	if (!sq->open) {
		sq->open = 1;
		sq->dumps++;
		sq->ncur = 0;
	}
	keep = !pp->want_dump || sq->dumps == pp->want_dump;
	for (i = 0; i < p->n_process_dumps; i++) {
		const af_pfp_dump *d = p->process_dumps[i];
		uint32_t thread = AF_NONE;
		if (d->pid > UINT32_MAX)
			return af_fail(err, AF_ERR_RECORD, pp->in.off, AF_PFP ": a heap dump's pid "
			               "%llu is over 32 bits", (unsigned long long)d->pid);
		AF_FORWARD(af_pfp_heap_thread(pp, (uint32_t)d->pid,
		                              d->heap_name ? d->heap_name : "", &thread, err));
		for (k = 0; k < d->n_samples; k++) {
			const af_pfp_hsample *s = d->samples[k];
			uint32_t stack;
			uint64_t v;
			if (!af_u64map_get(&sq->ids.stack, s->callstack_id, &stack))
				return af_fail(err, AF_ERR_RECORD, pp->in.off, AF_PFP ": a heap sample "
				               "of process %llu names callstack %llu, which its "
				               "sequence never interned", (unsigned long long)d->pid,
				               (unsigned long long)s->callstack_id);
			if (s->self_freed > s->self_allocated || s->free_count > s->alloc_count)
				return af_fail(err, AF_ERR_RECORD, pp->in.off, AF_PFP ": a heap sample "
				               "of process %llu frees more than it allocated (%llu of "
				               "%llu bytes, %llu of %llu allocations)",
				               (unsigned long long)d->pid,
				               (unsigned long long)s->self_freed,
				               (unsigned long long)s->self_allocated,
				               (unsigned long long)s->free_count,
				               (unsigned long long)s->alloc_count);
			if (s->has_self_max || s->has_self_max_count)
				/* dump_at_max: no totals, what was unreleased when the
				 * heap was at its largest in every view, sizes or counts
				 * (trace processor reads it as allocated, nothing freed) */
				v = pp->view % 2 == 0 ? s->self_max : s->self_max_count;
			else
				v = pp->view == 0 ? s->self_allocated - s->self_freed
				    : pp->view == 1 ? s->alloc_count - s->free_count
				    : pp->view == 2 ? s->self_allocated : s->alloc_count;
			if (!keep || v == 0)
				continue;
			if (AF_GROW(pp->mem, sq->cur, sq->cur_cap, sq->ncur + 1))
				return af_pfi_nomem(&pp->in, err);
			sq->cur[sq->ncur].thread = thread;
			sq->cur[sq->ncur].stack = stack;
			sq->cur[sq->ncur].value = v;
			sq->ncur++;
		}
	}
	if (!p->continued)
		af_pfp_dump_end(pp, sq);
	return AF_OK;
}

/* A PerfSample: one more for its thread and callstack.  Samples without a
 * callstack (lost records, skipped samples) are not drawn. */
static af_status af_pfp_perf_sample(af_pfp *pp, af_pfp_seq *sq,
                                    const Aflame__Pfprof__PerfSample *s, af_error *err)
{
	uint32_t stack, thread = AF_NONE, idx;
	uint64_t key;

	if (!s->has_callstack_iid)
		return AF_OK;
	if (!af_u64map_get(&sq->ids.stack, s->callstack_iid, &stack))
		return af_fail(err, AF_ERR_RECORD, pp->in.off, AF_PFP ": a CPU sample of thread "
		               "%u names callstack %llu, which its sequence never interned",
		               s->tid, (unsigned long long)s->callstack_iid);
	pp->perf_samples++;
	AF_FORWARD(af_pfp_perf_thread(pp, s->pid, s->tid, &thread, err));
	key = (uint64_t)thread << 32 | stack;
	if (!af_u64map_get(&pp->count_of, key, &idx)) {
		if (pp->ncounts >= AF_NONE - 1 ||
		    AF_GROW(pp->mem, pp->counts, pp->counts_cap, pp->ncounts + 1) ||
		    af_u64map_put(pp->mem, &pp->count_of, key, (uint32_t)pp->ncounts))
			return af_pfi_nomem(&pp->in, err);
		idx = (uint32_t)pp->ncounts++;
		pp->counts[idx].thread = thread;
		pp->counts[idx].stack = stack;
		pp->counts[idx].n = 0;
	}
	pp->counts[idx].n++;
	return AF_OK;
}

/* Names a process or thread (the last name given wins). */
static af_status af_pfp_name(af_pfp *pp, af_u64map *m, uint32_t id, const char *name,
                             af_error *err)
{
	uint32_t s = AF_NONE;

	if (!name || !name[0])
		return AF_OK;
	AF_FORWARD(af_pfi_str_add(&pp->in, (const uint8_t *)name, strlen(name), &s, err));
	return af_u64map_put(pp->mem, m, id, s) ? af_pfi_nomem(&pp->in, err) : AF_OK;
}

/* The names of processes and threads: process_tree, track descriptors. */
static af_status af_pfp_names(af_pfp *pp, const af_pfp_packet *pk, af_error *err)
{
	size_t i;

	if (pk->process_tree) {
		const Aflame__Pfcommon__ProcessTree *tr = pk->process_tree;
		for (i = 0; i < tr->n_processes; i++)
			if (tr->processes[i]->n_cmdline)
				AF_FORWARD(af_pfp_name(pp, &pp->proc_name,
				                       (uint32_t)tr->processes[i]->pid,
				                       tr->processes[i]->cmdline[0], err));
		for (i = 0; i < tr->n_threads; i++)
			AF_FORWARD(af_pfp_name(pp, &pp->thread_name, (uint32_t)tr->threads[i]->tid,
			                       tr->threads[i]->name, err));
	}
	if (pk->track_descriptor) {
		const Aflame__Pfcommon__TrackDescriptor *d = pk->track_descriptor;
		if (d->process)
			AF_FORWARD(af_pfp_name(pp, &pp->proc_name, (uint32_t)d->process->pid,
			                       d->process->process_name ? d->process->process_name
			                       : d->process->n_cmdline ? d->process->cmdline[0]
			                                               : NULL, err));
		if (d->thread)
			AF_FORWARD(af_pfp_name(pp, &pp->thread_name, (uint32_t)d->thread->tid,
			                       d->thread->thread_name, err));
	}
	return AF_OK;
}

/* One packet, decoded. */
static af_status af_pfp_packet_read(af_pfp *pp, af_pb_alloc *alloc, const uint8_t *b,
                                    size_t len, af_error *err)
{
	af_pfp_packet *pk = aflame__pfprof__trace_packet__unpack(&alloc->pc, len, b);
	af_pfp_seq *sq;
	af_status st = AF_OK;

	if (!pk) {
		if (alloc->failed)
			return af_fail(err, AF_ERR_NOMEM, pp->in.off, "out of memory decoding a "
			               AF_PFP " packet");
		st = af_pb_check(&aflame__pfprof__trace_packet__descriptor, b, len, pp->in.off,
		                 AF_PFP " packet", err);
		return st != AF_OK ? st : af_fail(err, AF_ERR_FORMAT, pp->in.off, AF_PFP ": "
		                                  "protobuf-c cannot decode a packet");
	}
	sq = af_pfp_seq_for(pp, pk->trusted_packet_sequence_id);
	if (!sq) {
		st = af_pfi_nomem(&pp->in, err);
		goto out;
	}
	if (pk->incremental_state_cleared || (pk->sequence_flags & AF_PFP_CLEARED)) {
		af_pfi_ids_clear(&sq->ids);
	}
	if (pk->interned_data) {
		const Aflame__Pfprof__InternedData *d = pk->interned_data;
		if ((st = af_pfi_strings(&pp->in, &sq->ids.fn, NULL, NULL, d->function_names, d->n_function_names,
		                         err)) != AF_OK ||
		    (st = af_pfi_strings(&pp->in, &sq->ids.build, NULL, NULL, d->build_ids, d->n_build_ids,
		                         err)) != AF_OK ||
		    (st = af_pfi_strings(&pp->in, &sq->ids.path, NULL, NULL, d->mapping_paths, d->n_mapping_paths,
		                         err)) != AF_OK ||
		    (st = af_pfi_mappings(&pp->in, &sq->ids, d->mappings, d->n_mappings, err)) != AF_OK ||
		    (st = af_pfi_frames(&pp->in, &sq->ids, d->frames, d->n_frames, err)) != AF_OK ||
		    (st = af_pfi_stacks(&pp->in, &sq->ids, d->callstacks, d->n_callstacks, err)) != AF_OK)
			goto out;
	}
	if ((st = af_pfp_names(pp, pk, err)) != AF_OK)
		goto out;
	if (pk->module_symbols &&
	    (st = af_pfi_symbols(&pp->in, pk->module_symbols, err)) != AF_OK)
		goto out;
	if (pk->profile_packet &&
	    (st = af_pfp_profile_packet(pp, sq, pk->profile_packet, err)) != AF_OK)
		goto out;
	if (pk->perf_sample)
		st = af_pfp_perf_sample(pp, sq, pk->perf_sample, err);
out:
	aflame__pfprof__trace_packet__free_unpacked(pk, &alloc->pc);
	return st;
}

/* Adds `v` to the call path of callstack `stack` below `root`. */
static af_status af_pfp_add(af_pfp *pp, uint32_t root, uint32_t stack, uint64_t v,
                            uint64_t *sum, af_error *err)
{
	af_trace *t = pp->t;
	uint32_t node = AF_NONE;

	if (v > UINT64_MAX - *sum)
		return af_fail(err, AF_ERR_LIMIT, -1, AF_PFP ": the values of %s add up to "
		               "more than 18446744073709551615", t->info.sample_type);
	AF_FORWARD(af_pfi_path(&pp->in, root, stack, &node, err));
	t->tree.nodes[node].self[AF_CLOCK_WALL] += v;
	t->tree.nodes[node].lines |= AF_LINE_ONE;
	*sum += v;
	t->info.lines++;
	return AF_OK;
}

/* The name of a process: its command line's first word, else "pid N". */
static const char *af_pfp_process(af_pfp *pp, uint32_t pid)
{
	uint32_t s;
	return af_u64map_get(&pp->proc_name, pid, &s) ? pp->in.strs[s].s : NULL;
}

/* Makes the trace's threads from pp->thr, each with its root, and names
 * them.  A heap other than libc's malloc is named after its process. */
static af_status af_pfp_threads(af_pfp *pp, af_error *err)
{
	af_trace *t = pp->t;
	size_t i;

	if (AF_GROW(t->mem, t->threads, t->threads_cap, pp->nthr ? pp->nthr : 1))
		return af_pfi_nomem(&pp->in, err);
	for (i = 0; i < pp->nthr; i++) {
		const af_pfp_thr *p = &pp->thr[i];
		af_thread *th = &t->threads[i];
		const char *proc = af_pfp_process(pp, p->pid), *name = NULL;
		char tmp[600];
		uint32_t s;
		int n;

		memset(th, 0, sizeof *th);
		th->root = af_ptree_root(&t->tree, AF_NONE);
		if (th->root == AF_NONE)
			return af_trace_no_path(t, -1, err);
		t->nthreads = i + 1;
		th->pid = p->pid;
		th->process = proc;
		th->records = p->samples;
		if (t->info.perfetto_profile == 1) {
			th->tid = th->record_tid = p->pid;
			n = proc ? snprintf(tmp, sizeof tmp, "%.400s", proc)
			         : snprintf(tmp, sizeof tmp, "pid %u", p->pid);
			if (n > 0 && p->heap != AF_NONE && strcmp(pp->in.strs[p->heap].s, "libc.malloc"))
				n = snprintf(tmp + n, sizeof tmp - (size_t)n, " [%.160s]",
				             pp->in.strs[p->heap].s) + n;
		} else {
			th->tid = th->record_tid = p->tid;
			if (af_u64map_get(&pp->thread_name, p->tid, &s))
				name = pp->in.strs[s].s;
			else if (p->tid == p->pid)
				name = proc; /* a main thread is named as its process */
			n = name ? snprintf(tmp, sizeof tmp, "%.400s", name)
			         : snprintf(tmp, sizeof tmp, "Thread-%u", p->tid);
		}
		if (n < 0)
			n = 0;
		if ((size_t)n >= sizeof tmp)
			n = (int)sizeof tmp - 1;
		if (!(th->name = af_trace_strdup(t, tmp, (size_t)n)))
			return af_pfi_nomem(&pp->in, err);
	}
	return AF_OK;
}

/* The heap dump chosen, or the CPU samples, into the tree. */
static af_status af_pfp_build(af_pfp *pp, af_error *err)
{
	af_trace *t = pp->t;
	uint64_t sum = 0;
	uint32_t most = 0, busy = 0;
	size_t i, k;

	if (t->info.perfetto_profile == 1) {
		for (i = 0; i < pp->nseqs; i++) {
			af_pfp_seq *sq = &pp->seqs[i];
			if (sq->open) /* a trace cut inside a dump: what it holds */
				af_pfp_dump_end(pp, sq);
			most = AF_MAX(most, sq->dumps);
			busy += sq->dumps > 0;
			for (k = 0; k < sq->nkept; k++)
				pp->thr[sq->kept[k].thread].samples++;
		}
		if (pp->want_dump > most)
			return af_fail(err, AF_ERR_ARG, -1, "no heap dump %u in the trace (it "
			               "has %u%s)", pp->want_dump, most,
			               busy > 1 ? " on its busiest packet sequence" : "");
	} else {
		for (i = 0; i < pp->ncounts; i++)
			pp->thr[pp->counts[i].thread].samples++;
	}
	/* the frames left unnamed, once every symbol is read */
	AF_FORWARD(af_pfi_name_unnamed(&pp->in, err));
	AF_FORWARD(af_pfp_threads(pp, err));
	if (t->info.perfetto_profile == 1) {
		for (i = 0; i < pp->nseqs; i++)
			for (k = 0; k < pp->seqs[i].nkept; k++) {
				const af_pfp_hs *h = &pp->seqs[i].kept[k];
				AF_FORWARD(af_pfp_add(pp, t->threads[h->thread].root, h->stack,
				                      h->value, &sum, err));
			}
	} else {
		for (i = 0; i < pp->ncounts; i++)
			AF_FORWARD(af_pfp_add(pp, t->threads[pp->counts[i].thread].root,
			                      pp->counts[i].stack, pp->counts[i].n, &sum, err));
	}
	/* heap: the samples of the dump with a value; CPU: the samples */
	t->info.records = t->info.perfetto_profile == 1 ? t->info.lines : sum;
	{
		af_u64map pids = {0};
		for (i = 0; i < pp->nthr; i++) {
			uint32_t x;
			if (!pp->thr[i].samples || af_u64map_get(&pids, pp->thr[i].pid, &x))
				continue;
			if (af_u64map_put(pp->mem, &pids, pp->thr[i].pid, 0)) {
				af_u64map_free(pp->mem, &pids);
				return af_pfi_nomem(&pp->in, err);
			}
			t->info.processes++;
		}
		af_u64map_free(pp->mem, &pids);
	}
	return AF_OK;
}

static void af_pfp_free(af_pfp *pp)
{
	af_mem *mem = pp->mem;
	size_t i;

	for (i = 0; i < pp->nseqs; i++) {
		af_pfp_seq *sq = &pp->seqs[i];
		af_pfi_ids_free(mem, &sq->ids);
		af_free(mem, sq->cur);
		af_free(mem, sq->kept);
	}
	af_free(mem, pp->seqs);
	af_pfi_free(&pp->in);
	af_free(mem, pp->thr);
	af_free(mem, pp->counts);
	af_u64map_free(mem, &pp->thr_of);
	af_u64map_free(mem, &pp->count_of);
	af_u64map_free(mem, &pp->proc_name);
	af_u64map_free(mem, &pp->thread_name);
}

int af_pfprof_detect(af_trace *t, const uint8_t *buf, size_t len)
{
	af_pf_reader *r;
	const uint8_t *pkt;
	size_t n;
	long long off;
	int found = 0;

	if (!af_pf_detect(buf, len) || !(r = af_pf_reader_new(t->mem, buf, len)))
		return 0;
	while (!found && af_pf_reader_next(r, &pkt, &n, &off, NULL) == 1) {
		found = af_pb_field_offset(pkt, n, AF_PFP_PROFILE_PACKET, 0) >= 0 ||
		        af_pb_field_offset(pkt, n, AF_PFP_PERF_SAMPLE, 0) >= 0;
		af_trace_skim(t, buf + off, (size_t)off);
	}
	t->tick_block = UINT32_MAX; /* the parse starts over, and ticks at 0 */
	af_pf_reader_free(r);
	return found;
}

af_status af_trace_pfprof(af_trace *t, const uint8_t *buf, size_t len, af_error *err)
{
	af_pb_alloc alloc;
	af_pfp pp;
	af_pf_reader *r;
	af_status st = AF_OK;
	const uint8_t *pkt;
	size_t n;
	int got;

	memset(&pp, 0, sizeof pp);
	pp.t = t;
	pp.mem = t->mem;
	pp.in.t = t;
	pp.in.mem = t->mem;
	pp.in.dm.mem = t->mem;
	pp.want_dump = t->heap_dump;
	t->info.variant = AF_VARIANT_FOLDED;
	if (t->heap_view) {
		size_t i, nv = sizeof af_pfp_views / sizeof *af_pfp_views;
		for (i = 0; i < nv && strcmp(af_pfp_views[i].name, t->heap_view); i++)
			;
		if (i == nv)
			return af_fail(err, AF_ERR_ARG, -1, "no heap view \"%.64s\" (unreleased-size, "
			               "unreleased-count, total-size or total-count)", t->heap_view);
		pp.view = (int)i;
	}
	if (t->flamechart)
		return af_fail(err, AF_ERR_ARG, -1, "a Perfetto profile is drawn as a flame "
		               "graph, not as a flame chart (--flamechart)");
	/* node 0: the root of folded stacks, which this input has none of */
	if (af_ptree_root(&t->tree, AF_NONE) == AF_NONE)
		return af_trace_no_path(t, 0, err);
	af_pb_alloc_init(&alloc, t->mem);
	r = af_pf_reader_new(t->mem, buf, len);
	if (!r)
		return af_fail(err, AF_ERR_NOMEM, 0, "out of memory");
	while ((got = af_pf_reader_next(r, &pkt, &n, &pp.in.off, err)) == 1) {
		af_trace_progress(t, buf + pp.in.off, (size_t)pp.in.off, len);
		if ((st = af_pfp_packet_read(&pp, &alloc, pkt, n, err)) != AF_OK)
			goto out;
	}
	if (got < 0) {
		st = (af_status)-got;
		goto out;
	}
	t->info.perfetto_profile = pp.heap_packets ? 1 : 2;
	t->info.sample_type = pp.heap_packets ? af_pfp_views[pp.view].name : "cpu-samples";
	t->info.sample_unit = pp.heap_packets ? af_pfp_views[pp.view].unit : "count";
	t->info.has_clock[AF_CLOCK_WALL] = 1;
	st = af_pfp_build(&pp, err);
out:
	af_pf_reader_free(r);
	af_pfp_free(&pp);
	return st;
}
