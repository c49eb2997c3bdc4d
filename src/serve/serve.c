/*
 * serve.c - `aflame-render serve`: the HTTP side, on GNU libmicrohttpd
 * (its thread pool, connection limit, timeouts and multipart parser).
 *
 *   GET  /                       the upload page
 *   POST /upload                 a trace as the raw body or a multipart form
 *   GET  /trace/<hash>/          the per-thread set's index page
 *   GET  /trace/<hash>/<file>    a file of the set (SVG, thumbnail, folded,
 *                                report.tsv); /original the upload itself;
 *                                /report the method table as a page
 *   GET  /trace/<hash>/?clock=.. a view: drawn once, cached, redirected to
 *   GET  /trace/<hash>/v/<id>/.. /trace/<hash>/v/<id>/
 *   GET  /list                   the catalogue, with --list only
 *
 * An upload streams to a temporary file while it is hashed; once whole it
 * is read by the library (the command's message when it is no trace), its
 * set drawn by the command in a temporary folder, renamed into place, and
 * only then written to the catalogue and acknowledged.  The drawing runs on
 * a bounded pool of render workers, the connection suspended meanwhile;
 * a full queue is a 503.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "serve.h"

#ifndef AF_SERVE_SAMPLE
#define AF_SERVE_SAMPLE ""
#endif
#ifndef AF_SERVE_SAMPLE_INSTALLED
#define AF_SERVE_SAMPLE_INSTALLED ""
#endif

typedef struct server {
	serve_config cfg;
	store *st;
	pool *workers;
	char sample[SERVE_HASH_LEN + 1];
} server;

enum { K_OTHER, K_UPLOAD, K_VIEW, K_DIFF };

/* what an upload is */
enum { U_TRACE, U_MAPPING };

/* One request, from its first call to its end (logged then). */
typedef struct req {
	server *sv;
	struct MHD_Connection *conn;
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
/* Responses                                                           */

#define CSP_PAGE "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; " \
	"img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; "          \
	"frame-ancestors 'none'"
/* the interactive SVG carries its own script; nothing else may load */
#define CSP_SVG "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " \
	"img-src data:; frame-ancestors 'self'"
#define CSP_FILE "default-src 'none'; frame-ancestors 'none'; sandbox"

static void headers(struct MHD_Response *resp, const char *type)
{
	const char *csp = strncmp(type, "text/html", 9) == 0       ? CSP_PAGE
	                  : strncmp(type, "image/svg+xml", 13) == 0 ? CSP_SVG
	                                                            : CSP_FILE;

	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(resp, "Content-Security-Policy", csp);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
}

static enum MHD_Result queue(req *r, unsigned status, struct MHD_Response *resp)
{
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	r->status = status;
	ret = MHD_queue_response(r->conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* `body` (len bytes) is copied. */
static enum MHD_Result send_buf(req *r, unsigned status, const char *type, const char *body,
                                size_t len)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(len, (void *)body, MHD_RESPMEM_MUST_COPY);

	if (!resp)
		return MHD_NO;
	headers(resp, type);
	r->bytes = len;
	return queue(r, status, resp);
}

static enum MHD_Result send_sb(req *r, unsigned status, const char *type, sbuf *b)
{
	enum MHD_Result ret;

	if (b->failed) {
		free(b->s);
		return send_buf(r, 500, "text/plain; charset=utf-8", "out of memory\n", 14);
	}
	ret = send_buf(r, status, type, b->s ? b->s : "", b->len);
	free(b->s);
	return ret;
}

static const char *reason(unsigned status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 413: return "Payload Too Large";
	case 415: return "Unsupported Media Type";
	case 422: return "Unprocessable Content";
	case 503: return "Service Unavailable";
	default: return "Internal Server Error";
	}
}

/* An error: a page for a browser, {"error": ...} for a script. */
static enum MHD_Result send_error(req *r, unsigned status, const char *message)
{
	sbuf b = {0};
	struct MHD_Response *resp;
	const char *type = r->want_json ? "application/json" : "text/html; charset=utf-8";

	if (r->want_json) {
		sb_puts(&b, "{\"status\":");
		sb_printf(&b, "%u,\"error\":", status);
		sb_json(&b, message);
		sb_puts(&b, "}\n");
	} else {
		page_error(&b, (int)status, reason(status), message);
	}
	if (b.failed) {
		free(b.s);
		return MHD_NO;
	}
	resp = MHD_create_response_from_buffer(b.len, b.s, MHD_RESPMEM_MUST_COPY);
	free(b.s);
	if (!resp)
		return MHD_NO;
	headers(resp, type);
	if (status == 503)
		MHD_add_response_header(resp, "Retry-After", "5");
	r->bytes = b.len;
	return queue(r, status, resp);
}

static enum MHD_Result send_redirect(req *r, unsigned status, const char *location)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);

	if (!resp)
		return MHD_NO;
	headers(resp, "text/plain; charset=utf-8");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, location);
	return queue(r, status, resp);
}

static const char *type_of(const char *name)
{
	const char *dot = strrchr(name, '.');

	if (!dot)
		return "application/octet-stream";
	if (strcmp(dot, ".svg") == 0)
		return "image/svg+xml";
	if (strcmp(dot, ".png") == 0)
		return "image/png";
	if (strcmp(dot, ".pdf") == 0)
		return "application/pdf";
	if (strcmp(dot, ".html") == 0)
		return "text/html; charset=utf-8";
	if (strcmp(dot, ".folded") == 0 || strcmp(dot, ".tsv") == 0 || strcmp(dot, ".txt") == 0)
		return "text/plain; charset=utf-8";
	return "application/octet-stream";
}

/* A regular file (never a link) of a stored set, or 404. */
static enum MHD_Result send_file(req *r, const char *path, const char *type,
                                 const char *download_as)
{
	struct stat st;
	struct MHD_Response *resp;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return send_error(r, 404, "no such file");
	}
	resp = MHD_create_response_from_fd((uint64_t)st.st_size, fd);
	if (!resp) {
		close(fd);
		return MHD_NO;
	}
	headers(resp, type);
	/* content-addressed: a file under a hash never changes */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL,
	                        "public, max-age=31536000, immutable");
	if (download_as) {
		char cd[300];
		snprintf(cd, sizeof cd, "attachment; filename=\"%s\"", download_as);
		MHD_add_response_header(resp, "Content-Disposition", cd);
	}
	r->bytes = (uint64_t)st.st_size;
	return queue(r, 200, resp);
}

/* ------------------------------------------------------------------ */
/* Uploads                                                             */

/* `in` reduced to a file name safe anywhere: [A-Za-z0-9._-], no leading
 * dot, "upload.trace" when nothing is left. */
static void safe_upload_name(char *out, size_t n, const char *in)
{
	const char *slash;
	size_t o = 0;

	if (in && (slash = strrchr(in, '/')) != NULL)
		in = slash + 1;
	if (in && (slash = strrchr(in, '\\')) != NULL)
		in = slash + 1;
	for (; in && *in && o + 1 < n && o < 100; in++) {
		unsigned char c = (unsigned char)*in;
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		         c == '.' || c == '-' || c == '_';
		if (o == 0 && (c == '.' || c == '-'))
			continue;
		if (c == '.' && o > 0 && out[o - 1] == '.')
			continue;
		out[o++] = ok ? (char)c : '_';
	}
	out[o] = '\0';
	if (o == 0 || !is_safe_file(out))
		snprintf(out, n, "upload.trace");
}

static const char *variant_name(af_variant v)
{
	switch (v) {
	case AF_VARIANT_REGULAR: return "regular";
	case AF_VARIANT_STREAMING: return "streaming";
	case AF_VARIANT_KEY_DATA: return "key+data";
	case AF_VARIANT_FOLDED: return "folded";
	case AF_VARIANT_SYSTRACE: return "systrace";
	}
	return "unknown";
}

static unsigned status_of(af_status st)
{
	switch (st) {
	case AF_ERR_FORMAT: return 415;
	case AF_ERR_IO: return 500;
	case AF_ERR_NOMEM: return 503;
	default: return 422;
	}
}

