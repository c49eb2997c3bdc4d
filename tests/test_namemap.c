/*
 * test_namemap.c - the small files read beside an input: --nameattr's
 * name-attribute file (flamegraph.pl's semantics, nothing that runs
 * script, never invalid XML) and --cp's palette.map (damaged lines warned
 * about), both bounded like every input (NUL bytes, /dev/zero).
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

#define FLAMEGRAPH_PL AF_TEST_SOURCE "/../shared/flamegraph/flamegraph.pl"

static int exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

/* The map read from `text`; fails the test unless it parses. */
static af_namemap *parse(const char *text, af_namemap_kind kind)
{
	af_namemap *m = NULL;
	af_error e = {0};
	af_status st = af_namemap_parse(text, strlen(text), kind, NULL, &m, &e);
	cr_assert_eq(st, AF_OK, "%s (byte %lld)", e.message, e.offset);
	return m;
}

/* What one name-attribute line keeps for its name "f". */
static char *kept(const char *attrs, char **warning)
{
	char *line = malloc(strlen(attrs) + 4), *got;
	af_namemap *m;
	const char *v, *w;

	sprintf(line, "f\t%s\n", attrs);
	m = parse(line, AF_NAMEMAP_ATTRS);
	v = af_namemap_get(m, "f");
	cr_assert_not_null(v, "%s", attrs);
	got = strdup(v);
	w = af_namemap_warning(m);
	if (warning)
		*warning = w ? strdup(w) : NULL;
	af_namemap_free(m);
	free(line);
	return got;
}

static void expect_kept(const char *attrs, const char *want)
{
	char *got = kept(attrs, NULL);
	cr_expect_str_eq(got, want, "%s", attrs);
	free(got);
}

/* ------------------------------------------------------------------ */
/* The name-attribute reader                                           */

Test(namemap, nameattr_keys_follow_flamegraph_pl)
{
	char *w = NULL, *got;

	/* title, class, a link with flamegraph.pl's default target */
	expect_kept("class=hot\ttitle=T\thref=https://x/?a=1&b=2",
	            "title=T\thref=https://x/?a=1&b=2\ttarget=_top\tclass=hot");
	expect_kept("target=_blank\thref=#frag", "href=#frag\ttarget=_blank");
	expect_kept("xlink:href=../rel/path", "href=../rel/path\ttarget=_top");
	/* g_extra is raw attribute text: parsed, references decoded */
	expect_kept("g_extra=style=\"fill:red\" data-x='a&amp;b&#x41;'",
	            "style=fill:red\tdata-x=a&bA");
	/* a_extra counts with a link only, and goes on the link */
	expect_kept("a_extra=rel=\"noopener\"", "");
	expect_kept("a_extra=rel=\"noopener\"\thref=http://h",
	            "href=http://h\ttarget=_top\ta:rel=noopener");
	/* no link: no target; an empty title or href is none */
	expect_kept("target=_blank\tclass=c", "class=c");
	expect_kept("title=\thref=\tclass=c", "class=c");
	/* a value in double quotes loses them */
	expect_kept("data-k=\"<v>\"", "data-k=<v>");

	/* repeated: the last one counts, names compared in any case */
	got = kept("class=a\tstyle=s\tCLASS=b\thref=https://a\txlink:href=/b", &w);
	cr_expect_str_eq(got, "href=/b\ttarget=_top\tstyle=s\tCLASS=b");
	cr_expect_str_eq(w, "attributes given twice (the last one kept): href (line 1), "
	                    "class (line 1)");
	free(got);
	free(w);
}

