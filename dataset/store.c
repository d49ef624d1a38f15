/* store.c - see store.h.
 *
 * The schema is a list of migrations; migration i takes user_version i to
 * i + 1.  Append new ones at the end, never edit a released one.
 */
#include "store.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "digest.h"
#include "base/clock.h"
#include "base/text.h"
#include "base/version.h"


static const char *const migrations[] = {
	/* 0 -> 1: the ingest schema. */
	"CREATE TABLE source("
	"  id INTEGER PRIMARY KEY,"
	"  name TEXT NOT NULL,"
	"  path TEXT NOT NULL,"
	"  kind TEXT NOT NULL,"
	"  sha256 TEXT NOT NULL,"
	"  map_name TEXT,"
	"  notes_json TEXT,"
	"  ingested_at TEXT NOT NULL,"
	"  tool_version TEXT NOT NULL,"
	"  UNIQUE(sha256, kind)"
	") STRICT;"
	"CREATE TABLE kernel("
	"  id INTEGER PRIMARY KEY,"
	"  sha256 TEXT NOT NULL UNIQUE,"
	"  code TEXT NOT NULL"
	") STRICT;"
	"CREATE TABLE problem_set("
	"  id INTEGER PRIMARY KEY,"
	"  source_id INTEGER NOT NULL REFERENCES source(id),"
	"  name TEXT NOT NULL"
	") STRICT;"
	"CREATE TABLE problem("
	"  id INTEGER PRIMARY KEY,"
	"  set_id INTEGER NOT NULL REFERENCES problem_set(id),"
	"  level INTEGER NOT NULL,"
	"  problem_id INTEGER NOT NULL,"
	"  name TEXT NOT NULL,"
	"  file_name TEXT NOT NULL,"
	"  sha256 TEXT NOT NULL,"
	"  code TEXT NOT NULL,"
	"  UNIQUE(set_id, level, problem_id)"
	") STRICT;"
	"CREATE INDEX problem_by_sha ON problem(sha256);"
	"CREATE TABLE evaluation("
	"  id INTEGER PRIMARY KEY,"
	"  source_id INTEGER NOT NULL REFERENCES source(id),"
	"  run TEXT NOT NULL,"
	"  model TEXT NOT NULL,"
	"  level INTEGER NOT NULL,"
	"  problem_id INTEGER NOT NULL,"
	"  problem_id_base INTEGER NOT NULL CHECK(problem_id_base IN (0, 1)),"
	"  problem_name TEXT,"
	"  sample_id INTEGER NOT NULL,"
	"  kernel_id INTEGER REFERENCES kernel(id),"
	"  hardware TEXT,"
	"  precision TEXT,"
	"  atol REAL,"
	"  rtol REAL,"
	"  harness TEXT,"
	"  compiled INTEGER CHECK(compiled IN (0, 1)),"
	"  correct INTEGER CHECK(correct IN (0, 1)),"
	"  runtime_ms REAL,"
	"  runtime_std_ms REAL,"
	"  runtime_min_ms REAL,"
	"  runtime_max_ms REAL,"
	"  num_trials INTEGER,"
	"  correct_trials_passed INTEGER,"
	"  correct_trials_total INTEGER,"
	"  error_kind TEXT,"
	"  error_text TEXT,"
	"  unit_assumed TEXT,"
	"  record_ref TEXT NOT NULL,"
	"  metadata_json TEXT,"
	"  UNIQUE(source_id, run, model, level, problem_id, sample_id)"
	") STRICT;"
	"CREATE INDEX evaluation_by_model ON evaluation(model, level, problem_id);"
	"CREATE TABLE speedup("
	"  id INTEGER PRIMARY KEY,"
	"  evaluation_id INTEGER NOT NULL REFERENCES evaluation(id),"
	"  baseline_kind TEXT NOT NULL,"
	"  baseline_ms REAL,"
	"  value REAL NOT NULL,"
	"  origin TEXT NOT NULL CHECK(origin IN ('reported', 'computed')),"
	"  baseline_ref TEXT,"
	"  UNIQUE(evaluation_id, baseline_kind, origin)"
	") STRICT;"
	"CREATE TABLE baseline("
	"  id INTEGER PRIMARY KEY,"
	"  source_id INTEGER NOT NULL REFERENCES source(id),"
	"  hardware_dir TEXT NOT NULL,"
	"  baseline_kind TEXT NOT NULL,"
	"  level INTEGER NOT NULL,"
	"  problem_file TEXT NOT NULL,"
	"  mean_ms REAL,"
	"  std_ms REAL,"
	"  min_ms REAL,"
	"  max_ms REAL,"
	"  num_trials INTEGER,"
	"  hardware TEXT,"
	"  device TEXT,"
	"  UNIQUE(source_id, hardware_dir, baseline_kind, level, problem_file)"
	") STRICT;",
	/* 1 -> 2: what running each reference once showed (headroom audit
	 * problems): output magnitude and which degenerate outputs would pass
	 * the original check under each tolerance preset. */
	"CREATE TABLE problem_audit("
	"  id INTEGER PRIMARY KEY,"
	"  problem_sha256 TEXT NOT NULL,"
	"  level INTEGER NOT NULL,"
	"  problem_id INTEGER NOT NULL,"
	"  name TEXT NOT NULL,"
	"  device TEXT NOT NULL,"
	"  dtype TEXT NOT NULL,"
	"  seed INTEGER NOT NULL,"
	"  output_shape TEXT NOT NULL,"
	"  output_numel INTEGER NOT NULL,"
	"  max_abs_ref REAL,"
	"  rms_ref REAL,"
	"  gates_json TEXT NOT NULL,"
	"  audited_at TEXT NOT NULL,"
	"  tool_version TEXT NOT NULL,"
	"  UNIQUE(problem_sha256, device, dtype)"
	") STRICT;",
	/* 2 -> 3 (replay): one row per `headroom replay` (provenance) and one per
	 * evaluation it replays; replay/ is the only writer (replay/jobs.h). */
	"CREATE TABLE replay_run("
	"  id INTEGER PRIMARY KEY,"
	"  uuid TEXT NOT NULL UNIQUE,"
	"  state TEXT NOT NULL"
	"    CHECK(state IN ('running', 'finished', 'interrupted')),"
	"  mode TEXT NOT NULL CHECK(mode IN ('faithful', 'robust')),"
	"  device TEXT NOT NULL,"
	"  shard TEXT,"
	"  settings_json TEXT NOT NULL,"
	"  tool_version TEXT NOT NULL,"
	"  started_at TEXT NOT NULL,"
	"  finished_at TEXT,"
	"  gpu_name TEXT,"
	"  driver TEXT,"
	"  cuda TEXT,"
	"  torch TEXT,"
	"  python TEXT,"
	"  env_json TEXT"
	") STRICT;"
	"CREATE TABLE replay_job("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES replay_run(id),"
	"  evaluation_id INTEGER NOT NULL REFERENCES evaluation(id),"
	"  problem_ref INTEGER REFERENCES problem(id),"
	"  problem_match TEXT,"
	"  state TEXT NOT NULL CHECK(state IN ('pending', 'done')),"
	"  verdict TEXT CHECK(verdict IN ('no_problem', 'no_kernel',"
	"    'problem_error', 'compile_error', 'runtime_error', 'timeout',"
	"    'crashed', 'incorrect', 'correct')),"
	"  compiled INTEGER CHECK(compiled IN (0, 1)),"
	"  correct INTEGER CHECK(correct IN (0, 1)),"
	"  trials_passed INTEGER,"
	"  trials_total INTEGER,"
	"  runtime_ms REAL,"
	"  runtime_stats_json TEXT,"
	"  baseline_kind TEXT,"
	"  baseline_ms REAL,"
	"  baseline_stats_json TEXT,"
	"  speedup REAL,"
	"  ci_low REAL,"
	"  ci_high REAL,"
	"  phase TEXT,"
	"  error_kind TEXT,"
	"  error_text TEXT,"
	"  checks_json TEXT,"
	"  build_log_tail TEXT,"
	"  worker_stderr_tail TEXT,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  wall_ms REAL,"
	"  finished_at TEXT,"
	"  UNIQUE(run_id, evaluation_id)"
	") STRICT;"
	"CREATE INDEX replay_job_by_evaluation ON replay_job(evaluation_id);"
	"CREATE INDEX replay_job_by_state ON replay_job(run_id, state);",
	/* 3 -> 4 (audit): each job's audit verdict (replay/verdict.h) and its
	 * findings, {"evidence": [...], "signals": [...], "why": "..."};
	 * NULL for jobs stored before the audit existed. */
	"ALTER TABLE replay_job ADD COLUMN audit_verdict TEXT;"
	"ALTER TABLE replay_job ADD COLUMN findings_json TEXT;",
	/* 4 -> 5 (profiles): one row per ingested profiler trace and one per
	 * (activity kind, kernel name) in it, summed over its calls; the kernel
	 * class is not stored, so that editing the rule file re-classifies
	 * without re-ingesting (profile/trace.h writes these). */
	"CREATE TABLE profile("
	"  id INTEGER PRIMARY KEY,"
	"  source_id INTEGER NOT NULL UNIQUE REFERENCES source(id),"
	"  workload TEXT NOT NULL,"
	"  domain TEXT,"
	"  stack TEXT,"
	"  format TEXT NOT NULL CHECK(format IN ('chrome', 'nsys')),"
	"  device TEXT,"
	"  activities INTEGER NOT NULL,"
	"  kernel_ns INTEGER NOT NULL,"
	"  busy_ns INTEGER NOT NULL,"
	"  span_ns INTEGER NOT NULL,"
	"  notes_json TEXT"
	") STRICT;"
	"CREATE TABLE profile_kernel("
	"  profile_id INTEGER NOT NULL REFERENCES profile(id),"
	"  kind TEXT NOT NULL CHECK(kind IN ('kernel', 'memcpy', 'memset')),"
	"  name TEXT NOT NULL,"
	"  calls INTEGER NOT NULL,"
	"  total_ns INTEGER NOT NULL,"
	"  max_ns INTEGER NOT NULL,"
	"  PRIMARY KEY(profile_id, kind, name)"
	") STRICT;",
	/* 5 -> 6 (replay): the job verdict needs_gpu, a CPU run's skip of a
	 * candidate that compiles CUDA or Triton code (replay/jobs.c).  SQLite
	 * cannot change a CHECK in place: the table is rebuilt (same columns,
	 * same order, rows copied, indexes made again). */
	"CREATE TABLE replay_job_6("
	"  id INTEGER PRIMARY KEY,"
	"  run_id INTEGER NOT NULL REFERENCES replay_run(id),"
	"  evaluation_id INTEGER NOT NULL REFERENCES evaluation(id),"
	"  problem_ref INTEGER REFERENCES problem(id),"
	"  problem_match TEXT,"
	"  state TEXT NOT NULL CHECK(state IN ('pending', 'done')),"
	"  verdict TEXT CHECK(verdict IN ('no_problem', 'no_kernel',"
	"    'needs_gpu', 'problem_error', 'compile_error', 'runtime_error',"
	"    'timeout', 'crashed', 'incorrect', 'correct')),"
	"  compiled INTEGER CHECK(compiled IN (0, 1)),"
	"  correct INTEGER CHECK(correct IN (0, 1)),"
	"  trials_passed INTEGER,"
	"  trials_total INTEGER,"
	"  runtime_ms REAL,"
	"  runtime_stats_json TEXT,"
	"  baseline_kind TEXT,"
	"  baseline_ms REAL,"
	"  baseline_stats_json TEXT,"
	"  speedup REAL,"
	"  ci_low REAL,"
	"  ci_high REAL,"
	"  phase TEXT,"
	"  error_kind TEXT,"
	"  error_text TEXT,"
	"  checks_json TEXT,"
	"  build_log_tail TEXT,"
	"  worker_stderr_tail TEXT,"
	"  attempts INTEGER NOT NULL DEFAULT 0,"
	"  wall_ms REAL,"
	"  finished_at TEXT,"
	"  audit_verdict TEXT,"
	"  findings_json TEXT,"
	"  UNIQUE(run_id, evaluation_id)"
	") STRICT;"
	"INSERT INTO replay_job_6 SELECT * FROM replay_job;"
	"DROP TABLE replay_job;"
	"ALTER TABLE replay_job_6 RENAME TO replay_job;"
	"CREATE INDEX replay_job_by_evaluation ON replay_job(evaluation_id);"
	"CREATE INDEX replay_job_by_state ON replay_job(run_id, state);",
	/* 6 -> 7: the read rules more than one command applies, each written
	 * once.  quoted_speedup: the speedup a reader of the archive would
	 * quote for an evaluation, the reported one against eager when there
	 * is one, else one computed from an eager baseline, else any other
	 * (NULL when none is stored).  latest_replay_job: the evaluation's
	 * newest finished replay job (NULL when none). */
	"CREATE VIEW quoted_speedup(evaluation_id, value) AS"
	" SELECT e.id, (SELECT sp.value FROM speedup sp"
	"   WHERE sp.evaluation_id = e.id"
	"   ORDER BY sp.baseline_kind = 'eager' DESC,"
	"            sp.origin = 'reported' DESC, sp.id LIMIT 1)"
	" FROM evaluation e;"
	"CREATE VIEW latest_replay_job(evaluation_id, job_id) AS"
	" SELECT e.id, (SELECT j.id FROM replay_job j"
	"   WHERE j.evaluation_id = e.id AND j.state = 'done'"
	"   ORDER BY j.finished_at DESC, j.id DESC LIMIT 1)"
	" FROM evaluation e;",
	/* 7 -> 8: the torch the audit's worker ran the reference under (its
	 * hello); NULL for audits stored before. */
	"ALTER TABLE problem_audit ADD COLUMN torch TEXT;",
};

