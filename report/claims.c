/* claims.c - see claims.h. */
#include "claims.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../dataset/base/vocab.h"
#include "../dataset/json.h"
#include "../readmodel/dlrmset.h"
#include "provenance.h"

struct ctx {
	const struct ledger *l;
	const struct ledger_data *d;
	const struct claim_result *done; /* results of claims before this */
	size_t ndone;
	int which;       /* the value being computed: 0 archive, 1 faithful,
			    2 robust (derived metrics take their inputs' same
			    value) */
};

typedef void metric_fn(const struct ctx *x, const struct claim *c,
		       struct claim_value *out);

struct metric_def {
	const char *name;
	int replayable;   /* replay re-measures it (else an archive fact) */
	metric_fn *fn;
	int derived;      /* computed from other claims' values (inputs) */
};

static void na(struct claim_value *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void na(struct claim_value *out, const char *fmt, ...)
{
	va_list ap;

	out->v.lo = out->v.hi = NAN;
	va_start(ap, fmt);
	vsnprintf(out->why, sizeof(out->why), fmt, ap);
	va_end(ap);
}

static void set(struct claim_value *out, double v)
{
	out->v.lo = out->v.hi = v;
	out->why[0] = '\0';
}

static const cJSON *param(const struct claim *c, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(c->params, key);
}

static int param_int(const struct claim *c, const char *key, int def)
{
	const cJSON *v = param(c, key);

	return cJSON_IsNumber(v) ? v->valueint : def;
}

static const char *param_str(const struct claim *c, const char *key)
{
	return cJSON_GetStringValue(param(c, key));
}

/* Turn the claim's role / suite / level parameters into a filter; on
 * failure out says why and 0 is returned. */
static int resolve_filter(const struct ctx *x, const struct claim *c,
			  struct eval_filter *f, struct claim_value *out)
{
	const cJSON *models = cJSON_GetObjectItemCaseSensitive(x->l->roles_doc,
							       "models");
	const cJSON *suites = cJSON_GetObjectItemCaseSensitive(x->l->roles_doc,
							       "suites");
	const char *role = param_str(c, "role");
	const char *suite = param_str(c, "suite");

	memset(f, 0, sizeof(*f));
	f->level = param_int(c, "level", 0);
	if (role) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(models, role);
		size_t i;

		if (!m) {
			na(out, "role '%s' is not in the roles file", role);
			return 0;
		}
		if (!cJSON_IsString(m)) {
			na(out, "role '%s' is not mapped to a configuration "
			   "in the roles file", role);
			return 0;
		}
		f->config = m->valuestring;
		for (i = 0; i < x->d->es->nconfigs; i++)
			if (!strcmp(x->d->es->configs[i], f->config))
				break;
		if (i == x->d->es->nconfigs) {
			na(out, "configuration '%s' (role '%s') has no "
			   "evaluations in the store", f->config, role);
			return 0;
		}
	}
	if (suite) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(suites, suite);

		if (!cJSON_IsObject(s)) {
			na(out, "suite '%s' is not mapped in the roles file",
			   suite);
			return 0;
		}
		f->source = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(s, "source"));
		if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(s,
								    "level")))
			f->level = cJSON_GetObjectItemCaseSensitive(
				s, "level")->valueint;
	}
	return 1;
}

/* Summary of the rows the claim selects; 0 with out set on failure. */
static int stats_for(const struct ctx *x, const struct claim *c,
		     struct config_stats *cs, struct claim_value *out)
{
	struct eval_filter f;
	struct hr_err e;
	size_t nprob = 0;

	if (!resolve_filter(x, c, &f, out))
		return 0;
	hr_err_clear(&e);
	if (f.level && !f.source &&
	    evalset_dataset_problems(x->d->db, f.level, &nprob, &e)) {
		na(out, "%s", e.msg);
		return 0;
	}
	if (evalset_stats(x->d->es, &f, nprob, cs)) {
		na(out, "out of memory");
		return 0;
	}
	if (cs->evaluations == 0) {
		na(out, "no evaluations match (configuration %s, level %d)",
		   f.config ? f.config : "any", f.level);
		return 0;
	}
	return 1;
}

static void m_evaluations(const struct ctx *x, const struct claim *c,
			  struct claim_value *out)
{
	struct eval_filter f;
	size_t n = 0;

