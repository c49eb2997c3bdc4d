/*
 * test_perfetto.c - Perfetto traces read as slices (src/perfetto.c): traces
 * written here field by field (a small protobuf writer below, independent
 * of protobuf-c) with hand-worked graphs; --thread and --process; lost and
 * missing interned state; bad input; and the real traces of
 * ../shared/inputs/perfetto against an independent walk of their bytes
 * (skipped without them), the nowinandroid one also against the systrace
 * path given the same marks as ftrace text.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "support.h"

/* ------------------------------------------------------------------ */
/* A protobuf writer: just the wire format                              */

typedef struct pb {
	uint8_t *b;
	size_t len, cap;
} pb;

static void pb_put(pb *p, const void *d, size_t n)
{
	if (p->len + n > p->cap) {
		p->cap = (p->len + n) * 2 + 64;
		p->b = realloc(p->b, p->cap);
		cr_assert_not_null(p->b);
	}
	memcpy(p->b + p->len, d, n);
	p->len += n;
}

static void pb_varint(pb *p, uint64_t v)
{
	uint8_t c;

	do {
		c = (uint8_t)(v & 0x7F);
		v >>= 7;
		if (v)
			c |= 0x80;
		pb_put(p, &c, 1);
	} while (v);
}

static void pb_uint(pb *p, unsigned num, uint64_t v)
{
	pb_varint(p, (uint64_t)num << 3);
	pb_varint(p, v);
}

static void pb_bytes(pb *p, unsigned num, const void *d, size_t n)
{
	pb_varint(p, (uint64_t)num << 3 | 2);
	pb_varint(p, n);
	pb_put(p, d, n);
}

static void pb_str(pb *p, unsigned num, const char *s)
{
	pb_bytes(p, num, s, strlen(s));
}

/* Appends `child` as field `num` and frees it. */
static void pb_msg(pb *p, unsigned num, pb *child)
{
	pb_bytes(p, num, child->b, child->len);
	free(child->b);
	memset(child, 0, sizeof *child);
}

/* Field numbers of Perfetto's protos (protos/perfetto/trace/). */
enum {
	TRACE_PACKET = 1,
	P_FTRACE = 1, P_PROCESS_TREE = 2, P_TIMESTAMP = 8, P_SEQ = 10, P_TRACK_EVENT = 11,
	P_INTERNED = 12, P_FLAGS = 13, P_THREAD_DESC = 44, P_TRACK_DESC = 60,
	TE_TYPE = 9, TE_NAME_IID = 10, TE_TRACK = 11, TE_NAME = 23,
	TD_UUID = 1, TD_NAME = 2, TD_PROCESS = 3, TD_THREAD = 4, TD_PARENT = 5,
	BEGIN = 1, END = 2, INSTANT = 3, COUNTER = 4,
	CLEARED = 1, NEEDS = 2
};

/* A TrackEvent packet. */
static void track_event(pb *trace, unsigned seq, unsigned flags, uint64_t ts, int type,
                        int64_t track, const char *name, uint64_t iid)
{
	pb pkt = {0}, te = {0};

	pb_uint(&te, TE_TYPE, (uint64_t)type);
	if (track >= 0)
		pb_uint(&te, TE_TRACK, (uint64_t)track);
	if (name)
		pb_str(&te, TE_NAME, name);
	if (iid)
		pb_uint(&te, TE_NAME_IID, iid);
	pb_uint(&pkt, P_TIMESTAMP, ts);
	pb_uint(&pkt, P_SEQ, seq);
	if (flags)
		pb_uint(&pkt, P_FLAGS, flags);
	pb_msg(&pkt, P_TRACK_EVENT, &te);
	pb_msg(trace, TRACE_PACKET, &pkt);
}

/* Two processes, three threads of slices, packets out of time order:
 *  seq 1, thread 101 "main" of process 100 "com.example" (track 10):
 *    activityStart 1,000-2,000 µs, inflate (interned, iid 1) 1,200-1,500,
 *    an instant at 1,600;
 *  seq 1, track 20 "async lane" (no thread; parent 1, process 100):
 *    fetch 1,100-1,900;
 *  seq 2, thread 202 "worker" of process 200 (ProcessTree: "com.other"),
 *    by the sequence's ThreadDescriptor: job 500-900, a counter;
 *  seq 3, a begin needing interned state the sequence never had. */
