/* evaldetail.c - see evaldetail.h. */
#include "evaldetail.h"

#include <string.h>

#include "../dataset/store.h"

static const char eval_sql[] =
	"SELECT e.run, e.hardware, e.runtime_ms, e.runtime_std_ms,"
	" e.runtime_min_ms, e.runtime_max_ms, e.num_trials,"
	" e.correct_trials_passed, e.correct_trials_total, e.error_kind,"
	" e.error_text, k.sha256 AS kernel_sha256, k.code"
	" FROM evaluation e LEFT JOIN kernel k ON k.id = e.kernel_id"
	" WHERE e.id = ?1";

static const char job_sql[] =
	"SELECT j.id, r.mode, j.verdict, j.phase, j.trials_passed,"
	" j.trials_total, j.runtime_ms, j.runtime_stats_json,"
	" j.baseline_kind, j.baseline_ms, j.baseline_stats_json, j.speedup,"
	" j.ci_low, j.ci_high, j.error_kind, j.error_text, j.build_log_tail,"
	" j.finished_at, r.device, r.gpu_name, r.driver, r.cuda, r.torch,"
	" r.tool_version AS replay_tool_version,"
	" CASE WHEN json_valid(r.env_json) THEN"
	"   json_extract(r.env_json, '$.clocks') END AS clocks_json"
	" FROM replay_job j JOIN replay_run r ON r.id = j.run_id"
	" WHERE j.id = ?1";

int evaldetail_open(struct evaldetail *d, sqlite3 *db, struct hr_err *e)
{
	memset(d, 0, sizeof(*d));
	d->db = db;
	if (sqlite3_prepare_v2(db, eval_sql, -1, &d->eval, NULL) != SQLITE_OK)
		return store_db_err(db, NULL, e);
	if (store_has_table(db, "replay_job") &&
	    sqlite3_prepare_v2(db, job_sql, -1, &d->job, NULL) != SQLITE_OK)
		return store_db_err(db, NULL, e);
	return HR_OK;
}

void evaldetail_close(struct evaldetail *d)
{
	sqlite3_finalize(d->eval);
	sqlite3_finalize(d->job);
	d->eval = d->job = NULL;
}

cJSON *evaldetail_column_json(sqlite3_stmt *st, int c)
{
	const char *name = sqlite3_column_name(st, c);
	const char *txt;
	size_t n = strlen(name);

	switch (sqlite3_column_type(st, c)) {
	case SQLITE_INTEGER:
		return cJSON_CreateNumber((double)sqlite3_column_int64(st, c));
	case SQLITE_FLOAT:
		return cJSON_CreateNumber(sqlite3_column_double(st, c));
	case SQLITE_NULL:
		return cJSON_CreateNull();
	default:
		txt = (const char *)sqlite3_column_text(st, c);
		if (n > 5 && !strcmp(name + n - 5, "_json")) {
			cJSON *v = cJSON_Parse(txt);

			if (v)
				return v;
		}
		return cJSON_CreateString(txt);
	}
}

static int row_into(struct evaldetail *d, sqlite3_stmt *st, int64_t id,
		    cJSON *obj, struct hr_err *e)
{
	int rc;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_DONE)
		return HR_OK;
	if (rc != SQLITE_ROW)
		return store_db_err(d->db, NULL, e);
	for (int c = 0; c < sqlite3_column_count(st); c++) {
		cJSON *v = evaldetail_column_json(st, c);

		if (!v || !cJSON_AddItemToObject(obj, sqlite3_column_name(
							 st, c), v)) {
			cJSON_Delete(v);
			return hr_errf(e, HR_SYSTEM, "out of memory");
		}
	}
	return HR_OK;
}

int evaldetail_eval(struct evaldetail *d, int64_t id, cJSON *obj,
		    struct hr_err *e)
{
	return row_into(d, d->eval, id, obj, e);
}

int evaldetail_job(struct evaldetail *d, int64_t job_id, cJSON *obj,
		   struct hr_err *e)
{
	if (!d->job)
		return HR_OK;
	return row_into(d, d->job, job_id, obj, e);
}
