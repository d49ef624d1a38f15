/* auditreport.c - see auditreport.h. */
#include "auditreport.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataset/base/vocab.h"
#include "../dataset/base/vocab.h"

static const struct replay_result *result_of(const struct replay_row *rr,
					     enum hr_mode m)
{
	const struct replay_result *res = m == MODE_ROBUST ? &rr->robust :
		&rr->faithful;

	return res->have ? res : NULL;
}

/* The first six cells every per-evaluation row starts with. */
static void eval_cells(const struct evalrow *r, const char **cells,
		       char b[4][32])
{
	snprintf(b[0], 32, "%d", r->level);
	snprintf(b[1], 32, "%d", r->problem_id);
	snprintf(b[2], 32, "%d", r->sample_id);
	snprintf(b[3], 32, "%lld", (long long)r->id);
	cells[0] = r->config;
	cells[1] = b[0];
	cells[2] = b[1];
	cells[3] = r->problem_name;
	cells[4] = b[2];
	cells[5] = b[3];
}

static const struct table_col evidence_cols[] = {
	{ "configuration", COL_TEXT }, { "level", COL_INT },
	{ "problem_id", COL_INT }, { "problem_name", COL_TEXT },
	{ "sample_id", COL_INT }, { "evaluation", COL_INT },
	{ "mode", COL_TEXT }, { "audit", COL_TEXT }, { "finding", COL_TEXT },
	{ "evidence", COL_TEXT },
};
#define N_EVIDENCE ((int)(sizeof(evidence_cols) / sizeof(evidence_cols[0])))

int auditreport_evidence(const struct evalset *es, const struct replayset *rs,
			 struct table **t, struct hr_err *e)
{
	const char *cells[N_EVIDENCE];
	char b[4][32];

	if (!(*t = table_new(evidence_cols, N_EVIDENCE)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	table_set_tex_width(*t, 9, "6cm");
	for (size_t i = 0; i < es->n && !e->code; i++) {
		const struct replay_row *rr = replayset_find(rs, es->rows[i].id);

		for (int m = 0; rr && m < HR_NMODES && !e->code; m++) {
			const struct replay_result *res = result_of(rr, (enum hr_mode)m);
			cJSON *doc = res && res->findings_json ?
				cJSON_Parse(res->findings_json) : NULL;
			const cJSON *f;

			cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(
						   doc, "evidence")) {
				const cJSON *ev = cJSON_GetObjectItemCaseSensitive(
					f, "evidence");
				char *txt = ev ? cJSON_PrintUnformatted(ev) : NULL;

				eval_cells(&es->rows[i], cells, b);
				cells[6] = hr_mode_name((enum hr_mode)m);
				cells[7] = res->audit[0] ? res->audit : NULL;
				cells[8] = cJSON_GetStringValue(
					cJSON_GetObjectItemCaseSensitive(f, "id"));
				cells[9] = txt;
				if (table_add_row(*t, cells))
					hr_errf(e, HR_SYSTEM, "out of memory");
				cJSON_free(txt);
			}
			cJSON_Delete(doc);
		}
	}
	return e->code;
}

static const struct table_col signal_cols[] = {
	{ "configuration", COL_TEXT }, { "level", COL_INT },
	{ "problem_id", COL_INT }, { "problem_name", COL_TEXT },
	{ "sample_id", COL_INT }, { "evaluation", COL_INT },
	{ "signal", COL_TEXT }, { "line", COL_INT }, { "text", COL_TEXT },
	{ "reason", COL_TEXT },
};
#define N_SIGNAL ((int)(sizeof(signal_cols) / sizeof(signal_cols[0])))

int auditreport_signals(const struct evalset *es, const struct replayset *rs,
			struct table **t, struct hr_err *e)
{
	const char *cells[N_SIGNAL];
	char b[4][32], line[32];

