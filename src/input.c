/*
 * input.c - from bytes or a path to a parsed trace: variant detection,
 * gzip, standard input and the legacy base.key + base.data pair.  The
 * variant is always told from the content; a file name is only used to find
 * the other half of a pair.
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "bytes.h"
#include "perfetto.h"
#include "pftrace.h"
#include "perfetto_prof.h"
#include "systrace.h"
#include "trace.h"

#define AF_MAGIC 0x574F4C53u /* "SLOW" */

static const char af_no_trace[] =
	"not an Android method trace nor folded stacks (no *version key, no SLOW "
	"header, not gzip, no \"frame;frame COUNT\" line)";
static const char af_no_trace_in_gzip[] =
	"gzip data holding neither an Android method trace nor folded stacks "
	"(no *version key, no SLOW header, no \"frame;frame COUNT\" line)";

/* 1 when the first `n` bytes of an input rule out every variant already:
 * no trace, gzip or key starts so, and a NUL in the first line rules out
 * folded text.  Lets a gzip bomb of zeros stop at its first inflated
 * megabyte, and /dev/zero at its first kilobytes. */
static int af_cannot_be_trace(const uint8_t *b, size_t n)
{
	size_t i = 0;

	if (n < 4 || b[0] == '*' || (b[0] == 0x1F && b[1] == 0x8B) ||
	    memcmp(b, "SLOW", 4) == 0 || af_btrace_detect(b, n) ||
	    b[0] == 1 || b[0] == 2 /* a headerless long-running methods dump */ ||
	    af_pprof_detect(b, n) || af_pf_detect(b, n))
		return 0;
	while (i < n && (b[i] == '\n' || b[i] == '\r'))
		i++;
	for (; i < n && b[i] != '\n'; i++)
		if (b[i] == 0)
			return 1;
	return 0;
}

/* What the first bytes of an input, or of the data a gzip input inflates
 * to, may not be. */
static const af_bytes_sniff af_plain_sniff = {af_cannot_be_trace, af_no_trace};
static const af_bytes_sniff af_gzip_sniff = {af_cannot_be_trace, af_no_trace_in_gzip};

/* A bare data half: SLOW with a regular version. */
static int af_is_data_half(const uint8_t *b, size_t len)
{
	unsigned v;
	if (len < 6 || af_rd32(b) != AF_MAGIC)
		return 0;
	v = af_rd16(b + 4);
	return v >= 1 && v <= 3;
}

/* A key half: text that ends right after its *end line. */
static int af_is_key_half(const uint8_t *b, size_t len)
{
	return len >= 5 && b[0] == '*' &&
	       ((len >= 6 && memcmp(b + len - 6, "\n*end\n", 6) == 0) ||
	        (len >= 7 && memcmp(b + len - 7, "\n*end\r\n", 7) == 0));
}

static af_status af_parse_plain(af_trace *t, const uint8_t *b, size_t len,
                                int depth, af_error *err);

/* Parses `b`, inflating it first when it is gzip, and finishes the trace
 * while the bytes are there for its walk.  `window`: the bytes are a
 * large mapping whose pages the parse may hand back behind it. */
static af_status af_parse_bytes(af_trace *t, const uint8_t *b, size_t len,
                                int depth, int window, af_error *err)
{
	af_status st;

	if (af_bytes_is_gzip(b, len)) {
		af_bytes raw;
		if (depth > 0)
			return af_fail(err, AF_ERR_FORMAT, 0,
			               "gzip data inside gzip data");
		AF_FORWARD(af_bytes_gunzip(t->mem, b, len, window, t->limits.max_input,
		                           &af_gzip_sniff, &raw, err));
		t->info.gzip = 1;
		st = af_parse_bytes(t, raw.data, raw.len, depth + 1, raw.window, err);
		af_bytes_free(&raw);
		return st;
	}
	if (window) {
		t->window = b;
		t->window_len = len;
		t->window_freed = 0;
	}
	st = af_parse_plain(t, b, len, depth, err);
	t->window = NULL;
	AF_FORWARD(st);
	AF_FORWARD(af_trace_finish(t, err));
	return t->walk ? t->walk(t, b, len, err) : AF_OK;
}

/* Parses bytes that are not gzip: a regular or streaming trace, or folded
 * stacks, told apart by their first bytes. */
