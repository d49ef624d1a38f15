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
import socket
import struct
from collections.abc import Iterable

from hrworker.protocol import CandidateHello, Reply, Request

HEAD = struct.Struct("<Q")
MAX_REPLY = 64 << 20        # a reply larger than this is the candidate's doing
MAX_FDS = 64


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
    else:
        sock.sendall(head)
    sock.sendall(body)


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

    def send(self, obj: Request, fds: Iterable[int] = ()) -> None:
        _send(self.sock, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL), fds)

    def recv(self) -> Reply:
        """One reply: a JSON object (dict), else ChannelError.  It waits as
        long as it takes: the orchestrator's job deadline kills the job."""
        try:
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

    def recv(self) -> tuple[Request, list[int]]:
        n, fds = _recv_head(self.sock, True)
        return pickle.loads(_recv_exact(self.sock, n, 1 << 40)), fds

    def send(self, obj: Reply | CandidateHello) -> None:
        _send(self.sock, (json.dumps(obj, allow_nan=False, default=str)).encode())