Test(namemap, nameattr_drops_what_could_run_script)
{
	static const char *const dropped[] = {
		"onclick=alert(1)", "ONMOUSEOVER=alert(1)", "OnLoad=x", "onfocusin=x",
		"href=javascript:alert(1)", "href=JavaScript:alert(1)",
		"href= javascript:alert(1)", "href=\x01javascript:alert(1)",
		"href=java\x0bscript:alert(1)", "href=java&#9;script:alert(1)",
		"href=java&Tab;script:alert(1)", "href=&#106;avascript:alert(1)",
		"href=&#x6A;avascript:alert(1)", "href=&#0000106avascript:alert(1)",
		"href=javascript&colon;alert(1)", "href=data:text/html,<script>x</script>",
		"href=DATA:image/svg+xml,x", "href=vbscript:msgbox(1)",
		"xlink:href=javascript:alert(1)", "href=mailto:x@y", "href=file:///etc/passwd",
		"href=java script:x", "style=background:url(javascript:alert(1))",
		"style=x:expression(alert(1))", "fill=url(java&#10;script:x)",
		"class=x data:y", "foo:bar=1", "xml:base=javascript:/", "xmlns=http://x",
		"xmlns:x=http://x", "id=details", "1abc=x", "-x=1", "a b=1", "=v",
		"just-text",
	};
	size_t i;

	for (i = 0; i < sizeof dropped / sizeof dropped[0]; i++) {
		char *w = NULL, *got = kept(dropped[i], &w);
		cr_expect_str_eq(got, "", "%s kept as %s", dropped[i], got);
		cr_expect_not_null(w, "%s: no warning", dropped[i]);
		if (w)
			cr_expect(strncmp(w, "left out what could run script or break the SVG: ",
			                  49) == 0, "%s: %s", dropped[i], w);
		free(got);
		free(w);
	}
	/* inside g_extra and a_extra alike */
	expect_kept("g_extra=onmouseover=\"alert(2)\" style=\"fill:red\" onclick='x'",
	            "style=fill:red");
	expect_kept("href=/ok\ta_extra=onclick=\"x\" rel=\"n\"",
	            "href=/ok\ttarget=_top\ta:rel=n");
	expect_kept("g_extra=href=\"javascript:x\" class=\"k\"", "class=k");
	/* not "data:" */
	expect_kept("class=metadata:x", "class=metadata:x");
}

/* One warning for the whole file, naming each item and its line; no byte
 * of the file reaches the terminal raw. */
Test(namemap, nameattr_one_warning_names_what_was_left_out)
{
	const char *text = "a\tclass=x\n"
	                   "b\tonclick=alert(1)\thref=javascript:alert(4)\n"
	                   "\n"
	                   "c\tfoo:bar=1\t\x1b]0;PWNED\x07=1\n";
	af_namemap *m = parse(text, AF_NAMEMAP_ATTRS);

	cr_assert_str_eq(af_namemap_warning(m),
	                 "left out what could run script or break the SVG: onclick (line 2), "
	                 "href=javascript:alert(4) (line 2), foo:bar (line 4), "
	                 "\\x1B]0;PWNED\\x07 (line 4)");
	cr_assert_str_eq(af_namemap_get(m, "a"), "class=x");
	cr_assert_str_eq(af_namemap_get(m, "b"), "");
	af_namemap_free(m);

	/* many: the first eight, then a count */
	{
		char big[4096] = "f";
		int k;
		for (k = 0; k < 12; k++)
			sprintf(big + strlen(big), "\ton%d=x", k);
		strcat(big, "\n");
		m = parse(big, AF_NAMEMAP_ATTRS);
		cr_assert_str_eq(af_namemap_warning(m),
		                 "left out what could run script or break the SVG: "
		                 "on0 (line 1), on1 (line 1), on2 (line 1), on3 (line 1), "
		                 "on4 (line 1), on5 (line 1), on6 (line 1), on7 (line 1) "
		                 "and 4 more");
		af_namemap_free(m);
	}
	m = parse("f\tclass=a\n", AF_NAMEMAP_ATTRS);
	cr_assert_null(af_namemap_warning(m));
	/* af_namemap_set() cleans as the reader does */
	cr_assert_eq(af_namemap_set(m, "g", "onclick=x\tclass=b"), AF_OK);
	cr_assert_str_eq(af_namemap_get(m, "g"), "class=b");
	cr_assert_str_eq(af_namemap_warning(m),
	                 "left out what could run script or break the SVG: onclick");
	af_namemap_free(m);
}

/* A line of 200,000 attributes, all repeats: sorted, not compared in
 * pairs (that would take minutes). */
