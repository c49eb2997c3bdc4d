/*
 * pages.c - the HTML the server writes itself: the upload page, error
 * pages, the bar above a set's index page, the method table, the
 * catalogue.  Every piece of text from an upload or a URL is escaped; the
 * pages carry no inline script (their scripts are files, so that the
 * Content-Security-Policy can forbid inline script).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve.h"

void sb_add(sbuf *b, const char *s, size_t n)
{
	if (b->failed)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		char *t;
		while (cap < b->len + n + 1)
			cap *= 2;
		if (!(t = realloc(b->s, cap))) {
			b->failed = 1;
			return;
		}
		b->s = t;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sb_puts(sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void sb_printf(sbuf *b, const char *fmt, ...)
{
	char small[512];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n < sizeof small) {
		sb_add(b, small, (size_t)n);
	} else {
		char *big = malloc((size_t)n + 1);
		if (!big) {
			b->failed = 1;
			return;
		}
		va_start(ap, fmt);
		vsnprintf(big, (size_t)n + 1, fmt, ap);
		va_end(ap);
		sb_add(b, big, (size_t)n);
		free(big);
	}
}

void sb_html(sbuf *b, const char *s)
{
	const char *run = s;

	for (; *s; s++) {
		const char *rep = NULL;
		switch (*s) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default: break;
		}
		if (rep) {
			sb_add(b, run, (size_t)(s - run));
			sb_puts(b, rep);
			run = s + 1;
		}
	}
	sb_add(b, run, (size_t)(s - run));
}

/* The length of the valid UTF-8 sequence at `s`, or 0. */
static size_t utf8_len(const unsigned char *s)
{
	size_t n, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2, cp = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		n = 3, cp = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
		return 0;
	return n;
}

void sb_json(sbuf *b, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;

	sb_add(b, "\"", 1);
	while (*s) {
		size_t n = utf8_len(s);
		if (n == 0) {
			sb_puts(b, "\\ufffd");
			s++;
		} else if (*s == '"' || *s == '\\') {
			sb_add(b, "\\", 1);
			sb_add(b, (const char *)s++, 1);
		} else if (*s < 0x20 || *s == 0x7F) {
			sb_printf(b, "\\u%04x", *s++);
		} else if (*s == '<' || *s == '>' || *s == '&') {
			/* never markup, wherever the JSON ends up */
			sb_printf(b, "\\u%04x", *s++);
		} else {
			sb_add(b, (const char *)s, n);
			s += n;
		}
	}
	sb_add(b, "\"", 1);
}

static const char style[] =
	"<style>\n"
	":root{--bg:#f6f6f2;--fg:#1d1d1f;--muted:#6b6b70;--card:#fff;--line:#e2e2dc;"
	"--accent:#d8542b}\n"
	"@media (prefers-color-scheme:dark){:root{--bg:#17181b;--fg:#e8e8ea;--muted:#9a9aa2;"
	"--card:#222328;--line:#34353b}}\n"
	"body{margin:0;padding:24px 32px;background:var(--bg);color:var(--fg);"
	"font:14px/1.45 \"DejaVu Sans\",Verdana,sans-serif;max-width:960px}\n"
	"a{color:var(--accent)}h1{font-size:22px;margin:0 0 8px}h2{font-size:16px;margin:24px 0 6px}\n"
	".drop{border:2px dashed var(--line);border-radius:10px;padding:36px;text-align:center;"
	"background:var(--card)}.drop.over{border-color:var(--accent)}\n"
	"progress{width:100%;height:14px;margin-top:12px}\n"
	".muted{color:var(--muted)}pre{background:var(--card);border:1px solid var(--line);"
	"padding:10px;overflow:auto;white-space:pre-wrap}\n"
	".err{border-left:4px solid var(--accent);padding:8px 12px;background:var(--card)}\n"
	"table{border-collapse:collapse;font-size:13px}th,td{text-align:left;"
	"padding:3px 10px 3px 0;border-bottom:1px solid var(--line)}"
	"th{cursor:pointer}td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
	"</style>\n";

