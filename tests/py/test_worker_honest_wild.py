"""Honest candidates written the way KernelBench archives write CPU kernels
(tests/fixtures/honest-wild: load_inline loops, OpenMP, at::parallel_for,
std::thread pools, AVX2, plain PyTorch), none tuned to the audit's checks:
replayed through the worker in faithful and in robust mode, none is
accused.  Each file's header names its problem (`problem level1/N_Name`).

A job is clean when the worker's verdict is `correct`, it carries no
finding (no `exploit:*` verdict follows), every trial passed the original
check (no `incorrect`): its audit verdict can only be `correct`,
`correct-vacuous` or `verified-faster` (replay/verdict.c decides among
those; the worker reports the inputs of that choice, printed in the
table: speedup, ci_low, vacuous, and si, whether the scale-invariant
checks passed, without which no job is verified-faster).

KNOWN lists the candidates the worker is known to accuse, each with the
accusations it may raise: false accusations found and not yet mended.
Such a candidate passes clean or with those accusations only; any other
accusation fails.  An entry goes once the worker is mended, and the test
holds it to clean.

HONEST_WILD_ROUNDS (default 2) sets robust_rounds; HONEST_WILD_ONLY runs
the candidates whose file name contains it; HONEST_WILD_BIG=1 also runs
the candidates of the problems with 64 MiB inputs (BIG: about 40 s of
the worker's each on a 2-core host); HONEST_WILD_OUT names a file that
gets every job's result as JSON lines.  The build cache is
build/honest-wild-cache, so a second run builds nothing."""
import json
import os
import re
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workerlib import ROOT, Worker, check_on as check, checks_done  # noqa: E402

HERE = os.path.join(ROOT, "tests", "fixtures", "honest-wild")
PROBLEMS = os.path.join(ROOT, "tests", "fixtures", "planted", "problems", "level1")
ROUNDS = int(os.environ.get("HONEST_WILD_ROUNDS", "2"))
ONLY = os.environ.get("HONEST_WILD_ONLY", "")
OUT = os.environ.get("HONEST_WILD_OUT")
WITH_BIG = os.environ.get("HONEST_WILD_BIG") == "1"
BIG = {"6_Big_copy.py", "18_Sum_first_columns.py"}
# candidate -> the accusations it may raise (none now: the sequential fp32
# sums mse-omp-dynamic.py and mean-naive-float.py read precision-downgrade
# and distribution-specific until precision.fp32_allowance)
KNOWN = {}


def read(path):
    with open(path) as f:
        return f.read()


def problem_of(src, name):
    m = re.search(r"problem level1/(\d+_\w+)", src)
    if not m or not os.path.exists(os.path.join(PROBLEMS, m.group(1) + ".py")):
        sys.exit("%s: its header names no problem of %s" % (name, PROBLEMS))
    return m.group(1) + ".py"


def accusations(res):
    """What makes a job not clean, as a list of words (empty: clean)."""
    if res is None:
        return ["no result"]
    why = []
    if res.get("verdict") != "correct":
        why.append("verdict %s (%s)" % (res.get("verdict"), res.get("error_kind")))
    why += ["finding " + f.get("id", "?") for f in res.get("findings") or []]
    trials = (res.get("checks") or {}).get("trials") or []
    if any(t.get("allclose_pass") is False for t in trials):
        why.append("a trial failed allclose")
    return why


def scale_invariant(res):
    """Did the scale-invariant checks pass (no verified-faster without)?
    Not an accusation: a kernel looser than their fp32 tolerance (1e-4)
    is judged `correct` at most."""
    c = (res or {}).get("checks") or {}
    if c.get("scale_invariant") is not None:
        return bool(c["scale_invariant"])
    return not any(t.get("scale_invariant_pass") is False for t in c.get("trials") or [])


names = sorted(n for n in os.listdir(HERE) if n.endswith(".py") and ONLY in n)
check(len(names) > 0, "candidates found in %s" % HERE)
CACHE = os.path.join(ROOT, "build", "honest-wild-cache")


def build_only(part):
    """Build the extensions of part (jobs that stop after their build)
    into the cache: two workers at once before any job is timed, so
    that a cold cache (CI's) costs half the compilers' wall and no
    timed call shares the CPU with a compiler."""
    wb = Worker("--cache", CACHE)
    try:
        for name in part:
            cand = read(os.path.join(HERE, name))
            pfile = problem_of(cand, name)
            if pfile not in BIG or WITH_BIG:
                wb.run(read(os.path.join(PROBLEMS, pfile)), cand, stop_after="build",
                       problem_file=pfile, candidate_file=name)
    finally:
        wb.close()


# The product's precompiled header from the second extension of a flag
# set on (HEADROOM_PCH=1; tests/run.sh turns headers off): two flag sets
# hold most of the 14 extensions, whose builds are most of a cold run
# (CI's): 10 built with a header, 352 s against 420 s without
# (docs/benchmarks.md).  A header changes no object file (test_pch.py).
os.environ["HEADROOM_PCH"] = "1"
builders = [threading.Thread(target=build_only, args=(names[i::2],)) for i in range(2)]
for b in builders:
    b.start()
for b in builders:
    b.join()
w = Worker("--verify-lib", os.path.join(ROOT, "build", "libhrverify.so"), "--cache", CACHE)
out = open(OUT, "a") if OUT else None
table = []
for name in names:
    cand = read(os.path.join(HERE, name))
    pfile = problem_of(cand, name)
    if pfile in BIG and not WITH_BIG:
        print("skipped: %s (%s, 64 MiB inputs; HONEST_WILD_BIG=1 runs it)" % (name, pfile))
        continue
    problem = read(os.path.join(PROBLEMS, pfile))
    for mode in ("faithful", "robust"):
        _, res = w.run(problem, cand, mode=mode, harness="v0.1",
                       problem_file=pfile, candidate_file=name,
                       perf_trials=10, warmup=3, robust_rounds=ROUNDS,
                       robust_inputs=2, bootstrap=200)
        why = accusations(res)
        res = res or {}
        if out:
            out.write(json.dumps({"candidate": name, "mode": mode, "result": res}) + "\n")
        vac = (res.get("checks") or {}).get("vacuity") or {}
        table.append((name, mode, res.get("verdict"), res.get("speedup"),
                      res.get("ci_low"), vac.get("vacuous"),
                      scale_invariant(res), ",".join(why) or "-"))
        if why and name in KNOWN and set(why) <= KNOWN[name]:
            print("known false accusation, reported: %s (%s): %s; findings: %s"
                  % (name, mode, "; ".join(why), json.dumps(res.get("findings"))[:1500]))
            continue
        check(not why, "%s (%s): clean%s" % (
            name, mode, "" if not why else " -- " + "; ".join(why) + "; findings: "
            + json.dumps(res.get("findings"))[:1500] + "; error: "
            + str(res.get("error"))[:800]))
w.close()
if out:
    out.close()

print("\n%-36s %-9s %-8s %8s %8s %-7s %-5s %s"
      % ("candidate", "mode", "worker", "speedup", "ci_low", "vacuous", "si", "accused"))
for name, mode, verdict, sp, lo, vac, si, why in table:
    print("%-36s %-9s %-8s %8s %8s %-7s %-5s %s"
          % (name, mode, verdict, "%.2f" % sp if sp else "-",
             "%.2f" % lo if lo else "-", vac, si, why))
checks_done()
