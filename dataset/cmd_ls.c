/* cmd_ls.c - `headroom ls`: one row per stored evaluation.
 *
 * The speedup column is the one a reader of the archive would quote: the
 * reported speedup against eager when there is one, else the one computed
 * from the archive's eager baseline, else any other stored speedup.
 */
#include <stdlib.h>
#include <string.h>

#include "../report/commands.h"
#include "../report/table.h"
#include "store.h"

static const char usage[] =
	"usage: headroom ls [--level N] [--model M] [--format md|csv|json|tex]\n"
	"\n"
	"List stored evaluations, one row each, sorted by source, model,\n"
	"level, problem and sample.  Columns: id, source, level, problem_id\n"
	"(1-based), problem_name, model, sample_id, compiled, correct,\n"
	"runtime_ms (as reported), speedup (reported vs eager, else computed\n"
	"from the archive's eager baseline, else any stored one), then the\n"
	"latest replay's replay_status (its verdict), replay_correct,\n"
	"replay_runtime_ms, replay_speedup and audit (its audit verdict:\n"
	"verified-faster, correct, correct-vacuous, exploit:FINDING,\n"
	"incorrect or failed:PHASE; empty when not replayed, or replayed\n"
	"before the audit existed).\n"
	"\n"
	"  --level N     only level N\n"
	"  --model M     only model M (exact name)\n"
	"  --db FILE     database (default ./headroom.db or $HEADROOM_DB)\n"
	"  --format F    md (default), csv, json or tex\n";

static const struct table_col cols[] = {
	{ "id", COL_INT }, { "source", COL_TEXT }, { "level", COL_INT },
	{ "problem_id", COL_INT }, { "problem_name", COL_TEXT },
	{ "model", COL_TEXT }, { "sample_id", COL_INT },
	{ "compiled", COL_BOOL }, { "correct", COL_BOOL },
	{ "runtime_ms", COL_REAL }, { "speedup", COL_REAL },
	{ "replay_status", COL_TEXT }, { "replay_correct", COL_BOOL },
	{ "replay_runtime_ms", COL_REAL }, { "replay_speedup", COL_REAL },
	{ "audit", COL_TEXT },
};
#define NCOLS ((int)(sizeof(cols) / sizeof(cols[0])))

static const char query[] =
	"SELECT e.id, s.name, e.level, e.problem_id, e.problem_name, e.model,"
	" e.sample_id, e.compiled, e.correct, e.runtime_ms,"
	" (SELECT sp.value FROM speedup sp WHERE sp.evaluation_id = e.id"
	"   ORDER BY sp.baseline_kind = 'eager' DESC,"
	"            sp.origin = 'reported' DESC, sp.id LIMIT 1),"
	" r.verdict, r.correct, r.runtime_ms, r.speedup, r.audit_verdict"
	" FROM evaluation e JOIN source s ON s.id = e.source_id"
	" LEFT JOIN replay_job r ON r.id = (SELECT j.id FROM replay_job j"
	"   WHERE j.evaluation_id = e.id AND j.state = 'done'"
	"   ORDER BY j.finished_at DESC, j.id DESC LIMIT 1)"
	" WHERE (?1 IS NULL OR e.level = ?1) AND (?2 IS NULL OR e.model = ?2)"
	" ORDER BY s.name, e.model, e.level, e.problem_id, e.sample_id, e.id";

static int fill(struct store *s, struct table *t, int level,
		const char *model, struct hr_err *e)
{
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st;
	char num[NCOLS][64];
	const char *cells[NCOLS];
	int rc;

	if (sqlite3_prepare_v2(db, query, -1, &st, NULL) != SQLITE_OK)
		return hr_errf(e, HR_SYSTEM, "database: %s", sqlite3_errmsg(db));
	if (level > 0)
		sqlite3_bind_int(st, 1, level);
	if (model)
		sqlite3_bind_text(st, 2, model, -1, SQLITE_STATIC);
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
		hr_errf(e, HR_SYSTEM, "database: %s", sqlite3_errmsg(db));
	sqlite3_finalize(st);
	return e->code;
}

int cmd_ls(int argc, char **argv, struct hr_global *g)
{
	static const struct option opts[] = {
		CLI_COMMON_OPTIONS,
		{ "level", required_argument, NULL, 'l' },
		{ "model", required_argument, NULL, 'm' },
		{ 0 }
	};
	struct hr_err e;
	struct store *s;
	struct table *t;
	const char *model = NULL;
	int level = 0, c, r;
	char *end;

	hr_err_clear(&e);
	while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT "l:m:", opts,
				NULL)) != -1) {
		r = cli_common_option(g, "ls", usage, c, optarg);
		if (r == CLI_NEXT)
			continue;
		if (r != CLI_OTHER)
			return r;
		switch (c) {
		case 'l':
			level = (int)strtol(optarg, &end, 10);
			if (*end || level < 1)
				return cli_usage_error("ls", "--level wants a "
						       "positive integer, not "
						       "'%s'", optarg);
			break;
		case 'm':
			model = optarg;
			break;
		}
	}
	if (optind < argc)
		return cli_usage_error("ls", "unexpected argument '%s'",
				       argv[optind]);
	if (store_open(&s, g->db_path, STORE_READ, &e))
		return cli_report("ls", &e);
	if (!(t = table_new(cols, NCOLS))) {
		store_close(s);
		return HR_SYSTEM;
	}
	if (fill(s, t, level, model, &e) == HR_OK)
		table_write(t, g->format, stdout);
	table_free(t);
	store_close(s);
	return cli_report("ls", &e);
}
