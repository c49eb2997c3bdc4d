/*
 * mapping.c - ProGuard/R8 mapping files, read to show original names.
 *
 *   com.example.app.Cache -> a.b:        a class: original -> obfuscated
 *       int size -> a                    a field (read, not used)
 *       1:3:void put(int):12:14 -> b     a method, with the obfuscated
 *       void clear() -> c                line range and the original lines
 *   # comment, or R8's # {"id":...}      ignored
 *
 * R8 writes a method inlined into another as lines sharing the obfuscated
 * name and line range, innermost first: only the last line of such a run
 * is the method a trace records.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "java.h"
#include "mapping.h"
#include "names.h"

typedef struct af_member {
	const char *name;   /* original name; qualified when R8 moved it */
	uint32_t name_id;   /* its id in the mapping's text: equal names, equal ids */
	const char *ret;    /* original return type */
	const char *params; /* original parameter types, "int,java.lang.String" */
	uint32_t next;      /* next member of its group, AF_NONE at the end */
	long long lo, hi;   /* obfuscated line range, -1 when none */
	int inlined;        /* inlined into the member after it */
} af_member;

/* Groups of up to this many methods are searched for an overload's types;
 * larger ones find them in a hash table (af_mapping.sigs), which costs
 * more to build than a short search. */
#define AF_GROUP_SEARCH 16

typedef struct af_mgroup {
	uint32_t first, last; /* members with one class and obfuscated name */
	uint32_t cls;         /* the class's id */
	uint32_t count;       /* its members */
	const char *joined;   /* candidates' names joined by '|' */
} af_mgroup;

struct af_mapping {
	af_names obf;        /* obfuscated class names; id indexes orig */
	const char **orig;   /* original class names */
	uint32_t *line;      /* where each class was mapped */
	size_t ocap, lcap;
	af_names keys;       /* "<class id>:<obfuscated method>" -> groups */
	af_mgroup *groups;
	size_t gcap;
	af_member *members;
	size_t nmembers, mcap;
	af_names sigs;       /* af_sig_key() of the overloads of groups with
	                        several names and more than AF_GROUP_SEARCH
	                        methods -> sig_pick */
	const char **sig_pick; /* the one name with those types; NULL: several */
	size_t spcap;
	af_names text;       /* every string kept, each allocated once */
	af_mem *mem;         /* the allocator given to the parse, referenced;
	                        no budget: a mapping outlives the traces it
	                        serves and belongs to none of them */
};

void af_mapping_free(af_mapping *m)
{
	af_mem *mem;

	if (!m)
		return;
	mem = m->mem;
	af_names_free(&m->obf);
	af_names_free(&m->keys);
	af_names_free(&m->sigs);
	af_names_free(&m->text);
	af_free(mem, m->sig_pick);
	af_free(mem, m->orig);
	af_free(mem, m->line);
	af_free(mem, m->groups);
	af_free(mem, m->members);
	af_free(mem, m);
	af_mem_unref(mem);
}

static af_status af_mapping_fail(af_error *err, af_status st, long long line,
                                 const char *what)
{
	af_fail(err, st, -1, "%s", what);
	if (err)
		err->line = line;
	return st;
}

static const char *af_keep(af_mapping *m, const char *s, size_t len)
{
	uint32_t id = af_names_intern(&m->text, s, len);
	return id == AF_NONE ? NULL : m->text.str[id];
}

/* The key of an overload's original types in group `g`: lengths first, so
 * no bytes of the types can make two keys equal. */
static int af_sig_key(af_buf *key, uint32_t g, const char *params, size_t plen,
                      const char *ret, size_t rlen)
{
	return af_buf_printf(key, "%u:%zu:", g, plen) || af_buf_append(key, params, plen) ||
	       af_buf_append(key, ret, rlen);
}

static const char *af_trim(const char *s, const char *end, const char **tend)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*tend = end;
	return s;
}

/* Finds " -> " in [s, end); NULL when absent. */
static const char *af_arrow(const char *s, const char *end)
{
	for (; s + 4 <= end; s++)
		if (s[0] == ' ' && s[1] == '-' && s[2] == '>' && s[3] == ' ')
			return s;
	return NULL;
}

static int af_has_space(const char *s, const char *end)
{
	for (; s < end; s++)
		if (*s == ' ' || *s == '\t')
			return 1;
	return 0;
}

