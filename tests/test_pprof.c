/*
 * test_pprof.c - pprof profiles (src/pprof.c): profiles made here field by
 * field (inline frames, the sample type pprof would choose, detection), and
 * the real profiles of ../shared/inputs/pprof against what pprof itself
 * prints for them.
 *
 * Where the expected numbers of the real profiles come from: pprof, run by
 * the test on the same file as `go tool pprof -top` (Debian's golang-go,
 * which `.ci/deps test` installs) with the same sample type, every node
 * listed (-nodecount=1000000 -nodefraction=0 -edgefraction=0) and values in
 * the sample type's own unit (-unit=ns, -unit=B) so that they print as exact
 * integers, and names as the profile writes them (-symbolize=none here, and
 * --no-demangle's option on this side: pprof's own demangling also cuts the
 * parameters of Julia's names, which this reader keeps).  Its "of N total" must be the method table's total, and for
 * every function its flat and cum the table's exclusive and inclusive value.
 * Without ../shared the real-profile tests skip; with it but without `go`
 * they fail, since CI installs it.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "support.h"

/* ------------------------------------------------------------------ */
/* Profiles made field by field                                        */

typedef struct pb {
	uint8_t *b;
	size_t len, cap;
} pb;

static void pb_bytes(pb *p, const void *data, size_t n)
{
	if (p->len + n > p->cap) {
		p->cap = (p->len + n) * 2 + 64;
		p->b = realloc(p->b, p->cap);
		cr_assert_not_null(p->b);
	}
	memcpy(p->b + p->len, data, n);
	p->len += n;
}

static void pb_varint(pb *p, uint64_t v)
{
	do {
		uint8_t c = (uint8_t)(v & 0x7F);
		v >>= 7;
		if (v)
			c |= 0x80;
		pb_bytes(p, &c, 1);
	} while (v);
}

static void pb_int(pb *p, unsigned field, uint64_t v)
{
	pb_varint(p, (uint64_t)field << 3);
	pb_varint(p, v);
}

/* A length-delimited field holding `sub` (freed). */
static void pb_msg(pb *p, unsigned field, pb *sub)
{
	pb_varint(p, (uint64_t)field << 3 | 2);
	pb_varint(p, sub->len);
	pb_bytes(p, sub->b, sub->len);
	free(sub->b);
	memset(sub, 0, sizeof *sub);
}

static void pb_str(pb *p, unsigned field, const char *s)
{
	pb_varint(p, (uint64_t)field << 3 | 2);
	pb_varint(p, strlen(s));
	pb_bytes(p, s, strlen(s));
}

static void pb_value_type(pb *p, int64_t type, int64_t unit)
{
	pb v = {0};
	pb_int(&v, 1, (uint64_t)type);
	pb_int(&v, 2, (uint64_t)unit);
	pb_msg(p, 1, &v);
}

static void pb_function(pb *p, uint64_t id, int64_t name)
{
	pb f = {0};
	pb_int(&f, 1, id);
	pb_int(&f, 2, (uint64_t)name);
	pb_msg(p, 5, &f);
}

/* A location with the functions of its lines, innermost first. */
static void pb_location(pb *p, uint64_t id, const uint64_t *fns, size_t n)
{
	pb l = {0};
	size_t i;
	pb_int(&l, 1, id);
	for (i = 0; i < n; i++) {
		pb line = {0};
		pb_int(&line, 1, fns[i]);
		pb_int(&line, 2, 10 + i);
		pb_msg(&l, 4, &line);
	}
	pb_msg(p, 4, &l);
}

/* A sample: its locations leaf first, its values (packed, as Go writes
 * them). */
static void pb_sample(pb *p, const uint64_t *locs, size_t nloc, const int64_t *vals,
                      size_t nval)
{
	pb s = {0}, packed = {0};
	size_t i;
	for (i = 0; i < nloc; i++)
		pb_int(&s, 1, locs[i]);
	for (i = 0; i < nval; i++)
		pb_varint(&packed, (uint64_t)vals[i]);
	pb_msg(&s, 2, &packed);
	pb_msg(p, 2, &s);
}

