/*
 * trace.h - the parsed trace shared by the parsers (trace_*.c) and the call
 * tree builder.  Parsers feed records to af_trace_record(); it keeps one
 * stack per thread and charges time to the prefix tree as it goes, so memory
 * grows with distinct call paths, never with records.
 */
#ifndef AF_TRACE_H
#define AF_TRACE_H

#include <pthread.h>

#include "names.h"
#include "ptree.h"

/** The names of a trace's default view: made and owned by the call tree
 * (tree.c); the trace only holds them. */
typedef struct af_shared_names af_shared_names;

typedef struct af_method {
	uint32_t id;      /* method id, low two bits clear */
	const char *cls;  /* class as written (slash or dotted form) */
	const char *name;
	const char *sig;  /* descriptor, "" when absent */
	const char *file; /* source file, "" when absent */
} af_method;

typedef struct af_thread {
	uint32_t record_tid; /* id in records (8 or 16 bits) */
	uint32_t tid;        /* full id from the key, else record_tid */
	const char *name;    /* resolved at the end of parsing */
	uint32_t root;       /* root of this thread's subtree in trace->tree */
	uint32_t *stack;     /* node indices, innermost last */
	size_t depth, cap;
	uint32_t last[AF_CLOCK_RECORDED];     /* previous raw clock values */
	uint64_t elapsed[AF_CLOCK_RECORDED];  /* unwrapped time since first record */
	uint64_t empty[AF_CLOCK_RECORDED];    /* time with an empty stack, pending */
	uint64_t records, calls;
	uint64_t charged[AF_CLOCK_RECORDED];  /* time charged to frames so far */
	uint64_t waited;   /* dual clock: off-CPU time of its call paths */
	long long first_off;               /* byte offset of its first record */
	uint32_t pid;        /* its process (slices), 0 when unknown */
	const char *process; /* that process's name (slices), NULL when unknown */
} af_thread;

/* A thread named by the key or by a streaming thread item. */
typedef struct af_decl_thread {
	uint32_t tid;
	const char *name;
	uint32_t full;  /* ART V2: the kernel id, when `tid` is a dense index */
} af_decl_thread;

struct af_trace {
	af_mem *mem;              /* allocator and budget, shared with trees */
	size_t input_len;         /* bytes parsed (after gzip), for messages */
	af_trace_info info;
	af_limits limits;
	af_ptree tree;            /* keyed by method id; one root per thread */
	size_t split;             /* > 0: the paths from this one on were read
	                             by a second core, and have no parent before
	                             it (af_regular_split); 0: one core */

	af_method *methods;
	size_t nmethods, methods_cap;
	af_u32map method_index;   /* method id -> index in methods */
	uint32_t *dense;          /* the same without hashing, made at the end
	                             when the ids are dense, as ART's are (it
	                             numbers its methods; Dalvik's ids are
	                             addresses): entry (id - dense_lo) / 4 holds
	                             the index + 1, 0 for none; else NULL */
	uint32_t dense_lo;
	size_t dense_len;
	uint8_t *called;          /* a bit per method: some call path names it */

	af_decl_thread *decl;     /* declared threads, in key order */
	size_t ndecl, decl_cap;

	af_thread *threads;       /* threads with records, in order of first record */
	size_t nthreads, threads_cap;
	uint32_t *thread_of;      /* record tid -> thread index + 1, 0 = none */
	size_t thread_of_len;     /* entries, grown to the highest tid seen */
	uint32_t tid_mask;        /* 0xFF for 9-byte records, else 0xFFFF */

