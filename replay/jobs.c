/* jobs.c - see jobs.h. */
#include "jobs.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataset/harness.h"
#include "../dataset/base/version.h"
#include "../dataset/ingest.h"
#include "audit.h"
#include "jobplan.h"
#include "proto.h"
#include "verdict.h"

static int prepare(struct store *s, const char *sql, sqlite3_stmt **st,
		   struct hr_err *e)
{
	if (sqlite3_prepare_v2(store_db(s), sql, -1, st, NULL) != SQLITE_OK)
		return store_db_err(store_db(s), "prepare", e);
	return HR_OK;
}

/* Grow *v (of *cap elements of size sz) to hold n + 1. */
static int grow(void *v, size_t *cap, size_t n, size_t sz, struct hr_err *e)
{
	void *p;

	if (n < *cap)
		return HR_OK;
	*cap = *cap ? 2 * *cap : 64;
	p = realloc(*(void **)v, *cap * sz);
	if (!p)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	*(void **)v = p;
	return HR_OK;
}

static void free_evals(struct jobplan_eval *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free((char *)v[i].name);
		free((char *)v[i].code);
	}
	free(v);
}

/* The evaluations sel selects, in id order (with their kernel code when
 * code is set). */
static int load_evals(struct store *s, const struct evalsel *sel, int code,
		      struct jobplan_eval **out, size_t *n, struct hr_err *e)
{
	static const char sql[] =
		"SELECT e.id, e.level, e.problem_id, e.problem_name,"
		" e.kernel_id, k.code, e.source_id"
		" FROM evaluation e JOIN source s ON s.id = e.source_id"
		" LEFT JOIN kernel k ON k.id = e.kernel_id"
		" WHERE " EVALSEL_WHERE " ORDER BY e.id";
	struct jobplan_eval *v = NULL;
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (prepare(s, sql, &st, e))
		return e->code;
	if (sel && evalsel_bind(sel, st) != SQLITE_OK) {
		sqlite3_finalize(st);
		return store_db_err(store_db(s), "select evaluations", e);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct jobplan_eval *ev;

		if (grow(&v, &cap, *n, sizeof(*v), e))
			break;
		ev = &v[(*n)++];
		memset(ev, 0, sizeof(*ev));
		ev->id = sqlite3_column_int64(st, 0);
		ev->level = sqlite3_column_int(st, 1);
		ev->problem_id = sqlite3_column_int(st, 2);
		ev->name = store_col_dup(st, 3, NULL);
		ev->has_kernel = sqlite3_column_type(st, 4) != SQLITE_NULL;
		ev->code = code ? store_col_dup(st, 5, NULL) : NULL;
		ev->source_id = sqlite3_column_int64(st, 6);
		if ((!ev->name && sqlite3_column_type(st, 3) != SQLITE_NULL) ||
		    (!ev->code && code && sqlite3_column_type(st, 5) !=
		     SQLITE_NULL)) {
			hr_errf(e, HR_SYSTEM, "out of memory");
			break;
		}
	}
	if (!e->code && rc != SQLITE_DONE)
		store_db_err(store_db(s), "read evaluations", e);
	sqlite3_finalize(st);
	*out = v;
	return e->code;
}

static void free_problems(struct jobplan_problem *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free((char *)v[i].name);
	free(v);
}

/* The problems a job may be matched to: those of the set named set (NULL:
 * every set), each with the source whose own records carried it. */
static int load_problems(struct store *s, const char *set,
			 struct jobplan_problem **out, size_t *n,
			 struct hr_err *e)
{
	/* The reference code the evaluation's own record carried (a
	 * leaderboard mapping's reference_code target, dataset/ingest.h). */
	static const char sql[] =
		"SELECT p.id, p.level, p.problem_id, p.name,"
		" CASE WHEN ps.name = s.name || '" INGEST_REFERENCE_SET_SUFFIX "'"
		" THEN ps.source_id ELSE 0 END"
		" FROM problem p JOIN problem_set ps ON ps.id = p.set_id"
		" LEFT JOIN source s ON s.id = ps.source_id"
		" WHERE ?1 IS NULL OR ps.name = ?1 ORDER BY p.id";
	struct jobplan_problem *v = NULL;
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (prepare(s, sql, &st, e))
		return e->code;
	if (set)
		sqlite3_bind_text(st, 1, set, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct jobplan_problem *p;

		if (grow(&v, &cap, *n, sizeof(*v), e))
			break;
		p = &v[(*n)++];
		p->id = sqlite3_column_int64(st, 0);
		p->level = sqlite3_column_int(st, 1);
		p->problem_id = sqlite3_column_int(st, 2);
		p->name = store_col_dup(st, 3, "");
		p->record_source = sqlite3_column_int64(st, 4);
		if (!p->name) {
			hr_errf(e, HR_SYSTEM, "out of memory");
			break;
		}
	}
	if (!e->code && rc != SQLITE_DONE)
		store_db_err(store_db(s), "read problems", e);
	sqlite3_finalize(st);
	*out = v;
	return e->code;
}

