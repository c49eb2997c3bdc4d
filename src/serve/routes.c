/*
 * routes.c - GET under /trace/ and /diff/: a trace's pages and files.
 * Only hashes the server made are paths, and only names a set may hold
 * (is_safe_file) are files in it: no traversal, no listing.
 *
 *   /trace/<hash>/               the set's index page, the bar of links on top
 *   /trace/<hash>/?clock=..      a view: drawn once, then redirected to
 *   /trace/<hash>/v/<id>/[file]  a view's page and files
 *   /trace/<hash>/<file>         a file of the set (SVG, folded, report.tsv)
 *   /trace/<hash>/original       the upload itself, for download (a pair's
 *                                key; /original.data its data)
 *   /trace/<hash>/report         the method table as a sortable page
 *   /trace/<hash>/methods.html   the HTML profile: callers and callees (the
 *                                command's --report-format html, made once)
 *   /diff/<before>/<after>       the differential graph of two uploads
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "server.h"

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

enum MHD_Result trace_page(req *r, const char *rest)
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
		return send_error(r, k == STORE_DOWN ? 503 : k < 0 ? 500 : 404,
		                  k == STORE_DOWN ? STORE_DOWN_MESSAGE
		                  : k < 0         ? "the catalogue cannot be read"
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
			store_path(sv->st, path, sizeof path, "traces/%s/set", hash);
			ret = send_index(r, &row, path, NULL);
		} else {
			struct stat st;
			store_path(sv->st, path, sizeof path, "traces/%s/views/%s/index.html", hash,
			          r->view_id);
			if (stat(path, &st) == 0) {
				char loc[128];
				store_path(sv->st, path, sizeof path, "traces/%s/views/%s", hash,
				           r->view_id);
				store_touch(path);
				snprintf(loc, sizeof loc, "/trace/%s/v/%s/", hash, r->view_id);
				ret = send_redirect(r, 303, loc);
			} else {
				r->kind = K_VIEW;
				ret = submit(r);
			}
		}
	} else if (strcmp(rest, "/original") == 0) {
		store_path(sv->st, path, sizeof path, "traces/%s/orig/%s", hash, row.name);
		ret = send_file(r, path, "application/octet-stream", row.name);
	} else if (strcmp(rest, "/original.data") == 0 && strcmp(row.variant, "key+data") == 0 &&
	           strlen(row.name) > 4 && strlen(row.name) < 120 &&
	           strcmp(row.name + strlen(row.name) - 4, ".key") == 0) {
		/* a pair's other half: <base>.data beside <base>.key */
		char data[128];
		snprintf(data, sizeof data, "%.*s.data", (int)strlen(row.name) - 4, row.name);
		store_path(sv->st, path, sizeof path, "traces/%s/orig/%s", hash, data);
		ret = send_file(r, path, "application/octet-stream", data);
	} else if (strcmp(rest, "/methods.html") == 0) {
		struct stat st;
		methods_file(sv, r, r->file, sizeof r->file);
		if (stat(r->file, &st) == 0) {
			ret = send_inline_page(r, r->file);
		} else {
			r->kind = K_METHODS;
			ret = submit(r);
		}
	} else if (strcmp(rest, "/report") == 0) {
		char *tsv = NULL;
		FILE *f;
		store_path(sv->st, path, sizeof path, "traces/%s/set/report.tsv", hash);
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
		store_path(sv->st, dir, sizeof dir, "traces/%s/views/%s", hash, id);
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
				store_touch(dir);
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
		store_path(sv->st, path, sizeof path, "traces/%s/set/%s", hash, rest + 1);
		ret = send_file(r, path, type_of(rest + 1), NULL);
	} else {
		ret = send_error(r, 404, "no such file");
	}
	upload_row_free(&row);
	return ret;
}

/* /diff/<before>/<after>[?clock=..&normalize]: the differential graph of
 * two uploads, drawn once and kept. */
enum MHD_Result diff_page(req *r, const char *rest)
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
	if (stat(r->file, &st) == 0) {
		store_touch(r->file);
		return send_file(r, r->file, "image/svg+xml", NULL);
	}
	{
		upload_row a, b;
		int ka = store_get(r->sv->st, r->before, &b), kb = store_get(r->sv->st, r->hash, &a);
		if (ka == 1)
			upload_row_free(&b);
		if (kb == 1)
			upload_row_free(&a);
		if (ka == STORE_DOWN || kb == STORE_DOWN)
			return send_error(r, 503, STORE_DOWN_MESSAGE);
		if (ka != 1 || kb != 1)
			return send_error(r, 404, "no such trace");
	}
	r->kind = K_DIFF;
	return submit(r);
}