static void head(sbuf *b, const char *title)
{
	sb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	           "<title>");
	sb_html(b, title);
	sb_puts(b, "</title>\n");
	sb_puts(b, style);
}

void page_home(sbuf *b, const serve_config *cfg, const char *sample_hash)
{
	char limit[64];
	double mib = (double)cfg->max_upload / (1024.0 * 1024.0);

	if (cfg->max_upload % (1024ULL * 1024 * 1024) == 0)
		snprintf(limit, sizeof limit, "%llu GiB",
		         (unsigned long long)(cfg->max_upload >> 30));
	else if (cfg->max_upload % (1024 * 1024) == 0)
		snprintf(limit, sizeof limit, "%.0f MiB", mib);
	else
		snprintf(limit, sizeof limit, "%llu bytes", (unsigned long long)cfg->max_upload);
	head(b, "aflame-render: flame graphs of Android method traces");
	sb_puts(b, "<script src=\"/static/upload.js\" defer></script>\n</head>\n<body>\n"
	           "<h1>Flame graphs of Android method traces</h1>\n"
	           "<p>Upload a method trace (<code>.trace</code>, ART streaming or Dalvik, "
	           "gzip'd or not) or folded stacks: you get a page with a flame graph per "
	           "thread at a link you can share.</p>\n"
	           "<form id=\"upload\" class=\"drop\" method=\"post\" action=\"/upload\" "
	           "enctype=\"multipart/form-data\">\n"
	           "<p><label>Trace file (or a <code>.key</code> and its <code>.data</code>): "
	           "<input type=\"file\" name=\"trace\" id=\"file\" multiple required></label></p>\n");
	if (cfg->token)
		sb_puts(b, "<p><label>Upload token: <input type=\"password\" name=\"token\" "
		           "id=\"token\" autocomplete=\"off\"></label></p>\n");
	sb_puts(b, "<p class=\"muted\">or drop it here &mdash; at most ");
	sb_html(b, limit);
	sb_printf(b, " (%llu bytes)</p>\n", (unsigned long long)cfg->max_upload);
	sb_puts(b, "<p><button type=\"submit\">Upload</button></p>\n"
	           "<progress id=\"progress\" max=\"100\" value=\"0\" hidden></progress>\n"
	           "<p id=\"status\" class=\"muted\" role=\"status\"></p>\n</form>\n");
	if (sample_hash)
		sb_printf(b, "<p>Not sure what you get? See <a id=\"sample\" href=\"/trace/%s/\">"
		          "the bundled sample's page</a> (<code>samples/app.trace</code>).</p>\n",
		          sample_hash);
	if (cfg->list)
		sb_puts(b, "<p><a href=\"/list\">Every upload</a></p>\n");
	sb_puts(b, "<h2>How to record a trace</h2>\n<ul>\n"
	           "<li>In the app: <code>Debug.startMethodTracing(\"app\")</code> ... "
	           "<code>Debug.stopMethodTracing()</code>, then "
	           "<code>adb pull /sdcard/Android/data/&lt;package&gt;/files/app.trace</code>.</li>\n"
	           "<li>Android Studio: Profiler &rarr; CPU &rarr; <em>Trace Java Methods</em>, "
	           "record, stop, then <em>Export trace</em>.</li>\n"
	           "<li>From a shell: <code>adb shell am profile start &lt;process&gt; "
	           "/data/local/tmp/app.trace</code>, <code>adb shell am profile stop "
	           "&lt;process&gt;</code>, <code>adb pull /data/local/tmp/app.trace</code>.</li>\n"
	           "</ul>\n<h2>From a script</h2>\n"
	           "<pre>curl -H 'Accept: application/json' --data-binary @app.trace "
	           "http://HOST/upload\ncurl -F trace=@app.trace http://HOST/upload</pre>\n"
	           "</body>\n</html>\n");
}