/* The strings of the profiles below, by index. */
static const char *const strings[] = {"", "samples", "count", "cpu", "nanoseconds",
                                      "main", "run", "inl", "leaf", "alloc", "bytes"};

/* main -> run, where run's location holds inl inlined into run, and leaf
 * called from inl; and main alone.  Two sample types, samples/count and
 * cpu/nanoseconds; `dflt` the string index of default_sample_type, or 0. */
static pb small_profile(int64_t dflt)
{
	pb p = {0};
	size_t i;
	static const uint64_t main_fn[] = {1}, run_inl[] = {3, 2}, leaf[] = {4};
	static const uint64_t path1[] = {3, 2, 1}, path2[] = {1}, path3[] = {2, 1};
	static const int64_t v1[] = {2, 20000}, v2[] = {1, 7000}, v3[] = {4, 1000};

	pb_int(&p, 9, 1700000000000000000ull); /* time_nanos first, as Go */
	pb_value_type(&p, 1, 2);
	pb_value_type(&p, 3, 4);
	pb_sample(&p, path1, 3, v1, 2);
	pb_sample(&p, path2, 1, v2, 2);
	pb_sample(&p, path3, 2, v3, 2);
	pb_location(&p, 1, main_fn, 1);
	pb_location(&p, 2, run_inl, 2);
	pb_location(&p, 3, leaf, 1);
	pb_function(&p, 1, 5);
	pb_function(&p, 2, 6);
	pb_function(&p, 3, 7);
	pb_function(&p, 4, 8);
	for (i = 0; i < sizeof strings / sizeof *strings; i++)
		pb_str(&p, 6, strings[i]);
	if (dflt)
		pb_int(&p, 14, (uint64_t)dflt);
	return p;
}

static char *folded_of(const pb *p, const char *sample_type)
{
	af_parse_options o = {.sample_type = sample_type};
	af_trace *t = t_parse_with(p->b, p->len, &o);
	char *out;

	cr_assert(af_trace_get_info(t)->pprof);
	out = t_folded_trace(t, AF_CLOCK_WALL, NULL);
	af_trace_free(t);
	return out;
}

/* A location's lines are its inlined frames: the last is the outermost,
 * so run's location gives run;inl, as pprof -traces shows it. */
Test(pprof, inline_frames_expand_outermost_first)
{
	pb p = small_profile(0);
	char *f = folded_of(&p, "samples");

	cr_expect_str_eq(f, "main 1\n"
	                    "main;run;inl 4\n"
	                    "main;run;inl;leaf 2\n");
	free(f);
	free(p.b);
}

/* pprof's choice: the profile's default_sample_type, else the last type;
 * --sample-type by name or by index. */
Test(pprof, sample_type_chosen_as_pprof_chooses)
{
	pb last = small_profile(0), dflt = small_profile(1);
	char *f;
	af_trace *t = NULL;
	af_error e = {0};

	f = folded_of(&last, NULL);
	cr_expect_str_eq(f, "main 7000\nmain;run;inl 1000\nmain;run;inl;leaf 20000\n");
	free(f);
	f = folded_of(&dflt, NULL);
	cr_expect_str_eq(f, "main 1\nmain;run;inl 4\nmain;run;inl;leaf 2\n");
	free(f);
	f = folded_of(&dflt, "cpu");
	cr_expect_str_eq(f, "main 7000\nmain;run;inl 1000\nmain;run;inl;leaf 20000\n");
	free(f);
	f = folded_of(&last, "0");
	cr_expect_str_eq(f, "main 1\nmain;run;inl 4\nmain;run;inl;leaf 2\n");
	free(f);
	cr_assert_eq(af_trace_parse(last.b, last.len, NULL, &t, &e), AF_OK, "%s", e.message);
	cr_expect_str_eq(af_trace_get_info(t)->sample_type, "cpu");
	cr_expect_str_eq(af_trace_get_info(t)->sample_unit, "nanoseconds");
	af_trace_free(t);
	{
		af_parse_options o = {.sample_type = "alloc_space"};
		cr_expect_eq(af_trace_parse(last.b, last.len, &o, &t, &e), AF_ERR_ARG);
		cr_expect_str_eq(e.message, "no sample type \"alloc_space\" in the profile "
		                            "(it has samples, cpu)");
	}
	free(last.b);
	free(dflt.b);
}

