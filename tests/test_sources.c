/*
 * test_sources.c - checks on the source tree itself.
 *
 * Every block the library allocates goes through the caller's allocator
 * (src/mem.c), so that a budget, a custom allocator and the failure
 * injection of test_alloc.c see all of them.  A direct call to the C
 * library's allocator anywhere else in src/ or render/ would slip past all
 * three, so this suite reads the sources and fails on one.
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
