/*
 * serve.h - `aflame-render serve`: the upload site, on GNU libmicrohttpd.
 * What the parts of src/serve/ share.  Like the command, the server uses
 * only the library's public header; the graphs themselves are drawn by the
 * command (aflame-render, run as a child process), so that a page's files
 * are byte for byte what `aflame-render --per-thread` writes and a render
 * that fails or runs out of memory never takes the server down.
 *
 * The server is a program of its own, aflame-serve (main.c), which the
 * command runs for `aflame-render serve`: drawing a graph then does not
 * load the server's libraries.
 */
#ifndef AF_SERVE_H
#define AF_SERVE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "aflame/aflame.h"

#ifndef PROG
#define PROG "aflame-render"
#endif
#define SERVE_HASH_LEN 64 /* SHA-256 in lower-case hex */
#define SERVE_B64_LEN 44  /* SHA-256 in base64, padded */

/** `aflame-render serve ARGS`: argv[0] is the command's path (it draws
 * the uploads), the options follow.  An exit status. */
int serve_main(int argc, char **argv);

/** The server's settings, from its command line. */
typedef struct serve_config {
	const char *listen;      /* ADDR:PORT */
	const char *data;        /* the data folder */
	const char *db;          /* --db: a libpq conninfo, or NULL for SQLite */
	uint64_t max_upload;     /* bytes */
	uint64_t max_memory;     /* per render, 0: the command's default */
	uint64_t cache_size;     /* bytes of views and diffs kept */
	int jobs;                /* render workers */
	int queue;               /* renders waiting, past which 503 */
	int threads;             /* libmicrohttpd's thread pool */
	int max_connections;
	int timeout;             /* seconds a connection may stay idle */
	int request_timeout;     /* seconds a request may take to arrive */
	int list;                /* --list: /list shows the catalogue */
	char *token;             /* --upload-token's contents, or NULL */
	char self[4096];         /* the command, run for each render */
} serve_config;

/* ------------------------------------------------------------------ */
/* store.c: the data folder and its catalogue (store_db.h: its backends) */

typedef struct store store;

/** What the catalogue's calls return besides their results: STORE_DOWN
 * when it cannot be reached (a PostgreSQL server down: answer 503 with
 * STORE_DOWN_MESSAGE, the next call tries again). */
#define STORE_ERROR -1
#define STORE_DOWN -2
#define STORE_DOWN_MESSAGE "the catalogue cannot be reached: try again in a few seconds"

/** One upload in the catalogue. */
typedef struct upload_row {
	char hash[SERVE_HASH_LEN + 1];
	char *name;     /* the file name it came with, made safe */
	uint64_t size;
	int64_t time;   /* seconds since 1970 */
	char *variant;
	char *clocks;   /* "wall,cpu" */
	uint64_t threads, records, duration_us;
	char *status;   /* "ok" or "warnings" */
	char *message;  /* the command's warnings, or "" */
	char *json;     /* what a script is answered: url, threads, totals */
} upload_row;

/** Opens (making it when missing) the data folder and its catalogue: an
 * SQLite database in the folder when `db` is NULL, else the PostgreSQL
 * database the libpq conninfo `db` names, reached through at most `conns`
 * connections at once.  With SQLite the folder is this server's: its tmp/
 * is emptied of what a crash left there.  With PostgreSQL it may be shared
 * by several servers: each works in a folder of its own under tmp/, and
 * empties only those of servers that are gone.  NULL after a message. */
store *store_open(const char *dir, const char *db, int conns);
void store_close(store *s);
const char *store_dir(const store *s);

/** The row of `hash`: 1 (filled, free with upload_row_free), 0 when the
 * catalogue has none, STORE_ERROR or STORE_DOWN. */
int store_get(store *s, const char *hash, upload_row *row);
void upload_row_free(upload_row *row);

/** Adds `row` in one transaction (a row already there is kept, whoever
 * wrote it).  0, STORE_ERROR or STORE_DOWN. */
int store_put(store *s, const upload_row *row);

/** The catalogue as an HTML table body (for --list), newest first, in
 * `*html` (malloc'd).  0, STORE_ERROR or STORE_DOWN. */
int store_list_html(store *s, char **html);