static uint8_t *own_trace(size_t *len)
{
	pb t = {0}, pkt = {0}, td = {0}, d = {0}, id = {0}, en = {0}, pt = {0}, pr = {0};

	/* seq 1: its state cleared, the tracks described */
	pb_uint(&pkt, P_SEQ, 1);
	pb_uint(&pkt, P_FLAGS, CLEARED);
	pb_uint(&td, TD_UUID, 1);
	pb_uint(&d, 1, 100);
	pb_str(&d, 6, "com.example");
	pb_msg(&td, TD_PROCESS, &d);
	pb_msg(&pkt, P_TRACK_DESC, &td);
	pb_msg(&t, TRACE_PACKET, &pkt);
	pb_uint(&pkt, P_SEQ, 1);
	pb_uint(&td, TD_UUID, 10);
	pb_uint(&td, TD_PARENT, 1);
	pb_uint(&d, 1, 100);
	pb_uint(&d, 2, 101);
	pb_str(&d, 5, "main");
	pb_msg(&td, TD_THREAD, &d);
	pb_msg(&pkt, P_TRACK_DESC, &td);
	pb_msg(&t, TRACE_PACKET, &pkt);
	/* the async lane's slice, written before its description */
	track_event(&t, 1, NEEDS, 1100000, BEGIN, 20, "fetch", 0);
	track_event(&t, 1, NEEDS, 1900000, END, 20, NULL, 0);
	pb_uint(&pkt, P_SEQ, 1);
	pb_uint(&td, TD_UUID, 20);
	pb_uint(&td, TD_PARENT, 1);
	pb_str(&td, TD_NAME, "async lane");
	pb_msg(&pkt, P_TRACK_DESC, &td);
	pb_msg(&t, TRACE_PACKET, &pkt);
	track_event(&t, 1, NEEDS, 1000000, BEGIN, 10, "activityStart", 0);
	/* inflate's name interned on its own packet */
	pb_uint(&en, 1, 1);
	pb_str(&en, 2, "inflate");
	pb_msg(&id, 2, &en);
	pb_uint(&pkt, P_TIMESTAMP, 1200000);
	pb_uint(&pkt, P_SEQ, 1);
	pb_uint(&pkt, P_FLAGS, NEEDS);
	pb_msg(&pkt, P_INTERNED, &id);
	{
		pb te = {0};
		pb_uint(&te, TE_TYPE, BEGIN);
		pb_uint(&te, TE_TRACK, 10);
		pb_uint(&te, TE_NAME_IID, 1);
		pb_msg(&pkt, P_TRACK_EVENT, &te);
	}
	pb_msg(&t, TRACE_PACKET, &pkt);
	track_event(&t, 1, NEEDS, 1600000, INSTANT, 10, "tap", 0);
	track_event(&t, 1, NEEDS, 2000000, END, 10, NULL, 0);
	track_event(&t, 1, NEEDS, 1500000, END, 10, NULL, 0);
	/* seq 2: an older writer's thread descriptor, the process tree */
	pb_uint(&pkt, P_SEQ, 2);
	pb_uint(&pkt, P_FLAGS, CLEARED);
	pb_uint(&d, 1, 200);
	pb_uint(&d, 2, 202);
	pb_str(&d, 5, "worker");
	pb_msg(&pkt, P_THREAD_DESC, &d);
	pb_msg(&t, TRACE_PACKET, &pkt);
	pb_uint(&pkt, P_SEQ, 2);
	pb_uint(&pr, 1, 200);
	pb_str(&pr, 3, "com.other");
	pb_str(&pr, 3, "--flag");
	pb_msg(&pt, 1, &pr);
	pb_msg(&pkt, P_PROCESS_TREE, &pt);
	pb_msg(&t, TRACE_PACKET, &pkt);
	track_event(&t, 2, 0, 500000, BEGIN, -1, "job", 0);
	track_event(&t, 2, 0, 700000, COUNTER, -1, NULL, 0);
	track_event(&t, 2, 0, 900000, END, -1, NULL, 0);
	/* seq 3: its state was lost before the trace began */
	track_event(&t, 3, NEEDS, 800000, BEGIN, 10, NULL, 7);
	*len = t.len;
	return t.b;
}

static const char own_folded[] =
	"async lane;fetch 800\n"
	"main;activityStart 700\n"
	"main;activityStart;inflate 300\n"
	"worker;job 400\n";

Test(perfetto, own_trace_gives_the_hand_worked_graph_and_counts)
{
	size_t len;
	uint8_t *buf = own_trace(&len);
	af_trace *t = t_parse(buf, len);
	const af_trace_info *i = af_trace_get_info(t);
	char *f = t_folded(buf, len, AF_CLOCK_WALL, NULL);

	cr_expect_str_eq(f, own_folded);
	cr_expect_eq(i->variant, AF_VARIANT_PERFETTO);
	cr_expect_eq(i->lines, 16); /* packets */
	cr_expect_eq(i->enters, 4);
	cr_expect_eq(i->exits, 4);
	cr_expect_eq(i->marks_ignored, 1);   /* the instant */
	cr_expect_eq(i->counters_ignored, 1);
	cr_expect_eq(i->events_no_state, 1); /* seq 3's begin */
	cr_expect_eq(i->unmatched_ends, 0);
	cr_expect_eq(i->open_at_end, 0);
	cr_expect_eq(i->processes, 2);
	free(f);
	af_trace_free(t);
	free(buf);
}

Test(perfetto, compressed_packets_give_the_same_graph)
{
	size_t len;
	uint8_t *buf = own_trace(&len);
	uLongf zlen = compressBound(len);
	uint8_t *z = malloc(zlen);
	pb t = {0}, pkt = {0};
	char *f;

	cr_assert_not_null(z);
	cr_assert_eq(compress2(z, &zlen, buf, len, 9), Z_OK);
	pb_uint(&pkt, P_SEQ, 9);
	pb_bytes(&pkt, 50, z, zlen); /* TracePacket.compressed_packets */
	pb_msg(&t, TRACE_PACKET, &pkt);
	f = t_folded(t.b, t.len, AF_CLOCK_WALL, NULL);
	cr_expect_str_eq(f, own_folded);
	free(f);
	free(t.b);
	free(z);
	free(buf);
}

Test(perfetto, thread_and_process_choose)
{
	size_t len;
	uint8_t *buf = own_trace(&len);
	const char *com[] = {"com.example"}, *p200[] = {"200"}, *lane[] = {"async lane"};
	af_tree_options o = {0};
	char *path = t_tmp("own.pftrace"), *out = NULL, *err = NULL, args[1024];
	char *f;

	o.processes = com;
	o.nprocesses = 1;
	f = t_folded(buf, len, AF_CLOCK_WALL, &o);
	cr_expect_str_eq(f, "async lane;fetch 800\n"
	                    "main;activityStart 700\n"
	                    "main;activityStart;inflate 300\n");
	free(f);
	o.processes = p200;
	f = t_folded(buf, len, AF_CLOCK_WALL, &o);
	cr_expect_str_eq(f, "worker;job 400\n"); /* named by its process tree entry */
	free(f);
	o.nprocesses = 0;
	o.threads = lane;
	o.nthreads = 1;
	f = t_folded(buf, len, AF_CLOCK_WALL, &o);
	cr_expect_str_eq(f, "async lane;fetch 800\n");
	free(f);
	/* the same through the command */
	t_write(path, buf, len);
	snprintf(args, sizeof args, "--format folded --thread main '%s'", path);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_expect_str_eq(out, "main;activityStart 700\nmain;activityStart;inflate 300\n");
	free(out);
	free(err);
	snprintf(args, sizeof args, "--format folded --process com.other '%s'", path);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_expect_str_eq(out, "worker;job 400\n");
	free(out);
	free(err);
	t_cli_says(1, "a Perfetto trace has no method records to dump", "--dump '%s'", path);
	free(path);
	free(buf);
}

/* The packet with the `k`-th (from 0) TracePacket tag of `b`: its offset. */
static long long packet_at(const uint8_t *b, size_t len, size_t k)
{
	size_t p = 0;

	while (p < len) {
		uint64_t n = 0;
		unsigned shift = 0;
		size_t at = p;
		cr_assert_eq(b[p++], 0x0A);
		do {
			n |= (uint64_t)(b[p] & 0x7F) << shift;
			shift += 7;
		} while (b[p++] & 0x80);
		if (k-- == 0)
			return (long long)at;
		p += n;
	}
	return -1;
}

