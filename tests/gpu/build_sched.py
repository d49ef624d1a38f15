#!/usr/bin/env python3
"""build_sched.py [--builds N] [--cores C] [--main S] [--cuda S] [--sweep] - a model of
a cold `headroom replay`: how long its builds and the GPU's jobs take under
a choice of build workers and nice levels (replay.h: replay_build_nice).

The model: each build is two compile steps side by side (torch's
load_inline runs ninja on main.cpp and cuda.cu; --main and --cuda are their
CPU seconds), then a link of 1 s.  The cores are shared as Linux's CFS
shares them: each runnable step gets a share by the weight of its nice
level (kernel/sched/core.c, sched_prio_to_weight), at most one core.
Builds start when a worker is free, in order; their nice levels hold
`step` builds each (replay_build_nice), or, the other policy the model
offers, at least `step` and end with a problem.  The GPU runs problems in order, a problem's jobs as their
builds end, --job seconds each.  Workers start --start seconds in.

Defaults are the H200 run's (tests/gpu/kb-large: 24 builds, 4 problems of
6; 16 cores; 89 CPU-s a build, of which the nvcc step is taken as 70: a
guess, not measured; 1.7 s a job; 6 s to start); with them the model puts
16 workers with a nice level per build at 173 s, where the H200 took
176 s (docs/benchmarks-history.md, "replay on the H200: the keeper draws
the sets, builds in order", call 4).  It prints each policy's wall and
wall over the bound (build CPU / cores); --sweep adds every mix of worker
count, builds a level and nice steps between levels, best first.
Standard library only."""
import argparse
import sys

# sched_prio_to_weight for nice 0..19
WEIGHT = [1024, 820, 655, 526, 423, 335, 272, 215, 172, 137,
          110, 87, 70, 56, 45, 36, 29, 23, 18, 15]


def shares(weights, cores):
    """CFS's split of `cores` between runnable tasks of these weights,
    none above one core (water-filling)."""
    n = len(weights)
    if n <= cores:
        return [1.0] * n
    rate, left, cap = [0.0] * n, list(range(n)), float(cores)
    while True:
        k = cap / sum(weights[i] for i in left)
        full = [i for i in left if weights[i] * k >= 1]
        if not full:
            for i in left:
                rate[i] = weights[i] * k
            return rate
        for i in full:
            rate[i] = 1.0
        cap -= len(full)
        left = [i for i in left if i not in full]


def nices(a, step, whole, gap=1):
    """Each build's nice: levels of `step` builds (replay.c), or (whole) of
    at least `step` ending with a problem; `gap` nice steps apart."""
    out, level, in_level = [], 0, 0
    for r in range(a.builds):
        if in_level >= step and (not whole or r % a.per_problem == 0):
            level, in_level = level + 1, 0
        in_level += 1
        out.append(min(19, 1 + gap * level))
    return out


def simulate(a, workers, step, whole=False, dt=0.05, gap=1):
    """(wall to the last job's end, the last build's end)."""
    nice = nices(a, step, whole, gap)
    builds = [{"steps": [a.cuda, a.main], "link": 1.0, "end": None} for _ in range(a.builds)]
    t, queue, running = a.start, list(range(a.builds)), []
    while any(b["end"] is None for b in builds):
        while len(running) < workers and queue:
            running.append(queue.pop(0))
        tasks = []
        for r in running:
            w = WEIGHT[nice[r]]
            live = [j for j, x in enumerate(builds[r]["steps"]) if x > 1e-9]
            tasks += [(r, j, w) for j in live] or [(r, -1, w)]
        for (r, j, _), rate in zip(tasks, shares([w for _, _, w in tasks], a.cores)):
            b = builds[r]
            if j >= 0:
                b["steps"][j] -= rate * dt
            else:
                b["link"] -= rate * dt
                if b["link"] <= 1e-9:
                    b["end"] = t + dt
        running = [r for r in running if builds[r]["end"] is None]
        t += dt
    gpu = 0.0
    for p in range(0, a.builds, a.per_problem):
        for end in sorted(b["end"] for b in builds[p:p + a.per_problem]):
            gpu = max(gpu, end) + a.job
    return gpu, max(b["end"] for b in builds)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--builds", type=int, default=24)
    ap.add_argument("--per-problem", type=int, default=6)
    ap.add_argument("--cores", type=int, default=16)
    ap.add_argument("--cuda", type=float, default=70.0, help="nvcc step CPU-s")
    ap.add_argument("--main", type=float, default=18.0, help="main.cpp step CPU-s")
    ap.add_argument("--job", type=float, default=1.7)
    ap.add_argument("--start", type=float, default=6.0)
    ap.add_argument("--sweep", action="store_true",
                    help="also every mix of workers (1, 1.5, 2 a core), builds a level "
                    "(1, 2, cores/4, cores/2) and nice steps between levels (1-6), best first")
    a = ap.parse_args(argv)
    bound = a.builds * (a.cuda + a.main + 1.0) / a.cores
    print("%d builds on %d cores: bound %.1f s" % (a.builds, a.cores, bound))
    c = a.cores
    w15, q = c + (c + 1) // 2, max(1, c // 4)
    for name, workers, step, whole in (
            ("1 worker a core, a level a build", c, 1, False),
            ("1 worker a core, a level per cores/4 builds", c, q, False),
            ("1.5 workers a core, a level a build", w15, 1, False),
            ("1.5 workers a core, a level per cores/4 builds (default)", w15, q, False),
            ("1.5 workers a core, levels of whole problems (tried)", w15, q, True),
            ("1.5 workers a core, one level", w15, 10 ** 6, False),
            ("2 workers a core, a level per cores/4 builds", 2 * c, q, False)):
        wall, last = simulate(a, workers, step, whole)
        print("  %-58s last build %6.1f s, wall %6.1f s, %.2fx the bound"
              % (name, last, wall, wall / bound))
    if a.sweep:
        rows = []
        for workers in (c, w15, 2 * c):
            for step in sorted({1, 2, q, max(1, c // 2)}):
                for gap in (1, 2, 3, 4, 6):
                    wall, last = simulate(a, workers, step, gap=gap)
                    rows.append((wall, workers, step, gap, last))
        for wall, workers, step, gap, last in sorted(rows):
            print("  %2d workers, %2d builds a level, levels %d apart: last build %6.1f s, "
                  "wall %6.1f s, %.2fx the bound" % (workers, step, gap, last, wall, wall / bound))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
