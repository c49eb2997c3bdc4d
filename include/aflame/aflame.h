/*
 * aflame.h - public API of libaflame: Android method traces to flame graphs.
 *
 * The pipeline runs one way:
 *
 *   bytes --af_trace_parse--> af_trace --af_tree_from_trace--> af_tree
 *         --af_layout_build--> af_layout --af_svg_write / af_cairo_write--> file
 *
 * Every function that can fail returns an af_status and, when given a
 * non-NULL af_error, fills it with a message and the byte offset where the
 * problem was found.  The library never prints and never exits.
 */
#ifndef AFLAME_H
#define AFLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AF_VERSION_STRING "0.1.0"

#if defined(__GNUC__)
#define AF_NODISCARD __attribute__((warn_unused_result))
#else
#define AF_NODISCARD
#endif

/* ------------------------------------------------------------------ */
/* Errors                                                              */

typedef enum af_status {
	AF_OK = 0,
	AF_ERR_NOMEM,     /* an allocation failed */
	AF_ERR_IO,        /* reading or writing a file failed (errno kept) */
	AF_ERR_FORMAT,    /* the bytes are not a trace this library knows */
	AF_ERR_TRUNCATED, /* the input ends inside a structure */
	AF_ERR_KEY,       /* the text key section is malformed */
	AF_ERR_HEADER,    /* the binary data header is malformed */
	AF_ERR_RECORD,    /* a record or streaming item is malformed */
	AF_ERR_GZIP,      /* gzip data is corrupt */
	AF_ERR_LIMIT,     /* a configured limit was exceeded */
	AF_ERR_CLOCK,     /* the requested clock is not in the trace */
	AF_ERR_ARG,       /* an argument is out of range */
	AF_ERR_FONT,      /* the pinned font could not be loaded */
	AF_ERR_RENDER,    /* cairo failed to draw or encode */
	AF_ERR_EMPTY      /* nothing to draw: no thread has any record */
} af_status;

/** What went wrong, where.  `offset` is the byte offset in the (decompressed)
 * input, or -1 when no position applies; `line` is the 1-based line of a
 * text file read line by line (a mapping file), or 0. */
typedef struct af_error {
	af_status status;
	long long offset;
	char message[256];
	long long line;
} af_error;

/** A static, human-readable description of `status`. Never NULL. */
const char *af_strerror(af_status status);

/** Copies `len` bytes of `text` into `out` (`size` bytes, always
 * NUL-terminated when `size` > 0) made safe to print on a terminal: bytes
 * that are not UTF-8 become \xNN, control characters (C0, DEL) \xNN or \t
 * \n \r, C1 controls, bidirectional controls and line separators \uNNNN;
 * the rest is copied.  Backslashes are not escaped, so escaping twice
 * changes nothing.  A character or escape that does not fit is left out
 * with everything after it.  Returns the bytes written, NUL excluded.
 * af_error messages are already escaped so (they quote input bytes); use
 * this for other text from an input (thread names, af_trace_info.vm). */
size_t af_text_escape(char *out, size_t size, const char *text, size_t len);

/* ------------------------------------------------------------------ */
/* Memory                                                              */

/** Where the library's memory comes from.  All three functions are
 * required; `ctx` is passed to each.  `malloc` and `realloc` return NULL
 * when they cannot give the bytes (the library then fails with
 * AF_ERR_NOMEM and frees what it took); `realloc` keeps the old block
 * when it fails; `free` takes NULL.  Blocks need the alignment of
 * max_align_t, as malloc's have.
 *
 * A trace takes its allocator from af_parse_options; the trees built from
 * it, their layouts and the renderers' and af_folded_write()'s scratch use
 * the same one and count against the same budget (af_limits.max_memory).
 * The struct is copied: it need not outlive the call, but `ctx` must
 * outlive every object made with it.  Objects made from one trace may be
 * used from several threads at once (the command builds per-thread graphs
 * in parallel): the functions must then be thread-safe, as malloc is.
 *
 * What the library does not allocate itself is outside it: cairo,
 * fontconfig and libpng inside cairo, and stdio's FILE buffers.  zlib's
 * state and the PNG's pixels do go through it. */
typedef struct af_allocator {
	void *(*malloc)(void *ctx, size_t size);
	void *(*realloc)(void *ctx, void *ptr, size_t size);
	void (*free)(void *ctx, void *ptr);
	void *ctx;
} af_allocator;

/* ------------------------------------------------------------------ */
/* Traces                                                              */

typedef enum af_clock {
	AF_CLOCK_WALL = 0, /* wall-clock time (the default) */
	AF_CLOCK_CPU = 1,  /* thread-cpu time */
	AF_CLOCK_WAIT = 2, /* off-CPU time, derived from dual-clock traces: for
	                      each call path of a graph, its wall self time
	                      minus its thread-cpu self time, never below zero
	                      (time blocked on locks, I/O, sleeping); totals
	                      add these up.  Records never hold it. */
	AF_CLOCK_COUNT
} af_clock;

typedef enum af_variant {
	AF_VARIANT_REGULAR,   /* key text followed by binary data, one file */
	AF_VARIANT_STREAMING, /* ART streaming: header, inline items, summary */
	AF_VARIANT_KEY_DATA,  /* legacy base.key + base.data pair */
	AF_VARIANT_FOLDED,    /* collapsed stacks: "frame;frame COUNT" lines */
	AF_VARIANT_ART_V2,    /* ART V2 compact trace (versions 4, 5, 0xF4, 0xF5) */
	AF_VARIANT_SYSTRACE,  /* atrace/systrace text (plain, TRACE: + zlib, or
	                         Systrace HTML): slices as calls, wall time */
	AF_VARIANT_PERFETTO,  /* Perfetto trace: its atrace and TrackEvent
	                         slices as calls, wall time */
	AF_VARIANT_BTRACE,    /* btrace 2.0 (RheaTrace) binary method trace:
	                         one 16-byte record per finished call, names
	                         from its method mapping file, wall time */
	AF_VARIANT_ART_V6     /* ART long-running methods trace (version 6:
	                         0xF6 "SLOW" header, or the headerless dump of
	                         earlier builds), wall time */
} af_variant;

/** Limits on what a trace may make the parser build.  Zero means default. */
typedef struct af_limits {
	uint32_t max_depth;     /* deepest stack per thread (default 1,000,000) */
	uint32_t max_nodes;     /* distinct call paths per thread (default 50M) */
	uint32_t max_name_len;  /* longest key line or folded frame name kept
	                           (default 1 MiB) */
	uint64_t max_input;     /* largest (decompressed) input (default 2 GiB) */
	uint64_t max_memory;    /* bytes the trace and everything made from it
	                           (trees, layouts, rendering scratch) may hold
	                           at once; past it a call fails with
	                           AF_ERR_LIMIT.  Default: half the physical
	                           memory (4 GiB when it cannot be told);
	                           UINT64_MAX for no budget */
} af_limits;

