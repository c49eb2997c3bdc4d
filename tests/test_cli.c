/*
 * test_cli.c - the aflame-render command as users run it: formats from the
 * output's extension, standard input and output, exit statuses, messages,
 * and no output file left behind on failure.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "options.h"
#include "support.h"

#define SAMPLE AF_TEST_SAMPLES "/app.trace"

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static int exists(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0;
}

Test(cli, renders_each_format_from_the_extension)
{
	static const char *ext[] = {"svg", "png", "pdf", "folded"};
	size_t k;

	for (k = 0; k < 4; k++) {
		char name[32], args[1024], *err = NULL, *out;
		uint8_t *data;
		size_t len;

		snprintf(name, sizeof name, "main.%s", ext[k]);
		out = t_tmp(name);
		snprintf(args, sizeof args, "-o '%s' '%s'", out, SAMPLE);
		cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s: %s", name, err);
		cr_assert_str_eq(err, "");
		data = t_read(out, &len);
		cr_assert_not_null(data, "%s not written", name);
		if (k == 0) {
			char *why = NULL;
			cr_assert(t_xml_ok((char *)data, len, &why), "%s", why);
			cr_assert(strstr((char *)data, "com.example.shop.MainActivity.onCreate"));
		} else if (k == 1) {
			cr_assert(memcmp(data, "\x89PNG\r\n\x1a\n", 8) == 0);
			cr_assert_eq(be32(data + 16), 1200);
		} else if (k == 2) {
			cr_assert(memcmp(data, "%PDF", 4) == 0);
		} else {
			cr_assert(strstr((char *)data, "main;android.app.ActivityThread.main;"));
		}
		free(data);
		unlink(out);
		free(out);
		free(err);
	}
}

Test(cli, png_scale_and_width)
{
	char *out = t_tmp("scaled.png"), args[1024], *err = NULL;
	uint8_t *data;
	size_t len;

	snprintf(args, sizeof args, "--width 600 --scale 2 -o '%s' '%s'", out, SAMPLE);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s", err);
	data = t_read(out, &len);
	cr_assert_not_null(data);
	cr_assert_eq(be32(data + 16), 1200);
	free(data);
	unlink(out);
	free(out);
	free(err);
}

Test(cli, standard_input_and_output)
{
	char *out = NULL, *err = NULL;
	size_t len;
	uint8_t *buf = t_read(SAMPLE, &len);
	char *want = t_folded(buf, len, AF_CLOCK_CPU, NULL);

	cr_assert_eq(t_cli("--format folded --clock cpu -", SAMPLE, &out, &err), 0,
	             "%s", err);
	cr_assert_str_eq(out, want);
	free(out);
	free(err);
	/* without -o, an SVG goes to standard output */
	cr_assert_eq(t_cli("'" SAMPLE "'", NULL, &out, &err), 0, "%s", err);
	cr_assert(strncmp(out, "<?xml", 5) == 0);
	free(out);
	free(err);
	free(want);
	free(buf);
}

Test(cli, thread_filter)
{
	char *out = NULL, *err = NULL;
	char *line;

	cr_assert_eq(t_cli("--format folded --thread RenderThread --thread 3 '" SAMPLE "'",
	                   NULL, &out, &err), 0, "%s", err);
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n"))
		cr_assert(strncmp(line, "RenderThread;", 13) == 0 ||
		          strncmp(line, "pool-1-thread-1;", 16) == 0, "%s", line);
	free(out);
	free(err);
	cr_assert_eq(t_cli("--format folded --thread nobody '" SAMPLE "'", NULL, &out,
	                   &err), 1);
	cr_assert_str_eq(err, "aflame-render: " SAMPLE
	                      ": no thread with records matches the --thread filter\n");
	free(out);
	free(err);
}

Test(cli, errors_name_the_file_and_byte_and_leave_no_file)
{
	char *out = t_tmp("never.svg"), *keep = t_tmp("keep.svg");
	char args[2048], *err = NULL, *bad = AF_TEST_DATA "/bad/bad-magic.trace";
	uint8_t *data;
	size_t len;

	snprintf(args, sizeof args, "-o '%s' '%s'", out, bad);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 1);
	cr_assert_str_eq(err, "aflame-render: " AF_TEST_DATA "/bad/bad-magic.trace: "
	                      "data section does not start with the SLOW magic (byte 122)\n");
	cr_assert_not(exists(out));
	free(err);

	/* an existing file is not clobbered */
	t_write(keep, "precious", 8);
	snprintf(args, sizeof args, "-o '%s' '%s'", keep, bad);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 1);
	data = t_read(keep, &len);
	cr_assert_eq(len, 8);
	cr_assert(memcmp(data, "precious", 8) == 0);
	free(data);
	free(err);

	/* nor is a missing input */
	snprintf(args, sizeof args, "-o '%s' /nonexistent/app.trace", keep);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 1);
	cr_assert_str_eq(err, "aflame-render: /nonexistent/app.trace: cannot open: "
	                      "No such file or directory\n");
	free(err);
	data = t_read(keep, &len);
	cr_assert_eq(len, 8);
	free(data);

	/* no temporary files stay behind in the output's folder */
	{
		DIR *d = opendir(AF_TEST_TMP);
		struct dirent *ent;
		while ((ent = readdir(d)) != NULL)
			cr_assert_null(strstr(ent->d_name, "never.svg"), "%s", ent->d_name);
		closedir(d);
	}
	unlink(keep);
	free(keep);
	free(out);
}

