/*
 * test_pprof_out.c - render/pprof.c: `-o FILE.pb.gz` writes a profile that
 * pprof itself reads as the graph: `go tool pprof -raw` (Debian's
 * golang-go) prints each sample's locations and values, which, summed per
 * path, give exactly the command's folded text, on every clock of a trace
 * and for counts; and our own reader gives the same back.  The expected
 * text is the command's own `-o FILE.folded`; what is checked is that
 * pprof, reading the written profile, agrees with it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

/* The inputs written as pprof: the bundled sample (two clocks), real
 * traces of every layout (../shared/traces; skipped when absent), folded
 * text, and a real pprof profile (a count unit of its own). */
typedef struct input {
	const char *path;   /* under the real traces' folder, unless absolute */
	const char *clocks; /* the clocks to compare, or NULL for counts */
	const char *sample_type; /* --sample-type, for a pprof input */
} input;

static const input inputs[] = {
	{AF_TEST_SAMPLES "/app.trace", "wall cpu wait", NULL},
	{"BurrOakApp-dmtrace.trace", "wall", NULL},
	{"android-methods-profiler-legacy.trace", "wall", NULL},
	{"firefox-profiler-art-trace-regular.trace.gz", "wall cpu", NULL},
	{"firefox-profiler-art-trace-streaming.trace.gz", "wall cpu", NULL},
	{"@folded", NULL, NULL}, /* the sample's folded text, as counts */
	{"../inputs/pprof/go-heap-azure-eno-heap.pprof", NULL, "alloc_space"},
};

typedef struct entry {
	char *path;
	unsigned long long value;
} entry;

static int entry_cmp(const void *a, const void *b)
{
	return strcmp(((const entry *)a)->path, ((const entry *)b)->path);
}

/* Folded text rebuilt from `go tool pprof -raw`: each sample's locations
 * (leaf first) reversed and joined by ';', its value in column `col`
 * summed per path, lines sorted by bytes, zero lines left out. */
static char *folded_of_raw(char *raw, int col)
{
	char **names = NULL, **samples = NULL, *p, *save = NULL, *line, *out;
	size_t nnames = 0, nsamples = 0, n = 0, i, size = 1;
	entry *e;
	int part = 0;

	for (line = strtok_r(raw, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strcmp(line, "Samples:") == 0) {
			part = 1;
		} else if (strcmp(line, "Locations") == 0) {
			part = 2;
		} else if (strncmp(line, "Mappings", 8) == 0) {
			part = 3;
		} else if (part == 1 && strchr(line, ':')) {
			cr_assert_not_null(samples = realloc(samples, (nsamples + 1) * sizeof *samples));
			samples[nsamples++] = line;
		} else if (part == 2) {
			/* "     7: 0x0 M=1 NAME :0 s=0" */
			static const char tail[] = " :0 s=0";
			unsigned long id = strtoul(line, &p, 10);
			char *name = strstr(p, " M=1 ");
			size_t len;
			cr_assert(*p == ':' && name, "a location pprof printed: %s", line);
			name += 5;
			len = strlen(name);
			cr_assert(len > sizeof tail - 1 &&
			          strcmp(name + len - (sizeof tail - 1), tail) == 0, "%s", line);
			name[len - (sizeof tail - 1)] = '\0';
			if (id >= nnames) {
				cr_assert_not_null(names = realloc(names, (id + 1) * sizeof *names));
				memset(names + nnames, 0, (id + 1 - nnames) * sizeof *names);
				nnames = id + 1;
			}
			names[id] = name;
		}
	}
	/* each sample: "  V0  V1  V2: id id id " */
	cr_assert_not_null(e = calloc(nsamples + 1, sizeof *e));
	for (i = 0; i < nsamples; i++) {
		char *colon = strchr(samples[i], ':'), buf[1 << 15];
		unsigned long ids[4096];
		size_t nid = 0, len = 0;
		int c;
		*colon = '\0';
		for (c = 0, p = samples[i]; c <= col; c++)
			e[n].value = strtoull(p, &p, 10);
		for (p = colon + 1;;) {
			char *end;
			unsigned long id = strtoul(p, &end, 10);
			if (end == p)
				break;
			cr_assert_lt(nid, 4096u);
			ids[nid++] = id;
			p = end;
		}
		if (e[n].value == 0)
			continue;
		while (nid--) {
			cr_assert(ids[nid] < nnames && names[ids[nid]], "location %lu", ids[nid]);
			len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s",
			                        len ? ";" : "", names[ids[nid]]);
			cr_assert_lt(len, sizeof buf);
		}
		cr_assert_not_null(e[n++].path = strdup(buf));
	}
	qsort(e, n, sizeof *e, entry_cmp);
	for (i = 0; i < n; i++)
		size += strlen(e[i].path) + 24;
	cr_assert_not_null(out = malloc(size));
	p = out;
	*p = '\0';
	for (i = 0; i < n; i++) {
		unsigned long long v = e[i].value;
		while (i + 1 < n && strcmp(e[i].path, e[i + 1].path) == 0)
			v += e[++i].value;
		p += sprintf(p, "%s %llu\n", e[i].path, v);
	}
	for (i = 0; i < n; i++)
		free(e[i].path);
	free(e);
	free(names);
	free(samples);
	return out;
}

