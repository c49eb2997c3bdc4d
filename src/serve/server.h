/*
 * server.h - what the HTTP side of `aflame-render serve` shares: the
 * server, a request from its first call to its end, and each room's
 * functions.  The rooms, bottom first (a room calls only those above it
 * in this list, and those of serve.h):
 *
 *   http.c     responses: headers and CSP, pages, errors, files, redirects
 *   ingest.c   an upload made whole: read by the library, its set drawn,
 *              stored, catalogued (on a render worker)
 *   views.c    a view's query read; views, diffs and the HTML profile
 *              drawn (on a worker)
 *   work.c     requests handed to the render pool, and their answers
 *   upload.c   POST: the body streamed to disk and hashed, multipart,
 *              limits, the token
 *   routes.c   GET under /trace/ and /diff/: a trace's pages and files
 *   serve.c    the daemon: the handler, the log, options, the main loop
 */
#ifndef AF_SERVER_H
#define AF_SERVER_H

#include <microhttpd.h>
#include <time.h>

#include "serve.h"

typedef struct server {
	serve_config cfg;
	store *st;
	pool *workers;
	watch *watch;
	char sample[SERVE_HASH_LEN + 1];
} server;

enum { K_OTHER, K_UPLOAD, K_VIEW, K_DIFF, K_METHODS };

/* what an upload is */
enum { U_TRACE, U_MAPPING };

/* One request, from its first call to its end (logged then). */
typedef struct req {
	server *sv;
	struct MHD_Connection *conn;
	watched *watched;        /* its connection, timed */
	char method[8];
	char path[256];          /* for the log, made printable */
	struct timespec start;
	unsigned status;
	uint64_t bytes;
	int kind;
	int upload;              /* U_TRACE, or U_MAPPING for r->hash */
	int want_json;
	/* an upload */
	int fd;
	char tmp[4096];
	char name[128];          /* the file's name, made safe */
	char form_token[256];
	hasher *h;
	uint64_t got;
	int too_big, bad, files;
	char badmsg[256];
	struct MHD_PostProcessor *pp;
	char field[64];          /* the multipart field being read */
	uint64_t part_got;       /* bytes of the file being read */
	/* a key+data pair, two files of one form: while the second is read,
	 * the first's; once whole, r->tmp and r->name are the key's and these
	 * the data's */
	int pair;
	char tmp2[4096];
	char name2[128];
	char digest2[SERVE_HASH_LEN + 1];
	/* work done by a render worker while the connection is suspended */
	int queued, finished;
	unsigned rstatus;
	char *rbody;             /* malloc'd; for an error, the message */
	char location[256];
	char hash[SERVE_HASH_LEN + 1];
	char before[SERVE_HASH_LEN + 1]; /* a diff's: r->hash is after */
	char diff_clock[8];
	int diff_normalize;
	char file[4096];          /* a diff: the drawn SVG */
	char view_id[33];
	char *view_query;
	const char *view_args[40];
	char *view_strings;
} req;

/* ------------------------------------------------------------------ */
/* http.c: responses                                                   */

/** `body` (len bytes) is copied. */
enum MHD_Result send_buf(req *r, unsigned status, const char *type, const char *body,
                         size_t len);
/** `b`'s text, then frees it (500 when it failed). */
enum MHD_Result send_sb(req *r, unsigned status, const char *type, sbuf *b);
/** An error: a page for a browser, {"error": ...} for a script. */
enum MHD_Result send_error(req *r, unsigned status, const char *message);
enum MHD_Result send_redirect(req *r, unsigned status, const char *location);
/** A regular file (never a link) of a stored set, or 404. */
enum MHD_Result send_file(req *r, const char *path, const char *type,
                          const char *download_as);
/** A self-contained page (the command's HTML profile) whose one inline
 * <style> and one inline <script> are allowed by their SHA-256, computed
 * here from the file: nothing else may run or load. */
enum MHD_Result send_inline_page(req *r, const char *path);
/** The Content-Type of a set's file, by its extension. */
const char *type_of(const char *name);
/** Work that failed: r->rstatus and r->rbody (the message) set. */
void fail(req *r, unsigned status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ------------------------------------------------------------------ */
/* ingest.c: an upload made whole                                      */

/** `in` reduced to a file name safe anywhere: [A-Za-z0-9._-], no leading
 * dot, "upload.trace" when nothing is left. */
void safe_upload_name(char *out, size_t n, const char *in);
/** The whole of an upload, once received: r->tmp holds the bytes, r->hash
 * their digest.  Fills r->rstatus and r->rbody.  Runs on a render worker
 * (and once at start for the sample). */
void ingest(server *sv, req *r);
/** A mapping file for upload r->hash (r->tmp, its digest in r->before),
 * kept beside the trace; answered with the view that uses it. */
void ingest_mapping(server *sv, req *r);

/* ------------------------------------------------------------------ */
/* views.c: views and diffs                                            */

/** The view the query asks for: 0 with none, 1 with one (r->view_query,
 * r->view_args, r->view_id set), -1 after an error was sent. */
int parse_view(req *r, enum MHD_Result *ret);
/** Runs the command (run_command()) in `cwd` with its standard error kept
 * in `work`/stderr: 0 when it succeeded, else -1 with `r` failed (422 and
 * what it said, 500 when it could not run).  *err as run_command() gives. */
int run_or_fail(server *sv, req *r, const char *cwd, const char *work,
                const char *const *args, char **err);
/** Draws the view r->view_args of upload r->hash into views/<id>. */
void render_view(server *sv, req *r);
/** Where the diff of r->before to r->hash is kept. */
void diff_file(const server *sv, const req *r, char *out, size_t n);
/** Draws the differential graph of upload r->before to upload r->hash. */
void render_diff(server *sv, req *r);
/** Where the HTML profile of upload r->hash is kept. */
void methods_file(const server *sv, const req *r, char *out, size_t n);
/** Writes the HTML profile (--report-format html) of upload r->hash. */
void render_methods(server *sv, req *r);

/* ------------------------------------------------------------------ */
/* work.c: the render pool's side of a request                         */

/** Hands `r` (r->kind says what) to a render worker, the connection
 * suspended meanwhile; a full queue is answered 503 now. */
enum MHD_Result submit(req *r);
/** The answer of finished work. */
enum MHD_Result answer(req *r);

/* ------------------------------------------------------------------ */
/* upload.c: POST bodies                                               */

/** The first call of an upload: limits, token, the temporary file. */
enum MHD_Result start_upload(req *r);
/** A piece of the body (`n` bytes). */
enum MHD_Result upload_more(req *r, const char *data, size_t n);
/** The body is whole: checked, hashed, handed to a worker. */
enum MHD_Result finish_upload(req *r);

/* ------------------------------------------------------------------ */
/* routes.c: a trace's pages and files                                 */

/** /trace/<rest> */
enum MHD_Result trace_page(req *r, const char *rest);
/** /diff/<rest> */
enum MHD_Result diff_page(req *r, const char *rest);

#endif
