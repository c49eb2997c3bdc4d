/*
 * options.c - the table of the command's options, and the command line
 * parsed with it into a `cli`: each value checked as it comes, then how
 * the options go together.  Nothing here reads an input or writes an
 * output; main.c runs what was asked.
 */
#include <errno.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

/* What an option does; several entries of the table may share one. */
enum {
	O_HELP, O_HELP_MAN, O_VERSION, O_VERBOSE, O_QUIET, O_SIGNATURES, O_NOJS,
	O_REVERSE, O_INVERTED, O_HASH, O_RANDOM, O_NEGATE, O_FLAMECHART, O_CP,
	O_PER_THREAD, O_NORMALIZE, O_COLLAPSE, O_STRIP, O_OUTPUT, O_FORMAT, O_CLOCK,
	O_PROCESS,
	O_THREAD, O_TITLE, O_SUBTITLE, O_WIDTH, O_HEIGHT, O_MINWIDTH, O_SCALE,
	O_FONTSIZE, O_FONTTYPE, O_COLORS, O_BGCOLORS, O_COUNTNAME, O_NAMETYPE, O_NOTES,
	O_FACTOR, O_TOTAL, O_ENCODING, O_FONTWIDTH, O_SORT, O_THEME, O_NAMEATTR, O_JOBS,
	O_MIN_SHARE, O_THUMBNAIL, O_MAX_DEPTH, O_MAX_NODES, O_MAX_MEMORY, O_REPORT,
	O_REPORT_FORMAT, O_DIFF, O_MAPPING, O_FOCUS, O_EXCLUDE, O_CALL_GRAPH,
	O_CALL_GRAPH_THRESHOLD, O_DUMP, O_SAMPLE_TYPE, O_BTRACE_MAPPING, O_HEAP_VIEW,
	O_HEAP_DUMP, O_NO_DEMANGLE
};

const char *const cli_section_titles[CLI_NSECTIONS] = {
	[CLI_OUTPUT] = "Output",
	[CLI_DRAW] = "What to draw",
	[CLI_VIEWS] = "Views",
	[CLI_PROFILE] = "dmtracedump's outputs",
	[CLI_LOOK] = "Look (flamegraph.pl's options)",
	[CLI_SETS] = "Sets of graphs",
	[CLI_LIMITS] = "Limits",
	[CLI_MESSAGES] = "Messages",
};

#define OPT(name, s, arg, sec, id, help) {name, s, arg, CLI_##sec, 0, id, help}
#define AGAIN(name, arg, sec, id, help) {name, 0, arg, CLI_##sec, CLI_AGAIN, id, help}
#define ALIAS(name, arg, sec, id) {name, 0, arg, CLI_##sec, CLI_ALIAS, id, NULL}

