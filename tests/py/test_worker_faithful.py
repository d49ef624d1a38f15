"""Faithful mode reproduces KernelBench's semantics (src/kernelbench/eval.py
at 423217d; v0/v0.1 src/eval.py): seeds, tolerance per version, allclose
argument order, one namespace, precision casts."""
import os
import sys

import torch

from workerlib import ROOT, Worker, check

# Reference output 0.9801, candidate 1.0: |d| = 0.0199.
# KernelBench's allclose(ref, cand): 0.0199 <= 0.01 + 0.01 * 1.0 = 0.02 -> pass
# reversed order would give     0.0199 <= 0.01 + 0.01 * 0.9801 -> fail.
PROBLEM = '''
import torch
import torch.nn as nn

WIDTH = 8

class Model(nn.Module):
    def forward(self, x):
        return torch.full((WIDTH,), 0.9801, device=x.device, dtype=x.dtype) + 0 * x

def get_inputs():
    return [torch.rand(WIDTH)]

def get_init_inputs():
    return []
'''

# No imports at all: only works in KernelBench's one namespace, where the
# problem's torch, nn and WIDTH are visible.
ONES = '''
class ModelNew(nn.Module):
    def forward(self, x):
        self.dtype_seen = str(x.dtype)
        return torch.ones(WIDTH, dtype=x.dtype, device=x.device)
'''

EXACT = '''
class ModelNew(nn.Module):
    def forward(self, x):
        return torch.full((WIDTH,), 0.9801, device=x.device, dtype=x.dtype) + 0 * x
'''

KB_INPUTS_ONLY = '''
def _kb_draws():
    g = torch.Generator().manual_seed(42)
    seeds = [torch.randint(0, 2**32 - 1, (1,), generator=g).item() for _ in range(5)]
    return [torch.rand(WIDTH, generator=torch.Generator().manual_seed(s))
            for s in seeds + [42]]

class ModelNew(nn.Module):
    def forward(self, x):
        ok = any(torch.equal(x.cpu().float(), d) for d in _kb_draws())
        return torch.full((WIDTH,), 0.9801, device=x.device, dtype=x.dtype) + 0 * x if ok else x - 5
'''

TAMPER = '''
import os

class ModelNew(nn.Module):
    def forward(self, x):
        d = os.path.join(os.environ["HOME"], "..", "..", "inputs")
        for f in os.listdir(d):
            try:
                with open(os.path.join(d, f), "wb") as out:
                    out.write(b"poison")
            except OSError:
                pass
        return torch.full((WIDTH,), 0.9801, device=x.device, dtype=x.dtype) + 0 * x
'''

w = Worker()
_, res = w.run(PROBLEM, ONES, harness="v0.1")
check(res["verdict"] == "correct", "v0.1 (tol 1e-2) with reference first: correct")
check(res["checks"]["semantics"]["namespace"] == "one", "faithful records one namespace")

torch.manual_seed(42)
kb_seeds = [torch.randint(0, 2**32 - 1, (1,)).item() for _ in range(5)]
seeds = [t["seed"] for t in res["checks"]["trials"]]
check(seeds == kb_seeds, "per-trial seeds are KernelBench's, drawn from seed 42")
check(res["trials_total"] == 5 and res["trials_passed"] == 5, "5 correctness trials")

_, res = w.run(PROBLEM, ONES, harness="current")
check(res["verdict"] == "incorrect" and res["checks"]["semantics"]["tolerance"] == 1e-4,
      "current harness fp32 tol 1e-4: incorrect")

_, res = w.run(PROBLEM, ONES, harness="current", precision="bf16")
check(res["checks"]["semantics"]["tolerance"] == 1e-2, "current bf16 tolerance 1e-2")
check(res["checks"]["semantics"]["inputs_cast"] is True, "current casts inputs to the precision")

_, res = w.run(PROBLEM, ONES, harness="v0.1", mode="robust", robust_rounds=4,
               robust_inputs=2, bootstrap=50)
check(res["verdict"] == "correct" and res["ci_low"] is not None and
      res["ci_low"] <= res["speedup"] <= res["ci_high"],
      "robust mode: median speedup inside its bootstrap interval")
check(res["checks"]["timing"]["input_sets"] == 4 and res["checks"]["timing"]["rounds"] == 4,
      "robust mode times each round on a set of its own (new content)")

_, res = w.run(PROBLEM, ONES, harness="v0")
timing = res["checks"]["timing"]
check(timing["l2_fill_bytes"] == 0 and timing["discard_first"] == 0,
      "v0 timing: no L2 fill, no discarded trial")
_, res = w.run(PROBLEM, EXACT, harness="current", precision="fp32", perf_trials=4)
timing = res["checks"]["timing"]
check(timing["discard_first"] == 1 and timing["sync_before_each"] and
      res["runtime_stats"]["n"] == 4, "current timing: discard 1, sync each, N trials kept")
# The inputs are KernelBench's draws exactly (torch.rand after set_seed of a
# trial seed, or of 42 for timing): the candidate recomputes them and
# answers right only when its input is one of them.  The second job of the
# same problem loads them from the worker's input cache: same verdict.
FRESH = PROBLEM + "# another problem file for the cache\n"
_, first = w.run(FRESH, KB_INPUTS_ONLY, harness="current")
_, second = w.run(FRESH, KB_INPUTS_ONLY, harness="current")
check(first["verdict"] == "correct", "inputs are KernelBench's draws")
cache = first["checks"]["input_cache"]
check({k: cache[k] for k in ("sets", "hits", "drawn_late")} ==
      {"sets": 6, "hits": 0, "drawn_late": 0},
      "6 input sets drawn: 5 trials + timing")
