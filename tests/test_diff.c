/*
 * test_diff.c - differential graphs (--diff BEFORE AFTER): colours, tooltip
 * numbers, the removed band, folded output and the command's errors, on
 * generated traces whose answer is known.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#define A 4u
#define B 8u
#define C 12u
#define D 16u

/* main: a -> b, a -> c, d; times in µs of wall (cpu is a tenth). */
static char *trace_file(const char *name, uint32_t b, uint32_t c, uint32_t d,
                        af_writer_clock clock)
{
	af_writer_options o = {.variant = AF_VARIANT_REGULAR, .clock = clock};
	af_writer *w = af_writer_new(&o);
	const char *names[] = {"a", "b", "c", "d"};
	uint32_t t = 0, i;
	uint8_t *buf;
	size_t len;
	char *path = t_tmp(name);

	cr_assert_not_null(w);
	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	for (i = 0; i < 4; i++)
		cr_assert_eq(af_writer_method(w, 4 * (i + 1), "com.example.App", names[i], "()V",
		                              "App.java"), 0);
#define REC(id, act) cr_assert_eq(af_writer_record(w, 1, id, act, t / 10, t), 0)
	REC(A, AF_ENTER);
	if (b) {
		REC(B, AF_ENTER);
		t += b;
		REC(B, AF_EXIT);
	}
	if (c) {
		REC(C, AF_ENTER);
		t += c;
		REC(C, AF_EXIT);
	}
	REC(A, AF_EXIT);
	REC(D, AF_ENTER);
	t += d;
	REC(D, AF_EXIT);
#undef REC
	buf = t_finish(w, &len, NULL);
	t_write(path, buf, len);
	free(buf);
	return path;
}

/* Where the frame named `name` begins in the SVG: its "<title>". */
static const char *frame_of(const char *svg, const char *name)
{
	char key[256];
	const char *p;

	snprintf(key, sizeof key, "<title>%s (", name);
	p = strstr(svg, key);
	cr_assert_not_null(p, "no frame %s", name);
	return p;
}

/* The frame's tooltip is `want`. */
static void expect_title(const void *svg, const char *name, const char *want)
{
	const char *p = frame_of(svg, name) + 7;
	size_t n = (size_t)(strstr(p, "</title>") - p);

	cr_assert(strlen(want) == n && memcmp(p, want, n) == 0, "%s: %.*s", name, (int)n, p);
}

/* The frame's tooltip holds `part`. */
static void expect_in_title(const void *svg, const char *name, const char *part)
{
	const char *p = frame_of(svg, name) + 7;
	char *title = strndup(p, (size_t)(strstr(p, "</title>") - p));

	cr_assert(strstr(title, part), "%s: %s", name, title);
	free(title);
}

/* The frame's fill is `want`. */
static void expect_fill(const void *svg, const char *name, const char *want)
{
	const char *f = strstr(frame_of(svg, name), "fill=\"") + 6;
	size_t n = strcspn(f, "\"");

	cr_assert(strlen(want) == n && memcmp(f, want, n) == 0, "%s: %.*s", name, (int)n, f);
}

