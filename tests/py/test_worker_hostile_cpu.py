"""Hostile attacks on the timing on the CPU (tests/fixtures/quiet-cpu/):
each candidate computes the reference's own matmul (planted problem 14),
so any speedup it reads is forged.  Each runs through the worker in the
modes ATTACKS names, and the test asserts what the product should say:
background-work, and (robust) no verified speedup.  The honest twin
(planted honest-matmul-same.py) runs first and must read no finding, and
its cgroup's CPU must be its processes' clocks'.

attack-chain-burst.py read robust verified-faster (ci_low above 1) with
no finding in most runs on the 2-core development machine while the
account judged a held call by CPU time alone; the run counts of the
family's threads (account.Family.ran_since) catch it.
attack-chain-always.py's CPU is in no process's clock: only the
candidate's cgroup sees it (not judged where there is none: a note says
so).  Plain script: one line per check, exits non-zero on a failure.
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workerlib import DEVICE, ROOT, Worker, check_on as check, checks_done  # noqa: E402

PLANTED = os.path.join(ROOT, "tests", "fixtures", "planted")
HERE = os.path.join(ROOT, "tests", "fixtures", "quiet-cpu")
PROBLEM = os.path.join(PLANTED, "problems", "level1", "14_Matmul.py")
HONEST = os.path.join(PLANTED, "candidates", "honest-matmul-same.py")
# attack, the modes it runs in, whether only the candidate's cgroup sees it
ATTACKS = [("attack-chain-burst.py", ("robust",), False),
           ("attack-chain-always.py", ("robust", "faithful"), True)]


def read(path):
    with open(path) as f:
        return f.read()


if DEVICE != "cpu":
    print("skip: the CPU attacks run on HR_TEST_DEVICE=cpu")
    sys.exit(0)
if shutil.which("cc") is None:
    print("skip: no cc (the attacks compile their helpers)")
    sys.exit(0)

w = Worker("--verify-lib", os.path.join(ROOT, "build", "libhrverify.so"))
problem = read(PROBLEM)


def run(path, mode):
    _, res = w.run(problem, read(path), mode=mode, problem_file=PROBLEM,
                   candidate_file=path, robust_rounds=8, robust_inputs=2, perf_trials=10)
    ids = sorted({f.get("id") for f in res.get("findings", [])})
    print("   %s (%s): %s, speedup %s [%s, %s], findings %s" % (
        os.path.basename(path), mode, res.get("verdict"), res.get("speedup"), res.get("ci_low"),
        res.get("ci_high"), ids))
    return res, ids


res, ids = run(HONEST, "robust")
check(res.get("verdict") == "correct" and not ids,
      "honest twin: correct, no finding (its interval [%s, %s])"
      % (res.get("ci_low"), res.get("ci_high")))
honest_high = res.get("ci_high") or 1.0
cgroup = (res.get("checks") or {}).get("candidate_cgroup") or {}
unseen = ((res.get("checks") or {}).get("background") or {}).get("unseen") or {}
if cgroup.get("cgroup"):
    check(abs(unseen.get("cgroup_ms", 1e9) - unseen.get("clocks_ms", 0)) < 5,
          "honest twin: its cgroup's CPU over the timing phase is its processes' clocks' (%s)"
          % unseen)
else:
    print("note: no cgroup for the candidate here (%s): the attacks only a cgroup sees "
          "are not judged" % cgroup.get("why"))

for name, modes, cgroup_only in ATTACKS:
    if cgroup_only and not cgroup.get("cgroup"):
        continue
    for mode in modes:
        res, ids = run(os.path.join(HERE, name), mode)
        check(res.get("verdict") == "correct",
              "%s (%s): its output is right (the attack is in its timing alone)" % (name, mode))
        check("background-work" in ids, "%s (%s): background-work" % (name, mode))
        if mode == "robust" and cgroup.get("cgroup"):
            # its processes frozen with the stopped family (quiet.Quiet.freeze):
            # what undoes a stop cannot run, so nothing is stolen either
            lo = res.get("ci_low")
            check(lo is None or lo <= max(1.0, honest_high),
                  "%s: frozen, no interval above 1 nor the honest twin's "
                  "(ci_low %s, twin's ci_high %s)" % (name, lo, honest_high))

checks_done()