/* Reads "DIGITS:" at *p; returns 0 and moves *p past the colon. */
static int af_number_colon(const char **p, const char *end, long long *v)
{
	const char *s = *p;
	long long n = 0;

	if (s >= end || *s < '0' || *s > '9')
		return -1;
	while (s < end && *s >= '0' && *s <= '9') {
		if (n > 1000000000)
			return -1;
		n = n * 10 + (*s++ - '0');
	}
	if (s >= end || *s != ':')
		return -1;
	*p = s + 1;
	*v = n;
	return 0;
}

/* The key of a group: "<class id>:<obfuscated name>"; 0 on success. */
static int af_group_key(af_buf *key, uint32_t cid, const char *obf, size_t len)
{
	key->len = 0;
	return af_buf_printf(key, "%u:", cid) || af_buf_append(key, obf, len);
}

/* The group of obfuscated method `obf` of class `cid`, made when new. */
static uint32_t af_group_of(af_mapping *m, uint32_t cid, const char *obf,
                            size_t len)
{
	af_buf key = {.mem = m->mem};
	uint32_t id = AF_NONE;
	size_t before = m->keys.len;

	if (!af_group_key(&key, cid, obf, len))
		id = af_names_intern(&m->keys, key.data, key.len);
	af_buf_free(&key);
	if (id == AF_NONE)
		return id;
	if (AF_GROW(m->mem, m->groups, m->gcap, (size_t)id + 1))
		return AF_NONE;
	if (id == before) {
		m->groups[id].first = m->groups[id].last = AF_NONE;
		m->groups[id].cls = cid;
		m->groups[id].count = 0;
		m->groups[id].joined = NULL;
	}
	return id;
}

/* A member line: "[a:b:]type name(args)[:x[:y]] -> obf" or "type name -> obf". */
static af_status af_member_line(af_mapping *m, uint32_t cid, const char *s,
                                const char *end, long long lineno,
                                uint32_t *prev, af_error *err)
{
	const char *arrow = af_arrow(s, end), *obf, *oend, *lp, *rp, *sp, *t;
	long long lo = -1, hi = -1;
	af_member *mb;
	uint32_t g, idx;
	af_buf params = {.mem = m->mem};
	size_t i;

	if (!arrow)
		return af_mapping_fail(err, AF_ERR_FORMAT, lineno,
		                       "expected 'type name -> obfuscated' in a member line");
	obf = af_trim(arrow + 4, end, &oend);
	s = af_trim(s, arrow, &end);
	if (obf == oend || af_has_space(obf, oend) || s == end)
		return af_mapping_fail(err, AF_ERR_FORMAT, lineno,
		                       "expected 'type name -> obfuscated' in a member line");
	lp = memchr(s, '(', (size_t)(end - s));
	if (!lp) {
		/* a field: checked, not kept (traces hold only methods) */
		const char *fname;
		sp = s;
		while (sp < end && *sp != ' ')
			sp++;
		fname = af_trim(sp, end, &t);
		if (sp == end || af_has_space(fname, t))
			return af_mapping_fail(err, AF_ERR_FORMAT, lineno,
			                       "expected 'type name -> obfuscated' in a member line");
		*prev = AF_NONE;
		return AF_OK;
	}
	if (*s >= '0' && *s <= '9') {
		const char *p = s;
		if (af_number_colon(&p, end, &lo) || af_number_colon(&p, end, &hi) || hi < lo)
			return af_mapping_fail(err, AF_ERR_FORMAT, lineno,
			                       "bad line range before a method (expected "
			                       "'FIRST:LAST:')");
		s = p;
	}
	rp = memchr(lp, ')', (size_t)(end - lp));
	if (!rp || memchr(lp + 1, '(', (size_t)(rp - lp - 1)))
		return af_mapping_fail(err, AF_ERR_FORMAT, lineno,
		                       "unbalanced parentheses in a method");
	/* after ')': nothing, or ":LINE" or ":FIRST:LAST" (original lines) */
	for (t = rp + 1; t < end; t++)
		if (!((*t >= '0' && *t <= '9') || *t == ':'))
			return af_mapping_fail(err, AF_ERR_FORMAT, lineno,
			                       "unexpected text after a method's parameters");
	sp = lp;
	while (sp > s && sp[-1] != ' ')
		sp--;
	if (sp == s || sp == lp || af_has_space(s, sp - 1))
		return af_mapping_fail(err, AF_ERR_FORMAT, lineno,
		                       "expected 'type name(parameters)' in a method line");
	/* the parameters without their spaces, a run at a time */
	for (t = lp + 1; t < rp; t += i + 1) {
		const char *sp2 = memchr(t, ' ', (size_t)(rp - t));
		i = sp2 ? (size_t)(sp2 - t) : (size_t)(rp - t);
		if (af_buf_append(&params, t, i))
			goto nomem;
	}
	if (AF_GROW(m->mem, m->members, m->mcap, m->nmembers + 1))
		goto nomem;
	mb = &m->members[m->nmembers];
	mb->ret = af_keep(m, s, (size_t)(sp - 1 - s));
	mb->name_id = af_names_intern(&m->text, sp, (size_t)(lp - sp));
	mb->name = mb->name_id == AF_NONE ? NULL : m->text.str[mb->name_id];
	mb->params = af_keep(m, params.data ? params.data : "", params.len);
	af_buf_free(&params);
	params.data = NULL;
	mb->next = AF_NONE;
	mb->lo = lo;
	mb->hi = hi;
	mb->inlined = 0;
	g = af_group_of(m, cid, obf, (size_t)(oend - obf));
	if (!mb->ret || !mb->name || !mb->params || g == AF_NONE)
		goto nomem;
	idx = (uint32_t)m->nmembers++;
	if (m->groups[g].last == AF_NONE)
		m->groups[g].first = idx;
	else
		m->members[m->groups[g].last].next = idx;
	/* the same obfuscated name and range as the line before: that line
	 * was inlined into this one */
	if (*prev != AF_NONE && lo >= 0 && m->groups[g].last == *prev &&
	    m->members[*prev].lo == lo && m->members[*prev].hi == hi)
		m->members[*prev].inlined = 1;
	m->groups[g].last = idx;
	m->groups[g].count++;
	*prev = idx;
	return AF_OK;
nomem:
	af_buf_free(&params);
	return af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
}

