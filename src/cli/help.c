/*
 * help.c - --help and the man page, both written from the table of options
 * (options.c): an option is described in one place.  The build writes the
 * man page by running `aflame-render --help-man`.
 */
#include <stdio.h>
#include <string.h>

#include "options.h"

/* --help's lines are at most this long; descriptions start at TEXT_COL */
#define HELP_WIDTH 79
#define TEXT_COL 25

static const char description[] =
	"Draw an Android method trace (.trace, regular or streaming, gzip, or a "
	"base.key + base.data pair) or folded stacks (flamegraph.pl's input) as a "
	"flame graph. INPUT - reads standard input.";

/* Writes `text` from column `col`, wrapped at HELP_WIDTH with the lines
 * after the first indented by `indent`, then a line break.  A word longer
 * than a line stays whole. */
static void wrap(FILE *f, const char *text, size_t col, size_t indent)
{
	const char *p = text;
	int first = 1;

	while (*p) {
		size_t n = strcspn(p, " ");
		if (!first && col + 1 + n > HELP_WIDTH) {
			fprintf(f, "\n%*s", (int)indent, "");
			col = indent;
			first = 1;
		}
		if (!first) {
			fputc(' ', f);
			col++;
		}
		fwrite(p, 1, n, f);
		col += n;
		first = 0;
		p += n;
		while (*p == ' ')
			p++;
	}
	fputc('\n', f);
}

/* An entry is listed by --help and the man page unless it is another name
 * or hidden. */
static int listed(const cli_option *o)
{
	return !(o->flags & (CLI_ALIAS | CLI_HIDDEN));
}

void cli_help(FILE *f)
{
	int s;

	fputs("Usage: " PROG " [options] INPUT\n", f);
	wrap(f, description, 0, 0);
	for (s = 0; s < CLI_NSECTIONS; s++) {
		size_t i;

		fprintf(f, "\n%s\n", cli_section_titles[s]);
		for (i = 0; i < cli_noptions; i++) {
			const cli_option *o = &cli_options[i];
			int n;
			if (o->section != (cli_section)s || !listed(o))
				continue;
			if (o->short_name)
				n = fprintf(f, "  -%c, --%s", o->short_name, o->name);
			else
				n = fprintf(f, "      --%s", o->name);
			if (o->arg)
				n += fprintf(f, " %s", o->arg);
			if (n <= TEXT_COL - 2)
				fprintf(f, "%*s", TEXT_COL - n, "");
			else
				fprintf(f, "\n%*s", TEXT_COL, "");
			wrap(f, o->help, TEXT_COL, TEXT_COL);
		}
	}
}

/* ------------------------------------------------------------------ */
/* The man page                                                        */

/* Writes `s` as roff text: backslashes and hyphens escaped (a hyphen in an
 * option must stay a plain '-' to be copied), and a '.' or '\'' that
 * would begin the line made text.  `s` is one line. */
