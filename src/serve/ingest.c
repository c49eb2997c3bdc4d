/*
 * ingest.c - an upload made whole (on a render worker, and once at start
 * for the sample): read by the library first, so that what is no trace
 * gets the command's own message and is not stored; its set drawn by the
 * command in a folder of its own, renamed into place, and only then
 * written to the catalogue and acknowledged.  A mapping uploaded beside a
 * trace, read by the library and kept with it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "server.h"

/* `in` reduced to a file name safe anywhere: [A-Za-z0-9._-], no leading
 * dot, "upload.trace" when nothing is left. */
void safe_upload_name(char *out, size_t n, const char *in)
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
	case AF_VARIANT_ART_V2: return "ART V2";
	case AF_VARIANT_SYSTRACE: return "systrace";
	case AF_VARIANT_PERFETTO: return "perfetto";
	case AF_VARIANT_BTRACE: return "btrace";
	case AF_VARIANT_ART_V6: return "ART long-running methods";
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

/* `msg` without "<dir>/" wherever it names a file there: the library's
 * message names a pair's halves by their paths. */
static void without_dir(char *msg, const char *dir)
{
	char pre[4200];
	size_t n = (size_t)snprintf(pre, sizeof pre, "%s/", dir);
	char *p;

	while ((p = strstr(msg, pre)) != NULL)
		memmove(p, p + n, strlen(p + n) + 1);
}

/* The whole of an upload, once received: r->tmp holds the bytes, r->hash
 * their digest.  Fills r->rstatus and r->rbody.  Runs on a render worker
 * (and once at start for the sample). */
void ingest(server *sv, req *r)
{
	upload_row row;
	af_parse_options po = {0};
	af_trace *t = NULL;
	af_error e = {0};
	af_status st;
	sbuf js = {0};
	char work[2048], orig[4096], path[4096], final[4096], *err = NULL;
	const char *args[16];
	int k, c;
	const af_trace_info *ti;

	if ((k = store_get(sv->st, r->hash, &row)) != 0) {
		unlink(r->tmp);
		if (r->pair)
			unlink(r->tmp2);
		if (k < 0) {
			if (k == STORE_DOWN)
				fail(r, 503, STORE_DOWN_MESSAGE);
			else
				fail(r, 500, "the catalogue cannot be read");
			return;
		}
		answer_row(r, &row);
		upload_row_free(&row);
		return;
	}
	memset(&row, 0, sizeof row);
	/* in a folder of its own, under its name (a pair's halves side by
	 * side, as the command finds them) */
	store_tmp_path(sv->st, "work", work, sizeof work);
	snprintf(orig, sizeof orig, "%s/orig", work);
	snprintf(path, sizeof path, "%s/orig/%s", work, r->name);
	snprintf(final, sizeof final, "%s/orig/%s", work, r->pair ? r->name2 : "");
	if (mkdir(work, 0755) != 0 || mkdir(orig, 0755) != 0 || rename(r->tmp, path) != 0 ||
	    (r->pair && rename(r->tmp2, final) != 0)) {
		fail(r, 500, "cannot store the upload: %s", strerror(errno));
		unlink(r->tmp);
		if (r->pair)
			unlink(r->tmp2);
		goto out;
	}
	/* the library reads it first: the command's message when it is no trace */
	po.limits.max_memory = sv->cfg.max_memory;
	po.jobs = 1;
	if ((st = af_trace_open(path, &po, &t, &e)) != AF_OK) {
		without_dir(e.message, orig);
		if (e.line > 0)
			fail(r, status_of(st), PROG ": %s: %s (line %lld)", r->name, e.message, e.line);
		else if (e.offset >= 0)
			fail(r, status_of(st), PROG ": %s: %s (byte %lld)", r->name, e.message, e.offset);
		else
			fail(r, status_of(st), PROG ": %s: %s", r->name, e.message);
		goto out;
	}
	ti = af_trace_get_info(t);
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

	/* the set, drawn by the command beside it */
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
	if (run_or_fail(sv, r, orig, work, args, &err))
		goto out;
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
	store_path(sv->st, final, sizeof final, "traces/%s", r->hash);
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
	if ((k = store_put(sv->st, &row)) != 0) {
		if (k == STORE_DOWN)
			fail(r, 503, STORE_DOWN_MESSAGE);
		else
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

/* A mapping file for upload r->hash (r->tmp, its digest in r->before):
 * read by the library (the command's message when it is no mapping), kept
 * as mappings/<digest>.txt beside the trace; answered with the view that
 * uses it. */
void ingest_mapping(server *sv, req *r)
{
	af_mapping *m = NULL;
	af_error e = {0};
	af_status st;
	upload_row row;
	char dir[2048], path[4096];
	sbuf b = {0};
	int k;

	if ((k = store_get(sv->st, r->hash, &row)) != 1) {
		unlink(r->tmp);
		if (k == STORE_DOWN)
			fail(r, 503, STORE_DOWN_MESSAGE);
		else
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
	store_path(sv->st, dir, sizeof dir, "traces/%s/mappings", r->hash);
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
