/*
 * main.c - the aflame-render command: the command line parsed into a
 * struct (options.c), then the library's pipeline for the mode it asks for,
 * then an exit status.  Uses only the public headers.
 */
#define _DEFAULT_SOURCE /* mallopt */
#include <errno.h>
#include <limits.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"

/* The font, opened on a thread of its own while the call tree is built
 * (about 1.5 ms of fontconfig and cairo, with the second core idle). */
typedef struct early_font {
	pthread_t thread;
	int started;
	af_font *font;
	af_status st;
	af_error e;
} early_font;

static void *open_font(void *arg)
{
	early_font *f = arg;
	f->st = af_font_open(NULL, &f->font, &f->e);
	return NULL;
}

/* Starts opening the font when the format draws text, unless --jobs 1
 * asks for one thread; no thread, no harm: draw() opens it then. */
static void font_start(early_font *f, const cli *c)
{
	sigset_t all, old;

	memset(f, 0, sizeof *f);
	if (c->format == AF_FORMAT_FOLDED || c->format == AF_FORMAT_PPROF || c->jobs == 1)
		return;
	/* signals go to the run's own threads (output.c) */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	f->started = pthread_create(&f->thread, NULL, open_font, f) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The font font_start() opened (or the error it met), now the caller's. */
static af_status font_wait(early_font *f, af_font **font, af_error *e)
{
	if (!f || !f->started)
		return af_font_open(NULL, font, e);
	pthread_join(f->thread, NULL);
	f->started = 0;
	*font = f->font;
	*e = f->e;
	return f->st;
}

/* Draws `tree` into c->output in c->format; 0 or an exit status.
 * `android`: the android palette unless --colors chose one.  `early`: the
 * font being opened, or NULL. */
static int draw(const cli *c, const af_tree *tree, af_clock clock, int android,
                const af_layout_options *lo, const char *name, early_font *early)
{
	af_layout_options lopt = *lo;
	af_render_options ropt = c->render;
	af_layout *layout = NULL;
	af_font *font = NULL;
	af_namemap *colormap = NULL, *nameattr = NULL;
	af_error e = {0};
	af_status st;
	out_file out;
	int status = 1;

	if (c->format != AF_FORMAT_FOLDED && c->format != AF_FORMAT_PPROF) {
		lopt.clock = (af_clock)clock;
		if (android)
			ropt.palette = AF_PALETTE_ANDROID;
		lopt.legend = ropt.palette == AF_PALETTE_ANDROID;
		if ((st = af_layout_build(tree, &lopt, &layout, &e)) != AF_OK) {
			report_error(name, &e);
			goto done;
		}
		if ((st = font_wait(early, &font, &e)) != AF_OK) {
			report_error("font", &e);
			goto done;
		}
		ropt.font = font;
		if (c->cp && (st = af_namemap_load("palette.map", AF_NAMEMAP_PALETTE,
		                                   &colormap, &e)) != AF_OK) {
			report_error("palette.map", &e);
			goto done;
		}
		if (c->nameattr && (st = af_namemap_load(c->nameattr, AF_NAMEMAP_ATTRS,
		                                         &nameattr, &e)) != AF_OK) {
			report_error(c->nameattr, &e);
			goto done;
		}
		print_namemap_warning("palette.map", colormap);
		print_namemap_warning(c->nameattr, nameattr);
		ropt.colormap = colormap;
		ropt.nameattr = nameattr;
	}
	if (colormap && out_check("palette.map"))
		goto done;

	if (out_begin(&out, c->output))
		goto done;
	switch (c->format) {
	case AF_FORMAT_FOLDED:
		st = af_folded_write(tree, (af_clock)clock, out.f, &e);
		break;
	case AF_FORMAT_PPROF:
		st = af_pprof_write(tree, (af_clock)clock, out.f, &e);
		break;
	case AF_FORMAT_SVG:
		st = af_svg_write(layout, &ropt, out.f, &e);
		break;
	default:
		st = af_cairo_write(layout, c->format, &ropt, out.f, &e);
		break;
	}
	if (out_end(&out, st, &e, name))
		goto done;
	/* the colours the graph gave, saved with it (or neither) */
	if (colormap) {
		if (out_begin(&out, "palette.map"))
			goto done;
		st = out_namemap(&out, colormap, &e);
		if (out_end(&out, st, &e, "palette.map"))
			goto done;
	}
	status = 0;
done:
	af_namemap_free(colormap);
	af_namemap_free(nameattr);
	af_font_free(font);
	af_layout_free(layout);
	return status;
}

/* Opens one input of a diff; NULL after a message. */
static af_trace *open_side(const cli *c, const char *path)
{
	const char *name = strcmp(path, "-") == 0 ? "(stdin)" : path;
	af_trace *t = NULL;
	af_error e = {0};

	if (af_trace_open(path, &c->parse, &t, &e) != AF_OK) {
		report_error(name, &e);
		return NULL;
	}
	if (c->verbose)
		print_summary(name, t);
	if (!c->quiet)
		print_warnings(name, t);
	if (af_trace_get_info(t)->differential) {
		fprintf(stderr, PROG ": %s: already a differential profile (two counts a "
		        "line): --diff compares two plain profiles\n", name);
		af_trace_free(t);
		return NULL;
	}
	return t;
}

/* --diff BEFORE AFTER: AFTER's graph coloured by the change. */
static int run_diff(const cli *c)
{
	af_trace *tb = NULL, *ta = NULL;
	af_tree *before = NULL, *after = NULL, *diff = NULL;
	af_tree_options topt = c->tree;
	af_layout_options lopt = c->layout;
	af_diff_options dopt = {0};
	af_error e = {0};
	const af_trace_info *ib, *ia;
	const char *nb = strcmp(c->before, "-") == 0 ? "(stdin)" : c->before;
	const char *na = strcmp(c->input, "-") == 0 ? "(stdin)" : c->input;
	char sub[1024];
	int clock, status = 1;

	if (!(tb = open_side(c, c->before)) || !(ta = open_side(c, c->input)))
		goto done;
	ib = af_trace_get_info(tb);
	ia = af_trace_get_info(ta);
	if (c->clock >= 0) {
		clock = c->clock;
	} else if (ib->has_clock[AF_CLOCK_WALL] && ia->has_clock[AF_CLOCK_WALL]) {
		clock = AF_CLOCK_WALL;
	} else if (ib->has_clock[AF_CLOCK_CPU] && ia->has_clock[AF_CLOCK_CPU]) {
		clock = AF_CLOCK_CPU;
	} else {
		fprintf(stderr, PROG ": %s records %s time and %s %s time: no clock to "
		        "compare them on\n", nb, ib->has_clock[AF_CLOCK_WALL] ? "wall" : "thread-cpu",
		        na, ia->has_clock[AF_CLOCK_WALL] ? "wall" : "thread-cpu");
		goto done;
	}
	if (!ib->has_clock[clock] || !ia->has_clock[clock]) {
		fprintf(stderr, PROG ": %s: the trace has no %s clock\n",
		        ib->has_clock[clock] ? na : nb, clock == AF_CLOCK_WALL ? "wall"
		        : clock == AF_CLOCK_WAIT ? "wait (it needs both clocks)" : "thread-cpu");
		goto done;
	}
	topt.prune = 0;
	topt.clock = (af_clock)clock;
	if (af_tree_from_trace(tb, &topt, &before, &e) != AF_OK) {
		report_error(nb, &e);
		goto done;
	}
	if (af_tree_from_trace(ta, &topt, &after, &e) != AF_OK) {
		report_error(na, &e);
		goto done;
	}
	dopt.clock = (af_clock)clock;
	dopt.normalize = c->normalize;
	if (af_tree_diff(before, after, &dopt, &diff, &e) != AF_OK) {
		report_error(na, &e);
		goto done;
	}
	if (!lopt.title)
		lopt.title = "Differential Flame Graph";
	if (!lopt.subtitle) {
		snprintf(sub, sizeof sub, "%s \xE2\x86\x92 %s%s: red grew, blue shrank", nb, na,
		         c->normalize ? " (normalized)" : "");
		lopt.subtitle = sub;
	}
	status = draw(c, diff, (af_clock)clock, 0, &lopt, na, NULL);
done:
	af_tree_free(diff);
	af_tree_free(before);
	af_tree_free(after);
	af_trace_free(tb);
	af_trace_free(ta);
	return status;
}

/* Says why the trace cannot be drawn on `clock`. */
static void no_clock(const char *name, const af_trace_info *info, int clock)
{
	if (clock == AF_CLOCK_WAIT && info->variant == AF_VARIANT_FOLDED)
		fprintf(stderr, PROG ": %s: --clock wait needs a trace with both wall "
		        "and thread-cpu times; folded stacks have one count\n", name);
	else if (clock == AF_CLOCK_WAIT)
		fprintf(stderr, PROG ": %s: --clock wait needs a trace with both wall "
		        "and thread-cpu times; this one records %s only\n", name,
		        info->has_clock[AF_CLOCK_WALL] ? "wall" : "thread-cpu");
	else
		fprintf(stderr, PROG ": %s: the trace has no %s clock (it records %s "
		        "only)\n", name, clock == AF_CLOCK_WALL ? "wall" : "thread-cpu",
		        clock == AF_CLOCK_WALL ? "thread-cpu" : "wall");
}

static int run(const cli *c)
{
	af_parse_options popt = c->parse;
	af_tree_options topt = c->tree;
	af_layout_options lopt = c->layout;
	af_trace *trace = NULL;
	af_tree *tree = NULL;
	af_error e = {0};
	af_status st;
	const af_trace_info *info;
	early_font font = {0};
	progress prog;
	int clock, status = 1, android;
	const char *name = strcmp(c->input, "-") == 0 ? "(stdin)" : c->input;

	progress_init(&prog, c);
	popt.progress = progress_bytes;
	popt.progress_ctx = &prog;
	if (c->ninputs > 1) {
		size_t which = 0;
		st = af_trace_open_many(c->inputs, c->ninputs, &popt, &trace, &which, &e);
		if (st != AF_OK && which < c->ninputs)
			name = strcmp(c->inputs[which], "-") == 0 ? "(stdin)" : c->inputs[which];
	} else {
		st = af_trace_open(c->input, &popt, &trace, &e);
	}
	progress_end(&prog);
	if (st != AF_OK) {
		report_error(name, &e);
		return 1;
	}
	info = af_trace_get_info(trace);
	if (c->verbose)
		print_summary(name, trace);
	/* the warnings of several inputs name the one they are about */
	if (c->ninputs > 1 && info->ignored_lines && info->first_ignored_input < c->ninputs)
		name = strcmp(c->inputs[info->first_ignored_input], "-") == 0
		       ? "(stdin)" : c->inputs[info->first_ignored_input];
	if (!c->quiet)
		print_warnings(name, trace);
	name = strcmp(c->input, "-") == 0 ? "(stdin)" : c->input;

	clock = c->clock >= 0 ? c->clock
	        : info->has_clock[AF_CLOCK_WALL] ? AF_CLOCK_WALL : AF_CLOCK_CPU;
	if (!info->has_clock[clock]) {
		no_clock(name, info, clock);
		goto done;
	}
	topt.clock = (af_clock)clock;
	/* the graph first, and what the input makes impossible is found before
	 * anything is written; the other outputs' places are checked before */
	if (c->report && out_check(c->report))
		goto done;
	if (c->per_thread) {
		status = run_set(c, trace, (af_clock)clock);
		goto report;
	}
	if (!c->graph) {
		status = 0;
		goto report;
	}
	if (c->call_graph) {
		status = run_call_graph(c, trace, (af_clock)clock);
		goto report;
	}
	if (c->format != AF_FORMAT_FOLDED && c->format != AF_FORMAT_PPROF &&
	    !c->layout.flamechart && !c->layout.keep_narrow) {
		/* subtrees under --minwidth are never drawn: not built */
		topt.prune = prune_share(&c->layout);
		topt.prune_clock = (af_clock)clock;
	}
	font_start(&font, c);
	if ((st = af_tree_from_trace(trace, &topt, &tree, &e)) != AF_OK) {
		report_error(name, &e);
		goto done;
	}
	android = !c->palette_set && info->variant != AF_VARIANT_FOLDED;
	if (!c->report) {
		/* the tree holds what it needs of the trace: the trace's blocks
		 * are handed out again to the layout, already in memory */
		af_trace_free(trace);
		trace = NULL;
		info = NULL;
	}
	status = draw(c, tree, (af_clock)clock, android, &lopt, name, &font);
	af_tree_free(tree);
	tree = NULL;
report:
	if (status == 0 && c->report)
		status = run_report(c, trace, (af_clock)clock);
done:
	if (font.started) { /* not drawn: the tree failed */
		af_font *f = NULL;
		af_error fe;
		font_wait(&font, &f, &fe);
		af_font_free(f);
	}
	af_tree_free(tree);
	af_trace_free(trace);
	return status;
}

#ifndef AF_SERVE_RELATIVE
#define AF_SERVE_RELATIVE "../libexec/aflame/aflame-serve"
#endif

/* `aflame-render serve`: runs the upload site, the program aflame-serve
 * (src/serve/main.c), found beside this command (a build tree) or at
 * AF_SERVE_RELATIVE from it (where it is installed, under any prefix).
 * Its argv[0] is this command's path: the server draws uploads with it.
 * Returns only when it could not be run. */
static int run_server(char **argv)
{
	static const char *const places[] = {"aflame-serve", AF_SERVE_RELATIVE};
	char self[PATH_MAX], path[PATH_MAX + sizeof AF_SERVE_RELATIVE];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	size_t dir, i;

	if (n <= 0) {
		fprintf(stderr, "aflame-render: serve: cannot find this program: %s\n",
		        strerror(errno));
		return 1;
	}
	self[n] = '\0';
	dir = (size_t)(strrchr(self, '/') - self) + 1;
	for (i = 0; i < sizeof places / sizeof places[0]; i++) {
		snprintf(path, sizeof path, "%.*s%s", (int)dir, self, places[i]);
		if (access(path, X_OK) == 0)
			break;
	}
	if (i == sizeof places / sizeof places[0]) {
		fprintf(stderr, "aflame-render: serve: the server program is missing: no %.*s%s "
		        "nor %.*s%s\n", (int)dir, self, places[0], (int)dir, self, places[1]);
		return 1;
	}
	argv[0] = self;
	execv(path, argv);
	fprintf(stderr, "aflame-render: serve: cannot run %s: %s\n", path, strerror(errno));
	return 1;
}

double prune_share(const af_layout_options *lo)
{
	double w = lo->width > 0 ? lo->width : 1200;
	double mw = lo->min_width > 0 ? lo->min_width : 0.1;

	if (lo->thumb_width > 0) /* no margins; a frame under a pixel is left out */
		return 1.0 / lo->thumb_width;
	if (lo->min_width_pct > 0)
		return lo->min_width_pct / 100;
	return mw / (w - 20); /* flamegraph.pl's 10 px margins */
}

int main(int argc, char **argv)
{
	cli c;
	af_mapping *mapping = NULL;
	af_btrace_mapping *btrace_mapping = NULL;
	int r;

	if (argc > 1 && strcmp(argv[1], "serve") == 0)
		return run_server(argv + 1);
	/* Large tables grow by doubling: with a fixed mmap threshold glibc
	 * moves them with mremap instead of copying, and gives them back. */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	/* A run frees and takes again the smaller blocks of graph after graph
	 * (a per-thread set draws dozens): kept rather than handed back, they
	 * are not faulted in again page by page. */
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	out_watch_signals();
	r = cli_parse(argc, argv, &c);

	if (r < 0 && c.mapping) {
		af_error e = {0};
		if (af_mapping_load(c.mapping, &mapping, &e) != AF_OK) {
			report_error(c.mapping, &e);
			r = 1;
		}
		c.tree.mapping = mapping;
	}
	if (r < 0 && c.btrace_mapping) {
		af_error e = {0};
		if (af_btrace_mapping_load(c.btrace_mapping, &btrace_mapping, &e) != AF_OK) {
			report_error(c.btrace_mapping, &e);
			r = 1;
		}
		c.parse.btrace_mapping = btrace_mapping;
	}
	if (r < 0)
		r = c.dump ? run_dump(&c) : c.before ? run_diff(&c) : run(&c);
	/* every output in place at once, or none */
	if (r == 0 && out_commit() != 0)
		r = 1;
	else if (r != 0)
		out_discard();
	af_mapping_free(mapping);
	af_btrace_mapping_free(btrace_mapping);
	free(c.threads);
	free(c.processes);
	free(c.inputs);
	return r;
}
