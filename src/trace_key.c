/*
 * trace_key.c - the text key of a method trace: "*version", key=value lines,
 * "*threads", "*methods", "*end".  The same text is a regular trace's head
 * and a streaming trace's summary.
 */
#include <string.h>

#include "trace.h"

typedef enum af_section {
	AF_SEC_NONE,    /* before *version, or a section nobody knows */
	AF_SEC_VERSION, /* the line after *version: the number */
	AF_SEC_VALUES,  /* key=value lines */
	AF_SEC_THREADS,
	AF_SEC_METHODS
} af_section;

static int af_line_is(const uint8_t *line, size_t len, const char *word)
{
	size_t n = strlen(word);
	return len == n && memcmp(line, word, n) == 0;
}

static af_status af_key_value(af_trace *t, const char *line, size_t len)
{
	const char *eq = memchr(line, '=', len);
	const char *v;
	size_t klen, vlen;

	if (!eq)
		return AF_OK; /* third-party writers leave such lines */
	klen = (size_t)(eq - line);
	v = eq + 1;
	vlen = len - klen - 1;
#define AF_IS(s, l, word) ((l) == strlen(word) && memcmp((s), (word), (l)) == 0)
	if (AF_IS(line, klen, "clock")) {
		t->clock_named = 1;
		if (AF_IS(v, vlen, "dual")) {
			t->single_clock = AF_CLOCK_WALL;
			t->clock_named = 2;
		} else if (AF_IS(v, vlen, "wall") || AF_IS(v, vlen, "global")) {
			t->single_clock = AF_CLOCK_WALL;
		} else {
			t->single_clock = AF_CLOCK_CPU;
		}
	} else if (AF_IS(line, klen, "vm")) {
		t->info.vm = af_trace_strdup(t, v, vlen);
		if (!t->info.vm)
			return AF_ERR_NOMEM;
	} else if (AF_IS(line, klen, "data-file-overflow")) {
		t->info.overflow = AF_IS(v, vlen, "true");
	}
#undef AF_IS
	return AF_OK;
}

static af_status af_thread_line(af_trace *t, const char *line, size_t len,
                                long long off, af_error *err)
{
	size_t i = 0;
	uint64_t tid = 0;

	while (i < len && line[i] >= '0' && line[i] <= '9') {
		tid = tid * 10 + (uint64_t)(line[i++] - '0');
		if (tid > UINT32_MAX)
			return af_fail(err, AF_ERR_KEY, off, "thread id is too large");
	}
	if (i == 0)
		return af_fail(err, AF_ERR_KEY, off,
		               "thread line does not start with a decimal id");
	if (i == len || (line[i] != '\t' && line[i] != ' '))
		return af_fail(err, AF_ERR_KEY, off,
		               "thread line has no tab after the id");
	i++;
	return af_trace_declare_thread(t, (uint32_t)tid, line + i, len - i, off, err);
}

af_status af_trace_key(af_trace *t, const uint8_t *text, size_t len,
                       long long base, size_t *end, af_error *err)
{
	af_section sec = AF_SEC_NONE;
	size_t pos = 0;
	int seen_version = 0;

	while (pos < len) {
		const uint8_t *nl = memchr(text + pos, '\n', len - pos);
		const uint8_t *line = text + pos;
		long long off = base + (long long)pos;
		size_t llen;

		if (!nl)
			break;
		llen = (size_t)(nl - line);
		if (llen > t->limits.max_name_len)
			return af_fail(err, AF_ERR_LIMIT, off,
			               "key line longer than %u bytes",
			               t->limits.max_name_len);
		pos += llen + 1;
		if (llen && line[llen - 1] == '\r')
			llen--;
		{
			const uint8_t *nul = memchr(line, 0, llen);
			if (nul)
				return af_fail(err, AF_ERR_KEY, off + (nul - line),
				               "NUL byte in a key line");
		}

		if (llen && line[0] == '*') {
			if (af_line_is(line, llen, "*version")) {
				sec = AF_SEC_VERSION;
				seen_version = 1;
			} else if (af_line_is(line, llen, "*threads")) {
				sec = AF_SEC_THREADS;
			} else if (af_line_is(line, llen, "*methods")) {
				sec = AF_SEC_METHODS;
			} else if (af_line_is(line, llen, "*end")) {
				if (!seen_version)
					return af_fail(err, AF_ERR_KEY, off,
					               "*end before *version");
				*end = pos;
				return AF_OK;
			} else {
				sec = AF_SEC_NONE; /* e.g. a writer's *extra-info */
			}
			continue;
		}
		switch (sec) {
		case AF_SEC_VERSION: {
			size_t i;
			if (llen == 0 || llen > 9)
				return af_fail(err, AF_ERR_KEY, off,
				               "the line after *version is not a version number");
			for (i = 0; i < llen; i++)
				if (line[i] < '0' || line[i] > '9')
					return af_fail(err, AF_ERR_KEY, off,
					               "the line after *version is not a version number");
			sec = AF_SEC_VALUES;
			break;
		}
		case AF_SEC_VALUES:
			AF_FORWARD(af_key_value(t, (const char *)line, llen) == AF_OK
			                   ? AF_OK
			                   : af_fail(err, AF_ERR_NOMEM, off, "out of memory"));
			break;
		case AF_SEC_THREADS:
			if (llen)
				AF_FORWARD(af_thread_line(t, (const char *)line, llen, off, err));
			break;
		case AF_SEC_METHODS:
			if (llen)
				AF_FORWARD(af_trace_method_line(t, (const char *)line, llen,
				                                off, err));
			break;
		case AF_SEC_NONE:
			break;
		}
	}
	return af_fail(err, AF_ERR_TRUNCATED, base + (long long)len,
	               seen_version ? "key section ends without *end"
	                            : "key section ends without *version");
}
