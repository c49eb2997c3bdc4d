/*
 * test_methods.c - the method table (--report): calls, recursive calls,
 * inclusive and exclusive time pinned on generated traces, and compared
 * with dmtracedump's profile on the real traces when it is installed.
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

static af_writer *app(void)
{
	af_writer_options o = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	cr_assert_not_null(w);
	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_thread(w, 2, "worker"), 0);
	cr_assert_eq(af_writer_method(w, A, "com.example.App", "a", "()V", "App.java"), 0);
	cr_assert_eq(af_writer_method(w, B, "com.example.App", "b", "(I)V", "App.java"), 0);
	cr_assert_eq(af_writer_method(w, C, "com.example.App", "b", "(J)V", "App.java"), 0);
	return w;
}

static void rec(af_writer *w, uint32_t tid, uint32_t id, int action, uint32_t cpu,
                uint32_t wall)
{
	cr_assert_eq(af_writer_record(w, tid, id, action, cpu, wall), 0);
}

static af_method_table *table(af_writer *w, af_clock clock, const af_tree_options *o)
{
	size_t len;
	uint8_t *buf = t_finish(w, &len, NULL);
	af_trace *t = t_parse(buf, len);
	af_method_table *m = NULL;
	af_error e = {0};
	cr_assert_eq(af_method_table_build(t, o, clock, &m, &e), AF_OK, "%s", e.message);
	af_trace_free(t);
	free(buf);
	return m;
}

static const af_method_row *row(const af_method_table *m, const char *name)
{
	size_t i;
	for (i = 0; i < m->nrows; i++)
		if (strcmp(m->rows[i].name, name) == 0)
			return &m->rows[i];
	cr_assert_fail("no row %s", name);
	return NULL;
}

static char *written(const af_method_table *m, af_table_format f)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	af_error e = {0};
	cr_assert_not_null(out);
	cr_assert_eq(af_method_table_write(m, f, out, &e), AF_OK);
	fclose(out);
	return buf;
}

/* A -> A -> B: the inner A is a recursive call; A's inclusive time is its
 * outer activation's only. */
Test(methods, direct_recursion)
{
	af_writer *w = app();
	af_method_table *m;
	const af_method_row *a, *b;
	char *tsv;

	rec(w, 1, A, AF_ENTER, 0, 0);
	rec(w, 1, A, AF_ENTER, 10, 100);
	rec(w, 1, B, AF_ENTER, 30, 300);
	rec(w, 1, B, AF_EXIT, 60, 600);
	rec(w, 1, A, AF_EXIT, 70, 700);
	rec(w, 1, A, AF_EXIT, 100, 1000);
	m = table(w, AF_CLOCK_WALL, NULL);
	cr_assert_eq(m->total, 1000);
	cr_assert_eq(m->nrows, 2);
	a = row(m, "com.example.App.a");
	b = row(m, "com.example.App.b");
	cr_assert_eq(a->calls, 1);
	cr_assert_eq(a->recursive_calls, 1);
	cr_assert_eq(a->inclusive, 1000);
	cr_assert_eq(a->exclusive, 100 + 200 + 100 + 300);
	cr_assert_eq(b->calls, 1);
	cr_assert_eq(b->recursive_calls, 0);
	cr_assert_eq(b->inclusive, 300);
	cr_assert_eq(b->exclusive, 300);
	tsv = written(m, AF_TABLE_TSV);
	cr_assert_str_eq(tsv,
	                 "method\tcalls\trecursive_calls\tinclusive_us\tinclusive_pct\t"
	                 "exclusive_us\texclusive_pct\n"
	                 "com.example.App.a\t1\t1\t1000\t100.00\t700\t70.00\n"
	                 "com.example.App.b\t1\t0\t300\t30.00\t300\t30.00\n");
	free(tsv);
	af_method_table_free(m);
}