/** Counts describing a parsed trace, for `-v` and for tests. */
typedef struct af_trace_info {
	af_variant variant;
	unsigned version;        /* data header version: 1, 2, 3, 0xF2, 0xF3;
	                            ART V2: 4, 5, 0xF4, 0xF5; long-running
	                            methods: 0xF6, 6 (headerless); btrace: 5 */
	unsigned record_size;    /* bytes per record: 9, 10 or 14 (0 for ART
	                            V2, whose records are LEB128) */
	int has_clock[AF_CLOCK_COUNT]; /* wait: set when both others are */
	const char *vm;          /* "art", "dalvik" or "" (owned by the trace) */
	int overflow;            /* the key said data-file-overflow=true */
	int gzip;                /* the input was gzip-compressed */
	int summary_missing;     /* streaming trace cut before its summary */
	int clock_assumed;       /* the clock was inferred, not read */
	uint64_t truncated_bytes;/* bytes of a partial last record, ignored */
	uint64_t data_end;       /* byte where the last whole record or item
	                            ends: where a cut-off record or a missing
	                            summary begins */
	uint32_t threads_declared; /* distinct ids in *threads / thread items */
	uint32_t threads_with_records;
	uint32_t methods;        /* entries in *methods / method items */
	uint64_t records;
	uint64_t enters, exits, unwinds;
	uint64_t orphan_exits;   /* exits on an empty stack (re-rooted) */
	uint64_t mismatched_exits; /* exits naming another method than the top */
	uint64_t open_at_end;    /* frames still on a stack at the end */
	uint64_t unknown_method_calls; /* calls of ids missing from *methods */
	uint32_t unknown_methods;  /* distinct such ids */
	uint32_t unknown_threads;  /* record tids missing from *threads */
	uint64_t bad_actions;    /* records with action 3 (ignored) */
	uint64_t time_backwards[AF_CLOCK_COUNT]; /* steps back, counted as zero
	                            (never any for the derived wait clock) */
	uint32_t thread_id_collisions; /* *threads ids equal after truncation */
	uint64_t lines;          /* folded input: lines used; systrace: ftrace
	                            event lines read */
	uint64_t ignored_lines;  /* folded input: lines not of the form;
	                            systrace: lines that are no ftrace event */
	uint64_t first_ignored_line; /* the first such line's byte */
	uint32_t first_ignored_input; /* several inputs (af_trace_open_many()):
	                            the one that line is in, from 0; the byte
	                            counts from its start */
	int differential;        /* folded input with two counts per line */
	unsigned decimals;       /* folded input: its counts are kept exactly as
	                            whole numbers of 10^-decimals (0 to 6: the
	                            most any count needs, finer fractions
	                            rounded); every count and total of its
	                            trees is in that unit */
	int pprof;               /* the input was a pprof profile (profile.proto),
	                            read as stacks with values: variant is
	                            AF_VARIANT_FOLDED, each sample a line */
	const char *sample_type; /* pprof: the sample type drawn ("cpu",
	                            "alloc_space"), owned by the trace; NULL
	                            for other inputs */
	int perfetto_profile;    /* the input was a Perfetto trace's profile,
	                            read as stacks with values (variant
	                            AF_VARIANT_FOLDED, threads of the tree
	                            named): 1 heapprofd heap dumps, 2 CPU
	                            samples (perf_sample); 0 for other inputs */
	const char *sample_unit; /* pprof: its unit ("nanoseconds", "bytes",
	                            "count"), owned by the trace; NULL else */
	/* Slices (systrace text): begin/end pairs as calls, in µs of wall time.
	 * enters counts the begins, exits the ends that closed one. */
	uint64_t unmatched_ends;   /* ends on a thread with no slice open: ignored */
	uint64_t async_ignored;    /* async begins and ends (S|, F|): ignored */
	uint64_t counters_ignored; /* counters (C|): ignored */
	uint64_t marks_ignored;    /* other trace marks (clock syncs, instants,
	                              kinds not known): ignored */
	uint32_t processes;        /* distinct processes of the slices' threads */
	uint64_t trailing_bytes;   /* after a compressed trace's zlib stream:
	                              ignored (atrace leaves some) */
	uint64_t events_no_state;  /* Perfetto: track events of a sequence whose
	                              interned state was lost: ignored */
	/* btrace 2.0: calls rebuilt from each record's begin and duration;
	 * records counts the calls, enters and exits the events made of them. */
	uint64_t calls_clipped;    /* calls that began inside another call of
	                              their thread and ended after it: cut at
	                              its end, so that they nest */
	uint64_t calls_stale;      /* calls that ended before the trace's
	                              latest (re)start: left from an earlier
	                              run, dropped */
	uint64_t starts_clamped;   /* calls begun before that start (or before
	                              tracing began): begun at it instead */
	int names_missing;         /* no method mapping was given: methods are
	                              named "method#ID" */
} af_trace_info;

typedef struct af_trace af_trace;

/** A btrace 2.0 method mapping file (methodMapping.txt, made by btrace's
 * Gradle plugin): a "#<uuid>" line, then "<id>,<access flags>,<class>
 * <method>[ <descriptor>]" lines, the class dotted, the descriptor left
 * out for native methods.  A btrace trace names its methods by these ids
 * only.  Read-only once parsed: one mapping may serve several parses at
 * once. */
typedef struct af_btrace_mapping af_btrace_mapping;

/** Parses a btrace method mapping held in memory.  A malformed line, an
 * id given twice or past the trace's 23 bits fail with AF_ERR_FORMAT and
 * the line in err->line (err->offset is -1).  Free with
 * af_btrace_mapping_free(). */
AF_NODISCARD af_status af_btrace_mapping_parse(const void *buf, size_t len,
                                               af_btrace_mapping **out,
                                               af_error *err);

/** Reads and parses the btrace method mapping at `path` (at most 2 GiB:
 * AF_ERR_LIMIT past it). */
AF_NODISCARD af_status af_btrace_mapping_load(const char *path,
                                              af_btrace_mapping **out,
                                              af_error *err);

/** Number of methods the mapping names. */
size_t af_btrace_mapping_count(const af_btrace_mapping *m);

/** Frees a mapping.  NULL is a no-op. */
void af_btrace_mapping_free(af_btrace_mapping *m);

