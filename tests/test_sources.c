/*
 * test_sources.c - checks on the source tree itself.
 *
 * Every block the library allocates goes through the caller's allocator
 * (src/mem.c), so that a budget, a custom allocator and the failure
 * injection of test_alloc.c see all of them.  A direct call to the C
 * library's allocator anywhere else in src/ or render/ would slip past all
 * three, so this suite reads the sources and fails on one.
 *
 * The library is a pipeline whose stages only look down (ARCHITECTURE.md):
 * the table of stages below names every file of src/, render/ and
 * include/, and a file that includes the header of a later stage, or a
 * file the table does not know, fails the suite.
 */
#define _DEFAULT_SOURCE
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* Functions that hand out blocks to be given back to free(), and free()
 * itself; af_mem_default is malloc without a budget. */
static const char *const banned[] = {
	"malloc", "calloc", "realloc", "reallocarray", "free", "strdup", "strndup",
	"open_memstream", "open_wmemstream", "asprintf", "vasprintf", "getline",
	"getdelim", "aligned_alloc", "posix_memalign", "memalign", "valloc",
	"af_mem_default",
};

/* Where the C library's allocator is used on purpose. */
typedef struct t_exception {
	const char *path;  /* relative to the source tree; a folder ends in '/' */
	const char *name;  /* the one name allowed there; NULL: any */
	int count;         /* how many uses of it; 0: any */
	const char *why;
} t_exception;

static const t_exception exceptions[] = {
	{"src/mem.c", NULL, 0, "the allocator itself: malloc when none is given"},
	{"src/writer.c", "malloc", 1,
	 "af_writer_finish returns the finished trace for the caller to free()"},
	{"src/cli/", NULL, 0,
	 "the program, not the library: it uses only the public API"},
	{"src/serve/", NULL, 0,
	 "the server, part of the program: it uses only the public API"},
};

/* Blanks out comments, string and character literals (keeping line
 * breaks), so names in them are not taken for calls. */
static void t_strip(char *s)
{
	char *p = s;

	while (*p) {
		if (p[0] == '/' && p[1] == '*') {
			for (; *p && !(p[0] == '*' && p[1] == '/'); p++)
				if (*p != '\n')
					*p = ' ';
			if (*p)
				p[0] = p[1] = ' ', p += 2;
		} else if (p[0] == '/' && p[1] == '/') {
			for (; *p && *p != '\n'; p++)
				*p = ' ';
		} else if (*p == '"' || *p == '\'') {
			char q = *p++;
			for (; *p && *p != q && *p != '\n'; p++) {
				if (*p == '\\' && p[1] && p[1] != '\n')
					*p++ = ' ';
				*p = ' ';
			}
			if (*p == q)
				p++;
		} else {
			p++;
		}
	}
}

