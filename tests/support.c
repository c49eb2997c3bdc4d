/*
 * support.c - see support.h.
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <cairo.h>
#include <criterion/criterion.h>
#include <dirent.h>
#include <libxml/parser.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include "support.h"

af_trace *t_parse(const uint8_t *buf, size_t len)
{
	return t_parse_with(buf, len, NULL);
}

af_trace *t_parse_with(const uint8_t *buf, size_t len, const af_parse_options *po)
{
	af_trace *t = NULL;
	af_error e = {0};
	af_status st = af_trace_parse(buf, len, po, &t, &e);
	cr_assert_eq(st, AF_OK, "parse failed: %s (byte %lld)", e.message, e.offset);
	return t;
}

char *t_folded(const uint8_t *buf, size_t len, af_clock clock,
               const af_tree_options *topt)
{
	return t_folded_with(buf, len, NULL, clock, topt);
}

char *t_folded_with(const uint8_t *buf, size_t len, const af_parse_options *po,
                    af_clock clock, const af_tree_options *topt)
{
	af_trace *t = t_parse_with(buf, len, po);
	char *text = t_folded_trace(t, clock, topt);

	af_trace_free(t);
	return text;
}

char *t_folded_trace(const af_trace *t, af_clock clock, const af_tree_options *topt)
{
	af_tree *tree = NULL;
	af_error e = {0};
	char *text = NULL;
	size_t tlen = 0;
	FILE *f;
	af_status st;

	st = af_tree_from_trace(t, topt, &tree, &e);
	cr_assert_eq(st, AF_OK, "tree failed: %s", e.message);
	f = open_memstream(&text, &tlen);
	cr_assert_not_null(f);
	st = af_folded_write(tree, clock, f, &e);
	cr_assert_eq(st, AF_OK, "folded failed: %s", e.message);
	fclose(f);
	af_tree_free(tree);
	return text;
}

static int t_refuse(t_refuser *r, size_t n, int fresh)
{
	int no = atomic_fetch_add(&r->calls, 1) == r->refuse || (fresh && r->size && n == r->size);
	if (no)
		atomic_fetch_add(&r->refused, 1);
	return no;
}

static void *t_refuser_malloc(void *ctx, size_t n)
{
	t_refuser *r = ctx;
	void *p = t_refuse(r, n, 1) ? NULL : malloc(n);
	if (p)
		atomic_fetch_add(&r->held, 1);
	return p;
}

static void *t_refuser_realloc(void *ctx, void *old, size_t n)
{
	t_refuser *r = ctx;
	void *p = t_refuse(r, n, !old) ? NULL : realloc(old, n);
	if (p && !old)
		atomic_fetch_add(&r->held, 1);
	return p;
}

static void t_refuser_free(void *ctx, void *p)
{
	t_refuser *r = ctx;
	if (p)
		atomic_fetch_sub(&r->held, 1);
	free(p);
}

af_allocator t_refuser_allocator(t_refuser *r)
{
	af_allocator a = {t_refuser_malloc, t_refuser_realloc, t_refuser_free, r};
	return a;
}

uint8_t *t_finish(af_writer *w, size_t *len, size_t *key_len)
{
	uint8_t *buf = NULL;
	cr_assert_not_null(w, "writer options rejected");
	cr_assert_eq(af_writer_finish(w, &buf, len, key_len), 0, "writer failed");
	af_writer_free(w);
	return buf;
}

af_writer *t_case_writer(af_writer_options o, const t_op *ops, size_t n)
{
	static const char *const names[] = {"a", "b", "c", "d", "x", "y"};
	af_writer *w = af_writer_new(&o);
	size_t i;

	cr_assert_not_null(w, "writer rejected the options");
	for (i = 0; i < 6; i++)
		cr_assert_eq(af_writer_method(w, 4u * ((uint32_t)i + 1u), "com.example.App",
		                              names[i], "()V", "App.java"), 0);
	for (i = 0; i < n; i++) {
		if (ops[i].thread)
			cr_assert_eq(af_writer_thread(w, ops[i].tid, ops[i].name), 0);
		else
			cr_assert_eq(af_writer_record(w, ops[i].tid, ops[i].id, ops[i].action,
			                              ops[i].cpu, ops[i].wall), 0);
	}
	return w;
}

uint8_t *t_write_case(af_writer_options o, const t_op *ops, size_t n, size_t *len)
{
	return t_finish(t_case_writer(o, ops, n), len, NULL);
}

uint8_t *t_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t cap = 0, n;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		if (cap - *len < 65536) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap + 1);
			cr_assert_not_null(buf);
		}
		n = fread(buf + *len, 1, cap - *len, f);
		if (n == 0)
			break;
		*len += n;
	}
	fclose(f);
	buf[*len] = '\0';
	return buf;
}

typedef struct png_reader {
	const unsigned char *data;
	size_t len, pos;
} png_reader;

static cairo_status_t png_read(void *closure, unsigned char *out, unsigned int n)
{
	png_reader *r = closure;

	if (r->len - r->pos < n)
		return CAIRO_STATUS_READ_ERROR;
	memcpy(out, r->data + r->pos, n);
	r->pos += n;
	return CAIRO_STATUS_SUCCESS;
}

cairo_surface_t *t_png_image(const void *data, size_t len)
{
	png_reader r = {data, len, 0};

	return cairo_image_surface_create_from_png_stream(png_read, &r);
}

void t_write(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");
	cr_assert_not_null(f, "cannot write %s", path);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

char *t_tmp(const char *name)
{
	char *p = malloc(strlen(AF_TEST_TMP) + strlen(name) + 32);
	cr_assert_not_null(p);
	/* suites run in parallel processes: keep their files apart */
	sprintf(p, "%s/%d-%s", AF_TEST_TMP, (int)getpid(), name);
	unlink(p);
	return p;
}