/* Told from the bytes: gzip'd or not, under any name, through the CLI. */
Test(pprof, detected_from_the_bytes_gzipped_or_not)
{
	pb p = small_profile(0);
	size_t glen;
	uint8_t *gz = t_gzip(p.b, p.len, &glen);
	char *plain = t_tmp("pprof-plain.txt"), *zipped = t_tmp("pprof-zipped.trace");
	char *out = NULL, *err = NULL;

	t_write(plain, p.b, p.len);
	t_write(zipped, gz, glen);
	cr_assert_eq(t_cli(plain, NULL, &out, &err), 0, "%s", err);
	free(out);
	free(err);
	cr_assert_eq(t_cli(zipped, NULL, &out, &err), 0, "%s", err);
	free(out);
	free(err);
	t_cli_says(0, "pprof profile (gzip), sample type cpu (nanoseconds): 3 samples",
	           "-v -o %s/pprof.folded %s", AF_TEST_TMP, zipped);
	t_cli_says(0, "", "--sample-type samples -o %s/pprof.folded %s", AF_TEST_TMP, plain);
	{
		size_t n;
		char *f = (char *)t_read(AF_TEST_TMP "/pprof.folded", &n);
		cr_assert_not_null(f);
		cr_expect_str_eq(f, "main 1\nmain;run;inl 4\nmain;run;inl;leaf 2\n");
		free(f);
	}
	t_cli_says(1, "no sample type \"heap\" in the profile (it has samples, cpu)",
	           "--sample-type heap -o %s/pprof.folded %s", AF_TEST_TMP, plain);
	free(plain);
	free(zipped);
	free(gz);
	free(p.b);
}

/* Text that a pprof walk would take for a sound start stays text. */
Test(pprof, folded_text_is_not_taken_for_a_profile)
{
	static const char text[] = "\nmain;run 3\n";
	af_trace *t = t_parse((const uint8_t *)text, sizeof text - 1);

	cr_expect(!af_trace_get_info(t)->pprof);
	af_trace_free(t);
}

/* The SVG of a profile drawn with `ro` (its font the default); the tree's
 * unit in *unit when not NULL ("" for none; caller frees). */
