"""Sets the keeper draws itself (hrworker: InputSets.write_recipe, Keeper.draw).

When the run worker has a keeper and the workers have the rand library, a
build worker's draw ahead writes the problem's recipe (its code and seeds)
instead of drawing; the keeper draws the sets from it (ahead, when idle, or
when a job asks), holds them and lends them.  No set goes through a file.
The lent sets must be KernelBench's draws (the candidate recomputes them
with torch's own generator: values, and the stream across served and
unserved calls); a problem whose recipe is gone is dropped; a keeper-less
build worker, or one without the rand library, draws files as before.
On the CPU the keeper holds sets in shared memory; on CUDA (make
gpu-check) in device memory, drawn into pinned memory first."""
import os
import tempfile
import time

from workerlib import DEVICE, KB_DRAWS, ROOT, Worker, check

PROBLEM = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, a, b):
        return a[:4, :4] * 2 + b[:4]

def get_inputs():
    return [torch.rand(300, 300), torch.randn(4)]

def get_init_inputs():
    return []
'''

CANDIDATE = KB_DRAWS + '''
class ModelNew(nn.Module):
    def forward(self, a, b):
        state = torch.get_rng_state()
        ok = any(torch.equal(a.cpu(), x) and torch.equal(b.cpu(), y) for x, y in _kb_draws())
        torch.set_rng_state(state)
        return a[:4, :4] * 2 + b[:4] if ok else a[:4, :4]
