/* states.h - the replay scheduler's state machines, each one table.
 *
 * Owns: the states of a worker slot, of a job and of a problem's input
 * draw; for each state its name, its meaning and the states it may move
 * to (states.c), as SQLite's btreeInt.h states its machines; the one
 * check of a move against its table.  replay.c changes a state only
 * through machine_check, so the tables are the single statement of the
 * machines (tests/unit/test_replay_states.c walks them).  A job's phase
 * (proto.h) is not among them: it is what the worker reports, recorded as
 * told.  Must not: know the slots, the jobs or the store.
 */
#ifndef HR_REPLAY_STATES_H
#define HR_REPLAY_STATES_H

/* A worker slot: one worker process, started again when lost. */
enum wstate { WS_OFF, WS_STARTING, WS_IDLE, WS_BUSY, WS_NSTATES };

/* A job of the run (in the order a job goes through them). */
enum jstate { JS_BUILD, JS_BUILDING, JS_READY, JS_RUNNING, JS_DONE,
	      JS_NSTATES };

/* A problem's input sets in the run's inputs directory. */
enum dstate { DS_NONE, DS_DRAWING, DS_DRAWN, DS_CLEANED, DS_NSTATES };

/* One state: next has bit s set for each state s it may move to (a state
 * without any is terminal). */
struct machine_state {
	const char *name;
	const char *meaning;
	unsigned next;
};

struct machine {
	const char *name;                     /* "worker", "job", "draw" */
	const struct machine_state *states;   /* indexed by the enum */
	int n;
	int initial;    /* every instance starts here: 0, the enum's first,
			   so a zeroed (calloc'd) instance is in it */
};

extern const struct machine machine_worker, machine_job, machine_draw;
/* The three, for walking them all; NULL-terminated. */
extern const struct machine *const machines[];

/* 1 when m's table lets a state move from `from` to `to`, else 0 (also
 * for a state out of range). */
int machine_may_move(const struct machine *m, int from, int to);

/* An assertion, as assert(3) (nothing under NDEBUG): a move its table
 * does not allow is an internal error, "headroom: internal error: the
 * MACHINE state machine has no move FROM -> TO" on stderr, then abort. */
void machine_check(const struct machine *m, int from, int to);

#endif
