/*
 * test_set.c - per-thread image sets: file names, the index page, skipped
 * threads, thumbnails of exact sizes, and byte-identical parallel output.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <libxml/HTMLparser.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

#define SAMPLE AF_TEST_SAMPLES "/app.trace"

static int exists(const char *dir, const char *name)
{
	char p[2048];
	struct stat sb;
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return stat(p, &sb) == 0;
}

static char *read_in(const char *dir, const char *name, size_t *len)
{
	char p[2048];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	return (char *)t_read(p, len);
}

static uint32_t be32(const char *p)
{
	const unsigned char *u = (const unsigned char *)p;
	return (uint32_t)u[0] << 24 | (uint32_t)u[1] << 16 | (uint32_t)u[2] << 8 | u[3];
}

static void png_size(const char *dir, const char *name, uint32_t *w, uint32_t *h)
{
	size_t len;
	char *png = read_in(dir, name, &len);
	cr_assert_not_null(png, "%s missing", name);
	cr_assert(len > 24 && memcmp(png, "\x89PNG", 4) == 0);
	*w = be32(png + 16);
	*h = be32(png + 20);
	free(png);
}

static char *set_of(const char *tag, const char *extra, const char *input)
{
	char *dir = t_tmp(tag), args[2048], *err = NULL;
	snprintf(args, sizeof args, "--per-thread %s -o '%s' '%s'", extra, dir, input);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s", err);
	/* warnings about the input (unknown method ids in real traces) only */
	for (char *line = err; *line; line = strchr(line, '\n') + 1)
		cr_assert(strstr(line, ": warning: ") && strchr(line, '\n'), "%s", err);
	free(err);
	return dir;
}

static int html_errors;

/* libxml2's HTML parser knows HTML 4: it reports HTML 5's elements as
 * unknown tags, which is not an error in the page. */
static void count_error(void *ctx, xmlErrorPtr e)
{
	(void)ctx;
	if (e->code == XML_HTML_UNKNOWN_TAG)
		return;
	fprintf(stderr, "html: %s", e->message);
	html_errors++;
}

Test(set, files_index_and_order)
{
	char *dir = set_of("set1", "", SAMPLE), *html, *p;
	static const char *order[] = {">main</a>", ">pool-1-thread-1</a>",
	                              ">RenderThread</a>", ">pool-1-thread-2</a>"};
	size_t len, i;
	htmlDocPtr doc;
	uint32_t w, h;

	cr_assert(exists(dir, "all.svg") && exists(dir, "all.thumb.png"));
	cr_assert(exists(dir, "1-main.svg") && exists(dir, "1-main.thumb.png"));
	cr_assert(exists(dir, "2-RenderThread.svg"));
	cr_assert(exists(dir, "3-pool-1-thread-1.svg"));
	/* "後台 sync 🔄": only safe characters reach the file name */
	cr_assert(exists(dir, "5-sync.svg"));
	png_size(dir, "1-main.thumb.png", &w, &h);
	cr_assert(w == 480 && h == 150, "%ux%u", w, h);
	html = read_in(dir, "index.html", &len);
	cr_assert_not_null(html);
	html_errors = 0;
	xmlSetStructuredErrorFunc(NULL, count_error);
	doc = htmlReadMemory(html, (int)len, "index.html", "UTF-8",
	                     HTML_PARSE_NONET | HTML_PARSE_NOWARNING);
	cr_assert_not_null(doc);
	xmlFreeDoc(doc);
	cr_assert_eq(html_errors, 0, "index.html has %d HTML errors", html_errors);
	/* biggest first */
	p = html;
	for (i = 0; i < 4; i++) {
		char *q = strstr(p, order[i]);
		cr_assert_not_null(q, "%s not after the one before", order[i]);
		p = q;
	}
	cr_assert(strstr(html, "href=\"1-main.svg\""));
	cr_assert(strstr(html, "src=\"1-main.thumb.png\""));
	cr_assert(strstr(html, "\xe5\x90\x8e\xe5\x8f\xb0 sync \xf0\x9f\x94\x84</a>"));
	cr_assert(strstr(html, "<dt>thread-cpu</dt>"));
	cr_assert(strstr(html, "<dt>most self time</dt>"));
	cr_assert_null(strstr(html, "<script"));
	cr_assert_null(strstr(html, "http"), "no external resource");
	free(html);
	/* each graph's title names the thread, its id, the clock and the time */
	html = read_in(dir, "1-main.svg", &len);
	cr_assert(strstr(html, ">main (tid 1) \xE2\x80\x94 wall clock, 372.4 ms</text>"));
	free(html);
	free(dir);
}