	int clock_named;          /* the key's clock= line was read */
	int single_clock;         /* which clock a one-clock trace holds */
	af_names frames;          /* folded input: frame names (tree keys) */
	af_names libs;            /* native frames: their libraries' names */
	uint32_t *frame_lib;      /* per frame name: its library in libs (AF_NONE:
	                             none); NULL while no frame has one */
	size_t frame_lib_cap;
	const size_t *input_starts; /* several folded inputs read as one: where
	                             each begins (line numbers restart there) */
	size_t ninputs;
	int flamechart;           /* nodes in call or line order, unmerged */
	int wakers;               /* af_parse_options.wakers */
	int jobs;                 /* af_parse_options.jobs */
	uint32_t tick_block;      /* the 4 MiB of input af_trace_progress() last
	                             ticked in; UINT32_MAX: none yet (in a hole:
	                             the trace's size stays what it was) */
	const char *sample_type;  /* af_parse_options.sample_type (the caller's) */
	const af_btrace_mapping *btrace_mapping; /* af_parse_options' (the caller's) */
	const char *heap_view;    /* af_parse_options.heap_view (the caller's) */
	unsigned heap_dump;       /* af_parse_options.heap_dump */
	int no_demangle;          /* af_parse_options.no_demangle */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	uint64_t (*totals)[AF_CLOCK_RECORDED]; /* per raw node, its subtree's time:
	                             lets drawing skip what is under a pixel */
	uint64_t (*started)[AF_CLOCK_RECORDED]; /* flame chart: per node, the thread's
	                             charged time when the call began */
	size_t started_cap;
	pthread_mutex_t names_lock; /* guards the lazy fields below */
	af_shared_names *shared_names; /* made by the first tree that needs them */
	void (*shared_names_unref)(af_shared_names *s); /* set with them by the
	                             call tree (tree.c), which owns their type */
	char *arena;              /* newest string chunk; each links the previous */
	char *arena_pos;
	size_t arena_left;
	uint64_t records_begin;   /* byte where the records (and a streaming
	                             trace's items) begin */
	/** Called with the parsed bytes (inflated, a pair joined) once the
	 * parse is finished, while they are still there: the record dump
	 * (dump.c) reads them again.  NULL for none. */
	af_status (*walk)(af_trace *t, const uint8_t *buf, size_t len, af_error *err);
	void *walk_ctx;
	/* A large input mapped from a file (input.c): the pages well behind
	 * the parse are handed back as it goes (af_trace_tick), so that its
	 * memory is its call paths', not its size.  NULL for other inputs. */
	const uint8_t *window;
	size_t window_len;
	size_t window_freed;      /* bytes from `window` handed back */
};

/** Notes that frame name `frame` (an id in t->frames) is a function of
 * the library named by the `len` bytes at `lib` (its base name).  A name
 * found in two libraries is one frame (as folded stacks have it) and names
 * both, in the order found, "libA.so, libB.so"; past four, the rest is
 * left out.  -1 when out of memory. */
int af_trace_frame_lib(af_trace *t, uint32_t frame, const char *lib, size_t len);

/** Copies `len` bytes into the trace's arena, NUL-terminated. */
char *af_trace_strdup(af_trace *t, const char *s, size_t len);

/** Allocates a trace with the limits resolved into `*out`; AF_OK, or
 * AF_ERR_NOMEM (AF_ERR_LIMIT: the memory budget is too small for it) with
 * `*out` NULL and `err` saying why. */
af_status af_trace_new(const af_parse_options *opt, af_trace **out, af_error *err);

/** A trace that takes records for some of `t`'s threads on another core:
 * `t`'s limits and record width, nothing else.  NULL when out of memory. */
af_trace *af_trace_worker(const af_trace *t);

/** Moves the threads and call paths a worker built into `t`, which has
 * records of other threads only (the threads stay in order of their first
 * record).  `w` is left empty for af_trace_free().  Returns AF_OK, or an
 * error when out of memory or over the node limit. */
af_status af_trace_absorb(af_trace *t, af_trace *w, af_error *err);

/** Finds method `mid` (low two bits clear) in the method table: 1 and its
 * index in *idx, or 0 when the table does not name it. */
static inline int af_trace_method(const af_trace *t, uint32_t mid, uint32_t *idx)
{
	if (t->dense) {
		size_t k = (size_t)((mid - t->dense_lo) >> 2);
		if (mid < t->dense_lo || k >= t->dense_len || !t->dense[k])
			return 0;
		*idx = t->dense[k] - 1;
		return 1;
	}
	return af_u32map_get(&t->method_index, mid, idx);
}

