/* replayset.h - this machine's replay results (tables replay_run and
 * replay_job, written by replay/), loaded for reports.
 *
 * Owns: reading the latest finished result per evaluation and mode, the
 * replay environment (GPU, driver, CUDA, torch), and the evaluation sets
 * the claims ledger recomputes "as replayed".  The tables come with the
 * replay stage's migration; without them, or without a finished job, the
 * set is empty and says why.  Must not: write to the store, print.
 */
#ifndef HR_REPLAYSET_H
#define HR_REPLAYSET_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../dataset/base/err.h"
#include "evalset.h"

struct replay_result {
	int have;          /* 0: this mode did not replay the evaluation */
	int64_t job_id;    /* its replay_job row */
	int correct;       /* original check (allclose), 1/0/-1 */
	int scale_invariant; /* every trial passed the scale-invariant
				checks: 1/0, -1 when not recorded */
	double speedup, ci_low, ci_high; /* NAN when none */
	double own_share;  /* share of the call's kernel (CPU: host) time in
			      the candidate's own code, 0-1; NAN when the job
			      measured none */
	char audit[64];    /* the job's audit verdict (replay/verdict.h), ""
			      for a job stored before the audit existed */
	char *findings_json; /* owned; {"evidence", "signals", "why"} or NULL */
	char tolerance[400]; /* the original check's tolerance and why
				(harness_tolerance_text), "" when the job
				recorded none */
};

struct replay_row {
	int64_t evaluation_id;
	struct replay_result faithful, robust;
};

struct replayset {
	struct replay_row *rows; /* owned; sorted by evaluation_id */
	size_t n;
	const char *why;   /* static; why there is nothing, when n is 0 */
	char env[640];     /* "GPU, driver D, CUDA C, torch T, clocks SM S
			      (max M), memory C[; inputs: by whom][; SM
			      clocks around the timed calls]" (a CPU
			      run: "CPU MODEL, torch T[; ...]") of the latest
			      finished run where a worker started, or why
			      there is none */
};

int replayset_load(struct replayset *rs, sqlite3 *db, struct hr_err *e);
void replayset_release(struct replayset *rs);

/* The replay row of an evaluation, NULL when it was not replayed. */
const struct replay_row *replayset_find(const struct replayset *rs,
					int64_t evaluation_id);

/* The replay a per-evaluation table or figure shows of an evaluation
 * (signals, coverage, the models table's scale-invariant count): the
 * robust mode's latest job when it has one, else the faithful mode's;
 * NULL when neither mode replayed it (or rr is NULL). */
const struct replay_result *replay_row_shown(const struct replay_row *rr);

/* The share of its output a job's partial-write finding (docs/replay.md)
 * says the kernel left unwritten: the finding's evidence
 * fraction_unwritten, 0..1.  -1 when the job holds no partial-write
 * finding, NAN when the finding gives no fraction. */
double replay_result_unwritten(const struct replay_result *res);

/* A copy of es whose verdicts and speedups are the replay's (mode 0
 * faithful, 1 robust).  An evaluation the mode did not replay counts as
 * not correct.  Robust: correct needs the scale-invariant checks too when
 * they were recorded and an audit verdict other than correct-vacuous (a
 * check that passes zeros makes no win), and a speedup above 1 counts only
 * when the job's
 * audit verdict is verified-faster (else it is capped at 1): "verified"
 * (the verdict also asks for the interval's lower bound above 1, no
 * evidence finding and the scale-invariant checks passed).  The copy
 * borrows es's strings; release with replayset_view_release. */
int replayset_view(const struct replayset *rs, const struct evalset *es,
		   int robust, struct evalset *out);
void replayset_view_release(struct evalset *view);

#endif
