/*
 * perfetto.c - the slices of a Perfetto trace (perfetto.h).  The packets
 * are read one at a time (pftrace.h frames them, protobuf-c decodes each
 * from src/perfetto.proto), keeping the names of threads and processes,
 * the tracks, and each sequence's interned names and defaults; each begin
 * and end becomes a small record in the queue of its source: its packet
 * sequence (TrackEvent), or its CPU (ftrace bundles).  Each source writes
 * in time order, while Perfetto writes the packets of different sources in
 * the order of its buffers' chunks, not of time: the queues are merged in
 * time order (their order in the file breaking ties) into slices.h as soon
 * as no earlier event can still come, that is up to the oldest of the
 * latest times of the sources still writing (a source whose queue is empty
 * and which wrote nothing over the last AF_PF_WINDOW events no longer
 * holds the others back).  Memory is that of the call paths and of the
 * events of that interleaving window, not of the trace: past 2 *
 * AF_PF_WINDOW events waiting, the oldest are fed regardless (an event that
 * then comes later than its thread's last is counted as time going back,
 * as slices.h does).  A trace that never needs that gives the same order
 * as sorting all its events by time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"
#include "perfetto.h"
#include "perfetto.pb-c.h"
#include "pfclock.h"
#include "pftrace.h"
#include "slices.h"

typedef Aflame__Pftrace__TracePacket af_pf_packet;
typedef Aflame__Pftrace__TrackEvent af_pf_tevent;

#define AF_PF "Perfetto trace"


/* Pseudo-threads of tracks with no thread: tids no kernel gives. */
#define AF_PF_PSEUDO_TID 0x80000000u

/* A packet sequence's incremental state. */
typedef struct af_pf_seq {
	int valid;            /* cleared once and not lost since */
	af_u64map names;      /* event name iid -> name in `pool` */
	int has_track;        /* TrackEventDefaults.track_uuid */
	uint64_t track;
	uint32_t clock;       /* TracePacketDefaults.timestamp_clock_id */
	uint32_t td_tid, td_pid; /* its ThreadDescriptor (td_tid 0: none) */
	af_pf_clock *clocks;  /* ids 64-127; NULL until a snapshot has one */
} af_pf_seq;

/* A TrackDescriptor. */
typedef struct af_pf_track {
	uint64_t uuid, parent;
	int has_parent;
	uint32_t name;        /* in `pool`, AF_NONE: none */
	uint32_t tid, pid;    /* tid 0: not a thread's track; pid 0: unknown */
	uint32_t pseudo;      /* its pseudo-thread's tid, 0 until needed */
} af_pf_track;

enum { AF_PF_BEGIN, AF_PF_END };

/* A begin or end, until it is fed. */
typedef struct af_pf_ev {
	uint64_t ts;
	uint64_t track;       /* on_track: the track's uuid */
	long long off;
	uint32_t order;       /* its place in the file */
	uint32_t name;        /* begin: in `pool` */
	uint32_t tid, pid;    /* not on_track: the thread */
	uint8_t kind, on_track;
} af_pf_ev;

/* Events waiting in the queues: past this many, those no earlier event
 * can precede are fed; past twice as many, the oldest are fed anyway. */
#ifndef AF_PF_WINDOW
#define AF_PF_WINDOW ((size_t)1 << 18)
#endif

/* A source of events in time order: a packet sequence's track events, or
 * a CPU's ftrace events.  Its queue, q[head, len), is in time order. */
typedef struct af_pf_src {
	af_pf_ev *q;
	size_t head, len, cap;
	uint64_t latest;      /* the latest time it gave */
	uint32_t last;        /* the `order` of its last event */
} af_pf_src;

/* Sources' keys: a sequence's id, or this plus a CPU's number. */
#define AF_PF_CPU_SRC ((uint64_t)1 << 32)

typedef struct af_pf {
	af_trace *t;
	af_slices *s;
	const uint8_t *buf;
	size_t len;
	af_names pool;        /* slice and track names */
	af_u32map seq_of;     /* trusted_packet_sequence_id -> index in seqs */
	af_pf_seq *seqs;
	size_t nseqs, seqs_cap;
	af_u64map track_of;   /* uuid -> index in tracks */
	af_pf_track *tracks;
	size_t ntracks, tracks_cap;
	af_u64map src_of;     /* source key -> index in srcs */
	af_pf_src *srcs;
	size_t nsrcs, srcs_cap;
	uint32_t *heap;       /* sources with events waiting, while merging */
	size_t heap_cap;
	size_t nevs;          /* events so far (the next one's `order`) */
	size_t waiting;       /* events in the queues */
	size_t next_drain;    /* when to merge them again */
	uint32_t npseudo;
	af_pf_clocks clocks;  /* the trace's clock, the builtin ones' offsets */
} af_pf;

