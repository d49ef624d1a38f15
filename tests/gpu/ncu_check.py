#!/usr/bin/env python3
"""ncu_check.py DB CAND KBLEVEL [--calls N] [--min-us US] - robust times
against Nsight Compute's.  For each candidate file of CAND
(level_1_problem_P_sample_0_kernel.py) whose latest robust replay job in
the store DB timed at least --min-us microseconds (issue 19: kernels of
50 us and more), the same candidate is run under

    ncu --nvtx --nvtx-include call/ --metrics gpu__time_duration.sum
        --clock-control none --cache-control none

on the problem's own inputs (KBLEVEL/P_*.py, get_inputs): N calls, the L2
flushed by a write of twice its size before each call outside the NVTX
range "call", which alone is profiled.  A call's ncu time is the sum of
gpu__time_duration over the kernels it launched; the median over the calls
is set beside the store's robust runtime_ms.  Clock control is off (ncu
would otherwise lock the base clock, robust runs at the application
clock) and ncu's own cache control is off (robust flushes before a call,
not before each kernel).  The extensions are built first, in parallel,
each into its own TORCH_EXTENSIONS_DIR, so that ncu times no build.
Prints Markdown.  `--target CAND_FILE PROBLEM_FILE` is the profiled
program itself."""
import argparse
import concurrent.futures as cf
import csv
import glob
import io
import os
import re
import sqlite3
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker.context import problem_namespace  # noqa: E402

UNITS = {"nsecond": 1e-6, "usecond": 1e-3, "msecond": 1.0, "second": 1e3,
         "ns": 1e-6, "us": 1e-3, "ms": 1.0, "s": 1e3}


def load(path):
    """A problem's or a candidate's file executed in a namespace of its own
    (the worker's problem_namespace; robust mode keeps them apart too)."""
    with open(path) as f:
        return problem_namespace(f.read(), path)


def target(cand, problem, calls):
    import torch
    prob, mod = load(problem), load(cand)
    torch.manual_seed(0)
    init = prob["get_init_inputs"]()
    model = mod["ModelNew"](*init).cuda().eval()
    inputs = [x.cuda() if torch.is_tensor(x) else x for x in prob["get_inputs"]()]
    flush = torch.empty(2 * torch.cuda.get_device_properties(0).L2_cache_size // 4,
                        dtype=torch.float32, device="cuda")
    with torch.no_grad():
        for _ in range(3):
            model(*inputs)
        torch.cuda.synchronize()
        for _ in range(calls):
            flush.fill_(1.0)
            torch.cuda.synchronize()
            torch.cuda.nvtx.range_push("call")
            model(*inputs)
            torch.cuda.nvtx.range_pop()
            torch.cuda.synchronize()


def problem_file(kblevel, p):
    got = glob.glob(os.path.join(kblevel, "%d_*.py" % p))
    return got[0] if got else None


def robust_ms(db, p):
    row = db.execute(
        "SELECT j.runtime_ms FROM replay_job j JOIN evaluation e ON e.id = j.evaluation_id "
        "JOIN replay_run r ON r.id = j.run_id WHERE r.mode = 'robust' AND e.level = 1 "
        "AND e.problem_id = ? AND e.sample_id = 0 AND j.runtime_ms > 0 "
        "ORDER BY j.run_id DESC LIMIT 1", (p,)).fetchone()
    return row[0] if row else None


def env_for(extdir):
    return dict(os.environ, TORCH_EXTENSIONS_DIR=extdir, PYTHONUNBUFFERED="1")


def build(me, cand, prob, extdir):
    """Import the candidate once (load_inline builds it) outside ncu."""
    r = subprocess.run([sys.executable, me, "--target", cand, prob, "--calls", "1"],
                       env=env_for(extdir), capture_output=True, text=True, timeout=600)
    return r.returncode, r.stderr[-400:]


def ncu_times(me, cand, prob, extdir, calls, log):
    """(median ms a call, kernels a call), None; or None, why.  The push/pop
    range filter is "call/"; should it select nothing, "call" is tried."""
    for spec in ("call/", "call"):
        got, err = ncu_once(me, cand, prob, extdir, calls, log, spec)
        if got is not None or not err.startswith("0 kernels"):
            return got, err
    return got, err


