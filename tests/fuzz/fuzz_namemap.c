/*
 * fuzz_namemap.c - the small files read beside an input: the input is a
 * name-attribute file (--nameattr), or with AF_FUZZ_PALETTE a palette.map
 * (--cp).  Built as libFuzzer targets with -DAFLAME_FUZZ (fuzz_nameattr,
 * fuzz_palette) and linked into replay drivers that run under ctest.
 *
 * Beyond "no crash, no leak", each run checks what the reader promises:
 *   - a failure explains itself and returns no map;
 *   - name attributes: a graph whose frames are the file's names, written
 *     as SVG (interactive and static), is well-formed XML (libxml2) with
 *     no event handler, no prefixed attribute and no script link;
 *   - palette: a graph coloured through the map is saved and read back
 *     with no damaged line and the same colour for every name.
 */
#define _DEFAULT_SOURCE
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "aflame/aflame.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static af_font *font;

static void quiet(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

/* Folded text with one frame per line of the file (the text before its
 * first tab, or before "->", whitespace as '_'), under a common root: at most
 * 32, after one frame of its own. */
static char *frames_of(const uint8_t *data, size_t size, size_t *len)
{
	char *out = malloc(size + 32 * 16 + 64), *o = out;
	size_t i = 0, n = 0;

	if (!out)
		abort();
	o += sprintf(o, "root;f0 1\n");
	while (i < size && n < 32) {
		const uint8_t *nl = memchr(data + i, '\n', size - i);
		size_t end = nl ? (size_t)(nl - data) : size, k;
		size_t cut = end;
		for (k = i; k < end; k++)
			if (data[k] == '\t' || (k + 1 < end && data[k] == '-' && data[k + 1] == '>')) {
				cut = k;
				break;
			}
		if (cut > i) {
			o += sprintf(o, "root;");
			/* one frame, one count: no ';', and no whitespace (Perl's
			 * \s: a vertical tab or form feed too) before a number,
			 * which would make the line a differential one of two
			 * counts, its frames coloured by their change, not by the
			 * map */
			for (k = i; k < cut; k++)
				*o++ = data[k] == ';' || data[k] == '\r' || data[k] == 0 ? ':'
				       : data[k] == ' ' || data[k] == '\v' || data[k] == '\f'
				             ? '_' : (char)data[k];
			o += sprintf(o, " %zu\n", n + 1);
			n++;
		}
		i = end + 1;
	}
	*len = (size_t)(o - out);
	return out;
}

static void check_node(xmlNodePtr n)
{
	for (; n; n = n->next) {
		xmlAttrPtr a;
		if (n->type != XML_ELEMENT_NODE)
			continue;
		for (a = n->properties; a; a = a->next) {
			const char *name = (const char *)a->name;
			if ((name[0] | 32) == 'o' && (name[1] | 32) == 'n')
				abort(); /* an event handler */
			if (a->ns)
				abort(); /* a prefixed attribute */
			if (strcmp(name, "href") == 0) {
				xmlChar *v = xmlNodeListGetString(n->doc, a->children, 1);
				const char *p = v ? (const char *)v : "";
				char head[16];
				size_t o = 0;
				while (*p && (unsigned char)*p <= 0x20)
					p++;
				for (; *p && o + 1 < sizeof head; p++)
					if (*p != '\t' && *p != '\n' && *p != '\r')
						head[o++] = (char)(*p >= 'A' && *p <= 'Z' ? *p + 32 : *p);
				head[o] = '\0';
				if (!strncmp(head, "javascript:", 11) || !strncmp(head, "vbscript:", 9) ||
				    !strncmp(head, "data:", 5))
					abort(); /* a script link */
				xmlFree(v);
			}
		}
		check_node(n->children);
	}
}

/* Writes the graph with `ro` as SVG (both kinds) and checks each. */
static void check_svg(const af_layout *l, af_render_options *ro)
{
	int pass;

	for (pass = 0; pass < 2; pass++) {
		char *svg = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&svg, &len);
		af_error e;
		xmlDocPtr doc;

		if (!f)
			abort();
		ro->no_javascript = pass;
		if (af_svg_write(l, ro, f, &e) != AF_OK)
			abort();
		fclose(f);
		doc = xmlReadMemory(svg, (int)len, "fuzz.svg", NULL,
		                    XML_PARSE_NONET | XML_PARSE_HUGE);
		if (!doc)
			abort(); /* not well-formed XML */
		check_node(xmlDocGetRootElement(doc));
		xmlFreeDoc(doc);
		free(svg);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
#ifdef AF_FUZZ_PALETTE
	const af_namemap_kind kind = AF_NAMEMAP_PALETTE;
#else
	const af_namemap_kind kind = AF_NAMEMAP_ATTRS;
#endif
	af_namemap *m = NULL;
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_layout_options lo = {.width = 300};
	af_render_options ro = {0};
	af_error e;
	af_status st;
	char *folded;
	size_t flen;

	if (!font) {
		if (af_font_open(NULL, &font, &e) != AF_OK)
			abort();
		xmlSetGenericErrorFunc(NULL, quiet);
	}
	e.message[0] = '\0';
	st = af_namemap_parse((const char *)data, size, kind, NULL, &m, &e);
	if (st != AF_OK) {
		if (m || e.message[0] == '\0')
			abort(); /* a failure always explains itself and returns nothing */
		return 0;
	}
	(void)af_namemap_warning(m);
	folded = frames_of(data, size, &flen);
	if (af_trace_parse((const uint8_t *)folded, flen, NULL, &t, &e) != AF_OK ||
	    af_tree_from_trace(t, NULL, &tree, &e) != AF_OK ||
	    af_layout_build(tree, &lo, &l, &e) != AF_OK)
		abort(); /* the frames' text is always a graph */
	ro.font = font;
	if (kind == AF_NAMEMAP_ATTRS) {
		ro.nameattr = m;
		check_svg(l, &ro);
	} else {
		char path[64];
		af_namemap *back = NULL;
		size_t i;
		ro.colormap = m;
		check_svg(l, &ro);
		snprintf(path, sizeof path, "/tmp/af-fuzz-palette-%d.map", (int)getpid());
		if (af_namemap_save(m, path, &e) != AF_OK ||
		    af_namemap_load(path, AF_NAMEMAP_PALETTE, &back, &e) != AF_OK)
			abort();
		unlink(path);
		if (af_namemap_warning(back))
			abort(); /* what the writer writes, the reader reads */
		for (i = 0; i < l->nrects; i++) {
			af_node_info ni;
			const char *a, *b;
			af_tree_node(tree, l->rects[i].node, &ni);
			a = af_namemap_get(m, ni.name);
			b = af_namemap_get(back, ni.name);
			/* "-" and "--" are grey whatever the map says and never
			 * enter it, as in flamegraph.pl */
			if (strcmp(ni.name, "-") == 0 || strcmp(ni.name, "--") == 0)
				continue;
			if (!strchr(ni.name, '\n') && (!a || !b || strcmp(a, b) != 0))
				abort();
		}
		af_namemap_free(back);
	}
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
	free(folded);
	af_namemap_free(m);
	return 0;
}
