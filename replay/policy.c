/* policy.c - see policy.h. */
#include "policy.h"

#include <stdlib.h>
#include <unistd.h>

int replay_drawer_fits(uint64_t max_set, int drawers, uint64_t avail)
{
	if (!max_set)
		return drawers < DRAW_PAR;
	if (!avail)
		return 1;
	return avail >= 2 * max_set * (uint64_t)(drawers + 1) +
		((uint64_t)4 << 30);
}

int replay_draw_room(const struct draw_room_in *in)
{
	uint64_t whole;

	if (in->problems >= in->limit || in->used >= in->budget)
		return 0;
	if (!in->max_set || !in->max_sets)
		return in->drawing < in->nrun;
	whole = (uint64_t)in->max_sets * in->max_set;
	if (in->used + (uint64_t)(in->drawing + 1) * whole <= in->budget)
		return 1;
	return in->drawing < in->nrun && !in->used;
}

int replay_pick_run(const struct run_cand *c, int n, int blocked)
{
	int started = -1, whole = -1, drawn = -1, first = -1;

	for (int i = 0; i < n; i++) {
		if (c[i].last)
			return i;
		if (c[i].started && started < 0)
			started = i;
		if (c[i].whole && (whole < 0 || (c[i].drawn && !c[whole].drawn)))
			whole = i;
		if (c[i].drawn && drawn < 0)
			drawn = i;
		if (first < 0)
			first = i;
	}
	if (started >= 0)
		return started;
	if (blocked)
		return whole;
	return drawn >= 0 ? drawn : first;
}

int replay_run_blocked(int started_unbuilt, int started_max)
{
	return started_unbuilt >= (started_max < 1 ? 1 : started_max);
}

int replay_started_max(const char *env)
{
	char *end = NULL;
	long v;

	if (!env || !*env)
		return 1;
	v = strtol(env, &end, 10);
	return *end || v < 1 || v > 8 ? -1 : (int)v;
}

enum run_wait replay_run_idle(int ready, int pickable, int unbuilt)
{
	if (pickable > 0)
		return RW_HELD;
	if (ready > 0)
		return RW_DRAWS;
	return unbuilt > 0 ? RW_BUILDS : RW_DONE;
}

int replay_after_builds_may_run(int unbuilt)
{
	return unbuilt <= 0;
}

const char *replay_run_wait_name(int w)
{
	static const char *const names[RW_N] = {
		[RW_BUSY] = "busy", [RW_STARTING] = "starting",
		[RW_HELD] = "held back", [RW_DRAWS] = "waiting for draws",
		[RW_BUILDS] = "waiting for builds", [RW_DONE] = "no job left",
	};

	return w >= 0 && w < RW_N ? names[w] : NULL;
}

int replay_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n < 1 ? 1 : n > 4096 ? 4096 : (int)n;
}

int replay_default_build_workers(int cores)
{
	return cores + (cores + 1) / 2;
}

int replay_first_builders(int cores)
{
	return cores / 4 > 2 ? cores / 4 : 2;
}

int replay_nice_step(int cores)
{
	return cores / 4 > 1 ? cores / 4 : 1;
}

int replay_build_nice(int rank, int step)
{
	int level = rank / (step > 0 ? step : 1);

	return level < 18 ? 1 + level : 19;
}

int replay_build_idle(int nice)
{
	return nice > 1;
}

void replay_build_order(const int *pj, int n, int nprobs, int *order)
{
	int at = 0;

	/* A pass a problem: n * nprobs steps, against the run's own work
	 * (a build is a minute of compilers) nothing. */
	for (int p = 0; p < nprobs; p++)
		for (int j = 0; j < n; j++)
			if (pj[j] == p)
				order[at++] = j;
}
