"""below-physical-floor's statistic (replay/hrworker/remote.py:
fastest_call) and its decision (hrworker/timing.py: Timing.floor), on
readings written here and on a real 64 MiB input against the copy
bandwidth measured on this host.

A timed call's reading by the judge is its work plus one handshake; a
hiccup of the host (a time slice to another process) only adds to it.  A
kernel that does no work reads one handshake; an honest one at least its
work.  The floor's statistic must see the first under the floor however
many of its calls a hiccup stretched, and never read the second shorter
than its work.

Plain script: one line per check, exits non-zero on any failure.
"""
import os
import random
import sys
from types import SimpleNamespace

from workerlib import ROOT, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
import torch  # noqa: E402
from hrworker import vocab  # noqa: E402
from hrworker.remote import CandidateProcess, calibration, fastest_call  # noqa: E402
from hrworker.timing import CPU_FLUSH_MAX, FLOOR_STATISTIC, Timing  # noqa: E402

WAY = (0, False, 0)


def handshakes(n, seed, lo=0.02, hi=0.12):
    """n handshakes (ms) of an idle host, each as long as lo .. hi."""
    rng = random.Random(seed)
    return [lo + (hi - lo) * rng.random() for _ in range(n)]


# The calibration: 16 calls of nothing, nothing waited for a CPU.
cal_walls = handshakes(16, 1)
cal = {WAY: calibration(cal_walls, [0.0] * 16, [0.0] * 16)}
check(cal[WAY]["least_ms"] == round(min(cal_walls), 6)
      and cal[WAY]["least_ms"] <= cal[WAY]["overhead_ms"],
      "calibration: the least handshake (%s) beside the lower quartile (%s)"
      % (cal[WAY]["least_ms"], cal[WAY]["overhead_ms"]))

# One call of nothing found the CPUs busy: the kernel added its thread's
# whole wait, the part before the call too, so its reading less its wait
# is below nothing.  The least handshake is the calm calls' least, not 0
# (with 0 the floor would read a call of no work as a handshake long); a
# calibration with fewer than four calm calls keeps the least of all.
busy_delays = [0.0] * 16
busy_delays[5] = cal_walls[5] + 3.0
calm_least = round(min(w for i, w in enumerate(cal_walls) if i != 5), 6)
got = calibration(cal_walls, [0.0] * 16, busy_delays)["least_ms"]
check(got == calm_least and got > 0,
      "calibration, one call of 16 waited past its reading: the least is the calm calls' "
      "(%s; with it taken: 0)" % got)
mostly_busy = [w * 0.5 for w in cal_walls]
mostly_busy[:3] = [0.0] * 3
got = calibration(cal_walls, [0.0] * 16, mostly_busy)["least_ms"]
check(got == round(min(w - d for w, d in zip(cal_walls, mostly_busy)), 6),
      "calibration, 3 calm calls of 16: the least of all, each less its wait (%s)" % got)

# Six calls of 16 waited (a 2-core host, its judge and candidate beside
# make's other tests): each less its wait read under every calm call, and
# the lower quartile of all sixteen lies under the calm least.  The
# resolution (how far a handshake may fall under that least) is the
# spread of the calm calls themselves, never below nothing: read as the
# lower quartile of all less the calm least (-0.1 ms), it made an honest
# flatten's view whose fastest call read 0.099 ms "below" a floor of
# 0.008 ms.
waited = [0.0] * 16
for i in range(6):
    waited[i] = cal_walls[i] + 0.1
