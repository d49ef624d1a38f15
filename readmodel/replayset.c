/* replayset.c - see replayset.h. */
#include "replayset.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataset/base/vocab.h"
#include "../dataset/harness.h"
#include "../dataset/store.h"

static const char query[] =
	"SELECT j.evaluation_id, r.mode, j.correct, j.speedup, j.ci_low,"
	" j.ci_high, j.checks_json, j.audit_verdict, j.findings_json,"
	/* 9-13: the tolerance the job used and what chose it
	 * (harness_tolerance_text) */
	HARNESS_TOLERANCE_SQL
	" (SELECT harness FROM evaluation WHERE id = j.evaluation_id),"
	/* 14: the share of the call's time in the candidate's own code
	 * (the job's GPU-escapes pass, hrworker/escapes.py) */
	" CASE WHEN json_valid(j.checks_json) THEN"
	"   json_extract(j.checks_json, '$.escapes.profile.share.own_share') END,"
	/* 15 */
	" j.id"
	" FROM replay_job j JOIN replay_run r ON r.id = j.run_id"
	" WHERE j.state = 'done'"
	" ORDER BY j.evaluation_id, r.mode, r.id DESC, j.id DESC";

/* The run whose machine the reports name: the latest finished one where a
 * worker started and said hello (torch set).  A later run whose every job
 * ended before a worker (needs_gpu on the CPU, no problem) measured
 * nothing and names no machine. */
#define ENV_RUN "state = 'finished' AND torch IS NOT NULL"

/* json_type of the worker's hello's "rand": 'text' (the rand library's
 * path: it drew the plain torch.rand calls), 'null' (torch drew them), or
 * NULL (a run from before the library, or no hello stored). */
static const char env_query[] =
	"SELECT gpu_name, driver, cuda, torch, json_type(env_json, '$.rand'),"
	" device, json_extract(env_json, '$.cpu'),"
	" json_extract(env_json, '$.clocks.\"clocks.sm\"'),"
	" json_extract(env_json, '$.clocks.\"clocks.max.sm\"'),"
	" json_extract(env_json, '$.clocks.\"clocks.mem\"')"
	" FROM replay_run WHERE " ENV_RUN " ORDER BY id DESC LIMIT 1";

/* The SM clocks the judge sampled around the timed calls of that run's
 * jobs (checks.clocks, hrworker/timing.py), and the robust rounds it
 * dropped as throttled. */
static const char clocks_query[] =
	"SELECT count(*), min(json_extract(j.checks_json, '$.clocks.sm_mhz.min')),"
	" max(json_extract(j.checks_json, '$.clocks.sm_mhz.max')),"
	" total(json_extract(j.checks_json, '$.clocks.dropped'))"
	" FROM replay_job j WHERE j.run_id = (SELECT id FROM replay_run"
	" WHERE " ENV_RUN " ORDER BY id DESC LIMIT 1)"
	" AND json_extract(j.checks_json, '$.clocks.available') = 1"
	" AND json_extract(j.checks_json, '$.clocks.sm_mhz.min') IS NOT NULL";

static double col_real(sqlite3_stmt *st, int c)
{
	return sqlite3_column_type(st, c) == SQLITE_NULL ? NAN :
		sqlite3_column_double(st, c);
}

/* 1 when every correctness trial recorded scale_invariant_pass true, 0
 * when one recorded false, -1 when none recorded it. */
static int scale_invariant(const char *checks_json)
{
	cJSON *doc = checks_json ? cJSON_Parse(checks_json) : NULL;
	const cJSON *t;
	int seen = 0, pass = 1;

	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(doc,
							       "trials")) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(
			t, "scale_invariant_pass");

		if (!cJSON_IsNumber(v) && !cJSON_IsBool(v))
			continue;
		seen = 1;
		if (cJSON_IsNumber(v) ? v->valueint == 0 : cJSON_IsFalse(v))
			pass = 0;
	}
	cJSON_Delete(doc);
	return seen ? pass : -1;
}

/* A text column, or "?" when NULL. */
static const char *col_text(sqlite3_stmt *st, int c)
{
	const char *v = (const char *)sqlite3_column_text(st, c);

	return v ? v : "?";
}

