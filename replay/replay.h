/* replay.h - the replay orchestrator: schedule jobs on worker processes.
 *
 * Owns: the build pool (workers that execute candidates so their extensions
 * are compiled into the shared cache, and draw each problem's input sets
 * into the run's inputs directory, ahead of run work), one run worker per
 * GPU (one on CPU), per-phase time limits, killing and restarting workers,
 * the inputs directory's lifetime (a problem's files go when its last job
 * is done, the directory with the run), and the one write per finished job
 * (through jobs.h).  Must not: print (progress goes through the callback),
 * run candidate code itself.
 */
#ifndef HR_REPLAY_H
#define HR_REPLAY_H

#include <signal.h>
#include <stdint.h>

#include "../dataset/store.h"
#include "policy.h"
#include "pool.h"
#include "proto.h"
#include "rules.h"

struct replay_opts {
	struct worker_opts w;        /* every worker (pool.h): w.gpus lists
	                                the GPUs, one run worker each; w.scratch
	                                and w.cache are created when missing;
	                                w.verify_lib NULL: torch.allclose only;
	                                w.mem_limit_mb per CPU job */
	int build_jobs;              /* build workers, >= 1 */
	const char *libs_note;       /* what a missing runtime library
	                                costs, added to every stored
	                                verdict's reason; NULL: none */
	double timeout_build;        /* seconds, build phase (and reference) */
	double timeout_run;          /* seconds, every other phase */
	long long inputs_mb;         /* budget of the inputs drawn ahead, MiB;
	                                -1: half the free space there */
	int started_max;             /* started problems with builds left a
	                                run worker may hold (replay_started_max);
	                                < 1: 1 */
	const char *settings_json;   /* the run's settings: sent with each job */
	const struct rules *rules;   /* static rules for each job's signals
	                                (rules.h); NULL: none */
	/* Called after every finished job (may be NULL); arg is cb_arg. */
	void (*progress)(void *cb_arg, int done, int total, const char *verdict,
			 const char *what);
	void *cb_arg;
	volatile sig_atomic_t *stop; /* set asynchronously to stop early */
};

/* The job phases whose seconds replay_stats sums, in order: the worker's
 * phases from reference to timing (phase_s[i] is PH_REFERENCE + i). */
#define REPLAY_NPHASES (PH_AUDIT - PH_REFERENCE + 1)
static inline const char *replay_phase_name(int i)
{
	return proto_phase_name((enum proto_phase)(PH_REFERENCE + i));
}

struct replay_stats {
	int total, done;             /* jobs of the run */
	int ran;                     /* finished by this process */
	int builds, build_hits;      /* build jobs that built extensions; of
	                              * which every extension was cached */
	int predraws, predraw_sets;  /* draws done ahead by build workers (of
	                              * problems), sets they saved */
	int recipes;                 /* problems whose sets build workers left
	                              * to the keeper (a recipe each) */
	int restarts;                /* workers killed or lost and restarted */
	int interrupted;             /* stopped through *stop */
	/* Where the run jobs' time went: seconds per phase summed over the
	 * results (checks.phase_seconds; replay_phase_name names them), and the
	 * input sets the jobs used, of which lent by a keeper. */
	double phase_s[REPLAY_NPHASES];
	int timed_jobs, sets, sets_lent;
	/* The compilers' CPU seconds over every build (build.cpu_seconds),
	 * the build workers they had and the machine's cores: the cold run's
	 * build bound is build_cpu_s / build_cores. */
	double build_cpu_s;
	int build_workers, build_cores;
	/* The run workers' seconds by what each was doing (enum run_wait,
	 * policy.h), summed over the nrun of them, over the run's
	 * run_wall_s seconds of scheduling. */
	double run_s[RW_N], run_wall_s;
	int nrun;
};

/* Run every pending job of run_id.  Returns HR_OK when the run finished,
 * HR_SYSTEM with e set when it could not go on (workers cannot start, the
 * store fails, interrupted). */
int replay_run(struct store *s, int64_t run_id, const struct replay_opts *o,
	       struct replay_stats *st, struct hr_err *e);

#endif
