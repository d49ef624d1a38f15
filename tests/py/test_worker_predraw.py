"""Input sets drawn ahead: a build job with "draw" saves every input set of
its job into the run's shared inputs directory (--inputs) before any
candidate code runs, with KernelBench's values and the RNG state its draw
leaves; a run worker given the same directory then only loads them; no
candidate, in a build or a run worker, can write there."""
import os
import tempfile

import torch

from workerlib import Worker, check, PROBLEM, KB_ONLY

os.environ["HEADROOM_DEVICE_INPUTS_MB"] = "0"   # the keeper: test_worker_keeper.py

# Writes into the shared inputs directory (at import: the build phase; and
# in forward: the run), catching the refusal so the job goes on.
TAMPER = '''
import os

def _poison():
    for f in os.listdir(%(dir)r):
        try:
            with open(os.path.join(%(dir)r, f), "wb") as out:
                out.write(b"poison")
        except OSError:
            pass

_poison()

class ModelNew(nn.Module):
    def forward(self, x, y):
        _poison()
        return x * 2 + y
'''

# The same from C (libc's open through ctypes, which the audit hook does
# not see), in forward: truncates every set and creates a file beside them.
TAMPER_LIBC = '''
import ctypes
import os

def _poison():
    """Open each input file from C, to write and to read (no Python-level
    call the audit hook sees): True when any open succeeded."""
    libc = ctypes.CDLL(None, use_errno=True)
    got = False
    for f in %(names)r + ["planted.pt"]:
        path = os.path.join(%(dir)r, f).encode()
        for flags in (os.O_WRONLY | os.O_CREAT | os.O_TRUNC, os.O_RDONLY):
            fd = libc.open(path, flags, 0o644)
            if fd >= 0:
                got = True
                if flags != os.O_RDONLY:
                    libc.write(fd, b"poison", 6)
                libc.close(fd)
    return got

class ModelNew(nn.Module):
    def forward(self, x, y):
        return x if _poison() else x * 2 + y
'''

RAISES = "raise SystemExit('candidate code ran')\n"


def kb_draw(seed):
    """KernelBench: set_seed(seed); get_inputs() -- and the state it leaves."""
    ns = {}
    exec(PROBLEM, ns)
    torch.manual_seed(seed)
    inputs = ns["get_inputs"]()
    return inputs, torch.get_rng_state()


torch.manual_seed(42)
SEEDS = [torch.randint(0, 2**32 - 1, (1,)).item() for _ in range(5)] + [42]
KEY = "00112233aabbccdd"

shared = tempfile.TemporaryDirectory(prefix="hr-predraw-")
inputs = os.path.join(shared.name, "inputs")
builder = Worker("--inputs", inputs)
runner = Worker("--inputs", inputs)

msgs, res = builder.run(PROBLEM, KB_ONLY, stop_after="build", draw=True, inputs_key=KEY)
pre = res["build"].get("predraw", {})
order = [m["type"] if m["type"] != "phase" else m["phase"] for m in msgs]
lines = [m for m in msgs if m["type"] == "predraw"]
check(len(lines) == 1 and lines[0]["predraw"] == pre and
      order.index("predraw") < order.index("build"),
      "the draw's record is sent when the draw ends, before the build: %s" % order)
check(res["verdict"] == "built" and pre.get("sets") == 6 and pre.get("drawn") == 6 and
      pre.get("present") == 0 and pre.get("seconds") is not None,
      "a build job with draw saves the 6 input sets and records it: %s" % pre)
SET_BYTES = sum(x.numel() * x.element_size() for x in kb_draw(42)[0])
FILE_BYTES = max(os.path.getsize(os.path.join(inputs, "%s-%d.pt" % (KEY, sd))) for sd in SEEDS)
check(pre.get("set_bytes") == FILE_BYTES > SET_BYTES,
      "and the size of a set file, for the orchestrator's room rule: %s (tensors %d)"
      % (pre.get("set_bytes"), SET_BYTES))
check(sorted(os.listdir(inputs)) == sorted("%s-%d.pt" % (KEY, s) for s in SEEDS),
      "one file per seed, named inputs_key-seed, no temporary left")
same = True
for s in SEEDS:
    saved = torch.load(os.path.join(inputs, "%s-%d.pt" % (KEY, s)), weights_only=True)
    want, state = kb_draw(s)
    same = same and all(torch.equal(a, b) for a, b in zip(saved["inputs"], want)) and \
        len(saved["inputs"]) == len(want) and torch.equal(saved["rng"], state)
check(same, "the saved sets are KernelBench's draws, with the RNG state each draw left")

_, res = builder.run(PROBLEM, KB_ONLY, stop_after="build", inputs_key=KEY)
check(res["verdict"] == "built" and "predraw" not in res["build"],
      "a build job without draw draws nothing")

