/*
 * namemap.c - frame name -> text maps kept in small files: flamegraph.pl's
 * palette.map (--cp) and name-attribute files (--nameattr).
 *
 * Both files are untrusted input read whole under the input limit, a NUL
 * byte is an error (it would join two lines).  A name-attribute line is
 * cleaned when it is read: what could run script (event handlers, script
 * URLs) or make the SVG invalid (names that are not plain XML names,
 * repeated attributes) never reaches the map, so the SVG writer only
 * writes what the map holds.  What was left out is noted for one warning.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "names.h"

/* As af_limits.max_input's default: the largest input read. */
#define AF_NAMEMAP_MAX_INPUT (2ull << 30)
/* Items of each kind named in the warning; the rest are counted. */
#define AF_NOTES_SHOWN 8

/* One kind of note: the first items as text, and how many in all. */
typedef struct af_notes {
	af_buf text;
	size_t n;
} af_notes;

struct af_namemap {
	af_mem *mem;
	af_namemap_kind kind;
	af_names names; /* keys; a name's id indexes values */
	char **values;
	size_t cap;
	long long line;   /* the line being read; 0 in af_namemap_set() */
	af_notes dropped; /* attributes left out, or damaged palette lines */
	af_notes repeated;/* attributes given twice (the last one kept) */
	char *warning;    /* the notes as one message; NULL: none */
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

/* Adds "TEXT (line N)" to `notes`: the text cut to 40 bytes, anything but
 * printable ASCII as \xNN, so that no byte of the file reaches a
 * terminal.  `text` NULL: only the line (damaged palette lines). */
static int af_note(af_namemap *m, af_notes *notes, const char *text, size_t len)
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
/* Name attributes                                                     */

/* Where a kept attribute goes, in the order the map holds them. */
enum { AT_TITLE, AT_HREF, AT_TARGET, AT_A, AT_G };

/* An attribute kept so far: name and value are in the scratch buffer. */
typedef struct af_attr {
	int place;
	size_t key, klen, val, vlen; /* offsets in the scratch buffer */
	const char *kp;              /* the name, once the buffer is whole */
	size_t order;                /* in the line */
} af_attr;

typedef struct af_attrs {
	af_namemap *m;
	af_buf s;        /* names and values */
	af_attr *a;
	size_t n, cap;
} af_attrs;

static int af_lower(int c)
{
	return c >= 'A' && c <= 'Z' ? c + 32 : c;
}

static int af_ieq(const char *a, size_t alen, const char *b)
{
	size_t i, blen = strlen(b);

	if (alen != blen)
		return 0;
	for (i = 0; i < alen; i++)
		if (af_lower((unsigned char)a[i]) != b[i])
			return 0;
	return 1;
}

static int af_iprefix(const char *a, size_t alen, const char *b)
{
	size_t blen = strlen(b);
	return alen >= blen && af_ieq(a, blen, b);
}

/* A plain XML name: ASCII letter or '_', then letters, digits, '_', '-',
 * '.'; no ':' (a prefix would need its namespace declared). */
static int af_plain_name(const char *k, size_t n)
{
	size_t i;

	if (n == 0 || !((af_lower((unsigned char)k[0]) >= 'a' &&
	                 af_lower((unsigned char)k[0]) <= 'z') || k[0] == '_'))
		return 0;
	for (i = 1; i < n; i++) {
		int c = af_lower((unsigned char)k[i]);
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
		      c == '-' || c == '.'))
			return 0;
	}
	return 1;
}

/* Decodes the character reference at s[0] ('&'): numeric (the ';' may be
 * missing, as HTML allows) or one of the few named ones that matter here.
 * Returns its length and sets *cp, or 0 when it is not one. */
