/* replay.c - see replay.h: the slots (one worker process each) and the
 * event loop; the rules the loop asks for are policy.h's.
 *
 * A job is built by a build worker (the candidate's extension lands in
 * the cache), then run by the run worker of a GPU (correctness and
 * timing).  A kernel built once in this run skips the build of its later
 * jobs; a job whose build already gave a verdict (compile_error,
 * timeout, ...) is done without a run.  One poll(2) loop watches every
 * worker's protocol and stderr pipes and every deadline.  The states of a
 * worker slot, a job and a problem's draw, and the moves between them,
 * are the tables of states.h; every change of one goes through worker_to,
 * job_to or draw_to, which check the move there.
 *
 * Input sets are drawn ahead.  The run has one inputs directory
 * (SCRATCH/inputs) shared by every worker; a problem's files there are
 * named by its inputs key (sha16 of its code, sent with each job).  Build
 * workers draw a problem's inputs (up to DRAW_PAR build jobs of the
 * problem carry "draw", and idle build workers get inputs-only jobs; each
 * set is claimed by one of them); they are removed once its last job is
 * done.  Run jobs of a problem being drawn wait; a run worker given a job
 * of a problem nobody drew draws it itself.  A draw goes before a build.
 * Problems are drawn in job order, side by side while the directory has
 * room for each of them whole, else one per run worker at once
 * (draw_room); at most nrun + DRAW_AHEAD are DRAWING or DRAWN, and the
 * directory stays within its byte budget (inputs_budget); the directory
 * goes with the run.  A run worker holding HEADROOM_STARTED_MAX started
 * problems that still have jobs to build (default 1) finishes them before
 * it starts another such (replay_pick_run, replay_run_blocked).
 */
#include "replay.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

#include "../dataset/digest.h"
#include "jobs.h"
#include "pool.h"
#include "proto.h"
#include "scratch.h"
#include "states.h"

/* Problems whose inputs build workers may draw beyond one per run worker. */
#define DRAW_AHEAD 3
/* How long the run's end waits for its killed process groups to be gone
 * (wproc_groups_gone): a process giving back tens of GB of device memory
 * exits in seconds. */
#define GROUPS_GONE_MS 20000

enum role { ROLE_BUILD, ROLE_RUN };

/* The jobs of one problem share its input sets. */
struct prob {
	int64_t ref;          /* problem row */
	char key[17];         /* its input files: <key>-<seed>.pt */
	enum dstate ds;       /* changed only by draw_to */
	int left;             /* jobs not done */
	int drawers;          /* workers drawing its sets now */
	int drew;             /* some worker drew sets ahead for it */
	int recipe;           /* a worker wrote its recipe for the keeper */
	int closed;           /* a draw of it ended: every set is saved or
				 claimed, a new drawer would find nothing */
	uint64_t ran_by;      /* run slots that ran a job of it: bit r (mod 64)
				 for run slot r; each GPU's keeper holds the
				 sets of the problems its worker ran */
	int building;         /* a job of it is still to be built (pick_run) */
	cJSON *draws;         /* the workers' predraw records, in order */
};

struct slot {
	struct wproc p;
	enum role role;
	enum wstate state;    /* changed only by worker_to */
	char gpu[16];
	char scratch[PATH_MAX];
	int job;              /* index of the running job, -1 none */
	enum proto_phase phase; /* PH_OTHER: no job */
	double deadline;      /* monotonic seconds */
	double job_started;
	double phase_started; /* the phase's start (dispatch, a phase line) */
	cJSON *result;        /* the running job's result line, owned */
	int start_failures;   /* in a row, without a hello */
	int64_t last_problem; /* problem of the last job run here */
	int nice;             /* build slots 1 (a build job: lower, see
				 dispatch); run slots 0 */
	int drawing;          /* problem whose inputs the job draws, -1 none */
	int inputs_only;      /* the job only draws: it is not the job's build */
	int run_index;        /* run slot r of the nrun (pick_run) */
	int predraw_counted;  /* the job's draw record was counted (its
				 "predraw" line, or its result) */
	enum run_wait wait;   /* run slots: what it does until the next pass
				 (pick_run, note_run; account_run adds it) */
};

struct sched {
	struct store *s;
	const struct replay_opts *o;
	int64_t run_id;
	struct job *jobs;
	enum jstate *js;           /* changed only by job_to */
	unsigned char *built;      /* job's kernel built in this run */
	unsigned char *dispatched; /* attempt already counted */
	unsigned char *retried;    /* killed once from outside, run again */
	unsigned char *alone;      /* out of device memory while the tool held
				      some: run again alone (Job.out_of_memory) */
	cJSON **build_stage;       /* the build worker's "build" object */
	cJSON **first_memory;      /* the attempt before the alone one: its
				      checks.memory (who held what) */
	cJSON **first_wait;        /* non-NULL: the job runs again once the
				      builds are done, its first attempt's
				      candidate having waited for a CPU
				      (checks.timing.candidate_waited) */
	int *pj;                   /* job -> index into probs */
	int *border;               /* the jobs in build order
				      (replay_build_order) */
	struct run_cand *cand;     /* pick_run's candidates, and their jobs */
	int *cand_job;
	struct prob *probs;
	int nprobs, draw_limit;
	int nrun;                  /* run slots: one per GPU (one on CPU) */
	uint64_t max_set;          /* largest input file seen in the run */
	int max_sets;              /* most sets one problem's draw named */
	uint64_t inputs_budget;    /* bytes the inputs directory may hold */
	struct {                   /* what one assign() pass read, once */
		int dir, mem;      /* read yet */
		uint64_t used, largest, avail;
	} seen;
	int n;
	struct slot *slots;
	int nslots;
	int build_rank;       /* build jobs dispatched so far (their "nice") */
	double accounted_at;  /* the last pass's clock (account_run), 0 none */
	int nice_step;        /* build jobs a nice level holds (nice_step()) */
	cJSON *settings;
	char scratch[PATH_MAX], cache[PATH_MAX]; /* absolute: workers chdir */
	char inputs[PATH_MAX];     /* SCRATCH/inputs, shared by the workers */
	struct replay_stats *st;
	int env_recorded;
	struct hr_err *e;
};

/* The one way each state changes: the move is checked against its
 * machine's table (states.h). */
static void worker_to(struct slot *sl, enum wstate to)
{
	machine_check(&machine_worker, sl->state, to);
	sl->state = to;
}

static void job_to(struct sched *sc, int j, enum jstate to)
{
	machine_check(&machine_job, sc->js[j], to);
	sc->js[j] = to;
}

static void draw_to(struct prob *pr, enum dstate to)
{
	machine_check(&machine_draw, pr->ds, to);
	pr->ds = to;
}

static int slot_start(struct sched *sc, struct slot *sl)
{
	struct wproc_spec spec = {
		.opts = &sc->o->w, .gpu = sl->gpu,
		.scratch = sl->scratch, .cache = sc->cache,
		.inputs = sc->inputs,
		.keeper = sl->role == ROLE_RUN,
		.take_inputs = sl->role == ROLE_RUN && sc->nrun == 1,
		.nice = sl->nice,
	};

	if (wproc_start(&sl->p, &spec, sc->e))
		return sc->e->code;
	if (sl->state == WS_OFF && sl->role == ROLE_BUILD)
		sc->st->build_workers++;
	worker_to(sl, WS_STARTING);
	sl->job = -1;
	sl->deadline = wproc_now() + sc->o->w.timeout_start;
	sl->phase = PH_START;
	return HR_OK;
}