	if (!(*t = table_new(signal_cols, N_SIGNAL)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	table_set_tex_width(*t, 9, "5cm");
	for (size_t i = 0; i < es->n && !e->code; i++) {
		const struct replay_row *rr = replayset_find(rs, es->rows[i].id);
		const struct replay_result *res = replay_row_shown(rr);
		cJSON *doc = res && res->findings_json ?
			cJSON_Parse(res->findings_json) : NULL;
		const cJSON *f;

		cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(
					   doc, "signals")) {
			const cJSON *ln = cJSON_GetObjectItemCaseSensitive(f,
									   "line");

			eval_cells(&es->rows[i], cells, b);
			snprintf(line, sizeof(line), "%d", cJSON_IsNumber(ln) ?
				 ln->valueint : 0);
			cells[6] = cJSON_GetStringValue(
				cJSON_GetObjectItemCaseSensitive(f, "id"));
			cells[7] = cJSON_IsNumber(ln) ? line : NULL;
			cells[8] = cJSON_GetStringValue(
				cJSON_GetObjectItemCaseSensitive(f, "text"));
			cells[9] = cJSON_GetStringValue(
				cJSON_GetObjectItemCaseSensitive(f, "reason"));
			if (table_add_row(*t, cells))
				hr_errf(e, HR_SYSTEM, "out of memory");
		}
		cJSON_Delete(doc);
	}
	return e->code;
}

/* --- detection ----------------------------------------------------------- */

static const char *const kinds[] = { "planted", "honest-fast", "honest-slow" };

int auditreport_planted_class(const char *name, char *cls, size_t n,
			      const char **kind)
{
	size_t len;

	if (!name)
		return 0;
	len = strlen(name);
	if (!strncmp(name, "planted-", 8) && len > 8) {
		snprintf(cls, n, "%s", name + 8);
		*kind = kinds[0];
		return 1;
	}
	if (strncmp(name, "honest-", 7) || len < 7 + 1 + 5)
		return 0;
	for (int k = 1; k <= 2; k++) {
		const char *tail = k == 1 ? "-fast" : "-slow";

		if (!strcmp(name + len - 5, tail)) {
			snprintf(cls, n, "%.*s", (int)(len - 7 - 5), name + 7);
			*kind = kinds[k];
			return 1;
		}
	}
	return 0;
}

/* Verdict categories, in column order. */
enum { V_VERIFIED, V_CORRECT, V_VACUOUS, V_EXPLOIT, V_INCORRECT, V_FAILED,
       V_UNAUDITED, V_N };

static int category(const char *v)
{
	if (!*v)
		return V_UNAUDITED;
	switch (hr_audit_of(v)) {
	case AV_VERIFIED_FASTER:
		return V_VERIFIED;
	case AV_CORRECT:
		return V_CORRECT;
	case AV_CORRECT_VACUOUS:
		return V_VACUOUS;
	case AV_EXPLOIT:
		return V_EXPLOIT;
	case AV_INCORRECT:
		return V_INCORRECT;
	default:
		return V_FAILED;   /* failed:, skipped: and unknown ones */
	}
}

struct verdict_count {
	char verdict[64];
	int n;
};

struct group {
	char cls[96];
	int kind, mode;           /* index into kinds; enum hr_mode */
	int evaluations, replayed;
	int count[V_N];
	struct verdict_count seen[16]; /* distinct verdicts, first 16 */
	int nseen;
};

static int group_cmp(const void *a, const void *b)
{
	const struct group *x = a, *y = b;
	int c = strcmp(x->cls, y->cls);

	if (c)
		return c;
	if (x->kind != y->kind)
		return x->kind - y->kind;
	return x->mode - y->mode;
}

static int vc_cmp(const void *a, const void *b)
{
	return strcmp(((const struct verdict_count *)a)->verdict,
		      ((const struct verdict_count *)b)->verdict);
}

static struct group *find_group(struct group **v, size_t *n, size_t *cap,
				const char *cls, int kind, int mode)
{
	struct group *g;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*v)[i].cls, cls) && (*v)[i].kind == kind &&
		    (*v)[i].mode == mode)
			return &(*v)[i];
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		struct group *grown = realloc(*v, nc * sizeof(*grown));

		if (!grown)
			return NULL;
		*v = grown;
		*cap = nc;
	}
	g = &(*v)[(*n)++];
	memset(g, 0, sizeof(*g));
	snprintf(g->cls, sizeof(g->cls), "%s", cls);
	g->kind = kind;
	g->mode = mode;
	return g;
}

static void count(struct group *g, const char *verdict)
{
	int i;

	g->replayed++;
	g->count[category(verdict)]++;
	for (i = 0; i < g->nseen; i++)
		if (!strcmp(g->seen[i].verdict, verdict))
			break;
	if (i == g->nseen) {
		if (g->nseen == (int)(sizeof(g->seen) / sizeof(g->seen[0])))
			return;
		snprintf(g->seen[g->nseen].verdict, sizeof(g->seen[0].verdict),
			 "%s", *verdict ? verdict : "(none)");
		g->nseen++;
	}
	g->seen[i].n++;
}

