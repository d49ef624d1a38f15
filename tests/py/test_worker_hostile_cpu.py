"""Hostile attacks on robust timing on the CPU (tests/fixtures/quiet-cpu/):
each candidate computes the reference's own matmul (planted problem 14),
so any speedup it reads is forged.  Each runs robust through the worker,
and the test asserts what the product should say: background-work, and
no verified speedup.  The honest twin (planted honest-matmul-same.py)
runs first and must read no finding.

attack-chain-burst.py read robust verified-faster (ci_low above 1) with
no finding in most runs on the 2-core development machine while the
account judged a held call by CPU time alone; the run counts of the
family's threads (account.Family.ran_since) catch it.  Plain script: one
line per check, exits non-zero on a failure.
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workerlib import DEVICE, ROOT, Worker  # noqa: E402

PLANTED = os.path.join(ROOT, "tests", "fixtures", "planted")
HERE = os.path.join(ROOT, "tests", "fixtures", "quiet-cpu")
PROBLEM = os.path.join(PLANTED, "problems", "level1", "14_Matmul.py")
HONEST = os.path.join(PLANTED, "candidates", "honest-matmul-same.py")
# attack, whether it works today (the check below then fails)
ATTACKS = [("attack-chain-burst.py", False)]
failed = 0


def check(ok, what):
    global failed
    print(("ok: " if ok else "FAIL: ") + what)
    failed += not ok


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


def robust(path):
    _, res = w.run(problem, read(path), mode="robust", problem_file=PROBLEM,
                   candidate_file=path, robust_rounds=8, robust_inputs=2, perf_trials=10)
    ids = sorted({f.get("id") for f in res.get("findings", [])})
    print("   %s: %s, speedup %s [%s, %s], findings %s" % (
        os.path.basename(path), res.get("verdict"), res.get("speedup"), res.get("ci_low"),
        res.get("ci_high"), ids))
    return res, ids


res, ids = robust(HONEST)
check(res.get("verdict") == "correct" and not ids,
      "honest twin: correct, no finding (its interval [%s, %s])"
      % (res.get("ci_low"), res.get("ci_high")))
honest_high = res.get("ci_high") or 1.0

for name, works_today in ATTACKS:
    res, ids = robust(os.path.join(HERE, name))
    tag = " [KNOWN TO FAIL TODAY: the attack forges]" if works_today else ""
    check(res.get("verdict") == "correct",
          "%s: its output is right (the attack is in its timing alone)" % name)
    check("background-work" in ids,
          "%s: background-work%s" % (name, tag))
    lo = res.get("ci_low")
    check(lo is None or lo <= max(1.0, honest_high),
          "%s: no verified speedup, nor an interval above the honest twin's "
          "(ci_low %s, twin's ci_high %s)%s" % (name, lo, honest_high, tag))

sys.exit(1 if failed else 0)