/* The command's folded text for `in` on `clock` (NULL: counts). */
static char *our_folded(const char *in, const char *clock, const char *type)
{
	char args[4096], *out = NULL, *err = NULL;
	char *path = t_tmp("pprof-out.folded");

	snprintf(args, sizeof args, "%s%s%s%s -o '%s' '%s'",
	         clock ? "--clock " : "", clock ? clock : "",
	         type ? " --sample-type " : "", type ? type : "", path, in);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s: %s", args, err);
	free(out);
	free(err);
	out = (char *)t_read(path, &(size_t){0});
	cr_assert_not_null(out);
	free(path);
	return out;
}

static int have_go(void)
{
	char *where = t_popen_text("command -v go");
	int ok = where[0] == '/';
	free(where);
	return ok;
}

Test(pprof_out, go_tool_pprof_reads_the_graph, .timeout = 600)
{
	size_t i, checked = 0;

	if (!have_go())
		cr_assert_fail("go not found: the written profiles are checked with go tool "
		               "pprof (apt-get install golang-go; .ci/deps test installs it)");
	for (i = 0; i < sizeof inputs / sizeof *inputs; i++) {
		char in[2048], args[8192], cmd[4096], *pb, *out, *err, *raw;
		const char *clocks = inputs[i].clocks;
		int col = 0;

		if (inputs[i].path[0] == '/') {
			snprintf(in, sizeof in, "%s", inputs[i].path);
		} else if (strcmp(inputs[i].path, "@folded") == 0) {
			char *f = t_tmp("pprof-out-sample.folded");
			snprintf(args, sizeof args, "-o '%s' '%s'", f, AF_TEST_SAMPLES "/app.trace");
			cr_assert_eq(t_cli(args, NULL, NULL, NULL), 0);
			snprintf(in, sizeof in, "%s", f);
			free(f);
		} else {
			snprintf(in, sizeof in, "%s/%s", t_traces_dir(), inputs[i].path);
		}
		if (access(in, R_OK) != 0) {
			cr_log_info("%s is absent (no ../shared): not checked", in);
			continue;
		}
		pb = t_tmp("pprof-out.pb.gz");
		snprintf(args, sizeof args, "%s%s -o '%s' '%s'",
		         inputs[i].sample_type ? "--sample-type " : "",
		         inputs[i].sample_type ? inputs[i].sample_type : "", pb, in);
		cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s: %s", args, err);
		free(out);
		free(err);
		do {
			char clock[8] = "";
			char *want, *got;
			if (clocks) {
				size_t n = strcspn(clocks, " ");
				memcpy(clock, clocks, n);
				clock[n] = '\0';
				clocks += n + (clocks[n] == ' ');
			}
			snprintf(cmd, sizeof cmd, "HOME='" AF_TEST_TMP "' GOCACHE='" AF_TEST_TMP
			         "/gocache' PPROF_TMPDIR='" AF_TEST_TMP "' go tool pprof -raw "
			         "'%s' 2>/dev/null", pb);
			raw = t_popen_text(cmd);
			cr_assert(strstr(raw, "Samples:"), "%s: pprof read nothing:\n%s", in, raw);
			got = folded_of_raw(raw, col++);
			want = our_folded(in, clock[0] ? clock : NULL, inputs[i].sample_type);
			cr_expect(strcmp(got, want) == 0, "%s %s: pprof reads another graph",
			          in, clock);
			checked++;
			free(got);
			free(want);
			free(raw);
		} while (clocks && *clocks);
		free(pb);
	}
	cr_assert_geq(checked, 4, "the bundled sample's clocks and folded text at least");
}

/* Our own reader reads back the graph that was written: every clock of a
 * trace is a sample type, the drawn one the default. */