static size_t af_entity(const char *s, size_t n, uint32_t *cp)
{
	static const struct {
		const char *name;
		uint32_t cp;
	} named[] = {{"amp", '&'}, {"lt", '<'}, {"gt", '>'}, {"quot", '"'},
	             {"apos", '\''}, {"colon", ':'}, {"tab", '\t'},
	             {"newline", '\n'}, {"sol", '/'}, {"num", '#'},
	             {"quest", '?'}, {"lpar", '('}, {"rpar", ')'}};
	size_t i = 1, k;

	if (n < 3 || s[0] != '&')
		return 0;
	if (s[1] == '#') {
		int hex = n > 2 && (s[2] == 'x' || s[2] == 'X');
		uint32_t v = 0;
		size_t start;
		i = start = hex ? 3 : 2;
		for (; i < n; i++) {
			int c = af_lower((unsigned char)s[i]), d;
			if (c >= '0' && c <= '9')
				d = c - '0';
			else if (hex && c >= 'a' && c <= 'f')
				d = c - 'a' + 10;
			else
				break;
			if (v < 0x110000)
				v = v * (hex ? 16 : 10) + (uint32_t)d;
		}
		if (i == start)
			return 0;
		*cp = v;
		return i < n && s[i] == ';' ? i + 1 : i;
	}
	for (k = 0; k < sizeof named / sizeof named[0]; k++) {
		size_t l = strlen(named[k].name);
		if (l + 2 <= n && s[l + 1] == ';' && af_ieq(s + 1, l, named[k].name)) {
			*cp = named[k].cp;
			return l + 2;
		}
	}
	return 0;
}

/* What a browser makes of a URL's start, lowercased: character references
 * decoded (when `decode`), tabs and newlines removed, leading spaces and
 * controls skipped; up to the first ':', '/', '?' or '#' (kept).  Code
 * points past ASCII become 0x80. */
static size_t af_url_head(const char *v, size_t n, int decode, char *out, size_t cap)
{
	size_t i = 0, o = 0;

	while (i < n && o + 1 < cap) {
		uint32_t c = (unsigned char)v[i];
		size_t k = decode ? af_entity(v + i, n - i, &c) : 0;
		i += k ? k : 1;
		if (c == '\t' || c == '\n' || c == '\r')
			continue;
		if (o == 0 && c <= 0x20)
			continue;
		out[o++] = c < 0x80 ? (char)af_lower((int)c) : (char)0x80;
		if (c == ':' || c == '/' || c == '?' || c == '#')
			break;
	}
	out[o] = '\0';
	return o;
}

/* 1 when a link to `v` cannot run script: a relative or fragment URL, or
 * http(s).  Any other scheme, however spelled, is refused. */
static int af_url_safe(const char *v, size_t n)
{
	char head[32];
	int decode;

	for (decode = 0; decode < 2; decode++) {
		size_t o = af_url_head(v, n, decode, head, sizeof head);
		if (o == sizeof head - 1 && !strpbrk(head, ":/?#"))
			return 0; /* no end seen: a scheme this long is none of ours */
		if (o && head[o - 1] == ':' && strcmp(head, "http:") != 0 &&
		    strcmp(head, "https:") != 0)
			return 0;
	}
	return 1;
}

/* 1 when the NUL-terminated, normalised text holds a script URL or a CSS
 * script hook. */
static int af_window_runs_script(const char *norm)
{
	static const char *const schemes[] = {"javascript:", "vbscript:", "data:"};
	size_t k;

	if (strstr(norm, "expression(") || strstr(norm, "-moz-binding") ||
	    strstr(norm, "behavior:"))
		return 1;
	for (k = 0; k < sizeof schemes / sizeof schemes[0]; k++) {
		const char *p = norm;
		while ((p = strstr(p, schemes[k])) != NULL) {
			/* a scheme starts a word: "metadata:" is not "data:" */
			int c = p > norm ? (unsigned char)p[-1] : ' ';
			if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
			      c == '.' || c == '-'))
				return 1;
			p++;
		}
	}
	return 0;
}

/* 1 when a value names a script URL or a CSS script hook anywhere
 * (references decoded, tabs and newlines removed, any case).  A
 * long value is read in windows that overlap by more than the longest
 * word sought. */
static int af_value_runs_script(const char *v, size_t n)
{
	char norm[256];
	size_t i = 0, o = 0;

	while (i < n) {
		uint32_t c = (unsigned char)v[i];
		size_t e = af_entity(v + i, n - i, &c);
		i += e ? e : 1;
		if (c == '\t' || c == '\n' || c == '\r')
			continue; /* gone wherever they are, as URLs lose them */
		if (c < 0x20 || c == 0x7F)
			c = ' '; /* other spaces and controls part words */
		if (c == ' ' && o > 0 && norm[o - 1] == ' ')
			continue;
		norm[o++] = c < 0x80 ? (char)af_lower((int)c) : (char)0x80;
		if (o == sizeof norm - 1) {
			norm[o] = '\0';
			if (af_window_runs_script(norm))
				return 1;
			memmove(norm, norm + o - 16, 16);
			o = 16;
		}
	}
	norm[o] = '\0';
	return af_window_runs_script(norm);
}

