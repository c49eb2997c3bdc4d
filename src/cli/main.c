/*
 * main.c - the aflame-render command: arguments into a struct, then the
 * library's pipeline, then an exit status.  Uses only the public headers.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "aflame/aflame.h"

#define PROG "aflame-render"

typedef struct cli {
	const char *input;
	const char *output;     /* NULL or "-": standard output */
	af_format format;
	int format_set;
	int clock;              /* -1: the trace's default */
	const char **threads;
	size_t nthreads;
	const char *title;
	double width, min_width, scale;
	int signatures, verbose, quiet, no_javascript;
} cli;

static void usage(FILE *f)
{
	fputs("Usage: " PROG " [options] TRACE\n"
	      "Draw an Android method trace (.trace, regular or streaming, gzip,\n"
	      "or a base.key + base.data pair; - for standard input) as a flame graph.\n"
	      "\n"
	      "  -o, --output FILE   write FILE (- for standard output, the default);\n"
	      "                      its extension picks the format: .svg .png .pdf .folded\n"
	      "      --format FMT    svg, png, pdf or folded (overrides the extension)\n"
	      "      --clock CLOCK   wall (default when recorded) or cpu (thread-cpu)\n"
	      "      --thread T      only threads named T or with id T (repeatable)\n"
	      "      --title TEXT    image title (default \"Flame Graph\")\n"
	      "      --width PX      image width (default 1200)\n"
	      "      --minwidth PX   leave out frames narrower than PX (default 0.1)\n"
	      "      --scale N       PNG pixel density, e.g. 2 for HiDPI (default 1)\n"
	      "      --signatures    name frames with their parameter types\n"
	      "      --no-javascript write a static SVG, without zoom and search\n"
	      "  -v, --verbose       print what the trace holds and its anomalies\n"
	      "  -q, --quiet         print no warnings\n"
	      "  -h, --help          show this help\n"
	      "  -V, --version       show the version\n",
	      f);
}

__attribute__((format(printf, 1, 2))) static int bad_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, PROG ": ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n", stderr);
	fputs("Try '" PROG " --help' for more information.\n", stderr);
	return 2;
}

static int parse_number(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi))
		return -1;
	*out = v;
	return 0;
}

static int parse_format(const char *s, af_format *f)
{
	if (strcmp(s, "svg") == 0)
		*f = AF_FORMAT_SVG;
	else if (strcmp(s, "png") == 0)
		*f = AF_FORMAT_PNG;
	else if (strcmp(s, "pdf") == 0)
		*f = AF_FORMAT_PDF;
	else if (strcmp(s, "folded") == 0)
		*f = AF_FORMAT_FOLDED;
	else
		return -1;
	return 0;
}

/* Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, cli *c)
{
	int i, rest = 0;

	memset(c, 0, sizeof *c);
	c->clock = -1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *val = NULL;
		const char *eq = NULL;
		char name[32];

		if (rest || a[0] != '-' || strcmp(a, "-") == 0) {
			if (c->input)
				return bad_usage("more than one input: '%s'", a);
			c->input = a;
			continue;
		}
		if (strcmp(a, "--") == 0) {
			rest = 1;
			continue;
		}
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage(stdout);
			return 0;
		}
		if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
			puts(PROG " " AF_VERSION_STRING);
			return 0;
		}
		if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
			c->verbose = 1;
			continue;
		}
		if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
			c->quiet = 1;
			continue;
		}
		if (strcmp(a, "--signatures") == 0) {
			c->signatures = 1;
			continue;
		}
		if (strcmp(a, "--no-javascript") == 0) {
			c->no_javascript = 1;
			continue;
		}
		/* options with a value: "--opt VALUE", "--opt=VALUE", "-oFILE" */
		if (a[1] == '-' && (eq = strchr(a, '=')) != NULL) {
			size_t n = (size_t)(eq - a);
			if (n >= sizeof name)
				return bad_usage("unknown option '%s'", a);
			memcpy(name, a, n);
			name[n] = '\0';
			val = eq + 1;
		} else if (a[1] == 'o' && a[2]) {
			strcpy(name, "-o");
			val = a + 2;
		} else {
			if (strlen(a) >= sizeof name)
				return bad_usage("unknown option '%s'", a);
			strcpy(name, a);
		}
		if (strcmp(name, "-o") != 0 && strcmp(name, "--output") != 0 &&
		    strcmp(name, "--format") != 0 && strcmp(name, "--clock") != 0 &&
		    strcmp(name, "--thread") != 0 && strcmp(name, "--title") != 0 &&
		    strcmp(name, "--width") != 0 && strcmp(name, "--minwidth") != 0 &&
		    strcmp(name, "--scale") != 0)
			return bad_usage("unknown option '%s'", a);
		if (!val) {
			if (i + 1 >= argc)
				return bad_usage("option '%s' needs a value", a);
			val = argv[++i];
		}
		if (strcmp(name, "-o") == 0 || strcmp(name, "--output") == 0) {
			c->output = val;
		} else if (strcmp(name, "--format") == 0) {
			if (parse_format(val, &c->format))
				return bad_usage("unknown format '%s' (svg, png, pdf, folded)", val);
			c->format_set = 1;
		} else if (strcmp(name, "--clock") == 0) {
			if (strcmp(val, "wall") == 0)
				c->clock = AF_CLOCK_WALL;
			else if (strcmp(val, "cpu") == 0 || strcmp(val, "thread-cpu") == 0)
				c->clock = AF_CLOCK_CPU;
			else
				return bad_usage("unknown clock '%s' (wall or cpu)", val);
		} else if (strcmp(name, "--thread") == 0) {
			const char **t = realloc(c->threads, (c->nthreads + 1) * sizeof *t);
			if (!t) {
				fputs(PROG ": out of memory\n", stderr);
				return 1;
			}
			c->threads = t;
			c->threads[c->nthreads++] = val;
		} else if (strcmp(name, "--title") == 0) {
			c->title = val;
		} else if (strcmp(name, "--width") == 0) {
			if (parse_number(val, 100, 100000, &c->width))
				return bad_usage("--width takes a number of pixels from 100 to 100000, not '%s'", val);
		} else if (strcmp(name, "--minwidth") == 0) {
			if (parse_number(val, 0, 1e6, &c->min_width))
				return bad_usage("--minwidth takes a number of pixels, not '%s'", val);
		} else if (strcmp(name, "--scale") == 0) {
			if (parse_number(val, 0.1, 16, &c->scale))
				return bad_usage("--scale takes a number from 0.1 to 16, not '%s'", val);
		}
	}
	if (!c->input)
		return bad_usage("%s", "no input trace given");
	if (!c->format_set) {
		const char *o = c->output, *dot;
		if (!o || strcmp(o, "-") == 0) {
			c->format = AF_FORMAT_SVG;
		} else {
			dot = strrchr(o, '.');
			if (!dot || strchr(dot, '/') || parse_format(dot + 1, &c->format))
				return bad_usage("cannot tell the format from '%s': use "
				                 ".svg, .png, .pdf, .folded or --format", o);
		}
	}
	return -1;
}

static void report_error(const char *file, const af_error *e)
{
	if (e->offset >= 0)
		fprintf(stderr, PROG ": %s: %s (byte %lld)\n", file, e->message,
		        e->offset);
	else
		fprintf(stderr, PROG ": %s: %s\n", file, e->message);
}

static const char *variant_name(af_variant v)
{
	switch (v) {
	case AF_VARIANT_REGULAR: return "regular";
	case AF_VARIANT_STREAMING: return "streaming";
	case AF_VARIANT_KEY_DATA: return "key+data pair";
	}
	return "?";
}