static af_status af_pf_nomem(long long off, af_error *err)
{
	return af_fail(err, AF_ERR_NOMEM, off, "out of memory");
}

/* The state of sequence `id`, made when new. */
static af_status af_pf_seq_for(af_pf *pf, uint32_t id, long long off, af_pf_seq **out,
                               af_error *err)
{
	uint32_t k;

	if (id == UINT32_MAX)
		return af_fail(err, AF_ERR_FORMAT, off, AF_PF ": packet sequence id "
		               "4294967295 is out of range");
	if (!af_u32map_get(&pf->seq_of, id, &k)) {
		if (AF_GROW(pf->t->mem, pf->seqs, pf->seqs_cap, pf->nseqs + 1) ||
		    af_u32map_put(&pf->seq_of, id, (uint32_t)pf->nseqs))
			return af_pf_nomem(off, err);
		k = (uint32_t)pf->nseqs++;
		memset(&pf->seqs[k], 0, sizeof pf->seqs[k]);
	}
	*out = &pf->seqs[k];
	return AF_OK;
}

/* Interns `s` (NUL-terminated) in the pool, within the name limit. */
static af_status af_pf_intern(af_pf *pf, const char *s, size_t n, long long off,
                              const char *what, uint32_t *id, af_error *err)
{
	if (n > pf->t->limits.max_name_len)
		return af_fail(err, AF_ERR_LIMIT, off, AF_PF ": %s longer than %u bytes",
		               what, pf->t->limits.max_name_len);
	*id = af_names_intern(&pf->pool, s, n);
	return *id == AF_NONE ? af_pf_nomem(off, err) : AF_OK;
}

/* Queues event `ev` of source `key`, in time order within it (a source
 * that steps back has the event put in its place).  `ahead`: the end of a
 * complete slice, whose time is not one the source has reached. */
static af_status af_pf_add(af_pf *pf, uint64_t key, const af_pf_ev *ev, int ahead,
                           af_error *err)
{
	af_pf_src *src;
	uint32_t k;
	size_t i;

	if (pf->nevs >= UINT32_MAX - 1)
		return af_fail(err, AF_ERR_LIMIT, ev->off, AF_PF ": more than %u slice events",
		               UINT32_MAX - 2);
	if (!af_u64map_get(&pf->src_of, key, &k)) {
		if (pf->nsrcs >= UINT32_MAX - 1 ||
		    AF_GROW(pf->t->mem, pf->srcs, pf->srcs_cap, pf->nsrcs + 1) ||
		    af_u64map_put(pf->t->mem, &pf->src_of, key, (uint32_t)pf->nsrcs))
			return af_pf_nomem(ev->off, err);
		k = (uint32_t)pf->nsrcs++;
		memset(&pf->srcs[k], 0, sizeof pf->srcs[k]);
	}
	src = &pf->srcs[k];
	if (src->head && src->len == src->cap) {
		/* room at the front, from events fed: moved back */
		memmove(src->q, src->q + src->head, (src->len - src->head) * sizeof *src->q);
		src->len -= src->head;
		src->head = 0;
	}
	if (AF_GROW(pf->t->mem, src->q, src->cap, src->len + 1))
		return af_pf_nomem(ev->off, err);
	for (i = src->len; i > src->head && src->q[i - 1].ts > ev->ts; i--)
		;
	if (i < src->len)
		memmove(src->q + i + 1, src->q + i, (src->len - i) * sizeof *src->q);
	src->q[i] = *ev;
	src->q[i].order = (uint32_t)pf->nevs;
	src->len++;
	if (!ahead && ev->ts > src->latest)
		src->latest = ev->ts;
	src->last = (uint32_t)pf->nevs++;
	pf->waiting++;
	return AF_OK;
}

/* A positive pid or tid of a descriptor, 0 for none. */
static uint32_t af_pf_id(int has, int32_t v)
{
	return has && v > 0 ? (uint32_t)v : 0;
}

/* One ftrace print event: an atrace mark (systrace.c reads the same marks
 * from text).  The kernel keeps the writer's line end: it is not part of
 * the name. */