Test(set, skipped_threads_are_listed)
{
	char *dir = set_of("set2", "--min-share 10", SAMPLE), *html;
	size_t len;

	cr_assert_not(exists(dir, "5-sync.svg"));
	cr_assert(exists(dir, "4-pool-1-thread-2.svg"));
	html = read_in(dir, "index.html", &len);
	cr_assert(strstr(html, "1 thread under 10% of the time, not drawn"), "%s", html);
	cr_assert(strstr(html, "<tr class=\"skipped\"><td>\xe5\x90\x8e\xe5\x8f\xb0 sync"));
	free(html);
	free(dir);
}

/* A thread that recorded no time is not "under 0%": the index says why
 * each thread has no graph; counts are grouped; a long frame name breaks
 * only between its parts. */
Test(set, index_says_why_threads_are_missing_and_groups_digits)
{
	af_writer_options o = {.clock = AF_WRITER_WALL};
	af_writer *w = af_writer_new(&o);
	char *in = t_tmp("why.trace"), *dir, *html;
	uint8_t *buf;
	size_t len;
	uint32_t i, tid;

	cr_assert_eq(af_writer_method(w, 4, "com.example.VeryLongClassName$Inner",
	                              "doSomething", "()V", ""), 0);
	cr_assert_eq(af_writer_thread(w, 1, "busy"), 0);
	cr_assert_eq(af_writer_thread(w, 2, "idle"), 0);
	cr_assert_eq(af_writer_thread(w, 3, "resting"), 0);
	cr_assert_eq(af_writer_thread(w, 4, "small"), 0);
	for (i = 0; i < 1500; i++) {
		cr_assert_eq(af_writer_record(w, 1, 4, AF_ENTER, 0, 10 * i), 0);
		cr_assert_eq(af_writer_record(w, 1, 4, AF_EXIT, 0, 10 * i + 10), 0);
	}
	for (tid = 2; tid <= 3; tid++) { /* records, but no time */
		cr_assert_eq(af_writer_record(w, tid, 4, AF_ENTER, 0, 5), 0);
		cr_assert_eq(af_writer_record(w, tid, 4, AF_EXIT, 0, 5), 0);
	}
	cr_assert_eq(af_writer_record(w, 4, 4, AF_ENTER, 0, 0), 0);
	cr_assert_eq(af_writer_record(w, 4, 4, AF_EXIT, 0, 20), 0);
	buf = t_finish(w, &len, NULL);
	t_write(in, buf, len);

	dir = set_of("why1", "", in);
	html = read_in(dir, "index.html", &len);
	cr_assert(strstr(html, ">2 threads recorded no wall time, not drawn</h3>"), "%s", html);
	cr_assert_null(strstr(html, "under 0%"));
	cr_assert(strstr(html, "<dt>records</dt><dd>3,000</dd><dt>calls</dt><dd>1,500</dd>"),
	          "%s", html);
	cr_assert(strstr(html, "<dt>records</dt><dd>3,006</dd>"), "%s", html);
	cr_assert(strstr(html, ">com.<wbr>example.<wbr>VeryLongClassName$<wbr>Inner.<wbr>"
	                       "doSomething ("), "%s", html);
	free(html);
	free(dir);

	dir = set_of("why2", "--min-share 1", in);
	html = read_in(dir, "index.html", &len);
	cr_assert(strstr(html, ">3 threads not drawn: 2 recorded no wall time, "
	                       "1 under 1% of the time</h3>"), "%s", html);
	free(html);
	free(dir);
	free(in);
	free(buf);
}

Test(set, parallel_output_is_byte_identical)
{
	char *a = set_of("par1", "--jobs 1 --format svg,png,pdf,folded", SAMPLE);
	char *b = set_of("par2", "--jobs 4 --format svg,png,pdf,folded", SAMPLE);
	DIR *d = opendir(a);
	struct dirent *ent;
	int files = 0;

	cr_assert_not_null(d);
	while ((ent = readdir(d)) != NULL) {
		size_t la, lb;
		char *x, *y;
		if (ent->d_name[0] == '.')
			continue;
		x = read_in(a, ent->d_name, &la);
		y = read_in(b, ent->d_name, &lb);
		cr_assert(x && y && la == lb && memcmp(x, y, la) == 0, "%s differs", ent->d_name);
		free(x);
		free(y);
		files++;
	}
	closedir(d);
	/* 6 graphs x 4 formats + 6 thumbnails + index */
	cr_assert_eq(files, 6 * 4 + 6 + 1);
	free(a);
	free(b);
}

