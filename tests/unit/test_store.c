/* test_store.c - the store: schema, pragmas, idempotent writes, errors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../dataset/store.h"

static char path[64];

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/hr-test-store-%d.db", getpid());
	unlink(path);
	return 0;
}

static int teardown(void **state)
{
	char p[80];

	(void)state;
	unlink(path);
	snprintf(p, sizeof(p), "%s-wal", path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", path);
	unlink(p);
	return 0;
}

static long long scalar(struct store *s, const char *sql)
{
	sqlite3_stmt *st;
	long long v = -999;

	assert_int_equal(sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL),
			 SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

static const char *text(struct store *s, const char *sql, char *buf, size_t n)
{
	sqlite3_stmt *st;

	buf[0] = '\0';
	assert_int_equal(sqlite3_prepare_v2(store_db(s), sql, -1, &st, NULL),
			 SQLITE_OK);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, n, "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}

static struct store *open_rw(void)
{
	struct store *s;
	struct hr_err e;

	hr_err_clear(&e);
	assert_int_equal(store_open(&s, path, STORE_WRITE, &e), HR_OK);
	return s;
}

static struct store_eval eval_for(int64_t source, int problem, int sample)
{
	struct store_eval ev = {
		.source_id = source, .run = "run-a", .model = "m",
		.level = 1, .problem_id = problem, .problem_id_base = 1,
		.sample_id = sample, .compiled = 1, .correct = 0,
		.atol = NAN, .rtol = NAN, .runtime_ms = 1.5,
		.runtime_std_ms = NAN, .runtime_min_ms = NAN,
		.runtime_max_ms = NAN, .num_trials = -1,
		.correct_trials_passed = -1, .correct_trials_total = -1,
		.record_ref = "eval_results.json#1",
	};
	return ev;
}

static void new_store_has_pragmas_and_schema(void **state)
{
	struct store *s = open_rw();
	char buf[32];

	(void)state;
	assert_int_equal(scalar(s, "PRAGMA application_id"), HR_APPLICATION_ID);
	assert_int_equal(scalar(s, "PRAGMA user_version"),
			 store_schema_version());
	assert_int_equal(scalar(s, "PRAGMA foreign_keys"), 1);
	assert_string_equal(text(s, "PRAGMA journal_mode", buf, sizeof(buf)),
			    "wal");
	/* STRICT: a text in an INTEGER column is refused. */
	assert_int_not_equal(sqlite3_exec(store_db(s),
		"INSERT INTO kernel(id, sha256, code) VALUES ('x', 'a', 'b')",
		NULL, NULL, NULL), SQLITE_OK);
	store_close(s);
}

static void reopening_does_not_migrate_again(void **state)
{
	struct store *s = open_rw();

	(void)state;
	store_close(s);
	s = open_rw();
	assert_int_equal(scalar(s, "SELECT count(*) FROM sqlite_schema"
				" WHERE name = 'evaluation'"), 1);
	store_close(s);
}

static void foreign_database_is_refused(void **state)
{
	sqlite3 *db;
	struct store *s;
	struct hr_err e;

	(void)state;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	sqlite3_exec(db, "PRAGMA application_id = 7; CREATE TABLE t(x)",
		     NULL, NULL, NULL);
	sqlite3_close(db);
	hr_err_clear(&e);
	assert_int_equal(store_open(&s, path, STORE_WRITE, &e), HR_INPUT);
	assert_non_null(strstr(e.msg, "not a headroom database"));
	assert_null(s);
}

static void read_mode_needs_existing_file(void **state)
{
	struct store *s;
	struct hr_err e;

	(void)state;
	hr_err_clear(&e);
	assert_int_equal(store_open(&s, path, STORE_READ, &e), HR_INPUT);
	assert_non_null(strstr(e.msg, path));
	assert_int_equal(access(path, F_OK), -1);
}