/** Parse options.  A zeroed struct gives the defaults. */
typedef struct af_parse_options {
	af_limits limits;
	/** Called now and then while records are read, with the bytes done and
	 * the bytes in all; NULL for none. */
	void (*progress)(void *ctx, uint64_t done, uint64_t total);
	void *progress_ctx;
	int flamechart;  /* a flame chart: traces keep every call apart, placed
	                    at the time it began (Android Studio's Call Chart);
	                    folded input keeps the lines' order, merging a frame
	                    only with the same frame of the line before */
	int jobs;        /* cores to read a regular trace's records on, each
	                    taking some of its threads: 0 = two for a large
	                    trace when the machine has them, 1 = the calling
	                    thread only, 2 or more = two whatever the size.
	                    The result is the same either way. */
	const af_allocator *allocator; /* NULL: malloc, realloc and free */
	int wakers;      /* folded input of chain graphs: the frames after the
	                    first "--" separator (a waker's stack) are named
	                    with "_[w]", as flamegraph.pl --colors chain names
	                    them (the chain palette colours them by it; labels
	                    and tooltips leave it out) */
	const char *sample_type; /* pprof input: the sample type to draw, by
	                    name ("alloc_space") or index ("0"); NULL: the
	                    profile's default, else its last, as pprof
	                    chooses.  Other inputs ignore it. */
	const af_btrace_mapping *btrace_mapping; /* btrace 2.0 input: the names
	                    of its method ids, borrowed for the parse (the
	                    trace copies what it uses).  NULL: methods are
	                    named "method#ID" (af_trace_info.names_missing).
	                    A record whose id the mapping lacks fails the
	                    parse.  Other inputs ignore it. */
	const char *heap_view; /* heapprofd heap dumps (Perfetto traces): the
	                    values drawn, "unreleased-size" (NULL: the
	                    default), "unreleased-count", "total-size" or
	                    "total-count".  Other inputs ignore it. */
	unsigned heap_dump; /* heapprofd: the dump drawn, from 1 in the order
	                    of each packet sequence; 0: the last */
	int no_demangle;  /* keep C++ names of native frames (pprof, Perfetto
	                    profiles) as written ("_ZN7android..."); by
	                    default they are demangled by libiberty.  Folded
	                    text is never demangled (as flamegraph.pl) */
} af_parse_options;

/** Parses a trace held in memory, detecting the variant from the bytes
 * (regular, streaming, folded text, gzip of any of these).  `buf` is only read during the call.
 * On success `*out` owns everything it needs; free it with af_trace_free(). */
AF_NODISCARD af_status af_trace_parse(const void *buf, size_t len,
                                      const af_parse_options *opt,
                                      af_trace **out, af_error *err);

/** Opens and parses `path`: "-" reads standard input; a gzip file is
 * inflated; a legacy pair is found from either file's path or the base name
 * (base.key + base.data).  NULL `opt` means defaults.
 *
 * A regular file is mapped, not copied.  When another program truncates it
 * while it is read, the call fails with AF_ERR_IO ("changed while it was
 * read: it shrank from N to M bytes") instead of the process dying of
 * SIGBUS: the first mapping installs a SIGBUS handler for the library's
 * own mappings, which hands every other SIGBUS to the handler installed
 * before it (or the default action).  A program that installs its own
 * SIGBUS handler after that call replaces it: a truncation then reaches
 * that handler, as it would without the library. */
AF_NODISCARD af_status af_trace_open(const char *path,
                                     const af_parse_options *opt,
                                     af_trace **out, af_error *err);

/** Opens and parses several files of folded stacks as one input, each
 * file's lines after the last one's, as flamegraph.pl and inferno read
 * theirs.  Each path is read as af_trace_open() reads it ("-" standard
 * input, gzip inflated) and must hold folded stacks.  On failure,
 * `*failed` (when not NULL) is the index of the path the error is about,
 * and err->offset counts from that file's start; it is `n` when the error
 * is about none in particular (out of memory).  One path is
 * af_trace_open(). */
AF_NODISCARD af_status af_trace_open_many(const char *const *paths, size_t n,
                                          const af_parse_options *opt,
                                          af_trace **out, size_t *failed,
                                          af_error *err);

/** Frees a trace and everything it owns.  NULL is a no-op. */
void af_trace_free(af_trace *trace);

/** The trace's counts; valid while the trace lives. */
const af_trace_info *af_trace_get_info(const af_trace *trace);

/** One thread of the trace, as described by af_trace_thread(). */
typedef struct af_thread_info {
	uint32_t tid;       /* full id from the key, else the record id */
	const char *name;   /* from the key or inline items, else "Thread-<id>" */
	uint64_t records;
	uint64_t calls;     /* enters, plus frames re-rooted by orphan exits */
	uint64_t time[AF_CLOCK_COUNT]; /* last minus first record, unwrapped
	                                  (wait: wall minus cpu, at least 0) */
	uint64_t total[AF_CLOCK_COUNT]; /* time its frames hold: its graph's
	                                   total (wait: summed over its call
	                                   paths by method, so a graph that
	                                   merges overloads may show less) */
	uint32_t pid;       /* its process (systrace input), 0 when unknown */
	const char *process; /* that process's name, NULL when unknown */
} af_thread_info;

/** Number of threads that have at least one record. */
size_t af_trace_thread_count(const af_trace *trace);

/** Fills `*info` for thread `i` (0 <= i < af_trace_thread_count()), in order
 * of first record.  Strings stay owned by the trace. */
void af_trace_thread(const af_trace *trace, size_t i, af_thread_info *info);

/** Writes every record of the trace at `path` (read as af_trace_open()
 * reads it: gzip, a key + data pair, "-" for standard input) in the order
 * of the file, as tab-separated text (dmtracedump -o, with more): a
 * header line, then a line per record with
 *   offset      its byte offset in the input (inflated; in a key + data
 *               pair, in the key and data joined, as messages count);
 *   tid         the thread id as written (8 or 16 bits);
 *   thread      the thread's name, escaped as af_text_escape() escapes;
 *   action      enter, exit, unwind, or bad (action 3, never written);
 *   method_id   the method id as written, low two bits clear ("0x1a4");
 *   method      its name as the graph names it, with its parameter
 *               types, or "(unknown method 0x1a4)";
 *   cpu, cpu_unwrapped, wall, wall_unwrapped
 *               each clock as written (32 bits), and unwrapped: the
 *               thread's first value plus every step forward since, a
 *               step back counting zero (as the profile counts it); "-"
 *               for a clock the trace does not hold.
 * The trace is parsed whole first, for its names; a trace that cannot be
 * parsed writes nothing.  Folded stacks have no records: AF_ERR_FORMAT. */
AF_NODISCARD af_status af_trace_dump(const char *path, const af_parse_options *opt,
                                     FILE *out, af_error *err);

/** As af_trace_dump(), of the `len` bytes at `buf`. */
AF_NODISCARD af_status af_trace_dump_buffer(const void *buf, size_t len,
                                            const af_parse_options *opt, FILE *out,
                                            af_error *err);

/* ------------------------------------------------------------------ */
/* Deobfuscation                                                       */

