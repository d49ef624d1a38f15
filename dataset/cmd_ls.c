/* cmd_ls.c - `headroom ls`: one row per stored evaluation.
 *
 * The speedup column is the one a reader of the archive would quote: the
 * reported speedup against eager when there is one, else the one computed
 * from the archive's eager baseline, else any other stored speedup (the
 * store's quoted_speedup view; the replay columns: latest_replay_job).
 */
#include <stdlib.h>
#include <string.h>

#include "base/table.h"
#include "commands.h"
#include "select.h"
#include "store.h"

static const char usage[] =
	"usage: headroom ls [--level N] [--model M] [--source NAME]"
	" [--problem P]\n"
	"                   [--eval ID[,ID...]] [--format md|csv|json|tex]\n"
	"\n"
	"List stored evaluations, one row each, sorted by source, model,\n"
	"configuration (the config column), level, problem and sample.\n"
	"Columns: id, source, level, problem_id (1-based), problem_name (the\n"
	"archive's, else the stored problem's of that level and id), model,\n"
	"sample_id, compiled, correct, runtime_ms (as reported), speedup\n"
	"(reported vs eager, else computed from the archive's eager baseline,\n"
	"else any stored one), then the latest replay's replay_status (its\n"
	"verdict), replay_correct, replay_runtime_ms, replay_speedup and audit\n"
	"(its audit verdict: verified-faster, correct, correct-vacuous,\n"
	"exploit:FINDING, incorrect or failed:PHASE; empty when not replayed,\n"
	"or replayed before the audit existed), and config: the model\n"
	"configuration (one run of the model) as the reports name it, which\n"
	"tells two runs of one model apart.\n"
	"\n"
	EVALSEL_USAGE
	"  --db FILE         database (default ./headroom.db or $HEADROOM_DB)\n"
	"  --format F        md (default), csv, json or tex\n";

static const struct table_col cols[] = {
	{ "id", COL_INT }, { "source", COL_TEXT }, { "level", COL_INT },
	{ "problem_id", COL_INT }, { "problem_name", COL_TEXT },
	{ "model", COL_TEXT }, { "sample_id", COL_INT },
	{ "compiled", COL_BOOL }, { "correct", COL_BOOL },
	{ "runtime_ms", COL_REAL }, { "speedup", COL_REAL },
	{ "replay_status", COL_TEXT }, { "replay_correct", COL_BOOL },
	{ "replay_runtime_ms", COL_REAL }, { "replay_speedup", COL_REAL },
	{ "audit", COL_TEXT },
	{ "config", COL_TEXT },
};
#define NCOLS ((int)(sizeof(cols) / sizeof(cols[0])))

static const char query[] =
	"SELECT e.id, s.name, e.level, e.problem_id, "
	EVALSEL_PROBLEM_NAME_SQL ", e.model,"
	" e.sample_id, e.compiled, e.correct, e.runtime_ms,"
	" q.value,"
	" r.verdict, r.correct, r.runtime_ms, r.speedup, r.audit_verdict, "
	EVALSEL_CONFIG_SQL " AS config"
	" FROM evaluation e JOIN source s ON s.id = e.source_id"
	" JOIN quoted_speedup q ON q.evaluation_id = e.id"
	" JOIN latest_replay_job lj ON lj.evaluation_id = e.id"
	" LEFT JOIN replay_job r ON r.id = lj.job_id"
	" WHERE " EVALSEL_WHERE
	/* config (the last column), so that the rows of one run stay
	 * together */
	" ORDER BY s.name, e.model, config, e.level, e.problem_id,"
	" e.sample_id, e.id";

static int fill(struct store *s, struct table *t,
		const struct evalsel *sel, struct hr_err *e)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st;
	char num[NCOLS][64];
	const char *cells[NCOLS];
	int rc;

	if (sqlite3_prepare_v2(db, query, -1, &st, NULL) != SQLITE_OK)
		return store_db_err(db, NULL, e);
	if (evalsel_bind(sel, st) != SQLITE_OK) {
		store_db_err(db, NULL, e);
		sqlite3_finalize(st);
		return e->code;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (int c = 0; c < NCOLS; c++) {
			cells[c] = NULL;
			if (sqlite3_column_type(st, c) == SQLITE_NULL)
				continue;
			if (cols[c].type == COL_REAL) {
				table_fmt_real(num[c], sizeof(num[c]),
					       sqlite3_column_double(st, c));
				cells[c] = num[c];
			} else {
				cells[c] = (const char *)
					sqlite3_column_text(st, c);
			}
		}
		if (table_add_row(t, cells)) {
			sqlite3_finalize(st);
			return hr_errf(e, HR_SYSTEM, "out of memory");
		}
	}
	if (rc != SQLITE_DONE)
		store_db_err(db, NULL, e);
	sqlite3_finalize(st);
	return e->code;
}

int cmd_ls(int argc, char **argv, struct hr_global *g)
{
	static const struct option opts[] = {
		CLI_COMMON_OPTIONS,
		EVALSEL_OPTIONS,
		{ 0 }
	};
	struct evalsel sel = { 0 };
	struct hr_err e;
	struct store *s = NULL;
	struct table *t = NULL;
	char why[160];
	int c, r;

	hr_err_clear(&e);
	while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT, opts,
				NULL)) != -1) {
		r = cli_common_option(g, "ls", usage, c, argc, argv);
		if (r == CLI_NEXT)
			continue;
		if (r == CLI_OTHER) {
			r = evalsel_option(&sel, c, optarg, why, sizeof(why));
			if (r > 0)
				continue;
			r = r < 0 ? cli_usage_error("ls", "%s", why) : HR_USAGE;
		}
		evalsel_release(&sel);
		return r;
	}
	if (optind < argc) {
		evalsel_release(&sel);
		return cli_usage_error("ls", "unexpected argument '%s'",
				       argv[optind]);
	}
	if (store_open(&s, g->db_path, STORE_READ, &e) == HR_OK &&
	    !(t = table_new(cols, NCOLS)))
		hr_errf(&e, HR_SYSTEM, "out of memory");
	if (!e.code && fill(s, t, &sel, &e) == HR_OK)
		table_write(t, g->format, stdout);
	table_free(t);
	store_close(s);
	evalsel_release(&sel);
	return cli_report("ls", &e);
}