static const char *const clock_names[AF_CLOCK_COUNT] = {"wall", "cpu", "wait"};

/* What a script is answered, from the parsed trace. */
static void upload_json(sbuf *b, const char *hash, const char *name, uint64_t size,
                        const af_trace *t, upload_row *row)
{
	const af_trace_info *ti = af_trace_get_info(t);
	size_t i, n = af_trace_thread_count(t);
	uint64_t total[AF_CLOCK_COUNT] = {0}, dur = 0;
	int c, first = 1;

	sb_printf(b, "{\"url\":\"/trace/%s/\",\"hash\":\"%s\",\"name\":", hash, hash);
	sb_json(b, name);
	sb_printf(b, ",\"size\":%llu,\"variant\":\"%s\",\"clocks\":[", (unsigned long long)size,
	          variant_name(ti->variant));
	for (c = 0; c < AF_CLOCK_COUNT; c++)
		if (ti->has_clock[c]) {
			sb_printf(b, "%s\"%s\"", first ? "" : ",", clock_names[c]);
			first = 0;
		}
	sb_printf(b, "],\"records\":%llu,\"threads\":[", (unsigned long long)ti->records);
	for (i = 0; i < n; i++) {
		af_thread_info th;
		af_trace_thread(t, i, &th);
		sb_printf(b, "%s{\"tid\":%u,\"name\":", i ? "," : "", th.tid);
		sb_json(b, th.name);
		sb_printf(b, ",\"records\":%llu,\"calls\":%llu,\"total_us\":{",
		          (unsigned long long)th.records, (unsigned long long)th.calls);
		first = 1;
		for (c = 0; c < AF_CLOCK_COUNT; c++) {
			if (!ti->has_clock[c])
				continue;
			sb_printf(b, "%s\"%s\":%llu", first ? "" : ",", clock_names[c],
			          (unsigned long long)th.total[c]);
			first = 0;
			total[c] += th.total[c];
		}
		sb_puts(b, "}}");
		if (th.time[AF_CLOCK_WALL] > dur)
			dur = th.time[AF_CLOCK_WALL];
	}
	sb_puts(b, "],\"totals_us\":{");
	first = 1;
	for (c = 0; c < AF_CLOCK_COUNT; c++)
		if (ti->has_clock[c]) {
			sb_printf(b, "%s\"%s\":%llu", first ? "" : ",", clock_names[c],
			          (unsigned long long)total[c]);
			first = 0;
		}
	sb_puts(b, "}");
	if (ti->variant == AF_VARIANT_FOLDED) {
		/* folded stacks have counts, not threads: the graph's total */
		af_tree_options to = {0};
		af_tree *tree = NULL;
		af_node_info root;
		to.clock = AF_CLOCK_WALL;
		if (af_tree_from_trace(t, &to, &tree, NULL) == AF_OK) {
			af_tree_node(tree, 0, &root);
			sb_printf(b, ",\"total_count\":%llu", (unsigned long long)root.total[AF_CLOCK_WALL]);
		}
		af_tree_free(tree);
	}
	row->threads = n;
	row->records = ti->records;
	row->duration_us = dur;
}

