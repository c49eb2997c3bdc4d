/*
 * options.h - the command's options, in one table: the command parses its
 * arguments with it (options.c), and writes --help and its man page from it
 * (help.c).  tests/test_cli.c checks that --help, the man page and the
 * README's option tables list the options of this table, no more, no less.
 */
#ifndef AF_CLI_OPTIONS_H
#define AF_CLI_OPTIONS_H

#include <stddef.h>
#include <stdio.h>

#include "cli.h"

/** The parts of --help and of the man page's OPTIONS, in their order. */
typedef enum cli_section {
	CLI_OUTPUT,
	CLI_DRAW,
	CLI_VIEWS,
	CLI_PROFILE, /* dmtracedump's outputs */
	CLI_LOOK,
	CLI_SETS,
	CLI_LIMITS,
	CLI_MESSAGES,
	CLI_NSECTIONS
} cli_section;

/** Each section's heading. */
extern const char *const cli_section_titles[CLI_NSECTIONS];

/** Flags of a cli_option. */
enum {
	/** The option of an earlier entry, described again in another section
	 * or for one of its values (`--clock wait` among the views): listed,
	 * not parsed from this entry. */
	CLI_AGAIN = 1,
	/** Another name of the option of an earlier entry (`--colours`):
	 * parsed, not listed. */
	CLI_ALIAS = 2,
	/** Parsed, not listed: `--help-man`, which the build runs. */
	CLI_HIDDEN = 4,
};

/** One option, or one more description of it (CLI_AGAIN). */
typedef struct cli_option {
	const char *name;     /* the long name, without "--" */
	char short_name;      /* the one-letter form ("-o"), or 0 */
	const char *arg;      /* the value's name (FILE); NULL: it takes no
	                         value.  In a CLI_AGAIN entry, what is shown
	                         after the name: a value's name, or a value */
	cli_section section;
	int flags;            /* CLI_AGAIN, CLI_ALIAS, CLI_HIDDEN */
	int id;               /* what it does (options.c); one per option */
	const char *help;     /* one paragraph of ASCII text, not wrapped */
} cli_option;

/** Every option, in the order --help lists them within a section. */
extern const cli_option cli_options[];
extern const size_t cli_noptions;

/** Parses the command line into `c` and checks that its options go
 * together.  Returns -1 when the command is to run; otherwise the exit
 * status, after --help or --version was written to standard output (0) or
 * a usage error to standard error (2).  `c->threads` is allocated (free()
 * it) whatever it returns. */
int cli_parse(int argc, char **argv, cli *c);

/* help.c */

/** Writes --help, from the table. */
void cli_help(FILE *f);

/** Writes the man page aflame-render.1 (roff), from the table; 0, or -1
 * when it could not be written. */
int cli_man(FILE *f);

#endif
