#!/usr/bin/env python3
"""audit_cost.py DB [RUN_ID | MODE] - what the audit's own calls cost a
replay (the latest run, the run RUN_ID, or the latest run of MODE, robust
or faithful):
per job and in all, checks.audit_seconds (correctness, timing) against the
job's seconds in those phases and the audit phase (checks.phase_seconds),
and its findings.  The GPU-escapes pass (audit_seconds.escapes) runs in
the audit phase and counts as audit; its own column shows what it adds.
Prints a Markdown table; the issue's goal is a share of at most 20 %;
then the audit's seconds by check (checks.audit_parts) and the escapes
pass's parts (checks.escapes.seconds from the candidate process,
judge_seconds and precision.seconds from the judge), summed."""
import json
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
arg = sys.argv[2] if len(sys.argv) > 2 else ""
run = arg if arg.isdigit() else db.execute(
    "SELECT max(id) FROM replay_run" + (" WHERE mode = ?" if arg else ""),
    (arg,) if arg else ()).fetchone()[0]
if run is None:
    sys.exit("audit_cost: no %s run in %s" % (arg or "replay", sys.argv[1]))
mode = db.execute("SELECT mode FROM replay_run WHERE id = ?", (run,)).fetchone()[0]
rows = db.execute("""SELECT e.problem_id, e.sample_id, j.verdict, j.audit_verdict, j.checks_json
                     FROM replay_job j JOIN evaluation e ON e.id = j.evaluation_id
                     WHERE j.run_id = ? ORDER BY e.problem_id, e.sample_id""", (run,)).fetchall()
tot_a = tot_p = 0.0
print("run %s (%s): problem, sample, verdict, audit verdict, phases (s), audit (s), share"
      % (run, mode))
print("| problem | sample | verdict | audit | correctness+timing s | audit s | of which escapes s | share |")
print("|---:|---:|---|---|---:|---:|---:|---:|")
tot_e = 0.0
parts = {}      # the escapes pass's parts: seconds summed over the jobs
by_check = {}   # checks.audit_parts: the audit's seconds by check, summed
for pid, sid, verdict, audit, checks in rows:
    c = json.loads(checks or "{}")
    esc = c.get("escapes", {})
    for side, d in (("candidate", esc.get("seconds")), ("judge", esc.get("judge_seconds")),
                    ("judge", (esc.get("precision") or {}).get("seconds"))):
        for k, v in (d or {}).items():
            if isinstance(v, (int, float)):
                parts[(side, k)] = parts.get((side, k), 0.0) + v
    for k, v in (c.get("audit_parts") or {}).items():
        if isinstance(v, (int, float)):
            by_check[k] = by_check.get(k, 0.0) + v
    ps, au = c.get("phase_seconds", {}), c.get("audit_seconds", {})
    p = ps.get("correctness", 0) + ps.get("timing", 0) + ps.get("audit", 0)
    e = au.get("escapes", 0)
    a = au.get("correctness", 0) + au.get("timing", 0) + e
    if not p:
        continue
    tot_a, tot_p, tot_e = tot_a + a, tot_p + p, tot_e + e
    print("| %s | %s | %s | %s | %.3f | %.3f | %.3f | %.1f %% |"
          % (pid, sid, verdict, audit, p, a, e, 100 * a / p))
if tot_p:
    print("\nall jobs: %.2f s of %.2f s in the correctness, timing and audit phases: %.1f %% "
          "(the checks' share of what the GPU work would be without them: %.1f %%)"
          % (tot_a, tot_p, 100 * tot_a / tot_p, 100 * tot_a / (tot_p - tot_a)))
    print("of which the GPU-escapes pass: %.2f s (%.1f %% of the phases)"
          % (tot_e, 100 * tot_e / tot_p))
if by_check:
    print("\nthe audit's seconds by check (checks.audit_parts), summed over the jobs:\n")
    print("| check | s |")
    print("|---|---:|")
    for k, v in sorted(by_check.items(), key=lambda x: -x[1]):
        print("| %s | %.3f |" % (k, v))
if parts:
    # judge_seconds' candidate_pass spans the candidate's parts; judge_pass
    # spans the judge's own precision parts.
    print("\nthe escapes pass by part, summed over the jobs (s):\n")
    print("| side | part | s |")
    print("|---|---|---:|")
    for (side, k), v in sorted(parts.items(), key=lambda x: -x[1]):
        print("| %s | %s | %.3f |" % (side, k, v))