/* The worker's hello as one phrase: on a GPU its name, driver, CUDA,
 * torch and the clocks nvidia-smi read when the worker started (SM now
 * and at most, memory; as nvidia-smi prints them, e.g. "1980 MHz"); on
 * the CPU the processor's model and torch.  A hello without clocks
 * (older runs, no nvidia-smi) says "clocks ?".  Then, where the run's
 * jobs sampled them (NVML, clocks_query), the SM clocks seen around the
 * timed calls and the rounds dropped as throttled. */
static void load_env(struct replayset *rs, sqlite3 *db)
{
	sqlite3_stmt *st;
	const char *rand;
	size_t n;

	if (sqlite3_prepare_v2(db, env_query, -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW) {
		rand = (const char *)sqlite3_column_text(st, 4);
		if (sqlite3_column_text(st, 5) &&
		    !strcmp((const char *)sqlite3_column_text(st, 5), "cpu"))
			snprintf(rs->env, sizeof(rs->env), "CPU %s, torch %s",
				 sqlite3_column_text(st, 6) ? col_text(st, 6) :
				 col_text(st, 0), col_text(st, 3));
		else
			snprintf(rs->env, sizeof(rs->env), "%s, driver %s, "
				 "CUDA %s, torch %s, clocks SM %s (max %s), "
				 "memory %s", col_text(st, 0), col_text(st, 1),
				 col_text(st, 2), col_text(st, 3),
				 col_text(st, 7), col_text(st, 8),
				 col_text(st, 9));
		n = strlen(rs->env);
		snprintf(rs->env + n, sizeof(rs->env) - n, "%s",
			 !rand ? "" : !strcmp(rand, "text") ?
			 "; inputs: torch.rand's stream drawn by headroom's "
			 "rand library (checked against torch)" :
			 "; inputs: drawn by torch");
	} else {
		snprintf(rs->env, sizeof(rs->env), "no worker ran (every job "
			 "ended before one started, e.g. needs_gpu on the CPU)");
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, clocks_query, -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 0) > 0) {
		n = strlen(rs->env);
		snprintf(rs->env + n, sizeof(rs->env) - n, "; SM %.0f-%.0f MHz "
			 "around the timed calls of %lld jobs, %lld throttled "
			 "rounds dropped", sqlite3_column_double(st, 1),
			 sqlite3_column_double(st, 2),
			 (long long)sqlite3_column_int64(st, 0),
			 (long long)sqlite3_column_double(st, 3));
	}
	sqlite3_finalize(st);
}

int replayset_load(struct replayset *rs, sqlite3 *db, struct hr_err *e)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	memset(rs, 0, sizeof(*rs));
	rs->why = "no replay results";
	if (!store_has_table(db, "replay_job") ||
	    !store_has_table(db, "replay_run"))
		return HR_OK;
	if (sqlite3_prepare_v2(db, query, -1, &st, NULL) != SQLITE_OK)
		return hr_errf(e, HR_SYSTEM, "database: replay tables: %s",
			       sqlite3_errmsg(db));
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *mode = (const char *)sqlite3_column_text(st, 1);
		enum hr_mode m;
		struct replay_result *res;
		struct replay_row *r;

		if (!rs->n || rs->rows[rs->n - 1].evaluation_id != id) {
			if (rs->n == cap) {
				size_t nc = cap ? 2 * cap : 64;
				struct replay_row *p =
					realloc(rs->rows, nc * sizeof(*p));

				if (!p) {
					hr_errf(e, HR_SYSTEM, "out of memory");
					break;
				}
				rs->rows = p;
				cap = nc;
			}
			r = &rs->rows[rs->n++];
			memset(r, 0, sizeof(*r));
			r->evaluation_id = id;
		}
		r = &rs->rows[rs->n - 1];
		res = !hr_mode_of(mode, &m) && m == MODE_ROBUST ?
			&r->robust : &r->faithful;
		if (res->have)
			continue; /* an older run of the same mode */
		res->have = 1;
		res->job_id = sqlite3_column_int64(st, 15);
		res->correct = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 :
			sqlite3_column_int(st, 2) != 0;
		res->speedup = col_real(st, 3);
		res->ci_low = col_real(st, 4);
		res->ci_high = col_real(st, 5);
		res->own_share = col_real(st, 14);
		res->scale_invariant = scale_invariant(
			(const char *)sqlite3_column_text(st, 6));
		snprintf(res->audit, sizeof(res->audit), "%s",
			 sqlite3_column_type(st, 7) == SQLITE_NULL ? "" :
			 (const char *)sqlite3_column_text(st, 7));
		harness_tolerance_text(
			(const char *)sqlite3_column_text(st, 9),
			(const char *)sqlite3_column_text(st, 10),
			(const char *)sqlite3_column_text(st, 11),
			(const char *)sqlite3_column_text(st, 12),
			(const char *)sqlite3_column_text(st, 13),
			res->tolerance, sizeof(res->tolerance));
		if (sqlite3_column_type(st, 8) != SQLITE_NULL &&
		    !(res->findings_json = store_col_dup(st, 8, NULL))) {
			hr_errf(e, HR_SYSTEM, "out of memory");
			break;
		}
	}
	if (e->code == HR_OK && rc != SQLITE_DONE)
		store_db_err(db, NULL, e);
	sqlite3_finalize(st);
	if (rs->n)
		load_env(rs, db);
	return e->code;
}