static void print_summary(const char *file, const af_trace *t)
{
	const af_trace_info *i = af_trace_get_info(t);
	const char *clock = i->has_clock[0] && i->has_clock[1] ? "dual"
	                    : i->has_clock[AF_CLOCK_WALL]       ? "wall"
	                                                        : "thread-cpu";

	fprintf(stderr,
	        "%s: %s trace%s, version %u (0x%X), %u-byte records, clock %s%s, vm %s\n"
	        "  threads: %u declared, %u with records (%u not declared)\n"
	        "  methods: %u; records: %llu (%llu enters, %llu exits, %llu unwinds)\n"
	        "  orphan exits (re-rooted): %llu; mismatched exits: %llu; "
	        "open at end: %llu\n"
	        "  unknown method ids: %u (%llu calls); bad actions: %llu; "
	        "thread id collisions: %u\n"
	        "  clock steps backwards: cpu %llu, wall %llu; truncated bytes: %llu%s%s\n",
	        file, variant_name(i->variant), i->gzip ? " (gzip)" : "", i->version,
	        i->version, i->record_size, clock, i->clock_assumed ? " (inferred)" : "",
	        *i->vm ? i->vm : "?", i->threads_declared, i->threads_with_records,
	        i->unknown_threads, i->methods, (unsigned long long)i->records,
	        (unsigned long long)i->enters, (unsigned long long)i->exits,
	        (unsigned long long)i->unwinds, (unsigned long long)i->orphan_exits,
	        (unsigned long long)i->mismatched_exits,
	        (unsigned long long)i->open_at_end, i->unknown_methods,
	        (unsigned long long)i->unknown_method_calls,
	        (unsigned long long)i->bad_actions, i->thread_id_collisions,
	        (unsigned long long)i->time_backwards[AF_CLOCK_CPU],
	        (unsigned long long)i->time_backwards[AF_CLOCK_WALL],
	        (unsigned long long)i->truncated_bytes,
	        i->summary_missing ? "; summary missing" : "",
	        i->overflow ? "; buffer overflowed (data-file-overflow=true)" : "");
}

static void print_warnings(const char *file, const af_trace *t)
{
	const af_trace_info *i = af_trace_get_info(t);

	if (i->summary_missing)
		fprintf(stderr, PROG ": %s: warning: streaming trace ends without its "
		        "summary; assumed clock %s from %u-byte records\n", file,
		        i->record_size >= 14 ? "dual" : "wall", i->record_size);
	if (i->truncated_bytes)
		fprintf(stderr, PROG ": %s: warning: ignored %llu bytes of a cut-off "
		        "last record\n", file, (unsigned long long)i->truncated_bytes);
	if (i->overflow)
		fprintf(stderr, PROG ": %s: warning: the tracing buffer overflowed; "
		        "later calls are missing\n", file);
}

/* Writes to a temporary file beside `path`, renamed into place on success,
 * so a failure never leaves a half-written or clobbered file. */
typedef struct out_file {
	FILE *f;
	char *tmp;
	const char *path;
} out_file;