/** A file's path under the data folder: "<dir>/" then `fmt` in `out`. */
void store_path(const store *s, char *out, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/** A fresh temporary path under the data folder's tmp/ in `out`:
 * "<dir>/tmp/<what>-<pid>-<n>", or with a shared catalogue
 * "<dir>/tmp/<this server's folder>/<what>-<n>". */
void store_tmp_path(const store *s, const char *what, char *out, size_t n);

/** SHA-256, streamed (libcrypto). */
typedef struct hasher hasher;
hasher *hasher_new(void);
void hasher_add(hasher *h, const void *data, size_t len);
/** The digest in hex into `out` (65 bytes); frees `h`. */
void hasher_end(hasher *h, char out[SERVE_HASH_LEN + 1]);
void hasher_free(hasher *h);
/** SHA-256 of `data` in base64 into `out` (45 bytes), as a
 * Content-Security-Policy's 'sha256-...' source wants it. */
void sha256_base64(const void *data, size_t len, char out[SERVE_B64_LEN + 1]);

/** 1 when `s` is exactly 64 lower-case hex digits. */
int is_hash(const char *s);
/** 1 when `s` is the name of a file a set holds: [A-Za-z0-9_] first, then
 * [A-Za-z0-9._-], at most 200 bytes, no "..". */
int is_safe_file(const char *s);
/** Removes the folder `path` and what it holds (no links followed). */
void remove_tree(const char *path);
/** The cache of views and diffs (traces/<hash>/views/<id>/,
 * traces/<hash>/diffs/<file>) brought down to `max` bytes: the least
 * recently used first (their times: made, or touched by store_touch when
 * served again), never `keep`.  The bytes left. */
uint64_t store_trim_cache(store *s, uint64_t max, const char *keep);
/** Marks a cached view or diff as used now. */
void store_touch(const char *path);

/* ------------------------------------------------------------------ */
/* render.c: the bounded pool of render workers                        */

typedef struct pool pool;
typedef void (*pool_fn)(void *arg);

pool *pool_new(int workers, int queue);
/** Queues `fn(arg)`: 0, or -1 when the queue is full (answer 503). */
int pool_submit(pool *p, pool_fn fn, void *arg);
/** Waits for the queued work, stops the workers, frees. */
void pool_free(pool *p);

/** Runs the command (cfg->self) with `args` (NULL-terminated, argv[0]
 * not included) in the folder `cwd`, standard error into `err_path`.  The
 * exit status, or -1 when it could not be run; *err: what it said on
 * standard error (malloc'd, NUL-terminated, may be empty). */
int run_command(const serve_config *cfg, const char *cwd, const char *const *args,
                const char *err_path, char **err);

/* ------------------------------------------------------------------ */
/* watch.c: the time a request may take to arrive                      */

typedef struct watch watch;
typedef struct watched watched;

/** Starts the thread that cuts a connection whose request has taken
 * `seconds` or more to arrive.  NULL on failure. */
watch *watch_new(int seconds);
/** Stops the thread, frees what is left. */
void watch_free(watch *w);
/** A connection (its socket) from now on; NULL when out of memory (it is
 * then not watched). */
watched *watch_add(watch *w, int fd);
/** The connection is closed: forgotten (`c` freed). */
void watch_remove(watch *w, watched *c);
/** `busy`: its request is whole and being drawn (not counted); 0: it is
 * answered, the clock starts again for the next request. */
void watch_busy(watch *w, watched *c, int busy);

/* ------------------------------------------------------------------ */
/* pages.c: the HTML the server writes                                 */

/** A growable string. */
typedef struct sbuf {
	char *s;
	size_t len, cap;
	int failed;
} sbuf;

void sb_add(sbuf *b, const char *s, size_t n);
void sb_puts(sbuf *b, const char *s);
void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/** `s` escaped for HTML text and attribute values. */
void sb_html(sbuf *b, const char *s);
/** `s` as a JSON string, quotes included (invalid UTF-8 as U+FFFD). */
void sb_json(sbuf *b, const char *s);

/** The upload page. */
void page_home(sbuf *b, const serve_config *cfg, const char *sample_hash);
/** A page saying `message` (the command's words) under `title`. */
void page_error(sbuf *b, int status, const char *title, const char *message);
/** The bar of links and the view form put at the top of a set's index
 * page; `view` is the view's query, or NULL for the default view. */
void page_trace_bar(sbuf *b, const upload_row *row, const char *view_query,
                    const char *warnings);
/** The method table (report.tsv's text) as an HTML page sortable by any
 * column. */
void page_report(sbuf *b, const upload_row *row, const char *tsv);
/** The catalogue's page (--list). */
void page_list(sbuf *b, const char *rows_html);

/** The upload page's script and the sortable table's, served as files so
 * that pages may forbid inline script. */
extern const char serve_upload_js[];
extern const char serve_sort_js[];

#endif
