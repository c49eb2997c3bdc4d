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

#include "perfetto_prof.h"
#include "systrace.h"
#include "trace.h"

#define AF_MAGIC 0x574F4C53u /* "SLOW" */

/* zlib's state and window come from the trace's allocator too. */
static voidpf af_zalloc(voidpf opaque, uInt items, uInt size)
{
	return af_calloc(opaque, items, size);
}

static void af_zfree(voidpf opaque, voidpf p)
{
	af_free(opaque, p);
}

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
	    memcmp(b, "SLOW", 4) == 0 || af_pprof_detect(b, n))
		return 0;
	while (i < n && (b[i] == '\n' || b[i] == '\r'))
		i++;
	for (; i < n && b[i] != '\n'; i++)
		if (b[i] == 0)
			return 1;
	return 0;
}

/* Inflates gzip (one or more members) into a new buffer from `mem`. */
static af_status af_gunzip(af_mem *mem, const uint8_t *in, size_t len,
                           uint64_t max, uint8_t **out, size_t *out_len,
                           af_error *err)
{
	z_stream z;
	uint8_t *buf = NULL;
	size_t cap = 0, used = 0;
	af_status st = AF_OK;
	int r, sniffed = 0;

	memset(&z, 0, sizeof z);
	z.zalloc = af_zalloc;
	z.zfree = af_zfree;
	z.opaque = mem;
	r = inflateInit2(&z, 15 + 16);
	if (r != Z_OK)
		return af_fail(err, r == Z_MEM_ERROR ? AF_ERR_NOMEM : AF_ERR_GZIP, 0,
		               r == Z_MEM_ERROR ? "out of memory starting zlib"
		                                : "cannot start zlib");
	z.next_in = (Bytef *)in;
	for (;;) {
		size_t before_in;
		if (used == cap) {
			size_t want = cap ? cap * 2 : (len < (1u << 20) ? (1u << 20) : len * 4);
			if ((uint64_t)cap >= max) {
				st = af_fail(err, AF_ERR_LIMIT, (long long)z.total_in,
				             "gzip data of %zu bytes inflates past the "
				             "%llu-byte input limit", len,
				             (unsigned long long)max);
				goto out;
			}
			if ((uint64_t)want > max)
				want = (size_t)max;
			if (AF_GROW(mem, buf, cap, want)) {
				st = af_fail(err, AF_ERR_NOMEM, (long long)z.total_in,
				             "out of memory inflating gzip data");
				goto out;
			}
		}
		before_in = (size_t)(z.next_in - in);
		z.avail_in = (uInt)((len - before_in) > UINT32_MAX / 2 ? UINT32_MAX / 2
		                                                       : len - before_in);
		z.next_out = buf + used;
		z.avail_out = (uInt)((cap - used) > UINT32_MAX / 2 ? UINT32_MAX / 2
		                                                   : cap - used);
		r = inflate(&z, Z_NO_FLUSH);
		used = (size_t)(z.next_out - buf);
		if (!sniffed && used >= 4096) {
			sniffed = 1;
			if (af_cannot_be_trace(buf, used)) {
				st = af_fail(err, AF_ERR_FORMAT, 0, "%s", af_no_trace_in_gzip);
				goto out;
			}
		}
		if (r == Z_STREAM_END) {
			size_t at = (size_t)(z.next_in - in);
			/* another member follows: keep going; anything else ends it */
			if (len - at >= 2 && in[at] == 0x1F && in[at + 1] == 0x8B) {
				inflateReset(&z);
				continue;
			}
			break;
		}
		if (r == Z_BUF_ERROR && z.avail_out > 0) {
			st = af_fail(err, AF_ERR_TRUNCATED, (long long)len,
			             "gzip data ends before its end marker");
			goto out;
		}
		if (r != Z_OK && r != Z_BUF_ERROR) {
			st = r == Z_MEM_ERROR
			     ? af_fail(err, AF_ERR_NOMEM, (long long)(z.next_in - in),
			               "out of memory inflating gzip data")
			     : af_fail(err, AF_ERR_GZIP, (long long)(z.next_in - in),
			               "corrupt gzip data: %s",
			               z.msg ? z.msg : "inflate failed");
			goto out;
		}
	}
out:
	inflateEnd(&z);
	if (st != AF_OK) {
		af_free(mem, buf);
		return st;
	}
	*out = buf;
	*out_len = used;
	return AF_OK;
}