def ncu_once(me, cand, prob, extdir, calls, log, spec):
    cmd = ["ncu", "--nvtx", "--nvtx-include", spec, "--metrics", "gpu__time_duration.sum",
           "--clock-control", "none", "--cache-control", "none", "--csv", "--log-file", log,
           "--target-processes", "all", sys.executable, me, "--target", cand, prob,
           "--calls", str(calls)]
    r = subprocess.run(cmd, env=env_for(extdir), capture_output=True, text=True, timeout=600)
    if r.returncode != 0:
        return None, "ncu exit %d: %s" % (r.returncode, (r.stderr or r.stdout)[-400:])
    with open(log) as f:
        text = f.read()
    start = text.find('"ID"')
    if start < 0:
        return None, "0 kernels (no CSV in %s)" % log
    ms = []
    for row in csv.DictReader(io.StringIO(text[start:])):
        if row.get("Metric Name") != "gpu__time_duration.sum":
            continue
        unit = UNITS.get(row.get("Metric Unit", ""))
        if unit is None:
            return None, "unit %r" % row.get("Metric Unit")
        ms.append(float(row["Metric Value"].replace(",", "")) * unit)
    if not ms or len(ms) % calls:
        return None, "%d kernels in %d calls" % (len(ms), calls)
    k = len(ms) // calls
    per_call = [sum(ms[i * k:(i + 1) * k]) for i in range(calls)]
    return (statistics.median(per_call), k), None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--target", nargs=2, metavar=("CAND", "PROBLEM"))
    ap.add_argument("--calls", type=int, default=20)
    ap.add_argument("--min-us", type=float, default=50.0)
    ap.add_argument("--work", default="/tmp/hr-gpu/ncu")
    ap.add_argument("rest", nargs="*", help="DB CAND KBLEVEL")
    a = ap.parse_args()
    if a.target:
        target(a.target[0], a.target[1], a.calls)
        return 0
    if len(a.rest) != 3:
        ap.error("DB CAND KBLEVEL")
    dbpath, cand_dir, kblevel = a.rest
    db = sqlite3.connect(dbpath)
    me = os.path.abspath(__file__)
    todo = []
    for cand in sorted(glob.glob(os.path.join(cand_dir, "level_1_problem_*_sample_0_kernel.py"))):
        p = int(re.search(r"problem_(\d+)_", cand).group(1))
        rob, prob = robust_ms(db, p), problem_file(kblevel, p)
        if rob is None or prob is None:
            print("P%d: no robust time or no problem file, skipped" % p)
        elif rob * 1000 < a.min_us:
            print("P%d: robust %.1f us, under %.0f us, skipped" % (p, rob * 1000, a.min_us))
        else:
            todo.append((p, cand, prob, rob, os.path.join(a.work, "ext-%d" % p)))
    os.makedirs(a.work, exist_ok=True)
    with cf.ThreadPoolExecutor(len(todo) or 1) as pool:
        built = dict(zip([t[0] for t in todo],
                         pool.map(lambda t: build(me, t[1], t[2], t[4]), todo)))
    print("\n| problem | kernels a call | robust ms | ncu ms (median of %d calls) | robust / ncu - 1 |"
          % a.calls)
    print("|---:|---:|---:|---:|---:|")
    diffs = []
    for p, cand, prob, rob, ext in todo:
        rc, err = built[p]
        if rc != 0:
            print("| %d | build failed: %s | | | |" % (p, err.strip().splitlines()[-1:] or ""))
            continue
        got, err = ncu_times(me, cand, prob, ext, a.calls, os.path.join(a.work, "ncu-%d.csv" % p))
        if got is None:
            print("| %d | %s | | | |" % (p, err))
            continue
        med, k = got
        d = rob / med - 1
        diffs.append(abs(d))
        print("| %d | %d | %.4f | %.4f | %+.2f %% |" % (p, k, rob, med, d * 100))
    if diffs:
        print("\n%d kernels >= %.0f us: max |robust / ncu - 1| %.2f %%, median %.2f %%"
              % (len(diffs), a.min_us, max(diffs) * 100, statistics.median(diffs) * 100))
    return 0


if __name__ == "__main__":
    sys.exit(main())