Test(diff, colours_tooltips_and_the_removed_band)
{
	/* BEFORE: b 1000, c 500, d 2000; AFTER: b 1500, no c, d 1000 */
	char *before = trace_file("before.trace", 1000, 500, 2000, AF_WRITER_DUAL);
	char *after = trace_file("after.trace", 1500, 0, 1000, AF_WRITER_DUAL);
	char *svg = t_tmp("diff.svg"), args[2048], *err = NULL, *why = NULL;
	uint8_t *data;
	size_t len;

	/* the static SVG: every frame carries its tooltip as a <title> */
	snprintf(args, sizeof args, "--diff '%s' '%s' -o '%s' --no-javascript", before,
	         after, svg);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s", err);
	free(err);
	data = t_read(svg, &len);
	cr_assert(t_xml_ok((char *)data, len, &why), "%s", why);
	/* b grew by 500 µs, half the largest change of a frame's own time (d's
	 * 1 ms): half red */
	expect_title(data, "com.example.App.b",
	             "com.example.App.b (1.50 ms, 50.00%, 1 call): 1.00 ms \xE2\x86\x92 "
	             "1.50 ms (+500 \xC2\xB5s, +50%); self 1.00 ms \xE2\x86\x92 1.50 ms "
	             "(+500 \xC2\xB5s, +50%)");
	expect_fill(data, "com.example.App.b", "#ff6969");
	/* d shrank by 1000 µs: full blue */
	expect_title(data, "com.example.App.d",
	             "com.example.App.d (1.00 ms, 33.33%, 1 call): 2.00 ms \xE2\x86\x92 "
	             "1.00 ms (-1.00 ms, -50%); self 2.00 ms \xE2\x86\x92 1.00 ms "
	             "(-1.00 ms, -50%)");
	expect_fill(data, "com.example.App.d", "#0000ff");
	/* a: no self time either side, white; its total counts c's lost time */
	expect_title(data, "com.example.App.a",
	             "com.example.App.a (1.50 ms, 50.00%, 1 call): 1.50 ms \xE2\x86\x92 "
	             "1.50 ms (+0 \xC2\xB5s, +0.0%)");
	expect_fill(data, "com.example.App.a", "#ffffff");
	/* c vanished: drawn in the removed band, 500 µs wide, half blue */
	expect_title(data, "[removed]",
	             "[removed] (500 \xC2\xB5s, 16.67%): 500 \xC2\xB5s \xE2\x86\x92 "
	             "0 \xC2\xB5s (-500 \xC2\xB5s, -100%)");
	expect_title(data, "com.example.App.c",
	             "com.example.App.c (500 \xC2\xB5s, 16.67%): 500 \xC2\xB5s \xE2\x86\x92 "
	             "0 \xC2\xB5s (-500 \xC2\xB5s, -100%); self 500 \xC2\xB5s \xE2\x86\x92 "
	             "0 \xC2\xB5s (-500 \xC2\xB5s, -100%)");
	expect_fill(data, "com.example.App.c", "#6969ff");
	/* the root: BEFORE 3.5 ms, AFTER 2.5 ms (the band is not AFTER's) */
	expect_title(data, "all",
	             "all (3.00 ms, 100.00%): 3.50 ms \xE2\x86\x92 2.50 ms "
	             "(-1.00 ms, -29%)");
	cr_assert(strstr((char *)data, ">Differential Flame Graph</text>"));
	free(data);
	/* the band is the root's last child: right of main */
	{
		const char *s;
		snprintf(args, sizeof args, "--diff '%s' '%s' -o '%s' --no-javascript", before,
		         after, svg);
		cr_assert_eq(t_cli(args, NULL, NULL, NULL), 0);
		data = t_read(svg, &len);
		s = strstr((char *)data, "<title>main (");
		cr_assert_lt(s - (char *)data, strstr((char *)data, "<title>[removed] (") - (char *)data);
		s = strstr(strstr((char *)data, "<title>[removed] ("), "x=\"");
		cr_assert(strncmp(s, "x=\"993.3\"", 9) == 0, "%.20s", s); /* 10 + 2.5/3 of 1180 */
		free(data);
	}
	unlink(svg);
	free(svg);
	unlink(before);
	unlink(after);
	free(before);
	free(after);
}

Test(diff, folded_negate_normalize_and_clock)
{
	char *before = trace_file("before2.trace", 1000, 500, 2000, AF_WRITER_DUAL);
	char *after = trace_file("after2.trace", 1500, 0, 1000, AF_WRITER_DUAL);
	char args[2048], *out = NULL, *err = NULL, *svg = t_tmp("diff2.svg");
	uint8_t *data;
	size_t len;

	/* folded: difffolded.pl's lines, BEFORE then AFTER; the vanished c
	 * with 0, the band not written */
	snprintf(args, sizeof args, "--diff '%s' '%s' --format folded", before, after);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert_str_eq(out, "main;com.example.App.a;com.example.App.b 1000 1500\n"
	                      "main;com.example.App.a;com.example.App.c 500 0\n"
	                      "main;com.example.App.d 2000 1000\n");
	free(out);
	free(err);
	/* thread-cpu */
	snprintf(args, sizeof args, "--diff '%s' '%s' --format folded --clock cpu", before, after);
	cr_assert_eq(t_cli(args, NULL, &out, NULL), 0);
	cr_assert_str_eq(out, "main;com.example.App.a;com.example.App.b 100 150\n"
	                      "main;com.example.App.a;com.example.App.c 50 0\n"
	                      "main;com.example.App.d 200 100\n");
	free(out);
	/* --normalize: BEFORE scaled by 2500/3500 */
	snprintf(args, sizeof args, "--diff '%s' '%s' --format folded --normalize", before,
	         after);
	cr_assert_eq(t_cli(args, NULL, &out, NULL), 0);
	cr_assert_str_eq(out, "main;com.example.App.a;com.example.App.b 714 1500\n"
	                      "main;com.example.App.a;com.example.App.c 357 0\n"
	                      "main;com.example.App.d 1429 1000\n");
	free(out);
	/* --negate swaps the hues, not the numbers */
	snprintf(args, sizeof args, "--diff '%s' '%s' --negate --no-javascript -o '%s'",
	         before, after, svg);
	cr_assert_eq(t_cli(args, NULL, NULL, NULL), 0);
	data = t_read(svg, &len);
	expect_fill(data, "com.example.App.b", "#6969ff");
	expect_fill(data, "com.example.App.d", "#ff0000");
	expect_in_title(data, "com.example.App.b", "(+500 \xC2\xB5s, +50%)");
	free(data);
	/* PNG and PDF */
	snprintf(args, sizeof args, "--diff '%s' '%s' -o '%s.png'", before, after, svg);
	cr_assert_eq(t_cli(args, NULL, NULL, NULL), 0);
	snprintf(args, sizeof args, "%s.png", svg);
	data = t_read(args, &len);
	cr_assert(data && memcmp(data, "\x89PNG", 4) == 0);
	free(data);
	unlink(args);
	unlink(svg);
	free(svg);
	unlink(before);
	unlink(after);
	free(before);
	free(after);
}