Test(set, thumbnails_have_the_exact_size)
{
	char *dir = set_of("thumbs", "--thumbnail 320x200", SAMPLE);
	char *out = t_tmp("one.png"), args[1024], *err = NULL;
	uint32_t w, h;

	png_size(dir, "2-RenderThread.thumb.png", &w, &h);
	cr_assert(w == 320 && h == 200, "%ux%u", w, h);
	png_size(dir, "all.thumb.png", &w, &h);
	cr_assert(w == 320 && h == 200, "%ux%u", w, h);
	/* for a single graph, the output is the thumbnail */
	snprintf(args, sizeof args, "--thumbnail 64x40 -o '%s' '%s'", out, SAMPLE);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s", err);
	free(err);
	{
		char *slash = strrchr(out, '/');
		*slash = '\0';
		png_size(out, slash + 1, &w, &h);
		cr_assert(w == 64 && h == 40, "%ux%u", w, h);
	}
	cr_assert_eq(t_cli("--thumbnail 10x10 -", NULL, NULL, &err), 2);
	free(err);
	free(out);
	free(dir);
}

/* The output's name and what is in it agree: -o t.svg is an SVG thumbnail
 * (it was PNG bytes, and exit 0); a name that is no picture is a usage
 * mistake. */
Test(set, a_thumbnail_is_what_its_name_says)
{
	char *svg = t_tmp("thumb.svg"), *pdf = t_tmp("thumb.pdf"), *data;
	size_t len;

	remove(svg);
	t_cli_says(0, "", "--thumbnail 300x80 -o '%s' '%s'", svg, SAMPLE);
	data = (char *)t_read(svg, &len);
	cr_assert(data && len > 100 && memcmp(data, "<?xml", 5) == 0);
	cr_assert(strstr(data, "<svg version=\"1.1\" width=\"300\" height=\"80\""));
	cr_assert_null(strstr(data, "<script"));
	free(data);
	t_cli_says(0, "", "--thumbnail 300x80 -o '%s' '%s'", pdf, SAMPLE);
	data = (char *)t_read(pdf, &len);
	cr_assert(data && len > 4 && memcmp(data, "%PDF", 4) == 0);
	free(data);
	t_cli_says(2, "--thumbnail draws a picture", "--thumbnail 300x80 -o t.folded '%s'", SAMPLE);
	t_cli_says(2, "--thumbnail draws a picture",
	           "--thumbnail 300x80 --format folded '%s'", SAMPLE);
	t_cli_says(2, "cannot tell the format from 't.jpg'", "--thumbnail 300x80 -o t.jpg '%s'",
	           SAMPLE);
	/* --format and the name must agree too: PNG bytes in t.svg were
	 * written, exit 0; nothing is written now */
	remove(svg);
	t_cli_says(2, "--format png does not agree with '", "--thumbnail 300x80 --format png -o '%s' '%s'",
	           svg, SAMPLE);
	cr_assert_null(t_read(svg, &len), "nothing written");
	t_cli_says(2, "--format svg does not agree with 't.pdf'",
	           "--format svg -o t.pdf '%s'", SAMPLE);
	t_cli_says(2, "--format folded does not agree with 't.png'",
	           "--format folded -o t.png '%s'", SAMPLE);
	/* a name with none of the four extensions takes the format asked */
	remove(pdf);
	t_cli_says(0, "", "--thumbnail 300x80 --format svg -o '%s.thumb' '%s'", pdf, SAMPLE);
	{
		char named[4096];
		snprintf(named, sizeof named, "%s.thumb", pdf);
		data = (char *)t_read(named, &len);
		cr_assert(data && len > 5 && memcmp(data, "<?xml", 5) == 0);
		free(data);
		remove(named);
	}
	free(svg);
	free(pdf);
}

