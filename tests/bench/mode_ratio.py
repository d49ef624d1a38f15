"""mode_ratio.py DB - robust against faithful, evaluation by evaluation
(issue 35: robust at most 1.5x faithful per evaluation): for each
evaluation a store replayed in both modes (the latest run of each), the
seconds of its job's phases after the build (load, correctness, timing,
audit: checks.phase_seconds; the build and the reference's draws are
the run's, not the mode's) and its job's wall, robust over faithful.
Prints a line an evaluation and the medians and the largest ratio.
Standard library only; a benchmark, not a test.

    python3 tests/bench/mode_ratio.py out/kb-leaderboard.db
"""
import json
import sqlite3
import statistics
import sys

AFTER_BUILD = ("load", "correctness", "timing", "audit")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: mode_ratio.py DB")
    con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
    runs = dict(con.execute("SELECT mode, max(id) FROM replay_run GROUP BY mode").fetchall())
    if "robust" not in runs or "faithful" not in runs:
        sys.exit("mode_ratio: %s has no run of %s" % (
            sys.argv[1], " and ".join(m for m in ("robust", "faithful") if m not in runs)))
    jobs = {}
    for mode in ("robust", "faithful"):
        for ev, verdict, wall, cj in con.execute(
                "SELECT evaluation_id, verdict, wall_ms, checks_json FROM replay_job "
                "WHERE run_id = ?", (runs[mode],)):
            ps = (json.loads(cj or "{}").get("phase_seconds") or {})
            jobs.setdefault(ev, {})[mode] = (verdict, (wall or 0) / 1000.0,
                                             sum(ps.get(p, 0.0) for p in AFTER_BUILD))
    after, walls = [], []
    print("evaluation  verdicts (robust, faithful)  after the build: robust  faithful  ratio"
          "   wall ratio")
    for ev in sorted(jobs):
        m = jobs[ev]
        if len(m) < 2:
            continue
        (rv, rw, ra), (fv, fw, fa) = m["robust"], m["faithful"]
        ratio = ra / fa if fa > 0 and ra > 0 else None
        wr = rw / fw if fw > 0 else None
        if ratio is not None:
            after.append(ratio)
        if wr is not None and ratio is not None:
            walls.append(wr)
        print("%10s  %-13s %-13s  %8.2f  %8.2f  %5s  %5s" % (
            ev, rv, fv, ra, fa, "%.2f" % ratio if ratio else "-", "%.2f" % wr if wr else "-"))
    if after:
        print("\n%d evaluations judged in both modes: robust over faithful after the build, "
              "median %.2f, largest %.2f; walls, median %.2f"
              % (len(after), statistics.median(after), max(after), statistics.median(walls)))


main()
