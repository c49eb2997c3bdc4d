/*
 * bench.c - generates benchmark inputs with the project's trace writer and
 * times aflame-render on them.
 *
 *   aflame-bench CLI WORKDIR [RUNS]
 *   aflame-bench --stages TRACE [RUNS]
 *   aflame-bench --pathological CLI WORKDIR [RUNS] [SCALE]
 *   aflame-bench --deep CLI WORKDIR [RUNS]
 *   aflame-bench --mapping CLI WORKDIR [RUNS]
 *   aflame-bench --targets CLI WORKDIR [ROUNDS]
 *   aflame-bench --compare OLD NEW ROUNDS ARGS...
 *   aflame-bench --cores [RUNS]
 *   aflame-bench --same-pixels A.png B.png
 *
 * The program traced is made up but shaped like an app: 20,000 methods,
 * each calling a few others, 16 threads, stacks 17 deep on average and up to
 * 150, records written in per-thread chunks as ART 14 does.  The seed is
 * fixed, so the inputs are the same on every machine.  Every step runs in a
 * child process; the table gives the median wall time of RUNS runs, the
 * rates, and the child's peak resident memory.
 *
 * --stages times the steps of drawing one trace's merged graph in this
 * process: the font opened, parse, call tree, layout, SVG, PNG, and a font
 * cloned as a set's workers clone it (the main run ends with it for the
 * largest input); then a per-thread set's own steps, each over all its
 * graphs: the threads' trees, layouts and SVGs, every thumbnail, the
 * index page.  Each step twice: repeated in this process, where the later
 * runs find the code and memory warm, and the first time, in a fresh
 * process of this program each run (--stages-once TRACE, its times in s on
 * a line), as the command meets them.
 *
 * --pathological times the sizes robustness is about: 10 million distinct
 * call paths, and 1 GB of folded text (SCALE, e.g. 0.001, shrinks both for a
 * quick check).
 *
 * --deep times stacks 12,500, 100,000 and 1,000,000 frames deep (the
 * default --max-depth): one thread, one method recursing, drawn as folded
 * text with and without --reverse.
 *
 * --mapping times ProGuard/R8 mapping files with one class of 5,000, 20,000
 * and 160,000 methods sharing one obfuscated name (R8 overloads that hard):
 * reading the file, looking every method up by its descriptor, and the
 * command drawing a trace that never uses that class with the mapping.
 *
 * --targets measures issue 19's ratios (the merged SVG against the parse,
 * the PNG and the per-thread set against the SVG), each command in turn;
 * each ratio also round by round (median and quartiles), and the set's
 * again with both outputs on a tmpfs (/dev/shm), without the disk.
 *
 * --cores times one loop (a sum kept in memory) pinned to each core in
 * turn: the cores of a virtual machine need not run alike, and work split
 * evenly across two ends with the slower one.
 *
 * --compare times two builds of the command on the same arguments, in
 * turn, the one that goes first swapped every round, and gives each one's
 * median and the median of the rounds' differences: on a machine whose
 * times move by a tenth from minute to minute, a change of a few
 * milliseconds shows there (a build against itself: within 1.5 ms over 31
 * rounds here).  The command's -q comes first; -o's path is cleared before
 * each run, as --targets does.
 *
 * --same-pixels exits 0 when two PNG files (decoded by cairo's libpng)
 * hold the same image, 1 when not: bench/same-output's check for files
 * whose encoder changed while the pictures must not.
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <cairo.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <malloc.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "aflame/aflame.h"
#include "aflame/writer.h"

#define METHODS 20000
#define THREADS 16
#define CHUNK 1000
#define MAX_DEPTH 150

static uint64_t rng = 0x243F6A8885A308D3ull;

static uint32_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32);
}

/* Each method calls up to four others, fixed for the whole run; a third of
 * the methods are leaves. */
static uint32_t callees[METHODS][4];
static int ncallees[METHODS];

static void make_program(void)
{
	int m, k;
	for (m = 0; m < METHODS; m++) {
		ncallees[m] = next_random() % 3 == 0 ? 0 : 1 + (int)(next_random() % 4);
		for (k = 0; k < ncallees[m]; k++)
			callees[m][k] = next_random() % METHODS;
	}
}

typedef struct walker {
	uint32_t stack[MAX_DEPTH];
	int depth;
	uint32_t cpu, wall;
} walker;

/* Finishes the trace `w` holds into `path`, and frees `w`. */
static int save_trace(af_writer *w, const char *path)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	FILE *f = NULL;
	int r = -1;

	if (af_writer_finish(w, &buf, &len, NULL) == 0 && (f = fopen(path, "wb"))) {
		r = fwrite(buf, 1, len, f) == len ? 0 : -1;
		if (fclose(f) != 0)
			r = -1;
	}
	free(buf);
	af_writer_free(w);
	return r;
}

