/*
 * test_flamegraph.c - aflame-render against flamegraph.pl itself, frame by
 * frame, on flamegraph.pl's own folded test inputs.
 *
 * Each case runs `perl flamegraph.pl OPTIONS FILE` and
 * `aflame-render --no-javascript --fontwidth 0.59 OPTIONS FILE` side by
 * side, reads both SVGs with libxml2 and matches their frames: the same
 * frames (name from the tooltip), x, y and width within 0.1 px, the same
 * count and share in the tooltip, the same label, and a fill of the same
 * colour family (exactly the same fill for differential input, whose
 * colours are not random).  Every file of test-results/ is drawn with the
 * default options, and a dozen varied ones with each option flamegraph.pl
 * users reach for; differential input is made with difffolded.pl from
 * pairs of profiles.  The project's own inputs in tests/data/fg (cases
 * flamegraph.pl's files lack, such as names that begin others up to a
 * space) are drawn with the default options too.
 *
 * flamegraph.pl and its inputs are read from ../shared/flamegraph and never
 * copied here; without them (or without perl) every case says it skipped.
 * Where flamegraph.pl is at fault, the case is listed in `fg_faults` with
 * the reason, and what is compared there is said beside it.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <fcntl.h>
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

#define FG_DIR AF_TEST_SOURCE "/../shared/flamegraph"
#define FG_TOL 0.1

/* The options of the varied cases, one a case; "" is the defaults.  --total
 * takes a value made per file (half as much again as the sum). */
static const char *const fg_options[] = {
	"",
	"--inverted",
	"--reverse",
	"--minwidth 0.5%",
	"--width 800",
	"--height 20",
	"--fontsize 14",
	"--flamechart",
	"--total",
	"--factor 2.5",
	"--colors java",
	"--colors js",
	"--colors perl",
	"--colors chain",
	"--colors mem",
	"--hash",
};
#define FG_NOPTIONS (sizeof fg_options / sizeof fg_options[0])

/* The varied dozen: Java with and without annotations, JavaScript, C++,
 * the kernel, Rust, a unikernel, dtrace and perf examples. */
static const char *const fg_varied[] = {
	"example-dtrace.folded",
	"example-perf.folded",
	"perf-cycles-instructions-01-collapsed-kernel.txt",
	"perf-dd-stacks-01-collapsed-addrs.txt",
	"perf-funcab-pid-01-collapsed-all.txt",
	"perf-iperf-stacks-pidtid-01-collapsed-tid.txt",
	"perf-java-faults-01-collapsed-pid.txt",
	"perf-java-stacks-02-collapsed-jit.txt",
	"perf-js-stacks-01-collapsed-jit.txt",
	"perf-mirageos-stacks-01-collapsed-all.txt",
	"perf-rust-Yamakaky-dcpu-collapsed-addrs.txt",
	"perf-vertx-stacks-01-collapsed-all.txt",
};
#define FG_NVARIED (sizeof fg_varied / sizeof fg_varied[0])

/* Differential input: difffolded.pl BEFORE AFTER (with its -n), drawn as
 * is and with --negate.  "~X" is X with its counts changed and some lines
 * left out or added (made by the test, see fg_variant()). */
static const struct fg_pair {
	const char *before, *after, *diff_opts, *opts;
} fg_pairs[] = {
	{"perf-java-stacks-01-collapsed-all.txt", "perf-java-stacks-02-collapsed-all.txt", "", ""},
	{"perf-java-stacks-02-collapsed-jit.txt", "perf-java-stacks-01-collapsed-jit.txt", "",
	 "--negate"},
	{"perf-java-stacks-01-collapsed-pid.txt", "perf-java-stacks-02-collapsed-pid.txt", "-n",
	 ""},
	{"example-dtrace.folded", "~example-dtrace.folded", "", ""},
	{"~example-perf.folded", "example-perf.folded", "", ""},
	{"perf-vertx-stacks-01-collapsed-all.txt", "~perf-vertx-stacks-01-collapsed-all.txt",
	 "-n", "--negate"},
	{"~perf-js-stacks-01-collapsed-jit.txt", "perf-js-stacks-01-collapsed-jit.txt", "",
	 "--reverse"},
	{"perf-mirageos-stacks-01-collapsed-all.txt",
	 "~perf-mirageos-stacks-01-collapsed-all.txt", "", "--inverted"},
};
#define FG_NPAIRS (sizeof fg_pairs / sizeof fg_pairs[0])

/* Where flamegraph.pl is at fault: the cases (a file, or NULL for every
 * file, with the options) and what it gets wrong.  What it draws right is
 * still compared, frame by frame. */
enum fg_fault_kind {
	FG_LOSES_FRAMES,  /* `n` frames of ours it does not draw */
};

static const struct fg_fault {
	const char *file, *opts;
	enum fg_fault_kind kind;
	size_t n;
	const char *why;
} fg_faults[] = {
	/* its frames are keyed by name, depth and end: a frame of width 0
	 * (a line whose AFTER is 0) ending where a frame of the same name
	 * and depth ends replaces it */
	{"difffolded.pl -n", "--negate", FG_LOSES_FRAMES, 1,
	 "a frame replaced by a frame of width 0 from a line whose AFTER is 0"},
	{NULL, NULL, 0, 0, NULL},
};

typedef struct fg_case {
	char file[96];   /* in test-results/, "data:" and one in tests/data/fg, or a
	                    pair's "BEFORE AFTER" */
	char opts[48];
	int pair;        /* index + 1 into fg_pairs, or 0 */
} fg_case;

static int fg_have(void)
{
	struct stat sb;
	return stat(FG_DIR "/flamegraph.pl", &sb) == 0 &&
	       stat(FG_DIR "/test-results", &sb) == 0 &&
	       system("perl -e 1 >/dev/null 2>&1") == 0;
}

static int fg_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void fg_case_free(struct criterion_test_params *p)
{
	cr_free(p->params);
}

ParameterizedTestParameters(flamegraph, frame_by_frame)
{
	fg_case *cases;
	char *names[256];
	size_t n = 0, ncases = 0, i, k;
	DIR *d = fg_have() ? opendir(FG_DIR "/test-results") : NULL;
	struct dirent *e;

	while (d && (e = readdir(d)) != NULL && n < 256)
		if (e->d_name[0] != '.')
			names[n++] = strdup(e->d_name);
	if (d)
		closedir(d);
	if (n) { /* and the project's own inputs */
		d = opendir(AF_TEST_DATA "/fg");
		while (d && (e = readdir(d)) != NULL && n < 256)
			if (e->d_name[0] != '.') {
				char name[300];
				snprintf(name, sizeof name, "data:%s", e->d_name);
				names[n++] = strdup(name);
			}
		if (d)
			closedir(d);
	}
	qsort(names, n, sizeof *names, fg_name_cmp);
	cases = cr_calloc(n + FG_NVARIED * FG_NOPTIONS + FG_NPAIRS + 1, sizeof *cases);
	for (i = 0; i < n; i++) {
		snprintf(cases[ncases].file, sizeof cases[ncases].file, "%s", names[i]);
		ncases++;
		free(names[i]);
	}
	for (i = 0; n && i < FG_NVARIED; i++)
		for (k = 1; k < FG_NOPTIONS; k++) {
			snprintf(cases[ncases].file, sizeof cases[ncases].file, "%s", fg_varied[i]);
			snprintf(cases[ncases].opts, sizeof cases[ncases].opts, "%s", fg_options[k]);
			ncases++;
		}
	for (i = 0; n && i < FG_NPAIRS; i++) {
		snprintf(cases[ncases].file, sizeof cases[ncases].file, "difffolded.pl %s",
		         fg_pairs[i].diff_opts);
		snprintf(cases[ncases].opts, sizeof cases[ncases].opts, "%s", fg_pairs[i].opts);
		cases[ncases++].pair = (int)i + 1;
	}
	if (ncases == 0) /* one case, to say why nothing ran */
		ncases = 1;
	return cr_make_param_array(fg_case, cases, ncases, fg_case_free);
}