/* Each prefixed line of `text` ("aflame-render: (stdin): " + line). */
static char *prefixed(const char *text)
{
	size_t n = strlen(text), lines = 0, i;
	char *out, *o;

	for (i = 0; i < n; i++)
		lines += text[i] == '\n';
	out = o = malloc(n + lines * 32 + 1);
	while (*text) {
		const char *nl = strchr(text, '\n');
		size_t len = nl ? (size_t)(nl - text) + 1 : strlen(text);
		o += sprintf(o, "aflame-render: (stdin): %.*s", (int)len, text);
		text += len;
	}
	*o = '\0';
	return out;
}

Test(cli, every_hostile_input_through_the_cli)
{
	DIR *d = opendir(AF_TEST_DATA "/bad");
	struct dirent *ent;
	char *out = t_tmp("hostile.svg");
	int n = 0;

	cr_assert_not_null(d);
	while ((ent = readdir(d)) != NULL) {
		char path[1024], epath[1024], args[2048], *err = NULL, *got = NULL, *want;
		size_t len, nl = strlen(ent->d_name);
		uint8_t *msg, *graph;

		if (nl < 7 || strcmp(ent->d_name + nl - 6, ".trace") != 0)
			continue;
		snprintf(path, sizeof path, "%s/bad/%s", AF_TEST_DATA, ent->d_name);
		snprintf(epath, sizeof epath, "%s/bad/%.*s.error", AF_TEST_DATA,
		         (int)(nl - 6), ent->d_name);
		msg = t_read(epath, &len);
		if (msg) {
			/* refused: the message, exit 1, no output */
			snprintf(args, sizeof args, "-o '%s' -", out);
			cr_assert_eq(t_cli(args, path, NULL, &err), 1, "%s", ent->d_name);
			cr_assert_not(exists(out), "%s left %s", ent->d_name, out);
		} else {
			/* damaged but usable: the warnings, and the exact graph */
			snprintf(epath, sizeof epath, "%s/bad/%.*s.warning", AF_TEST_DATA,
			         (int)(nl - 6), ent->d_name);
			msg = t_read(epath, &len);
			cr_assert_not_null(msg, "%s: no .error nor .warning", ent->d_name);
			snprintf(epath, sizeof epath, "%s/bad/%.*s.folded", AF_TEST_DATA,
			         (int)(nl - 6), ent->d_name);
			graph = t_read(epath, &len);
			cr_assert_not_null(graph, "%s: no .folded", ent->d_name);
			cr_assert_eq(t_cli("--format folded -", path, &got, &err), 0, "%s: %s",
			             ent->d_name, err);
			cr_expect_str_eq(got, (char *)graph, "%s", ent->d_name);
			free(graph);
			free(got);
		}
		want = prefixed((char *)msg);
		cr_expect_str_eq(err, want, "%s", ent->d_name);
		free(want);
		free(msg);
		free(err);
		n++;
	}
	closedir(d);
	free(out);
	cr_assert_geq(n, 80);
}

Test(cli, usage_errors_exit_2)
{
	char *out = NULL, *err = NULL;

	cr_assert_eq(t_cli("--bogus x.trace", NULL, &out, &err), 2);
	cr_assert(strstr(err, "unknown option '--bogus'"), "%s", err);
	cr_assert(strstr(err, "--help"));
	free(out);
	free(err);
	t_cli_says(2, "no input given", "%s", "");
	t_cli_says(2, "cannot tell the format", "-o x.gif '" SAMPLE "'");
	t_cli_says(2, "--dump prints the records of one trace", "--dump '" SAMPLE "' '" SAMPLE "'");
	cr_assert_eq(t_cli("--clock moon '" SAMPLE "'", NULL, &out, &err), 2);
	free(out);
	free(err);
	t_cli_says(2, "needs a value", "--width");
	cr_assert_eq(t_cli("--help", NULL, &out, &err), 0);
	cr_assert(strstr(out, "Usage: aflame-render"));
	cr_assert_str_eq(err, "");
	free(out);
	free(err);
	cr_assert_eq(t_cli("--version", NULL, &out, &err), 0);
	cr_assert(strncmp(out, "aflame-render ", 14) == 0);
	free(out);
	free(err);
}