static int out_open(out_file *o, const char *path)
{
	const char *slash;
	size_t dir;
	int fd;

	memset(o, 0, sizeof *o);
	if (!path || strcmp(path, "-") == 0) {
		o->f = stdout;
		return 0;
	}
	o->path = path;
	slash = strrchr(path, '/');
	dir = slash ? (size_t)(slash - path) + 1 : 0;
	o->tmp = malloc(dir + strlen(path + dir) + 16);
	if (!o->tmp)
		return -1;
	sprintf(o->tmp, "%.*s.%s.XXXXXX", (int)dir, path, path + dir);
	fd = mkstemp(o->tmp);
	if (fd < 0) {
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	{
		mode_t mask = umask(0);
		umask(mask);
		fchmod(fd, 0666 & ~mask);
	}
	o->f = fdopen(fd, "wb");
	if (!o->f) {
		close(fd);
		unlink(o->tmp);
		free(o->tmp);
		o->tmp = NULL;
		return -1;
	}
	return 0;
}

static int out_close(out_file *o, int ok)
{
	int r = 0;

	if (o->f == stdout)
		return fflush(stdout) || ferror(stdout) ? -1 : 0;
	if (ok && (fflush(o->f) || ferror(o->f) || fsync(fileno(o->f))))
		ok = 0, r = -1;
	if (fclose(o->f))
		ok = 0, r = -1;
	if (ok && rename(o->tmp, o->path))
		ok = 0, r = -1;
	if (!ok)
		unlink(o->tmp);
	free(o->tmp);
	return r;
}

static int run(const cli *c)
{
	af_parse_options popt = {{0}};
	af_tree_options topt = {0};
	af_layout_options lopt = {0};
	af_render_options ropt = {0};
	af_trace *trace = NULL;
	af_tree *tree = NULL;
	af_layout *layout = NULL;
	af_font *font = NULL;
	af_error e = {0};
	af_status st;
	const af_trace_info *info;
	out_file out;
	int clock, status = 1;
	const char *name = strcmp(c->input, "-") == 0 ? "(stdin)" : c->input;

	st = af_trace_open(c->input, &popt, &trace, &e);
	if (st != AF_OK) {
		report_error(name, &e);
		return 1;
	}
	info = af_trace_get_info(trace);
	if (c->verbose)
		print_summary(name, trace);
	if (!c->quiet)
		print_warnings(name, trace);

	clock = c->clock >= 0 ? c->clock
	        : info->has_clock[AF_CLOCK_WALL] ? AF_CLOCK_WALL : AF_CLOCK_CPU;
	if (!info->has_clock[clock]) {
		fprintf(stderr, PROG ": %s: the trace has no %s clock (it records %s "
		        "only)\n", name, clock == AF_CLOCK_WALL ? "wall" : "thread-cpu",
		        clock == AF_CLOCK_WALL ? "thread-cpu" : "wall");
		goto done;
	}
	topt.signatures = c->signatures;
	topt.threads = c->threads;
	topt.nthreads = c->nthreads;
	if ((st = af_tree_from_trace(trace, &topt, &tree, &e)) != AF_OK) {
		report_error(name, &e);
		goto done;
	}
	if (c->format != AF_FORMAT_FOLDED) {
		lopt.clock = (af_clock)clock;
		lopt.width = c->width;
		lopt.min_width = c->min_width;
		lopt.title = c->title;
		if ((st = af_layout_build(tree, &lopt, &layout, &e)) != AF_OK ||
		    (st = af_font_open(NULL, &font, &e)) != AF_OK) {
			report_error(name, &e);
			goto done;
		}
		ropt.font = font;
		ropt.scale = c->scale;
		ropt.no_javascript = c->no_javascript;
	}

	if (out_open(&out, c->output)) {
		fprintf(stderr, PROG ": %s: cannot create: %s\n", c->output,
		        strerror(errno));
		goto done;
	}
	switch (c->format) {
	case AF_FORMAT_FOLDED:
		st = af_folded_write(tree, (af_clock)clock, out.f, &e);
		break;
	case AF_FORMAT_SVG:
		st = af_svg_write(layout, &ropt, out.f, &e);
		break;
	default:
		st = af_cairo_write(layout, c->format, &ropt, out.f, &e);
		break;
	}
	if (st != AF_OK) {
		out_close(&out, 0);
		report_error(c->output ? c->output : "(stdout)", &e);
		goto done;
	}
	if (out_close(&out, 1)) {
		fprintf(stderr, PROG ": %s: cannot write: %s\n",
		        c->output ? c->output : "(stdout)", strerror(errno));
		goto done;
	}
	status = 0;
done:
	af_font_free(font);
	af_layout_free(layout);
	af_tree_free(tree);
	af_trace_free(trace);
	return status;
}

int main(int argc, char **argv)
{
	cli c;
	int r = parse_args(argc, argv, &c);

	if (r < 0)
		r = run(&c);
	free(c.threads);
	return r;
}