static void progress(struct sched *sc, int j, const char *verdict)
{
	char what[160];
	const struct job *jb = &sc->jobs[j];

	if (!sc->o->progress)
		return;
	snprintf(what, sizeof(what), "evaluation %lld (level %d problem %d "
		 "sample %d, %s)", (long long)jb->evaluation_id, jb->level,
		 jb->problem_id, jb->sample_id, jb->model);
	sc->o->progress(sc->o->cb_arg, sc->st->done, sc->st->total, verdict,
			what);
}

/* A problem whose jobs are all done loses its input files, unless a
 * worker is still drawing them (then when the draw ends).  Best effort: a
 * file left goes with the directory at the end of the run. */
static void clean_inputs(struct sched *sc, int p)
{
	struct prob *pr = &sc->probs[p];
	char prefix[sizeof(pr->key) + 1];

	if (pr->left > 0 || pr->ds == DS_DRAWING || pr->ds == DS_CLEANED)
		return;
	if (pr->ds == DS_DRAWN) {
		snprintf(prefix, sizeof(prefix), "%s-", pr->key);
		scratch_remove_files(sc->inputs, prefix);
	}
	draw_to(pr, DS_CLEANED);
}

/* The draw sl's job was doing is over (its job left the reference phase,
 * or ended): run workers may take the problem's jobs. */
static void draw_ended(struct sched *sc, struct slot *sl)
{
	int p = sl->drawing;

	if (p < 0)
		return;
	sl->drawing = -1;
	sc->probs[p].closed = 1;
	if (--sc->probs[p].drawers > 0)
		return;       /* others still draw its sets */
	draw_to(&sc->probs[p], DS_DRAWN);
	clean_inputs(sc, p);
}

/* Count what a worker's predraw record says it drew for problem p. */
static void count_draw(struct sched *sc, int p, const cJSON *rec)
{
	const cJSON *d = cJSON_GetObjectItemCaseSensitive(rec, "drawn");
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(rec, "sets");
	const cJSON *b = cJSON_GetObjectItemCaseSensitive(rec, "set_bytes");

	if (cJSON_IsNumber(n) && n->valueint > sc->max_sets)
		sc->max_sets = n->valueint;
	/* The largest set the draw made or found: known even when the keeper
	 * takes every file before the directory is looked at (on the H200
	 * the room rule then saw only half-written files, took a set to be
	 * a third of its size, and let a third problem start drawing). */
	if (cJSON_IsNumber(b) && b->valuedouble > (double)sc->max_set &&
	    b->valuedouble < 1e18)
		sc->max_set = (uint64_t)b->valuedouble;
	/* Kept for the problem's jobs (checks.input_draws): who drew its
	 * sets, and when.  Best effort: out of memory only loses the record. */
	if (p >= 0 && cJSON_IsObject(rec)) {
		struct prob *pr = &sc->probs[p];

		if (!pr->draws)
			pr->draws = cJSON_CreateArray();
		if (pr->draws)
			cJSON_AddItemToArray(pr->draws, cJSON_Duplicate(rec, 1));
	}

	/* A recipe: the run worker's keeper draws the sets (hrworker/inputs.py,
	 * InputSets.write_recipe); counted once a problem. */
	if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "recipe")) &&
	    p >= 0 && !sc->probs[p].recipe) {
		sc->probs[p].recipe = 1;
		sc->st->recipes++;
	}
	if (cJSON_IsNumber(d) && d->valueint > 0) {
		if (p >= 0 && !sc->probs[p].drew) {
			sc->probs[p].drew = 1;
			sc->st->predraws++;
		}
		sc->st->predraw_sets += d->valueint;
	}
}

/* Count the draw record of sl's job once: its "predraw" line, sent when
 * the draw ends, else the copy in its result. */
static void count_job_draw(struct sched *sc, struct slot *sl, const cJSON *rec)
{
	if (sl->predraw_counted || sl->job < 0)
		return;
	sl->predraw_counted = 1;
	count_draw(sc, sc->pj[sl->job], rec);
}

/* Store a finished job and account for it. */
static int finish(struct sched *sc, int j, struct slot *sl, const cJSON *res,
		  enum proto_verdict verdict, const char *ekind,
		  const char *etext)
{
	char tail[WPROC_ERR_TAIL];
	struct job_outcome out = {
		.res = res, .rules = sc->o->rules, .verdict = verdict,
		.libs_note = sc->o->libs_note, .error_kind = ekind,
		.error_text = etext,
		.phase = sl && sl->phase != PH_OTHER ?
			proto_phase_name(sl->phase) : NULL,
		.stderr_tail = sl ? wproc_err_tail(&sl->p, tail, sizeof(tail), 0)
			: NULL,
		.wall_ms = sl ? (wproc_now() - sl->job_started) * 1e3 : 0,
	};
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(res, "verdict");
	cJSON *copy = NULL, *checks;
	int written, rc;

	const cJSON *draws = sc->probs[sc->pj[j]].draws;

	/* What the build worker said about the build, and how the problem's
	 * inputs were drawn ahead, go with the result. */
	if (res && (sc->build_stage[j] || cJSON_GetArraySize(draws) > 0 ||
		    sc->retried[j] || sc->alone[j] || sc->first_wait[j]) &&
	    (copy = cJSON_Duplicate(res, 1))) {
		checks = cJSON_GetObjectItemCaseSensitive(copy, "checks");
		if (!cJSON_IsObject(checks))
			checks = cJSON_AddObjectToObject(copy, "checks");
		if (checks && sc->build_stage[j])
			cJSON_AddItemToObject(checks, "build_stage",
					      cJSON_Duplicate(sc->build_stage[j], 1));
		if (checks && cJSON_GetArraySize(draws) > 0)
			cJSON_AddItemToObject(checks, "input_draws",
					      cJSON_Duplicate(draws, 1));
		if (checks && sc->retried[j])
			cJSON_AddStringToObject(checks, "retried",
						"an earlier attempt's job process "
						"was killed by SIGKILL, not by "
						"headroom");
		if (checks && sc->alone[j])
			cJSON_AddStringToObject(checks, "retried_alone",
						"an earlier attempt ran out of "
						"device memory while headroom held "
						"some; this one ran alone");
		if (checks && sc->first_memory[j])
			cJSON_AddItemToObject(checks, "first_attempt_memory",
					      cJSON_Duplicate(sc->first_memory[j], 1));
		if (checks && sc->first_wait[j])
			cJSON_AddItemToObject(checks, "retried_after_builds",
					      cJSON_Duplicate(sc->first_wait[j], 1));
		out.res = copy;
	}
	rc = jobs_finish(sc->s, sc->jobs[j].id, &out, &written, sc->e);
	cJSON_Delete(copy);
	if (rc)
		return hr_err_prefix(sc->e, "evaluation %lld",
				     (long long)sc->jobs[j].evaluation_id);
	if (sc->js[j] != JS_DONE) {
		sc->probs[sc->pj[j]].left--;
		job_to(sc, j, JS_DONE);
	}
	clean_inputs(sc, sc->pj[j]);
	sc->st->ran += written;
	sc->st->done += written;
	progress(sc, j, verdict != PV_NONE ? proto_verdict_name(verdict) :
		 cJSON_IsString(v) ? v->valuestring :
		 proto_verdict_name(PV_CRASHED));
	return HR_OK;
}