static af_status af_pf_print(af_pf *pf, const char *m, uint64_t ts, uint32_t tid,
                             uint32_t cpu, long long off, af_error *err)
{
	af_trace *t = pf->t;
	size_t n = strlen(m);
	af_pf_ev ev = {.ts = ts, .off = off, .tid = tid};
	af_mark mk;

	while (n && (m[n - 1] == '\n' || m[n - 1] == '\r'))
		n--;
	switch (af_mark_parse(t, m, n, &mk)) {
	case AF_MARK_BEGIN:
		ev.kind = AF_PF_BEGIN;
		ev.pid = mk.pid;
		AF_FORWARD(af_pf_intern(pf, mk.name, mk.name_len, off, "slice name", &ev.name,
		                        err));
		return af_pf_add(pf, AF_PF_CPU_SRC + cpu, &ev, 0, err);
	case AF_MARK_END:
		ev.kind = AF_PF_END;
		return af_pf_add(pf, AF_PF_CPU_SRC + cpu, &ev, 0, err);
	case AF_MARK_BAD_PID:
		return af_fail(err, AF_ERR_FORMAT, off, AF_PF ": a begin mark whose pid is "
		               "not a number: \"%.*s\"",
		               (int)(mk.pid_len > 40 ? 40 : mk.pid_len), m + mk.pid_at);
	default:
		return AF_OK;
	}
}

static af_status af_pf_ftrace(af_pf *pf, const Aflame__Pftrace__FtraceEventBundle *b,
                              long long off, af_error *err)
{
	size_t i;

	for (i = 0; i < b->n_event; i++) {
		const Aflame__Pftrace__FtraceEvent *e = b->event[i];
		if (!e->print || !e->print->buf)
			continue;
		if (!e->has_timestamp)
			return af_fail(err, AF_ERR_RECORD, off, AF_PF ": an ftrace print event "
			               "(event %zu of the cpu %u bundle) without a timestamp",
			               i + 1, b->cpu);
		AF_FORWARD(af_pf_print(pf, e->print->buf, e->timestamp, e->pid, b->cpu, off,
		                       err));
	}
	return AF_OK;
}

/* The name of a process from its command line: its first word. */
static af_status af_pf_process(af_pf *pf, uint32_t pid, const char *name, long long off,
                               af_error *err)
{
	if (!pid || !name)
		return AF_OK;
	return af_slices_process(pf->s, pid, name, strlen(name), off, err);
}

static af_status af_pf_tree(af_pf *pf, const Aflame__Pfcommon__ProcessTree *pt, long long off,
                            af_error *err)
{
	size_t i;

	for (i = 0; i < pt->n_processes; i++) {
		const Aflame__Pfcommon__ProcessTree__Process *p = pt->processes[i];
		uint32_t pid = af_pf_id(p->has_pid, p->pid);
		if (!p->n_cmdline || !pid)
			continue;
		AF_FORWARD(af_pf_process(pf, pid, p->cmdline[0], off, err));
		/* its main thread is not among the tree's threads */
		AF_FORWARD(af_slices_thread(pf->s, pid, pid, p->cmdline[0],
		                            strlen(p->cmdline[0]), off, err));
	}
	for (i = 0; i < pt->n_threads; i++) {
		const Aflame__Pfcommon__ProcessTree__Thread *th = pt->threads[i];
		uint32_t tid = af_pf_id(th->has_tid, th->tid);
		if (tid)
			AF_FORWARD(af_slices_thread(pf->s, tid, af_pf_id(th->has_tgid, th->tgid),
			                            th->name, th->name ? strlen(th->name) : 0, off,
			                            err));
	}
	return AF_OK;
}

static af_status af_pf_pdesc(af_pf *pf, const Aflame__Pfcommon__ProcessDescriptor *d,
                             long long off, af_error *err)
{
	uint32_t pid = af_pf_id(d->has_pid, d->pid);

	return af_pf_process(pf, pid, d->process_name ? d->process_name
	                              : d->n_cmdline ? d->cmdline[0] : NULL, off, err);
}

static af_status af_pf_tdesc(af_pf *pf, const Aflame__Pfcommon__ThreadDescriptor *d,
                             long long off, af_error *err)
{
	uint32_t tid = af_pf_id(d->has_tid, d->tid);

	if (!tid)
		return AF_OK;
	return af_slices_thread(pf->s, tid, af_pf_id(d->has_pid, d->pid), d->thread_name,
	                        d->thread_name ? strlen(d->thread_name) : 0, off, err);
}

/* A TrackDescriptor: kept (the first one of a uuid, completed by those
 * emitted again after a loss of state), and its thread and process named. */