Test(namemap, nameattr_many_attributes_in_one_line)
{
	size_t n = 200000, i;
	char *text = malloc(n * 12 + 16), *p = text;
	af_namemap *m;

	p += sprintf(p, "f");
	for (i = 0; i < n; i++)
		p += sprintf(p, "\tclass=%zu", i % 1000);
	strcpy(p, "\n");
	m = parse(text, AF_NAMEMAP_ATTRS);
	cr_assert_str_eq(af_namemap_get(m, "f"), "class=999");
	cr_assert(strstr(af_namemap_warning(m), "and 199991 more"), "%s",
	          af_namemap_warning(m));
	af_namemap_free(m);
	free(text);
}

/* ------------------------------------------------------------------ */
/* The SVG: valid, and nothing in it runs                              */

/* The first bytes of an attribute's value as a browser takes a URL:
 * leading spaces and controls skipped, tabs and newlines gone, any case. */
static void url_head(const char *v, char *out, size_t cap)
{
	size_t o = 0;

	while (*v && (unsigned char)*v <= 0x20)
		v++;
	for (; *v && o + 1 < cap; v++)
		if (*v != '\t' && *v != '\n' && *v != '\r')
			out[o++] = (char)((*v >= 'A' && *v <= 'Z') ? *v + 32 : *v);
	out[o] = '\0';
}

typedef struct scan {
	int on, script_link, prefixed, links, titles, classes;
} scan;

static void scan_node(xmlNodePtr n, scan *s)
{
	for (; n; n = n->next) {
		xmlAttrPtr a;
		if (n->type != XML_ELEMENT_NODE)
			continue;
		for (a = n->properties; a; a = a->next) {
			const char *name = (const char *)a->name;
			xmlChar *v = xmlNodeListGetString(n->doc, a->children, 1);
			char head[16];
			if ((name[0] | 32) == 'o' && (name[1] | 32) == 'n')
				s->on++;
			if (a->ns && strcmp(name, "href") != 0)
				s->prefixed++;
			if (strcmp(name, "href") == 0) {
				url_head(v ? (const char *)v : "", head, sizeof head);
				if (!strncmp(head, "javascript:", 11) || !strncmp(head, "data:", 5) ||
				    !strncmp(head, "vbscript:", 9))
					s->script_link++;
				s->links++;
			}
			if (strcmp(name, "class") == 0 && n->parent &&
			    n->parent->name && strcmp((const char *)n->name, "g") == 0)
				s->classes++;
			xmlFree(v);
		}
		if (strcmp((const char *)n->name, "title") == 0)
			s->titles++;
		scan_node(n->children, s);
	}
}

/* Parses the SVG (failing the test unless it is well-formed XML) and
 * counts what matters in it. */
static scan scan_svg(const char *svg, size_t len)
{
	scan s = {0};
	char *why = NULL;
	xmlDocPtr doc;

	cr_assert(t_xml_ok(svg, len, &why), "%s", why);
	doc = xmlReadMemory(svg, (int)len, "out.svg", NULL, XML_PARSE_NONET | XML_PARSE_HUGE);
	cr_assert_not_null(doc);
	scan_node(xmlDocGetRootElement(doc), &s);
	xmlFreeDoc(doc);
	return s;
}

/* Every hostile attribute of the reader's test on one frame each, with
 * the repeats and prefixed names of issue 20: through the CLI, both SVGs
 * parse as XML and hold no event handler and no script link; what
 * describes is kept. */
