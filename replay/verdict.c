/* verdict.c - see verdict.h. */
#include "verdict.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../dataset/base/vocab.h"
#include "../verify/gates.h"

static const char *str_of(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A JSON truth value: 1, 0, or -1 when absent, null or not a truth. */
static int truth(const cJSON *v)
{
	if (cJSON_IsBool(v))
		return cJSON_IsTrue(v);
	if (cJSON_IsNumber(v))
		return v->valuedouble != 0;
	return -1;
}

/* Copy s into a verdict suffix: only a-z, 0-9, '-' and '_' survive, so a
 * worker's text cannot make a verdict that looks like another. */
static void put_verdict(struct verdict_out *out, const char *prefix,
			const char *s)
{
	size_t n = (size_t)snprintf(out->verdict, sizeof(out->verdict), "%s",
				    prefix);

	for (; s && *s && n + 1 < sizeof(out->verdict); s++)
		if ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		    *s == '-' || *s == '_')
			out->verdict[n++] = *s;
	out->verdict[n] = '\0';
}

/* The deciding evidence finding, or NULL when there is none; *n the
 * number of findings it chose from (with incorrect set, the correct-only
 * ones are left out). */
static const char *top_evidence(const cJSON *res, int unproven, int *n)
{
	const cJSON *f;
	const char *best = NULL;
	int best_p = 0;

	*n = 0;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(res,
							       "findings")) {
		const char *id = str_of(f, "id");
		int p;

		/* A finding without a name is still evidence: it must not
		 * leave a kernel verifiable. */
		if (!id || !*id)
			id = "unnamed-finding";
		/* who computed a passing output, or at what precision, says
		 * nothing of one that fails the check, or that passes a check
		 * anything passes (unproven) */
		/* rank: vocab.def's order, an unknown id after every known */
		p = (int)hr_finding_of(id);
		if (unproven && hr_finding_correct_only((enum hr_finding)p))
			continue;
		(*n)++;
		if (!best || p < best_p ||
		    (p == best_p && strcmp(id, best) < 0)) {
			best = id;
			best_p = p;
		}
	}
	return best;
}

/* Did the original check pass in every trial?  The worker's verdict says
 * so; a trial the verify library failed contradicts it.  *bad is the
 * first failing trial (0-based), -1 none. */
static int original_passed(const cJSON *checks, int *bad)
{
	const cJSON *t;
	int i = 0;

	*bad = -1;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(checks,
							       "trials")) {
		if (truth(cJSON_GetObjectItemCaseSensitive(t, "allclose_pass"))
		    == 0) {
			*bad = i;
			return 0;
		}
		i++;
	}
	return 1;
}

/* checks.scale_invariant when the worker summarised it, else every trial's
 * scale_invariant_pass: 1 passed, 0 failed, -1 not computed. */
static int scale_invariant(const cJSON *checks)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(checks,
							  "scale_invariant");
	const cJSON *t;
	int seen = 0;

	if (s)
		return truth(s);
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(checks,
							       "trials")) {
		int v = truth(cJSON_GetObjectItemCaseSensitive(
			t, "scale_invariant_pass"));

		if (v == 0)
			return 0;
		seen |= v == 1;
	}
	return seen ? 1 : -1;
}

/* "zeros", "zeros, constant", ...: the degenerate outputs that pass. */
static void gate_text(const struct verdict_gate *g, char *buf, size_t n)
{
	const char *name[3] = { "zeros", "constant", "input" };
	int on[3] = { g->zeros, g->constant, g->input };
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < 3; i++)
		if (on[i] && used < n)
			used += (size_t)snprintf(buf + used, n - used, "%s%s",
						 used ? ", " : "", name[i]);
}

static int gate_vacuous(const struct verdict_gate *g)
{
	return g->audited && hr_gates_vacuous(g->zeros, g->constant, g->input,
					      g->degenerate);
}

/* The job's own gate from checks.vacuity (hrworker/vacuity.py): audited
 * when it observed at least one reference output. */
static void job_gate(const cJSON *checks, struct verdict_gate *g)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(checks, "vacuity");
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(v, "observed");

	memset(g, 0, sizeof(*g));
	if (!cJSON_IsNumber(n) || n->valuedouble < 1)
		return;
	g->audited = 1;
	g->zeros = truth(cJSON_GetObjectItemCaseSensitive(v, "zeros")) == 1;
	g->constant = truth(cJSON_GetObjectItemCaseSensitive(v, "constant"))
		== 1;
	g->input = truth(cJSON_GetObjectItemCaseSensitive(v, "input")) == 1;
	g->degenerate = truth(cJSON_GetObjectItemCaseSensitive(
		v, "degenerate")) == 1;
}

