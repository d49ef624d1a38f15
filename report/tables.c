/* tables.c - the tables of `headroom report` (tables.h). */
#include "tables.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataset/base/vocab.h"
#include "../dataset/store.h"
#include "auditreport.h"
#include "claims.h"
#include "provenance.h"

/* A fixed-point cell, or NULL (missing) for NAN. */
static char *fmt_fixed(char *buf, size_t n, int decimals, double v)
{
	if (isnan(v))
		return NULL;
	snprintf(buf, n, "%.*f", decimals, v);
	return buf;
}

/* Four significant digits, for magnitudes spanning decades. */
static char *fmt_sig(char *buf, size_t n, double v)
{
	if (isnan(v))
		return NULL;
	snprintf(buf, n, "%.4g", v);
	return buf;
}

static char *fmt_count(char *buf, size_t n, size_t v)
{
	snprintf(buf, n, "%zu", v);
	return buf;
}

/* --- models -------------------------------------------------------------- */

static const struct table_col model_cols[] = {
	{ "configuration", COL_TEXT }, { "model", COL_TEXT },
	{ "level", COL_INT }, { "evaluations", COL_INT },
	{ "compiled", COL_INT }, { "correct", COL_INT },
	{ "problems", COL_INT }, { "correct_pct", COL_REAL },
	{ "correct_scale_invariant", COL_TEXT },
	{ "speedups_gt1", COL_INT }, { "median_winner_speedup", COL_REAL },
	{ "geomean_speedup", COL_REAL }, { "conv_solved", COL_INT },
	{ "correct_on_vacuous", COL_INT },
};
#define N_MODEL_COLS ((int)(sizeof(model_cols) / sizeof(model_cols[0])))

static size_t vacuous_sample0(const struct finding_list *fl, const char *config,
			      int level)
{
	size_t n = 0;

	for (size_t i = 0; i < fl->n; i++) {
		const struct evalrow *r = fl->items[i].eval;

		n += !strcmp(fl->items[i].type, "vacuous-correct") &&
			r->sample_id == 0 && r->level == level &&
			!strcmp(r->config, config);
	}
	return n;
}

/* Sample-0 problems of a configuration and level whose replay passed the
 * original and the scale-invariant checks (the robust replay when there is
 * one, else the faithful one: both run the same correctness trials); "n/a"
 * without replay results or when the replay did not record the
 * scale-invariant checks. */
static const char *scale_invariant_cell(const struct report_data *d,
					const char *config, int level,
					char *buf, size_t n)
{
	size_t ok = 0, seen = 0;

	for (size_t i = 0; i < d->es.n; i++) {
		const struct evalrow *r = &d->es.rows[i];
		const struct replay_result *res;

		if (r->sample_id || r->level != level ||
		    strcmp(r->config, config))
			continue;
		res = replay_row_shown(replayset_find(&d->rs, r->id));
		if (!res || res->scale_invariant < 0)
			continue;
		seen++;
		ok += res->correct == 1 && res->scale_invariant == 1;
	}
	if (!seen)
		return "n/a";
	snprintf(buf, n, "%zu", ok);
	return buf;
}