	if (!resolve_filter(x, c, &f, out))
		return;
	for (size_t i = 0; i < x->d->es->n; i++)
		n += (size_t)eval_filter_match(&f, &x->d->es->rows[i]);
	set(out, (double)n);
}

static void m_configurations(const struct ctx *x, const struct claim *c,
			     struct claim_value *out)
{
	(void)c;
	set(out, (double)x->d->es->nconfigs);
}

#define STATS_METRIC(fname, expr)                                           \
	static void fname(const struct ctx *x, const struct claim *c,       \
			  struct claim_value *out)                          \
	{                                                                   \
		struct config_stats cs;                                     \
		if (stats_for(x, c, &cs, out))                              \
			set(out, (expr));                                   \
	}

STATS_METRIC(m_correct_rate, cs.correct_rate)
STATS_METRIC(m_correct_problems, (double)cs.problems_correct)
STATS_METRIC(m_speedup_count, (double)cs.winners)
STATS_METRIC(m_conv_winners, (double)cs.conv_winners)
STATS_METRIC(m_win_rate, cs.win_rate)

/* A suite's problems: those stored at its level (a problem set is counted
 * before any evaluation of it is ingested), else the problems its
 * evaluations name. */
static void m_suite_problems(const struct ctx *x, const struct claim *c,
			     struct claim_value *out)
{
	struct config_stats cs;
	struct eval_filter f;
	struct hr_err e;
	size_t n = 0;

	if (!resolve_filter(x, c, &f, out))
		return;
	hr_err_clear(&e);
	if (f.level && !f.source &&
	    evalset_dataset_problems(x->d->db, f.level, &n, &e)) {
		na(out, "%s", e.msg);
		return;
	}
	if (n)
		set(out, (double)n);
	else if (stats_for(x, c, &cs, out))
		set(out, (double)cs.problems);
	else if (f.level && !f.source)
		na(out, "no problem stored at level %d ('headroom problems "
		   "add DIR') and no evaluation of it", f.level);
}

static void m_median_winner(const struct ctx *x, const struct claim *c,
			    struct claim_value *out)
{
	struct config_stats cs;

	if (!stats_for(x, c, &cs, out))
		return;
	if (cs.winners == 0)
		na(out, "no correct problem with speedup > 1");
	else
		set(out, cs.median_winner);
}

/* Audit-based metrics share: which preset and gate, and whether a row's
 * gate passes. */
static int audit_ready(const struct ctx *x, struct claim_value *out)
{
	if (x->d->as->n == 0) {
		na(out, "no problem audit stored (run 'headroom audit "
		   "problems')");
		return 0;
	}
	return 1;
}

static int gate_passes(const struct claim *c, const struct audit_row *r)
{
	const char *preset = param_str(c, "preset");
	const char *gate = param_str(c, "gate");
	const struct audit_gate *g = preset ? audit_row_gate(r, preset) : NULL;

	if (!g)
		return 0;
	if (!gate)
		return audit_gate_vacuous(g);
	if (!strcmp(gate, "zeros"))
		return g->zeros;
	if (!strcmp(gate, "constant"))
		return g->constant;
	if (!strcmp(gate, "input"))
		return g->input;
	return 0;
}

/* Count distinct (level, problem) audit rows at the claim's level; with
 * gated set, only those whose gate passes. */
static void count_audited(const struct ctx *x, const struct claim *c,
			  int gated, struct claim_value *out)
{
	int level = param_int(c, "level", 0), last_l = -1, last_p = -1;
	size_t n = 0;

	if (!audit_ready(x, out))
		return;
	for (size_t i = 0; i < x->d->as->n; i++) {
		const struct audit_row *r = &x->d->as->rows[i];

		if (level && r->level != level)
			continue;
		if (r->level == last_l && r->problem_id == last_p)
			continue;
		if (gated && !gate_passes(c, r))
			continue;
		last_l = r->level;
		last_p = r->problem_id;
		n++;
	}
	set(out, (double)n);
}

static void m_vacuous_problems(const struct ctx *x, const struct claim *c,
			       struct claim_value *out)
{
	count_audited(x, c, 1, out);
}

static void m_audited_problems(const struct ctx *x, const struct claim *c,
			       struct claim_value *out)
{
	count_audited(x, c, 0, out);
}

/* Correct evaluations on problems whose gate passes: how many, and the
 * highest speedup among them. */
static void vacuous_correct(const struct ctx *x, const struct claim *c,
			    struct claim_value *out, int want_max)
{
	size_t n = 0;
	double best = NAN;

