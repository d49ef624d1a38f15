"""Robust timing's launch cover is the same on both sides
(replay/hrworker/timing.py: Timing.time_robust).  On CUDA the candidate
process's timed calls wait behind COVER_CYCLES of GPU spin, which hides
up to that much of the host's launch time; the judge's calls of the
reference must wait behind the same, or a launch-bound reference reads
slower by as much (an honest pure-PyTorch candidate, identical to its
reference, read verified-faster on the H200 when they did not).

Runs on a CPU: the timed calls are recorded, not made (Timing.time_one
replaced), with the job's device said to be CUDA; then the same on a
CPU job, where no cover is asked of either side.

Plain script: one line per check, exits non-zero on any failure.
"""
import os
import sys
import types

from workerlib import ROOT, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
import torch  # noqa: E402
from hrworker.protocol import COVER_CYCLES  # noqa: E402
from hrworker.timing import Timing  # noqa: E402


def robust_calls(cuda):
    """time_robust over stand-ins: each timed call's (side, cover)."""
    tm = Timing.__new__(Timing)
    ref, new = object(), object()
    calls = []

    def time_one(fn, args, flush, sync_before, keep=None, cover=0):
        calls.append(("reference" if fn is ref else "candidate", cover))
        keep.append(torch.zeros(1))
        return 1.0 if fn is ref else 0.5

    sets = types.SimpleNamespace(pool_seeds=[1, 2], fresh_content=lambda s: [torch.ones(2)])
    tm.torch, tm.cuda, tm.m, tm.seed = torch, cuda, {"robust_rounds": 4, "bootstrap": 50}, 42
    tm.ref, tm.new, tm.sets, tm.clocks, tm.on_audit = ref, new, sets, None, None
    tm.checks, tm.result = {}, {}
    tm.ctx = types.SimpleNamespace(checks=tm.checks, audit_seed=lambda offset=0: 7 + offset)
    tm.fresh_inputs = lambda s: [torch.ones(2)]
    tm.flush_bytes = lambda robust: 0
    tm.warm = lambda fn, args: None
    tm.sync = lambda: None
    tm.time_one = time_one
    tm.check_round = lambda *a: None
    tm.recheck_fresh = lambda *a: None
    tm.floor = lambda *a: None
    tm.time_robust()
    return calls


calls = robust_calls(True)
sides = {side for side, _ in calls}
check(sides == {"reference", "candidate"} and len(calls) == 8,
      "CUDA: 4 rounds timed both sides (%d calls)" % len(calls))
check(all(c == COVER_CYCLES for _, c in calls),
      "CUDA: every timed call, the reference's too, asks for the launch cover (%s)"
      % sorted(set(calls)))
calls = robust_calls(False)
check(calls and all(c == 0 for _, c in calls),
      "CPU: no cover on either side (%s)" % sorted(set(calls)))


# Every way a call of the candidate is timed is a way the judge calibrated
# (Timing.ways): the audit's calls one at a time (fresh_timing, the
# clock's confirmation) wait behind the cover in faithful jobs too, and a
# calibration of their way without it read the cover's 0.6 ms as a gap
# the candidate's clock did not see (honest scalar losses read
# timer-disagrees on the H100).
from hrworker import vocab  # noqa: E402
from hrworker.remote import CandidateProcess  # noqa: E402


def ways(cuda, mode):
    tm = Timing.__new__(Timing)
    tm.torch, tm.cuda, tm.harness = torch, cuda, "current"
    tm.ctx = types.SimpleNamespace(mode=mode)
    tm.flush_bytes = lambda robust: (2 << 20) if robust else (1 << 20)
    return tm, tm.ways()


for mode in (vocab.MODE_FAITHFUL, vocab.MODE_ROBUST):
    tm, ws = ways(True, mode)
    check((2 << 20, True, COVER_CYCLES) in ws,
          "CUDA, %s: the audit's way, behind the cover, is calibrated (%s)" % (mode, ws))
    check(tm.audit_way()[2] == COVER_CYCLES,
          "CUDA, %s: the audit's calls ask for the cover the candidate's process gets "
          "unasked (%s)" % (mode, tm.audit_way()))
tm, ws = ways(False, vocab.MODE_FAITHFUL)
check(all(w[2] == 0 for w in ws), "CPU, faithful: no way with a cover (%s)" % ws)

# The clock's confirmation times its calls the way the last ones were,
# the cover too (a kb loop's calls have none).
proc = CandidateProcess.__new__(CandidateProcess)
asked = []
proc.walls = []
proc.time_one = lambda args, flush, sync_before, cycles, keep=None: \
    asked.append((flush, sync_before, cycles))
proc.clock_check = lambda first=0: None
for way in ((1 << 20, True, 0), (2 << 20, True, COVER_CYCLES)):
    asked.clear()
    proc.timed_as = way
    proc.confirm_clock([], n=4)
    check(asked and all(a == way for a in asked),
          "the confirmation re-times calls as %s (%s)" % (way, sorted(set(asked))))

# A way the calibration left out is told.
proc.cal = {(0, False, 0): {}}
proc.ways = [(0, False, 0), (2 << 20, True, COVER_CYCLES), None]
check(proc.uncalibrated() == [(2 << 20, True, COVER_CYCLES)],
      "a call timed a way not calibrated is named (%s)" % proc.uncalibrated())
