"""The keeper: a worker's second child holds the inputs directory's sets
(in shared memory here on the CPU, in device memory on CUDA) and lends them
to its jobs.  A lent set gives KernelBench's values and RNG state; a set a
job writes into is dropped and reloaded from its file; a set whose file is
gone is not lent; the budget ($HEADROOM_DEVICE_INPUTS_MB) bounds what is
held; without a keeper every job loads its files as before."""
import os
import signal
import tempfile
import time

import torch

from workerlib import DEVICE, ROOT, Worker, check, PROBLEM, KB_ONLY

torch.manual_seed(42)
SEEDS = [torch.randint(0, 2**32 - 1, (1,)).item() for _ in range(5)] + [42]
KEY = "00112233aabbccdd"

# Writes +1 into every shared-memory tensor it can find (the lent sets; its
# own inputs are clones, not shared), then answers as KB_ONLY does.
WRITES_LENT = KB_ONLY.replace("class ModelNew", '''
import gc

def _write_lent():
    for o in gc.get_objects():
        try:
            if isinstance(o, torch.Tensor) and o.is_shared():
                o.add_(1)
        except Exception:
            pass

class _Base''') + '''
class ModelNew(_Base):
    def forward(self, x, y):
        out = super().forward(x, y)
        _write_lent()
        return out
'''

BIG = PROBLEM.replace("torch.randn(4, 8), torch.rand(8)", "torch.randn(4, 65536), torch.rand(65536)")
BIG_NEW = '''
import torch
import torch.nn as nn

class ModelNew(nn.Module):
    def forward(self, x, y):
        return x * 2 + y
'''


def worker(inputs, mb, *extra):
    os.environ["HEADROOM_DEVICE_INPUTS_MB"] = mb
    return Worker("--inputs", inputs, "--keeper", *extra)


shared = tempfile.TemporaryDirectory(prefix="hr-keeper-")
inputs = os.path.join(shared.name, "inputs")
builder = worker(inputs, "0")
runner = worker(inputs, "64")

_, res = builder.run(PROBLEM, KB_ONLY, stop_after="inputs", draw=True, inputs_key=KEY)
check(res["verdict"] == "drawn" and res["predraw"]["drawn"] == 6, "6 sets drawn ahead")

_, res = runner.run(PROBLEM, KB_ONLY, harness="current", inputs_key=KEY)
ic = dict(res["checks"]["input_cache"])
loan = ic.pop("borrow_seconds", None)
check(res["verdict"] == "correct" and
      ic == {"sets": 6, "hits": 6, "drawn_late": 0, "device_held": 6, "fast_draws": 0} and
      isinstance(loan, dict) and set(loan) == {"context", "answer", "open"},
      "the keeper lends all 6 sets, with KernelBench's values: %s"
      % res["checks"].get("input_cache"))
quiet = [res["checks"].get(k) for k in ("keeper_quiet_calibration", "keeper_quiet")]
check(all(isinstance(q, dict) and "error" not in q and 0 <= q.get("waited_s", -1) < 60
          for q in quiet),
      "the job's calibration and timed calls hold the keeper's draws ahead, answered "
      "at once: %s" % quiet)

# The lent sets are the judge's: the candidate's process holds only its
# own inputs and outputs, so its writes reach no lent set and no next job.
# (On a CPU nothing of its own is shared memory and its verdict stands; on
# CUDA torch calls every device tensor shared, its own output included,
# which it then spoils.)
_, res = runner.run(PROBLEM, WRITES_LENT, harness="current", inputs_key=KEY)
check(res["checks"]["input_cache"]["device_held"] == 6 and
      res["verdict"] == ("correct" if DEVICE == "cpu" else "incorrect"),
      "a candidate's writes reach no lent set (they are in the judge's process): %s %s"
      % (res["verdict"], [(t.get("pass"), t.get("max_abs_err"))
                          for t in res["checks"].get("trials", [])]))
