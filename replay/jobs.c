/* jobs.c - see jobs.h. */
#include "jobs.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataset/harness.h"
#include "../dataset/base/version.h"
#include "../dataset/ingest.h"
#include "audit.h"
#include "proto.h"
#include "verdict.h"

static int prepare(struct store *s, const char *sql, sqlite3_stmt **st,
		   struct hr_err *e)
{
	if (sqlite3_prepare_v2(store_db(s), sql, -1, st, NULL) != SQLITE_OK)
		return store_db_err(store_db(s), "prepare", e);
	return HR_OK;
}

int jobs_shard_of(int64_t evaluation_id, int shard_n)
{
	/* splitmix64 finaliser: ids are dense, the mix spreads them. */
	uint64_t z = (uint64_t)evaluation_id + 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	z ^= z >> 31;
	return shard_n > 0 ? (int)(z % (uint64_t)shard_n) : 0;
}

/* "12_Conv2d.py", "12_Conv2d" and "Conv2d" all name problem Conv2d. */
static const char *bare_name(const char *name, char *buf, size_t n)
{
	const char *p = name;
	size_t len;

	while (isdigit((unsigned char)*p))
		p++;
	if (p != name && *p == '_')
		name = p + 1;
	snprintf(buf, n, "%s", name);
	len = strlen(buf);
	if (len > 3 && !strcmp(buf + len - 3, ".py"))
		buf[len - 3] = '\0';
	return buf;
}

struct match {
	int64_t problem;        /* 0: none */
	char how[160];          /* JSON object */
};

/* Find the problem of (level, problem_id, name): level + id, narrowed by
 * name when both sides have one; level + name alone when the id names
 * another problem (a 0/1-based id mix-up).  Several left: the newest
 * problem set wins and the match says it was ambiguous. */
static int match_problem(struct store *s, sqlite3_stmt *by_id,
			 sqlite3_stmt *by_name, int level, int pid,
			 const char *name, struct match *m, struct hr_err *e)
{
	char want[256], have[256];
	int n_id = 0, n_named = 0, n_byname = 0, rc;
	int64_t first_id = 0, first_named = 0;

	m->problem = 0;
	if (name)
		bare_name(name, want, sizeof(want));
	sqlite3_reset(by_id);
	sqlite3_bind_int(by_id, 1, level);
	sqlite3_bind_int(by_id, 2, pid);
	while ((rc = sqlite3_step(by_id)) == SQLITE_ROW) {
		const char *pn = (const char *)sqlite3_column_text(by_id, 1);

		if (!n_id++)
			first_id = sqlite3_column_int64(by_id, 0);
		if (name && pn && !strcmp(bare_name(pn, have, sizeof(have)), want)
		    && !n_named++)
			first_named = sqlite3_column_int64(by_id, 0);
	}
	if (rc != SQLITE_DONE)
		return store_db_err(store_db(s), "match problem", e);
	if (!name || !n_id) {
		m->problem = first_id;
		snprintf(m->how, sizeof(m->how), "{\"by\":\"level+id\","
			 "\"candidates\":%d,\"ambiguous\":%s}", n_id,
			 n_id > 1 ? "true" : "false");
		if (n_id || !name)
			return HR_OK;
	} else if (n_named) {
		m->problem = first_named;
		snprintf(m->how, sizeof(m->how), "{\"by\":\"level+id+name\","
			 "\"candidates\":%d,\"ambiguous\":%s}", n_named,
			 n_named > 1 ? "true" : "false");
		return HR_OK;
	}
	/* The id names another problem, or none: try the name alone. */
	sqlite3_reset(by_name);
	sqlite3_bind_int(by_name, 1, level);
	while ((rc = sqlite3_step(by_name)) == SQLITE_ROW) {
		const char *pn = (const char *)sqlite3_column_text(by_name, 1);

		if (pn && !strcmp(bare_name(pn, have, sizeof(have)), want) &&
		    !n_byname++)
			m->problem = sqlite3_column_int64(by_name, 0);
	}
	if (rc != SQLITE_DONE)
		return store_db_err(store_db(s), "match problem", e);
	snprintf(m->how, sizeof(m->how), "{\"by\":\"level+name\","
		 "\"candidates\":%d,\"ambiguous\":%s,\"id_names_other\":%d}",
		 n_byname, n_byname > 1 ? "true" : "false", n_id);
	return HR_OK;
}

