/*
 * dot.c - the call graph as Graphviz DOT text, and drawn from that text by
 * Graphviz's own library (libgvc: the dot layout; SVG by its SVG writer,
 * PNG and PDF by its cairo plugin).  No program is run.
 *
 * What is drawn is what dmtracedump -g draws for the same threshold
 * (af_call_graph_select()); how it looks is this file's: a box per method
 * with its name on up to three lines (package, Class.method, parameters),
 * its inclusive and exclusive time and calls, filled from white to red by
 * its exclusive share of the total; an edge per caller and callee with its
 * calls and inclusive time, wider the more of the total it carries.
 *
 * Graphviz is loaded the first time a call graph is drawn: linked, its
 * libraries would cost every run about 2 ms before main().
 */
#include <gvc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "callgraph.h"
#include "dl.h"
#include "font.h"

/* Text as a DOT double-quoted string's content.  Graphviz reads escapes
 * (\n, \N, \G...) and HTML entities in labels, so a backslash, a quote
 * and '&' are escaped; invalid UTF-8 becomes U+FFFD and the characters no
 * renderer draws (controls) are left out, as the other outputs do.  A
 * tooltip is read for escapes twice (\\N is the node's name there): its
 * backslashes are doubled once more. */
static int af_dot_text(af_buf *b, const char *s, size_t len, int tooltip)
{
	size_t i = 0;
	int bad = 0;

	while (i < len) {
		unsigned char c = (unsigned char)s[i];
		uint32_t cp;
		size_t k;

		if (c >= 0x20 && c < 0x7F) {
			if (c == '\\')
				bad |= af_buf_append(b, "\\\\\\\\", tooltip ? 4 : 2);
			else if (c == '"')
				bad |= af_buf_append(b, "\\\"", 2);
			else if (c == '&')
				bad |= af_buf_append(b, "&amp;", 5);
			else
				bad |= af_buf_append(b, s + i, 1);
			i++;
			continue;
		}
		k = af_utf8_decode((const unsigned char *)s + i, len - i, &cp);
		if (k == 0) {
			bad |= af_buf_append(b, "\xEF\xBF\xBD", 3);
			k = 1;
		} else if (!af_text_dropped(cp)) {
			bad |= af_buf_append(b, s + i, k);
		}
		i += k;
	}
	return bad;
}

/* A time for people, or a count with thousands separators. */
static void af_dot_value(char *out, size_t n, uint64_t v, int is_time)
{
	char digits[32];
	int len, i;
	size_t o = 0;

	if (is_time) {
		af_format_us(out, n, v);
		return;
	}
	len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
	for (i = 0; i < len && o + 2 < n; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			out[o++] = ',';
		out[o++] = digits[i];
	}
	out[o] = '\0';
}

static double af_dot_share(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0;
}

/* A method's name on up to three lines: the package, Class.method, and
 * the parameters when the name has them.  Names without a class (folded
 * frames, "(unknown method 0x1a4)") stay on one line. */
static int af_dot_name(af_buf *b, const char *name)
{
	size_t len = strlen(name), base = len, method = 0, cls = 0, i;
	const char *paren = name[0] != '(' ? strchr(name, '(') : NULL;
	int bad = 0;

	if (paren)
		base = (size_t)(paren - name);
	for (i = base; i-- > 0;)
		if (name[i] == '.') {
			if (!method)
				method = i + 1;
			else {
				cls = i + 1;
				break;
			}
		}
	if (cls) {
		bad |= af_dot_text(b, name, cls - 1, 0);
		bad |= af_buf_append(b, "\\n", 2);
	}
	bad |= af_dot_text(b, name + cls, base - cls, 0);
	if (paren)
		bad |= af_buf_append(b, "\\n", 2) | af_dot_text(b, paren, len - base, 0);
	return bad;
}

/* The fill of a method with `share` (0..1) of the total as its own time:
 * white (the dark theme's grey) to red, by the square root of the share so
 * that a few percent already shows. */