Test(cli, clock_choice)
{
	char *out = NULL, *err = NULL;

	/* the Dalvik sample records thread-cpu time only */
	cr_assert_eq(t_cli("--clock wall --format folded '" AF_TEST_SAMPLES
	                   "/app-dalvik-v1.trace'", NULL, &out, &err), 1);
	cr_assert_str_eq(err, "aflame-render: " AF_TEST_SAMPLES "/app-dalvik-v1.trace: "
	                      "the trace has no wall clock (it records thread-cpu only)\n");
	free(out);
	free(err);
	/* and without --clock, that is what it draws */
	cr_assert_eq(t_cli("--format folded '" AF_TEST_SAMPLES "/app-dalvik-v1.trace'",
	                   NULL, &out, &err), 0, "%s", err);
	cr_assert(strstr(out, "main;"));
	free(out);
	free(err);
}

Test(cli, verbose_summary_and_warnings)
{
	char *out = NULL, *err = NULL, *cut = t_tmp("cut.trace"), args[1024];
	size_t len;
	uint8_t *buf = t_read(AF_TEST_SAMPLES "/app-streaming.trace", &len);

	cr_assert_eq(t_cli("-v --format folded '" SAMPLE "'", NULL, &out, &err), 0);
	cr_assert(strstr(err, "regular trace, version 3 (0x3), 14-byte records, clock dual"),
	          "%s", err);
	cr_assert(strstr(err, "records: 3376"), "%s", err);
	cr_assert(strstr(err, "orphan exits (re-rooted): 0"), "%s", err);
	free(out);
	free(err);

	/* a streaming trace cut mid-record: a warning, and a graph */
	t_write(cut, buf, len / 2);
	snprintf(args, sizeof args, "--format folded '%s'", cut);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert(strstr(err, "warning: streaming trace ends without its summary"),
	          "%s", err);
	cr_assert(strstr(out, "main;"));
	free(out);
	free(err);
	snprintf(args, sizeof args, "-q --format folded '%s'", cut);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0);
	cr_assert_str_eq(err, "");
	free(out);
	free(err);
	unlink(cut);
	free(cut);
	free(buf);
}

Test(cli, samples_are_current)
{
	char *dir = t_tmp("samples");
	char cmd[2048];
	static const char *names[] = {"app.trace", "app-streaming.trace",
	                              "app-dalvik-v1.trace", "app-after.trace",
	                              "app-obfuscated.trace", "app-mapping.txt"};
	size_t k;

	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && '%s' '%s'", dir, dir,
	         AF_TEST_MAKE_SAMPLES, dir);
	cr_assert_eq(system(cmd), 0);
	for (k = 0; k < sizeof names / sizeof names[0]; k++) {
		char a[1024], b[1024];
		size_t la, lb;
		uint8_t *x, *y;
		snprintf(a, sizeof a, "%s/%s", dir, names[k]);
		snprintf(b, sizeof b, "%s/%s", AF_TEST_SAMPLES, names[k]);
		x = t_read(a, &la);
		y = t_read(b, &lb);
		cr_assert(x && y && la == lb && memcmp(x, y, la) == 0,
		          "samples/%s is out of date: run make_samples samples", names[k]);
		free(x);
		free(y);
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	free(dir);
}

/* A stack 100,000 frames deep: nothing recurses on the C stack, and
 * outputs that cannot hold it say so instead of thrashing. */
Test(cli, stacks_100000_frames_deep)
{
	af_writer_options o = {.clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	char *in = t_tmp("deep.trace"), *svg = t_tmp("deep.svg"), args[1024], *err = NULL;
	uint8_t *buf;
	size_t len, i, n = 100000;

	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, 4, "a.B", "recurse", "()V", ""), 0);
	for (i = 0; i < n; i++)
		cr_assert_eq(af_writer_record(w, 1, 4, AF_ENTER, (uint32_t)i, (uint32_t)i), 0);
	for (i = 0; i < n; i++)
		cr_assert_eq(af_writer_record(w, 1, 4, AF_EXIT, (uint32_t)(n + i),
		                              (uint32_t)(n + i)), 0);
	buf = t_finish(w, &len, NULL);
	t_write(in, buf, len);
	free(buf);
	snprintf(args, sizeof args, "-o '%s' '%s'", svg, in);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s", err);
	free(err);
	t_cli_says(1, "larger than cairo's 32767 px limit",
	           "--format png '%s'", in);
	t_cli_says(1, "folded text would take about",
	           "--format folded '%s'", in);
	free(in);
	free(svg);
}