static int build_models(struct report_data *d, struct table **t, struct hr_err *e)
{
	char b[N_MODEL_COLS][64];
	const char *cells[N_MODEL_COLS];

	if (!(*t = table_new(model_cols, N_MODEL_COLS)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	for (size_t i = 0; i < d->es.n; i++) {
		const struct evalrow *r = &d->es.rows[i];
		struct eval_filter f = { r->config, r->level, NULL };
		struct config_stats cs;
		size_t nprob;

		/* One row per (configuration, level): at its first row. */
		if (i && !strcmp(d->es.rows[i - 1].config, r->config) &&
		    d->es.rows[i - 1].level == r->level)
			continue;
		if (evalset_dataset_problems(d->db, r->level, &nprob, e))
			return e->code;
		if (evalset_stats(&d->es, &f, nprob, &cs))
			return hr_errf(e, HR_SYSTEM, "out of memory");
		cells[0] = r->config;
		cells[1] = r->model;
		cells[2] = fmt_count(b[2], 64, (size_t)r->level);
		cells[3] = fmt_count(b[3], 64, cs.evaluations);
		cells[4] = fmt_count(b[4], 64, cs.compiled);
		cells[5] = fmt_count(b[5], 64, cs.correct);
		cells[6] = fmt_count(b[6], 64, cs.problems);
		cells[7] = fmt_fixed(b[7], 64, 1, cs.correct_rate);
		cells[8] = scale_invariant_cell(d, r->config, r->level, b[8],
						sizeof(b[8]));
		cells[9] = fmt_count(b[9], 64, cs.winners);
		cells[10] = fmt_fixed(b[10], 64, 3, cs.median_winner);
		cells[11] = fmt_fixed(b[11], 64, 3, cs.geomean_correct);
		cells[12] = fmt_count(b[12], 64, cs.conv_winners);
		cells[13] = d->as.n ? fmt_count(b[13], 64, vacuous_sample0(
			&d->fl, r->config, r->level)) : NULL;
		if (table_add_row(*t, cells))
			return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	return HR_OK;
}

/* --- problems ------------------------------------------------------------ */

static const struct table_col problem_cols[] = {
	{ "level", COL_INT }, { "problem_id", COL_INT }, { "name", COL_TEXT },
	{ "dtype", COL_TEXT }, { "device", COL_TEXT },
	{ "max_abs_ref", COL_REAL }, { "rms_ref", COL_REAL },
	{ "vacuous_under", COL_TEXT },
	{ "margin_v0", COL_REAL }, { "margin_fp32", COL_REAL },
	{ "margin_bf16", COL_REAL }, { "margin_fp16", COL_REAL },
};
#define N_PROBLEM_COLS ((int)(sizeof(problem_cols) / sizeof(problem_cols[0])))

static const char *const margin_presets[] = {
	"kernelbench-v0", "kernelbench-fp32", "kernelbench-bf16",
	"kernelbench-fp16",
};

static void vacuous_list(const struct audit_row *a, char *buf, size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < a->ngates; i++) {
		const struct audit_gate *g = &a->gates[i];

		if (!audit_gate_vacuous(g))
			continue;
		used += (size_t)snprintf(buf + used, n > used ? n - used : 0,
			"%s%s:%s%s%s", used ? " " : "", g->preset,
			g->zeros ? "z" : "", g->constant ? "c" : "",
			g->input ? "i" : "");
	}
	if (!used)
		snprintf(buf, n, "none");
}

static int add_unaudited_row(sqlite3_stmt *st, void *t, struct hr_err *e)
{
	const char *cells[N_PROBLEM_COLS] = { 0 };

	for (int c = 0; c < 3; c++)
		cells[c] = (const char *)sqlite3_column_text(st, c);
	cells[7] = "not audited";
	if (table_add_row(t, cells))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	return HR_OK;
}

static int add_unaudited(struct report_data *d, struct table *t, struct hr_err *e)
{
	return store_each(d->db, "SELECT DISTINCT level, problem_id, name"
			  " FROM problem ORDER BY level, problem_id, name",
			  add_unaudited_row, t, e);
}

static int build_problems(struct report_data *d, struct table **t, struct hr_err *e)
{
	char b[N_PROBLEM_COLS][160];
	const char *cells[N_PROBLEM_COLS];

	if (!(*t = table_new(problem_cols, N_PROBLEM_COLS)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	if (d->as.n == 0)
		return add_unaudited(d, *t, e);
	for (size_t i = 0; i < d->as.n; i++) {
		const struct audit_row *a = &d->as.rows[i];

		cells[0] = fmt_count(b[0], 64, (size_t)a->level);
		cells[1] = fmt_count(b[1], 64, (size_t)a->problem_id);
		cells[2] = a->name;
		cells[3] = a->dtype;
		cells[4] = a->device;
		cells[5] = fmt_sig(b[5], 64, a->max_abs_ref);
		cells[6] = fmt_sig(b[6], 64, a->rms_ref);
		vacuous_list(a, b[7], sizeof(b[7]));
		cells[7] = b[7];
		for (int k = 0; k < 4; k++) {
			const struct audit_gate *g =
				audit_row_gate(a, margin_presets[k]);

			cells[8 + k] = g ? fmt_sig(b[8 + k], 64, g->margin) :
				NULL;
		}
		if (table_add_row(*t, cells))
			return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	return HR_OK;
}

/* --- findings ------------------------------------------------------------ */

static const struct table_col finding_cols[] = {
	{ "configuration", COL_TEXT }, { "level", COL_INT },
	{ "problem_id", COL_INT }, { "problem_name", COL_TEXT },
	{ "sample_id", COL_INT }, { "evaluation", COL_INT },
	{ "kernel", COL_TEXT }, { "finding", COL_TEXT },
	{ "evidence", COL_TEXT },
};
#define N_FINDING_COLS ((int)(sizeof(finding_cols) / sizeof(finding_cols[0])))

static int build_findings(struct report_data *d, struct table **t, struct hr_err *e)
{
	char b[4][32];
	const char *cells[N_FINDING_COLS];

	if (!(*t = table_new(finding_cols, N_FINDING_COLS)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	table_set_tex_width(*t, 8, "9cm");
	for (size_t i = 0; i < d->fl.n; i++) {
		const struct finding *f = &d->fl.items[i];

		cells[0] = f->eval->config;
		cells[1] = fmt_count(b[0], 32, (size_t)f->eval->level);
		cells[2] = fmt_count(b[1], 32, (size_t)f->eval->problem_id);
		cells[3] = f->eval->problem_name;
		cells[4] = fmt_count(b[2], 32, (size_t)f->eval->sample_id);
		snprintf(b[3], 32, "%lld", (long long)f->eval->id);
		cells[5] = b[3];
		cells[6] = f->kernel[0] ? f->kernel : NULL;
		cells[7] = f->type;
		cells[8] = f->evidence;
		if (table_add_row(*t, cells))
			return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	return HR_OK;
}

/* --- evidence, signals, detection (report/auditreport.h) ---------------- */

static int build_evidence(struct report_data *d, struct table **t, struct hr_err *e)
{
	return auditreport_evidence(&d->es, &d->rs, t, e);
}

static int build_signals(struct report_data *d, struct table **t, struct hr_err *e)
{
	return auditreport_signals(&d->es, &d->rs, t, e);
}

static int build_detection(struct report_data *d, struct table **t,
			   struct hr_err *e)
{
	return auditreport_detection(&d->es, &d->rs, t, e);
}

/* --- replay -------------------------------------------------------------- */

static const struct table_col replay_cols[] = {
	{ "configuration", COL_TEXT }, { "level", COL_INT },
	{ "problem_id", COL_INT }, { "problem_name", COL_TEXT },
	{ "sample_id", COL_INT }, { "evaluation", COL_INT },
	{ "reported_speedup", COL_REAL }, { "faithful_speedup", COL_REAL },
	{ "robust_speedup", COL_REAL }, { "robust_ci_low", COL_REAL },
	{ "robust_ci_high", COL_REAL }, { "status", COL_TEXT },
	{ "tolerance", COL_TEXT }, { "own_share", COL_REAL },
};
#define N_REPLAY_COLS ((int)(sizeof(replay_cols) / sizeof(replay_cols[0])))

static int build_replay(struct report_data *d, struct table **t, struct hr_err *e)
{
	const char *cells[N_REPLAY_COLS] = { 0 };
	char b[10][64], status[160];

	if (!(*t = table_new(replay_cols, N_REPLAY_COLS)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	table_set_tex_width(*t, 11, "3cm");
	for (size_t i = 0; i < d->es.n; i++) {
		const struct evalrow *r = &d->es.rows[i];
		const struct replay_row *rr = replayset_find(&d->rs, r->id);

		if (r->correct != 1 || isnan(r->speedup))
			continue;
		if (!d->rs.n)
			snprintf(status, sizeof(status), "not available: %s",
				 d->rs.why);
		else if (!rr)
			snprintf(status, sizeof(status), "not replayed");
		else if (!rr->robust.have)
			snprintf(status, sizeof(status), "faithful replay "
				 "only");
		else if (hr_audit_of(rr->robust.audit) == AV_EXPLOIT)
			snprintf(status, sizeof(status), "%s",
				 rr->robust.audit);
		else if (rr->robust.correct != 1)
			snprintf(status, sizeof(status), "incorrect on replay");
		else if (rr->robust.scale_invariant == 0)
			snprintf(status, sizeof(status), "fails the "
				 "scale-invariant checks");
		else if (hr_audit_of(rr->robust.audit) ==
			 AV_VERIFIED_FASTER)
			snprintf(status, sizeof(status), "verified speedup");
		else if (!rr->robust.audit[0])
			snprintf(status, sizeof(status), "no verified speedup: "
				 "replayed before the audit verdict");
		else if (!(rr->robust.ci_low > 1.0))
			snprintf(status, sizeof(status), "no verified speedup: "
				 "interval not above 1x");
		else
			snprintf(status, sizeof(status), "no verified speedup: "
				 "%s", rr->robust.audit);
		cells[7] = rr && rr->faithful.have ?
			fmt_sig(b[5], 64, rr->faithful.speedup) : NULL;
		cells[8] = rr && rr->robust.have ?
			fmt_sig(b[6], 64, rr->robust.speedup) : NULL;
		cells[9] = rr && rr->robust.have ?
			fmt_sig(b[7], 64, rr->robust.ci_low) : NULL;
		cells[10] = rr && rr->robust.have ?
			fmt_sig(b[8], 64, rr->robust.ci_high) : NULL;
		cells[0] = r->config;
		cells[1] = fmt_count(b[0], 64, (size_t)r->level);
		cells[2] = fmt_count(b[1], 64, (size_t)r->problem_id);
		cells[3] = r->problem_name;
		cells[4] = fmt_count(b[2], 64, (size_t)r->sample_id);
		snprintf(b[3], 64, "%lld", (long long)r->id);
		cells[5] = b[3];
		cells[6] = fmt_sig(b[4], 64, r->speedup);
		cells[11] = status;
		/* The verdict behind the status is the original check's at
		 * this tolerance: the robust job's, else the faithful one's. */
		cells[12] = !rr ? NULL : rr->robust.have &&
			rr->robust.tolerance[0] ? rr->robust.tolerance :
			rr->faithful.have && rr->faithful.tolerance[0] ?
			rr->faithful.tolerance : NULL;
		/* The own share of the same job: a speedup mostly in
		 * library kernels is not the kernel's. */
		cells[13] = !rr ? NULL : rr->robust.have &&
			!isnan(rr->robust.own_share) ?
			fmt_sig(b[9], 64, rr->robust.own_share) :
			rr->faithful.have && !isnan(rr->faithful.own_share) ?
			fmt_sig(b[9], 64, rr->faithful.own_share) : NULL;
		if (table_add_row(*t, cells))
			return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	return HR_OK;
}

/* --- profiles ------------------------------------------------------------ */

/* One row per ingested trace: where its GPU time goes by class, over the
 * summed activity time (the denominator column says so), with busy time
 * beside it. */
static const struct table_col profile_cols[] = {
	{ "workload", COL_TEXT }, { "stack", COL_TEXT },
	{ "domain", COL_TEXT }, { "format", COL_TEXT },
	{ "device", COL_TEXT }, { "activities", COL_INT },
	{ "kernel_sum_ms", COL_REAL }, { "busy_ms", COL_REAL },
	{ "denominator", COL_TEXT },
	{ "gemm_pct", COL_REAL }, { "attention_pct", COL_REAL },
	{ "convolution_pct", COL_REAL }, { "normalization_pct", COL_REAL },
	{ "softmax_pct", COL_REAL }, { "embedding_pct", COL_REAL },
	{ "reduction_pct", COL_REAL }, { "elementwise_pct", COL_REAL },
	{ "communication_pct", COL_REAL }, { "copy_pct", COL_REAL },
	{ "other_pct", COL_REAL },
	{ "addressable_pct", COL_REAL }, { "gemm_attention_pct", COL_REAL },
	{ "bound_speedup", COL_REAL }, { "top_addressable_kernel", COL_TEXT },
	{ "top_addressable_pct", COL_REAL },
	{ "projected_gain_pct", COL_REAL }, { "status", COL_TEXT },
};
#define N_PROFILE_COLS ((int)(sizeof(profile_cols) / sizeof(profile_cols[0])))

static int build_profiles(struct report_data *d, struct table **t,
			  struct hr_err *e)
{
	const char *cells[N_PROFILE_COLS];
	char b[N_PROFILE_COLS][64], status[200];
	const struct profileset *ps = &d->ps;

	if (!(*t = table_new(profile_cols, N_PROFILE_COLS)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	table_set_tex_width(*t, 23, "4cm");
	if (ps->n == 0) {
		memset(cells, 0, sizeof(cells));
		snprintf(status, sizeof(status), "not available: %s", ps->why);
		cells[N_PROFILE_COLS - 1] = status;
		return table_add_row(*t, cells) ?
			hr_errf(e, HR_SYSTEM, "out of memory") : HR_OK;
	}
	for (size_t i = 0; i < ps->n; i++) {
		const struct profile_row *r = &ps->rows[i];
		double f = profile_addressable(r);
		int k = 0;

		cells[k++] = r->workload;
		cells[k++] = r->stack;
		cells[k++] = r->domain;
		cells[k++] = r->format;
		cells[k++] = r->device;
		cells[k] = fmt_count(b[k], 64, (size_t)r->activities);
		k++;
		cells[k] = fmt_fixed(b[k], 64, 3, (double)r->kernel_ns / 1e6);
		k++;
		cells[k] = fmt_fixed(b[k], 64, 3, (double)r->busy_ns / 1e6);
		k++;
		cells[k++] = "kernel_sum";
		for (int c = 0; c < KC_COUNT; c++, k++)
			cells[k] = fmt_fixed(b[k], 64, 2, 100.0 *
					     profile_share(r, (enum kclass)c));
		cells[k] = fmt_fixed(b[k], 64, 2, 100.0 * f);
		k++;
		cells[k] = fmt_fixed(b[k], 64, 2, 100.0 *
				     (profile_share(r, KC_GEMM) +
				      profile_share(r, KC_ATTENTION)));
		k++;
		cells[k] = f < 1 ? fmt_fixed(b[k], 64, 3, 1.0 / (1.0 - f)) :
			NULL;
		k++;
		cells[k++] = r->top_name;
		cells[k] = r->top_name ? fmt_fixed(b[k], 64, 2, 100.0 *
			(double)r->top_ns / (double)r->kernel_ns) : NULL;
		k++;
		cells[k] = fmt_fixed(b[k], 64, 2, 100.0 * r->projected);
		k++;
		if (isnan(r->projected))
			snprintf(status, sizeof(status), "projection not "
				 "available: %s", ps->why);
		else
			snprintf(status, sizeof(status), "ok");
		cells[k++] = status;
		if (table_add_row(*t, cells))
			return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	return HR_OK;
}

/* --- dlrm ---------------------------------------------------------------- */

/* Per configuration with DLRM-Bench evaluations: one row per problem (its
 * weight, reported and verified outcome, and what it saves), then the
 * configuration's projection (row "projection"). */
static const struct table_col dlrm_cols[] = {
	{ "row", COL_TEXT }, { "config", COL_TEXT },
	{ "workload", COL_TEXT }, { "stack", COL_TEXT },
	{ "problem_id", COL_INT }, { "problem", COL_TEXT },
	{ "classes", COL_TEXT }, { "weight_pct", COL_REAL },
	{ "archive_speedup", COL_REAL }, { "archive_win", COL_INT },
	{ "audit_verdict", COL_TEXT }, { "robust_speedup", COL_REAL },
	{ "ci_low", COL_REAL }, { "verified_win", COL_INT },
	{ "s_prime", COL_REAL }, { "saved_pct", COL_REAL },
	{ "win_rate_pct", COL_REAL }, { "median_win", COL_REAL },
	{ "speedup", COL_REAL }, { "addressable_pct", COL_REAL },
	{ "simplified_pct", COL_REAL }, { "status", COL_TEXT },
};
#define N_DLRM_COLS ((int)(sizeof(dlrm_cols) / sizeof(dlrm_cols[0])))
enum { DC_ROW, DC_CONFIG, DC_WORKLOAD, DC_STACK, DC_ID, DC_PROBLEM,
	DC_CLASSES, DC_WEIGHT, DC_ASPEED, DC_AWIN, DC_VERDICT, DC_RSPEED,
	DC_CILOW, DC_VWIN, DC_SPRIME, DC_SAVED, DC_WINRATE, DC_MEDIAN,
	DC_SPEEDUP, DC_ADDR, DC_SIMPLIFIED, DC_STATUS };

static int dlrm_problem_row(const struct dlrmset *ds,
			    const struct dlrmset_config *c, size_t i,
			    struct table *t)
{
	const struct dlrmset_problem *p = &c->p[i];
	const struct dlrm_entry *m = &ds->map.v[i];
	const char *cells[N_DLRM_COLS] = { 0 };
	char b[N_DLRM_COLS][64], classes[256] = "", status[1100];
	double s = p->verified ? p->robust_speedup : 1.0;

	for (size_t k = 0; k < m->nclasses; k++)
		snprintf(classes + strlen(classes), sizeof(classes) -
			 strlen(classes), "%s%s", k ? "+" : "", m->classes[k]);
	cells[DC_ROW] = "problem";
	cells[DC_CONFIG] = c->config;
	cells[DC_WORKLOAD] = ds->workload;
	cells[DC_STACK] = ds->stack;
	cells[DC_ID] = fmt_count(b[DC_ID], 64, (size_t)p->problem_id);
	cells[DC_PROBLEM] = p->problem;
	cells[DC_CLASSES] = classes;
	cells[DC_WEIGHT] = fmt_fixed(b[DC_WEIGHT], 64, 2, 100.0 * p->weight);
	cells[DC_ASPEED] = fmt_sig(b[DC_ASPEED], 64, p->archive_speedup);
	cells[DC_AWIN] = p->archive_win ? "1" : "0";
	cells[DC_VERDICT] = p->verdict;
	cells[DC_RSPEED] = fmt_sig(b[DC_RSPEED], 64, p->robust_speedup);
	cells[DC_CILOW] = fmt_sig(b[DC_CILOW], 64, p->ci_low);
	cells[DC_VWIN] = p->verified ? "1" : "0";
	cells[DC_SPRIME] = fmt_sig(b[DC_SPRIME], 64, s);
	cells[DC_SAVED] = fmt_fixed(b[DC_SAVED], 64, 2, 100.0 * p->weight *
				    (1.0 - 1.0 / s));
	if (!ds->have_weights)
		snprintf(status, sizeof(status), "no weight: %s",
			 ds->why_weights);
	else if (!p->verdict && isnan(p->robust_speedup))
		snprintf(status, sizeof(status), "not replayed in robust mode: "
			 "counts 1x");
	else
		snprintf(status, sizeof(status), "%s", p->verified ?
			 "verified win" : "no verified win: counts 1x");
	cells[DC_STATUS] = status;
	return table_add_row(t, cells);
}

static int dlrm_projection_row(const struct dlrmset *ds,
			       const struct dlrmset_config *c,
			       struct table *t)
{
	const struct dlrm_projection *p = &c->verified;
	const char *cells[N_DLRM_COLS] = { 0 };
	char b[N_DLRM_COLS][64], status[1100];

	cells[DC_ROW] = "projection";
	cells[DC_CONFIG] = c->config;
	cells[DC_WORKLOAD] = ds->workload;
	cells[DC_STACK] = ds->stack;
	cells[DC_PROBLEM] = "all";
	cells[DC_WEIGHT] = fmt_fixed(b[DC_WEIGHT], 64, 2, 100.0 * p->reach);
	cells[DC_AWIN] = fmt_count(b[DC_AWIN], 64, (size_t)c->archive_wins);
	cells[DC_VWIN] = fmt_count(b[DC_VWIN], 64, p->wins);
	cells[DC_SAVED] = fmt_fixed(b[DC_SAVED], 64, 2, 100.0 * p->reduction);
	cells[DC_WINRATE] = fmt_fixed(b[DC_WINRATE], 64, 1,
				      100.0 * p->win_rate);
	cells[DC_MEDIAN] = fmt_fixed(b[DC_MEDIAN], 64, 3, p->median_win);
	cells[DC_SPEEDUP] = fmt_fixed(b[DC_SPEEDUP], 64, 4, p->speedup);
	cells[DC_ADDR] = fmt_fixed(b[DC_ADDR], 64, 2, 100.0 * ds->addressable);
	cells[DC_SIMPLIFIED] = fmt_fixed(b[DC_SIMPLIFIED], 64, 2,
					 100.0 * p->simplified);
	if (!ds->have_weights)
		snprintf(status, sizeof(status), "projection not available: "
			 "%s", ds->why_weights);
	else if (!c->replayed)
		snprintf(status, sizeof(status), "no robust replay: no "
			 "verified win, R is 0");
	else
		snprintf(status, sizeof(status), "ok: %d of %zu problems "
			 "replayed in robust mode", c->replayed, p->problems);
	cells[DC_STATUS] = status;
	return table_add_row(t, cells);
}

static int build_dlrm(struct report_data *d, struct table **t, struct hr_err *e)
{
	const char *cells[N_DLRM_COLS] = { 0 };
	char status[1200];
	int bad = 0;

	if (!(*t = table_new(dlrm_cols, N_DLRM_COLS)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	table_set_tex_width(*t, DC_STATUS, "4cm");
	if (!d->have_ds || d->ds.n == 0) {
		if (!d->have_ds)
			snprintf(status, sizeof(status), "not available: %s",
				 d->dlrm_why);
		else
			snprintf(status, sizeof(status), "not available: no "
				 "evaluation at level %d (DLRM-Bench)",
				 d->ds.level);
		cells[DC_STATUS] = status;
		return table_add_row(*t, cells) ?
			hr_errf(e, HR_SYSTEM, "out of memory") : HR_OK;
	}
	for (size_t i = 0; i < d->ds.n && !bad; i++) {
		for (size_t k = 0; k < d->ds.map.n && !bad; k++)
			bad = dlrm_problem_row(&d->ds, &d->ds.c[i], k, *t);
		bad = bad || dlrm_projection_row(&d->ds, &d->ds.c[i], *t);
	}
	return bad ? hr_errf(e, HR_SYSTEM, "out of memory") : HR_OK;
}

/* --- claims -------------------------------------------------------------- */

static const struct table_col claim_cols[] = {
	{ "id", COL_TEXT }, { "claim", COL_TEXT }, { "unit", COL_TEXT },
	{ "stated", COL_TEXT }, { "archive", COL_TEXT },
	{ "faithful", COL_TEXT }, { "robust", COL_TEXT },
	{ "status", COL_TEXT }, { "replay_status", COL_TEXT },
	{ "note", COL_TEXT },
};
#define N_CLAIM_COLS ((int)(sizeof(claim_cols) / sizeof(claim_cols[0])))

static void status_text(enum claim_status s, const struct claim_value *v,
			char *buf, size_t n)
{
	if (s == CLAIM_NOT_AVAILABLE)
		snprintf(buf, n, "not available: %s", v->why);
	else
		snprintf(buf, n, "%s", metric_status_name(s));
}

static int build_claims(struct report_data *d, struct table **t, struct hr_err *e)
{
	struct ledger l;
	struct ledger_data ld = { d->db, &d->es, &d->as, &d->rs, &d->ps,
				  d->have_ds ? &d->ds.map : NULL,
				  d->workload_given ? d->workload : NULL,
				  d->stack_given ? d->stack : NULL };
	struct claim_result *res = NULL;
	char b[6][320];
	const char *cells[N_CLAIM_COLS];

	*t = NULL;
	if (ledger_load(&l, d->claims_path, d->roles_path, e))
		goto done;
	if (!(res = calloc(l.n ? l.n : 1, sizeof(*res))) ||
	    !(*t = table_new(claim_cols, N_CLAIM_COLS))) {
		hr_errf(e, HR_SYSTEM, "out of memory");
		goto done;
	}
	if (ledger_evaluate(&l, &ld, res, e))
		goto done;
	table_set_tex_width(*t, 1, "5.5cm");
	table_set_tex_width(*t, 7, "4.5cm");
	table_set_tex_width(*t, 8, "3.5cm");
	table_set_tex_width(*t, 9, "2.5cm");
	for (size_t i = 0; i < l.n; i++) {
		const struct claim *c = &l.claims[i];

		claim_format(c, c->stated, b[0], sizeof(b[0]));
		claim_format(c, res[i].archive.v, b[1], sizeof(b[1]));
		claim_format(c, res[i].faithful.v, b[2], sizeof(b[2]));
		claim_format(c, res[i].robust.v, b[3], sizeof(b[3]));
		status_text(res[i].status, &res[i].archive, b[4], sizeof(b[4]));
		if (res[i].replayable)
			status_text(res[i].replay_status, &res[i].robust,
				    b[5], sizeof(b[5]));
		else
			snprintf(b[5], sizeof(b[5]), "not applicable: an "
				 "archive fact");
		d->differs += res[i].status == CLAIM_DIFFERS;
		cells[0] = c->id;
		cells[1] = c->text;
		cells[2] = c->unit;
		cells[3] = b[0];
		cells[4] = b[1];
		cells[5] = b[2];
		cells[6] = b[3];
		cells[7] = b[4];
		cells[8] = b[5];
		cells[9] = res[i].note[0] ? res[i].note : NULL;
		if (table_add_row(*t, cells)) {
			hr_errf(e, HR_SYSTEM, "out of memory");
			break;
		}
	}
done:
	free(res);
	ledger_release(&l);
	return e->code;
}

/* --- provenance ---------------------------------------------------------- */

static const struct table_col prov_cols[] = {
	{ "item", COL_TEXT }, { "value", COL_TEXT },
};

static int add_pair(struct table *t, const char *item, const char *value)
{
	const char *cells[2] = { item, value };

	return table_add_row(t, cells);
}

/* The provenance object as item/value rows, for the paper's provenance
 * section. */
static int build_provenance(struct report_data *d, struct table **t,
			    struct hr_err *e)
{
	const cJSON *p = d->prov, *v;
	char buf[512];
	int bad = 0;

	if (!(*t = table_new(prov_cols, 2)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	bad |= add_pair(*t, "tool", cJSON_GetStringValue(
		cJSON_GetObjectItem(p, "tool")));
	snprintf(buf, sizeof(buf), "%d", cJSON_GetObjectItem(
			 p, "schema_version")->valueint);
	bad |= add_pair(*t, "store schema", buf);
	bad |= add_pair(*t, "date", cJSON_GetStringValue(
		cJSON_GetObjectItem(p, "date")));
	cJSON_ArrayForEach(v, cJSON_GetObjectItem(p, "sources")) {
		snprintf(buf, sizeof(buf), "source %s (%s)",
			 cJSON_GetStringValue(cJSON_GetObjectItem(v, "name")),
			 cJSON_GetStringValue(cJSON_GetObjectItem(v, "kind")));
		bad |= add_pair(*t, buf, cJSON_GetStringValue(
			cJSON_GetObjectItem(v, "sha256")));
	}
	cJSON_ArrayForEach(v, cJSON_GetObjectItem(p, "hardware_reported"))
		bad |= add_pair(*t, "hardware in the archive",
				cJSON_GetStringValue(v));
	cJSON_ArrayForEach(v, cJSON_GetObjectItem(p, "audit_devices"))
		bad |= add_pair(*t, "problem audit ran on",
				cJSON_GetStringValue(v));
	snprintf(buf, sizeof(buf), "%s%s", d->rs.n ? "" : "not available: ",
		 cJSON_GetStringValue(cJSON_GetObjectItem(
			 p, "replay_environment")));
	bad |= add_pair(*t, "replay GPU, driver, CUDA, torch", buf);
	return bad ? hr_errf(e, HR_SYSTEM, "out of memory") : HR_OK;
}


/* --- the registry ----------------------------------------------------- */

const struct report_table report_tables[] = {
	{ "claims", build_claims },
	{ "detection", build_detection },
	{ "dlrm", build_dlrm },
	{ "evidence", build_evidence },
	{ "findings", build_findings },
	{ "models", build_models },
	{ "problems", build_problems },
	{ "profiles", build_profiles },
	{ "provenance", build_provenance },
	{ "replay", build_replay },
	{ "signals", build_signals },
};

/* DLRM-Bench's projection needs the suite's level from the roles file;
 * a roles file without the suite leaves the dlrm report and claim "not
 * available", not every report failing.  A bad mapping file is an error. */
static int load_dlrm(struct report_data *d, struct hr_err *e)
{
	struct hr_err le;
	int level;

	hr_err_clear(&le);
	if (dlrmset_suite_level(d->roles_path, &level, &le)) {
		snprintf(d->dlrm_why, sizeof(d->dlrm_why), "%s", le.msg);
		return HR_OK;
	}
	if (dlrmset_load(&d->ds, d->dlrm_map_path, level, d->workload,
			 d->stack, &d->es, &d->rs, &d->ps, e))
		return e->code;
	d->have_ds = 1;
	return HR_OK;
}

int report_data_load(struct report_data *d, struct hr_err *e)
{
	return evalset_load(&d->es, d->db, e) ||
		auditset_load(&d->as, d->db, e) ||
		replayset_load(&d->rs, d->db, e) ||
		findings_collect(d->db, &d->es, &d->as, &d->fl, e) ||
		profileset_load(&d->ps, d->db, d->classes_path,
				d->problem_map_path, &d->es, &d->rs, e) ||
		load_dlrm(d, e);
}

void report_data_release(struct report_data *d)
{
	dlrmset_release(&d->ds);
	profileset_release(&d->ps);
	finding_list_release(&d->fl);
	replayset_release(&d->rs);
	auditset_release(&d->as);
	evalset_release(&d->es);
}
