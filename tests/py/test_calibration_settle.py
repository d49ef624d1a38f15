"""What a figure takes off (hrworker/remote.py: lower_calibration,
CandidateProcess.settle): after a run of timed calls the calls of nothing
are made again, and every figure takes off the lower of the two
calibrations, so that a calibration made while the host was slow cannot
make an honest candidate read faster than it ran; and figures within the
judge's clock resolution verify no speedup (timing.unresolved_figures).  Then a robust and a
faithful job on a CPU keep both calibrations and what was taken.

Plain script: one line per check, exits non-zero on any failure.
"""
import os
import sys

from workerlib import DEVICE, ROOT, Worker, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker.remote import FIGURE_MIN_MS, CandidateProcess, lower_calibration  # noqa: E402
from hrworker.timing import CACHE_RATIO, cached_ratio, unresolved_figures  # noqa: E402

WAY = (1024, True, 0)
OTHER = (0, False, 0)


def cal(overhead, least, bound, spread=0.0):
    return {"calls": 16, "overhead_ms": overhead, "least_ms": least, "spread_ms": spread,
            "gap_bound_ms": bound, "wall_ms_median": overhead}


first = {WAY: cal(0.60, 0.55, 0.8, 0.05), OTHER: cal(0.10, 0.09, 0.3)}
again = {WAY: cal(0.56, 0.57, 0.9, 0.02)}
low = lower_calibration(first, again)
check(low[WAY]["overhead_ms"] == 0.56 and low[WAY]["least_ms"] == 0.55,
      "each way takes the lower overhead and the lower least handshake (%r)" % (low[WAY],))
check(low[WAY]["spread_ms"] == 0.05, "and the larger spread: the resolution only widens")
check(low[WAY]["gap_bound_ms"] == 0.8, "its gap bound stays the first's (gap_bounds widens it)")
check(low[OTHER] == first[OTHER], "a way not made again keeps its first calibration")
check(first[WAY]["overhead_ms"] == 0.60, "the first calibration is left as it was")
slower = lower_calibration(first, {WAY: cal(0.9, 0.8, 2.0)})
check(slower[WAY]["overhead_ms"] == 0.60,
      "calls of nothing slowed after the candidate's code take no more off (%r)"
      % (slower[WAY],))

# settle, on a candidate process of timed calls only (no process behind it).
proc = CandidateProcess.__new__(CandidateProcess)
proc.walls, proc.ways = [0.70, 0.72, 0.65, 0.71], [WAY] * 4
proc.cal = proc.taken = first
check([round(proc.figure(i), 6) for i in range(4)] == [0.1, 0.12, 0.05, 0.11],
      "before settling, figures take off the first calibration")
asked = []


def calls_of_nothing(ways, n):
    asked.append((list(ways), n))
    return {WAY: cal(0.64, 0.60, 0.8)}


proc.calls_of_nothing = calls_of_nothing
check([round(x, 6) for x in proc.settle(1, [WAY])] == [0.12, 0.05, 0.11],
      "settling a run the first calibration took less off: its figures unchanged")
check(asked == [([WAY], 16)], "settle makes the calls of nothing again, each way asked (%r)"
      % (asked,))
proc.walls.append(0.30)
proc.ways.append(WAY)
proc.calls_of_nothing = lambda ways, n: {WAY: cal(0.25, 0.2, 0.5)}
figs = proc.settle(4, [WAY])
check([round(x, 6) for x in figs] == [0.05],
      "a first calibration above the run's: the run's figures take the lower off (%r)" % (figs,))
check(round(proc.figure(0), 6) == 0.45 and round(proc.fastest(0), 6) == 0.1,
      "and every figure, the floor's fastest with it, from then on")
proc.walls.append(0.1)
proc.ways.append(WAY)
check(proc.figure(5) == FIGURE_MIN_MS, "a call under what is taken off reads FIGURE_MIN_MS")