	if (!audit_ready(x, out))
		return;
	for (size_t i = 0; i < x->d->es->n; i++) {
		const struct evalrow *r = &x->d->es->rows[i];
		const struct audit_row *a;

		if (r->correct != 1)
			continue;
		a = auditset_find(x->d->as, r->level, r->problem_id);
		if (!a || !gate_passes(c, a))
			continue;
		n++;
		if (!isnan(r->speedup) && !(r->speedup <= best))
			best = r->speedup;
	}
	if (!want_max)
		set(out, (double)n);
	else if (isnan(best))
		na(out, "no timed correct kernel on a problem that gate "
		   "passes");
	else
		set(out, best);
}

static void m_correct_on_vacuous(const struct ctx *x, const struct claim *c,
				 struct claim_value *out)
{
	vacuous_correct(x, c, out, 0);
}

static void m_max_speedup_on_vacuous(const struct ctx *x,
				     const struct claim *c,
				     struct claim_value *out)
{
	vacuous_correct(x, c, out, 1);
}

/* The least output coverage among the kernels a replay flagged: over the
 * evaluations the claim selects, each one's latest job in the column's
 * mode that holds a partial-write finding, 100 (1 - fraction_unwritten)
 * at its lowest (the paper's "writing 0.3 % of its output buffer").
 * Archives record no coverage. */
static void m_output_coverage(const struct ctx *x, const struct claim *c,
			      struct claim_value *out)
{
	struct eval_filter f;
	size_t flagged = 0;
	double least = NAN;

	if (x->which == 0) {
		na(out, "archives do not record output coverage (replay "
		   "measures it)");
		return;
	}
	if (!resolve_filter(x, c, &f, out))
		return;
	for (size_t i = 0; i < x->d->es->n; i++) {
		const struct replay_row *rr;
		double u;

		if (!eval_filter_match(&f, &x->d->es->rows[i]) ||
		    !(rr = replayset_find(x->d->rs, x->d->es->rows[i].id)))
			continue;
		u = replay_result_unwritten(x->which == 2 ? &rr->robust :
					    &rr->faithful);
		if (u < 0)
			continue;
		flagged++;
		if (!isnan(u) && !(100.0 * (1.0 - u) >= least))
			least = 100.0 * (1.0 - u);
	}
	if (!flagged)
		na(out, "no %s replay job has a partial-write finding",
		   hr_mode_name(x->which == 2 ? MODE_ROBUST : MODE_FAITHFUL));
	else if (isnan(least))
		na(out, "its partial-write findings give no unwritten "
		   "fraction");
	else
		set(out, least);
}

/* The profiles a claim selects: params "workload" ("*" or absent: any),
 * "domain", "stack" (absent: any).  0 with out set when none. */
static int profiles_ready(const struct ctx *x, struct claim_value *out)
{
	const char *why;

	if (!x->d->ps || x->d->ps->n == 0) {
		provenance_have_profiles(x->d->db, &why);
		na(out, "%s", x->d->ps ? x->d->ps->why : why);
		return 0;
	}
	return 1;
}

static int profile_selected(const struct claim *c, const struct profile_row *r)
{
	const char *w = param_str(c, "workload");
	const char *dom = param_str(c, "domain");
	const char *stack = param_str(c, "stack");

	if (w && strcmp(w, "*") && strcmp(w, r->workload))
		return 0;
	if (dom && (!r->domain || strcmp(dom, r->domain)))
		return 0;
	return !stack || (r->stack && !strcmp(stack, r->stack));
}

/* The range (lowest..highest, in %) of a share over the selected
 * profiles; a single profile gives a single value. */
static void profile_range(const struct ctx *x, const struct claim *c,
			  int gemm_attention, struct claim_value *out)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t n = 0;

	if (!profiles_ready(x, out))
		return;
	for (size_t i = 0; i < x->d->ps->n; i++) {
		const struct profile_row *r = &x->d->ps->rows[i];
		double v;

		if (!profile_selected(c, r) || r->kernel_ns <= 0)
			continue;
		v = 100.0 * (gemm_attention ?
			     profile_share(r, KC_GEMM) +
			     profile_share(r, KC_ATTENTION) :
			     profile_addressable(r));
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		n++;
	}
	if (n == 0) {
		na(out, "no profile matches (domain %s, stack %s)",
		   param_str(c, "domain") ? param_str(c, "domain") : "any",
		   param_str(c, "stack") ? param_str(c, "stack") : "any");
		return;
	}
	out->v.lo = lo;
	out->v.hi = hi;
	out->why[0] = '\0';
}

