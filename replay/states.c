/* states.c - see states.h. */
#include "states.h"

#include <stdio.h>
#include <stdlib.h>

#define TO(s) (1u << (s))

static const struct machine_state worker_states[WS_NSTATES] = {
	[WS_OFF] = { "off", "no process yet: every slot starts here; a "
		     "build slot past replay_first_builders stays until a "
		     "build compiles (grow_pool)",
		     TO(WS_STARTING) },
	[WS_STARTING] = { "starting", "its process started, its hello not "
			  "read yet; the start deadline counts",
			  TO(WS_IDLE) |
			  TO(WS_STARTING) /* lost before its hello: again */ },
	[WS_IDLE] = { "idle", "said hello, has no job; no deadline",
		      TO(WS_BUSY) | TO(WS_STARTING) /* its process died */ },
	[WS_BUSY] = { "busy", "runs a job or only its draw; the phase's "
		      "deadline counts",
		      TO(WS_IDLE) /* the job's process exited */ |
		      TO(WS_STARTING) /* lost: timeout, death, bad line */ },
};

static const struct machine_state job_states[JS_NSTATES] = {
	[JS_BUILD] = { "build", "to be built by a build worker",
		       TO(JS_BUILDING) |
		       TO(JS_READY) /* its kernel was built in this run */ },
	[JS_BUILDING] = { "building", "a build worker executes the "
			  "candidate (stop_after build); its extension "
			  "lands in the cache",
			  TO(JS_READY) /* built */ |
			  TO(JS_DONE) /* the build gave the verdict */ |
			  TO(JS_BUILD) /* killed from outside: once more */ },
	[JS_READY] = { "ready", "built; waits for a run worker",
		       TO(JS_RUNNING) },
	[JS_RUNNING] = { "running", "a run worker runs correctness and "
			 "timing",
			 TO(JS_DONE) |
			 TO(JS_READY) /* killed from outside: once more */ },
	[JS_DONE] = { "done", "its result is stored", 0 },
};

static const struct machine_state draw_states[DS_NSTATES] = {
	[DS_NONE] = { "none", "nobody drew its sets",
		      TO(DS_DRAWING) /* build workers draw them ahead */ |
		      TO(DS_DRAWN) /* a run worker draws them itself */ |
		      TO(DS_CLEANED) /* its jobs ended without a draw */ },
	[DS_DRAWING] = { "drawing", "build workers draw its sets, each "
			 "claiming the ones it draws; its run jobs wait",
			 TO(DS_DRAWING) /* one more drawer, up to DRAW_PAR */ |
			 TO(DS_DRAWN) /* the last drawer's draw ended */ },
	[DS_DRAWN] = { "drawn", "its sets are drawn (saved in the inputs "
		       "directory, or the run worker draws them)",
		       TO(DS_CLEANED) },
	[DS_CLEANED] = { "cleaned", "its last job is done: its files are "
			 "removed", 0 },
};

const struct machine machine_worker = {
	"worker", worker_states, WS_NSTATES, WS_OFF
};
const struct machine machine_job = {
	"job", job_states, JS_NSTATES, JS_BUILD
};
const struct machine machine_draw = {
	"draw", draw_states, DS_NSTATES, DS_NONE
};
const struct machine *const machines[] = {
	&machine_worker, &machine_job, &machine_draw, NULL
};

int machine_may_move(const struct machine *m, int from, int to)
{
	if (from < 0 || from >= m->n || to < 0 || to >= m->n)
		return 0;
	return (m->states[from].next & TO(to)) != 0;
}

#ifndef NDEBUG
static const char *state_name(const struct machine *m, int s)
{
	return s >= 0 && s < m->n ? m->states[s].name : "(out of range)";
}
#endif

void machine_check(const struct machine *m, int from, int to)
{
#ifdef NDEBUG
	(void)m;
	(void)from;
	(void)to;
#else
	if (machine_may_move(m, from, to))
		return;
	fprintf(stderr, "headroom: internal error: the %s state machine has "
		"no move %s -> %s\n", m->name, state_name(m, from),
		state_name(m, to));
	abort();
#endif
}