#define N_MIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

enum stmt_id {
	ST_SOURCE_FIND, ST_SOURCE_ADD, ST_KERNEL_FIND, ST_KERNEL_ADD,
	ST_SET_ADD, ST_PROBLEM_ADD, ST_EVAL_ADD, ST_EVAL_FIND, ST_SPEEDUP_ADD,
	ST_BASELINE_ADD, ST_SOURCE_NOTES, ST_AUDIT_PUT, ST_PROBLEM_FIND,
	ST_COUNT
};

static const char *const stmt_sql[ST_COUNT] = {
	[ST_SOURCE_FIND] = "SELECT id FROM source WHERE sha256 = ?1 AND kind = ?2",
	[ST_SOURCE_ADD] = "INSERT INTO source(name, path, kind, sha256, map_name,"
		" notes_json, ingested_at, tool_version)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
	[ST_KERNEL_FIND] = "SELECT id FROM kernel WHERE sha256 = ?1",
	[ST_KERNEL_ADD] = "INSERT INTO kernel(sha256, code) VALUES (?1, ?2)",
	[ST_SET_ADD] = "INSERT INTO problem_set(source_id, name) VALUES (?1, ?2)",
	[ST_PROBLEM_ADD] = "INSERT INTO problem(set_id, level, problem_id, name,"
		" file_name, sha256, code) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
	[ST_EVAL_ADD] = "INSERT INTO evaluation(source_id, run, model, level,"
		" problem_id, problem_id_base, problem_name, sample_id, kernel_id,"
		" hardware, precision, atol, rtol, harness, compiled, correct,"
		" runtime_ms, runtime_std_ms, runtime_min_ms, runtime_max_ms,"
		" num_trials, correct_trials_passed, correct_trials_total,"
		" error_kind, error_text, unit_assumed, record_ref, metadata_json)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
		" ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26,"
		" ?27, ?28)",
	[ST_EVAL_FIND] = "SELECT record_ref FROM evaluation WHERE source_id = ?1"
		" AND run = ?2 AND level = ?3 AND problem_id = ?4 AND sample_id = ?5"
		" AND model = ?6",
	[ST_SPEEDUP_ADD] = "INSERT INTO speedup(evaluation_id, baseline_kind,"
		" baseline_ms, value, origin, baseline_ref)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
	[ST_AUDIT_PUT] = "INSERT OR REPLACE INTO problem_audit(problem_sha256,"
		" level, problem_id, name, device, dtype, seed, output_shape,"
		" output_numel, max_abs_ref, rms_ref, gates_json, audited_at,"
		" tool_version, torch) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8,"
		" ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
	[ST_BASELINE_ADD] = "INSERT INTO baseline(source_id, hardware_dir,"
		" baseline_kind, level, problem_file, mean_ms, std_ms, min_ms,"
		" max_ms, num_trials, hardware, device)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
	[ST_SOURCE_NOTES] = "UPDATE source SET notes_json = ?2 WHERE id = ?1",
	[ST_PROBLEM_FIND] = "SELECT id, sha256 FROM problem"
		" WHERE set_id = ?1 AND level = ?2 AND problem_id = ?3",
};