Test(namemap, nameattr_svg_is_valid_and_runs_nothing)
{
	static const char *const lines[] = {
		"f0\tonclick=alert(1)\tclass=k0",
		"f1\thref=javascript:alert(4)\ttitle=T1",
		"f2\thref=&#106;avascript:alert(1)",
		"f3\thref= JaVaScRiPt:alert(1)",
		"f4\tg_extra=onmouseover=\"alert(2)\" style=\"fill:red\"",
		"f5\tfoo:bar=1\tclass=a\tclass=b\tclass=c",
		"f6\thref=https://a.example/\txlink:href=https://b.example/\ttarget=_self",
		"f7\txlink:href=data:text/html,<script>alert(1)</script>",
		"f8\ta_extra=onclick=\"alert(1)\"\thref=/rel",
		"f9\tONLOAD=alert(1)\txmlns=http://www.w3.org/1999/xhtml",
		"f10\thref=#frag\ttitle=<b>&amp;\"'",
		"f11\tstyle=background:url(javascript:alert(1))\tclass=k11",
	};
	char *in = t_tmp("na-hostile.folded"), *attrs = t_tmp("na-hostile.txt");
	char args[2048], *out = NULL, *err = NULL, text[2048] = "", folded[512] = "";
	size_t i;
	int pass;

	for (i = 0; i < sizeof lines / sizeof lines[0]; i++) {
		sprintf(text + strlen(text), "%s\n", lines[i]);
		sprintf(folded + strlen(folded), "root;f%zu 1\n", i);
	}
	t_write(attrs, text, strlen(text));
	t_write(in, folded, strlen(folded));
	for (pass = 0; pass < 2; pass++) {
		scan s;
		snprintf(args, sizeof args, "%s--nameattr '%s' '%s'",
		         pass ? "--no-javascript " : "", attrs, in);
		cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
		s = scan_svg(out, strlen(out));
		cr_expect_eq(s.on, 0, "an event handler survived: %s", out);
		cr_expect_eq(s.script_link, 0, "a script link survived: %s", out);
		cr_expect_eq(s.prefixed, 0, "a prefixed attribute survived: %s", out);
		cr_expect_eq(s.links, 3, "%s", out); /* f6, f8, f10 */
		cr_expect_eq(s.classes, 3, "%s", out); /* k0, c, k11 */
		cr_expect(strstr(out, "<a href=\"https://b.example/\" target=\"_self\"><g>"),
		          "%s", out);
		cr_expect(strstr(out, "<a href=\"/rel\" target=\"_top\"><g>"), "%s", out);
		cr_expect(strstr(out, "<g class=\"c\">"), "%s", out);
		cr_expect(strstr(out, "<g style=\"fill:red\">"), "%s", out);
		cr_expect(strstr(out, "<title>T1</title>"), "%s", out);
		cr_expect(strstr(out, "<title>&lt;b&gt;&amp;amp;&quot;&apos;</title>"), "%s", out);
		/* one warning, on one line */
		cr_expect_eq(strchr(err, '\n'), err + strlen(err) - 1, "%s", err);
		cr_expect(strstr(err, "aflame-render: "), "%s", err);
		cr_expect(strstr(err, ": warning: left out what could run script or break the "
		                      "SVG: onclick (line 1), href=javascript:alert(4) (line 2), "),
		          "%s", err);
		free(out);
		free(err);
	}
	free(in);
	free(attrs);
}

/* title replaces the tooltip in the interactive SVG too: written, and
 * marked for flame.js, which shows it as it is. */
Test(namemap, nameattr_title_replaces_the_tooltip)
{
	char *in = t_tmp("na-title.folded"), *attrs = t_tmp("na-title.txt"), args[1024];
	char *out = NULL, *err = NULL;
	const char *a = "b\ttitle=Custom tip\n";

	t_write(in, "a;b 3\nc 2\n", 10);
	t_write(attrs, a, strlen(a));
	snprintf(args, sizeof args, "--nameattr '%s' '%s'", attrs, in);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert_str_eq(err, "");
	cr_assert(strstr(out, "<g><title>Custom tip</title><rect "), "%s", out);
	cr_assert_eq(scan_svg(out, strlen(out)).titles, 1);
	free(out);
	free(err);
	snprintf(args, sizeof args, "--no-javascript --nameattr '%s' '%s'", attrs, in);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert(strstr(out, "<g><title>Custom tip</title><rect "), "%s", out);
	cr_assert(strstr(out, "<title>c (2 samples, 40.00%)</title>"), "%s", out);
	free(out);
	free(err);
	free(in);
	free(attrs);
}

/* What each frame of an SVG says through --nameattr's keys, by place:
 * "x,y: title|href|target|class|style" lines, sorted.  flamegraph.pl writes
 * the link and its attributes on one <a>; aflame-render an <a> around a
 * <g>: the same facts either way. */
