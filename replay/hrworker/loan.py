"""hrworker/loan.py - a job's side of the keeper: the names of the inputs
directory's files (sets, recipes) and borrowing a problem's sets over the
keeper's socket."""
import contextlib
import json
import re
import socket
import sys
import time

from hrworker.util import Laps, exc_text


SET_NAME = re.compile(r"^[0-9a-f]{16}-[0-9]+\.pt$")

RECIPE_NAME = re.compile(r"^[0-9a-f]{16}-recipe$")


def read_recipe(path):
    """A recipe file (InputSets.write_recipe): {"problem_code", "problem_file",
    "seeds"}, or None when there is none or it is not one."""
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError):
        return None
    if (not isinstance(r, dict) or not isinstance(r.get("problem_code"), str) or
            not isinstance(r.get("seeds"), list) or
            not all(type(x) is int and x >= 0 for x in r["seeds"])):
        return None
    return r


def recv_exact(sock, n):
    """n bytes from sock, or None when it closes first."""
    data = bytearray()
    while len(data) < n:
        b = sock.recv(min(n - len(data), 1 << 20))
        if not b:
            return None
        data += b
    return bytes(data)


def borrow(cfg, torch, names, secs, timeout=300):
    """A job asks the keeper for the sets in files names: {name: (inputs,
    rng state bytes)} for those it holds, {} when there is no keeper or it
    does not answer.  secs gets where the time went: "context" (the job's
    CUDA context, made meanwhile), "answer" (the rest of the wait for the
    keeper's answer), "open" (unpacking it: CUDA IPC opens)."""
    if cfg.keeper is None or not names:
        return {}
    import pickle
    import torch.multiprocessing  # noqa: F401  the reductions that unpickle lent sets
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        socket.send_fds(cfg.keeper, [json.dumps({"sets": names}).encode()], [theirs.fileno()])
        theirs.close()
        took = {}
        laps = Laps(took)
        if cfg.device.startswith("cuda"):
            # The job's CUDA context (0.23 s, the median on the H200), made
            # while the keeper checks the sets the last job gave back and
            # packs the answer.
            torch.zeros(1, device=cfg.device)
        laps.lap("context")
        mine.settimeout(timeout)
        head = recv_exact(mine, 8)
        data = head and recv_exact(mine, int.from_bytes(head, "little"))
        laps.lap("answer")
        if data is None:
            mine.close()
            return {}
        out = pickle.loads(data)
        laps.lap("open")
        secs.update(took)
        cfg.keeper_conn = mine      # closed when the job ends: the keeper then checks
        return out
    except (OSError, ValueError, EOFError, RuntimeError) as e:
        sys.stderr.write("headroom worker: keeper: %s\n" % exc_text(e))
        mine.close()
        return {}


def hush_channel(cfg):
    """A job's channel to hold the keeper's draws ahead (keeper_quiet),
    opened while the job may still talk to the keeper (before candidate
    code runs): a connection of its own, closed when the job ends.  None
    without a keeper."""
    if cfg.keeper is None:
        return None
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        socket.send_fds(cfg.keeper, [json.dumps({"hush": True}).encode()], [theirs.fileno()])
        return mine
    except OSError as e:
        sys.stderr.write("headroom worker: keeper: %s\n" % exc_text(e))
        mine.close()
        return None
    finally:
        theirs.close()


@contextlib.contextmanager
def keeper_quiet(channel, checks, key, timeout=30):
    """While held, the keeper draws and loads no set ahead (Keeper.serve):
    the job's timed calls have the device to themselves, as in the
    original harness.  Entered once the keeper answers: between a draw's
    chunks (Keeper.poll), the draw ahead then waiting, or after a load or a
    draw a job asked for; at most timeout s, which the job's phase limit
    counts.  checks[key] gets the wait ("waited_s", and an "error" where
    the keeper did not answer).  channel: hush_channel's; None: nothing to
    hold."""
    if channel is None:
        yield
        return
    rec = checks[key] = {}
    t0 = time.monotonic()
    try:
        channel.settimeout(timeout)
        channel.sendall(b"1")
        if channel.recv(1) != b"q":
            rec["error"] = "the keeper closed the connection"
    except OSError as e:
        rec["error"] = exc_text(e)[:200]
    rec["waited_s"] = round(time.monotonic() - t0, 4)
    try:
        yield
    finally:
        try:
            channel.sendall(b"0")
        except OSError:
            pass