struct store {
	sqlite3 *db;
	char *path;                 /* as opened, for messages (owned) */
	int version;                /* user_version last read */
	int wal;                    /* journal_mode is known to be WAL */
	int adopt;                  /* STORE_ADOPT: a foreign database is ok */
	int foreign;                /* identify found someone else's tables */
	sqlite3_stmt *st[ST_COUNT]; /* prepared lazily, finalized on close */
};

int store_db_err(sqlite3 *db, const char *what, struct hr_err *e)
{
	if (what)
		return hr_errf(e, HR_SYSTEM, "database: %s: %s", what,
			       sqlite3_errmsg(db));
	return hr_errf(e, HR_SYSTEM, "database: %s", sqlite3_errmsg(db));
}

int store_each(sqlite3 *db, const char *sql,
	       int (*row)(sqlite3_stmt *st, void *arg, struct hr_err *e),
	       void *arg, struct hr_err *e)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_db_err(db, NULL, e);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (row(st, arg, e))
			break;
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		store_db_err(db, NULL, e);
	sqlite3_finalize(st);
	return e->code;
}

static int exec(struct store *s, const char *sql, struct hr_err *e)
{
	char *msg = NULL;

	if (sqlite3_exec(s->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		hr_errf(e, HR_SYSTEM, "database: %s", msg ? msg : "error");
		sqlite3_free(msg);
		return e->code;
	}
	return HR_OK;
}

static int pragma_int(struct store *s, const char *sql, int *out)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : -1;
}