static int same_kernel(const struct sched *sc, int a, int b)
{
	return !strcmp(sc->jobs[a].kernel_sha256, sc->jobs[b].kernel_sha256);
}

/* Next job for an idle build worker, in build order (replay_build_order:
 * a problem's jobs together): -1 none.  A kernel that another worker is
 * building now waits (the cache would make it wait anyway); a kernel
 * built in this run needs no build. */
static int pick_build(struct sched *sc)
{
	for (int i = 0; i < sc->n; i++) {
		int j = sc->border[i], busy = 0;

		if (sc->js[j] != JS_BUILD)
			continue;
		for (int k = 0; k < sc->n && !busy; k++) {
			if (k == j || !same_kernel(sc, j, k))
				continue;
			if (sc->built[k]) {
				sc->built[j] = 1;
				job_to(sc, j, JS_READY);
				busy = 2;
			} else if (sc->js[k] == JS_BUILDING) {
				busy = 1;
			}
		}
		if (!busy)
			return j;
	}
	return -1;
}

static int drawer_fits(struct sched *sc)
{
	int drawers = 0;

	for (int p = 0; p < sc->nprobs; p++)
		drawers += sc->probs[p].drawers;
	if (sc->max_set && !sc->seen.mem) {
		sc->seen.avail = wproc_mem_available();
		sc->seen.mem = 1;
	}
	return replay_drawer_fits(sc->max_set, drawers, sc->max_set ?
				  sc->seen.avail : 0);
}

static int draw_room(struct sched *sc)
{
	struct draw_room_in in = { .limit = sc->draw_limit, .nrun = sc->nrun,
				   .budget = sc->inputs_budget };

	for (int p = 0; p < sc->nprobs; p++) {
		in.problems += sc->probs[p].ds == DS_DRAWING ||
			sc->probs[p].ds == DS_DRAWN;
		in.drawing += sc->probs[p].ds == DS_DRAWING;
	}
	if (in.problems >= in.limit)
		return 0;
	if (!sc->seen.dir) {
		sc->seen.used = scratch_dir_bytes(sc->inputs, &sc->seen.largest);
		sc->seen.dir = 1;
	}
	in.used = sc->seen.used;
	if (sc->seen.largest > sc->max_set)
		sc->max_set = sc->seen.largest;
	in.max_set = sc->max_set;
	in.max_sets = sc->max_sets;
	return replay_draw_room(&in);
}

/* 1 when a build worker may draw problem p's sets, first thing in a build
 * job or as an inputs-only job: fewer than DRAW_PAR workers draw it and
 * none of them is through (after that every set is saved or claimed), or
 * nobody drew it and a new problem may start (draw_room); and the memory
 * holds one more drawer (drawer_fits).  *room and *fits are the caller's
 * answers to those two, -1 until first needed (each counts every
 * problem's state; the directory and /proc/meminfo behind them are read
 * once an assign pass, sc->seen). */
static int may_draw(struct sched *sc, int p, int *room, int *fits)
{
	const struct prob *pr = &sc->probs[p];

	if (pr->ds == DS_DRAWING) {
		if (pr->drawers >= DRAW_PAR || pr->closed)
			return 0;
	} else if (pr->ds != DS_NONE) {
		return 0;
	} else {
		if (*room < 0)
			*room = draw_room(sc);
		if (!*room)
			return 0;
	}
	if (*fits < 0)
		*fits = drawer_fits(sc);
	return *fits;
}

/* A job of the first problem, in job order, that an idle build worker
 * may draw (may_draw: the sets nobody else claimed); -1 none. */
static int pick_draw(struct sched *sc)
{
	int room = -1, fits = -1;

	for (int j = 0; j < sc->n; j++)
		if (sc->js[j] != JS_DONE && may_draw(sc, sc->pj[j], &room, &fits))
			return j;
	return -1;
}

/* Next job for an idle run worker (replay_pick_run), among the ready jobs
 * the draws allow: jobs of a problem whose inputs a build worker is
 * drawing wait for the draw (drawing them here too would do the same work
 * twice); while build workers draw a problem, the jobs of problems nobody
 * drew wait too (their turn to be drawn ahead, by up to DRAW_PAR workers,
 * comes next, where the run worker would draw every set one after
 * another). */
static int pick_run(struct sched *sc, struct slot *sl)
{
	int drawing = 0, started = 0, n = 0, k, ready = 0, unbuilt = 0;
	const uint64_t me = (uint64_t)1 << (sl->run_index & 63);

	for (int p = 0; p < sc->nprobs; p++) {
		drawing |= sc->probs[p].ds == DS_DRAWING;
		sc->probs[p].building = 0;
	}
	for (int j = 0; j < sc->n; j++)
		if (sc->js[j] == JS_BUILD || sc->js[j] == JS_BUILDING) {
			sc->probs[sc->pj[j]].building = 1;
			unbuilt++;
		}
	for (int p = 0; p < sc->nprobs; p++)
		started += (sc->probs[p].ran_by & me) && sc->probs[p].left > 0 &&
			sc->probs[p].building;
	for (int j = 0; j < sc->n; j++) {
		const struct prob *pr = &sc->probs[sc->pj[j]];

		/* A job to run again after the builds waits for them as an
		 * unbuilt one does. */
		if (sc->first_wait[j] && !replay_after_builds_may_run(unbuilt))
			continue;
		ready += sc->js[j] == JS_READY;
		if (sc->js[j] != JS_READY || pr->ds == DS_DRAWING ||
		    (pr->ds == DS_NONE && drawing))
			continue;
		sc->cand[n] = (struct run_cand){
			.last = sc->jobs[j].problem_ref == sl->last_problem,
			.started = (pr->ran_by & me) && pr->left > 0,
			.whole = !pr->building,
			.drawn = pr->ds == DS_DRAWN,
		};
		sc->cand_job[n++] = j;
	}
	k = replay_pick_run(sc->cand, n,
			    replay_run_blocked(started, sc->o->started_max));
	if (k < 0)
		sl->wait = replay_run_idle(ready, n, unbuilt);
	return k >= 0 ? sc->cand_job[k] : -1;
}