static af_status af_parse_plain(af_trace *t, const uint8_t *b, size_t len,
                                int depth, af_error *err)
{
	int pprof, pf;

	t->input_len = len;
	if (len >= 4 && af_rd32(b) == AF_MAGIC) {
		unsigned v = len >= 6 ? af_rd16(b + 4) : 0;
		if (v >= 1 && v <= 3)
			return af_fail(err, AF_ERR_FORMAT, 4,
			               "a data section without its key: give the .key "
			               "file, the base name, or both halves joined");
		if (v == 4 || v == 5 || v == 0xF4 || v == 0xF5) {
			t->info.variant = AF_VARIANT_ART_V2;
			return af_trace_v2(t, b, len, err);
		}
		if (v == 0xF6) {
			t->info.variant = AF_VARIANT_ART_V6;
			return af_trace_v6(t, b, len, err);
		}
		t->info.variant = AF_VARIANT_STREAMING;
		return af_trace_streaming(t, b, len, err);
	}
	if (af_btrace_detect(b, len)) {
		t->info.variant = AF_VARIANT_BTRACE;
		return af_trace_btrace(t, b, len, err);
	}
	if (af_v6_detect(b, len)) {
		t->info.variant = AF_VARIANT_ART_V6;
		return af_trace_v6(t, b, len, err);
	}
	if (len > 0 && b[0] == '*') {
		size_t end;
		t->info.variant = AF_VARIANT_REGULAR;
		AF_FORWARD(af_trace_key(t, b, len, 0, &end, err));
		return af_trace_regular_data(t, b + end, len - end, (long long)end,
		                             err);
	}
	/* inflated bytes: the messages say so, and never "not gzip" */
	if (len == 0)
		return af_fail(err, AF_ERR_FORMAT, 0, depth ? "the gzip data inflates "
		               "to nothing" : "the input is empty");
	if (af_systrace_detect(b, len)) {
		t->info.variant = AF_VARIANT_SYSTRACE;
		return af_trace_systrace(t, b, len, err);
	}
	/* a Perfetto trace holding heap dumps or CPU samples (before pprof,
	 * whose first field has a packet's number) */
	if (af_pfprof_detect(t, b, len))
		return af_trace_pfprof(t, b, len, err);
	/* a Perfetto trace: nothing but packets (field 1), which a pprof
	 * profile's fields would also pass for */
	pf = af_perfetto_detect(b, len);
	if (pf == 2 || (pf == 1 && !af_folded_detect(b, len)))
		return af_trace_perfetto(t, b, len, err);
	/* a pprof profile: binary, told from text by the soundness of its
	 * protobuf fields (text that happens to be a sound prefix stays text) */
	pprof = af_pprof_detect(b, len);
	if (pprof == 2 || (pprof == 1 && !af_folded_detect(b, len)))
		return af_trace_pprof(t, b, len, err);
	if (af_folded_detect(b, len)) {
		t->info.variant = AF_VARIANT_FOLDED;
		return af_trace_folded(t, b, len, err);
	}
	{
		size_t i = 0, off;
		const char *why;
		while (i < len && (b[i] == '\n' || b[i] == '\r' || b[i] == ' ' ||
		                   b[i] == '\t'))
			i++;
		if (i == len)
			return af_fail(err, AF_ERR_FORMAT, 0, "%s holds nothing but blank "
			               "lines", depth ? "the gzip data" : "the input");
		why = af_folded_reject(b, len, &off);
		if (why && depth)
			return af_fail(err, AF_ERR_FORMAT, (long long)off,
			               "gzip data holding neither an Android method trace "
			               "(no *version key, no SLOW header) nor folded "
			               "stacks (\"frame;frame COUNT\"): %s", why);
		if (why)
			return af_fail(err, AF_ERR_FORMAT, (long long)off,
			               "not an Android method trace (no *version key, no "
			               "SLOW header, not gzip) nor folded stacks "
			               "(\"frame;frame COUNT\"): %s", why);
	}
	if (depth)
		return af_fail(err, AF_ERR_FORMAT, 0, "%s", af_no_trace_in_gzip);
	return af_fail(err, AF_ERR_FORMAT, 0, "%s", af_no_trace);
}

static af_status af_parse_into(af_trace *t, const uint8_t *b, size_t len,
                               af_error *err)
{
	return af_parse_bytes(t, b, len, 0, 0, err);
}

af_status af_trace_parse_into(af_trace *t, const void *buf, size_t len, af_error *err)
{
	return af_parse_into(t, buf, len, err);
}