_, res = runner.run(PROBLEM, KB_ONLY, harness="current", inputs_key=KEY)
check(res["verdict"] == "correct" and res["checks"]["input_cache"]["device_held"] == 6,
      "the written sets are dropped and lent again from their files: the next job "
      "sees KernelBench's values (%s)" % res["verdict"])

for s in SEEDS:
    os.unlink(os.path.join(inputs, "%s-%d.pt" % (KEY, s)))
_, res = runner.run(PROBLEM, KB_ONLY, harness="current", inputs_key=KEY,
                    input_cache_mb=0)
check(res["verdict"] == "correct" and res["checks"]["input_cache"]["device_held"] == 0 and
      res["checks"]["input_cache"]["hits"] == 0,
      "a set whose file is gone is not lent: %s" % res["checks"]["input_cache"])

# A keeper that dies is started again before the next job.
builder.run(PROBLEM, KB_ONLY, stop_after="inputs", draw=True, inputs_key=KEY)
old_pid = runner.hello["keeper_pid"]
os.kill(old_pid, signal.SIGKILL)
state = "?"
for _ in range(600):     # dead (a zombie until its worker looks), not dying:
    try:                 # a CUDA process's teardown can take a while
        with open("/proc/%d/stat" % old_pid) as f:
            state = f.read().split(")")[-1].split()[0]
    except OSError:
        state = "gone"
    if state in ("Z", "gone"):
        break
    time.sleep(0.05)
_, res = runner.run(PROBLEM, KB_ONLY, harness="current", inputs_key=KEY)
check(res["verdict"] == "correct" and res["checks"]["input_cache"]["device_held"] == 6,
      "after the keeper is killed (state %s), the next job is lent its sets by a new one: %s"
      % (state, res["checks"]["input_cache"]), runner)
runner.close()

# The budget: 6 sets of 1.25 MiB, 4 MiB held, the rest loaded from files.
small = worker(inputs, "4")
KB = "4444444444444444"
_, res = builder.run(BIG, BIG_NEW, stop_after="inputs", draw=True, inputs_key=KB)
_, res = small.run(BIG, BIG_NEW, harness="current", inputs_key=KB)
check(res["verdict"] == "correct" and res["checks"]["input_cache"]["hits"] == 6 and
      res["checks"]["input_cache"]["device_held"] == 3,
      "within the budget 3 sets are held, the other 3 loaded: %s"
      % res["checks"]["input_cache"])
small.close()

for mb, what in (("0", "HEADROOM_DEVICE_INPUTS_MB=0"), ("lots", "a value that is no number")):
    w = worker(inputs, mb)
    _, res = w.run(BIG, BIG_NEW, harness="current", inputs_key=KB)
    check(res["verdict"] == "correct" and res["checks"]["input_cache"]["device_held"] == 0 and
          res["checks"]["input_cache"]["hits"] == 6,
          "%s: no keeper, every set loaded from its file" % what)
    w.close()
# --take-inputs (the run's only GPU worker): a held set's file is removed,
# and the next job of the problem is lent it all the same.
taker = worker(inputs, "64", "--take-inputs")
K3 = "0123456789abcdef"
builder.run(PROBLEM, KB_ONLY, stop_after="inputs", draw=True, inputs_key=K3)
_, res = taker.run(PROBLEM, KB_ONLY, harness="current", inputs_key=K3)
left = sorted(f for f in os.listdir(inputs) if f.startswith(K3))
check(res["verdict"] == "correct" and res["checks"]["input_cache"]["device_held"] == 6 and
      left == sorted("%s-%d.pt.held" % (K3, s) for s in SEEDS),
      "with --take-inputs the 6 sets are lent and their files removed, a marker left: "
      "%s, %s" % (res["checks"]["input_cache"], left))
_, res = builder.run(PROBLEM, KB_ONLY, stop_after="inputs", draw=True, inputs_key=K3)
check(res["predraw"]["present"] == 6 and res["predraw"]["drawn"] == 0,
      "a draw ahead does not draw again what the keeper holds: %s" % res["predraw"])
