"""hrworker/channel.py - the one channel between a job's judge and its
candidate process: a Unix stream socket pair, length-prefixed frames.
Judge to candidate: pickled requests, with file descriptors beside them
(the memory of shared tensors).  Candidate to judge: JSON only, never
unpickled, each field checked by the judge (remote.py): whatever the
candidate process writes is data.
Must not: unpickle a frame from the candidate's side."""
import json
import os
import pickle
import select
import socket
import struct
import time
from collections.abc import Iterable

from hrworker.protocol import CandidateHello, Reply, Request

HEAD = struct.Struct("<Q")
MAX_REPLY = 64 << 20        # a reply larger than this is the candidate's doing
MAX_FDS = 64
# The timed handshake's waits spin (spin_wait) on a GPU host of at least
# SPIN_MIN_CPUS CPUs: the judge for done, up to SPIN_DONE_S, the candidate
# process for go, up to SPIN_GO_S; past that each blocks.  A process asleep
# through a call wakes later than one asleep through a call of nothing, and
# the calibration's calls of nothing cannot take that off: on the H100
# (16 CPUs, a virtual machine) a timed call's done reached the blocked
# judge 69-73 us after the candidate sent it, against 48-59 us after a
# call of nothing, and the reference's own 2048 matmul read 0.81x; in the
# same run, spinning, 0.93-0.95x (tests/bench/timing_bias.py).  The judge waits for
# its own calls of the reference spinning too (a CUDA synchronisation
# spins where the host has CPUs to spare).  On a CPU the candidate's
# threads need every CPU (spinning, a 256 matmul read 0.08x on 2 CPUs),
# and neither side spins.
SPIN_MIN_CPUS = 4
SPIN_DONE_S = 1.0
SPIN_GO_S = 0.05


def spin_wait(cuda: bool) -> bool:
    """Whether the timed handshake's waits spin here (SPIN_MIN_CPUS);
    HEADROOM_HANDSHAKE_SPIN=0 or 1 says so instead (timing_bias.py runs
    both)."""
    env = os.environ.get("HEADROOM_HANDSHAKE_SPIN", "")
    if env in ("0", "1"):
        return env == "1"
    return cuda and len(os.sched_getaffinity(0)) >= SPIN_MIN_CPUS


def stamps_on() -> bool:
    """HEADROOM_HANDSHAKE_STAMPS=1: each timed call's handshake carries the
    candidate process's perf_counter_ns at go received and done sent, kept
    beside the judge's own in checks.timing_channel.stamps (where a
    handshake's time goes: go, call, done; timing_bias.py prints them).
    The same clock in both processes (CLOCK_MONOTONIC); the candidate's
    stamps are its word and enter nothing."""
    return os.environ.get("HEADROOM_HANDSHAKE_STAMPS") == "1"


def readable(sock: socket.socket) -> "select.poll":
    """A poll object that says when sock has something to read: one per
    end, made once (await_readable runs on every timed call's wait)."""
    p = select.poll()
    p.register(sock, select.POLLIN)
    return p


def await_readable(p: "select.poll", limit_s: float) -> None:
    """Spin until p's socket (readable) has something to read (or its
    other end closed), at most limit_s seconds; the blocking read after it
    waits for the rest."""
    if limit_s <= 0:
        return
    end = time.perf_counter_ns() + int(limit_s * 1e9)
    while not p.poll(0):
        if time.perf_counter_ns() >= end:
            return


class ChannelError(Exception):
    """The other end closed, or sent what the protocol does not allow."""


class RemoteError(Exception):
    """The candidate's code raised: its text, as exc_text gave it there
    (an error reply; remote.CandidateProcess raises it)."""

    def __init__(self, text: str, op: str | None = None) -> None:
        super().__init__(text)
        self.remote_text, self.op = text, op


def pair() -> tuple[socket.socket, socket.socket]:
    """(judge's end, candidate's end), both blocking, close-on-exec."""
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)


def _send(sock: socket.socket, body: bytes, fds: Iterable[int] = ()) -> None:
    head = HEAD.pack(len(body))
    if fds:
        socket.send_fds(sock, [head], list(fds))
        sock.sendall(body)
    else:
        # One write where no descriptors go with the head: a timed call's
        # done is then one message for the judge's wait, not two.
        sock.sendall(head + body)


def _recv_exact(sock: socket.socket, n: int, limit: int) -> bytes:
    if n > limit:
        raise ChannelError("a frame of %d bytes (at most %d)" % (n, limit))
    data = bytearray()
    while len(data) < n:
        b = sock.recv(min(n - len(data), 1 << 20))
        if not b:
            raise ChannelError("the other end closed the channel")
        data += b
    return bytes(data)


def _recv_head(sock: socket.socket, want_fds: bool) -> tuple[int, list[int]]:
    """The 8-byte length, and the descriptors sent with its first byte."""
    fds: list[int] = []
    head = b""
    while len(head) < HEAD.size:
        if want_fds:
            b, got, _, _ = socket.recv_fds(sock, HEAD.size - len(head), MAX_FDS)
            fds += got
        else:
            b = sock.recv(HEAD.size - len(head))
        if not b:
            for fd in fds:
                os.close(fd)
            raise ChannelError("the other end closed the channel")
        head += b
    return HEAD.unpack(head)[0], fds


class JudgeEnd:
    """The judge's end: requests out (pickle, fds), replies in (JSON)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.poll = readable(sock)

    def send(self, obj: Request, fds: Iterable[int] = ()) -> None:
        _send(self.sock, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), fds)

    def recv(self, spin_s: float = 0.0) -> Reply:
        """One reply: a JSON object (dict), else ChannelError.  It waits as
        long as it takes (spinning the first spin_s seconds:
        await_readable): the orchestrator's job deadline kills the job."""
        try:
            await_readable(self.poll, spin_s)
            n, _ = _recv_head(self.sock, False)
            body = _recv_exact(self.sock, n, MAX_REPLY)
        except OSError as e:
            raise ChannelError(str(e))
        try:
            obj = json.loads(body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise ChannelError("a reply that is not JSON: %s" % e)
        if not isinstance(obj, dict) or not isinstance(obj.get("t"), str):
            raise ChannelError("a reply without its type")
        return obj

    def close(self) -> None:
        self.sock.close()


class CandidateEnd:
    """The candidate process's end: requests in (pickle: from the judge,
    who forked it), replies out (JSON)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.poll = readable(sock)

    def recv(self, spin_s: float = 0.0) -> tuple[Request, list[int]]:
        await_readable(self.poll, spin_s)
        n, fds = _recv_head(self.sock, True)
        return pickle.loads(_recv_exact(self.sock, n, 1 << 40)), fds

    def send(self, obj: Reply | CandidateHello) -> None:
        _send(self.sock, (json.dumps(obj, allow_nan=False, default=str)).encode())