/* ------------------------------------------------------------------ */
/* Running both                                                        */

/* Runs `cmd` through the shell with stdout to `out`; returns its pid. */
static pid_t fg_spawn(const char *cmd, const char *out)
{
	pid_t pid = fork();

	cr_assert(pid >= 0);
	if (pid == 0) {
		int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int nul = open("/dev/null", O_WRONLY);
		if (fd < 0 || nul < 0)
			_exit(127);
		dup2(fd, 1);
		dup2(nul, 2);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int fg_wait(pid_t pid)
{
	int status;
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* The sum of a folded file's counts (the last number of each line). */
static double fg_sum(const char *path)
{
	size_t len, i, start = 0;
	char *text = (char *)t_read(path, &len);
	double sum = 0;

	cr_assert_not_null(text, "cannot read %s", path);
	for (i = 0; i <= len; i++) {
		if (i < len && text[i] != '\n')
			continue;
		text[i] = '\0';
		{
			char *sp = strrchr(text + start, ' ');
			if (sp)
				sum += strtod(sp + 1, NULL);
		}
		start = i + 1;
	}
	free(text);
	return sum;
}

/* A chain graph of a profile, for --colors chain: each stack is an
 * off-CPU stack followed by "--" and the stack of its waker.  (Given a
 * stack with no waker part, flamegraph.pl appends a "--" frame to it, a
 * fault of its own; see the README.) */
static void fg_chain(const char *src, const char *dst)
{
	size_t len, i, start = 0, line = 0;
	char *text = (char *)t_read(src, &len);
	FILE *f = fopen(dst, "w");

	cr_assert(text && f);
	for (i = 0; i < len; i++) {
		char *sp;
		if (text[i] != '\n')
			continue;
		text[i] = '\0';
		sp = strrchr(text + start, ' ');
		if (sp) {
			*sp = '\0';
			fprintf(f, "%s;--;waker_%zu;try_to_wake_up %s\n", text + start, line++ % 3,
			        sp + 1);
		}
		start = i + 1;
	}
	free(text);
	cr_assert_eq(fclose(f), 0);
}

/* A changed copy of a profile, for differential cases: every fifth line
 * left out, every third count doubled, every seventh line a new path. */
static void fg_variant(const char *src, const char *dst)
{
	size_t len, i, start = 0, line = 0;
	char *text = (char *)t_read(src, &len);
	FILE *f = fopen(dst, "w");

	cr_assert(text && f);
	for (i = 0; i < len; i++) {
		char *sp;
		if (text[i] != '\n')
			continue;
		text[i] = '\0';
		sp = strrchr(text + start, ' ');
		line++;
		if (sp && line % 5) {
			*sp = '\0';
			fprintf(f, "%s %lld\n", text + start,
			        strtoll(sp + 1, NULL, 10) * (line % 3 ? 1 : 2));
			if (line % 7 == 0)
				fprintf(f, "%s;added_%zu %zu\n", text + start, line, line % 11 + 1);
		}
		start = i + 1;
	}
	free(text);
	cr_assert_eq(fclose(f), 0);
}

/* ------------------------------------------------------------------ */
/* Reading the SVGs                                                    */

typedef struct fg_frame {
	char *name;   /* from the tooltip */
	char *tail;   /* the tooltip after the name: "(1,234 samples, 5.67%)" */
	char *label;
	double x, y, w;
	int r, g, b;
	int matched;
} fg_frame;

typedef struct fg_svg {
	fg_frame *f;
	size_t n;
	char *error; /* the SVG did not parse */
} fg_svg;

static xmlNodePtr fg_child(xmlNodePtr n, const char *name)
{
	for (n = n ? n->children : NULL; n; n = n->next)
		if (n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0)
			return n;
	return NULL;
}

static xmlNodePtr fg_find_frames(xmlNodePtr n)
{
	for (; n; n = n->next) {
		xmlNodePtr r;
		if (n->type == XML_ELEMENT_NODE) {
			xmlChar *id = xmlGetProp(n, (const xmlChar *)"id");
			int hit = id && strcmp((const char *)id, "frames") == 0;
			xmlFree(id);
			if (hit)
				return n;
		}
		if ((r = fg_find_frames(n->children)) != NULL)
			return r;
	}
	return NULL;
}

static double fg_num(xmlNodePtr n, const char *attr)
{
	xmlChar *v = xmlGetProp(n, (const xmlChar *)attr);
	double d = v ? strtod((const char *)v, NULL) : NAN;
	xmlFree(v);
	return d;
}

static char *fg_text(xmlNodePtr n)
{
	xmlChar *c = n ? xmlNodeGetContent(n) : NULL;
	char *s = strdup(c ? (const char *)c : "");
	xmlFree(c);
	return s;
}

static void fg_quiet(void *ctx, const char *msg, ...)
{
	(void)ctx;
	(void)msg;
}

static fg_svg fg_read(const char *path)
{
	fg_svg s = {0};
	size_t len, cap = 0;
	char *data = (char *)t_read(path, &len);
	xmlDocPtr doc;
	xmlNodePtr frames, g;

	cr_assert_not_null(data, "no output in %s", path);
	xmlSetGenericErrorFunc(NULL, fg_quiet);
	doc = xmlReadMemory(data, (int)len, "x.svg", NULL,
	                    XML_PARSE_NONET | XML_PARSE_HUGE | XML_PARSE_NOENT);
	free(data);
	if (!doc) {
		xmlErrorPtr e = xmlGetLastError();
		s.error = strdup(e && e->message ? e->message : "does not parse");
		return s;
	}
	frames = fg_find_frames(xmlDocGetRootElement(doc));
	for (g = frames ? frames->children : NULL; g; g = g->next) {
		xmlNodePtr inner = g, rect;
		xmlChar *fill;
		fg_frame *f;
		char *title, *cut;

		if (g->type != XML_ELEMENT_NODE)
			continue;
		if (strcmp((const char *)g->name, "a") == 0 && fg_child(g, "g"))
			inner = fg_child(g, "g");
		rect = fg_child(inner, "rect");
		if (!rect)
			continue;
		if (s.n == cap) {
			cap = cap ? cap * 2 : 1024;
			s.f = realloc(s.f, cap * sizeof *s.f);
			cr_assert_not_null(s.f);
		}
		f = &s.f[s.n++];
		memset(f, 0, sizeof *f);
		title = fg_text(fg_child(inner, "title") ? fg_child(inner, "title")
		                                         : fg_child(g, "title"));
		/* the suffix "(N samples, P%...)" holds no " (": the last one ends the name */
		cut = NULL;
		for (char *p = strstr(title, " ("); p; p = strstr(p + 1, " ("))
			cut = p;
		if (cut) {
			f->tail = strdup(cut + 1);
			*cut = '\0';
		} else {
			f->tail = strdup("");
		}
		f->name = title;
		f->label = fg_text(fg_child(inner, "text"));
		f->x = fg_num(rect, "x");
		f->y = fg_num(rect, "y");
		f->w = fg_num(rect, "width");
		fill = xmlGetProp(rect, (const xmlChar *)"fill");
		f->r = f->g = f->b = -1;
		if (fill && fill[0] == '#') {
			unsigned v = (unsigned)strtoul((const char *)fill + 1, NULL, 16);
			f->r = (int)(v >> 16), f->g = (int)(v >> 8 & 255), f->b = (int)(v & 255);
		} else if (fill) {
			sscanf((const char *)fill, "rgb(%d,%d,%d)", &f->r, &f->g, &f->b);
		}
		xmlFree(fill);
	}
	xmlFreeDoc(doc);
	return s;
}

static void fg_svg_free(fg_svg *s)
{
	size_t i;
	for (i = 0; i < s->n; i++) {
		free(s->f[i].name);
		free(s->f[i].tail);
		free(s->f[i].label);
	}
	free(s->f);
	free(s->error);
}

/* ------------------------------------------------------------------ */
/* Colour families                                                     */

enum { F_HOT = 1, F_MEM = 2, F_IO = 4, F_RED = 8, F_GREEN = 16, F_BLUE = 32,
       F_YELLOW = 64, F_PURPLE = 128, F_AQUA = 256, F_ORANGE = 512, F_GREY = 1024 };

/* Whether some v in [0,1] gives `got` = base + int(span * v) for each of
 * the pairs (flamegraph.pl's one-value palettes; --hash can give v = 1). */
static int fg_one_v(const int *base, const int *span, const int *got, int n)
{
	int i, j, k;
	for (i = 0; i < n; i++)
		for (k = 0; k < 3; k++) {
			/* the edges and the middle of the values channel i allows */
			double v = k == 0 ? (got[i] - base[i]) / (double)span[i] + 1e-9
			           : k == 1 ? (got[i] - base[i] + 1) / (double)span[i] - 1e-9
			                    : 1.0;
			int ok = v >= 0 && v <= 1;
			for (j = 0; ok && j < n; j++)
				ok = base[j] + (int)(span[j] * v) == got[j];
			if (ok)
				return 1;
		}
	return 0;
}

/* Every family of flamegraph.pl's colour() that can make (r, g, b). */
static unsigned fg_families(int r, int g, int b)
{
	unsigned m = 0;
	if (r >= 205 && r <= 255 && g >= 0 && g <= 230 && b >= 0 && b <= 55)
		m |= F_HOT;
	if (r == 0 && g >= 190 && g <= 240 && b >= 0 && b <= 210)
		m |= F_MEM;
	if (r == g && r >= 80 && r <= 140 && b >= 190 && b <= 245)
		m |= F_IO;
	if (g == b && fg_one_v((int[]){200, 50}, (int[]){55, 80}, (int[]){r, g}, 2))
		m |= F_RED;
	if (r == b && fg_one_v((int[]){200, 50}, (int[]){55, 60}, (int[]){g, r}, 2))
		m |= F_GREEN;
	if (r == g && fg_one_v((int[]){205, 80}, (int[]){50, 60}, (int[]){b, r}, 2))
		m |= F_BLUE;
	if (r == g && fg_one_v((int[]){175, 50}, (int[]){55, 20}, (int[]){r, b}, 2))
		m |= F_YELLOW;
	if (r == b && fg_one_v((int[]){190, 80}, (int[]){65, 60}, (int[]){r, g}, 2))
		m |= F_PURPLE;
	if (g == b && fg_one_v((int[]){50, 165}, (int[]){60, 55}, (int[]){r, g}, 2))
		m |= F_AQUA;
	if (b == 0 && fg_one_v((int[]){190, 90}, (int[]){65, 65}, (int[]){r, g}, 2))
		m |= F_ORANGE;
	if ((r == 160 || r == 200) && g == r && b == r)
		m |= F_GREY;
	return m;
}

/* ------------------------------------------------------------------ */
/* Comparing                                                           */

static int fg_frame_cmp(const void *a, const void *b)
{
	const fg_frame *x = a, *y = b;
	if (fabs(x->y - y->y) > 1e-6)
		return x->y < y->y ? -1 : 1;
	if (x->x != y->x)
		return x->x < y->x ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* flamegraph.pl's root: named "all" in its tooltip, and left unlabelled
 * (its name is empty); ours may be labelled "all". */
static int fg_is_root(const fg_frame *f)
{
	return strcmp(f->name, "all") == 0 && f->label[0] == '\0';
}

/* The root's share may read 100% or 100.00%. */
static int fg_tail_same(const fg_frame *a, const fg_frame *b)
{
	const char *ea, *eb;
	if (strcmp(a->tail, b->tail) == 0)
		return 1;
	if (strcmp(a->name, "all") != 0 || strcmp(b->name, "all") != 0)
		return 0;
	ea = strrchr(a->tail, ',');
	eb = strrchr(b->tail, ',');
	return ea && eb && ea - a->tail == eb - b->tail &&
	       strncmp(a->tail, b->tail, (size_t)(ea - a->tail)) == 0 &&
	       (strcmp(ea, ", 100%)") == 0 || strcmp(ea, ", 100.00%)") == 0) &&
	       (strcmp(eb, ", 100%)") == 0 || strcmp(eb, ", 100.00%)") == 0);
}

typedef struct fg_result {
	size_t fg, ours, exact, missing, extra;
	char report[2048];
	size_t rlen;
} fg_result;

__attribute__((format(printf, 2, 3))) static void fg_say(fg_result *res, const char *fmt, ...)
{
	va_list ap;
	int k;
	if (res->rlen + 200 >= sizeof res->report)
		return;
	va_start(ap, fmt);
	k = vsnprintf(res->report + res->rlen, sizeof res->report - res->rlen, fmt, ap);
	va_end(ap);
	if (k > 0)
		res->rlen += (size_t)k;
}

static void fg_compare(fg_svg *fg, fg_svg *us, int exact_fill, fg_result *res)
{
	size_t i, j, said = 0;

	qsort(us->f, us->n, sizeof *us->f, fg_frame_cmp);
	res->fg = fg->n;
	res->ours = us->n;
	for (i = 0; i < fg->n; i++) {
		fg_frame *a = &fg->f[i], *best = NULL;
		const char *bad = NULL;
		/* ours are sorted by y then x: find the same frame near x */
		size_t lo = 0, hi = us->n;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			fg_frame *m = &us->f[mid];
			if (m->y < a->y - 1e-6 || (fabs(m->y - a->y) <= 1e-6 && m->x < a->x - FG_TOL - 1e-9))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (j = lo; j < us->n && fabs(us->f[j].y - a->y) <= 1e-6 &&
		             us->f[j].x <= a->x + FG_TOL + 1e-9; j++) {
			fg_frame *b = &us->f[j];
			if (!b->matched && strcmp(a->name, b->name) == 0 &&
			    (!best || fabs(b->x - a->x) < fabs(best->x - a->x)))
				best = b;
		}
		if (!best) {
			res->missing++;
			if (said++ < 6)
				fg_say(res, "\n  missing: %s at x=%g y=%g w=%g", a->name, a->x, a->y, a->w);
			continue;
		}
		best->matched = 1;
		if (fabs(best->w - a->w) > FG_TOL + 1e-9)
			bad = "width";
		else if (!fg_tail_same(a, best))
			bad = "tooltip";
		else if (strcmp(a->label, best->label) != 0 &&
		         !(fg_is_root(a) && strcmp(best->label, "all") == 0))
			bad = "label";
		else if (exact_fill ? (a->r != best->r || a->g != best->g || a->b != best->b)
		                    : !(fg_families(a->r, a->g, a->b) &
		                        fg_families(best->r, best->g, best->b)))
			bad = "fill";
		if (!bad) {
			res->exact++;
			continue;
		}
		if (said++ < 6)
			fg_say(res, "\n  %s differs: %s at x=%g y=%g: flamegraph.pl w=%g '%s' "
			       "'%s' rgb(%d,%d,%d), ours w=%g '%s' '%s' rgb(%d,%d,%d)",
			       bad, a->name, a->x, a->y, a->w, a->tail, a->label, a->r, a->g, a->b,
			       best->w, best->tail, best->label, best->r, best->g, best->b);
	}
	for (j = 0; j < us->n; j++)
		if (!us->f[j].matched) {
			res->extra++;
			if (said++ < 8)
				fg_say(res, "\n  extra: %s at x=%g y=%g w=%g", us->f[j].name, us->f[j].x,
				       us->f[j].y, us->f[j].w);
		}
}

/* The cases allowed to differ from flamegraph.pl, as "FILE OPTIONS" (a
 * differential pair is "difffolded.pl DIFF_OPTS OPTIONS"): a ratchet.  A
 * listed case is still run, parsed and counted, and its differences are
 * logged; every other case must be exact, so a case that was exact and
 * breaks fails the suite, and so does a listed case that has become exact
 * (take it out).  Since issue 14 every case is exact: the list is empty.
 * Where flamegraph.pl itself is at fault the case is not listed here but in
 * fg_faults, which says what it gets wrong and checks exactly that. */
static const char *const fg_not_yet_exact[] = {
	NULL /* end */
};

static int fg_known_inexact(const fg_case *c)
{
	char key[sizeof c->file + sizeof c->opts + 2];
	size_t i;

	snprintf(key, sizeof key, "%s %s", c->file, c->opts);
	for (i = 0; fg_not_yet_exact[i]; i++)
		if (strcmp(key, fg_not_yet_exact[i]) == 0)
			return 1;
	return 0;
}

ParameterizedTest(fg_case *c, flamegraph, frame_by_frame, .timeout = 120)
{
	char fg_cmd[4096], our_cmd[4096], opts[96], input[512];
	char *fg_out, *our_out, *made[2] = {NULL, NULL};
	const struct fg_fault *fault = NULL;
	const struct fg_pair *pair = c->pair ? &fg_pairs[c->pair - 1] : NULL;
	fg_svg fg, us;
	fg_result res = {0};
	pid_t p1, p2;
	int st1, st2;
	size_t i;

	if (!c->file[0]) {
		cr_skip_test("skipped: flamegraph.pl or perl not found (%s)", FG_DIR);
		return;
	}
	fg_out = t_tmp("fg.svg");
	our_out = t_tmp("ours.svg");
	if (pair) {
		/* difffolded.pl BEFORE AFTER, into a file both read */
		const char *side[2] = {pair->before, pair->after};
		char paths[2][512], cmd[2048];
		for (i = 0; i < 2; i++) {
			if (side[i][0] == '~') {
				made[i] = t_tmp(i ? "after.folded" : "before.folded");
				snprintf(paths[i], sizeof paths[i], "%s/test-results/%s", FG_DIR,
				         side[i] + 1);
				fg_variant(paths[i], made[i]);
				snprintf(paths[i], sizeof paths[i], "%s", made[i]);
			} else {
				snprintf(paths[i], sizeof paths[i], "%s/test-results/%s", FG_DIR,
				         side[i]);
			}
		}
		{
			char *p = t_tmp("diff.folded");
			snprintf(input, sizeof input, "%s", p);
			free(p);
		}
		snprintf(cmd, sizeof cmd, "perl '%s/difffolded.pl' %s '%s' '%s'", FG_DIR,
		         pair->diff_opts, paths[0], paths[1]);
		cr_assert_eq(fg_wait(fg_spawn(cmd, input)), 0, "%s failed", cmd);
	} else if (strcmp(c->opts, "--colors chain") == 0) {
		char src[512], *p = t_tmp("chain.folded");
		snprintf(src, sizeof src, "%s/test-results/%s", FG_DIR, c->file);
		fg_chain(src, p);
		snprintf(input, sizeof input, "%s", p);
		free(p);
	} else if (strncmp(c->file, "data:", 5) == 0) {
		snprintf(input, sizeof input, "%s/fg/%s", AF_TEST_DATA, c->file + 5);
	} else {
		snprintf(input, sizeof input, "%s/test-results/%s", FG_DIR, c->file);
	}
	if (strcmp(c->opts, "--total") == 0)
		snprintf(opts, sizeof opts, "--total %.0f", floor(fg_sum(input) * 1.5) + 7);
	else
		snprintf(opts, sizeof opts, "%s", c->opts);
	snprintf(fg_cmd, sizeof fg_cmd, "perl '%s/flamegraph.pl' %s '%s'", FG_DIR, opts, input);
	snprintf(our_cmd, sizeof our_cmd, "'%s' --no-javascript --fontwidth 0.59 %s '%s'",
	         AF_TEST_CLI, opts, input);
	p1 = fg_spawn(fg_cmd, fg_out);
	p2 = fg_spawn(our_cmd, our_out);
	st1 = fg_wait(p1);
	st2 = fg_wait(p2);
	cr_assert_eq(st2, 0, "%s exited %d", our_cmd, st2);
	cr_assert_eq(st1, 0, "%s exited %d", fg_cmd, st1);
	fg = fg_read(fg_out);
	us = fg_read(our_out);
	cr_assert_null(us.error, "%s: our SVG does not parse: %s", our_cmd, us.error);
	for (i = 0; fg_faults[i].opts; i++)
		if ((!fg_faults[i].file || strcmp(fg_faults[i].file, c->file) == 0) &&
		    strcmp(fg_faults[i].opts, c->opts) == 0)
			fault = &fg_faults[i];

	if (fg.error) {
		cr_assert_not_null(fault, "%s: flamegraph.pl's SVG does not parse (%s): "
		                   "not a known fault", fg_cmd, fg.error);
	} else {
		fg_compare(&fg, &us, pair != NULL, &res);
		if (getenv("AF_FG_VERBOSE"))
			cr_log_info("%s %s: %zu frames, %zu exact%s", c->file, c->opts, res.fg,
			            res.exact, res.report);
		if (fg_known_inexact(c)) {
			cr_log_info("not yet exact: %s %s: %zu frames of flamegraph.pl, "
			            "%zu of ours, %zu exact", c->file, c->opts, res.fg, res.ours,
			            res.exact);
			cr_assert(res.exact != res.fg || res.ours != res.fg,
			          "%s %s is exact now: take it out of fg_not_yet_exact",
			          c->file, c->opts);
		}
		else if (fault)
			cr_assert(res.exact == res.fg && res.extra == fault->n,
			          "%s\n%s %s: %zu frames of flamegraph.pl, %zu of ours, %zu exact "
			          "(%zu extra expected: %s)%s", our_cmd, c->file, c->opts, res.fg,
			          res.ours, res.exact, fault->n, fault->why, res.report);
		else
			cr_assert(res.exact == res.fg && res.ours == res.fg,
			          "%s\n%s %s: %zu frames of flamegraph.pl, %zu of ours, %zu exact%s",
			          our_cmd, c->file, c->opts, res.fg, res.ours, res.exact, res.report);
	}
	fg_svg_free(&fg);
	fg_svg_free(&us);
	unlink(fg_out);
	unlink(our_out);
	if (pair || strcmp(c->opts, "--colors chain") == 0)
		unlink(input);
	for (i = 0; i < 2; i++)
		if (made[i]) {
			unlink(made[i]);
			free(made[i]);
		}
	free(fg_out);
	free(our_out);
}

/* ------------------------------------------------------------------ */
/* Each behaviour of flamegraph.pl on a tiny input                     */

TestSuite(fg, .init = t_font_open, .fini = t_font_close);

typedef struct fg_drawn {
	af_trace *trace;
	af_tree *tree;
	af_layout *layout;
} fg_drawn;

static fg_drawn fg_draw(const char *text, const af_parse_options *po,
                        const af_tree_options *to, const af_layout_options *lo)
{
	fg_drawn d = {0};
	af_error e = {0};

	cr_assert_eq(af_trace_parse(text, strlen(text), po, &d.trace, &e), AF_OK, "%s",
	             e.message);
	cr_assert_eq(af_tree_from_trace(d.trace, to, &d.tree, &e), AF_OK, "%s", e.message);
	cr_assert_eq(af_layout_build(d.tree, lo, &d.layout, &e), AF_OK, "%s", e.message);
	return d;
}

static void fg_drop(fg_drawn *d)
{
	af_layout_free(d->layout);
	af_tree_free(d->tree);
	af_trace_free(d->trace);
}

/* The frames as "name@x+w" (x and w to 0.1 px) in drawing order, joined
 * by spaces. */
static char *fg_frames(const af_layout *l)
{
	char *s = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&s, &len);

	for (i = 0; i < l->nrects; i++) {
		af_node_info ni;
		af_tree_node(l->tree, l->rects[i].node, &ni);
		fprintf(f, "%s%s@%.1f+%.1f", i ? " " : "", ni.name, l->rects[i].x,
		        l->rects[i].w);
	}
	fclose(f);
	return s;
}

#define FG_FRAMES(text, po, to, lo, want)                                      \
	do {                                                                   \
		fg_drawn d_ = fg_draw(text, po, to, lo);                       \
		char *got_ = fg_frames(d_.layout);                             \
		cr_assert_str_eq(got_, want, "%s\ngot:  %s", text, got_);    \
		free(got_);                                                    \
		fg_drop(&d_);                                                  \
	} while (0)

/* Item 1: a frame's own samples come before its children ("a;b 1" sorts
 * before "a;b;c 1"), and a frame is split where sorting puts another line
 * between its own line and its children's. */
Test(fg, own_samples_first_and_frames_split_as_the_lines_sort)
{
	FG_FRAMES("a;b 1\na;b;c 1\n", NULL, NULL, NULL,
	          "all@10.0+1180.0 a@10.0+1180.0 b@10.0+1180.0 c@600.0+590.0");
	FG_FRAMES("a;b;c 100\na;b 100\na;b-x 100\n", NULL, NULL, NULL,
	          "all@10.0+1180.0 a@10.0+1180.0 b@10.0+393.3 b-x@403.3+393.3 "
	          "b@796.7+393.3 c@796.7+393.3");
	/* a space sorts before every printable byte, '-' and '.' before ';' */
	FG_FRAMES("a;b.c 1\na;b;d 1\na;b 2\n", NULL, NULL, NULL,
	          "all@10.0+1180.0 a@10.0+1180.0 b@10.0+590.0 b.c@600.0+295.0 "
	          "b@895.0+295.0 d@895.0+295.0");
}

/* A split frame's tooltip counts its own part, as flamegraph.pl's does. */
Test(fg, a_split_frame_shows_its_part)
{
	fg_drawn d = fg_draw("a;b;c 100\na;b 100\na;b-x 100\n", NULL, NULL, NULL);
	af_render_options ro = {.font = t_font, .no_javascript = 1};
	char *svg = NULL;
	size_t len = 0;
	af_error e = {0};
	FILE *f = open_memstream(&svg, &len);

	cr_assert_eq(d.layout->rects[2].value, 100);
	cr_assert_eq(d.layout->rects[4].value, 100);
	cr_assert_eq(af_svg_write(d.layout, &ro, f, &e), AF_OK);
	fclose(f);
	cr_assert(strstr(svg, "<title>b (100 samples, 33.33%)</title>"), "%s", svg);
	cr_assert_null(strstr(svg, "<title>b (200"));
	free(svg);
	fg_drop(&d);
}

/* A trace and its folded output draw the same picture: the method's own
 * time before its callees, and split where a sibling's line sorts between
 * ("x.Y.run" then "x.Y.run2" then "x.Y.run;..."). */
Test(fg, a_trace_draws_as_its_folded_output)
{
	af_writer_options o = {.clock = AF_WRITER_WALL, .version = 2};
	af_writer *w = af_writer_new(&o);
	uint8_t *buf;
	size_t len;
	char *folded, *a, *b;
	fg_drawn t = {0}, f;
	af_error e = {0};
	static const uint32_t ev[][3] = {
		/* run: 10 own, 20 in inner; run2: 5; run again: 7 own */
		{4, AF_ENTER, 0}, {12, AF_ENTER, 10}, {12, AF_EXIT, 30}, {4, AF_EXIT, 30},
		{8, AF_ENTER, 30}, {8, AF_EXIT, 35}, {4, AF_ENTER, 35}, {4, AF_EXIT, 42},
	};
	size_t i;

	cr_assert_eq(af_writer_thread(w, 1, "main"), 0);
	cr_assert_eq(af_writer_method(w, 4, "x.Y", "run", "()V", ""), 0);
	cr_assert_eq(af_writer_method(w, 8, "x.Y", "run2", "()V", ""), 0);
	cr_assert_eq(af_writer_method(w, 12, "x.Y", "inner", "()V", ""), 0);
	for (i = 0; i < sizeof ev / sizeof ev[0]; i++)
		cr_assert_eq(af_writer_record(w, 1, ev[i][0], ev[i][1], 0, ev[i][2]), 0);
	buf = t_finish(w, &len, NULL);
	t.trace = t_parse(buf, len);
	cr_assert_eq(af_tree_from_trace(t.trace, NULL, &t.tree, &e), AF_OK);
	cr_assert_eq(af_layout_build(t.tree, NULL, &t.layout, &e), AF_OK);
	folded = t_folded(buf, len, AF_CLOCK_WALL, NULL);
	cr_assert_str_eq(folded, "main;x.Y.run 17\nmain;x.Y.run2 5\nmain;x.Y.run;x.Y.inner 20\n");
	f = fg_draw(folded, NULL, NULL, NULL);
	a = fg_frames(t.layout);
	b = fg_frames(f.layout);
	cr_assert_str_eq(a, b);
	cr_assert_str_eq(a, "all@10.0+1180.0 main@10.0+1180.0 x.Y.run@10.0+477.6 "
	                    "x.Y.run2@487.6+140.5 x.Y.run@628.1+561.9 x.Y.inner@628.1+561.9");
	free(a);
	free(b);
	free(folded);
	free(buf);
	fg_drop(&t);
	fg_drop(&f);
}

/* Item 4: --flamechart on folded input keeps the lines' order and merges
 * a frame only with the same frame of the line before, under the same
 * callers; a frame's own samples stay where their line is. */
Test(fg, flamechart_merges_only_with_the_line_before)
{
	af_parse_options po = {.flamechart = 1};
	af_layout_options lo = {.flamechart = 1};

	FG_FRAMES("a;b;c 1\na;b 1\na;b;c 1\n", &po, NULL, &lo,
	          "all@10.0+1180.0 a@10.0+1180.0 b@10.0+1180.0 c@10.0+393.3 "
	          "c@796.7+393.3");
	/* b's own sample between its two calls of c; x under a different b */
	FG_FRAMES("a;b;c 1\na;b 2\na;b;c 1\na;x;c 1\na;b;c 1\n", &po, NULL, &lo,
	          "all@10.0+1180.0 a@10.0+1180.0 b@10.0+786.7 c@10.0+196.7 "
	          "c@600.0+196.7 x@796.7+196.7 c@796.7+196.7 b@993.3+196.7 "
	          "c@993.3+196.7");
}

/* The static SVG of folded text. */
static char *fg_svg_of(const char *text, const af_parse_options *po,
                       const af_layout_options *lo, const af_render_options *ro_in)
{
	fg_drawn d = fg_draw(text, po, NULL, lo);
	af_render_options ro = {.no_javascript = 1};
	char *svg = NULL;
	size_t len = 0;
	af_error e = {0};
	FILE *f = open_memstream(&svg, &len);

	if (ro_in)
		ro = *ro_in;
	ro.font = t_font;
	cr_assert_eq(af_svg_write(d.layout, &ro, f, &e), AF_OK, "%s", e.message);
	fclose(f);
	fg_drop(&d);
	return svg;
}

/* The fill of the frame whose <title> begins with `title`, as r, g, b. */
static void fg_fill_of(const char *svg, const char *title, int rgb[3])
{
	char want[256];
	const char *p, *fill;
	unsigned v;

	snprintf(want, sizeof want, "<title>%s", title);
	p = strstr(svg, want);
	cr_assert_not_null(p, "no frame %s in %s", title, svg);
	fill = strstr(p, "fill=\"#");
	cr_assert_not_null(fill);
	v = (unsigned)strtoul(fill + 7, NULL, 16);
	rgb[0] = (int)(v >> 16), rgb[1] = (int)(v >> 8 & 255), rgb[2] = (int)(v & 255);
}

/* Item 2: perf's annotations _[k] _[w] _[i] _[j] are not shown in labels
 * and tooltips, and choose the colour. */
Test(fg, annotations_are_stripped_and_choose_the_colour)
{
	af_render_options ro = {.no_javascript = 1, .palette = AF_PALETTE_JAVA};
	af_render_options js = {.palette = AF_PALETTE_JAVA};
	char *svg = fg_svg_of("k_[k];j_[j] 1\ni_[i] 1\nw_[w] 1\nx_[x] 1\n", NULL, NULL, &ro);
	int c[3];

	cr_assert(strstr(svg, "<title>k (1 samples, 25.00%)</title>"), "%s", svg);
	cr_assert(strstr(svg, "<title>j (1 samples, 25.00%)</title>"));
	cr_assert(strstr(svg, "<title>i (1 samples, 25.00%)</title>"));
	cr_assert(strstr(svg, "<title>w (1 samples, 25.00%)</title>"));
	/* only those four are annotations */
	cr_assert(strstr(svg, "<title>x_[x] (1 samples, 25.00%)</title>"));
	cr_assert(strstr(svg, ">k</text>") && strstr(svg, ">j</text>"));
	cr_assert_null(strstr(svg, "_[k]"));
	/* java: jit green, inlined aqua, kernel orange */
	fg_fill_of(svg, "j (", c);
	cr_assert(c[0] == c[2] && c[1] >= 200, "%d %d %d", c[0], c[1], c[2]);
	fg_fill_of(svg, "i (", c);
	cr_assert(c[1] == c[2] && c[0] < 110 && c[1] >= 165, "%d %d %d", c[0], c[1], c[2]);
	fg_fill_of(svg, "k (", c);
	cr_assert(c[2] == 0 && c[0] - c[1] == 100, "%d %d %d", c[0], c[1], c[2]);
	free(svg);
	/* the interactive SVG's name table, which its tooltips and search use */
	svg = fg_svg_of("k_[k];j_[j] 1\n", NULL, NULL, &js);
	cr_assert(strstr(svg, "names:[\"all\",\"k\",\"j\"]"), "%s", strstr(svg, "names:"));
	free(svg);
}

/* Item 3: --total N larger than the sum makes the root full width and N
 * the 100%; smaller, it is ignored. */
Test(fg, total_larger_than_the_sum_is_the_root)
{
	af_layout_options lo = {.total = 10}, small = {.total = 1};
	char *svg;

	FG_FRAMES("a 1\nb 1\n", NULL, NULL, &lo, "all@10.0+1180.0 a@10.0+118.0 b@128.0+118.0");
	FG_FRAMES("a 1\nb 1\n", NULL, NULL, &small, "all@10.0+1180.0 a@10.0+590.0 b@600.0+590.0");
	svg = fg_svg_of("a 1\nb 1\n", NULL, &lo, NULL);
	cr_assert(strstr(svg, "<title>all (10 samples, 100.00%)</title>"), "%s", svg);
	cr_assert(strstr(svg, "<title>a (1 samples, 10.00%)</title>"));
	free(svg);
}

/* The folded text af_folded_write() makes of `text`, read as folded. */
static char *fg_refolded(const char *text)
{
	return t_folded((const uint8_t *)text, strlen(text), AF_CLOCK_WALL, NULL);
}

static uint64_t fg_root_total(const af_tree *tree)
{
	af_node_info ni;
	af_tree_node(tree, 0, &ni);
	return ni.total[AF_CLOCK_WALL];
}

/* Item 5: fractional counts are kept exactly (whole numbers of
 * 10^-decimals), shown rounded as flamegraph.pl shows them, and written
 * back as they were. */
Test(fg, fractional_counts_are_kept)
{
	fg_drawn d = fg_draw("a;b 1.5\nc 2.5\n", NULL, NULL, NULL);
	char *svg, *f;

	cr_assert_eq(af_trace_get_info(d.trace)->decimals, 1);
	cr_assert_eq(af_tree_decimals(d.tree), 1);
	cr_assert_eq(fg_root_total(d.tree), 40);
	fg_drop(&d);
	FG_FRAMES("a;b 1.5\nc 2.5\n", NULL, NULL, NULL,
	          "all@10.0+1180.0 a@10.0+442.5 b@10.0+442.5 c@452.5+737.5");
	/* a line with more decimals than those before it */
	FG_FRAMES("a 1\nb 0.25\nc 0.75\n", NULL, NULL, NULL,
	          "all@10.0+1180.0 a@10.0+590.0 b@600.0+147.5 c@747.5+442.5");
	svg = fg_svg_of("a;b 1.5\nc 2.5\n", NULL, NULL, NULL);
	cr_assert(strstr(svg, "<title>all (4 samples, 100.00%)</title>"), "%s", svg);
	/* 1.5 and 2.5 round to 2 (to even, as Perl's sprintf), and the share
	 * is of that: 2 of 4 */
	cr_assert(strstr(svg, "<title>a (2 samples, 50.00%)</title>"));
	cr_assert(strstr(svg, "<title>c (2 samples, 50.00%)</title>"));
	free(svg);
	f = fg_refolded("a;b 1.5\nc 2.50\nd 0.0000001\ne 7.0\n");
	cr_assert_str_eq(f, "a;b 1.5\nc 2.5\ne 7\n");
	free(f);
	f = fg_refolded("a 0.1234567\nb 3 4.5\n");
	cr_assert_str_eq(f, "a 0.123457\nb 3 4.5\n");
	free(f);
	/* --diff of inputs with different decimals: both in the finer unit */
	{
		fg_drawn b = fg_draw("a;b 1.5\nc 2.5\n", NULL, NULL, NULL);
		fg_drawn a = fg_draw("a;b 1\nc 4.25\n", NULL, NULL, NULL);
		af_tree *diff = NULL;
		af_layout *l = NULL;
		af_render_options ro = {.font = t_font, .no_javascript = 1};
		af_error e = {0};
		FILE *out;
		size_t len = 0;

		cr_assert_eq(af_tree_diff(b.tree, a.tree, NULL, &diff, &e), AF_OK, "%s", e.message);
		cr_assert_eq(af_tree_decimals(diff), 2);
		cr_assert_eq(fg_root_total(diff), 525);
		cr_assert_eq(af_layout_build(diff, NULL, &l, &e), AF_OK);
		out = open_memstream(&svg, &len);
		cr_assert_eq(af_svg_write(l, &ro, out, &e), AF_OK);
		fclose(out);
		cr_assert(strstr(svg, "<title>c (4.25 samples, 80.95%): 2.5 samples \xE2\x86\x92 4.25 "
		                      "samples (+1.75 samples, +70%)"), "%s", svg);
		free(svg);
		af_layout_free(l);
		af_tree_free(diff);
		fg_drop(&a);
		fg_drop(&b);
	}
}

/* Item 14 and issue 20 items 10 and 11: counts are exact to 64 bits, and
 * sums past them are an error naming the line, never a wrap. */
Test(fg, counts_never_wrap)
{
	static const struct {
		const char *text, *message;
	} bad[] = {
		{"a 9223372036854775807\nb 9223372036854775807\nc 9223372036854775807\n",
		 "line 3: the counts add up to more than 18446744073709551615"},
		{"x 10\na;b 18446744073709551609\n",
		 "line 2: the counts add up to more than 18446744073709551615"},
		{"a 9223372036854775808\na 9223372036854775808\n",
		 "line 2: the counts add up to more than 18446744073709551615"},
		{"a 18446744073709551616\n",
		 "line 1: the count 18446744073709551616 is larger than 18446744073709551615"},
		{"a 1 99999999999999999999\n",
		 "line 1: the count 99999999999999999999 is larger than 18446744073709551615"},
		{"a 0.5\nb 1844674407370955162\n",
		 "line 2: the counts add up to more than 1844674407370955161.5 (counts with "
		 "decimals are kept exactly, in 64 bits)"},
	};
	size_t i;

	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		af_trace *t = NULL;
		af_error e = {0};
		cr_assert_eq(af_trace_parse(bad[i].text, strlen(bad[i].text), NULL, &t, &e),
		             AF_ERR_LIMIT, "%s", bad[i].text);
		cr_assert_str_eq(e.message, bad[i].message);
		cr_assert_null(t);
	}
	/* the largest count is a count */
	{
		fg_drawn d = fg_draw("a 18446744073709551615\n", NULL, NULL, NULL);
		char *svg = fg_svg_of("a 18446744073709551615\n", NULL, NULL, NULL);
		cr_assert_eq(fg_root_total(d.tree), UINT64_MAX);
		cr_assert(strstr(svg, "<title>a (18,446,744,073,709,551,615 samples, 100.00%)"),
		          "%s", svg);
		free(svg);
		fg_drop(&d);
	}
}

/* Item 10: flamegraph.pl's split of a line: the one whitespace character
 * before the count separates, anything before it is the stack ("a;b;  3"
 * has a frame " "); trailing ';' add no empty frame, leading ones do. */
Test(fg, whitespace_and_separators)
{
	FG_FRAMES("a;b;  3\n", NULL, NULL, NULL,
	          "all@10.0+1180.0 a@10.0+1180.0 b@10.0+1180.0  @10.0+1180.0");
	FG_FRAMES("a;b; 3\na;b;;; 1\n", NULL, NULL, NULL,
	          "all@10.0+1180.0 a@10.0+1180.0 b@10.0+1180.0");
	FG_FRAMES(";a 2\na 2\n", NULL, NULL, NULL,
	          "all@10.0+1180.0 @10.0+590.0 a@10.0+590.0 a@600.0+590.0");
	FG_FRAMES("a;;b\t3\n", NULL, NULL, NULL,
	          "all@10.0+1180.0 a@10.0+1180.0 @10.0+1180.0 b@10.0+1180.0");
	/* a stack of nothing but separators is the root's own count */
	FG_FRAMES(";;;; 3\na 1\n", NULL, NULL, NULL, "all@10.0+1180.0 a@895.0+295.0");
	FG_FRAMES(" 3\na 1\n", NULL, NULL, NULL, "all@10.0+1180.0 a@895.0+295.0");
}

/* Issue 20 item 9: what the folded writer writes, the reader reads back to
 * the same graph: a leading empty frame is kept, the root's own count is
 * written as an empty stack. */
Test(fg, folded_output_reads_back_the_same)
{
	static const char *const texts[] = {
		";a 2\n", ";;;; 3\na;b 1\n", ";a;;b 2\n;;;; 3\n c 1\n",
		"a;b  5\nx;y 1 2\n",
	};
	static const char *const want[] = {
		";a 2\n", " 3\na;b 1\n", " 3\n c 1\n;a;;b 2\n", "a;b  5\nx;y 1 2\n",
	};
	size_t i;

	for (i = 0; i < sizeof texts / sizeof texts[0]; i++) {
		char *once = fg_refolded(texts[i]), *twice = fg_refolded(once);
		fg_drawn a = fg_draw(texts[i], NULL, NULL, NULL), b = fg_draw(once, NULL, NULL, NULL);
		char *fa = fg_frames(a.layout), *fb = fg_frames(b.layout);
		cr_assert_str_eq(once, want[i], "%s", texts[i]);
		cr_assert_str_eq(twice, once);
		cr_assert_str_eq(fa, fb, "%s", texts[i]);
		free(once);
		free(twice);
		free(fa);
		free(fb);
		fg_drop(&a);
		fg_drop(&b);
	}
}

/* Item 11: in differential input, a line with one count is not
 * differential: its frames take the palette's colours and no change. */
Test(fg, one_count_lines_among_differential_ones)
{
	af_render_options js = {.palette = AF_PALETTE_HOT};
	char *svg = fg_svg_of("a 10 12\nc 2\nd;e 1 1\nd;f 3\n", NULL, NULL, NULL), *f;
	int rgb[3];

	cr_assert(strstr(svg, "<title>a (12 samples, 66.67%; +11.11%)</title>"), "%s", svg);
	cr_assert(strstr(svg, "<title>c (2 samples, 11.11%)</title>"));
	/* d is opened by "d;e 1 1": a change of 0; f by a line of one count */
	cr_assert(strstr(svg, "<title>d (4 samples, 22.22%; 0.00%)</title>"));
	cr_assert(strstr(svg, "<title>f (3 samples, 16.67%)</title>"));
	fg_fill_of(svg, "c (", rgb);
	cr_assert(rgb[0] >= 205 && rgb[2] < 55, "c is hot: %d %d %d", rgb[0], rgb[1], rgb[2]);
	fg_fill_of(svg, "a (", rgb);
	cr_assert(rgb[0] == 255 && rgb[1] == rgb[2] && rgb[1] == 0, "a grew most: red");
	fg_fill_of(svg, "d (", rgb);
	cr_assert(rgb[0] == 255 && rgb[1] == 255 && rgb[2] == 255, "d: no change, white");
	free(svg);
	/* the script's table: null where there is no change */
	svg = fg_svg_of("a 10 12\nc 2\n", NULL, NULL, &js);
	cr_assert(strstr(svg, "frames:[0,14,0,null,1,12,0,2,2,2,0,null]"), "%s",
	          strstr(svg, "frames:"));
	free(svg);
	/* and the folded writer keeps the one count */
	f = fg_refolded("a 10 12\nc 2\n");
	cr_assert_str_eq(f, "a 10 12\nc 2\n");
	free(f);
}

/* Item 6: labels are drawn however tall the font is (flamegraph.pl draws
 * them on every frame wide enough), and with --fontwidth cut where
 * flamegraph.pl cuts them, from x2 - x1 as it computes them: here 9 of 100
 * samples are 106.2 px, 15 glyphs of 7.08 px, but 106.19999999999999 px
 * between the frame's ends, so 14 glyphs: 12 and "..". */
Test(fg, labels_as_flamegraph_pl_cuts_them)
{
	af_render_options ro = {.no_javascript = 1, .fontwidth = 0.59};
	af_layout_options tall = {.font_size = 16};
	char *svg = fg_svg_of("a 16\nbbbbbbbbbbbbbbbbbbbb 9\nc 75\n", NULL, NULL, &ro);

	cr_assert(strstr(svg, ">bbbbbbbbbbbb..</text>"), "%s", svg);
	cr_assert(strstr(svg, ">a</text>") && strstr(svg, ">c</text>"));
	free(svg);
	/* a font as tall as the frame: labels still */
	svg = fg_svg_of("alpha 1\nbeta 1\n", NULL, &tall, &ro);
	cr_assert(strstr(svg, ">alpha</text>") && strstr(svg, ">beta</text>"), "%s", svg);
	free(svg);
	ro.fontwidth = 0;
	svg = fg_svg_of("alpha 1\nbeta 1\n", NULL, &tall, &ro);
	cr_assert(strstr(svg, ">alpha</text>") && strstr(svg, ">beta</text>"), "%s", svg);
	free(svg);
}

/* Item 7: a first line that is not folded stacks (a profiler's header) is
 * skipped with the usual warning; several INPUT files are read as one,
 * their lines one after the other, and messages name the file. */
Test(fg, a_bad_first_line_and_several_inputs)
{
	const char *text = "# austin: 3.3.0\na;b 1\n";
	af_trace *t = t_parse((const uint8_t *)text, strlen(text));
	char *one = t_tmp("one.folded"), *two = t_tmp("two.folded"), *bad = t_tmp("bad.folded");
	char args[1024], *out = NULL, *err = NULL;

	cr_assert_eq(af_trace_get_info(t)->variant, AF_VARIANT_FOLDED);
	cr_assert_eq(af_trace_get_info(t)->lines, 1);
	cr_assert_eq(af_trace_get_info(t)->ignored_lines, 1);
	af_trace_free(t);

	t_write(one, "a;b 1\nc 2", 9); /* no newline at its end */
	t_write(two, "# header\na;b 3\n", 15);
	t_write(bad, "x 1\ny 18446744073709551615\n", 27);
	snprintf(args, sizeof args, "--format folded '%s' '%s'", one, two);
	cr_assert_eq(t_cli(args, NULL, &out, &err), 0, "%s", err);
	cr_assert_str_eq(out, "a;b 4\nc 2\n");
	cr_assert(strstr(err, "two.folded: warning: ignored 1 lines that are not \"frame;frame "
	                      "COUNT\", the first at byte 0"), "%s", err);
	free(out);
	free(err);
	/* an error names its file, and the line and byte in it */
	t_cli_says(1, "bad.folded: line 2: the counts add up to more than "
	              "18446744073709551615 (byte 4)", "'%s' '%s'", one, bad);
	/* every input must be folded stacks */
	t_cli_says(1, "app.trace: not folded stacks (\"frame;frame COUNT\"): several inputs "
	              "are read as one only when they all are (byte 0)",
	           "'%s' '%s/app.trace'", one, AF_TEST_SAMPLES);
	t_cli_says(2, "--diff compares BEFORE with one AFTER input", "--diff '%s' '%s' '%s'",
	           one, one, two);
	unlink(one);
	unlink(two);
	unlink(bad);
	free(one);
	free(two);
	free(bad);
}

/* Item 8: --factor multiplies the count shown, rounded as flamegraph.pl's
 * sprintf rounds it (a tie to even), and the share is of that count. */
Test(fg, factor_rounds_the_count_and_its_share)
{
	af_layout_options lo = {.factor = 2.5};
	char *svg = fg_svg_of("a 1\nb 2\nc 3\n", NULL, &lo, NULL);

	cr_assert(strstr(svg, "<title>a (2 samples, 13.33%)</title>"), "%s", svg);
	cr_assert(strstr(svg, "<title>b (5 samples, 33.33%)</title>"));
	cr_assert(strstr(svg, "<title>c (8 samples, 53.33%)</title>"));
	cr_assert(strstr(svg, "<title>all (15 samples, 100.00%)</title>"));
	free(svg);
}

/* The hue of a fill, by flamegraph.pl's one-value palettes. */
static const char *fg_hue(const int c[3])
{
	if (c[0] == c[1] && c[1] == c[2])
		return c[0] == 160 ? "--grey" : c[0] == 200 ? "-grey" : "grey";
	if (c[0] == c[2] && c[1] >= 200 && c[0] <= 110)
		return "green";
	if (c[1] == c[2] && c[0] <= 110 && c[1] >= 165)
		return "aqua";
	if (c[0] == c[1] && c[2] <= 70 && c[0] >= 175)
		return "yellow";
	if (c[2] == 0 && c[0] - c[1] == 100)
		return "orange";
	if (c[1] == c[2] && c[0] >= 200 && c[1] <= 130)
		return "red";
	if (c[0] == c[1] && c[2] >= 205)
		return "blue";
	return "?";
}

static void fg_hues(const char *text, af_palette palette, int wakers,
                    const char *const *titles, const char *const *hues)
{
	af_parse_options po = {.wakers = wakers};
	af_render_options ro = {.no_javascript = 1, .palette = palette};
	char *svg = fg_svg_of(text, &po, NULL, &ro);
	size_t i;

	for (i = 0; titles[i]; i++) {
		int c[3];
		fg_fill_of(svg, titles[i], c);
		cr_assert_str_eq(fg_hue(c), hues[i], "%s: rgb(%d,%d,%d)", titles[i], c[0], c[1],
		                 c[2]);
	}
	free(svg);
}

/* Item 9: java, js, perl and chain choose hues by flamegraph.pl's rules,
 * in its order; "-" and "--" are grey; the flat palettes have its grey
 * background. */
Test(fg, palettes_choose_hues_as_flamegraph_pl)
{
	fg_hues("Ljava/util/concurrent/ThreadPoolExecutor$Worker:::run 1\n"
	        "java/lang/Thread.run 1\nFoo:::bar 1\nv8::Call 1\nk_[k] 1\nlibc 1\n"
	        "x::y_[j] 1\nz::w_[i] 1\n- 1\n-- 1\n",
	        AF_PALETTE_JAVA, 0,
	        (const char *const[]){"Ljava/util/concurrent/ThreadPoolExecutor$Worker:::run (",
	                              "java/lang/Thread.run (", "Foo:::bar (", "v8::Call (",
	                              "k (", "libc (", "x::y (", "z::w (", "- (", "-- (", NULL},
	        (const char *const[]){"green", "green", "green", "yellow", "orange", "red",
	                              "green", "aqua", "-grey", "--grey"});
	fg_hues("Builtin:x_[j] 1\n/a/b.js:1_[j] 1\nv8::Call 1\n/app/main.js:3 1\n"
	        "Stub:CEntry 1\n  1\nk_[k]x 1\nuv_run 1\n",
	        AF_PALETTE_JS, 0,
	        (const char *const[]){"Builtin:x (", "/a/b.js:1 (", "v8::Call (",
	                              "/app/main.js:3 (", "Stub:CEntry (", "  (", "k_[k]x (",
	                              "uv_run (", NULL},
	        (const char *const[]){"aqua", "green", "yellow", "green", "aqua", "green",
	                              "orange", "red"});
	fg_hues("Foo::bar 1\nPerl_pp_entersub 1\nmain.pl 1\nk_[k] 1\nlibc 1\n", AF_PALETTE_PERL, 0,
	        (const char *const[]){"Foo::bar (", "Perl_pp_entersub (", "main.pl (", "k (",
	                              "libc (", NULL},
	        (const char *const[]){"yellow", "green", "green", "orange", "red"});
	/* chain: the frames after the first "--" are the waker's */
	fg_hues("sleep;--;wake;up 1\nio 1\n", AF_PALETTE_CHAIN, 1,
	        (const char *const[]){"sleep (", "-- (", "wake (", "up (", "io (", NULL},
	        (const char *const[]){"blue", "--grey", "aqua", "aqua", "blue"});
	/* ... and a stack without one gets no "--" (flamegraph.pl adds one) */
	FG_FRAMES("sleep;io 1\n", &(af_parse_options){.wakers = 1}, NULL, NULL,
	          "all@10.0+1180.0 sleep@10.0+1180.0 io@10.0+1180.0");
	{
		af_render_options ro = {.no_javascript = 1, .palette = AF_PALETTE_RED};
		char *svg = fg_svg_of("a 1\n", NULL, NULL, &ro);
		cr_assert(strstr(svg, "stop-color=\"#f8f8f8\"") && strstr(svg, "stop-color=\"#e8e8e8\""),
		          "%s", svg);
		free(svg);
	}
}
