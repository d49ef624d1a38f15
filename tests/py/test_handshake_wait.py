"""The timed handshake's waits (hrworker/channel.py: spin_wait,
await_readable, one write a frame) and its stamps (remote.stamps), on a
CPU.  On a GPU host the judge spins for each done and the candidate
process for each go (tests/bench/timing_bias.py measures what it changes);
on a CPU neither does, as the candidate's threads need every CPU.

Plain script: one line per check, exits non-zero on any failure.
"""
import os
import sys
import threading
import time

from workerlib import ROOT, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker import channel  # noqa: E402
from hrworker.remote import stamps  # noqa: E402

os.environ.pop("HEADROOM_HANDSHAKE_SPIN", None)
check(not channel.spin_wait(False), "a CPU job's handshake never spins")
many = len(os.sched_getaffinity(0)) >= channel.SPIN_MIN_CPUS
check(channel.spin_wait(True) == many,
      "a GPU job's spins where the host has %d CPUs or more (%d here)"
      % (channel.SPIN_MIN_CPUS, len(os.sched_getaffinity(0))))
os.environ["HEADROOM_HANDSHAKE_SPIN"] = "1"
check(channel.spin_wait(False), "HEADROOM_HANDSHAKE_SPIN=1 spins")
os.environ["HEADROOM_HANDSHAKE_SPIN"] = "0"
check(not channel.spin_wait(True), "HEADROOM_HANDSHAKE_SPIN=0 does not")
os.environ["HEADROOM_HANDSHAKE_SPIN"] = "yes"
check(channel.spin_wait(True) == many, "any other value: the rule")
os.environ.pop("HEADROOM_HANDSHAKE_SPIN")

# await_readable: back as soon as a byte waits, else after its limit; the
# frame then read whole, as without it.
a, b = channel.pair()
judge, cand = channel.JudgeEnd(a), channel.CandidateEnd(b)
t0 = time.monotonic()
channel.await_readable(channel.readable(a), 0.2)
waited = time.monotonic() - t0
check(0.19 <= waited < 2.0, "nothing to read: back after its limit (%.3f s of 0.2)" % waited)
threading.Timer(0.05, lambda: cand.send({"t": "done", "ms": 1.5})).start()
t0 = time.monotonic()
rep = judge.recv(5.0)
waited = time.monotonic() - t0
check(rep == {"t": "done", "ms": 1.5} and waited < 1.0,
      "a reply 50 ms on: read whole once it came (%.3f s, %r)" % (waited, rep))


class Counting:
    """A socket that counts its writes (sendall)."""

    def __init__(self, sock):
        self.sock, self.writes = sock, 0

    def sendall(self, data):
        self.writes += 1
        return self.sock.sendall(data)


c = Counting(b)
channel._send(c, b'{"t": "done"}')
check(c.writes == 1, "a frame without descriptors is one write (%d)" % c.writes)
check(judge.recv() == {"t": "done"}, "and reads as one frame")
r, w = os.pipe()
judge.send({"op": "go"}, [r])
req, fds = cand.recv(0.5)
check(req == {"op": "go"} and len(fds) == 1, "a request with a descriptor: both arrive (%r)"
      % (req,))
for fd in fds + [r, w]:
    os.close(fd)
a.close()
t0 = time.monotonic()
channel.await_readable(channel.readable(b), 1.0)
check(time.monotonic() - t0 < 0.5, "the other end closed: back at once (%.3f s)"
      % (time.monotonic() - t0))
b.close()

# The stamps: the candidate's word, integers only.
s = stamps({"go": 10, "done": 30, "extra": "x" * 100}, 5, 40, (1, True, 2), 0.01)
check(s == {"way": [1, True, 2], "t0": 5, "t1": 40, "go": 10, "done": 30, "own_ms": 0.01},
      "stamps keep the judge's clock, the candidate's go and done, nothing else (%r)" % (s,))
s = stamps({"go": "10", "done": 1.5}, 5, 40, None, 0.0)
check(s["go"] is None and s["done"] is None and s["way"] is None,
      "a stamp not an integer is none; a call of nothing has no way (%r)" % (s,))
check(stamps("junk", 1, 2, None, 0.0)["go"] is None, "stamps that are no object: none")
