"""verdict_cost.py - what the verdict checks every job makes on its own
(the vacuity gates on each trial's reference output, the input-
distribution transforms, the parameters re-drawn: hrworker/vacuity.py,
hrworker/distribution.py, hrworker/redraw.py)
cost a job, as a share of its phases after the build (reference, load,
correctness, timing), over the planted suite's honest cases of the device.

    $PYTHON tests/bench/verdict_cost.py            # CPU (make check's worker)
    HR_TEST_DEVICE=cuda python3 tests/bench/verdict_cost.py   # on a GPU

Reads checks.audit_parts ("correctness.vacuity", "correctness.
distribution", "timing.redraw") and checks.phase_seconds of each job;
prints one line a job (with the transforms' inputs, calls and judging,
checks.distribution.transforms[].seconds, and the whole check's parts,
checks.distribution.seconds: run.base, run.describe, run.transforms,
run.reorder) and the median share.  A benchmark, not a test."""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "py"))
from workerlib import DEVICE, ROOT, Worker  # noqa: E402

HERE = os.path.join(ROOT, "tests", "fixtures", "planted")
PROBLEMS = {int(f.split("_")[0]): f for f in os.listdir(os.path.join(HERE, "problems", "level1"))}
PARTS = ("correctness.vacuity", "correctness.distribution", "timing.redraw")


def read(*parts):
    with open(os.path.join(HERE, *parts)) as f:
        return f.read()


lib = os.path.join(ROOT, "build", "libhrverify_cuda.so" if DEVICE == "cuda" else
                   "libhrverify.so")
w = Worker("--verify-lib", lib)
rows = []
for case in json.load(open(os.path.join(HERE, "suite.json")))["cases"]:
    if not case.get("honest") or case.get("device", DEVICE) != DEVICE:
        continue
    pfile = PROBLEMS[case["problem"]]
    for mode in ("faithful", "robust"):
        _, res = w.run(read("problems", "level1", pfile), read("candidates", case["candidate"]),
                       mode=mode, harness="v0.1", problem_file=pfile,
                       candidate_file=case["candidate"], perf_trials=100, warmup=3,
                       robust_rounds=30, robust_inputs=2, bootstrap=200)
        checks = res.get("checks", {})
        phases = checks.get("phase_seconds", {})
        parts = checks.get("audit_parts", {})
        job = sum(v for k, v in phases.items() if k not in ("start", "build"))
        added = sum(parts.get(k, 0.0) for k in PARTS)
        share = 100.0 * added / job if job else 0.0
        rows.append(share)
        # The transforms' own parts (distribution.py: seconds of each).
        spent = {}
        dist = checks.get("distribution") or {}
        for got in dist.get("transforms", {}).values():
            for k, v in (got.get("seconds") or {}).items():
                spent[k] = spent.get(k, 0.0) + v
        for k, v in (dist.get("seconds") or {}).items():
            spent["run." + k] = v
        print("%-34s %-8s job %7.3f s  added %7.4f s (%s; transforms: %s)  %5.1f %%"
              % (case["candidate"], mode, job, added,
                 ", ".join("%s %.4f s" % (k.split(".")[1], parts.get(k, 0.0)) for k in PARTS),
                 ", ".join("%s %.4f s" % kv for kv in sorted(spent.items())) or "none",
                 share))
w.close()
if rows:
    print("median %.1f %%, range %.1f-%.1f %%, %d jobs"
          % (statistics.median(rows), min(rows), max(rows), len(rows)))
