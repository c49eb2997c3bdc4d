/*
 * profile_html.c - the method table as one self-contained HTML page, as
 * Traceview's profile panel shows it: a row per method (inclusive and
 * exclusive time and share, calls, recursive calls, time per call) that
 * opens onto its callers and callees, each linked to its own row.  Inline
 * style and script, nothing fetched, so it works from the file system.
 *
 * The whole table is in the markup: without the script every row is
 * there, and a link (#m<row>) opens the method it names (:target).  The
 * script sorts by a column, filters by name, and opens a row when a link
 * to it is followed.
 */
#include <stdio.h>
#include <string.h>

#include "callgraph.h"
#include "style.h"

static void af_text(FILE *out, const char *s)
{
	af_xml_escape(out, s, strlen(s));
}

/* A method's name, with a line break allowed after each '.' and '$', so a
 * long name wraps between its parts rather than inside a word. */
static void af_name(FILE *out, const char *s)
{
	const char *p;

	while ((p = strpbrk(s, ".$")) != NULL) {
		af_xml_escape(out, s, (size_t)(p - s) + 1);
		fputs("<wbr>", out);
		s = p + 1;
	}
	af_text(out, s);
}

/* A time for people, or a count with thousands separators. */
static void af_value(FILE *out, uint64_t v, int is_time)
{
	char t[48], digits[32];
	int len, i;
	size_t o = 0;

	if (is_time) {
		af_style_time(t, sizeof t, v);
		af_text(out, t);
		return;
	}
	len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
	for (i = 0; i < len && o + 2 < sizeof t; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			t[o++] = ',';
		t[o++] = digits[i];
	}
	t[o] = '\0';
	fputs(t, out);
}

static double af_share(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0;
}

static const char af_profile_css[] =
	"body{font:14px/1.4 \"DejaVu Sans\",Verdana,sans-serif;margin:16px 24px;"
	"color:#1d1d1d;background:#fff}\n"
	"h1{font-size:20px;margin:0 0 4px}\n"
	".sub{color:#555;margin:0 0 12px}\n"
	"#filter{font:inherit;padding:4px 8px;width:28em;max-width:90%}\n"
	"#count{color:#555;margin-left:8px}\n"
	"table.methods{border-collapse:collapse;margin-top:10px;width:100%}\n"
	"table.methods>thead th{position:sticky;top:0;background:#e8e8e8;text-align:left;"
	"padding:4px 8px;cursor:pointer;user-select:none;white-space:nowrap}\n"
	"table.methods>thead th[aria-sort=ascending]::after{content:\" \\25B2\"}\n"
	"table.methods>thead th[aria-sort=descending]::after{content:\" \\25BC\"}\n"
	"td{padding:2px 8px;vertical-align:top}\n"
	".num{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}\n"
	"tbody.method{scroll-margin-top:2.4em}\n"
	"tbody.method>tr.row{cursor:pointer}\n"
	"tbody.method>tr.row:hover{background:#f3f3f3}\n"
	"tbody.method>tr.row>td.name::before{content:\"\\25B8 \";color:#888}\n"
	"tbody.method.open>tr.row>td.name::before,"
	"table:not(.js)>tbody.method:target>tr.row>td.name::before{content:\"\\25BE \"}\n"
	"tbody.method>tr.rel{display:none}\n"
	"tbody.method.open>tr.rel,table:not(.js)>tbody.method:target>tr.rel"
	"{display:table-row}\n"
	"tbody.method.open>tr.row,table:not(.js)>tbody.method:target>tr.row"
	"{background:#fff3cd}\n"
	"tr.rel>td{padding:4px 8px 12px 32px;background:#fafafa}\n"
	"table.rel{border-collapse:collapse;margin:2px 0 6px}\n"
	"table.rel th{font-weight:normal;color:#555;text-align:left;padding:1px 8px}\n"
	"table.rel tbody.callees th{padding-top:8px}\n"
	"table.rel td{padding:1px 8px}\n"
	"table.rel a{color:#0b57d0;text-decoration:none}\n"
	"table.rel a:hover{text-decoration:underline}\n"
	".self{color:#555;font-style:italic}\n"
	"td.name{overflow-wrap:anywhere}\n";