void page_error(sbuf *b, int status, const char *title, const char *message)
{
	char t[128];

	snprintf(t, sizeof t, "%d %s", status, title);
	head(b, t);
	sb_puts(b, "</head>\n<body>\n<h1>");
	sb_html(b, t);
	sb_puts(b, "</h1>\n<pre class=\"err\" id=\"message\">");
	sb_html(b, message);
	sb_puts(b, "</pre>\n<p><a href=\"/\">Upload another file</a></p>\n</body>\n</html>\n");
}

/* One field of the view form. */
static void field(sbuf *b, const char *label, const char *name, const char *value)
{
	sb_printf(b, "<label>%s <input name=\"%s\" size=\"14\" value=\"", label, name);
	sb_html(b, value ? value : "");
	sb_puts(b, "\"></label>\n");
}

void page_trace_bar(sbuf *b, const upload_row *row, const char *view_query,
                    const char *warnings)
{
	sb_puts(b, "<nav class=\"aflame-serve\" style=\"margin:0 0 16px;padding:10px 14px;"
	           "border:1px solid var(--line);border-radius:8px;background:var(--card)\">\n"
	           "<p style=\"margin:0 0 6px\"><strong>");
	sb_html(b, row->name);
	sb_printf(b, "</strong> &middot; %llu bytes &middot; ", (unsigned long long)row->size);
	sb_html(b, row->variant);
	sb_printf(b, " &middot; <a href=\"/trace/%s/original\" download>original file</a> ",
	          row->hash);
	if (strcmp(row->variant, "key+data") == 0)
		sb_printf(b, "(key) &middot; <a href=\"/trace/%s/original.data\" download>data file</a> ",
		          row->hash);
	sb_printf(b, "&middot; <a href=\"/trace/%s/report.tsv\">report.tsv</a> "
	          "&middot; <a href=\"/trace/%s/report\">method table</a> "
	          "&middot; <a href=\"/trace/%s/methods.html\">callers and callees</a> "
	          "&middot; <a href=\"/trace/%s/all.folded\">folded</a>",
	          row->hash, row->hash, row->hash, row->hash);
	if (view_query)
		sb_printf(b, " &middot; <a href=\"/trace/%s/\">default view</a>", row->hash);
	sb_puts(b, " &middot; <a href=\"/\">upload</a></p>\n");
	sb_printf(b, "<form method=\"get\" action=\"/trace/%s/\" style=\"margin:0\">\n"
	          "<label>clock <select name=\"clock\"><option value=\"\">default</option>"
	          "<option>wall</option><option>cpu</option><option>wait</option></select>"
	          "</label>\n", row->hash);
	field(b, "thread", "thread", NULL);
	field(b, "focus", "focus", NULL);
	field(b, "exclude", "exclude", NULL);
	field(b, "min-share %", "min-share", NULL);
	sb_puts(b, "<label><input type=\"checkbox\" name=\"collapse-recursion\" value=\"1\">"
	           " collapse recursion</label>\n"
	           "<label><input type=\"checkbox\" name=\"strip-package\" value=\"1\">"
	           " strip package</label>\n"
	           "<label><input type=\"checkbox\" name=\"inverted\" value=\"1\"> inverted</label>\n"
	           "<label><input type=\"checkbox\" name=\"flamechart\" value=\"1\"> flame chart"
	           "</label>\n"
	           "<label><input type=\"checkbox\" name=\"theme\" value=\"dark\"> dark</label>\n"
	           "<button type=\"submit\">Draw</button>\n</form>\n");
	sb_printf(b, "<form method=\"post\" action=\"/trace/%s/mapping\" "
	          "enctype=\"multipart/form-data\" style=\"margin:6px 0 0\">\n"
	          "<label>Deobfuscate with a ProGuard/R8 mapping.txt: <input type=\"file\" "
	          "name=\"mapping\" required></label>\n<button type=\"submit\">Upload mapping</button>"
	          "\n</form>\n", row->hash);
	if (view_query) {
		sb_puts(b, "<p style=\"margin:6px 0 0\">View: <code>");
		sb_html(b, view_query);
		sb_puts(b, "</code></p>\n");
	}
	if (warnings && *warnings) {
		sb_puts(b, "<pre class=\"warnings\" style=\"margin:6px 0 0;white-space:pre-wrap\">");
		sb_html(b, warnings);
		sb_puts(b, "</pre>\n");
	}
	sb_puts(b, "</nav>\n");
}

