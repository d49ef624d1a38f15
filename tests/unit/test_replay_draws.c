/* test_replay_draws.c - the scheduler's rules for drawing inputs ahead
 * (replay_drawer_fits, replay_draw_room in replay/replay.c), with the
 * sizes of the H200 runs: 1.6 G-element fp32 sets of 6.4 GB, six a
 * problem, a 40 GB inputs directory, 125 GiB of host memory; the size of
 * a set as the rules see it (scratch_dir_bytes); the run worker's choice
 * of its next job (replay_pick_run); and how builds share the cores
 * (replay_default_build_workers, replay_nice_step, replay_build_nice,
 * replay_first_builders). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../replay/pool.h"
#include "../../replay/replay.h"
#include "../../replay/scratch.h"

#define GB 1000000000ull
#define GIB (1ull << 30)
#define SET (6400000000ull)   /* one 1.6 G-element fp32 set */

static void drawer_unknown_size(void **state)
{
	(void)state;
	/* no set seen yet: at most six drawers, whatever the memory */
	assert_int_equal(replay_drawer_fits(0, 0, 0), 1);
	assert_int_equal(replay_drawer_fits(0, 5, 125 * GIB), 1);
	assert_int_equal(replay_drawer_fits(0, 6, 125 * GIB), 0);
	assert_int_equal(replay_drawer_fits(0, 15, 0), 0);
}

static void drawer_known_size(void **state)
{
	(void)state;
	/* two 6.4 GB sets a drawer, for those at work and the new one, and
	 * 4 GiB: 7 drawers need 89.6 GB + 4 GiB */
	assert_int_equal(replay_drawer_fits(SET, 6, 7 * 2 * SET + 4 * GIB), 1);
	assert_int_equal(replay_drawer_fits(SET, 6, 7 * 2 * SET + 4 * GIB - 1), 0);
	/* the first drawer: 12.8 GB + 4 GiB */
	assert_int_equal(replay_drawer_fits(SET, 0, 2 * SET + 4 * GIB), 1);
	assert_int_equal(replay_drawer_fits(SET, 0, 2 * SET), 0);
	/* no /proc/meminfo: not held back */
	assert_int_equal(replay_drawer_fits(SET, 40, 0), 1);
}

static struct draw_room_in large(int drawing, uint64_t used)
{
	struct draw_room_in in = {
		.problems = drawing, .limit = 4, .drawing = drawing, .nrun = 1,
		.used = used, .budget = 40000ull << 20,
		.max_set = SET, .max_sets = 6,
	};

	return in;
}

static void room_large_sets(void **state)
{
	struct draw_room_in in;

	(void)state;
	/* one problem's sets (38.4 GB) fit the 40 GB directory, two do
	 * not: while one is drawn the next waits */
	in = large(0, 0);
	assert_int_equal(replay_draw_room(&in), 1);
	in = large(1, 0);
	assert_int_equal(replay_draw_room(&in), 0);
	in = large(1, 3 * SET);
	assert_int_equal(replay_draw_room(&in), 0);
	/* nothing drawing, but files left (a drawn problem, not yet taken by
	 * the keeper): a whole problem more does not fit */
	in = large(0, 2 * SET);
	in.problems = 1;
	assert_int_equal(replay_draw_room(&in), 0);
	/* ... once the keeper took them, it does */
	in.used = 0;
	assert_int_equal(replay_draw_room(&in), 1);
	/* two run workers: two problems at once, each as alone */
	in = large(1, 0);
	in.nrun = 2;
	assert_int_equal(replay_draw_room(&in), 1);
	/* a budget below one problem's sets: the first still starts on an
	 * empty directory (for the sets that fit) */
	in = large(0, 0);
	in.budget = 3 * SET;
	assert_int_equal(replay_draw_room(&in), 1);
	in.used = SET;
	assert_int_equal(replay_draw_room(&in), 0);
}

static void room_small_sets(void **state)
{
	struct draw_room_in in = {
		.problems = 2, .limit = 4, .drawing = 2, .nrun = 1,
		.used = 1 << 20, .budget = 40000ull << 20,
		.max_set = 20000, .max_sets = 6,
	};

	(void)state;
	/* small sets: problems side by side, up to the limit */
	assert_int_equal(replay_draw_room(&in), 1);
	in.problems = 4;
	assert_int_equal(replay_draw_room(&in), 0);
	/* sizes unknown: one per run worker */
	in.problems = 1;
	in.drawing = 1;
	in.max_set = 0;
	assert_int_equal(replay_draw_room(&in), 0);
	in.drawing = 0;
	assert_int_equal(replay_draw_room(&in), 1);
	/* the directory at its budget: nothing new */
	in.max_set = 20000;
	in.used = in.budget;
	assert_int_equal(replay_draw_room(&in), 0);
}

