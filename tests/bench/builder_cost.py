"""What the job's builder process (replay/hrworker/builder.py) costs a job:
its fork and confinement (checks.builder_process.start_seconds), a cache
miss (the compilers) and a cache hit (the import of the entry), over N
jobs of the C++ relu fixture stopped after their build, on a cache of
their own.  Prints one JSON line.  Not a test: nothing fails when a
machine is slow.

    python3 tests/bench/builder_cost.py [--jobs N] [--device cpu]"""
import argparse
import json
import os
import statistics
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "py"))
from workerlib import Worker  # noqa: E402

FIX = os.path.join(ROOT, "tests", "fixtures", "replay")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=8)
    a = ap.parse_args()
    problem = open(os.path.join(FIX, "problems", "level1", "1_ReLU.py")).read()
    cand = open(os.path.join(FIX, "candidates", "relu_fast.py")).read()
    with tempfile.TemporaryDirectory(prefix="hr-builder-bench-") as cache:
        w = Worker("--cache", cache)
        starts, miss, hits = [], None, []
        for i in range(a.jobs):
            _, res = w.run(problem, cand, stop_after="build")
            checks = (res or {}).get("checks") or {}
            start = (checks.get("builder_process") or {}).get("start_seconds")
            ext = (checks.get("build") or {}).get("extensions") or [{}]
            if start is not None:
                starts.append(start)
            if ext[0].get("cache") == "miss":
                miss = ext[0].get("seconds")
            elif ext[0].get("cache") == "hit":
                hits.append(ext[0].get("seconds"))
        w.close()
    print(json.dumps({"jobs": a.jobs, "builder_start_ms": {
        "median": round(1000 * statistics.median(starts), 2),
        "min": round(1000 * min(starts), 2), "max": round(1000 * max(starts), 2)},
        "miss_s": miss, "hit_s_max": max(hits) if hits else None,
        "load": os.getloadavg()[0]}))


main()
