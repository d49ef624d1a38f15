/* cmd_merge.c - `headroom merge OUT.db IN.db...`: join shard databases.
 *
 * Each `headroom replay --shard I/N` writes its own copy of the store; this
 * copies every replay run of each IN (and its jobs) into OUT, mapping
 * evaluations and problems by their natural keys (source hash + run +
 * model + level + problem + sample; problem file hash), not by row ids.  A run
 * already in OUT (same uuid) is skipped, so merging twice changes nothing.
 * When OUT does not exist it starts as a copy of the first IN without its
 * replay rows, which the merge then copies like any other's.  One
 * transaction per IN.  Every IN is checked before anything is written or
 * created: it exists, is a regular file, is not OUT itself, and the
 * tables the merge reads are tables (a view, recursive or not, is
 * refused); the merge's queries run on a budget of steps proportional to
 * the input's size.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../dataset/base/commands.h"
#include "../dataset/base/table.h"
#include "../dataset/store.h"

static const char usage[] =
	"usage: headroom merge OUT.db IN.db...\n"
	"\n"
	"Copy the replay runs and results of each IN.db (e.g. the databases of\n"
	"'headroom replay --shard I/N') into OUT.db.  Evaluations are matched\n"
	"by source hash, run, model, level, problem and sample.  Runs already in\n"
	"OUT.db are skipped.  A missing OUT.db starts as a copy of the first\n"
	"IN.db.  Prints one row per input: file, runs, jobs copied.\n";

static const char copy_runs[] =
	"INSERT INTO main.replay_run(uuid, state, mode, device, shard,"
	" settings_json, tool_version, started_at, finished_at, gpu_name,"
	" driver, cuda, torch, python, env_json)"
	" SELECT uuid, state, mode, device, shard, settings_json, tool_version,"
	" started_at, finished_at, gpu_name, driver, cuda, torch, python,"
	" env_json FROM src.replay_run r"
	" WHERE r.uuid NOT IN (SELECT uuid FROM main.replay_run) ORDER BY r.id";

/* Jobs of the runs just copied (their uuid now in main, id not yet mapped
 * to a job there). */
static const char copy_jobs[] =
	"INSERT INTO main.replay_job(run_id, evaluation_id, problem_ref,"
	" problem_match, state, verdict, compiled, correct, trials_passed,"
	" trials_total, runtime_ms, runtime_stats_json, baseline_kind,"
	" baseline_ms, baseline_stats_json, speedup, ci_low, ci_high, phase,"
	" error_kind, error_text, checks_json, build_log_tail,"
	" worker_stderr_tail, attempts, wall_ms, finished_at, audit_verdict,"
	" findings_json)"
	" SELECT mr.id, me.id,"
	"  (SELECT mp.id FROM main.problem mp JOIN src.problem sp"
	"    ON sp.sha256 = mp.sha256 AND sp.level = mp.level"
	"   AND sp.problem_id = mp.problem_id WHERE sp.id = j.problem_ref"
	"   ORDER BY mp.id LIMIT 1),"
	"  j.problem_match, j.state, j.verdict, j.compiled, j.correct,"
	"  j.trials_passed, j.trials_total, j.runtime_ms, j.runtime_stats_json,"
	"  j.baseline_kind, j.baseline_ms, j.baseline_stats_json, j.speedup,"
	"  j.ci_low, j.ci_high, j.phase, j.error_kind, j.error_text,"
	"  j.checks_json, j.build_log_tail, j.worker_stderr_tail, j.attempts,"
	"  j.wall_ms, j.finished_at, j.audit_verdict, j.findings_json"
	" FROM src.replay_job j"
	" JOIN src.replay_run sr ON sr.id = j.run_id"
	" JOIN main.replay_run mr ON mr.uuid = sr.uuid"
	" JOIN src.evaluation se ON se.id = j.evaluation_id"
	" JOIN src.source ss ON ss.id = se.source_id"
	" JOIN main.source ms ON ms.sha256 = ss.sha256 AND ms.kind = ss.kind"
	" JOIN main.evaluation me ON me.source_id = ms.id AND me.run = se.run"
	"  AND me.model = se.model"
	"  AND me.level = se.level AND me.problem_id = se.problem_id"
	"  AND me.sample_id = se.sample_id"
	" WHERE sr.uuid IN (SELECT value FROM json_each(?1)) ORDER BY j.id";

/* uuids of src runs missing from main, as a JSON array (sqlite3_free). */
static char *new_uuids(sqlite3 *db)
{
	sqlite3_stmt *st;
	char *out = NULL;

	if (sqlite3_prepare_v2(db, "SELECT json_group_array(uuid) FROM"
			       " src.replay_run WHERE uuid NOT IN"
			       " (SELECT uuid FROM main.replay_run)", -1, &st,
			       NULL) != SQLITE_OK)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW)
		out = sqlite3_mprintf("%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return out;
}