static void same_source_hash_is_found_not_added(void **state)
{
	struct store *s = open_rw();
	struct store_source src = { .name = "a", .path = "a.tar",
		.kind = "kernelbench-run", .sha256 = "abc" };
	struct hr_err e;
	int64_t id1, id2;
	int existed;

	(void)state;
	hr_err_clear(&e);
	assert_int_equal(store_add_source(s, &src, &id1, &existed, &e), 0);
	assert_int_equal(existed, 0);
	assert_int_equal(store_add_source(s, &src, &id2, &existed, &e), 0);
	assert_int_equal(existed, 1);
	assert_int_equal(id1, id2);
	assert_int_equal(scalar(s, "SELECT count(*) FROM source"), 1);
	store_close(s);
}

static void identical_kernel_code_is_stored_once(void **state)
{
	struct store *s = open_rw();
	struct hr_err e;
	int64_t a, b, c;

	(void)state;
	hr_err_clear(&e);
	assert_int_equal(store_add_kernel(s, "int x;", &a, &e), 0);
	assert_int_equal(store_add_kernel(s, "int x;", &b, &e), 0);
	assert_int_equal(store_add_kernel(s, "int y;", &c, &e), 0);
	assert_int_equal(a, b);
	assert_int_not_equal(a, c);
	assert_int_equal(scalar(s, "SELECT count(*) FROM kernel"), 2);
	store_close(s);
}

static void duplicate_evaluation_names_both_records(void **state)
{
	struct store *s = open_rw();
	struct store_source src = { .name = "a", .path = "a",
		.kind = "kernelbench-run", .sha256 = "h" };
	struct store_eval ev;
	struct hr_err e;
	int64_t sid, id;
	int existed;

	(void)state;
	hr_err_clear(&e);
	assert_int_equal(store_add_source(s, &src, &sid, &existed, &e), 0);
	ev = eval_for(sid, 3, 0);
	assert_int_equal(store_add_evaluation(s, &ev, &id, &e), 0);
	ev.record_ref = "eval_results.json#2";
	assert_int_equal(store_add_evaluation(s, &ev, &id, &e), HR_INPUT);
	assert_non_null(strstr(e.msg, "duplicate record"));
	assert_non_null(strstr(e.msg, "eval_results.json#1"));
	assert_non_null(strstr(e.msg, "eval_results.json#2"));
	store_close(s);
}

static void rollback_leaves_store_as_before(void **state)
{
	struct store *s = open_rw();
	struct store_source src = { .name = "a", .path = "a",
		.kind = "kernelbench-run", .sha256 = "h2" };
	struct store_eval ev;
	struct hr_err e;
	int64_t sid, id;
	int existed;

	(void)state;
	hr_err_clear(&e);
	assert_int_equal(store_begin(s, &e), 0);
	assert_int_equal(store_add_source(s, &src, &sid, &existed, &e), 0);
	ev = eval_for(sid, 1, 0);
	assert_int_equal(store_add_evaluation(s, &ev, &id, &e), 0);
	store_rollback(s);
	assert_int_equal(scalar(s, "SELECT count(*) FROM source"), 0);
	assert_int_equal(scalar(s, "SELECT count(*) FROM evaluation"), 0);
	store_close(s);
}

static void missing_values_are_stored_as_null(void **state)
{
	struct store *s = open_rw();
	struct store_source src = { .name = "a", .path = "a",
		.kind = "kernelbench-run", .sha256 = "h3" };
	struct store_eval ev;
	struct hr_err e;
	int64_t sid, id;
	int existed;

	(void)state;
	hr_err_clear(&e);
	assert_int_equal(store_add_source(s, &src, &sid, &existed, &e), 0);
	ev = eval_for(sid, 1, 0);
	ev.correct = -1;
	ev.runtime_ms = NAN;
	assert_int_equal(store_add_evaluation(s, &ev, &id, &e), 0);
	assert_int_equal(scalar(s, "SELECT count(*) FROM evaluation WHERE"
				" correct IS NULL AND runtime_ms IS NULL"
				" AND kernel_id IS NULL AND atol IS NULL"), 1);
	store_close(s);
}

static void speedup_needs_an_existing_evaluation(void **state)
{
	struct store *s = open_rw();
	struct store_speedup sp = { .evaluation_id = 42,
		.baseline_kind = "eager", .baseline_ms = NAN, .value = 2.0,
		.origin = "reported" };
	struct hr_err e;

	(void)state;
	hr_err_clear(&e);
	assert_int_not_equal(store_add_speedup(s, &sp, &e), HR_OK);
	assert_int_equal(scalar(s, "SELECT count(*) FROM speedup"), 0);
	store_close(s);
}