const cli_option cli_options[] = {
	OPT("output", 'o', "FILE", OUTPUT, O_OUTPUT,
	    "write FILE (- or none: standard output); its extension picks the "
	    "format: .svg .png .pdf .folded, .pb.gz (pprof), and .dot for the "
	    "call graph"),
	OPT("format", 0, "FMT", OUTPUT, O_FORMAT,
	    "svg, png, pdf, folded, pprof or dot (the call graph), for a name "
	    "without one of those extensions; it must agree with the name's"),
	OPT("scale", 0, "N", OUTPUT, O_SCALE,
	    "PNG pixel density, e.g. 2 for HiDPI (default 1)"),
	OPT("no-javascript", 0, NULL, OUTPUT, O_NOJS,
	    "a static SVG, without zoom and search"),

	OPT("clock", 0, "CLOCK", DRAW, O_CLOCK,
	    "wall (default when recorded), cpu (thread-cpu) or wait"),
	OPT("sample-type", 0, "NAME", DRAW, O_SAMPLE_TYPE,
	    "pprof input: the sample type to draw, by name (alloc_space, cpu) or "
	    "index (default: the profile's default, else its last, as pprof)"),
	OPT("btrace-mapping", 0, "FILE", DRAW, O_BTRACE_MAPPING,
	    "btrace 2.0 input: its method mapping (methodMapping.txt), which "
	    "names its method ids (without it: method#ID)"),
	OPT("heap-view", 0, "NAME", DRAW, O_HEAP_VIEW,
	    "heapprofd dumps (Perfetto traces): unreleased-size (default), "
	    "unreleased-count, total-size or total-count"),
	OPT("heap-dump", 0, "N", DRAW, O_HEAP_DUMP,
	    "heapprofd: draw the N-th heap dump (from 1; default: the last)"),
	OPT("no-demangle", 0, NULL, DRAW, O_NO_DEMANGLE,
	    "keep C++ names of native frames (pprof, Perfetto) as written"),
	OPT("thread", 0, "T", DRAW, O_THREAD,
	    "only thread T: its name or id; for folded input, the lines whose "
	    "first frame is T (repeat for more)"),
	OPT("process", 0, "P", DRAW, O_PROCESS,
	    "only the threads of process P: its name or pid (systrace and "
	    "Perfetto input; repeat for more)"),
	OPT("signatures", 0, NULL, DRAW, O_SIGNATURES,
	    "name frames with their parameter types"),
	OPT("reverse", 0, NULL, DRAW, O_REVERSE,
	    "merge stacks from the leaf (each path reversed)"),
	OPT("inverted", 0, NULL, DRAW, O_INVERTED,
	    "icicle graph: the root at the top"),
	OPT("minwidth", 0, "W", DRAW, O_MINWIDTH,
	    "leave out frames narrower than W px, or W% of the total when W ends "
	    "in % (default 0.1; 0 keeps every frame)"),
	OPT("factor", 0, "F", DRAW, O_FACTOR, "multiply the values shown by F"),
	OPT("sort", 0, "ORDER", DRAW, O_SORT,
	    "siblings by name (default) or by weight, heaviest first"),
	OPT("flamechart", 0, NULL, DRAW, O_FLAMECHART,
	    "a flame chart: every call of a trace where it began (a call chart); "
	    "folded lines in their order"),
	OPT("total", 0, "N", DRAW, O_TOTAL,
	    "the value that is 100% (when larger than the sum)"),

	AGAIN("clock", "wait", VIEWS, O_CLOCK,
	      "off-CPU time: wall minus thread-cpu, per call path"),
	OPT("mapping", 0, "FILE", VIEWS, O_MAPPING,
	    "original names from a ProGuard/R8 mapping.txt"),
	OPT("focus", 0, "REGEX", VIEWS, O_FOCUS,
	    "only paths through a frame matching REGEX, re-rooted"),
	OPT("exclude", 0, "REGEX", VIEWS, O_EXCLUDE,
	    "leave out frames matching REGEX, with their callees"),
	OPT("collapse-recursion", 0, NULL, VIEWS, O_COLLAPSE,
	    "a frame calling itself directly is one frame"),
	OPT("strip-package", 0, NULL, VIEWS, O_STRIP,
	    "labels without the package (MainActivity.onCreate)"),
	OPT("min-share", 0, "P", VIEWS, O_MIN_SHARE,
	    "leave out frames under P% of the graph's total"),
	OPT("report", 0, "FILE", VIEWS, O_REPORT,
	    "per-method table to FILE (- stdout; a graph too with -o)"),
	OPT("report-format", 0, "F", VIEWS, O_REPORT_FORMAT,
	    "tsv (default), text (aligned for people) or html (a page with each "
	    "method's callers and callees)"),
	OPT("diff", 0, "BEFORE", VIEWS, O_DIFF,
	    "colour INPUT red/blue where it grew/shrank from BEFORE"),
	OPT("normalize", 0, NULL, VIEWS, O_NORMALIZE,
	    "with --diff: scale BEFORE to INPUT's total first"),

	OPT("call-graph", 0, NULL, PROFILE, O_CALL_GRAPH,
	    "draw the call graph instead of a flame graph: a box per method, an "
	    "arrow per caller and callee; -o .svg, .png or .pdf (drawn by "
	    "Graphviz's library) or .dot (text; -o FILE.dot alone is enough); "
	    "SVG on standard output"),
	OPT("call-graph-threshold", 0, "P", PROFILE, O_CALL_GRAPH_THRESHOLD,
	    "only callees whose inclusive time is at least P% of their caller's "
	    "(default 20, as dmtracedump -t)"),
	OPT("dump", 0, NULL, PROFILE, O_DUMP,
	    "every record of the trace in order, as text (to -o FILE or standard "
	    "output): offset, thread, action, method, both clocks as written and "
	    "unwrapped"),

	OPT("title", 0, "TEXT", LOOK, O_TITLE,
	    "the heading (default \"Flame Graph\"; \"Icicle Graph\" with --inverted)"),
	OPT("subtitle", 0, "TEXT", LOOK, O_SUBTITLE, "a second line under the title"),
	OPT("width", 0, "PX", LOOK, O_WIDTH, "image width (default 1200)"),
	OPT("height", 0, "PX", LOOK, O_HEIGHT, "height of a frame (default 16)"),
	OPT("fontsize", 0, "PX", LOOK, O_FONTSIZE, "label size (default 12)"),
	OPT("fonttype", 0, "NAME", LOOK, O_FONTTYPE,
	    "the SVG's font family (default DejaVu Sans, then Verdana)"),
	OPT("fontwidth", 0, "EM", LOOK, O_FONTWIDTH,
	    "fit labels with this average glyph width, as flamegraph.pl does, "
	    "not with the font's metrics"),
	OPT("colors", 0, "P", LOOK, O_COLORS,
	    "android (default for traces: app, platform, libraries, idle and "
	    "blocked frames, with a legend), hot (default for folded input), mem, "
	    "io, wakeup, chain, java, js, perl, red, green, blue, aqua, yellow, "
	    "purple, orange"),
	ALIAS("colours", "P", LOOK, O_COLORS),
	OPT("theme", 0, "T", LOOK, O_THEME, "light (default) or dark"),
	OPT("cp", 0, NULL, LOOK, O_CP,
	    "keep colours in ./palette.map: a name keeps its colour from graph to "
	    "graph"),
	OPT("nameattr", 0, "FILE", LOOK, O_NAMEATTR,
	    "attributes for frames' <g> (NAME<TAB>attr=value...); title replaces "
	    "the tooltip, href and target make a frame a link; what could run "
	    "script is left out"),
	OPT("bgcolors", 0, "C", LOOK, O_BGCOLORS, "yellow, blue, green, grey or #rrggbb"),
	OPT("hash", 0, NULL, LOOK, O_HASH, "colours by a hash weighted to the name's start"),
	OPT("random", 0, NULL, LOOK, O_RANDOM, "random colours"),
	OPT("countname", 0, "NAME", LOOK, O_COUNTNAME,
	    "unit of folded counts (default samples)"),
	OPT("nametype", 0, "TEXT", LOOK, O_NAMETYPE,
	    "prefix of the details line (e.g. \"Function:\")"),
	OPT("negate", 0, NULL, LOOK, O_NEGATE, "differential graphs: swap red and blue"),
	OPT("notes", 0, "TEXT", LOOK, O_NOTES, "a comment in the SVG"),
	OPT("encoding", 0, "E", LOOK, O_ENCODING,
	    "the SVG's declared encoding (default UTF-8)"),

	OPT("per-thread", 0, NULL, SETS, O_PER_THREAD,
	    "with -o FOLDER: one graph per thread, all.svg, PNG thumbnails and "
	    "index.html"),
	AGAIN("format", "LIST", SETS, O_FORMAT, "per-thread formats, e.g. svg,png,pdf"),
	AGAIN("min-share", "P", SETS, O_MIN_SHARE,
	      "skip threads under P% of the time (see Views)"),
	OPT("jobs", 'j', "N", SETS, O_JOBS,
	    "worker threads for reading and drawing (default: one per core)"),
	OPT("thumbnail", 0, "WxH", SETS, O_THUMBNAIL,
	    "thumbnails of this size; without --per-thread, the output is a "
	    "thumbnail of exactly WxH (PNG, or SVG or PDF when -o names one)"),

	OPT("max-depth", 0, "N", LIMITS, O_MAX_DEPTH,
	    "stacks deeper than N frames are an error (1000000)"),
	OPT("max-nodes", 0, "N", LIMITS, O_MAX_NODES,
	    "more than N distinct call paths are an error (50000000)"),
	OPT("max-memory", 0, "SIZE", LIMITS, O_MAX_MEMORY,
	    "memory the graphs may take, e.g. 512M or 4G (default: half the "
	    "physical memory)"),

	OPT("verbose", 'v', NULL, MESSAGES, O_VERBOSE,
	    "print what the input holds and its anomalies"),
	OPT("quiet", 'q', NULL, MESSAGES, O_QUIET, "print no warnings"),
	OPT("help", 'h', NULL, MESSAGES, O_HELP, "show this help"),
	OPT("version", 'V', NULL, MESSAGES, O_VERSION, "show the version"),
	{"help-man", 0, NULL, CLI_MESSAGES, CLI_HIDDEN, O_HELP_MAN,
	 "write the man page (roff) to standard output"},
};