Test(cli, limits_from_the_command_line)
{
	char *err = NULL;

	t_cli_says(1, "stack is deeper than 3 frames (byte ",
	           "--max-depth 3 --format folded '" SAMPLE "'");
	t_cli_says(1, "(limit 10)", "--max-nodes 10 --format folded '" SAMPLE "'");
	cr_assert_eq(t_cli("--max-depth many '" SAMPLE "'", NULL, NULL, &err), 2);
	free(err);
}

/* At a --max-nodes the parse just fits in, the call tree (a root over the
 * threads) is one node over: built by the walk from the roots (folded
 * text) or in one pass over the nodes (a graph of all threads), it stops
 * with the limit, and no output is left. */
Test(cli, the_call_tree_stops_at_the_node_limit)
{
	static const char *const formats[] = {"folded", "svg", "png"};
	char *out = t_tmp("limit.out"), args[2048], want[256], *err = NULL;
	unsigned n;
	size_t f;

	for (n = 1; n < 10000; n++) { /* the smallest limit the parse fits in */
		snprintf(args, sizeof args, "--max-nodes %u --format folded '%s'", n, SAMPLE);
		cr_assert_eq(t_cli(args, NULL, NULL, &err), 1, "%s", err);
		if (!strstr(err, "cannot add call path"))
			break;
		free(err);
	}
	free(err);
	cr_assert_lt(n, 10000);
	snprintf(want, sizeof want, "call tree has more than %u nodes", n);
	for (f = 0; f < sizeof formats / sizeof formats[0]; f++) {
		remove(out);
		snprintf(args, sizeof args, "--max-nodes %u --format %s -o '%s' '%s'", n,
		         formats[f], out, SAMPLE);
		t_cli_says(1, want, "%s", args);
		cr_assert_neq(access(out, F_OK), 0, "%s: %s was left", formats[f], out);
		snprintf(args, sizeof args, "--max-nodes %u --format %s -o '%s' '%s'", n + 1,
		         formats[f], out, SAMPLE);
		cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s: %s", formats[f], err);
		free(err);
	}
	remove(out);
	free(out);
}

/* ------------------------------------------------------------------ */
/* --help, the man page and the README list the table of options       */

/* An option as --help and the man page head it: "-o, --output FILE",
 * "--clock wait". */
static void t_heading(const cli_option *o, char *buf, size_t n)
{
	char s[8] = "";

	if (o->short_name)
		snprintf(s, sizeof s, "-%c, ", o->short_name);
	snprintf(buf, n, "%s--%s%s%s", s, o->name, o->arg ? " " : "", o->arg ? o->arg : "");
}

static int t_listed(const cli_option *o)
{
	return !(o->flags & (CLI_ALIAS | CLI_HIDDEN));
}

/* The headings the table gives, section by section, each line
 * "SECTION\tHEADING", in one string. */
static char *t_expected_headings(void)
{
	size_t cap = 16384, len = 0, i;
	char *out = malloc(cap);
	int s;

	cr_assert_not_null(out);
	out[0] = '\0';
	for (s = 0; s < CLI_NSECTIONS; s++)
		for (i = 0; i < cli_noptions; i++) {
			char h[128];
			if (cli_options[i].section != (cli_section)s || !t_listed(&cli_options[i]))
				continue;
			t_heading(&cli_options[i], h, sizeof h);
			len += (size_t)snprintf(out + len, cap - len, "%s\t%s\n",
			                        cli_section_titles[s], h);
			cr_assert_lt(len, cap);
		}
	return out;
}

/* The table is well formed: one entry parses each option, its other
 * entries (CLI_AGAIN) repeat its name, names are unique, every help text is
 * ASCII (the man page is read everywhere) and every section has options. */
Test(cli, the_table_of_options_is_consistent)
{
	size_t i, k;
	int per_section[CLI_NSECTIONS] = {0}, s;

	cr_assert_gt(cli_noptions, 50);
	for (i = 0; i < cli_noptions; i++) {
		const cli_option *o = &cli_options[i], *main_entry = NULL;
		const unsigned char *p;
		cr_assert(o->section >= 0 && o->section < CLI_NSECTIONS);
		cr_assert(o->flags & CLI_ALIAS || (o->help && *o->help), "--%s has no help",
		          o->name);
		for (p = (const unsigned char *)(o->help ? o->help : ""); *p; p++)
			cr_assert(*p >= 32 && *p < 127, "--%s: help is not printable ASCII",
			          o->name);
		for (k = 0; k < cli_noptions; k++) {
			const cli_option *q = &cli_options[k];
			if (k == i || strcmp(q->name, o->name) != 0)
				continue;
			cr_assert(q->flags & CLI_AGAIN || o->flags & CLI_AGAIN,
			          "two entries parse --%s", o->name);
			if (!(q->flags & CLI_AGAIN))
				main_entry = q;
		}
		if (o->flags & CLI_AGAIN) {
			cr_assert_not_null(main_entry, "--%s is described again but never parsed",
			                   o->name);
			cr_assert_eq(main_entry->id, o->id);
			cr_assert_eq(!main_entry->arg, !o->arg, "--%s: value or none?", o->name);
		}
		if (o->short_name)
			for (k = 0; k < i; k++)
				cr_assert_neq(cli_options[k].short_name, o->short_name,
				              "-%c twice", o->short_name);
		if (t_listed(o))
			per_section[o->section]++;
	}
	for (s = 0; s < CLI_NSECTIONS; s++)
		cr_assert_gt(per_section[s], 0, "section %s is empty", cli_section_titles[s]);
}