void page_report(sbuf *b, const upload_row *row, const char *tsv)
{
	const char *p = tsv;
	int first = 1;

	head(b, "Method table");
	sb_puts(b, "<script src=\"/static/sort.js\" defer></script>\n</head>\n<body>\n<h1>");
	sb_puts(b, "Method table: ");
	sb_html(b, row->name);
	sb_printf(b, "</h1>\n<p><a href=\"/trace/%s/\">graphs</a> &middot; "
	          "<a href=\"/trace/%s/report.tsv\">report.tsv</a> &middot; click a "
	          "heading to sort</p>\n<table id=\"report\">\n", row->hash, row->hash);
	while (*p) {
		const char *end = strchr(p, '\n');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		const char *c = p, *lim = p + n;
		if (n == 0 || *p == '#') {
			p += n + (end != NULL);
			continue;
		}
		sb_puts(b, first ? "<thead><tr>" : "<tr>");
		while (c <= lim) {
			const char *tab = memchr(c, '\t', (size_t)(lim - c));
			size_t k = tab ? (size_t)(tab - c) : (size_t)(lim - c);
			char cell[4096];
			int num = k > 0 && k < 40;
			size_t i;
			snprintf(cell, sizeof cell, "%.*s", (int)(k < sizeof cell ? k : sizeof cell - 1), c);
			for (i = 0; cell[i] && num; i++)
				if (!((cell[i] >= '0' && cell[i] <= '9') || cell[i] == '.' || cell[i] == '-' ||
				      cell[i] == '%'))
					num = 0;
			sb_puts(b, first ? "<th>" : num ? "<td class=\"n\">" : "<td>");
			sb_html(b, cell);
			sb_puts(b, first ? "</th>" : "</td>");
			if (!tab)
				break;
			c = tab + 1;
		}
		sb_puts(b, first ? "</tr></thead>\n<tbody>\n" : "</tr>\n");
		first = 0;
		p += n + (end != NULL);
	}
	sb_puts(b, "</tbody>\n</table>\n</body>\n</html>\n");
}

void page_list(sbuf *b, const char *rows_html)
{
	head(b, "Uploads");
	sb_puts(b, "<script src=\"/static/sort.js\" defer></script>\n</head>\n<body>\n"
	           "<h1>Uploads</h1>\n<table id=\"report\">\n<thead><tr><th>name</th><th>bytes</th>"
	           "<th>time</th><th>variant</th><th>threads</th><th>status</th></tr></thead>\n"
	           "<tbody>\n");
	sb_puts(b, rows_html);
	sb_puts(b, "</tbody>\n</table>\n</body>\n</html>\n");
}

/* Uploads the chosen or dropped file with a progress bar; the server
 * answers a script with JSON, so the page can go to the trace's URL or
 * show the command's message. */