/** A ProGuard/R8 mapping file (mapping.txt): obfuscated class and method
 * names back to the originals.  Lookups only read it, so one mapping can
 * serve several threads at once. */
typedef struct af_mapping af_mapping;

/** Parses a mapping file held in memory: "original.Class -> obf:" class
 * lines, indented member lines ("int field -> a", "1:3:void m(int):12:14
 * -> b", line ranges optional), '#' comments (R8's JSON lines included).
 * A line longer than 1 MiB (the default limit on names) fails with
 * AF_ERR_LIMIT.  Time and memory grow linearly with the file, however many
 * methods share a name.  Errors carry the line in err->line.  Free with
 * af_mapping_free(). */
AF_NODISCARD af_status af_mapping_parse(const void *buf, size_t len,
                                        af_mapping **out, af_error *err);

/** As af_mapping_parse(), with the mapping's blocks from `allocator`
 * (NULL: malloc), which must stay usable until af_mapping_free().  No
 * budget applies: a mapping belongs to no trace. */
AF_NODISCARD af_status af_mapping_parse_with(const void *buf, size_t len,
                                             const af_allocator *allocator,
                                             af_mapping **out, af_error *err);

/** Reads and parses the mapping file at `path`; reading stops at a NUL
 * byte (an error naming its line) and at 2 GiB (AF_ERR_LIMIT). */
AF_NODISCARD af_status af_mapping_load(const char *path, af_mapping **out,
                                       af_error *err);

/** As af_mapping_load(), with the mapping's blocks (and the file's bytes
 * while it is parsed) from `allocator` (NULL: malloc). */
AF_NODISCARD af_status af_mapping_load_with(const char *path,
                                            const af_allocator *allocator,
                                            af_mapping **out, af_error *err);

/** Frees a mapping.  NULL is a no-op. */
void af_mapping_free(af_mapping *m);

/** The original name of obfuscated class `cls` (dotted, "a.b"), or NULL
 * when the mapping does not name it.  Owned by the mapping. */
const char *af_mapping_class(const af_mapping *m, const char *cls);

/** The original name of method `name` of obfuscated class `cls`, or NULL
 * when the mapping does not name it.  Where several methods had that
 * obfuscated name (overloads), `desc`, the method's descriptor as traces
 * record it ("(La/b;I)V", or NULL), picks the one whose original types it
 * gives; when nothing picks one, the candidates' names are joined by '|'
 * ("put|putAll"), as many as fit in 1 MiB, then "|(N more)" for the rest.
 * Frames R8 inlined into a method are not candidates.  A
 * name holding '.' is qualified with its own class (R8 moves methods
 * between classes).  Owned by the mapping.  The lookup takes a few
 * scratch blocks from the mapping's allocator; NULL too when they cannot be
 * had (the call tree's own lookups report that as AF_ERR_NOMEM). */
const char *af_mapping_method(const af_mapping *m, const char *cls,
                              const char *name, const char *desc);

/* ------------------------------------------------------------------ */
/* Call trees                                                          */

typedef struct af_tree af_tree;

/** How frames are named and which threads go in. */
typedef struct af_tree_options {
	int signatures;          /* append the readable parameter list */
	const char *const *threads; /* filter: names or decimal tids (first
	                               frames of folded input); NULL = all */
	size_t nthreads;
	int reverse;             /* merge stacks from the leaf (flamegraph.pl
	                            --reverse): each path is turned around */
	int one_thread;          /* only thread number `thread` (an index as in
	                            af_trace_thread()); the filter is ignored */
	size_t thread;
	double prune;            /* > 0, for drawing: call paths whose total on
	                            `prune_clock` is under this share (0..1) of
	                            the whole are kept only as a total in their
	                            first frame.  No frame that large is lost; the
	                            tree can no longer be written as folded text */
	af_clock prune_clock;
	/* Views: how the graph is cut and named.  Shape rules apply to the
	 * named tree (after `reverse`), in this order: exclude, focus,
	 * collapse_recursion, then min_share.  The expressions match frame
	 * names, never a trace's thread names (`threads` chooses threads);
	 * every frame of folded input is a frame. */
	const char *focus;       /* POSIX extended regex, or NULL: only paths
	                            through a frame whose name matches are kept,
	                            re-rooted at that frame (the outermost one
	                            when several on a path match) */
	const char *exclude;     /* regex, or NULL: frames whose name matches
	                            go, with everything they called and its time */
	int collapse_recursion;  /* a frame calling itself directly (A;A;A) is
	                            one frame: times and calls added */
	double min_share;        /* > 0 (a share, 0..1): frames whose total on
	                            `clock` is under this share of the graph's
	                            total go, with their time */
	af_clock clock;          /* the clock min_share measures */
	int strip_package;       /* labels without the package:
	                            "com.example.Main$Inner.run" is
	                            "Main$Inner.run" */
	const af_mapping *mapping; /* deobfuscates class and method names (and
	                            parameter types); NULL = none.  Borrowed for
	                            the call */
	const char *const *processes; /* filter: process names or decimal pids
	                            (inputs that know processes: systrace);
	                            with `threads`, a thread must pass both;
	                            NULL = all */
	size_t nprocesses;
} af_tree_options;

/** Builds the merged call tree of the selected threads: its root is "all",
 * its root's children are thread names (same-named threads merge), and
 * below them the frames.  Every node keeps self time for every clock and
 * its exact call count.  Fails with AF_ERR_EMPTY when no thread matches or
 * the view's rules leave nothing, AF_ERR_ARG on a bad regular expression. */
AF_NODISCARD af_status af_tree_from_trace(const af_trace *trace,
                                          const af_tree_options *opt,
                                          af_tree **out, af_error *err);

/** Writes `us` microseconds for people: "850 µs", "12.3 ms", "1.23 s". */
void af_format_us(char *out, size_t n, uint64_t us);

/** Frees a tree.  NULL is a no-op. */
void af_tree_free(af_tree *tree);

/** 1 when the tree's values are µs of a clock (trace input), 0 when they
 * are counts (folded input). */
int af_tree_is_time(const af_tree *tree);

/** The unit of the tree's values as its input names it: a pprof profile's
 * sample unit ("bytes", "nanoseconds", "count"...), which tooltips show
 * (bytes as KiB and MiB, nanoseconds as a time); NULL when the input names
 * none (µs of a trace, counts of folded text).  Owned by the tree. */
const char *af_tree_unit(const af_tree *tree);

/** 1 when the tree came from differential folded input (two counts). */
int af_tree_is_differential(const af_tree *tree);

/** Folded input with fractional counts: the tree's values (self, total,
 * base, the layout's) are whole numbers of 10^-decimals of a count (see
 * af_trace_info.decimals); 0 for whole counts and for traces. */
unsigned af_tree_decimals(const af_tree *tree);

/** Number of nodes, root included.  Node 0 is the root; a parent's index is
 * always lower than its children's. */