Test(perfetto, bad_input_stops_with_the_place)
{
	pb t = {0};
	af_trace *tr = NULL;
	af_error e = {0};
	size_t len;
	uint8_t *own = own_trace(&len);

	/* an interned name the sequence never defined */
	track_event(&t, 5, CLEARED, 10, BEGIN, 3, "a", 0);
	track_event(&t, 5, NEEDS, 20, BEGIN, 3, NULL, 9);
	cr_assert_eq(af_trace_parse(t.b, t.len, NULL, &tr, &e), AF_ERR_RECORD);
	cr_expect_str_eq(e.message, "Perfetto trace: a track event names interned event "
	                            "name 9, which packet sequence 5 has not defined");
	cr_expect_eq(e.offset, packet_at(t.b, t.len, 1));
	cr_assert_null(tr);
	/* cut inside its last packet */
	cr_assert_eq(af_trace_parse(own, len - 3, NULL, &tr, &e), AF_ERR_TRUNCATED);
	cr_expect_eq(e.offset, packet_at(own, len, 15), "%s (byte %lld)", e.message, e.offset);
	cr_assert_null(tr);
	/* the same status for a caller that wants no message */
	cr_assert_eq(af_trace_parse(own, len - 3, NULL, &tr, NULL), AF_ERR_TRUNCATED);
	cr_assert_null(tr);
	free(t.b);
	memset(&t, 0, sizeof t);
	/* a track event whose type is a string: the packet's field, its byte */
	{
		pb pkt = {0}, te = {0};
		pb_str(&te, TE_TYPE, "begin");
		pb_uint(&pkt, P_TIMESTAMP, 5);
		pb_msg(&pkt, P_TRACK_EVENT, &te);
		pb_msg(&t, TRACE_PACKET, &pkt);
	}
	cr_assert_eq(af_trace_parse(t.b, t.len, NULL, &tr, &e), AF_ERR_FORMAT);
	cr_expect(strstr(e.message, "wire type"), "%s", e.message);
	cr_expect_gt(e.offset, 0);
	cr_expect_lt(e.offset, (long long)t.len);
	cr_assert_null(tr);
	free(t.b);
	memset(&t, 0, sizeof t);
	/* a track event without a timestamp */
	{
		pb pkt = {0}, te = {0};
		pb_uint(&te, TE_TYPE, BEGIN);
		pb_str(&te, TE_NAME, "x");
		pb_msg(&pkt, P_TRACK_EVENT, &te);
		pb_msg(&t, TRACE_PACKET, &pkt);
	}
	cr_assert_eq(af_trace_parse(t.b, t.len, NULL, &tr, &e), AF_ERR_RECORD);
	cr_expect_str_eq(e.message, "Perfetto trace: a track event without a timestamp");
	cr_expect_eq(e.offset, 0);
	free(t.b);
	free(own);
}

/* An ftrace bundle of cpu `cpu` with print events {ts, tid, text}. */
typedef struct mark {
	uint64_t ts;
	unsigned tid;
	const char *text;
} mark;

static void bundle(pb *trace, unsigned cpu, const mark *m, size_t n)
{
	pb pkt = {0}, b = {0}, ev = {0}, pr = {0};
	size_t i;

	pb_uint(&b, 1, cpu);
	for (i = 0; i < n; i++) {
		pb_uint(&ev, 1, m[i].ts);
		pb_uint(&ev, 2, m[i].tid);
		pb_str(&pr, 2, m[i].text);
		pb_msg(&ev, 3, &pr);
		pb_msg(&b, 2, &ev);
	}
	pb_msg(&pkt, P_FTRACE, &b);
	pb_uint(&pkt, P_SEQ, 4);
	pb_msg(trace, TRACE_PACKET, &pkt);
}

Test(perfetto, atrace_marks_across_cpus_in_time_order)
{
	/* thread 7 moves from cpu 1 to cpu 0; cpu 0's bundle comes first */
	static const mark cpu0[] = {
		{3000000, 7, "E|7\n"},
		{3500000, 7, "E\n"},
		{3600000, 8, "C|7|counter|5\n"},
	};
	static const mark cpu1[] = {
		{1000000, 7, "B|7|outer\n"},
		{2000000, 7, "B|7|inner\n"},
		{2100000, 7, "S|7|async|1\n"},
		{2200000, 7, "N|7|track|instant\n"},
		{2300000, 8, "E|7\n"},
	};
	pb t = {0}, pkt = {0}, pt = {0}, th = {0};
	af_trace *tr;
	const af_trace_info *i;
	char *f;

	bundle(&t, 0, cpu0, 3);
	bundle(&t, 1, cpu1, 5);
	pb_uint(&th, 1, 7);
	pb_str(&th, 2, "RenderThread");
	pb_uint(&th, 3, 7);
	pb_msg(&pt, 2, &th);
	pb_msg(&pkt, P_PROCESS_TREE, &pt);
	pb_msg(&t, TRACE_PACKET, &pkt);
	f = t_folded(t.b, t.len, AF_CLOCK_WALL, NULL);
	cr_expect_str_eq(f, "RenderThread;outer 1500\nRenderThread;outer;inner 1000\n");
	free(f);
	tr = t_parse(t.b, t.len);
	i = af_trace_get_info(tr);
	cr_expect_eq(i->enters, 2);
	cr_expect_eq(i->exits, 2);
	cr_expect_eq(i->unmatched_ends, 1);  /* thread 8's */
	cr_expect_eq(i->async_ignored, 1);
	cr_expect_eq(i->counters_ignored, 1);
	cr_expect_eq(i->marks_ignored, 1);   /* N| */
	af_trace_free(tr);
	free(t.b);
}

/* A TrackEvent of the legacy form (no type, a LegacyEvent with a phase):
 * its name given (`name`), or interned in the TrackEvent's LegacyEvent
 * (`iid`); a duration for 'X' (-1: none); written for thread `tid` (0:
 * the sequence's own). */