'''

RAISES = PROBLEM.replace("return [torch.rand(300, 300), torch.randn(4)]",
                         "raise ValueError('no inputs today')")

lib = os.environ.get("HRR_LIB") or os.path.join(ROOT, "build", "libhrrand.so")
check(os.path.exists(lib), "the rand library is built (%s)" % lib)

shared = tempfile.TemporaryDirectory(prefix="hr-recipe-")
inputs = os.path.join(shared.name, "inputs")


def worker(mb, *extra):
    os.environ["HEADROOM_DEVICE_INPUTS_MB"] = mb
    return Worker("--inputs", inputs, "--rand-lib", lib, *extra)


def listing(key):
    return sorted(f for f in os.listdir(inputs) if f.startswith(key))


builder = worker("64")
runner = worker("64", "--keeper", "--take-inputs")

K1 = "aaaaaaaaaaaaaaaa"
_, res = builder.run(PROBLEM, CANDIDATE, stop_after="inputs", draw=True, inputs_key=K1)
pd = res["predraw"]
check(res["verdict"] == "drawn" and pd.get("recipe") is True and pd["drawn"] == 0 and
      pd["sets"] == 6 and listing(K1) == [K1 + "-recipe"],
      "a draw ahead writes the recipe and draws nothing: %s, %s" % (pd, listing(K1)))

# The keeper draws ahead while idle (0.25 s ticks): all 6 before the job.
time.sleep(3.0)
sent = time.time()
_, res = runner.run(PROBLEM, CANDIDATE, harness="current", inputs_key=K1)
ic = res["checks"]["input_cache"]
drew = ic.get("keeper_drew", [])
check(res["verdict"] == "correct" and ic["device_held"] == 6 and ic["hits"] == 6 and
      len(drew) == 6 and all(e <= sent for _, e in drew),
      "the keeper drew all 6 sets ahead, before the job, and lent KernelBench's values: "
      "%s, %s" % (res["verdict"], ic), runner)
check(listing(K1) == [K1 + "-recipe"], "no set went through a file: %s" % listing(K1))

# A second job of the problem is lent the same sets (no new draw).
_, res = runner.run(PROBLEM, CANDIDATE, harness="current", inputs_key=K1)
ic2 = res["checks"]["input_cache"]
check(res["verdict"] == "correct" and ic2["device_held"] == 6 and
      sorted(ic2["keeper_drew"]) == sorted(drew),
      "the next job is lent the same draws: %s" % ic2)

# The problem is done: the orchestrator removes its files, those named
# "<key>-..." (replay.c, clean_inputs), the recipe among them; the keeper
# drops its sets; a job of it now draws its own.
for f in os.listdir(inputs):
    if f.startswith(K1 + "-"):
        os.unlink(os.path.join(inputs, f))
time.sleep(1.0)
_, res = runner.run(PROBLEM, CANDIDATE, harness="current", inputs_key=K1, input_cache_mb=0)
ic = res["checks"]["input_cache"]
check(res["verdict"] == "correct" and ic["device_held"] == 0 and "keeper_drew" not in ic,
      "with its recipe gone the sets are dropped; the job draws its own: %s" % ic, runner)

# A recipe written while the job asks: the keeper draws on request.
K2 = "bbbbbbbbbbbbbbbb"
builder.run(PROBLEM + "# two\n", CANDIDATE, stop_after="inputs", draw=True, inputs_key=K2)
_, res = runner.run(PROBLEM + "# two\n", CANDIDATE, harness="current", inputs_key=K2)
ic = res["checks"]["input_cache"]
check(res["verdict"] == "correct" and ic["device_held"] == 6 and len(ic["keeper_drew"]) == 6,
      "drawn by the keeper for the job: %s" % ic, runner)

# A problem whose get_inputs raises: the keeper draws nothing, says so, and
# the job gets the problem's own error.
K3 = "cccccccccccccccc"
_, res = builder.run(RAISES, CANDIDATE, stop_after="inputs", draw=True, inputs_key=K3)
check(res["verdict"] == "drawn" and res["predraw"].get("recipe") is True,
      "a draw ahead of a failing problem only writes its recipe: %s" % res["verdict"])
_, res = runner.run(RAISES, CANDIDATE, harness="current", inputs_key=K3)
check(res["verdict"] == "problem_error" and "no inputs today" in (res.get("error") or ""),
      "and its job says the problem's error: %s %s" % (res["verdict"], res.get("error")))
runner.close()
builder.close()

# Without the rand library, or without a keeper, a draw ahead draws files.
for extra, mb, what in (((), "64", "no rand library"), (("--rand-lib", lib), "0", "no keeper")):
    os.environ["HEADROOM_DEVICE_INPUTS_MB"] = mb
    w = Worker("--inputs", inputs, *extra)
    K = "dddddddddddddddd" if mb == "64" else "eeeeeeeeeeeeeeee"
    _, res = w.run(PROBLEM, CANDIDATE, stop_after="inputs", draw=True, inputs_key=K)
    check(res["predraw"]["drawn"] == 6 and "recipe" not in res["predraw"] and
          len([f for f in listing(K) if f.endswith(".pt")]) == 6,
          "%s: the build worker draws the 6 sets into files" % what)
    w.close()
shared.cleanup()
print("device:", DEVICE)

# The keeper draws in chunks (FastRand.between: it answers jobs between
# them): the chunked stream is torch.rand's, values and state, for sizes
# that end mid-chunk and on a chunk's end.
import sys  # noqa: E402
import torch  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker.keeper import Keeper  # noqa: E402
from hrworker.native import FastRand  # noqa: E402
fr = FastRand(lib, torch)
fr.CHUNK = 1000
calls = []
fr.between = lambda: calls.append(1)
for n in (70001, 72000):
    torch.manual_seed(7)
    want, want_state = torch.rand(n), torch.get_rng_state()
    torch.manual_seed(7)
    calls.clear()
    got = fr.fill((n,), n)
    check(got is not None and torch.equal(got, want) and
          torch.equal(torch.get_rng_state(), want_state) and len(calls) == (n - 1) // 1000,
          "a draw of %d elements in chunks of 1000 is torch.rand's (values, state), "
          "with %d pauses between them" % (n, len(calls)))

# Mid-draw (Keeper.poll) a job whose sets are all held is answered at once;
# one that names a set not held yet waits for the draw's end (deferred).
import json  # noqa: E402
import pickle  # noqa: E402
import socket  # noqa: E402
import types  # noqa: E402
import torch.multiprocessing  # noqa: E402,F401
with tempfile.TemporaryDirectory() as d:
    cfg = types.SimpleNamespace(device="cpu", take_inputs=False, inputs_dir=d, rand=None)
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    k = Keeper(cfg, torch, theirs, 1)
    k.cuda, k.budget = False, 1 << 20
    held = "%s-1.pt" % K1
    k.held[held] = {"inputs": [torch.zeros(3).share_memory_()], "rng": b"r", "bytes": 12,
                    "print": None, "last": 0, "info": {"how": "drawn"}}
    open(os.path.join(d, held), "w").close()     # its file: tidy keeps it

    def ask(names):
        a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        socket.send_fds(mine, [json.dumps({"sets": names}).encode()], [b.fileno()])
        b.close()
        a.settimeout(5)
        return a
    a = ask([held])
    k.poll()
    n = int.from_bytes(a.recv(8), "little")
    lent = pickle.loads(a.recv(n, socket.MSG_WAITALL))
    b = ask([held, "%s-2.pt" % K1])
    k.poll()
    check(list(lent) == [held] and len(k.deferred) == 1 and k.deferred[0][0][1].endswith("-2.pt"),
          "mid-draw: a job whose sets are held is lent them at once, one that needs "
          "another set waits for the draw (%s, %d deferred)" % (list(lent), len(k.deferred)))
    a.close()
    b.close()
    mine.close()
    theirs.close()
