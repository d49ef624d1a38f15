/* test_replay_states.c - the replay scheduler's state machines
 * (replay/states.h): each table walked from its initial state, its
 * terminal states, its names; a move outside a table is an internal
 * error that stops the program. */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../replay/states.h"

/* Bit s: state s is reachable from m's initial state. */
static unsigned reachable(const struct machine *m)
{
	unsigned seen = 1u << m->initial, before;

	do {
		before = seen;
		for (int s = 0; s < m->n; s++)
			if (seen & (1u << s))
				seen |= m->states[s].next;
	} while (seen != before);
	return seen;
}

static void three_machines_with_distinct_names(void **state)
{
	int n = 0;

	(void)state;
	for (; machines[n]; n++)
		for (int k = 0; k < n; k++)
			assert_string_not_equal(machines[n]->name,
						machines[k]->name);
	assert_int_equal(n, 3);
	assert_ptr_equal(machines[0], &machine_worker);
	assert_ptr_equal(machines[1], &machine_job);
	assert_ptr_equal(machines[2], &machine_draw);
}

static void every_state_named_once_with_its_meaning(void **state)
{
	(void)state;
	for (int i = 0; machines[i]; i++) {
		const struct machine *m = machines[i];

		assert_true(m->n >= 2 && m->n <= 32);
		for (int s = 0; s < m->n; s++) {
			assert_non_null(m->states[s].name);
			assert_non_null(m->states[s].meaning);
			assert_true(m->states[s].name[0] != '\0');
			assert_true(m->states[s].meaning[0] != '\0');
			for (int k = 0; k < s; k++)
				assert_string_not_equal(m->states[s].name,
							m->states[k].name);
		}
	}
}

static void moves_stay_inside_the_table(void **state)
{
	(void)state;
	for (int i = 0; machines[i]; i++) {
		const struct machine *m = machines[i];

		for (int s = 0; s < m->n; s++)
			assert_int_equal(m->states[s].next >> m->n, 0);
	}
}

/* Zeroed memory is the initial state: replay.c calloc's its slots, jobs
 * and problems. */
static void initial_state_is_the_first(void **state)
{
	(void)state;
	assert_int_equal(machine_worker.initial, WS_OFF);
	assert_int_equal(machine_job.initial, JS_BUILD);
	assert_int_equal(machine_draw.initial, DS_NONE);
	for (int i = 0; machines[i]; i++)
		assert_int_equal(machines[i]->initial, 0);
}

static void every_state_reachable_from_the_initial_one(void **state)
{
	(void)state;
	for (int i = 0; machines[i]; i++) {
		const struct machine *m = machines[i];

		assert_int_equal(reachable(m), (1u << m->n) - 1);
	}
}

/* A job ends done, a draw cleaned; a worker slot has no end (the run
 * stops its processes in whatever state). */
static void terminal_states_have_no_exits(void **state)
{
	(void)state;
	assert_int_equal(machine_job.states[JS_DONE].next, 0);
	assert_int_equal(machine_draw.states[DS_CLEANED].next, 0);
	for (int s = 0; s < JS_NSTATES; s++)
		if (s != JS_DONE)
			assert_int_not_equal(machine_job.states[s].next, 0);
	for (int s = 0; s < DS_NSTATES; s++)
		if (s != DS_CLEANED)
			assert_int_not_equal(machine_draw.states[s].next, 0);
	for (int s = 0; s < WS_NSTATES; s++)
		assert_int_not_equal(machine_worker.states[s].next, 0);
}

/* From every state of the job and draw machines their end is reachable:
 * no job or draw can be stuck in a loop by the table. */
static void the_end_is_reachable_from_every_state(void **state)
{
	(void)state;
	for (int s = 0; s < JS_NSTATES; s++) {
		struct machine from = machine_job;

		from.initial = s;
		assert_true(reachable(&from) & (1u << JS_DONE));
	}
	for (int s = 0; s < DS_NSTATES; s++) {
		struct machine from = machine_draw;

		from.initial = s;
		assert_true(reachable(&from) & (1u << DS_CLEANED));
	}
}

static void may_move_reads_the_table(void **state)
{
	(void)state;
	assert_int_equal(machine_may_move(&machine_job, JS_BUILD, JS_BUILDING),
			 1);
	assert_int_equal(machine_may_move(&machine_job, JS_READY, JS_DONE), 0);
	assert_int_equal(machine_may_move(&machine_job, JS_DONE, JS_READY), 0);
	assert_int_equal(machine_may_move(&machine_worker, WS_STARTING,
					  WS_STARTING), 1);
	assert_int_equal(machine_may_move(&machine_worker, WS_IDLE, WS_OFF), 0);
	assert_int_equal(machine_may_move(&machine_draw, DS_DRAWN,
					  DS_DRAWING), 0);
	/* out of range, either side */
	assert_int_equal(machine_may_move(&machine_job, -1, JS_DONE), 0);
	assert_int_equal(machine_may_move(&machine_job, JS_BUILD, JS_NSTATES),
			 0);
}

/* machine_check of a move not in the table, in a child: it names the
 * machine and both states on stderr and aborts. */
static void a_move_outside_the_table_aborts(void **state)
{
	int fd[2], status;
	char buf[256];
	ssize_t n;
	pid_t pid;

	(void)state;
	assert_int_equal(pipe(fd), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fd[1], 2);
		close(fd[0]);
		machine_check(&machine_job, JS_DONE, JS_READY);
		_exit(0);
	}
	close(fd[1]);
	n = read(fd[0], buf, sizeof(buf) - 1);
	close(fd[0]);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_non_null(strstr(buf, "headroom: internal error: the job state "
			       "machine has no move done -> ready"));
}

static void a_move_in_the_table_passes(void **state)
{
	(void)state;
	machine_check(&machine_draw, DS_NONE, DS_DRAWING);
	machine_check(&machine_draw, DS_DRAWING, DS_DRAWING);
	machine_check(&machine_worker, WS_BUSY, WS_IDLE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(three_machines_with_distinct_names),
		cmocka_unit_test(every_state_named_once_with_its_meaning),
		cmocka_unit_test(moves_stay_inside_the_table),
		cmocka_unit_test(initial_state_is_the_first),
		cmocka_unit_test(every_state_reachable_from_the_initial_one),
		cmocka_unit_test(terminal_states_have_no_exits),
		cmocka_unit_test(the_end_is_reachable_from_every_state),
		cmocka_unit_test(may_move_reads_the_table),
		cmocka_unit_test(a_move_outside_the_table_aborts),
		cmocka_unit_test(a_move_in_the_table_passes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
