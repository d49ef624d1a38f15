#!/usr/bin/env python3
"""audit_cost.py DB [RUN_ID] - what the audit's own calls cost a replay:
per job and in all, checks.audit_seconds (correctness, timing) against the
job's seconds in those phases (checks.phase_seconds), and its findings.
Prints a Markdown table; the issue's goal is a share of at most 20 %."""
import json
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
run = sys.argv[2] if len(sys.argv) > 2 else db.execute("SELECT max(id) FROM replay_run").fetchone()[0]
mode = db.execute("SELECT mode FROM replay_run WHERE id = ?", (run,)).fetchone()[0]
rows = db.execute("""SELECT e.problem_id, e.sample_id, j.verdict, j.audit_verdict, j.checks_json
                     FROM replay_job j JOIN evaluation e ON e.id = j.evaluation_id
                     WHERE j.run_id = ? ORDER BY e.problem_id, e.sample_id""", (run,)).fetchall()
tot_a = tot_p = 0.0
print("run %s (%s): problem, sample, verdict, audit verdict, phases (s), audit (s), share"
      % (run, mode))
print("| problem | sample | verdict | audit | correctness+timing s | audit s | share |")
print("|---:|---:|---|---|---:|---:|---:|")
for pid, sid, verdict, audit, checks in rows:
    c = json.loads(checks or "{}")
    ps, au = c.get("phase_seconds", {}), c.get("audit_seconds", {})
    p = ps.get("correctness", 0) + ps.get("timing", 0)
    a = au.get("correctness", 0) + au.get("timing", 0)
    if not p:
        continue
    tot_a, tot_p = tot_a + a, tot_p + p
    print("| %s | %s | %s | %s | %.3f | %.3f | %.1f %% |" % (pid, sid, verdict, audit, p, a,
                                                            100 * a / p))
if tot_p:
    print("\nall jobs: %.2f s of %.2f s in the correctness and timing phases: %.1f %% "
          "(the checks' share of what the GPU work would be without them: %.1f %%)"
          % (tot_a, tot_p, 100 * tot_a / tot_p, 100 * tot_a / (tot_p - tot_a)))