# Figures within the judge's clock resolution verify no speedup
# (timing.unresolved_figures; verdict.c reads checks.timing.unresolved).
low_figs = unresolved_figures([0.001, 0.001, 0.002, 0.02], 0.008)
check(low_figs is not None and low_figs["median_figure_ms"] == 0.001
      and low_figs["resolution_ms"] == 0.008,
      "a median figure within the resolution: unresolved (%r)" % (low_figs,))
check(unresolved_figures([0.02, 0.03, 0.001], 0.008) is None,
      "a median figure above it: resolved")
check(unresolved_figures([0.008, 0.008], 0.008) is not None,
      "a median figure equal to it: unresolved")
check(unresolved_figures([], 0.008) is None, "no figures: nothing said")

# result-cached's ratio is of what the clock resolves (timing.cached_ratio):
# the readings are those of an honest view (x.view) on the 2-core host under
# make check's load and of the planted pointer cache in the planted suite.
check(not cached_ratio(0.001, 0.071, 0.028),
      "a view's repeated call read at FIGURE_MIN_MS, fresh 0.071 ms: not cached")
check(cached_ratio(0.001, 0.071, 0.0),
      "the same readings where the clock resolves everything: cached (the rule can fire)")
check(cached_ratio(0.0229, 2.5598, 0.055493),
      "the planted pointer cache (0.023 ms repeated, 2.56 ms fresh, resolution 0.055): cached")
check(not cached_ratio(0.6076, 2.8737, 0.06),
      "4.7x faster on repeated inputs: under CACHE_RATIO (%d), not cached" % CACHE_RATIO)

# The worker: a robust and a faithful job keep both calibrations.
w = Worker()
try:
    problem = open(os.path.join(ROOT, "tests", "fixtures", "planted", "problems", "level1",
                                "1_Row_sums.py")).read()
    honest = open(os.path.join(ROOT, "tests", "fixtures", "planted", "candidates",
                               "honest-rowsums-fast.py")).read()
    for mode in ("robust", "faithful"):
        _, res = w.run(problem, honest, mode=mode, candidate_file="honest-rowsums-fast.py",
                       robust_rounds=6, robust_inputs=1, bootstrap=50, perf_trials=5)
        tc = ((res or {}).get("checks") or {}).get("timing_channel") or {}
        first_cal = {tuple(c[k] for k in ("flush_bytes", "sync_before", "cover_cycles")): c
                     for c in tc.get("calibration", [])}
        taken = tc.get("taken") or []
        settled = {tuple(c[k] for k in ("flush_bytes", "sync_before", "cover_cycles")): c
                   for c in tc.get("settled", [])}
        ok = bool(taken and settled) and all(
            c["overhead_ms"] == min(first_cal[k]["overhead_ms"],
                                    settled.get(k, first_cal[k])["overhead_ms"])
            for c in taken for k in [(c["flush_bytes"], c["sync_before"], c["cover_cycles"])])
        check(ok, "%s: checks.timing_channel keeps the calibration, the calls made again "
              "after the run (settled) and the lower of the two (taken) (%r)"
              % (mode, {k: tc.get(k) for k in ("calibration", "settled", "taken")}), w)
        check(res.get("speedup") is not None, "%s: and the job is timed (%s)"
              % (mode, res.get("speedup")), w)
        # The judge's earlier device work is waited for apart, not counted
        # as the calibration's own seconds.  On a CPU there is none: the
        # wait is a call that returns at once, under a millisecond unless
        # the host deschedules the judge (0.0001 s on a loaded 2-core box).
        check(tc.get("pending_gpu_seconds") is not None and
              (DEVICE == "cuda" or tc["pending_gpu_seconds"] < 0.05) and
              0 < tc.get("calibration_seconds", 0) < 5,
              "%s: the calibration's own seconds, the earlier device work apart (%r)"
              % (mode, {k: tc.get(k) for k in ("calibration_seconds", "pending_gpu_seconds")}),
              w)
        if mode == "robust":
            timing = res["checks"].get("timing") or {}
            check("unresolved" not in timing and timing.get("verified") is (res["ci_low"] > 1),
                  "robust: figures the clock resolves, verified as the interval says (%r)"
                  % ({k: timing.get(k) for k in ("verified", "unresolved")},), w)
finally:
    w.close()