/* A -> B -> A: the second A is recursive although B is between them. */
Test(methods, indirect_recursion_and_cpu_clock)
{
	af_writer *w = app();
	af_method_table *m;
	const af_method_row *a, *b;

	rec(w, 1, A, AF_ENTER, 0, 0);
	rec(w, 1, B, AF_ENTER, 5, 100);
	rec(w, 1, A, AF_ENTER, 7, 200);
	rec(w, 1, A, AF_EXIT, 17, 400);
	rec(w, 1, B, AF_EXIT, 20, 500);
	rec(w, 1, B, AF_ENTER, 20, 500);  /* a second, non-recursive call of B */
	rec(w, 1, B, AF_EXIT, 21, 510);
	rec(w, 1, A, AF_EXIT, 30, 600);
	m = table(w, AF_CLOCK_CPU, NULL);
	a = row(m, "com.example.App.a");
	b = row(m, "com.example.App.b");
	cr_assert_eq(m->clock, AF_CLOCK_CPU);
	cr_assert_eq(m->total, 30);
	cr_assert_eq(a->calls, 1);
	cr_assert_eq(a->recursive_calls, 1);
	cr_assert_eq(a->inclusive, 30);
	cr_assert_eq(a->exclusive, 5 + 10 + 9);
	cr_assert_eq(b->calls, 2);
	cr_assert_eq(b->recursive_calls, 0);
	cr_assert_eq(b->inclusive, 15 + 1);
	cr_assert_eq(b->exclusive, 2 + 3 + 1);
	af_method_table_free(m);
}

/* Without signatures b(int) and b(long) share a row, and b(long) under
 * b(int) is recursive, as in the graph; with them they are apart.  The
 * thread filter and ties (sorted by name) too. */
Test(methods, names_as_in_the_graph_threads_and_order)
{
	af_tree_options sig = {.signatures = 1};
	const char *only[] = {"worker"};
	af_tree_options worker = {.threads = only, .nthreads = 1};
	af_method_table *m;
	int pass;

	for (pass = 0; pass < 3; pass++) {
		af_writer *w = app();
		rec(w, 1, B, AF_ENTER, 0, 0);
		rec(w, 1, C, AF_ENTER, 0, 10);
		rec(w, 1, C, AF_EXIT, 0, 30);
		rec(w, 1, B, AF_EXIT, 0, 40);
		rec(w, 2, A, AF_ENTER, 0, 0);
		rec(w, 2, A, AF_EXIT, 0, 40);
		m = table(w, AF_CLOCK_WALL, pass == 0 ? NULL : pass == 1 ? &sig : &worker);
		if (pass == 0) {
			cr_assert_eq(m->nrows, 2);
			cr_assert_eq(m->total, 80);
			/* equal inclusive and exclusive: more calls first */
			cr_assert_str_eq(m->rows[0].name, "com.example.App.b");
			cr_assert_eq(row(m, "com.example.App.b")->calls, 1);
			cr_assert_eq(row(m, "com.example.App.b")->recursive_calls, 1);
			cr_assert_eq(row(m, "com.example.App.b")->inclusive, 40);
			cr_assert_eq(row(m, "com.example.App.b")->exclusive, 40);
		} else if (pass == 1) {
			cr_assert_eq(m->nrows, 3);
			cr_assert_eq(row(m, "com.example.App.b(long)")->calls, 1);
			cr_assert_eq(row(m, "com.example.App.b(long)")->recursive_calls, 0);
			cr_assert_eq(row(m, "com.example.App.b(long)")->inclusive, 20);
			cr_assert_eq(row(m, "com.example.App.b(int)")->inclusive, 40);
		} else {
			cr_assert_eq(m->nrows, 1);
			cr_assert_eq(m->total, 40);
			cr_assert_str_eq(m->rows[0].name, "com.example.App.a");
		}
		af_method_table_free(m);
	}
}