/* af_trace_progress() ticks once in each 2^AF_TICK_SHIFT bytes. */
#define AF_TICK_SHIFT 22

/** Every 4 MiB of input: reports progress, and where the input is a
 * window (af_trace.window), lets go of the pages the parse has left
 * behind.  `at` is where the parse is in the bytes. */
void af_trace_tick(af_trace *t, const uint8_t *at, size_t done, size_t total);

/** Hands back the pages of the window well behind `at` (a pass that
 * starts over is followed again); nothing when the input is no window. */
void af_trace_window(af_trace *t, const uint8_t *at);

/** The readers' call, at each record, packet or line (`done` bytes read,
 * in the pass's own count): af_trace_tick() at the first call in each
 * 4 MiB of `done`, however far apart the calls are (a Perfetto packet, a
 * V2 block or a systrace line may step over a boundary), and again when a
 * pass starts over.  One shift and compare on the record loops' path. */
static inline void af_trace_progress(af_trace *t, const uint8_t *at, size_t done,
                                     size_t total)
{
	if (AF_UNLIKELY((done >> AF_TICK_SHIFT) != t->tick_block)) {
		t->tick_block = (uint32_t)(done >> AF_TICK_SHIFT);
		if (t->progress || t->window)
			af_trace_tick(t, at, done, total);
	}
}

/** af_trace_progress() with no progress told: a pass that looks ahead of
 * the parse hands the window's pages back behind it all the same. */
static inline void af_trace_skim(af_trace *t, const uint8_t *at, size_t done)
{
	if (AF_UNLIKELY((done >> AF_TICK_SHIFT) != t->tick_block)) {
		t->tick_block = (uint32_t)(done >> AF_TICK_SHIFT);
		af_trace_window(t, at);
	}
}

/** Charges the time since a thread's previous record to its innermost
 * frame (or, with none open, to its time before the first call). */
static inline void af_trace_charge(af_trace *t, af_thread *th, uint32_t t0, uint32_t t1)
{
	const uint32_t now[AF_CLOCK_RECORDED] = {[AF_CLOCK_CPU] = t0, [AF_CLOCK_WALL] = t1};
	uint32_t d[AF_CLOCK_RECORDED];
	int c;

	for (c = 0; c < AF_CLOCK_RECORDED; c++) {
		d[c] = now[c] - th->last[c]; /* unwraps modulo 2^32 */
		if (AF_UNLIKELY(d[c] > 0x7FFFFFFFu)) {
			t->info.time_backwards[c]++;
			d[c] = 0;
		}
		th->last[c] = now[c];
		th->elapsed[c] += d[c];
	}
	if (th->depth) {
		af_pnode *top = &t->tree.nodes[th->stack[th->depth - 1]];
		for (c = 0; c < AF_CLOCK_RECORDED; c++) {
			top->self[c] += d[c];
			th->charged[c] += d[c];
		}
	} else {
		for (c = 0; c < AF_CLOCK_RECORDED; c++)
			th->empty[c] += d[c];
	}
}

/** af_trace_record() for every record its inline part does not take. */
af_status af_trace_record_rest(af_trace *t, uint32_t tid, uint32_t method_action,
                               uint32_t t0, uint32_t t1, long long off,
                               af_error *err);

/** The error for a call path af_ptree_child() could not add. */
af_status af_trace_no_path(const af_trace *t, long long off, af_error *err);

/** Feeds one record.  `t0` is the thread-cpu time and `t1` the wall time;
 * a one-clock record passes its value in both.  `off` is the record's
 * byte offset, for messages.
 *
 * Inline, for the parsers' record loops: the common records (a thread
 * already seen, an enter merged into the tree with room on the stack, an
 * exit with a frame open) are taken here; the rest, and every failure, by
 * af_trace_record_rest(). */