int t_cli(const char *args, const char *stdin_path, char **out, char **err)
{
	char *o = t_tmp("cli.out"), *e = t_tmp("cli.err");
	char *cmd = malloc(strlen(args) + strlen(o) + strlen(e) + 512);
	size_t n;
	int status;

	cr_assert_not_null(cmd);
	sprintf(cmd, "'%s' %s <'%s' >'%s' 2>'%s'", AF_TEST_CLI, args,
	        stdin_path ? stdin_path : "/dev/null", o, e);
	status = system(cmd);
	cr_assert(WIFEXITED(status), "CLI did not exit normally: %s", cmd);
	if (out)
		*out = (char *)t_read(o, &n);
	if (err)
		*err = (char *)t_read(e, &n);
	unlink(o);
	unlink(e);
	free(o);
	free(e);
	free(cmd);
	return WEXITSTATUS(status);
}

long t_cli_peak(const char *out, const char *want, const char *what, const char *fmt, ...)
{
	char args[2048], cmd[4096], *got;
	struct rusage ru;
	va_list ap;
	size_t n;
	pid_t pid;
	int status;

	va_start(ap, fmt);
	vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	remove(out);
	snprintf(cmd, sizeof cmd, "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}"
	         "quarantine_size_mb=1\" '%s' -q -o '%s' %s", AF_TEST_CLI, out, args);
	/* a child of its own, so that its peak is its own */
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	cr_assert_eq(wait4(pid, &status, 0, &ru), pid);
	cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: %s", what, cmd);
	got = (char *)t_read(out, &n);
	cr_assert_not_null(got, "%s", what);
	cr_expect_str_eq(got, want, "%s", what);
	free(got);
	return ru.ru_maxrss;
}

void t_cli_says(int status, const char *want, const char *fmt, ...)
{
	char args[4096], *err = NULL;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(args, sizeof args, fmt, ap);
	va_end(ap);
	cr_assert(n >= 0 && (size_t)n < sizeof args);
	cr_assert_eq(t_cli(args, NULL, NULL, &err), status, "%s: %s", args, err);
	cr_assert(strstr(err, want), "%s: wanted '%s', got: %s", args, want, err);
	free(err);
}

const char *t_traces_dir(void)
{
	const char *dir = getenv("AF_TEST_TRACES");
	return dir && *dir ? dir : AF_TEST_TRACES;
}

int t_have_traces(void)
{
	struct stat sb;
	char *provenance = t_trace_path("PROVENANCE.md");
	int have = stat(provenance, &sb) == 0;

	free(provenance);
	if (!have)
		cr_log_info("skipped: real traces not found in %s", t_traces_dir());
	return have;
}