/* A file's path under the data folder. */
static void data_path(const server *sv, char *out, size_t n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void data_path(const server *sv, char *out, size_t n, const char *fmt, ...)
{
	va_list ap;
	size_t k = (size_t)snprintf(out, n, "%s/", store_dir(sv->st));

	va_start(ap, fmt);
	if (k < n)
		vsnprintf(out + k, n - k, fmt, ap);
	va_end(ap);
}

/* The answer for an upload in the catalogue. */
static void answer_row(req *r, const upload_row *row)
{
	sbuf b = {0};

	sb_puts(&b, row->json);
	sb_puts(&b, ",\"status\":");
	sb_json(&b, row->status);
	sb_puts(&b, ",\"warnings\":");
	sb_json(&b, row->message);
	sb_puts(&b, "}\n");
	r->rstatus = b.failed ? 500 : 200;
	r->rbody = b.failed ? strdup("out of memory") : b.s;
	if (b.failed)
		free(b.s);
	snprintf(r->location, sizeof r->location, "/trace/%s/", row->hash);
}

static void fail(req *r, unsigned status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail(req *r, unsigned status, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	r->rstatus = status;
	free(r->rbody);
	r->rbody = strdup(msg);
}

/* The whole of an upload, once received: r->tmp holds the bytes, r->hash
 * their digest.  Fills r->rstatus and r->rbody.  Runs on a render worker
 * (and once at start for the sample). */
static void ingest_mapping(server *sv, req *r);

static void ingest(server *sv, req *r)
{
	upload_row row;
	af_parse_options po = {0};
	af_trace *t = NULL;
	af_error e = {0};
	af_status st;
	sbuf js = {0};
	char work[2048], orig[4096], path[4096], final[4096], *err = NULL;
	const char *args[16];
	int k, rc, c;
	const af_trace_info *ti;

	if ((k = store_get(sv->st, r->hash, &row)) != 0) {
		unlink(r->tmp);
		if (k < 0) {
			fail(r, 500, "the catalogue cannot be read");
			return;
		}
		answer_row(r, &row);
		upload_row_free(&row);
		return;
	}
	/* the library reads it first: the command's message when it is no trace */
	po.limits.max_memory = sv->cfg.max_memory;
	po.jobs = 1;
	if ((st = af_trace_open(r->tmp, &po, &t, &e)) != AF_OK) {
		unlink(r->tmp);
		if (e.line > 0)
			fail(r, status_of(st), PROG ": %s: %s (line %lld)", r->name, e.message, e.line);
		else if (e.offset >= 0)
			fail(r, status_of(st), PROG ": %s: %s (byte %lld)", r->name, e.message, e.offset);
		else
			fail(r, status_of(st), PROG ": %s: %s", r->name, e.message);
		return;
	}
	ti = af_trace_get_info(t);
	memset(&row, 0, sizeof row);
	snprintf(row.hash, sizeof row.hash, "%s", r->hash);
	upload_json(&js, r->hash, r->name, r->got, t, &row);
	{
		sbuf cl = {0};
		for (c = 0; c < AF_CLOCK_COUNT; c++)
			if (ti->has_clock[c])
				sb_printf(&cl, "%s%s", cl.len ? "," : "", clock_names[c]);
		row.clocks = cl.s ? cl.s : strdup("");
	}
	row.variant = strdup(variant_name(ti->variant));
	af_trace_free(t);

	/* the set, drawn by the command in a folder of its own */
	store_tmp_path(sv->st, "work", work, sizeof work);
	snprintf(orig, sizeof orig, "%s/orig", work);
	snprintf(path, sizeof path, "%s/orig/%s", work, r->name);
	if (mkdir(work, 0755) != 0 || mkdir(orig, 0755) != 0 || rename(r->tmp, path) != 0) {
		fail(r, 500, "cannot store the upload: %s", strerror(errno));
		unlink(r->tmp);
		goto out;
	}
	k = 0;
	args[k++] = "--per-thread";
	args[k++] = "--format";
	args[k++] = "svg,folded";
	args[k++] = "--report";
	args[k++] = "../report.tsv";
	args[k++] = "-o";
	args[k++] = "../set";
	args[k++] = "--";
	args[k++] = r->name;
	args[k] = NULL;
	snprintf(path, sizeof path, "%s/stderr", work);
	rc = run_command(&sv->cfg, orig, args, path, &err);
	if (rc != 0) {
		fail(r, rc < 0 ? 500 : 422, "%s", err && *err ? err : "the command failed");
		goto out;
	}
	{
		char from[4096], to[4096];
		snprintf(from, sizeof from, "%s/report.tsv", work);
		snprintf(to, sizeof to, "%s/set/report.tsv", work);
		if (rename(from, to) != 0) {
			fail(r, 500, "cannot store the method table: %s", strerror(errno));
			goto out;
		}
	}
	/* the whole folder into place at once */
	data_path(sv, final, sizeof final, "traces/%s", r->hash);
	if (rename(work, final) != 0 && errno != EEXIST && errno != ENOTEMPTY) {
		fail(r, 500, "cannot store the upload: %s", strerror(errno));
		goto out;
	}
	row.name = strdup(r->name);
	row.size = r->got;
	row.time = (int64_t)time(NULL);
	row.status = strdup(err && *err ? "warnings" : "ok");
	row.message = strdup(err ? err : "");
	row.json = js.s;
	js.s = NULL;
	if (js.failed || !row.name || !row.status || !row.message || !row.json || !row.variant ||
	    !row.clocks) {
		fail(r, 500, "out of memory");
		goto out;
	}
	/* acknowledged only once the files are in place and the row written */
	if (store_put(sv->st, &row) != 0) {
		fail(r, 500, "the catalogue cannot be written");
		goto out;
	}
	answer_row(r, &row);
out:
	remove_tree(work);
	free(err);
	free(js.s);
	upload_row_free(&row);
}

static int over_limit(req *r, size_t more)
{
	if (r->got + more > r->sv->cfg.max_upload) {
		r->too_big = 1;
		if (r->fd >= 0) {
			close(r->fd);
			r->fd = -1;
			unlink(r->tmp);
		}
		return 1;
	}
	return 0;
}

static int take(req *r, const char *data, size_t size)
{
	const char *p = data;
	size_t left = size;

	if (r->too_big || r->bad || r->fd < 0)
		return 0;
	if (over_limit(r, size))
		return 0;
	hasher_add(r->h, data, size);
	while (left) {
		ssize_t w = write(r->fd, p, left);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			r->bad = 500;
			snprintf(r->badmsg, sizeof r->badmsg, "cannot store the upload: %s",
			         strerror(errno));
			return -1;
		}
		p += w;
		left -= (size_t)w;
	}
	r->got += size;
	return 0;
}

static enum MHD_Result form_part(void *cls, enum MHD_ValueKind kind, const char *key,
                                 const char *filename, const char *content_type,
                                 const char *transfer_encoding, const char *data,
                                 uint64_t off, size_t size)
{
	req *r = cls;

	(void)kind;
	(void)content_type;
	(void)transfer_encoding;
	if (key && strcmp(key, "token") == 0 && !filename) {
		size_t have = strlen(r->form_token);
		if (have + size < sizeof r->form_token) {
			memcpy(r->form_token + have, data, size);
			r->form_token[have + size] = '\0';
		}
		return MHD_YES;
	}
	if (!filename)
		return MHD_YES; /* other fields: ignored */
	if (off == 0 && (strcmp(r->field, key ? key : "") != 0 || size == 0 || r->files == 0)) {
		if (r->files && strcmp(r->field, key ? key : "") != 0) {
			r->bad = 400;
			snprintf(r->badmsg, sizeof r->badmsg,
			         "one file per upload (a key+data pair: join them first)");
			return MHD_YES;
		}
		if (!r->files) {
			r->files = 1;
			snprintf(r->field, sizeof r->field, "%s", key ? key : "");
			safe_upload_name(r->name, sizeof r->name, filename);
		}
	}
	if (size)
		take(r, data, size);
	return MHD_YES;
}

/* ------------------------------------------------------------------ */
/* Views                                                               */

typedef struct view_param {
	const char *name;
	const char *flag;   /* the command's option */
	int has_value;
} view_param;

static const view_param view_params[] = {
	{"clock", "--clock", 1},
	{"thread", "--thread", 1},
	{"focus", "--focus", 1},
	{"exclude", "--exclude", 1},
	{"min-share", "--min-share", 1},
	{"collapse-recursion", "--collapse-recursion", 0},
	{"strip-package", "--strip-package", 0},
	{"inverted", "--inverted", 0},
	{"flamechart", "--flamechart", 0},
	{"theme", "--theme", 1},
	{"mapping", "--mapping", 1}, /* a mapping uploaded beside the trace */
};

typedef struct arg_scan {
	req *r;
	const char *values[sizeof view_params / sizeof view_params[0]];
	const char *unknown;
} arg_scan;

static enum MHD_Result scan_arg(void *cls, enum MHD_ValueKind kind, const char *key,
                                const char *value)
{
	arg_scan *a = cls;
	size_t i;

	(void)kind;
	for (i = 0; i < sizeof view_params / sizeof view_params[0]; i++)
		if (strcmp(key, view_params[i].name) == 0) {
			a->values[i] = value ? value : "";
			return MHD_YES;
		}
	if (!a->unknown)
		a->unknown = key;
	return MHD_YES;
}

/* The view the query asks for: 0 with none, 1 with one (r->view_query,
 * r->view_args, r->view_id set), -1 after an error was sent. */
static int parse_view(req *r, enum MHD_Result *ret)
{
	arg_scan a = {r, {0}, NULL};
	sbuf q = {0}, s = {0};
	size_t i, offs[40];
	int n = 0, k;
	char digest[SERVE_HASH_LEN + 1];
	hasher *h;

	MHD_get_connection_values(r->conn, MHD_GET_ARGUMENT_KIND, scan_arg, &a);
	if (a.unknown) {
		char msg[400];
		snprintf(msg, sizeof msg, "unknown view parameter '%.200s' (known: clock, thread, "
		         "focus, exclude, min-share, collapse-recursion, strip-package, inverted, "
		         "flamechart, theme)", a.unknown);
		*ret = send_error(r, 400, msg);
		return -1;
	}
	for (i = 0; i < sizeof view_params / sizeof view_params[0]; i++) {
		const char *v = a.values[i];
		if (!v)
			continue;
		if (view_params[i].has_value) {
			if (!*v)
				continue; /* an empty field of the form */
			if (strlen(v) > 1000) {
				*ret = send_error(r, 400, "a view parameter is too long");
				return -1;
			}
			if (strcmp(view_params[i].name, "theme") == 0 && strcmp(v, "dark") != 0 &&
			    strcmp(v, "light") != 0) {
				*ret = send_error(r, 400, "theme is light or dark");
				return -1;
			}
			if (strcmp(view_params[i].name, "mapping") == 0) {
				char mp[4096];
				struct stat mst;
				data_path(r->sv, mp, sizeof mp, "traces/%s/mappings/%s.txt", r->hash,
				          is_hash(v) ? v : "-");
				if (!is_hash(v) || stat(mp, &mst) != 0) {
					free(q.s);
					free(s.s);
					*ret = send_error(r, 404, "no such mapping for this trace");
					return -1;
				}
				sb_printf(&q, "%smapping=%s", q.len ? "&" : "", v);
				offs[n++] = s.len;
				sb_printf(&s, "--mapping=../mappings/%s.txt", v);
				sb_add(&s, "", 1);
				continue;
			}
			if (strcmp(view_params[i].name, "clock") == 0 && strcmp(v, "wall") != 0 &&
			    strcmp(v, "cpu") != 0 && strcmp(v, "wait") != 0) {
				*ret = send_error(r, 400, "clock is wall, cpu or wait");
				return -1;
			}
			sb_printf(&q, "%s%s=", q.len ? "&" : "", view_params[i].name);
			sb_puts(&q, v);
			offs[n++] = s.len;
			sb_printf(&s, "%s=", view_params[i].flag);
			sb_add(&s, v, strlen(v) + 1);
		} else {
			if (strcmp(v, "0") == 0 || strcmp(v, "false") == 0)
				continue;
			sb_printf(&q, "%s%s", q.len ? "&" : "", view_params[i].name);
			offs[n++] = s.len;
			sb_add(&s, view_params[i].flag, strlen(view_params[i].flag) + 1);
		}
	}
	if (q.failed || s.failed) {
		free(q.s);
		free(s.s);
		*ret = send_error(r, 500, "out of memory");
		return -1;
	}
	if (n == 0) {
		free(q.s);
		free(s.s);
		return 0;
	}
	r->view_query = q.s;
	r->view_strings = s.s;
	for (k = 0; k < n; k++)
		r->view_args[k] = s.s + offs[k];
	r->view_args[n] = NULL;
	if (!(h = hasher_new())) {
		*ret = send_error(r, 500, "out of memory");
		return -1;
	}
	hasher_add(h, q.s, q.len);
	hasher_end(h, digest);
	snprintf(r->view_id, sizeof r->view_id, "%.32s", digest);
	return 1;
}

/* A mapping file for upload r->hash (r->tmp, its digest in r->before):
 * read by the library (the command's message when it is no mapping), kept
 * as mappings/<digest>.txt beside the trace; answered with the view that
 * uses it. */
static void ingest_mapping(server *sv, req *r)
{
	af_mapping *m = NULL;
	af_error e = {0};
	af_status st;
	upload_row row;
	char dir[2048], path[4096];
	sbuf b = {0};

	if (store_get(sv->st, r->hash, &row) != 1) {
		unlink(r->tmp);
		fail(r, 404, "no such trace");
		return;
	}
	upload_row_free(&row);
	if ((st = af_mapping_load(r->tmp, &m, &e)) != AF_OK) {
		unlink(r->tmp);
		if (e.line > 0)
			fail(r, 422, PROG ": %s: %s (line %lld)", r->name, e.message, e.line);
		else
			fail(r, st == AF_ERR_IO ? 500 : 422, PROG ": %s: %s", r->name, e.message);
		return;
	}
	af_mapping_free(m);
	data_path(sv, dir, sizeof dir, "traces/%s/mappings", r->hash);
	mkdir(dir, 0755);
	snprintf(path, sizeof path, "%s/%s.txt", dir, r->before);
	if (rename(r->tmp, path) != 0) {
		unlink(r->tmp);
		fail(r, 500, "cannot store the mapping: %s", strerror(errno));
		return;
	}
	snprintf(r->location, sizeof r->location, "/trace/%s/?mapping=%s", r->hash, r->before);
	sb_printf(&b, "{\"mapping\":\"%s\",\"url\":\"%s\"}\n", r->before, r->location);
	r->rstatus = b.failed ? 500 : 200;
	r->rbody = b.s;
}

/* Draws the view r->view_args of upload r->hash into views/<id>. */
static void render_view(server *sv, req *r)
{
	upload_row row;
	char work[2048], orig[4096], final[4096], path[4096], *err = NULL;
	const char *args[48];
	int k = 0, i, rc;
	FILE *f;

	if (store_get(sv->st, r->hash, &row) != 1) {
		fail(r, 404, "no such trace");
		return;
	}
	store_tmp_path(sv->st, "view", work, sizeof work);
	data_path(sv, orig, sizeof orig, "traces/%s/orig", r->hash);
	if (mkdir(work, 0755) != 0) {
		fail(r, 500, "cannot draw the view: %s", strerror(errno));
		goto out;
	}
	args[k++] = "--per-thread";
	for (i = 0; r->view_args[i] && k < 40; i++)
		args[k++] = r->view_args[i];
	snprintf(path, sizeof path, "%s/set", work);
	args[k++] = "-o";
	args[k++] = path;
	args[k++] = "--";
	args[k++] = row.name;
	args[k] = NULL;
	snprintf(final, sizeof final, "%s/stderr", work);
	rc = run_command(&sv->cfg, orig, args, final, &err);
	if (rc != 0) {
		fail(r, rc < 0 ? 500 : 422, "%s", err && *err ? err : "the command failed");
		goto out;
	}
	snprintf(final, sizeof final, "%s/set/.query", work);
	if ((f = fopen(final, "w")) != NULL) {
		fputs(r->view_query, f);
		fclose(f);
	}
	snprintf(final, sizeof final, "%s/set/.warnings", work);
	if (err && *err && (f = fopen(final, "w")) != NULL) {
		fputs(err, f);
		fclose(f);
	}
	data_path(sv, final, sizeof final, "traces/%s/views", r->hash);
	mkdir(final, 0755);
	data_path(sv, final, sizeof final, "traces/%s/views/%s", r->hash, r->view_id);
	if (rename(path, final) != 0 && errno != EEXIST && errno != ENOTEMPTY) {
		fail(r, 500, "cannot store the view: %s", strerror(errno));
		goto out;
	}
	r->rstatus = 303;
	snprintf(r->location, sizeof r->location, "/trace/%s/v/%s/", r->hash, r->view_id);
out:
	remove_tree(work);
	free(err);
	upload_row_free(&row);
}

static enum MHD_Result submit(req *r);

/* Where the diff of r->before to r->hash is kept. */
static void diff_file(const server *sv, const req *r, char *out, size_t n)
{
	data_path(sv, out, n, "traces/%s/diffs/%s.%s.%s.svg", r->hash, r->before,
	          r->diff_clock[0] ? r->diff_clock : "default", r->diff_normalize ? "n" : "p");
}

/* Draws the differential graph of upload r->before to upload r->hash. */
static void render_diff(server *sv, req *r)
{
	upload_row ra, rb;
	char work[2048], link[4096], target[4096], path[4096], sub[600], *err = NULL;
	char before[300], after[300], clock_opt[32];
	const char *args[16];
	int k = 0, rc;

	memset(&ra, 0, sizeof ra);
	memset(&rb, 0, sizeof rb);
	if (store_get(sv->st, r->before, &rb) != 1 || store_get(sv->st, r->hash, &ra) != 1) {
		fail(r, 404, "no such trace");
		goto done;
	}
	/* the two uploads seen as before/NAME and after/NAME, whatever their
	 * folders are called */
	store_tmp_path(sv->st, "diff", work, sizeof work);
	if (mkdir(work, 0755) != 0) {
		fail(r, 500, "cannot draw the diff: %s", strerror(errno));
		goto done;
	}
	data_path(sv, target, sizeof target, "traces/%s/orig", r->before);
	snprintf(link, sizeof link, "%s/before", work);
	if (symlink(target, link) != 0) {
		fail(r, 500, "cannot draw the diff: %s", strerror(errno));
		goto out;
	}
	data_path(sv, target, sizeof target, "traces/%s/orig", r->hash);
	snprintf(link, sizeof link, "%s/after", work);
	if (symlink(target, link) != 0) {
		fail(r, 500, "cannot draw the diff: %s", strerror(errno));
		goto out;
	}
	snprintf(before, sizeof before, "before/%s", rb.name);
	snprintf(after, sizeof after, "after/%s", ra.name);
	snprintf(sub, sizeof sub, "--subtitle=%s \xE2\x86\x92 %s%s: red grew, blue shrank", rb.name,
	         ra.name, r->diff_normalize ? " (normalized)" : "");
	args[k++] = "--diff";
	args[k++] = before;
	args[k++] = sub;
	if (r->diff_clock[0]) {
		snprintf(clock_opt, sizeof clock_opt, "--clock=%s", r->diff_clock);
		args[k++] = clock_opt;
	}
	if (r->diff_normalize)
		args[k++] = "--normalize";
	args[k++] = "-o";
	args[k++] = "diff.svg";
	args[k++] = "--";
	args[k++] = after;
	args[k] = NULL;
	snprintf(path, sizeof path, "%s/stderr", work);
	rc = run_command(&sv->cfg, work, args, path, &err);
	if (rc != 0) {
		fail(r, rc < 0 ? 500 : 422, "%s", err && *err ? err : "the command failed");
		goto out;
	}
	data_path(sv, target, sizeof target, "traces/%s/diffs", r->hash);
	mkdir(target, 0755);
	diff_file(sv, r, r->file, sizeof r->file);
	snprintf(path, sizeof path, "%s/diff.svg", work);
	if (rename(path, r->file) != 0) {
		fail(r, 500, "cannot store the diff: %s", strerror(errno));
		goto out;
	}
	r->rstatus = 200;
out:
	remove_tree(work);
done:
	free(err);
	upload_row_free(&ra);
	upload_row_free(&rb);
}

/* /diff/<before>/<after>[?clock=..&normalize]: the differential graph of
 * two uploads, drawn once and kept. */
static enum MHD_Result diff_page(req *r, const char *rest)
{
	const char *clock = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "clock");
	const char *norm = MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "normalize");
	struct stat st;

	if (strlen(rest) != 2 * SERVE_HASH_LEN + 1 || rest[SERVE_HASH_LEN] != '/')
		return send_error(r, 404, "no such diff: /diff/BEFORE/AFTER, two uploads' hashes");
	memcpy(r->before, rest, SERVE_HASH_LEN);
	r->before[SERVE_HASH_LEN] = '\0';
	memcpy(r->hash, rest + SERVE_HASH_LEN + 1, SERVE_HASH_LEN + 1);
	if (!is_hash(r->before) || !is_hash(r->hash))
		return send_error(r, 404, "no such diff: /diff/BEFORE/AFTER, two uploads' hashes");
	if (clock && *clock) {
		if (strcmp(clock, "wall") != 0 && strcmp(clock, "cpu") != 0)
			return send_error(r, 400, "a diff's clock is wall or cpu");
		snprintf(r->diff_clock, sizeof r->diff_clock, "%s", clock);
	}
	r->diff_normalize = norm && strcmp(norm, "0") != 0 && strcmp(norm, "false") != 0;
	diff_file(r->sv, r, r->file, sizeof r->file);
	if (stat(r->file, &st) == 0)
		return send_file(r, r->file, "image/svg+xml", NULL);
	{
		upload_row a, b;
		int ka = store_get(r->sv->st, r->before, &b), kb = store_get(r->sv->st, r->hash, &a);
		if (ka == 1)
			upload_row_free(&b);
		if (kb == 1)
			upload_row_free(&a);
		if (ka != 1 || kb != 1)
			return send_error(r, 404, "no such trace");
	}
	r->kind = K_DIFF;
	return submit(r);
}