static void m_addressable(const struct ctx *x, const struct claim *c,
			  struct claim_value *out)
{
	profile_range(x, c, 0, out);
}

static void m_gemm_attention(const struct ctx *x, const struct claim *c,
			     struct claim_value *out)
{
	profile_range(x, c, 1, out);
}

/* Distinct workload names among the selected profiles. */
static void m_workloads(const struct ctx *x, const struct claim *c,
			struct claim_value *out)
{
	size_t n = 0;

	if (!profiles_ready(x, out))
		return;
	/* A workload counts once, whatever its stacks and traces. */
	for (size_t i = 0; i < x->d->ps->n; i++) {
		const struct profile_row *r = &x->d->ps->rows[i];
		int seen = 0;

		if (!profile_selected(c, r))
			continue;
		for (size_t j = 0; j < i && !seen; j++)
			seen = profile_selected(c, &x->d->ps->rows[j]) &&
				!strcmp(x->d->ps->rows[j].workload,
					r->workload);
		n += !seen;
	}
	set(out, (double)n);
}

/* One input of a derived metric: a number, or {"claim": ID} taking that
 * earlier claim's stated (use_stated) or archive value. */
static int input_value(const struct ctx *x, const struct claim *c,
		       const char *key, int use_stated, double *v,
		       struct claim_value *out)
{
	const cJSON *p = param(c, key);
	const char *ref;

	if (cJSON_IsNumber(p)) {
		*v = p->valuedouble;
		return 1;
	}
	ref = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(p,
								    "claim"));
	for (size_t i = 0; ref && i < x->ndone; i++) {
		const struct claim *rc = &x->l->claims[i];
		double scale = !strcmp(rc->unit, "%") ? 0.01 : 1.0;

		if (strcmp(rc->id, ref))
			continue;
		if (use_stated) {
			*v = rc->stated.lo * scale;
			return 1;
		}
		/* An archive fact (a profile's addressable fraction) is the
		 * same input whichever column is computed. */
		const struct claim_value *in = x->which == 0 ||
			!x->done[i].replayable ? &x->done[i].archive :
			x->which == 1 ? &x->done[i].faithful :
			&x->done[i].robust;

		if (isnan(in->v.lo)) {
			na(out, "input %s (claim %s): %s", key, ref, in->why);
			return 0;
		}
		*v = in->v.lo * scale;
		return 1;
	}
	na(out, "input %s: no earlier claim '%s'", key, ref ? ref : "?");
	return 0;
}

static int amdahl_inputs(const struct ctx *x, const struct claim *c,
			 int use_stated, double *r, struct claim_value *out)
{
	double f, w, s;

	if (!input_value(x, c, "f", use_stated, &f, out) ||
	    !input_value(x, c, "w", use_stated, &w, out) ||
	    !input_value(x, c, "s", use_stated, &s, out))
		return 0;
	*r = 100.0 * metric_amdahl_reduction(f, w, s);
	return 1;
}

static void m_amdahl(const struct ctx *x, const struct claim *c,
		     struct claim_value *out)
{
	double r;

	if (amdahl_inputs(x, c, 0, &r, out))
		set(out, r);
}

/* DLRM-Bench's projection weighted by the DLRM workload's measured class
 * shares (readmodel/dlrmset.h): R = sum w_i (1 - 1/s_i') over the suite's
 * problems, a win being sample 0 correct with a speedup above 1 -- in the
 * robust column, a verified-faster audit verdict.  Params: role, suite,
 * workload (default dlrm), stack (default eager); report's --workload and
 * --stack go over them. */
static void m_dlrm_weighted(const struct ctx *x, const struct claim *c,
			    struct claim_value *out)
{
	const char *workload = x->d->workload ? x->d->workload :
		param_str(c, "workload");
	const char *stack = x->d->stack ? x->d->stack : param_str(c, "stack");
	const struct dlrm_map *m = x->d->dlrm;
	struct dlrm_outcome *o = NULL;
	struct dlrm_projection p;
	struct eval_filter f;
	struct hr_err e;
	double *w = NULL, addr;