/* What the file is, read without changing it: our application_id and a
 * schema this build knows, or an empty database (a new or 0-byte file),
 * else HR_INPUT.  A database with tables but neither our application_id
 * nor a user_version is someone else's: writing our schema into it would
 * change a file we were never asked to own. */
static int identify(struct store *s, struct hr_err *e)
{
	int version = 0, app = 0, tables = 0;

	if (pragma_int(s, "PRAGMA application_id", &app) ||
	    pragma_int(s, "PRAGMA user_version", &version) ||
	    pragma_int(s, "SELECT count(*) FROM sqlite_schema", &tables))
		return hr_errf(e, HR_INPUT, "%s: not a readable SQLite "
			       "database: %s", s->path, sqlite3_errmsg(s->db));
	if (app != 0 && app != HR_APPLICATION_ID)
		return hr_errf(e, HR_INPUT, "%s: not a headroom database "
			       "(application_id %d)", s->path, app);
	if (app == 0 && version != 0)
		return hr_errf(e, HR_INPUT, "%s: not a headroom database "
			       "(user_version %d, no application_id)", s->path,
			       version);
	s->foreign = app == 0 && tables != 0;
	if (s->foreign && !s->adopt)
		return hr_errf(e, HR_INPUT, "%s: not a headroom database (an "
			       "SQLite database with tables of its own and no "
			       "headroom application_id: left unchanged; "
			       "'headroom ingest --adopt' adds headroom's "
			       "tables beside them)", s->path);
	if (version < 0)
		return hr_errf(e, HR_INPUT, "%s: schema version %d is none "
			       "headroom writes (left unchanged)", s->path,
			       version);
	if (version > N_MIGRATIONS)
		return hr_errf(e, HR_INPUT, "%s: schema version %d is newer than "
			       "this headroom (%d); upgrade headroom", s->path,
			       version, N_MIGRATIONS);
	s->version = version;
	return HR_OK;
}

/* Inside a write transaction: bring the schema to the current version.
 * The version is read again under the lock, as another process may have
 * migrated the file since it was opened. */