static int insert_run(struct store *s, enum hr_mode mode, const char *device,
		      const char *shard, const char *settings_json,
		      int64_t *run_id, struct hr_err *e)
{
	static const char sql[] =
		"INSERT INTO replay_run(uuid, state, mode, device, shard,"
		" settings_json, tool_version, started_at)"
		" VALUES (lower(hex(randomblob(16))), 'running', ?1, ?2, ?3, ?4,"
		" ?5, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))";
	sqlite3_stmt *st;
	int rc;

	if (prepare(s, sql, &st, e))
		return e->code;
	sqlite3_bind_text(st, 1, hr_mode_name(mode), -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, device, -1, SQLITE_STATIC);
	if (shard)
		sqlite3_bind_text(st, 3, shard, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, settings_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, hr_version(), -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_db_err(store_db(s), "insert replay run", e);
	*run_id = sqlite3_last_insert_rowid(store_db(s));
	return HR_OK;
}

/* One replay_job row per job of the plan. */
static int insert_jobs(struct store *s, int64_t run_id,
		       const struct jobplan_job *plan, size_t n,
		       struct hr_err *e)
{
	static const char sql[] =
		"INSERT INTO replay_job(run_id, evaluation_id, problem_ref,"
		" problem_match, state, verdict, error_text, finished_at,"
		" audit_verdict, findings_json)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, CASE WHEN ?5 = 'done' THEN"
		" strftime('%Y-%m-%dT%H:%M:%fZ', 'now') END, ?8, ?9)";
	sqlite3_stmt *st;

	if (prepare(s, sql, &st, e))
		return e->code;
	for (size_t i = 0; i < n; i++) {
		const struct jobplan_job *j = &plan[i];

		sqlite3_reset(st);
		sqlite3_clear_bindings(st);
		sqlite3_bind_int64(st, 1, run_id);
		sqlite3_bind_int64(st, 2, j->evaluation_id);
		if (j->problem)
			sqlite3_bind_int64(st, 3, j->problem);
		sqlite3_bind_text(st, 4, j->match, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 5, j->verdict ? "done" : "pending", -1,
				  SQLITE_STATIC);
		if (j->verdict) {
			sqlite3_bind_text(st, 6, proto_verdict_name(j->verdict),
					  -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 7, j->why, -1, SQLITE_STATIC);
			sqlite3_bind_text(st, 8, j->audit.verdict, -1,
					  SQLITE_STATIC);
			sqlite3_bind_text(st, 9, j->findings, -1,
					  SQLITE_STATIC);
		}
		if (sqlite3_step(st) != SQLITE_DONE) {
			store_db_err(store_db(s), "insert replay job", e);
			hr_err_prefix(e, "evaluation %lld",
				      (long long)j->evaluation_id);
			break;
		}
	}
	sqlite3_finalize(st);
	return e->code;
}

int jobs_create_run(struct store *s, enum hr_mode mode, const char *device,
		    const char *shard, const char *settings_json,
		    const struct jobs_filter *f, int64_t *run_id,
		    struct hr_err *e)
{
	struct jobplan_in in = {
		.mode = mode, .cpu = !strcmp(device, "cpu"),
		.shard_i = f->shard_i, .shard_n = f->shard_n,
		.limit = f->limit, .by_set = f->problems_set != NULL,
	};
	struct jobplan_eval *evals = NULL;
	struct jobplan_problem *problems = NULL;
	struct jobplan_job *plan = NULL;
	size_t n = 0;

	if (store_begin(s, e))
		return e->code;
	if (!insert_run(s, mode, device, shard, settings_json, run_id, e) &&
	    !load_evals(s, f->sel, in.cpu, &evals, &in.nevals, e) &&
	    !load_problems(s, f->problems_set, &problems, &in.nproblems, e)) {
		in.evals = evals;
		in.problems = problems;
		if (!jobplan_make(&in, &plan, &n, e))
			insert_jobs(s, *run_id, plan, n, e);
	}
	jobplan_free(plan, n);
	free_evals(evals, in.nevals);
	free_problems(problems, in.nproblems);
	if (e->code) {
		store_rollback(s);
		return e->code;
	}
	return store_commit(s, e);
}

int jobs_find_resumable(struct store *s, int64_t *run_id, char **settings,
			struct hr_err *e)
{
	sqlite3_stmt *st;
	int rc;

	*run_id = 0;
	*settings = NULL;
	if (prepare(s, "SELECT id, settings_json FROM replay_run"
		    " WHERE state != 'finished' ORDER BY id DESC LIMIT 1", &st, e))
		return e->code;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		*run_id = sqlite3_column_int64(st, 0);
		*settings = store_col_dup(st, 1, NULL);
	} else if (rc != SQLITE_DONE) {
		store_db_err(store_db(s), "find run to resume", e);
	}
	sqlite3_finalize(st);
	return e->code;
}

