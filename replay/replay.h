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
#include "rules.h"

struct replay_opts {
	const char *device;          /* cpu | cuda */
	const char *gpus;            /* "0,1,..." physical indices (cuda) */
	int build_jobs;              /* build workers, >= 1 */
	const char *python, *worker; /* interpreter and worker.py */
	const char *scratch, *cache; /* directories (created when missing) */
	const char *verify_lib;      /* NULL: torch.allclose only */
	const char *rand_lib;        /* NULL: torch draws the inputs */
	int mem_limit_mb;            /* RLIMIT_AS per CPU job, 0 none */
	double timeout_build;        /* seconds, build phase (and reference) */
	double timeout_run;          /* seconds, every other phase */
	double timeout_start;        /* seconds, worker start (import torch) */
	long long inputs_mb;         /* budget of the inputs drawn ahead, MiB;
	                                -1: half the free space there */
	const char *settings_json;   /* the run's settings: sent with each job */
	const struct rules *rules;   /* static rules for each job's signals
	                                (rules.h); NULL: none */
	/* Called after every finished job (may be NULL); arg is cb_arg. */
	void (*progress)(void *cb_arg, int done, int total, const char *verdict,
			 const char *what);
	void *cb_arg;
	volatile sig_atomic_t *stop; /* set asynchronously to stop early */
};

/* The job phases whose seconds replay_stats sums, in order. */
#define REPLAY_NPHASES 5
extern const char *const replay_phases[REPLAY_NPHASES];

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
	 * results (checks.phase_seconds; replay_phases names them), and the
	 * input sets the jobs used, of which lent by a keeper. */
	double phase_s[REPLAY_NPHASES];
	int timed_jobs, sets, sets_lent;
	/* The compilers' CPU seconds over every build (build.cpu_seconds),
	 * the build workers they had and the machine's cores: the cold run's
	 * build bound is build_cpu_s / build_cores. */
	double build_cpu_s;
	int build_workers, build_cores;
};

/* How builds share the cores (replay.c; unit-tested in
 * tests/unit/test_replay_draws.c).  Build workers by default: 1.5 per
 * core (cores + cores / 2, rounded up), so that cores a build leaves idle
 * (one compile step of its two, a link) go to younger builds.  Build job
 * `rank` (0 = the first dispatched) runs at nice replay_build_nice(rank,
 * replay_nice_step(cores)): 1 for the first cores / 4 builds, one step
 * lower for each such group after, at most 19.  On a model of the H200
 * run (tests/gpu/build_sched.py) this packs 24 builds into 1.20x their
 * bound, against 1.29x for one build worker per core and a step per
 * build; the H200 measured 1.27-1.32 (1.32-1.37 before), where the run
 * worker's jobs, not the builds, came last (docs/benchmarks.md). */
int replay_online_cpus(void);
int replay_default_build_workers(int cores);
/* Build workers started with a run on `cores` cores: cores / 4, at least
 * 2; the others start once a build compiles (replay.c grow_pool). */
int replay_first_builders(int cores);
int replay_nice_step(int cores);
int replay_build_nice(int rank, int step);

/* The scheduler's two rules for drawing inputs ahead, as pure functions
 * (replay.c; unit-tested in tests/unit/test_replay_draws.c).
 *
 * replay_drawer_fits: 1 when the memory available (avail bytes, 0 when
 * unknown) holds one more drawer beside `drawers`: a drawer holds its set
 * and writes it (twice the set, counted for the drawers already at it,
 * who may not have allocated yet), and 4 GiB stay free.  max_set is the
 * largest input file seen in the run; while it is 0 (none seen), at most
 * 6 drawers (on the H200 sixteen drawers of 6.4 GB sets, started before
 * any file was written, had the kernel kill jobs for memory).
 *
 * replay_draw_room: 1 when a build worker may start drawing another
 * problem: fewer problems drawing or drawn than the limit, the directory
 * under its budget, and room in it for every problem being drawn, whole
 * (max_sets sets of max_set bytes), and this one.  Until a set's size is
 * known, and when that room is lacking, one problem per run worker at a
 * time (with an empty directory: for the sets that fit), so the sets the
 * next jobs need come first (on the H200 four problems of 6.4 GB sets
 * drawn at once split the budget, and each job of the first drew its
 * sixth set itself). */
int replay_drawer_fits(uint64_t max_set, int drawers, uint64_t avail);

struct draw_room_in {
	int problems, limit;       /* DRAWING or DRAWN; at most */
	int drawing, nrun;         /* DRAWING; run workers */
	uint64_t used, budget;     /* the directory's bytes; its budget */
	uint64_t max_set;          /* largest set seen, 0 none */
	int max_sets;              /* most sets a problem named, 0 none */
};

int replay_draw_room(const struct draw_room_in *in);

/* replay_pick_run: which ready job an idle run worker takes, from the
 * candidates c[0..n) in job order (the jobs the draw rules let it take);
 * returns an index into c, or -1: wait.  In order: a job of the problem
 * the worker ran last; of a problem it already started (it ran some job,
 * some are left: its GPU's keeper holds the sets); then, while a problem
 * it started still has a job being built (`blocked`), only a problem whose
 * every job left is ready ("whole": it runs through at once and its sets
 * go); else a drawn problem's, else the first.  On the H200 a run worker
 * that started a third problem while two others waited for builds needed
 * 18 sets of 6.4 GB where the keeper and the inputs directory hold 16:
 * every job of the third drew two of its sets itself (40 s jobs instead
 * of 1.6 s). */
struct run_cand {
	int last;     /* the worker's last problem */
	int started;  /* this worker ran a job of the problem, some are left */
	int whole;    /* no job of the problem is still to be built */
	int drawn;    /* its sets are drawn (DRAWN) */
};

int replay_pick_run(const struct run_cand *c, int n, int blocked);

/* Run every pending job of run_id.  Returns HR_OK when the run finished,
 * HR_SYSTEM with e set when it could not go on (workers cannot start, the
 * store fails, interrupted). */
int replay_run(struct store *s, int64_t run_id, const struct replay_opts *o,
	       struct replay_stats *st, struct hr_err *e);

#endif