static int t_ident(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* Uses of `name` in stripped text `s`: the whole identifier, not a
 * member (x.free, x->free); their lines go in `lines` (up to n). */
static int t_uses(const char *s, const char *name, int *lines, int n)
{
	size_t len = strlen(name);
	const char *p = s;
	int count = 0;

	while ((p = strstr(p, name)) != NULL) {
		const char *b = p;
		int member;
		p += len;
		if ((b > s && t_ident(b[-1])) || t_ident(*p))
			continue;
		while (b > s && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		member = (b > s && b[-1] == '.') || (b > s + 1 && b[-2] == '-' && b[-1] == '>');
		if (member)
			continue;
		if (count < n) {
			const char *q;
			lines[count] = 1;
			for (q = s; q < p; q++)
				lines[count] += *q == '\n';
		}
		count++;
	}
	return count;
}

static const t_exception *t_exception_for(const char *rel, const char *name)
{
	size_t i;

	for (i = 0; i < sizeof exceptions / sizeof exceptions[0]; i++) {
		const t_exception *x = &exceptions[i];
		size_t n = strlen(x->path);
		int match = x->path[n - 1] == '/' ? strncmp(rel, x->path, n) == 0
		                                  : strcmp(rel, x->path) == 0;
		if (match && (!x->name || strcmp(x->name, name) == 0))
			return x;
	}
	return NULL;
}

/* Checks one file; returns the number of uses not allowed, each logged. */
static int t_check_file(const char *top, const char *rel)
{
	char path[4096 + 16];
	size_t len, i;
	char *text;
	int bad = 0;

	snprintf(path, sizeof path, "%s/%s", top, rel);
	text = (char *)t_read(path, &len);
	cr_assert_not_null(text, "cannot read %s", path);
	text = realloc(text, len + 1);
	text[len] = '\0';
	t_strip(text);
	for (i = 0; i < sizeof banned / sizeof banned[0]; i++) {
		int lines[8], n = t_uses(text, banned[i], lines, 8), k;
		const t_exception *x;
		if (!n)
			continue;
		x = t_exception_for(rel, banned[i]);
		if (x && (x->count == 0 || n == x->count))
			continue;
		for (k = 0; k < n && k < 8; k++)
			cr_log_error("%s:%d: %s outside the library's allocator (use af_malloc "
			             "and friends from src/mem.c with the object's af_mem)%s",
			             rel, lines[k], banned[i],
			             x ? "; more uses than the one allowed" : "");
		bad += n;
	}
	free(text);
	return bad;
}

/* Criterion 2.4 ends a run in which anything logged a warning with exit
 * status 1, even when every test passed: a suite that warned when it
 * skipped (no ../shared, no dmtracedump) failed under ctest.  Tests say why
 * they skip with cr_log_info or cr_skip_test, and never warn. */
static int t_check_test_file(const char *top, const char *rel)
{
	static const char *const warns[] = {"cr_log_warn", "CR_LOG_WARNING", "cr_warn"};
	char path[4096 + 16];
	size_t len, i;
	char *text;
	int bad = 0;

	snprintf(path, sizeof path, "%s/%s", top, rel);
	text = (char *)t_read(path, &len);
	cr_assert_not_null(text, "cannot read %s", path);
	text = realloc(text, len + 1);
	text[len] = '\0';
	t_strip(text);
	for (i = 0; i < sizeof warns / sizeof warns[0]; i++) {
		int lines[8], n = t_uses(text, warns[i], lines, 8), k;
		for (k = 0; k < n && k < 8; k++)
			cr_log_error("%s:%d: %s makes Criterion exit 1 although every test "
			             "passed; say why a test skips with cr_log_info or "
			             "cr_skip_test", rel, lines[k], warns[i]);
		bad += n;
	}
	free(text);
	return bad;
}

/* The .c and .h files under `top`/`dir`, recursively, each checked by
 * `check`; returns how many. */
static int t_walk(const char *top, const char *dir, int *bad,
                  int (*check)(const char *top, const char *rel))
{
	char path[4096 + 16];
	DIR *d;
	struct dirent *ent;
	int files = 0;

	snprintf(path, sizeof path, "%s/%s", top, dir);
	d = opendir(path);
	cr_assert_not_null(d, "cannot list %s", path);
	while ((ent = readdir(d)) != NULL) {
		char rel[2048];
		size_t n = strlen(ent->d_name);
		if (ent->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof rel, "%s/%s", dir, ent->d_name);
		if (ent->d_type == DT_DIR) {
			files += t_walk(top, rel, bad, check);
		} else if (n > 2 && ent->d_name[n - 2] == '.' &&
		           (ent->d_name[n - 1] == 'c' || ent->d_name[n - 1] == 'h')) {
			*bad += check(top, rel);
			files++;
		}
	}
	closedir(d);
	return files;
}

Test(sources, library_allocates_only_through_its_allocator)
{
	int bad = 0, files = t_walk(AF_TEST_SOURCE, "src", &bad, t_check_file);

	files += t_walk(AF_TEST_SOURCE, "render", &bad, t_check_file);
	cr_assert_gt(files, 20, "only %d files found under %s", files, AF_TEST_SOURCE);
	cr_assert_eq(bad, 0, "%d uses of the C library's allocator in the library "
	             "(see the lines above)", bad);
}

Test(sources, tests_never_log_warnings)
{
	int bad = 0, files = t_walk(AF_TEST_SOURCE, "tests", &bad, t_check_test_file);

	cr_assert_gt(files, 10, "only %d files found under %s/tests", files, AF_TEST_SOURCE);
	cr_assert_eq(bad, 0, "%d warnings logged by tests (see the lines above)", bad);
}

/* The checker finds what it must and nothing else. */
Test(sources, the_check_sees_calls_and_only_calls)
{
	char text[] =
		"/* malloc(1) in a comment */ // free(p)\n"
		"const char *s = \"strdup(x) \\\" calloc(\";\n"
		"char c = '\\''; m->a.free(ctx, p); x.malloc = 0; my_malloc(3);\n"
		"void *p = malloc (4);\n"
		"#define GRAB realloc\n"
		"q = &af_mem_default; r = af_mem_default_budget();\n";
	int lines[8];

	t_strip(text);
	cr_assert_eq(t_uses(text, "malloc", lines, 8), 1);
	cr_assert_eq(lines[0], 4);
	cr_assert_eq(t_uses(text, "free", lines, 8), 0);
	cr_assert_eq(t_uses(text, "strdup", lines, 8), 0);
	cr_assert_eq(t_uses(text, "calloc", lines, 8), 0);
	cr_assert_eq(t_uses(text, "realloc", lines, 8), 1);
	cr_assert_eq(lines[0], 5);
	cr_assert_eq(t_uses(text, "af_mem_default", lines, 8), 1);
	cr_assert_eq(lines[0], 6);
	cr_assert_not_null(t_exception_for("src/cli/main.c", "free"));
	cr_assert_not_null(t_exception_for("src/writer.c", "malloc"));
	cr_assert_null(t_exception_for("src/writer.c", "free"));
	cr_assert_null(t_exception_for("render/svg.c", "malloc"));
}

/* ------------------------------------------------------------------ */
/* The stages of the pipeline                                          */

/* Bottom first.  A file may include headers of its own stage and of the
 * stages before it; ARCHITECTURE.md says what each holds. */
static const char *const stages[] = {
	"public API",  /* declarations only: every stage may see them */
	"errors",      /* af_fail, UTF-8, times for people: no memory */
	"memory",      /* the allocator, growable arrays and byte strings */
	"containers",  /* interned names, u32 maps, the prefix tree, Java names */
	"inputs",      /* traces, folded text, mapping files, palette.map */
	"view",        /* naming and shaping rules */
	"call tree",   /* the named call tree of a trace, the method table, the
	                  call graph */
	"diff",        /* two trees compared */
	"layout",      /* rectangles */
	"font",        /* the pinned fonts: metrics, cuts, text drawn */
	"style",       /* colours, tooltips, escaping */
	"outputs",     /* SVG, PNG and PDF, the index page, folded text, the
	                  call graph (DOT, Graphviz) and the HTML profile */
	"command",     /* aflame-render: the public API only */
};

enum { PUBLIC, ERRORS, MEMORY, CONTAINERS, INPUTS, VIEW, CALLTREE, DIFF, LAYOUT, FONT,
       STYLE, OUTPUTS, COMMAND };

typedef struct t_file {
	const char *path; /* relative to the source tree */
	int stage;
} t_file;

static const t_file files[] = {
	{"include/aflame/aflame.h", PUBLIC},
	{"include/aflame/writer.h", PUBLIC},
	{"src/error.h", ERRORS},
	{"src/error.c", ERRORS},
	{"src/internal.h", MEMORY},
	{"src/mem.c", MEMORY},
	{"src/guard.c", MEMORY}, /* reads of mapped files that may shrink */
	{"src/names.h", CONTAINERS},
	{"src/names.c", CONTAINERS},
	{"src/ptree.h", CONTAINERS},
	{"src/ptree.c", CONTAINERS},
	{"src/java.h", CONTAINERS},
	{"src/java.c", CONTAINERS},
	{"src/trace.h", INPUTS},
	{"src/trace.c", INPUTS},
	{"src/method_name.c", INPUTS},
	{"src/trace_key.c", INPUTS},
	{"src/trace_regular.c", INPUTS},
	{"src/trace_streaming.c", INPUTS},
	{"src/trace_v2.c", INPUTS},
	{"src/trace_v6.c", INPUTS},
	{"src/btrace.c", INPUTS},
	{"src/folded.c", INPUTS},
	{"src/bytes.h", INPUTS},  /* an input's bytes: mapped, read, inflated, spilled */
	{"src/bytes.c", INPUTS},
	{"src/pb.h", INPUTS},     /* protobuf-c for the protobuf formats' parsers */
	{"src/pb.c", INPUTS},
	{"src/pftrace.h", INPUTS}, /* a Perfetto trace's packets, for its readers */
	{"src/pftrace.c", INPUTS},
	{"src/pprof.c", INPUTS},
	{"src/demangle.h", INPUTS}, /* C++ names of native frames, by libiberty */
	{"src/demangle.c", INPUTS},
	{"src/perfetto_prof.h", INPUTS}, /* a Perfetto trace's heap dumps and CPU samples */
	{"src/perfetto_prof.c", INPUTS},
	{"src/pfintern.h", INPUTS}, /* their interned tables: strings, mappings, frames, callstacks */
	{"src/pfintern.c", INPUTS},
	{"perfetto_prof.pb-c.h", INPUTS}, /* made from src/perfetto_prof.proto at build time */
	{"pprof.pb-c.h", INPUTS}, /* made from src/pprof.proto by protoc-c at build time */
	{"src/slices.h", INPUTS},
	{"src/slices.c", INPUTS},
	{"src/systrace.h", INPUTS},
	{"src/systrace.c", INPUTS},
	{"src/perfetto.h", INPUTS}, /* a Perfetto trace's slices */
	{"src/perfetto.c", INPUTS},
	{"src/pfclock.h", INPUTS}, /* its track events' clocks */
	{"src/pfclock.c", INPUTS},
	{"perfetto.pb-c.h", INPUTS}, /* made from src/perfetto.proto by protoc-c */
	{"perfetto_common.pb-c.h", INPUTS}, /* src/perfetto_common.proto, both readers' */
	{"src/input.c", INPUTS},
	{"src/mapping.h", INPUTS},
	{"src/mapping.c", INPUTS},
	{"src/namemap.h", INPUTS},
	{"src/namemap.c", INPUTS},
	{"src/nameattr.c", INPUTS},
	{"src/writer.c", INPUTS},
	{"src/dump.c", INPUTS}, /* the records again, after the parse */
	{"src/view.h", VIEW},
	{"src/view.c", VIEW},
	{"src/tree.h", CALLTREE},
	{"src/tree.c", CALLTREE},
	{"src/tree_names.h", CALLTREE},
	{"src/tree_names.c", CALLTREE},
	{"src/methods.h", CALLTREE},
	{"src/methods.c", CALLTREE},
	{"src/callgraph.h", CALLTREE},
	{"src/callgraph.c", CALLTREE},
	{"src/diff.c", DIFF},
	{"src/layout.h", LAYOUT},
	{"src/layout.c", LAYOUT},
	{"render/font.h", FONT},
	{"render/font.c", FONT},
	{"render/pango.h", FONT},
	{"render/pango.c", FONT},
	{"render/dl.h", FONT},
	{"render/dl.c", FONT},
	{"render/deflate.h", FONT}, /* a zlib stream of filtered rows */
	{"render/deflate.c", FONT},
	{"render/png.h", FONT}, /* pixels to a PNG file: knows no layout */
	{"render/png.c", FONT},
	{"render/out.h", FONT}, /* buffered writing: knows no layout */
	{"render/out.c", FONT},
	{"render/raster.h", FONT}, /* boxes into pixels: knows no layout */
	{"render/raster.c", FONT},
	{"render/style.h", STYLE},
	{"render/style.c", STYLE},
	{"render/tooltip.c", STYLE},
	{"render/legend.h", STYLE},
	{"render/legend.c", STYLE},
	{"render/svg.c", OUTPUTS},
	{"render/cairo.c", OUTPUTS},
	{"render/html.c", OUTPUTS},
	{"render/folded.c", OUTPUTS},
	{"render/pprof.c", OUTPUTS},
	{"render/dot.c", OUTPUTS},
	{"render/profile_html.c", OUTPUTS},
	{"flame_js.h", OUTPUTS}, /* made from render/flame.js at build time */
	{"src/cli/cli.h", COMMAND},
	{"src/cli/options.h", COMMAND},
	{"src/cli/options.c", COMMAND}, /* the table of options, the parsing */
	{"src/cli/help.c", COMMAND},    /* --help and the man page from the table */
	{"src/cli/main.c", COMMAND},
	{"src/cli/output.c", COMMAND},
	{"src/cli/sync.c", COMMAND},
	{"src/cli/report.c", COMMAND},
	{"src/cli/set.c", COMMAND},
	{"src/cli/profile.c", COMMAND},
	/* aflame-render serve: part of the command, on the public API only */
	{"src/serve/serve.h", COMMAND},
	{"src/serve/server.h", COMMAND},
	{"src/serve/serve.c", COMMAND},
	{"src/serve/main.c", COMMAND},
	{"src/serve/http.c", COMMAND},
	{"src/serve/ingest.c", COMMAND},
	{"src/serve/views.c", COMMAND},
	{"src/serve/work.c", COMMAND},
	{"src/serve/upload.c", COMMAND},
	{"src/serve/routes.c", COMMAND},
	{"src/serve/store_db.h", COMMAND},
	{"src/serve/store.c", COMMAND},
	{"src/serve/store_sqlite.c", COMMAND},
	{"src/serve/store_pg.c", COMMAND},
	{"src/serve/render.c", COMMAND},
	{"src/serve/watch.c", COMMAND},
	{"src/serve/pages.c", COMMAND},
};

/* 0 while the checker is tested on made-up files: their problems are
 * expected, not logged. */
static int t_log = 1;

static const t_file *t_file_at(const char *rel)
{
	size_t i;

	for (i = 0; i < sizeof files / sizeof files[0]; i++)
		if (strcmp(files[i].path, rel) == 0)
			return &files[i];
	return NULL;
}

/* The file `#include "name"` in `rel` means, as the build's include paths
 * find it: beside `rel`, then include/, src/, render/ (and the generated
 * flame_js.h); NULL when the table names none. */
static const t_file *t_header(const char *rel, const char *name)
{
	static const char *const dirs[] = {"include/", "src/", "render/", ""};
	char path[1024];
	const char *slash = strrchr(rel, '/');
	const t_file *f;
	size_t i;

	snprintf(path, sizeof path, "%.*s%s", slash ? (int)(slash - rel + 1) : 0, rel, name);
	if ((f = t_file_at(path)) != NULL)
		return f;
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(path, sizeof path, "%s%s", dirs[i], name);
		if ((f = t_file_at(path)) != NULL)
			return f;
	}
	return NULL;
}

/* Checks the `#include "..."` lines of `text`, the contents of `rel`;
 * returns the number of problems, each logged. */
static int t_check_includes(const char *rel, const char *text)
{
	const t_file *self = t_file_at(rel);
	const char *p = text;
	int bad = 0, line = 1;

	if (!self) {
		if (t_log)
			cr_log_error("%s: not in the table of stages of tests/test_sources.c: add "
			             "it with the stage it belongs to (see ARCHITECTURE.md)", rel);
		return 1;
	}
	for (; *p; line++) {
		const char *q = p, *end = strchr(p, '\n');
		char name[256];
		size_t n;
		const t_file *h;

		p = end ? end + 1 : p + strlen(p);
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q++ != '#')
			continue;
		while (*q == ' ' || *q == '\t')
			q++;
		if (strncmp(q, "include", 7) != 0)
			continue;
		for (q += 7; *q == ' ' || *q == '\t'; q++)
			;
		if (*q++ != '"')
			continue; /* <system> headers */
		for (n = 0; q[n] && q[n] != '"' && q[n] != '\n'; n++)
			;
		snprintf(name, sizeof name, "%.*s", (int)n, q);
		h = t_header(rel, name);
		if (!h) {
			if (t_log)
				cr_log_error("%s:%d: includes \"%s\", which the table of stages does "
				             "not know", rel, line, name);
			bad++;
		} else if (h->stage > self->stage) {
			if (t_log)
				cr_log_error("%s:%d: %s (%s) includes %s (%s), a later stage of the "
				             "pipeline: move what it needs down, or the code up", rel,
				             line, rel, stages[self->stage], h->path, stages[h->stage]);
			bad++;
		} else if (self->stage == COMMAND && h->stage != COMMAND && h->stage != PUBLIC) {
			if (t_log)
				cr_log_error("%s:%d: the command includes %s: it uses the public API "
				             "only", rel, line, h->path);
			bad++;
		}
	}
	return bad;
}