static int migrate_locked(struct store *s, struct hr_err *e)
{
	char sql[64];

	if (identify(s, e))
		return e->code;
	if (s->version == N_MIGRATIONS)
		return HR_OK;
	for (int v = s->version; v < N_MIGRATIONS; v++) {
		if (!exec(s, migrations[v], e))
			continue;
		/* An adopted database's own table or index of one of our
		 * names: its content, not our failure. */
		if (s->foreign) {
			char why[sizeof(e->msg)];

			snprintf(why, sizeof(why), "%s", e->msg);
			hr_err_clear(e);
			return hr_errf(e, HR_INPUT, "%s: cannot adopt this "
				       "database: %s (left unchanged)",
				       s->path, why);
		}
		return hr_err_prefix(e, "%s: migration %d", s->path, v + 1);
	}
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", N_MIGRATIONS);
	if (exec(s, sql, e))
		return e->code;
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d",
		 HR_APPLICATION_ID);
	if (exec(s, sql, e))
		return e->code;
	s->version = N_MIGRATIONS;
	return HR_OK;
}

/* WAL once the file holds a committed headroom schema: switching earlier
 * would rewrite the header of a file whose ingest may still be refused.
 * A refusal (another connection holds the file) is not an error: the next
 * commit tries again. */
static void ensure_wal(struct store *s)
{
	sqlite3_stmt *st;

	if (s->wal || !sqlite3_get_autocommit(s->db) ||
	    sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st,
			       NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW)
		s->wal = !strcmp((const char *)sqlite3_column_text(st, 0),
				 "wal");
	sqlite3_finalize(st);
}

int store_schema_version(void)
{
	return N_MIGRATIONS;
}

mode_t store_file_mode(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat sb;

	if (slash == path) {
		snprintf(dir, sizeof(dir), "/");
	} else if (slash && (size_t)(slash - path) < sizeof(dir)) {
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
	} else {
		snprintf(dir, sizeof(dir), ".");
	}
	return !stat(dir, &sb) && (sb.st_mode & S_ISGID) ? 0640 : 0600;
}

/* A store that does not exist yet is made here, empty (SQLite takes an
 * empty file for an empty database), with store_file_mode's mode; SQLite
 * gives its -wal and -shm the same. */
static int create_private(const char *path, struct hr_err *e)
{
	int fd;

	/* SQLite's in-memory database is no file (the fuzz targets' store). */
	if (!strcmp(path, ":memory:") || !*path)
		return HR_OK;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		  store_file_mode(path));

	if (fd < 0 && errno != EEXIST)
		return hr_errf(e, HR_SYSTEM, "%s: cannot create the store: %s",
			       path, strerror(errno));
	if (fd >= 0)
		close(fd);
	return HR_OK;
}

int store_open(struct store **out, const char *path, enum store_open_mode mode,
	       struct hr_err *e)
{
	struct store *s = calloc(1, sizeof(*s));
	int adopt = (mode & STORE_ADOPT) != 0, flags;
	struct stat st;

	mode &= ~STORE_ADOPT;
	flags = mode == STORE_READ ? SQLITE_OPEN_READONLY :
		SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	*out = NULL;
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	s->adopt = adopt && mode != STORE_READ;
	/* SQLite says only "disk I/O error" of a folder. */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		hr_errf(e, HR_INPUT, "%s: a folder, not a database file (--db "
			"names the file, e.g. %s/headroom.db)", path, path);
		goto fail;
	}
	if (mode != STORE_READ && create_private(path, e))
		goto fail;
	if (sqlite3_open_v2(path, &s->db, flags, NULL) != SQLITE_OK) {
		hr_errf(e, mode == STORE_READ ? HR_INPUT : HR_SYSTEM,
			"%s: cannot open database: %s%s", path,
			s->db ? sqlite3_errmsg(s->db) : "out of memory",
			mode == STORE_READ ? " (run 'headroom ingest' first)" : "");
		goto fail;
	}
	sqlite3_busy_timeout(s->db, 10000);
	sqlite3_extended_result_codes(s->db, 1);
	if (exec(s, "PRAGMA foreign_keys = ON", e))
		goto fail;
	/* Nothing above writes to the file; identify only reads. */
	if (identify(s, e))
		goto fail;
	if (mode == STORE_READ) {
		if (s->version != N_MIGRATIONS) {
			hr_errf(e, HR_INPUT, "%s: %s, this headroom reads "
				"schema %d (open it once for writing, e.g. "
				"'headroom ingest', to migrate)", path,
				s->version ? "an older schema" :
				"not a headroom database", N_MIGRATIONS);
			goto fail;
		}
	} else {
		if (exec(s, "PRAGMA synchronous = NORMAL", e))
			goto fail;
		if (mode == STORE_WRITE &&
		    (store_begin(s, e) || store_commit(s, e)))
			goto fail;
	}
	*out = s;
	return HR_OK;
fail:
	store_close(s);
	return e->code;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

sqlite3 *store_db(struct store *s)
{
	return s->db;
}

char *store_col_dup(sqlite3_stmt *st, int col, const char *if_null)
{
	const unsigned char *t = sqlite3_column_text(st, col);

	if (!t && !if_null)
		return NULL;
	return strdup(t ? (const char *)t : if_null);
}