/* Each group's names for when nothing picks one: the methods themselves
 * (not frames inlined into them), each once, in the file's order, as long
 * as they fit in a name ("|(N more)" counts the rest).  Then, for groups
 * with several, which name each list of original types picks.  Linear in
 * the members: a name is known seen by its id. */
static af_status af_mapping_join(af_mapping *m, af_error *err)
{
	size_t g, nnames = m->text.len;
	uint32_t *seen = af_calloc(m->mem, nnames ? nnames : 1, sizeof *seen);
	af_buf b = {.mem = m->mem}, key = {.mem = m->mem};
	int bad = !seen;

	for (g = 0; g < m->keys.len && !bad; g++) {
		af_mgroup *gr = &m->groups[g];
		const char *cls = m->orig[gr->cls];
		size_t clen = strlen(cls), more = 0;
		uint32_t i;
		int any = 0, qualified = 0, plain = 0, pass = 0;

		for (i = gr->first; i != AF_NONE; i = m->members[i].next)
			any |= !m->members[i].inlined;
		for (i = gr->first; i != AF_NONE; i = m->members[i].next) {
			if (m->members[i].inlined && any)
				continue;
			if (strchr(m->members[i].name, '.'))
				qualified = 1;
			else
				plain = 1;
		}
		b.len = 0;
		for (i = gr->first; i != AF_NONE && !bad; i = m->members[i].next) {
			const af_member *mb = &m->members[i];
			/* mixed: every name qualified, so none loses its class */
			int prefix = qualified && plain && !strchr(mb->name, '.');
			size_t nlen = strlen(mb->name);

			if ((mb->inlined && any) || seen[mb->name_id] == g + 1)
				continue;
			seen[mb->name_id] = (uint32_t)g + 1;
			/* the first always (its line kept to the limit), then
			 * while they fit with room left for the count */
			if (pass && (more || b.len + 1 + (prefix ? clen + 1 : 0) + nlen >
			                             AF_DEFAULT_MAX_NAME - 32)) {
				more++;
				continue;
			}
			if (pass++)
				bad |= af_buf_append(&b, "|", 1);
			if (prefix)
				bad |= af_buf_append(&b, cls, clen) || af_buf_append(&b, ".", 1);
			bad |= af_buf_append(&b, mb->name, nlen);
		}
		if (more)
			bad |= af_buf_printf(&b, "|(%zu more)", more);
		gr->joined = bad ? NULL : af_keep(m, b.data ? b.data : "", b.len);
		bad |= !gr->joined;
		if (bad || !strchr(gr->joined, '|') || gr->count <= AF_GROUP_SEARCH)
			continue;
		for (i = gr->first; i != AF_NONE && !bad; i = m->members[i].next) {
			const af_member *mb = &m->members[i];
			size_t before = m->sigs.len;
			uint32_t id;

			if (mb->inlined)
				continue;
			key.len = 0;
			if (af_sig_key(&key, (uint32_t)g, mb->params, strlen(mb->params),
			               mb->ret, strlen(mb->ret)) ||
			    (id = af_names_intern(&m->sigs, key.data, key.len)) == AF_NONE ||
			    AF_GROW(m->mem, m->sig_pick, m->spcap, m->sigs.len)) {
				bad = 1;
				break;
			}
			if (id == before)
				m->sig_pick[id] = mb->name;
			else if (m->sig_pick[id] != mb->name)
				m->sig_pick[id] = NULL; /* two methods with these types */
		}
	}
	af_buf_free(&b);
	af_buf_free(&key);
	af_free(m->mem, seen);
	return bad ? af_fail(err, AF_ERR_NOMEM, -1, "out of memory") : AF_OK;
}