static void roff(FILE *f, const char *s, int at_line_start)
{
	for (; *s; s++) {
		if (at_line_start && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		at_line_start = 0;
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
	}
}

/* An option's name and value as the man page's heading of it: the name in
 * bold, a value's name (FILE) in italics, a value itself (wait) in bold. */
static void man_heading(FILE *f, const cli_option *o)
{
	fputs(".TP\n", f);
	if (o->short_name)
		fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
	fputs("\\fB\\-\\-", f);
	roff(f, o->name, 0);
	fputs("\\fR", f);
	if (o->arg) {
		int is_name = o->arg[0] >= 'A' && o->arg[0] <= 'Z';
		fputs(is_name ? " \\fI" : " \\fB", f);
		roff(f, o->arg, 0);
		fputs("\\fR", f);
	}
	fputc('\n', f);
}

/* The parts of the page around OPTIONS, in roff: what the command does,
 * what it returns, what it reads.  Each option is described only in the
 * table. */
static const char man_head[] =
	".SH NAME\n"
	"aflame\\-render \\- draw Android method traces and folded stacks as flame "
	"graphs\n"
	".SH SYNOPSIS\n"
	".B aflame\\-render\n"
	"[\\fIoptions\\fR] \\fIINPUT\\fR\n"
	".br\n"
	".B aflame\\-render \\-\\-diff\n"
	"\\fIBEFORE\\fR [\\fIoptions\\fR] \\fIINPUT\\fR\n"
	".br\n"
	".B aflame\\-render \\-\\-per\\-thread \\-o\n"
	"\\fIFOLDER\\fR [\\fIoptions\\fR] \\fIINPUT\\fR\n"
	".SH DESCRIPTION\n"
	".B aflame\\-render\n"
	"draws an Android method trace (Debug.startMethodTracing, Android Studio's "
	"\"Trace Java Methods\") or folded stacks (the input of flamegraph.pl) as a "
	"flame graph: an interactive SVG that can be zoomed into and searched, PNG "
	"or PDF drawn with cairo, or folded text.\n"
	".PP\n"
	"It reads every layout Dalvik and ART write: regular traces with data "
	"versions 1, 2 and 3, ART streaming traces (also when cut short), the "
	"legacy key and data pair (\\fIbase\\fR.key and \\fIbase\\fR.data, given "
	"as \\fIbase\\fR), gzip\\-compressed copies of any of these, and standard "
	"input (\\fIINPUT\\fR \\-).  The layout is told from the bytes, never from "
	"the file name.  Folded stacks are lines of frames separated by semicolons "
	"and a count (\\fBframe;frame;frame 12\\fR), or two counts, before and "
	"after, as difffolded.pl writes them.\n"
	".PP\n"
	"The outputs of a run (the graph, the table of \\fB\\-\\-report\\fR, the "
	"palette.map of \\fB\\-\\-cp\\fR, a per\\-thread set) are all written or "
	"none is: each is written to a temporary file beside its target, and they "
	"are renamed into place together when all are complete.\n"
	".SH OPTIONS\n"
	"An option that takes a value is given it as the next argument or after "
	"an equals sign (\\fB\\-\\-width=800\\fR); \\fB\\-o\\fR also takes it "
	"joined (\\fB\\-oout.svg\\fR), and an option of flamegraph.pl also works "
	"with one hyphen (\\fB\\-title\\fR).  After \\fB\\-\\-\\fR, every argument "
	"is an input.\n";

static const char man_tail[] =
	".SH EXIT STATUS\n"
	".TP\n"
	".B 0\n"
	"Every output was written.\n"
	".TP\n"
	".B 1\n"
	"The input cannot be drawn, or an output cannot be written.  The message "
	"names the file, says what went wrong and, for a damaged input, the byte "
	"where it was found:\n"
	".RS\n"
	".PP\n"
	"aflame\\-render: broken.trace: unsupported record size 13 (expected 10 or "
	"14) (byte 146)\n"
	".RE\n"
	".TP\n"
	".B 2\n"
	"A usage mistake, a bad option value included.\n"
	".PP\n"
	"A trace that is damaged but usable (a streaming trace with no summary, a "
	"partial last record) is drawn, with a warning on standard error.\n"
	".SH ENVIRONMENT\n"
	".TP\n"
	".B AFLAME_FONTCONF\n"
	"The fontconfig file that pins the fonts, instead of the installed "
	"share/aflame/fonts.conf.\n"
	".SH FILES\n"
	".TP\n"
	".B ./palette.map\n"
	"With \\fB\\-\\-cp\\fR: the colour of each name (NAME\\->rgb(R,G,B) "
	"lines), read before drawing and written again with the graph.\n"
	".SH EXAMPLES\n"
	".nf\n"
	".RS\n"
	"aflame\\-render \\-o main.svg app.trace\n"
	"aflame\\-render \\-\\-clock cpu \\-\\-thread main \\-o main.png app.trace\n"
	"adb shell cat /sdcard/app.trace | aflame\\-render \\- > main.svg\n"
	"aflame\\-render \\-o app.folded app.trace\n"
	"aflame\\-render \\-\\-title Kernel \\-\\-colors io perf.folded > perf.svg\n"
	"aflame\\-render \\-\\-diff old.trace new.trace \\-o diff.svg\n"
	"aflame\\-render \\-\\-report \\- app.trace\n"
	"aflame\\-render \\-\\-per\\-thread \\-o app\\-graphs app.trace\n"
	".RE\n"
	".fi\n"
	".SH SEE ALSO\n"
	"flamegraph.pl, difffolded.pl (FlameGraph); the README of aflame\\-render.\n";

int cli_man(FILE *f)
{
	int s;

	fputs(".TH AFLAME\\-RENDER 1 \"\" \"" PROG " " AF_VERSION_STRING "\" "
	      "\"User Commands\"\n"
	      ".nh\n", f); /* no hyphenation: names stay whole */
	fputs(man_head, f);
	for (s = 0; s < CLI_NSECTIONS; s++) {
		size_t i;

		fputs(".SS \"", f);
		roff(f, cli_section_titles[s], 0);
		fputs("\"\n", f);
		for (i = 0; i < cli_noptions; i++) {
			const cli_option *o = &cli_options[i];
			if (o->section != (cli_section)s || !listed(o))
				continue;
			man_heading(f, o);
			roff(f, o->help, 1);
			fputc('\n', f);
		}
	}
	fputs(man_tail, f);
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}