Test(diff, folded_inputs_and_errors)
{
	char *b = t_tmp("b.folded"), *a = t_tmp("a.folded"), *d = t_tmp("d.folded");
	char *wall = trace_file("wall.trace", 10, 10, 10, AF_WRITER_WALL);
	char *cpu = trace_file("cpu.trace", 10, 10, 10, AF_WRITER_THREAD_CPU);
	char args[2048], *out = NULL, *err = NULL;

	t_write(b, "m;x 4\nm;y 2\n", 12);
	t_write(a, "m;x 1\nm;z 5\n", 12);
	t_write(d, "m;x 4 1\n", 8);
	snprintf(args, sizeof args, "--diff '%s' '%s' --format folded", b, a);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert_str_eq(out, "m;x 4 1\nm;y 2 0\nm;z 0 5\n");
	free(out);
	free(err);
	/* a missing second file */
	t_cli_says(2, "--diff needs two inputs: BEFORE AFTER",
	           "--diff '%s'", b);
	/* no clock in common, and a clock one side lacks */
	snprintf(args, sizeof args, "--diff '%s' '%s'", cpu, wall);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 1);
	cr_assert(strstr(err, "records thread-cpu time and"), "%s", err);
	cr_assert(strstr(err, "no clock to compare them on"), "%s", err);
	free(err);
	t_cli_says(1, "the trace has no thread-cpu clock",
	           "--diff '%s' '%s' --clock cpu", wall, wall);
	/* a differential input, and options that do not go with it */
	t_cli_says(1, "already a differential profile",
	           "--diff '%s' '%s'", d, a);
	t_cli_says(2, "--diff draws one graph",
	           "--diff '%s' '%s' --report -", b, a);
	t_cli_says(1, "/nonexistent.trace",
	           "--diff '%s' /nonexistent.trace", b);
	unlink(a);
	unlink(b);
	unlink(d);
	unlink(wall);
	unlink(cpu);
	free(a);
	free(b);
	free(d);
	free(wall);
	free(cpu);
}

/* samples/app-after.trace is the sample app after a known change: Json.parse
 * three times slower, LayoutInflater.inflate twice as fast, no more
 * Tracker.logEvent.  The diff of the two has exactly those changes. */
Test(diff, the_after_sample_differs_by_its_changes)
{
	char *out = NULL, *err = NULL, *line, *next;
	size_t parse = 0, inflate = 0, gone = 0;

	cr_assert_eq(t_cli("--diff " AF_TEST_SAMPLES "/app.trace --format folded "
	                   AF_TEST_SAMPLES "/app-after.trace", NULL, &out, &err), 0, "%s", err);
	for (line = out; *line; line = next) {
		char *nl = strchr(line, '\n'), *sp2, *sp1;
		unsigned long long before, after;
		cr_assert_not_null(nl);
		*nl = '\0';
		next = nl + 1;
		sp2 = strrchr(line, ' ');
		cr_assert_not_null(sp2);
		*sp2 = '\0';
		sp1 = strrchr(line, ' ');
		cr_assert_not_null(sp1);
		*sp1 = '\0';
		before = strtoull(sp1 + 1, NULL, 10);
		after = strtoull(sp2 + 1, NULL, 10);
		if (strstr(line, "com.example.shop.analytics.Tracker.logEvent")) {
			cr_assert_eq(after, 0, "%s", line);
			gone++;
		} else if (strcmp(strrchr(line, ';'), ";com.example.shop.data.Json.parse") == 0) {
			cr_assert_eq(after, 3 * before, "%s", line);
			parse++;
		} else if (strcmp(strrchr(line, ';'), ";android.view.LayoutInflater.inflate") == 0) {
			cr_assert(after < before && after * 2 + 40 >= before, "%s %llu %llu", line,
			          before, after);
			inflate++;
		} else {
			cr_assert_eq(after, before, "%s", line);
		}
	}
	cr_assert(parse > 10 && inflate >= 1 && gone == 2, "%zu %zu %zu", parse, inflate, gone);
	free(out);
	free(err);
}