/* --help lists every option of the table, with its value's name, in the
 * table's sections and order, and nothing else; its lines fit 79 columns. */
Test(cli, help_lists_the_table)
{
	char *help = NULL, *err = NULL, *want = t_expected_headings(), *line, *got;
	const char *section = NULL;
	size_t len = 0, cap = 16384, n;
	int s;

	got = malloc(cap);
	cr_assert_not_null(got);
	got[0] = '\0';
	cr_assert_eq(t_cli("--help", NULL, &help, &err), 0);
	cr_assert_str_eq(err, "");
	cr_assert(strncmp(help, "Usage: aflame-render [options] INPUT...\n", 40) == 0);
	for (line = help; *line; line += n + (line[n] == '\n')) {
		size_t h, indent;
		n = strcspn(line, "\n");
		cr_assert_leq(n, 79, "--help line too long: %.*s", (int)n, line);
		for (s = 0; s < CLI_NSECTIONS; s++)
			if (strlen(cli_section_titles[s]) == n &&
			    strncmp(line, cli_section_titles[s], n) == 0)
				section = cli_section_titles[s];
		/* a heading is indented 2 ("  -o, --output") or 6 ("      --format")
		 * spaces, a description's next lines more */
		indent = strspn(line, " ");
		if (!((indent == 2 || indent == 6) && line[indent] == '-'))
			continue;
		cr_assert_not_null(section, "an option before the first section");
		for (h = indent; h < n && !(line[h] == ' ' && line[h + 1] == ' '); h++)
			;
		len += (size_t)snprintf(got + len, cap - len, "%s\t%.*s\n", section,
		                        (int)(h - indent), line + indent);
		cr_assert_lt(len, cap);
	}
	cr_assert_str_eq(got, want);
	free(got);
	free(want);
	free(help);
	free(err);
}

/* Roff text as read: font changes dropped, escapes undone. */
static void t_unroff(char *s)
{
	char *w = s;

	while (*s) {
		if (s[0] == '\\' && s[1] == 'f' && s[2]) {
			s += 3;
		} else if (s[0] == '\\' && (s[1] == '-' || s[1] == 'e' || s[1] == '&')) {
			if (s[1] != '&')
				*w++ = s[1] == 'e' ? '\\' : '-';
			s += 2;
		} else {
			*w++ = *s++;
		}
	}
	*w = '\0';
}

/* The man page the build wrote is the command's, and heads every option of
 * the table, with its value's name, in its sections and order; man renders
 * it without a warning (when man-db is installed). */
Test(cli, man_page_lists_the_table)
{
	size_t len, glen = 0, cap = 16384;
	char *page = (char *)t_read(AF_TEST_MAN, &len), *now = NULL, *err = NULL;
	char *want = t_expected_headings(), *got = malloc(cap), *line, *next;
	char section[128] = "";
	int in_options = 0, tp = 0;

	cr_assert_not_null(page, "the build wrote no %s", AF_TEST_MAN);
	cr_assert_not_null(got);
	got[0] = '\0';
	cr_assert(strncmp(page, ".TH AFLAME\\-RENDER 1 ", 21) == 0, "%.40s", page);
	cr_assert_eq(t_cli("--help-man", NULL, &now, &err), 0, "%s", err);
	cr_assert_str_eq(page, now, "%s is not what --help-man writes now", AF_TEST_MAN);
	free(now);
	free(err);

	for (line = page; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (strncmp(line, ".SH", 3) == 0) {
			in_options = strcmp(line, ".SH OPTIONS") == 0;
			continue;
		}
		if (!in_options)
			continue;
		if (strncmp(line, ".SS \"", 5) == 0) {
			snprintf(section, sizeof section, "%.*s", (int)strlen(line) - 6, line + 5);
			t_unroff(section);
		} else if (strcmp(line, ".TP") == 0) {
			tp = 1;
		} else if (tp) {
			tp = 0;
			t_unroff(line);
			glen += (size_t)snprintf(got + glen, cap - glen, "%s\t%s\n", section, line);
			cr_assert_lt(glen, cap);
		}
	}
	cr_assert_str_eq(got, want);
	free(got);
	free(want);
	free(page);

	if (system("command -v man >/dev/null 2>&1") != 0) {
		cr_log_info("man (Debian's man-db) is not installed: the page's rendering "
		            "is not checked");
		return;
	}
	{
		char cmd[4096], *text;
		char *o = t_tmp("man.out"), *e = t_tmp("man.err");
		int status;

		snprintf(cmd, sizeof cmd, "LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -l '%s' "
		         ">'%s' 2>'%s'", AF_TEST_MAN, o, e);
		status = system(cmd);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s", cmd);
		err = (char *)t_read(e, &len);
		cr_assert_str_eq(err, "", "man warns: %s", err);
		text = (char *)t_read(o, &len);
		cr_assert_not_null(text);
		cr_assert(strstr(text, "AFLAME-RENDER(1)"));
		cr_assert(strstr(text, "       -o, --output FILE\n"), "%s", text);
		cr_assert(strstr(text, "       --max-memory SIZE\n"));
		free(text);
		free(err);
		unlink(o);
		unlink(e);
		free(o);
		free(e);
	}
}