_, res = runner.run(PROBLEM, KB_ONLY, harness="current", inputs_key=KEY)
check(res["verdict"] == "correct" and
      res["checks"]["input_cache"] == {"sets": 6, "hits": 6, "drawn_late": 0,
                                       "device_held": 0, "fast_draws": 0},
      "the run worker loads every set drawn ahead: %s" % res["checks"].get("input_cache"))

# A set file that cannot be read (cut short) is drawn again in the job,
# with KernelBench's values, and saved over the bad file.
bad = os.path.join(inputs, "%s-%d.pt" % (KEY, 42))
with open(bad, "r+b") as f:
    f.truncate(40)
_, res = runner.run(PROBLEM, KB_ONLY, harness="current", inputs_key=KEY)
cache = res["checks"].get("input_cache", {})
check(res["verdict"] == "correct" and cache.get("hits") == 5 and os.path.getsize(bad) > 40,
      "a truncated set file is drawn again and saved anew: %s, %s"
      % (res["verdict"], cache or res.get("error")))

_, res = builder.run(PROBLEM, RAISES, stop_after="inputs", draw=True, inputs_key=KEY)
check(res["verdict"] == "drawn" and res["predraw"]["present"] == 6 and
      res["predraw"]["drawn"] == 0, "an inputs-only job skips the sets already there")
check(res["predraw"].get("set_bytes") == FILE_BYTES,
      "and records the largest file's size: %s" % res["predraw"].get("set_bytes"))

other = PROBLEM + "# another problem\n"
_, res = builder.run(other, RAISES, stop_after="inputs", draw=True)
check(res["verdict"] == "drawn" and res["predraw"]["drawn"] == 6,
      "an inputs-only job draws without running candidate code")
check(len(os.listdir(inputs)) == 12, "and keeps the other problem's files (the "
      "orchestrator removes them)")

# Sets another worker claimed (<set>.claim) are left to it: two build
# workers drawing one problem split its sets.
K2 = "2233445566778899"
for sd in SEEDS[:2]:
    open(os.path.join(inputs, "%s-%d.pt.claim" % (K2, sd)), "w").close()
_, res = builder.run(other + "# claimed\n", RAISES, stop_after="inputs", draw=True,
                     inputs_key=K2)
left = sorted(f for f in os.listdir(inputs) if f.startswith(K2))
check(res["predraw"]["drawn"] == 4 and res["predraw"]["claimed"] == 2 and
      left == sorted(["%s-%d.pt.claim" % (K2, sd) for sd in SEEDS[:2]] +
                     ["%s-%d.pt" % (K2, sd) for sd in SEEDS[2:]]),
      "a draw skips the sets another worker claimed and leaves no claim of its own: %s, %s"
      % (res["predraw"], left))
for sd in SEEDS[:2]:
    os.unlink(os.path.join(inputs, "%s-%d.pt.claim" % (K2, sd)))

_, res = builder.run(other + "#\n", KB_ONLY, stop_after="inputs", draw=True,
                     input_cache_mb=0)
check(res["predraw"]["drawn"] == 0 and res["predraw"]["stopped"] == "over input_cache_mb",
      "a set over input_cache_mb is not saved ahead")

before = {f: open(os.path.join(inputs, f), "rb").read() for f in os.listdir(inputs)}
tamper = TAMPER % {"dir": inputs}
_, res = builder.run(PROBLEM, tamper, stop_after="build", draw=True, inputs_key=KEY)
check(any(inputs in v["path"] for v in res["checks"].get("sandbox", [])),
      "a candidate's write to the shared inputs is refused in a build worker")
_, res = runner.run(PROBLEM, tamper, harness="current", inputs_key=KEY)
check(res["verdict"] == "runtime_error" and res["error_kind"] == "sandbox" and
      inputs in res["checks"]["sandbox"][0]["path"],
      "and in a run worker (verdict runtime_error, sandbox)")
after = {f: open(os.path.join(inputs, f), "rb").read() for f in os.listdir(inputs)}
check(before == after, "the input files are unchanged")

# Opens from C: the candidate process's Landlock rules (the inputs are
# neither readable nor writable there) refuse them where the kernel has
# Landlock.
_, res = runner.run(PROBLEM, TAMPER_LIBC % {"dir": inputs, "names": sorted(before)},
                    harness="current", inputs_key=KEY)
after = {f: open(os.path.join(inputs, f), "rb").read() for f in os.listdir(inputs)}
if runner.hello["fs_jail"].get("landlock_abi"):
    jail = (res and res["checks"].get("candidate_process") or {}).get("landlock") or {}
    check(isinstance(jail, dict) and jail.get("reads") == jail.get("writes") == "restricted",
          "the candidate process reads and writes under Landlock: %r" % jail)
    check(before == after and res["verdict"] == "correct",
          "a candidate's reads and writes from C of the inputs are refused, the files "
          "unchanged: %s" % res["verdict"])
else:
    print("skip: no Landlock here (%r), C code can write the inputs"
          % runner.hello["fs_jail"])

builder.close()
runner.close()
shared.cleanup()