/* ------------------------------------------------------------------ */
/* Work on the render pool                                             */

static void job(void *arg)
{
	req *r = arg;

	if (r->kind == K_UPLOAD && r->upload == U_MAPPING)
		ingest_mapping(r->sv, r);
	else if (r->kind == K_UPLOAD)
		ingest(r->sv, r);
	else if (r->kind == K_DIFF)
		render_diff(r->sv, r);
	else
		render_view(r->sv, r);
	__atomic_store_n(&r->finished, 1, __ATOMIC_RELEASE);
	MHD_resume_connection(r->conn);
}

/* Hands `r` to a render worker, the connection suspended meanwhile; a
 * full queue is answered 503 now. */
static enum MHD_Result submit(req *r)
{
	r->queued = 1;
	MHD_suspend_connection(r->conn);
	if (pool_submit(r->sv->workers, job, r) != 0) {
		MHD_resume_connection(r->conn);
		r->queued = 0;
		return send_error(r, 503, "the server is busy drawing other traces: try again in "
		                          "a few seconds");
	}
	return MHD_YES;
}

/* The answer of finished work. */
static enum MHD_Result answer(req *r)
{
	const char *msg = r->rbody ? r->rbody : "";

	if (r->rstatus == 303)
		return send_redirect(r, 303, r->location);
	if (r->rstatus != 200)
		return send_error(r, r->rstatus, msg);
	if (r->kind == K_DIFF)
		return send_file(r, r->file, "image/svg+xml", NULL);
	if (r->want_json)
		return send_buf(r, 200, "application/json", msg, strlen(msg));
	return send_redirect(r, 303, r->location);
}

