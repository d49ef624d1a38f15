#!/usr/bin/env python3
"""goals.py DB [--cores N] [--kb KB_BEST_JSON] - issue 4's whole-run figures
from a stored replay (the `replay.db` that tests/gpu/h200-run.sh's report
stage brings back), one line per replay run:

  wall          seconds from the run's start to its last finished job
  build bound   the compilers' CPU seconds (checks.build_stage.cpu_seconds,
                summed) over the cores: the least wall a cold run needs
  GPU work      what the trials themselves keep the GPU busy, from the
                stored means: per job (correct_trials + warmup + n timed
                calls) x (candidate mean + eager mean), in seconds
  per job       wall / jobs done, and against KernelBench's best case per
                evaluation (--kb: kb_side_by_side.py's JSON) when given

A run that was capped (interrupted) is named so: its figures cover the
jobs it finished.  --where adds, per run, the medians over its jobs of
each phase (checks.phase_seconds), of the loan's parts
(input_cache.borrow_seconds: the job's CUDA context, the wait for the
keeper's answer, the IPC opens), of the first trial's torch.allclose
and a later trial's parts (checks.trials[].seconds), and of the time
outside the phases (fork, dispatch, the orchestrator's transaction);
the sum of the jobs' walls; the first job's start; the keeper's first
draw.  --timeline adds where the time went, a line per problem
in job order, in seconds from the run's start: its draws ahead (first
start to last end, sets drawn; or the sets the keeper drew from the
problem's recipe, checks.input_cache.keeper_drew), its jobs (first start to last end, each
job's wall, the first job's reference phase: the keeper's load of the
sets), and how many of its sets were lent from device memory.  Standard
library only."""
import argparse
import datetime
import json
import sqlite3
import statistics
import sys


