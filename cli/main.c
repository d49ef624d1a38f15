/* main.c - the headroom executable: global options and the command table.
 *
 * Owns: dispatch only.  Each command lives in cmd_<name>.c in the lowest
 * stage that has everything it uses, declared in that stage's commands.h,
 * and parses its own options (the common ones via cli.h).  cli/ is the top
 * level: the one folder that sees every stage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataset/base/cli.h"
#include "../dataset/base/runfiles.h"
#include "../dataset/base/version.h"
#include "../dataset/commands.h"
#include "../figures/commands.h"
#include "../profile/commands.h"
#include "../replay/commands.h"
#include "../report/commands.h"
#include "../verify/commands.h"


struct command {
	const char *name;
	int (*fn)(int argc, char **argv, struct hr_global *g);
	const char *summary;
};

static const struct command commands[] = {
	{ "audit", cmd_audit, "run each problem's reference: which trivial outputs pass" },
	{ "export", cmd_export, "write the canonical archive of the store" },
	{ "figures", cmd_figures, "draw the figures (gnuplot) from the store" },
	{ "ingest", cmd_ingest, "store evaluation archives, dirs or files" },
	{ "ls", cmd_ls, "list stored evaluations, one row each" },
	{ "merge", cmd_merge, "join replay results of shard databases" },
	{ "problems", cmd_problems, "add or list KernelBench problem sets" },
	{ "profile", cmd_profile, "profile workloads on this GPU and ingest the traces" },
	{ "replay", cmd_replay, "re-run, re-check and re-time stored kernels" },
	{ "report", cmd_report, "tables and the claims ledger, from the store" },
	{ "show", cmd_show, "one evaluation with all its fields and code" },
	{ "verify", cmd_verify, "compare a reference and a candidate tensor" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *f)
{
	fputs("usage: headroom [--db FILE] [--format md|csv|json|tex] [-q] [-v]"
	      " COMMAND [ARGS]\n"
	      "       headroom --version | --exec-path | --help | help COMMAND\n\n"
	      "Replays, re-verifies and re-times published evaluations of\n"
	      "LLM-generated GPU kernels.\n\ncommands:\n", f);
	for (size_t i = 0; i < N_COMMANDS; i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fputs("\nThe database is --db, else $HEADROOM_DB, else ./headroom.db.\n"
	      "The worker and its libraries are in the libexec folder that\n"
	      "--exec-path prints, the shipped data beside it in\n"
	      "PREFIX/share/headroom; PREFIX is $HEADROOM_PREFIX, else the one\n"
	      "headroom was built for, never the working directory.\n"
	      "Exit codes: 0 ok, 1 failures found, 2 usage, 3 bad input,\n"
	      "4 system error.  'headroom COMMAND --help' for each command;\n"
	      "man ./docs/headroom.1 for the manual.\n", f);
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < N_COMMANDS; i++)
		if (strcmp(commands[i].name, name) == 0)
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	struct hr_global g = { 0 };
	const struct command *cmd;
	const char *env = getenv("HEADROOM_DB");
	int i = 1;

	g.db_path = env && *env ? env : "headroom.db";
	g.format = HR_FMT_MD;
	/* Global options come before the command name, as in git. */
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return cli_finish(HR_OK);
		} else if (!strcmp(a, "--version")) {
			printf("headroom %s\n", hr_version());
			return cli_finish(HR_OK);
		} else if (!strcmp(a, "--exec-path")) {
			char dir[4096];

			if (runfiles_path(RUNFILES_LIBEXEC, "", dir, sizeof(dir)))
				return cli_usage_error("", "$HEADROOM_PREFIX is "
						       "too long");
			printf("%s\n", dir);
			return cli_finish(HR_OK);
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			g.quiet = 1;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			g.verbose++;
		} else if (!strcmp(a, "--db") && i + 1 < argc) {
			g.db_path = argv[++i];
		} else if (!strncmp(a, "--db=", 5)) {
			g.db_path = a + 5;
		} else if (!strcmp(a, "--format") && i + 1 < argc) {
			if (cli_parse_format(argv[++i], &g.format))
				return cli_usage_error("", "unknown format '%s'",
						       argv[i]);
			g.format_given = 1;
		} else if (!strncmp(a, "--format=", 9)) {
			if (cli_parse_format(a + 9, &g.format))
				return cli_usage_error("", "unknown format '%s'",
						       a + 9);
			g.format_given = 1;
		} else if (!strcmp(a, "--db") || !strcmp(a, "--format")) {
			fprintf(stderr, "headroom: option '%s' needs a value\n",
				a);
			usage(stderr);
			return HR_USAGE;
		} else {
			fprintf(stderr, "headroom: unknown option '%s'\n", a);
			usage(stderr);
			return HR_USAGE;
		}
	}
	if (i >= argc) {
		usage(stderr);
		return HR_USAGE;
	}
	if (!strcmp(argv[i], "help")) {
		if (i + 1 >= argc) {
			usage(stdout);
			return cli_finish(HR_OK);
		}
		if (!(cmd = find(argv[i + 1]))) {
			fprintf(stderr, "headroom: no command '%s'\n",
				argv[i + 1]);
			return HR_USAGE;
		}
		char *help_argv[] = { argv[i + 1], "--help", NULL };
		cli_getopt_reset();
		return cli_finish(cmd->fn(2, help_argv, &g));
	}
	if (!(cmd = find(argv[i]))) {
		fprintf(stderr, "headroom: '%s' is not a headroom command; "
			"see 'headroom --help'\n", argv[i]);
		return HR_USAGE;
	}
	cli_getopt_reset();
	return cli_finish(cmd->fn(argc - i, argv + i, &g));
}
