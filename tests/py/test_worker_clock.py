"""The rule behind timer-disagrees and the calibration it goes by
(replay/hrworker/remote.py: calibration, clock_disagreement, RunDelay), on
readings written here and on the kernel's run-delay account of a real
process.

An honest call's judge-read time is its own time plus one handshake: two
wake-ups, a tenth of a millisecond on an idle host; on a loaded 2-core
host each may wait milliseconds for a CPU, which the kernel counts as the
threads' run delay.  The judge calibrates the handshake with calls of
nothing before candidate code runs; the rule must admit the loaded host
and still see a candidate that hides work from its own clock, on an idle
host and on a loaded one.

Plain script: one line per check, exits non-zero on any failure.
"""
import os
import random
import socket
import sys
import time
from types import SimpleNamespace

from workerlib import ROOT, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker.budget import AuditBudget  # noqa: E402
from hrworker.job import Job  # noqa: E402
from hrworker.remote import (GAP_SHARE, RemoteError, RunDelay, calibration,  # noqa: E402
                             clock_disagreement, gap_bounds)

RTT = 0.08      # the channel's round trip on an idle host, ms


def readings(n, own_ms, wait, hidden_ms=0.0, seed=1):
    """n timed calls of own_ms each by the candidate's clock; the judge's
    reading adds a handshake (two wake-ups) that waits wait(rng) ms for a
    CPU, and the work hidden from the candidate's clock."""
    rng = random.Random(seed)
    events, walls, delays = [], [], []
    for _ in range(n):
        e = own_ms * (1 + 0.05 * rng.random())
        d = wait(rng)
        events.append(e)
        delays.append(d)
        walls.append(e + hidden_ms + RTT + 0.04 * rng.random() + d)
    return walls, events, delays


def idle(rng):
    return 0.0


def loaded(rng):
    """A busy 2-core host: a wake-up after a CPU burst waits a time slice."""
    return 1.0 + 7.0 * rng.random()


def bounds(n, wait=idle):
    """The gap each of n calls is admitted: the calibration of 16 calls of
    nothing under wait."""
    cal = calibration(*readings(16, 0.0, wait, seed=7))
    return [cal["gap_bound_ms"]] * n


cal = calibration(*readings(16, 0.0, idle, seed=7))
check(RTT <= cal["overhead_ms"] < RTT + 0.04 and
      RTT + 0.13 < cal["gap_bound_ms"] < RTT + 0.04 + 0.16,
      "calibration: the overhead is the handshake's lower quartile, the bound its 90th "
      "percentile and a margin (%r)" % cal)
cal_loaded = calibration(*readings(16, 0.0, loaded, seed=7))
check(RTT <= cal_loaded["overhead_ms"] < RTT + 0.04 and
      cal_loaded["gap_bound_ms"] < RTT + 0.04 + 0.16 < 1.0 < cal_loaded["wall_ms_median"],
      "calibration on a loaded host: the run delay is taken off (%r)" % cal_loaded)

# An honest 0.05 ms call, idle host: no finding.
w, e, d = readings(40, 0.05, idle)
check(clock_disagreement(w, e, d, bounds(40)) is None, "an honest call on an idle host agrees")

# The same call on a loaded host: no finding once the run delay is taken
# off; the same readings without it disagree (the rule is not blind).
w, e, d = readings(40, 0.05, loaded)
check(clock_disagreement(w, e, d, bounds(40)) is None,
      "an honest call on a loaded host agrees, its run delay taken off")
rec = clock_disagreement(w, e, [0.0] * len(d), bounds(40))
check(rec is not None and rec["gap_over_bound_ms"] > 0,
      "the same readings without the run delay disagree")

# A candidate that hides 20 ms of each call from its clock: disagreement on
# an idle host and on a loaded one.
for name, wait in (("idle", idle), ("loaded", loaded)):
    w, e, d = readings(40, 0.05, wait, hidden_ms=20.0)
    rec = clock_disagreement(w, e, d, bounds(40))
    # over the larger of the bound and GAP_SHARE of the call's reading
    check(rec is not None and rec["gap_over_bound_ms"] > 20 * (1 - GAP_SHARE) - 1
          and rec["calls"] == 40,
          "20 ms hidden per call on the %s host: timer-disagrees with its evidence (%s)"
          % (name, rec and rec["gap_over_bound_ms"]))
    # The evidence holds every call's readings, to tell a hiccup of the
    # host (a few calls stretched) from a clock hidden from (every call).
    r = rec["readings"]
    check(r["judge_ms"] == [round(x, 6) for x in w] and r["own_ms"] == [round(x, 6) for x in e]
          and r["run_delay_ms"] == [round(x, 6) for x in d] and len(r["admitted_ms"]) == 40
          and len(rec["calm_index"]) == 10 and len(rec["excess_ms_calm"]) == 10
          and rec["gap_share"] == GAP_SHARE,
          "the %s host's evidence: every call's readings, the calm calls' indexes and excess"
          % name)