/* The .c and .h files under `top`/`dir`, recursively, each checked;
 * returns how many. */
static int t_walk_includes(const char *top, const char *dir, int *bad)
{
	char path[4096 + 16];
	DIR *d;
	struct dirent *ent;
	int count = 0;

	snprintf(path, sizeof path, "%s/%s", top, dir);
	d = opendir(path);
	cr_assert_not_null(d, "cannot list %s", path);
	while ((ent = readdir(d)) != NULL) {
		char rel[2048];
		size_t n = strlen(ent->d_name), len;
		char *text;
		if (ent->d_name[0] == '.')
			continue;
		snprintf(rel, sizeof rel, "%s/%s", dir, ent->d_name);
		if (ent->d_type == DT_DIR) {
			count += t_walk_includes(top, rel, bad);
			continue;
		}
		if (n < 3 || ent->d_name[n - 2] != '.' ||
		    (ent->d_name[n - 1] != 'c' && ent->d_name[n - 1] != 'h'))
			continue;
		snprintf(path, sizeof path, "%s/%s", top, rel);
		text = (char *)t_read(path, &len);
		cr_assert_not_null(text, "cannot read %s", path);
		text = realloc(text, len + 1);
		text[len] = '\0';
		*bad += t_check_includes(rel, text);
		free(text);
		count++;
	}
	closedir(d);
	return count;
}