_, res = taker.run(PROBLEM, KB_ONLY, harness="current", inputs_key=K3)
check(res["verdict"] == "correct" and
      {k: v for k, v in res["checks"]["input_cache"].items() if k != "borrow_seconds"} ==
      {"sets": 6, "hits": 6, "drawn_late": 0, "device_held": 6, "fast_draws": 0},
      "and lent again to the next job: %s" % res["checks"]["input_cache"])
# Another problem's sets need the room (budget 4 MiB, 1.25 MiB a set).
# The first problem's sets are taken (their files gone, markers there): its
# later jobs need them, so they stay, and the second problem's job loads
# from its files what does not fit.  Once the first problem is done (the
# orchestrator removes its markers), the keeper drops its sets and the
# second's next job is lent its own.
taker.close()
for f in os.listdir(inputs):   # the problems above are done
    os.unlink(os.path.join(inputs, f))
taker = worker(inputs, "4", "--take-inputs")
K4, K5 = "1111111111111111", "2222222222222222"
builder.run(BIG, BIG_NEW, stop_after="inputs", draw=True, inputs_key=K4)
_, res = taker.run(BIG, BIG_NEW, harness="current", inputs_key=K4)
first = res["checks"]["input_cache"]
builder.run(BIG + "# other\n", BIG_NEW, stop_after="inputs", draw=True, inputs_key=K5)
_, res = taker.run(BIG + "# other\n", BIG_NEW, harness="current", inputs_key=K5)
second = res["checks"]["input_cache"]
marks = sorted(f for f in os.listdir(inputs) if f.startswith(K4) and f.endswith(".held"))
check(res["verdict"] == "correct" and first["device_held"] == 3 and
      second["device_held"] == 0 and second["hits"] == 6 and len(marks) == 3,
      "a second problem's job does not take the room of the first's taken sets, it "
      "loads its files: %s, %s, markers %s" % (first, second, marks))
_, res = taker.run(BIG, BIG_NEW, harness="current", inputs_key=K4)
check(res["verdict"] == "correct" and res["checks"]["input_cache"]["device_held"] == 3,
      "and the first problem's next job is lent its 3 sets all the same: %s"
      % res["checks"]["input_cache"])
for f in marks:          # the first problem is done
    os.unlink(os.path.join(inputs, f))
for f in os.listdir(inputs):
    if f.startswith(K4):
        os.unlink(os.path.join(inputs, f))
time.sleep(1.0)          # the keeper's idle ticks: drop, then take the second's files
_, res = taker.run(BIG + "# other\n", BIG_NEW, harness="current", inputs_key=K5)
check(res["verdict"] == "correct" and res["checks"]["input_cache"]["device_held"] == 3 and
      res["checks"]["input_cache"]["hits"] == 6,
      "once the first problem's markers are gone, the second's job is lent its sets: %s"
      % res["checks"]["input_cache"], taker)
taker.close()
builder.close()
shared.cleanup()

# The keeper's room (Keeper.room): its budget, less where a large problem's
# jobs would not be left their footprint -- on an 80 GiB device, sets of
# 6 GiB are held at most 18 GiB at a time (80 - 10 x 6 - 2), small ones up
# to the budget; sets too large for any room are not held at all.
import sys  # noqa: E402
import types  # noqa: E402
sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker.keeper import FOOTPRINT_SETS, FOOTPRINT_SLACK, Keeper  # noqa: E402
k = Keeper(types.SimpleNamespace(device="cpu", take_inputs=False), torch, None, 0)
GiB = 1 << 30
k.total, k.budget = 80 * GiB, 36 * GiB
check(FOOTPRINT_SETS == 10 and FOOTPRINT_SLACK == 2 * GiB and k.room(6 * GiB) == 18 * GiB,
      "room: 6 GiB sets on an 80 GiB device: 18 GiB (%.1f)" % (k.room(6 * GiB) / GiB))
check(k.room(64 << 20) == 36 * GiB, "room: 64 MiB sets: the budget (%.1f)" % (k.room(64 << 20) / GiB))
k.held["a"] = {"bytes": 6 * GiB}
check(k.room(64 << 20) == 18 * GiB,
      "room: a small set beside a held 6 GiB one: the large one's jobs' room (%.1f)"
      % (k.room(64 << 20) / GiB))