Test(pprof_out, read_back_as_the_same_graph)
{
	static const char *const clocks[] = {"wall", "cpu", "wait"};
	char args[4096], *pb = t_tmp("pprof-back.pb.gz"), *out, *err;
	size_t i;

	snprintf(args, sizeof args, "--clock cpu -o '%s' '%s'", pb, AF_TEST_SAMPLES "/app.trace");
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	free(out);
	free(err);
	for (i = 0; i < 3; i++) {
		char *want = our_folded(AF_TEST_SAMPLES "/app.trace", clocks[i], NULL);
		char *got = our_folded(pb, NULL, clocks[i]);
		cr_expect_str_eq(got, want, "%s", clocks[i]);
		free(want);
		free(got);
	}
	/* the default sample type is the clock drawn */
	{
		char *want = our_folded(AF_TEST_SAMPLES "/app.trace", "cpu", NULL);
		char *got = our_folded(pb, NULL, NULL);
		cr_expect_str_eq(got, want);
		free(want);
		free(got);
	}
	free(pb);
}

/* Native frames' libraries become mappings: `go tool pprof -raw` lists
 * the library heapprofd's fixture names (f1, f2, f3 in /liblib.so, see
 * test_perfetto_prof.c) with its functions, and our reader gives each
 * frame its library back; a trace without libraries writes no mapping. */
Test(pprof_out, libraries_become_mappings)
{
	char in[4096], args[8400], *pb = t_tmp("pprof-lib.pb.gz"), *svg = t_tmp("pprof-lib.svg");
	char *out = NULL, *err = NULL, *raw, *title;
	struct stat sb;

	snprintf(in, sizeof in, "%s/../inputs/perfetto/"
	         "synthetic-heapprofd-perfetto-heap_profile.pftrace", t_traces_dir());
	if (stat(in, &sb) != 0) {
		free(pb);
		free(svg);
		cr_skip_test("skipped: %s not found (../shared/inputs/perfetto)", in);
	}
	snprintf(args, sizeof args, "-o '%s' '%s'", pb, in);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	free(out);
	free(err);
	snprintf(args, sizeof args, "--no-javascript -o '%s' '%s'", svg, pb);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	free(out);
	free(err);
	title = t_svg_title(svg, "f3");
	cr_assert_not_null(title);
	cr_expect_str_eq(title, "f3 in liblib.so (1000 B, 91.74%)");
	free(title);
	if (have_go()) {
		snprintf(args, sizeof args, "go tool pprof -raw '%s' 2>&1", pb);
		raw = t_popen_text(args);
		cr_expect_not_null(strstr(raw, "\nMappings\n1: 0x0/0x0/0x0 liblib.so  [FN]\n"),
		                   "%s", raw);
		cr_expect_null(strstr(raw, "symbolization failed"), "%s", raw);
		free(raw);
		snprintf(args, sizeof args, "-o '%s' '%s'", pb, AF_TEST_SAMPLES "/app.trace");
		cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
		free(out);
		free(err);
		snprintf(args, sizeof args, "go tool pprof -raw '%s' 2>&1", pb);
		raw = t_popen_text(args);
		/* pprof lists a mapping of its own, without a file */
		cr_expect_not_null(strstr(raw, "\nMappings\n1: 0x0/0x0/0x0   \n"), "%s", raw);
		free(raw);
	} else {
		cr_log_info("go not found: the mapping is not checked with go tool pprof");
	}
	free(pb);
	free(svg);
}

Test(pprof_out, refusals_leave_no_file)
{
	char *pb = t_tmp("pprof-refused.pb.gz"), *diff = t_tmp("pprof-diff.folded");
	static const char two[] = "main;a 1 2\nmain;b 3 0\n";

	t_write(diff, two, sizeof two - 1);
	unlink(pb);
	t_cli_says(1, "a differential profile has two values a path: pprof is written "
	              "from one profile", "-o '%s' '%s'", pb, diff);
	cr_assert_neq(access(pb, F_OK), 0, "no file is left behind");
	t_cli_says(2, "pprof holds every thread in one profile", "--per-thread --format "
	           "svg,pprof -o '%s.d' '%s'", pb, AF_TEST_SAMPLES "/app.trace");
	t_cli_says(2, "--format pprof does not agree with 'x.svg'",
	           "--format pprof -o x.svg '%s'", AF_TEST_SAMPLES "/app.trace");
	t_cli_says(2, "--thumbnail draws a picture", "--thumbnail 200x60 -o '%s' '%s'", pb,
	           AF_TEST_SAMPLES "/app.trace");
	free(pb);
	free(diff);
}
