/* jobs.h - replay runs and jobs in the store (tables replay_run, replay_job).
 *
 * Owns: creating a run and its jobs (matching each evaluation to its
 * problem), finding a run to resume, loading its pending jobs, and writing
 * one finished job per transaction.  The schema is dataset/store.c's
 * (migration "replay").  Must not: run anything, print anything.
 *
 * A job is pending until its result is written; nothing else marks it, so a
 * run killed at any moment resumes with exactly the jobs that have no
 * result (none lost, none written twice: the write is
 * "UPDATE ... WHERE state = 'pending'" inside one transaction).  The audit
 * verdict and findings (replay_job.audit_verdict, findings_json) are
 * written in that same transaction, so a job never has one without the
 * other.
 */
#ifndef HR_REPLAY_JOBS_H
#define HR_REPLAY_JOBS_H

#include <stdint.h>

#include <cjson/cJSON.h>

#include "../dataset/base/vocab.h"
#include "../dataset/select.h"
#include "../dataset/store.h"
#include "proto.h"
#include "rules.h"

/* What selects the evaluations of a new run. */
struct jobs_filter {
	int shard_i, shard_n;      /* shard_n 0: all; else the shard of
	                              jobplan_shard_of */
	int limit;                 /* 0: no limit (after sharding) */
	const char *problems_set;  /* match problems of this set only; NULL all */
	const struct evalsel *sel; /* which evaluations (select.h); NULL all */
};

/* Insert a run (state running) and one job per selected evaluation, in one
 * transaction: the plan of jobplan.h for the evaluations f selects and the
 * stored problems.  Evaluations without a problem or without kernel code get
 * their verdict (no_problem, no_kernel) at once, and so does, on device
 * "cpu", a candidate that compiles CUDA code or defines a Triton kernel
 * (needs_gpu, the reason in error_text).  *run_id is the new run. */
int jobs_create_run(struct store *s, enum hr_mode mode, const char *device,
		    const char *shard, const char *settings_json,
		    const struct jobs_filter *f, int64_t *run_id,
		    struct hr_err *e);

/* The newest run that did not finish; *run_id 0 when there is none.
 * *settings (owned by the caller, free()) is its settings JSON. */
int jobs_find_resumable(struct store *s, int64_t *run_id, char **settings,
			struct hr_err *e);

/* One pending job with everything a worker needs (all strings owned). */
struct job {
	int64_t id, evaluation_id;
	int64_t problem_ref;    /* problem row: jobs of one problem share inputs */
	int level, problem_id, sample_id;
	char *model;
	char *harness;          /* v0 | v0.1 | current (from evaluation.harness) */
	char *precision;        /* fp32 | fp16 | bf16 */
	char *kernel_sha256;
	char *kernel_code;
	char *problem_code;
	char *problem_file;
	int attempts;           /* as stored, before this process */
};

/* Load the pending jobs of run_id in id order.  *jobs is an array of *n
 * (free with jobs_free). */
int jobs_load_pending(struct store *s, int64_t run_id, struct job **jobs,
		      int *n, struct hr_err *e);
void jobs_free(struct job *jobs, int n);

/* Counts of a run: all jobs and those done. */
int jobs_count(struct store *s, int64_t run_id, int *total, int *done,
	       struct hr_err *e);

/* Count one more attempt of a job (one small transaction). */
int jobs_mark_attempt(struct store *s, int64_t job_id, struct hr_err *e);

/* What a finished job stores.  res is the worker's result object (may be
 * NULL); verdict overrides res's verdict when not NULL (timeout, crashed);
 * error_text likewise.  Strings are borrowed. */
struct job_outcome {
	const cJSON *res;
	const struct rules *rules; /* static rules matched against the kernel
				      (signals); NULL: none matched, stored
				      as "signals": null */
	enum proto_verdict verdict; /* PV_NONE: the result's "verdict" */
	const char *error_kind;
	const char *error_text;
	const char *phase;
	const char *stderr_tail;
	const char *libs_note;     /* appended to the verdict's reason (a
				      runtime library the run lacked) */
	double wall_ms;
};

/* Write a finished job in one transaction, with its audit verdict
 * (replay/verdict.h: from the result, the run's mode and the problem's
 * problem_audit gate for the job's harness and precision) and its findings
 * (the result's evidence, the rules' signals on the kernel's code).  A job
 * that is no longer pending is left alone (returns HR_OK, *written 0). */
int jobs_finish(struct store *s, int64_t job_id, const struct job_outcome *o,
		int *written, struct hr_err *e);

/* Record the environment a run worker reported (its hello line). */
int jobs_set_env(struct store *s, int64_t run_id, const cJSON *hello,
		 struct hr_err *e);

/* Set a run's state (finished | interrupted) and finished_at. */
int jobs_end_run(struct store *s, int64_t run_id, const char *state,
		 struct hr_err *e);

/* Remove a run this process created and that never started (its jobs
 * too, in one transaction): a run that could not start leaves no stub. */
int jobs_drop_run(struct store *s, int64_t run_id, struct hr_err *e);

#endif