/* Sorting, filtering and following links; the page is whole without it. */
static const char af_profile_js[] =
	"(function () {\n"
	"  var table = document.getElementById('methods');\n"
	"  var bodies = Array.prototype.slice.call(table.tBodies);\n"
	"  var heads = Array.prototype.filter.call(table.tHead.rows[0].cells, function (h) {\n"
	"    return h.dataset.key;\n"
	"  });\n"
	"  var filter = document.getElementById('filter');\n"
	"  var count = document.getElementById('count');\n"
	"  var key = 'incl', dir = -1;\n"
	"  function sortBy(k, d) {\n"
	"    key = k;\n"
	"    dir = d;\n"
	"    bodies.sort(function (a, b) {\n"
	"      var x = a.dataset[k], y = b.dataset[k], c;\n"
	"      if (k === 'name') c = x < y ? -1 : x > y ? 1 : 0;\n"
	"      else c = Number(x) - Number(y);\n"
	"      return c * dir || Number(a.dataset.rank) - Number(b.dataset.rank);\n"
	"    });\n"
	"    bodies.forEach(function (b) { table.appendChild(b); });\n"
	"    heads.forEach(function (h) {\n"
	"      if (h.dataset.key === k) h.setAttribute('aria-sort', d < 0 ? 'descending' : "
	"'ascending');\n"
	"      else h.removeAttribute('aria-sort');\n"
	"    });\n"
	"  }\n"
	"  function applyFilter() {\n"
	"    var q = filter.value.trim().toLowerCase(), shown = 0;\n"
	"    bodies.forEach(function (b) {\n"
	"      var hit = !q || b.dataset.name.toLowerCase().indexOf(q) >= 0;\n"
	"      b.hidden = !hit;\n"
	"      if (hit) shown++;\n"
	"    });\n"
	"    count.textContent = shown === bodies.length ? bodies.length + ' methods'\n"
	"      : shown + ' of ' + bodies.length + ' methods';\n"
	"  }\n"
	"  function show(id) {\n"
	"    var b = id && document.getElementById(id);\n"
	"    if (!b || b.parentNode !== table) return;\n"
	"    if (b.hidden) { filter.value = ''; applyFilter(); }\n"
	"    b.classList.add('open');\n"
	"    b.scrollIntoView({block: 'start'});\n"
	"  }\n"
	"  heads.forEach(function (h) {\n"
	"    h.addEventListener('click', function () {\n"
	"      var k = h.dataset.key;\n"
	"      sortBy(k, k === key ? -dir : k === 'name' || k === 'rank' ? 1 : -1);\n"
	"    });\n"
	"  });\n"
	"  bodies.forEach(function (b) {\n"
	"    b.rows[0].addEventListener('click', function () {\n"
	"      b.classList.toggle('open');\n"
	"    });\n"
	"  });\n"
	"  filter.addEventListener('input', applyFilter);\n"
	"  table.classList.add('js'); /* rows open by class from now on */\n"
	"  window.addEventListener('hashchange', function () { show(location.hash.slice(1)); "
	"});\n"
	"  applyFilter();\n"
	"  if (location.hash) show(location.hash.slice(1));\n"
	"})();\n";

/* A method named in another's callers or callees: a link to its row, or
 * the root. */
static void af_relative(FILE *out, const af_method_table *t, uint32_t m)
{
	if (m == AF_CALL_ROOT) {
		fputs("<span class=\"self\" title=\"the start of a stack: a thread's first "
		      "frames\">all</span>", out);
		return;
	}
	fprintf(out, "<a href=\"#m%u\">", m);
	af_name(out, t->rows[m].name);
	fputs("</a>", out);
}

/* One line of callers or callees: who, calls (of the method's, or of the
 * callee's all), time, and share of the method's inclusive time. */
static void af_relation(FILE *out, const af_method_table *t, const af_call_edge *e,
                        uint32_t who, uint64_t all_calls, uint64_t whole)
{
	fputs("<tr><td>", out);
	af_relative(out, t, who);
	fputs("</td><td class=\"num\">", out);
	if (t->is_time) {
		fprintf(out, "%llu", (unsigned long long)e->calls);
		if (e->recursive_calls)
			fprintf(out, "+%llu", (unsigned long long)e->recursive_calls);
		fprintf(out, "/%llu", (unsigned long long)all_calls);
	}
	fputs("</td><td class=\"num\">", out);
	af_value(out, e->inclusive, t->is_time);
	fprintf(out, "</td><td class=\"num\">%.1f%%</td></tr>\n", af_share(e->inclusive, whole));
}