/* ------------------------------------------------------------------ */
/* Pages of a trace                                                    */

/* index.html of `dir` with the bar of links put after <body>. */
static enum MHD_Result send_index(req *r, const upload_row *row, const char *dir,
                                  const char *view_query)
{
	char path[4096], *html = NULL, *warn = NULL;
	size_t len = 0;
	FILE *f;
	sbuf b = {0};
	const char *at;

	snprintf(path, sizeof path, "%s/index.html", dir);
	if ((f = fopen(path, "rb")) != NULL) {
		struct stat st;
		if (fstat(fileno(f), &st) == 0 && (html = malloc((size_t)st.st_size + 1)) != NULL) {
			len = fread(html, 1, (size_t)st.st_size, f);
			html[len] = '\0';
		}
		fclose(f);
	}
	if (!html)
		return send_error(r, 404, "no such page");
	if (view_query) {
		snprintf(path, sizeof path, "%s/.warnings", dir);
		if ((f = fopen(path, "rb")) != NULL) {
			if ((warn = calloc(1, 16385)) != NULL)
				fread(warn, 1, 16384, f);
			fclose(f);
		}
	}
	at = strstr(html, "<body>");
	at = at ? at + 6 : html;
	sb_add(&b, html, (size_t)(at - html));
	sb_puts(&b, "\n");
	page_trace_bar(&b, row, view_query, view_query ? warn : row->message);
	sb_puts(&b, at);
	free(html);
	free(warn);
	return send_sb(r, 200, "text/html; charset=utf-8", &b);
}

static enum MHD_Result trace_page(req *r, const char *rest)
{
	server *sv = r->sv;
	upload_row row;
	char hash[SERVE_HASH_LEN + 1], path[4096];
	enum MHD_Result ret;
	int k, v;