void t_traces_listed(const char *const *files, size_t n, const char *refused)
{
	DIR *d = opendir(t_traces_dir());
	struct dirent *ent;
	size_t seen = 0, i, len;

	cr_assert_not_null(d, "%s: cannot list it", t_traces_dir());
	while ((ent = readdir(d)) != NULL) {
		len = strlen(ent->d_name);
		if (ent->d_name[0] == '.' || (len > 3 && strcmp(ent->d_name + len - 3, ".md") == 0))
			continue;
		if (refused && strcmp(ent->d_name, refused) == 0) {
			seen++;
			continue;
		}
		for (i = 0; i < n && strcmp(files[i], ent->d_name) != 0; i++)
			;
		cr_assert_lt(i, n, "%s/%s is a real trace this test does not run on",
		             t_traces_dir(), ent->d_name);
		seen++;
	}
	closedir(d);
	cr_assert_eq(seen, n + (refused != NULL), "%zu of the %zu traces listed are in %s", seen,
	             n + (refused != NULL), t_traces_dir());
}

char *t_trace_path(const char *name)
{
	const char *dir = t_traces_dir();
	char *p = malloc(strlen(dir) + strlen(name) + 2);
	cr_assert_not_null(p);
	sprintf(p, "%s/%s", dir, name);
	return p;
}

static void t_xml_quiet(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

int t_xml_ok(const char *data, size_t len, char **why)
{
	xmlDocPtr doc;
	xmlErrorPtr e;

	xmlSetGenericErrorFunc(NULL, t_xml_quiet);
	doc = xmlReadMemory(data, (int)len, "out.svg", NULL,
	                    XML_PARSE_NONET | XML_PARSE_HUGE);
	if (!doc) {
		e = xmlGetLastError();
		if (why)
			*why = strdup(e && e->message ? e->message : "parse failed");
		return 0;
	}
	xmlFreeDoc(doc);
	return 1;
}

/* The first <title> from `n` on (pre-order; an SVG nests a few levels,
 * so recursing into children is safe) whose text begins with `prefix`. */
static char *t_find_title(xmlNodePtr n, const char *prefix)
{
	for (; n; n = n->next) {
		char *found;
		if (n->type != XML_ELEMENT_NODE)
			continue;
		if (xmlStrcmp(n->name, (const xmlChar *)"title") == 0) {
			xmlChar *text = xmlNodeGetContent(n);
			if (text && strncmp((const char *)text, prefix, strlen(prefix)) == 0) {
				found = strdup((const char *)text);
				xmlFree(text);
				return found;
			}
			xmlFree(text);
		}
		if ((found = t_find_title(n->children, prefix)) != NULL)
			return found;
	}
	return NULL;
}

char *t_svg_title(const char *path, const char *prefix)
{
	size_t len;
	char *svg = (char *)t_read(path, &len), *why = NULL, *title;
	xmlDocPtr doc;

	cr_assert_not_null(svg, "cannot read %s", path);
	cr_assert(t_xml_ok(svg, len, &why), "%s: %s", path, why);
	doc = xmlReadMemory(svg, (int)len, "out.svg", NULL, XML_PARSE_NONET | XML_PARSE_HUGE);
	cr_assert_not_null(doc);
	title = t_find_title(xmlDocGetRootElement(doc), prefix);
	xmlFreeDoc(doc);
	free(svg);
	return title;
}

uint8_t *t_gzip(const uint8_t *in, size_t len, size_t *out_len)
{
	z_stream z;
	uint8_t *out = malloc(len + 1024);

	memset(&z, 0, sizeof z);
	cr_assert_eq(deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY),
	             Z_OK);
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)len;
	z.next_out = out;
	z.avail_out = (uInt)(len + 1024);
	cr_assert_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	*out_len = z.total_out;
	deflateEnd(&z);
	return out;
}

af_font *t_font;

void t_font_open(void)
{
	af_error e = {0};
	cr_assert_eq(af_font_open(NULL, &t_font, &e), AF_OK, "%s", e.message);
}

void t_font_close(void)
{
	af_font_free(t_font);
	t_font = NULL;
}

/* "android/os/Debug.start (Ljava/lang/String;I)V\tDebug.java" ->
 * "android.os.Debug.start(java.lang.String, int)", as --signatures names it */