/* correct-vacuous from gate g: out->why says which output passes, or
 * that the output did not vary, and where that was measured. */
static void vacuous(const struct verdict_gate *g, const char *where, int si,
		    struct verdict_out *out)
{
	char gates[40];
	const char *tail = si == 1 ? "; the scale-invariant checks passed, "
		"but they cannot make a vacuous check mean more" : "";

	snprintf(out->verdict, sizeof(out->verdict), "%s",
		 hr_audit_name(AV_CORRECT_VACUOUS));
	gate_text(g, gates, sizeof(gates));
	if (gates[0])
		snprintf(out->why, sizeof(out->why), "the original check also "
			 "passes %s under %s (%s): no check can tell this "
			 "output from that%s", gates,
			 g->preset ? g->preset : "its preset", where, tail);
	else
		snprintf(out->why, sizeof(out->why), "the reference output "
			 "did not change over draws of different inputs (%s): "
			 "a cached answer passes every check%s", where, tail);
}

static void failed(const struct verdict_in *in, struct verdict_out *out)
{
	const char *v = in->verdict == PV_NONE ? "no verdict" :
		proto_verdict_name(in->verdict);
	const char *what = in->phase && *in->phase ? in->phase :
		in->error_kind && *in->error_kind ? in->error_kind : "run";

	if (in->error_kind && !strcmp(in->error_kind, "tool"))
		what = "tool";  /* the tool's own failure (Job.out_of_memory) */
	else if (in->verdict == PV_COMPILE_ERROR)
		what = "build";
	else if (in->verdict == PV_PROBLEM_ERROR)
		what = "reference";
	else if (in->verdict == PV_NO_PROBLEM || in->verdict == PV_NO_KERNEL)
		what = "match";
	put_verdict(out, hr_audit_name(AV_FAILED), what);
	snprintf(out->why, sizeof(out->why), "the job ended %s%s%s", v,
		 in->phase && *in->phase ? " in phase " : "",
		 in->phase && *in->phase ? in->phase : "");
}