	if (strlen(rest) < SERVE_HASH_LEN)
		return send_error(r, 404, "no such trace");
	memcpy(hash, rest, SERVE_HASH_LEN);
	hash[SERVE_HASH_LEN] = '\0';
	rest += SERVE_HASH_LEN;
	if (!is_hash(hash))
		return send_error(r, 404, "no such trace");
	if ((k = store_get(sv->st, hash, &row)) <= 0)
		return send_error(r, k < 0 ? 500 : 404, k < 0 ? "the catalogue cannot be read"
		                                              : "no such trace");
	snprintf(r->hash, sizeof r->hash, "%s", hash);
	if (*rest == '\0') {
		/* the set's links are relative: the page lives at .../ */
		char loc[SERVE_HASH_LEN + 16];
		snprintf(loc, sizeof loc, "/trace/%s/", hash);
		ret = send_redirect(r, 301, loc);
	} else if (strcmp(rest, "/") == 0) {
		v = parse_view(r, &ret);
		if (v < 0) {
			/* sent */
		} else if (v == 0) {
			data_path(sv, path, sizeof path, "traces/%s/set", hash);
			ret = send_index(r, &row, path, NULL);
		} else {
			struct stat st;
			data_path(sv, path, sizeof path, "traces/%s/views/%s/index.html", hash,
			          r->view_id);
			if (stat(path, &st) == 0) {
				char loc[128];
				snprintf(loc, sizeof loc, "/trace/%s/v/%s/", hash, r->view_id);
				ret = send_redirect(r, 303, loc);
			} else {
				r->kind = K_VIEW;
				ret = submit(r);
			}
		}
	} else if (strcmp(rest, "/original") == 0) {
		data_path(sv, path, sizeof path, "traces/%s/orig/%s", hash, row.name);
		ret = send_file(r, path, "application/octet-stream", row.name);
	} else if (strcmp(rest, "/report") == 0) {
		char *tsv = NULL;
		FILE *f;
		data_path(sv, path, sizeof path, "traces/%s/set/report.tsv", hash);
		if ((f = fopen(path, "rb")) != NULL) {
			struct stat st;
			if (fstat(fileno(f), &st) == 0 && (tsv = malloc((size_t)st.st_size + 1))) {
				size_t n = fread(tsv, 1, (size_t)st.st_size, f);
				tsv[n] = '\0';
			}
			fclose(f);
		}
		if (!tsv) {
			ret = send_error(r, 404, "no method table");
		} else {
			sbuf b = {0};
			page_report(&b, &row, tsv);
			free(tsv);
			ret = send_sb(r, 200, "text/html; charset=utf-8", &b);
		}
	} else if (strncmp(rest, "/v/", 3) == 0 && strlen(rest) >= 3 + 32 + 1 &&
	           rest[3 + 32] == '/') {
		char id[33], dir[2048];
		const char *file = rest + 3 + 32 + 1;
		size_t i;
		memcpy(id, rest + 3, 32);
		id[32] = '\0';
		for (i = 0; i < 32; i++)
			if (!((id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f')))
				break;
		data_path(sv, dir, sizeof dir, "traces/%s/views/%s", hash, id);
		if (i < 32) {
			ret = send_error(r, 404, "no such view");
		} else if (*file == '\0') {
			char q[1024] = "", qp[4200];
			FILE *f;
			snprintf(qp, sizeof qp, "%s/.query", dir);
			if ((f = fopen(qp, "rb")) != NULL) {
				size_t n = fread(q, 1, sizeof q - 1, f);
				q[n] = '\0';
				fclose(f);
				ret = send_index(r, &row, dir, q);
			} else {
				ret = send_error(r, 404, "no such view");
			}
		} else if (!is_safe_file(file)) {
			ret = send_error(r, 404, "no such file");
		} else {
			snprintf(path, sizeof path, "%s/%s", dir, file);
			ret = send_file(r, path, type_of(file), NULL);
		}
	} else if (rest[0] == '/' && is_safe_file(rest + 1)) {
		data_path(sv, path, sizeof path, "traces/%s/set/%s", hash, rest + 1);
		ret = send_file(r, path, type_of(rest + 1), NULL);
	} else {
		ret = send_error(r, 404, "no such file");
	}
	upload_row_free(&row);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The handler                                                         */

static int token_ok(const server *sv, const char *given)
{
	const char *want = sv->cfg.token;
	size_t i, n, m;
	unsigned char diff = 0;

	if (!want)
		return 1;
	if (!given)
		return 0;
	n = strlen(want);
	m = strlen(given);
	for (i = 0; i < n; i++)
		diff |= (unsigned char)(want[i] ^ (i < m ? given[i] : 0));
	return diff == 0 && n == m;
}

static const char *header_token(struct MHD_Connection *conn)
{
	const char *a = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");

	if (a && strncasecmp(a, "Bearer ", 7) == 0)
		return a + 7;
	return MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-Upload-Token");
}

static enum MHD_Result start_upload(req *r)
{
	server *sv = r->sv;
	const char *type = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
	                                               MHD_HTTP_HEADER_CONTENT_TYPE);
	const char *len = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
	                                              MHD_HTTP_HEADER_CONTENT_LENGTH);
	const char *tok = header_token(r->conn);
	int multipart = type && strncasecmp(type, "multipart/form-data", 19) == 0;

	r->kind = K_UPLOAD;
	if (sv->cfg.token && !multipart && !token_ok(sv, tok))
		return send_error(r, 401, "this server needs an upload token (Authorization: "
		                          "Bearer TOKEN)");
	if (len) {
		char *end;
		unsigned long long n;
		errno = 0;
		n = strtoull(len, &end, 10);
		if (errno == 0 && *end == '\0' && n > sv->cfg.max_upload) {
			const char *expect = MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
			                                                 MHD_HTTP_HEADER_EXPECT);
			snprintf(r->badmsg, sizeof r->badmsg, "the upload is %llu bytes: this server "
			         "takes at most %llu", n, (unsigned long long)sv->cfg.max_upload);
			/*
			 * A client that waits for "100 Continue" has sent nothing yet: answer now.
			 * One that is already sending would see its connection reset if we
			 * answered and closed with its body unread, and lose the answer; so a
			 * body up to twice the limit is read and dropped first, and the answer
			 * comes after it.
			 */
			if ((expect && strcasecmp(expect, "100-continue") == 0) ||
			    n > 2 * (unsigned long long)sv->cfg.max_upload)
				return send_error(r, 413, r->badmsg);
			r->too_big = 1;
			return MHD_YES;
		}
	}
	safe_upload_name(r->name, sizeof r->name,
	                 MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "name"));
	if (r->upload == U_MAPPING &&
	    !MHD_lookup_connection_value(r->conn, MHD_GET_ARGUMENT_KIND, "name"))
		snprintf(r->name, sizeof r->name, "mapping.txt");
	store_tmp_path(sv->st, "upload", r->tmp, sizeof r->tmp);
	r->fd = open(r->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (r->fd < 0)
		return send_error(r, 500, "cannot store the upload");
	if (!(r->h = hasher_new()))
		return send_error(r, 500, "out of memory");
	if (multipart &&
	    !(r->pp = MHD_create_post_processor(r->conn, 64 * 1024, form_part, r))) {
		return send_error(r, 400, "malformed multipart/form-data (no boundary)");
	}
	return MHD_YES;
}

static enum MHD_Result finish_upload(req *r)
{
	if (r->too_big) {
		if (!r->badmsg[0])
			snprintf(r->badmsg, sizeof r->badmsg, "the upload is over %llu bytes, the "
			         "most this server takes", (unsigned long long)r->sv->cfg.max_upload);
		return send_error(r, 413, r->badmsg);
	}
	if (r->pp && MHD_destroy_post_processor(r->pp) != MHD_YES && !r->bad) {
		r->bad = 400;
		snprintf(r->badmsg, sizeof r->badmsg, "malformed multipart/form-data");
	}
	r->pp = NULL;
	if (r->fd >= 0) {
		if (fsync(r->fd) != 0 && !r->bad) {
			r->bad = 500;
			snprintf(r->badmsg, sizeof r->badmsg, "cannot store the upload: %s",
			         strerror(errno));
		}
		close(r->fd);
		r->fd = -1;
	}
	if (!r->bad && r->pp == NULL && r->files == 0 &&
	    MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE) &&
	    strncasecmp(MHD_lookup_connection_value(r->conn, MHD_HEADER_KIND,
	                                            MHD_HTTP_HEADER_CONTENT_TYPE),
	                "multipart/form-data", 19) == 0) {
		r->bad = 400;
		snprintf(r->badmsg, sizeof r->badmsg, "the form holds no file");
	}
	if (!r->bad && r->sv->cfg.token && !token_ok(r->sv, header_token(r->conn)) &&
	    !token_ok(r->sv, r->form_token)) {
		r->bad = 401;
		snprintf(r->badmsg, sizeof r->badmsg, "this server needs an upload token");
	}
	if (!r->bad && r->got == 0) {
		r->bad = 400;
		snprintf(r->badmsg, sizeof r->badmsg, "the upload is empty");
	}
	if (r->bad) {
		unlink(r->tmp);
		return send_error(r, (unsigned)r->bad, r->badmsg);
	}
	hasher_end(r->h, r->upload == U_MAPPING ? r->before : r->hash);
	r->h = NULL;
	return submit(r);
}

/* A flame, for the browser's tab. */
static const char favicon[] =
	"<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">"
	"<rect x=\"1\" y=\"11\" width=\"14\" height=\"4\" fill=\"#d8542b\"/>"
	"<rect x=\"2\" y=\"6\" width=\"8\" height=\"4\" fill=\"#e8893a\"/>"
	"<rect x=\"3\" y=\"1\" width=\"4\" height=\"4\" fill=\"#f2c14e\"/></svg>\n";