static void legacy_event(pb *trace, unsigned seq, uint64_t ts, int phase, const char *name,
                         uint64_t iid, int64_t dur_us, unsigned tid)
{
	pb pkt = {0}, te = {0}, lg = {0};

	if (iid)
		pb_uint(&lg, 1, iid);          /* LegacyEvent.name_iid */
	pb_uint(&lg, 2, (uint64_t)phase);  /* phase */
	if (dur_us >= 0)
		pb_uint(&lg, 3, (uint64_t)dur_us); /* duration_us */
	if (tid) {
		pb_uint(&lg, 18, 4);           /* pid_override */
		pb_uint(&lg, 19, tid);         /* tid_override */
	}
	if (name)
		pb_str(&te, TE_NAME, name);
	pb_msg(&te, 6, &lg);                   /* TrackEvent.legacy_event */
	pb_uint(&pkt, P_TIMESTAMP, ts);
	pb_uint(&pkt, P_SEQ, seq);
	pb_uint(&pkt, P_FLAGS, NEEDS);
	pb_msg(&pkt, P_TRACK_EVENT, &te);
	pb_msg(trace, TRACE_PACKET, &pkt);
}

Test(perfetto, legacy_events_complete_begin_end_and_ignored)
{
	pb t = {0}, pkt = {0}, d = {0}, id = {0}, en = {0};
	af_trace *tr;
	const af_trace_info *i;
	char *f;
	af_error e = {0};

	/* sequence 4: thread 40 "legacy" of process 4, "frame" interned */
	pb_uint(&pkt, P_SEQ, 4);
	pb_uint(&pkt, P_FLAGS, CLEARED);
	pb_uint(&d, 1, 4);
	pb_uint(&d, 2, 40);
	pb_str(&d, 5, "legacy");
	pb_msg(&pkt, P_THREAD_DESC, &d);
	pb_uint(&en, 1, 1);
	pb_str(&en, 2, "frame");
	pb_msg(&id, 2, &en);
	pb_msg(&pkt, P_INTERNED, &id);
	pb_msg(&t, TRACE_PACKET, &pkt);
	legacy_event(&t, 4, 1000000, 'X', NULL, 1, 1000, 0);  /* frame 1,000-2,000 µs */
	legacy_event(&t, 4, 1200000, 'X', "draw", 0, 300, 0); /* draw 1,200-1,500 */
	legacy_event(&t, 4, 1600000, 'I', "tick", 0, -1, 0);
	legacy_event(&t, 4, 1700000, 'C', "bytes", 0, -1, 0);
	legacy_event(&t, 4, 1800000, 'b', "fetch", 0, -1, 0);
	track_event(&t, 4, NEEDS, 1900000, INSTANT, -1, "tap", 0);
	legacy_event(&t, 4, 2500000, 'X', "other", 0, 100, 41); /* for thread 41 */
	legacy_event(&t, 4, 3000000, 'B', "load", 0, -1, 0);
	legacy_event(&t, 4, 3500000, 'E', NULL, 0, -1, 0);
	f = t_folded(t.b, t.len, AF_CLOCK_WALL, NULL);
	cr_expect_str_eq(f, "Thread-41;other 100\nlegacy;frame 700\nlegacy;frame;draw 300\n"
	                    "legacy;load 500\n");
	free(f);
	tr = t_parse(t.b, t.len);
	i = af_trace_get_info(tr);
	cr_expect_eq(i->enters, 4);
	cr_expect_eq(i->exits, 4);
	cr_expect_eq(i->marks_ignored, 2);   /* 'I' and the typed instant */
	cr_expect_eq(i->counters_ignored, 1);
	cr_expect_eq(i->async_ignored, 1);
	af_trace_free(tr);
	/* a complete event without its duration */
	legacy_event(&t, 4, 4000000, 'X', "bad", 0, -1, 0);
	cr_assert_eq(af_trace_parse(t.b, t.len, NULL, &tr, &e), AF_ERR_RECORD);
	cr_expect_str_eq(e.message, "Perfetto trace: a complete event (legacy phase 'X') "
	                            "without a duration");
	cr_expect_eq(e.offset, packet_at(t.b, t.len, 10));
	free(t.b);
}

/* A ClockSnapshot clock: {id, timestamp, incremental, unit in ns (0: none)}. */
static void snap_clock(pb *cs, unsigned id, uint64_t ts, int incremental, uint64_t unit)
{
	pb c = {0};

	pb_uint(&c, 1, id);
	pb_uint(&c, 2, ts);
	if (incremental)
		pb_uint(&c, 3, 1);
	if (unit)
		pb_uint(&c, 4, unit);
	pb_msg(cs, 1, &c); /* ClockSnapshot.clocks */
}

/* Sequence `seq` of thread 60 "inc" (process 6): its state cleared, clock
 * 64 its default (TracePacketDefaults.timestamp_clock_id) when `dflt`, and
 * the snapshot `cs` (none when NULL). */
static void clock_sequence(pb *t, unsigned seq, int dflt, pb *cs)
{
	pb pkt = {0}, d = {0}, def = {0};

	pb_uint(&pkt, P_SEQ, seq);
	pb_uint(&pkt, P_FLAGS, CLEARED);
	pb_uint(&d, 1, 6);
	pb_uint(&d, 2, 60);
	pb_str(&d, 5, "inc");
	pb_msg(&pkt, P_THREAD_DESC, &d);
	if (dflt) {
		pb_uint(&def, 58, 64);
		pb_msg(&pkt, 59, &def); /* trace_packet_defaults */
	}
	if (cs)
		pb_msg(&pkt, 6, cs);    /* clock_snapshot */
	pb_msg(t, TRACE_PACKET, &pkt);
}