static void write_file(const char *dir, const char *name, size_t n)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(f = fopen(path, "wb"));
	for (size_t i = 0; i < n; i++)
		fputc('x', f);
	assert_int_equal(fclose(f), 0);
}

/* A half-written set (a worker's *.tmp) taken for a set would understate
 * a set's size and let the room rule draw one problem too many.  Its
 * bytes count in the directory, not as a set. */
static void dir_bytes_skip_tmp(void **state)
{
	char dir[] = "/tmp/hr-test-draws-XXXXXX";
	uint64_t largest = 1;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(scratch_dir_bytes(dir, &largest), 0);
	assert_int_equal(largest, 0);
	write_file(dir, "00112233aabbccdd-42.pt", 100);
	write_file(dir, "00112233aabbccdd-7.pt.4242.tmp", 1000);
	write_file(dir, "00112233aabbccdd-9.pt.held", 0);
	assert_int_equal(scratch_dir_bytes(dir, &largest), 1100);
	assert_int_equal(largest, 100);
	assert_int_equal(scratch_remove_files(dir, ""), 0);
	assert_int_equal(rmdir(dir), 0);
	/* a directory that cannot be read: nothing */
	assert_int_equal(scratch_dir_bytes(dir, &largest), 0);
	assert_int_equal(largest, 0);
}

/* A cold run on the H200: P19 started with two jobs still building, P21
 * drawn with two jobs ready, P22 drawn with five of six ready.  The
 * worker must not start either while P19 waits. */
static void pick_finishes_started(void **state)
{
	struct run_cand c[] = {
		{ .started = 0, .whole = 0, .drawn = 1 },   /* P21 S1 */
		{ .started = 0, .whole = 0, .drawn = 1 },   /* P22 S0 */
	};
	struct run_cand d[] = {
		{ .started = 0, .whole = 0, .drawn = 1 },
		{ .started = 1, .whole = 0, .drawn = 1 },   /* P19 S2, built */
	};

	(void)state;
	assert_int_equal(replay_pick_run(c, 2, 1), -1);     /* wait */
	assert_int_equal(replay_pick_run(c, 2, 0), 0);      /* nothing waits */
	assert_int_equal(replay_pick_run(d, 2, 1), 1);      /* started first */
	assert_int_equal(replay_pick_run(d, 2, 0), 1);
	assert_int_equal(replay_pick_run(NULL, 0, 0), -1);
}

static void pick_order(void **state)
{
	struct run_cand c[] = {
		{ .whole = 1 },                             /* whole, not drawn */
		{ .whole = 1, .drawn = 1 },                 /* whole and drawn */
		{ .drawn = 1 },
		{ .last = 1 },                              /* the last problem */
	};

	(void)state;
	assert_int_equal(replay_pick_run(c, 4, 1), 3);      /* last wins */
	assert_int_equal(replay_pick_run(c, 3, 1), 1);      /* whole, drawn */
	assert_int_equal(replay_pick_run(c, 1, 1), 0);      /* whole */
	assert_int_equal(replay_pick_run(c + 2, 1, 1), -1); /* not whole */
	assert_int_equal(replay_pick_run(c, 3, 0), 1);      /* drawn first */
	assert_int_equal(replay_pick_run(c, 1, 0), 0);      /* else the first */
}

/* How many started problems with builds left a run worker may hold:
 * one by default (it waits for their builds), more where
 * HEADROOM_STARTED_MAX says so; a bad value is refused (-1). */
static void started_max(void **state)
{
	(void)state;
	assert_int_equal(replay_started_max(NULL), 1);
	assert_int_equal(replay_started_max(""), 1);
	assert_int_equal(replay_started_max("2"), 2);
	assert_int_equal(replay_started_max("8"), 8);
	assert_int_equal(replay_started_max("0"), -1);
	assert_int_equal(replay_started_max("9"), -1);
	assert_int_equal(replay_started_max("2x"), -1);
	assert_int_equal(replay_started_max("-1"), -1);
	assert_int_equal(replay_run_blocked(0, 1), 0);
	assert_int_equal(replay_run_blocked(1, 1), 1);     /* today's rule */
	assert_int_equal(replay_run_blocked(1, 2), 0);     /* may start one more */
	assert_int_equal(replay_run_blocked(2, 2), 1);
	assert_int_equal(replay_run_blocked(1, 0), 1);     /* below 1: 1 */
}

