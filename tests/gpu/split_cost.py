#!/usr/bin/env python3
"""split_cost.py OLD_TREE PROBLEMS_DIR CANDIDATES_DIR [--mode M] [--device D]
- what the judge/candidate split costs a job, and whether faithful figures
moved: the same jobs through OLD_TREE's replay/worker.py (a checkout from
before the split) and this tree's, alternately (old, new, old, new), one
build cache, every extension built once first.  Per job: the wall time
from start to exit as the driver sees it, and the candidate's and
reference's times; the old tree's two runs give the run-to-run noise the
new tree's change is set against.  Prints a Markdown table and a summary.
A benchmark, not a test (docs/benchmarks.md)."""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Worker:
    def __init__(self, tree, scratch, cache, device, lib):
        args = [sys.executable, os.path.join(tree, "replay", "worker.py"), "--device", device,
                "--scratch", scratch, "--cache", cache]
        if lib:
            args += ["--verify-lib", lib]
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL, text=True)
        self.hello = json.loads(self.p.stdout.readline())
        self.n = 0

    def run(self, job):
        self.n += 1
        job = dict(job, op="job", job=self.n)
        t0 = time.monotonic()
        self.p.stdin.write(json.dumps(job) + "\n")
        self.p.stdin.flush()
        res = None
        while True:
            m = json.loads(self.p.stdout.readline())
            if m["type"] == "result":
                res = m
            if m["type"] == "exit":
                return res, time.monotonic() - t0

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=120)


def pairs(problems, candidates):
    """(problem code, candidate code, name) for each candidate whose
    level_L_problem_P_... name has a problem P_*.py in PROBLEMS_DIR."""
    by_id = {}
    for f in os.listdir(problems):
        m = re.match(r"(\d+)_.*\.py$", f)
        if m:
            by_id[int(m.group(1))] = os.path.join(problems, f)
    out = []
    for f in sorted(os.listdir(candidates)):
        m = re.match(r"level_\d+_problem_(\d+)_sample_(\d+)_kernel\.py$", f)
        if m and int(m.group(1)) in by_id:
            with open(by_id[int(m.group(1))]) as a, open(os.path.join(candidates, f)) as b:
                out.append((a.read(), b.read(), f))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("old_tree")
    ap.add_argument("problems")
    ap.add_argument("candidates")
    ap.add_argument("--mode", default="faithful")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--trials", type=int, default=100)
    ap.add_argument("--only", type=int, default=0, help="the first N candidates only")
    ap.add_argument("--builders", type=int, default=4, help="workers building at once")
    a = ap.parse_args()
    lib = os.path.join(ROOT, "build", "libhrverify_cuda.so" if a.device == "cuda"
                       else "libhrverify.so")
    lib = lib if os.path.exists(lib) else None
    jobs = pairs(a.problems, a.candidates)
    if a.only:
        jobs = jobs[:a.only]
    tmp = tempfile.mkdtemp(prefix="hr-split-")
    cache = os.path.join(tmp, "cache")
    new = Worker(ROOT, os.path.join(tmp, "new"), cache, a.device, lib)
    old = Worker(a.old_tree, os.path.join(tmp, "old"), cache, a.device, lib)
    base = {"mode": a.mode, "harness": "current", "perf_trials": a.trials, "warmup": 3}
    # Every extension built once, outside the figures, by builders at once.
    import threading
    todo = list(jobs)
    lock = threading.Lock()

    def build(i):
        w = Worker(ROOT, os.path.join(tmp, "build-%d" % i), cache, a.device, lib)
        while True:
            with lock:
                if not todo:
                    break
                prob, cand, _ = todo.pop()
            w.run(dict(base, problem_code=prob, candidate_code=cand, stop_after="build"))
        w.close()
    ts = [threading.Thread(target=build, args=(i,)) for i in range(max(1, a.builders))]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    rows = []
    for prob, cand, name in jobs:
        job = dict(base, problem_code=prob, candidate_code=cand)
        got = {}
        for tag, w in (("old1", old), ("new1", new), ("old2", old), ("new2", new)):
            got[tag] = w.run(job)
        rows.append((name, got))
    new.close()
    old.close()
    print("| candidate | verdict (old/new) | runtime ms old | new | ratio new/old | "
          "old run-to-run | job s old | new |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    moves, noise, extra = [], [], []
    for name, g in rows:
        r = {k: (v[0] or {}) for k, v in g.items()}
        t = {k: r[k].get("runtime_ms") for k in r}
        secs = {k: v[1] for k, v in g.items()}
        verdicts = "%s/%s" % (r["old1"].get("verdict"), r["new1"].get("verdict"))
        if all(t.values()):
            o, n = math.sqrt(t["old1"] * t["old2"]), math.sqrt(t["new1"] * t["new2"])
            moves.append(abs(math.log(n / o)))
            noise.append(abs(math.log(t["old1"] / t["old2"])))
            ratio, rtr = "%.4f" % (n / o), "%.4f" % (t["old2"] / t["old1"])
        else:
            o = n = None
            ratio = rtr = "-"
        extra.append((secs["new1"] + secs["new2"]) / 2 - (secs["old1"] + secs["old2"]) / 2)
        print("| %s | %s | %s | %s | %s | %s | %.2f | %.2f |" % (
            name, verdicts, "%.4f" % o if o else "-", "%.4f" % n if n else "-", ratio, rtr,
            (secs["old1"] + secs["old2"]) / 2, (secs["new1"] + secs["new2"]) / 2))
    if moves:
        print("\nfaithful runtime, new against old: median |log ratio| %.2f %%, max %.2f %%; "
              "old against itself (run-to-run): median %.2f %%, max %.2f %%"
              % (100 * statistics.median(moves), 100 * max(moves),
                 100 * statistics.median(noise), 100 * max(noise)))
    print("job wall time, new less old: median %+.3f s, mean %+.3f s over %d jobs"
          % (statistics.median(extra), statistics.mean(extra), len(extra)))


if __name__ == "__main__":
    main()