	if (!resolve_filter(x, c, &f, out))
		return;
	if (!f.config || !f.level) {
		na(out, "the claim needs a role and a suite");
		return;
	}
	if (!m) {
		na(out, "no DLRM-Bench mapping loaded");
		return;
	}
	if (!(w = calloc(m->n + 1, sizeof(*w))) ||
	    !(o = calloc(m->n + 1, sizeof(*o)))) {
		na(out, "out of memory");
		goto done;
	}
	hr_err_clear(&e);
	if (dlrmset_weights(m, x->d->ps, workload ? workload : DLRM_WORKLOAD,
			    stack ? stack : DLRM_STACK, w, &addr, &e)) {
		na(out, "%s", e.msg);
		goto done;
	}
	if (!dlrmset_outcomes(m, x->d->es, f.config, f.level, o)) {
		na(out, "no evaluation of configuration %s at level %d",
		   f.config, f.level);
		goto done;
	}
	if (dlrm_project(o, w, m->n, addr, &p, &e))
		na(out, "%s", e.msg);
	else
		set(out, 100.0 * p.reduction);
done:
	free(w);
	free(o);
}

static const struct metric_def metrics[] = {
	{ "addressable_fraction", 0, m_addressable, 0 },
	{ "amdahl_projection", 1, m_amdahl, 1 },
	{ "audited_problems", 0, m_audited_problems, 0 },
	{ "configurations", 0, m_configurations, 0 },
	{ "conv_winners", 1, m_conv_winners, 0 },
	{ "correct_on_vacuous", 1, m_correct_on_vacuous, 0 },
	{ "correct_problems", 1, m_correct_problems, 0 },
	{ "correct_rate", 1, m_correct_rate, 0 },
	{ "dlrm_weighted_projection", 1, m_dlrm_weighted, 0 },
	{ "evaluations", 0, m_evaluations, 0 },
	{ "gemm_attention_share", 0, m_gemm_attention, 0 },
	{ "max_speedup_on_vacuous", 1, m_max_speedup_on_vacuous, 0 },
	{ "median_winner_speedup", 1, m_median_winner, 0 },
	{ "output_coverage", 1, m_output_coverage, 0 },
	{ "speedup_count", 1, m_speedup_count, 0 },
	{ "suite_problems", 0, m_suite_problems, 0 },
	{ "vacuous_problems", 0, m_vacuous_problems, 0 },
	{ "win_rate", 1, m_win_rate, 0 },
	{ "workloads", 0, m_workloads, 0 },
};

#define N_METRICS (sizeof(metrics) / sizeof(metrics[0]))

static const struct metric_def *find_metric(const char *name)
{
	for (size_t i = 0; i < N_METRICS; i++)
		if (!strcmp(metrics[i].name, name))
			return &metrics[i];
	return NULL;
}

static int parse_stated(const cJSON *v, struct metric_range *r)
{
	if (cJSON_IsNumber(v)) {
		r->lo = r->hi = v->valuedouble;
		return 0;
	}
	if (cJSON_IsArray(v) && cJSON_GetArraySize(v) == 2 &&
	    cJSON_IsNumber(cJSON_GetArrayItem(v, 0)) &&
	    cJSON_IsNumber(cJSON_GetArrayItem(v, 1))) {
		r->lo = cJSON_GetArrayItem(v, 0)->valuedouble;
		r->hi = cJSON_GetArrayItem(v, 1)->valuedouble;
		return 0;
	}
	return -1;
}

static int default_decimals(const char *unit)
{
	if (!strcmp(unit, "%"))
		return 2;
	if (!strcmp(unit, "x"))
		return 3;
	return 0;
}

