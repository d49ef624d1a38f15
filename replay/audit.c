/* audit.c - see audit.h. */
#include "audit.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../dataset/base/vocab.h"
#include "pool.h"
#include "proto.h"

/* KernelBench's tolerances (DESIGN.md, Verification): v0/v0.1 checked
 * fp32 at 1e-2; the current harness fp32 at 1e-4, fp16/bf16 at 1e-2. */
const struct audit_preset audit_presets[] = {
	{ "kernelbench-v0", "v0", "fp32", 1e-2 },
	{ "kernelbench-fp32", "current", "fp32", 1e-4 },
	{ "kernelbench-fp16", "current", "fp16", 1e-2 },
	{ "kernelbench-bf16", "current", "bf16", 1e-2 },
};
const int audit_npresets = sizeof(audit_presets) / sizeof(audit_presets[0]);

struct problem {
	char *sha256, *name, *file, *code;
	int level, problem_id;
};

static void free_problems(struct problem *p, int n)
{
	for (int i = 0; i < n; i++) {
		free(p[i].sha256);
		free(p[i].name);
		free(p[i].file);
		free(p[i].code);
	}
	free(p);
}

/* Distinct problems (by content) of the chosen set and selection. */
static int load_problems(struct store *s, const struct audit_opts *o,
			 struct problem **out, int *n, struct hr_err *e)
{
	static const char sql[] =
		"SELECT p.sha256, p.level, p.problem_id, p.name, p.file_name,"
		" p.code FROM problem p JOIN problem_set ps ON ps.id = p.set_id"
		" WHERE (:set IS NULL OR ps.name = :set) AND " EVALSEL_PROBLEM_WHERE
		" GROUP BY p.sha256 ORDER BY p.level, p.problem_id, p.name";
	sqlite3 *db = store_db(s);
	sqlite3_stmt *st;
	struct problem *v = NULL;
	int cap = 0, rc;

	*out = NULL;
	*n = 0;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return store_db_err(db, NULL, e);
	if (o->set)
		sqlite3_bind_text(st, sqlite3_bind_parameter_index(st, ":set"),
				  o->set, -1, SQLITE_STATIC);
	if (o->sel && evalsel_bind(o->sel, st) != SQLITE_OK) {
		sqlite3_finalize(st);
		return store_db_err(db, NULL, e);
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			struct problem *p;

			cap = cap ? 2 * cap : 32;
			if (!(p = realloc(v, (size_t)cap * sizeof(*p)))) {
				hr_errf(e, HR_SYSTEM, "out of memory");
				break;
			}
			v = p;
		}
		struct problem *p = &v[(*n)++];
		p->sha256 = store_col_dup(st, 0, "");
		p->level = sqlite3_column_int(st, 1);
		p->problem_id = sqlite3_column_int(st, 2);
		p->name = store_col_dup(st, 3, "");
		p->file = store_col_dup(st, 4, "");
		p->code = store_col_dup(st, 5, "");
		if (!p->sha256 || !p->name || !p->file || !p->code) {
			hr_errf(e, HR_SYSTEM, "out of memory");
			break;
		}
	}
	if (rc != SQLITE_DONE && rc != SQLITE_ROW)
		store_db_err(db, NULL, e);
	sqlite3_finalize(st);
	if (e->code) {
		free_problems(v, *n);
		*n = 0;
		return e->code;
	}
	*out = v;
	return HR_OK;
}

/* Start the worker and wait for its hello; torch[64] gets the torch
 * version it names (stored with each audit). */
static int start_worker(struct wproc *w, const struct audit_opts *o,
			char *torch, struct hr_err *e)
{
	struct wproc_spec spec = {
		.opts = &o->w, .gpu = o->w.gpus, .scratch = o->w.scratch,
		.cache = o->w.cache,
	};
	const cJSON *t;
	cJSON *hello;

	if (wproc_start_hello(w, &spec, 1, &hello, e))
		return e->code;
	t = cJSON_GetObjectItemCaseSensitive(hello, "torch");
	snprintf(torch, 64, "%s", cJSON_IsString(t) ? t->valuestring : "");
	cJSON_Delete(hello);
	return HR_OK;
}

static cJSON *job_message(const struct problem *p, int id, int on_device)
{
	cJSON *m = proto_job_new(id, 0, STOP_REFERENCE), *ps;

	if (!m)
		return NULL;
	ps = cJSON_CreateArray();
	cJSON_AddStringToObject(m, "problem_code", p->code);
	cJSON_AddStringToObject(m, "problem_file", p->file);
	cJSON_AddStringToObject(m, "candidate_code", "");
	cJSON_AddStringToObject(m, "mode", hr_mode_name(MODE_FAITHFUL));
	/* v0.1 semantics: inputs moved to the device, not cast (the current
	 * harness casts integer targets to float too, which breaks e.g.
	 * CrossEntropyLoss references); the presets set each tolerance. */
	cJSON_AddStringToObject(m, "harness", "v0.1");
	cJSON_AddStringToObject(m, "precision", "fp32");
	cJSON_AddNumberToObject(m, "seed", 42);
	cJSON_AddStringToObject(m, "audit_inputs", on_device ? "device" : "host");
	for (int i = 0; i < audit_npresets; i++) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "name", audit_presets[i].name);
		cJSON_AddStringToObject(x, "harness", audit_presets[i].harness);
		cJSON_AddStringToObject(x, "dtype", audit_presets[i].dtype);
		cJSON_AddNumberToObject(x, "tol", audit_presets[i].tol);
		cJSON_AddItemToArray(ps, x);
	}
	cJSON_AddItemToObject(m, "audit_presets", ps);
	return m;
}

