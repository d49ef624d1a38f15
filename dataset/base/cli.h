/* cli.h - what every subcommand shares: global options, output format,
 * the uniform way to report usage errors and library errors.
 *
 * Owns: struct hr_global and the options every command accepts
 * (-h/--help, --db FILE, --format F, -q, -v).  Must not: know any command.
 */
#ifndef HR_CLI_H
#define HR_CLI_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

enum hr_format { HR_FMT_MD, HR_FMT_CSV, HR_FMT_JSON, HR_FMT_TEX };

struct hr_global {
	const char *db_path;    /* --db, $HEADROOM_DB, or ./headroom.db */
	enum hr_format format;  /* --format; md unless given */
	int quiet;              /* -q: no progress or summaries */
	int verbose;            /* -v: more detail on stderr */
	int format_given;       /* --format was given (not the default) */
};

/* Long-only option codes shared by all commands. */
enum { CLI_OPT_DB = 0x1000, CLI_OPT_FORMAT };

/* Put these first in a command's struct option array. */
#define CLI_COMMON_OPTIONS                                           \
	{ "help", no_argument, NULL, 'h' },                          \
	{ "db", required_argument, NULL, CLI_OPT_DB },               \
	{ "format", required_argument, NULL, CLI_OPT_FORMAT },       \
	{ "quiet", no_argument, NULL, 'q' },                         \
	{ "verbose", no_argument, NULL, 'v' }
/* And these first in its short-option string (the ':' makes getopt_long
 * tell a missing value, ':', from an unknown option, '?'). */
#define CLI_COMMON_SHORT ":hqv"

/* Results of cli_common_option besides an exit code. */
enum { CLI_NEXT = -1, CLI_OTHER = -2 };

/* Handle one getopt result c (its value in optarg).  Returns CLI_NEXT when
 * it was a common option and parsing goes on, CLI_OTHER when it is not a
 * common option, or an exit code the command returns at once: HR_OK after
 * --help printed the usage, HR_USAGE after a bad value, an unknown option
 * or a missing value was reported, naming the option as argv spells it.
 * Use as
 *
 *	r = cli_common_option(g, "ls", usage, c, argc, argv);
 *	if (r == CLI_NEXT) continue;
 *	if (r != CLI_OTHER) return r;
 */
int cli_common_option(struct hr_global *g, const char *cmd, const char *usage,
		      int c, int argc, char *const argv[]);

int cli_parse_format(const char *s, enum hr_format *f);

/* The formats a command prints, for cli_check_format. */
#define CLI_FMT(f) (1u << (f))
#define CLI_FMT_TABLES (CLI_FMT(HR_FMT_MD) | CLI_FMT(HR_FMT_CSV) | \
			CLI_FMT(HR_FMT_JSON) | CLI_FMT(HR_FMT_TEX))

/* One rule for every command: --format F that the command cannot print
 * (can: a CLI_FMT mask; 0 for a command that prints no table, where any
 * --format given is refused) is a usage error naming the formats it
 * prints.  Returns CLI_NEXT when the format is fine. */
int cli_check_format(const struct hr_global *g, const char *cmd,
		     unsigned can);
const char *cli_format_name(enum hr_format f);

/* Print "headroom CMD: " + message + usage hint on stderr; return HR_USAGE. */
/* The one number parser of option values: the whole of s, no blanks, no
 * sign but a '-' where min < 0.  cli_parse_int: decimal digits, a value in
 * [min, max]; cli_parse_u64: a bit pattern, C's unsigned syntax (decimal,
 * 0x hex or 0 octal) up to UINT64_MAX, never signed; cli_parse_real: a
 * finite number (strtod's syntax, no overflow or underflow).  0 with *out
 * set, or -1 with *out untouched. */
int cli_parse_int(const char *s, long long min, long long max,
		  long long *out);
int cli_parse_u64(const char *s, uint64_t *out);
int cli_parse_real(const char *s, double *out);

int cli_usage_error(const char *cmd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Print an error value once, "headroom CMD: msg" (control characters of
 * msg as \xNN); return its code. */
int cli_report(const char *cmd, const struct hr_err *e);

/* Flush stdout and check it was written; returns rc, or HR_SYSTEM when a
 * write to stdout failed (a full disk must not look like success). */
int cli_finish(int rc);

/* Standard getopt prologue every command uses; resets getopt state. */
void cli_getopt_reset(void);

/* A library given by name (--OPT PATH, not "none") must be readable:
 * CLI_NEXT when it is (or path is NULL or "none"), else a usage error of
 * cmd naming the option, the path and why. */
int cli_check_lib(const char *cmd, const char *opt, const char *path);

/* The library a --OPT option names: given unset (NULL), the one called
 * name in the libexec folder (runfiles.h; malloc'd into *owned, NULL when
 * there is none); "none", NULL; else given itself. */
const char *cli_lib_path(const char *given, const char *name, char **owned);

#endif