const char serve_upload_js[] =
	"\"use strict\";\n"
	"(function () {\n"
	"  var form = document.getElementById('upload');\n"
	"  var input = document.getElementById('file');\n"
	"  var bar = document.getElementById('progress');\n"
	"  var status = document.getElementById('status');\n"
	"  var token = document.getElementById('token');\n"
	"  function send(files) {\n"
	"    var file = files[0], body = file, xhr = new XMLHttpRequest();\n"
	"    if (files.length > 1) {\n"
	"      /* a key and its data: two files of one form */\n"
	"      body = new FormData();\n"
	"      Array.prototype.forEach.call(files, function (f) { body.append('trace', f, f.name); });\n"
	"      xhr.open('POST', '/upload');\n"
	"    } else {\n"
	"      xhr.open('POST', '/upload?name=' + encodeURIComponent(file.name));\n"
	"      xhr.setRequestHeader('Content-Type', 'application/octet-stream');\n"
	"    }\n"
	"    xhr.setRequestHeader('Accept', 'application/json');\n"
	"    if (token && token.value) xhr.setRequestHeader('Authorization', 'Bearer ' + token.value);\n"
	"    bar.hidden = false; bar.value = 0;\n"
	"    status.textContent = 'Uploading ' + file.name + '\\u2026';\n"
	"    xhr.upload.onprogress = function (e) {\n"
	"      if (e.lengthComputable) bar.value = 100 * e.loaded / e.total;\n"
	"    };\n"
	"    xhr.upload.onload = function () { bar.value = 100; status.textContent = 'Drawing\\u2026'; };\n"
	"    xhr.onload = function () {\n"
	"      var r = null;\n"
	"      try { r = JSON.parse(xhr.responseText); } catch (e) { r = null; }\n"
	"      if (xhr.status === 200 && r && r.url) { window.location.href = r.url; return; }\n"
	"      status.textContent = (r && r.error) ? r.error : ('upload failed: HTTP ' + xhr.status);\n"
	"    };\n"
	"    xhr.onerror = function () { status.textContent = 'upload failed: the connection was lost'; };\n"
	"    xhr.send(body);\n"
	"  }\n"
	"  form.addEventListener('submit', function (e) {\n"
	"    e.preventDefault();\n"
	"    if (input.files.length) send(input.files);\n"
	"  });\n"
	"  input.addEventListener('change', function () { if (input.files.length) send(input.files); });\n"
	"  ['dragenter', 'dragover'].forEach(function (t) {\n"
	"    form.addEventListener(t, function (e) { e.preventDefault(); form.classList.add('over'); });\n"
	"  });\n"
	"  form.addEventListener('dragleave', function () { form.classList.remove('over'); });\n"
	"  form.addEventListener('drop', function (e) {\n"
	"    e.preventDefault(); form.classList.remove('over');\n"
	"    if (e.dataTransfer.files.length) send(e.dataTransfer.files);\n"
	"  });\n"
	"})();\n";

/* Sorts the table by the heading clicked: numbers as numbers, again to
 * reverse. */
const char serve_sort_js[] =
	"\"use strict\";\n"
	"(function () {\n"
	"  var t = document.getElementById('report');\n"
	"  if (!t || !t.tHead) return;\n"
	"  var ths = t.tHead.rows[0].cells;\n"
	"  Array.prototype.forEach.call(ths, function (th, i) {\n"
	"    th.addEventListener('click', function () {\n"
	"      var body = t.tBodies[0], rows = Array.prototype.slice.call(body.rows);\n"
	"      var dir = th.dataset.dir === 'asc' ? -1 : 1;\n"
	"      Array.prototype.forEach.call(ths, function (h) { delete h.dataset.dir; });\n"
	"      th.dataset.dir = dir === 1 ? 'asc' : 'desc';\n"
	"      rows.sort(function (a, b) {\n"
	"        var x = a.cells[i] ? a.cells[i].textContent : '', y = b.cells[i] ? b.cells[i].textContent : '';\n"
	"        var nx = parseFloat(x), ny = parseFloat(y);\n"
	"        if (!isNaN(nx) && !isNaN(ny) && String(nx) !== 'NaN') return dir * (nx - ny);\n"
	"        return dir * x.localeCompare(y);\n"
	"      });\n"
	"      rows.forEach(function (r) { body.appendChild(r); });\n"
	"    });\n"
	"  });\n"
	"})();\n";
