/*
 * namemap.c - frame name -> text maps kept in small files: flamegraph.pl's
 * palette.map (--cp) and name-attribute files (--nameattr).
 *
 * Both files are untrusted input read whole under the input limit, a NUL
 * byte is an error (it would join two lines).  A name-attribute line is
 * cleaned when it is read (nameattr.c): what could run script (event
 * handlers, script URLs) or make the SVG invalid (names that are not plain
 * XML names, repeated attributes) never reaches the map, so the SVG writer
 * only writes what the map holds.  What was left out is noted for one
 * warning.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "namemap.h"

/* As af_limits.max_input's default: the largest input read. */
#define AF_NAMEMAP_MAX_INPUT (2ull << 30)

void af_namemap_free(af_namemap *m)
{
	af_mem *mem;
	size_t i;

	if (!m)
		return;
	mem = m->mem;
	for (i = 0; i < m->names.len; i++)
		af_free(mem, m->values[i]);
	af_free(mem, m->values);
	af_names_free(&m->names);
	af_buf_free(&m->dropped.text);
	af_buf_free(&m->repeated.text);
	af_free(mem, m->warning);
	af_free(mem, m);
	af_mem_unref(mem);
}

const char *af_namemap_get(const af_namemap *m, const char *name)
{
	uint32_t id = af_names_find(&m->names, name, strlen(name));
	return id == AF_NONE ? NULL : m->values[id];
}

const char *af_namemap_warning(const af_namemap *m)
{
	return m->warning;
}

/* Sets the `vlen` bytes at `value` (no NUL among them) for a name. */
static af_status af_namemap_put(af_namemap *m, const char *name, size_t nlen,
                                const char *value, size_t vlen)
{
	size_t before = m->names.len;
	uint32_t id;
	char *copy;

	if (AF_GROW(m->mem, m->values, m->cap, before + 1))
		return AF_ERR_NOMEM;
	id = af_names_intern(&m->names, name, nlen);
	if (id == AF_NONE)
		return AF_ERR_NOMEM;
	if (id == before)
		m->values[id] = NULL;
	copy = af_malloc(m->mem, vlen + 1);
	if (!copy)
		return AF_ERR_NOMEM;
	memcpy(copy, value, vlen);
	copy[vlen] = '\0';
	af_free(m->mem, m->values[id]);
	m->values[id] = copy;
	return AF_OK;
}

/* ------------------------------------------------------------------ */
/* Notes for the warning                                               */

int af_namemap_note(af_namemap *m, af_notes *notes, const char *text, size_t len)
{
	af_buf *b = &notes->text;
	size_t i, cut = len > 40 ? 40 : len;
	int bad = 0;

	if (notes->n++ >= AF_NOTES_SHOWN)
		return 0;
	if (b->len)
		bad |= af_buf_append(b, ", ", 2);
	for (i = 0; text && i < cut; i++) {
		unsigned char c = (unsigned char)text[i];
		if (c >= 0x20 && c < 0x7F && c != '\\')
			bad |= af_buf_append(b, &text[i], 1);
		else
			bad |= af_buf_printf(b, "\\x%02X", c);
	}
	if (cut < len)
		bad |= af_buf_append(b, "...", 3);
	if (m->line > 0)
		bad |= text ? af_buf_printf(b, " (line %lld)", m->line)
		            : af_buf_printf(b, "%lld", m->line);
	return bad;
}

static int af_notes_join(af_buf *w, const char *what, const af_notes *n)
{
	int bad;

	if (!n->n)
		return 0;
	bad = af_buf_printf(w, "%s%s%.*s", w->len ? "; " : "", what, (int)n->text.len,
	                    n->text.data ? n->text.data : "");
	if (n->n > AF_NOTES_SHOWN)
		bad |= af_buf_printf(w, " and %zu more", n->n - AF_NOTES_SHOWN);
	return bad;
}