mixed = calibration(cal_walls, [0.0] * 16, waited)
calm = sorted(cal_walls[6:])
proc = CandidateProcess.__new__(CandidateProcess)
proc.taken = {WAY: mixed}
check(mixed["overhead_ms"] < mixed["least_ms"]
      and mixed["spread_ms"] == round(calm[len(calm) // 4] - calm[0], 6)
      and proc.resolution_ms() == mixed["spread_ms"] >= 0,
      "calibration, 6 calls of 16 waited: the lower quartile of all (%s) under the calm least "
      "(%s); the resolution the calm calls' spread (%s)"
      % (mixed["overhead_ms"], mixed["least_ms"], proc.resolution_ms()))

# A call of no work, ten times; one of them stretched by a 200 ms hiccup.
nothing = handshakes(10, 2)
nothing[3] += 200.0
fast = fastest_call(nothing, [WAY] * 10, cal)
check(fast <= 0.12 and sum(nothing) / 10 > 20.0,
      "no work, one call stretched 200 ms: the fastest call reads %.3f ms, the mean %.3f"
      % (fast, sum(nothing) / 10))

# An honest call of 1.5 ms whose every handshake beat the calibration's
# lower quartile: its reading less the least handshake stays at its work,
# where its reading less the lower quartile (the figure) reads shorter.
work = 1.5
quick = [work + cal[WAY]["least_ms"] + 0.001 * i for i in range(10)]
fig = min(w - cal[WAY]["overhead_ms"] for w in quick)
check(fastest_call(quick, [WAY] * 10, cal) >= work and fig < work,
      "an honest call with quick handshakes: the fastest reads %.4f ms of its %.1f ms work "
      "(less the lower quartile: %.4f)" % (fastest_call(quick, [WAY] * 10, cal), work, fig))
check(fastest_call([0.5, 0.4], [(1, True, 0)] * 2, cal) == 0.4,
      "a way left out of the calibration: nothing taken off")
check(fastest_call([], [], cal) is None, "no timed call: no statistic")


def timing(llc=32 << 20):
    """A CPU job's Timing, as far as its floor goes."""
    res = {}
    ctx = SimpleNamespace(m={}, cfg=SimpleNamespace(llc_bytes=llc), torch=torch,
                          cuda=False, device="cpu", harness="current", seed=0,
                          checks={}, result=res, sync=lambda: None, mode=vocab.MODE_FAITHFUL)
    return Timing(ctx, None, None, None, None), res


x = torch.rand(4096, 4096)         # 64 MiB: the planted below-floor problem's CPU input
t, res = timing()
t.floor([x], fast, t.flush_bytes(False))
floor = t.checks["floor"]
check([f["id"] for f in res.get("findings", [])] == ["below-physical-floor"]
      and floor["statistic"] == FLOOR_STATISTIC and floor["candidate_ms"] == fast,
      "no work, one hiccup: below-physical-floor (%.3f ms under a floor of %.3f ms)"
      % (fast, floor["ms"]))
# The floor this host measured, against the mean the hiccup lifted: the
# statistic is what catches it here, not the host's bandwidth.
check(sum(nothing) / 10 > floor["ms"],
      "the mean of the same calls (%.3f ms) is above that floor" % (sum(nothing) / 10))

# The honest twin: work that reads and writes 64 MiB, its calls 40-60 ms,
# the fastest above the floor; no finding.
twin = [40.0 + 20.0 * r + h for r, h in zip(handshakes(10, 3, 0, 1), handshakes(10, 4))]
t, res = timing()
t.floor([x], fastest_call(twin, [WAY] * 10, cal), 32 << 20)
check(not res.get("findings") and t.checks["floor"]["candidate_ms"] >= 40.0,
      "the honest twin (fastest %.3f ms, floor %.3f ms): no finding"
      % (t.checks["floor"]["candidate_ms"], t.checks["floor"]["ms"]))

# A cache larger than the CPU's flush (CPU_FLUSH_MAX) but smaller than the
# bandwidth copy's two buffers (60 MiB): what the flush left of it may hold
# part of the 64 MiB input, read for free, and only the rest counts.  A
# cache that holds the copy's buffers (480 MiB): the bandwidth was measured
# in it, no byte is free; so where the flush covers the cache (16 MiB).
floors = {}
for llc in (60 << 20, 480 << 20, 16 << 20):
    t, res = timing(llc=llc)
    t.floor([x], fast, t.flush_bytes(False))
    floors[llc >> 20] = t.checks["floor"]
    check([f["id"] for f in res.get("findings", [])] == ["below-physical-floor"],
          "a %d MiB cache: caught (%s)" % (llc >> 20, t.checks["floor"]))
check(floors[60]["cache_bytes"] == (60 << 20) - CPU_FLUSH_MAX and floors[480]["cache_bytes"] == 0
      and floors[16]["cache_bytes"] == 0,
      "the bytes taken as cached: %d MiB of a 60 MiB cache after a %d MiB flush, none of a "
      "480 MiB or a 16 MiB one" % (floors[60]["cache_bytes"] >> 20, CPU_FLUSH_MAX >> 20))