static void af_dot_fill(char *out, size_t n, double share, int dark)
{
	static const double hot[3] = {229, 57, 53};
	const double cold[3] = {dark ? 48 : 255, dark ? 48 : 255, dark ? 52 : 255};
	double t = share > 0 ? sqrt(share > 1 ? 1 : share) : 0;
	int c[3], k;

	for (k = 0; k < 3; k++)
		c[k] = (int)lround(cold[k] + (hot[k] - cold[k]) * t);
	snprintf(out, n, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* The whole DOT text of what `opt->threshold` selects, into `b`. */
static af_status af_dot_build(const af_call_graph *g, const af_call_graph_options *opt,
                              af_buf *b, af_error *err)
{
	const af_method_table *t = &g->methods;
	af_mem *mem = af_call_graph_mem(g);
	unsigned char *keep = af_malloc(mem, t->nrows + 1);
	unsigned char *keep_edge = af_malloc(mem, g->nedges + 1);
	double threshold = opt && opt->threshold > 0 ? opt->threshold : 0;
	int dark = opt && opt->dark, bad = 0;
	const char *ink = dark ? "#e8e8e8" : "#202020";
	char a[48], c[48], fill[16];
	size_t i, kept;

	if (!keep || !keep_edge ||
	    (kept = af_call_graph_select(g, threshold, keep, keep_edge)) == (size_t)-1) {
		af_free(mem, keep);
		af_free(mem, keep_edge);
		return af_fail(err, AF_ERR_NOMEM, -1,
		               "out of memory drawing the call graph");
	}
	bad |=
	    af_buf_printf(b,
	                  "// aflame-render call graph: %zu of %zu methods, those whose "
	                  "inclusive time is at least %g%% of a caller's\n",
	                  kept, t->nrows, threshold);
	bad |= af_buf_printf(b,
	                     "digraph calls {\n  graph [fontname=\"DejaVu Sans\", "
	                     "fontsize=14, fontcolor=\"%s\", bgcolor=\"%s\", rankdir=TB, "
	                     "nodesep=0.25, ranksep=0.45, labelloc=t",
	                     ink, dark ? "#1e1e1e" : "#ffffff");
	if (opt && opt->title && *opt->title) {
		bad |= af_buf_append(b, ", label=\"", 9);
		bad |= af_dot_text(b, opt->title, strlen(opt->title), 0);
		bad |= af_buf_append(b, "\"", 1);
	}
	bad |= af_buf_printf(b,
	                     "];\n  node [shape=box, style=\"filled,rounded\", "
	                     "fontname=\"DejaVu Sans\", fontsize=10, fontcolor=\"%s\", "
	                     "color=\"%s\", margin=\"0.12,0.05\"];\n  edge "
	                     "[fontname=\"DejaVu Sans\", fontsize=9, fontcolor=\"%s\", "
	                     "color=\"%s\", arrowsize=0.7];\n",
	                     dark ? "#f4f4f4" : "#202020", dark ? "#9a9a9a" : "#7a7a7a",
	                     ink, dark ? "#a0a0a0" : "#6a6a6a");
	af_dot_value(a, sizeof a, t->total, t->is_time);
	bad |= af_buf_printf(b,
	                     "  root [label=\"all\\n%s\", fillcolor=\"%s\", "
	                     "tooltip=\"all: %s\"];\n",
	                     a, dark ? "#3a3a3a" : "#eeeeee", a);
	for (i = 0; i < t->nrows; i++) {
		const af_method_row *r = &t->rows[i];
		if (!keep[i])
			continue;
		af_dot_value(a, sizeof a, r->inclusive, t->is_time);
		af_dot_value(c, sizeof c, r->exclusive, t->is_time);
		af_dot_fill(fill, sizeof fill,
		            t->total ? (double)r->exclusive / (double)t->total : 0, dark);
		bad |= af_buf_printf(b, "  m%zu [label=\"", i);
		bad |= af_dot_name(b, r->name);
		bad |= af_buf_printf(b, "\\ntotal %s (%.1f%%)\\nself %s (%.1f%%)", a,
		                     af_dot_share(r->inclusive, t->total), c,
		                     af_dot_share(r->exclusive, t->total));
		if (t->is_time) {
			bad |= af_buf_printf(b, "\\n%llu call%s",
			                     (unsigned long long)r->calls,
			                     r->calls == 1 ? "" : "s");
			if (r->recursive_calls)
				bad |=
				    af_buf_printf(b, " + %llu recursive",
				                  (unsigned long long)r->recursive_calls);
		}
		bad |= af_buf_printf(b, "\", fillcolor=\"%s\", tooltip=\"", fill);
		bad |= af_dot_text(b, r->name, strlen(r->name), 1);
		bad |= af_buf_append(b, "\"];\n", 4);
	}
	for (i = 0; i < g->nedges; i++) {
		const af_call_edge *e = &g->edges[i];
		double w;
		if (!keep_edge[i])
			continue;
		if (e->caller == AF_CALL_ROOT)
			bad |= af_buf_append(b, "  root", 6);
		else
			bad |= af_buf_printf(b, "  m%u", e->caller);
		af_dot_value(a, sizeof a, e->inclusive, t->is_time);
		w = 1 + 4 * af_dot_share(e->inclusive, t->total) / 100;
		if (t->is_time && !e->calls)
			bad |= af_buf_printf(
			    b, " -> m%u [label=\"%llu recursive call%s\"", e->callee,
			    (unsigned long long)e->recursive_calls,
			    e->recursive_calls == 1 ? "" : "s");
		else if (t->is_time && e->recursive_calls)
			bad |= af_buf_printf(
			    b, " -> m%u [label=\"%llu call%s + %llu recursive\\n%s\"",
			    e->callee, (unsigned long long)e->calls,
			    e->calls == 1 ? "" : "s",
			    (unsigned long long)e->recursive_calls, a);
		else if (t->is_time)
			bad |= af_buf_printf(b, " -> m%u [label=\"%llu call%s\\n%s\"",
			                     e->callee, (unsigned long long)e->calls,
			                     e->calls == 1 ? "" : "s", a);
		else
			bad |= af_buf_printf(b, " -> m%u [label=\"%s\"", e->callee, a);
		bad |= af_buf_printf(b, ", penwidth=%.2f];\n", w);
	}
	bad |= af_buf_append(b, "}\n", 2);
	af_free(mem, keep);
	af_free(mem, keep_edge);
	if (bad)
		return af_fail(err, AF_ERR_NOMEM, -1,
		               "out of memory drawing the call graph");
	return AF_OK;
}

af_status af_call_graph_write_dot(const af_call_graph *graph,
                                  const af_call_graph_options *opt, FILE *out,
                                  af_error *err)
{
	af_buf b = {.mem = af_call_graph_mem(graph)};
	af_status st = af_dot_build(graph, opt, &b, err);

	if (st == AF_OK &&
	    (fwrite(b.data, 1, b.len, out) != b.len || fflush(out) || ferror(out)))
		st = af_fail(err, AF_ERR_IO, -1, "write failed");
	af_buf_free(&b);
	return af_mem_explain(af_call_graph_mem(graph), st, err);
}

/* ------------------------------------------------------------------ */
/* Drawing with Graphviz                                               */

/* Graphviz reports through one global function: its messages are kept
 * here while a drawing holds the lock, never printed. */
static pthread_mutex_t af_gv_lock = PTHREAD_MUTEX_INITIALIZER;
static char af_gv_msg[200];
static size_t af_gv_len;
/* Graphviz's context, made once and kept: freeing it unloads its plugins,
 * and the fonts their text layout (pango, fontconfig) keeps for the
 * process would be left behind, unreachable. */
static GVC_t *af_gv_context;

/* The functions of Graphviz this file calls, by their own names. */
#define AF_GV_FUNCTIONS(X) \
	X(agclose) X(agmemread) X(agsafeset) X(agseterr) X(agseterrf) X(gvContext) \
	X(gvFreeLayout) X(gvFreeRenderData) X(gvLayout) X(gvRenderData)
static struct {
#define AF_GV_FIELD(name) __typeof__(&name) name;
	AF_GV_FUNCTIONS(AF_GV_FIELD)
#undef AF_GV_FIELD
} af_gv;
static int af_gv_loaded;
static char af_gv_why[256];

/* Loads Graphviz once, under af_gv_lock (dl.c); 0, or -1 with af_gv_why
 * saying why. */
static int af_gv_load(void)
{
#define AF_GV_NAME(name) #name,
	static const char *const names[] = {AF_GV_FUNCTIONS(AF_GV_NAME)};
#undef AF_GV_NAME
	void (*fns[sizeof names / sizeof names[0]])(void);
	size_t i = 0;

	if (af_gv_loaded)
		return 0;
	if (af_gv_why[0] || af_dl_load("libgvc.so.6", "Graphviz", names, fns,
	                               sizeof names / sizeof names[0], af_gv_why,
	                               sizeof af_gv_why))
		return -1;
#define AF_GV_SET(name) af_gv.name = (__typeof__(af_gv.name))fns[i++];
	AF_GV_FUNCTIONS(AF_GV_SET)
#undef AF_GV_SET
	af_gv_loaded = 1;
	return 0;
}

static int af_gv_message(char *msg)
{
	/* errors come in pieces ("Error: ", then the text); the first error
	 * is the one to tell, warnings before it are dropped */
	if (strncmp(msg, "Warning", 7) == 0)
		return 0;
	for (; *msg && af_gv_len + 1 < sizeof af_gv_msg; msg++)
		af_gv_msg[af_gv_len++] = *msg == '\n' || *msg == '\t' ? ' ' : *msg;
	af_gv_msg[af_gv_len] = '\0';
	return 0;
}

static af_status af_gv_fail(af_error *err, const char *what)
{
	while (af_gv_len && af_gv_msg[af_gv_len - 1] == ' ')
		af_gv_msg[--af_gv_len] = '\0';
	return af_fail(err, AF_ERR_RENDER, -1, "Graphviz could not %s%s%s", what,
	               af_gv_len ? ": " : "", af_gv_msg);
}

af_status af_call_graph_render(const af_call_graph *graph,
                               const af_call_graph_options *opt, af_format format,
                               FILE *out, af_error *err)
{
	af_buf b = {.mem = af_call_graph_mem(graph)};
	const char *fmt = format == AF_FORMAT_SVG   ? "svg"
	                  : format == AF_FORMAT_PNG ? "png:cairo"
	                  : format == AF_FORMAT_PDF ? "pdf:cairo"
	                                            : NULL;
	GVC_t *gvc = NULL;
	Agraph_t *g = NULL;
	agusererrf old_f;
	agerrlevel_t old_level;
	char *data = NULL;
	unsigned int len = 0;
	int laid = 0;
	af_status st;

	if (!fmt)
		return af_fail(err, AF_ERR_ARG, -1,
		               "Graphviz draws call graphs as SVG, PNG or PDF");
	st = af_dot_build(graph, opt, &b, err);
	if (st == AF_OK && af_buf_append(&b, "", 1))
		st = af_fail(err, AF_ERR_NOMEM, -1,
		             "out of memory drawing the call graph");
	if (st != AF_OK) {
		af_buf_free(&b);
		return af_mem_explain(af_call_graph_mem(graph), st, err);
	}

	pthread_mutex_lock(&af_gv_lock);
	if (af_gv_load()) {
		pthread_mutex_unlock(&af_gv_lock);
		af_buf_free(&b);
		return af_fail(err, AF_ERR_RENDER, -1, "%s", af_gv_why);
	}
	af_gv_len = 0;
	af_gv_msg[0] = '\0';
	old_f = af_gv.agseterrf(af_gv_message);
	old_level = af_gv.agseterr(AGWARN);
	if (!af_gv_context)
		af_gv_context = af_gv.gvContext();
	if (!(gvc = af_gv_context)) {
		st = af_gv_fail(err, "start");
		goto out;
	}
	if (!(g = af_gv.agmemread(b.data))) {
		st = af_gv_fail(err, "read the call graph");
		goto out;
	}
	if (format == AF_FORMAT_PNG) {
		char dpi[32];
		double scale = opt && opt->scale > 0 ? opt->scale : 1;
		snprintf(dpi, sizeof dpi, "%g", 96 * scale);
		af_gv.agsafeset(g, "dpi", dpi, "");
	}
	if (af_gv.gvLayout(gvc, g, "dot") != 0) {
		st = af_gv_fail(err,
		                "lay the call graph out (is libgvc6 installed, with its "
		                "plugins configured: dot -c?)");
		goto out;
	}
	laid = 1;
	if (af_gv.gvRenderData(gvc, g, fmt, &data, &len) != 0 || !data) {
		st = af_gv_fail(err, "draw the call graph");
		goto out;
	}
	if (fwrite(data, 1, len, out) != len || fflush(out) || ferror(out))
		st = af_fail(err, AF_ERR_IO, -1, "write failed");
out:
	if (data)
		af_gv.gvFreeRenderData(data);
	if (laid)
		af_gv.gvFreeLayout(gvc, g);
	if (g)
		af_gv.agclose(g);
	af_gv.agseterrf(old_f);
	af_gv.agseterr(old_level);
	pthread_mutex_unlock(&af_gv_lock);
	af_buf_free(&b);
	return st;
}
