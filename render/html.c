/*
 * html.c - the index page of a per-thread set: one card per thread with its
 * thumbnail, linking to its full graph, biggest first.  One file, inline
 * CSS, no script and nothing fetched: it works from the file system.
 */
#include <stdio.h>
#include <string.h>

#include "style.h"

static void af_html(FILE *out, const char *s)
{
	af_xml_escape(out, s, strlen(s));
}

/* A relative file name as a URL path: bytes outside [A-Za-z0-9._-] are
 * percent-encoded, so any name links. */
static void af_href(FILE *out, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-')
			fputc(c, out);
		else
			fprintf(out, "%%%02X", c);
	}
}

/* A name that may break after a '.', '$', '/' or ',' (and nowhere else
 * unless one part is wider than the line): "com.<wbr>example.<wbr>Foo". */
static void af_html_breakable(FILE *out, const char *s)
{
	const char *start = s;

	for (; *s; s++) {
		if ((*s == '.' || *s == '$' || *s == '/' || *s == ',') && s[1]) {
			af_xml_escape(out, start, (size_t)(s + 1 - start));
			fputs("<wbr>", out);
			start = s + 1;
		}
	}
	af_xml_escape(out, start, (size_t)(s - start));
}

/* 4000000 -> "4,000,000", as people read counts. */
static void af_count(FILE *out, uint64_t v)
{
	char digits[24];
	int len = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v), i;

	for (i = 0; i < len; i++) {
		if (i > 0 && (len - i) % 3 == 0)
			fputc(',', out);
		fputc(digits[i], out);
	}
}

static const char *af_clock_label(int c)
{
	return c == AF_CLOCK_WALL ? "wall" : c == AF_CLOCK_CPU ? "thread-cpu" : "wait";
}

static void af_time_cell(FILE *out, uint64_t us)
{
	char t[48];
	af_style_time(t, sizeof t, us);
	af_html(out, t);
}

static void af_card(FILE *out, const af_index_options *o, const af_index_entry *e,
                    int all)
{
	int c;

	fprintf(out, "<article class=\"card%s\">\n<a class=\"thumb\" href=\"",
	        all ? " all" : "");
	af_href(out, e->graph);
	fputs("\">", out);
	if (e->thumb) {
		fputs("<img src=\"", out);
		af_href(out, e->thumb);
		fputs("\" alt=\"flame graph of ", out);
		af_html(out, e->name);
		fputs("\" loading=\"lazy\">", out);
	} else {
		fputs("<span class=\"nothumb\">open graph</span>", out);
	}
	fputs("</a>\n<div class=\"meta\"><h2><a href=\"", out);
	af_href(out, e->graph);
	fputs("\">", out);
	af_html(out, e->name);
	fputs("</a>", out);
	if (!all)
		fprintf(out, " <span class=\"tid\">tid %u</span>", e->tid);
	fputs("</h2>\n", out);
	fprintf(out, "<div class=\"bar\"><span style=\"width:%.2f%%\"></span></div>\n",
	        e->share < 0 ? 0 : e->share > 100 ? 100 : e->share);
	fprintf(out, "<dl><dt>share</dt><dd>%.2f%%</dd>", e->share);
	for (c = 0; c < AF_CLOCK_COUNT; c++) {
		if (!o->has_clock[c])
			continue;
		fprintf(out, "<dt>%s</dt><dd>", af_clock_label(c));
		af_time_cell(out, e->time[c]);
		fputs("</dd>", out);
	}
	fputs("<dt>records</dt><dd>", out);
	af_count(out, e->records);
	fputs("</dd><dt>calls</dt><dd>", out);
	af_count(out, e->calls);
	fputs("</dd>", out);
	if (e->hot_frame) {
		fputs("<dt>most self time</dt><dd class=\"hot\">", out);
		af_html_breakable(out, e->hot_frame);
		fputs(" (", out);
		af_time_cell(out, e->hot_self);
		fputs(")</dd>", out);
	}
	fputs("</dl></div>\n</article>\n", out);
}

/* Why the threads that have no card have none, counted by reason: no time
 * at all on the index's clock, under --min-share, nothing left after the
 * view's rules. */
static void af_skipped_heading(FILE *out, const af_index_options *o,
                               const af_index_entry *rows, size_t n, size_t skipped)
{
	size_t count[3] = {0, 0, 0}, i, parts = 0;
	int r;

	for (i = 0; i < n; i++) {
		const af_index_entry *e = &rows[i];
		if (e->graph)
			continue;
		if (e->time[o->clock] == 0)
			count[0]++;
		else if (o->min_share > 0 && e->share < o->min_share)
			count[1]++;
		else
			count[2]++;
	}
	for (r = 0; r < 3; r++)
		parts += count[r] > 0;
	fputs("<h3 id=\"skipped\">", out);
	if (parts > 1)
		fprintf(out, "%zu threads not drawn: ", skipped);
	for (r = 0, i = 0; r < 3; r++) {
		if (!count[r])
			continue;
		if (i++)
			fputs(", ", out);
		if (parts == 1)
			fprintf(out, "%zu thread%s ", count[r], count[r] == 1 ? "" : "s");
		else
			fprintf(out, "%zu ", count[r]);
		if (r == 0)
			fprintf(out, "recorded no %s time", af_clock_label(o->clock));
		else if (r == 1)
			fprintf(out, "under %g%% of the time", o->min_share);
		else
			fputs("with nothing left in the view", out);
	}
	fputs(parts == 1 ? ", not drawn</h3>\n" : "</h3>\n", out);
}