size_t af_tree_size(const af_tree *tree);

/** One node's data; strings owned by the tree. */
typedef struct af_node_info {
	const char *name;
	const char *full_name; /* with its package where strip_package took it
	                          from `name` (colours go by it), else `name` */
	const char *library; /* a native frame's library ("libart.so"; a name
	                        found in several: "libA.so, libB.so"), else NULL */
	uint32_t parent;   /* UINT32_MAX for the root */
	uint32_t depth;    /* root = 0 */
	uint64_t self[AF_CLOCK_COUNT];
	uint64_t total[AF_CLOCK_COUNT];
	uint64_t calls;
	uint64_t base_self, base_total; /* differential input: the first count;
	                                   of a diff: BEFORE's time */
	int removed;       /* a diff's removed band: a path BEFORE had and AFTER
	                      lacks; self and total are BEFORE's time */
	int thread;        /* a thread (a first frame of folded input): a child
	                      of the root, unless --reverse or --focus made the
	                      root's children frames */
} af_node_info;

void af_tree_node(const af_tree *tree, size_t i, af_node_info *info);

/** The node with the most self time on `clock` among those `min_depth`
 * deep or deeper (the first in the tree's order on a tie), or 0 (the
 * root) when none has any. */
size_t af_tree_hottest(const af_tree *tree, af_clock clock, uint32_t min_depth);

/** How af_tree_diff() compares two profiles. */
typedef struct af_diff_options {
	af_clock clock;  /* the clock of both trees to compare */
	int normalize;   /* scale BEFORE to AFTER's total (difffolded.pl -n) */
} af_diff_options;

/** Builds the differential tree of two call trees, as flamegraph.pl draws
 * difffolded.pl's output: AFTER's frames, widths and calls, each node
 * also holding BEFORE's self time on the same path (base_self), so the
 * renderers colour it red where its self time grew and blue where it
 * shrank.  Paths BEFORE had and AFTER lacks are kept with no width, and
 * copied, with BEFORE's widths, into a band of their own: a last child of
 * the root named "[removed]", whose nodes are marked `removed`.  The
 * result has time on `opt->clock` only; the inputs are only read.
 * Fails with AF_ERR_EMPTY when AFTER has no time on that clock. */
AF_NODISCARD af_status af_tree_diff(const af_tree *before, const af_tree *after,
                                    const af_diff_options *opt, af_tree **out,
                                    af_error *err);

/** 1 when the tree came from af_tree_diff(). */
int af_tree_is_diff(const af_tree *tree);

/** Writes flamegraph.pl's collapsed format: one line per call path with
 * non-zero self time for `clock`, "thread;frame;frame SELF_US", sorted by
 * byte value.  The root "all" is not written. */
AF_NODISCARD af_status af_folded_write(const af_tree *tree, af_clock clock,
                                       FILE *out, af_error *err);

/** Writes pprof's profile.proto, gzip'd as pprof writes it: a function and
 * a location per frame name, a sample per call path with self time, its
 * values the path's self time in µs on every clock the tree has (wall,
 * cpu, wait; `clock` the default sample type) or its count ("samples",
 * in the input's unit).  pprof's totals are the tree's.  A differential
 * tree, or counts with fractions, fail with AF_ERR_ARG. */
AF_NODISCARD af_status af_pprof_write(const af_tree *tree, af_clock clock,
                                      FILE *out, af_error *err);

/* ------------------------------------------------------------------ */
/* Method table (dmtracedump's and Traceview's per-method profile)     */

/** One method of the table.  Time values are µs of the table's clock, or
 * counts for folded input. */
typedef struct af_method_row {
	const char *name;        /* as the graph names the frame; owned by the table */
	const char *library;     /* a native frame's library (af_node_info's) in
	                            the call graph's table, else NULL */
	uint64_t calls;          /* activations while the method was not already
	                            on the stack (dmtracedump's "Calls") */
	uint64_t recursive_calls;/* activations while it was ("Recur") */
	uint64_t inclusive;      /* time in the outermost activations: a
	                            recursive method counts once */
	uint64_t exclusive;      /* self time of all its activations */
} af_method_row;

typedef struct af_method_table {
	af_clock clock;
	int is_time;          /* µs of a trace; 0: counts of folded input */
	unsigned decimals;    /* counts are whole numbers of 10^-decimals
	                         (af_trace_info.decimals); written exactly */
	uint64_t total;       /* time of the selected threads: the 100% */
	af_method_row *rows;  /* by inclusive time, then exclusive time, then
	                         calls (all descending), then name (bytes) */
	size_t nrows;
} af_method_table;

/** Builds the method table of the threads `opt` selects (its threads,
 * one_thread and signatures fields; the rest is ignored), on `clock`.
 * Methods are named as in the graph, so without signatures overloads share
 * a row; a method is recursive when a frame of the same name is among its
 * callers.  Folded input gives one row per frame name, with no call
 * counts.  Fails with AF_ERR_CLOCK when the trace lacks `clock` and
 * AF_ERR_EMPTY when no thread matches.  Free with af_method_table_free(). */
AF_NODISCARD af_status af_method_table_build(const af_trace *trace,
                                             const af_tree_options *opt,
                                             af_clock clock,
                                             af_method_table **out,
                                             af_error *err);

void af_method_table_free(af_method_table *table);

typedef enum af_table_format {
	AF_TABLE_TSV,  /* tab-separated, a header row, exact numbers */
	AF_TABLE_TEXT  /* aligned columns for people */
} af_table_format;

/** Writes the table.  TSV columns: method, calls, recursive_calls,
 * inclusive_us, inclusive_pct, exclusive_us, exclusive_pct (for folded
 * input "inclusive" and "exclusive" instead of the _us names); shares are
 * of the table's total, with two decimals. */
AF_NODISCARD af_status af_method_table_write(const af_method_table *table,
                                             af_table_format format, FILE *out,
                                             af_error *err);

/* ------------------------------------------------------------------ */
/* Layout                                                              */

/** Geometry, flamegraph.pl's defaults when zeroed. */
typedef struct af_layout_options {
	af_clock clock;
	double width;        /* image width in px (1200) */
	double frame_height; /* px per stack level (16) */
	double font_size;    /* px (12) */
	double min_width;    /* frames narrower than this many px are left out (0.1) */
	double min_width_pct;/* ...or than this % of the total, when > 0 */
	const char *title;   /* "Flame Graph" ("Icicle Graph" when inverted) */
	const char *subtitle;/* a second line under the title; NULL = none */
	int inverted;        /* icicle: the root at the top, stacks growing down */
	double factor;       /* values are multiplied by this (1) */
	uint64_t total;      /* the 100% value when larger than the root's */
	int sort_weight;     /* siblings heaviest first (left-heavy), not by name */
	int legend;          /* leave a line under the title for a legend */
	int thumb_width;     /* > 0 with thumb_height: a thumbnail of exactly
	                        this size: no title, no margins, frames as tall
	                        as fit, none narrower than a pixel */
	int thumb_height;
	int flamechart;      /* siblings in the order they were recorded, traces'
	                        calls where they began */
	int keep_narrow;     /* every frame with time, however narrow
	                        (flamegraph.pl's --minwidth 0): min_width and
	                        min_width_pct are not used */
} af_layout_options;