Test(methods, folded_input_and_text_format)
{
	const char *text = "main;f;f;g 3\nmain;f 1\nmain;g 2\n";
	af_trace *t = t_parse((const uint8_t *)text, strlen(text));
	af_method_table *m = NULL;
	af_error e = {0};
	char *out;

	cr_assert_eq(af_method_table_build(t, NULL, AF_CLOCK_WALL, &m, &e), AF_OK);
	cr_assert_eq(m->is_time, 0);
	cr_assert_eq(m->total, 6);
	cr_assert_eq(row(m, "main")->inclusive, 6);
	cr_assert_eq(row(m, "f")->inclusive, 4);
	cr_assert_eq(row(m, "f")->exclusive, 1);
	cr_assert_eq(row(m, "g")->inclusive, 5);
	cr_assert_eq(row(m, "g")->exclusive, 5);
	cr_assert_eq(row(m, "g")->calls, 0);
	out = written(m, AF_TABLE_TSV);
	cr_assert(strncmp(out, "method\tcalls\trecursive_calls\tinclusive\tinclusive_pct\t"
	                       "exclusive\texclusive_pct\n", 73) == 0, "%s", out);
	free(out);
	out = written(m, AF_TABLE_TEXT);
	cr_assert_str_eq(out, "3 methods, 6 in all\n\n"
	                      "inclusive       %  exclusive       %  calls recursive  method\n"
	                      "        6 100.00%          0   0.00%      0         0  main\n"
	                      "        5  83.33%          5  83.33%      0         0  g\n"
	                      "        4  66.67%          1  16.67%      0         0  f\n");
	free(out);
	af_method_table_free(m);
	cr_assert_eq(af_method_table_build(t, NULL, AF_CLOCK_CPU, &m, &e), AF_ERR_CLOCK);
	af_trace_free(t);
}

Test(methods, deep_stacks_without_recursion_on_the_c_stack)
{
	af_writer *w = app();
	af_method_table *m;
	uint32_t i, n = 100000;

	for (i = 0; i < n; i++)
		rec(w, 1, i % 2 ? A : B, AF_ENTER, i, i);
	m = table(w, AF_CLOCK_WALL, NULL);
	cr_assert_eq(row(m, "com.example.App.a")->calls, 1);
	cr_assert_eq(row(m, "com.example.App.a")->recursive_calls, n / 2 - 1);
	cr_assert_eq(row(m, "com.example.App.b")->inclusive, n - 1);
	af_method_table_free(m);
}

/* ------------------------------------------------------------------ */
/* The command                                                         */

Test(methods, cli_report_alone_with_a_graph_and_errors)
{
	char *out = NULL, *err = NULL, *svg = t_tmp("report.svg"), *tsv = t_tmp("report.tsv");
	char args[1024];
	size_t len;
	uint8_t *data;

	/* alone: the table on stdout, no graph */
	cr_assert_eq(t_cli("--report - '" AF_TEST_SAMPLES "/app.trace'", NULL, &out, &err), 0,
	             "%s", err);
	cr_assert(strncmp(out, "method\tcalls\trecursive_calls\tinclusive_us\t", 42) == 0);
	cr_assert_null(strstr(out, "<svg"));
	free(out);
	free(err);
	/* with -o: both files */
	snprintf(args, sizeof args, "--report '%s' --report-format text -o '%s' '%s'", tsv,
	         svg, AF_TEST_SAMPLES "/app.trace");
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 0, "%s", err);
	free(err);
	data = t_read(tsv, &len);
	cr_assert_not_null(data);
	cr_assert(strstr((char *)data, "inclusive       %  exclusive"), "%s", data);
	free(data);
	data = t_read(svg, &len);
	cr_assert_not_null(data);
	free(data);
	unlink(tsv);
	unlink(svg);
	/* errors: a bad format, both on stdout, a thread that is not there
	 * (no file left behind) */
	t_cli_says(2, "--report-format takes tsv, text or html, not 'csv'",
	           "--report - --report-format csv x.trace");
	cr_assert_eq(t_cli("--report - -o - '" AF_TEST_SAMPLES "/app.trace'", NULL, NULL, &err),
	             2);
	cr_assert(strstr(err, "both go to standard output"), "%s", err);
	free(err);
	snprintf(args, sizeof args, "--report '%s' --thread nosuch '%s'", tsv,
	         AF_TEST_SAMPLES "/app.trace");
	cr_assert_eq(t_cli(args, NULL, NULL, &err), 1);
	cr_assert(strstr(err, "no thread with records matches"), "%s", err);
	cr_assert(access(tsv, F_OK) != 0);
	free(err);
	free(svg);
	free(tsv);
}

/* ------------------------------------------------------------------ */
/* dmtracedump                                                         */

typedef struct dmt_method {
	char *name;     /* in aflame's form */
	uint64_t calls, recursive, inclusive, exclusive;
	int has_inclusive, dup;
} dmt_method;