# 0.3 ms hidden of each call, on an idle host, and on a loaded one where
# the two threads' waits overlap (their sum, taken off, is twice what the
# handshake waited) and the hidden work waits too: the calmest calls still
# show it.
w, e, d = readings(40, 0.5, idle, hidden_ms=0.3)
check(clock_disagreement(w, e, d, bounds(40)) is not None,
      "0.3 ms hidden of each call on an idle host: timer-disagrees")
w, e, d = readings(40, 0.5, loaded, hidden_ms=0.3)
d = [2 * x for x in d]
d[:10] = [0.0] * 10
w[:10] = [x - 1.0 for x in w[:10]]
check(clock_disagreement(w, e, d, bounds(40)) is not None,
      "0.3 ms hidden of each call on a loaded host, waits counted twice: timer-disagrees")

# Hiding 4 ms of a 10 ms call on an idle host: disagreement.
w, e, d = readings(40, 6.0, idle, hidden_ms=4.0)
check(clock_disagreement(w, e, d, bounds(40)) is not None,
      "4 ms hidden of a 10 ms call on an idle host: timer-disagrees")

# On CUDA the judge's reading also spans the launch cover it asked for
# before the start event (0.5 ms of GPU spin); so did the calls of nothing
# it calibrated with: an honest 0.05 ms call agrees, work hidden beyond the
# cover is still seen.
COVER = 0.505
cw, ce, cd = readings(16, 0.0, idle, seed=7)
cover_bounds = [calibration([x + COVER for x in cw], ce, cd)["gap_bound_ms"]] * 40
w, e, d = readings(40, 0.05, idle)
w = [x + COVER for x in w]
check(clock_disagreement(w, e, d, cover_bounds) is None,
      "an honest call behind a 0.5 ms launch cover agrees, the cover calibrated")
check(clock_disagreement(w, e, d, bounds(40)) is not None,
      "the same readings against a calibration without the cover disagree")
w, e, d = readings(40, 0.05, idle, hidden_ms=2.0)
w = [x + COVER for x in w]
check(clock_disagreement(w, e, d, cover_bounds) is not None,
      "2 ms hidden behind the cover: timer-disagrees")

# A clock that says a call took longer than the judge saw.
w, e, d = readings(40, 1.0, idle)
e[3] = w[3] + 1.0
rec = clock_disagreement(w, e, d, bounds(40))
check(rec is not None and rec["calls_longer_than_judge_saw"] == 1,
      "a call longer by the candidate's clock than by the judge's disagrees")

# The bound admitted after the timed calls (CandidateProcess.recalibrate):
# it widens a way's calibrated bound, never narrows it; a way left out of
# the first calibration gets the largest one.
A, B = (0, False, 0), (1, True, 0)
check(gap_bounds({A: {"gap_bound_ms": 0.16}}, {A: {"gap_bound_ms": 0.30}}, [A, A]) == [0.30, 0.30],
      "a wider bound after the timed calls widens its way's")
check(gap_bounds({A: {"gap_bound_ms": 0.16}}, {A: {"gap_bound_ms": 0.05}}, [A]) == [0.16],
      "a narrower bound after the timed calls leaves its way's as calibrated")
check(gap_bounds({A: {"gap_bound_ms": 0.16}}, {}, [A, B]) == [0.16, 0.16],
      "a way left out of the calibration gets the largest bound")
# An honest 0.3 ms call whose handshake a busier host stretched by
# 0.25 ms after the first calibration (other processes took the caches):
# judged by the calm host's bound it is accused; the calls of nothing
# after the timed calls, stretched alike, admit it.
w, e, d = readings(40, 0.3, idle, hidden_ms=0.25)
calm = calibration(*readings(16, 0.0, idle, seed=7))
busy = calibration(*readings(16, 0.0, idle, hidden_ms=0.25, seed=8))
check(clock_disagreement(w, e, d, gap_bounds({A: calm}, {}, [A] * 40)) is not None,
      "a handshake stretched after the calibration outgrows its bound")