const size_t cli_noptions = sizeof cli_options / sizeof cli_options[0];

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

/* The entry that parses `name` ("-o", "--output"; flamegraph.pl also takes
 * "-title" for "--title"), or NULL. */
static const cli_option *find_option(const char *name)
{
	size_t i;

	if (name[0] != '-')
		return NULL;
	for (i = 0; i < cli_noptions; i++) {
		const cli_option *o = &cli_options[i];
		const char *n = name[1] == '-' ? name + 2 : name + 1;
		if (o->flags & CLI_AGAIN)
			continue;
		if (name[1] != '-' && o->short_name && n[0] == o->short_name && !n[1])
			return o;
		if (strcmp(n, o->name) == 0)
			return o;
	}
	return NULL;
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
	else if (strcmp(s, "dot") == 0)
		*f = AF_FORMAT_DOT;
	else if (strcmp(s, "pprof") == 0)
		*f = AF_FORMAT_PPROF;
	else
		return -1;
	return 0;
}

/* The format a file's name says: its extension, or .pb.gz for pprof;
 * 0 when it says one. */
static int format_of_name(const char *name, af_format *f)
{
	const char *dot = strrchr(name, '.');
	size_t n = strlen(name);

	if (n > 6 && strcmp(name + n - 6, ".pb.gz") == 0 && name[n - 7] != '/') {
		*f = AF_FORMAT_PPROF;
		return 0;
	}
	if (!dot || strchr(dot, '/'))
		return -1;
	return parse_format(dot + 1, f);
}