check(k.room(8 * GiB) == 0, "room: 8 GiB sets on an 80 GiB device: none held")
k.total = 0
check(k.room(12 * GiB) == 36 * GiB, "room: no device size known (the CPU): the budget")

# While a job times its calls (loan.keeper_quiet over its hush channel:
# Keeper.hush), an idle tick draws and loads nothing ahead, whatever
# recipes and files wait; once it says 0, or its channel closes, it does.
import socket  # noqa: E402
with tempfile.TemporaryDirectory() as d:
    k = Keeper(types.SimpleNamespace(device="cpu", take_inputs=False, inputs_dir=d), torch, None, 0)
    k.cuda = False
    tried = []
    k.prefetch_drawn = lambda names: tried.append(names) or False
    a, b = socket.socketpair()
    k.hushers.add(a)
    b.sendall(b"1")
    k.hush(a)
    check(a in k.quiet and b.recv(1) == b"q" and k.tidy(True) is False and tried == [],
          "hushed: the job is told at once, and an idle tick draws nothing ahead")
    b.sendall(b"0")
    k.hush(a)
    k.tidy(True)
    check(len(tried) == 1, "the job's timed calls over: an idle tick draws ahead again")
    b.sendall(b"1")
    k.hush(a)
    b.close()
    k.hush(a)
    check(not k.quiet and not k.hushers and k.tidy(True) is False and len(tried) == 2,
          "a job gone while hushed (its channel closed): the keeper draws ahead again")

    # Mid-draw (Keeper.poll, between a draw's chunks): a job about to time
    # is answered at once, and a draw ahead waits until the job says 0; a
    # draw a job asked for (not ahead) does not wait.
    import threading  # noqa: E402
    k.sock, _worker_end = socket.socketpair()
    a, b = socket.socketpair()
    k.hushers.add(a)
    k.ahead = True
    b.sendall(b"1")
    answered = []
    threading.Timer(0.05, lambda: answered.append(b.recv(1))).start()
    threading.Timer(0.6, lambda: b.sendall(b"0")).start()
    t0 = time.monotonic()
    k.poll()
    waited = time.monotonic() - t0
    check(answered == [b"q"] and 0.5 < waited < 5 and not k.quiet,
          "a draw ahead waits between its chunks while a job times, the job told at once "
          "(%r, the draw waited %.2f s)" % (answered, waited))
    k.ahead = False
    b.sendall(b"1")
    t0 = time.monotonic()
    k.poll()
    check(a in k.quiet and b.recv(1) == b"q" and time.monotonic() - t0 < 0.2,
          "a draw a job asked for goes on while another job times")
    b.close()
    _worker_end.close()

# On CUDA, a large set goes to the device through the keeper's two pinned
# buffers (Keeper.to_device): every byte arrives, for sizes that end
# mid-chunk, in a file's mapping as the keeper loads it, and dtypes of 1
# and 8 bytes; small ones take .to().
if DEVICE == "cuda":
    k = Keeper(types.SimpleNamespace(device="cuda", take_inputs=False), torch, None, 0)
    k.cuda, k.device = True, torch.device("cuda")
    stage = Keeper.STAGE
    with tempfile.TemporaryDirectory() as d:
        torch.save({"x": torch.rand(3 * stage // 4 + 1001)}, os.path.join(d, "s.pt"))
        mapped = torch.load(os.path.join(d, "s.pt"), mmap=True, weights_only=True)["x"]
        cases = [mapped, torch.rand(stage // 8), torch.randint(0, 2, (2 * stage + 7,)).bool(),
                 torch.randint(-2**62, 2**62, (stage // 4 + 3,), dtype=torch.int64).view(-1, 1)]
        for x in cases:
            y = k.to_device(x)
            check(y.is_cuda and y.dtype == x.dtype and y.shape == x.shape and torch.equal(y.cpu(), x),
                  "to_device: %s %s arrives whole" % (x.dtype, tuple(x.shape)))
        del mapped, cases