static af_status af_pf_track_desc(af_pf *pf, const Aflame__Pfcommon__TrackDescriptor *d,
                                  long long off, af_error *err)
{
	af_pf_track *tr;
	uint32_t k;

	if (d->process)
		AF_FORWARD(af_pf_pdesc(pf, d->process, off, err));
	if (d->thread)
		AF_FORWARD(af_pf_tdesc(pf, d->thread, off, err));
	if (!d->has_uuid)
		return AF_OK;
	if (!af_u64map_get(&pf->track_of, d->uuid, &k)) {
		if (pf->ntracks >= UINT32_MAX - 1 ||
		    AF_GROW(pf->t->mem, pf->tracks, pf->tracks_cap, pf->ntracks + 1) ||
		    af_u64map_put(pf->t->mem, &pf->track_of, d->uuid, (uint32_t)pf->ntracks))
			return af_pf_nomem(off, err);
		k = (uint32_t)pf->ntracks++;
		tr = &pf->tracks[k];
		memset(tr, 0, sizeof *tr);
		tr->uuid = d->uuid;
		tr->name = AF_NONE;
	}
	tr = &pf->tracks[k];
	if (d->has_parent_uuid && !tr->has_parent) {
		tr->has_parent = 1;
		tr->parent = d->parent_uuid;
	}
	if (d->name && tr->name == AF_NONE)
		AF_FORWARD(af_pf_intern(pf, d->name, strlen(d->name), off, "track name",
		                        &tr->name, err));
	if (d->thread && !tr->tid) {
		tr->tid = af_pf_id(d->thread->has_tid, d->thread->tid);
		tr->pid = af_pf_id(d->thread->has_pid, d->thread->pid);
	}
	if (d->process && !tr->pid)
		tr->pid = af_pf_id(d->process->has_pid, d->process->pid);
	return AF_OK;
}

static af_status af_pf_interned(af_pf *pf, af_pf_seq *sq,
                                const Aflame__Pftrace__InternedData *d, long long off,
                                af_error *err)
{
	size_t i;

	for (i = 0; i < d->n_event_names; i++) {
		const Aflame__Pftrace__EventName *en = d->event_names[i];
		const char *name = en->name ? en->name : "";
		uint32_t id;
		AF_FORWARD(af_pf_intern(pf, name, strlen(name), off, "event name", &id, err));
		if (af_u64map_put(pf->t->mem, &sq->names, en->iid, id))
			return af_pf_nomem(off, err);
	}
	return AF_OK;
}

/* The time of packet `p` of sequence `sq` (`seq` its id), in ns of the
 * trace's clock (pfclock.h). */
static af_status af_pf_time(af_pf *pf, const af_pf_packet *p, af_pf_seq *sq, uint32_t seq,
                            long long off, uint64_t *ts, af_error *err)
{
	uint32_t clock = p->has_timestamp_clock_id ? p->timestamp_clock_id : sq->clock;

	(void)pf;
	return af_pfclock_time(sq->clocks, clock, p->timestamp, seq, off, ts, err);
}

/* What a legacy event's phase (the JSON trace format's letter) is:
 * AF_PF_BEGIN, AF_PF_END, AF_PF_COMPLETE, or -1 when it is counted and
 * ignored (instants, counters, async and flow events). */
#define AF_PF_COMPLETE 2
static int af_pf_legacy_kind(af_trace *t, int32_t phase)
{
	switch (phase) {
	case 'B':
		return AF_PF_BEGIN;
	case 'E':
		return AF_PF_END;
	case 'X':
		return AF_PF_COMPLETE;
	case 'C':
		t->info.counters_ignored++;
		return -1;
	case 'b': case 'e': case 'n': case 'S': case 'T': case 'p': case 'F':
	case 's': case 't': case 'f':
		t->info.async_ignored++;
		return -1;
	default:
		t->info.marks_ignored++; /* instants ('I', 'i', 'R'), metadata... */
		return -1;
	}
}

/* A TrackEvent of packet `p` on sequence `sq` (`seq` its id): a slice's
 * begin or end, or a complete slice (the legacy form's phase 'X', with its
 * duration), which becomes both. */