/* "512M", "4G", "1.5g", "100000": bytes, with K, M, G or T (powers of
 * 1024, an optional B after them); 0 on success. */
static int parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMGT";
	const char *u;
	char *end;
	double v, scale = 1;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v > 0))
		return -1;
	if (*end && (u = strchr(units, *end >= 'a' ? *end - 32 : *end)) != NULL) {
		scale = (double)(1ull << (10 * (u - units + 1)));
		end++;
		if (*end == 'B' || *end == 'b')
			end++;
	}
	if (*end || v * scale >= 1.8e19 || v * scale < 1)
		return -1;
	*out = (uint64_t)(v * scale);
	return 0;
}

/* flamegraph.pl's background names, or #rrggbb. */
static int is_background(const char *s)
{
	return strcmp(s, "yellow") == 0 || strcmp(s, "blue") == 0 ||
	       strcmp(s, "green") == 0 || strcmp(s, "grey") == 0 ||
	       (strlen(s) == 7 && s[0] == '#' &&
	        strspn(s + 1, "0123456789abcdefABCDEF") == 6);
}

/* An XML encoding name: a letter, then letters, digits, '.', '_', '-'. */
static int is_encoding(const char *s)
{
	if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
		return 0;
	return strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	                 "0123456789._-") == strlen(s);
}

/* --format: one format, or a list of them for a per-thread set. */
static int apply_format(cli *c, const char *val)
{
	const char *p = val;

	c->formats = 0;
	while (*p) {
		char one[16];
		size_t n = strcspn(p, ",");
		af_format f;
		if (n >= sizeof one)
			return bad_usage("unknown format in '%s' (svg, png, pdf, folded, pprof, dot)", val);
		memcpy(one, p, n);
		one[n] = '\0';
		if (parse_format(one, &f))
			return bad_usage("unknown format '%s' (svg, png, pdf, folded, pprof, dot)", one);
		c->formats |= 1 << f;
		c->format = f;
		p += n + (p[n] == ',');
	}
	if (!c->formats)
		return bad_usage("%s", "--format needs a format");
	c->format_set = 1;
	return -1;
}

/* --minwidth: pixels, or a percentage of the total. */
static int apply_minwidth(cli *c, const char *val)
{
	size_t n = strlen(val);
	char num[64];

	if (n > 1 && n < sizeof num && val[n - 1] == '%') {
		memcpy(num, val, n - 1);
		num[n - 1] = '\0';
		if (parse_number(num, 0, 100, &c->layout.min_width_pct))
			return bad_usage("--minwidth takes pixels or a percentage, not '%s'", val);
		c->layout.min_width = 0;
		c->layout.keep_narrow = c->layout.min_width_pct == 0;
	} else if (parse_number(val, 0, 1e6, &c->layout.min_width)) {
		return bad_usage("--minwidth takes pixels or a percentage, not '%s'", val);
	} else {
		c->layout.min_width_pct = 0;
		c->layout.keep_narrow = c->layout.min_width == 0;
	}
	return -1;
}

/* --focus, --exclude: the expression is checked here, used by the library. */
static int apply_regex(cli *c, int id, const char *val)
{
	regex_t re;
	int rc = regcomp(&re, val, REG_EXTENDED | REG_NOSUB);

	if (rc) {
		char msg[160];
		regerror(rc, &re, msg, sizeof msg);
		return bad_usage("%s: bad regular expression '%s': %s",
		                 id == O_FOCUS ? "--focus" : "--exclude", val, msg);
	}
	regfree(&re);
	if (id == O_FOCUS)
		c->tree.focus = val;
	else
		c->tree.exclude = val;
	return -1;
}

