/*
 * serve.c - `aflame-render serve`: the daemon, on GNU libmicrohttpd
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
 *
 * This file is the top room (server.h lists the others): the handler that
 * sends each request to its room, the log of one line per request, the
 * command line, the sample put in the catalogue at start, the main loop.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server.h"
#include "store_db.h"

#ifndef AF_SERVE_SAMPLE
#define AF_SERVE_SAMPLE ""
#endif
#ifndef AF_SERVE_SAMPLE_INSTALLED
#define AF_SERVE_SAMPLE_INSTALLED ""
#endif

/* ------------------------------------------------------------------ */
/* The handler                                                         */

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
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
		r->sv = sv;
		r->conn = conn;
		r->watched = ci ? ci->socket_context : NULL;
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
			return upload_more(r, upload_data, n);
		}
		if (r->finished)
			return answer(r);
		if (r->queued)
			return MHD_YES;
		return finish_upload(r);
	}
	if (r->kind == K_VIEW || r->kind == K_DIFF || r->kind == K_METHODS) {
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
		char *rows = NULL;
		int k = store_list_html(sv->st, &rows);
		if (k != 0)
			return send_error(r, k == STORE_DOWN ? 503 : 500,
			                  k == STORE_DOWN ? STORE_DOWN_MESSAGE
			                                  : "the catalogue cannot be read");
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
	/* the next request on this connection has its own time */
	watch_busy(r->sv->watch, r->watched, 0);
	if (r->pp)
		MHD_destroy_post_processor(r->pp);
	if (r->fd >= 0) {
		close(r->fd);
		unlink(r->tmp);
	} else if (r->kind == K_UPLOAD && r->tmp[0] && !r->queued) {
		unlink(r->tmp);
	}
	if (r->kind == K_UPLOAD && r->tmp2[0] && !r->queued)
		unlink(r->tmp2);
	hasher_free(r->h);
	free(r->rbody);
	free(r->view_query);
	free(r->view_strings);
	free(r);
	*con_cls = NULL;
}

/* Each connection timed from its start (watch.c). */
static void connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                       enum MHD_ConnectionNotificationCode code)
{
	server *sv = cls;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
			MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
		*socket_context = ci ? watch_add(sv->watch, ci->connect_fd) : NULL;
	} else if (code == MHD_CONNECTION_NOTIFY_CLOSED) {
		watch_remove(sv->watch, *socket_context);
		*socket_context = NULL;
	}
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
	"  --db CONNINFO         the catalogue in PostgreSQL (a libpq conninfo or a\n"
	"                        postgresql:// URI), shared by every server started\n"
	"                        with it and the same --data (default: SQLite in --data)\n"
	"  --max-upload SIZE     largest upload, e.g. 200M (default 1G)\n"
	"  --max-memory SIZE     memory one render may take (default: the command's)\n"
	"  --cache-size SIZE     views and diffs kept, least recently used dropped first\n"
	"                        (default 1G)\n"
	"  --jobs N              render workers (default 2)\n"
	"  --queue N             renders waiting, past which 503 (default 16)\n"
	"  --threads N           HTTP threads (default 4)\n"
	"  --max-connections N   connections at once (default 1000)\n"
	"  --timeout SEC         idle connections closed after SEC (default 30)\n"
	"  --request-timeout SEC a request must arrive whole within SEC, however\n"
	"                        busy its client (default 3600; drawing not counted)\n"
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
		} else if (strcmp(name, "--db") == 0) {
			char shown[1024];
			catalogue_pg_describe(v, shown, sizeof shown);
			if (strcmp(shown, "(unreadable)") == 0) {
				fprintf(stderr, PROG ": serve: --db: not a libpq conninfo (key=value "
				        "pairs or a postgresql:// URI)\n");
				return 2;
			}
			c->db = v;
		} else if (strcmp(name, "--sample") == 0) {
			*sample = v;
		} else if (strcmp(name, "--max-upload") == 0) {
			if (parse_size(v, &c->max_upload))
				goto bad;
		} else if (strcmp(name, "--cache-size") == 0) {
			if (parse_size(v, &c->cache_size))
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
		} else if (strcmp(name, "--request-timeout") == 0) {
			if (parse_int(v, 1, 7 * 86400, &c->request_timeout))
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

/* 1 when `path` is this very program (the server run by hand by its own
 * path, which would then draw uploads with itself). */
static int is_this_program(const char *path)
{
	struct stat a, b;
	return stat(path, &a) == 0 && stat("/proc/self/exe", &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
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
	sv.cfg.cache_size = 1ULL << 30;
	sv.cfg.jobs = 2;
	sv.cfg.queue = 16;
	sv.cfg.threads = 4;
	sv.cfg.max_connections = 1000;
	sv.cfg.timeout = 30;
	sv.cfg.request_timeout = 3600;
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
	/* the command that ran this program, which draws the uploads (never
	 * this program itself, run by hand) */
	n = argv[0] ? (ssize_t)strlen(argv[0]) : 0;
	if (n <= 0 || argv[0][0] != '/' || (size_t)n >= sizeof sv.cfg.self ||
	    access(argv[0], X_OK) != 0 || is_this_program(argv[0])) {
		fprintf(stderr, PROG ": serve: run the server as `" PROG " serve`\n");
		free(sv.cfg.token);
		return 2;
	}
	memcpy(sv.cfg.self, argv[0], (size_t)n + 1);
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
	if (!realpath(sv.cfg.data, data) ||
	    !(sv.st = store_open(data, sv.cfg.db, sv.cfg.threads + sv.cfg.jobs + 1))) {
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
	if (!(sv.workers = pool_new(sv.cfg.jobs, sv.cfg.queue)) ||
	    !(sv.watch = watch_new(sv.cfg.request_timeout))) {
		fputs(PROG ": serve: cannot start the render workers\n", stderr);
		pool_free(sv.workers);
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
	                     MHD_OPTION_NOTIFY_CONNECTION, connection, &sv,
	                     MHD_OPTION_UNESCAPE_CALLBACK, unescape, &sv,
	                     MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, PROG ": serve: cannot listen on %s\n", sv.cfg.listen);
		watch_free(sv.watch);
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
	watch_free(sv.watch);
	store_close(sv.st);
	free(sv.cfg.token);
	return 0;
}
