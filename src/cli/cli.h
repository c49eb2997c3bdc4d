/*
 * cli.h - what the parts of the aflame-render command share.  The command
 * uses only the library's public header.
 */
#ifndef AF_CLI_H
#define AF_CLI_H

#include <stdio.h>

#include "aflame/aflame.h"

#define PROG "aflame-render"

/** The command line, parsed. */
typedef struct cli {
	const char *input;      /* the first input */
	const char **inputs;    /* every input: several are folded stacks read
	                           as one */
	size_t ninputs;
	const char *output;     /* a file, or the folder of a per-thread set;
	                           NULL or "-": standard output */
	af_format format;
	int format_set;
	int formats;            /* per-thread: bit (1 << af_format) per format */
	int clock;              /* -1: the trace's default */
	const char **threads;
	size_t nthreads;
	const char **processes; /* --process */
	size_t nprocesses;
	af_parse_options parse;
	af_tree_options tree;
	af_layout_options layout;
	af_render_options render;
	int verbose, quiet, palette_set, cp;
	int per_thread, jobs;   /* jobs 0: one per core */
	double min_share;       /* per-thread: skip threads under this % */
	int thumb_width, thumb_height;
	const char *nameattr;
	const char *report;     /* --report: the method table's file, "-" stdout */
	af_table_format report_format;
	int graph;              /* a graph is drawn (not when only --report) */
	const char *before;     /* --diff BEFORE: input is AFTER */
	int normalize;          /* --normalize: BEFORE scaled to AFTER's total */
	const char *mapping;    /* --mapping: a ProGuard/R8 mapping file */
	const char *btrace_mapping; /* --btrace-mapping: a btrace method mapping */
	int report_html;        /* --report-format html */
	int call_graph;         /* --call-graph, or -o FILE.dot: the call graph */
	double call_graph_threshold; /* % of a caller's time (dmtracedump -t) */
	int call_graph_threshold_set;
	int dump;               /* --dump: the records as text */
} cli;

/* report.c: messages on standard error */
void report_error(const char *file, const af_error *e);
void print_summary(const char *file, const af_trace *t);
void print_warnings(const char *file, const af_trace *t);
/** How messages name an input path: "(stdin)" for "-". */
const char *input_name(const char *path);
/** What reading a palette map or name-attribute file left out, if any. */
void print_namemap_warning(const char *file, const af_namemap *m);

/** A progress line on standard error, shown only when it is a terminal,
 * not quiet, and the work has taken over a second. */
typedef struct progress {
	int on;
	double start;
	int shown;
} progress;

void progress_init(progress *p, const cli *c);
void progress_bytes(void *ctx, uint64_t done, uint64_t total);
void progress_graphs(progress *p, size_t done, size_t total);
void progress_end(progress *p);

/* output.c: every output of a run put in place together at the end, or
 * none.  Regular files (and paths where nothing is yet) are written to
 * temporary files, ".aflame-PID-N" beside them; a symbolic link leads to
 * the file it names; devices, FIFOs, sockets and the command's own
 * descriptors (/dev/stdout) are written into directly. */
struct out_sink;
struct pending;

/** One output being written. */
typedef struct out_file {
	FILE *f;
	char *name;             /* for messages: the path given, or "(stdout)" */
	struct out_sink *sink;  /* where the bytes go, and the first write error */
	struct pending *pend;   /* the temporary file; NULL when written directly */
} out_file;

/** The folder of a per-thread set. */
typedef struct out_dir {
	char *path;             /* the folder as given, without trailing '/' */
	const char *files;      /* where its files are made: a fresh temporary
	                           folder renamed to `path` at the end, or `path`
	                           (an older set's files are replaced at the end) */
	struct pending *pend;   /* the fresh folder, or NULL */
} out_dir;

/* sync.c: temporary files put on disk by a thread of their own */

/** Hands `fd` (closed then) of the output `name` over to be synced; -1
 * when it cannot be, and the caller syncs and closes it itself. */
int out_sync_later(int fd, const char *name);

/** Waits until every file handed over is synced; 0, or -1 after saying
 * which one could not be ("cannot write"). */
int out_sync_wait(void);

/** Removes the temporary files of the run when a signal ends the command
 * (every signal that ends it and can be caught, unless ignored or already
 * handled), then dies of that signal; SIGXFSZ is ignored, so that a write
 * past the file size limit fails with EFBIG instead.  Call first. */
void out_watch_signals(void);

/** Opens an output: `path`, or standard output for NULL or "-".  0, or -1
 * after saying "cannot create" and why. */
int out_begin(out_file *o, const char *path);

/** Says "cannot create" and returns -1 when `path` is no place for an
 * output (its folder is missing, it is a folder...), without creating
 * anything; else 0. */
int out_check(const char *path);

/** Ends an output whose writer returned `st` (with `e`): a temporary file
 * waits for out_commit() when all went well, else is removed.  Says what
 * failed: a write error with its cause, under the output's name; any other
 * error under `input` (what caused it; NULL: the output).  0 or -1. */
int out_end(out_file *o, af_status st, const af_error *e, const char *input);

/** Writes `map` as palette.map text into `o` (the library saves to a
 * path: a scratch file is made and removed). */
af_status out_namemap(out_file *o, const af_namemap *map, af_error *e);

/** Prepares the folder of a set at `path`; nothing is created there until
 * out_commit().  0, or -1 after saying why. */
int out_dir_begin(out_dir *d, const char *path);

/** out_begin() for the file `name` of a set. */
int out_begin_in(out_file *o, const out_dir *d, const char *name);

/** Frees `d` (not what was written). */
void out_dir_end(out_dir *d);

/** Puts every finished output of the run in place, in the order they were
 * opened, with the signals held back; 0, or -1 after saying what failed
 * (then the rest are removed).  Only when no other thread writes. */
int out_commit(void);

/** Removes every temporary file and folder of the run. */
void out_discard(void);

/* profile.c: dmtracedump's outputs */
/** Writes the method table of `trace` (as TSV, text or an HTML page with
 * callers and callees) to c->report; 0 or an exit status. */
int run_report(const cli *c, const af_trace *trace, af_clock clock);
/** Draws the call graph of `trace` into c->output; 0 or an exit status. */
int run_call_graph(const cli *c, const af_trace *trace, af_clock clock);
/** --dump: every record of c->input into c->output; 0 or an exit status. */
int run_dump(const cli *c);

/* set.c */
/** Renders the per-thread set of `trace` into the folder c->output. */
int run_set(const cli *c, const af_trace *trace, af_clock clock);

/* The share of a graph's whole under which the layout leaves a frame out
 * (--minwidth, in pixels or percent; a thumbnail's pixel): call paths that
 * small need not be built (af_tree_options.prune). */
double prune_share(const af_layout_options *lo);

#endif