/* One evaluation of source "a" with the speedups sp[0..n). */
static int64_t eval_with_speedups(struct store *s, int64_t sid, int problem,
				  const struct store_speedup *sp, size_t n)
{
	struct store_eval ev = eval_for(sid, problem, 0);
	struct hr_err e;
	int64_t id;

	hr_err_clear(&e);
	assert_int_equal(store_add_evaluation(s, &ev, &id, &e), 0);
	for (size_t i = 0; i < n; i++) {
		struct store_speedup one = sp[i];

		one.evaluation_id = id;
		assert_int_equal(store_add_speedup(s, &one, &e), 0);
	}
	return id;
}

static int64_t source_a(struct store *s)
{
	struct store_source src = { .name = "a", .path = "a",
		.kind = "kernelbench-run", .sha256 = "h" };
	struct hr_err e;
	int64_t sid;
	int existed;

	hr_err_clear(&e);
	assert_int_equal(store_add_source(s, &src, &sid, &existed, &e), 0);
	return sid;
}

/* The quoted speedup: reported against eager, else computed against
 * eager, else any other, else none (NULL); every evaluation has a row. */
static void quoted_speedup_is_reported_eager_first(void **state)
{
	const struct store_speedup all[] = {
		{ .baseline_kind = "compile_inductor_default",
		  .baseline_ms = NAN, .value = 9.0, .origin = "reported" },
		{ .baseline_kind = "eager", .baseline_ms = 1.0, .value = 2.0,
		  .origin = "computed" },
		{ .baseline_kind = "eager", .baseline_ms = NAN, .value = 3.0,
		  .origin = "reported" },
	};
	struct store *s = open_rw();
	int64_t sid;

	(void)state;
	sid = source_a(s);
	eval_with_speedups(s, sid, 1, all, 3);
	eval_with_speedups(s, sid, 2, all, 2);
	eval_with_speedups(s, sid, 3, all, 1);
	eval_with_speedups(s, sid, 4, all, 0);
	assert_int_equal(scalar(s, "SELECT count(*) FROM quoted_speedup"), 4);
	assert_int_equal(scalar(s, "SELECT q.value * 10 FROM evaluation e"
				" JOIN quoted_speedup q ON q.evaluation_id = e.id"
				" WHERE e.problem_id = 1"), 30);
	assert_int_equal(scalar(s, "SELECT q.value * 10 FROM evaluation e"
				" JOIN quoted_speedup q ON q.evaluation_id = e.id"
				" WHERE e.problem_id = 2"), 20);
	assert_int_equal(scalar(s, "SELECT q.value * 10 FROM evaluation e"
				" JOIN quoted_speedup q ON q.evaluation_id = e.id"
				" WHERE e.problem_id = 3"), 90);
	assert_int_equal(scalar(s, "SELECT q.value IS NULL FROM evaluation e"
				" JOIN quoted_speedup q ON q.evaluation_id = e.id"
				" WHERE e.problem_id = 4"), 1);
	assert_int_equal(scalar(s, "SELECT count(*) FROM latest_replay_job"
				" WHERE job_id IS NULL"), 4);
	store_close(s);
}

/* A store of schema 5 (before the views) that holds evaluations gets the
 * views by its first committed write, and they read what it holds. */
static void schema_5_store_gets_the_views(void **state)
{
	const struct store_speedup eager = { .baseline_kind = "eager",
		.baseline_ms = 1.0, .value = 2.0, .origin = "computed" };
	struct store *s = open_rw();
	struct hr_err e;

	(void)state;
	eval_with_speedups(s, source_a(s), 1, &eager, 1);
	assert_int_equal(sqlite3_exec(store_db(s), "DROP VIEW quoted_speedup;"
				      "DROP VIEW latest_replay_job;"
				      "ALTER TABLE problem_audit DROP COLUMN"
				      " torch;"
				      "PRAGMA user_version = 5", NULL, NULL,
				      NULL), SQLITE_OK);
	store_close(s);
	hr_err_clear(&e);
	assert_int_not_equal(store_open(&s, path, STORE_READ, &e), HR_OK);
	assert_non_null(strstr(e.msg, "an older schema"));
	assert_int_equal(store_open(&s, path, STORE_APPEND, &e), HR_OK);
	assert_int_equal(store_begin(s, &e), HR_OK);
	assert_int_equal(store_commit(s, &e), HR_OK);
	assert_int_equal(scalar(s, "PRAGMA user_version"),
			 store_schema_version());
	assert_int_equal(scalar(s, "SELECT value * 10 FROM quoted_speedup"), 20);
	assert_int_equal(scalar(s, "SELECT count(*) FROM latest_replay_job"
				" WHERE job_id IS NULL"), 1);
	store_close(s);
}