static cJSON *job_message(struct sched *sc, int j, enum proto_stop stop)
{
	const struct job *jb = &sc->jobs[j];
	cJSON *m = proto_job_new(jb->id, jb->evaluation_id, stop);
	const cJSON *h = cJSON_GetObjectItemCaseSensitive(sc->settings,
							  "harness");
	const cJSON *kv;
	char cand[96];

	if (!m)
		return NULL;
	/* the run's settings (mode, trials, ...); the harness is the job's
	 * unless the run names one */
	cJSON_ArrayForEach(kv, sc->settings)
		if (strcmp(kv->string, "harness") &&
		    !cJSON_GetObjectItemCaseSensitive(m, kv->string))
			cJSON_AddItemToObject(m, kv->string,
					      cJSON_Duplicate(kv, 1));
	snprintf(cand, sizeof(cand), "kernel-%.16s.py", jb->kernel_sha256);
	cJSON_AddStringToObject(m, "harness", cJSON_IsString(h) ?
				h->valuestring : jb->harness);
	cJSON_AddStringToObject(m, "precision", jb->precision);
	cJSON_AddStringToObject(m, "problem_file", jb->problem_file);
	cJSON_AddStringToObject(m, "problem_code", jb->problem_code);
	cJSON_AddStringToObject(m, "inputs_key", sc->probs[sc->pj[j]].key);
	/* the inputs directory's budget: the worker keeps a set there only
	 * when it fits (large problems' sets are gigabytes each) */
	cJSON_AddNumberToObject(m, "input_cache_mb",
				(double)(sc->inputs_budget >> 20));
	cJSON_AddStringToObject(m, "candidate_file", cand);
	cJSON_AddStringToObject(m, "candidate_code", jb->kernel_code);
	if (sc->alone[j])
		cJSON_AddTrueToObject(m, "alone");
	if (sc->first_wait[j])
		cJSON_AddTrueToObject(m, "after_builds");
	return m;
}

/* How a job goes to a worker: as it is; a build that also draws the
 * problem's inputs first; only the draw (the job itself stays as it is). */
enum how { HOW_PLAIN, HOW_DRAW, HOW_INPUTS };

static int dispatch(struct sched *sc, struct slot *sl, int j, enum how how)
{
	cJSON *m = job_message(sc, j, sl->role == ROLE_RUN ? STOP_ALL :
			      how == HOW_INPUTS ? STOP_INPUTS : STOP_BUILD);
	struct prob *pr = &sc->probs[sc->pj[j]];
	int nice = 0;

	if (m && how != HOW_PLAIN && !cJSON_AddTrueToObject(m, "draw")) {
		cJSON_Delete(m);
		m = NULL;
	}
	/* Builds go in the order they were dispatched: each group of
	 * nice_step builds a step lower than the group before (nice 1 +
	 * rank / nice_step, at most 19; the worker lowers the job's priority,
	 * never raises it).  A build given to a worker whose last build ended
	 * early does not take the cores from older builds still running:
	 * those finish first, and their jobs reach the GPU in line (on the
	 * H200 builds behind a fixed nice per worker took up to 2.5x as long,
	 * and the GPU waited for them). */
	if (sl->role == ROLE_BUILD && how != HOW_INPUTS)
		nice = replay_build_nice(sc->build_rank++, sc->nice_step);
	if (m && nice && !cJSON_AddNumberToObject(m, "nice", nice)) {
		cJSON_Delete(m);
		m = NULL;
	}
	/* Builds behind the first group and draws ahead run under SCHED_IDLE
	 * (replay_build_idle; the worker sets it): a run worker's thread
	 * that wakes takes the CPU from them at once, where a nice value
	 * alone left a timed call's handshake waiting for a CPU. */
	if (m && sl->role == ROLE_BUILD && (how == HOW_INPUTS || replay_build_idle(nice)) &&
	    !cJSON_AddTrueToObject(m, "idle")) {
		cJSON_Delete(m);
		m = NULL;
	}
	if (!m)
		return hr_errf(sc->e, HR_SYSTEM, "out of memory");
	if (how != HOW_INPUTS && !sc->dispatched[j]) {
		sc->dispatched[j] = 1;
		if (jobs_mark_attempt(sc->s, sc->jobs[j].id, sc->e)) {
			cJSON_Delete(m);
			return sc->e->code;
		}
	}
	/* A failed send shows up as the worker's death in the poll loop. */
	(void)wproc_send(&sl->p, m);
	cJSON_Delete(m);
	worker_to(sl, WS_BUSY);
	sl->job = j;
	sl->job_started = sl->phase_started = wproc_now();
	sl->deadline = sl->job_started + sc->o->timeout_build;
	sl->phase = PH_DISPATCH;
	sl->drawing = how == HOW_PLAIN ? -1 : sc->pj[j];
	sl->inputs_only = how == HOW_INPUTS;
	sl->predraw_counted = 0;
	if (how != HOW_PLAIN) {
		draw_to(pr, DS_DRAWING);
		pr->drawers++;
	} else if (sl->role == ROLE_RUN && pr->ds == DS_NONE) {
		draw_to(pr, DS_DRAWN);   /* the run worker draws them itself */
	}
	if (sl->role == ROLE_RUN)
		pr->ran_by |= (uint64_t)1 << (sl->run_index & 63);
	if (how != HOW_INPUTS) {
		job_to(sc, j, sl->role == ROLE_BUILD ? JS_BUILDING :
		       JS_RUNNING);
		sl->last_problem = sc->jobs[j].problem_ref;
	}
	return HR_OK;
}

/* What is known of a job that ended without an answer: it compiled when
 * its build finished (in this run, or before the load phase began). */
static cJSON *crash_result(const struct sched *sc, const struct slot *sl,
			   int j)
{
	cJSON *res = cJSON_CreateObject();
	enum proto_phase ph = sl->phase;
	int compiled = sc->built[j] || sl->role == ROLE_RUN ||
		ph == PH_LOAD || ph == PH_CORRECTNESS || ph == PH_TIMING ||
		ph == PH_AUDIT;

	if (res)
		cJSON_AddItemToObject(res, "compiled", compiled ?
				      cJSON_CreateTrue() : cJSON_CreateNull());
	return res;
}

/* The job of sl ended without a usable answer: record verdict, restart. */
static int lose_worker(struct sched *sc, struct slot *sl,
		       enum proto_verdict verdict, const char *why)
{
	char tail[WPROC_ERR_TAIL];
	int j = sl->job, status = 0, rc = HR_OK;

	wproc_kill(&sl->p, &status);
	sc->st->restarts++;
	if (j >= 0 && !sl->inputs_only) {
		cJSON *res = crash_result(sc, sl, j);

		rc = finish(sc, j, sl, res, verdict, "worker", why);
		cJSON_Delete(res);
	} else if (j < 0 && sl->state == WS_STARTING &&
		   ++sl->start_failures >= 3) {
		return hr_errf(sc->e, HR_SYSTEM, "the %s worker (%s %s) does not "
			       "start: %s", sl->role == ROLE_RUN ? "run" :
			       "build", sc->o->w.python, sc->o->w.worker,
			       wproc_err_tail(&sl->p, tail, 600, 0));
	}
	draw_ended(sc, sl);   /* what it saved stays; the rest is drawn late */
	sl->inputs_only = 0;
	cJSON_Delete(sl->result);
	sl->result = NULL;
	sl->phase = PH_OTHER;
	if (rc)
		return rc;
	return slot_start(sc, sl);
}