/** One frame to draw.  x, y, w, h are in px of the unscaled image. */
typedef struct af_rect {
	double x, y, w, h;
	uint32_t node;  /* index into the tree */
	uint32_t depth;
	uint64_t value; /* the time or count the frame stands for: its node's
	                   total, or where flamegraph.pl's walk draws a node
	                   twice (see af_layout_build), the part this frame
	                   holds; the root holds the layout's total */
	uint64_t start; /* the time left of the frame, from the root's start */
	int own;        /* the frame holds its node's own time (a node's second
	                   frame holds only its children's) */
	int changed;    /* differential input: the frame is coloured by its
	                   change, its own AFTER minus BEFORE when `own`, else
	                   0.  As flamegraph.pl, folded input has a change only
	                   where the first line through the frame has two
	                   counts (the others take the palette); always 1 for
	                   a diff of two profiles */
} af_rect;

typedef struct af_layout {
	const af_tree *tree; /* borrowed: must outlive the layout */
	af_clock clock;
	double width, height;
	double frame_height, font_size;
	double xpad;
	double top;          /* y of the first row of frames when inverted */
	int inverted;
	int legend;          /* a line under the title is kept for the legend */
	int thumbnail;       /* no title, details, buttons or labels too small */
	double legend_y;     /* its baseline */
	double factor;
	uint64_t max_delta;  /* differential input: the largest change of a path
	                        (for folded input, of a line with two counts,
	                        and at least one count, as flamegraph.pl);
	                        0 for other input */
	char *title;
	char *subtitle;      /* NULL when none */
	uint64_t total;      /* root's total time for the clock, µs */
	uint32_t max_depth;  /* deepest depth drawn */
	af_rect *rects;      /* root first, then pre-order, siblings in the
	                        order of flamegraph.pl's sorted folded lines */
	size_t nrects;
} af_layout;

/** Lays out `tree` as flamegraph.pl lays out its folded lines, sorted:
 * a frame's own time first, then its children in the byte order of their
 * lines ("a;b 5" before "a;b-x 1" before "a;b;c 1"); where a sibling's line
 * falls between a frame's own line and its children's, the frame is drawn
 * twice, its own time and then, after the sibling, its children under it.
 * Flame charts keep the recorded order, --sort weight the heaviest first.
 * The layout borrows the tree.  Fails with AF_ERR_EMPTY when the tree has
 * no time on the chosen clock. */
AF_NODISCARD af_status af_layout_build(const af_tree *tree,
                                       const af_layout_options *opt,
                                       af_layout **out, af_error *err);

/** The thumbnail of a laid-out graph, `width` x `height` pixels: the
 * layout af_layout_build() makes with those as thumb_width and
 * thumb_height and the options `layout` was made with, taken from
 * `layout`'s frames without walking the tree again where they hold all a
 * thumbnail draws (frames a pixel wide at `width`). */
AF_NODISCARD af_status af_layout_thumbnail(const af_layout *layout, int width,
                                           int height, af_layout **out,
                                           af_error *err);

void af_layout_free(af_layout *layout);

/* ------------------------------------------------------------------ */
/* Rendering                                                           */

typedef struct af_font af_font;

/** Loads the pinned fonts (DejaVu Sans, then the fallbacks for the
 * characters it lacks: CJK, emoji, other scripts) through the project's
 * fontconfig file.  `conf_path` NULL means: $AFLAME_FONTCONF, then the
 * installed file, then the source tree's.  A font keeps what it measured
 * (the names it shaped), so it is used by one thread at a time: open one
 * per thread.  Free with af_font_free(). */
AF_NODISCARD af_status af_font_open(const char *conf_path, af_font **out,
                                    af_error *err);
/** As af_font_open(), with the font's own blocks from `allocator` (NULL:
 * malloc); fontconfig's and cairo's allocations stay theirs. */
AF_NODISCARD af_status af_font_open_with(const char *conf_path,
                                         const af_allocator *allocator,
                                         af_font **out, af_error *err);
/** A font for another thread, as `font` was opened, in a fraction of the
 * time: it shares the loaded configuration and face (which are safe to
 * share), not what `font` has measured.  Free with af_font_free(). */
AF_NODISCARD af_status af_font_clone(const af_font *font, af_font **out, af_error *err);
void af_font_free(af_font *font);

/** Width in px of UTF-8 `text` at `size` px, as the renderers draw it. */
double af_font_text_width(af_font *font, const char *text, size_t len,
                          double size);

/** Fits `name` in `avail` px at `size` px: the whole name when it fits,
 * else the longest prefix followed by "..", or nothing when not even one
 * character and ".." fit.  A prefix ends between whole characters, and in
 * a name that needs shaping, never inside what a reader sees as one (a
 * letter with its marks, an emoji sequence, a conjunct).  Returns the
 * length in bytes of the prefix to draw and sets *dots when ".." follows. */
size_t af_font_fit(af_font *font, const char *name, double avail, double size,
                   int *dots);

typedef enum af_format {
	AF_FORMAT_SVG,
	AF_FORMAT_PNG,
	AF_FORMAT_PDF,
	AF_FORMAT_FOLDED,
	AF_FORMAT_DOT,   /* Graphviz text: the call graph only */
	AF_FORMAT_PPROF  /* pprof's profile.proto, gzip'd (af_pprof_write) */
} af_format;

/** Frame colouring: flamegraph.pl's palettes. */
typedef enum af_palette {
	AF_PALETTE_HOT, AF_PALETTE_MEM, AF_PALETTE_IO, AF_PALETTE_WAKEUP,
	AF_PALETTE_CHAIN, AF_PALETTE_JAVA, AF_PALETTE_JS, AF_PALETTE_PERL,
	AF_PALETTE_RED, AF_PALETTE_GREEN, AF_PALETTE_BLUE, AF_PALETTE_AQUA,
	AF_PALETTE_YELLOW, AF_PALETTE_PURPLE, AF_PALETTE_ORANGE,
	AF_PALETTE_ANDROID /* app, platform, libraries, idle, blocked; a legend */
} af_palette;

/** Parses a palette name ("hot", "java", ...); -1 when unknown. */
int af_palette_from_name(const char *name);