static int count_src_jobs(sqlite3 *db, const char *uuids, int *n)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, "SELECT count(*) FROM src.replay_job j JOIN"
			       " src.replay_run r ON r.id = j.run_id WHERE r.uuid"
			       " IN (SELECT value FROM json_each(?1))", -1, &st,
			       NULL) != SQLITE_OK)
		return -1;
	sqlite3_bind_text(st, 1, uuids, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	*n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

static int run_sql(sqlite3 *db, const char *sql, const char *bind, int *changes)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (bind)
		sqlite3_bind_text(st, 1, bind, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (changes)
		*changes = sqlite3_changes(db);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Virtual-machine steps allowed per byte of an input, and at least. */
#define STEPS_PER_BYTE 100
#define STEPS_MIN 100000000LL
#define STEP_CHUNK 1000

static int on_progress(void *arg)
{
	return --*(int64_t *)arg < 0;
}

/* The tables of an input the merge reads. */
static const char *const read_tables[] = {
	"replay_run", "replay_job", "evaluation", "source", "problem",
};

/* in, before anything is written: a regular file, not out, whose tables
 * are tables.  *size: its size in bytes. */
static int check_input(const char *in, const char *out, int64_t *size,
		       struct hr_err *e)
{
	struct stat si, so;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;

	if (stat(in, &si))
		return hr_errf(e, HR_INPUT, "%s: %s", in, strerror(errno));
	if (!S_ISREG(si.st_mode))
		return hr_errf(e, HR_INPUT, "%s: not a database file (%s)", in,
			       S_ISDIR(si.st_mode) ? "a directory" :
			       S_ISFIFO(si.st_mode) ? "a FIFO" :
			       "not a regular file");
	if (!stat(out, &so) && so.st_dev == si.st_dev &&
	    so.st_ino == si.st_ino)
		return hr_errf(e, HR_USAGE, "%s is the output database itself "
			       "(OUT.db must differ from every IN.db)", in);
	*size = (int64_t)si.st_size;
	if (sqlite3_open_v2(in, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT type FROM sqlite_schema WHERE"
			       " name = ?1 COLLATE NOCASE", -1, &st, NULL) !=
	    SQLITE_OK) {
		hr_errf(e, HR_INPUT, "%s: not a readable SQLite database: %s",
			in, db ? sqlite3_errmsg(db) : "out of memory");
		goto out;
	}
	for (size_t i = 0; i < sizeof(read_tables) / sizeof(*read_tables) &&
	     !e->code; i++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, read_tables[i], -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW && !e->code)
			if (strcmp((const char *)sqlite3_column_text(st, 0),
				   "table"))
				hr_errf(e, HR_INPUT, "%s: %s is a %s, not a "
					"table (not a headroom store)", in,
					read_tables[i],
					sqlite3_column_text(st, 0));
	}
out:
	sqlite3_finalize(st);
	sqlite3_close(db);
	return e->code;
}

/* Merge one input; *runs and *jobs say what was copied. */
static int merge_one(struct store *out, const char *in, int64_t size,
		     int *runs, int *jobs, struct hr_err *e)
{
	sqlite3 *db = store_db(out);
	struct store *probe;
	char *uuids = NULL;
	int want = 0;
	int64_t budget = (size * STEPS_PER_BYTE + STEPS_MIN) / STEP_CHUNK;

	*runs = *jobs = 0;
	/* Opening it read-only checks it is a headroom store of our schema. */
	if (store_open(&probe, in, STORE_READ, e))
		return e->code;
	store_close(probe);
	if (run_sql(db, "ATTACH ?1 AS src", in, NULL))
		return store_db_err(db, in, e);
	if (store_begin(out, e))
		goto detach;
	sqlite3_progress_handler(db, STEP_CHUNK, on_progress, &budget);
	if (!(uuids = new_uuids(db)) || count_src_jobs(db, uuids, &want) ||
	    run_sql(db, copy_runs, NULL, runs) ||
	    run_sql(db, copy_jobs, uuids, jobs)) {
		if (budget < 0)
			hr_errf(e, HR_INPUT, "%s: merging it took more steps "
				"than a store of its size can need (a hostile "
				"schema?)", in);
		else
			store_db_err(db, in, e);
		sqlite3_progress_handler(db, 0, NULL, NULL);
		store_rollback(out);
		goto detach;
	}
	sqlite3_progress_handler(db, 0, NULL, NULL);
	if (*jobs != want) {
		hr_errf(e, HR_INPUT, "%s: %d of its %d replay jobs name "
			"evaluations that %s does not hold; nothing merged from "
			"it", in, want - *jobs, want, "the output database");
		store_rollback(out);
		goto detach;
	}
	store_commit(out, e);
detach:
	sqlite3_free(uuids);
	run_sql(db, "DETACH src", NULL, NULL);
	return e->code;
}

/* OUT.db does not exist: start it as a copy of the first input. */
static int copy_first(const char *in, const char *out, struct hr_err *e)
{
	char what[512];
	sqlite3 *db;

	if (sqlite3_open_v2(in, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		store_db_err(db, in, e);
		sqlite3_close(db);
		return e->code;
	}
	if (run_sql(db, "VACUUM INTO ?1", out, NULL)) {
		snprintf(what, sizeof(what), "%s: copy to %s", in, out);
		store_db_err(db, what, e);
	}
	sqlite3_close(db);
	return e->code;
}

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
	int c, r;

	hr_err_clear(&e);
	while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT, opts, NULL)) != -1) {
		r = cli_common_option(g, "merge", usage, c, optarg);
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
		if (check_input(argv[i], argv[optind], &sizes[i], &e)) {
			free(sizes);
			return cli_report("merge", &e);
		}
	if (access(argv[optind], F_OK) != 0) {
		/* Migrate the input first, so the copy has our schema. */
		if (store_open(&out, argv[optind + 1], STORE_WRITE, &e) == HR_OK)
			store_close(out);
		out = NULL;
		if (e.code || copy_first(argv[optind + 1], argv[optind], &e)) {
			free(sizes);
			return cli_report("merge", &e);
		}
		if (store_open(&out, argv[optind], STORE_WRITE, &e) ||
		    store_begin(out, &e) ||
		    run_sql(store_db(out), "DELETE FROM replay_job", NULL, NULL) ||
		    run_sql(store_db(out), "DELETE FROM replay_run", NULL, NULL) ||
		    store_commit(out, &e)) {
			if (!e.code)
				store_db_err(store_db(out), argv[optind],
					     &e);
			store_close(out);
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
	return cli_report("merge", &e);
}