int store_has_table(sqlite3 *db, const char *pattern)
{
	sqlite3_stmt *st;
	int found;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE"
			       " type = 'table' AND name GLOB ?1", -1, &st,
			       NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, pattern, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

int store_begin(struct store *s, struct hr_err *e)
{
	if (exec(s, "BEGIN IMMEDIATE", e))
		return hr_err_prefix(e, "%s", s->path);
	if (migrate_locked(s, e)) {
		store_rollback(s);
		return e->code;
	}
	return HR_OK;
}

int store_commit(struct store *s, struct hr_err *e)
{
	if (exec(s, "COMMIT", e))
		return hr_err_prefix(e, "%s", s->path);
	ensure_wal(s);
	return HR_OK;
}

void store_rollback(struct store *s)
{
	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

static sqlite3_stmt *stmt(struct store *s, enum stmt_id id, struct hr_err *e)
{
	if (!s->st[id] && sqlite3_prepare_v3(s->db, stmt_sql[id], -1,
					     SQLITE_PREPARE_PERSISTENT,
					     &s->st[id], NULL) != SQLITE_OK) {
		store_db_err(s->db, "prepare", e);
		return NULL;
	}
	sqlite3_reset(s->st[id]);
	sqlite3_clear_bindings(s->st[id]);
	return s->st[id];
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, i);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

/* Bind an int where a negative value means unknown. */
static void bind_opt_int(sqlite3_stmt *st, int i, int v)
{
	if (v < 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int(st, i, v);
}

static void bind_opt_id(sqlite3_stmt *st, int i, int64_t v)
{
	if (v <= 0)
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_int64(st, i, v);
}

/* Step a statement that returns no rows and make it reusable; the step's
 * result code (SQLITE_DONE, or e.g. SQLITE_CONSTRAINT_UNIQUE). */
static int step_reset(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);

	sqlite3_reset(st);
	return rc;
}

/* Step a statement that returns no rows. */
static int step_done(struct store *s, sqlite3_stmt *st, const char *what,
		     struct hr_err *e)
{
	int rc = step_reset(st);

	if (rc != SQLITE_DONE)
		return store_db_err(s->db, what, e);
	return HR_OK;
}

/* Look up one integer id; 0 when there is no row. */
static int find_id(struct store *s, sqlite3_stmt *st, int64_t *id,
		   struct hr_err *e)
{
	int rc = sqlite3_step(st);

	*id = 0;
	if (rc == SQLITE_ROW)
		*id = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_DONE)
		return store_db_err(s->db, "lookup", e);
	sqlite3_reset(st);
	return HR_OK;
}

/* Names are printed in tables on a terminal: a control character in one
 * (an escape sequence in a model name) is refused where it enters, for
 * every reader at once.  Code and error texts may hold newlines and tabs;
 * they are shown escaped instead (cmd_show). */
static int check_label(const char *ref, const char *key, const char *v,
		       struct hr_err *e)
{
	size_t len, bad;

	if (!v)
		return HR_OK;
	len = strlen(v);
	if ((bad = text_control_at(v, len)) == len)
		return HR_OK;
	return hr_errf(e, HR_INPUT, "%s: %s: control character 0x%02x at "
		       "byte %zu (refused in a name)", ref, key,
		       (unsigned char)v[bad], bad);
}

int store_add_source(struct store *s, const struct store_source *src,
		     int64_t *id, int *existed, struct hr_err *e)
{
	sqlite3_stmt *st = stmt(s, ST_SOURCE_FIND, e);
	char now[32];

	*existed = 0;
	if (!st)
		return e->code;
	bind_text(st, 1, src->sha256);
	bind_text(st, 2, src->kind);
	if (find_id(s, st, id, e))
		return e->code;
	if (*id) {
		*existed = 1;
		return HR_OK;
	}
	if (check_label(src->path, "source name", src->name, e) ||
	    !(st = stmt(s, ST_SOURCE_ADD, e)))
		return e->code;
	clock_utc_now(now, sizeof(now));
	bind_text(st, 1, src->name);
	bind_text(st, 2, src->path);
	bind_text(st, 3, src->kind);
	bind_text(st, 4, src->sha256);
	bind_text(st, 5, src->map_name);
	bind_text(st, 6, src->notes_json);
	bind_text(st, 7, src->ingested_at ? src->ingested_at : now);
	bind_text(st, 8, src->tool_version ? src->tool_version : hr_version());
	if (step_done(s, st, "insert source", e))
		return e->code;
	*id = sqlite3_last_insert_rowid(s->db);
	return HR_OK;
}

int store_set_source_notes(struct store *s, int64_t id,
			   const char *notes_json, struct hr_err *e)
{
	sqlite3_stmt *st = stmt(s, ST_SOURCE_NOTES, e);

	if (!st)
		return e->code;
	sqlite3_bind_int64(st, 1, id);
	bind_text(st, 2, notes_json);
	return step_done(s, st, "update source notes", e);
}

int store_add_kernel(struct store *s, const char *code, int64_t *id,
		     struct hr_err *e)
{
	char sha[HR_SHA256_HEX];
	sqlite3_stmt *st;

	if (hr_sha256_hex(code, strlen(code), sha))
		return hr_errf(e, HR_SYSTEM, "sha256 failed");
	if (!(st = stmt(s, ST_KERNEL_FIND, e)))
		return e->code;
	bind_text(st, 1, sha);
	if (find_id(s, st, id, e) || *id)
		return e->code;
	if (!(st = stmt(s, ST_KERNEL_ADD, e)))
		return e->code;
	bind_text(st, 1, sha);
	bind_text(st, 2, code);
	if (step_done(s, st, "insert kernel", e))
		return e->code;
	*id = sqlite3_last_insert_rowid(s->db);
	return HR_OK;
}

int store_add_problem_set(struct store *s, int64_t source_id,
			  const char *name, int64_t *id, struct hr_err *e)
{
	sqlite3_stmt *st = stmt(s, ST_SET_ADD, e);

	if (!st)
		return e->code;
	sqlite3_bind_int64(st, 1, source_id);
	bind_text(st, 2, name);
	if (step_done(s, st, "insert problem set", e))
		return e->code;
	*id = sqlite3_last_insert_rowid(s->db);
	return HR_OK;
}

int store_add_problem(struct store *s, const struct store_problem *p,
		      int64_t *id, struct hr_err *e)
{
	char sha[HR_SHA256_HEX];
	sqlite3_stmt *st = stmt(s, ST_PROBLEM_ADD, e);
	int rc;

	if (!st)
		return e->code;
	if (hr_sha256_hex(p->code, strlen(p->code), sha))
		return hr_errf(e, HR_SYSTEM, "sha256 failed");
	sqlite3_bind_int64(st, 1, p->set_id);
	sqlite3_bind_int(st, 2, p->level);
	sqlite3_bind_int(st, 3, p->problem_id);
	bind_text(st, 4, p->name);
	bind_text(st, 5, p->file_name);
	bind_text(st, 6, sha);
	bind_text(st, 7, p->code);
	rc = step_reset(st);
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		return hr_errf(e, HR_INPUT, "%s: duplicate problem: level %d "
			       "problem %d appears twice", p->file_name,
			       p->level, p->problem_id);
	if (rc != SQLITE_DONE)
		return store_db_err(s->db, "insert problem", e);
	*id = sqlite3_last_insert_rowid(s->db);
	return HR_OK;
}

int store_find_problem(struct store *s, int64_t set_id, int level,
		       int problem_id, int64_t *id, char sha[HR_SHA256_HEX],
		       struct hr_err *e)
{
	sqlite3_stmt *st = stmt(s, ST_PROBLEM_FIND, e);
	int rc, found = 0;

	if (!st)
		return e->code;
	sqlite3_bind_int64(st, 1, set_id);
	sqlite3_bind_int(st, 2, level);
	sqlite3_bind_int(st, 3, problem_id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		found = 1;
		*id = sqlite3_column_int64(st, 0);
		snprintf(sha, HR_SHA256_HEX, "%s",
			 (const char *)sqlite3_column_text(st, 1));
	} else if (rc != SQLITE_DONE) {
		store_db_err(s->db, "find problem", e);
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return e->code ? e->code : found;
}

/* Name the earlier record that a duplicate collides with. */
static int duplicate_eval(struct store *s, const struct store_eval *ev,
			  struct hr_err *e)
{
	sqlite3_stmt *st = stmt(s, ST_EVAL_FIND, e);
	const char *prev = "an earlier record";

	if (!st)
		return e->code;
	sqlite3_bind_int64(st, 1, ev->source_id);
	bind_text(st, 2, ev->run);
	sqlite3_bind_int(st, 3, ev->level);
	sqlite3_bind_int(st, 4, ev->problem_id);
	sqlite3_bind_int(st, 5, ev->sample_id);
	bind_text(st, 6, ev->model);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		prev = (const char *)sqlite3_column_text(st, 0);
	hr_errf(e, HR_INPUT, "%s: duplicate record: run '%s' level %d problem "
		"%d sample %d is also at %s", ev->record_ref, ev->run,
		ev->level, ev->problem_id, ev->sample_id, prev);
	sqlite3_reset(st);
	return e->code;
}

static int check_eval_labels(const struct store_eval *ev, struct hr_err *e)
{
	const char *ref = ev->record_ref ? ev->record_ref : "record";

	if (check_label(ref, "run", ev->run, e) ||
	    check_label(ref, "model", ev->model, e) ||
	    check_label(ref, "problem_name", ev->problem_name, e) ||
	    check_label(ref, "hardware", ev->hardware, e) ||
	    check_label(ref, "precision", ev->precision, e) ||
	    check_label(ref, "harness", ev->harness, e) ||
	    check_label(ref, "error_kind", ev->error_kind, e))
		return e->code;
	return HR_OK;
}

int store_add_evaluation(struct store *s, const struct store_eval *ev,
			 int64_t *id, struct hr_err *e)
{
	sqlite3_stmt *st = stmt(s, ST_EVAL_ADD, e);
	int rc;

	if (!st || check_eval_labels(ev, e))
		return e->code;
	sqlite3_bind_int64(st, 1, ev->source_id);
	bind_text(st, 2, ev->run);
	bind_text(st, 3, ev->model);
	sqlite3_bind_int(st, 4, ev->level);
	sqlite3_bind_int(st, 5, ev->problem_id);
	sqlite3_bind_int(st, 6, ev->problem_id_base);
	bind_text(st, 7, ev->problem_name);
	sqlite3_bind_int(st, 8, ev->sample_id);
	bind_opt_id(st, 9, ev->kernel_id);
	bind_text(st, 10, ev->hardware);
	bind_text(st, 11, ev->precision);
	bind_real(st, 12, ev->atol);
	bind_real(st, 13, ev->rtol);
	bind_text(st, 14, ev->harness);
	bind_opt_int(st, 15, ev->compiled);
	bind_opt_int(st, 16, ev->correct);
	bind_real(st, 17, ev->runtime_ms);
	bind_real(st, 18, ev->runtime_std_ms);
	bind_real(st, 19, ev->runtime_min_ms);
	bind_real(st, 20, ev->runtime_max_ms);
	bind_opt_int(st, 21, ev->num_trials);
	bind_opt_int(st, 22, ev->correct_trials_passed);
	bind_opt_int(st, 23, ev->correct_trials_total);
	bind_text(st, 24, ev->error_kind);
	bind_text(st, 25, ev->error_text);
	bind_text(st, 26, ev->unit_assumed);
	bind_text(st, 27, ev->record_ref);
	bind_text(st, 28, ev->metadata_json);
	rc = step_reset(st);
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		return duplicate_eval(s, ev, e);
	if (rc != SQLITE_DONE)
		return hr_errf(e, HR_INPUT, "%s: cannot store record: %s",
			       ev->record_ref, sqlite3_errmsg(s->db));
	*id = sqlite3_last_insert_rowid(s->db);
	return HR_OK;
}

int store_add_speedup(struct store *s, const struct store_speedup *sp,
		      struct hr_err *e)
{
	sqlite3_stmt *st = stmt(s, ST_SPEEDUP_ADD, e);
	int rc;

	if (!st)
		return e->code;
	/* A ratio of finite times can still overflow (1e300 / 1e-300), and
	 * NaN would reach the NOT NULL constraint as NULL, naming nothing. */
	if (!isfinite(sp->value) || !(sp->value > 0))
		return hr_errf(e, HR_INPUT, "%s: %s speedup %g against %s is "
			       "not a finite positive number",
			       sp->baseline_ref ? sp->baseline_ref : "speedup",
			       sp->origin, sp->value, sp->baseline_kind);
	sqlite3_bind_int64(st, 1, sp->evaluation_id);
	bind_text(st, 2, sp->baseline_kind);
	bind_real(st, 3, sp->baseline_ms);
	sqlite3_bind_double(st, 4, sp->value);
	bind_text(st, 5, sp->origin);
	bind_text(st, 6, sp->baseline_ref);
	rc = step_reset(st);
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		return hr_errf(e, HR_INPUT, "duplicate %s speedup against %s "
			       "for evaluation %lld", sp->origin,
			       sp->baseline_kind, (long long)sp->evaluation_id);
	if (rc != SQLITE_DONE)
		return store_db_err(s->db, "insert speedup", e);
	return HR_OK;
}

int store_add_baseline(struct store *s, const struct store_baseline *b,
		       struct hr_err *e)
{
	sqlite3_stmt *st = stmt(s, ST_BASELINE_ADD, e);
	int rc;

	if (!st)
		return e->code;
	sqlite3_bind_int64(st, 1, b->source_id);
	bind_text(st, 2, b->hardware_dir);
	bind_text(st, 3, b->baseline_kind);
	sqlite3_bind_int(st, 4, b->level);
	bind_text(st, 5, b->problem_file);
	bind_real(st, 6, b->mean_ms);
	bind_real(st, 7, b->std_ms);
	bind_real(st, 8, b->min_ms);
	bind_real(st, 9, b->max_ms);
	bind_opt_int(st, 10, b->num_trials);
	bind_text(st, 11, b->hardware);
	bind_text(st, 12, b->device);
	rc = step_reset(st);
	if (rc == SQLITE_CONSTRAINT_UNIQUE)
		return hr_errf(e, HR_INPUT, "duplicate baseline: %s %s level %d "
			       "%s", b->hardware_dir, b->baseline_kind,
			       b->level, b->problem_file);
	if (rc != SQLITE_DONE)
		return store_db_err(s->db, "insert baseline", e);
	return HR_OK;
}

int store_put_problem_audit(struct store *s, const struct store_audit *a,
			    struct hr_err *e)
{
	sqlite3_stmt *st = stmt(s, ST_AUDIT_PUT, e);
	char now[32];

	if (!st)
		return e->code;
	clock_utc_now(now, sizeof(now));
	bind_text(st, 1, a->problem_sha256);
	sqlite3_bind_int(st, 2, a->level);
	sqlite3_bind_int(st, 3, a->problem_id);
	bind_text(st, 4, a->name);
	bind_text(st, 5, a->device);
	bind_text(st, 6, a->dtype);
	sqlite3_bind_int(st, 7, a->seed);
	bind_text(st, 8, a->output_shape);
	sqlite3_bind_int64(st, 9, a->output_numel);
	bind_real(st, 10, a->max_abs_ref);
	bind_real(st, 11, a->rms_ref);
	bind_text(st, 12, a->gates_json);
	bind_text(st, 13, now);
	bind_text(st, 14, hr_version());
	bind_text(st, 15, a->torch);
	return step_done(s, st, "store problem audit", e);
}