static af_status af_pf_track_event(af_pf *pf, const af_pf_packet *p, af_pf_seq *sq,
                                   uint32_t seq, long long off, af_error *err)
{
	const af_pf_tevent *e = p->track_event;
	const Aflame__Pftrace__TrackEvent__LegacyEvent *lg = e->legacy_event;
	af_trace *t = pf->t;
	af_pf_ev ev = {.off = off};
	uint64_t dur = 0;
	int kind;

	switch (e->has_type ? e->type : 0) {
	case AFLAME__PFTRACE__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN:
		kind = AF_PF_BEGIN;
		break;
	case AFLAME__PFTRACE__TRACK_EVENT__TYPE__TYPE_SLICE_END:
		kind = AF_PF_END;
		break;
	case AFLAME__PFTRACE__TRACK_EVENT__TYPE__TYPE_COUNTER:
		t->info.counters_ignored++;
		return AF_OK;
	case AFLAME__PFTRACE__TRACK_EVENT__TYPE__TYPE_UNSPECIFIED:
		if (lg && lg->has_phase) {
			kind = af_pf_legacy_kind(t, lg->phase);
			if (kind < 0)
				return AF_OK;
			break;
		}
		/* fall through */
	default:
		t->info.marks_ignored++; /* instants */
		return AF_OK;
	}
	if ((p->has_sequence_flags &&
	     (p->sequence_flags & AFLAME__PFTRACE__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE)) &&
	    !sq->valid) {
		/* the state it needs was lost (the ring buffer wrapped, or
		 * packets were dropped): Perfetto skips such packets too */
		t->info.events_no_state++;
		return AF_OK;
	}
	if (!p->has_timestamp)
		return af_fail(err, AF_ERR_RECORD, off, AF_PF ": a track event without a "
		               "timestamp");
	AF_FORWARD(af_pf_time(pf, p, sq, seq, off, &ev.ts, err));
	if (kind == AF_PF_COMPLETE) {
		if (!lg->has_duration_us || lg->duration_us < 0)
			return af_fail(err, AF_ERR_RECORD, off, AF_PF ": a complete event "
			               "(legacy phase 'X') without a duration");
		if ((uint64_t)lg->duration_us > (UINT64_MAX - ev.ts) / 1000)
			return af_fail(err, AF_ERR_RECORD, off, AF_PF ": a complete event "
			               "(legacy phase 'X') ends past the clock's range");
		dur = (uint64_t)lg->duration_us * 1000;
	}
	ev.kind = kind == AF_PF_END ? AF_PF_END : AF_PF_BEGIN;
	if (ev.kind == AF_PF_BEGIN) {
		if (e->name) {
			AF_FORWARD(af_pf_intern(pf, e->name, strlen(e->name), off, "slice name",
			                        &ev.name, err));
		} else if (e->has_name_iid || (lg && lg->has_name_iid)) {
			uint64_t iid = e->has_name_iid ? e->name_iid : lg->name_iid;
			if (!af_u64map_get(&sq->names, iid, &ev.name))
				return af_fail(err, AF_ERR_RECORD, off, AF_PF ": a track event "
				               "names interned event name %llu, which packet "
				               "sequence %u has not defined",
				               (unsigned long long)iid, seq);
		} else {
			AF_FORWARD(af_pf_intern(pf, "(unnamed)", 9, off, "slice name", &ev.name,
			                        err));
		}
	}
	if (lg && lg->has_tid_override && lg->tid_override > 0) {
		/* written on behalf of another thread */
		ev.tid = (uint32_t)lg->tid_override;
		ev.pid = lg->has_pid_override ? af_pf_id(1, lg->pid_override) : sq->td_pid;
	} else if (e->has_track_uuid || sq->has_track) {
		ev.on_track = 1;
		ev.track = e->has_track_uuid ? e->track_uuid : sq->track;
	} else if (sq->td_tid) {
		ev.tid = sq->td_tid; /* the sequence's thread (older writers) */
		ev.pid = sq->td_pid;
	} else {
		ev.on_track = 1; /* the trace's global track, uuid 0 */
		ev.track = 0;
	}
	AF_FORWARD(af_pf_add(pf, seq, &ev, 0, err));
	if (kind != AF_PF_COMPLETE)
		return AF_OK;
	/* its end: queued now, fed in its time's place */
	ev.kind = AF_PF_END;
	ev.ts += dur;
	return af_pf_add(pf, seq, &ev, 1, err);
}

/* The offset to report for a fault `at` bytes into a packet at `off`: a
 * packet of a compressed batch has no bytes of the file of its own. */