af_status af_html_index_write(FILE *out, const af_index_options *o,
                              const af_index_entry *rows, size_t n, af_error *err)
{
	size_t i, skipped = 0;
	int c;

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>", out);
	af_html(out, o->title ? o->title : "Flame graphs");
	fputs("</title>\n<style>\n"
	      ":root{--bg:#f6f6f2;--fg:#1d1d1f;--muted:#6b6b70;--card:#fff;--line:#e2e2dc;"
	      "--accent:#d8542b}\n", out);
	/* --theme dark: dark whatever the viewer prefers, as its graphs are */
	fputs(o->dark ? ":root{--bg:#17181b;--fg:#e8e8ea;--muted:#9a9aa2;--card:#222328;"
	                "--line:#34353b}\n"
	              : "@media (prefers-color-scheme:dark){:root{--bg:#17181b;--fg:#e8e8ea;"
	                "--muted:#9a9aa2;--card:#222328;--line:#34353b}}\n", out);
	fputs(
	      "body{margin:0;padding:24px 32px;background:var(--bg);color:var(--fg);"
	      "font:14px/1.45 \"DejaVu Sans\",Verdana,sans-serif}\n"
	      "h1{font-size:22px;margin:0 0 4px}p.sub{color:var(--muted);margin:0 0 20px}\n"
	      ".grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:16px}\n"
	      ".card{background:var(--card);border:1px solid var(--line);border-radius:8px;"
	      "overflow:hidden;display:flex;flex-direction:column}\n"
	      ".card.all{grid-column:1/-1}\n"
	      /* thumbnails at their own size (never stretched), on the card */
	      ".thumb{display:block;line-height:0;padding:8px 8px 0}"
	      ".thumb img{display:block;max-width:100%;height:auto;border-radius:4px}\n"
	      ".nothumb{display:block;padding:40px;text-align:center;line-height:1.2}\n"
	      ".meta{padding:10px 14px 12px}h2{font-size:15px;margin:0 0 6px;"
	      "overflow-wrap:anywhere}h2 a{color:inherit;text-decoration:none}"
	      "h2 a:hover{text-decoration:underline}\n"
	      ".tid{color:var(--muted);font-weight:normal;font-size:12px}\n"
	      ".bar{height:4px;background:var(--line);border-radius:2px;margin:0 0 8px}"
	      ".bar span{display:block;height:100%;background:var(--accent);border-radius:2px}\n"
	      "dl{display:grid;grid-template-columns:auto minmax(0,1fr);gap:2px 12px;margin:0;"
	      "font-size:12.5px}"
	      "dt{color:var(--muted)}dd{margin:0;overflow-wrap:break-word}"
	      "dd.hot{font-family:\"DejaVu Sans Mono\",monospace;font-size:11.5px}\n"
	      "table{border-collapse:collapse;margin-top:8px;font-size:13px}"
	      "th,td{text-align:left;padding:4px 12px 4px 0;border-bottom:1px solid var(--line)}\n"
	      "h3{margin:28px 0 4px;font-size:16px}\n"
	      "</style>\n</head>\n<body>\n<h1>", out);
	af_html(out, o->title ? o->title : "Flame graphs");
	fputs("</h1>\n", out);
	if (o->subtitle) {
		fputs("<p class=\"sub\">", out);
		af_html(out, o->subtitle);
		fputs("</p>\n", out);
	}
	fputs("<main class=\"grid\">\n", out);
	if (o->all)
		af_card(out, o, o->all, 1);
	for (i = 0; i < n; i++) {
		if (rows[i].graph)
			af_card(out, o, &rows[i], 0);
		else
			skipped++;
	}
	fputs("</main>\n", out);
	if (skipped) {
		af_skipped_heading(out, o, rows, n, skipped);
		fputs("<table><tr><th>thread</th><th>tid</th><th>share</th>", out);
		for (c = 0; c < AF_CLOCK_COUNT; c++)
			if (o->has_clock[c])
				fprintf(out, "<th>%s</th>", af_clock_label(c));
		fputs("<th>records</th><th>calls</th></tr>\n", out);
		for (i = 0; i < n; i++) {
			const af_index_entry *e = &rows[i];
			if (e->graph)
				continue;
			fputs("<tr class=\"skipped\"><td>", out);
			af_html(out, e->name);
			fprintf(out, "</td><td>%u</td><td>%.2f%%</td>", e->tid, e->share);
			for (c = 0; c < AF_CLOCK_COUNT; c++) {
				if (!o->has_clock[c])
					continue;
				fputs("<td>", out);
				af_time_cell(out, e->time[c]);
				fputs("</td>", out);
			}
			fputs("<td>", out);
			af_count(out, e->records);
			fputs("</td><td>", out);
			af_count(out, e->calls);
			fputs("</td></tr>\n", out);
		}
		fputs("</table>\n", out);
	}
	fputs("</body>\n</html>\n", out);
	if (fflush(out) || ferror(out))
		return af_fail(err, AF_ERR_IO, -1, "write failed");
	return AF_OK;
}