static inline af_status af_trace_record(af_trace *t, uint32_t tid,
                                        uint32_t method_action, uint32_t t0,
                                        uint32_t t1, long long off, af_error *err)
{
	uint32_t k = tid & t->tid_mask, act = method_action & 3;
	uint32_t mid = method_action & ~3u, node;
	af_thread *th;

	if (AF_UNLIKELY(k >= t->thread_of_len || !t->thread_of[k] || t->flamechart))
		return af_trace_record_rest(t, tid, method_action, t0, t1, off, err);
	th = &t->threads[t->thread_of[k] - 1];
	if (AF_UNLIKELY(th->records == 0 || act == 3 ||
	                (act == 0 ? th->depth >= th->cap || th->depth >= t->limits.max_depth
	                          : th->depth == 0)))
		return af_trace_record_rest(t, tid, method_action, t0, t1, off, err);
	t->info.records++;
	th->records++;
	af_trace_charge(t, th, t0, t1);
	if (act == 0) {
		t->info.enters++;
		node = af_ptree_child(&t->tree, th->depth ? th->stack[th->depth - 1] : th->root,
		                      mid);
		if (AF_UNLIKELY(node == AF_NONE))
			return af_trace_no_path(t, off, err);
		t->tree.nodes[node].calls++;
		th->calls++;
		th->stack[th->depth++] = node;
	} else {
		if (act == 1)
			t->info.exits++;
		else
			t->info.unwinds++;
		node = th->stack[--th->depth];
		if (t->tree.nodes[node].key != mid)
			t->info.mismatched_exits++;
	}
	return AF_OK;
}

/** Declares a thread name (key line or streaming item at `off`). */
af_status af_trace_declare_thread(af_trace *t, uint32_t tid, const char *name,
                                  size_t len, long long off, af_error *err);

/** Adds a method from its key line (tab-separated fields, no line end). */
af_status af_trace_method_line(af_trace *t, const char *line, size_t len,
                               long long off, af_error *err);

/** Parses a key text (regular key, or a streaming summary).  Stops after
 * the "*end" line and stores its end in *end (relative to `text`).
 * `base` is the offset of `text` in the input, for messages.  When
 * `summary` is set, the version number is not checked against anything. */
af_status af_trace_key(af_trace *t, const uint8_t *text, size_t len,
                       long long base, size_t *end, af_error *err);

/** Parses the records of a regular trace (header included) at `data`. */
af_status af_trace_regular_data(af_trace *t, const uint8_t *data, size_t len,
                                long long base, af_error *err);

/** af_trace_open() into a trace made with af_trace_new() (input.c). */
af_status af_trace_open_into(af_trace *t, const char *path, af_error *err);

/** af_trace_parse() into a trace made with af_trace_new() (input.c). */
af_status af_trace_parse_into(af_trace *t, const void *buf, size_t len, af_error *err);

/** Parses collapsed-stack text (flamegraph.pl's input). */
af_status af_trace_folded(af_trace *t, const uint8_t *buf, size_t len,
                          af_error *err);

/** Parses a pprof profile (profile.proto, not gzip'd) (pprof.c). */
af_status af_trace_pprof(af_trace *t, const uint8_t *buf, size_t len, af_error *err);

/** How much the bytes look like a pprof profile: 2 when their top-level
 * fields are a Profile's and cover them exactly, 1 when they are sound up
 * to where the bytes end (a cut file, or the first bytes of a larger
 * input), 0 when they are not a Profile's. */
int af_pprof_detect(const uint8_t *buf, size_t len);

/** 1 when the text looks like folded stacks: its first line is one. */
int af_folded_detect(const uint8_t *buf, size_t len);

/** For text whose first line is not folded stacks: why, and the byte
 * where the count should be; NULL when the bytes are not text at all. */
const char *af_folded_reject(const uint8_t *buf, size_t len, size_t *off);