static af_status af_pf_bad_packet(af_pf *pf, const uint8_t *pkt, size_t n, long long off,
                                  int inflated, af_error *err)
{
	af_status st;

	if (inflated) {
		st = af_pb_check(&aflame__pftrace__trace_packet__descriptor, pkt, n, 0,
		                 AF_PF " packet", err);
		if (st != AF_OK && err) {
			char tmp[sizeof err->message];
			const char *m = err->message;
			if (strncmp(m, AF_PF " packet: ", sizeof AF_PF + 8) == 0)
				m += sizeof AF_PF + 8;
			snprintf(tmp, sizeof tmp, AF_PF ": a packet of the compressed packets "
			         "here, at its byte %lld once inflated: %.160s", err->offset, m);
			memcpy(err->message, tmp, sizeof tmp);
			err->offset = off;
		}
	} else {
		/* the packet's bytes begin after its tag and length */
		st = af_pb_check(&aflame__pftrace__trace_packet__descriptor, pkt, n,
		                 (long long)(pkt - pf->buf), AF_PF " packet", err);
	}
	return st != AF_OK ? st : af_fail(err, AF_ERR_FORMAT, off, AF_PF ": protobuf-c "
	                                  "cannot decode the packet");
}

int af_perfetto_detect(const uint8_t *buf, size_t len)
{
	size_t i, n = len < 4096 ? len : 4096;
	int r = af_pf_detect(buf, len);

	if (!r)
		return 0;
	for (i = 0; i < n; i++)
		if ((buf[i] < 0x20 && (buf[i] < 0x09 || buf[i] > 0x0D)) || buf[i] == 0x7F)
			return r;
	return 0;
}

/* One packet. */
static af_status af_pf_packet_read(af_pf *pf, const af_pf_packet *p, long long off,
                                   af_error *err)
{
	uint32_t seq = p->has_trusted_packet_sequence_id ? p->trusted_packet_sequence_id : 0;
	af_pf_seq *sq = NULL;

	AF_FORWARD(af_pf_seq_for(pf, seq, off, &sq, err));
	if ((p->has_incremental_state_cleared && p->incremental_state_cleared) ||
	    (p->has_sequence_flags &&
	     (p->sequence_flags & AFLAME__PFTRACE__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED))) {
		af_u64map_clear(&sq->names);
		sq->has_track = 0;
		sq->clock = 0;
		sq->td_tid = sq->td_pid = 0;
		sq->valid = 1;
	}
	if (p->trace_packet_defaults) {
		const Aflame__Pftrace__TracePacketDefaults *d = p->trace_packet_defaults;
		if (d->has_timestamp_clock_id)
			sq->clock = d->timestamp_clock_id;
		if (d->track_event_defaults && d->track_event_defaults->has_track_uuid) {
			sq->has_track = 1;
			sq->track = d->track_event_defaults->track_uuid;
		}
	}
	if (p->clock_snapshot)
		AF_FORWARD(af_pfclock_snapshot(pf->t->mem, &pf->clocks, &sq->clocks,
		                               p->clock_snapshot, off, err));
	if (p->has_timestamp)
		af_pfclock_tick(sq->clocks, p->has_timestamp_clock_id ? p->timestamp_clock_id
		                                                      : sq->clock, p->timestamp);
	if (p->interned_data)
		AF_FORWARD(af_pf_interned(pf, sq, p->interned_data, off, err));
	if (p->process_tree)
		AF_FORWARD(af_pf_tree(pf, p->process_tree, off, err));
	if (p->process_descriptor)
		AF_FORWARD(af_pf_pdesc(pf, p->process_descriptor, off, err));
	if (p->thread_descriptor) {
		const Aflame__Pfcommon__ThreadDescriptor *d = p->thread_descriptor;
		AF_FORWARD(af_pf_tdesc(pf, d, off, err));
		sq->td_tid = af_pf_id(d->has_tid, d->tid);
		sq->td_pid = af_pf_id(d->has_pid, d->pid);
	}
	if (p->track_descriptor)
		AF_FORWARD(af_pf_track_desc(pf, p->track_descriptor, off, err));
	if (p->ftrace_events)
		AF_FORWARD(af_pf_ftrace(pf, p->ftrace_events, off, err));
	if (p->track_event)
		AF_FORWARD(af_pf_track_event(pf, p, sq, seq, off, err));
	return AF_OK;
}