/* KernelBench harness version from the evaluation's harness tag
 * (dataset/harness.h: current when it names none). */
static char *harness_of(const char *tag)
{
	return strdup(harness_replayed(tag));
}

int jobs_load_pending(struct store *s, int64_t run_id, struct job **jobs,
		      int *n, struct hr_err *e)
{
	static const char sql[] =
		"SELECT j.id, j.evaluation_id, e.level, e.problem_id,"
		" e.sample_id, e.model, e.harness, COALESCE(e.precision, 'fp32'),"
		" k.sha256, k.code, p.code, p.file_name, j.attempts, j.problem_ref"
		" FROM replay_job j JOIN evaluation e ON e.id = j.evaluation_id"
		" JOIN kernel k ON k.id = e.kernel_id"
		" JOIN problem p ON p.id = j.problem_ref"
		" WHERE j.run_id = ?1 AND j.state = 'pending' ORDER BY j.id";
	sqlite3_stmt *st;
	struct job *v = NULL, *grown;
	int cap = 0, rc;

	*jobs = NULL;
	*n = 0;
	if (prepare(s, sql, &st, e))
		return e->code;
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct job *j;

		if (*n == cap) {
			cap = cap ? 2 * cap : 64;
			if (!(grown = realloc(v, (size_t)cap * sizeof(*v)))) {
				hr_errf(e, HR_SYSTEM, "out of memory");
				break;
			}
			v = grown;
		}
		j = &v[(*n)++];
		j->id = sqlite3_column_int64(st, 0);
		j->evaluation_id = sqlite3_column_int64(st, 1);
		j->level = sqlite3_column_int(st, 2);
		j->problem_id = sqlite3_column_int(st, 3);
		j->sample_id = sqlite3_column_int(st, 4);
		j->model = store_col_dup(st, 5, NULL);
		j->harness = harness_of((const char *)sqlite3_column_text(st, 6));
		j->precision = store_col_dup(st, 7, NULL);
		j->kernel_sha256 = store_col_dup(st, 8, NULL);
		j->kernel_code = store_col_dup(st, 9, NULL);
		j->problem_code = store_col_dup(st, 10, NULL);
		j->problem_file = store_col_dup(st, 11, NULL);
		j->attempts = sqlite3_column_int(st, 12);
		j->problem_ref = sqlite3_column_int64(st, 13);
		if (!j->model || !j->harness || !j->precision ||
		    !j->kernel_sha256 || !j->kernel_code || !j->problem_code ||
		    !j->problem_file) {
			hr_errf(e, HR_SYSTEM, "out of memory");
			break;
		}
	}
	if (!e->code && rc != SQLITE_DONE)
		store_db_err(store_db(s), "load pending jobs", e);
	sqlite3_finalize(st);
	*jobs = v;
	if (e->code) {
		jobs_free(v, *n);
		*jobs = NULL;
		*n = 0;
	}
	return e->code;
}

void jobs_free(struct job *jobs, int n)
{
	for (int i = 0; i < n; i++) {
		free(jobs[i].model);
		free(jobs[i].harness);
		free(jobs[i].precision);
		free(jobs[i].kernel_sha256);
		free(jobs[i].kernel_code);
		free(jobs[i].problem_code);
		free(jobs[i].problem_file);
	}
	free(jobs);
}

int jobs_count(struct store *s, int64_t run_id, int *total, int *done,
	       struct hr_err *e)
{
	sqlite3_stmt *st;