static char *facts(const char *svg)
{
	xmlDocPtr doc = xmlReadMemory(svg, (int)strlen(svg), "x.svg", NULL, XML_PARSE_NONET);
	xmlNodePtr n, frames = NULL;
	char *lines[64], *all = calloc(1, 64 * 256);
	size_t k = 0, i, j;

	cr_assert_not_null(doc);
	for (n = xmlDocGetRootElement(doc)->children; n; n = n->next) {
		xmlChar *id = n->type == XML_ELEMENT_NODE ? xmlGetProp(n, (const xmlChar *)"id") : NULL;
		if (id && xmlStrcmp(id, (const xmlChar *)"frames") == 0)
			frames = n;
		xmlFree(id);
	}
	cr_assert_not_null(frames);
	for (n = frames->children; n && k < 64; n = n->next) {
		xmlNodePtr g = n, c, rect = NULL, title = NULL;
		xmlChar *href = NULL, *target = NULL, *cls = NULL, *style = NULL, *x, *y, *t;
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (xmlStrcmp(n->name, (const xmlChar *)"a") == 0) {
			href = xmlGetProp(n, (const xmlChar *)"href"); /* any namespace */
			target = xmlGetProp(n, (const xmlChar *)"target");
			cls = xmlGetProp(n, (const xmlChar *)"class");
			style = xmlGetProp(n, (const xmlChar *)"style");
			for (c = n->children; c; c = c->next)
				if (c->type == XML_ELEMENT_NODE && !xmlStrcmp(c->name, (const xmlChar *)"g"))
					g = c;
		}
		if (!cls)
			cls = xmlGetProp(g, (const xmlChar *)"class");
		if (!style)
			style = xmlGetProp(g, (const xmlChar *)"style");
		for (c = g->children; c; c = c->next) {
			if (c->type != XML_ELEMENT_NODE)
				continue;
			if (!xmlStrcmp(c->name, (const xmlChar *)"rect"))
				rect = c;
			if (!xmlStrcmp(c->name, (const xmlChar *)"title"))
				title = c;
		}
		cr_assert_not_null(rect);
		x = xmlGetProp(rect, (const xmlChar *)"x");
		y = xmlGetProp(rect, (const xmlChar *)"y");
		t = title ? xmlNodeGetContent(title) : NULL;
		if (t && xmlStrncmp(t, (const xmlChar *)"all (", 5) == 0) {
			/* the root's tooltip is worded differently (100% / 100.00%) */
			xmlFree(x);
			xmlFree(y);
			xmlFree(t);
			xmlFree(href);
			xmlFree(target);
			xmlFree(cls);
			xmlFree(style);
			continue;
		}
		lines[k] = malloc(256);
		snprintf(lines[k++], 256, "%g,%g: %s|%s|%s|%s|%s\n", atof((char *)x),
		         atof((char *)y), t ? (char *)t : "", href ? (char *)href : "",
		         target ? (char *)target : "", cls ? (char *)cls : "",
		         style ? (char *)style : "");
		xmlFree(x);
		xmlFree(y);
		xmlFree(t);
		xmlFree(href);
		xmlFree(target);
		xmlFree(cls);
		xmlFree(style);
	}
	for (i = 0; i < k; i++)
		for (j = i + 1; j < k; j++)
			if (strcmp(lines[j], lines[i]) < 0) {
				char *s = lines[i];
				lines[i] = lines[j];
				lines[j] = s;
			}
	for (i = 0; i < k; i++) {
		strcat(all, lines[i]);
		free(lines[i]);
	}
	xmlFreeDoc(doc);
	return all;
}

/* flamegraph.pl itself, on attributes it handles safely: the same titles,
 * links, targets and classes on the same frames. */
