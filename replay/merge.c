/* merge.c - see merge.h. */
#include "merge.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

int merge_run_sql(sqlite3 *db, const char *sql, const char *bind, int *changes)
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
int merge_check_input(const char *in, const char *out, int64_t *size,
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
int merge_one(struct store *out, const char *in, int64_t size,
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
	if (merge_run_sql(db, "ATTACH ?1 AS src", in, NULL))
		return store_db_err(db, in, e);
	if (store_begin(out, e))
		goto detach;
	sqlite3_progress_handler(db, STEP_CHUNK, on_progress, &budget);
	if (!(uuids = new_uuids(db)) || count_src_jobs(db, uuids, &want) ||
	    merge_run_sql(db, copy_runs, NULL, runs) ||
	    merge_run_sql(db, copy_jobs, uuids, jobs)) {
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
	merge_run_sql(db, "DETACH src", NULL, NULL);
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
	if (merge_run_sql(db, "VACUUM INTO ?1", out, NULL)) {
		snprintf(what, sizeof(what), "%s: copy to %s", in, out);
		store_db_err(db, what, e);
	}
	sqlite3_close(db);
	return e->code;
}

int merge_start_output(const char *in, const char *out, struct store **s,
		       struct hr_err *e)
{
	*s = NULL;
	/* Migrate the input first, so the copy has our schema. */
	if (store_open(s, in, STORE_WRITE, e) == HR_OK)
		store_close(*s);
	*s = NULL;
	if (e->code || copy_first(in, out, e))
		goto fail;
	if (store_open(s, out, STORE_WRITE, e) || store_begin(*s, e) ||
	    merge_run_sql(store_db(*s), "DELETE FROM replay_job", NULL,
			  NULL) ||
	    merge_run_sql(store_db(*s), "DELETE FROM replay_run", NULL,
			  NULL) ||
	    store_commit(*s, e)) {
		if (!e->code)
			store_db_err(store_db(*s), out, e);
		goto fail;
	}
	return HR_OK;
fail:
	store_close(*s);
	*s = NULL;
	merge_remove_output(out);
	return e->code;
}

void merge_remove_output(const char *out)
{
	char side[4096 + 8];

	unlink(out);
	snprintf(side, sizeof(side), "%s-wal", out);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", out);
	unlink(side);
	snprintf(side, sizeof(side), "%s-journal", out);
	unlink(side);
}