check(second["verdict"] == "correct" and second["checks"]["input_cache"]["hits"] == 6,
      "the next job of the problem loads the same draws from the cache")
_, res = w.run(FRESH + "#\n", KB_INPUTS_ONLY, harness="current", input_cache_mb=0)
check(res["verdict"] == "correct" and res["checks"]["input_cache"]["drawn_late"] == 5,
      "sets over input_cache_mb: one kept in memory, the rest drawn when used")
check(res["checks"]["input_cache"].get("late_draws") == 5,
      "each drawn once, the timing set too (it serves both timing loops): %r"
      % res["checks"]["input_cache"])
_, res = w.run(FRESH, TAMPER, harness="current")
check(res["verdict"] == "runtime_error" and res["error_kind"] == "sandbox" and
      "inputs" in res["checks"]["sandbox"][0]["path"],
      "a candidate cannot write the input cache")
_, res = w.run(FRESH, KB_INPUTS_ONLY, harness="current")
check(res["verdict"] == "correct" and res["checks"]["input_cache"]["hits"] == 6,
      "and the next job still gets KernelBench's draws")

# A problem whose shapes depend on the seed (a bag of random length, as
# DLRM-Bench's embedding bags): the timed set is compared with the problem's
# own draw of the same seed, in either mode, and an honest candidate raises
# no inputs-redefined.
RAGGED = """
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return x * 2

def get_inputs():
    n = int(torch.randint(100, 200, (1,)).item())
    return [torch.rand(n)]

def get_init_inputs():
    return []
"""
RAGGED_NEW = """
import torch.nn as nn

class ModelNew(nn.Module):
    def forward(self, x):
        return x + x
"""
for mode in ("faithful", "robust"):
    _, res = w.run(RAGGED, RAGGED_NEW, mode=mode, harness="current")
    ids = [f["id"] for f in res.get("findings") or []]
    check(res["verdict"] == "correct" and "inputs-redefined" not in ids,
          "seed-dependent shapes, %s: compared seed with seed, no inputs-redefined (%s, %s)"
          % (mode, res["verdict"], ids))
w.close()

# The verify library (verify/verify.h through ctypes) gives the same verdicts
# as torch.allclose; checked when build/libhrverify.so is built.
# The settings a candidate's import changes are KernelBench's reference's
# too (one process): a reference whose answer shows the float32 matmul
# precision it runs under doubles under "medium"; the candidate sets it at
# import and doubles.  Faithful: the judge's reference runs under it, as
# KernelBench's would (correct); robust: the judge keeps its own (the
# candidate's answer is wrong there).
SETTING_PROBLEM = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return x * (1.0 if torch.get_float32_matmul_precision() == "highest" else 2.0)

def get_inputs():
    return [torch.rand(16)]

def get_init_inputs():
    return []
'''
SETTING_CAND = '''
import torch
import torch.nn as nn
torch.set_float32_matmul_precision("medium")
torch.backends.cudnn.benchmark = not torch.backends.cudnn.benchmark

class ModelNew(nn.Module):
    def forward(self, x):
        return x * 2.0
'''
w = Worker()
for mode, want in (("faithful", "correct"), ("robust", "incorrect")):
    _, res = w.run(SETTING_PROBLEM, SETTING_CAND, mode=mode, perf_trials=2, robust_rounds=2,
                   robust_inputs=1, bootstrap=20)
    applied = res["checks"].get("global_state_applied")
    changed = res["checks"].get("global_state_changed") or {}
    if mode == "faithful":
        ok = (applied is not None and applied["set"].get("float32_matmul_precision") == "medium"
              and "cudnn.benchmark" in applied["set"] and not applied["not_set"])
    else:
        ok = applied is None
    check(res["verdict"] == want and ok and "float32_matmul_precision" in changed,
          "%s: the candidate's import-time settings %s the reference's (%s; applied %s)"
          % (mode, "are" if mode == "faithful" else "are not", res["verdict"], applied))
w.close()

lib = os.environ.get("HR_VERIFY_LIB") or os.path.join(ROOT, "build", "libhrverify.so")
if not os.path.exists(lib):
    print("skip: %s not built; verify-library checks not run" % lib)
    sys.exit(77)   # tests/run.sh: the checks above passed, these skipped
w = Worker("--verify-lib", lib)
check(w.hello["verify"] == lib, "the worker loads the verify library: %s"
      % w.hello.get("verify_error"))
for harness, want in (("v0.1", "correct"), ("current", "incorrect")):
    _, res = w.run(PROBLEM, ONES, harness=harness)
    t0 = res["checks"]["trials"][0]
    check(res["verdict"] == want and t0["checker"] == "hrverify" and
          t0["torch_allclose"] == (want == "correct"),
          "verify library and torch.allclose agree (%s: %s)" % (harness, want))
    rest = res["checks"]["trials"][1:]
    # torch.allclose beside the library: the first trial, and every failed one.
    check(rest and all(("torch_allclose" in x) == (not x["pass"]) for x in rest),
          "torch.allclose re-checks the first trial and the failed ones only (%s)" % want)
    check(all(set(x["seconds"]) >= {"inputs", "reference", "candidate", "check"}
              for x in res["checks"]["trials"]), "each trial says where its time went")
w.close()