Test(namemap, nameattr_same_facts_as_flamegraph_pl)
{
	char *in = t_tmp("na-fg.folded"), *attrs = t_tmp("na-fg.txt"), cmd[2048];
	char *ours = NULL, *err = NULL, *theirs, *f1, *f2, *fg = t_tmp("na-fg.svg");
	const char *a = "b\ttitle=Custom tip\thref=https://example.com/b\n"
	                "c\tclass=hot\thref=/docs/c\ttarget=_blank\n"
	                "d\tclass=cool\n"
	                "a\ttitle=Frame a\tg_extra=style=\"opacity:0.5\"\n";
	size_t len;

	if (!exists(FLAMEGRAPH_PL) || system("perl -e 1 2>/dev/null") != 0)
		cr_skip_test("skipped: flamegraph.pl or perl not found (%s)", FLAMEGRAPH_PL);
	t_write(in, "a;b 3\na;c 2\nd 4\n", 16);
	t_write(attrs, a, strlen(a));
	snprintf(cmd, sizeof cmd, "perl '%s' --nameattr '%s' '%s' >'%s'", FLAMEGRAPH_PL,
	         attrs, in, fg);
	cr_assert_eq(system(cmd), 0);
	theirs = (char *)t_read(fg, &len);
	snprintf(cmd, sizeof cmd, "--no-javascript --nameattr '%s' '%s'", attrs, in);
	cr_assert_eq(t_cli(cmd, NULL, &ours, &err), 0, "%s", err);
	f1 = facts(theirs);
	f2 = facts(ours);
	cr_assert(strstr(f1, "Custom tip|https://example.com/b|_top|"), "%s", f1);
	cr_assert(strstr(f1, "|/docs/c|_blank|hot|"), "%s", f1);
	cr_assert(strstr(f1, "Frame a||||opacity:0.5"), "%s", f1);
	cr_assert_str_eq(f2, f1);
	free(f1);
	free(f2);
	free(theirs);
	free(ours);
	free(err);
	unlink(fg);
	free(fg);
	free(in);
	free(attrs);
}

/* ------------------------------------------------------------------ */
/* Bounded like every input                                            */

/* Fails the test when the command has not ended after 20 s (it looped on
 * /dev/zero before). */
static void on_alarm(int sig)
{
	(void)sig;
	cr_assert_fail("still running after 20 s: an unbounded reader");
}

Test(namemap, dev_zero_and_nul_bytes_are_errors)
{
	char *in = t_tmp("nul.folded"), *out = t_tmp("nul.svg"), *na = t_tmp("nul.txt");
	char *dir = t_tmp("nul-cp"), args[2048], *err = NULL;
	const char nul[] = "root\thref=safe\0X\nleaf0\tonclick=alert(1)\n";
	const char nul_pal[] = "a->rgb(1,2,3)\nb->rgb(4,5,6)\0\n";
	af_namemap *m = NULL;
	af_error e = {0};

	signal(SIGALRM, on_alarm);
	alarm(20);
	t_write(in, "root;leaf0 3\nroot 1\n", 20);
	snprintf(args, sizeof args, "--nameattr /dev/zero -o '%s' '%s'", out, in);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 1);
	cr_assert_str_eq(err, "aflame-render: /dev/zero: a NUL byte in line 1 (byte 0)\n");
	cr_assert_not(exists(out));
	free(err);

	/* a NUL joined two lines into <a href="safeleaf0"> */
	t_write(na, nul, sizeof nul - 1);
	snprintf(args, sizeof args, "--nameattr '%s' -o '%s' '%s'", na, out, in);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 1);
	cr_assert(strstr(err, ": a NUL byte in line 1 (byte 14)\n"), "%s", err);
	cr_assert_not(exists(out));
	free(err);

	/* --cp with palette.map pointing at /dev/zero, then holding a NUL */
	snprintf(args, sizeof args, "rm -rf '%s' && mkdir -p '%s' && ln -s /dev/zero '%s/palette.map'",
	         dir, dir, dir);
	cr_assert_eq(system(args), 0);
	cr_assert_eq(chdir(dir), 0);
	snprintf(args, sizeof args, "--cp -o '%s' '%s'", out, in);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 1);
	cr_assert_str_eq(err, "aflame-render: palette.map: a NUL byte in line 1 (byte 0)\n");
	cr_assert_not(exists(out));
	free(err);
	unlink("palette.map");
	t_write("palette.map", nul_pal, sizeof nul_pal - 1);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 1);
	cr_assert_str_eq(err, "aflame-render: palette.map: a NUL byte in line 2 (byte 27)\n");
	cr_assert_not(exists(out));
	free(err);
	alarm(0);

	/* the library says the same, through every entry point */
	cr_assert_eq(af_namemap_load("/dev/zero", AF_NAMEMAP_PALETTE, &m, &e), AF_ERR_FORMAT);
	cr_assert_null(m);
	cr_assert_eq(e.offset, 0);
	cr_assert_eq(af_namemap_parse(nul, sizeof nul - 1, AF_NAMEMAP_ATTRS, NULL, &m, &e),
	             AF_ERR_FORMAT);
	cr_assert_str_eq(e.message, "a NUL byte in line 1");
	cr_assert_eq(e.offset, 14);
	free(in);
	free(out);
	free(na);
	free(dir);
}