/* Applies the options that take no value; -1 to go on, or an exit status. */
static int apply_flag(cli *c, int id)
{
	switch (id) {
	case O_HELP: cli_help(stdout); return 0;
	case O_HELP_MAN: return cli_man(stdout) ? 1 : 0;
	case O_VERSION: puts(PROG " " AF_VERSION_STRING); return 0;
	case O_VERBOSE: c->verbose = 1; break;
	case O_QUIET: c->quiet = 1; break;
	case O_SIGNATURES: c->tree.signatures = 1; break;
	case O_NO_DEMANGLE: c->parse.no_demangle = 1; break;
	case O_NOJS: c->render.no_javascript = 1; break;
	case O_REVERSE: c->tree.reverse = 1; break;
	case O_INVERTED: c->layout.inverted = 1; break;
	case O_HASH: c->render.color_mode = AF_COLOR_HASH; break;
	case O_RANDOM: c->render.color_mode = AF_COLOR_RANDOM; break;
	case O_NEGATE: c->render.negate = 1; break;
	case O_FLAMECHART:
		c->parse.flamechart = 1;
		c->layout.flamechart = 1;
		if (!c->layout.title)
			c->layout.title = "Flame Chart";
		break;
	case O_CP: c->cp = 1; break;
	case O_NORMALIZE: c->normalize = 1; break;
	case O_PER_THREAD: c->per_thread = 1; break;
	case O_COLLAPSE: c->tree.collapse_recursion = 1; break;
	case O_STRIP: c->tree.strip_package = 1; break;
	case O_CALL_GRAPH: c->call_graph = 1; break;
	case O_DUMP: c->dump = 1; break;
	}
	return -1;
}