/* The README's tables (the first cell of every row) name each option of
 * the table that --help lists, with its short form, and no option the table
 * does not have; a value's name given there (`--width PX`) is the table's.
 * A value itself (`--clock wait`) may stand for the value's name. */
Test(cli, readme_tables_list_the_table)
{
	size_t len, i, rows = 0;
	char *readme = (char *)t_read(AF_TEST_SOURCE "/README.md", &len), *line;
	char *seen = calloc(cli_noptions, 1);

	cr_assert_not_null(readme);
	cr_assert_not_null(seen);
	for (line = readme; line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *cell_end, *p;
		if (strncmp(line, "| ", 2) != 0 || !(cell_end = strstr(line + 2, " | ")))
			continue;
		if (strchr(line, '\n') && cell_end > strchr(line, '\n'))
			continue;
		/* each `...` span of the first cell that begins with an option */
		for (p = strchr(line, '`'); p && p < cell_end; p = strchr(p + 1, '`')) {
			const char *q = p + 1, *close = strchr(q, '`');
			char span[128], *tok, *next_tok;
			cr_assert_not_null(close);
			if (q[0] != '-' || !(q[1] == '-' || (q[1] >= 'A' && q[1] <= 'z'))) {
				p = close;
				continue;
			}
			cr_assert_lt((size_t)(close - q), sizeof span);
			snprintf(span, sizeof span, "%.*s", (int)(close - q), q);
			p = close;
			rows++;
			/* "-o, --output FILE", "--clock wait", "-j, --jobs N" */
			for (tok = span; tok; tok = next_tok) {
				char *arg;
				int found = 0;
				if ((next_tok = strstr(tok, ", ")) != NULL) {
					*next_tok = '\0';
					next_tok += 2;
				}
				arg = strchr(tok, ' ');
				if (arg)
					*arg++ = '\0';
				for (i = 0; i < cli_noptions; i++) {
					const cli_option *o = &cli_options[i];
					int is_short = tok[1] != '-' && tok[1] == o->short_name && !tok[2];
					if (!t_listed(o) || (!is_short && strcmp(tok + 2, o->name) != 0))
						continue;
					if (arg && arg[0] >= 'A' && arg[0] <= 'Z' &&
					    (!o->arg || strcmp(arg, o->arg) != 0))
						continue;
					seen[i] |= is_short ? 2 : 1;
					found = 1;
				}
				cr_assert(found, "README names %s%s%s, which the table of options "
				          "(src/cli/options.c) does not have", tok, arg ? " " : "",
				          arg ? arg : "");
			}
		}
	}
	cr_assert_gt(rows, 50);
	for (i = 0; i < cli_noptions; i++) {
		const cli_option *o = &cli_options[i];
		size_t k;
		int any = 0, any_short = 0;
		if (!t_listed(o) || (o->flags & CLI_AGAIN))
			continue;
		for (k = 0; k < cli_noptions; k++)
			if (strcmp(cli_options[k].name, o->name) == 0) {
				any |= seen[k] & 1;
				any_short |= seen[k] & 2;
			}
		cr_expect(any, "--%s is in no table of the README", o->name);
		cr_expect(!o->short_name || any_short, "the README does not give --%s's short "
		          "form -%c", o->name, o->short_name);
	}
	free(seen);
	free(readme);
}

/* Messages say why: a write error with its cause, a bad option value as a
 * usage error whatever the output, a budget in a unit that shows it, and
 * what the input caused named after the input, not the output. */