/* Larger than the input limit (a sparse file: nothing is read). */
Test(namemap, larger_than_the_input_limit)
{
	char *big = t_tmp("huge-nameattr.txt"), cmd[1024];
	af_namemap *m = NULL;
	af_error e = {0};

	snprintf(cmd, sizeof cmd, "truncate -s 2147483649 '%s'", big);
	if (system(cmd) != 0)
		cr_skip_test("skipped: cannot make a sparse file of 2 GiB here");
	cr_assert_eq(af_namemap_load(big, AF_NAMEMAP_ATTRS, &m, &e), AF_ERR_LIMIT);
	cr_assert_str_eq(e.message, "file is larger than the 2147483648-byte input limit");
	unlink(big);
	free(big);
}

/* ------------------------------------------------------------------ */
/* palette.map                                                         */

Test(namemap, palette_reads_what_it_writes)
{
	char *path = t_tmp("rt-palette.map");
	af_namemap *m = parse("a->rgb(1,2,3)\r\nFoo::operator->()->rgb(4,5,6)\n"
	                      "b->rgb(255,0,9)", AF_NAMEMAP_PALETTE), *back = NULL;
	af_error e = {0};
	size_t len;
	char *text;

	cr_assert_null(af_namemap_warning(m));
	cr_assert_str_eq(af_namemap_get(m, "a"), "rgb(1,2,3)");
	cr_assert_str_eq(af_namemap_get(m, "Foo::operator->()"), "rgb(4,5,6)");
	cr_assert_str_eq(af_namemap_get(m, "b"), "rgb(255,0,9)");
	cr_assert_eq(af_namemap_set(m, "two\nlines", "rgb(1,1,1)"), AF_OK);
	cr_assert_eq(af_namemap_save(m, path, &e), AF_OK, "%s", e.message);
	text = (char *)t_read(path, &len);
	cr_assert_str_eq(text, "Foo::operator->()->rgb(4,5,6)\na->rgb(1,2,3)\nb->rgb(255,0,9)\n");
	cr_assert_eq(af_namemap_load(path, AF_NAMEMAP_PALETTE, &back, &e), AF_OK);
	cr_assert_null(af_namemap_warning(back));
	cr_assert_str_eq(af_namemap_get(back, "Foo::operator->()"), "rgb(4,5,6)");
	af_namemap_free(back);
	af_namemap_free(m);
	free(text);
	unlink(path);
	free(path);
}

/* flamegraph.pl reads on past a damaged line; so do we, naming it. */
Test(namemap, cp_warns_about_damaged_lines_and_goes_on)
{
	char *dir = t_tmp("cp-damaged"), *in = t_tmp("cp-damaged.folded"), cmd[2048];
	char *out = NULL, *err = NULL, *map;
	const char *pal = "a->rgb(1,2,3)\n"
	                  "garbage\n"
	                  "b->rgb(300,0,0)\n"
	                  "\n"
	                  "c->rgb(7,8)\n"
	                  "d->rgb(4,5,6)\n";
	size_t len;

	t_write(in, "a;b 3\nc 2\nd 1\n", 14);
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(chdir(dir), 0);
	t_write("palette.map", pal, strlen(pal));
	snprintf(cmd, sizeof cmd, "--cp --no-javascript '%s'", in);
	cr_assert_eq(t_cli(cmd, NULL, &out, &err), 0, "%s", err);
	cr_assert_str_eq(err, "aflame-render: palette.map: warning: ignored damaged lines "
	                      "(not NAME->rgb(R,G,B)): 2, 3, 5\n");
	cr_assert(strstr(out, "<title>a (3 samples, 50.00%)</title><rect x=\"10\" y=\"53\" "
	                      "width=\"590\" height=\"15\" fill=\"#010203\"/>"), "%s", out);
	cr_assert(strstr(out, "<title>d (1 samples, 16.67%)</title><rect x=\"993.3\" y=\"53\" "
	                      "width=\"196.7\" height=\"15\" fill=\"#040506\"/>"), "%s", out);
	free(out);
	free(err);
	/* written again whole: the damaged lines are gone, b and c have colours */
	map = (char *)t_read("palette.map", &len);
	cr_assert(strncmp(map, "a->rgb(1,2,3)\nall->rgb(", 23) == 0, "%s", map);
	cr_assert(strstr(map, "\nb->rgb(") && strstr(map, "\nc->rgb(") &&
	          strstr(map, "\nd->rgb(4,5,6)\n") && !strstr(map, "garbage"), "%s", map);
	free(map);
	cr_assert_eq(t_cli(cmd, NULL, NULL, &err), 0, "%s", err);
	cr_assert_str_eq(err, "");
	free(err);
	free(dir);
	free(in);
}