	if (prepare(s, "SELECT count(*), count(*) FILTER (WHERE state = 'done')"
		    " FROM replay_job WHERE run_id = ?1", &st, e))
		return e->code;
	sqlite3_bind_int64(st, 1, run_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		*total = sqlite3_column_int(st, 0);
		*done = sqlite3_column_int(st, 1);
	} else {
		store_db_err(store_db(s), "count jobs", e);
	}
	sqlite3_finalize(st);
	return e->code;
}

static int exec_bound(struct store *s, const char *sql, int64_t id,
		      const char *text, const char *what, struct hr_err *e)
{
	sqlite3_stmt *st;
	int rc;

	if (prepare(s, sql, &st, e))
		return e->code;
	sqlite3_bind_int64(st, 1, id);
	if (text)
		sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_db_err(store_db(s), what, e);
	return HR_OK;
}

int jobs_mark_attempt(struct store *s, int64_t job_id, struct hr_err *e)
{
	return exec_bound(s, "UPDATE replay_job SET attempts = attempts + 1"
			  " WHERE id = ?1", job_id, NULL, "count attempt", e);
}

int jobs_end_run(struct store *s, int64_t run_id, const char *state,
		 struct hr_err *e)
{
	return exec_bound(s, "UPDATE replay_run SET state = ?2, finished_at ="
			  " strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?1",
			  run_id, state, "end run", e);
}

int jobs_drop_run(struct store *s, int64_t run_id, struct hr_err *e)
{
	if (store_begin(s, e))
		return e->code;
	if (exec_bound(s, "DELETE FROM replay_job WHERE run_id = ?1", run_id,
		       NULL, "drop run's jobs", e) ||
	    exec_bound(s, "DELETE FROM replay_run WHERE id = ?1", run_id, NULL,
		       "drop run", e)) {
		store_rollback(s);
		return e->code;
	}
	return store_commit(s, e);
}

static const char *str_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Bind o[k]: a number as REAL (NULL when absent or not a number). */
static void bind_num(sqlite3_stmt *st, int i, const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	if (cJSON_IsNumber(v) && isfinite(v->valuedouble))
		sqlite3_bind_double(st, i, v->valuedouble);
	else
		sqlite3_bind_null(st, i);
}

static void bind_int(sqlite3_stmt *st, int i, const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	if (cJSON_IsNumber(v))
		sqlite3_bind_int64(st, i, (sqlite3_int64)v->valuedouble);
	else
		sqlite3_bind_null(st, i);
}

static void bind_bool(sqlite3_stmt *st, int i, const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	if (cJSON_IsBool(v))
		sqlite3_bind_int(st, i, cJSON_IsTrue(v));
	else
		sqlite3_bind_null(st, i);
}

/* Bind o[k] printed as JSON; the text is freed by SQLite. */
static void bind_json(sqlite3_stmt *st, int i, const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	char *txt = v && !cJSON_IsNull(v) ? cJSON_PrintUnformatted(v) : NULL;

	if (txt)
		sqlite3_bind_text(st, i, txt, -1, cJSON_free);
	else
		sqlite3_bind_null(st, i);
}

static void bind_str(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* The preset of problem_audit's gates a job was judged under: the
 * harness (v0.1 is audited as v0) and precision it ran with, the result's
 * when it says, else the evaluation's. */
static const char *job_preset(const char *harness, const char *precision)
{
	if (harness && !strcmp(harness, "v0.1"))
		harness = "v0";
	for (int i = 0; harness && precision && i < audit_npresets; i++)
		if (!strcmp(audit_presets[i].harness, harness) &&
		    (!strcmp(harness, "v0") ||
		     !strcmp(audit_presets[i].dtype, precision)))
			return audit_presets[i].name;
	return NULL;
}

/* The problem's gate under preset from its newest problem_audit row,
 * preferring the run's device and the job's precision.  No row, or no such
 * preset in it: g->audited 0. */
static int load_gate(struct store *s, const char *sha, const char *device,
		     const char *precision, struct verdict_gate *g,
		     struct hr_err *e)
{
	static const char sql[] =
		"SELECT gates_json FROM problem_audit WHERE problem_sha256 = ?1"
		" ORDER BY device = ?2 DESC, dtype = ?3 DESC, id DESC LIMIT 1";
	sqlite3_stmt *st;
	cJSON *doc = NULL, *gate;
	int rc;

	if (!g->preset || !sha || !store_has_table(store_db(s), "problem_audit"))
		return HR_OK;
	if (prepare(s, sql, &st, e))
		return e->code;
	sqlite3_bind_text(st, 1, sha, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, device, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, precision, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		doc = cJSON_Parse((const char *)sqlite3_column_text(st, 0));
	else if (rc != SQLITE_DONE)
		store_db_err(store_db(s), "read problem audit", e);
	sqlite3_finalize(st);
	gate = cJSON_GetObjectItemCaseSensitive(doc, g->preset);
	if (cJSON_IsObject(gate)) {
		g->audited = 1;
		g->zeros = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			gate, "zeros"));
		g->constant = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			gate, "constant"));
		g->input = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			gate, "input"));
		g->degenerate = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			gate, "degenerate"));
	}
	cJSON_Delete(doc);
	return e->code;
}