/* Makes m->warning from the notes. */
static int af_notes_finish(af_namemap *m)
{
	af_buf w = {.mem = m->mem};
	int bad;

	if (m->kind == AF_NAMEMAP_PALETTE)
		bad = af_notes_join(&w, "ignored damaged lines (not NAME->rgb(R,G,B)): ",
		                    &m->dropped);
	else
		bad = af_notes_join(&w, "left out what could run script or break the "
		                        "SVG: ", &m->dropped) |
		      af_notes_join(&w, "attributes given twice (the last one kept): ",
		                    &m->repeated);
	if (!bad && !w.len)
		return 0;
	bad |= af_buf_append(&w, "", 1);
	if (bad) {
		af_buf_free(&w);
		return -1;
	}
	af_free(m->mem, m->warning);
	m->warning = w.data;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Palette lines                                                       */

/* "rgb(R,G,B)" with each part 0..255 in decimal, as flamegraph.pl writes. */
static int af_rgb_text(const char *v, size_t n)
{
	size_t i = 4;
	int part;

	if (n < 10 || memcmp(v, "rgb(", 4) != 0 || v[n - 1] != ')')
		return 0;
	for (part = 0; part < 3; part++) {
		unsigned val = 0, digits = 0;
		while (i < n && v[i] >= '0' && v[i] <= '9' && digits < 4) {
			val = val * 10 + (unsigned)(v[i++] - '0');
			digits++;
		}
		if (!digits || val > 255 || i >= n || v[i] != (part < 2 ? ',' : ')'))
			return 0;
		i++;
	}
	return i == n;
}

/* ------------------------------------------------------------------ */
/* Files                                                               */

af_status af_namemap_set(af_namemap *m, const char *name, const char *value)
{
	size_t vlen = strlen(value);
	af_buf clean = {.mem = m->mem};
	size_t before = m->dropped.n + m->repeated.n;
	af_status st;

	if (m->kind != AF_NAMEMAP_ATTRS)
		return af_namemap_put(m, name, strlen(name), value, vlen);
	if (af_nameattr_clean(m, value, vlen, &clean)) {
		af_buf_free(&clean);
		return AF_ERR_NOMEM;
	}
	st = af_namemap_put(m, name, strlen(name), clean.data ? clean.data : "", clean.len);
	af_buf_free(&clean);
	if (st == AF_OK && m->dropped.n + m->repeated.n != before && af_notes_finish(m))
		st = AF_ERR_NOMEM;
	return st;
}

static af_namemap *af_namemap_new(const af_allocator *allocator, af_namemap_kind kind)
{
	af_mem *mem = af_mem_new(allocator, UINT64_MAX);
	af_namemap *m = mem ? af_calloc(mem, 1, sizeof *m) : NULL;

	if (!m) {
		af_mem_unref(mem);
		return NULL;
	}
	m->mem = mem;
	m->kind = kind;
	m->names.mem = mem;
	m->dropped.text.mem = mem;
	m->repeated.text.mem = mem;
	return m;
}

/* Reads the lines of `buf` into `m`. */
static af_status af_namemap_read_lines(af_namemap *m, const char *buf, size_t len,
                                       af_error *err)
{
	const char *nul = memchr(buf, '\0', len);
	af_buf clean = {.mem = m->mem};
	size_t off = 0;
	af_status st = AF_OK;

	if (nul) {
		/* it would end a line early, or make two lines one */
		long long line = 1;
		const char *p = buf;
		while ((p = memchr(p, '\n', (size_t)(nul - p))) != NULL) {
			line++;
			p++;
		}
		return af_fail(err, AF_ERR_FORMAT, (long long)(nul - buf),
		               "a NUL byte in line %lld", line);
	}
	m->line = 0;
	while (off < len && st == AF_OK) {
		const char *line = buf + off, *nl = memchr(line, '\n', len - off), *sep;
		size_t n = nl ? (size_t)(nl - line) : len - off;
		long long here = (long long)off;

		off += n + (nl != NULL);
		m->line++;
		while (n > 0 && line[n - 1] == '\r')
			n--;
		if (n == 0)
			continue;
		if (m->kind == AF_NAMEMAP_PALETTE) {
			/* the last "->": a name may hold one (C++'s operator->) */
			size_t k = n - 1;
			sep = NULL;
			while (k-- > 0)
				if (line[k] == '-' && line[k + 1] == '>') {
					sep = line + k;
					break;
				}
			if (!sep || !af_rgb_text(sep + 2, (size_t)(line + n - sep - 2))) {
				if (af_namemap_note(m, &m->dropped, NULL, 0))
					st = af_fail(err, AF_ERR_NOMEM, here, "out of memory");
				continue;
			}
			if (af_namemap_put(m, line, (size_t)(sep - line), sep + 2,
			                   (size_t)(line + n - sep - 2)) != AF_OK)
				st = af_fail(err, AF_ERR_NOMEM, here, "out of memory");
			continue;
		}
		sep = memchr(line, '\t', n);
		if (!sep) {
			st = af_fail(err, AF_ERR_FORMAT, here,
			             "line %lld is not NAME<TAB>attr=value", m->line);
			break;
		}
		if (af_nameattr_clean(m, sep + 1, (size_t)(line + n - sep - 1), &clean) ||
		    af_namemap_put(m, line, (size_t)(sep - line), clean.data ? clean.data : "",
		                   clean.len) != AF_OK)
			st = af_fail(err, AF_ERR_NOMEM, here, "out of memory");
	}
	af_buf_free(&clean);
	m->line = 0;
	if (st == AF_OK && af_notes_finish(m))
		st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
	return st;
}

af_status af_namemap_parse(const char *buf, size_t len, af_namemap_kind kind,
                           const af_allocator *allocator, af_namemap **out,
                           af_error *err)
{
	af_namemap *m = af_namemap_new(allocator, kind);
	af_status st;

	*out = NULL;
	if (!m)
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
	st = af_namemap_read_lines(m, buf ? buf : "", buf ? len : 0, err);
	if (st != AF_OK) {
		af_namemap_free(m);
		return st;
	}
	*out = m;
	return AF_OK;
}

af_status af_namemap_load(const char *path, af_namemap_kind kind,
                          af_namemap **out, af_error *err)
{
	return af_namemap_load_with(path, kind, NULL, out, err);
}

/* Reads a whole file under the input limit into `b`, stopping early at a
 * NUL byte (the parser reports it: /dev/zero ends at once). */
static af_status af_namemap_slurp(int fd, af_buf *b, af_error *err)
{
	char chunk[65536];
	struct stat sb;

	if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    (uint64_t)sb.st_size > AF_NAMEMAP_MAX_INPUT)
		return af_fail(err, AF_ERR_LIMIT, -1,
		               "file is larger than the %llu-byte input limit",
		               (unsigned long long)AF_NAMEMAP_MAX_INPUT);
	for (;;) {
		ssize_t n = read(fd, chunk, sizeof chunk);
		if (n == 0)
			return AF_OK;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return af_fail(err, AF_ERR_IO, -1, "read failed: %s", strerror(errno));
		}
		if ((uint64_t)b->len + (uint64_t)n > AF_NAMEMAP_MAX_INPUT)
			return af_fail(err, AF_ERR_LIMIT, (long long)b->len,
			               "input is larger than the input limit");
		if (af_buf_append(b, chunk, (size_t)n))
			return af_fail(err, AF_ERR_NOMEM, (long long)b->len, "out of memory");
		if (memchr(chunk, '\0', (size_t)n))
			return AF_OK;
	}
}