static int parse_claim(struct ledger *l, const cJSON *o, size_t i,
		       const char *path, struct hr_err *e)
{
	struct claim *c = &l->claims[i];
	const cJSON *v;

	c->id = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o, "id"));
	if (!c->id)
		return hr_errf(e, HR_INPUT, "%s: claim %zu: no \"id\"", path,
			       i + 1);
	c->text = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o,
									"text"));
	c->unit = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(o,
									"unit"));
	c->metric = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(o, "metric"));
	if (!c->text || !c->unit || !c->metric)
		return hr_errf(e, HR_INPUT, "%s: claim '%s': \"text\", "
			       "\"unit\" and \"metric\" must be strings",
			       path, c->id);
	if (!find_metric(c->metric))
		return hr_errf(e, HR_INPUT, "%s: claim '%s': unknown metric "
			       "'%s' (docs/report.md lists them)", path,
			       c->id, c->metric);
	if (parse_stated(cJSON_GetObjectItemCaseSensitive(o, "stated"),
			 &c->stated))
		return hr_errf(e, HR_INPUT, "%s: claim '%s': \"stated\" must "
			       "be a number or [low, high]", path, c->id);
	v = cJSON_GetObjectItemCaseSensitive(o, "tolerance");
	if (!cJSON_IsNumber(v) || v->valuedouble < 0)
		return hr_errf(e, HR_INPUT, "%s: claim '%s': \"tolerance\" "
			       "must be a number >= 0", path, c->id);
	c->tolerance = v->valuedouble;
	v = cJSON_GetObjectItemCaseSensitive(o, "decimals");
	c->decimals = cJSON_IsNumber(v) ? v->valueint :
		default_decimals(c->unit);
	if (c->decimals < 0 || c->decimals > 9)
		c->decimals = 3;
	c->params = cJSON_GetObjectItemCaseSensitive(o, "params");
	if (c->params && !cJSON_IsObject(c->params))
		return hr_errf(e, HR_INPUT, "%s: claim '%s': \"params\" must "
			       "be an object", path, c->id);
	for (size_t j = 0; j < i; j++)
		if (!strcmp(l->claims[j].id, c->id))
			return hr_errf(e, HR_INPUT, "%s: claim id '%s' "
				       "appears twice", path, c->id);
	return HR_OK;
}

int ledger_load(struct ledger *l, const char *claims_path,
		const char *roles_path, struct hr_err *e)
{
	const cJSON *arr, *o, *ex;
	size_t i = 0;

	memset(l, 0, sizeof(*l));
	if (json_load_file(claims_path, &l->claims_doc, e) ||
	    json_load_file(roles_path, &l->roles_doc, e))
		return e->code;
	if (!cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(l->roles_doc,
							     "models")))
		return hr_errf(e, HR_INPUT, "%s: wants an object \"models\" "
			       "mapping roles to model names", roles_path);
	ex = cJSON_GetObjectItemCaseSensitive(l->roles_doc, "excluded_models");
	if (ex && !cJSON_IsArray(ex))
		return hr_errf(e, HR_INPUT, "%s: \"excluded_models\" wants an "
			       "array of model names", roles_path);
	cJSON_ArrayForEach(o, ex) {
		if (!cJSON_IsString(o))
			return hr_errf(e, HR_INPUT, "%s: \"excluded_models\": "
				       "entry %zu is not a string", roles_path,
				       i + 1);
		i++;
	}
	i = 0;
	arr = cJSON_GetObjectItemCaseSensitive(l->claims_doc, "claims");
	if (!cJSON_IsArray(arr))
		return hr_errf(e, HR_INPUT, "%s: wants an array \"claims\"",
			       claims_path);
	l->n = (size_t)cJSON_GetArraySize(arr);
	if (!(l->claims = calloc(l->n ? l->n : 1, sizeof(*l->claims))))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	cJSON_ArrayForEach(o, arr) {
		if (!cJSON_IsObject(o))
			return hr_errf(e, HR_INPUT, "%s: claim %zu is not an "
				       "object", claims_path, i + 1);
		if (parse_claim(l, o, i++, claims_path, e))
			return e->code;
	}
	return HR_OK;
}

void ledger_release(struct ledger *l)
{
	cJSON_Delete(l->claims_doc);
	cJSON_Delete(l->roles_doc);
	free(l->claims);
	memset(l, 0, sizeof(*l));
}

/* The claim's value as replayed: the same metric over the evaluations with
 * the replay's verdicts and speedups (see replayset_view). */
static void replay_value(const struct ctx *x, const struct claim *c,
			 const struct metric_def *m, int robust,
			 struct claim_value *out)
{
	struct ledger_data d = *x->d;
	struct evalset view;
	struct ctx vx = *x;
	struct eval_filter f;
	size_t n = 0, replayed = 0;