/* Applies an option with its value; -1 to go on, or an exit status. */
static int apply(cli *c, int id, const char *val)
{
	double d;

	switch (id) {
	case O_FONTWIDTH:
		if (parse_number(val, 0.05, 5, &c->render.fontwidth))
			return bad_usage("--fontwidth takes an em fraction such as 0.59, not '%s'", val);
		break;
	case O_REPORT: c->report = val; break;
	case O_REPORT_FORMAT:
		if (strcmp(val, "tsv") == 0)
			c->report_format = AF_TABLE_TSV;
		else if (strcmp(val, "text") == 0)
			c->report_format = AF_TABLE_TEXT;
		else if (strcmp(val, "html") != 0)
			return bad_usage("--report-format takes tsv, text or html, not '%s'", val);
		c->report_html = strcmp(val, "html") == 0;
		break;
	case O_CALL_GRAPH_THRESHOLD:
		if (parse_number(val, 0, 100, &c->call_graph_threshold) ||
		    c->call_graph_threshold >= 100)
			return bad_usage("--call-graph-threshold takes a percentage under 100, "
			                 "not '%s'", val);
		c->call_graph_threshold_set = 1;
		break;
	case O_DIFF: c->before = val; break;
	case O_SAMPLE_TYPE: c->parse.sample_type = val; break;
	case O_BTRACE_MAPPING: c->btrace_mapping = val; break;
	case O_HEAP_VIEW: c->parse.heap_view = val; break;
	case O_HEAP_DUMP:
		if (parse_number(val, 1, 4294967295.0, &d) || d != (double)(unsigned)d)
			return bad_usage("--heap-dump takes a dump number from 1, not '%s'", val);
		c->parse.heap_dump = (unsigned)d;
		break;
	case O_JOBS:
		if (parse_number(val, 1, 256, &d) || d != (int)d)
			return bad_usage("--jobs takes a whole number from 1 to 256, not '%s'", val);
		c->jobs = (int)d;
		c->parse.jobs = c->jobs;
		break;
	case O_MIN_SHARE:
		if (parse_number(val, 0, 100, &c->min_share))
			return bad_usage("--min-share takes a percentage, not '%s'", val);
		c->tree.min_share = c->min_share / 100;
		break;
	case O_MAPPING: c->mapping = val; break;
	case O_FOCUS:
	case O_EXCLUDE: return apply_regex(c, id, val);
	case O_MAX_DEPTH:
		if (parse_number(val, 1, 4e9, &d) || d != (double)(uint32_t)d)
			return bad_usage("--max-depth takes a whole number of frames, not '%s'", val);
		c->parse.limits.max_depth = (uint32_t)d;
		break;
	case O_MAX_NODES:
		if (parse_number(val, 1, 4e9, &d) || d != (double)(uint32_t)d)
			return bad_usage("--max-nodes takes a whole number of call paths, not '%s'",
			                 val);
		c->parse.limits.max_nodes = (uint32_t)d;
		break;
	case O_MAX_MEMORY:
		if (parse_size(val, &c->parse.limits.max_memory))
			return bad_usage("--max-memory takes a size such as 512M or 4G, not '%s'",
			                 val);
		break;
	case O_THUMBNAIL: {
		int w = 0, h = 0, n = 0;
		if (sscanf(val, "%dx%d%n", &w, &h, &n) != 2 || val[n] || w < 16 || h < 16 ||
		    w > 8192 || h > 8192)
			return bad_usage("--thumbnail takes WIDTHxHEIGHT in pixels (16 to 8192), "
			                 "not '%s'", val);
		c->thumb_width = w;
		c->thumb_height = h;
		break;
	}
	case O_NAMEATTR: c->nameattr = val; break;
	case O_THEME:
		if (strcmp(val, "dark") == 0)
			c->render.dark = 1;
		else if (strcmp(val, "light") != 0)
			return bad_usage("--theme takes light or dark, not '%s'", val);
		break;
	case O_SORT:
		if (strcmp(val, "weight") == 0)
			c->layout.sort_weight = 1;
		else if (strcmp(val, "name") != 0)
			return bad_usage("--sort takes name or weight, not '%s'", val);
		break;
	case O_OUTPUT: c->output = val; break;
	case O_FORMAT: return apply_format(c, val);
	case O_CLOCK:
		if (strcmp(val, "wall") == 0)
			c->clock = AF_CLOCK_WALL;
		else if (strcmp(val, "cpu") == 0 || strcmp(val, "thread-cpu") == 0)
			c->clock = AF_CLOCK_CPU;
		else if (strcmp(val, "wait") == 0)
			c->clock = AF_CLOCK_WAIT;
		else
			return bad_usage("unknown clock '%s' (wall, cpu or wait)", val);
		break;
	case O_THREAD: {
		const char **t = realloc(c->threads, (c->nthreads + 1) * sizeof *t);
		if (!t) {
			fputs(PROG ": out of memory\n", stderr);
			return 1;
		}
		c->threads = t;
		c->threads[c->nthreads++] = val;
		break;
	}
	case O_PROCESS: {
		const char **p = realloc(c->processes, (c->nprocesses + 1) * sizeof *p);
		if (!p) {
			fputs(PROG ": out of memory\n", stderr);
			return 1;
		}
		c->processes = p;
		c->processes[c->nprocesses++] = val;
		break;
	}
	case O_TITLE: c->layout.title = val; break;
	case O_SUBTITLE: c->layout.subtitle = *val ? val : NULL; break;
	case O_WIDTH:
		if (parse_number(val, 100, 100000, &c->layout.width))
			return bad_usage("--width takes pixels from 100 to 100000, not '%s'", val);
		break;
	case O_HEIGHT:
		if (parse_number(val, 2, 1000, &c->layout.frame_height))
			return bad_usage("--height takes pixels from 2 to 1000, not '%s'", val);
		break;
	case O_FONTSIZE:
		if (parse_number(val, 1, 200, &c->layout.font_size))
			return bad_usage("--fontsize takes pixels from 1 to 200, not '%s'", val);
		break;
	case O_MINWIDTH: return apply_minwidth(c, val);
	case O_SCALE:
		if (parse_number(val, 0.1, 16, &c->render.scale))
			return bad_usage("--scale takes a number from 0.1 to 16, not '%s'", val);
		break;
	case O_FONTTYPE: c->render.font_family = val; break;
	case O_COLORS: {
		int p = af_palette_from_name(val);
		if (p < 0)
			return bad_usage("unknown palette '%s' (see --help)", val);
		c->render.palette = (af_palette)p;
		c->palette_set = 1;
		/* chain graphs: a waker's frames are told by their names */
		c->parse.wakers = p == AF_PALETTE_CHAIN;
		break;
	}
	case O_BGCOLORS:
		if (!is_background(val))
			return bad_usage("--bgcolors takes yellow, blue, green, grey or #rrggbb, "
			                 "not '%s'", val);
		c->render.bgcolors = val;
		break;
	case O_COUNTNAME: c->render.countname = val; break;
	case O_NAMETYPE: c->render.nametype = val; break;
	case O_NOTES: c->render.notes = val; break;
	case O_ENCODING:
		if (!is_encoding(val))
			return bad_usage("--encoding takes an encoding name such as ISO-8859-1, "
			                 "not '%s'", val);
		c->render.encoding = val;
		break;
	case O_FACTOR:
		if (parse_number(val, 1e-12, 1e12, &c->layout.factor))
			return bad_usage("--factor takes a positive number, not '%s'", val);
		break;
	case O_TOTAL:
		if (parse_number(val, 0, 1.8e19, &d))
			return bad_usage("--total takes a number, not '%s'", val);
		c->layout.total = (uint64_t)d;
		break;
	}
	return -1;
}