static int af_is_gzip(const uint8_t *b, size_t len)
{
	return len >= 2 && b[0] == 0x1F && b[1] == 0x8B;
}

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
 * while the bytes are there for its walk. */
static af_status af_parse_bytes(af_trace *t, const uint8_t *b, size_t len,
                                int depth, af_error *err)
{
	if (af_is_gzip(b, len)) {
		uint8_t *raw = NULL;
		size_t rlen = 0;
		af_status st;
		if (depth > 0)
			return af_fail(err, AF_ERR_FORMAT, 0,
			               "gzip data inside gzip data");
		AF_FORWARD(af_gunzip(t->mem, b, len, t->limits.max_input, &raw, &rlen,
		                     err));
		t->info.gzip = 1;
		st = af_parse_bytes(t, raw, rlen, depth + 1, err);
		af_free(t->mem, raw);
		return st;
	}
	AF_FORWARD(af_parse_plain(t, b, len, depth, err));
	AF_FORWARD(af_trace_finish(t, err));
	return t->walk ? t->walk(t, b, len, err) : AF_OK;
}

/* Parses bytes that are not gzip: a regular or streaming trace, or folded
 * stacks, told apart by their first bytes. */
static af_status af_parse_plain(af_trace *t, const uint8_t *b, size_t len,
                                int depth, af_error *err)
{
	int pprof;

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
		t->info.variant = AF_VARIANT_STREAMING;
		return af_trace_streaming(t, b, len, err);
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
	if (af_pfprof_detect(t->mem, b, len))
		return af_trace_pfprof(t, b, len, err);
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
	return af_parse_bytes(t, b, len, 0, err);
}

af_status af_trace_parse_into(af_trace *t, const void *buf, size_t len, af_error *err)
{
	return af_parse_into(t, buf, len, err);
}

af_status af_trace_parse(const void *buf, size_t len,
                         const af_parse_options *opt, af_trace **out,
                         af_error *err)
{
	af_trace *t = af_trace_new(opt);
	af_status st;

	*out = NULL;
	if (!t)
		return af_fail(err, AF_ERR_NOMEM, 0, "out of memory");
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

/* Bytes of a file: mapped when it is a regular file (the page cache holds
 * them, not the budget) and the mapping can be guarded against the file
 * shrinking (guard.c), read into memory from `mem` otherwise. */
typedef struct af_bytes {
	uint8_t *data;
	size_t len;
	int mapped;
	int guard;  /* guard.c's slot of a mapping */
	int fd;     /* the mapped file, kept open to tell what became of it */
	int own_fd; /* closed with the bytes (not standard input) */
	af_mem *mem;
} af_bytes;

static void af_bytes_init(af_bytes *b, af_mem *mem)
{
	memset(b, 0, sizeof *b);
	b->guard = -1;
	b->fd = -1;
	b->mem = mem;
}

static void af_bytes_free(af_bytes *b)
{
	af_mem *mem = b->mem;

	if (b->mapped) {
		af_guard_remove(b->guard);
		munmap(b->data, b->len);
	} else {
		af_free(mem, b->data);
	}
	if (b->own_fd && b->fd >= 0)
		close(b->fd);
	af_bytes_init(b, mem);
}

/* Fails with AF_ERR_IO when a read of the mapped bytes found the file cut
 * short (whatever a parse of them said: it read zeros); `who` names the
 * file when the caller's name for the input is another one. */
static af_status af_bytes_check(const af_bytes *b, const char *who, af_error *err)
{
	struct stat sb;

	if (!b->mapped || !af_guard_hit(b->guard))
		return AF_OK;
	if (fstat(b->fd, &sb) == 0 && (uint64_t)sb.st_size < b->len)
		return af_fail(err, AF_ERR_IO, -1, "%s%schanged while it was read: it "
		               "shrank from %zu to %lld bytes", who ? who : "",
		               who ? " " : "", b->len, (long long)sb.st_size);
	/* not shorter now: cut and grown again, or an I/O error */
	return af_fail(err, AF_ERR_IO, -1, "%s%schanged while it was read: part of "
	               "its %zu bytes could no longer be read", who ? who : "",
	               who ? " " : "", b->len);
}

#ifdef MAP_POPULATE
#define AF_MAP_POPULATE MAP_POPULATE
#else
#define AF_MAP_POPULATE 0
#endif

/* Maps or reads `fd` into `b`.  A mapped file's descriptor is kept in
 * b->fd (not owned): the caller must keep it open while `b` lives. */
static af_status af_read_fd(af_mem *mem, int fd, uint64_t max, af_bytes *b,
                            af_error *err)
{
	size_t cap = 0;
	struct stat sb;
	int sniffed = 0;

	af_bytes_init(b, mem);
	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
		void *p;
		if ((uint64_t)sb.st_size > max)
			return af_fail(err, AF_ERR_LIMIT, -1,
			               "file is larger than the %llu-byte input limit",
			               (unsigned long long)max);
		/* every byte is read once, front to back: mapping the pages in
		 * one call costs less than a fault for each */
		p = mmap(NULL, (size_t)sb.st_size, PROT_READ,
		         MAP_PRIVATE | AF_MAP_POPULATE, fd, 0);
		if (p != MAP_FAILED) {
			b->guard = af_guard_add(p, (size_t)sb.st_size);
			if (b->guard >= 0) {
				b->data = p;
				b->len = (size_t)sb.st_size;
				b->mapped = 1;
				b->fd = fd;
				return AF_OK;
			}
			munmap(p, (size_t)sb.st_size);
		}
	}
	for (;;) {
		ssize_t n;
		if (!sniffed && b->len >= 4096) {
			/* /dev/zero and the like: refused at once, not after the
			 * input limit's worth of them */
			sniffed = 1;
			if (af_cannot_be_trace(b->data, b->len)) {
				af_bytes_free(b);
				return af_fail(err, AF_ERR_FORMAT, 0, "%s", af_no_trace);
			}
		}
		if (cap - b->len < 65536) {
			if ((uint64_t)cap >= max || AF_GROW(mem, b->data, cap, b->len + 65536)) {
				af_status st = (uint64_t)cap >= max ? AF_ERR_LIMIT : AF_ERR_NOMEM;
				long long at = (long long)b->len;
				af_bytes_free(b);
				if (st == AF_ERR_LIMIT)
					return af_fail(err, st, at, "input is larger than "
					               "the %llu-byte input limit",
					               (unsigned long long)max);
				return af_fail(err, st, at, "out of memory reading the input");
			}
		}
		n = read(fd, b->data + b->len, cap - b->len);
		if (n == 0)
			return AF_OK;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			af_bytes_free(b);
			return af_fail(err, AF_ERR_IO, -1, "read failed: %s",
			               strerror(errno));
		}
		b->len += (size_t)n;
	}
}