/* What a CPU run cannot run (device "cpu"): a candidate that compiles
 * CUDA code or defines a Triton kernel.  On a machine without a GPU its
 * build fails in PyTorch's extension builder (an IndexError from the empty
 * list of CUDA architectures), which would read as the kernel's fault; it
 * is not built at all.  Matched like the static rules (rules.h: comment
 * lines never match).  A candidate that carries a CPU path beside its CUDA
 * source is skipped too: a rule over the source cannot see that path. */
static const char needs_gpu_rules[] =
	"[cuda-extension]\n"
	"regex = (cuda_sources[[:space:]]*=|CUDAExtension[[:space:]]*\\(|"
	"[\"'][^\"']*\\.cu[\"'])\n"
	"reason = compiles CUDA code (load_inline with cuda_sources, a .cu "
	"source or CUDAExtension)\n"
	"[triton-kernel]\n"
	"regex = @triton\\.jit\n"
	"reason = defines a Triton kernel (@triton.jit)\n";

/* why (n bytes) gets the reason a CPU run skips code, when it does: 1,
 * else 0; or an error code. */
static int needs_gpu(const struct rules *rs, const char *code, char *why,
		     size_t n, struct hr_err *e)
{
	struct rule_hit *hits = NULL;
	size_t nh = 0;

	if (rules_match(rs, code, &hits, &nh, e))
		return e->code;
	if (nh)
		snprintf(why, n, "needs a GPU: the candidate %s, line %d: %s; "
			 "a CPU run does not build it (replay it with "
			 "--device cuda)", hits[0].rule->reason, hits[0].line,
			 hits[0].text);
	free(hits);
	return nh ? 1 : 0;
}

int jobs_create_run(struct store *s, enum hr_mode mode, const char *device,
		    const char *shard, const char *settings_json,
		    const struct jobs_filter *f, int64_t *run_id,
		    struct hr_err *e)
{
	static const char run_sql[] =
		"INSERT INTO replay_run(uuid, state, mode, device, shard,"
		" settings_json, tool_version, started_at)"
		" VALUES (lower(hex(randomblob(16))), 'running', ?1, ?2, ?3, ?4,"
		" ?5, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))";
	static const char eval_sql[] =
		"SELECT e.id, e.level, e.problem_id, e.problem_name, e.kernel_id,"
		" k.code, e.source_id"
		" FROM evaluation e JOIN source s ON s.id = e.source_id"
		" LEFT JOIN kernel k ON k.id = e.kernel_id"
		" WHERE " EVALSEL_WHERE " ORDER BY e.id";
	static const char by_id_sql[] =
		"SELECT p.id, p.name FROM problem p"
		" JOIN problem_set ps ON ps.id = p.set_id"
		" WHERE p.level = ?1 AND p.problem_id = ?2"
		" AND (?3 IS NULL OR ps.name = ?3) ORDER BY p.id DESC";
	static const char by_name_sql[] =
		"SELECT p.id, p.name FROM problem p"
		" JOIN problem_set ps ON ps.id = p.set_id"
		" WHERE p.level = ?1 AND (?2 IS NULL OR ps.name = ?2)"
		" ORDER BY p.id DESC";
	/* The reference code the evaluation's own record carried (a
	 * leaderboard mapping's reference_code target, dataset/ingest.h). */
	static const char own_sql[] =
		"SELECT p.id FROM problem p"
		" JOIN problem_set ps ON ps.id = p.set_id"
		" JOIN source s ON s.id = ps.source_id"
		" WHERE ps.source_id = ?1 AND p.level = ?2 AND p.problem_id = ?3"
		" AND ps.name = s.name || '" INGEST_REFERENCE_SET_SUFFIX "'";
	static const char job_sql[] =
		"INSERT INTO replay_job(run_id, evaluation_id, problem_ref,"
		" problem_match, state, verdict, error_text, finished_at,"
		" audit_verdict, findings_json)"
		" VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, CASE WHEN ?5 = 'done' THEN"
		" strftime('%Y-%m-%dT%H:%M:%fZ', 'now') END, ?8, ?9)";
	sqlite3_stmt *run = NULL, *ev = NULL, *by_id = NULL, *by_name = NULL;
	sqlite3_stmt *job = NULL, *own = NULL;
	struct rules gpu_rules = { 0 };
	int rc, taken = 0, cpu = !strcmp(device, "cpu");
	char gpu_why[320];