static int af_pf_ev_cmp(const void *a, const void *b)
{
	const af_pf_ev *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The thread of the slices of track `uuid`: its thread's, or a
 * pseudo-thread of its own named after it (its process the nearest
 * ancestor's that has one). */
static af_status af_pf_track_thread(af_pf *pf, uint64_t uuid, long long off,
                                    uint32_t *tid, uint32_t *pid, af_error *err)
{
	af_pf_track *tr;
	uint32_t k, hops;
	char tmp[48];
	const char *name;
	size_t n;

	if (!af_u64map_get(&pf->track_of, uuid, &k)) {
		/* described nowhere: a track of its own all the same */
		af_pf_track nt = {.uuid = uuid, .name = AF_NONE};
		if (pf->ntracks >= UINT32_MAX - 1 ||
		    AF_GROW(pf->t->mem, pf->tracks, pf->tracks_cap, pf->ntracks + 1) ||
		    af_u64map_put(pf->t->mem, &pf->track_of, uuid, (uint32_t)pf->ntracks))
			return af_pf_nomem(off, err);
		k = (uint32_t)pf->ntracks++;
		pf->tracks[k] = nt;
	}
	tr = &pf->tracks[k];
	if (tr->tid) {
		*tid = tr->tid;
		*pid = tr->pid;
		return AF_OK;
	}
	if (tr->pseudo) {
		*tid = tr->pseudo;
		*pid = tr->pid;
		return AF_OK;
	}
	if (pf->npseudo >= UINT32_MAX - AF_PF_PSEUDO_TID - 1)
		return af_fail(err, AF_ERR_LIMIT, off, AF_PF ": more than %u tracks without "
		               "a thread", UINT32_MAX - AF_PF_PSEUDO_TID - 1);
	tr->pseudo = AF_PF_PSEUDO_TID + pf->npseudo++;
	{
		/* its process: the nearest ancestor's (a bounded walk: parents
		 * may loop in a damaged trace) */
		const af_pf_track *a = tr;
		for (hops = 0; !tr->pid && a->has_parent && hops < 64; hops++) {
			uint32_t pk;
			if (!af_u64map_get(&pf->track_of, a->parent, &pk))
				break;
			a = &pf->tracks[pk];
			tr->pid = a->pid;
		}
	}
	if (tr->name != AF_NONE) {
		name = pf->pool.str[tr->name];
		n = strlen(name);
	} else {
		int m = snprintf(tmp, sizeof tmp, uuid ? "track %llu" : "global track",
		                 (unsigned long long)uuid);
		name = tmp;
		n = (size_t)m;
	}
	AF_FORWARD(af_slices_thread(pf->s, tr->pseudo, tr->pid, name, n, off, err));
	*tid = tr->pseudo;
	*pid = tr->pid;
	return AF_OK;
}

/* One event into the slices. */
static af_status af_pf_feed(af_pf *pf, const af_pf_ev *ev, af_error *err)
{
	uint32_t tid = ev->tid, pid = ev->pid;

	if (ev->on_track)
		AF_FORWARD(af_pf_track_thread(pf, ev->track, ev->off, &tid, &pid, err));
	if (tid == UINT32_MAX)
		return af_fail(err, AF_ERR_FORMAT, ev->off, AF_PF ": thread id "
		               "4294967295 is out of range");
	if (ev->kind == AF_PF_BEGIN) {
		const char *name = pf->pool.str[ev->name];
		return af_slices_begin(pf->s, tid, pid, ev->ts, name, strlen(name), ev->off,
		                       err);
	}
	return af_slices_end(pf->s, tid, ev->ts, ev->off, err);
}

/* Whether source a's next event comes before source b's. */
static int af_pf_before(const af_pf *pf, uint32_t a, uint32_t b)
{
	const af_pf_src *x = &pf->srcs[a], *y = &pf->srcs[b];

	return af_pf_ev_cmp(&x->q[x->head], &y->q[y->head]) < 0;
}

static void af_pf_sift_down(af_pf *pf, size_t n, size_t i)
{
	uint32_t *h = pf->heap;

	for (;;) {
		size_t l = 2 * i + 1, m = i;
		uint32_t tmp;
		if (l < n && af_pf_before(pf, h[l], h[m]))
			m = l;
		if (l + 1 < n && af_pf_before(pf, h[l + 1], h[m]))
			m = l + 1;
		if (m == i)
			return;
		tmp = h[i];
		h[i] = h[m];
		h[m] = tmp;
		i = m;
	}
}

/* Feeds the waiting events in time order: all of them when `all`, else
 * those no earlier event can still precede, and then, while more than
 * twice AF_PF_WINDOW wait, the oldest down to AF_PF_WINDOW.  A
 * merge that feeds nothing is not tried again before a quarter of a window
 * more has come. */
static af_status af_pf_drain(af_pf *pf, int all, af_error *err)
{
	uint64_t upto = UINT64_MAX;
	size_t i, n = 0;
	af_status st = AF_OK;
	int forced = 0;

	if (!all)
		for (i = 0; i < pf->nsrcs; i++) {
			const af_pf_src *src = &pf->srcs[i];
			if ((src->head < src->len || pf->nevs - src->last <= AF_PF_WINDOW) &&
			    src->latest < upto)
				upto = src->latest;
		}
	if (AF_GROW(pf->t->mem, pf->heap, pf->heap_cap, pf->nsrcs + 1))
		return af_pf_nomem(0, err);
	for (i = 0; i < pf->nsrcs; i++)
		if (pf->srcs[i].head < pf->srcs[i].len)
			pf->heap[n++] = (uint32_t)i;
	for (i = n / 2; i-- > 0;)
		af_pf_sift_down(pf, n, i);
	while (n) {
		af_pf_src *src = &pf->srcs[pf->heap[0]];
		const af_pf_ev *ev = &src->q[src->head];
		if (!all && !forced && ev->ts > upto) {
			if (pf->waiting <= 2 * AF_PF_WINDOW)
				break;
			forced = 1; /* past the bound: the oldest, down to the window */
		}
		if (forced && pf->waiting <= AF_PF_WINDOW)
			break;
		st = af_pf_feed(pf, ev, err);
		if (st != AF_OK)
			break;
		pf->waiting--;
		if (++src->head == src->len) {
			src->head = src->len = 0;
			pf->heap[0] = pf->heap[--n];
		}
		af_pf_sift_down(pf, n, 0);
	}
	/* not again before a quarter of a window more has come */
	pf->next_drain = pf->waiting + AF_PF_WINDOW / 4;
	return st;
}

static af_status af_pf_read(af_pf *pf, af_error *err)
{
	af_trace *t = pf->t;
	af_pb_alloc alloc;
	af_pf_reader *r;
	const uint8_t *pkt;
	size_t n;
	long long off;
	af_status st = AF_OK;
	int got;

	af_pb_arena_init(&alloc, t->mem); /* emptied after each packet */
	r = af_pf_reader_new(t->mem, pf->buf, pf->len);
	if (!r)
		return af_pf_nomem(0, err);
	while ((got = af_pf_reader_next(r, &pkt, &n, &off, err)) == 1) {
		int inflated = !((uintptr_t)pkt >= (uintptr_t)pf->buf &&
		                  (uintptr_t)pkt <= (uintptr_t)pf->buf + pf->len);
		af_pf_packet *p = aflame__pftrace__trace_packet__unpack(&alloc.pc, n, pkt);
		af_trace_progress(t, pf->buf + off, (size_t)off, pf->len);
		if (!p) {
			st = alloc.failed ? af_fail(err, AF_ERR_NOMEM, off, "out of memory "
			                            "decoding a " AF_PF " packet")
			                  : af_pf_bad_packet(pf, pkt, n, off, inflated, err);
			break;
		}
		t->info.lines++;
		st = af_pf_packet_read(pf, p, off, err);
		aflame__pftrace__trace_packet__free_unpacked(p, &alloc.pc);
		af_pb_arena_reset(&alloc);
		if (st == AF_OK && pf->waiting > AF_PF_WINDOW && pf->waiting >= pf->next_drain)
			st = af_pf_drain(pf, 0, err);
		if (st != AF_OK)
			break;
	}
	if (got < 0)
		st = (af_status)-got;
	af_pb_alloc_release(&alloc);
	af_pf_reader_free(r);
	return st;
}

af_status af_trace_perfetto(af_trace *t, const uint8_t *buf, size_t len, af_error *err)
{
	af_pf pf = {.t = t, .buf = buf, .len = len};
	af_status st;
	size_t i;

	t->info.variant = AF_VARIANT_PERFETTO;
	pf.pool.mem = t->mem;
	af_pfclock_init(&pf.clocks);
	pf.seq_of.mem = t->mem;
	pf.s = af_slices_new(t);
	if (!pf.s)
		return af_pf_nomem(0, err);
	st = af_pf_read(&pf, err);
	if (st == AF_OK)
		st = af_pf_drain(&pf, 1, err);
	if (st == AF_OK)
		st = af_slices_finish(pf.s, err);
	af_slices_free(pf.s);
	for (i = 0; i < pf.nseqs; i++) {
		af_u64map_free(t->mem, &pf.seqs[i].names);
		af_free(t->mem, pf.seqs[i].clocks);
	}
	af_free(t->mem, pf.seqs);
	af_u32map_free(&pf.seq_of);
	af_u64map_free(t->mem, &pf.track_of);
	af_free(t->mem, pf.tracks);
	for (i = 0; i < pf.nsrcs; i++)
		af_free(t->mem, pf.srcs[i].q);
	af_free(t->mem, pf.srcs);
	af_u64map_free(t->mem, &pf.src_of);
	af_free(t->mem, pf.heap);
	af_names_free(&pf.pool);
	return st;
}