static void describe_exit(int status, char *buf, size_t n)
{
	if (status < 0)
		snprintf(buf, n, "the job process was killed by signal %d (%s)",
			 -status, strsignal(-status));
	else
		snprintf(buf, n, "the job process exited with status %d "
			 "without an answer", status);
}

/* Add a run job's phase seconds and input sets to the run's stats. */
static void count_phases(struct replay_stats *st, const cJSON *res)
{
	const cJSON *ch = cJSON_GetObjectItemCaseSensitive(res, "checks");
	const cJSON *ps = cJSON_GetObjectItemCaseSensitive(ch, "phase_seconds");
	const cJSON *ic = cJSON_GetObjectItemCaseSensitive(ch, "input_cache");
	const cJSON *n = cJSON_GetObjectItemCaseSensitive(ic, "sets");
	const cJSON *l = cJSON_GetObjectItemCaseSensitive(ic, "device_held");

	if (!cJSON_IsObject(ps))
		return;
	st->timed_jobs++;
	for (int i = 0; i < REPLAY_NPHASES; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(ps,
								   replay_phase_name(i));

		if (cJSON_IsNumber(v) && v->valuedouble >= 0)
			st->phase_s[i] += v->valuedouble;
	}
	if (cJSON_IsNumber(n) && n->valueint > 0)
		st->sets += n->valueint;
	if (cJSON_IsNumber(l) && l->valueint > 0)
		st->sets_lent += l->valueint;
}

/* What a job run again after the builds says of its first attempt
 * (checks.retried_after_builds): why, the candidate's waits and the
 * speedup then; NULL when out of memory (the first attempt stands). */
static cJSON *after_builds_note(const cJSON *res)
{
	const cJSON *timing = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(res, "checks"), "timing");
	const cJSON *w = cJSON_GetObjectItemCaseSensitive(timing,
							  "candidate_waited");
	const cJSON *sp = cJSON_GetObjectItemCaseSensitive(res, "speedup");
	cJSON *n = cJSON_CreateObject();

	if (n && (!cJSON_AddStringToObject(n, "why", "the first attempt's "
					   "candidate waited for a CPU through "
					   "its timed calls (the run's builds "
					   "or other work): this one ran once "
					   "the builds were done") ||
		  (w && !cJSON_AddItemToObject(n, "first_attempt_waited",
					       cJSON_Duplicate(w, 1))) ||
		  (cJSON_IsNumber(sp) &&
		   !cJSON_AddNumberToObject(n, "first_attempt_speedup",
					    sp->valuedouble)))) {
		cJSON_Delete(n);
		n = NULL;
	}
	return n;
}

/* Add a build's compiler CPU seconds (its "build" object) to the stats. */
static void count_build(struct replay_stats *st, const cJSON *b)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(b, "cpu_seconds");

	if (cJSON_IsNumber(c) && c->valuedouble > 0)
		st->build_cpu_s += c->valuedouble;
}

/* A job process ended ("exit" line): use its result, or name the death. */
static int job_exited(struct sched *sc, struct slot *sl, const cJSON *msg)
{
	const cJSON *stv = cJSON_GetObjectItemCaseSensitive(msg, "status");
	const cJSON *res = sl->result;
	int j = sl->job, status = cJSON_IsNumber(stv) ? stv->valueint : 0;
	char why[160];
	int rc = HR_OK;

	sl->p.job_pgid = 0;
	if (j < 0)
		return HR_OK;
	if (sl->inputs_only) {
		/* Only a draw: whatever its end, the job is as it was. */
		count_job_draw(sc, sl,
			       cJSON_GetObjectItemCaseSensitive(res, "predraw"));
	} else if (sl->role == ROLE_BUILD &&
		   proto_result_verdict(res) == PV_BUILT) {
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(res, "build");
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(b, "cache");

		if (cJSON_IsString(c) && strcmp(c->valuestring, "none")) {
			sc->st->builds++;
			sc->st->build_hits += !strcmp(c->valuestring, "hit");
		}
		count_job_draw(sc, sl,
			       cJSON_GetObjectItemCaseSensitive(b, "predraw"));
		count_build(sc->st, b);
		sc->built[j] = 1;
		job_to(sc, j, JS_READY);
		cJSON_Delete(sc->build_stage[j]);
		sc->build_stage[j] = b ? cJSON_Duplicate(b, 1) : NULL;
	} else if (res) {
		const cJSON *b = cJSON_GetObjectItemCaseSensitive(res, "build");

		count_job_draw(sc, sl,
			       cJSON_GetObjectItemCaseSensitive(b, "predraw"));
		/* A run job's build after a build worker's is torch's
		 * up-to-date check of the cached extension (ninja), not a
		 * build: what the store keeps is the build worker's. */
		if (!sc->build_stage[j])
			count_build(sc->st, b);
		if (sl->role == ROLE_RUN)
			count_phases(sc->st, res);
		if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
			    res, "retry_alone")) && !sc->alone[j]) {
			/* Out of device memory while the tool held some
			 * (the keeper's sets, earlier jobs' teardown): not
			 * the candidate's failure.  Once more, alone. */
			sc->alone[j] = 1;
			sc->dispatched[j] = 0;
			cJSON_Delete(sc->first_memory[j]);
			sc->first_memory[j] = cJSON_Duplicate(
			    cJSON_GetObjectItemCaseSensitive(
				cJSON_GetObjectItemCaseSensitive(res, "checks"),
				"memory"), 1);
			job_to(sc, j, JS_READY);
		} else if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(
				   res, "retry_after_builds")) &&
			   !sc->first_wait[j] &&
			   (sc->first_wait[j] = after_builds_note(res))) {
			/* A robust GPU job whose candidate's handshakes
			 * waited for a CPU (the run's builds, other work):
			 * its figures read slower than its kernels ran.
			 * Once more, after the builds (pick_run). */
			sc->dispatched[j] = 0;
			job_to(sc, j, JS_READY);
		} else {
			rc = finish(sc, j, sl, res, PV_NONE, NULL, NULL);
		}
	} else if (status == -SIGKILL && !sc->retried[j]) {
		/* Killed, but not by us (our kills go through lose_worker):
		 * most likely the kernel's OOM killer, for memory the host
		 * lacked at that moment (on the H200, drawers of 6.4 GB sets
		 * did that to two correct jobs).  Once more; a second such
		 * death is the job's verdict. */
		sc->retried[j] = 1;
		sc->dispatched[j] = 0;          /* the next one is counted */
		job_to(sc, j, sl->role == ROLE_RUN || sc->built[j] ? JS_READY
		       : JS_BUILD);
	} else {
		cJSON *crash = crash_result(sc, sl, j);

		if (cJSON_IsNumber(stv))
			describe_exit(status, why, sizeof(why));
		else    /* a stray of the job said "answered" for it */
			snprintf(why, sizeof(why), "the job process was killed "
				 "when its worker was told it had answered, "
				 "without an answer");
		rc = finish(sc, j, sl, crash, PV_CRASHED, "exit", why);
		cJSON_Delete(crash);
	}
	draw_ended(sc, sl);
	sl->inputs_only = 0;
	cJSON_Delete(sl->result);
	sl->result = NULL;
	sl->job = -1;
	worker_to(sl, WS_IDLE);
	sl->phase = PH_OTHER;
	wproc_err_tail(&sl->p, why, 2, 1);   /* each job gets its own tail */
	return rc;
}