static int write_trace(const char *path, long records)
{
	af_writer_options o = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	static walker th[THREADS];
	char name[64];
	long i;
	int t;

	rng = 0x243F6A8885A308D3ull;
	make_program();
	memset(th, 0, sizeof th);
	if (!w)
		return -1;
	for (t = 0; t < THREADS; t++) {
		snprintf(name, sizeof name, t == 0 ? "main" : "worker-%d", t);
		if (af_writer_thread(w, (uint32_t)t + 1, name))
			goto out;
	}
	for (i = 0; i < METHODS; i++) {
		snprintf(name, sizeof name, "m%ld", i);
		if (af_writer_method(w, (uint32_t)i * 4, i % 5 ? "com.example.app.feature.Klass"
		                                                : "android.view.View",
		                     name, "()V", "Klass.java"))
			goto out;
	}
	for (i = 0; i < records; i++) {
		walker *k = &th[(i / CHUNK) % THREADS];
		uint32_t tid = (uint32_t)((i / CHUNK) % THREADS) + 1, m;
		int enter;
		k->wall += 1 + next_random() % 20;
		k->cpu = k->wall / 10 * 7;
		/* a walk that drifts towards 17 frames deep */
		if (k->depth == 0)
			enter = 1;
		else if (k->depth >= MAX_DEPTH || ncallees[k->stack[k->depth - 1]] == 0)
			enter = 0;
		else
			enter = next_random() % 100 < (k->depth < 17 ? 62u : 38u);
		if (enter) {
			uint32_t top = k->depth ? k->stack[k->depth - 1] : 0;
			m = k->depth ? callees[top][next_random() % ncallees[top]]
			             : next_random() % 64;
			k->stack[k->depth++] = m;
			if (af_writer_record(w, tid, m * 4, AF_ENTER, k->cpu, k->wall))
				goto out;
		} else {
			m = k->stack[--k->depth];
			if (af_writer_record(w, tid, m * 4, AF_EXIT, k->cpu, k->wall))
				goto out;
		}
	}
	return save_trace(w, path);
out:
	af_writer_free(w);
	return -1;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Minor page faults of this process so far (memory touched the first
 * time: in a short stage they can cost more than its instructions). */
static long minor_faults(void)
{
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static double cpu_of(const struct rusage *ru)
{
	return (double)ru->ru_utime.tv_sec + (double)ru->ru_utime.tv_usec / 1e6 +
	       (double)ru->ru_stime.tv_sec + (double)ru->ru_stime.tv_usec / 1e6;
}

/* Removes what a command writes (its -o 'PATH': a file, or the folder of
 * a per-thread set) when it is there.  Only regular files, and a folder
 * of them: an output such as /dev/null is left alone (removing it as root
 * would break the machine, issue 14). */
static void clear_output(const char *cmd)
{
	const char *at = strstr(cmd, " -o '"), *end;
	char path[4096];
	struct dirent *ent;
	struct stat sb;
	DIR *d;

	/* a path holding a quote (--compare's ARGS quote it as '\'') is not
	 * read: a part of it could name another file */
	if (!at || !(end = strchr(at + 5, '\'')) || end[1] == '\\' ||
	    (size_t)(end - at - 5) >= sizeof path)
		return;
	memcpy(path, at + 5, (size_t)(end - at - 5));
	path[end - at - 5] = '\0';
	if (lstat(path, &sb) != 0)
		return;
	if (S_ISREG(sb.st_mode)) {
		unlink(path);
	} else if (S_ISDIR(sb.st_mode) && (d = opendir(path))) {
		while ((ent = readdir(d)))
			if (fstatat(dirfd(d), ent->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
			    S_ISREG(sb.st_mode))
				unlinkat(dirfd(d), ent->d_name, 0);
		closedir(d);
		rmdir(path);
	}
}

/* Runs `cmd` through the shell; its wall time, peak RSS (KiB) and, when
 * `cpu` is not NULL, the CPU time it and its children took.  Off the
 * clock first: the output of the run before is removed (a command writing
 * over it is timed freeing the old file's blocks as well: 22-25 ms of a
 * 1M-record trace's per-thread set, a sixth of its time, on this kind of
 * machine), and the disk synced, so that no run pays for another's writes
 * or freed blocks (with -o discard, the next journal commit waits on the
 * disk for them). */
static int run_cpu(const char *cmd, double *secs, long *rss, double *cpu)
{
	struct rusage ru;
	int status;
	double t0;
	pid_t pid;

	clear_output(cmd);
	sync();
	t0 = now();
	pid = fork();

	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
		return -1;
	*secs = now() - t0;
	*rss = ru.ru_maxrss;
	if (cpu)
		*cpu = cpu_of(&ru);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int run(const char *cmd, double *secs, long *rss)
{
	return run_cpu(cmd, secs, rss, NULL);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

/* Runs `cmd` `runs` times: the median wall and CPU times, and the
 * largest peak RSS (KiB).  -1 after a message when a run fails. */
static int run_medians(const char *cmd, int runs, double *wall, double *cpu, long *rss)
{
	double t[32], c[32];
	long r;
	int i;

	*rss = 0;
	for (i = 0; i < runs; i++) {
		if (run_cpu(cmd, &t[i], &r, &c[i])) {
			fprintf(stderr, "aflame-bench: failed: %s\n", cmd);
			return -1;
		}
		if (r > *rss)
			*rss = r;
	}
	qsort(t, (size_t)runs, sizeof t[0], cmp_double);
	qsort(c, (size_t)runs, sizeof c[0], cmp_double);
	*wall = t[runs / 2];
	*cpu = c[runs / 2];
	return 0;
}

static off_t size_of(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? sb.st_size : 0;
}

/* Times one step: the median of `runs`, and the largest RSS. */
static int step(const char *what, const char *cmd, int runs, double records,
                double bytes)
{
	double t[32], med;
	long rss = 0, r;
	int i;

	for (i = 0; i < runs; i++) {
		if (run(cmd, &t[i], &r)) {
			fprintf(stderr, "aflame-bench: failed: %s\n", cmd);
			return -1;
		}
		if (r > rss)
			rss = r;
	}
	qsort(t, (size_t)runs, sizeof t[0], cmp_double);
	med = t[runs / 2];
	printf("| %s | %.3f s | ", what, med);
	if (records > 0)
		printf("%.1f M records/s", records / med / 1e6);
	printf(" | ");
	if (bytes > 0)
		printf("%.0f MB/s", bytes / med / 1e6);
	printf(" | %.0f MB |\n", (double)rss / 1024);
	fflush(stdout);
	return 0;
}

/* Folded text with `n` distinct call paths, three frames each. */
static int write_distinct(const char *path, long n)
{
	FILE *f = fopen(path, "w");
	long side = 1, i;

	if (!f)
		return -1;
	while (side * side < n)
		side++;
	for (i = 0; i < n; i++)
		fprintf(f, "main;com.example.Feature%ld.run;com.example.Step%ld.work %ld\n",
		        i / side, i % side, i % 7 + 1);
	return fclose(f);
}

/* About `bytes` of folded text over 2,000 paths of a realistic depth. */
static int write_large(const char *path, double bytes)
{
	FILE *f = fopen(path, "w");
	double done = 0;
	long i;

	if (!f)
		return -1;
	for (i = 0; done < bytes; i++) {
		int n = fprintf(f, "main;android.os.Looper.loop;android.os.Handler.dispatchMessage;"
		                   "com.example.app.Feature%ld.onEvent;com.example.app.Work.step%ld;"
		                   "java.util.HashMap.put %ld\n", i % 40, i % 50, i % 13 + 1);
		if (n < 0)
			break;
		done += n;
	}
	return fclose(f);
}

static int pathological(const char *self, const char *cli, const char *dir, int runs,
                        double scale)
{
	long paths = (long)(10e6 * scale);
	char in[1024], cmd[4096], label[256];
	double mb;

	if (paths < 1000)
		paths = 1000;
	printf("| pathological step | median wall | | input MB/s | peak RSS |\n"
	       "|---|---|---|---|---|\n");
	snprintf(in, sizeof in, "%s/distinct-%ld.folded", dir, paths);
	if (size_of(in) == 0 && write_distinct(in, paths))
		return -1;
	mb = (double)size_of(in);
	snprintf(label, sizeof label, "**%ld distinct call paths** (%.0f MB folded): parse",
	         paths, mb / 1e6);
	snprintf(cmd, sizeof cmd, "'%s' --parse '%s'", self, in);
	if (step(label, cmd, runs, 0, mb))
		return -1;
	snprintf(cmd, sizeof cmd, "'%s' -q -o '%s/distinct.folded' '%s'", cli, dir, in);
	if (step("distinct paths → folded text", cmd, runs, 0, mb))
		return -1;
	snprintf(cmd, sizeof cmd, "'%s' -q -o '%s/distinct.svg' '%s'", cli, dir, in);
	if (step("distinct paths → SVG", cmd, runs, 0, mb))
		return -1;
	snprintf(in, sizeof in, "%s/large-%.0f.folded", dir, 1e9 * scale);
	if (size_of(in) == 0 && write_large(in, 1e9 * scale))
		return -1;
	mb = (double)size_of(in);
	snprintf(label, sizeof label, "**%.0f MB of folded text** → SVG", mb / 1e6);
	snprintf(cmd, sizeof cmd, "'%s' -q -o '%s/large.svg' '%s'", cli, dir, in);
	if (step(label, cmd, runs, 0, mb))
		return -1;
	snprintf(cmd, sizeof cmd, "'%s' -q -o '%s/large.svg' - < '%s'", cli, dir, in);
	if (step("the same from standard input (read into memory)", cmd, runs, 0, mb))
		return -1;
	return 0;
}

/* A trace of one thread whose only method calls itself `depth` deep and
 * returns; the clocks move only in the innermost call, so the graph's one
 * line of folded text holds every frame. */
static int write_deep(const char *path, long depth)
{
	af_writer_options o = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	long i;

	if (!w || af_writer_thread(w, 1, "main") ||
	    af_writer_method(w, 4, "com.example.Deep", "recurse", "(I)V", "Deep.java"))
		goto out;
	for (i = 0; i < depth; i++)
		if (af_writer_record(w, 1, 4, AF_ENTER, 0, 0))
			goto out;
	for (i = 0; i < depth; i++)
		if (af_writer_record(w, 1, 4, AF_EXIT, 700, 1000))
			goto out;
	return save_trace(w, path);
out:
	af_writer_free(w);
	return -1;
}

static int deep(const char *self, const char *cli, const char *dir, int runs,
                double scale)
{
	(void)self;
	(void)scale;
	static const long depths[] = {12500, 100000, 1000000};
	char in[1024], cmd[4096], label[256];
	size_t k;

	printf("| deep stacks | median wall | | input MB/s | peak RSS |\n"
	       "|---|---|---|---|---|\n");
	for (k = 0; k < sizeof depths / sizeof depths[0]; k++) {
		double mb;
		snprintf(in, sizeof in, "%s/deep-%ld.trace", dir, depths[k]);
		if (size_of(in) == 0 && write_deep(in, depths[k]))
			return -1;
		mb = (double)size_of(in);
		snprintf(label, sizeof label, "**%ld frames deep** (%.1f MB) → folded text",
		         depths[k], mb / 1e6);
		snprintf(cmd, sizeof cmd, "'%s' -q -o '%s/deep.folded' '%s'", cli, dir, in);
		if (step(label, cmd, runs, 0, mb))
			return -1;
		snprintf(cmd, sizeof cmd, "'%s' -q --reverse -o '%s/deep.folded' '%s'", cli, dir,
		         in);
		if (step("the same with --reverse", cmd, runs, 0, mb))
			return -1;
	}
	return 0;
}

/* What a per-thread set draws beside the merged graph, as set.c draws it,
 * on this one thread: each thread's call tree, layout and SVG, and every
 * graph's thumbnail (the merged graph's 960x200, the threads' 480x150),
 * then the index page; `sum` gets each step's time over all graphs, in s.
 * The merged graph's own tree, layout and SVG are the rows above. */
enum { SET_TREES, SET_LAYOUTS, SET_SVGS, SET_THUMBS, SET_INDEX, SET_STEPS };

static int set_stages(const af_trace *tr, const af_layout *merged, af_font *font,
                      FILE *sink, double sum[SET_STEPS], af_error *e)
{
	size_t n = af_trace_thread_count(tr), k;
	af_render_options ro = {.font = font, .palette = AF_PALETTE_ANDROID};
	af_render_options thumb;
	af_index_entry *rows = calloc(n ? n : 1, sizeof *rows);
	af_index_options io = {.title = "Flame graphs by thread", .clock = AF_CLOCK_WALL};
	af_layout *tl = NULL;
	af_render_cache *cache = NULL;
	double t0;
	int fail = !rows || af_render_cache_new(&cache, e) != AF_OK;

	memset(sum, 0, SET_STEPS * sizeof *sum);
	ro.cache = cache; /* a worker's, kept from graph to graph */
	thumb = ro;
	thumb.scale = 1;
	thumb.quick_png = 1;
	t0 = now();
	fail = fail || af_layout_thumbnail(merged, 960, 200, &tl, e) != AF_OK ||
	       af_cairo_write(tl, AF_FORMAT_PNG, &thumb, sink, e) != AF_OK;
	af_layout_free(tl);
	sum[SET_THUMBS] += now() - t0;
	for (k = 0; k < n && !fail; k++) {
		/* pruned as the command prunes a graph 1200 px wide (--minwidth 0.1) */
		af_tree_options to = {.one_thread = 1, .thread = k, .clock = AF_CLOCK_WALL,
		                      .prune = 0.1 / (1200 - 20), .prune_clock = AF_CLOCK_WALL};
		af_layout_options lo = {.clock = AF_CLOCK_WALL, .legend = 1};
		af_thread_info ti;
		af_tree *tree = NULL;
		af_layout *l = NULL;

		af_trace_thread(tr, k, &ti);
		rows[k] = (af_index_entry){.name = ti.name, .tid = ti.tid, .records = ti.records,
		                           .calls = ti.calls, .graph = "t.svg", .thumb = "t.png"};
		rows[k].time[AF_CLOCK_WALL] = ti.total[AF_CLOCK_WALL];
		if (ti.total[AF_CLOCK_WALL] == 0) { /* the set skips it too */
			rows[k].graph = rows[k].thumb = NULL;
			continue;
		}
		t0 = now();
		fail = af_tree_from_trace(tr, &to, &tree, e) != AF_OK;
		sum[SET_TREES] += now() - t0;
		t0 = now();
		fail = fail || af_layout_build(tree, &lo, &l, e) != AF_OK;
		sum[SET_LAYOUTS] += now() - t0;
		t0 = now();
		fail = fail || af_svg_write(l, &ro, sink, e) != AF_OK;
		sum[SET_SVGS] += now() - t0;
		t0 = now();
		fail = fail || af_layout_thumbnail(l, 480, 150, &tl, e) != AF_OK ||
		       af_cairo_write(tl, AF_FORMAT_PNG, &thumb, sink, e) != AF_OK;
		sum[SET_THUMBS] += now() - t0;
		af_layout_free(tl);
		tl = NULL;
		af_layout_free(l);
		af_tree_free(tree);
	}
	t0 = now();
	fail = fail || af_html_index_write(sink, &io, rows, n, e) != AF_OK || fflush(sink);
	sum[SET_INDEX] = now() - t0;
	af_render_cache_free(cache);
	free(rows);
	return fail ? -1 : 0;
}

/* The steps of drawing the merged graph of a trace as the command does, then
 * what a per-thread set draws beside it: their names, and one pass of them
 * (stage_pass). */
static const char *const stage_names[] = {
	"parse + aggregate (two cores)", "call tree (pruned as for drawing)",
	"layout", "SVG, written to /dev/null", "PNG, drawn and encoded to /dev/null",
	"a font cloned (a set's worker), a label measured"};
enum { NSTAGES = sizeof stage_names / sizeof stage_names[0] };
static const char *const set_step_names[SET_STEPS] = {
	"set: every thread's call tree", "set: their layouts", "set: their SVGs",
	"set: every graph's thumbnail (frames, PNG)", "set: the index page"};

/* One pass of the steps over the trace at `path` with `font`: each one's
 * wall time in s and minor page faults, the set's steps summed over its
 * graphs; *nthreads the trace's threads.  -1 after setting `e`. */
static int stage_pass(const char *path, af_font *font, double t[NSTAGES],
                      long faults[NSTAGES], double set[SET_STEPS], size_t *nthreads,
                      af_error *e)
{
	af_parse_options po = {.jobs = 2};
	af_tree_options to = {.prune = 0.1 / (1200 - 20) / 4, .clock = AF_CLOCK_WALL};
	af_layout_options lo = {.clock = AF_CLOCK_WALL, .legend = 1};
	af_render_options ro = {.font = font, .palette = AF_PALETTE_ANDROID};
	af_trace *tr = NULL;
	af_tree *tree = NULL;
	af_layout *l = NULL;
	FILE *sink = fopen("/dev/null", "w");
	double t0 = now();
	long f0 = minor_faults();
	int fail;

#define AF_STAGE_END(k) \
	(t[k] = now() - t0, faults[k] = minor_faults() - f0, t0 = now(), f0 = minor_faults())
	if (!sink)
		snprintf(e->message, sizeof e->message, "/dev/null: %s", strerror(errno));
	fail = !sink || af_trace_open(path, &po, &tr, e) != AF_OK;
	AF_STAGE_END(0);
	fail = fail || af_tree_from_trace(tr, &to, &tree, e) != AF_OK;
	AF_STAGE_END(1);
	fail = fail || af_layout_build(tree, &lo, &l, e) != AF_OK;
	AF_STAGE_END(2);
	fail = fail || af_svg_write(l, &ro, sink, e) != AF_OK || fflush(sink);
	AF_STAGE_END(3);
	fail = fail || af_cairo_write(l, AF_FORMAT_PNG, &ro, sink, e) != AF_OK || fflush(sink);
	AF_STAGE_END(4);
	{
		af_font *clone = NULL;
		fail = fail || af_font_clone(font, &clone, e) != AF_OK ||
		       !(af_font_text_width(clone, "android.os.Looper.loop", 22, 12) > 0);
		af_font_free(clone);
	}
	AF_STAGE_END(5);
#undef AF_STAGE_END
	fail = fail || set_stages(tr, l, font, sink, set, e);
	*nthreads = fail ? 0 : af_trace_thread_count(tr);
	if (sink)
		fclose(sink);
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(tr);
	return fail ? -1 : 0;
}

/* --stages-once: the font opened, then one pass, in this fresh process: a
 * line of the times in s (the font's, the steps', the set's steps'). */
static int stages_once(const char *path)
{
	double t[NSTAGES], set[SET_STEPS], opened = now();
	long faults[NSTAGES];
	size_t nthreads, k;
	af_font *font = NULL;
	af_error e = {0};

	if (af_font_open(NULL, &font, &e) != AF_OK) {
		fprintf(stderr, "aflame-bench: font: %s\n", e.message);
		return -1;
	}
	opened = now() - opened;
	if (stage_pass(path, font, t, faults, set, &nthreads, &e)) {
		fprintf(stderr, "aflame-bench: %s: %s\n", path, e.message);
		af_font_free(font);
		return -1;
	}
	af_font_free(font);
	printf("%.9g", opened);
	for (k = 0; k < NSTAGES; k++)
		printf(" %.9g", t[k]);
	for (k = 0; k < SET_STEPS; k++)
		printf(" %.9g", set[k]);
	printf("\n");
	return fflush(stdout) ? -1 : 0;
}

/* The steps of drawing the merged graph of `path`, then a set's own, timed
 * in this process (no process start, no output file), two ways: the median
 * of `runs` passes in this process (the later ones find the code, the
 * font's glyphs and freed memory warm), and the median of `runs` processes
 * of this program doing one pass each (everything done the first time, as
 * the command does it), in ms. */
static int stages(const char *self, const char *path, int runs)
{
	double t[NSTAGES][32], set[SET_STEPS][32], opened, cold_opened[32];
	double cold[NSTAGES][32], cold_set[SET_STEPS][32];
	size_t nthreads = 0;
	long faults[NSTAGES][32];
	af_font *font = NULL;
	af_error e = {0};
	int i, k, fail = 0;
	char cmd[4096];

	opened = now();
	if (af_font_open(NULL, &font, &e) != AF_OK) {
		fprintf(stderr, "aflame-bench: font: %s\n", e.message);
		return -1;
	}
	opened = now() - opened;
	for (i = 0; i < runs && !fail; i++) {
		double row[NSTAGES], srow[SET_STEPS];
		long frow[NSTAGES];
		fail = stage_pass(path, font, row, frow, srow, &nthreads, &e);
		for (k = 0; k < NSTAGES; k++) {
			t[k][i] = row[k];
			faults[k][i] = frow[k];
		}
		for (k = 0; k < SET_STEPS; k++)
			set[k][i] = srow[k];
	}
	af_font_free(font);
	if (fail) {
		fprintf(stderr, "aflame-bench: %s: %s\n", path, e.message);
		return -1;
	}
	snprintf(cmd, sizeof cmd, "'%s' --stages-once '%s'", self, path);
	for (i = 0; i < runs; i++) {
		FILE *p = popen(cmd, "r");
		int got = 0;
		if (p) {
			got += fscanf(p, "%lf", &cold_opened[i]) == 1;
			for (k = 0; k < NSTAGES; k++)
				got += fscanf(p, "%lf", &cold[k][i]) == 1;
			for (k = 0; k < SET_STEPS; k++)
				got += fscanf(p, "%lf", &cold_set[k][i]) == 1;
		}
		if (!p || pclose(p) != 0 || got != 1 + NSTAGES + SET_STEPS) {
			fprintf(stderr, "aflame-bench: failed: %s\n", cmd);
			return -1;
		}
	}
	qsort(cold_opened, (size_t)runs, sizeof cold_opened[0], cmp_double);
	printf("| stage (median of %d) | in process, warm | the first time, in a fresh "
	       "process | minor page faults (warm) |\n|---|---|---|---|\n"
	       "| the font opened (the process's first) | %.2f ms (once) | %.2f ms | |\n",
	       runs, opened * 1e3, cold_opened[runs / 2] * 1e3);
	for (k = 0; k < NSTAGES; k++) {
		qsort(t[k], (size_t)runs, sizeof t[k][0], cmp_double);
		qsort(cold[k], (size_t)runs, sizeof cold[k][0], cmp_double);
		qsort(faults[k], (size_t)runs, sizeof faults[k][0], cmp_long);
		printf("| %s | %.2f ms | %.2f ms | %ld |\n", stage_names[k],
		       t[k][runs / 2] * 1e3, cold[k][runs / 2] * 1e3, faults[k][runs / 2]);
	}
	printf("\n| a per-thread set beside the merged graph (%zu threads; one core, "
	       "median of %d) | in process, warm | the first time, in a fresh process |\n"
	       "|---|---|---|\n", nthreads, runs);
	{
		double all[2] = {0, 0};
		for (k = 0; k < SET_STEPS; k++) {
			qsort(set[k], (size_t)runs, sizeof set[k][0], cmp_double);
			qsort(cold_set[k], (size_t)runs, sizeof cold_set[k][0], cmp_double);
			printf("| %s | %.2f ms | %.2f ms |\n", set_step_names[k],
			       set[k][runs / 2] * 1e3, cold_set[k][runs / 2] * 1e3);
			all[0] += set[k][runs / 2];
			all[1] += cold_set[k][runs / 2];
		}
		printf("| the set's own drawing (the sum) | %.2f ms | %.2f ms |\n", all[0] * 1e3,
		       all[1] * 1e3);
	}
	fflush(stdout);
	return 0;
}

/* A mapping file: one class of `n` methods, all obfuscated to "a", each
 * with its own parameter type and R8's line ranges; then the class the
 * trace of write_mapped_trace() uses. */
static int write_mapping(const char *path, long n)
{
	FILE *f = fopen(path, "w");
	long i;

	if (!f)
		return -1;
	fprintf(f, "# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}\n"
	           "com.example.generated.Big -> a.a:\n");
	for (i = 0; i < n; i++)
		fprintf(f, "    %ld:%ld:void handle%ld(com.example.generated.Event%ld):%ld:%ld -> a\n",
		        i + 1, i + 1, i, i, i + 10, i + 10);
	fprintf(f, "com.example.app.Main -> a.b:\n"
	           "    1:4:void run():10:13 -> a\n"
	           "    5:9:void work(int):20:24 -> b\n");
	return fclose(f);
}

/* A small trace of the class a.b only. */
static int write_mapped_trace(const char *path)
{
	af_writer_options o = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	uint32_t t;

	if (!w || af_writer_thread(w, 1, "main") ||
	    af_writer_method(w, 4, "a.b", "a", "()V", "") ||
	    af_writer_method(w, 8, "a.b", "b", "(I)V", ""))
		goto out;
	for (t = 0; t < 1000; t += 10)
		if (af_writer_record(w, 1, 4, AF_ENTER, t, t) ||
		    af_writer_record(w, 1, 8, AF_ENTER, t + 2, t + 2) ||
		    af_writer_record(w, 1, 8, AF_EXIT, t + 7, t + 7) ||
		    af_writer_record(w, 1, 4, AF_EXIT, t + 9, t + 9))
			goto out;
	return save_trace(w, path);
out:
	af_writer_free(w);
	return -1;
}

/* CPU time of this process: on a machine shared with other work it says
 * what a step costs better than the wall clock. */
static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int mapping_bench(const char *self, const char *cli, const char *dir, int runs,
                         double scale)
{
	static const long sizes[] = {5000, 20000, 160000};
	char trace[1024], map[1024], cmd[4096];
	size_t k;

	(void)self;
	(void)scale;
	snprintf(trace, sizeof trace, "%s/mapped.trace", dir);
	if (write_mapped_trace(trace))
		return -1;
	printf("| methods in one class, one obfuscated name | mapping file | read and "
	       "parse (in process; median wall, median CPU) | every method looked up by "
	       "descriptor | command: a trace drawn with the mapping | peak RSS |\n"
	       "|---|---|---|---|---|---|\n");
	for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		long n = sizes[k], i;
		double parse[32], look[32], pcpu[32], lcpu[32], wall;
		long rss;
		int r;

		snprintf(map, sizeof map, "%s/mapping-%ld.txt", dir, n);
		if (size_of(map) == 0 && write_mapping(map, n))
			return -1;
		for (r = 0; r < runs; r++) {
			af_mapping *m = NULL;
			af_error e = {0};
			char desc[96];
			double t0 = now(), c0 = cpu_now();
			if (af_mapping_load(map, &m, &e) != AF_OK) {
				fprintf(stderr, "aflame-bench: %s: %s (line %lld)\n", map, e.message,
				        e.line);
				return -1;
			}
			parse[r] = now() - t0;
			pcpu[r] = cpu_now() - c0;
			t0 = now();
			c0 = cpu_now();
			for (i = 0; i < n; i++) {
				snprintf(desc, sizeof desc, "(Lcom/example/generated/Event%ld;)V", i);
				if (!af_mapping_method(m, "a.a", "a", desc)) {
					af_mapping_free(m);
					return -1;
				}
			}
			look[r] = now() - t0;
			lcpu[r] = cpu_now() - c0;
			af_mapping_free(m);
		}
		qsort(parse, (size_t)runs, sizeof parse[0], cmp_double);
		qsort(look, (size_t)runs, sizeof look[0], cmp_double);
		qsort(pcpu, (size_t)runs, sizeof pcpu[0], cmp_double);
		qsort(lcpu, (size_t)runs, sizeof lcpu[0], cmp_double);
		snprintf(cmd, sizeof cmd, "'%s' -q --mapping '%s' -o '%s/mapped.svg' '%s'", cli,
		         map, dir, trace);
		{
			double t[32];
			long worst = 0;
			for (r = 0; r < runs; r++) {
				if (run(cmd, &t[r], &rss)) {
					fprintf(stderr, "aflame-bench: failed: %s\n", cmd);
					return -1;
				}
				if (rss > worst)
					worst = rss;
			}
			qsort(t, (size_t)runs, sizeof t[0], cmp_double);
			wall = t[runs / 2];
			rss = worst;
		}
		printf("| %ld | %.1f MB | %.1f ms (%.1f ms CPU) | %.1f ms (%.1f ms CPU) | %.3f s "
		       "| %.0f MB |\n", n, (double)size_of(map) / 1e6, parse[runs / 2] * 1e3,
		       pcpu[runs / 2] * 1e3, look[runs / 2] * 1e3, lcpu[runs / 2] * 1e3, wall,
		       (double)rss / 1024);
		fflush(stdout);
	}
	return 0;
}

/* A trace of about a gibibyte against the 57 MB one: merged SVG and
 * per-thread set from the file, the gzip'd file and standard input; wall
 * and CPU time per MB (CPU time says more on a busy machine), their ratio
 * to the small trace's read the same way, and peak memory against the
 * distinct call paths. */
static int gigabyte(const char *self, const char *cli, const char *dir, int runs,
                    double scale)
{
	static const long sizes[] = {4000000, 75000000};
	double per[4][2] = {{0}}; /* [svg, set, gzip, pipe][wall, cpu] s/MB of the small trace */
	size_t k;

	(void)self;
	(void)scale;
	printf("| input | step | median wall | wall s/GB (× 57 MB's, read alike) | median CPU "
	       "| CPU s/GB (× 57 MB's) | peak RSS | folded lines |\n"
	       "|---|---|---|---|---|---|---|---|\n");
	for (k = 0; k < 2; k++) {
		char trace[1024], gz[1300], cmd[4096], lines[64] = "";
		const char *what[4] = {"merged SVG", "per-thread set", "merged SVG, gzip'd input",
		                       "merged SVG, standard input (a pipe)"};
		double mb;
		int s;

		snprintf(trace, sizeof trace, "%s/app-%ld.trace", dir, sizes[k]);
		snprintf(gz, sizeof gz, "%s.gz", trace);
		if (size_of(trace) == 0 && write_trace(trace, sizes[k])) {
			fprintf(stderr, "aflame-bench: cannot write %s\n", trace);
			return -1;
		}
		snprintf(cmd, sizeof cmd, "gzip -1 -c '%s' > '%s'", trace, gz);
		if (size_of(gz) == 0 && system(cmd) != 0)
			return -1;
		mb = (double)size_of(trace) / 1e6;
		{
			/* distinct call paths: the lines of the merged folded text */
			FILE *p;
			snprintf(cmd, sizeof cmd, "'%s' -q --format folded -o - '%s' | wc -l", cli,
			         trace);
			if ((p = popen(cmd, "r"))) {
				long n = 0;
				if (fscanf(p, "%ld", &n) == 1)
					snprintf(lines, sizeof lines, "%ld", n);
				pclose(p);
			}
		}
		for (s = 0; s < 4; s++) {
			double wall, cpu;
			long rss;
			if (s == 0)
				snprintf(cmd, sizeof cmd, "'%s' -q -o '%s/gb.svg' '%s'", cli, dir, trace);
			else if (s == 1)
				snprintf(cmd, sizeof cmd, "'%s' -q --per-thread -o '%s/gbset' '%s'",
				         cli, dir, trace);
			else if (s == 2)
				snprintf(cmd, sizeof cmd, "'%s' -q -o '%s/gb.svg' '%s'", cli, dir, gz);
			else
				snprintf(cmd, sizeof cmd, "cat '%s' | '%s' -q -o '%s/gb.svg' -", trace,
				         cli, dir);
			if (run_medians(cmd, runs, &wall, &cpu, &rss))
				return -1;
			{
				double w = wall / mb, u = cpu / mb;
				if (k == 0) {
					per[s][0] = w;
					per[s][1] = u;
				}
				printf("| %.0f MB | %s | %.2f s | %.2f (%.2f) | %.2f s | %.2f (%.2f) "
				       "| %.0f MB | %s |\n", mb, what[s], wall, w * 1e3,
				       w / per[s][0], cpu, u * 1e3, u / per[s][1],
				       (double)rss / 1024, s == 0 ? lines : "");
				fflush(stdout);
			}
		}
	}
	return 0;
}

/* A protobuf field written into `b` (tag, then a varint or bytes). */
static size_t pb_varint(uint8_t *b, uint64_t v)
{
	size_t n = 0;
	do {
		b[n++] = (uint8_t)((v & 0x7F) | (v > 0x7F ? 0x80 : 0));
		v >>= 7;
	} while (v);
	return n;
}

static size_t pb_uint(uint8_t *b, unsigned field, uint64_t v)
{
	size_t n = pb_varint(b, (uint64_t)field << 3);
	return n + pb_varint(b + n, v);
}

static size_t pb_bytes(uint8_t *b, unsigned field, const void *p, size_t len)
{
	size_t n = pb_varint(b, (uint64_t)field << 3 | 2);
	n += pb_varint(b + n, len);
	memcpy(b + n, p, len);
	return n + len;
}

/* A Perfetto trace of `events` TrackEvent slice begins and ends on 16
 * threads of one process, named from 2,000 interned names: each thread
 * walks a random call tree up to 24 deep, 1 µs a step.  `few`: the tree
 * is 10 deep with two names at each depth (at most 16,368 call paths),
 * so that memory is the input's, not its paths'. */
static int write_perfetto(const char *path, long events, int few)
{
	enum { PF_THREADS = 16, PF_NAMES = 2000 };
	uint8_t pkt[512], inner[256], packet[600];
	int depth[PF_THREADS] = {0};
	uint64_t ts = 1000000000;
	FILE *f = fopen(path, "wb");
	long k;
	int i;

	if (!f)
		return -1;
	for (i = 0; i <= PF_THREADS; i++) { /* the process's track, then each thread's */
		char name[32];
		size_t n = 0, m = 0, d = 0;
		uint8_t desc[64];
		if (i == 0) {
			d += pb_uint(desc, 1, 4242);
			d += pb_bytes(desc + d, 6, "com.example.app", 15);
			m += pb_uint(inner, 1, 1);
			m += pb_bytes(inner + m, 3, desc, d);
		} else {
			snprintf(name, sizeof name, "worker-%d", i);
			d += pb_uint(desc, 1, 4242);
			d += pb_uint(desc + d, 2, 4242 + (unsigned)i);
			d += pb_bytes(desc + d, 5, name, strlen(name));
			m += pb_uint(inner, 1, 100 + (unsigned)i);
			m += pb_uint(inner + m, 5, 1);
			m += pb_bytes(inner + m, 4, desc, d);
		}
		n += pb_bytes(pkt, 60, inner, m);
		fwrite(packet, 1, pb_bytes(packet, 1, pkt, n), f);
	}
	for (i = 1; i <= PF_NAMES; i++) { /* interned on sequence 1, in batches */
		char name[48];
		size_t n = 0, m = 0, e = 0;
		uint8_t ev[64];
		snprintf(name, sizeof name, "com.example.Module%d.step%d", i % 97, i);
		e += pb_uint(ev, 1, (uint64_t)i);
		e += pb_bytes(ev + e, 2, name, strlen(name));
		m += pb_bytes(inner, 2, ev, e);
		n += pb_uint(pkt, 10, 1);
		n += pb_uint(pkt + n, 13, i == 1 ? 1 : 2);
		n += pb_bytes(pkt + n, 12, inner, m);
		fwrite(packet, 1, pb_bytes(packet, 1, pkt, n), f);
	}
	for (k = 0; k < events; k++) {
		int th = (int)(next_random() % PF_THREADS);
		int begin = depth[th] == 0 ||
		            (depth[th] < (few ? 10 : 24) && next_random() % 2 == 0);
		size_t n = 0, m = 0;
		if (k >= events - 24 * PF_THREADS && depth[th] > 0)
			begin = 0; /* the tail closes what is open */
		m += pb_uint(inner, 9, begin ? 1 : 2);
		if (begin)
			m += pb_uint(inner + m, 10, few ? 1 + (uint64_t)depth[th] * 2 + next_random() % 2
			                               : 1 + next_random() % PF_NAMES);
		m += pb_uint(inner + m, 11, 101 + (unsigned)th);
		n += pb_uint(pkt, 8, ts += 1000);
		n += pb_uint(pkt + n, 10, 1);
		n += pb_uint(pkt + n, 13, 2);
		n += pb_bytes(pkt + n, 11, inner, m);
		depth[th] += begin ? 1 : -1;
		fwrite(packet, 1, pb_bytes(packet, 1, pkt, n), f);
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* A pprof profile of the 4M-record trace's 397,639 call paths, written by
 * the command itself: written, then read back and drawn, and what
 * `go tool pprof -top` takes over the same file when go is there; and a
 * Perfetto trace of 8M slice events. */
static int formats(const char *self, const char *cli, const char *dir, int runs,
                   double scale)
{
	char trace[1024], pb[1100], cmd[4096], label[256];
	double mb;

	(void)self;
	(void)scale;
	snprintf(trace, sizeof trace, "%s/app-4000000.trace", dir);
	snprintf(pb, sizeof pb, "%s/app-4000000.pb.gz", dir);
	if (size_of(trace) == 0 && write_trace(trace, 4000000))
		return -1;
	printf("| step | median wall | records/s | input MB/s | peak RSS |\n"
	       "|---|---|---|---|---|\n");
	mb = (double)size_of(trace);
	snprintf(cmd, sizeof cmd, "'%s' -q -o '%s' '%s'", cli, pb, trace);
	snprintf(label, sizeof label, "4M-record trace (%.1f MB) → pprof", mb / 1e6);
	if (step(label, cmd, runs, 0, mb))
		return -1;
	mb = (double)size_of(pb);
	snprintf(cmd, sizeof cmd, "'%s' -q -o '%s/pprof.svg' '%s'", cli, dir, pb);
	snprintf(label, sizeof label, "pprof of its 397,639 paths (%.1f MB gzip'd) → merged "
	         "SVG", mb / 1e6);
	if (step(label, cmd, runs, 0, mb))
		return -1;
	if (system("command -v go >/dev/null") == 0) {
		snprintf(cmd, sizeof cmd, "HOME='%s' GOCACHE='%s/gocache' go tool pprof -top "
		         "-nodecount=10 '%s' >/dev/null 2>&1", dir, dir, pb);
		if (step("the same pprof, `go tool pprof -top`", cmd, runs, 0, mb))
			return -1;
	}
	snprintf(trace, sizeof trace, "%s/slices-8000000.perfetto-trace", dir);
	if (size_of(trace) == 0 && write_perfetto(trace, 8000000, 0))
		return -1;
	mb = (double)size_of(trace);
	snprintf(cmd, sizeof cmd, "'%s' -q -o '%s/perfetto.svg' '%s'", cli, dir, trace);
	snprintf(label, sizeof label, "Perfetto trace, 8M TrackEvent slice events on 16 "
	         "threads (%.1f MB) → merged SVG", mb / 1e6);
	if (step(label, cmd, runs, 8e6, mb))
		return -1;
	return 0;
}

/* A heapprofd trace of about `bytes`: one process, two callstacks of
 * three frames, then heap dumps of 600 samples each (packets of 8 KiB,
 * as heapprofd's are large). */
static int write_heapprofd(const char *path, double bytes)
{
	static const char *const fn[] = {"main", "work", "malloc"};
	uint8_t pkt[16384], inner[16384], d[16384], m[256], packet[16500];
	FILE *f = fopen(path, "wb");
	double done = 0;
	size_t n, k, i;

	if (!f)
		return -1;
	n = 0; /* process 10's name */
	k = pb_uint(m, 1, 10);
	k += pb_bytes(m + k, 3, "com.example.app", 15);
	i = pb_bytes(inner, 1, m, k);
	n += pb_bytes(pkt, 2, inner, i);
	fwrite(packet, 1, pb_bytes(packet, 1, pkt, n), f);
	i = 0; /* interned: names, frames, callstacks 1 (main work malloc), 2 (main) */
	for (k = 0; k < 3; k++) {
		size_t j = pb_uint(m, 1, k + 1);
		j += pb_bytes(m + j, 2, fn[k], strlen(fn[k]));
		i += pb_bytes(inner + i, 5, m, j);
	}
	for (k = 0; k < 3; k++) {
		size_t j = pb_uint(m, 1, k + 1);
		j += pb_uint(m + j, 2, k + 1);
		i += pb_bytes(inner + i, 6, m, j);
	}
	{
		size_t j = pb_uint(m, 1, 1);
		for (k = 0; k < 3; k++)
			j += pb_uint(m + j, 2, k + 1);
		i += pb_bytes(inner + i, 7, m, j);
		j = pb_uint(m, 1, 2);
		j += pb_uint(m + j, 2, 1);
		i += pb_bytes(inner + i, 7, m, j);
	}
	n = pb_uint(pkt, 10, 1);
	n += pb_uint(pkt + n, 13, 1);
	n += pb_bytes(pkt + n, 12, inner, i);
	fwrite(packet, 1, pb_bytes(packet, 1, pkt, n), f);
	for (k = 0; done < bytes; k++) {
		size_t w;
		i = pb_uint(d, 1, 10);
		for (n = 0; n < 600; n++) {
			size_t j = pb_uint(m, 1, n % 3 == 2 ? 2 : 1);
			j += pb_uint(m + j, 2, 1000 + k);
			j += pb_uint(m + j, 3, 400 + k);
			j += pb_uint(m + j, 5, 10);
			j += pb_uint(m + j, 6, 4);
			i += pb_bytes(d + i, 2, m, j);
		}
		n = pb_bytes(inner, 5, d, i);
		n += pb_uint(inner + n, 7, k);
		i = pb_uint(pkt, 10, 1);
		i += pb_bytes(pkt + i, 37, inner, n);
		w = pb_bytes(packet, 1, pkt, i);
		fwrite(packet, 1, w, f);
		done += (double)w;
	}
	return fclose(f) == 0 ? 0 : -1;
}

/* Perfetto traces of about a gigabyte (issue 16): 55M TrackEvent slice
 * events of at most 16,368 call paths, from the file and from standard
 * input (spilled), and heap dumps; wall and CPU time, MB/s and peak
 * memory, each run in a child. */
static int perfetto_gigabyte(const char *self, const char *cli, const char *dir, int runs,
                             double scale)
{
	char slices[1024], heap[1024], cmd[4096];
	int s;

	(void)self;
	(void)scale;
	snprintf(slices, sizeof slices, "%s/slices-55000000-few.perfetto-trace", dir);
	snprintf(heap, sizeof heap, "%s/heapprofd-1g.perfetto-trace", dir);
	if (size_of(slices) == 0 && write_perfetto(slices, 55000000, 1))
		return -1;
	if (size_of(heap) == 0 && write_heapprofd(heap, 1.07e9))
		return -1;
	printf("| input | median wall | input MB/s | median CPU | peak RSS |\n"
	       "|---|---|---|---|---|\n");
	for (s = 0; s < 3; s++) {
		const char *in = s < 2 ? slices : heap;
		double wall, cpu, mb = (double)size_of(in) / 1e6;
		long rss;
		if (s == 1)
			snprintf(cmd, sizeof cmd, "'%s' -q -o '%s/pfgb.svg' - < '%s'", cli, dir, in);
		else
			snprintf(cmd, sizeof cmd, "'%s' -q -o '%s/pfgb.svg' '%s'", cli, dir, in);
		if (run_medians(cmd, runs, &wall, &cpu, &rss))
			return -1;
		printf("| %s (%.0f MB)%s → merged SVG | %.1f s | %.0f | %.1f s | %.0f MB |\n",
		       s < 2 ? "slices, 55M events" : "heap dumps, 8 KiB packets", mb,
		       s == 1 ? ", standard input" : "", wall, mb / wall, cpu, (double)rss / 1024);
		fflush(stdout);
	}
	return 0;
}

/* Issue 19's targets, as ratios measured in one run: for the 1M- and
 * 4M-record traces, parse alone, the merged SVG, the merged PNG and the
 * per-thread set, each command in turn for `runs` rounds (this machine's
 * speed drifts from minute to minute: taken back to back, two commands
 * would be timed at different speeds), then the medians' ratios.  Each
 * ratio is also taken round by round, its median and quartiles showing
 * how far one run of this table can move.  Where /dev/shm is a tmpfs
 * folder, the SVG and the set are timed writing there too: no disk under
 * them, and an fsync that returns at once, which tells the disk's share of
 * the set's ratio. */
enum { T_PARSE, T_SVG, T_PNG, T_SET, T_SVG_SHM, T_SET_SHM, T_COMMANDS };
enum { T_RATIOS = 4 }; /* the rows of ratios targets() prints */

/* The median, lower and upper quartiles of `v` (`n` values, sorted here). */
static void quartiles(double *v, int n, double q[3])
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	q[0] = v[n / 2];
	q[1] = v[n / 4];
	q[2] = v[(3 * n) / 4];
}

static int targets(const char *self, const char *cli, const char *dir, int runs,
                   double scale)
{
	static const long sizes[] = {1000000, 4000000};
	static const char *const what[T_COMMANDS] = {
		"parse + aggregate alone", "trace → merged SVG", "trace → merged PNG",
		"per-thread set + index", "trace → merged SVG, written to tmpfs",
		"per-thread set + index, written to tmpfs"};
	/* ratio rows: numerator, denominator, label */
	static const struct { int num, den; const char *label; } ratio[T_RATIOS] = {
		{T_SVG, T_PARSE, "merged SVG ÷ parse (target ≤ 1.5)"},
		{T_PNG, T_SVG, "merged PNG ÷ merged SVG (target ≤ 1.2)"},
		{T_SET, T_SVG, "set ÷ merged SVG (target ≤ 1.3)"},
		{T_SET_SHM, T_SVG_SHM, "set ÷ merged SVG, both written to tmpfs"}};
	char shm[64] = "";
	double med[2][T_COMMANDS], q[2][T_RATIOS][3];
	size_t k;
	int i, r, n = T_SVG_SHM, fail = 0;
	struct statfs fs;

	(void)scale;
	snprintf(shm, sizeof shm, "/dev/shm/aflame-bench-%ld", (long)getpid());
	if (statfs("/dev/shm", &fs) == 0 && fs.f_type == TMPFS_MAGIC && mkdir(shm, 0700) == 0)
		n = T_COMMANDS;
	for (k = 0; k < 2 && !fail; k++) {
		char trace[1024], cmd[T_COMMANDS][4096];
		double t[T_COMMANDS][32], rt[T_RATIOS][32];
		long rss;
		snprintf(trace, sizeof trace, "%s/app-%ld.trace", dir, sizes[k]);
		if (size_of(trace) == 0 && write_trace(trace, sizes[k])) {
			fail = 1;
			break;
		}
		snprintf(cmd[T_PARSE], sizeof cmd[0], "'%s' --parse '%s'", self, trace);
		snprintf(cmd[T_SVG], sizeof cmd[0], "'%s' -q -o '%s/t.svg' '%s'", cli, dir, trace);
		snprintf(cmd[T_PNG], sizeof cmd[0], "'%s' -q -o '%s/t.png' '%s'", cli, dir, trace);
		snprintf(cmd[T_SET], sizeof cmd[0], "'%s' -q --per-thread -o '%s/tset' '%s'",
		         cli, dir, trace);
		snprintf(cmd[T_SVG_SHM], sizeof cmd[0], "'%s' -q -o '%s/t.svg' '%s'", cli, shm,
		         trace);
		snprintf(cmd[T_SET_SHM], sizeof cmd[0], "'%s' -q --per-thread -o '%s/tset' '%s'",
		         cli, shm, trace);
		for (r = 0; r < runs && !fail; r++)
			for (i = 0; i < n && !fail; i++)
				if (run(cmd[i], &t[i][r], &rss)) {
					fprintf(stderr, "aflame-bench: failed: %s\n", cmd[i]);
					fail = 1;
				}
		if (fail)
			break;
		for (i = 0; i < T_RATIOS; i++)
			for (r = 0; r < runs; r++)
				rt[i][r] = ratio[i].num < n ? t[ratio[i].num][r] / t[ratio[i].den][r] : 0;
		for (i = 0; i < T_RATIOS; i++)
			quartiles(rt[i], runs, q[k][i]);
		for (i = 0; i < n; i++) {
			qsort(t[i], (size_t)runs, sizeof t[i][0], cmp_double);
			med[k][i] = t[i][runs / 2] * 1e3;
		}
	}
	if (n == T_COMMANDS) {
		char sub[128];
		snprintf(sub, sizeof sub, " -o '%s/tset'", shm);
		clear_output(sub);
		snprintf(sub, sizeof sub, " -o '%s/t.svg'", shm);
		clear_output(sub);
		rmdir(shm);
	}
	if (fail)
		return -1;
	printf("| step (each in turn, median of %d) | 1M records | 4M records |\n"
	       "|---|---|---|\n", runs);
	for (i = 0; i < n; i++)
		printf("| %s | %.1f ms | %.1f ms |\n", what[i], med[0][i], med[1][i]);
	for (i = 0; i < T_RATIOS; i++)
		if (ratio[i].num < n)
			printf("| %s | %.2f× | %.2f× |\n", ratio[i].label,
			       med[0][ratio[i].num] / med[0][ratio[i].den],
			       med[1][ratio[i].num] / med[1][ratio[i].den]);
	printf("\n| the same ratios, round by round | 1M: median (quartiles) "
	       "| 4M: median (quartiles) |\n|---|---|---|\n");
	for (i = 0; i < T_RATIOS; i++)
		if (ratio[i].num < n)
			printf("| %s | %.2f× (%.2f–%.2f) | %.2f× (%.2f–%.2f) |\n", ratio[i].label,
			       q[0][i][0], q[0][i][1], q[0][i][2], q[1][i][0], q[1][i][1],
			       q[1][i][2]);
	fflush(stdout);
	return 0;
}

/* Appends `arg` to the command `cmd` (`n` bytes), quoted for the shell
 * unless it is an option; -1 when it does not fit. */
static int add_arg(char *cmd, size_t n, const char *arg)
{
	size_t len = strlen(cmd);
	const char *c;

	if (arg[0] == '-' && strspn(arg, "-abcdefghijklmnopqrstuvwxyz0123456789") == strlen(arg))
		return snprintf(cmd + len, n - len, " %s", arg) < (int)(n - len) ? 0 : -1;
	if (len + 3 >= n)
		return -1;
	cmd[len++] = ' ';
	cmd[len++] = '\'';
	for (c = arg; *c; c++) {
		const char *piece = *c == '\'' ? "'\\''" : NULL;
		size_t k = piece ? strlen(piece) : 1;
		if (len + k + 2 >= n)
			return -1;
		memcpy(cmd + len, piece ? piece : c, k);
		len += k;
	}
	cmd[len++] = '\'';
	cmd[len] = '\0';
	return 0;
}

/* --compare: `bins[0]` and `bins[1]` run `rounds` times each on `args`,
 * taking turns; the medians, and the median of NEW - OLD round by round. */
static int compare(const char *const bins[2], int rounds, char **args, int nargs)
{
	char cmd[2][8192];
	double *wall[2], *cpu[2], *dw, *dc;
	long rss;
	int k, i, r = -1;

	for (k = 0; k < 2; k++) {
		snprintf(cmd[k], sizeof cmd[k], "'%s' -q", bins[k]);
		for (i = 0; i < nargs; i++)
			if (add_arg(cmd[k], sizeof cmd[k], args[i])) {
				fputs("aflame-bench: --compare: arguments too long\n", stderr);
				return -1;
			}
	}
	wall[0] = calloc((size_t)rounds * 6, sizeof(double));
	if (!wall[0]) {
		fputs("aflame-bench: out of memory\n", stderr);
		return -1;
	}
	wall[1] = wall[0] + rounds;
	cpu[0] = wall[1] + rounds;
	cpu[1] = cpu[0] + rounds;
	dw = cpu[1] + rounds;
	dc = dw + rounds;
	for (i = 0; i < rounds; i++)
		for (k = 0; k < 2; k++) {
			int b = i % 2 ? 1 - k : k; /* who goes first, swapped */
			if (run_cpu(cmd[b], &wall[b][i], &rss, &cpu[b][i])) {
				fprintf(stderr, "aflame-bench: failed: %s\n", cmd[b]);
				goto out;
			}
		}
	for (i = 0; i < rounds; i++) {
		dw[i] = wall[1][i] - wall[0][i];
		dc[i] = cpu[1][i] - cpu[0][i];
	}
	for (k = 0; k < 2; k++) {
		qsort(wall[k], (size_t)rounds, sizeof(double), cmp_double);
		qsort(cpu[k], (size_t)rounds, sizeof(double), cmp_double);
	}
	qsort(dw, (size_t)rounds, sizeof(double), cmp_double);
	qsort(dc, (size_t)rounds, sizeof(double), cmp_double);
	printf("| build (%d rounds, in turn) | wall, median | CPU, median |\n|---|---|---|\n",
	       rounds);
	for (k = 0; k < 2; k++)
		printf("| %s | %.1f ms | %.1f ms |\n", bins[k], wall[k][rounds / 2] * 1e3,
		       cpu[k][rounds / 2] * 1e3);
	printf("| new - old, median of the rounds' | %+.1f ms | %+.1f ms |\n",
	       dw[rounds / 2] * 1e3, dc[rounds / 2] * 1e3);
	fflush(stdout);
	r = 0;
out:
	free(wall[0]);
	return r;
}

typedef struct bench_mode {
	const char *flag;
	int runs; /* by default */
	int (*run)(const char *self, const char *cli, const char *dir, int runs,
	           double scale);
} bench_mode;

static const bench_mode modes[] = {
	{"--pathological", 3, pathological},
	{"--deep", 3, deep},
	{"--gigabyte", 3, gigabyte},
	{"--mapping", 5, mapping_bench},
	{"--formats", 5, formats},
	{"--perfetto-gigabyte", 1, perfetto_gigabyte},
	{"--targets", 15, targets},
};

/* --cores: the same work on each core in turn (the median of `runs`), and
 * each against the fastest. */
static int cores(int runs)
{
	cpu_set_t all, one;
	double best = 0, t[CPU_SETSIZE] = {0};
	int cpu, i;

	if (sched_getaffinity(0, sizeof all, &all) != 0) {
		perror("aflame-bench: sched_getaffinity");
		return -1;
	}
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++) {
		double r[32];
		if (!CPU_ISSET(cpu, &all))
			continue;
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (sched_setaffinity(0, sizeof one, &one) != 0) {
			perror("aflame-bench: sched_setaffinity");
			return -1;
		}
		for (i = 0; i < runs; i++) {
			/* a sum kept in memory: a store and a load each step */
			volatile uint64_t sum = 0;
			uint64_t k;
			double t0 = now();
			for (k = 0; k < 100000000; k++)
				sum += k * k;
			r[i] = now() - t0;
			(void)sum; /* clang: a volatile set is still "unused" */
		}
		qsort(r, (size_t)runs, sizeof r[0], cmp_double);
		t[cpu] = r[runs / 2];
		if (best == 0 || t[cpu] < best)
			best = t[cpu];
	}
	sched_setaffinity(0, sizeof all, &all);
	printf("| core (the same loop pinned to it, median of %d) | wall | against the "
	       "fastest |\n|---|---|---|\n", runs);
	for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (t[cpu] > 0)
			printf("| %d | %.1f ms | %.2f× |\n", cpu, t[cpu] * 1e3, t[cpu] / best);
	fflush(stdout);
	return 0;
}

/* 0 when the PNG files `a` and `b` decode to the same pixels. */
static int same_pixels(const char *a, const char *b)
{
	cairo_surface_t *s[2] = {cairo_image_surface_create_from_png(a),
	                         cairo_image_surface_create_from_png(b)};
	int w = cairo_image_surface_get_width(s[0]), h = cairo_image_surface_get_height(s[0]);
	int differ = cairo_surface_status(s[0]) != CAIRO_STATUS_SUCCESS ||
	             cairo_surface_status(s[1]) != CAIRO_STATUS_SUCCESS ||
	             cairo_image_surface_get_format(s[0]) != cairo_image_surface_get_format(s[1]) ||
	             w != cairo_image_surface_get_width(s[1]) ||
	             h != cairo_image_surface_get_height(s[1]);
	int y;

	for (y = 0; !differ && y < h; y++) {
		const unsigned char *ra = cairo_image_surface_get_data(s[0]) +
		                          (size_t)y * (size_t)cairo_image_surface_get_stride(s[0]);
		const unsigned char *rb = cairo_image_surface_get_data(s[1]) +
		                          (size_t)y * (size_t)cairo_image_surface_get_stride(s[1]);
		differ = memcmp(ra, rb, (size_t)w * 4) != 0;
	}
	cairo_surface_destroy(s[0]);
	cairo_surface_destroy(s[1]);
	return differ;
}

/* The paths this program puts into shell commands go between single
 * quotes: 0 when `path` can, else -1 after saying so. */
static int quotable(const char *path)
{
	if (!strchr(path, '\''))
		return 0;
	fprintf(stderr, "aflame-bench: %s: a path with a ' in it cannot be used\n", path);
	return -1;
}

int main(int argc, char **argv)
{
	static const long sizes[] = {100000, 1000000, 4000000};
	const char *cli, *dir, *self = argv[0];
	char trace[1024], folded[1024], cmd[4096];
	int runs = 5;
	size_t k;

	/* as the command does: large tables always come fresh from the kernel,
	 * so runs in one process cost what a run of the command costs */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	if (argc == 4 && strcmp(argv[1], "--same-pixels") == 0)
		return same_pixels(argv[2], argv[3]);
	if (argc >= 3 && strcmp(argv[1], "--parse") == 0) {
		/* one step on its own: parse and aggregate, nothing drawn; a
		 * third argument gives the cores (af_parse_options.jobs) */
		af_parse_options po = {.jobs = argc > 3 ? atoi(argv[3]) : 0};
		af_trace *t = NULL;
		af_error e = {0};
		if (af_trace_open(argv[2], &po, &t, &e) != AF_OK) {
			fprintf(stderr, "aflame-bench: %s: %s\n", argv[2], e.message);
			return 1;
		}
		af_trace_free(t);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "--cores") == 0) {
		int n = argc > 2 ? atoi(argv[2]) : 5;
		if (n < 1 || n > 31) {
			fputs("usage: aflame-bench --cores [RUNS] (RUNS from 1 to 31)\n", stderr);
			return 2;
		}
		return cores(n) ? 1 : 0;
	}
	if (argc >= 2 && strcmp(argv[1], "--compare") == 0) {
		const char *bins[2] = {argc > 3 ? argv[2] : "", argc > 3 ? argv[3] : ""};
		int n = argc > 5 ? atoi(argv[4]) : 0;
		if (n < 1 || n > 1001) {
			fputs("usage: aflame-bench --compare OLD NEW ROUNDS ARGS... "
			      "(ROUNDS from 1 to 1001)\n", stderr);
			return 2;
		}
		if (quotable(bins[0]) || quotable(bins[1]))
			return 2;
		return compare(bins, n, argv + 5, argc - 5) ? 1 : 0;
	}
	if (argc >= 3 && strcmp(argv[1], "--stages") == 0) {
		int n = argc > 3 ? atoi(argv[3]) : 5;
		if (n < 1 || n > 31) {
			fputs("usage: aflame-bench --stages TRACE [RUNS] (RUNS from 1 to 31)\n",
			      stderr);
			return 2;
		}
		if (quotable(self) || quotable(argv[2]))
			return 2;
		return stages(self, argv[2], n) ? 1 : 0;
	}
	if (argc == 3 && strcmp(argv[1], "--stages-once") == 0)
		return stages_once(argv[2]) ? 1 : 0;
	for (k = 0; k < sizeof modes / sizeof modes[0]; k++) {
		const bench_mode *m = &modes[k];
		int n;
		double scale;
		if (argc < 4 || strcmp(argv[1], m->flag) != 0)
			continue;
		n = argc > 4 ? atoi(argv[4]) : m->runs;
		scale = argc > 5 ? atof(argv[5]) : 1;
		if (n < 1 || n > 31 || !(scale > 0 && scale <= 1) || quotable(self) ||
		    quotable(argv[2]) || quotable(argv[3]))
			return 2;
		if (mkdir(argv[3], 0777) && errno != EEXIST) {
			perror(argv[3]);
			return 1;
		}
		return m->run(self, argv[2], argv[3], n, scale) ? 1 : 0;
	}
	if (argc < 3) {
		fputs("usage: aflame-bench CLI WORKDIR [RUNS]\n"
		      "       aflame-bench --stages TRACE [RUNS]\n"
		      "       aflame-bench --pathological CLI WORKDIR [RUNS] [SCALE]\n"
		      "       aflame-bench --deep CLI WORKDIR [RUNS]\n"
		      "       aflame-bench --mapping CLI WORKDIR [RUNS]\n"
		      "       aflame-bench --gigabyte CLI WORKDIR [RUNS]\n"
		      "       aflame-bench --formats CLI WORKDIR [RUNS]\n"
		      "       aflame-bench --perfetto-gigabyte CLI WORKDIR [RUNS]\n"
		      "       aflame-bench --targets CLI WORKDIR [ROUNDS]\n"
		      "       aflame-bench --compare OLD NEW ROUNDS ARGS...\n"
		      "       aflame-bench --cores [RUNS]\n", stderr);
		return 2;
	}
	cli = argv[1];
	dir = argv[2];
	if (quotable(self) || quotable(cli) || quotable(dir))
		return 2;
	if (argc > 3)
		runs = atoi(argv[3]);
	if (runs < 1 || runs > 31)
		runs = 5;
	if (mkdir(dir, 0777) && errno != EEXIST) {
		perror(dir);
		return 1;
	}
	printf("| step | median wall | records/s | input MB/s | peak RSS |\n"
	       "|---|---|---|---|---|\n");
	for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
		long n = sizes[k];
		double mb;
		char label[128];
		snprintf(trace, sizeof trace, "%s/app-%ld.trace", dir, n);
		snprintf(folded, sizeof folded, "%s/app-%ld.folded", dir, n);
		if (size_of(trace) == 0 && write_trace(trace, n)) {
			fprintf(stderr, "aflame-bench: cannot write %s\n", trace);
			return 1;
		}
		mb = (double)size_of(trace);
		snprintf(label, sizeof label,
		         "**%ld records** (%.1f MB): parse + aggregate, one core", n, mb / 1e6);
		snprintf(cmd, sizeof cmd, "'%s' --parse '%s' 1", self, trace);
		if (step(label, cmd, runs, (double)n, mb))
			return 1;
		snprintf(cmd, sizeof cmd, "'%s' --parse '%s' 2", self, trace);
		if (step("parse + aggregate, two cores", cmd, runs, (double)n, mb))
			return 1;
		snprintf(cmd, sizeof cmd, "'%s' -q -o '%s' '%s'", cli, folded, trace);
		if (step("trace → merged folded text", cmd, runs, (double)n, mb))
			return 1;
		snprintf(cmd, sizeof cmd, "'%s' -q -o '%s/merged.svg' '%s'", cli, dir, trace);
		if (step("trace → merged SVG", cmd, runs, (double)n, mb))
			return 1;
		snprintf(cmd, sizeof cmd, "'%s' -q -o '%s/merged.png' '%s'", cli, dir, trace);
		if (step("trace → merged PNG", cmd, runs, (double)n, mb))
			return 1;
		snprintf(cmd, sizeof cmd, "'%s' -q --per-thread -o '%s/set' '%s'", cli, dir,
		         trace);
		if (step("trace → per-thread SVG set + index", cmd, runs, (double)n, mb))
			return 1;
		snprintf(cmd, sizeof cmd, "'%s' -q -o '%s/folded.svg' '%s'", cli, dir, folded);
		snprintf(label, sizeof label, "folded (%.1f MB) → SVG", (double)size_of(folded) / 1e6);
		if (step(label, cmd, runs, 0, (double)size_of(folded)))
			return 1;
	}
	snprintf(cmd, sizeof cmd, "%s/merged.svg", dir);
	printf("\nmerged SVG of the largest input: %.1f MB\n\n", (double)size_of(cmd) / 1e6);
	/* where the merged graph's time goes, without the process around it */
	return stages(self, trace, runs) ? 1 : 0;
}