/* ------------------------------------------------------------------ */
/* tests/data/bad                                                      */

/* tests/data/bad/NAME.nameattr and NAME.palette (a palette.map): refused
 * with "aflame-render: PATH: " + NAME.error, or drawn with the warning
 * "aflame-render: PATH: " + NAME.warning and a valid SVG. */
Test(namemap, every_bad_file_through_the_cli)
{
	DIR *d = opendir(AF_TEST_DATA "/bad");
	char *out = t_tmp("bad-namemap.svg"), *in = t_tmp("bad-namemap.folded");
	char *dir = t_tmp("bad-palette"), cmd[2048];
	struct dirent *ent;
	int n = 0;

	cr_assert_not_null(d);
	t_write(in, "root;leaf0 3\nroot;b 2\nf 1\n", 26);
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
	cr_assert_eq(system(cmd), 0);
	cr_assert_eq(chdir(dir), 0);
	while ((ent = readdir(d)) != NULL) {
		char path[1024], epath[1024], args[2048], want[4096], *err = NULL, *svg = NULL;
		size_t len, nl = strlen(ent->d_name), ext;
		uint8_t *msg, *data;
		int palette, warn = 0;
		const char *shown;

		if (nl > 9 && strcmp(ent->d_name + nl - 9, ".nameattr") == 0)
			palette = 0, ext = 9;
		else if (nl > 8 && strcmp(ent->d_name + nl - 8, ".palette") == 0)
			palette = 1, ext = 8;
		else
			continue;
		snprintf(path, sizeof path, "%s/bad/%s", AF_TEST_DATA, ent->d_name);
		snprintf(epath, sizeof epath, "%s/bad/%.*s.error", AF_TEST_DATA,
		         (int)(nl - ext), ent->d_name);
		msg = t_read(epath, &len);
		if (!msg) {
			snprintf(epath, sizeof epath, "%s/bad/%.*s.warning", AF_TEST_DATA,
			         (int)(nl - ext), ent->d_name);
			msg = t_read(epath, &len);
			warn = 1;
		}
		cr_assert_not_null(msg, "%s: no .error nor .warning", ent->d_name);
		if (palette) {
			data = t_read(path, &len);
			t_write("palette.map", data, len);
			free(data);
			shown = "palette.map";
			snprintf(args, sizeof args, "--cp -o '%s' '%s'", out, in);
		} else {
			shown = path;
			snprintf(args, sizeof args, "--nameattr '%s' -o '%s' '%s'", path, out, in);
		}
		snprintf(want, sizeof want, "aflame-render: %s: %s", shown, (char *)msg);
		cr_assert_eq(t_cli(args, NULL, NULL, &err), warn ? 0 : 1, "%s: %s", ent->d_name,
		             err);
		cr_expect_str_eq(err, want, "%s", ent->d_name);
		if (warn) {
			svg = (char *)t_read(out, &len);
			cr_assert_not_null(svg, "%s", ent->d_name);
			scan_svg(svg, len);
			free(svg);
			unlink(out);
		} else {
			cr_assert_not(exists(out), "%s left %s", ent->d_name, out);
		}
		unlink("palette.map");
		free(msg);
		free(err);
		n++;
	}
	closedir(d);
	cr_assert_geq(n, 6);
	free(out);
	free(in);
	free(dir);
}