/* Dozens of threads with hostile names. */
Test(set, many_threads_and_hostile_names)
{
	af_writer_options o = {.clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	char *in = t_tmp("many.trace"), *dir, *html, name[64];
	uint8_t *buf;
	size_t len, i;

	cr_assert_eq(af_writer_method(w, 4, "a.B", "run", "()V", ""), 0);
	for (i = 1; i <= 40; i++) {
		if (i == 7)
			strcpy(name, "../../etc/passwd <b>&\"x'");
		else if (i == 8)
			strcpy(name, "...");
		else
			snprintf(name, sizeof name, "worker #%zu", i);
		cr_assert_eq(af_writer_thread(w, (uint32_t)i, name), 0);
		cr_assert_eq(af_writer_record(w, (uint32_t)i, 4, AF_ENTER, 0, 0), 0);
		cr_assert_eq(af_writer_record(w, (uint32_t)i, 4, AF_EXIT, (uint32_t)i,
		                              (uint32_t)(10 * i)), 0);
	}
	buf = t_finish(w, &len, NULL);
	t_write(in, buf, len);
	dir = set_of("many", "", in);
	cr_assert(exists(dir, "40-worker_40.svg"));
	cr_assert(exists(dir, "7-.._.._etc_passwd_b_x.svg"));
	cr_assert(exists(dir, "8-....svg"));
	html = read_in(dir, "index.html", &len);
	cr_assert(strstr(html, "&lt;b&gt;&amp;&quot;x&apos;"));
	cr_assert_null(strstr(html, "<b>&"));
	cr_assert(strstr(html, ">worker #40</a>") < strstr(html, ">worker #39</a>"));
	free(html);
	free(dir);
	free(in);
	free(buf);
}

Test(set, every_real_trace)
{
	static const char *names[] = {
		"firefox-profiler-art-trace-regular.trace.gz",
		"firefox-profiler-art-trace-streaming.trace.gz",
		"android-methods-profiler-legacy.trace", "BurrOakApp-dmtrace.trace",
		"JAGAndroidFramework-dmtrace.trace", "perflib-basic-api10.trace",
		"perflib-basic.trace", "perflib-exception.trace", "perflib-mismatched.trace"};
	size_t k;

	if (!t_have_traces())
		cr_skip_test("real traces not found in %s", t_traces_dir());
	for (k = 0; k < sizeof names / sizeof names[0]; k++) {
		char *path = t_trace_path(names[k]), tag[32], *dir;
		snprintf(tag, sizeof tag, "real%zu", k);
		dir = set_of(tag, "--format svg,png", path);
		cr_assert(exists(dir, "index.html") && exists(dir, "all.png"), "%s", names[k]);
		free(dir);
		free(path);
	}
}

Test(set, misuse)
{
	t_cli_says(2, "--per-thread needs -o FOLDER", "--per-thread '" SAMPLE "'");
	t_cli_says(2, "several formats need --per-thread",
	           "--format svg,png -o x.svg '" SAMPLE "'");
}

Test(set, thread_filter_picks_the_graphs)
{
	char *dir = set_of("filter", "--thread main --thread 2", SAMPLE);
	cr_assert(exists(dir, "1-main.svg") && exists(dir, "2-RenderThread.svg"));
	cr_assert_not(exists(dir, "3-pool-1-thread-1.svg"));
	free(dir);
}

/* With no rule that takes frames away, the merged graph's tree is built by
 * the pool beside the threads'.  Reversed, app.trace's merged tree has more
 * than 300 call paths while each thread's has fewer: the set fails on the
 * merged graph alone, says why once, and leaves no folder nor scratch file,
 * whether that graph is the only job running (--jobs 1) or not. */
Test(set, merged_tree_failing_in_the_pool_leaves_nothing)
{
	static const char *const threads[] = {"main", "RenderThread", "pool-1-thread-1",
	                                      "pool-1-thread-2", "5"};
	char *parent = t_tmp("merged-fails"), want[2048], one[2048], args[4096], *err = NULL;
	size_t i;
	int jobs;

	cr_assert_eq(mkdir(parent, 0777), 0);
	snprintf(one, sizeof one, "%s/one.folded", parent);
	/* each thread's graph alone fits under the limit */
	for (i = 0; i < sizeof threads / sizeof *threads; i++) {
		snprintf(args, sizeof args,
		         "--reverse --max-nodes 300 --thread %s -o '%s' '" SAMPLE "'", threads[i],
		         one);
		cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s: %s", threads[i], err);
		free(err);
		cr_assert_eq(remove(one), 0);
	}
	snprintf(want, sizeof want, "aflame-render: %s: call tree has more than 300 nodes\n",
	         SAMPLE);
	for (jobs = 1; jobs <= 4; jobs += 3) {
		DIR *d;
		struct dirent *ent;
		snprintf(args, sizeof args,
		         "--per-thread --reverse --max-nodes 300 --jobs %d -o '%s/set' '" SAMPLE "'",
		         jobs, parent);
		cr_expect_eq(t_cli(args, NULL, NULL, &err), 1, "--jobs %d", jobs);
		cr_expect_str_eq(err, want, "--jobs %d", jobs);
		free(err);
		d = opendir(parent);
		cr_assert_not_null(d);
		while ((ent = readdir(d)))
			cr_expect(strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0,
			          "--jobs %d left %s", jobs, ent->d_name);
		closedir(d);
	}
	rmdir(parent);
	free(parent);
}
