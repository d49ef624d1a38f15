"""verdict_cost.py - what the verdict checks every job makes on its own
(the vacuity gates on each trial's reference output, the input-
distribution transforms, the parameters re-drawn: hrworker/vacuity.py,
hrworker/distribution.py, hrworker/redraw.py)
cost a job, as a share of its phases after the build (reference, load,
correctness, timing), over the planted suite's honest cases of the device,
or over the jobs of a replay store.

    $PYTHON tests/bench/verdict_cost.py            # CPU (make check's worker)
    HR_TEST_DEVICE=cuda python3 tests/bench/verdict_cost.py   # on a GPU
    python3 tests/bench/verdict_cost.py --store DB  # a store's jobs (kb_leaderboard.py's)

Reads checks.audit_parts ("correctness.vacuity", "correctness.
distribution", "timing.redraw") and checks.phase_seconds of each job;
prints one line a job (with the transforms' inputs, calls and judging,
checks.distribution.transforms[].seconds, and the whole check's parts,
checks.distribution.seconds: run.base, run.describe, run.transforms,
run.reorder) and the median share (of a store, each run's median too).
A benchmark, not a test."""
import json
import os
import statistics
import sys

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "planted")
PARTS = ("correctness.vacuity", "correctness.distribution", "timing.redraw")


def line(name, mode, checks):
    """One job's line, and its share (%) of the phases after the build."""
    phases = checks.get("phase_seconds", {})
    parts = checks.get("audit_parts", {})
    job = sum(v for k, v in phases.items() if k not in ("start", "build"))
    added = sum(parts.get(k, 0.0) for k in PARTS)
    share = 100.0 * added / job if job else 0.0
    # The transforms' own parts (distribution.py: seconds of each).
    spent = {}
    dist = checks.get("distribution") or {}
    for got in dist.get("transforms", {}).values():
        for k, v in (got.get("seconds") or {}).items():
            spent[k] = spent.get(k, 0.0) + v
    for k, v in (dist.get("seconds") or {}).items():
        spent["run." + k] = v
    print("%-34s %-8s job %7.3f s  added %7.4f s (%s; transforms: %s)  %5.1f %%"
          % (name[-34:], mode, job, added,
             ", ".join("%s %.4f s" % (k.split(".")[1], parts.get(k, 0.0)) for k in PARTS),
             ", ".join("%s %.4f s" % kv for kv in sorted(spent.items())) or "none",
             share))
    return share


def read(*parts):
    with open(os.path.join(HERE, *parts)) as f:
        return f.read()


def planted():
    """The planted suite's honest cases, both modes, through a worker."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "py"))
    from workerlib import DEVICE, ROOT, Worker
    problems = {int(f.split("_")[0]): f for f in os.listdir(os.path.join(HERE, "problems",
                                                                          "level1"))}
    lib = os.path.join(ROOT, "build", "libhrverify_cuda.so" if DEVICE == "cuda" else
                       "libhrverify.so")
    w = Worker("--verify-lib", lib)
    rows = []
    for case in json.load(open(os.path.join(HERE, "suite.json")))["cases"]:
        if not case.get("honest") or case.get("device", DEVICE) != DEVICE:
            continue
        pfile = problems[case["problem"]]
        for mode in ("faithful", "robust"):
            _, res = w.run(read("problems", "level1", pfile), read("candidates", case["candidate"]),
                           mode=mode, harness="v0.1", problem_file=pfile,
                           candidate_file=case["candidate"], perf_trials=100, warmup=3,
                           robust_rounds=30, robust_inputs=2, bootstrap=200)
            rows.append(line(case["candidate"], mode, res.get("checks", {})))
    w.close()
    return rows


def store(path):
    """The judged jobs of a replay store (those whose checks ran)."""
    import sqlite3
    db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    rows, runs = [], {}
    for run, level, problem, sample, mode, cj in db.execute(
            "SELECT j.run_id, e.level, e.problem_id, e.sample_id, r.mode, j.checks_json "
            "FROM replay_job j JOIN replay_run r ON r.id = j.run_id "
            "JOIN evaluation e ON e.id = j.evaluation_id "
            "WHERE j.checks_json IS NOT NULL ORDER BY j.id"):
        checks = json.loads(cj)
        if checks.get("audit_parts"):
            rows.append(line("level %s problem %s sample %s" % (level, problem, sample),
                             mode or "?", checks))
            runs.setdefault((run, mode or "?"), []).append(rows[-1])
    # A store may hold several runs, of both modes: each run's median too.
    for (run, mode), shares in sorted(runs.items()):
        print("run %s (%s): median %.1f %%, %d jobs" % (run, mode, statistics.median(shares),
                                                       len(shares)))
    return rows


rows = store(sys.argv[2]) if sys.argv[1:2] == ["--store"] else planted()
if rows:
    print("median %.1f %%, range %.1f-%.1f %%, %d jobs"
          % (statistics.median(rows), min(rows), max(rows), len(rows)))