/* The whole file, malloc'd (*n bytes); NULL when it does not exist. */
static unsigned char *slurp(const char *p, size_t *n)
{
	FILE *f = fopen(p, "rb");
	unsigned char *buf;
	long len;

	*n = 0;
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	buf = malloc((size_t)len + 1);
	assert_non_null(buf);
	*n = fread(buf, 1, (size_t)len, f);
	fclose(f);
	return buf;
}

static void write_file(const char *p, const char *data, size_t n)
{
	FILE *f = fopen(p, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	fclose(f);
}

static void assert_file_is(const unsigned char *want, size_t n)
{
	size_t got_n;
	unsigned char *got = slurp(path, &got_n);

	assert_non_null(got);
	assert_int_equal(got_n, n);
	assert_memory_equal(got, want, n);
	free(got);
}

/* A database another program made, without our application_id or a
 * user_version: no mode may put our schema or WAL into it. */
static void foreign_database_without_id_is_left_unchanged(void **state)
{
	sqlite3 *db;
	struct store *s;
	struct hr_err e;
	unsigned char *before;
	size_t n;

	(void)state;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, "CREATE TABLE t(x);"
				      "INSERT INTO t VALUES (1)", NULL, NULL,
				      NULL), SQLITE_OK);
	sqlite3_close(db);
	before = slurp(path, &n);
	for (int mode = STORE_WRITE; mode <= STORE_APPEND; mode++) {
		hr_err_clear(&e);
		assert_int_equal(store_open(&s, path, mode, &e), HR_INPUT);
		assert_null(s);
		assert_non_null(strstr(e.msg, "not a headroom database"));
		assert_non_null(strstr(e.msg, path));
		assert_file_is(before, n);
	}
	free(before);
}

/* Our application_id with a negative user_version (the pragma is a signed
 * 32-bit integer; a fuzzed shard store had -16777216): an input error
 * naming the file, in every mode, the file unchanged; no migration is
 * looked up by that index. */
static void negative_schema_version_is_refused(void **state)
{
	sqlite3 *db;
	struct store *s;
	struct hr_err e;
	unsigned char *before;
	char sql[96];
	size_t n;

	(void)state;
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	snprintf(sql, sizeof(sql), "PRAGMA application_id = %d;"
		 "PRAGMA user_version = -16777216", HR_APPLICATION_ID);
	assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(db);
	before = slurp(path, &n);
	for (int mode = STORE_READ; mode <= STORE_APPEND; mode++) {
		hr_err_clear(&e);
		assert_int_equal(store_open(&s, path, mode, &e), HR_INPUT);
		assert_null(s);
		assert_non_null(strstr(e.msg, "schema version -16777216"));
		assert_non_null(strstr(e.msg, path));
		assert_file_is(before, n);
	}
	free(before);
}

/* A file that is not SQLite at all: an input error naming it. */
static void garbage_file_is_refused_naming_it(void **state)
{
	static const char junk[] = "this is not a database, but it is long "
		"enough to have a header: 0123456789abcdef0123456789abcdef"
		"0123456789abcdef0123456789abcdef0123456789abcdef";
	struct store *s;
	struct hr_err e;

	(void)state;
	write_file(path, junk, sizeof(junk) - 1);
	for (int mode = STORE_READ; mode <= STORE_APPEND; mode++) {
		hr_err_clear(&e);
		assert_int_equal(store_open(&s, path, mode, &e), HR_INPUT);
		assert_non_null(strstr(e.msg, path));
		assert_file_is((const unsigned char *)junk, sizeof(junk) - 1);
	}
}