/* Parses with blocks from `mem`, which the mapping references. */
static af_status af_mapping_parse_mem(const void *buf, size_t len, af_mem *mem,
                                      af_mapping **out, af_error *err)
{
	const char *p = buf, *end = p + len;
	af_mapping *m;
	long long lineno = 0;
	uint32_t cid = AF_NONE, prev = AF_NONE;
	af_status st;

	*out = NULL;
	if (len && memchr(buf, '\0', len)) {
		const char *z = memchr(buf, '\0', len);
		for (; p < z; p++)
			lineno += *p == '\n';
		return af_mapping_fail(err, AF_ERR_FORMAT, lineno + 1,
		                       "NUL byte: not a mapping file");
	}
	m = af_calloc(mem, 1, sizeof *m);
	if (!m)
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory reading the mapping");
	m->mem = af_mem_ref(mem);
	m->obf.mem = m->keys.mem = m->sigs.mem = m->text.mem = mem;
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *s, *e, *arrow;
		const char *next = eol ? eol + 1 : end;
		if (!eol)
			eol = end;
		lineno++;
		if ((size_t)(eol - p) > AF_DEFAULT_MAX_NAME) {
			/* every name is part of a line: none passes the limit on
			 * names that traces' own names keep */
			char what[96];
			snprintf(what, sizeof what, "line longer than %u bytes, the limit "
			         "on names", AF_DEFAULT_MAX_NAME);
			st = af_mapping_fail(err, AF_ERR_LIMIT, lineno, what);
			goto fail;
		}
		s = af_trim(p, eol, &e);
		if (e > s && e[-1] == '\r')
			s = af_trim(s, e - 1, &e);
		if (s == e || *s == '#') {
			p = next;
			continue;
		}
		if (p < eol && (*p == ' ' || *p == '\t')) {
			if (cid == AF_NONE) {
				st = af_mapping_fail(err, AF_ERR_FORMAT, lineno,
				                     "member line before any class line");
				goto fail;
			}
			if ((st = af_member_line(m, cid, s, e, lineno, &prev, err)) != AF_OK)
				goto fail;
			p = next;
			continue;
		}
		/* "original.Class -> obfuscated:" */
		arrow = af_arrow(s, e);
		if (!arrow || e[-1] != ':') {
			st = af_mapping_fail(err, AF_ERR_FORMAT, lineno,
			                     "expected 'original.Class -> obfuscated:'");
			goto fail;
		}
		{
			const char *o, *oe, *x, *xe;
			size_t before = m->obf.len;
			o = af_trim(s, arrow, &oe);
			x = af_trim(arrow + 4, e - 1, &xe);
			if (o == oe || x == xe || af_has_space(o, oe) || af_has_space(x, xe)) {
				st = af_mapping_fail(err, AF_ERR_FORMAT, lineno,
				                     "expected 'original.Class -> obfuscated:'");
				goto fail;
			}
			cid = af_names_intern(&m->obf, x, (size_t)(xe - x));
			if (cid == AF_NONE || AF_GROW(mem, m->orig, m->ocap, (size_t)cid + 1) ||
			    AF_GROW(mem, m->line, m->lcap, (size_t)cid + 1))
				goto nomem;
			if (cid != before) {
				char what[160];
				snprintf(what, sizeof what,
				         "class '%.*s' is mapped twice (first on line %u)",
				         (int)(xe - x > 80 ? 80 : xe - x), x, m->line[cid]);
				st = af_mapping_fail(err, AF_ERR_FORMAT, lineno, what);
				goto fail;
			}
			m->orig[cid] = af_keep(m, o, (size_t)(oe - o));
			m->line[cid] = (uint32_t)lineno;
			if (!m->orig[cid])
				goto nomem;
			prev = AF_NONE;
		}
		p = next;
	}
	if (m->obf.len == 0) {
		st = af_mapping_fail(err, AF_ERR_FORMAT, lineno ? lineno : 1,
		                     "no class line: not a mapping file");
		goto fail;
	}
	if ((st = af_mapping_join(m, err)) != AF_OK)
		goto fail;
	*out = m;
	return AF_OK;
