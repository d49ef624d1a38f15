"""ab_jobs.py - the same planted jobs through the workers of two trees or
more, alternated, side by side: each job's wall (its phase seconds summed)
and each phase's, medians over the repeats.  For a change to the judge
measured against the tree before it (a worktree whose build/ is this
one's):

    git worktree add /tmp/before COMMIT && ln -s $PWD/build /tmp/before/build
    $PYTHON tests/bench/ab_jobs.py /tmp/before . [--reps 3] [--cases CAND:PROBLEM,...]

Each tree's tests/py/workerlib.py starts its own worker (CPU, or
HR_TEST_DEVICE=cuda); one process a tree and a repeat, the trees' order
reversed every other repeat.  A benchmark, not a test."""
import argparse
import json
import os
import statistics
import subprocess
import sys

CASES = "honest-matmul-same.py:14_Matmul.py,honest-rowsums-fast.py:1_Row_sums.py"
RUN = r'''
import json, os, sys
tree, cases = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(tree, "tests", "py"))
from workerlib import Worker
P = os.path.join(tree, "tests", "fixtures", "planted")
w = Worker()
out = []
for mode in ("faithful", "robust"):
    for case in cases.split(","):
        cf, pf = case.split(":")
        _, r = w.run(open(os.path.join(P, "problems", "level1", pf)).read(),
                     open(os.path.join(P, "candidates", cf)).read(), mode=mode, harness="v0.1",
                     perf_trials=100, warmup=3, robust_rounds=30, robust_inputs=2)
        out.append([cf, mode, r.get("verdict"), r["checks"]["phase_seconds"]])
w.close()
print(json.dumps(out))
'''


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trees", nargs="+")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--cases", default=CASES, help="CANDIDATE:PROBLEM,... of the planted suite")
    a = ap.parse_args()
    got = {}
    for rep in range(a.reps):
        for tree in (a.trees if rep % 2 == 0 else a.trees[::-1]):
            p = subprocess.run([sys.executable, "-c", RUN, os.path.abspath(tree), a.cases],
                               capture_output=True, text=True)
            if p.returncode:
                sys.exit("%s: %s" % (tree, p.stderr[-2000:]))
            for cf, mode, verdict, phases in json.loads(p.stdout.strip().splitlines()[-1]):
                got.setdefault((cf, mode, tree), []).append((verdict, phases))
    for (cf, mode, tree), runs in sorted(got.items()):
        names = sorted({k for _, ph in runs for k in ph})
        med = {k: statistics.median(ph.get(k, 0.0) for _, ph in runs) for k in names}
        print("%-26s %-8s %-20s wall %.3f s (%s) %s" % (
            cf, mode, tree[-20:], statistics.median(sum(ph.values()) for _, ph in runs),
            ", ".join("%s %.3f" % (k, med[k]) for k in names),
            ",".join(sorted({v for v, _ in runs}))))


if __name__ == "__main__":
    main()