Test(sources, no_include_points_up_the_pipeline)
{
	static const char *const dirs[] = {"include", "src", "render"};
	char path[4096 + 16];
	int bad = 0, seen = 0;
	size_t i, generated = 0;

	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
		seen += t_walk_includes(AF_TEST_SOURCE, dirs[i], &bad);
	/* the table names no file that is gone */
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		FILE *f;
		if (strchr(files[i].path, '/') == NULL) {
			generated++; /* made at build time */
			continue;
		}
		snprintf(path, sizeof path, "%s/%s", AF_TEST_SOURCE, files[i].path);
		f = fopen(path, "r");
		if (!f) {
			cr_log_error("%s: in the table of stages but not in the source tree",
			             files[i].path);
			bad++;
			continue;
		}
		fclose(f);
	}
	cr_assert_eq((size_t)seen, sizeof files / sizeof files[0] - generated,
	             "%d files under include/, src/ and render/, %zu in the table", seen,
	             sizeof files / sizeof files[0] - generated);
	cr_assert_eq(bad, 0, "%d problems with the order of the stages (see the lines "
	             "above)", bad);
}

/* The include check finds what it must and nothing else. */
Test(sources, the_include_check_sees_what_points_up)
{
	t_log = 0;
	cr_assert_eq(t_check_includes("src/tree.c", "#include <stdlib.h>\n"
	                                            "#include \"trace.h\"\n"
	                                            "#  include \"tree.h\"\n"
	                                            "#include \"view.h\"\n"
	                                            "/* #include \"layout.h\" in words */\n"),
	             0);
	/* the parser naming the call tree, the font the style */
	cr_assert_eq(t_check_includes("src/trace.c", "#include \"tree.h\"\n"), 1);
	cr_assert_eq(t_check_includes("render/font.c", "#include \"font.h\"\n"
	                                               "#include \"style.h\"\n"), 1);
	cr_assert_eq(t_check_includes("src/error.c", "#include \"internal.h\"\n"), 1);
	cr_assert_eq(t_check_includes("src/names.c", "#include \"trace.h\"\n"
	                                             "#include \"view.h\"\n"), 2);
	/* headers beside the file, in include/, and the generated one */
	cr_assert_eq(t_check_includes("render/svg.c", "#include \"flame_js.h\"\n"
	                                              "#include \"aflame/aflame.h\"\n"
	                                              "#include \"layout.h\"\n"
	                                              "#include \"style.h\"\n"), 0);
	/* the command sees the public API only */
	cr_assert_eq(t_check_includes("src/cli/main.c", "#include \"cli.h\"\n"), 0);
	cr_assert_eq(t_check_includes("src/cli/main.c", "#include \"internal.h\"\n"), 1);
	/* unknown headers and unknown files */
	cr_assert_eq(t_check_includes("src/trace.c", "#include \"nowhere.h\"\n"), 1);
	cr_assert_eq(t_check_includes("src/new.c", "#include \"internal.h\"\n"), 1);
}