typedef struct dmt_profile {
	dmt_method *m;
	size_t n;
	char **orphans; /* methods that returned on an empty stack */
	size_t norphans;
} dmt_profile;

static dmt_method *dmt_at(dmt_method **byidx, size_t *cap, int idx)
{
	if ((size_t)idx >= *cap) {
		size_t old = *cap;
		*cap = (size_t)idx * 2 + 16;
		*byidx = realloc(*byidx, *cap * sizeof **byidx);
		memset(*byidx + old, 0, (*cap - old) * sizeof **byidx);
	}
	return &(*byidx)[idx];
}

/* dmtracedump's profile: the exclusive, inclusive and class sections. */
static dmt_profile dmt_read(const char *path)
{
	char cmd[1024], *text, *line, *save = NULL, cls[4096] = "";
	dmt_method *byidx = NULL;
	size_t cap = 0, i, j;
	int section = 0;
	dmt_profile p = {0};
	int *depth = calloc(65536, sizeof *depth);

	snprintf(cmd, sizeof cmd, "dmtracedump '%s' 2>/dev/null", path);
	text = t_popen_text(cmd);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long a, b, c, d;
		double x, y;
		int idx, n = 0;
		dmt_method *m;

		if (strncmp(line, "Exclusive elapsed times for each method", 39) == 0)
			section = 1;
		else if (strncmp(line, "Inclusive elapsed times", 23) == 0)
			section = 2;
		else if (strncmp(line, "Exclusive elapsed time for each class", 37) == 0)
			section = 3;
		else if (strncmp(line, "Exclusive elapsed time for each method,", 39) == 0)
			section = 4;
		if (section == 1 &&
		    sscanf(line, "%llu %lf %lf [%d] %n", &a, &x, &y, &idx, &n) == 4 && n) {
			m = dmt_at(&byidx, &cap, idx);
			m->exclusive = a;
			if (!m->name)
				m->name = t_dmt_name(line + n);
		} else if (section == 2 && line[0] == '[' &&
		           sscanf(line, "[%d] %lf%% %llu+%llu %llu %n", &idx, &x, &a, &b, &c, &n) ==
		                   5 && n) {
			m = dmt_at(&byidx, &cap, idx);
			m->calls = a;
			m->recursive = b;
			m->inclusive = c;
			m->has_inclusive = 1;
			free(m->name);
			m->name = t_dmt_name(line + n);
		} else if (section == 3 &&
		           sscanf(line, "%llu %llu %lf %lf %llu+%llu [%d] %n", &a, &b, &x, &y, &c, &d,
		                  &idx, &n) == 7 && n) {
			m = dmt_at(&byidx, &cap, idx);
			m->exclusive = a;
			m->calls = c;
			m->recursive = d;
			if (!m->name) {
				char full[8192];
				snprintf(full, sizeof full, "%s.%s", cls, line + n);
				m->name = t_dmt_name(full);
			}
		} else if (section == 3 &&
		           sscanf(line, "%llu %lf %lf %llu+%llu %n", &a, &x, &y, &c, &d, &n) == 5 &&
		           n) {
			snprintf(cls, sizeof cls, "%s", line + n);
		}
	}
	free(text);
	/* the same name twice (bridge methods: same parameters, another return
	 * type) is one row of aflame's */
	for (i = 0; i < cap; i++) {
		dmt_method *m = &byidx[i];
		if (!m->name)
			continue;
		for (j = 0; j < p.n && strcmp(p.m[j].name, m->name) != 0; j++)
			;
		if (j < p.n) {
			p.m[j].calls += m->calls;
			p.m[j].recursive += m->recursive;
			p.m[j].exclusive += m->exclusive;
			p.m[j].dup = 1;
			free(m->name);
			continue;
		}
		p.m = realloc(p.m, (p.n + 1) * sizeof *p.m);
		p.m[p.n++] = *m;
	}
	free(byidx);
	/* orphan exits, from the record dump */
	snprintf(cmd, sizeof cmd, "dmtracedump -o '%s' 2>/dev/null", path);
	text = t_popen_text(cmd);
	save = NULL;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int tid, n = 0;
		char act[4];
		unsigned long long t;
		char *name;
		if (sscanf(line, "%d %3s%*c %llu%n", &tid, act, &t, &n) != 3 || !n || tid < 0 ||
		    tid > 65535)
			continue;
		if (strcmp(act, "ent") == 0) {
			depth[tid]++;
			continue;
		}
		if (depth[tid] > 0) {
			depth[tid]--;
			continue;
		}
		name = line + n + 1;
		while (*name == '.')
			name++;
		p.orphans = realloc(p.orphans, (p.norphans + 1) * sizeof *p.orphans);
		p.orphans[p.norphans++] = t_dmt_name(name);
	}
	free(text);
	free(depth);
	return p;
}