static char *svg_drawn(const pb *p, const char *sample_type, af_render_options ro,
                       char **unit)
{
	af_parse_options o = {.sample_type = sample_type};
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_layout *l = NULL;
	af_error e = {0};
	char *out = NULL;
	size_t n = 0;
	FILE *f;

	t_font_open();
	ro.font = t_font;
	cr_assert_eq(af_trace_parse(p->b, p->len, &o, &t, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK, "%s", e.message);
	if (unit) {
		*unit = strdup(af_tree_unit(tree) ? af_tree_unit(tree) : "");
		cr_assert_not_null(*unit);
	}
	cr_assert_eq(af_layout_build(tree, NULL, &l, &e), AF_OK, "%s", e.message);
	f = open_memstream(&out, &n);
	cr_assert_eq(af_svg_write(l, &ro, f, &e), AF_OK, "%s", e.message);
	fclose(f);
	af_layout_free(l);
	af_tree_free(tree);
	af_trace_free(t);
	t_font_close();
	return out;
}

/* The SVG of a profile, static (every frame's tooltip in a <title>). */
static char *svg_of(const pb *p, const char *sample_type, const char *countname)
{
	af_render_options ro = {.no_javascript = 1, .countname = countname};

	return svg_drawn(p, sample_type, ro, NULL);
}

/* Tooltips show values in the sample type's unit: nanoseconds as a time,
 * bytes as KiB and MiB, other units by name; --countname still wins. */
Test(pprof, tooltips_show_the_unit)
{
	pb p = {0};
	char *svg;
	size_t i;
	static const uint64_t main_fn[] = {1}, leaf[] = {4}, path[] = {3, 1};
	static const int64_t v[] = {5, 1500, 3 * 1048576 + 524288, 7};

	/* samples/count, cpu/nanoseconds, alloc/bytes, alloc/"run" */
	pb_value_type(&p, 1, 2);
	pb_value_type(&p, 3, 4);
	pb_value_type(&p, 9, 10);
	pb_value_type(&p, 9, 6);
	pb_sample(&p, path, 2, v, 4);
	pb_location(&p, 1, main_fn, 1);
	pb_location(&p, 3, leaf, 1);
	pb_function(&p, 1, 5);
	pb_function(&p, 4, 8);
	for (i = 0; i < sizeof strings / sizeof *strings; i++)
		pb_str(&p, 6, strings[i]);

	svg = svg_of(&p, "cpu", NULL);
	cr_expect(strstr(svg, "leaf (1.50 \xC2\xB5s, 100.00%)"), "no time in:\n%s", svg);
	free(svg);
	svg = svg_of(&p, "2", NULL);
	cr_expect(strstr(svg, "leaf (3.50 MiB, 100.00%)"), "no MiB in:\n%s", svg);
	free(svg);
	svg = svg_of(&p, "samples", NULL);
	cr_expect(strstr(svg, "leaf (5 samples, 100.00%)"), "no samples in:\n%s", svg);
	free(svg);
	svg = svg_of(&p, "3", NULL);
	cr_expect(strstr(svg, "leaf (7 run, 100.00%)"), "no unit name in:\n%s", svg);
	free(svg);
	/* the script is told the unit, and writes values as style.c does */
	{
		af_render_options ro = {0};
		char *unit = NULL;
		svg = svg_drawn(&p, "cpu", ro, &unit);
		cr_expect_str_eq(unit, "nanoseconds");
		cr_expect(strstr(svg, "countname:\"nanoseconds\",vunit:\"ns\","), "%s", svg);
		free(unit);
		free(svg);
	}
	svg = svg_of(&p, "2", "allocations");
	cr_expect(strstr(svg, "leaf (3,670,016 allocations, 100.00%)"), "no countname in:\n%s",
	          svg);
	free(svg);
	free(p.b);
}

/* ------------------------------------------------------------------ */
/* Real profiles, against go tool pprof                                */

static const char *const real_files[] = {
	"cairo-protostar-profile.pb.gz",
	"go-cpu-google-pprof-large.cpu",
	"go-heap-azure-eno-heap.pprof",
	"julia-pprofjl-chessengine-profile.pb.gz",
	"rust-pprof-rs-profile.pb",
};

/* ../shared/inputs/pprof, beside the real traces (and missing with them
 * when ctest hides those). */
static char *inputs_dir(void)
{
	char *d = malloc(strlen(t_traces_dir()) + 32);
	struct stat sb;

	cr_assert_not_null(d);
	sprintf(d, "%s/../inputs/pprof", t_traces_dir());
	if (stat(d, &sb) != 0) {
		cr_log_info("skipped: real pprof profiles not found in %s", d);
		free(d);
		return NULL;
	}
	return d;
}

static void need_go(void)
{
	char *where = t_popen_text("command -v go");
	cr_assert(where[0] == '/', "go not found: the real pprof profiles are checked "
	                           "against go tool pprof (apt-get install golang-go; "
	                           ".ci/deps test installs it)");
	free(where);
}

/* The integer at *s (after blanks), and *s moved past it; fails on a
 * decimal point (pprof scaled the value). */
static unsigned long long leading_int(const char **s)
{
	unsigned long long v = 0;
	const char *p = *s;

	while (*p == ' ')
		p++;
	if (!(*p >= '0' && *p <= '9'))
		cr_assert_fail("no number at \"%.40s\"", p);
	for (; *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (unsigned long long)(*p - '0');
	if (*p == '.')
		cr_assert_fail("pprof printed a scaled value: \"%.40s\"", *s);
	*s = p;
	return v;
}

typedef struct row {
	char *name;
	unsigned long long flat, cum;
	int count;
} row;

static int row_cmp(const void *a, const void *b)
{
	return strcmp(((const row *)a)->name, ((const row *)b)->name);
}

static int method_cmp(const void *a, const void *b)
{
	return strcmp(((const af_method_row *)a)->name, ((const af_method_row *)b)->name);
}

/* Checks one real profile with one sample type (NULL: the default) against
 * pprof -top. */
static void compare(const char *dir, const char *file, const char *type)
{
	char path[1024], cmd[4096], *text, *line, *save = NULL;
	af_parse_options o = {.sample_type = type, .no_demangle = 1};
	af_trace *t = NULL;
	af_method_table *m = NULL;
	af_error e = {0};
	const af_trace_info *info;
	const char *unit;
	unsigned long long total = 0;
	row *rows = NULL;
	af_method_row *ours = NULL;
	size_t nrows = 0, i, j, checked = 0, bad = 0;
	int header = 0;

	snprintf(path, sizeof path, "%s/%s", dir, file);
	cr_assert_eq(af_trace_open(path, &o, &t, &e), AF_OK, "%s: %s", file, e.message);
	info = af_trace_get_info(t);
	cr_assert(info->pprof, "%s", file);
	cr_assert_eq(af_method_table_build(t, NULL, AF_CLOCK_WALL, &m, &e), AF_OK, "%s: %s",
	             file, e.message);
	unit = strcmp(info->sample_unit, "nanoseconds") == 0 ? " -unit=ns"
	       : strcmp(info->sample_unit, "bytes") == 0   ? " -unit=B"
	                                                   : "";
	snprintf(cmd, sizeof cmd,
	         "HOME='%s' GOCACHE='%s/gocache' PPROF_TMPDIR='%s' go tool pprof -top -symbolize=none "
	         "-nodecount=1000000 -nodefraction=0 -edgefraction=0 -sample_index='%s'%s "
	         "'%s' 2>/dev/null",
	         AF_TEST_TMP, AF_TEST_TMP, AF_TEST_TMP, info->sample_type, unit, path);
	text = t_popen_text(cmd);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *p = line, *q;
		unsigned long long flat, cum;
		size_t n;
		if (strncmp(line, "Type: ", 6) == 0)
			cr_expect_str_eq(line + 6, info->sample_type, "%s: pprof draws another type",
			                 file);
		if ((q = strstr(line, "% of ")) && strstr(line, " total")) {
			q += 5;
			total = leading_int(&q);
		}
		if (strstr(line, "flat  flat%")) {
			header = 1;
			continue;
		}
		if (!header)
			continue;
		/* flat flat% sum% cum cum% name: the unit may hold blanks, the
		 * three shares end in '%' */
		flat = leading_int(&p);
		for (j = 0; j < 2; j++) {
			p = strchr(p, '%');
			if (!p)
				cr_assert_fail("%s: \"%s\"", file, line);
			p++;
		}
		cum = leading_int(&p);
		p = strchr(p, '%');
		if (!p)
			cr_assert_fail("%s: \"%s\"", file, line);
		p++;
		while (*p == ' ')
			p++;
		n = strlen(p);
		/* pprof's marks of inlined functions */
		if (n > 9 && strcmp(p + n - 9, " (inline)") == 0)
			n -= 9;
		else if (n > 17 && strcmp(p + n - 17, " (partial-inline)") == 0)
			n -= 17;
		rows = realloc(rows, (nrows + 1) * sizeof *rows);
		if (!rows)
			cr_assert_fail("out of memory");
		rows[nrows].name = strndup(p, n);
		rows[nrows].flat = flat;
		rows[nrows].cum = cum;
		rows[nrows++].count = 1;
	}
	/* by name, a function of two nodes (two files) as one row */
	qsort(rows, nrows, sizeof *rows, row_cmp);
	for (i = j = 0; i < nrows; i++) {
		if (j && strcmp(rows[j - 1].name, rows[i].name) == 0) {
			rows[j - 1].flat += rows[i].flat;
			rows[j - 1].count++;
			free(rows[i].name);
		} else {
			rows[j++] = rows[i];
		}
	}
	nrows = j;
	ours = malloc((m->nrows ? m->nrows : 1) * sizeof *ours);
	cr_assert_not_null(ours);
	for (j = 0; j < m->nrows; j++)
		ours[j] = m->rows[j];
	qsort(ours, m->nrows, sizeof *ours, method_cmp);
	cr_assert(header && nrows > 0, "%s: go tool pprof printed no table:\n%s", file, cmd);
	cr_expect_eq(m->total, total, "%s %s: total %llu, pprof says %llu", file,
	             info->sample_type, (unsigned long long)m->total, total);
	/* Criterion reports every assertion, passed or not, to its runner: with
	 * tens of thousands of functions, only the ones that differ are */
	for (i = 0; i < nrows; i++) {
		af_method_row key = {.name = rows[i].name}, *r;
		r = bsearch(&key, ours, m->nrows, sizeof *ours, method_cmp);
		if (rows[i].cum == 0 && !r)
			continue; /* a function only in samples worth nothing */
		if (!r) {
			cr_log_error("%s %s: no row for %s", file, info->sample_type, rows[i].name);
			bad++;
			continue;
		}
		j = (size_t)(r - ours);
		if (ours[j].exclusive != rows[i].flat) {
			cr_log_error("%s %s: %s flat %llu, pprof %llu", file, info->sample_type,
			             rows[i].name, (unsigned long long)ours[j].exclusive,
			             (unsigned long long)rows[i].flat);
			bad++;
		}
		/* two functions of one name (in two files) are two nodes for
		 * pprof and one frame here: their cum cannot be compared */
		if (rows[i].count == 1 && ours[j].inclusive != rows[i].cum) {
			cr_log_error("%s %s: %s cum %llu, pprof %llu", file, info->sample_type,
			             rows[i].name, (unsigned long long)ours[j].inclusive,
			             (unsigned long long)rows[i].cum);
			bad++;
		}
		checked++;
	}
	for (j = 0; j < m->nrows; j++)
		if (m->rows[j].inclusive) {
			row key = {.name = (char *)m->rows[j].name};
			if (!bsearch(&key, rows, nrows, sizeof *rows, row_cmp)) {
				cr_log_error("%s %s: %s is not in pprof's table", file,
				             info->sample_type, m->rows[j].name);
				bad++;
			}
		}
	cr_expect_eq(bad, 0, "%s %s: %zu differences from go tool pprof", file,
	             info->sample_type, bad);
	free(ours);
	cr_log_info("%s %s: total %llu %s, %zu functions as pprof says", file,
	            info->sample_type, total, info->sample_unit, checked);
	for (i = 0; i < nrows; i++)
		free(rows[i].name);
	free(rows);
	free(text);
	af_method_table_free(m);
	af_trace_free(t);
}

Test(pprof, real_profiles_match_go_tool_pprof, .timeout = 600)
{
	char *dir = inputs_dir();
	size_t i;

	if (!dir)
		return;
	need_go();
	for (i = 0; i < sizeof real_files / sizeof *real_files; i++)
		compare(dir, real_files[i], NULL);
	/* the other sample types of the profiles that have several */
	compare(dir, "go-cpu-google-pprof-large.cpu", "samples");
	compare(dir, "go-heap-azure-eno-heap.pprof", "alloc_objects");
	compare(dir, "go-heap-azure-eno-heap.pprof", "alloc_space");
	compare(dir, "go-heap-azure-eno-heap.pprof", "inuse_objects");
	compare(dir, "cairo-protostar-profile.pb.gz", "steps count");
	free(dir);
}

/* Every file of ../shared/inputs/pprof is one the test above reads. */
Test(pprof, every_real_profile_is_checked)
{
	char *dir = inputs_dir();
	char cmd[1200], *list, *name, *save = NULL;
	size_t i;

	if (!dir)
		return;
	snprintf(cmd, sizeof cmd, "ls '%s'", dir);
	list = t_popen_text(cmd);
	for (name = strtok_r(list, "\n", &save); name; name = strtok_r(NULL, "\n", &save)) {
		if (strstr(name, ".md"))
			continue;
		for (i = 0; i < sizeof real_files / sizeof *real_files &&
		            strcmp(real_files[i], name) != 0; i++)
			;
		cr_expect_lt(i, sizeof real_files / sizeof *real_files,
		             "%s/%s is a real profile the tests do not read", dir, name);
	}
	free(list);
	free(dir);
}

/* C++ names are demangled (libiberty), unless no_demangle asks to keep
 * them as written. */
Test(pprof, cpp_names_demangled)
{
	static const char *const s[] = {"", "samples", "count",
	                                "_ZN7android14AndroidRuntime15javaThreadShellEPv"};
	static const uint64_t fn[] = {1}, loc[] = {1};
	static const int64_t val[] = {5};
	af_parse_options o = {.no_demangle = 1};
	af_trace *t = NULL;
	af_tree *tree = NULL;
	af_error e = {0};
	pb p = {0};
	char *f, *out = NULL;
	size_t i, n = 0;
	FILE *mf;

	pb_value_type(&p, 1, 2);
	pb_sample(&p, loc, 1, val, 1);
	pb_location(&p, 1, fn, 1);
	pb_function(&p, 1, 3);
	for (i = 0; i < sizeof s / sizeof *s; i++)
		pb_str(&p, 6, s[i]);
	f = folded_of(&p, NULL);
	cr_expect_str_eq(f, "android::AndroidRuntime::javaThreadShell(void*) 5\n");
	free(f);
	cr_assert_eq(af_trace_parse(p.b, p.len, &o, &t, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_tree_from_trace(t, NULL, &tree, &e), AF_OK, "%s", e.message);
	mf = open_memstream(&out, &n);
	cr_assert_eq(af_folded_write(tree, AF_CLOCK_WALL, mf, &e), AF_OK, "%s", e.message);
	fclose(mf);
	cr_expect_str_eq(out, "_ZN7android14AndroidRuntime15javaThreadShellEPv 5\n");
	free(out);
	af_tree_free(tree);
	af_trace_free(t);
	free(p.b);
}

/* ------------------------------------------------------------------ */
/* Libraries of native frames                                          */

/* The SVG (static) of profile bytes `p` through the command; its path. */
static char *svg_file_of(const pb *p, const char *name)
{
	char tname[64], sname[64], *tp, *sp;

	snprintf(tname, sizeof tname, "%s.pb", name);
	snprintf(sname, sizeof sname, "%s.svg", name);
	tp = t_tmp(tname);
	sp = t_tmp(sname);
	t_write(tp, p->b, p->len);
	t_cli_says(0, "", "--no-javascript -o '%s' '%s'", sp, tp);
	free(tp);
	return sp;
}

static void expect_title(const char *svg, const char *prefix, const char *want)
{
	char *title = t_svg_title(svg, prefix);

	cr_expect_not_null(title, "%s: no tooltip begins \"%s\"", svg, prefix);
	if (title)
		cr_expect_str_eq(title, want);
	free(title);
}

/* A location's mapping names its frames' library (the base name of its
 * file), inlined frames included; a mapping the table lacks, or one
 * without a file, names none.  Made field by field. */
Test(pprof, a_mapping_names_the_library)
{
	pb p = {0}, m = {0}, l = {0}, line = {0};
	static const char *const s[] = {"", "samples", "count", "main", "memcpy", "inl",
	                                "/apex/com.android.art/lib64/libart.so", "[vdso]"};
	static const uint64_t path1[] = {2, 1}, path2[] = {3, 1}, path3[] = {4, 1};
	static const int64_t one[] = {1}, two[] = {2};
	static const uint64_t inl_memcpy[] = {3, 2};
	size_t i;
	char *svg, *f;

	pb_value_type(&p, 1, 2);
	pb_sample(&p, path1, 2, one, 1);
	pb_sample(&p, path2, 2, two, 1);
	pb_sample(&p, path3, 2, one, 1);
	pb_int(&m, 1, 1);
	pb_int(&m, 5, 6);
	pb_msg(&p, 3, &m);
	pb_int(&m, 1, 2);
	pb_int(&m, 5, 0); /* no file */
	pb_msg(&p, 3, &m);
	pb_int(&m, 1, 3);
	pb_int(&m, 5, 7);
	pb_msg(&p, 3, &m);
	/* location 1: main, no mapping */
	pb_location(&p, 1, path1 + 1, 1);
	/* location 2: inl inlined into memcpy, in libart.so */
	pb_int(&l, 1, 2);
	pb_int(&l, 2, 1);
	for (i = 0; i < 2; i++) {
		pb_int(&line, 1, inl_memcpy[i]);
		pb_msg(&l, 4, &line);
	}
	pb_msg(&p, 4, &l);
	/* location 3: an address in the mapping without a file */
	pb_int(&l, 1, 3);
	pb_int(&l, 2, 2);
	pb_int(&l, 3, 0x1234);
	pb_msg(&p, 4, &l);
	/* location 4: an address in mapping 9, which the table lacks */
	pb_int(&l, 1, 4);
	pb_int(&l, 2, 9);
	pb_int(&l, 3, 0x99);
	pb_msg(&p, 4, &l);
	pb_function(&p, 1, 3);
	pb_function(&p, 2, 4);
	pb_function(&p, 3, 5);
	for (i = 0; i < sizeof s / sizeof *s; i++)
		pb_str(&p, 6, s[i]);
	svg = svg_file_of(&p, "pprof-lib");
	expect_title(svg, "memcpy", "memcpy in libart.so (1 samples, 25.00%)");
	expect_title(svg, "inl", "inl in libart.so (1 samples, 25.00%)");
	expect_title(svg, "main", "main (4 samples, 100.00%)");
	expect_title(svg, "0x1234", "0x1234 (2 samples, 50.00%)");
	expect_title(svg, "0x99", "0x99 (1 samples, 25.00%)");
	free(svg);
	/* folded text: names alone */
	f = folded_of(&p, NULL);
	cr_expect_str_eq(f, "main;0x1234 2\nmain;0x99 1\nmain;memcpy;inl 1\n");
	free(f);
	free(p.b);
}

/* Real profiles (see real_files): Go's name their binary in the mapping
 * table (`go tool pprof -raw` lists "/eno-reconciler" and
 * "/tmp/go-build2236913095/b001/exe/large"), so every frame of theirs
 * names it; protostar's one mapping has no file, so none does. */
Test(pprof, real_profiles_name_the_library)
{
	char *dir = inputs_dir(), in[4096], *svg = t_tmp("pprof-real-lib.svg"), *title;

	if (!dir) {
		free(svg);
		cr_skip_test("real pprof profiles not found");
	}
	snprintf(in, sizeof in, "%s/go-heap-azure-eno-heap.pprof", dir);
	t_cli_says(0, "", "--no-javascript -o '%s' '%s'", svg, in);
	title = t_svg_title(svg, "runtime.main ");
	cr_assert_not_null(title);
	cr_expect(strncmp(title, "runtime.main in eno-reconciler (", 32) == 0, "%s", title);
	free(title);
	snprintf(in, sizeof in, "%s/go-cpu-google-pprof-large.cpu", dir);
	t_cli_says(0, "", "--no-javascript -o '%s' '%s'", svg, in);
	title = t_svg_title(svg, "runtime.main ");
	cr_assert_not_null(title);
	cr_expect(strncmp(title, "runtime.main in large (", 23) == 0, "%s", title);
	free(title);
	snprintf(in, sizeof in, "%s/cairo-protostar-profile.pb.gz", dir);
	t_cli_says(0, "", "--no-javascript -o '%s' '%s'", svg, in);
	title = t_svg_title(svg, "TEST_CONTRACT.__main__.test_deploy_contract_simplified");
	cr_assert_not_null(title);
	cr_expect_str_eq(title, "TEST_CONTRACT.__main__.test_deploy_contract_simplified "
	                        "(9,946 mem holes, 100.00%)");
	free(title);
	free(svg);
	free(dir);
}