/** Parses a whole ART streaming trace. */
af_status af_trace_streaming(af_trace *t, const uint8_t *buf, size_t len,
                             af_error *err);

/** Takes one ART V2 record: `tid` the dense record id, `ma` the dense
 * method id | action, times in µs; `off` the record's byte. */
typedef af_status (*af_v2_record_fn)(void *ctx, long long off, uint32_t tid,
                                     uint32_t ma, uint32_t t0, uint32_t t1,
                                     af_error *err);

/** Reads an ART V2 trace's records to `cb` (trace_v2.c).  With `declare`
 * the threads, methods and summary go into `t` first (the parse); without
 * (the dump, after the parse) they are only looked up. */
af_status af_trace_v2_walk(af_trace *t, const uint8_t *buf, size_t len, int declare,
                           af_v2_record_fn cb, void *ctx, af_error *err);

/** An af_v2_record_fn that hands the record to af_trace_record() (ctx the
 * trace): the parse of ART V2, long-running methods and btrace traces. */
af_status af_v2_feed(void *ctx, long long off, uint32_t tid, uint32_t ma,
                     uint32_t t0, uint32_t t1, af_error *err);

/** Parses a whole ART V2 (compact) trace. */
af_status af_trace_v2(af_trace *t, const uint8_t *buf, size_t len, af_error *err);

/* The packet reading ART V2 and long-running methods traces share
 * (trace_v2.c; trace-formats.md §6.2, §7). */

/** A kernel thread a packet or a block names: where its name is (name_len
 * 0 for none), and `seq`, which of several entries of one id wins (the
 * highest). */
typedef struct af_v2_tid {
	uint32_t tid;
	size_t name_off, name_len;
	uint64_t seq;
} af_v2_tid;

/** Reads a SLEB128 of at most 10 bytes from p (before `end`): 0 and the
 * value (two's complement) in *out and its length in *n, -1 when it runs
 * past `end`, -2 when it is longer than 64 bits. */
int af_v2_sleb(const uint8_t *p, const uint8_t *end, uint64_t *out, size_t *n);

/** The error for a LEB128 af_v2_sleb() could not read (r its -1 or -2). */
af_status af_v2_bad_leb(int r, const char *what, long long off, af_error *err);

/** What both readers index a trace by: the method pointers (sorted, unique,
 * a method's rank its dense id), the kernel threads (sorted, unique, the
 * rank + 1 a thread's record id), and per thread (by record id - 1) the
 * methods entered and not yet left, innermost last, and the last method
 * entered + 1 (0 for none). */
typedef struct af_v2_index {
	uint64_t *ptrs;
	size_t nptrs, ptrs_cap;
	af_v2_tid *tids;
	size_t ntids, tids_cap;
	uint32_t **stack;
	size_t *depth, *cap, nstacks;
	uint32_t *last_enter;
	af_u64map unknown;      /* pointers no packet names: their dense id */
	uint32_t nunknown;
} af_v2_index;

/** Sorts the method pointers and drops repeats. */
void af_v2_sort_ptrs(af_v2_index *ix);

/** The rank of `ptr` among the sorted pointers: 1 and *idx, or 0 when it
 * is not one of them. */
int af_v2_find_ptr(const af_v2_index *ix, uint64_t ptr, uint32_t *idx);

/** The dense index of `ptr` as af_v2_find_ptr() gives it, or for a pointer
 * no packet names one past them all, the same for each record of it (its
 * calls are drawn as an unknown method): 0, -1 out of memory, -2 past 2^30
 * methods. */
int af_v2_method_or_unknown(af_v2_index *ix, af_mem *mem, uint64_t ptr,
                            uint32_t *idx);

/** Sorts the threads by id and keeps one of each, the highest `seq`. */
void af_v2_sort_tids(af_v2_index *ix);

/** The record id (rank + 1) of kernel thread `tid` among the sorted
 * threads, 0 for none. */
uint32_t af_v2_find_tid(const af_v2_index *ix, uint32_t tid);