nomem:
	st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory");
fail:
	af_mapping_free(m);
	return st;
}

af_status af_mapping_parse_with(const void *buf, size_t len,
                                const af_allocator *allocator, af_mapping **out,
                                af_error *err)
{
	af_mem *mem = af_mem_new(allocator, UINT64_MAX);
	af_status st;

	*out = NULL;
	if (!mem)
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory reading the mapping");
	st = af_mapping_parse_mem(buf, len, mem, out, err);
	af_mem_unref(mem);
	return st;
}

af_status af_mapping_parse(const void *buf, size_t len, af_mapping **out,
                           af_error *err)
{
	return af_mapping_parse_with(buf, len, NULL, out, err);
}

af_status af_mapping_read(const char *path, const af_allocator *allocator,
                          const char *what, af_mem **mem, af_buf *b, af_error *err)
{
	FILE *f;
	char chunk[65536];
	size_t n;
	af_status st;

	*mem = NULL;
	*b = (af_buf){0};
	if (!(f = fopen(path, "rb")))
		return af_fail(err, AF_ERR_IO, -1, "cannot open: %s", strerror(errno));
	if (!(*mem = af_mem_new(allocator, UINT64_MAX))) {
		fclose(f);
		return af_fail(err, AF_ERR_NOMEM, -1, "out of memory reading the mapping");
	}
	b->mem = *mem;
	/* bounded like a trace: a NUL ends the reading (the parse says where),
	 * so /dev/zero is refused at once, and no file passes the input limit */
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		if (b->len + n > AF_DEFAULT_MAX_INPUT) {
			st = af_fail(err, AF_ERR_LIMIT, -1, "%s is larger than the %llu-byte "
			             "input limit", what, AF_DEFAULT_MAX_INPUT);
			goto fail;
		}
		if (af_buf_append(b, chunk, n)) {
			st = af_fail(err, AF_ERR_NOMEM, -1, "out of memory reading the mapping");
			goto fail;
		}
		if (memchr(chunk, '\0', n))
			break;
	}
	if (ferror(f)) {
		st = af_fail(err, AF_ERR_IO, -1, "read failed: %s", strerror(errno));
		goto fail;
	}
	fclose(f);
	return AF_OK;
fail:
	fclose(f);
	af_buf_free(b);
	af_mem_unref(*mem);
	*mem = NULL;
	return st;
}

af_status af_mapping_load_with(const char *path, const af_allocator *allocator,
                               af_mapping **out, af_error *err)
{
	af_mem *mem;
	af_buf b;
	af_status st;

	*out = NULL;
	AF_FORWARD(af_mapping_read(path, allocator, "mapping file", &mem, &b, err));
	st = af_mapping_parse_mem(b.data ? b.data : "", b.len, mem, out, err);
	af_buf_free(&b);
	af_mem_unref(mem);
	return st;
}

af_status af_mapping_load(const char *path, af_mapping **out, af_error *err)
{
	return af_mapping_load_with(path, NULL, out, err);
}

const char *af_mapping_class(const af_mapping *m, const char *cls)
{
	uint32_t id = af_names_find(&m->obf, cls, strlen(cls));
	return id == AF_NONE ? NULL : m->orig[id];
}