	/* Only what the claim selects counts: a claim about a configuration
	 * replay never ran is not available, not zero. */
	if (resolve_filter(x, c, &f, out)) {
		for (size_t i = 0; i < d.es->n; i++) {
			const struct replay_row *rr;

			if (!eval_filter_match(&f, &d.es->rows[i]))
				continue;
			n++;
			rr = replayset_find(d.rs, d.es->rows[i].id);
			replayed += rr && (robust ? rr->robust.have :
					   rr->faithful.have);
		}
		if (n && !replayed && !m->derived) {
			na(out, "none of its %zu evaluations was replayed "
			   "in %s mode", n,
			   hr_mode_name(robust ? MODE_ROBUST : MODE_FAITHFUL));
			return;
		}
	}
	if (replayset_view(d.rs, d.es, robust, &view)) {
		na(out, "out of memory");
		return;
	}
	d.es = &view;
	vx.d = &d;
	vx.which = robust ? 2 : 1;
	m->fn(&vx, c, out);
	replayset_view_release(&view);
}

/* Is the row of a model the roles file excludes (its "excluded_models":
 * a model name or a configuration label)? */
static int excluded(const struct ledger *l, const struct evalrow *r)
{
	const cJSON *m;

	cJSON_ArrayForEach(m, cJSON_GetObjectItemCaseSensitive(l->roles_doc,
							      "excluded_models"))
		if (!strcmp(m->valuestring, r->model) ||
		    !strcmp(m->valuestring, r->config))
			return 1;
	return 0;
}

/* view: es without the excluded models' rows and configurations (the
 * rows and names borrowed); -1 when out of memory. */
static int claims_view(const struct ledger *l, const struct evalset *es,
		       struct evalset *view)
{
	memset(view, 0, sizeof(*view));
	view->rows = malloc((es->n ? es->n : 1) * sizeof(*view->rows));
	view->configs = malloc((es->nconfigs ? es->nconfigs : 1) *
			       sizeof(*view->configs));
	if (!view->rows || !view->configs)
		return -1;
	for (size_t i = 0; i < es->n; i++) {
		const struct evalrow *r = &es->rows[i];

		if (excluded(l, r))
			continue;
		view->rows[view->n++] = *r;
		/* Rows come sorted by configuration. */
		if (!view->nconfigs ||
		    strcmp(view->configs[view->nconfigs - 1], r->config))
			view->configs[view->nconfigs++] = r->config;
	}
	return 0;
}

int ledger_evaluate(const struct ledger *l, const struct ledger_data *in,
		    struct claim_result *out, struct hr_err *e)
{
	struct ledger_data dd = *in, *d = &dd;
	struct evalset view;

	if (claims_view(l, in->es, &view)) {
		free(view.rows);
		free(view.configs);
		return hr_errf(e, HR_SYSTEM, "out of memory");
	}
	dd.es = &view;
	for (size_t i = 0; i < l->n; i++) {
		const struct claim *c = &l->claims[i];
		const struct metric_def *m = find_metric(c->metric);
		struct ctx x = { l, d, out, i, 0 };
		struct claim_result *r = &out[i];
		double stated_r;

		memset(r, 0, sizeof(*r));
		m->fn(&x, c, &r->archive);
		r->replayable = m->replayable;
		if (!m->replayable) {
			na(&r->faithful, "an archive fact");
			r->robust = r->faithful;
		} else if (!d->rs->n) {
			na(&r->faithful, "%s", d->rs->why);
			r->robust = r->faithful;
		} else {
			replay_value(&x, c, m, 0, &r->faithful);
			replay_value(&x, c, m, 1, &r->robust);
		}
		r->status = metric_compare(c->stated, c->tolerance,
					   r->archive.v);
		r->replay_status = metric_compare(c->stated, c->tolerance,
						  r->robust.v);
		/* A derived claim also says whether the paper's own inputs
		 * give its number: 8.63 % from (0.582, 0.417, 1.552). */
		if (m->derived) {
			struct claim_value tmp;

			if (amdahl_inputs(&x, c, 1, &stated_r, &tmp))
				snprintf(r->note, sizeof(r->note), "from the "
					 "stated inputs: %.*f %s",
					 c->decimals, stated_r, c->unit);
		}
	}
	free(view.rows);
	free(view.configs);
	return HR_OK;
}

void claim_format(const struct claim *c, struct metric_range v, char *buf,
		  size_t n)
{
	if (isnan(v.lo) || isnan(v.hi))
		snprintf(buf, n, "n/a");
	else if (v.lo == v.hi)
		snprintf(buf, n, "%.*f", c->decimals, v.lo);
	else
		snprintf(buf, n, "%.*f-%.*f", c->decimals, v.lo, c->decimals,
			 v.hi);
}