/* The audit verdict and findings of a job about to be stored: *findings
 * (malloc'd JSON text, cJSON_free) for replay_job.findings_json. */
static int audit_job(struct store *s, int64_t job_id,
		     const struct job_outcome *o, enum proto_verdict verdict,
		     const char *phase, const char *ekind,
		     struct verdict_out *v, char **findings, struct hr_err *e)
{
	static const char sql[] =
		"SELECT r.mode, r.device, k.code, p.sha256, e.harness,"
		" COALESCE(e.precision, 'fp32')"
		" FROM replay_job j JOIN replay_run r ON r.id = j.run_id"
		" JOIN evaluation e ON e.id = j.evaluation_id"
		" LEFT JOIN kernel k ON k.id = e.kernel_id"
		" LEFT JOIN problem p ON p.id = j.problem_ref WHERE j.id = ?1";
	const cJSON *sem = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(o->res, "checks"), "semantics");
	struct verdict_in in = {
		.res = o->res, .verdict = verdict,
		.phase = phase, .error_kind = ekind,
	};
	struct rule_hit *hits = NULL;
	cJSON *signals = NULL, *doc;
	char *mode = NULL, *device = NULL, *code = NULL, *sha = NULL;
	char *harness = NULL, *precision = NULL;
	const char *h, *p;
	sqlite3_stmt *st;
	size_t n = 0;

	*findings = NULL;
	if (prepare(s, sql, &st, e))
		return e->code;
	sqlite3_bind_int64(st, 1, job_id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const char *tag = (const char *)sqlite3_column_text(st, 4);

		mode = store_col_dup(st, 0, NULL);
		device = store_col_dup(st, 1, NULL);
		code = store_col_dup(st, 2, NULL);
		sha = store_col_dup(st, 3, NULL);
		harness = harness_of(tag);
		precision = store_col_dup(st, 5, NULL);
	}
	sqlite3_finalize(st);
	h = str_of(sem, "harness") ? str_of(sem, "harness") : harness;
	p = str_of(sem, "precision") ? str_of(sem, "precision") :
		str_of(o->res, "precision") ? str_of(o->res, "precision") :
		precision;
	if (hr_mode_of(mode, &in.mode))
		in.mode = HR_NMODES;  /* the result's own semantics say */
	in.gate.preset = job_preset(h, p);
	if (!load_gate(s, sha, device ? device : "", p ? p : "", &in.gate, e)) {
		verdict_compute(&in, v);
		if (o->libs_note) {
			size_t used = strlen(v->why);

			snprintf(v->why + used, sizeof(v->why) - used, "%s%s",
				 used ? "; " : "", o->libs_note);
		}
		if (o->rules && code &&
		    !rules_match(o->rules, code, &hits, &n, e) &&
		    !(signals = rules_hits_json(hits, n)))
			hr_errf(e, HR_SYSTEM, "out of memory");
	}
	if (!e->code) {
		doc = verdict_findings_json(o->res, signals, v); /* adopts */
		signals = NULL;
		if (!doc || !(*findings = cJSON_PrintUnformatted(doc)))
			hr_errf(e, HR_SYSTEM, "out of memory");
		cJSON_Delete(doc);
	}
	cJSON_Delete(signals);
	free(hits);
	free(mode);
	free(device);
	free(code);
	free(sha);
	free(harness);
	free(precision);
	return e->code;
}