	if (cpu && rules_parse(&gpu_rules, needs_gpu_rules, "needs-gpu rules",
			       e)) {
		rules_release(&gpu_rules);
		return e->code;
	}
	if (store_begin(s, e)) {
		rules_release(&gpu_rules);
		return e->code;
	}
	if (prepare(s, run_sql, &run, e) || prepare(s, eval_sql, &ev, e) ||
	    prepare(s, by_id_sql, &by_id, e) ||
	    prepare(s, by_name_sql, &by_name, e) || prepare(s, job_sql, &job, e) ||
	    prepare(s, own_sql, &own, e))
		goto fail;
	sqlite3_bind_text(run, 1, hr_mode_name(mode), -1, SQLITE_STATIC);
	sqlite3_bind_text(run, 2, device, -1, SQLITE_STATIC);
	if (shard)
		sqlite3_bind_text(run, 3, shard, -1, SQLITE_STATIC);
	sqlite3_bind_text(run, 4, settings_json, -1, SQLITE_STATIC);
	sqlite3_bind_text(run, 5, hr_version(), -1, SQLITE_STATIC);
	if (sqlite3_step(run) != SQLITE_DONE) {
		store_db_err(store_db(s), "insert replay run", e);
		goto fail;
	}
	*run_id = sqlite3_last_insert_rowid(store_db(s));
	if (f->sel && evalsel_bind(f->sel, ev) != SQLITE_OK) {
		store_db_err(store_db(s), "select evaluations", e);
		goto fail;
	}
	if (f->problems_set) {
		sqlite3_bind_text(by_id, 3, f->problems_set, -1, SQLITE_STATIC);
		sqlite3_bind_text(by_name, 2, f->problems_set, -1, SQLITE_STATIC);
	}
	while ((rc = sqlite3_step(ev)) == SQLITE_ROW) {
		int64_t eid = sqlite3_column_int64(ev, 0);
		const char *name = (const char *)sqlite3_column_text(ev, 3);
		int has_kernel = sqlite3_column_type(ev, 4) != SQLITE_NULL;
		struct match m;
		const char *verdict = NULL, *why = NULL;

		if (f->shard_n > 0 && jobs_shard_of(eid, f->shard_n) != f->shard_i)
			continue;
		/* --limit: the statement has rows left, which is no error. */
		if (f->limit > 0 && taken >= f->limit) {
			rc = SQLITE_DONE;
			break;
		}
		taken++;
		/* Its own record's reference first, unless --problems-set
		 * names the set to match against. */
		m.problem = 0;
		if (!f->problems_set) {
			sqlite3_reset(own);
			sqlite3_bind_int64(own, 1, sqlite3_column_int64(ev, 6));
			sqlite3_bind_int(own, 2, sqlite3_column_int(ev, 1));
			sqlite3_bind_int(own, 3, sqlite3_column_int(ev, 2));
			rc = sqlite3_step(own);
			if (rc == SQLITE_ROW) {
				m.problem = sqlite3_column_int64(own, 0);
				snprintf(m.how, sizeof(m.how), "{\"by\":"
					 "\"record-reference\",\"candidates\":1,"
					 "\"ambiguous\":false}");
			} else if (rc != SQLITE_DONE) {
				store_db_err(store_db(s), "match problem", e);
				goto fail;
			}
		}
		if (!m.problem &&
		    match_problem(s, by_id, by_name, sqlite3_column_int(ev, 1),
				  sqlite3_column_int(ev, 2), name, &m, e))
			goto fail;
		if (!m.problem) {
			verdict = "no_problem";
			why = "no stored problem matches this evaluation "
			      "(headroom problems add DIR)";
		} else if (!has_kernel) {
			verdict = "no_kernel";
			why = "the archive holds no kernel code for this "
			      "evaluation";
		} else if (cpu) {
			int ng = needs_gpu(&gpu_rules, (const char *)
					   sqlite3_column_text(ev, 5), gpu_why,
					   sizeof(gpu_why), e);

			if (ng < 0 || ng > 1)
				goto fail;
			if (ng) {
				verdict = "needs_gpu";
				why = gpu_why;
			}
		}
		sqlite3_reset(job);
		sqlite3_clear_bindings(job);
		sqlite3_bind_int64(job, 1, *run_id);
		sqlite3_bind_int64(job, 2, eid);
		if (m.problem)
			sqlite3_bind_int64(job, 3, m.problem);
		sqlite3_bind_text(job, 4, m.how, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(job, 5, verdict ? "done" : "pending", -1,
				  SQLITE_STATIC);
		if (verdict) {
			struct verdict_in vin = {
				.verdict = proto_verdict_of(verdict),
				.mode = mode };
			struct verdict_out v;
			cJSON *doc;
			char *txt = NULL;

			verdict_compute(&vin, &v);
			doc = verdict_findings_json(NULL, NULL, &v);
			if (!doc || !(txt = cJSON_PrintUnformatted(doc))) {
				cJSON_Delete(doc);
				hr_errf(e, HR_SYSTEM, "out of memory");
				goto fail;
			}
			cJSON_Delete(doc);
			sqlite3_bind_text(job, 6, verdict, -1, SQLITE_STATIC);
			sqlite3_bind_text(job, 7, why, -1, SQLITE_TRANSIENT);
			sqlite3_bind_text(job, 8, v.verdict, -1,
					  SQLITE_TRANSIENT);
			sqlite3_bind_text(job, 9, txt, -1, cJSON_free);
		}
		if (sqlite3_step(job) != SQLITE_DONE) {
			store_db_err(store_db(s), "insert replay job", e);
			hr_err_prefix(e, "evaluation %lld", (long long)eid);
			goto fail;
		}
	}
	if (rc != SQLITE_DONE) {
		store_db_err(store_db(s), "read evaluations", e);
		goto fail;
	}
	sqlite3_finalize(run);
	sqlite3_finalize(ev);
	sqlite3_finalize(by_id);
	sqlite3_finalize(by_name);
	sqlite3_finalize(job);
	sqlite3_finalize(own);
	rules_release(&gpu_rules);
	return store_commit(s, e);
fail:
	sqlite3_finalize(own);
	rules_release(&gpu_rules);
	sqlite3_finalize(run);
	sqlite3_finalize(ev);
	sqlite3_finalize(by_id);
	sqlite3_finalize(by_name);
	sqlite3_finalize(job);
	store_rollback(s);
	return e->code;
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
		     const struct job_outcome *o, const char *verdict,
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
		.res = o->res, .verdict = proto_verdict_of(verdict),
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
	const char *verdict = o->verdict ? o->verdict : str_of(r, "verdict");
	const char *ekind = o->error_kind ? o->error_kind : str_of(r, "error_kind");
	const char *etext = o->error_text ? o->error_text : str_of(r, "error");
	const char *phase = o->phase ? o->phase : str_of(r, "phase");
	struct verdict_out audit;
	char *findings;
	sqlite3_stmt *st;
	int rc;

	*written = 0;
	if (!proto_verdict_ends_job(proto_verdict_of(verdict))) {
		ekind = "protocol";
		etext = verdict ? "worker answered an unknown verdict" :
			"worker answered no verdict";
		verdict = "crashed";
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
	sqlite3_bind_text(st, 2, verdict, -1, SQLITE_STATIC);
	bind_bool(st, 3, r, "compiled");
	bind_bool(st, 4, r, "correct");
	if (!strcmp(verdict, "correct"))
		sqlite3_bind_int(st, 4, 1);
	else if (!strcmp(verdict, "timeout") || !strcmp(verdict, "crashed"))
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