af_status af_namemap_load_with(const char *path, af_namemap_kind kind,
                               const af_allocator *allocator, af_namemap **out,
                               af_error *err)
{
	af_namemap *m = af_namemap_new(allocator, kind);
	af_buf buf;
	af_status st;
	int fd;

	*out = NULL;
	if (!m)
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT && kind == AF_NAMEMAP_PALETTE) {
			*out = m; /* a palette starts empty and is written later */
			return AF_OK;
		}
		af_namemap_free(m);
		return af_fail(err, AF_ERR_IO, -1, "cannot open: %s", strerror(errno));
	}
	buf = (af_buf){.mem = m->mem};
	st = af_namemap_slurp(fd, &buf, err);
	close(fd);
	if (st == AF_OK)
		st = af_namemap_read_lines(m, buf.data ? buf.data : "", buf.len, err);
	af_buf_free(&buf);
	if (st != AF_OK) {
		af_namemap_free(m);
		return st;
	}
	*out = m;
	return AF_OK;
}

static int af_name_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

af_status af_namemap_save(const af_namemap *m, const char *path, af_error *err)
{
	size_t i, n = m->names.len;
	const char **keys = af_malloc(m->mem, (n ? n : 1) * sizeof *keys);
	char *tmp = af_malloc(m->mem, strlen(path) + 16);
	FILE *f;
	int fd, ok;

	if (!keys || !tmp) {
		af_free(m->mem, keys);
		af_free(m->mem, tmp);
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
	}
	for (i = 0; i < n; i++)
		keys[i] = m->names.str[i];
	qsort(keys, n, sizeof *keys, af_name_cmp);
	sprintf(tmp, "%s.XXXXXX", path);
	fd = mkstemp(tmp);
	f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		af_free(m->mem, keys);
		af_free(m->mem, tmp);
		return af_fail(err, AF_ERR_IO, -1, "cannot write %s: %s", path, strerror(errno));
	}
	fchmod(fd, 0644);
	for (i = 0; i < n; i++) {
		const char *v = af_namemap_get(m, keys[i]);
		/* a line a name: one holding a newline could not be read back */
		if (strchr(keys[i], '\n') || (v && strchr(v, '\n')))
			continue;
		fprintf(f, "%s->%s\n", keys[i], v ? v : "");
	}
	ok = fflush(f) == 0 && !ferror(f) && fsync(fd) == 0;
	ok = fclose(f) == 0 && ok;
	if (ok && rename(tmp, path) != 0)
		ok = 0;
	if (!ok)
		unlink(tmp);
	af_free(m->mem, keys);
	af_free(m->mem, tmp);
	return ok ? AF_OK : af_fail(err, AF_ERR_IO, -1, "cannot write %s", path);
}