/* 1 when msg names the job sl is running (lines about any other job --
 * a stray process of an earlier job, say -- are ignored). */
static int for_running_job(const struct sched *sc, const struct slot *sl,
			   const cJSON *msg)
{
	return sl->state == WS_BUSY && sl->job >= 0 &&
		proto_job_of(msg) == sc->jobs[sl->job].id;
}

static int handle_line(struct sched *sc, struct slot *sl, cJSON *msg)
{
	enum proto_type type = proto_type_of(msg);
	int rc = HR_OK;

	if (type != PT_HELLO && !for_running_job(sc, sl, msg)) {
		cJSON_Delete(msg);
		return HR_OK;
	}
	if (type == PT_HELLO) {
		if (wproc_hello(msg, 0, sc->e) < 0) {
			cJSON_Delete(msg);
			return sc->e->code;
		}
		if (sl->state == WS_STARTING) {
			worker_to(sl, WS_IDLE);
			sl->start_failures = 0;
		}
		if (sl->role == ROLE_RUN && !sc->env_recorded) {
			sc->env_recorded = 1;
			rc = jobs_set_env(sc->s, sc->run_id, msg, sc->e);
		}
	} else if (type == PT_START) {
		wproc_job_started(&sl->p, msg);
	} else if (type == PT_PHASE) {
		const cJSON *ph = cJSON_GetObjectItemCaseSensitive(msg, "phase");
		const char *p = cJSON_IsString(ph) ? ph->valuestring : "?";
		enum proto_phase phase = proto_phase_of(p);
		int building = proto_phase_is_build(phase);

		sl->phase = phase;
		sl->phase_started = wproc_now();
		sl->deadline = sl->phase_started + (building ?
			sc->o->timeout_build : sc->o->timeout_run);
		if (phase != PH_REFERENCE)
			draw_ended(sc, sl);   /* it draws in the reference phase */
	} else if (type == PT_PREDRAW && sl->drawing >= 0) {
		/* Only from a job sent to draw, before its draw ended (the
		 * worker sends it before the build phase, where candidate
		 * code starts). */
		count_job_draw(sc, sl,
			       cJSON_GetObjectItemCaseSensitive(msg, "predraw"));
	} else if (type == PT_RESULT && !sl->result) {
		sl->result = msg;
		return HR_OK;   /* kept until the job process exits */
	} else if (type == PT_EXIT) {
		rc = job_exited(sc, sl, msg);
	}
	cJSON_Delete(msg);
	return rc;
}

/* Read whatever sl has to say; handle its death. */
static int service(struct sched *sc, struct slot *sl, short out_ev,
		   short err_ev)
{
	int r = wproc_pump(&sl->p, out_ev, err_ev);
	int eof = r == -1, bad = r == -2;
	cJSON *msg;
	char why[96];

	while (out_ev && !bad && (r = wproc_next(&sl->p, &msg)) != 0) {
		if (r < 0) {
			bad = 1;
			break;
		}
		if (handle_line(sc, sl, msg))
			return sc->e->code;
	}
	if (bad)
		return lose_worker(sc, sl, PV_CRASHED, "the worker wrote a line "
				   "that is not protocol JSON");
	if (eof) {
		wproc_drain_err(&sl->p);
		snprintf(why, sizeof(why), "the worker process ended (during "
			 "phase %s)", sl->phase != PH_OTHER ?
			 proto_phase_name(sl->phase) : "idle");
		return lose_worker(sc, sl, PV_CRASHED, why);
	}
	return HR_OK;
}

/* Whether sl's deadline counts: a worker starting or at work (an idle one
 * waits for nothing, a build slot not started yet has no process). */
static int timed(const struct slot *sl)
{
	return sl->state != WS_IDLE && sl->state != WS_OFF;
}

static int check_deadlines(struct sched *sc, double now)
{
	for (int i = 0; i < sc->nslots; i++) {
		struct slot *sl = &sc->slots[i];
		char why[128];

		if (!timed(sl) || now < sl->deadline)
			continue;
		if (sl->state == WS_STARTING) {
			if (lose_worker(sc, sl, PV_NONE, NULL))
				return sc->e->code;
			continue;
		}
		snprintf(why, sizeof(why), "phase %s exceeded its limit of %g s",
			 proto_phase_name(sl->phase),
			 proto_phase_is_build(sl->phase) ?
			 sc->o->timeout_build : sc->o->timeout_run);
		if (lose_worker(sc, sl, PV_TIMEOUT, why))
			return sc->e->code;
	}
	return HR_OK;
}

static int assign(struct sched *sc)
{
	/* The inputs directory and /proc/meminfo are read at most once a
	 * pass, however many idle build workers ask (draw_room, drawer_fits);
	 * what the workers write meanwhile shows in the next pass. */
	sc->seen.dir = sc->seen.mem = 0;
	for (int i = 0; i < sc->nslots; i++) {
		struct slot *sl = &sc->slots[i];
		int j;

		enum how how = HOW_PLAIN;

		if (sl->state != WS_IDLE)
			continue;
		if (sl->role == ROLE_RUN) {
			j = pick_run(sc, sl);
		} else {
			/* Draws come first, in job order (the order the run
			 * worker takes problems in): a build of the problem
			 * to draw draws its sets first (up to DRAW_PAR builds
			 * side by side), else the worker only draws.  On the
			 * H200, builds that drew their own problems drew the
			 * last problem's sets while the directory had no room
			 * for those of the problems built before it. */
			int d = pick_draw(sc);

			j = pick_build(sc);
			if (d >= 0 && j >= 0 && sc->pj[d] == sc->pj[j]) {
				how = HOW_DRAW;
			} else if (d >= 0) {
				j = d;
				how = HOW_INPUTS;
			}
		}
		if (j >= 0 && dispatch(sc, sl, j, how))
			return sc->e->code;
	}
	return HR_OK;
}

/* The build workers not started with the run (make_slots) start once a
 * build compiles: one in its build phase for GROW_AFTER_S.  A run whose
 * kernels are all in the cache never starts them: every worker imports
 * torch as it starts (2-3 CPU-s), and on the H200 the 24 build workers of
 * a warm run, starting with the run worker, held its start (and so the
 * first job and the keeper's first draws) to 6-8 s. */
#define GROW_AFTER_S 1.0

static int grow_pool(struct sched *sc, double now)
{
	int compiling = 0;

	for (int i = 0; i < sc->nslots && !compiling; i++) {
		const struct slot *sl = &sc->slots[i];

		compiling = sl->role == ROLE_BUILD && sl->state == WS_BUSY &&
			sl->phase == PH_BUILD &&
			now - sl->phase_started >= GROW_AFTER_S;
	}
	for (int i = 0; i < sc->nslots && compiling; i++)
		if (sc->slots[i].state == WS_OFF &&
		    slot_start(sc, &sc->slots[i]))
			return sc->e->code;
	return HR_OK;
}

static int all_done(const struct sched *sc)
{
	for (int j = 0; j < sc->n; j++)
		if (sc->js[j] != JS_DONE)
			return 0;
	return 1;
}

