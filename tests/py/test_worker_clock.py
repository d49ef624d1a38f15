"""The rule behind timer-disagrees (replay/hrworker/remote.py:
clock_disagreement and RunDelay), on readings written here and on the
kernel's run-delay account of a real process.

An honest call's judge-read time is its own time plus one handshake: two
wake-ups, a tenth of a millisecond on an idle host; on a loaded 2-core
host each may wait milliseconds for a CPU, which the kernel counts as the
threads' run delay.  The rule must admit the loaded host and still see a
candidate that hides work from its own clock, on an idle host and on a
loaded one.

Plain script: one line per check, exits non-zero on any failure.
"""
import os
import random
import socket
import sys
import time

from workerlib import ROOT, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker.remote import RunDelay, clock_disagreement  # noqa: E402

RTT = 0.08      # the channel's least round trip, ms


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


# An honest 0.05 ms call, idle host: no finding.
w, e, d = readings(40, 0.05, idle)
check(clock_disagreement(w, e, d, RTT) is None, "an honest call on an idle host agrees")

# The same call on a loaded host: no finding once the run delay is taken
# off; the same readings without it disagree (the rule is not blind).
w, e, d = readings(40, 0.05, loaded)
check(clock_disagreement(w, e, d, RTT) is None,
      "an honest call on a loaded host agrees, its run delay taken off")
rec = clock_disagreement(w, e, [0.0] * len(d), RTT)
check(rec is not None and rec["gap_ms_q1"] > rec["gap_bound_ms"],
      "the same readings without the run delay disagree")

# A candidate that hides 20 ms of each call from its clock: disagreement on
# an idle host and on a loaded one.
for name, wait in (("idle", idle), ("loaded", loaded)):
    w, e, d = readings(40, 0.05, wait, hidden_ms=20.0)
    rec = clock_disagreement(w, e, d, RTT)
    check(rec is not None and rec["gap_ms_q1"] > 19 and rec["calls"] == 40,
          "20 ms hidden per call on the %s host: timer-disagrees with its evidence" % name)

# Hiding 4 ms of a 10 ms call on an idle host: disagreement.
w, e, d = readings(40, 6.0, idle, hidden_ms=4.0)
check(clock_disagreement(w, e, d, RTT) is not None,
      "4 ms hidden of a 10 ms call on an idle host: timer-disagrees")

# On CUDA the judge's reading also spans the launch cover it asked for
# before the start event (0.5 ms of GPU spin): taken off, an honest 0.05 ms
# call agrees; the same readings without it disagree; work hidden beyond
# the cover is still seen.
COVER = 0.505
w, e, d = readings(40, 0.05, idle)
w = [x + COVER for x in w]
check(clock_disagreement(w, e, d, RTT, [COVER] * len(w)) is None,
      "an honest call behind a 0.5 ms launch cover agrees, the cover taken off")
check(clock_disagreement(w, e, d, RTT) is not None,
      "the same readings without the cover taken off disagree")
w, e, d = readings(40, 0.05, idle, hidden_ms=2.0)
w = [x + COVER for x in w]
check(clock_disagreement(w, e, d, RTT, [COVER] * len(w)) is not None,
      "2 ms hidden behind the cover: timer-disagrees")

# A clock that says a call took longer than the judge saw.
w, e, d = readings(40, 1.0, idle)
e[3] = w[3] + 1.0
rec = clock_disagreement(w, e, d, RTT)
check(rec is not None and rec["calls_longer_than_judge_saw"] == 1,
      "a call longer by the candidate's clock than by the judge's disagrees")

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
