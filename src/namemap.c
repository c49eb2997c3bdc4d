/*
 * namemap.c - frame name -> text maps kept in small files: flamegraph.pl's
 * palette.map (--cp) and name-attribute files (--nameattr).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "names.h"

struct af_namemap {
	af_mem *mem;
	af_names names; /* keys; a name's id indexes values */
	char **values;
	size_t cap;
};

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
	af_free(mem, m);
	af_mem_unref(mem);
}

const char *af_namemap_get(const af_namemap *m, const char *name)
{
	uint32_t id = af_names_find(&m->names, name, strlen(name));
	return id == AF_NONE ? NULL : m->values[id];
}

af_status af_namemap_set(af_namemap *m, const char *name, const char *value)
{
	size_t before = m->names.len;
	uint32_t id;
	char *copy;

	if (AF_GROW(m->mem, m->values, m->cap, before + 1))
		return AF_ERR_NOMEM;
	id = af_names_intern(&m->names, name, strlen(name));
	if (id == AF_NONE)
		return AF_ERR_NOMEM;
	if (id == before)
		m->values[id] = NULL;
	copy = af_strdup(m->mem, value);
	if (!copy)
		return AF_ERR_NOMEM;
	af_free(m->mem, m->values[id]);
	m->values[id] = copy;
	return AF_OK;
}

/* Reads one line into `b` (NUL-terminated, line end kept); returns its
 * length, 0 at the end of the file, -1 when out of memory. */
static long long af_read_line(FILE *f, af_buf *b)
{
	char chunk[4096];

	b->len = 0;
	while (fgets(chunk, sizeof chunk, f)) {
		size_t n = strlen(chunk);
		if (af_buf_append(b, chunk, n))
			return -1;
		if (n && chunk[n - 1] == '\n')
			break;
	}
	return (long long)b->len;
}

af_status af_namemap_load(const char *path, af_namemap_kind kind,
                          af_namemap **out, af_error *err)
{
	return af_namemap_load_with(path, kind, NULL, out, err);
}

af_status af_namemap_load_with(const char *path, af_namemap_kind kind,
                               const af_allocator *allocator, af_namemap **out,
                               af_error *err)
{
	af_mem *mem = af_mem_new(allocator, UINT64_MAX);
	af_namemap *m = mem ? af_calloc(mem, 1, sizeof *m) : NULL;
	af_buf buf = {.mem = mem};
	FILE *f;
	char *line;
	long long n;
	long long off = 0;
	af_status st = AF_OK;

	*out = NULL;
	if (!m) {
		af_mem_unref(mem);
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
	}
	m->mem = mem;
	m->names.mem = mem;
	f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT && kind == AF_NAMEMAP_PALETTE) {
			*out = m; /* a palette starts empty and is written later */
			return AF_OK;
		}
		af_namemap_free(m);
		return af_fail(err, AF_ERR_IO, -1, "cannot open: %s", strerror(errno));
	}
	while ((n = af_read_line(f, &buf)) > 0) {
		char *sep, *value;
		long long here = off;
		line = buf.data;
		off += n;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0)
			continue;
		if (kind == AF_NAMEMAP_PALETTE) {
			sep = strstr(line, "->");
			value = sep ? sep + 2 : NULL;
		} else {
			sep = strchr(line, '\t');
			value = sep ? sep + 1 : NULL;
		}
		if (!sep) {
			st = af_fail(err, AF_ERR_FORMAT, here, "expected %s",
			             kind == AF_NAMEMAP_PALETTE ? "NAME->rgb(R,G,B)"
			                                        : "NAME<TAB>attr=value");
			break;
		}
		*sep = '\0';
		if (af_namemap_set(m, line, value) != AF_OK) {
			st = af_fail(err, AF_ERR_NOMEM, here, "out of memory");
			break;
		}
	}
	if (n < 0)
		st = af_fail(err, AF_ERR_NOMEM, off, "out of memory");
	af_buf_free(&buf);
	if (ferror(f) && st == AF_OK)
		st = af_fail(err, AF_ERR_IO, -1, "read failed");
	fclose(f);
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