static void build_priorities(void **state)
{
	(void)state;
	/* 16 cores (the H200 machine): 24 build workers, a level per 4
	 * builds: ranks 0-3 at nice 1, 4-7 at 2, ..., 20-23 at 6. */
	assert_int_equal(replay_default_build_workers(16), 24);
	assert_int_equal(replay_nice_step(16), 4);
	assert_int_equal(replay_build_nice(0, 4), 1);
	assert_int_equal(replay_build_nice(3, 4), 1);
	assert_int_equal(replay_build_nice(4, 4), 2);
	assert_int_equal(replay_build_nice(23, 4), 6);
	assert_int_equal(replay_build_nice(71, 4), 18);
	assert_int_equal(replay_build_nice(72, 4), 19);
	assert_int_equal(replay_build_nice(100000, 4), 19);
	/* Small machines: at least one worker more than cores from 2 on, a
	 * level per build. */
	assert_int_equal(replay_default_build_workers(1), 2);
	assert_int_equal(replay_default_build_workers(2), 3);
	assert_int_equal(replay_default_build_workers(3), 5);
	assert_int_equal(replay_nice_step(1), 1);
	assert_int_equal(replay_nice_step(7), 1);
	assert_int_equal(replay_nice_step(8), 2);
	assert_int_equal(replay_build_nice(5, 1), 6);
	assert_int_equal(replay_build_nice(5, 0), 6);      /* no step: one */
	/* Idle from the second group on: the first keeps nice 1. */
	assert_false(replay_build_idle(replay_build_nice(0, 4)));
	assert_false(replay_build_idle(replay_build_nice(3, 4)));
	assert_true(replay_build_idle(replay_build_nice(4, 4)));
	assert_true(replay_build_idle(19));
	assert_false(replay_build_idle(0));                /* not a build */
	/* Build workers started with the run: a quarter of the cores, at
	 * least 2 (the rest start when a build compiles). */
	assert_int_equal(replay_first_builders(16), 4);
	assert_int_equal(replay_first_builders(128), 32);
	assert_int_equal(replay_first_builders(11), 2);
	assert_int_equal(replay_first_builders(2), 2);
	assert_int_equal(replay_first_builders(1), 2);
	assert_true(replay_online_cpus() >= 1);
}

/* Why an idle run worker has no job (replay_run_idle): ready jobs it
 * may take but the pick rule holds back come first, then ready jobs of
 * problems being drawn, then builds to come; and each reason's name. */
static void run_idle_reasons(void **state)
{
	(void)state;
	assert_int_equal(replay_run_idle(3, 2, 5), RW_HELD);
	assert_int_equal(replay_run_idle(3, 0, 5), RW_DRAWS);
	assert_int_equal(replay_run_idle(3, 0, 0), RW_DRAWS);
	assert_int_equal(replay_run_idle(0, 0, 5), RW_BUILDS);
	assert_int_equal(replay_run_idle(0, 0, 0), RW_DONE);
	assert_string_equal(replay_run_wait_name(RW_BUSY), "busy");
	assert_string_equal(replay_run_wait_name(RW_BUILDS), "waiting for builds");
	for (int w = 0; w < RW_N; w++)
		assert_non_null(replay_run_wait_name(w));
	assert_null(replay_run_wait_name(RW_N));
	assert_null(replay_run_wait_name(-1));
}

/* A job run again after the builds (its candidate waited for a CPU
 * while timed) waits while any job is still to be built. */
static void after_builds_waits_for_every_build(void **state)
{
	(void)state;
	assert_false(replay_after_builds_may_run(3));
	assert_false(replay_after_builds_may_run(1));
	assert_true(replay_after_builds_may_run(0));
}

/* Builds go problem by problem, each problem where its first job is: an
 * archive stored model by model (jobs p0 p1 p2, p0 p1 p2) builds p0's
 * jobs, then p1's, then p2's; jobs of a problem keep their order. */
static void build_order_by_problem(void **state)
{
	const int model_major[] = { 0, 1, 2, 0, 1, 2, 0 };
	const int want[] = { 0, 3, 6, 1, 4, 2, 5 };
	const int first_late[] = { 1, 0, 0, 1 };
	const int want2[] = { 1, 2, 0, 3 };
	int order[7];

	(void)state;
	replay_build_order(model_major, 7, 3, order);
	assert_memory_equal(order, want, sizeof(want));
	/* Problem numbers as make_probs gives them, by first job: job 0's
	 * problem is 0 there; here its number is 1, and problem 0 (jobs 1
	 * and 2) still goes first: the order follows the numbers. */
	replay_build_order(first_late, 4, 2, order);
	assert_memory_equal(order, want2, sizeof(want2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(drawer_unknown_size),
		cmocka_unit_test(drawer_known_size),
		cmocka_unit_test(room_large_sets),
		cmocka_unit_test(room_small_sets),
		cmocka_unit_test(dir_bytes_skip_tmp),
		cmocka_unit_test(pick_finishes_started),
		cmocka_unit_test(pick_order),
		cmocka_unit_test(started_max),
		cmocka_unit_test(build_priorities),
		cmocka_unit_test(run_idle_reasons),
		cmocka_unit_test(after_builds_waits_for_every_build),
		cmocka_unit_test(build_order_by_problem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