check(clock_disagreement(w, e, d, gap_bounds({A: calm}, {A: busy}, [A] * 40)) is None,
      "the same, its bound recalibrated after the timed calls: it agrees")
# A 20 ms hider does not slow the calls of nothing: still caught.
w, e, d = readings(40, 5.0, idle, hidden_ms=20.0)
check(clock_disagreement(w, e, d, gap_bounds({A: calm}, {A: calm}, [A] * 40)) is not None,
      "20 ms hidden a call, recalibrated on the same host: timer-disagrees")

# The evidence counts only where calls timed again disagree too
# (Job.confirm_clock over CandidateProcess.confirm_clock, stood in for by
# what its rule said of the calls timed again): a hiccup that stretched the
# calm calls of one stretch is kept as unconfirmed, no finding; a hider,
# whose calls timed again disagree as well, keeps the finding with both;
# a candidate that raises in the calls timed again keeps the first.
class Again:
    """Stands for remote.CandidateProcess: what clock_check said of the
    calls timed again (None: they agree), or the exception they raised."""

    def __init__(self, said):
        self.said = said

    def confirm_clock(self, args):
        if isinstance(self.said, Exception):
            raise self.said
        return self.said


def confirmed(said, budget=None):
    checks = {}
    job = SimpleNamespace(cand=Again(said), checks=checks,
                          ctx=SimpleNamespace(checks=checks, budget=budget or AuditBudget(None)),
                          sets=SimpleNamespace(fresh_inputs=lambda seed: []), seed=1)
    return Job.confirm_clock(job, {"gap_over_bound_ms": 0.4}), checks


w, e, d = readings(40, 5.0, idle)
honest_again = clock_disagreement(w, e, d, gap_bounds({A: calm}, {}, [A] * 40))
w, e, d = readings(40, 5.0, idle, hidden_ms=20.0)
hider_again = clock_disagreement(w, e, d, gap_bounds({A: calm}, {}, [A] * 40))
check(honest_again is None and hider_again is not None,
      "calls timed again: an honest call's agree, a hider's disagree")
rec, checks = confirmed(honest_again)
check(rec is None and checks["timing_channel"]["clock_disagreement_unconfirmed"]
      == {"gap_over_bound_ms": 0.4} and "timing" in checks["audit_seconds"],
      "a disagreement the calls timed again do not show: no finding, kept as unconfirmed")
rec, checks = confirmed(hider_again)
check(rec is not None and rec["confirmation"] is hider_again
      and "timing_channel" not in checks,
      "a disagreement the calls timed again show too: the finding, with both")
rec, _ = confirmed(RemoteError("RuntimeError: no"))
check(rec is not None and "error" in rec["confirmation"],
      "calls timed again that raise: the first evidence stands")
# An audit with no room left for the calls (1 s a call, 4 at least, a
# budget of 0.6 s): none is made, the disagreement stays unconfirmed and
# the step is cut (which verifies no speedup).
full = AuditBudget(1)
full.pair_s = 1.0
full.begin()
rec, checks = confirmed(RuntimeError("called"), full)
check(rec is None and checks["timing_channel"]["clock_disagreement_unconfirmed"]
      == {"gap_over_bound_ms": 0.4} and [c["step"] for c in full.cut] == ["clock_confirmation"],
      "no room in the audit's budget: no calls timed again, unconfirmed, the step cut (%r)"
      % full.cut)

# RunDelay on a real child: it counts the child's and this thread's waits
# for a CPU, and never time spent asleep.
a, b = socket.socketpair()
pid = os.fork()
if pid == 0:
    a.close()
    while b.recv(1) == b"s":
        time.sleep(0.05)
        b.send(b"r")
    os._exit(0)
b.close()
rd = RunDelay(pid)
check(rd.source == "schedstat", "RunDelay reads the kernel's account here (%s)" % rd.source)
d0 = rd.read()
a.send(b"s")
a.recv(1)
slept = (rd.read() - d0) / 1e6
check(0 <= slept < 25, "a 50 ms sleep is not run delay (%.3f ms counted)" % slept)
a.send(b"q")
os.waitpid(pid, 0)
rd.close()
rd = RunDelay(2 ** 22 + 12345)
check(rd.source.startswith("none:") and rd.read() == 0,
      "no such process: RunDelay counts nothing and says why")