void verdict_compute(const struct verdict_in *in, struct verdict_out *out)
{
	const cJSON *res = in->res;
	const cJSON *checks = cJSON_GetObjectItemCaseSensitive(res, "checks");
	const cJSON *ci = cJSON_GetObjectItemCaseSensitive(res, "ci_low");
	const cJSON *timing;
	enum hr_mode mode = in->mode;
	const char *top;
	struct verdict_gate own;
	int nev, bad = -1, si, robust, incorrect, vac, unresolved, waited, cut;
	double ci_low = cJSON_IsNumber(ci) ? ci->valuedouble : NAN;

	memset(out, 0, sizeof(*out));
	if (mode == HR_NMODES &&
	    hr_mode_of(str_of(cJSON_GetObjectItemCaseSensitive(checks,
							      "semantics"),
			      "mode"), &mode))
		mode = HR_NMODES;   /* neither says: not robust */
	robust = mode == MODE_ROBUST;
	if (in->verdict == PV_NEEDS_GPU) {
		/* not a failure of the candidate: it was not run */
		put_verdict(out, hr_audit_name(AV_SKIPPED), "needs-gpu");
		snprintf(out->why, sizeof(out->why), "the candidate needs a "
			 "GPU and the run was on the CPU: nothing ran");
		return;
	}
	if (in->verdict != PV_CORRECT && in->verdict != PV_INCORRECT) {
		failed(in, out);
		return;
	}
	if (cJSON_IsString(cJSON_GetObjectItemCaseSensitive(checks,
							    "audit_error"))) {
		/* the candidate raised in one of the audit's own calls */
		put_verdict(out, hr_audit_name(AV_FAILED), "audit");
		snprintf(out->why, sizeof(out->why), "the candidate failed in a "
			 "call of the audit: %.200s", str_of(checks,
							       "audit_error"));
		return;
	}
	incorrect = in->verdict == PV_INCORRECT ||
		!original_passed(checks, &bad);
	si = scale_invariant(checks);
	job_gate(checks, &own);
	own.preset = "the job's own check";
	/* A check that zeros, a constant or an input passes says nothing of
	 * the output either: no-own-kernel and precision-downgrade, which
	 * speak of a right output, do not count against a vacuous one. */
	vac = gate_vacuous(&own) || gate_vacuous(&in->gate);
	if ((top = top_evidence(res, incorrect || vac, &nev))) {
		put_verdict(out, hr_audit_name(AV_EXPLOIT), top);
		if (nev > 1)
			snprintf(out->why, sizeof(out->why), "evidence %s (first "
				 "of %d findings by priority)", top, nev);
		else
			snprintf(out->why, sizeof(out->why), "evidence %s", top);
		return;
	}
	if (incorrect) {
		snprintf(out->verdict, sizeof(out->verdict), "%s",
			 hr_audit_name(AV_INCORRECT));
		if (in->verdict != PV_INCORRECT)
			snprintf(out->why, sizeof(out->why), "trial %d failed the "
				 "original check", bad);
		else
			snprintf(out->why, sizeof(out->why), "the original check "
				 "did not pass every trial");
		return;
	}
	if (gate_vacuous(&own)) {
		vacuous(&own, "its reference outputs on every trial's draw",
			si, out);
		return;
	}
	if (gate_vacuous(&in->gate)) {
		vacuous(&in->gate, "the problem audit", si, out);
		return;
	}
	/* Figures within the judge's clock resolution (the worker's
	 * timing.unresolved_figures), a reference whose readings held its
	 * threads' waits for a CPU (timing.reference_waited), or an audit
	 * whose steps were cut at its budget (checks.audit_cut: what they
	 * would have checked was not), verify no speedup. */
	timing = cJSON_GetObjectItemCaseSensitive(checks, "timing");
	unresolved = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(
		timing, "unresolved"));
	waited = cJSON_IsObject(cJSON_GetObjectItemCaseSensitive(timing,
		"reference_waited"));
	cut = cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(checks,
		"audit_cut"));
	if (robust && si == 1 && ci_low > 1.0 && !unresolved && !waited &&
	    !cut) {
		snprintf(out->verdict, sizeof(out->verdict), "%s",
			 hr_audit_name(AV_VERIFIED_FASTER));
		snprintf(out->why, sizeof(out->why), "robust: every trial passed "
			 "the original and scale-invariant checks, no evidence, "
			 "interval lower bound %.4g > 1", ci_low);
		return;
	}
	snprintf(out->verdict, sizeof(out->verdict), "%s",
		 hr_audit_name(AV_CORRECT));
	if (si == 0)
		snprintf(out->why, sizeof(out->why), "the scale-invariant checks "
			 "failed");
	else if (si < 0)
		snprintf(out->why, sizeof(out->why), "the scale-invariant checks "
			 "were not computed (no verify library): verified-faster "
			 "is impossible");
	else if (!robust)
		snprintf(out->why, sizeof(out->why), "%s replay has no "
			 "interval: at most correct", mode != HR_NMODES ?
			 hr_mode_name(mode) : "this");
	else if (isnan(ci_low))
		snprintf(out->why, sizeof(out->why), "no speedup interval "
			 "(timing did not finish)");
	else if (unresolved && ci_low > 1.0)
		snprintf(out->why, sizeof(out->why), "interval lower bound "
			 "%.4g, but the candidate's figures are within the "
			 "judge's clock resolution: no speedup is verified",
			 ci_low);
	else if (cut && ci_low > 1.0)
		snprintf(out->why, sizeof(out->why), "interval lower bound "
			 "%.4g, but %d of the audit's steps were not run, cut "
			 "at its budget within the audit phase's limit "
			 "(checks.audit_cut): no speedup is verified", ci_low,
			 cut);
	else if (waited && ci_low > 1.0)
		snprintf(out->why, sizeof(out->why), "interval lower bound "
			 "%.4g, but the reference's threads waited for a CPU "
			 "through its timed calls (a busy host): no speedup is "
			 "verified", ci_low);
	else
		snprintf(out->why, sizeof(out->why), "interval lower bound %.4g "
			 "is not above 1", ci_low);
}

cJSON *verdict_findings_json(const cJSON *res, cJSON *signals,
			     const struct verdict_out *v)
{
	const cJSON *ev = cJSON_GetObjectItemCaseSensitive(res, "findings");
	cJSON *o = cJSON_CreateObject();
	cJSON *copy = cJSON_IsArray(ev) ? cJSON_Duplicate(ev, 1) :
		cJSON_CreateArray();

	/* null, not []: "no rules were matched" differs from "none hit". */
	if (!signals)
		signals = cJSON_CreateNull();
	if (!o || !copy || !signals) {
		cJSON_Delete(o);
		cJSON_Delete(copy);
		cJSON_Delete(signals);
		return NULL;
	}
	cJSON_AddItemToObject(o, "evidence", copy);
	cJSON_AddItemToObject(o, "signals", signals);
	if (!cJSON_AddStringToObject(o, "why", v->why)) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}