static int ends_with(const char *s, const char *tail)
{
	size_t n = strlen(s), k = strlen(tail);
	return n >= k && strcmp(s + n - k, tail) == 0;
}

/* dmtracedump's outputs: what --dump, --call-graph and -o FILE.dot ask,
 * and the call graph's format; -1 to go on, or an exit status. */
static int check_profile(cli *c)
{
	if (c->dump) {
		if (c->call_graph || c->report || c->per_thread || c->before)
			return bad_usage("%s", "--dump prints the records alone: it does not go "
			                       "with --call-graph, --report, --per-thread or --diff");
		if (c->ninputs > 1)
			return bad_usage("%s", "--dump prints the records of one trace, not of "
			                       "several inputs");
		c->format_set = 1; /* text, whatever the file is called */
		return -1;
	}
	if (c->format_set && (c->formats & (1 << AF_FORMAT_DOT))) {
		if (c->per_thread)
			return bad_usage("%s", "DOT is the call graph's format: --format dot does "
			                       "not go with --per-thread");
		c->call_graph = 1;
	}
	if (!c->format_set && !c->per_thread && c->output && ends_with(c->output, ".dot"))
		c->call_graph = 1;
	if (!c->call_graph) {
		if (c->call_graph_threshold_set)
			return bad_usage("%s", "--call-graph-threshold goes with --call-graph "
			                       "(or -o FILE.dot)");
		return -1;
	}
	if (c->per_thread || c->before || c->thumb_width)
		return bad_usage("%s", "--call-graph draws one graph: it does not go with "
		                       "--per-thread, --diff or --thumbnail");
	if (c->format_set) {
		if (c->format == AF_FORMAT_FOLDED || c->format == AF_FORMAT_PPROF)
			return bad_usage("%s", "the call graph is written as dot, svg, png or pdf, "
			                       "not folded or pprof");
		return -1;
	}
	if (!c->output || strcmp(c->output, "-") == 0 || ends_with(c->output, ".svg"))
		c->format = AF_FORMAT_SVG;
	else if (ends_with(c->output, ".png"))
		c->format = AF_FORMAT_PNG;
	else if (ends_with(c->output, ".pdf"))
		c->format = AF_FORMAT_PDF;
	else if (ends_with(c->output, ".dot"))
		c->format = AF_FORMAT_DOT;
	else
		return bad_usage("cannot tell the call graph's format from '%s': use "
		                 ".dot, .svg, .png, .pdf or --format", c->output);
	c->format_set = 1;
	return -1;
}

/* How the options go together, once all are read, and what follows from
 * them (the format, the graph); -1 to go on, or an exit status. */
