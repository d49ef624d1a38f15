"""hrworker/loan.py - a job's side of the keeper: the names of the inputs
directory's files (sets, recipes) and borrowing a problem's sets over the
keeper's socket."""
import json
import re
import socket
import sys

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