Test(perfetto, incremental_clock_resolved_by_the_sequence_snapshot)
{
	pb t = {0}, cs = {0};
	af_trace *tr = NULL;
	af_error e = {0};
	char *f;

	/* clock 64 counts µs, incrementally, from 1,000 when BOOTTIME read
	 * 5 s; seq 7 ends the slice on BOOTTIME itself, at 5,000,050 µs:
	 * a 40 µs, 20 of them in b */
	snap_clock(&cs, 6, 5000000000u, 0, 0);
	snap_clock(&cs, 64, 1000, 1, 1000);
	clock_sequence(&t, 6, 1, &cs);
	clock_sequence(&t, 7, 0, NULL);
	track_event(&t, 6, NEEDS, 10, BEGIN, -1, "a", 0);   /* 5,000,010 µs */
	track_event(&t, 6, NEEDS, 5, BEGIN, -1, "b", 0);    /* 5,000,015 */
	track_event(&t, 6, NEEDS, 20, END, -1, NULL, 0);    /* 5,000,035 */
	track_event(&t, 7, NEEDS, 5000050000u, END, -1, NULL, 0);
	f = t_folded(t.b, t.len, AF_CLOCK_WALL, NULL);
	cr_expect_str_eq(f, "inc;a 20\ninc;a;b 20\n");
	free(f);
	free(t.b);
	memset(&t, 0, sizeof t);
	memset(&cs, 0, sizeof cs);
	/* absolute on clock 64 (ms), the snapshot reading MONOTONIC, which a
	 * snapshot of sequence 8 puts 2 s behind BOOTTIME */
	snap_clock(&cs, 6, 9000000000u, 0, 0);
	snap_clock(&cs, 3, 7000000000u, 0, 0);
	clock_sequence(&t, 8, 0, &cs);
	memset(&cs, 0, sizeof cs);
	snap_clock(&cs, 3, 1000000000u, 0, 0);
	snap_clock(&cs, 64, 40, 0, 1000000);
	clock_sequence(&t, 6, 1, &cs);
	clock_sequence(&t, 7, 0, NULL);
	track_event(&t, 6, NEEDS, 41, BEGIN, -1, "c", 0);          /* mono 1.001 s: boot 3.001 s */
	track_event(&t, 7, NEEDS, 3004000000u, END, -1, NULL, 0);  /* boot 3.004 s */
	f = t_folded(t.b, t.len, AF_CLOCK_WALL, NULL);
	cr_expect_str_eq(f, "inc;c 3000\n");
	free(f);
	free(t.b);
	memset(&t, 0, sizeof t);
	memset(&cs, 0, sizeof cs);
	/* a snapshot with no builtin clock relates clock 64 to nothing */
	snap_clock(&cs, 64, 1000, 1, 1000);
	clock_sequence(&t, 6, 1, &cs);
	track_event(&t, 6, NEEDS, 10, BEGIN, -1, "a", 0);
	cr_assert_eq(af_trace_parse(t.b, t.len, NULL, &tr, &e), AF_ERR_FORMAT);
	cr_expect_str_eq(e.message, "Perfetto trace: a track event timed by clock 64, "
	                            "which no clock snapshot of its packet sequence relates "
	                            "to a builtin clock");
	cr_expect_eq(e.offset, packet_at(t.b, t.len, 1));
	free(t.b);
}

/* Two sequences, threads 11 "a" and 12 "b" (by their ThreadDescriptors),
 * each repeating outer 0-4 µs { inner 1-3 µs } every 5 µs, `chunks`
 * chunks of 500 such cycles from chunk `from` (the descriptors first when
 * `descriptors`): sequence 1's chunk, then sequence 2's of the same times
 * (older than what sequence 1 has just written), as Perfetto writes its
 * buffers' chunks. */
static void two_sequences_part(pb *t, unsigned from, unsigned chunks, int descriptors)
{
	pb pkt = {0}, d = {0};
	unsigned c, k, s;

	for (s = 1; s <= 2 && descriptors; s++) {
		pb_uint(&pkt, P_SEQ, s);
		pb_uint(&pkt, P_FLAGS, CLEARED);
		pb_uint(&d, 1, 10);
		pb_uint(&d, 2, 10 + s);
		pb_str(&d, 5, s == 1 ? "a" : "b");
		pb_msg(&pkt, P_THREAD_DESC, &d);
		pb_msg(t, TRACE_PACKET, &pkt);
	}
	for (c = from; c < from + chunks; c++)
		for (s = 1; s <= 2; s++)
			for (k = 0; k < 500; k++) {
				uint64_t at = ((uint64_t)c * 500 + k) * 5000 + 1000000;
				track_event(t, s, NEEDS, at, BEGIN, -1, "outer", 0);
				track_event(t, s, NEEDS, at + 1000, BEGIN, -1, "inner", 0);
				track_event(t, s, NEEDS, at + 3000, END, -1, NULL, 0);
				track_event(t, s, NEEDS, at + 4000, END, -1, NULL, 0);
			}
}

static uint8_t *two_sequences(unsigned chunks, size_t *len)
{
	pb t = {0};

	two_sequences_part(&t, 0, chunks, 1);
	*len = t.len;
	return t.b;
}

Test(perfetto, interleaved_sequences_stream_in_memory_of_a_window)
{
	/* 1.6M events: kept all until the end (48 bytes each, in an array
	 * grown by doubling), more than the 48 MiB given here; merged as they
	 * come, a window of them */
	size_t len;
	uint8_t *buf = two_sequences(400, &len);
	af_parse_options po = {.limits = {.max_memory = 48u << 20}};
	af_trace *tr = NULL;
	af_tree *tree = NULL;
	af_error e = {0};
	char *text = NULL, want[128];
	size_t tlen = 0;
	FILE *f;

	cr_assert_eq(af_trace_parse(buf, len, &po, &tr, &e), AF_OK, "%s (byte %lld)",
	             e.message, e.offset);
	cr_expect_eq(af_trace_get_info(tr)->enters, 800000);
	cr_expect_eq(af_trace_get_info(tr)->exits, 800000);
	cr_expect_eq(af_trace_get_info(tr)->time_backwards[AF_CLOCK_WALL], 0);
	cr_assert_eq(af_tree_from_trace(tr, NULL, &tree, &e), AF_OK, "%s", e.message);
	f = open_memstream(&text, &tlen);
	cr_assert_not_null(f);
	cr_assert_eq(af_folded_write(tree, AF_CLOCK_WALL, f, &e), AF_OK, "%s", e.message);
	fclose(f);
	/* each thread: 200,000 cycles, 2 µs in outer alone and 2 in inner */
	snprintf(want, sizeof want, "a;outer 400000\na;outer;inner 400000\n"
	         "b;outer 400000\nb;outer;inner 400000\n");
	cr_expect_str_eq(text, want);
	free(text);
	af_tree_free(tree);
	af_trace_free(tr);
	free(buf);
}

/* two_sequences() of `chunks` written to `path` 50 chunks at a time: a
 * trace of slices larger than the memory it is to be read in.  Its bytes. */
static size_t write_two_sequences(const char *path, unsigned chunks)
{
	FILE *f = fopen(path, "wb");
	size_t total = 0;
	unsigned c;

	cr_assert_not_null(f, "%s", path);
	for (c = 0; c < chunks; c += 50) {
		pb t = {0};
		two_sequences_part(&t, c, 50, c == 0);
		cr_assert_eq(fwrite(t.b, 1, t.len, f), t.len);
		total += t.len;
		free(t.b);
	}
	cr_assert_eq(fclose(f), 0);
	return total;
}

