/*
 * views.c - views and diffs.  A view is read from the query
 * (?clock=cpu&focus=...), checked, and named by the digest of its
 * canonical form; the command draws it once, on a render worker, into
 * traces/<hash>/views/<id>/, kept and redirected to from then on.  The
 * differential graph of two uploads is drawn the same way, into
 * traces/<after>/diffs/.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server.h"

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
int parse_view(req *r, enum MHD_Result *ret)
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
				store_path(r->sv->st, mp, sizeof mp, "traces/%s/mappings/%s.txt", r->hash,
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

/* What store_get's `k` (not 1) means for a request: no such trace, or a
 * catalogue that cannot be reached or read. */
static void no_trace(req *r, int k)
{
	if (k == STORE_DOWN)
		fail(r, 503, STORE_DOWN_MESSAGE);
	else if (k < 0)
		fail(r, 500, "the catalogue cannot be read");
	else
		fail(r, 404, "no such trace");
}

/* Draws the view r->view_args of upload r->hash into views/<id>. */
int run_or_fail(server *sv, req *r, const char *cwd, const char *work,
                const char *const *args, char **err)
{
	char path[4096];
	int rc;

	snprintf(path, sizeof path, "%s/stderr", work);
	rc = run_command(&sv->cfg, cwd, args, path, err);
	if (rc == 0)
		return 0;
	fail(r, rc < 0 ? 500 : 422, "%s", *err && **err ? *err : "the command failed");
	return -1;
}

void render_view(server *sv, req *r)
{
	upload_row row;
	char work[2048], orig[4096], final[4096], path[4096], *err = NULL;
	const char *args[48];
	int k = 0, i, found;
	FILE *f;

	if ((found = store_get(sv->st, r->hash, &row)) != 1) {
		no_trace(r, found);
		return;
	}
	store_tmp_path(sv->st, "view", work, sizeof work);
	store_path(sv->st, orig, sizeof orig, "traces/%s/orig", r->hash);
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
	if (run_or_fail(sv, r, orig, work, args, &err))
		goto out;
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
	store_path(sv->st, final, sizeof final, "traces/%s/views", r->hash);
	mkdir(final, 0755);
	store_path(sv->st, final, sizeof final, "traces/%s/views/%s", r->hash, r->view_id);
	if (rename(path, final) != 0 && errno != EEXIST && errno != ENOTEMPTY) {
		fail(r, 500, "cannot store the view: %s", strerror(errno));
		goto out;
	}
	store_trim_cache(sv->st, sv->cfg.cache_size, final);
	r->rstatus = 303;
	snprintf(r->location, sizeof r->location, "/trace/%s/v/%s/", r->hash, r->view_id);
out:
	remove_tree(work);
	free(err);
	upload_row_free(&row);
}

/* Where the diff of r->before to r->hash is kept. */
void diff_file(const server *sv, const req *r, char *out, size_t n)
{
	store_path(sv->st, out, n, "traces/%s/diffs/%s.%s.%s.svg", r->hash, r->before,
	          r->diff_clock[0] ? r->diff_clock : "default", r->diff_normalize ? "n" : "p");
}

/* Draws the differential graph of upload r->before to upload r->hash. */
void render_diff(server *sv, req *r)
{
	upload_row ra, rb;
	char work[2048], link[4096], target[4096], path[4096], sub[600], *err = NULL;
	char before[300], after[300], clock_opt[32];
	const char *args[16];
	int k = 0, found;

	memset(&ra, 0, sizeof ra);
	memset(&rb, 0, sizeof rb);
	if ((found = store_get(sv->st, r->before, &rb)) != 1 ||
	    (found = store_get(sv->st, r->hash, &ra)) != 1) {
		no_trace(r, found);
		goto done;
	}
	/* the two uploads seen as before/NAME and after/NAME, whatever their
	 * folders are called */
	store_tmp_path(sv->st, "diff", work, sizeof work);
	if (mkdir(work, 0755) != 0) {
		fail(r, 500, "cannot draw the diff: %s", strerror(errno));
		goto done;
	}
	store_path(sv->st, target, sizeof target, "traces/%s/orig", r->before);
	snprintf(link, sizeof link, "%s/before", work);
	if (symlink(target, link) != 0) {
		fail(r, 500, "cannot draw the diff: %s", strerror(errno));
		goto out;
	}
	store_path(sv->st, target, sizeof target, "traces/%s/orig", r->hash);
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
	if (run_or_fail(sv, r, work, work, args, &err))
		goto out;
	store_path(sv->st, target, sizeof target, "traces/%s/diffs", r->hash);
	mkdir(target, 0755);
	diff_file(sv, r, r->file, sizeof r->file);
	snprintf(path, sizeof path, "%s/diff.svg", work);
	if (rename(path, r->file) != 0) {
		fail(r, 500, "cannot store the diff: %s", strerror(errno));
		goto out;
	}
	store_trim_cache(sv->st, sv->cfg.cache_size, r->file);
	r->rstatus = 200;
out:
	remove_tree(work);
done:
	free(err);
	upload_row_free(&ra);
	upload_row_free(&rb);
}

void methods_file(const server *sv, const req *r, char *out, size_t n)
{
	store_path(sv->st, out, n, "traces/%s/methods.html", r->hash);
}

/* The method table with each method's callers and callees, as the
 * command's --report-format html writes it; drawn once and kept. */
void render_methods(server *sv, req *r)
{
	upload_row row;
	char work[2048], orig[4096], page[4096], *err = NULL;
	const char *args[8];
	int k = 0, found;

	if ((found = store_get(sv->st, r->hash, &row)) != 1) {
		no_trace(r, found);
		return;
	}
	store_tmp_path(sv->st, "methods", work, sizeof work);
	store_path(sv->st, orig, sizeof orig, "traces/%s/orig", r->hash);
	if (mkdir(work, 0755) != 0) {
		fail(r, 500, "cannot draw the method table: %s", strerror(errno));
		goto out;
	}
	snprintf(page, sizeof page, "%s/methods.html", work);
	args[k++] = "--report";
	args[k++] = page;
	args[k++] = "--report-format";
	args[k++] = "html";
	args[k++] = "--";
	args[k++] = row.name;
	args[k] = NULL;
	if (run_or_fail(sv, r, orig, work, args, &err))
		goto out;
	methods_file(sv, r, r->file, sizeof r->file);
	if (rename(page, r->file) != 0) {
		fail(r, 500, "cannot store the method table: %s", strerror(errno));
		goto out;
	}
	r->rstatus = 200;
out:
	remove_tree(work);
	free(err);
	upload_row_free(&row);
}