static void af_method(FILE *out, const af_call_graph *g, size_t i)
{
	const af_method_table *t = &g->methods;
	const af_method_row *r = &t->rows[i];
	uint64_t all = r->calls + r->recursive_calls;
	size_t k;

	fprintf(out, "<tbody class=\"method\" id=\"m%zu\" data-rank=\"%zu\" data-name=\"", i, i);
	af_text(out, r->name);
	fprintf(out, "\" data-incl=\"%llu\" data-excl=\"%llu\" data-calls=\"%llu\" "
	        "data-rec=\"%llu\" data-percall=\"%.3f\">\n<tr class=\"row\"><td class=\"num\">"
	        "%zu</td><td class=\"name\">", (unsigned long long)r->inclusive,
	        (unsigned long long)r->exclusive, (unsigned long long)r->calls,
	        (unsigned long long)r->recursive_calls,
	        r->calls ? (double)r->inclusive / (double)r->calls : 0.0, i);
	af_name(out, r->name);
	if (r->library) { /* a native frame's */
		fputs(" <small>in ", out);
		af_text(out, r->library);
		fputs("</small>", out);
	}
	fputs("</td><td class=\"num\">", out);
	af_value(out, r->inclusive, t->is_time);
	fprintf(out, "</td><td class=\"num\">%.2f%%</td><td class=\"num\">",
	        af_share(r->inclusive, t->total));
	af_value(out, r->exclusive, t->is_time);
	fprintf(out, "</td><td class=\"num\">%.2f%%</td>", af_share(r->exclusive, t->total));
	if (t->is_time) {
		fprintf(out, "<td class=\"num\">%llu</td><td class=\"num\">%llu</td>"
		        "<td class=\"num\">", (unsigned long long)r->calls,
		        (unsigned long long)r->recursive_calls);
		if (r->calls)
			af_value(out, (r->inclusive + r->calls / 2) / r->calls, 1);
		fputs("</td>", out);
	}
	fprintf(out, "</tr>\n<tr class=\"rel\"><td></td><td colspan=\"%d\">\n",
	        t->is_time ? 8 : 5);
	fputs("<table class=\"rel\"><tbody class=\"callers\"><tr><th>Callers</th><th "
	      "class=\"num\">calls</th><th class=\"num\">inclusive</th><th class=\"num\">"
	      "share</th></tr>\n", out);
	for (k = g->callers_of[i]; k < g->callers_of[i + 1]; k++) {
		const af_call_edge *e = &g->edges[g->callers[k]];
		af_relation(out, t, e, e->caller, all, r->inclusive);
	}
	fputs("</tbody><tbody class=\"callees\"><tr><th>Callees</th><th class=\"num\">"
	      "calls</th><th class=\"num\">inclusive</th><th class=\"num\">share</th></tr>\n"
	      "<tr class=\"self\"><td>self</td><td></td><td class=\"num\">", out);
	af_value(out, r->exclusive, t->is_time);
	fprintf(out, "</td><td class=\"num\">%.1f%%</td></tr>\n",
	        af_share(r->exclusive, r->inclusive));
	for (k = g->calls_from[i]; k < g->calls_from[i + 1]; k++) {
		const af_call_edge *e = &g->edges[k];
		const af_method_row *c = &t->rows[e->callee];
		af_relation(out, t, e, e->callee, c->calls + c->recursive_calls, r->inclusive);
	}
	fputs("</tbody></table>\n</td></tr>\n</tbody>\n", out);
}

af_status af_profile_html_write(const af_call_graph *graph, const af_profile_options *opt,
                                FILE *out, af_error *err)
{
	const af_method_table *t = &graph->methods;
	const char *title = opt && opt->title ? opt->title : "Profile";
	size_t i;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>", out);
	af_text(out, title);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>", af_profile_css);
	af_text(out, title);
	fputs("</h1>\n", out);
	if (opt && opt->subtitle) {
		fputs("<p class=\"sub\">", out);
		af_text(out, opt->subtitle);
		fputs("</p>\n", out);
	}
	fprintf(out, "<p><input id=\"filter\" type=\"search\" placeholder=\"Filter methods by "
	        "name\" aria-label=\"Filter methods by name\"><span id=\"count\">%zu "
	        "methods</span></p>\n", t->nrows);
	fputs("<table class=\"methods\" id=\"methods\">\n<thead><tr>"
	      "<th class=\"num\" data-key=\"rank\">#</th>"
	      "<th data-key=\"name\">Method</th>"
	      "<th class=\"num\" data-key=\"incl\" aria-sort=\"descending\">Inclusive</th>"
	      "<th class=\"num\">%</th>"
	      "<th class=\"num\" data-key=\"excl\">Exclusive</th>"
	      "<th class=\"num\">%</th>", out);
	if (t->is_time)
		fputs("<th class=\"num\" data-key=\"calls\">Calls</th>"
		      "<th class=\"num\" data-key=\"rec\">Recursive</th>"
		      "<th class=\"num\" data-key=\"percall\">Incl./call</th>", out);
	fputs("</tr></thead>\n", out);
	for (i = 0; i < t->nrows; i++)
		af_method(out, graph, i);
	fprintf(out, "</table>\n<script>\n%s</script>\n</body>\n</html>\n", af_profile_js);
	if (fflush(out) || ferror(out))
		return af_fail(err, AF_ERR_IO, -1, "write failed");
	return AF_OK;
}