/* Copies a value into the scratch buffer; with `decode` (g_extra and
 * a_extra are raw XML) its character references are decoded.  Tabs and
 * newlines become spaces (as XML normalises them), controls go. */
static int af_attrs_value(af_attrs *as, const char *v, size_t n, int decode)
{
	size_t i = 0;

	while (i < n) {
		uint32_t c = (unsigned char)v[i];
		size_t k = decode ? af_entity(v + i, n - i, &c) : 0;
		char u[4];
		size_t ul = 0;

		if (!k) {
			i++;
			if (c == '\t' || c == '\n' || c == '\r')
				c = ' ';
			u[0] = (char)c;
			if (af_buf_append(&as->s, u, 1))
				return -1;
			continue;
		}
		i += k;
		if (c == '\t' || c == '\n' || c == '\r')
			c = ' ';
		if (c < 0x20 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
			continue;
		if (c < 0x80) {
			u[ul++] = (char)c;
		} else if (c < 0x800) {
			u[ul++] = (char)(0xC0 | c >> 6);
			u[ul++] = (char)(0x80 | (c & 0x3F));
		} else if (c < 0x10000) {
			u[ul++] = (char)(0xE0 | c >> 12);
			u[ul++] = (char)(0x80 | (c >> 6 & 0x3F));
			u[ul++] = (char)(0x80 | (c & 0x3F));
		} else {
			u[ul++] = (char)(0xF0 | c >> 18);
			u[ul++] = (char)(0x80 | (c >> 12 & 0x3F));
			u[ul++] = (char)(0x80 | (c >> 6 & 0x3F));
			u[ul++] = (char)(0x80 | (c & 0x3F));
		}
		if (af_buf_append(&as->s, u, ul))
			return -1;
	}
	return 0;
}

/* Notes "NAME" or "NAME=VALUE" as left out. */
static int af_attrs_drop(af_attrs *as, const char *k, size_t kl, const char *v,
                         size_t vl)
{
	af_buf t = {.mem = as->m->mem};
	int bad = af_buf_append(&t, k, kl);

	if (v)
		bad |= af_buf_append(&t, "=", 1) | af_buf_append(&t, v, vl);
	bad |= af_note(as->m, &as->m->dropped, t.data ? t.data : "", t.len);
	af_buf_free(&t);
	return bad;
}

/* Decides where an attribute goes, or leaves it out with a note.  `from_a`:
 * it came from a_extra (for the link); `decode`: its value is raw XML. */
static int af_attrs_add(af_attrs *as, const char *k, size_t kl, const char *v,
                        size_t vl, int from_a, int decode)
{
	af_attr *at;
	int place;

	if (af_ieq(k, kl, "title"))
		place = AT_TITLE;
	else if (af_ieq(k, kl, "href") || af_ieq(k, kl, "xlink:href"))
		place = AT_HREF;
	else if (af_ieq(k, kl, "target"))
		place = AT_TARGET;
	else
		place = from_a ? AT_A : AT_G;
	/* event handlers (any case: inlined in HTML, names are folded), names
	 * a prefix would need declared, namespace declarations and ids (a
	 * name is many frames; the SVG's script finds its own parts by id) */
	if (place >= AT_A && (af_iprefix(k, kl, "on") || !af_plain_name(k, kl) ||
	                      af_iprefix(k, kl, "xml") || af_ieq(k, kl, "id")))
		return af_attrs_drop(as, k, kl, NULL, 0);
	if (AF_GROW(as->m->mem, as->a, as->cap, as->n + 1))
		return -1;
	at = &as->a[as->n];
	at->place = place;
	at->order = as->n;
	at->key = as->s.len;
	at->klen = kl;
	if (af_buf_append(&as->s, k, kl))
		return -1;
	at->val = as->s.len;
	if (af_attrs_value(as, v, vl, decode))
		return -1;
	at->vlen = as->s.len - at->val;
	if (place == AT_HREF ? !af_url_safe(as->s.data + at->val, at->vlen)
	    : place != AT_TITLE && af_value_runs_script(as->s.data + at->val, at->vlen)) {
		as->s.len = at->key;
		return af_attrs_drop(as, k, kl, v, vl);
	}
	as->n++;
	return 0;
}

static int af_space(int c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* g_extra and a_extra hold raw attribute text (`name="value" ...`),
 * written into flamegraph.pl's SVG as they are: parsed here, each
 * attribute then judged on its own. */
static int af_attrs_extra(af_attrs *as, const char *s, size_t n, int from_a)
{
	size_t i = 0;

	for (;;) {
		size_t k0, kl, v0, vl;
		while (i < n && af_space((unsigned char)s[i]))
			i++;
		if (i >= n)
			return 0;
		k0 = i;
		while (i < n && !af_space((unsigned char)s[i]) && s[i] != '=' &&
		       s[i] != '"' && s[i] != '\'')
			i++;
		kl = i - k0;
		while (i < n && af_space((unsigned char)s[i]))
			i++;
		if (kl == 0 || i >= n || s[i] != '=')
			break;
		i++;
		while (i < n && af_space((unsigned char)s[i]))
			i++;
		if (i < n && (s[i] == '"' || s[i] == '\'')) {
			const char *q = memchr(s + i + 1, s[i], n - i - 1);
			if (!q)
				break;
			v0 = i + 1;
			vl = (size_t)(q - s) - v0;
			i = (size_t)(q - s) + 1;
		} else {
			v0 = i;
			while (i < n && !af_space((unsigned char)s[i]))
				i++;
			vl = i - v0;
		}
		if (af_attrs_add(as, s + k0, kl, s + v0, vl, from_a, 1))
			return -1;
	}
	/* text that is not name="value": the rest of it is left out */
	return af_attrs_drop(as, from_a ? "a_extra" : "g_extra", 7, s, n);
}

/* 1 when two kept attributes are the same one: the same place, and for
 * <a> and <g> attributes the same name in any case (an SVG inlined in
 * HTML has its names folded). */
static int af_attr_same(const af_attr *a, const af_attr *b)
{
	size_t i;

	if (a->place != b->place)
		return 0;
	if (a->place < AT_A)
		return 1;
	if (a->klen != b->klen)
		return 0;
	for (i = 0; i < a->klen; i++)
		if (af_lower((unsigned char)a->kp[i]) != af_lower((unsigned char)b->kp[i]))
			return 0;
	return 1;
}

/* By place, then name (any case), then order in the line. */
static int af_attr_cmp(const void *pa, const void *pb)
{
	const af_attr *a = pa, *b = pb;
	size_t i;

	if (a->place != b->place)
		return a->place < b->place ? -1 : 1;
	if (a->place >= AT_A) {
		for (i = 0; i < a->klen && i < b->klen; i++) {
			int ca = af_lower((unsigned char)a->kp[i]);
			int cb = af_lower((unsigned char)b->kp[i]);
			if (ca != cb)
				return ca < cb ? -1 : 1;
		}
		if (a->klen != b->klen)
			return a->klen < b->klen ? -1 : 1;
	}
	return a->order < b->order ? -1 : a->order > b->order;
}

/* By place, then order in the line. */
static int af_attr_order(const void *pa, const void *pb)
{
	const af_attr *a = pa, *b = pb;
	if (a->place != b->place)
		return a->place < b->place ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

/* Appends "key=value" (and a tab before it unless first). */
static int af_attr_put(af_buf *out, const char *prefix, const char *k, size_t kl,
                       const char *v, size_t vl)
{
	return (out->len ? af_buf_append(out, "\t", 1) : 0) |
	       af_buf_append(out, prefix, strlen(prefix)) | af_buf_append(out, k, kl) |
	       af_buf_append(out, "=", 1) | af_buf_append(out, v, vl);
}

/* Cleans one line's `attr=value<TAB>...` into the map's form in `out`:
 * `key=value` items joined by tabs, each key once, in the order title,
 * href, target, a:NAME (the link's own), then the <g>'s in the line's
 * order.  Attributes given twice: the last one counts, as in
 * flamegraph.pl's hash.  Sorting finds them, so a line of a million
 * attributes costs N log N. */
static int af_attrs_clean(af_namemap *m, const char *s, size_t n, af_buf *out)
{
	af_attrs as = {.m = m, .s = {.mem = m->mem}};
	const char *a_extra = NULL;
	size_t i = 0, a_len = 0, kept = 0, j;
	int bad = 0, link = 0, target = 0;

	out->len = 0;
	while (i <= n && !bad) {
		const char *item = s + i, *tab = memchr(item, '\t', n - i), *eq, *v;
		size_t len = tab ? (size_t)(tab - item) : n - i, kl, vl;

		i += len + 1;
		if (len == 0)
			continue;
		eq = memchr(item, '=', len);
		if (!eq || eq == item) {
			bad = af_attrs_drop(&as, item, len, NULL, 0);
			continue;
		}
		kl = (size_t)(eq - item);
		vl = len - kl - 1;
		v = eq + 1;
		if (vl >= 2 && (v[0] == '"' || v[0] == '\'') && v[vl - 1] == v[0]) {
			v++;
			vl -= 2;
		}
		if (kl == 7 && memcmp(item, "g_extra", 7) == 0) {
			bad = af_attrs_extra(&as, v, vl, 0);
		} else if (kl == 7 && memcmp(item, "a_extra", 7) == 0) {
			if (a_extra)
				bad = af_note(m, &m->repeated, "a_extra", 7);
			a_extra = v; /* flamegraph.pl: the last one, with a link */
			a_len = vl;
		} else {
			bad = af_attrs_add(&as, item, kl, v, vl, 0, 0);
		}
	}
	if (!bad && a_extra)
		bad = af_attrs_extra(&as, a_extra, a_len, 1);
	if (bad)
		goto done;
	for (j = 0; j < as.n; j++)
		as.a[j].kp = as.s.data + as.a[j].key;
	if (as.n > 1)
		qsort(as.a, as.n, sizeof *as.a, af_attr_cmp);
	for (j = 0; j < as.n; j++) {
		if (j + 1 < as.n && af_attr_same(&as.a[j], &as.a[j + 1])) {
			const af_attr *x = &as.a[j];
			bad |= af_note(m, &m->repeated, x->kp, x->klen);
			continue;
		}
		as.a[kept++] = as.a[j];
	}
	as.n = kept;
	if (as.n > 1)
		qsort(as.a, as.n, sizeof *as.a, af_attr_order);
	for (j = 0; j < as.n; j++) {
		link |= as.a[j].place == AT_HREF && as.a[j].vlen > 0;
		target |= as.a[j].place == AT_TARGET;
	}
	for (j = 0; j < as.n && !bad; j++) {
		const af_attr *x = &as.a[j];
		const char *v = as.s.data + x->val;
		if (x->vlen == 0 && (x->place == AT_TITLE || x->place == AT_HREF))
			continue; /* empty: the default tooltip, no link */
		if (!link && (x->place == AT_TARGET || x->place == AT_A))
			continue; /* nothing to go on */
		switch (x->place) {
		case AT_TITLE: bad |= af_attr_put(out, "", "title", 5, v, x->vlen); break;
		case AT_HREF:
			bad |= af_attr_put(out, "", "href", 4, v, x->vlen);
			/* flamegraph.pl's default: a link leaves an <object> or <img> */
			if (!target)
				bad |= af_attr_put(out, "", "target", 6, "_top", 4);
			break;
		case AT_TARGET: bad |= af_attr_put(out, "", "target", 6, v, x->vlen); break;
		case AT_A: bad |= af_attr_put(out, "a:", x->kp, x->klen, v, x->vlen); break;
		default: bad |= af_attr_put(out, "", x->kp, x->klen, v, x->vlen); break;
		}
	}
done:
	af_buf_free(&as.s);
	af_free(m->mem, as.a);
	return bad;
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
	if (af_attrs_clean(m, value, vlen, &clean)) {
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
				if (af_note(m, &m->dropped, NULL, 0))
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
		if (af_attrs_clean(m, sep + 1, (size_t)(line + n - sep - 1), &clean) ||
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