/** A map from frame names to text, read from and written to small files:
 * flamegraph.pl's palette.map ("NAME->rgb(R,G,B)" lines, --cp) and its
 * name-attribute file ("NAME<TAB>attr=value<TAB>attr=value", --nameattr).
 *
 * Both are read whole, up to the input limit (af_limits.max_input's
 * default, 2 GiB); a NUL byte is an error (AF_ERR_FORMAT, its byte offset,
 * its line in the message).  A palette line that is not NAME->rgb(R,G,B)
 * (R, G, B from 0 to 255) is left out, and the map's warning names its
 * line.  A name-attribute line without a tab is an error.
 *
 * Name attributes follow flamegraph.pl: `title` replaces the frame's
 * tooltip, `href` (or `xlink:href`) makes the frame a link with `target`
 * (default "_top"), `g_extra` and `a_extra` hold raw attribute text
 * (`name="value" ...`, references decoded) for the frame and its link, and
 * any other key is an attribute of the frame (`class`, `style`, ...).
 * Nothing that could run script or make the SVG invalid is kept: event
 * handlers (`on*`, any case), links other than http(s), relative and
 * fragment URLs (however spelled: any case, spaces, tabs, character
 * references), values naming a script URL or CSS hook, names that are
 * not plain XML names (`foo:bar`), `xmlns*`, `id` (a name is many frames).
 * An attribute given twice counts once, the last one.  What was left out
 * is named in the map's warning. */
typedef struct af_namemap af_namemap;

typedef enum af_namemap_kind {
	AF_NAMEMAP_PALETTE, /* NAME->VALUE */
	AF_NAMEMAP_ATTRS    /* NAME<TAB>VALUE */
} af_namemap_kind;

/** Reads `path`; a palette file that does not exist gives an empty map.
 * Free with af_namemap_free(). */
AF_NODISCARD af_status af_namemap_load(const char *path, af_namemap_kind kind,
                                       af_namemap **out, af_error *err);
/** As af_namemap_load(), with the map's blocks from `allocator` (NULL:
 * malloc). */
AF_NODISCARD af_status af_namemap_load_with(const char *path,
                                            af_namemap_kind kind,
                                            const af_allocator *allocator,
                                            af_namemap **out, af_error *err);
/** As af_namemap_load_with(), from the `len` bytes at `buf` (borrowed for
 * the call). */
AF_NODISCARD af_status af_namemap_parse(const char *buf, size_t len,
                                        af_namemap_kind kind,
                                        const af_allocator *allocator,
                                        af_namemap **out, af_error *err);

/** Writes a palette map, sorted by name, to a temporary file beside `path`
 * and renames it into place.  A name or value holding a newline is left
 * out (it could not be read back). */
AF_NODISCARD af_status af_namemap_save(const af_namemap *map, const char *path,
                                       af_error *err);

void af_namemap_free(af_namemap *map);

/** The text for `name`, or NULL.  Owned by the map.  For name attributes,
 * what was kept: `key=value` items joined by tabs, each key once, in the
 * order title, href, target, `a:NAME` (the link's own attributes), then
 * the frame's; values hold no tab, newline or NUL. */
const char *af_namemap_get(const af_namemap *map, const char *name);

/** Sets the text for `name` (copied).  Name attributes are cleaned as
 * when read from a file. */
AF_NODISCARD af_status af_namemap_set(af_namemap *map, const char *name,
                                      const char *value);

/** What reading (or af_namemap_set()) left out, as one message naming the
 * attributes dropped and the damaged palette lines, with their line
 * numbers; bytes other than printable ASCII are written \xNN.  NULL when
 * nothing was.  Owned by the map. */
const char *af_namemap_warning(const af_namemap *map);

typedef enum af_color_mode {
	AF_COLOR_STABLE, /* a hash of the whole name: the same in every graph */
	AF_COLOR_HASH,   /* flamegraph.pl --hash: weighted to the name's start */
	AF_COLOR_RANDOM  /* flamegraph.pl --random: different each run */
} af_color_mode;

/** Per-name work a renderer keeps from one graph to the next: each name's
 * kind and fill, worked out once instead of once a graph.  For the many
 * graphs of one trace drawn one after another (a per-thread set, whose
 * graphs share most of their names); used while the graphs' trees name
 * their frames with the trace's own names (no renaming rules) in one
 * palette, and worked out afresh otherwise.  One thread at a time. */
typedef struct af_render_cache af_render_cache;

AF_NODISCARD af_status af_render_cache_new(af_render_cache **out, af_error *err);
void af_render_cache_free(af_render_cache *cache);

typedef struct af_render_options {
	af_font *font;     /* required for every image format */
	double scale;      /* PNG pixel density (1) */
	int no_javascript; /* SVG: a static image, without the script */
	int negate;        /* differential: red where it shrank, blue where it grew */
	af_palette palette;
	af_color_mode color_mode;
	const char *bgcolors; /* yellow, blue, green, grey or #rrggbb; NULL =
	                         the palette's own */
	const char *font_family; /* SVG font-family; NULL = DejaVu Sans first */
	const char *countname;   /* unit of folded counts ("samples") */
	const char *nametype;    /* details prefix ("Function:") */
	const char *notes;       /* an XML comment in the SVG */
	const char *encoding;    /* the SVG's declared encoding ("UTF-8") */
	double fontwidth;        /* > 0: fit labels as flamegraph.pl does, with
	                            this average glyph width (em), not real metrics */
	int dark;                /* dark theme */
	af_namemap *colormap;    /* --cp: colours of known names are reused and
	                            new ones added (the map is updated) */
	const af_namemap *nameattr; /* --nameattr: attributes for frames' <g>;
	                            href and target make the frame a link */
	af_render_cache *cache;  /* optional (NULL): see af_render_cache_new() */
	int quick_png;           /* PNG: compressed for speed rather than size
	                            (files 15 to 85% bigger), for images drawn
	                            by the dozen, as a set's thumbnails */
} af_render_options;

/** Writes the layout as SVG: text stays text, one <title> per frame, and
 * unless `no_javascript`, a script for zoom, search and hover details. */
AF_NODISCARD af_status af_svg_write(const af_layout *layout,
                                    const af_render_options *opt, FILE *out,
                                    af_error *err);

/** Draws the layout with cairo as PNG or PDF. */
AF_NODISCARD af_status af_cairo_write(const af_layout *layout, af_format format,
                                      const af_render_options *opt, FILE *out,
                                      af_error *err);

/* ------------------------------------------------------------------ */
/* Call graph (dmtracedump -g, Traceview's profile panel)              */

/** The caller of the frames that begin a stack (a thread's first frames,
 * the focused frame): the graph's root, "all" (dmtracedump's toplevel). */
#define AF_CALL_ROOT UINT32_MAX

