/* policy.h - the replay scheduler's pure rules: how builds share the
 * cores, when inputs may be drawn ahead, which ready job a run worker
 * takes.
 *
 * Owns: the decisions replay.c's event loop asks for, as functions of
 * plain numbers (no slots, no processes, no clock), so that each can be
 * tested alone (tests/unit/test_replay_draws.c).  Must not: read the
 * system beyond the count of online CPUs, keep state.
 */
#ifndef HR_POLICY_H
#define HR_POLICY_H

#include <stdint.h>

/* Build workers that may draw one problem's sets at once (a faithful job
 * has 6; each worker claims the sets it draws, so they split them). */
#define DRAW_PAR 6

/* How builds share the cores (unit-tested in
 * tests/unit/test_replay_draws.c).  Build workers by default: 1.5 per
 * core (cores + cores / 2, rounded up), so that cores a build leaves idle
 * (one compile step of its two, a link) go to younger builds.  Build job
 * `rank` (0 = the first dispatched) runs at nice replay_build_nice(rank,
 * replay_nice_step(cores)): 1 for the first cores / 4 builds, one step
 * lower for each such group after, at most 19.  On a model of the H200
 * run (tests/gpu/build_sched.py) this packs 24 builds into 1.20x their
 * bound, against 1.29x for one build worker per core and a step per
 * build; the H200 measured 1.25-1.31, where the run worker's jobs, not
 * the builds, came last (docs/benchmarks.md, "replay cold"; the model's
 * runs in docs/benchmarks-history.md, "replay on the H200: draws on
 * threads, builds packed"). */
int replay_online_cpus(void);
int replay_default_build_workers(int cores);
/* Build workers started with a run on `cores` cores: cores / 4, at least
 * 2; the others start once a build compiles (replay.c grow_pool). */
int replay_first_builders(int cores);
int replay_nice_step(int cores);
int replay_build_nice(int rank, int step);
/* Whether a build job of that nice runs under SCHED_IDLE (the job
 * message's "idle"): every build behind the first group (nice above 1).
 * The first group keeps the cores the run workers leave, at nice 1; the
 * others take what is left and yield at once to a run worker's thread
 * that wakes (under EEVDF, kernel 6.18, nice 19 compilers kept a timed
 * call's handshake waiting 4-8 ms for a CPU on the H100).  Among the
 * idle builds the nice order no longer weighs (SCHED_IDLE weighs all
 * alike): the first group's order holds.  Draws ahead (inputs-only
 * jobs) run idle too. */
int replay_build_idle(int nice);

/* The scheduler's two rules for drawing inputs ahead, as pure functions
 * (unit-tested in tests/unit/test_replay_draws.c).
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
 * some are left: its GPU's keeper holds the sets); then, while it holds
 * as many started problems with a job being built as it may
 * (`blocked`: replay_run_blocked), only a problem whose
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

/* Whether a run worker is blocked (replay_pick_run's `blocked`): it
 * started started_unbuilt problems that still have a job to build, and
 * may hold started_max such problems at once (replay_started_max).  With
 * 1 (the default) a worker with one such problem starts no other that
 * has builds left; in a cold run that holds ready jobs back while the GPU
 * idles (docs/replay.md, "held back"). */
int replay_run_blocked(int started_unbuilt, int started_max);

/* The started problems with builds left a run worker may hold at once:
 * HEADROOM_STARTED_MAX's value (env), a number from 1 to 8; 1 where it
 * is NULL or empty, -1 (refused: replay's usage error) otherwise.  Each
 * started problem's sets stay in its keeper: 2 fits a keeper of 10 sets
 * at 5-6 sets a problem, not the H200's 6.4 GB sets (the comment
 * above). */
int replay_started_max(const char *env);

/* Where a run worker's time goes (issue 35: the GPU never idle while a
 * built job waits), summed over the run's passes (replay.c
 * account_run) and printed with the run's summary: running a job
 * (RW_BUSY), starting (RW_STARTING: its process or a restart), or idle
 * for one reason of replay_run_idle's. */
enum run_wait { RW_BUSY, RW_STARTING, RW_HELD, RW_DRAWS, RW_BUILDS,
		RW_DONE, RW_N };

/* The reason an idle run worker has no job, from the run's jobs: ready
 * (built, not run), of which pickable (those the draw rules let it take,
 * replay_pick_run's candidates) and unbuilt (still to be built or being
 * built).  RW_HELD: ready jobs it may take, held back by replay_pick_run
 * (a problem it started still has builds); RW_DRAWS: every ready job's
 * problem is being drawn (or waits for another's draw); RW_BUILDS:
 * nothing ready, builds to come; RW_DONE: nothing left for it. */
enum run_wait replay_run_idle(int ready, int pickable, int unbuilt);

/* "busy", "starting", "held back", "waiting for draws", "waiting for
 * builds", "no job left"; NULL out of range. */
const char *replay_run_wait_name(int w);

/* The order build jobs are dispatched in (replay.c pick_build): grouped by
 * problem, the problems in the order of their first job, each problem's
 * jobs in job order.  order[i] is the i-th job; pj[j] the problem index
 * of job j, problems numbered in the order of their first job (replay.c
 * make_probs), each below nprobs.  An archive stores a model's samples
 * together (one KernelBench run folder a model), so job order visits
 * every problem once a model: a run worker that started a problem (and
 * finishes it first: replay_pick_run) then waited for its other models'
 * builds at the end of the queue, with built jobs of other problems
 * ready (the archive benchmark cold on an H100: "held back" 342 s of
 * 450). */
void replay_build_order(const int *pj, int n, int nprobs, int *order);

/* Whether a job to run again after the builds (its first attempt's
 * candidate waited for a CPU while it was timed: replay.c, the worker's
 * retry_after_builds) may run now: once no job is left to build or being
 * built (unbuilt). */
int replay_after_builds_may_run(int unbuilt);

#endif