static int is_orphan(const dmt_profile *p, const char *name)
{
	size_t i;
	for (i = 0; i < p->norphans; i++)
		if (strcmp(p->orphans[i], name) == 0)
			return 1;
	return 0;
}

static int have_dmtracedump(void)
{
	if (system("command -v dmtracedump >/dev/null 2>&1") == 0)
		return 1;
	cr_log_info("skipped: dmtracedump is not installed (apt-get install dmtracedump)");
	return 0;
}

/* Every method dmtracedump lists agrees with the table, but for the
 * differences that follow from the two readers' rules:
 *  - a method that returned on an empty stack (entered before tracing
 *    began): dmtracedump times it from clock 0 and gives the time the
 *    thread spent with an empty stack to "(toplevel)"; aflame re-roots the
 *    thread under it from the thread's first record and gives it that
 *    time.  Its calls agree;
 *  - bridge methods (same class, name and parameters, another return type)
 *    are two methods to dmtracedump and one name to aflame, where the
 *    bridge calling the real method is a recursive call: calls plus
 *    recursive calls and exclusive time agree;
 *  - "(unknown)" gathers every unknown id; aflame names each one: sums
 *    agree.  "(toplevel)" is not a method. */
Test(methods, agrees_with_dmtracedump, .timeout = 120)
{
	static const char *files[] = {
		"perflib-basic-api10.trace", "perflib-basic.trace", "perflib-exception.trace",
		"perflib-mismatched.trace", "JAGAndroidFramework-dmtrace.trace",
		"BurrOakApp-dmtrace.trace", "android-methods-profiler-legacy.trace",
		"firefox-profiler-art-trace-regular.trace.gz"};
	size_t f;

	if (!t_have_traces() || !have_dmtracedump())
		return;
	for (f = 0; f < sizeof files / sizeof files[0]; f++) {
		char *path = t_trace_path(files[f]), *plain = path;
		af_trace *t = NULL;
		af_method_table *m = NULL;
		af_tree_options sig = {.signatures = 1};
		af_error e = {0};
		dmt_profile d;
		size_t i, exact = 0, orphan = 0, bridge = 0, unlisted = 0, compared = 0;

		if (strstr(files[f], ".gz")) { /* dmtracedump reads plain files */
			char cmd[2048];
			plain = t_tmp("dmt-plain.trace");
			snprintf(cmd, sizeof cmd, "gzip -dc '%s' > '%s'", path, plain);
			cr_assert_eq(system(cmd), 0);
		}
		cr_assert_eq(af_trace_open(plain, NULL, &t, &e), AF_OK, "%s", e.message);
		cr_assert_eq(af_method_table_build(t, &sig, AF_CLOCK_CPU, &m, &e), AF_OK);
		d = dmt_read(plain);
		cr_assert_gt(d.n, 3, "%s: dmtracedump printed no profile", files[f]);
		for (i = 0; i < d.n; i++) {
			const dmt_method *dm = &d.m[i];
			af_method_row ours = {0};
			size_t k;
			int found = 0;

			if (strcmp(dm->name, "(toplevel)") == 0)
				continue;
			for (k = 0; k < m->nrows; k++) {
				const af_method_row *r = &m->rows[k];
				if (strcmp(dm->name, "(unknown)") == 0
				        ? strncmp(r->name, "(unknown method ", 16) == 0
				        : strcmp(r->name, dm->name) == 0) {
					ours.calls += r->calls;
					ours.recursive_calls += r->recursive_calls;
					ours.inclusive += r->inclusive;
					ours.exclusive += r->exclusive;
					found = 1;
				}
			}
			cr_assert(found, "%s: %s is not in the table", files[f], dm->name);
			compared++;
			cr_assert_eq(ours.calls + ours.recursive_calls, dm->calls + dm->recursive,
			             "%s: %s: %llu+%llu calls, dmtracedump %llu+%llu", files[f],
			             dm->name, (unsigned long long)ours.calls,
			             (unsigned long long)ours.recursive_calls,
			             (unsigned long long)dm->calls, (unsigned long long)dm->recursive);
			if (ours.calls == dm->calls && ours.exclusive == dm->exclusive &&
			    (!dm->has_inclusive || ours.inclusive == dm->inclusive)) {
				exact++;
			} else if (is_orphan(&d, dm->name)) {
				orphan++;
			} else {
				cr_assert(dm->dup || strcmp(dm->name, "(unknown)") == 0,
				          "%s: %s: %llu calls, %llu incl, %llu excl; dmtracedump %llu, "
				          "%llu, %llu", files[f], dm->name,
				          (unsigned long long)ours.calls, (unsigned long long)ours.inclusive,
				          (unsigned long long)ours.exclusive, (unsigned long long)dm->calls,
				          (unsigned long long)dm->inclusive,
				          (unsigned long long)dm->exclusive);
				cr_assert_eq(ours.exclusive, dm->exclusive, "%s: %s", files[f], dm->name);
				bridge++;
			}
		}
		/* what dmtracedump leaves out has no time */
		for (i = 0; i < m->nrows; i++) {
			const af_method_row *r = &m->rows[i];
			size_t k;
			for (k = 0; k < d.n && strcmp(d.m[k].name, r->name) != 0; k++)
				;
			if (k == d.n && strncmp(r->name, "(unknown method ", 16) != 0) {
				cr_assert(r->inclusive == 0 && r->exclusive == 0, "%s: %s", files[f],
				          r->name);
				unlisted++;
			}
		}
		fprintf(stderr, "dmtracedump %s: %zu methods compared, %zu exact, %zu differ by "
		        "orphan exits, %zu bridge methods; %zu zero-time methods it does not "
		        "list\n", files[f], compared, exact, orphan, bridge, unlisted);
		cr_assert_eq(exact + orphan + bridge, compared);
		cr_assert_gt(exact, 0, "%s", files[f]);
		for (i = 0; i < d.n; i++)
			free(d.m[i].name);
		for (i = 0; i < d.norphans; i++)
			free(d.orphans[i]);
		free(d.m);
		free(d.orphans);
		af_method_table_free(m);
		af_trace_free(t);
		if (plain != path) {
			unlink(plain);
			free(plain);
		}
		free(path);
	}
}

