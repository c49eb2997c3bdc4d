/*
 * main.c - the aflame-render command: arguments into a struct, then the
 * library's pipeline, then an exit status.  Uses only the public headers.
 */
#define _DEFAULT_SOURCE /* mallopt */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"


static void usage(FILE *f)
{
	fputs("Usage: " PROG " [options] INPUT\n"
	      "Draw an Android method trace (.trace, regular or streaming, gzip, or a\n"
	      "base.key + base.data pair) or folded stacks (flamegraph.pl's input) as a\n"
	      "flame graph.  INPUT - reads standard input.\n"
	      "\n"
	      "Output\n"
	      "  -o, --output FILE   write FILE (- or none: standard output); its\n"
	      "                      extension picks the format: .svg .png .pdf .folded\n"
	      "      --format FMT    svg, png, pdf or folded (overrides the extension)\n"
	      "      --scale N       PNG pixel density, e.g. 2 for HiDPI (default 1)\n"
	      "      --no-javascript a static SVG, without zoom and search\n"
	      "What to draw\n"
	      "      --clock CLOCK   wall (default when recorded), cpu (thread-cpu) or wait\n"
	      "      --thread T      only thread T: name, id or folded first frame (repeat)\n"
	      "      --signatures    name frames with their parameter types\n"
	      "      --reverse       merge stacks from the leaf (each path reversed)\n"
	      "      --inverted      icicle graph: the root at the top\n"
	      "      --minwidth W    leave out frames narrower than W px, or W% of\n"
	      "                      the total when W ends in % (default 0.1; 0 keeps\n"
	      "                      every frame)\n"
	      "      --factor F      multiply the values shown by F\n"
	      "      --sort ORDER    siblings by name (default) or by weight, heaviest\n"
	      "                      first\n"
	      "      --flamechart    a flame chart: every call of a trace where it\n"
	      "                      began (a call chart); folded lines in their order\n"
	      "      --total N       the value that is 100% (when larger than the sum)\n"
	      "Views\n"
	      "      --clock wait    off-CPU time: wall minus thread-cpu, per call path\n"
	      "      --mapping FILE  original names from a ProGuard/R8 mapping.txt\n"
	      "      --focus REGEX   only paths through a frame matching REGEX, re-rooted\n"
	      "      --exclude REGEX leave out frames matching REGEX, with their callees\n"
	      "      --collapse-recursion  a frame calling itself directly is one frame\n"
	      "      --strip-package labels without the package (MainActivity.onCreate)\n"
	      "      --min-share P   leave out frames under P% of the graph's total\n"
	      "      --report FILE   per-method table to FILE (- stdout; a graph too with -o)\n"
	      "      --report-format F  tsv (default), text (aligned for people) or html\n"
	      "                      (a page with each method's callers and callees)\n"
	      "      --diff BEFORE   colour INPUT red/blue where it grew/shrank from BEFORE\n"
	      "      --normalize     with --diff: scale BEFORE to INPUT's total first\n"
	      "dmtracedump's outputs\n"
	      "      --call-graph    draw the call graph instead of a flame graph: a box per\n"
	      "                      method, an arrow per caller and callee; -o .svg, .png\n"
	      "                      or .pdf (drawn by Graphviz's library) or .dot (text;\n"
	      "                      -o FILE.dot alone is enough); SVG on standard output\n"
	      "      --call-graph-threshold P  only callees whose inclusive time is at least\n"
	      "                      P% of their caller's (default 20, as dmtracedump -t)\n"
	      "      --dump          every record of the trace in order, as text (to -o FILE\n"
	      "                      or standard output): offset, thread, action, method,\n"
	      "                      both clocks as written and unwrapped\n"
	      "Look (flamegraph.pl's options)\n"
	      "      --title TEXT    (default \"Flame Graph\"; \"Icicle Graph\" inverted)\n"
	      "      --subtitle TEXT a second line under the title\n"
	      "      --width PX      image width (default 1200)\n"
	      "      --height PX     height of a frame (default 16)\n"
	      "      --fontsize PX   (default 12)\n"
	      "      --fonttype NAME SVG font family (default DejaVu Sans, Verdana)\n"
	      "      --fontwidth EM  fit labels with this average glyph width, as\n"
	      "                      flamegraph.pl does, not with the font's metrics\n"
	      "      --colors P      android (default for traces: app, platform,\n"
	      "                      libraries, idle and blocked frames, with a legend),\n"
	      "                      hot (default for folded input), mem, io, wakeup,\n"
	      "                      chain, java, js, perl, red, green, blue, aqua,\n"
	      "                      yellow, purple, orange\n"
	      "      --theme T       light (default) or dark\n"
	      "      --cp            keep colours in ./palette.map: a name keeps its\n"
	      "                      colour from graph to graph\n"
	      "      --nameattr FILE attributes for frames' <g> (NAME<TAB>attr=value...);\n"
	      "                      href and target make a frame a link\n"
	      "      --bgcolors C    yellow, blue, green, grey or #rrggbb\n"
	      "      --hash          colours by a hash weighted to the name's start\n"
	      "      --random        random colours\n"
	      "      --countname N   unit of folded counts (default samples)\n"
	      "      --nametype T    prefix of the details line (e.g. \"Function:\")\n"
	      "      --negate        differential graphs: swap red and blue\n"
	      "      --notes TEXT    a comment in the SVG\n"
	      "      --encoding E    the SVG's declared encoding (default UTF-8)\n"

	      "Sets of graphs\n"
	      "      --per-thread    with -o FOLDER: one graph per thread, all.svg,\n"
	      "                      PNG thumbnails and index.html\n"
	      "      --format LIST   per-thread formats, e.g. svg,png,pdf\n"
	      "      --min-share P   skip threads under P% of the time (see Views)\n"
	      "  -j, --jobs N        worker threads for reading and drawing\n"
	      "                      (default: one per core)\n"
	      "      --thumbnail WxH thumbnails of this size; without --per-thread,\n"
	      "                      the output is a PNG thumbnail of exactly WxH\n"
	      "Limits\n"
	      "      --max-depth N   stacks deeper than N frames are an error (1000000)\n"
	      "      --max-nodes N   more than N distinct call paths are an error\n"
	      "                      (50000000)\n"
	      "      --max-memory SIZE  memory the graphs may take, e.g. 512M or 4G\n"
	      "                      (default: half the physical memory)\n"
	      "Messages\n"
	      "  -v, --verbose       print what the input holds and its anomalies\n"
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
	else if (strcmp(s, "dot") == 0)
		*f = AF_FORMAT_DOT;
	else
		return -1;
	return 0;
}

enum {
	O_HELP, O_VERSION, O_VERBOSE, O_QUIET, O_SIGNATURES, O_NOJS, O_REVERSE,
	O_INVERTED, O_HASH, O_RANDOM, O_NEGATE, O_FLAMECHART, O_CP, O_PER_THREAD,
	O_NORMALIZE, O_COLLAPSE, O_STRIP, O_CALL_GRAPH, O_DUMP,
	O_VALUED, /* the options below take a value */
	O_OUTPUT = O_VALUED, O_FORMAT, O_CLOCK, O_THREAD, O_TITLE, O_SUBTITLE,
	O_WIDTH, O_HEIGHT, O_MINWIDTH, O_SCALE, O_FONTSIZE, O_FONTTYPE, O_COLORS,
	O_BGCOLORS, O_COUNTNAME, O_NAMETYPE, O_NOTES, O_FACTOR, O_TOTAL, O_ENCODING,
	O_FONTWIDTH, O_SORT, O_THEME, O_NAMEATTR, O_JOBS, O_MIN_SHARE, O_THUMBNAIL,
	O_MAX_DEPTH, O_MAX_NODES, O_MAX_MEMORY, O_REPORT, O_REPORT_FORMAT, O_DIFF, O_MAPPING,
	O_FOCUS, O_EXCLUDE, O_CALL_GRAPH_THRESHOLD
};

static const struct option {
	const char *name;
	int id;
} options[] = {
	{"-h", O_HELP}, {"--help", O_HELP}, {"-V", O_VERSION}, {"--version", O_VERSION},
	{"-v", O_VERBOSE}, {"--verbose", O_VERBOSE}, {"-q", O_QUIET}, {"--quiet", O_QUIET},
	{"--signatures", O_SIGNATURES}, {"--no-javascript", O_NOJS},
	{"--reverse", O_REVERSE}, {"--inverted", O_INVERTED}, {"--hash", O_HASH},
	{"--random", O_RANDOM}, {"--negate", O_NEGATE}, {"--flamechart", O_FLAMECHART},
	{"--fontwidth", O_FONTWIDTH}, {"--sort", O_SORT}, {"--theme", O_THEME},
	{"--cp", O_CP}, {"--nameattr", O_NAMEATTR}, {"--per-thread", O_PER_THREAD},
	{"--jobs", O_JOBS}, {"-j", O_JOBS}, {"--min-share", O_MIN_SHARE},
	{"--thumbnail", O_THUMBNAIL}, {"--max-depth", O_MAX_DEPTH},
	{"--max-nodes", O_MAX_NODES}, {"--max-memory", O_MAX_MEMORY},
	{"--report", O_REPORT}, {"--report-format", O_REPORT_FORMAT}, {"--diff", O_DIFF},
	{"--normalize", O_NORMALIZE}, {"--mapping", O_MAPPING}, {"--focus", O_FOCUS},
	{"--exclude", O_EXCLUDE}, {"--collapse-recursion", O_COLLAPSE},
	{"--strip-package", O_STRIP}, {"--call-graph", O_CALL_GRAPH}, {"--dump", O_DUMP},
	{"--call-graph-threshold", O_CALL_GRAPH_THRESHOLD},
	{"-o", O_OUTPUT}, {"--output", O_OUTPUT}, {"--format", O_FORMAT},
	{"--clock", O_CLOCK}, {"--thread", O_THREAD}, {"--title", O_TITLE},
	{"--subtitle", O_SUBTITLE}, {"--width", O_WIDTH}, {"--height", O_HEIGHT},
	{"--minwidth", O_MINWIDTH}, {"--scale", O_SCALE}, {"--fontsize", O_FONTSIZE},
	{"--fonttype", O_FONTTYPE}, {"--colors", O_COLORS}, {"--colours", O_COLORS},
	{"--bgcolors", O_BGCOLORS}, {"--countname", O_COUNTNAME},
	{"--nametype", O_NAMETYPE}, {"--notes", O_NOTES}, {"--factor", O_FACTOR},
	{"--total", O_TOTAL}, {"--encoding", O_ENCODING},
};

/* Finds an option by name; flamegraph.pl also takes "-title" for "--title". */
static int find_option(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof options / sizeof options[0]; i++)
		if (strcmp(name, options[i].name) == 0 ||
		    (name[0] == '-' && name[1] != '-' && options[i].name[1] == '-' &&
		     strcmp(name + 1, options[i].name + 2) == 0))
			return options[i].id;
	return -1;
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

/* Applies an option with its value; returns -1 to go on, or an exit status. */
static int apply(cli *c, int id, const char *val)
{
	double d;

	switch (id) {
	case O_HELP: usage(stdout); return 0;
	case O_VERSION: puts(PROG " " AF_VERSION_STRING); return 0;
	case O_VERBOSE: c->verbose = 1; break;
	case O_QUIET: c->quiet = 1; break;
	case O_SIGNATURES: c->tree.signatures = 1; break;
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
	case O_FONTWIDTH:
		if (parse_number(val, 0.05, 5, &c->render.fontwidth))
			return bad_usage("--fontwidth takes an em fraction such as 0.59, not '%s'", val);
		break;
	case O_CP: c->cp = 1; break;
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
	case O_CALL_GRAPH: c->call_graph = 1; break;
	case O_DUMP: c->dump = 1; break;
	case O_CALL_GRAPH_THRESHOLD:
		if (parse_number(val, 0, 100, &c->call_graph_threshold) ||
		    c->call_graph_threshold >= 100)
			return bad_usage("--call-graph-threshold takes a percentage under 100, "
			                 "not '%s'", val);
		c->call_graph_threshold_set = 1;
		break;
	case O_DIFF: c->before = val; break;
	case O_NORMALIZE: c->normalize = 1; break;
	case O_PER_THREAD: c->per_thread = 1; break;
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
	case O_EXCLUDE: {
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
		break;
	}
	case O_COLLAPSE: c->tree.collapse_recursion = 1; break;
	case O_STRIP: c->tree.strip_package = 1; break;
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
	case O_FORMAT: {
		/* one format, or a list of them for a per-thread set */
		const char *p = val;
		c->formats = 0;
		while (*p) {
			char one[16];
			size_t n = strcspn(p, ",");
			af_format f;
			if (n >= sizeof one)
				return bad_usage("unknown format in '%s' (svg, png, pdf, folded, dot)", val);
			memcpy(one, p, n);
			one[n] = '\0';
			if (parse_format(one, &f))
				return bad_usage("unknown format '%s' (svg, png, pdf, folded, dot)", one);
			c->formats |= 1 << f;
			c->format = f;
			p += n + (p[n] == ',');
		}
		if (!c->formats)
			return bad_usage("%s", "--format needs a format");
		c->format_set = 1;
		break;
	}
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
	case O_MINWIDTH: {
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
		break;
	}
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

/* Returns -1 to go on, or an exit status. */
static int parse_args(int argc, char **argv, cli *c)
{
	int i, rest = 0, r;
	const char *why;

	memset(c, 0, sizeof *c);
	c->clock = -1;
	c->call_graph_threshold = 20; /* dmtracedump's -t default */
	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL, *eq;
		char name[40];
		int id;

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
		/* "--opt VALUE", "--opt=VALUE", "-oFILE" */
		eq = strchr(a, '=');
		if (eq && a[1] == '-' && (size_t)(eq - a) < sizeof name) {
			memcpy(name, a, (size_t)(eq - a));
			name[eq - a] = '\0';
			val = eq + 1;
		} else if (a[1] == 'o' && a[2] && find_option(a) < 0) {
			strcpy(name, "-o");
			val = a + 2;
		} else if (strlen(a) < sizeof name) {
			strcpy(name, a);
		} else {
			return bad_usage("unknown option '%s'", a);
		}
		id = find_option(name);
		if (id < 0)
			return bad_usage("unknown option '%s'", a);
		if (id >= O_VALUED && !val) {
			if (i + 1 >= argc)
				return bad_usage("option '%s' needs a value", a);
			val = argv[++i];
		} else if (id < O_VALUED && val) {
			return bad_usage("option '%s' takes no value", name);
		}
		if ((r = apply(c, id, val)) >= 0)
			return r;
	}
	if (!c->input)
		return bad_usage("%s", c->before ? "--diff needs two inputs: BEFORE AFTER"
		                                 : "no input given");
	if ((why = profile_args(c)) != NULL)
		return bad_usage("%s", why);
	/* --report alone writes the table and no graph */
	c->graph = !c->report || c->output || c->per_thread;
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
	if (c->per_thread) {
		if (!c->output || strcmp(c->output, "-") == 0)
			return bad_usage("%s", "--per-thread needs -o FOLDER");
		if (c->cp)
			return bad_usage("%s", "--cp does not go with --per-thread");
		if (!c->formats)
			c->formats = 1 << AF_FORMAT_SVG;
	} else if (c->format_set && (c->formats & (c->formats - 1))) {
		return bad_usage("%s", "several formats need --per-thread");
	}
	if (c->thumb_width && !c->per_thread) {
		c->layout.thumb_width = c->thumb_width;
		c->layout.thumb_height = c->thumb_height;
		if (!c->format_set)
			c->format = AF_FORMAT_PNG, c->format_set = 1;
	}
	if (!c->format_set && !c->per_thread) {
		const char *o = c->output, *dot;
		if (!o || strcmp(o, "-") == 0) {
			c->format = AF_FORMAT_SVG;
		} else {
			dot = strrchr(o, '.');
			if (!dot || strchr(dot, '/') || parse_format(dot + 1, &c->format))
				return bad_usage("cannot tell the format from '%s': use "
				                 ".svg, .png, .pdf, .folded, .dot or --format", o);
		}
	}
	c->tree.threads = c->threads;
	c->tree.nthreads = c->nthreads;
	return -1;
}

/* Draws `tree` into c->output in c->format; 0 or an exit status.
 * `android`: the android palette unless --colors chose one. */
static int draw(const cli *c, const af_tree *tree, af_clock clock, int android,
                const af_layout_options *lo, const char *name)
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

	if (c->format != AF_FORMAT_FOLDED) {
		lopt.clock = (af_clock)clock;
		if (android)
			ropt.palette = AF_PALETTE_ANDROID;
		lopt.legend = ropt.palette == AF_PALETTE_ANDROID;
		if ((st = af_layout_build(tree, &lopt, &layout, &e)) != AF_OK) {
			report_error(name, &e);
			goto done;
		}
		if ((st = af_font_open(NULL, &font, &e)) != AF_OK) {
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
	status = draw(c, diff, (af_clock)clock, 0, &lopt, na);
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
	progress prog;
	int clock, status = 1;
	const char *name = strcmp(c->input, "-") == 0 ? "(stdin)" : c->input;

	progress_init(&prog, c);
	popt.progress = progress_bytes;
	popt.progress_ctx = &prog;
	st = af_trace_open(c->input, &popt, &trace, &e);
	progress_end(&prog);
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
	if (c->format != AF_FORMAT_FOLDED && !c->layout.flamechart && !c->layout.keep_narrow) {
		/* subtrees far under --minwidth need not be built to be drawn */
		double w = c->layout.width > 0 ? c->layout.width : 1200;
		double mw = c->layout.min_width > 0 ? c->layout.min_width : 0.1;
		if (c->layout.thumb_width > 0) {
			w = c->layout.thumb_width;
			mw = 1;
		}
		topt.prune = c->layout.min_width_pct > 0 ? c->layout.min_width_pct / 100 / 4
		                                         : mw / (w - 20) / 4;
		topt.prune_clock = (af_clock)clock;
	}
	if ((st = af_tree_from_trace(trace, &topt, &tree, &e)) != AF_OK) {
		report_error(name, &e);
		goto done;
	}
	status = draw(c, tree, (af_clock)clock,
	              !c->palette_set && info->variant != AF_VARIANT_FOLDED, &lopt, name);
	af_tree_free(tree);
	tree = NULL;
report:
	if (status == 0 && c->report)
		status = run_report(c, trace, (af_clock)clock);
done:
	af_tree_free(tree);
	af_trace_free(trace);
	return status;
}

int main(int argc, char **argv)
{
	cli c;
	af_mapping *mapping = NULL;
	int r;

	/* Large tables grow by doubling: with a fixed mmap threshold glibc
	 * moves them with mremap instead of copying, and gives them back. */
	mallopt(M_MMAP_THRESHOLD, 1 << 20);
	out_watch_signals();
	r = parse_args(argc, argv, &c);

	if (r < 0 && c.mapping) {
		af_error e = {0};
		if (af_mapping_load(c.mapping, &mapping, &e) != AF_OK) {
			report_error(c.mapping, &e);
			r = 1;
		}
		c.tree.mapping = mapping;
	}
	if (r < 0)
		r = c.dump ? run_dump(&c) : c.before ? run_diff(&c) : run(&c);
	/* every output in place at once, or none */
	if (r == 0 && out_commit() != 0)
		r = 1;
	else if (r != 0)
		out_discard();
	af_mapping_free(mapping);
	free(c.threads);
	return r;
}