/** The calls of one method by another, summed over every call path. */
typedef struct af_call_edge {
	uint32_t caller;          /* a method (index into methods.rows), or
	                             AF_CALL_ROOT */
	uint32_t callee;          /* a method */
	uint64_t calls;           /* calls made while the callee was not
	                             already on the stack */
	uint64_t recursive_calls; /* calls made while it was */
	uint64_t inclusive;       /* the time of the non-recursive calls, their
	                             callees' included: the edges into a method
	                             add up to its inclusive time, and their
	                             calls to its calls */
	uint64_t outer_calls;     /* of all these calls, those made while the
	                             caller was not itself recursive (no frame
	                             of its name under it): the calls
	                             dmtracedump's graph follows */
} af_call_edge;

/** The methods of a call tree and who calls whom.  Arrays are owned by the
 * graph; names are the tree's, which must outlive it. */
typedef struct af_call_graph {
	af_method_table methods; /* one row per method with calls or time,
	                            valued and ordered as af_method_table_build()
	                            values and orders them; free with
	                            af_call_graph_free() only */
	af_call_edge *edges;     /* grouped by caller in row order, the root's
	                            last; in a group, by inclusive time, then
	                            calls (descending), then callee row */
	size_t nedges;
	size_t *calls_from;      /* nrows + 2 offsets: edges[calls_from[i]] up
	                            to edges[calls_from[i + 1]] are method i's
	                            calls, i = nrows the root's */
	uint32_t *callers;       /* edge indices grouped by callee in row
	                            order; in a group, by inclusive time, then
	                            calls (descending), then caller row (the
	                            root last) */
	size_t *callers_of;      /* nrows + 1 offsets: callers[callers_of[i]] up
	                            to callers[callers_of[i + 1]] are the edges
	                            into method i */
} af_call_graph;

/** The call graph of `tree` on `clock`: the tree's frames by name (the
 * view's rules, mapping and thread choice as the tree was built with
 * them), one method per name.  A trace's threads are not methods: their
 * first frames are called by the root; every frame of folded input is a
 * method.  Build the tree without `reverse` and `prune`, which change
 * who calls whom.  Fails with AF_ERR_CLOCK for the wait clock of a tree
 * without it, AF_ERR_ARG for a diff.  Free with af_call_graph_free(). */
AF_NODISCARD af_status af_call_graph_build(const af_tree *tree, af_clock clock,
                                           af_call_graph **out, af_error *err);

void af_call_graph_free(af_call_graph *graph);

/** What dmtracedump's graph (-g) draws with threshold `percent` (-t, 20 by
 * default there): starting at the root, a callee is drawn, with the edge
 * to it, when its inclusive time is at least `percent` % of its caller's
 * (the root's being the total) and the caller called it while not itself
 * recursive (outer_calls), and its own callees are then looked at.  A
 * caller without time draws no callee.
 * Fills keep_method[i] (nrows entries) and keep_edge[e] (nedges entries)
 * with 1 or 0; the root is always drawn.  Returns the methods kept, or
 * (size_t)-1 when out of memory. */
size_t af_call_graph_select(const af_call_graph *graph, double percent,
                            unsigned char *keep_method, unsigned char *keep_edge);

/** How a call graph is drawn. */
typedef struct af_call_graph_options {
	double threshold;     /* af_call_graph_select()'s percent (0..100) */
	const char *title;    /* the graph's label; NULL = none */
	double scale;         /* PNG pixel density (1) */
	int dark;             /* a dark background */
} af_call_graph_options;

/** Writes the methods and edges `opt->threshold` selects as Graphviz DOT:
 * a box per method labelled with its name, inclusive and exclusive time
 * (and share of the total) and calls, filled from white to red by its
 * exclusive share; an edge per call labelled with calls and inclusive
 * time, wider the more time it carries. */
AF_NODISCARD af_status af_call_graph_write_dot(const af_call_graph *graph,
                                               const af_call_graph_options *opt,
                                               FILE *out, af_error *err);

/** Lays the same DOT out with Graphviz's library (the dot layout) and
 * draws it as `format` (SVG, PNG or PDF; Graphviz's own SVG writer, cairo
 * for PNG and PDF).  Graphviz keeps global state: call this from one
 * thread at a time.  Its blocks are not counted against the trace's
 * budget.  AF_ERR_RENDER with Graphviz's message when it fails. */
AF_NODISCARD af_status af_call_graph_render(const af_call_graph *graph,
                                            const af_call_graph_options *opt,
                                            af_format format, FILE *out,
                                            af_error *err);

/** How the HTML profile is written. */
typedef struct af_profile_options {
	const char *title;    /* the page's heading; NULL = "Profile" */
	const char *subtitle; /* a line under it; NULL = none */
} af_profile_options;

/** Writes the methods as one self-contained HTML page (inline style and
 * script, nothing fetched), as Traceview's profile panel shows them: a
 * table with sortable columns and a filter box, and for each method its
 * callers and callees with calls and times, linked to their own rows
 * (#m<row>).  Without a script the table is complete, and a link still
 * opens the method it names. */
AF_NODISCARD af_status af_profile_html_write(const af_call_graph *graph,
                                             const af_profile_options *opt,
                                             FILE *out, af_error *err);

/* ------------------------------------------------------------------ */
/* Index page of a per-thread set                                      */

/** One thread of the index.  Strings are borrowed for the call. */
typedef struct af_index_entry {
	const char *name;
	uint32_t tid;
	uint64_t time[AF_CLOCK_COUNT]; /* total time of its graph, µs */
	double share;          /* % of the trace's time on the index's clock */
	uint64_t records, calls;
	const char *hot_frame; /* the frame with the most self time; NULL: none */
	uint64_t hot_self;
	const char *graph;     /* file of the full graph, relative; NULL: skipped */
	const char *thumb;     /* PNG thumbnail, relative; NULL: none */
} af_index_entry;

typedef struct af_index_options {
	const char *title;     /* the page's heading */
	const char *subtitle;  /* a line under it (input, clock, totals) */
	af_clock clock;        /* the clock the shares are of */
	int has_clock[AF_CLOCK_COUNT]; /* which time columns to show */
	const af_index_entry *all; /* the merged graph's card; NULL: none */
	double min_share;      /* threads under it are listed as skipped */
	int view_rules;        /* the graphs have view rules (focus, exclude):
	                          a thread can be skipped for having nothing
	                          left, too */
	int dark;              /* a dark page (--theme dark), whatever the
	                          viewer prefers; 0: the viewer's choice */
} af_index_options;

/** Writes a self-contained HTML page (no script, no external resource)
 * listing `rows` in the order given: graphs as cards with their
 * thumbnails, skipped threads (graph NULL) in a table of their own. */
AF_NODISCARD af_status af_html_index_write(FILE *out, const af_index_options *opt,
                                           const af_index_entry *rows, size_t n,
                                           af_error *err);

#ifdef __cplusplus
}
#endif

#endif
