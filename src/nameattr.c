/*
 * nameattr.c - one line of a name-attribute file (--nameattr) cleaned as
 * it is read: what could run script (event handlers, script URLs) or make
 * the SVG invalid (names that are not plain XML names, repeated
 * attributes) never reaches the map, so the SVG writer only writes what
 * the map holds.  What was left out is noted for the map's one warning.
 */
#include <stdlib.h>
#include <string.h>

#include "namemap.h"

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
	bad |= af_namemap_note(as->m, &as->m->dropped, t.data ? t.data : "", t.len);
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
int af_nameattr_clean(af_namemap *m, const char *s, size_t n, af_buf *out)
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
				bad = af_namemap_note(m, &m->repeated, "a_extra", 7);
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
			bad |= af_namemap_note(m, &m->repeated, x->kp, x->klen);
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
