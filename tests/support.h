/*
 * support.h - helpers shared by the Criterion suites: traces made with the
 * project's writer, folded text as a string, files, and the CLI.
 */
#ifndef AF_TEST_SUPPORT_H
#define AF_TEST_SUPPORT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "aflame/aflame.h"
#include "aflame/writer.h"

/** Folded text of a trace held in memory, for `clock`, with tree options
 * (NULL for all threads).  Fails the test on any error.  Caller frees. */
char *t_folded(const uint8_t *buf, size_t len, af_clock clock,
               const af_tree_options *topt);

/** The same with parse options `po` (NULL: the defaults). */
char *t_folded_with(const uint8_t *buf, size_t len, const af_parse_options *po,
                    af_clock clock, const af_tree_options *topt);

/** Folded text of a parsed trace, as t_folded().  Caller frees. */
char *t_folded_trace(const af_trace *t, af_clock clock, const af_tree_options *topt);

/** Puts the lines of `text` in byte order, in place. */
void t_sort_lines(char *text);

/** Every node of `tree` as "name depth wall cpu wait" (its totals), a
 * line each, in byte order (two ways of building a tree order its nodes
 * differently).  Caller frees. */
char *t_node_totals(const af_tree *tree);

/** Parses bytes; fails the test with the error message on failure. */
af_trace *t_parse(const uint8_t *buf, size_t len);

/** The same with parse options `po` (NULL: the defaults). */
af_trace *t_parse_with(const uint8_t *buf, size_t len, const af_parse_options *po);

/** An allocator for af_parse_options or af_mem_new(), made by
 * t_refuser_allocator(): it refuses its block number `refuse` (counted from
 * 0 over every thread; -1: none) and every new block of `size` bytes (0:
 * none), and counts the blocks it refused and those it holds. */
typedef struct t_refuser {
	atomic_long calls, held, refused;
	long refuse;
	size_t size;
} t_refuser;

af_allocator t_refuser_allocator(t_refuser *r);

/** Finishes a writer into bytes (fails the test on error) and frees it. */
uint8_t *t_finish(af_writer *w, size_t *len, size_t *key_len);

/* The cases test_v2.c, test_v6.c and test_btrace.c write in each of their
 * forms: six methods com.example.App.a() ... y() (App.java) with ids 4 ...
 * 24 (A ... Y), then threads and records in order. */
#ifdef T_CASE_IDS /* defined by those suites before they include this */
#define T_CASE_ID(i) (4u * ((i) + 1u))
#define A T_CASE_ID(0)
#define B T_CASE_ID(1)
#define C T_CASE_ID(2)
#define D T_CASE_ID(3)
#define X T_CASE_ID(4)
#define Y T_CASE_ID(5)
#endif

/** One step of a case: declare thread `tid` named `name` (`thread` 1), or
 * a record of method `id`. */
typedef struct t_op {
	int thread;
	uint32_t tid;
	const char *name;
	uint32_t id;
	int action;
	uint32_t cpu, wall;
} t_op;

/** A writer with the options `o` that has written the six methods and the
 * `n` steps (fails the test on any error); the caller finishes it. */
af_writer *t_case_writer(af_writer_options o, const t_op *ops, size_t n);

/** The case written in the form `o` and finished.  Caller frees. */
uint8_t *t_write_case(af_writer_options o, const t_op *ops, size_t n, size_t *len);

/** A regular trace of about `records` records (14 bytes each), one thread
 * walking two methods.  Caller frees. */
uint8_t *t_long_trace(size_t records, size_t *len);

/** Reads a whole file; NULL when it cannot.  Caller frees. */
uint8_t *t_read(const char *path, size_t *len);

/** A PNG held in memory as a cairo image (its status is the test's to
 * check; cairo_surface_destroy() it).  `struct _cairo_surface` is cairo's
 * cairo_surface_t, named so that this header needs no cairo. */
struct _cairo_surface *t_png_image(const void *data, size_t len);

/** Writes a file; fails the test on error. */
void t_write(const char *path, const void *data, size_t len);

/** A fresh path under the build's tmp folder: AF_TEST_TMP/<name>. */
char *t_tmp(const char *name);

/** Runs the CLI with `args` (a shell-quoted string) and stdin from
 * `stdin_path` (NULL: /dev/null).  Returns the exit status; stderr text in
 * *err and stdout in *out when not NULL (caller frees). */
int t_cli(const char *args, const char *stdin_path, char **out, char **err);

/** Runs `CLI -q -o OUT ARGS` (ARGS shell text, e.g. "- < 'f'") in a child
 * of its own, with a small AddressSanitizer quarantine (freed blocks it
 * keeps would count); fails the test unless it exits 0 and OUT holds
 * `want`.  Returns the child's peak RSS in KiB.  `what` names the run in
 * messages. */
long t_cli_peak(const char *out, const char *want, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** Runs the CLI with the printf-formatted arguments; fails the test unless
 * it exits with `status` and its stderr holds `want`. */
void t_cli_says(int status, const char *want, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/** The folder of real traces: the environment's AF_TEST_TRACES when set
 * (ctest sets it to a missing folder to check that the suites then skip and
 * pass), else the AF_SHARED_TRACES the build was configured with. */
const char *t_traces_dir(void);

/** 1 when the real traces folder is there; otherwise an informational
 * message (never a warning: Criterion exits 1 after one) saying the tests
 * that need it skip. */
int t_have_traces(void);

/** Path of a real trace: t_traces_dir()/<name>.  Caller frees. */
char *t_trace_path(const char *name);

/** Fails unless every file of the real traces folder but its notes (*.md)
 * is one of the `n` names of `files` or `refused` (a trace the test checks
 * is refused; NULL: none): a suite that runs each of them on every real
 * trace then misses none, and a trace added later fails it until it is
 * listed. */
void t_traces_listed(const char *const *files, size_t n, const char *refused);

/** 1 when the file is well-formed XML (libxml2), with the error in *why. */
int t_xml_ok(const char *data, size_t len, char **why);

/** The text of the first <title> of an SVG file (parsed as XML with
 * libxml2; the test fails unless it is well-formed) that begins with
 * `prefix`, or NULL when none does.  Caller frees. */
char *t_svg_title(const char *path, const char *prefix);

/** The default font, open during each test of a suite whose .init and .fini
 * are t_font_open and t_font_close. */
extern af_font *t_font;
void t_font_open(void);
void t_font_close(void);

/** `len` bytes of `in` gzip-compressed, in a malloc'd buffer. */
uint8_t *t_gzip(const uint8_t *in, size_t len, size_t *out_len);

/** What shell command `cmd` prints on standard output (its standard
 * error as it is), NUL-terminated.  Caller frees. */
char *t_popen_text(const char *cmd);

/** A method as dmtracedump prints it ("android/os/Debug.start
 * (Ljava/lang/String;I)V", a tab and the source file after it or not) in
 * aflame's form with --signatures ("android.os.Debug.start(java.lang.String,
 * int)"); other text as it is.  Caller frees. */
char *t_dmt_name(const char *s);

#endif