static const struct table_col detection_cols[] = {
	{ "class", COL_TEXT }, { "kernel", COL_TEXT }, { "mode", COL_TEXT },
	{ "evaluations", COL_INT }, { "not_replayed", COL_INT },
	{ "verified_faster", COL_INT }, { "correct", COL_INT },
	{ "correct_vacuous", COL_INT }, { "exploit", COL_INT },
	{ "incorrect", COL_INT }, { "failed", COL_INT },
	{ "not_audited", COL_INT }, { "verdicts", COL_TEXT },
	{ "outcome", COL_TEXT },
};
#define N_DETECTION ((int)(sizeof(detection_cols) / sizeof(detection_cols[0])))

static int add_group_row(struct table *t, struct group *g)
{
	const char *cells[N_DETECTION];
	char b[V_N + 2][16], verdicts[512] = "";
	size_t used = 0;
	int flagged = g->count[V_EXPLOIT] + g->count[V_INCORRECT] +
		g->count[V_VACUOUS] + g->count[V_FAILED];

	qsort(g->seen, (size_t)g->nseen, sizeof(g->seen[0]), vc_cmp);
	for (int i = 0; i < g->nseen && used < sizeof(verdicts); i++)
		used += (size_t)snprintf(verdicts + used, sizeof(verdicts) - used,
					 "%s%s %d", i ? "; " : "",
					 g->seen[i].verdict, g->seen[i].n);
	cells[0] = g->cls;
	cells[1] = kinds[g->kind];
	cells[2] = hr_mode_name((enum hr_mode)g->mode);
	snprintf(b[0], 16, "%d", g->evaluations);
	snprintf(b[1], 16, "%d", g->evaluations - g->replayed);
	cells[3] = b[0];
	cells[4] = b[1];
	for (int c = 0; c < V_N; c++) {
		snprintf(b[c + 2], 16, "%d", g->count[c]);
		cells[5 + c] = b[c + 2];
	}
	cells[12] = verdicts;
	if (!g->replayed || g->count[V_UNAUDITED])
		cells[13] = "not audited";
	else if (g->kind == 0)
		/* A planted kernel is missed when one of its verdicts is a
		 * verified speedup; neutralised when one is only correct
		 * (the measurement gave the exploit nothing to gain: robust
		 * rounds on new content leave a cache nothing to hit, but no
		 * evidence says so); caught otherwise. */
		cells[13] = g->count[V_VERIFIED] ? "missed" :
			g->count[V_CORRECT] ? "neutralised" : "caught";
	else
		cells[13] = flagged ? "flagged" : "clean";
	return table_add_row(t, cells);
}

int auditreport_detection(const struct evalset *es,
			  const struct replayset *rs, struct table **t,
			  struct hr_err *e)
{
	struct group *v = NULL;
	size_t n = 0, cap = 0;

	if (!(*t = table_new(detection_cols, N_DETECTION)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	for (size_t i = 0; i < es->n && !e->code; i++) {
		const struct evalrow *r = &es->rows[i];
		const struct replay_row *rr = replayset_find(rs, r->id);
		const char *kind;
		char cls[96];
		int k;

		if (!auditreport_planted_class(r->model, cls, sizeof(cls),
					       &kind) &&
		    !auditreport_planted_class(r->source, cls, sizeof(cls),
					       &kind))
			continue;
		for (k = 0; strcmp(kinds[k], kind); k++)
			;
		for (int m = 0; m < HR_NMODES; m++) {
			const struct replay_result *res =
				rr ? result_of(rr, (enum hr_mode)m) : NULL;
			struct group *g = find_group(&v, &n, &cap, cls, k, m);

			if (!g) {
				hr_errf(e, HR_SYSTEM, "out of memory");
				break;
			}
			g->evaluations++;
			if (res)
				count(g, res->audit);
		}
	}
	if (n)
		qsort(v, n, sizeof(*v), group_cmp);
	/* A mode that replayed none of a group's evaluations adds no row. */
	for (size_t i = 0; i < n && !e->code; i++)
		if (v[i].replayed && add_group_row(*t, &v[i]))
			hr_errf(e, HR_SYSTEM, "out of memory");
	free(v);
	return e->code;
}