/* ARCHITECTURE.md names every file of the table, so that a newcomer finds
 * each one there: a new file goes into both. */
Test(sources, architecture_names_every_file)
{
	char path[4096 + 32], name[256];
	char *text;
	size_t len, i;
	int missing = 0;

	snprintf(path, sizeof path, "%s/ARCHITECTURE.md", AF_TEST_SOURCE);
	text = (char *)t_read(path, &len);
	cr_assert_not_null(text, "%s: cannot read it", path);
	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		const char *base = strrchr(files[i].path, '/');
		base = base ? base + 1 : files[i].path;
		snprintf(name, sizeof name, "`%s`", base);
		if (!strstr(text, name)) {
			cr_log_error("%s: not named in ARCHITECTURE.md", files[i].path);
			missing++;
		}
	}
	free(text);
	cr_assert_eq(missing, 0, "%d files of the table of stages are not in ARCHITECTURE.md",
	             missing);
}

/* No room of the house grows past 900 lines (the public header aside: it is
 * the library's whole reference); one that does is split by concern. */
Test(sources, no_file_passes_900_lines)
{
	char path[4096 + 32];
	size_t i;
	int big = 0;

	for (i = 0; i < sizeof files / sizeof files[0]; i++) {
		char *text;
		size_t len, k, lines = 0;
		if (!strchr(files[i].path, '/') || files[i].stage == PUBLIC)
			continue; /* generated at build time, or the public headers */
		snprintf(path, sizeof path, "%s/%s", AF_TEST_SOURCE, files[i].path);
		text = (char *)t_read(path, &len);
		cr_assert_not_null(text, "%s: cannot read it", path);
		for (k = 0; k < len; k++)
			lines += text[k] == '\n';
		if (lines > 900) {
			cr_log_error("%s: %zu lines", files[i].path, lines);
			big++;
		}
		free(text);
	}
	cr_assert_eq(big, 0, "%d files past 900 lines", big);
}
