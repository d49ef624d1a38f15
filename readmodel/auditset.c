/* auditset.c - see auditset.h. */
#include "auditset.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataset/store.h"
#include "../verify/gates.h"

static const char query[] =
	"SELECT name, problem_sha256, dtype, device, level, problem_id,"
	" max_abs_ref, rms_ref, gates_json FROM problem_audit"
	" ORDER BY level, problem_id, dtype, device, id";

static double json_num(const cJSON *o, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsNumber(v) ? v->valuedouble : NAN;
}

static int json_flag(const cJSON *o, const char *key)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static int cmp_gate(const void *a, const void *b)
{
	return strcmp(((const struct audit_gate *)a)->preset,
		      ((const struct audit_gate *)b)->preset);
}

static int parse_gates(struct audit_row *r, const char *json,
		       struct hr_err *e)
{
	cJSON *doc = json ? cJSON_Parse(json) : NULL;
	const cJSON *g;

	if (!cJSON_IsObject(doc)) {
		cJSON_Delete(doc);
		return hr_errf(e, HR_INPUT, "problem_audit: level %d problem "
			       "%d: gates_json is not a JSON object",
			       r->level, r->problem_id);
	}
	cJSON_ArrayForEach(g, doc) {
		struct audit_gate *out;

		if (r->ngates == AUDIT_MAX_PRESETS || !cJSON_IsObject(g))
			continue;
		out = &r->gates[r->ngates++];
		snprintf(out->preset, sizeof(out->preset), "%s", g->string);
		out->atol = json_num(g, "atol");
		out->rtol = json_num(g, "rtol");
		out->margin = json_num(g, "margin");
		out->zeros = json_flag(g, "zeros");
		out->constant = json_flag(g, "constant");
		out->input = json_flag(g, "input");
		out->degenerate = json_flag(g, "degenerate");
	}
	cJSON_Delete(doc);
	qsort(r->gates, (size_t)r->ngates, sizeof(r->gates[0]), cmp_gate);
	return HR_OK;
}

struct load {
	struct auditset *as;
	size_t cap;
};

static int add_row(sqlite3_stmt *st, void *arg, struct hr_err *e)
{
	struct load *l = arg;
	struct auditset *as = l->as;
	struct audit_row *r;

	if (as->n == l->cap) {
		size_t nc = l->cap ? 2 * l->cap : 64;
		struct audit_row *p = realloc(as->rows, nc * sizeof(*p));

		if (!p)
			return hr_errf(e, HR_SYSTEM, "out of memory");
		as->rows = p;
		l->cap = nc;
	}
	r = &as->rows[as->n++];
	memset(r, 0, sizeof(*r));
	r->name = store_col_dup(st, 0, "");
	r->sha256 = store_col_dup(st, 1, "");
	r->dtype = store_col_dup(st, 2, "");
	r->device = store_col_dup(st, 3, "");
	r->level = sqlite3_column_int(st, 4);
	r->problem_id = sqlite3_column_int(st, 5);
	r->max_abs_ref = sqlite3_column_type(st, 6) == SQLITE_NULL ?
		NAN : sqlite3_column_double(st, 6);
	r->rms_ref = sqlite3_column_type(st, 7) == SQLITE_NULL ?
		NAN : sqlite3_column_double(st, 7);
	if (!r->name || !r->sha256 || !r->dtype || !r->device)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	return parse_gates(r, (const char *)sqlite3_column_text(st, 8), e);
}

int auditset_load(struct auditset *as, sqlite3 *db, struct hr_err *e)
{
	struct load l = { as, 0 };

	memset(as, 0, sizeof(*as));
	return store_each(db, query, add_row, &l, e);
}

void auditset_release(struct auditset *as)
{
	for (size_t i = 0; i < as->n; i++) {
		free(as->rows[i].name);
		free(as->rows[i].sha256);
		free(as->rows[i].dtype);
		free(as->rows[i].device);
	}
	free(as->rows);
	memset(as, 0, sizeof(*as));
}

int audit_gate_vacuous(const struct audit_gate *g)
{
	return hr_gates_vacuous(g->zeros, g->constant, g->input, g->degenerate);
}

const char *audit_preset_for(const char *harness, const char *precision,
			     double atol)
{
	if (harness && (!strcmp(harness, "kernelbench-v0") ||
			!strcmp(harness, "kernelbench-v0.1")))
		return "kernelbench-v0";
	if (!precision)
		return NULL;
	if (!strcmp(precision, "bf16"))
		return "kernelbench-bf16";
	if (!strcmp(precision, "fp16"))
		return "kernelbench-fp16";
	if (!strcmp(precision, "fp32") && !isnan(atol)) {
		if (fabs(atol - 1e-2) < 1e-9)
			return "kernelbench-v0";
		if (fabs(atol - 1e-4) < 1e-12)
			return "kernelbench-fp32";
	}
	return NULL;
}

/* The rows come ordered by (level, problem_id) (query): the first of a
 * problem is the lower bound of a binary search. */
const struct audit_row *auditset_find(const struct auditset *as, int level,
				      int problem_id)
{
	size_t lo = 0, hi = as->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct audit_row *r = &as->rows[mid];

		if (r->level < level ||
		    (r->level == level && r->problem_id < problem_id))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < as->n && as->rows[lo].level == level &&
	    as->rows[lo].problem_id == problem_id)
		return &as->rows[lo];
	return NULL;
}

const struct audit_gate *audit_row_gate(const struct audit_row *r,
					const char *preset)
{
	for (int i = 0; i < r->ngates; i++)
		if (!strcmp(r->gates[i].preset, preset))
			return &r->gates[i];
	return NULL;
}
