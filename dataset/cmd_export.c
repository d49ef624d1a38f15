/* cmd_export.c - `headroom export OUT`: the whole store as one canonical,
 * deterministic archive that `headroom ingest` reads back (export.h). */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "export.h"
#include "store.h"

static const char usage[] =
	"usage: headroom export OUT [--format-archive tar.zst|tar.gz|tar|zip]"
	" [--force]\n"
	"\n"
	"Write everything ingested (sources, evaluations, kernels, speedups,\n"
	"baselines, problem sets, profiles) to the archive OUT, which\n"
	"'headroom ingest' reads back into the same rows: exporting the store\n"
	"it makes gives the same bytes.  Entries are sorted, times are\n"
	"SOURCE_DATE_EPOCH (else 0), owners 0, modes 0644.  Replay and audit\n"
	"results are not exported ('headroom merge' joins stores with them).\n"
	"A store holding text that is not UTF-8 is refused (exit 3).  OUT is\n"
	"written to a temporary file and renamed into place; it is never the\n"
	"database itself.\n"
	"\n"
	"  --format-archive F  tar.zst, tar.gz, tar or zip (default: from OUT's\n"
	"                      extension: .tar.zst .tzst .tar.gz .tgz .tar .zip)\n"
	"  --force             replace OUT when it exists\n"
	"  --db FILE           database (default ./headroom.db or $HEADROOM_DB)\n"
	"  -q                  no summary line\n";

int cmd_export(int argc, char **argv, struct hr_global *g)
{
	enum { OPT_ARCHIVE = 0x2000, OPT_FORCE };
	static const struct option opts[] = {
		CLI_COMMON_OPTIONS,
		{ "format-archive", required_argument, NULL, OPT_ARCHIVE },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ 0 }
	};
	struct export_counts n;
	enum export_format fmt = EXPORT_TAR_ZST;
	const char *fmt_name = NULL, *out;
	struct hr_err e;
	struct store *s;
	int force = 0, c, r;

	hr_err_clear(&e);
	while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT, opts, NULL)) !=
	       -1) {
		r = cli_common_option(g, "export", usage, c, argc, argv);
		if (r == CLI_NEXT)
			continue;
		if (r != CLI_OTHER)
			return r;
		if (c == OPT_ARCHIVE)
			fmt_name = optarg;
		else if (c == OPT_FORCE)
			force = 1;
	}
	if ((r = cli_check_format(g, "export", 0)) != CLI_NEXT)
		return r;
	if (optind + 1 != argc)
		return cli_usage_error("export", optind < argc ?
				       "one output file, please" :
				       "missing the output file OUT");
	out = argv[optind];
	if (fmt_name ? export_format_parse(fmt_name, &fmt) :
		       export_format_for_path(out, &fmt))
		return fmt_name ?
			cli_usage_error("export", "unknown archive format '%s'"
					" (tar.zst, tar.gz, tar or zip)",
					fmt_name) :
			cli_usage_error("export", "cannot tell the archive "
					"format from '%s'; give "
					"--format-archive", out);
	if (store_open(&s, g->db_path, STORE_READ, &e))
		return cli_report("export", &e);
	if (export_write(s, out, fmt, force, &n, &e) == HR_OK && !g->quiet)
		printf("%s: %lld sources, %lld evaluations, %lld kernels, "
		       "%lld speedups, %lld baselines, %lld problems, "
		       "%lld profiles\n", out,
		       (long long)n.sources, (long long)n.evaluations,
		       (long long)n.kernels, (long long)n.speedups,
		       (long long)n.baselines, (long long)n.problems,
		       (long long)n.profiles);
	store_close(s);
	return cli_report("export", &e);
}