static const char *af_rename_class(const void *m, const char *cls)
{
	return af_mapping_class(m, cls);
}

/* Appends the Java name of the type at desc[*i], classes deobfuscated;
 * returns 0, 1 when it does not parse, -1 when out of memory. */
static int af_desc_type(const af_mapping *m, const char *d, size_t len, size_t *i,
                        af_buf *out)
{
	int r = af_java_type(out, d, len, i, m ? af_rename_class : NULL, m);
	return r == 0 ? 0 : r == -1 ? 1 : -1;
}

/* Fills `params` ("int,com.x.Foo") and `ret` from a descriptor; 0, 1 when
 * it does not parse, -1 when out of memory. */
static int af_desc_split(const af_mapping *m, const char *desc, const char *sep,
                         af_buf *params, af_buf *ret)
{
	size_t len = strlen(desc), i = 1;
	int first = 1, r;

	if (len == 0 || desc[0] != '(')
		return 1;
	while (i < len && desc[i] != ')') {
		if (!first && af_buf_append(params, sep, strlen(sep)))
			return -1;
		first = 0;
		if ((r = af_desc_type(m, desc, len, &i, params)) != 0)
			return r;
	}
	if (i >= len)
		return 1;
	i++;
	if (ret && ((r = af_desc_type(m, desc, len, &i, ret)) != 0 || i != len))
		return r ? r : 1;
	return 0;
}

int af_mapping_params(const af_mapping *m, const char *desc, af_buf *out)
{
	size_t mark = out->len;
	int r;

	if (!*desc)
		return 0;
	if (af_buf_append(out, "(", 1))
		return -1;
	r = af_desc_split(m, desc, ", ", out, NULL);
	if (r < 0)
		return -1;
	if (r == 0)
		return af_buf_append(out, ")", 1);
	out->len = mark;
	return af_buf_append(out, desc, strlen(desc));
}

int af_mapping_lookup(const af_mapping *m, const char *cls, const char *name,
                      const char *desc, af_mem *scratch, const char **out)
{
	uint32_t cid = af_names_find(&m->obf, cls, strlen(cls)), g;
	const af_mgroup *gr;
	const char *pick = NULL;
	af_buf params = {.mem = scratch}, ret = {.mem = scratch};
	int r;

	*out = NULL;
	if (cid == AF_NONE)
		return 0;
	if (af_group_key(&params, cid, name, strlen(name))) {
		af_buf_free(&params);
		return -1;
	}
	g = af_names_find(&m->keys, params.data, params.len);
	params.len = 0;
	if (g == AF_NONE) {
		af_buf_free(&params);
		return 0;
	}
	gr = &m->groups[g];
	if (!desc || !*desc || !strchr(gr->joined, '|')) {
		af_buf_free(&params);
		*out = gr->joined;
		return 0;
	}
	/* overloads: the one whose original types the descriptor gives */
	r = af_desc_split(m, desc, ",", &params, &ret);
	if (r == 0 && gr->count <= AF_GROUP_SEARCH) {
		uint32_t i;
		if (af_buf_append(&params, "", 1) || af_buf_append(&ret, "", 1))
			r = -1;
		for (i = gr->first; r == 0 && i != AF_NONE; i = m->members[i].next) {
			const af_member *mb = &m->members[i];
			if (mb->inlined || strcmp(mb->params, params.data) != 0 ||
			    strcmp(mb->ret, ret.data) != 0)
				continue;
			if (pick && pick != mb->name) {
				pick = NULL; /* two methods with these types: cannot tell */
				break;
			}
			pick = mb->name;
		}
	} else if (r == 0) {
		af_buf key = {.mem = scratch};
		uint32_t id;
		if (af_sig_key(&key, g, params.data ? params.data : "", params.len,
		               ret.data ? ret.data : "", ret.len))
			r = -1;
		else if ((id = af_names_find(&m->sigs, key.data, key.len)) != AF_NONE)
			pick = m->sig_pick[id];
		af_buf_free(&key);
	}
	af_buf_free(&params);
	af_buf_free(&ret);
	if (r < 0)
		return -1;
	*out = pick ? pick : gr->joined;
	return 0;
}

const char *af_mapping_method(const af_mapping *m, const char *cls,
                              const char *name, const char *desc)
{
	const char *found;

	return af_mapping_lookup(m, cls, name, desc, m->mem, &found) ? NULL : found;
}