static int check(cli *c)
{
	int r;

	if (!c->input)
		return bad_usage("%s", c->before ? "--diff needs two inputs: BEFORE AFTER"
		                                 : "no input given");
	if ((r = check_profile(c)) >= 0)
		return r;
	/* --report alone writes the table and no graph */
	c->graph = !c->report || c->output || c->per_thread;
	if (c->before && c->ninputs > 1)
		return bad_usage("%s", "--diff compares BEFORE with one AFTER input");
	if (c->before) {
		if (c->per_thread || c->report || c->parse.flamechart)
			return bad_usage("%s", "--diff draws one graph: it does not go with "
			                       "--per-thread, --report or --flamechart");
		if (strcmp(c->before, "-") == 0 && strcmp(c->input, "-") == 0)
			return bad_usage("%s", "--diff: BEFORE and AFTER cannot both be "
			                       "standard input");
	}
	if (c->report && c->graph && strcmp(c->report, "-") == 0 &&
	    (!c->output || strcmp(c->output, "-") == 0))
		return bad_usage("%s", "--report - and the graph would both go to standard "
		                       "output: give the graph -o FILE");
	if (c->report && c->output && c->graph && strcmp(c->report, c->output) == 0)
		return bad_usage("--report and -o both name '%s'", c->output);
	if (c->per_thread) {
		if (!c->output || strcmp(c->output, "-") == 0)
			return bad_usage("%s", "--per-thread needs -o FOLDER");
		if (c->cp)
			return bad_usage("%s", "--cp does not go with --per-thread");
		if (!c->formats)
			c->formats = 1 << AF_FORMAT_SVG;
		if (c->formats & (1 << AF_FORMAT_PPROF))
			return bad_usage("%s", "pprof holds every thread in one profile: write it "
			                       "with -o FILE.pb.gz, not --per-thread");
	} else if (c->format_set && (c->formats & (c->formats - 1))) {
		return bad_usage("%s", "several formats need --per-thread");
	}
	if (c->thumb_width && !c->per_thread) {
		const char *o = c->output, *dot = o ? strrchr(o, '.') : NULL;
		c->layout.thumb_width = c->thumb_width;
		c->layout.thumb_height = c->thumb_height;
		/* a PNG, unless the file's name says .svg or .pdf: the name
		 * and what is in the file agree */
		if (!c->format_set && (!dot || strchr(dot, '/')))
			c->format = AF_FORMAT_PNG, c->format_set = 1;
	}
	if (!c->format_set && !c->per_thread) {
		const char *o = c->output;
		if (!o || strcmp(o, "-") == 0) {
			c->format = AF_FORMAT_SVG;
		} else if (format_of_name(o, &c->format)) {
			return bad_usage("cannot tell the format from '%s': use .svg, .png, "
			                 ".pdf, .folded, .pb.gz, .dot or --format", o);
		}
	}
	if (c->format_set && !c->per_thread && !c->dump && c->output) {
		/* --format and a name that says otherwise: t.svg holding PNG
		 * bytes is a mistake; a name without one of the extensions
		 * (graph, /dev/stdout) takes any format */
		static const char *const names[] = {"svg", "png", "pdf", "folded", "dot",
		                                    "pprof"};
		static const char *const exts[] = {"svg", "png", "pdf", "folded", "dot",
		                                   "pb.gz"};
		af_format named;
		if (format_of_name(c->output, &named) == 0 && named != c->format)
			return bad_usage("--format %s does not agree with '%s': name it .%s, "
			                 "or leave --format out",
			                 names[c->format], c->output, exts[c->format]);
	}
	if (c->layout.thumb_width && (c->format == AF_FORMAT_FOLDED ||
	                              c->format == AF_FORMAT_PPROF))
		return bad_usage("%s", "--thumbnail draws a picture: .png, .svg or .pdf, "
		                       "not folded text or pprof");
	c->tree.threads = c->threads;
	c->tree.nthreads = c->nthreads;
	c->tree.processes = c->processes;
	c->tree.nprocesses = c->nprocesses;
	return -1;
}

int cli_parse(int argc, char **argv, cli *c)
{
	int i, rest = 0, r;

	memset(c, 0, sizeof *c);
	c->clock = -1;
	c->call_graph_threshold = 20; /* dmtracedump's -t default */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq;
		const cli_option *o;
		char name[40];

		if (rest || a[0] != '-' || strcmp(a, "-") == 0) {
			/* several inputs: folded stacks read as one, as flamegraph.pl */
			const char **in = realloc(c->inputs, (c->ninputs + 1) * sizeof *in);
			if (!in) {
				fputs(PROG ": out of memory\n", stderr);
				return 1;
			}
			c->inputs = in;
			c->inputs[c->ninputs++] = a;
			c->input = c->inputs[0];
			continue;
		}
		if (strcmp(a, "--") == 0) {
			rest = 1;
			continue;
		}
		/* "--opt VALUE", "--opt=VALUE", "-oFILE" */
		eq = strchr(a, '=');
		if (eq && a[1] == '-' && (size_t)(eq - a) < sizeof name) {
			memcpy(name, a, (size_t)(eq - a));
			name[eq - a] = '\0';
			val = eq + 1;
		} else if (a[1] == 'o' && a[2] && !find_option(a)) {
			strcpy(name, "-o");
			val = a + 2;
		} else if (strlen(a) < sizeof name) {
			strcpy(name, a);
		} else {
			return bad_usage("unknown option '%s'", a);
		}
		if (!(o = find_option(name)))
			return bad_usage("unknown option '%s'", a);
		if (o->arg && !val) {
			if (i + 1 >= argc)
				return bad_usage("option '%s' needs a value", a);
			val = argv[++i];
		} else if (!o->arg && val) {
			return bad_usage("option '%s' takes no value", name);
		}
		if ((r = o->arg ? apply(c, o->id, val) : apply_flag(c, o->id)) >= 0)
			return r;
	}
	return check(c);
}