/* A 0-byte file opened to append, then a write rolled back: still 0
 * bytes (no schema, no WAL header). */
static void empty_file_stays_empty_after_a_rolled_back_write(void **state)
{
	struct store *s;
	struct hr_err e;
	size_t n;
	unsigned char *got;

	(void)state;
	write_file(path, "", 0);
	hr_err_clear(&e);
	assert_int_equal(store_open(&s, path, STORE_APPEND, &e), HR_OK);
	assert_int_equal(store_begin(s, &e), HR_OK);
	assert_int_equal(scalar(s, "SELECT count(*) FROM source"), 0);
	store_rollback(s);
	store_close(s);
	got = slurp(path, &n);
	assert_non_null(got);
	assert_int_equal(n, 0);
	free(got);
}

/* A store of an older schema (here: before the replay tables) is migrated
 * by the first committed write, not by opening it: a rolled-back write
 * leaves it byte-identical. */
static void older_store_is_migrated_only_by_a_committed_write(void **state)
{
	struct store *s = open_rw();
	struct hr_err e;
	unsigned char *before;
	size_t n;

	(void)state;
	/* what migrations 3 (replay), 4 (audit: replay_job's columns), 5
	 * (profiles), 6 (the views) and 8 (the audit's torch) added */
	assert_int_equal(sqlite3_exec(store_db(s), "DROP VIEW quoted_speedup;"
				      "ALTER TABLE problem_audit DROP COLUMN"
				      " torch;"
				      "DROP VIEW latest_replay_job;"
				      "DROP TABLE replay_job;"
				      "DROP TABLE replay_run;"
				      "DROP TABLE profile_kernel;"
				      "DROP TABLE profile;"
				      "PRAGMA user_version = 2", NULL, NULL,
				      NULL), SQLITE_OK);
	store_close(s);
	before = slurp(path, &n);
	hr_err_clear(&e);
	assert_int_equal(store_open(&s, path, STORE_APPEND, &e), HR_OK);
	assert_int_equal(store_begin(s, &e), HR_OK);
	assert_int_equal(scalar(s, "SELECT count(*) FROM replay_run"), 0);
	store_rollback(s);
	store_close(s);
	assert_file_is(before, n);
	free(before);
	assert_int_equal(store_open(&s, path, STORE_APPEND, &e), HR_OK);
	assert_int_equal(store_begin(s, &e), HR_OK);
	assert_int_equal(store_commit(s, &e), HR_OK);
	assert_int_equal(scalar(s, "PRAGMA user_version"),
			 store_schema_version());
	store_close(s);
}

/* Migration 6 rebuilds replay_job to admit the verdict needs_gpu: the
 * jobs of a version-5 store keep every column, the CHECK stays (an
 * unknown verdict is still refused) and the indexes are made again. */