/* Issue 16: a trace of gigabytes needs memory for its call paths only.  A
 * trace of 190 MiB of slices, read from a file (mapped) and from standard
 * input (spilled to a temporary file and mapped): the command's peak
 * resident memory stays far under the trace's size (the pages behind the
 * parse handed back, as they are for method traces), and the graph is
 * the one its cycles make. */
Test(perfetto, a_large_trace_is_read_in_memory_of_its_call_paths, .timeout = 900)
{
#if defined(__SANITIZE_ADDRESS__)
	/* a sanitizer's peak is its own (shadow, quarantine, malloc stacks:
	 * over 400 MB here under ctest's options), and a long test beside
	 * others trips Criterion's runner leak under LeakSanitizer */
	cr_skip_test("peak memory is measured in the release build");
#endif
	char *path = t_tmp("large.pftrace"), *out = t_tmp("large.folded");
	char want[256];
	static const char *const ways[] = {"file", "standard input"};
	unsigned chunks = 2500;
	size_t len = write_two_sequences(path, chunks);
	long n_cycles;
	int i;

	cr_assert_gt(len, 190u << 20, "a trace of %zu bytes", len);
	/* each thread: 500 cycles a chunk, 2 µs in outer alone and 2 in inner */
	n_cycles = (long)chunks * 500;
	snprintf(want, sizeof want, "a;outer %ld\na;outer;inner %ld\nb;outer %ld\n"
	         "b;outer;inner %ld\n", n_cycles * 2, n_cycles * 2, n_cycles * 2,
	         n_cycles * 2);
	for (i = 0; i < 2; i++) {
		long peak = t_cli_peak(out, want, ways[i], "%s'%s'", i == 0 ? "" : "- < ", path);
		/* in KiB: the 16 MiB kept behind the parse, the read-ahead, the
		 * events waiting to be merged (up to 2^19 of 48 bytes), the
		 * program, not 190; 75 MiB here */
		cr_expect_lt(peak, 128L << 10, "%s: a peak of %ld KiB for a trace of %zu bytes",
		             ways[i], peak, len);
	}
	remove(out);
	remove(path);
	free(out);
	free(path);
}

Test(perfetto, ends_without_begins_draw_nothing_and_say_so)
{
	/* an end with no slice open is ignored (a capture that began inside
	 * a slice), as systrace's are: with nothing else, no graph */
	static const mark cpu0[] = {{1000, 7, "E|7\n"}, {2000, 7, "E|7\n"}, {1500, 8, "E\n"}};
	pb t = {0};
	char *path = t_tmp("ends.pftrace"), *out = t_tmp("ends.svg"), *err = NULL;
	char args[2048];
	size_t len;

	bundle(&t, 0, cpu0, 3);
	t_write(path, t.b, t.len);
	remove(out);
	snprintf(args, sizeof args, "-o '%s' '%s'", out, path);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 1);
	cr_expect(strstr(err, "warning: ignored 3 slice ends with no slice open on their "
	                      "thread\n"), "%s", err);
	cr_expect(strstr(err, "the trace has no begin/end slices\n"), "%s", err);
	cr_expect_null(t_read(out, &len), "an output was left behind");
	free(err);
	free(out);
	free(path);
	free(t.b);
}

/* ------------------------------------------------------------------ */
/* Real files                                                          */

static uint8_t *real(const char *name, size_t *len)
{
	char *d = strdup(t_traces_dir()), *path = NULL;
	uint8_t *buf;

	cr_assert_not_null(d);
	cr_assert_neq(asprintf(&path, "%s/inputs/perfetto/%s", dirname(d), name), -1);
	free(d);
	buf = t_read(path, len);
	if (!buf) {
		cr_log_info("%s is not there: the tests of real Perfetto traces skip", path);
		cr_skip_test("%s is not there (the real Perfetto traces are in ../shared/inputs); "
		             "skipped", path);
	}
	free(path);
	return buf;
}

/* An independent walk of a trace's bytes: every field read by hand, the
 * slice events of the ftrace print events and the TrackEvents kept with
 * their thread (a tid) or track (a uuid), then replayed per thread in
 * time order.  No interned names, compressed packets or sequence
 * defaults: the real traces have none (the walk fails if it meets them). */
typedef struct wev {
	uint64_t ts;
	uint64_t key;       /* tid, or 1 << 63 | track uuid */
	size_t order;
	int begin;
	char *name;
	unsigned cpu, pid, tid;
	char *text;         /* a print event's mark */
} wev;

typedef struct walk {
	wev *ev;
	size_t n, cap;
	unsigned packets;
} walk;

static uint64_t rd_varint(const uint8_t *b, size_t len, size_t *p)
{
	uint64_t v = 0;
	unsigned s = 0;

	for (;;) {
		cr_assert_lt(*p, len);
		cr_assert_lt(s, 64);
		v |= (uint64_t)(b[*p] & 0x7F) << s;
		s += 7;
		if (!(b[(*p)++] & 0x80))
			return v;
	}
}

/* The next field of [b, b + len): its number, wire type, varint value or
 * bytes. */
static int rd_field(const uint8_t *b, size_t len, size_t *p, unsigned *num, unsigned *wire,
                    uint64_t *v, const uint8_t **d)
{
	uint64_t tag;

	if (*p >= len)
		return 0;
	tag = rd_varint(b, len, p);
	*num = (unsigned)(tag >> 3);
	*wire = (unsigned)(tag & 7);
	switch (*wire) {
	case 0:
		*v = rd_varint(b, len, p);
		break;
	case 1:
		*p += 8;
		break;
	case 2:
		*v = rd_varint(b, len, p);
		*d = b + *p;
		*p += *v;
		break;
	case 5:
		*p += 4;
		break;
	default:
		cr_assert_fail("wire type %u", *wire);
	}
	cr_assert_leq(*p, len);
	return 1;
}

static void walk_add(walk *w, wev e)
{
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 1024;
		w->ev = realloc(w->ev, w->cap * sizeof *w->ev);
		cr_assert_not_null(w->ev);
	}
	e.order = w->n;
	w->ev[w->n++] = e;
}

