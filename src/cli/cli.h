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
	const char *input;
	const char *output;     /* a file, or the folder of a per-thread set;
	                           NULL or "-": standard output */
	af_format format;
	int format_set;
	int formats;            /* per-thread: bit (1 << af_format) per format */
	int clock;              /* -1: the trace's default */
	const char **threads;
	size_t nthreads;
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
} cli;

/* report.c: messages on standard error */
void report_error(const char *file, const af_error *e);
void print_summary(const char *file, const af_trace *t);
void print_warnings(const char *file, const af_trace *t);
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

/* output.c: files written whole or not at all */
typedef struct out_file {
	FILE *f;
	char *tmp;
	const char *path;
	int slot;       /* in the list of temporary files removed on a signal */
} out_file;

/** Removes the temporary files of unfinished outputs when the command is
 * interrupted (SIGINT, SIGTERM, SIGHUP), then dies of the same signal. */
void out_watch_signals(void);

/** Opens a temporary file beside `path` (or standard output for NULL or
 * "-"); 0 on success, -1 with errno set. */
int out_open(out_file *o, const char *path);

/** Flushes, syncs and renames into place when `ok`, else removes the
 * temporary file; 0 on success. */
int out_close(out_file *o, int ok);

/** out_open, saying "cannot create" on failure; 0 or -1. */
int out_begin(out_file *o, const char *path);

/** Ends a file whose writer returned `st`: puts it in place when `st` is
 * AF_OK, else removes it; says what failed (`e`, or the write) and returns
 * -1, or returns 0. */
int out_end(out_file *o, af_status st, const af_error *e);

/** Creates a folder and its parents; 0 when it exists afterwards. */
int make_dir(const char *path);

/** Writes the method table of `trace` to c->report; 0 or an exit status. */
int run_report(const cli *c, const af_trace *trace, af_clock clock);

/* set.c */
/** Renders the per-thread set of `trace` into the folder c->output. */
int run_set(const cli *c, const af_trace *trace, af_clock clock);

#endif