def when(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp()


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("db")
    ap.add_argument("--cores", type=int, default=16, help="the machine's cores (default 16)")
    ap.add_argument("--kb", help="kb_side_by_side.py --out JSON (KernelBench's best case)")
    ap.add_argument("--timeline", action="store_true", help="a line per problem as well")
    ap.add_argument("--where", action="store_true", help="where a run's job time went")
    a = ap.parse_args(argv)
    kb = None
    if a.kb:
        with open(a.kb) as f:
            kb = json.load(f)["summary"]["per_evaluation_s"]
    db = sqlite3.connect(a.db)
    runs = db.execute("SELECT id, state, started_at, settings_json FROM replay_run "
                      "ORDER BY id").fetchall()
    for run_id, state, started, settings in runs:
        s = json.loads(settings or "{}")
        calls = s.get("correct_trials", 5) + s.get("warmup", 3)
        jobs = db.execute("SELECT finished_at, runtime_ms, runtime_stats_json, baseline_ms, "
                          "checks_json FROM replay_job WHERE run_id = ? AND state = 'done'",
                          (run_id,)).fetchall()
        total = db.execute("SELECT count(*) FROM replay_job WHERE run_id = ?",
                           (run_id,)).fetchone()[0]
        last = max((when(j[0]) for j in jobs if j[0]), default=when(started))
        wall = last - when(started)
        cpu = gpu = 0.0
        for _, rt, stats, base, checks in jobs:
            c = json.loads(checks or "{}")
            cpu += (c.get("build_stage") or {}).get("cpu_seconds") or 0.0
            if rt and base:
                n = (json.loads(stats or "{}").get("n") or 0) + calls
                gpu += n * (rt + base) / 1e3
        line = ("run %d (%s): %d of %d jobs, wall %.1f s; build CPU %.1f s, bound %.1f s "
                "on %d cores (wall/bound %s); GPU work %.1f s (wall/GPU %s); %.2f s a job"
                % (run_id, state, len(jobs), total, wall, cpu, cpu / a.cores, a.cores,
                   "%.2f" % (wall / (cpu / a.cores)) if cpu else "-",
                   gpu, "%.2f" % (wall / gpu) if gpu else "-",
                   wall / len(jobs) if jobs else float("nan")))
        if kb and jobs:
            line += "; KernelBench %.1f s an evaluation: %.1fx" % (kb, kb * len(jobs) / wall)
        print(line)
        if a.timeline:
            timeline(db, run_id, when(started))
        if a.where:
            where(db, run_id, when(started))
    return 0


def median(xs):
    """The median of the numbers among xs (None: none)."""
    xs = [x for x in xs if isinstance(x, (int, float))]
    return statistics.median(xs) if xs else None


def where(db, run_id, t0):
    """Medians over run_id's finished jobs (see the module's text)."""
    rows = [(wall / 1e3, when(fin) - t0, json.loads(c or "{}")) for wall, fin, c in db.execute(
        "SELECT wall_ms, finished_at, checks_json FROM replay_job WHERE run_id = ? AND "
        "state = 'done' AND wall_ms IS NOT NULL AND finished_at IS NOT NULL", (run_id,))]
    rows = [r for r in rows if r[2].get("phase_seconds")]
    if not rows:
        return

    def med(f):
        v = median(f(c) for _, _, c in rows)
        return "-" if v is None else "%.3f" % v

    def part(c, trial, key):
        t = c.get("trials") or []
        return (t[trial].get("seconds") or {}).get(key) if len(t) > trial else None

    def loan(c, key):
        return ((c.get("input_cache") or {}).get("borrow_seconds") or {}).get(key)

    phases = ("reference", "build", "load", "correctness", "timing", "audit")
    line = ", ".join("%s %s" % (p, med(lambda c, p=p: c["phase_seconds"].get(p)))
                     for p in phases)
    outside = median(w - sum(c["phase_seconds"].values()) for w, _, c in rows)
    print("  medians: %s s; outside the phases %.3f s" % (line, outside))
    print("  loan: context %s, answer %s, open %s s; first trial's torch.allclose %s s; "
          "second trial: inputs %s, reference %s, candidate %s, check %s s"
          % (med(lambda c: loan(c, "context")), med(lambda c: loan(c, "answer")),
             med(lambda c: loan(c, "open")), med(lambda c: part(c, 0, "torch_allclose")),
             *(med(lambda c, k=k: part(c, 1, k))
               for k in ("inputs", "reference", "candidate", "check"))))
    first = min(rows, key=lambda r: r[1] - r[0])
    drawn = sorted(tuple(x) for _, _, c in rows
                   for x in (c.get("input_cache") or {}).get("keeper_drew") or [])
    print("  jobs' walls add up to %.1f s; the first job started at %.1f s; %s"
          % (sum(w for w, _, _ in rows), first[1] - first[0],
             "the keeper's first draw %.2f s" % (drawn[0][1] - drawn[0][0]) if drawn
             else "no keeper draws"))


def span(lo, hi):
    return "%.1f-%.1f s" % (lo, hi)


def timeline(db, run_id, t0):
    """A line per problem of run_id (see the module's text)."""
    rows = db.execute("SELECT e.problem_id, e.sample_id, j.finished_at, j.wall_ms, "
                      "j.checks_json FROM replay_job j JOIN evaluation e "
                      "ON e.id = j.evaluation_id WHERE j.run_id = ? AND j.state = 'done' "
                      "ORDER BY j.id", (run_id,)).fetchall()
    probs = {}
    for pid, sid, fin, wall_ms, checks in rows:
        if not fin or wall_ms is None:
            continue
        c = json.loads(checks or "{}")
        end = when(fin) - t0
        p = probs.setdefault(pid, {"jobs": [], "draws": c.get("input_draws") or [],
                                   "lent": 0, "sets": 0, "kept": set()})
        p["jobs"].append((end - wall_ms / 1e3, end, wall_ms / 1e3, sid,
                          (c.get("phase_seconds") or {}).get("reference")))
        ic = c.get("input_cache") or {}
        p["lent"] += ic.get("device_held") or 0
        p["sets"] += ic.get("sets") or 0
        p["kept"].update(tuple(x) for x in ic.get("keeper_drew") or [])
        if len(c.get("input_draws") or []) > len(p["draws"]):
            p["draws"] = c["input_draws"]
    for pid, p in probs.items():
        jobs = sorted(p["jobs"])
        d = p["draws"]
        draws = ("draws %s (%d sets)" % (span(min(x["started"] for x in d) - t0,
                                              max(x["ended"] for x in d) - t0),
                                         sum(x.get("drawn", 0) for x in d))
                 if d else "no draws ahead")
        if p["kept"]:    # recipes: the keeper drew the sets (docs/replay.md)
            draws = "keeper drew %d sets %s" % (
                len(p["kept"]), span(min(a for a, _ in p["kept"]) - t0,
                                     max(b for _, b in p["kept"]) - t0))
        ref = jobs[0][4]
        print("  P%s: %s; %d jobs %s, %s s each, the first's reference %s; "
              "sets lent %d of %d"
              % (pid, draws, len(jobs), span(jobs[0][0], max(j[1] for j in jobs)),
                 "%.1f-%.1f" % (min(j[2] for j in jobs), max(j[2] for j in jobs)),
                 "%.1f s" % ref if ref is not None else "-", p["lent"], p["sets"]))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
