#!/usr/bin/env python3
"""stability.py DB - run-to-run spread of the speedups a store's replays
measured: for each mode (robust, faithful), the two latest runs of it,
per evaluation that both timed |log(speedup_2 / speedup_1)|, their median
and 95th percentile, beside the robust runs' clock records (SM MHz,
rounds dropped as throttled).  Faithful mode is KernelBench's own timing
loop, so its spread is the harness's on the same kernels in the same
call.  Prints Markdown; issue 19's goal for robust: median <= 0.5 %,
p95 <= 2 %.  Standard library only."""
import json
import math
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])


def pct(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(math.ceil(q * len(v))) - 1)] if v else float("nan")


for mode in ("robust", "faithful"):
    runs = [r[0] for r in db.execute("SELECT id FROM replay_run WHERE mode = ? ORDER BY id "
                                     "DESC LIMIT 2", (mode,))]
    if len(runs) < 2:
        print("%s: fewer than two runs" % mode)
        continue
    got = {}
    for run in runs:
        for eid, sp, runtime, checks in db.execute(
                "SELECT evaluation_id, speedup, runtime_ms, checks_json FROM replay_job "
                "WHERE run_id = ? AND speedup > 0", (run,)):
            got.setdefault(eid, []).append((sp, runtime, json.loads(checks or "{}")))
    print("\n%s, runs %s and %s:\n" % (mode, runs[1], runs[0]))
    print("| evaluation | runtime ms | speedup 1 | speedup 2 | abs log ratio % | SM MHz | dropped |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    logs = []
    for eid, v in sorted(got.items()):
        if len(v) != 2:
            continue
        (s1, r1, c1), (s2, _, c2) = v
        d = abs(math.log(s2 / s1)) * 100
        logs.append(d)
        clk = c1.get("clocks", {})
        sm = (clk.get("sm_mhz") or {}).get("median")
        print("| %d | %.4f | %.4f | %.4f | %.2f | %s | %s |"
              % (eid, r1, s1, s2, d, sm, clk.get("dropped")))
    print("\n%s: %d evaluations, median |log ratio| %.2f %%, p95 %.2f %%, max %.2f %%"
          % (mode, len(logs), pct(logs, 0.5), pct(logs, 0.95), max(logs) if logs else 0))