Test(cli, messages_say_why_and_name_the_cause)
{
	char *in = t_tmp("deep2.trace"), *png = t_tmp("deep2.png"), *err = NULL;
	char args[2048];
	af_writer_options o = {.clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	uint8_t *buf;
	size_t len, i, n = 3000;
	int status;

	{
		char *e = t_tmp("full.err"), cmd[2048];
		snprintf(cmd, sizeof cmd, "'%s' --format folded '%s' >/dev/full 2>'%s'",
		         AF_TEST_CLI, SAMPLE, e);
		status = system(cmd);
		cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 1);
		err = (char *)t_read(e, &len);
		cr_assert_str_eq(err, "aflame-render: (stdout): cannot write: No space left "
		                      "on device\n");
		free(err);
		unlink(e);
		free(e);
	}
	t_cli_says(2, "--bgcolors takes yellow, blue, green, grey or #rrggbb, not 'zzz'",
	           "--bgcolors zzz --format folded '" SAMPLE "'");
	t_cli_says(2, "--bgcolors takes", "--bgcolors '#12345' -o x.svg '" SAMPLE "'");
	t_cli_says(2, "--encoding takes an encoding name such as ISO-8859-1, not 'a\"b'",
	           "--encoding 'a\"b' --format folded '" SAMPLE "'");
	t_cli_says(2, "--encoding takes", "--encoding '' '" SAMPLE "'");
	cr_assert_eq(t_cli("--bgcolors '#A0b0C0' --encoding ISO-8859-1 '" SAMPLE "'", NULL,
	                   NULL, &err), 0, "%s", err);
	free(err);
	t_cli_says(1, "memory budget of 1 KB exceeded", "--max-memory 1K '" SAMPLE "'");
	t_cli_says(1, SAMPLE ": memory budget of 1.50 MB exceeded for a 4800 x 1080 px image",
	           "--max-memory 1.5M --scale 4 -o '%s' '" SAMPLE "'", png);

	/* a stack too deep for a PNG: the input's fault, named as such */
	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, 4, "a.B", "recurse", "()V", ""), 0);
	for (i = 0; i < n; i++)
		cr_assert_eq(af_writer_record(w, 1, 4, AF_ENTER, (uint32_t)i, (uint32_t)i), 0);
	for (i = 0; i < n; i++)
		cr_assert_eq(af_writer_record(w, 1, 4, AF_EXIT, (uint32_t)(n + i),
		                              (uint32_t)(n + i)), 0);
	buf = t_finish(w, &len, NULL);
	t_write(in, buf, len);
	free(buf);
	snprintf(args, sizeof args, "-o '%s' '%s'", png, in);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 1);
	cr_assert(strncmp(err + 15, in, strlen(in)) == 0 && strstr(err, "px limit"), "%s",
	          err);
	free(err);
	snprintf(args, sizeof args, "--per-thread --format png -o '%s.d' '%s'", png, in);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 1);
	cr_assert(strncmp(err + 15, in, strlen(in)) == 0 && strstr(err, "px limit"), "%s",
	          err);
	free(err);
	cr_assert_not(exists(png));
	unlink(in);
	free(in);
	free(png);
}

/* Runs shell command `cmd` (its standard error joined to its output),
 * keeps what it said in `said`; returns its exit status, or -1. */
static int run_saying(const char *cmd, char *said, size_t size)
{
	FILE *p = popen(cmd, "r");
	size_t n;
	int status;

	cr_assert(p, "%s", cmd);
	n = fread(said, 1, size - 1, p);
	said[n] = '\0';
	status = pclose(p);
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* `aflame-render serve` runs the server program found beside the command
 * (or in its libexec folder): a command copied away from it says which
 * program is missing, and exits 1 without starting anything. */
Test(cli, serve_without_its_server_program_says_so)
{
	char *dir = t_tmp("lone-command"), cmd[4096], said[4096];

	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && cp '%s' '%s/aflame-render'", dir,
	         dir, AF_TEST_CLI, dir);
	cr_assert_eq(system(cmd), 0);
	snprintf(cmd, sizeof cmd, "'%s/aflame-render' serve --listen 127.0.0.1:0 2>&1", dir);
	cr_expect_eq(run_saying(cmd, said, sizeof said), 1);
	cr_expect(strstr(said, "aflame-render: serve: the server program is missing: no ") &&
	              strstr(said, "-lone-command/aflame-serve nor "),
	          "said: %s", said);
	free(dir);
}

/* aflame-serve run by hand, by its own path: it would draw uploads with
 * itself; it says how to run it and exits 2, starting nothing. */