static void walk_print(walk *w, unsigned cpu, const uint8_t *b, size_t len)
{
	size_t p = 0;
	unsigned num, wire;
	uint64_t v = 0, ts = 0, tid = 0;
	const uint8_t *d = NULL, *text = NULL;
	size_t tlen = 0;

	while (rd_field(b, len, &p, &num, &wire, &v, &d)) {
		if (num == 1 && wire == 0)
			ts = v;
		else if (num == 2 && wire == 0)
			tid = v;
		else if (num == 3 && wire == 2) {
			size_t q = 0;
			unsigned n2, w2;
			uint64_t v2 = 0;
			const uint8_t *d2 = NULL;
			while (rd_field(d, (size_t)v, &q, &n2, &w2, &v2, &d2))
				if (n2 == 2 && w2 == 2) {
					text = d2;
					tlen = (size_t)v2;
				}
		}
	}
	if (!text)
		return;
	{
		wev e = {.ts = ts, .key = tid, .cpu = cpu, .tid = (unsigned)tid};
		char *s = strndup((const char *)text, tlen), *bar;
		cr_assert_not_null(s);
		e.text = strdup(s);
		s[strcspn(s, "\n")] = '\0';
		if (s[0] == 'B' && s[1] == '|' && (bar = strchr(s + 2, '|')) != NULL) {
			e.begin = 1;
			e.pid = (unsigned)strtoul(s + 2, NULL, 10);
			e.name = strdup(bar + 1);
		} else if (s[0] == 'E' && (s[1] == '|' || s[1] == '\0')) {
			e.begin = 0;
		} else {
			free(s);
			free(e.text);
			return;
		}
		free(s);
		walk_add(w, e);
	}
}

static void walk_packet(walk *w, const uint8_t *b, size_t len)
{
	size_t p = 0;
	unsigned num, wire;
	uint64_t v = 0, ts = 0;
	const uint8_t *d = NULL, *te = NULL;
	size_t te_len = 0;

	while (rd_field(b, len, &p, &num, &wire, &v, &d)) {
		cr_assert_neq(num, 50, "compressed packets: the walk does not inflate them");
		if (num == 8 && wire == 0)
			ts = v;
		if (num == 11 && wire == 2) {
			te = d;
			te_len = (size_t)v;
		}
		if (num == 1 && wire == 2) { /* an ftrace bundle */
			size_t q = 0;
			unsigned n2, w2, cpu = 0;
			uint64_t v2 = 0;
			const uint8_t *d2 = NULL;
			while (rd_field(d, (size_t)v, &q, &n2, &w2, &v2, &d2)) {
				if (n2 == 1 && w2 == 0)
					cpu = (unsigned)v2;
				if (n2 == 2 && w2 == 2)
					walk_print(w, cpu, d2, (size_t)v2);
			}
		}
	}
	if (te) {
		size_t q = 0;
		unsigned n2, w2;
		uint64_t v2 = 0, type = 0, track = 0;
		const uint8_t *d2 = NULL;
		char *name = NULL;
		while (rd_field(te, te_len, &q, &n2, &w2, &v2, &d2)) {
			if (n2 == 9 && w2 == 0)
				type = v2;
			if (n2 == 11 && w2 == 0)
				track = v2;
			if (n2 == 23 && w2 == 2)
				name = strndup((const char *)d2, (size_t)v2);
			cr_assert_neq(n2, 10, "an interned name: the walk does not read them");
		}
		if (type == 1 || type == 2) {
			wev e = {.ts = ts, .key = 1ull << 63 | track, .begin = type == 1,
			         .name = name};
			walk_add(w, e);
		} else {
			free(name);
		}
	}
}

static walk walk_trace(const uint8_t *b, size_t len)
{
	walk w = {0};
	size_t p = 0;
	unsigned num, wire;
	uint64_t v = 0;
	const uint8_t *d = NULL;

	while (rd_field(b, len, &p, &num, &wire, &v, &d)) {
		cr_assert_eq(num, 1);
		cr_assert_eq(wire, 2);
		walk_packet(&w, d, (size_t)v);
		w.packets++;
	}
	return w;
}