static void log_path(char *out, size_t n, const char *url)
{
	size_t o = 0;

	for (; *url && o + 5 < n; url++) {
		unsigned char c = (unsigned char)*url;
		if (c < 0x21 || c >= 0x7F || c == '\\')
			o += (size_t)snprintf(out + o, n - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = '\0';
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version,
                              const char *upload_data, size_t *upload_data_size,
                              void **con_cls)
{
	server *sv = cls;
	req *r = *con_cls;
	const char *accept;

	(void)version;
	if (!r) {
		if (!(r = calloc(1, sizeof *r)))
			return MHD_NO;
		r->sv = sv;
		r->conn = conn;
		r->fd = -1;
		snprintf(r->method, sizeof r->method, "%s", method);
		log_path(r->path, sizeof r->path, url);
		clock_gettime(CLOCK_MONOTONIC, &r->start);
		accept = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
		r->want_json = accept && strstr(accept, "application/json") != NULL;
		*con_cls = r;
		if (strcmp(method, "POST") == 0 && strcmp(url, "/upload") == 0)
			return start_upload(r);
		if (strcmp(method, "POST") == 0 && strncmp(url, "/trace/", 7) == 0 &&
		    strlen(url) == 7 + SERVE_HASH_LEN + 8 &&
		    strcmp(url + 7 + SERVE_HASH_LEN, "/mapping") == 0) {
			memcpy(r->hash, url + 7, SERVE_HASH_LEN);
			r->hash[SERVE_HASH_LEN] = '\0';
			if (!is_hash(r->hash))
				return send_error(r, 404, "no such trace");
			r->upload = U_MAPPING;
			return start_upload(r);
		}
		if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
			return send_error(r, 405, "only GET, HEAD, and POST to /upload or "
		                          "/trace/HASH/mapping");
	}
	if (r->status) {
		*upload_data_size = 0; /* answered already (an upload refused early) */
		return MHD_YES;
	}
	if (r->kind == K_UPLOAD) {
		if (*upload_data_size) {
			size_t n = *upload_data_size;
			*upload_data_size = 0;
			if (r->too_big) {
				/* nothing kept; the connection is dropped past twice the limit */
				r->got += n;
				return r->got > 2 * sv->cfg.max_upload ? MHD_NO : MHD_YES;
			}
			if (r->pp) {
				if (!r->bad && MHD_post_process(r->pp, upload_data, n) != MHD_YES) {
					r->bad = 400;
					snprintf(r->badmsg, sizeof r->badmsg, "malformed multipart/form-data");
				}
			} else {
				take(r, upload_data, n);
			}
			if (r->too_big)
				r->got = 0;
			return MHD_YES;
		}
		if (r->finished)
			return answer(r);
		if (r->queued)
			return MHD_YES;
		return finish_upload(r);
	}
	if (r->kind == K_VIEW || r->kind == K_DIFF) {
		if (r->finished)
			return answer(r);
		return MHD_YES;
	}
	if (strcmp(url, "/") == 0) {
		sbuf b = {0};
		page_home(&b, &sv->cfg, sv->sample[0] ? sv->sample : NULL);
		return send_sb(r, 200, "text/html; charset=utf-8", &b);
	}
	if (strcmp(url, "/static/upload.js") == 0)
		return send_buf(r, 200, "text/javascript; charset=utf-8", serve_upload_js,
		                strlen(serve_upload_js));
	if (strcmp(url, "/static/sort.js") == 0)
		return send_buf(r, 200, "text/javascript; charset=utf-8", serve_sort_js,
		                strlen(serve_sort_js));
	if (strcmp(url, "/favicon.ico") == 0)
		return send_buf(r, 200, "image/svg+xml", favicon, strlen(favicon));
	if (strncmp(url, "/trace/", 7) == 0)
		return trace_page(r, url + 7);
	if (strncmp(url, "/diff/", 6) == 0)
		return diff_page(r, url + 6);
	if (strcmp(url, "/list") == 0 && sv->cfg.list) {
		sbuf b = {0};
		char *rows = store_list_html(sv->st);
		if (!rows)
			return send_error(r, 500, "the catalogue cannot be read");
		page_list(&b, rows);
		free(rows);
		return send_sb(r, 200, "text/html; charset=utf-8", &b);
	}
	return send_error(r, 404, "no such page");
}

static void completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                      enum MHD_RequestTerminationCode toe)
{
	req *r = *con_cls;
	struct timespec now;
	double ms;

	(void)cls;
	(void)conn;
	if (!r)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ms = (double)(now.tv_sec - r->start.tv_sec) * 1e3 +
	     (double)(now.tv_nsec - r->start.tv_nsec) / 1e6;
	fprintf(stderr, "%s %s %u %llu %.1fms%s\n", r->method, r->path, r->status,
	        (unsigned long long)r->bytes, ms,
	        toe == MHD_REQUEST_TERMINATED_COMPLETED_OK ? ""
	        : toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED ? " (timed out)"
	                                                         : " (cut off)");
	if (r->pp)
		MHD_destroy_post_processor(r->pp);
	if (r->fd >= 0) {
		close(r->fd);
		unlink(r->tmp);
	} else if (r->kind == K_UPLOAD && r->tmp[0] && !r->queued) {
		unlink(r->tmp);
	}
	hasher_free(r->h);
	free(r->rbody);
	free(r->view_query);
	free(r->view_strings);
	free(r);
	*con_cls = NULL;
}

/* %HH decoded in place, except %00: kept as it is, so a NUL never cuts a
 * path short (and such a path is found nowhere). */
static size_t unescape(void *cls, struct MHD_Connection *c, char *s)
{
	char *w = s, *p = s;

	(void)cls;
	(void)c;
	while (*p) {
		int hi, lo;
		if (p[0] == '%' && p[1] && p[2] &&
		    (hi = (p[1] >= '0' && p[1] <= '9') ? p[1] - '0'
		          : (p[1] | 32) >= 'a' && (p[1] | 32) <= 'f' ? (p[1] | 32) - 'a' + 10 : -1) >= 0 &&
		    (lo = (p[2] >= '0' && p[2] <= '9') ? p[2] - '0'
		          : (p[2] | 32) >= 'a' && (p[2] | 32) <= 'f' ? (p[2] | 32) - 'a' + 10 : -1) >= 0 &&
		    (hi || lo)) {
			*w++ = (char)(hi * 16 + lo);
			p += 3;
		} else {
			*w++ = *p++;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

/* ------------------------------------------------------------------ */
/* The command line                                                    */

static const char usage[] =
	"usage: aflame-render serve [OPTIONS]\n"
	"The upload site: a page per uploaded trace, at a link that stays.\n"
	"  --listen ADDR:PORT    where to listen (default 127.0.0.1:8192; port 0: any)\n"
	"  --data DIR            uploads and the catalogue (default ./aflame-data)\n"
	"  --max-upload SIZE     largest upload, e.g. 200M (default 1G)\n"
	"  --max-memory SIZE     memory one render may take (default: the command's)\n"
	"  --jobs N              render workers (default 2)\n"
	"  --queue N             renders waiting, past which 503 (default 16)\n"
	"  --threads N           HTTP threads (default 4)\n"
	"  --max-connections N   connections at once (default 1000)\n"
	"  --timeout SEC         idle connections closed after SEC (default 30)\n"
	"  --list                /list shows every upload (a team server)\n"
	"  --upload-token FILE   uploads need the token in FILE (Authorization: Bearer)\n"
	"  --sample FILE         the trace the upload page links to (none: no link)\n"
	"  --help                this help\n";

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long n;
	uint64_t m = 1;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	switch (*end) {
	case 'k': case 'K': m = 1024; end++; break;
	case 'm': case 'M': m = 1024 * 1024; end++; break;
	case 'g': case 'G': m = 1024ULL * 1024 * 1024; end++; break;
	default: break;
	}
	if (*end || n == 0 || n > UINT64_MAX / m)
		return -1;
	*out = n * m;
	return 0;
}

static int parse_int(const char *s, int lo, int hi, int *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (errno || end == s || *end || n < lo || n > hi)
		return -1;
	*out = (int)n;
	return 0;
}

static int read_token(const char *path, char **out)
{
	FILE *f = fopen(path, "rb");
	char buf[1024];
	size_t n;

	if (!f) {
		fprintf(stderr, PROG ": serve: %s: %s\n", path, strerror(errno));
		return -1;
	}
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	if (n == 0) {
		fprintf(stderr, PROG ": serve: %s: the token is empty\n", path);
		return -1;
	}
	*out = strdup(buf);
	return *out ? 0 : -1;
}

static int parse_args(int argc, char **argv, serve_config *c, const char **sample)
{
	int i;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = NULL, *eq = strchr(a, '=');
		char name[32];
		if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			fputs(usage, stdout);
			return 0;
		}
		if (strcmp(a, "--list") == 0) {
			c->list = 1;
			continue;
		}
		if (strncmp(a, "--", 2) != 0) {
			fprintf(stderr, PROG ": serve: unexpected argument '%s'\n%s", a, usage);
			return 2;
		}
		if (eq && (size_t)(eq - a) < sizeof name) {
			snprintf(name, sizeof name, "%.*s", (int)(eq - a), a);
			v = eq + 1;
		} else {
			snprintf(name, sizeof name, "%s", a);
			if (i + 1 >= argc) {
				fprintf(stderr, PROG ": serve: option '%s' needs a value\n", a);
				return 2;
			}
			v = argv[++i];
		}
		if (strcmp(name, "--listen") == 0) {
			c->listen = v;
		} else if (strcmp(name, "--data") == 0) {
			c->data = v;
		} else if (strcmp(name, "--sample") == 0) {
			*sample = v;
		} else if (strcmp(name, "--max-upload") == 0) {
			if (parse_size(v, &c->max_upload))
				goto bad;
		} else if (strcmp(name, "--max-memory") == 0) {
			if (parse_size(v, &c->max_memory))
				goto bad;
		} else if (strcmp(name, "--jobs") == 0) {
			if (parse_int(v, 1, 256, &c->jobs))
				goto bad;
		} else if (strcmp(name, "--queue") == 0) {
			if (parse_int(v, 1, 100000, &c->queue))
				goto bad;
		} else if (strcmp(name, "--threads") == 0) {
			if (parse_int(v, 1, 256, &c->threads))
				goto bad;
		} else if (strcmp(name, "--max-connections") == 0) {
			if (parse_int(v, 1, 1000000, &c->max_connections))
				goto bad;
		} else if (strcmp(name, "--timeout") == 0) {
			if (parse_int(v, 1, 86400, &c->timeout))
				goto bad;
		} else if (strcmp(name, "--upload-token") == 0) {
			if (read_token(v, &c->token))
				return 1;
		} else {
			fprintf(stderr, PROG ": serve: unknown option '%s'\n%s", a, usage);
			return 2;
		}
		continue;
bad:
		fprintf(stderr, PROG ": serve: %s: bad value '%s'\n", name, v);
		return 2;
	}
	return -1;
}

static int parse_listen(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[256];
	const char *colon = strrchr(s, ':');
	int port;

	memset(ss, 0, sizeof *ss);
	if (!colon || (size_t)(colon - s) >= sizeof host || parse_int(colon + 1, 0, 65535, &port))
		return -1;
	snprintf(host, sizeof host, "%.*s", (int)(colon - s), s);
	if (host[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;
		size_t n = strlen(host);
		if (n < 2 || host[n - 1] != ']')
			return -1;
		host[n - 1] = '\0';
		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host + 1, &a->sin6_addr) != 1)
			return -1;
		*len = sizeof *a;
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -1;
		*len = sizeof *a;
	}
	return 0;
}

