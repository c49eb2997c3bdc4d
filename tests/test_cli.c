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

/* The long option at `s` ("--name"): its length, up to the first character
 * that cannot be in a name. */
static size_t option_len(const char *s)
{
	size_t n = 2;
	while ((s[n] >= 'a' && s[n] <= 'z') || s[n] == '-')
		n++;
	return n;
}

/* 1 when `text` holds option `opt` (of `len` bytes) as a whole word. */
static int has_option(const char *text, const char *opt, size_t len)
{
	const char *p;
	for (p = strstr(text, opt); p; p = strstr(p + 1, opt))
		if (option_len(p) == len && (p == text || p[-1] == ' ' || p[-1] == '`'))
			return 1;
	return 0;
}

/* Every option the README's tables name is in --help and every option
 * --help lists is in the README; each option of the Views section of
 * --help takes one line. */
Test(cli, readme_tables_and_help_agree)
{
	char *help = NULL, *err = NULL, *line, *views;
	size_t len, checked = 0;
	char *readme = (char *)t_read(AF_TEST_SAMPLES "/../README.md", &len);

	cr_assert_not_null(readme);
	readme = realloc(readme, len + 1);
	readme[len] = '\0';
	cr_assert_eq(t_cli("--help", NULL, &help, &err), 0);
	for (line = readme; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		const char *end = strstr(line, " | "), *p;
		if (strncmp(line, "| `-", 4) != 0 || !end)
			continue;
		for (p = strstr(line, "--"); p && p < end; p = strstr(p + 2, "--")) {
			char opt[64];
			size_t n = option_len(p);
			cr_assert_lt(n, sizeof opt);
			memcpy(opt, p, n);
			opt[n] = '\0';
			cr_assert(has_option(help, opt, n), "README's %s is not in --help", opt);
			checked++;
		}
	}
	for (line = help; line && *line; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		if (strncmp(line, "      --", 8) == 0 || strncmp(line, "  -", 3) == 0) {
			const char *o = strstr(line, "--");
			char opt[64];
			size_t n = option_len(o);
			cr_assert_lt(n, sizeof opt);
			memcpy(opt, o, n);
			opt[n] = '\0';
			cr_assert(has_option(readme, opt, n), "--help's %s is not in the README", opt);
			checked++;
		}
	}
	cr_assert_gt(checked, 100);
	views = strstr(help, "\nViews\n");
	cr_assert_not_null(views);
	for (line = views + 7; *line && *line == ' '; line = strchr(line, '\n') + 1)
		cr_assert(strncmp(line, "      --", 8) == 0, "a view's help takes more than a line: %.60s",
		          line);
	free(readme);
	free(help);
	free(err);
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