/* --thread on folded input: the table holds the lines whose first frame is
 * named, as the graph does, and its 100% is their total. */
Test(methods, folded_input_thread_filter)
{
	const char *text = "main;f;f;g 3\nmain;f 1\nmain;g 2\nworker;g 4\n";
	af_trace *t = t_parse((const uint8_t *)text, strlen(text));
	const char *main_only[] = {"main"}, *g[] = {"g"};
	af_tree_options o = {.threads = main_only, .nthreads = 1};
	af_method_table *m = NULL;
	af_error e = {0};

	cr_assert_eq(af_method_table_build(t, &o, AF_CLOCK_WALL, &m, &e), AF_OK, "%s",
	             e.message);
	cr_assert_eq(m->total, 6);
	cr_assert_eq(m->nrows, 3);
	cr_assert_eq(row(m, "main")->inclusive, 6);
	cr_assert_eq(row(m, "g")->inclusive, 5);
	cr_assert_eq(row(m, "g")->exclusive, 5);
	af_method_table_free(m);
	cr_assert_eq(af_method_table_build(t, NULL, AF_CLOCK_WALL, &m, &e), AF_OK);
	cr_assert_eq(m->total, 10);
	cr_assert_eq(row(m, "g")->exclusive, 9);
	af_method_table_free(m);
	o.threads = g; /* a frame, not a first frame */
	cr_assert_eq(af_method_table_build(t, &o, AF_CLOCK_WALL, &m, &e), AF_ERR_EMPTY);
	cr_assert_str_eq(e.message, "no line's first frame matches the --thread filter");
	cr_assert_null(m);
	af_trace_free(t);
}
