/* cmd_merge.c - `headroom merge OUT.db IN.db...`: join shard databases.
 *
 * Each `headroom replay --shard I/N` writes its own copy of the store; this
 * copies every replay run of each IN (and its jobs) into OUT, mapping
 * evaluations and problems by their natural keys (source hash + run +
 * model + level + problem + sample; problem file hash), not by row ids.  A run
 * already in OUT (same uuid) is skipped, so merging twice changes nothing.
 * When OUT does not exist it starts as a copy of the first IN without its
 * replay rows, which the merge then copies like any other's.  One
 * transaction per IN (merge.h).  Every IN is checked before OUT is
 * created or changed (merge_check_input).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../dataset/base/table.h"
#include "../dataset/store.h"
#include "commands.h"
#include "merge.h"

static const char usage[] =
	"usage: headroom merge OUT.db IN.db...\n"
	"\n"
	"Copy the replay runs and results of each IN.db (e.g. the databases of\n"
	"'headroom replay --shard I/N') into OUT.db.  Evaluations are matched\n"
	"by source hash, run, model, level, problem and sample.  Runs already in\n"
	"OUT.db are skipped.  A missing OUT.db starts as a copy of the first\n"
	"IN.db.  Prints one row per input: file, runs, jobs copied.\n";

int cmd_merge(int argc, char **argv, struct hr_global *g)
{
	static const struct option opts[] = { CLI_COMMON_OPTIONS, { 0 } };
	static const struct table_col cols[] = {
		{ "file", COL_TEXT }, { "runs", COL_INT }, { "jobs", COL_INT },
	};
	struct hr_err e;
	struct store *out = NULL;
	struct table *t = NULL;
	int64_t *sizes = NULL;
	int c, r, created = 0;

	hr_err_clear(&e);
	while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT, opts, NULL)) != -1) {
		r = cli_common_option(g, "merge", usage, c, argc, argv);
		if (r == CLI_NEXT)
			continue;
		if (r != CLI_OTHER)
			return r;
		return HR_USAGE;
	}
	if (argc - optind < 2)
		return cli_usage_error("merge", "want OUT.db and at least one "
				       "IN.db");
	/* Every input checked before OUT is created or changed. */
	if (!(sizes = calloc((size_t)argc, sizeof(*sizes))))
		return HR_SYSTEM;
	for (int i = optind + 1; i < argc; i++)
		if (merge_check_input(argv[i], argv[optind], &sizes[i], &e)) {
			free(sizes);
			return cli_report("merge", &e);
		}
	if (access(argv[optind], F_OK) != 0) {
		created = 1;
		if (merge_start_output(argv[optind + 1], argv[optind], &out,
				       &e)) {
			free(sizes);
			return cli_report("merge", &e);
		}
	} else if (store_open(&out, argv[optind], STORE_WRITE, &e)) {
		free(sizes);
		return cli_report("merge", &e);
	}
	if (!(t = table_new(cols, 3))) {
		store_close(out);
		free(sizes);
		return HR_SYSTEM;
	}
	for (int i = optind + 1; i < argc && !e.code; i++) {
		char nr[16], nj[16];
		const char *cells[3] = { argv[i], nr, nj };
		int runs, jobs;

		if (merge_one(out, argv[i], sizes[i], &runs, &jobs, &e))
			break;
		snprintf(nr, sizeof(nr), "%d", runs);
		snprintf(nj, sizeof(nj), "%d", jobs);
		if (table_add_row(t, cells))
			hr_errf(&e, HR_SYSTEM, "out of memory");
	}
	if (!e.code)
		table_write(t, g->format, stdout);
	table_free(t);
	store_close(out);
	free(sizes);
	/* A failed merge leaves no OUT it created. */
	if (e.code && created)
		merge_remove_output(argv[optind]);
	return cli_report("merge", &e);
}