static double num(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

/* Store one audited result. */
static int store_result(struct store *s, const struct audit_opts *o,
			const struct problem *p, const cJSON *audit,
			const char *torch, struct audit_row *row,
			char **gates_out, struct hr_err *e)
{
	const cJSON *stats = cJSON_GetObjectItemCaseSensitive(audit, "stats");
	const cJSON *gates = cJSON_GetObjectItemCaseSensitive(audit, "gates");
	const cJSON *shape = cJSON_GetObjectItemCaseSensitive(audit,
							     "output_shape");
	char *shape_s = cJSON_PrintUnformatted(shape);
	char *gates_s = cJSON_PrintUnformatted(gates);
	struct store_audit a = {
		.problem_sha256 = p->sha256, .level = p->level,
		.problem_id = p->problem_id, .name = p->name,
		.device = o->w.device, .dtype = "fp32", .seed = 42,
		.output_shape = shape_s,
		.output_numel = (int64_t)num(audit, "numel"),
		.max_abs_ref = num(stats, "ref_amax"),
		.rms_ref = num(stats, "ref_rms"), .gates_json = gates_s,
		.torch = *torch ? torch : NULL,
	};

	if (!cJSON_IsObject(gates) || !cJSON_IsArray(shape) || !shape_s ||
	    !gates_s) {
		free(shape_s);
		free(gates_s);
		return hr_errf(e, HR_SYSTEM, "%s: the worker's audit answer is "
			       "incomplete", p->file);
	}
	if (store_begin(s, e) == HR_OK &&
	    store_put_problem_audit(s, &a, e) == HR_OK)
		store_commit(s, e);
	if (e->code)
		store_rollback(s);
	row->max_abs_ref = a.max_abs_ref;
	*gates_out = gates_s;
	free(shape_s);
	return e->code;
}

/* Run one problem.  Returns HR_OK (row filled, whatever the verdict) or a
 * store/worker-start error. */
static int audit_one(struct store *s, const struct audit_opts *o,
		     struct wproc *w, char *torch, const struct problem *p,
		     int id, struct audit_row *row, char **gates, char *why,
		     size_t whylen, struct hr_err *e)
{
	cJSON *m = job_message(p, id, o->inputs_on_device);
	cJSON *msg, *result = NULL;
	double deadline = wproc_now() + o->timeout;
	int r, rc = HR_OK;

	*gates = NULL;
	if (!m)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	row->status = PV_CRASHED;
	row->error = why;
	snprintf(why, whylen, "the worker ended without an answer");
	if (wproc_send(w, m)) {
		cJSON_Delete(m);
		goto lost;
	}
	cJSON_Delete(m);
	while ((r = wproc_wait_line(w, deadline, &msg)) == 1) {
		enum proto_type t = proto_type_of(msg);

		wproc_job_started(w, msg);
		if (t == PT_RESULT && !result) {
			result = msg;
			continue;
		} else if (t == PT_EXIT) {
			cJSON_Delete(msg);
			break;
		}
		cJSON_Delete(msg);
	}
	w->job_pgid = 0;
	if (r == 0) {
		row->status = PV_TIMEOUT;
		snprintf(why, whylen, "the reference ran past %g s",
			 o->timeout);
		goto lost;
	}
	if (r < 0)
		goto lost;
	if (!result)
		goto done;
	const cJSON *err = cJSON_GetObjectItemCaseSensitive(result, "error");
	if (proto_result_verdict(result) == PV_AUDITED) {
		row->status = PV_AUDITED;
		row->error = NULL;
		rc = store_result(s, o, p, cJSON_GetObjectItemCaseSensitive(
					  result, "audit"), torch, row, gates,
				  e);
	} else {
		row->status = PV_PROBLEM_ERROR;
		snprintf(why, whylen, "%s", cJSON_IsString(err) ?
			 err->valuestring : "the reference failed");
	}
	goto done;
lost:
	/* A dead or hung worker is replaced; the next problem goes on. */
	wproc_kill(w, NULL);
	rc = start_worker(w, o, torch, e);
done:
	cJSON_Delete(result);
	return rc;
}

int audit_count(struct store *s, const struct audit_opts *o, int *n,
		struct hr_err *e)
{
	struct problem *p;

	if (load_problems(s, o, &p, n, e))
		return e->code;
	free_problems(p, *n);
	return HR_OK;
}

int audit_problems(struct store *s, const struct audit_opts *o, audit_cb cb,
		   void *cb_arg, int *failed, struct hr_err *e)
{
	struct problem *p;
	struct wproc w = { 0 };
	char why[512], torch[64] = "";
	int n;

	*failed = 0;
	w.in_fd = w.out_fd = w.err_fd = -1;
	if (load_problems(s, o, &p, &n, e))
		return e->code;
	if (n && start_worker(&w, o, torch, e)) {
		free_problems(p, n);
		return e->code;
	}
	for (int i = 0; i < n; i++) {
		struct audit_row row = {
			.level = p[i].level, .problem_id = p[i].problem_id,
			.name = p[i].name, .sha256 = p[i].sha256,
			.max_abs_ref = NAN,
		};
		char *gates = NULL;

		if (audit_one(s, o, &w, torch, &p[i], i + 1, &row, &gates, why,
			      sizeof(why), e))
			break;
		row.gates_json = gates;
		if (row.status != PV_AUDITED)
			(*failed)++;
		if (cb)
			cb(cb_arg, &row, i + 1, n);
		free(gates);
	}
	wproc_stop(&w, 2000);
	free_problems(p, n);
	return e->code;
}