/** Empty stacks for the sorted threads (at least one): 0, or -1 out of
 * memory (af_v2_index_free() gives back what was taken). */
int af_v2_stacks_new(af_v2_index *ix, af_mem *mem);

/** Pushes method `m` on the stack of thread k (record id - 1), none past
 * `max_depth` (the record machine stops that with its message): 0, or -1
 * out of memory. */
int af_v2_push(af_v2_index *ix, af_mem *mem, uint32_t k, uint32_t m,
               uint32_t max_depth);

void af_v2_index_free(af_v2_index *ix, af_mem *mem);

/** Declares the method of the method packet at byte `pos` as its dense id
 * (`descriptors`: a class written "Lpkg/Cls;" is named dotted); `line`
 * the caller's buffer, grown as needed. */
af_status af_v2_declare_method(af_trace *t, const af_v2_index *ix, const uint8_t *buf,
                               size_t pos, int descriptors, char **line,
                               size_t *line_cap, af_error *err);

/** 1 when the bytes begin as an ART long-running methods trace does: a
 * "SLOW" header of version 0xF6, or (the headerless dump) an event block
 * or a method packet whose length fits the input (trace_v6.c). */
int af_v6_detect(const uint8_t *buf, size_t len);

/** Reads an ART long-running methods trace's records to `cb`, as
 * af_trace_v2_walk() reads a V2 trace's (trace_v6.c); times µs of wall
 * time since the header's start. */
af_status af_trace_v6_walk(af_trace *t, const uint8_t *buf, size_t len, int declare,
                           af_v2_record_fn cb, void *ctx, af_error *err);

/** Parses a whole ART long-running methods trace. */
af_status af_trace_v6(af_trace *t, const uint8_t *buf, size_t len, af_error *err);

/** 1 when the bytes begin as a btrace 2.0 trace does: the u4 format
 * version 5 (btrace.c).  Nothing else the library reads begins so. */
int af_btrace_detect(const uint8_t *buf, size_t len);

/** Reads a btrace 2.0 trace's calls as enter and exit records to `cb`, in
 * each thread's time order, thread after thread (btrace.c): `tid` the
 * thread id (15 bits), `ma` the method id (mid << 2) | action, times in
 * µs of wall time (t0 = t1); `off` the byte of the call's record.  With
 * `declare` the threads and methods go into `t` first (the parse); without
 * (the dump, after the parse) they are only looked up. */
af_status af_trace_btrace_walk(af_trace *t, const uint8_t *buf, size_t len,
                               int declare, af_v2_record_fn cb, void *ctx,
                               af_error *err);

/** Parses a whole btrace 2.0 trace. */
af_status af_trace_btrace(af_trace *t, const uint8_t *buf, size_t len, af_error *err);

/** Marks the clocks the records hold: both for two-field records, else the
 * one the key named (thread-cpu when it named none, as other readers do). */
void af_trace_set_clocks(af_trace *t, int dual);

/** Closes the parse: counts open frames, names threads. */
af_status af_trace_finish(af_trace *t, af_error *err);

/** The interned display name of method `mid` in `names`: "pkg.Class.method"
 * (slashes turned into dots), with the readable parameter list when
 * `signatures` is set; a placeholder naming the id for unknown methods. */
uint32_t af_trace_frame_name(const af_trace *t, uint32_t mid, int signatures,
                             af_names *names);

/** 1 when thread `th` passes the thread filter of `opt` (a name, or its
 * full or record id); every thread passes when there is no filter. */
int af_thread_selected(const af_thread *th, const af_tree_options *opt);

/** Folded input: 1 when the frame of raw node `node` (a first frame: a child
 * of the root) passes the thread filter of `opt`, which for folded text
 * names first frames exactly; 1 for every frame when there is no filter. */
int af_first_frame_selected(const af_trace *trace, uint32_t node,
                            const af_tree_options *opt);

/** Why a graph or table of the threads `opt` selects is empty. */
const char *af_empty_message(const af_trace *trace, const af_tree_options *opt);

#endif