char *t_dmt_name(const char *s)
{
	static const char prim[] = "BbyteCcharDdoubleFfloatIintJlongSshortZbooleanVvoid";
	size_t len = strcspn(s, "\t\n"), sp, i;
	char *out = malloc(2 * len + 64), *o = out;
	int first = 1;

	while (len && s[len - 1] == ' ')
		len--;
	for (sp = len; sp > 0 && s[sp - 1] != ' '; sp--)
		;
	if (s[0] == '(' || sp == 0 || s[sp] != '(') {
		memcpy(out, s, len);
		out[len] = '\0';
		return out;
	}
	for (i = 0; i < sp - 1; i++)
		*o++ = s[i] == '/' ? '.' : s[i];
	*o++ = '(';
	for (i = sp + 1; i < len && s[i] != ')';) {
		size_t dims = 0;
		if (!first) {
			*o++ = ',';
			*o++ = ' ';
		}
		first = 0;
		while (s[i] == '[')
			dims++, i++;
		if (s[i] == 'L') {
			for (i++; i < len && s[i] != ';'; i++)
				*o++ = s[i] == '/' ? '.' : s[i];
			i++;
		} else {
			const char *p = strchr(prim, s[i]);
			cr_assert(p && s[i] >= 'A' && s[i] <= 'Z', "descriptor %s", s);
			for (p++; *p >= 'a' && *p <= 'z'; p++)
				*o++ = *p;
			i++;
		}
		while (dims--)
			*o++ = '[', *o++ = ']';
	}
	*o++ = ')';
	*o = '\0';
	return out;
}

char *t_popen_text(const char *cmd)
{
	FILE *p = popen(cmd, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, k;

	cr_assert_not_null(p);
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = (len + 4096 + 1) * 2;
			buf = realloc(buf, cap);
			cr_assert_not_null(buf);
		}
		k = fread(buf + len, 1, 4096, p);
		if (k == 0)
			break;
		len += k;
	}
	buf[len] = '\0';
	pclose(p);
	return buf;
}

/* A regular trace of about `records` records (14 bytes each), one thread
 * walking a few methods: big enough for the progress callback (every
 * 4 MiB) to run while records are left. */
uint8_t *t_long_trace(size_t records, size_t *len)
{
	af_writer_options o = {.variant = AF_VARIANT_REGULAR, .clock = AF_WRITER_DUAL};
	af_writer *w = af_writer_new(&o);
	uint32_t t = 0;
	size_t i;

	cr_assert_not_null(w);
	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, 4, "com.example.A", "run", "()V", "A.java"), 0);
	cr_assert_eq(af_writer_method(w, 8, "com.example.A", "step", "(I)V", "A.java"), 0);
	cr_assert_eq(af_writer_record(w, 1, 4, AF_ENTER, t, t), 0);
	for (i = 0; i + 2 < records; i += 2) {
		t += 3;
		cr_assert_eq(af_writer_record(w, 1, 8, AF_ENTER, t, t), 0);
		t += 5;
		cr_assert_eq(af_writer_record(w, 1, 8, AF_EXIT, t, t), 0);
	}
	cr_assert_eq(af_writer_record(w, 1, 4, AF_EXIT, t + 1, t + 1), 0);
	return t_finish(w, len, NULL);
}

static int t_by_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Puts the lines of `text` in byte order, in place. */
void t_sort_lines(char *text)
{
	size_t n = 0, cap = 0, i, len = strlen(text);
	char **lines = NULL, *copy = strdup(text), *p, *out = text;

	cr_assert_not_null(copy);
	for (p = strtok(copy, "\n"); p; p = strtok(NULL, "\n")) {
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			lines = realloc(lines, cap * sizeof *lines);
			cr_assert_not_null(lines);
		}
		lines[n++] = p;
	}
	qsort(lines, n, sizeof *lines, t_by_line);
	for (i = 0; i < n; i++)
		out += sprintf(out, "%s\n", lines[i]);
	cr_assert_leq((size_t)(out - text), len);
	free(lines);
	free(copy);
}

char *t_node_totals(const af_tree *tree)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	for (i = 0; i < af_tree_size(tree); i++) {
		af_node_info ni;
		af_tree_node(tree, i, &ni);
		fprintf(f, "%s %u %llu %llu %llu\n", ni.name, ni.depth,
		        (unsigned long long)ni.total[AF_CLOCK_WALL],
		        (unsigned long long)ni.total[AF_CLOCK_CPU],
		        (unsigned long long)ni.total[AF_CLOCK_WAIT]);
	}
	fclose(f);
	t_sort_lines(text);
	return text;
}
