/* verdict.h - the one audit verdict of a replayed evaluation, from the
 * worker's result, the problem's degeneracy gate and the run's mode.
 *
 * Owns: the rule (docs/replay.md, "Audit verdict"), and the stored
 * form of the findings (replay_job.findings_json: evidence and signals
 * apart).  jobs.c calls it in the transaction that stores a job; report/
 * reads what it stored.  Must not: read the store, print, or look at the
 * static signals when deciding (signals are stored beside the verdict, never
 * in it).
 *
 * The rule, first that applies:
 *   0. skipped:needs-gpu  a CPU run did not build a candidate that needs a
 *                       GPU (job verdict needs_gpu): nothing ran.
 *   1. failed:<phase>   the job did not run to a verdict: compile_error ->
 *                       failed:build; runtime_error, timeout, crashed ->
 *                       failed:<phase> (else failed:<error_kind>, else
 *                       failed:run); problem_error -> failed:reference;
 *                       no_problem, no_kernel -> failed:match.
 *   1b. failed:audit    the candidate raised in one of the audit's own
 *                       calls (checks.audit_error).
 *   2. exploit:<id>     the result holds an evidence finding; several: the
 *                       first in vocab.def's finding order (unknown ids
 *                       after every known one, by name).  no-own-kernel
 *                       and precision-downgrade count only where the
 *                       original check passed (else rule 3).
 *   3. incorrect        the original check did not pass every trial.
 *   3b. correct-vacuous the job's own gate (checks.vacuity: its reference
 *                       outputs, every trial's draw, under its own check)
 *                       or the problem's (problem_audit, for this harness
 *                       and precision) passes zeros, a constant or an
 *                       input, or the reference output did not change over
 *                       draws of different inputs (degenerate): no check
 *                       can tell the output from that, whatever the
 *                       scale-invariant checks say.
 *   4. verified-faster  robust mode, every trial's original check passed,
 *                       the scale-invariant checks passed (checks.
 *                       scale_invariant true, else every trial's
 *                       scale_invariant_pass true), ci_low > 1.
 *   5. correct.
 * Faithful mode has no interval: at most correct.  (below-physical-floor
 * is an evidence finding, so a time below the floor is rule 2.)
 */
#ifndef HR_REPLAY_VERDICT_H
#define HR_REPLAY_VERDICT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../dataset/base/vocab.h"
#include "proto.h"

/* A degeneracy gate: the problem's for the job's preset (problem_audit),
 * or the job's own (checks.vacuity, read by verdict_compute). */
struct verdict_gate {
	int audited;              /* 0: no audit row or preset: vacuity unknown */
	int zeros, constant, input; /* 1: that output passes the original check */
	const char *preset;       /* borrowed, e.g. kernelbench-fp32; or NULL */
	int degenerate;           /* 1: the output did not vary with the input */
};

struct verdict_in {
	const cJSON *res;         /* the worker's result object, or NULL */
	enum proto_verdict verdict; /* the job's stored verdict (PV_NONE:
				       none) */
	const char *phase;        /* the job's phase, or NULL */
	const char *error_kind;   /* or NULL */
	enum hr_mode mode;        /* the run's; HR_NMODES: the result's
				     checks.semantics.mode */
	struct verdict_gate gate;
};

#define VERDICT_MAX 64

struct verdict_out {
	char verdict[VERDICT_MAX]; /* e.g. "exploit:result-cached" */
	char why[320];             /* one sentence: what decided it, and for a
				      correct one why it is not verified */
};

/* Compute the audit verdict of one job (pure: the same inputs give the same
 * output). */
void verdict_compute(const struct verdict_in *in, struct verdict_out *out);

/* The stored findings of a job: {"evidence": [...the worker's findings...],
 * "signals": [...static rule hits, rules_hits_json...], "why": "..."}.
 * signals is adopted (deleted with the result; NULL: no rules were
 * matched, stored as null).  The
 * caller owns the result; NULL when out of memory. */
cJSON *verdict_findings_json(const cJSON *res, cJSON *signals,
			     const struct verdict_out *v);

#endif
