/* jobplan.h - the plan of a new replay run: for each selected evaluation,
 * the problem it is matched to and either a pending job or the verdict it
 * gets at once, with that verdict's audit verdict and findings.
 *
 * Owns: the shard and limit of a run's selection, the matching rule (the
 * evaluation's own record reference; else level + id, narrowed by name;
 * else level + name alone, for a 0/1-based id mix-up; the newest problem
 * where several are left), the early verdicts (no_problem, no_kernel and,
 * on a CPU run, needs_gpu) and the needs-GPU rules.  A pure function of
 * plain structs (tests/unit/test_replay_plan.c): jobs.c loads its input
 * from the store and stores its output.  Must not: read the store, print.
 */
#ifndef HR_REPLAY_JOBPLAN_H
#define HR_REPLAY_JOBPLAN_H

#include <stddef.h>
#include <stdint.h>

#include "../dataset/base/err.h"
#include "../dataset/base/vocab.h"
#include "proto.h"
#include "verdict.h"

/* A stored problem a job may be matched to.  Strings are borrowed. */
struct jobplan_problem {
	int64_t id;               /* problem row; a higher id is newer */
	int level, problem_id;
	const char *name;         /* as stored, e.g. "12_Conv2d.py" */
	int64_t record_source;    /* the source whose own records carried it
	                             (its reference set, dataset/reader.h);
	                             0: none */
};

/* A selected evaluation.  Strings are borrowed. */
struct jobplan_eval {
	int64_t id, source_id;
	int level, problem_id;
	const char *name;         /* the problem name it gives, or NULL */
	int has_kernel;           /* the archive holds its kernel code */
	const char *code;         /* that code (read on a CPU run), or NULL */
};

struct jobplan_in {
	enum hr_mode mode;        /* the run's, for the audit verdict of an
	                             early verdict */
	int cpu;                  /* device cpu: code that needs a GPU is
	                             not run */
	int shard_i, shard_n;     /* shard_n 0: all; else the evaluations
	                             whose id's shard (jobplan_shard_of) is
	                             shard_i */
	int limit;                /* at most this many (after sharding);
	                             0: no limit */
	int by_set;               /* the problems are one set's (--problems-set):
	                             the record reference is not looked for */
	const struct jobplan_eval *evals;       /* selected, in id order */
	size_t nevals;
	const struct jobplan_problem *problems; /* candidates, in any order */
	size_t nproblems;
};

/* What the run gets for one evaluation. */
struct jobplan_job {
	int64_t evaluation_id;
	int64_t problem;          /* matched problem row, 0: none */
	char match[160];          /* how (replay_job.problem_match, JSON) */
	enum proto_verdict verdict; /* PV_NONE: a pending job; else its
	                             verdict now (PV_NO_PROBLEM, PV_NO_KERNEL,
	                             PV_NEEDS_GPU) */
	char why[320];            /* that verdict's reason ("" when pending) */
	struct verdict_out audit; /* its audit verdict (when verdict) */
	char *findings;           /* its findings JSON (when verdict; owned,
	                             jobplan_free) */
};

/* The shard of an evaluation id (a fixed 64-bit mix, stable across hosts). */
int jobplan_shard_of(int64_t evaluation_id, int shard_n);

/* The plan of in: *jobs, an array of *n, one per evaluation taken, in
 * in->evals' order (free with jobplan_free).  Errors: out of memory. */
int jobplan_make(const struct jobplan_in *in, struct jobplan_job **jobs,
		 size_t *n, struct hr_err *e);
void jobplan_free(struct jobplan_job *jobs, size_t n);

#endif
