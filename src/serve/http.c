/*
 * http.c - responses of `aflame-render serve`: every answer carries its
 * Content-Type, a Content-Security-Policy, nosniff and no referrer; errors
 * are a page for a browser and JSON for a script; a set's files are sent
 * from their descriptors, never through a link.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server.h"

#define CSP_PAGE "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; " \
	"img-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; "          \
	"frame-ancestors 'none'"
/* the interactive SVG carries its own script; nothing else may load */
#define CSP_SVG "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " \
	"img-src data:; frame-ancestors 'self'"
#define CSP_FILE "default-src 'none'; frame-ancestors 'none'; sandbox"

/* The headers every answer carries; `csp` NULL: the policy of its type. */
static void headers_csp(struct MHD_Response *resp, const char *type, const char *csp)
{
	if (!csp)
		csp = strncmp(type, "text/html", 9) == 0       ? CSP_PAGE
		      : strncmp(type, "image/svg+xml", 13) == 0 ? CSP_SVG
		                                                : CSP_FILE;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(resp, "Content-Security-Policy", csp);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
}

static void headers(struct MHD_Response *resp, const char *type)
{
	headers_csp(resp, type, NULL);
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
enum MHD_Result send_buf(req *r, unsigned status, const char *type, const char *body,
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

enum MHD_Result send_sb(req *r, unsigned status, const char *type, sbuf *b)
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
enum MHD_Result send_error(req *r, unsigned status, const char *message)
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

enum MHD_Result send_redirect(req *r, unsigned status, const char *location)
{
	struct MHD_Response *resp =
		MHD_create_response_from_buffer(0, (void *)"", MHD_RESPMEM_PERSISTENT);

	if (!resp)
		return MHD_NO;
	headers(resp, "text/plain; charset=utf-8");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_LOCATION, location);
	return queue(r, status, resp);
}

const char *type_of(const char *name)
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
enum MHD_Result send_file(req *r, const char *path, const char *type,
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

/* The text between the first `open` and the `close` after it (the last
 * `open` when `last`): *at and *len, or 0 when there is none. */
static int element_text(const char *html, size_t n, const char *open, const char *close,
                        int last, const char **at, size_t *len)
{
	const char *p = NULL, *q, *end;
	size_t lo = strlen(open), lc = strlen(close);

	for (q = html; (q = memmem(q, n - (size_t)(q - html), open, lo)) != NULL; q += lo) {
		p = q;
		if (!last)
			break;
	}
	if (!p)
		return 0;
	p += lo;
	if (!(end = memmem(p, n - (size_t)(p - html), close, lc)))
		return 0;
	*at = p;
	*len = (size_t)(end - p);
	return 1;
}

enum MHD_Result send_inline_page(req *r, const char *path)
{
	struct stat st;
	struct MHD_Response *resp;
	char *html, csp[512], style[SERVE_B64_LEN + 1] = "", script[SERVE_B64_LEN + 1] = "";
	const char *at;
	size_t len, got = 0;
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    !(html = malloc((size_t)st.st_size + 1))) {
		if (fd >= 0)
			close(fd);
		return send_error(r, fd < 0 ? 404 : 500, fd < 0 ? "no such file" : "out of memory");
	}
	while (got < (size_t)st.st_size) {
		ssize_t k = read(fd, html + got, (size_t)st.st_size - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd);
	/* the page's own style (in its head) and script (its last element):
	 * names in the page are escaped, so neither tag can come from them */
	if (element_text(html, got, "<style>", "</style>", 0, &at, &len))
		sha256_base64(at, len, style);
	if (element_text(html, got, "<script>", "</script>", 1, &at, &len))
		sha256_base64(at, len, script);
	snprintf(csp, sizeof csp, "default-src 'none'; script-src %s%s%s; style-src %s%s%s; "
	         "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
	         script[0] ? "'sha256-" : "'none'", script, script[0] ? "'" : "",
	         style[0] ? "'sha256-" : "'none'", style, style[0] ? "'" : "");
	resp = MHD_create_response_from_buffer(got, html, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(html);
		return MHD_NO;
	}
	headers_csp(resp, "text/html; charset=utf-8", csp);
	r->bytes = got;
	return queue(r, 200, resp);
}

void fail(req *r, unsigned status, const char *fmt, ...)
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