/* Add the time since the last pass to what each run worker was doing
 * meanwhile (st->run_s): called at the top of each pass, before assign,
 * whose pick_run notes an idle run worker's reason; note_run notes the
 * others' after it. */
static void account_run(struct sched *sc, double now)
{
	double dt = sc->accounted_at > 0 ? now - sc->accounted_at : 0;

	for (int i = 0; i < sc->nslots && dt > 0; i++)
		if (sc->slots[i].role == ROLE_RUN)
			sc->st->run_s[sc->slots[i].wait] += dt;
	if (dt > 0)
		sc->st->run_wall_s += dt;
	sc->accounted_at = now;
}

static void note_run(struct sched *sc)
{
	for (int i = 0; i < sc->nslots; i++) {
		struct slot *sl = &sc->slots[i];

		if (sl->role == ROLE_RUN && sl->state == WS_BUSY)
			sl->wait = RW_BUSY;
		else if (sl->role == ROLE_RUN && sl->state != WS_IDLE)
			sl->wait = RW_STARTING;
	}
}

static int loop(struct sched *sc)
{
	struct pollfd *pfd = calloc((size_t)sc->nslots * 2, sizeof(*pfd));

	if (!pfd)
		return hr_errf(sc->e, HR_SYSTEM, "out of memory");
	while (!all_done(sc)) {
		double now = wproc_now(), next = now + 1.0;
		int timeout_ms, nfd = 0;

		if (sc->o->stop && *sc->o->stop) {
			sc->st->interrupted = 1;
			break;
		}
		account_run(sc, now);
		if (grow_pool(sc, now) || assign(sc))
			break;
		note_run(sc);
		for (int i = 0; i < sc->nslots; i++) {
			struct slot *sl = &sc->slots[i];

			pfd[2 * i].fd = sl->p.out_fd;
			pfd[2 * i + 1].fd = sl->p.err_fd;
			pfd[2 * i].events = pfd[2 * i + 1].events = POLLIN;
			pfd[2 * i].revents = pfd[2 * i + 1].revents = 0;
			if (timed(sl) && sl->deadline < next)
				next = sl->deadline;
			nfd += 2;
		}
		timeout_ms = next > now ? (int)((next - now) * 1e3) + 1 : 0;
		if (poll(pfd, (nfds_t)nfd, timeout_ms) < 0 && errno != EINTR) {
			hr_errf(sc->e, HR_SYSTEM, "poll: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < sc->nslots; i++) {
			short o = pfd[2 * i].revents, r = pfd[2 * i + 1].revents;

			if ((o || r) && service(sc, &sc->slots[i], o, r))
				goto out;
		}
		if (check_deadlines(sc, wproc_now()))
			break;
	}
out:
	account_run(sc, wproc_now());
	free(pfd);
	return sc->e->code;
}

/* Build slots, then one run slot per GPU (one on CPU). */
static int make_slots(struct sched *sc)
{
	const struct replay_opts *o = sc->o;
	char gpus[256], *save = NULL, *tok;
	int nrun = 0, i = 0;
	const char *first_gpu = "0";

	snprintf(gpus, sizeof(gpus), "%s", o->w.gpus && *o->w.gpus ? o->w.gpus : "0");
	for (const char *p = gpus; *p; p++)
		nrun += *p == ',';
	nrun = strcmp(o->w.device, "cuda") ? 1 : nrun + 1;
	sc->nslots = o->build_jobs + nrun;
	sc->st->build_workers = 0;    /* counted as they start */
	sc->st->build_cores = replay_online_cpus();
	sc->nice_step = replay_nice_step(sc->st->build_cores);
	sc->nrun = sc->st->nrun = nrun;
	sc->draw_limit = nrun + DRAW_AHEAD;
	/* zeroed: every slot WS_OFF, no process yet */
	if (!(sc->slots = calloc((size_t)sc->nslots, sizeof(*sc->slots))))
		return hr_errf(sc->e, HR_SYSTEM, "out of memory");
	tok = strtok_r(gpus, ",", &save);
	if (tok)
		first_gpu = tok;
	/* Build workers run niced (1), below the run workers' own CPU work
	 * (the keeper's draws, launching).  Each group of build jobs then
	 * goes one step lower than the group dispatched before it (dispatch:
	 * "nice"), so the oldest builds (the next jobs in line) get the cores
	 * first and the GPU worker starts early, while the younger ones, idle
	 * policy (dispatch: "idle"), use what the rest leave.  The total build
	 * work is the same. */
	for (; i < o->build_jobs; i++) {
		sc->slots[i].role = ROLE_BUILD;
		sc->slots[i].nice = 1;
		snprintf(sc->slots[i].gpu, sizeof(sc->slots[i].gpu), "%s",
			 first_gpu);
	}
	for (int r = 0; r < nrun; r++, i++) {
		sc->slots[i].role = ROLE_RUN;
		sc->slots[i].run_index = r;
		snprintf(sc->slots[i].gpu, sizeof(sc->slots[i].gpu), "%s",
			 tok ? tok : "0");
		tok = strtok_r(NULL, ",", &save);
	}
	for (i = 0; i < sc->nslots; i++) {
		struct slot *sl = &sc->slots[i];

		sl->p.in_fd = sl->p.out_fd = sl->p.err_fd = -1;
		sl->job = -1;
		sl->drawing = -1;
		if ((size_t)snprintf(sl->scratch, sizeof(sl->scratch), "%s/%s%d",
				     sc->scratch, sl->role == ROLE_RUN ? "run" :
				     "build", i) >= sizeof(sl->scratch))
			return hr_errf(sc->e, HR_USAGE, "scratch path too long");
		if (scratch_mkdir_p(sl->scratch, sc->e))
			return sc->e->code;
		/* The first replay_first_builders build workers start
		 * now, the rest once a build compiles (grow_pool). */
		if (sl->role == ROLE_BUILD &&
		    i >= replay_first_builders(sc->st->build_cores))
			continue;
		if (slot_start(sc, sl))
			return sc->e->code;
	}
	return HR_OK;
}

/* One entry per problem of the pending jobs, with its inputs key. */
static int make_probs(struct sched *sc)
{
	char hex[HR_SHA256_HEX];

	sc->pj = calloc((size_t)sc->n + 1, sizeof(*sc->pj));
	sc->border = calloc((size_t)sc->n + 1, sizeof(*sc->border));
	sc->probs = calloc((size_t)sc->n + 1, sizeof(*sc->probs));
	if (!sc->pj || !sc->border || !sc->probs)
		return hr_errf(sc->e, HR_SYSTEM, "out of memory");
	for (int j = 0; j < sc->n; j++) {
		const struct job *jb = &sc->jobs[j];
		int p = 0;

		while (p < sc->nprobs && sc->probs[p].ref != jb->problem_ref)
			p++;
		if (p == sc->nprobs) {
			if (hr_sha256_hex(jb->problem_code,
					  strlen(jb->problem_code), hex))
				return hr_errf(sc->e, HR_SYSTEM, "sha256 of "
					       "problem %lld failed",
					       (long long)jb->problem_ref);
			sc->probs[p].ref = jb->problem_ref;
			snprintf(sc->probs[p].key, sizeof(sc->probs[p].key),
				 "%.16s", hex);
			sc->nprobs++;
		}
		sc->pj[j] = p;
		sc->probs[p].left++;
	}
	replay_build_order(sc->pj, sc->n, sc->nprobs, sc->border);
	return HR_OK;
}

/* What the inputs directory may hold: o->inputs_mb ($HEADROOM_INPUTS_MB;
 * 0: nothing, every job draws its own sets), else half the space free
 * there when the run starts (a large problem's six sets can take tens of
 * gigabytes).  Draws ahead wait while it is full; workers keep a set only
 * when it fits (hrworker/inputs.py, InputSets.keepable). */
static void inputs_budget(struct sched *sc)
{
	struct statvfs fs;

	if (sc->o->inputs_mb >= 0)
		sc->inputs_budget = (uint64_t)sc->o->inputs_mb << 20;
	else if (!statvfs(sc->inputs, &fs))
		sc->inputs_budget = (uint64_t)fs.f_bavail * fs.f_frsize / 2;
	else
		sc->inputs_budget = (uint64_t)1 << 30;
}

/* The run's inputs directory, empty: files a killed run left may come
 * from another torch. */
static int make_inputs_dir(struct sched *sc)
{
	if ((size_t)snprintf(sc->inputs, sizeof(sc->inputs), "%s/inputs",
			     sc->scratch) >= sizeof(sc->inputs))
		return hr_errf(sc->e, HR_USAGE, "scratch path too long");
	if (scratch_mkdir_p(sc->inputs, sc->e))
		return sc->e->code;
	if (scratch_remove_files(sc->inputs, ""))
		return hr_errf(sc->e, HR_SYSTEM, "%s: cannot empty the inputs "
			       "directory", sc->inputs);
	inputs_budget(sc);
	return HR_OK;
}

int replay_run(struct store *s, int64_t run_id, const struct replay_opts *o,
	       struct replay_stats *st, struct hr_err *e)
{
	struct sched sc = { .s = s, .o = o, .run_id = run_id, .st = st, .e = e };
	int rc;

	memset(st, 0, sizeof(*st));
	if (jobs_count(s, run_id, &st->total, &st->done, e))
		return e->code;
	if (!(sc.settings = cJSON_Parse(o->settings_json)))
		return hr_errf(e, HR_INPUT, "replay run %lld: settings are not "
			       "JSON", (long long)run_id);
	if (jobs_load_pending(s, run_id, &sc.jobs, &sc.n, e))
		goto done;
	sc.js = calloc((size_t)sc.n + 1, sizeof(*sc.js));
	sc.built = calloc((size_t)sc.n + 1, 1);
	sc.dispatched = calloc((size_t)sc.n + 1, 1);
	sc.retried = calloc((size_t)sc.n + 1, 1);
	sc.alone = calloc((size_t)sc.n + 1, 1);
	sc.build_stage = calloc((size_t)sc.n + 1, sizeof(*sc.build_stage));
	sc.first_memory = calloc((size_t)sc.n + 1, sizeof(*sc.first_memory));
	sc.first_wait = calloc((size_t)sc.n + 1, sizeof(*sc.first_wait));
	sc.cand = calloc((size_t)sc.n + 1, sizeof(*sc.cand));
	sc.cand_job = calloc((size_t)sc.n + 1, sizeof(*sc.cand_job));
	if (!sc.js || !sc.built || !sc.dispatched || !sc.retried ||
	    !sc.alone || !sc.build_stage || !sc.first_memory ||
	    !sc.first_wait || !sc.cand ||
	    !sc.cand_job) {
		hr_errf(e, HR_SYSTEM, "out of memory");
		goto done;
	}
	if (sc.n > 0 && (make_probs(&sc) ||
			 scratch_absolute_dir(o->w.scratch, sc.scratch, e) ||
			 scratch_absolute_dir(o->w.cache, sc.cache, e) ||
			 make_inputs_dir(&sc) || make_slots(&sc) || loop(&sc)))
		goto done;
done:
	if (sc.nslots > 0) {
		struct wproc **ws = calloc((size_t)sc.nslots, sizeof(*ws));
		pid_t *groups = calloc(2 * (size_t)sc.nslots, sizeof(*groups));
		int ng = 0, left;

		for (int i = 0; ws && i < sc.nslots; i++)
			ws[i] = &sc.slots[i].p;
		if (ws && groups)
			ng = wproc_groups(ws, sc.nslots, groups);
		for (int i = 0; i < sc.nslots; i++)
			if (!ws || e->code || st->interrupted)
				wproc_kill(&sc.slots[i].p, NULL);
		if (ws && !e->code && !st->interrupted)
			wproc_stop_many(ws, sc.nslots, 3000);
		/* replay returns once its processes are gone: the next run on
		 * the device then finds their memory free. */
		left = wproc_groups_gone(groups, ng, GROUPS_GONE_MS);
		if (left > 0)
			fprintf(stderr, "replay: warning: %d processes of the run's workers still "
				"exiting after %d s\n", left, GROUPS_GONE_MS / 1000);
		free(groups);
		free(ws);
	}
	for (int i = 0; i < sc.nslots; i++)
		cJSON_Delete(sc.slots[i].result);
	/* The workers are gone: the inputs go too.  A process of theirs that
	 * left the groups waited for above (dying with its parent,
	 * PR_SET_PDEATHSIG, but not at once) or outlived the wait may still
	 * finish writing a set, so try again for up to 2 s. */
	for (int tries = 0; sc.inputs[0] && tries < 20; tries++) {
		scratch_remove_files(sc.inputs, "");
		if (!rmdir(sc.inputs) || errno == ENOENT)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	}
	rc = e->code;
	if (!rc && st->interrupted)
		rc = hr_errf(e, HR_SYSTEM, "interrupted with %d of %d jobs done; "
			     "'headroom replay --resume' finishes the rest",
			     st->done, st->total);
	if (!rc)
		rc = jobs_end_run(s, run_id, "finished", e);
	else if (st->interrupted)
		jobs_end_run(s, run_id, "interrupted", &(struct hr_err){ 0 });
	free(sc.slots);
	free(sc.js);
	free(sc.built);
	free(sc.dispatched);
	free(sc.retried);
	free(sc.alone);
	for (int j = 0; sc.build_stage && j < sc.n; j++)
		cJSON_Delete(sc.build_stage[j]);
	free(sc.build_stage);
	for (int j = 0; sc.first_memory && j < sc.n; j++)
		cJSON_Delete(sc.first_memory[j]);
	free(sc.first_memory);
	for (int j = 0; sc.first_wait && j < sc.n; j++)
		cJSON_Delete(sc.first_wait[j]);
	free(sc.first_wait);
	free(sc.cand);
	free(sc.cand_job);
	free(sc.pj);
	free(sc.border);
	for (int p = 0; sc.probs && p < sc.nprobs; p++)
		cJSON_Delete(sc.probs[p].draws);
	free(sc.probs);
	jobs_free(sc.jobs, sc.n);
	cJSON_Delete(sc.settings);
	return rc;
}