Test(cli, the_server_program_run_by_hand_says_how_to_run_it)
{
	char cmd[8192], said[4096];
	const char *slash = strrchr(AF_TEST_CLI, '/');

	cr_assert(slash);
	/* bounded: the server it once was would have started */
	snprintf(cmd, sizeof cmd, "timeout 20 '%.*s/aflame-serve' --listen 127.0.0.1:0 2>&1",
	         (int)(slash - AF_TEST_CLI), AF_TEST_CLI);
	cr_expect_eq(run_saying(cmd, said, sizeof said), 2);
	cr_expect(strstr(said, "aflame-render: serve: run the server as `aflame-render serve`"),
	          "said: %s", said);
}

/* Pango (labels that need shaping) and Graphviz (call graphs) are loaded
 * when first needed, not at every start: with both unloadable, a graph of
 * plain names draws, and a label that needs shaping or a call graph says
 * which library is missing, exits 1 and leaves no file. */
Test(cli, pango_and_graphviz_are_loaded_only_when_needed)
{
	static const char *const libs[] = {"libpangocairo-1.0.so.0", "libgvc.so.6"};
	static const char *const outs[] = {"plain.svg", "plain.png", "shaped.svg",
	                                   "shaped.png", "calls.svg"};
	char *dir = t_tmp("nolibs"), *folded = t_tmp("nolibs.folded"), path[4096];
	char *plain = t_tmp("nolibs-plain.folded");
	const char *old = getenv("LD_LIBRARY_PATH");
	char *keep = old ? strdup(old) : NULL;
	size_t i;

	mkdir(dir, 0755);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, libs[i]);
		t_write(path, "not a library\n", 14);
	}
	/* CJK text is shaped (af_font_plain() covers Latin, Greek, Cyrillic) */
	t_write(folded, "main;\xe6\x97\xa5\xe6\x9c\xac 3\nmain;plain 2\n", 27);
	t_write(plain, "main;run;work 3\nmain;idle 2\n", 28);
	for (i = 0; i < 5; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, outs[i]);
		remove(path);
	}
	setenv("LD_LIBRARY_PATH", dir, 1);
	t_cli_says(0, "", "-q -o '%s/plain.svg' '%s'", dir, plain);
	t_cli_says(0, "", "-q -o '%s/plain.png' '%s'", dir, plain);
	t_cli_says(1, "cannot load Pango: ", "-o '%s/shaped.svg' '%s'", dir, folded);
	t_cli_says(1, "cannot load Pango: ", "-o '%s/shaped.png' '%s'", dir, folded);
	t_cli_says(1, "cannot load Graphviz: ", "--call-graph -o '%s/calls.svg' '%s'", dir,
	           SAMPLE);
	if (keep)
		setenv("LD_LIBRARY_PATH", keep, 1);
	else
		unsetenv("LD_LIBRARY_PATH");
	for (i = 0; i < 5; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, outs[i]);
		cr_expect_eq(exists(path), i < 2, "%s %s", outs[i],
		             i < 2 ? "was not drawn" : "was left behind");
		remove(path);
	}
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, libs[i]);
		remove(path);
	}
	rmdir(dir);
	remove(folded);
	remove(plain);
	free(plain);
	free(keep);
	free(dir);
	free(folded);
}

/* The font is opened on a thread of its own while the call tree is built
 * (one graph), by a set's first worker (the others clone it, and say
 * nothing more when it fails), or in line with --jobs 1: where it cannot
 * be, each says why once, exits 1 and leaves nothing. */
Test(cli, a_font_that_cannot_be_opened_says_so_and_leaves_nothing)
{
	static const char *const runs[][2] = {
		{"", "g.svg"}, {"", "g.png"}, {"-j 1", "g.pdf"}, {"--per-thread", "set"},
	};
	char *dir = t_tmp("nofont"), path[4096];
	const char *old = getenv("AFLAME_FONTCONF");
	char *keep = old ? strdup(old) : NULL;
	size_t i;

	mkdir(dir, 0755);
	setenv("AFLAME_FONTCONF", "/nonexistent/fonts.conf", 1);
	for (i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", dir, runs[i][1]);
		t_cli_says(1, "aflame-render: font: cannot read the font configuration "
		           "/nonexistent/fonts.conf: No such file or directory",
		           "%s -q -o '%s' '%s'", runs[i][0], path, SAMPLE);
		cr_expect(!exists(path), "%s was left behind", runs[i][1]);
	}
	/* folded text needs no font */
	snprintf(path, sizeof path, "%s/g.folded", dir);
	t_cli_says(0, "", "-q -o '%s' '%s'", path, SAMPLE);
	cr_expect(exists(path), "g.folded was not written");
	remove(path);
	if (keep)
		setenv("AFLAME_FONTCONF", keep, 1);
	else
		unsetenv("AFLAME_FONTCONF");
	rmdir(dir);
	free(keep);
	free(dir);
}