static int wev_cmp(const void *a, const void *b)
{
	const wev *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Per thread: µs under its outermost slices (each timestamp floored to a
 * µs; open ones closed at its last event), and the counts. */
typedef struct wsum {
	unsigned long long total;
	unsigned begins, ends, unmatched, open, threads;
	unsigned long long *per_thread; /* sorted */
} wsum;

static int ull_cmp(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a, y = *(const unsigned long long *)b;
	return x < y ? -1 : x > y;
}

static wsum walk_sum(walk *w)
{
	wsum s = {0};
	size_t i = 0;

	qsort(w->ev, w->n, sizeof *w->ev, wev_cmp);
	s.per_thread = calloc(w->n + 1, sizeof *s.per_thread);
	cr_assert_not_null(s.per_thread);
	while (i < w->n) {
		size_t j = i;
		unsigned depth = 0, begins = 0;
		unsigned long long outer = 0, last = 0, total = 0;
		for (; j < w->n && w->ev[j].key == w->ev[i].key; j++) {
			unsigned long long us = w->ev[j].ts / 1000;
			last = us;
			if (w->ev[j].begin) {
				if (depth++ == 0)
					outer = us;
				begins++;
				s.begins++;
			} else if (depth) {
				if (--depth == 0)
					total += us - outer;
				s.ends++;
			} else {
				s.unmatched++;
			}
		}
		if (depth) {
			total += last - outer;
			s.open += depth;
		}
		if (begins)
			s.per_thread[s.threads++] = total;
		s.total += total;
		i = j;
	}
	qsort(s.per_thread, s.threads, sizeof *s.per_thread, ull_cmp);
	return s;
}

static void walk_free(walk *w)
{
	size_t i;

	for (i = 0; i < w->n; i++) {
		free(w->ev[i].name);
		free(w->ev[i].text);
	}
	free(w->ev);
}

/* The sum of the counts of folded text. */
static unsigned long long folded_total(const char *f)
{
	unsigned long long sum = 0;
	const char *nl;

	for (; *f; f = nl + 1) {
		const char *sp;
		nl = strchr(f, '\n');
		cr_assert_not_null(nl);
		for (sp = nl; sp > f && sp[-1] != ' '; sp--)
			;
		sum += strtoull(sp, NULL, 10);
	}
	return sum;
}

/* The library's figures for the same trace against the walk's. */
static void check_real(const char *file, unsigned packets, unsigned threads)
{
	size_t len, k;
	uint8_t *gz = real(file, &len), *buf = gz;
	af_trace *t;
	const af_trace_info *i;
	char *folded;
	walk w;
	wsum s;
	unsigned long long *lib;

	if (len >= 2 && gz[0] == 0x1F && gz[1] == 0x8B) {
		/* the walk reads the inflated bytes: zcat's */
		char *cmd = NULL, *path = t_tmp("walk.pftrace");
		char *d = strdup(t_traces_dir());
		cr_assert_neq(asprintf(&cmd, "zcat '%s/inputs/perfetto/%s' > '%s'", dirname(d),
		                       file, path), -1);
		cr_assert_eq(system(cmd), 0);
		buf = t_read(path, &len);
		cr_assert_not_null(buf);
		free(cmd);
		free(path);
		free(d);
		free(gz);
		gz = NULL;
	}
	w = walk_trace(buf, len);
	cr_expect_eq(w.packets, packets, "%s: %u packets", file, w.packets);
	t = t_parse(buf, len);
	i = af_trace_get_info(t);
	cr_expect_eq(i->variant, AF_VARIANT_PERFETTO);
	cr_expect_eq(i->lines, w.packets);
	s = walk_sum(&w);
	cr_expect_eq(i->enters, s.begins, "%s: %llu begins, the walk %u", file,
	             (unsigned long long)i->enters, s.begins);
	cr_expect_eq(i->exits, s.ends);
	cr_expect_eq(i->unmatched_ends, s.unmatched);
	cr_expect_eq(i->open_at_end, s.open);
	cr_expect_eq(s.threads, threads, "%s: the walk finds %u threads of slices", file,
	             s.threads);
	cr_assert_eq(af_trace_thread_count(t), s.threads, "%s: %zu threads", file,
	             af_trace_thread_count(t));
	lib = calloc(s.threads + 1, sizeof *lib);
	cr_assert_not_null(lib);
	for (k = 0; k < s.threads; k++) {
		af_thread_info ti;
		af_trace_thread(t, k, &ti);
		lib[k] = ti.total[AF_CLOCK_WALL];
	}
	qsort(lib, s.threads, sizeof *lib, ull_cmp);
	for (k = 0; k < s.threads; k++)
		cr_expect_eq(lib[k], s.per_thread[k], "%s: the %zu-th smallest thread total: "
		             "%llu µs, the walk %llu", file, k + 1, lib[k], s.per_thread[k]);
	folded = t_folded(buf, len, AF_CLOCK_WALL, NULL);
	cr_expect_eq(folded_total(folded), s.total, "%s: %llu µs, the walk %llu", file,
	             folded_total(folded), s.total);
	free(folded);
	af_trace_free(t);
	free(lib);
	free(s.per_thread);
	walk_free(&w);
	free(buf);
}

/* Packet and thread counts from `protoc --decode_raw` of each file (the
 * top-level fields counted); the rest is the walk's. */
Test(perfetto, nowinandroid_atrace_against_a_walk)
{
	check_real("android-atrace-nowinandroid-trace.perfetto-trace", 7676, 4);
}

Test(perfetto, statsd_prints_against_a_walk, .timeout = 120)
{
	check_real("android-print-statsd-perfetto-pr3203-93b86b70.pftrace.gz", 37798, 5);
}

Test(perfetto, nested_tracks_against_a_walk)
{
	check_real("synthetic-trackevent-perfetto-nested_tracks.perfetto-trace", 4092, 1364);
}

Test(perfetto, empty_trace_is_refused_as_an_empty_systrace_is)
{
	size_t len;
	uint8_t *buf = real("empty-qmljulia-trace.pftrace", &len);
	char *d = strdup(t_traces_dir()), *out = t_tmp("empty-pf.svg"), *path = NULL;
	af_trace *t = t_parse(buf, len);

	cr_expect_eq(af_trace_get_info(t)->variant, AF_VARIANT_PERFETTO);
	cr_expect_eq(af_trace_get_info(t)->lines, 23);
	cr_expect_eq(af_trace_thread_count(t), 0);
	af_trace_free(t);
	cr_assert_neq(asprintf(&path, "%s/inputs/perfetto/empty-qmljulia-trace.pftrace",
	                       dirname(d)), -1);
	remove(out);
	t_cli_says(1, "the trace has no begin/end slices", "-o '%s' '%s'", out, path);
	cr_expect_null(t_read(out, &len), "an output was left behind");
	free(path);
	free(out);
	free(d);
	free(buf);
}

/* The nowinandroid trace's print events written as the ftrace text atrace
 * captures (sorted by time, as the kernel's buffer gives them) read by the
 * systrace path: the same graph as the Perfetto path's. */
Test(perfetto, nowinandroid_as_systrace_text_gives_the_same_graph)
{
	size_t len, k;
	uint8_t *buf = real("android-atrace-nowinandroid-trace.perfetto-trace", &len);
	walk w = walk_trace(buf, len);
	char *text = NULL, *a, *b;
	size_t tlen = 0;
	FILE *f = open_memstream(&text, &tlen);

	cr_assert_not_null(f);
	for (k = 0; k < w.n; k++)
		w.ev[k].key = 0; /* one timeline: sort by time alone */
	qsort(w.ev, w.n, sizeof *w.ev, wev_cmp);
	fprintf(f, "# tracer: nop\n");
	for (k = 0; k < w.n; k++) {
		const wev *e = &w.ev[k];
		char *m = strdup(e->text);
		cr_assert_not_null(m);
		m[strcspn(m, "\n")] = '\0';
		fprintf(f, "           <...>-%u   [%03u] ...1 %llu.%09llu: tracing_mark_write: %s\n",
		        e->tid, e->cpu,
		        (unsigned long long)(e->ts / 1000000000u),
		        (unsigned long long)(e->ts % 1000000000u), m);
		free(m);
	}
	fclose(f);
	a = t_folded(buf, len, AF_CLOCK_WALL, NULL);
	b = t_folded((const uint8_t *)text, tlen, AF_CLOCK_WALL, NULL);
	cr_expect_gt(strlen(a), 100);
	cr_expect_str_eq(a, b);
	free(a);
	free(b);
	free(text);
	walk_free(&w);
	free(buf);
}