static void migration_6_keeps_replay_jobs_and_admits_needs_gpu(void **state)
{
	struct store *s = open_rw();
	struct hr_err e;
	char buf[64];

	(void)state;
	/* A version-5 replay_job as far as the rebuild can tell: the same
	 * columns in the same order, one job in it; and no views yet (they
	 * come with migration 7). */
	assert_int_equal(sqlite3_exec(store_db(s),
		"DROP VIEW quoted_speedup;"
		"DROP VIEW latest_replay_job;"
		"ALTER TABLE problem_audit DROP COLUMN torch;"
		"INSERT INTO source(id, name, path, kind, sha256, ingested_at,"
		" tool_version) VALUES (1, 's', 'p', 'k', 'h', 't', 'v');"
		"INSERT INTO evaluation(id, source_id, run, model, level,"
		" problem_id, problem_id_base, sample_id, record_ref)"
		" VALUES (7, 1, 'r', 'm', 1, 1, 1, 0, 'x');"
		"INSERT INTO replay_run(id, uuid, state, mode, device,"
		" settings_json, tool_version, started_at)"
		" VALUES (1, 'u', 'finished', 'faithful', 'cpu', '{}', 'v', 't');"
		"INSERT INTO replay_job(run_id, evaluation_id, state, verdict,"
		" error_text, attempts, audit_verdict)"
		" VALUES (1, 7, 'done', 'compile_error', 'IndexError', 1,"
		" 'failed:build');"
		"ALTER TABLE replay_job RENAME TO j6;"
		"CREATE TABLE replay_job AS SELECT * FROM j6;"
		"DROP TABLE j6;"
		"PRAGMA user_version = 5", NULL, NULL, NULL), SQLITE_OK);
	store_close(s);
	hr_err_clear(&e);
	assert_int_equal(store_open(&s, path, STORE_WRITE, &e), HR_OK);
	assert_int_equal(scalar(s, "PRAGMA user_version"),
			 store_schema_version());
	assert_string_equal(text(s, "SELECT verdict || ' ' || error_text || ' ' ||"
				 " audit_verdict FROM replay_job WHERE"
				 " evaluation_id = 7", buf, sizeof(buf)),
			    "compile_error IndexError failed:build");
	assert_int_equal(scalar(s, "SELECT count(*) FROM sqlite_schema WHERE"
				" type = 'index' AND tbl_name = 'replay_job'"
				" AND name LIKE 'replay_job_by_%'"), 2);
	assert_int_equal(sqlite3_exec(store_db(s), "UPDATE replay_job SET"
				      " verdict = 'needs_gpu'", NULL, NULL,
				      NULL), SQLITE_OK);
	assert_int_not_equal(sqlite3_exec(store_db(s), "UPDATE replay_job SET"
					  " verdict = 'bogus'", NULL, NULL,
					  NULL), SQLITE_OK);
	store_close(s);
}

/* Two connections to a new file: the second migrates it while the first
 * is open; the first one's write must see the new version (read under
 * the lock), not run migration 1 again. */
static void schema_version_is_read_under_the_write_lock(void **state)
{
	struct store *a, *b;
	struct hr_err e;

	(void)state;
	hr_err_clear(&e);
	assert_int_equal(store_open(&a, path, STORE_APPEND, &e), HR_OK);
	assert_int_equal(store_open(&b, path, STORE_WRITE, &e), HR_OK);
	store_close(b);
	assert_int_equal(store_begin(a, &e), HR_OK);
	assert_int_equal(store_commit(a, &e), HR_OK);
	assert_int_equal(scalar(a, "SELECT count(*) FROM sqlite_schema"
				" WHERE name = 'source'"), 1);
	store_close(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(new_store_has_pragmas_and_schema, setup, teardown),
		cmocka_unit_test_setup_teardown(reopening_does_not_migrate_again, setup, teardown),
		cmocka_unit_test_setup_teardown(foreign_database_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(read_mode_needs_existing_file, setup, teardown),
		cmocka_unit_test_setup_teardown(same_source_hash_is_found_not_added, setup, teardown),
		cmocka_unit_test_setup_teardown(identical_kernel_code_is_stored_once, setup, teardown),
		cmocka_unit_test_setup_teardown(duplicate_evaluation_names_both_records, setup, teardown),
		cmocka_unit_test_setup_teardown(rollback_leaves_store_as_before, setup, teardown),
		cmocka_unit_test_setup_teardown(missing_values_are_stored_as_null, setup, teardown),
		cmocka_unit_test_setup_teardown(speedup_needs_an_existing_evaluation, setup, teardown),
		cmocka_unit_test_setup_teardown(quoted_speedup_is_reported_eager_first, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_5_store_gets_the_views, setup, teardown),
		cmocka_unit_test_setup_teardown(foreign_database_without_id_is_left_unchanged, setup, teardown),
		cmocka_unit_test_setup_teardown(garbage_file_is_refused_naming_it, setup, teardown),
		cmocka_unit_test_setup_teardown(negative_schema_version_is_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(empty_file_stays_empty_after_a_rolled_back_write, setup, teardown),
		cmocka_unit_test_setup_teardown(older_store_is_migrated_only_by_a_committed_write, setup, teardown),
		cmocka_unit_test_setup_teardown(schema_version_is_read_under_the_write_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(migration_6_keeps_replay_jobs_and_admits_needs_gpu, setup, teardown),
	};
	return cmocka_run_group_tests_name("store", tests, NULL, NULL);
}