af_status af_trace_parse(const void *buf, size_t len,
                         const af_parse_options *opt, af_trace **out,
                         af_error *err)
{
	af_trace *t;
	af_status st;

	*out = NULL;
	if ((st = af_trace_new(opt, &t, err)) != AF_OK)
		return st;
	st = af_mem_explain(t->mem, af_parse_into(t, buf, len, err), err);
	if (st != AF_OK) {
		af_trace_free(t);
		return st;
	}
	*out = t;
	return AF_OK;
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

static int af_exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

/* `path` with `suffix` replaced by (or, when absent, followed by) `repl`. */
static char *af_sibling(af_mem *mem, const char *path, const char *suffix,
                        const char *repl)
{
	size_t n = strlen(path), s = strlen(suffix), r = strlen(repl);
	char *p;

	if (n >= s && strcmp(path + n - s, suffix) == 0)
		n -= s;
	p = af_malloc(mem, n + r + 1);
	if (p) {
		memcpy(p, path, n);
		memcpy(p + n, repl, r + 1);
	}
	return p;
}

/* Joins a key half and a data half into one regular trace and parses it. */
static af_status af_parse_pair(af_trace *t, const char *key_path,
                               const char *data_path, af_error *err)
{
	af_bytes k, d;
	uint8_t *joined;
	size_t total;
	af_status st;

	AF_FORWARD(af_bytes_read_path(t->mem, key_path, t->limits.max_input,
	                              &af_plain_sniff, &k, err));
	st = af_bytes_read_path(t->mem, data_path, t->limits.max_input, &af_plain_sniff,
	                        &d, err);
	if (st != AF_OK) {
		char why[sizeof err->message];
		snprintf(why, sizeof why, "%s", err ? err->message : "");
		af_bytes_free(&k);
		return af_fail(err, st, -1, "%s: %s", data_path, why);
	}
	if (!af_is_key_half(k.data, k.len) || !af_is_data_half(d.data, d.len)) {
		if ((st = af_bytes_check(&k, key_path, err)) == AF_OK &&
		    (st = af_bytes_check(&d, data_path, err)) == AF_OK)
			st = af_fail(err, AF_ERR_FORMAT, 0,
			             "%s and %s are not a key and data pair", key_path,
			             data_path);
		af_bytes_free(&k);
		af_bytes_free(&d);
		return st;
	}
	joined = k.len + d.len >= k.len ? af_malloc(t->mem, k.len + d.len) : NULL;
	if (!joined) {
		af_bytes_free(&k);
		af_bytes_free(&d);
		return af_fail(err, AF_ERR_NOMEM, 0, "out of memory joining %s and %s",
		               key_path, data_path);
	}
	memcpy(joined, k.data, k.len);
	memcpy(joined + k.len, d.data, d.len);
	total = k.len + d.len;
	if ((st = af_bytes_check(&k, key_path, err)) != AF_OK ||
	    (st = af_bytes_check(&d, data_path, err)) != AF_OK) {
		af_bytes_free(&k);
		af_bytes_free(&d);
		af_free(t->mem, joined);
		return st;
	}
	af_bytes_free(&k);
	af_bytes_free(&d);
	st = af_parse_into(t, joined, total, err);
	t->info.variant = AF_VARIANT_KEY_DATA;
	af_free(t->mem, joined);
	return st;
}

af_status af_trace_open_into(af_trace *t, const char *path, af_error *err)
{
	af_bytes b;
	af_status st;
	char *other;

	if (strcmp(path, "-") != 0 && !af_exists(path)) {
		/* a base name: base.key + base.data */
		char *key = af_sibling(t->mem, path, "", ".key");
		char *data = af_sibling(t->mem, path, "", ".data");
		if (key && data && af_exists(key) && af_exists(data))
			st = af_parse_pair(t, key, data, err);
		else if (!key || !data)
			st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
		else
			st = af_fail(err, AF_ERR_IO, -1, "cannot open: %s",
			             strerror(ENOENT));
		af_free(t->mem, key);
		af_free(t->mem, data);
		return st;
	}
	AF_FORWARD(af_bytes_read_path(t->mem, path, t->limits.max_input, &af_plain_sniff,
	                              &b, err));
	if (strcmp(path, "-") != 0 && af_is_data_half(b.data, b.len) &&
	    af_bytes_check(&b, NULL, NULL) == AF_OK) {
		af_bytes_free(&b);
		other = af_sibling(t->mem, path, ".data", ".key");
		if (!other)
			return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
		st = af_exists(other)
		             ? af_parse_pair(t, other, path, err)
		             : af_fail(err, AF_ERR_FORMAT, 4,
		                       "a data section without its key (looked for %s)",
		                       other);
		af_free(t->mem, other);
		return st;
	}
	if (strcmp(path, "-") != 0 && af_is_key_half(b.data, b.len) &&
	    af_bytes_check(&b, NULL, NULL) == AF_OK) {
		af_bytes_free(&b);
		other = af_sibling(t->mem, path, ".key", ".data");
		if (!other)
			return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
		st = af_exists(other)
		             ? af_parse_pair(t, path, other, err)
		             : af_fail(err, AF_ERR_TRUNCATED, -1,
		                       "a key section without its data (looked for %s)",
		                       other);
		af_free(t->mem, other);
		return st;
	}
	st = af_parse_bytes(t, b.data, b.len, 0, b.window, err);
	/* what the parse said of zeros read past a new end does not count */
	if (af_bytes_check(&b, NULL, NULL) != AF_OK)
		st = af_bytes_check(&b, NULL, err);
	af_bytes_free(&b);
	return st;
}

af_status af_trace_open(const char *path, const af_parse_options *opt,
                        af_trace **out, af_error *err)
{
	af_trace *t;
	af_status st;

	*out = NULL;
	if ((st = af_trace_new(opt, &t, err)) != AF_OK)
		return st;
	st = af_mem_explain(t->mem, af_trace_open_into(t, path, err), err);
	if (st != AF_OK) {
		af_trace_free(t);
		return st;
	}
	*out = t;
	return AF_OK;
}

/* ------------------------------------------------------------------ */
/* Several inputs                                                      */

/* Reads every path and parses their text as one folded input, each file's
 * lines after the last one's; offsets of errors and warnings go back to
 * the file they are in. */
static af_status af_open_many_into(af_trace *t, const char *const *paths, size_t n,
                                   size_t *failed, af_error *err)
{
	af_buf all = {.mem = t->mem};
	size_t *starts = af_malloc(t->mem, (n + 1) * sizeof *starts), i;
	af_status st = AF_OK;

	*failed = n;
	if (!starts)
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
	for (i = 0; i < n; i++) {
		af_bytes b, raw;
		const uint8_t *data;
		size_t len;

		*failed = i;
		if ((st = af_bytes_read_path(t->mem, paths[i], t->limits.max_input,
		                             &af_plain_sniff, &b, err)) != AF_OK)
			goto out;
		data = b.data;
		len = b.len;
		af_bytes_init(&raw, t->mem);
		if (af_bytes_is_gzip(data, len)) {
			st = af_bytes_gunzip(t->mem, data, len, b.window, t->limits.max_input,
			                     &af_gzip_sniff, &raw, err);
			if (st != AF_OK) {
				af_bytes_free(&b);
				goto out;
			}
			data = raw.data;
			len = raw.len;
			t->info.gzip = 1;
		}
		if (!af_folded_detect(data, len)) {
			st = af_fail(err, AF_ERR_FORMAT, 0,
			             "not folded stacks (\"frame;frame COUNT\"): several inputs "
			             "are read as one only when they all are");
		} else {
			starts[i] = all.len;
			if (af_buf_append(&all, data, len) ||
			    (len && data[len - 1] != '\n' && af_buf_append(&all, "\n", 1)))
				st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory reading the inputs");
			else if (all.len > t->limits.max_input)
				st = af_fail(err, AF_ERR_LIMIT, -1, "the inputs are larger than the "
				             "%llu-byte input limit",
				             (unsigned long long)t->limits.max_input);
		}
		af_bytes_free(&raw);
		af_bytes_free(&b);
		if (st != AF_OK)
			goto out;
	}
	starts[n] = all.len;
	*failed = n;
	t->input_len = all.len;
	t->info.variant = AF_VARIANT_FOLDED;
	t->input_starts = starts;
	t->ninputs = n;
	st = af_trace_folded(t, (const uint8_t *)all.data, all.len, err);
	t->input_starts = NULL;
	t->ninputs = 0;
	if (st == AF_OK)
		st = af_trace_finish(t, err);
	/* offsets count from the start of the file they are in */
	if (st != AF_OK && err && err->offset >= 0) {
		for (i = n; i-- > 0 && (size_t)err->offset < starts[i];)
			;
		*failed = i;
		err->offset -= (long long)starts[i];
	} else if (st == AF_OK && t->info.ignored_lines) {
		for (i = n; i-- > 0 && t->info.first_ignored_line < starts[i];)
			;
		t->info.first_ignored_input = (uint32_t)i;
		t->info.first_ignored_line -= starts[i];
	}
out:
	af_buf_free(&all);
	af_free(t->mem, starts);
	return st;
}

af_status af_trace_open_many(const char *const *paths, size_t n,
                             const af_parse_options *opt, af_trace **out,
                             size_t *failed, af_error *err)
{
	af_trace *t;
	size_t which = 0;
	af_status st;

	*out = NULL;
	if (failed)
		*failed = 0;
	if (n == 0)
		return af_fail(err, AF_ERR_ARG, -1, "no input given");
	if (n == 1)
		return af_trace_open(paths[0], opt, out, err);
	if ((st = af_trace_new(opt, &t, err)) != AF_OK)
		return st;
	st = af_mem_explain(t->mem, af_open_many_into(t, paths, n, &which, err), err);
	if (failed)
		*failed = which;
	if (st != AF_OK) {
		af_trace_free(t);
		return st;
	}
	*out = t;
	return AF_OK;
}