int jobs_finish(struct store *s, int64_t job_id, const struct job_outcome *o,
		int *written, struct hr_err *e)
{
	static const char sql[] =
		"UPDATE replay_job SET state = 'done', verdict = ?2,"
		" compiled = ?3, correct = ?4, trials_passed = ?5,"
		" trials_total = ?6, runtime_ms = ?7, runtime_stats_json = ?8,"
		" baseline_kind = ?9, baseline_ms = ?10, baseline_stats_json = ?11,"
		" speedup = ?12, ci_low = ?13, ci_high = ?14, phase = ?15,"
		" error_kind = ?16, error_text = ?17, checks_json = ?18,"
		" build_log_tail = ?19, worker_stderr_tail = ?20, wall_ms = ?21,"
		" audit_verdict = ?22, findings_json = ?23,"
		" finished_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')"
		" WHERE id = ?1 AND state = 'pending'";
	const cJSON *r = o->res;
	const char *said = str_of(r, "verdict");
	enum proto_verdict verdict = o->verdict != PV_NONE ? o->verdict :
		proto_verdict_of(said);
	const char *ekind = o->error_kind ? o->error_kind : str_of(r, "error_kind");
	const char *etext = o->error_text ? o->error_text : str_of(r, "error");
	const char *phase = o->phase ? o->phase : str_of(r, "phase");
	struct verdict_out audit;
	char *findings;
	sqlite3_stmt *st;
	int rc;

	*written = 0;
	if (!proto_verdict_ends_job(verdict)) {
		ekind = "protocol";
		etext = o->verdict != PV_NONE || said ?
			"worker answered an unknown verdict" :
			"worker answered no verdict";
		verdict = PV_CRASHED;
	}
	if (store_begin(s, e))
		return e->code;
	if (audit_job(s, job_id, o, verdict, phase, ekind, &audit, &findings,
		      e) || prepare(s, sql, &st, e)) {
		cJSON_free(findings);
		store_rollback(s);
		return hr_err_prefix(e, "job %lld", (long long)job_id);
	}
	sqlite3_bind_int64(st, 1, job_id);
	sqlite3_bind_text(st, 2, proto_verdict_name(verdict), -1, SQLITE_STATIC);
	bind_bool(st, 3, r, "compiled");
	bind_bool(st, 4, r, "correct");
	if (verdict == PV_CORRECT)
		sqlite3_bind_int(st, 4, 1);
	else if (verdict == PV_TIMEOUT || verdict == PV_CRASHED)
		sqlite3_bind_int(st, 4, 0);
	bind_int(st, 5, r, "trials_passed");
	bind_int(st, 6, r, "trials_total");
	bind_num(st, 7, r, "runtime_ms");
	bind_json(st, 8, r, "runtime_stats");
	bind_str(st, 9, str_of(r, "baseline"));
	bind_num(st, 10, r, "baseline_ms");
	bind_json(st, 11, r, "baseline_stats");
	bind_num(st, 12, r, "speedup");
	bind_num(st, 13, r, "ci_low");
	bind_num(st, 14, r, "ci_high");
	bind_str(st, 15, phase);
	bind_str(st, 16, ekind);
	bind_str(st, 17, etext);
	bind_json(st, 18, r, "checks");
	bind_str(st, 19, str_of(r, "build_log"));
	bind_str(st, 20, o->stderr_tail && *o->stderr_tail ? o->stderr_tail : NULL);
	sqlite3_bind_double(st, 21, o->wall_ms);
	sqlite3_bind_text(st, 22, audit.verdict, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 23, findings, -1, cJSON_free);
	rc = sqlite3_step(st);
	*written = sqlite3_changes(store_db(s)) > 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		store_db_err(store_db(s), "write job result", e);
		store_rollback(s);
		return hr_err_prefix(e, "job %lld", (long long)job_id);
	}
	return store_commit(s, e);
}

int jobs_set_env(struct store *s, int64_t run_id, const cJSON *hello,
		 struct hr_err *e)
{
	static const char sql[] =
		"UPDATE replay_run SET gpu_name = ?2, driver = ?3, cuda = ?4,"
		" torch = ?5, python = ?6, env_json = ?7 WHERE id = ?1";
	sqlite3_stmt *st;
	char *env = cJSON_PrintUnformatted(hello);
	int rc;

	if (!env)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	if (prepare(s, sql, &st, e)) {
		cJSON_free(env);
		return e->code;
	}
	sqlite3_bind_int64(st, 1, run_id);
	bind_str(st, 2, str_of(hello, "gpu_name") ? str_of(hello, "gpu_name") :
		 str_of(hello, "cpu"));
	bind_str(st, 3, str_of(hello, "driver"));
	bind_str(st, 4, str_of(hello, "cuda"));
	bind_str(st, 5, str_of(hello, "torch"));
	bind_str(st, 6, str_of(hello, "python"));
	sqlite3_bind_text(st, 7, env, -1, cJSON_free);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return store_db_err(store_db(s), "record run environment", e);
	return HR_OK;
}