static af_status af_read_path(af_mem *mem, const char *path, uint64_t max,
                              af_bytes *b, af_error *err)
{
	int fd;
	af_status st;

	if (strcmp(path, "-") == 0)
		return af_read_fd(mem, 0, max, b, err);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		af_bytes_init(b, mem);
		return af_fail(err, AF_ERR_IO, -1, "cannot open: %s", strerror(errno));
	}
	st = af_read_fd(mem, fd, max, b, err);
	if (b->mapped)
		b->own_fd = 1; /* closed with the bytes */
	else
		close(fd);
	return st;
}

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

	AF_FORWARD(af_read_path(t->mem, key_path, t->limits.max_input, &k, err));
	st = af_read_path(t->mem, data_path, t->limits.max_input, &d, err);
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
	AF_FORWARD(af_read_path(t->mem, path, t->limits.max_input, &b, err));
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
	st = af_parse_into(t, b.data, b.len, err);
	/* what the parse said of zeros read past a new end does not count */
	if (af_bytes_check(&b, NULL, NULL) != AF_OK)
		st = af_bytes_check(&b, NULL, err);
	af_bytes_free(&b);
	return st;
}

af_status af_trace_open(const char *path, const af_parse_options *opt,
                        af_trace **out, af_error *err)
{
	af_trace *t = af_trace_new(opt);
	af_status st;

	*out = NULL;
	if (!t)
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
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
		af_bytes b;
		uint8_t *raw = NULL;
		const uint8_t *data;
		size_t len;

		*failed = i;
		if ((st = af_read_path(t->mem, paths[i], t->limits.max_input, &b, err)) != AF_OK)
			goto out;
		data = b.data;
		len = b.len;
		if (af_is_gzip(data, len)) {
			st = af_gunzip(t->mem, data, len, t->limits.max_input, &raw, &len, err);
			if (st != AF_OK) {
				af_bytes_free(&b);
				goto out;
			}
			data = raw;
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
		af_free(t->mem, raw);
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
	if (!(t = af_trace_new(opt)))
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
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