void replayset_release(struct replayset *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->rows[i].faithful.findings_json);
		free(rs->rows[i].robust.findings_json);
	}
	free(rs->rows);
	memset(rs, 0, sizeof(*rs));
}

const struct replay_row *replayset_find(const struct replayset *rs,
					int64_t evaluation_id)
{
	size_t lo = 0, hi = rs->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rs->rows[mid].evaluation_id == evaluation_id)
			return &rs->rows[mid];
		if (rs->rows[mid].evaluation_id < evaluation_id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct replay_result *replay_row_shown(const struct replay_row *rr)
{
	if (!rr)
		return NULL;
	if (rr->robust.have)
		return &rr->robust;
	return rr->faithful.have ? &rr->faithful : NULL;
}

double replay_result_unwritten(const struct replay_result *res)
{
	cJSON *doc = res && res->findings_json ?
		cJSON_Parse(res->findings_json) : NULL;
	const cJSON *f;
	double v = -1;

	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(doc,
							       "evidence")) {
		const char *id = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(f, "id"));
		const cJSON *frac;

		if (hr_finding_of(id) != F_PARTIAL_WRITE)
			continue;
		frac = cJSON_GetObjectItemCaseSensitive(
			cJSON_GetObjectItemCaseSensitive(f, "evidence"),
			"fraction_unwritten");
		v = cJSON_IsNumber(frac) ? frac->valuedouble : NAN;
		break;
	}
	cJSON_Delete(doc);
	return v;
}

int replayset_view(const struct replayset *rs, const struct evalset *es,
		   int robust, struct evalset *out)
{
	*out = *es;
	out->rows = malloc((es->n ? es->n : 1) * sizeof(*out->rows));
	if (!out->rows)
		return -1;
	for (size_t i = 0; i < es->n; i++) {
		const struct replay_row *r = replayset_find(rs, es->rows[i].id);
		const struct replay_result *res =
			r ? (robust ? &r->robust : &r->faithful) : NULL;
		struct evalrow *v = &out->rows[i];

		*v = es->rows[i];
		v->correct = res && res->have ? res->correct : 0;
		v->speedup = res && res->have ? res->speedup : NAN;
		if (!robust || !res || !res->have)
			continue;
		if (res->scale_invariant == 0)
			v->correct = 0;
		/* A vacuous check passes zeros: such a "correct" is no win
		 * (replay/verdict.h, correct-vacuous). */
		if (hr_audit_of(res->audit) == AV_CORRECT_VACUOUS)
			v->correct = 0;
		/* The one verdict decides what is verified (replay/verdict.h). */
		if (v->speedup > 1.0 &&
		    hr_audit_of(res->audit) != AV_VERIFIED_FASTER)
			v->speedup = 1.0;
	}
	return 0;
}

void replayset_view_release(struct evalset *view)
{
	free(view->rows);
	view->rows = NULL;
}