/* The bundled sample, put in the catalogue at start so the upload page
 * can link to its page. */
static void ingest_sample(server *sv, const char *path)
{
	req r;
	hasher *h;
	FILE *in, *out;
	char buf[65536];
	size_t n;

	if (!path || !*path || strcmp(path, "none") == 0 || access(path, R_OK) != 0)
		return;
	memset(&r, 0, sizeof r);
	r.sv = sv;
	r.fd = -1;
	safe_upload_name(r.name, sizeof r.name, path);
	store_tmp_path(sv->st, "sample", r.tmp, sizeof r.tmp);
	if (!(h = hasher_new()))
		return;
	if (!(in = fopen(path, "rb")) || !(out = fopen(r.tmp, "wb"))) {
		if (in)
			fclose(in);
		hasher_free(h);
		return;
	}
	while ((n = fread(buf, 1, sizeof buf, in)) > 0) {
		hasher_add(h, buf, n);
		fwrite(buf, 1, n, out);
		r.got += n;
	}
	fclose(in);
	if (fclose(out) != 0) {
		unlink(r.tmp);
		hasher_free(h);
		return;
	}
	hasher_end(h, r.hash);
	ingest(sv, &r);
	if (r.rstatus == 200)
		snprintf(sv->sample, sizeof sv->sample, "%s", r.hash);
	else
		fprintf(stderr, PROG ": serve: the sample %s: %s\n", path, r.rbody ? r.rbody : "");
	free(r.rbody);
}

int serve_main(int argc, char **argv)
{
	server sv;
	struct sockaddr_storage addr;
	socklen_t alen = 0;
	struct MHD_Daemon *d;
	const union MHD_DaemonInfo *info;
	const char *sample = access(AF_SERVE_SAMPLE_INSTALLED, R_OK) == 0
	                     ? AF_SERVE_SAMPLE_INSTALLED : AF_SERVE_SAMPLE;
	char data[PATH_MAX];
	sigset_t sigs;
	ssize_t n;
	int r, sig = 0;

	memset(&sv, 0, sizeof sv);
	sv.cfg.listen = "127.0.0.1:8192";
	sv.cfg.data = "aflame-data";
	sv.cfg.max_upload = 1ULL << 30;
	sv.cfg.jobs = 2;
	sv.cfg.queue = 16;
	sv.cfg.threads = 4;
	sv.cfg.max_connections = 1000;
	sv.cfg.timeout = 30;
	if ((r = parse_args(argc, argv, &sv.cfg, &sample)) >= 0) {
		free(sv.cfg.token);
		return r;
	}
	if (parse_listen(sv.cfg.listen, &addr, &alen) != 0) {
		fprintf(stderr, PROG ": serve: --listen %s: not ADDR:PORT (e.g. 127.0.0.1:8192 or "
		        "[::1]:8192)\n", sv.cfg.listen);
		free(sv.cfg.token);
		return 2;
	}
	n = readlink("/proc/self/exe", sv.cfg.self, sizeof sv.cfg.self - 1);
	if (n <= 0) {
		fprintf(stderr, PROG ": serve: cannot find this program: %s\n", strerror(errno));
		free(sv.cfg.token);
		return 1;
	}
	sv.cfg.self[n] = '\0';
	if (mkdir(sv.cfg.data, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, PROG ": serve: cannot make %s: %s\n", sv.cfg.data, strerror(errno));
		free(sv.cfg.token);
		return 1;
	}
	if (realpath(sv.cfg.data, data) && strlen(data) > 1000) {
		fprintf(stderr, PROG ": serve: %s: the path is too long\n", data);
		free(sv.cfg.token);
		return 1;
	}
	if (!realpath(sv.cfg.data, data) || !(sv.st = store_open(data))) {
		if (!sv.st)
			fprintf(stderr, PROG ": serve: %s: %s\n", sv.cfg.data, strerror(errno));
		free(sv.cfg.token);
		return 1;
	}
	signal(SIGPIPE, SIG_IGN);
	/* the signals that end the server are waited for, not handled */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	sigaddset(&sigs, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	if (!(sv.workers = pool_new(sv.cfg.jobs, sv.cfg.queue))) {
		fputs(PROG ": serve: cannot start the render workers\n", stderr);
		store_close(sv.st);
		free(sv.cfg.token);
		return 1;
	}
	ingest_sample(&sv, sample);
	d = MHD_start_daemon(MHD_USE_AUTO | MHD_USE_INTERNAL_POLLING_THREAD |
	                     MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG,
	                     0, NULL, NULL, handle, &sv,
	                     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&addr,
	                     MHD_OPTION_THREAD_POOL_SIZE, (unsigned)sv.cfg.threads,
	                     MHD_OPTION_CONNECTION_LIMIT, (unsigned)sv.cfg.max_connections,
	                     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)sv.cfg.timeout,
	                     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(128 * 1024),
	                     MHD_OPTION_NOTIFY_COMPLETED, completed, &sv,
	                     MHD_OPTION_UNESCAPE_CALLBACK, unescape, &sv,
	                     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, PROG ": serve: cannot listen on %s\n", sv.cfg.listen);
		pool_free(sv.workers);
		store_close(sv.st);
		free(sv.cfg.token);
		return 1;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	{
		char host[256];
		const char *colon = strrchr(sv.cfg.listen, ':');
		snprintf(host, sizeof host, "%.*s", (int)(colon - sv.cfg.listen), sv.cfg.listen);
		fprintf(stderr, PROG ": serving http://%s:%u/ (data in %s)\n", host,
		        info ? (unsigned)info->port : 0u, data);
	}
	(void)alen;
	sigwait(&sigs, &sig);
	fprintf(stderr, PROG ": serve: stopping (signal %d)\n", sig);
	MHD_quiesce_daemon(d);
	pool_free(sv.workers);
	MHD_stop_daemon(d);
	store_close(sv.st);
	free(sv.cfg.token);
	return 0;
}
