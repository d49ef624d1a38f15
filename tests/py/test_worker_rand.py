"""The worker's input draws through the rand library (FastRand,
replay/hrrand.h): the same inputs as torch's own draws, told in the job's
record, and torch when the library is missing, wrong or not asked for.

The problem's get_inputs mixes served calls (torch.rand of >= 65536 fp32
elements: 70001, and 300x700) with calls torch keeps (randn, a small
rand, a rand with another keyword): the stream must continue across them.  The
candidate answers right only when its inputs equal KernelBench's draws,
which it recomputes with torch's own generator."""
import os

from workerlib import KB_DRAWS, ROOT, Worker, check

PROBLEM = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, a, b, c, d, e):
        return a[:5] * 2 + b + c[0, :5] + d[:5] + e[:5]

def get_inputs():
    return [torch.rand(70001), torch.randn(5), torch.rand((300, 700)), torch.rand(10),
            torch.rand(70001, requires_grad=False)]

def get_init_inputs():
    return []
'''

CANDIDATE = KB_DRAWS + '''
class ModelNew(nn.Module):
    def forward(self, a, b, c, d, e):
        state = torch.get_rng_state()
        ok = any(all(torch.equal(x.cpu(), y) for x, y in zip((a, b, c, d, e), draw))
                 for draw in _kb_draws())
        torch.set_rng_state(state)
        return a[:5] * 2 + b + c[0, :5] + d[:5] + e[:5] if ok else a[:5]
'''

lib = os.environ.get("HRR_LIB") or os.path.join(ROOT, "build", "libhrrand.so")
check(os.path.exists(lib), "the rand library is built: %s (make replay-libs)" % lib)

# No keeper (on CUDA the worker has one by default, and then a build
# worker's draw ahead writes a recipe: test_worker_recipe.py): here jobs
# and build workers draw through the library themselves.
os.environ["HEADROOM_DEVICE_INPUTS_MB"] = "0"
w = Worker("--rand-lib", lib)
check(w.hello["rand"] == lib and w.hello["rand_error"] is None,
      "the worker loads the rand library and it passes its check: %r" % w.hello.get("rand_error"))
_, res = w.run(PROBLEM, CANDIDATE, harness="current")
cache = res["checks"]["input_cache"]
check(res["verdict"] == "correct", "inputs drawn through the library are KernelBench's: %s"
      % res.get("error"), w)
check(cache["sets"] == 6 and cache["fast_draws"] == 6,
      "all 6 sets drawn through the library: %r" % cache)
# A build job drawing ahead records it as well (predraw's "fast").
_, res = w.run(PROBLEM + "#\n", CANDIDATE, harness="current", stop_after="inputs", draw=True)
check(res["predraw"]["drawn"] == 6 and res["predraw"]["fast"] == 6,
      "a draw ahead goes through the library: %r" % res.get("predraw"))
w.close()

w = Worker()
check(w.hello["rand"] is None and w.hello["rand_error"] is None, "no --rand-lib: torch draws")
_, res = w.run(PROBLEM, CANDIDATE, harness="current")
check(res["verdict"] == "correct" and res["checks"]["input_cache"]["fast_draws"] == 0,
      "the same job with torch drawing: correct, no fast draws")
w.close()

w = Worker("--rand-lib", os.path.join(ROOT, "README.md"))
check(w.hello["rand"] is None and "README.md" in (w.hello["rand_error"] or ""),
      "a file that is not the library: named in rand_error (%r), torch draws"
      % w.hello["rand_error"])
_, res = w.run(PROBLEM, CANDIDATE, harness="current")
check(res["verdict"] == "correct" and res["checks"]["input_cache"]["fast_draws"] == 0,
      "and the job is unchanged")
w.close()

# The check before first use can fail: a library one ulp off on the first
# element of each draw, or one that refuses every state, is caught (in the
# forked child the fork server uses) and named.
import ctypes  # noqa: E402
import sys  # noqa: E402

import torch  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker.native import FastRand  # noqa: E402


class OneOff:
    """The library, wrong by one unit in a draw's first value (only when
    a draw is split between threads, with par), or refusing."""
    def __init__(self, real, refuse=False, par=False):
        self.real, self.refuse, self.par = real, refuse, par

    def hrr_part_elements(self):
        return self.real.hrr_part_elements()

    def hrr_rand_f32_par(self, st, size, out, n, threads):
        if self.refuse:
            return -1
        rc = self.real.hrr_rand_f32_par(st, size, out, n, threads)
        if n and (threads > 1 and n >= 2 * self.real.hrr_part_elements() or not self.par):
            ctypes.c_float.from_address(out).value += 2.0 ** -24
        return rc


for refuse, par, threads, want in ((False, False, 1, "differs from torch.rand"),
                                   (True, False, 1, "refused a state"),
                                   (False, True, 4, "differs from torch.rand")):
    fr = FastRand(lib, torch)
    fr.lib = OneOff(fr.lib, refuse, par)
    fr.threads = threads
    try:
        fr.check_forked()
        caught = None
    except OSError as e:
        caught = str(e)
    check(caught is not None and want in caught,
          "a wrong library fails the check (%s on %d threads): %r"
          % ("refusing" if refuse else "wrong", threads, caught))
fr = FastRand(lib, torch)
fr.lib = OneOff(fr.lib, par=True)
fr.check_forked()
check(True, "and one wrong only on threads passes on one")
fr = FastRand(lib, torch)
fr.threads = 4
fr.check_forked()
check(torch.rand is fr.orig and fr.served == 0, "the check leaves torch.rand and its counts alone")

# headroom audit problems draws host inputs the same way: the same
# reference statistics with and without the library, and told.
VLIB = os.path.join(ROOT, "build", "libhrverify.so")
if os.path.exists(VLIB):
    AUDIT = dict(stop_after="reference", harness="v0.1", precision="fp32", seed=42,
                 audit_inputs="host",
                 audit_presets=[{"name": "kernelbench-v0", "harness": "v0", "dtype": "fp32",
                                 "tol": 1e-2}])
    got = []
    for extra in (("--rand-lib", lib), ()):
        w = Worker("--verify-lib", VLIB, *extra)
        _, res = w.run(PROBLEM, "", **AUDIT)
        w.close()
        check(res["verdict"] == "audited", "audit job answered: %s" % res.get("error"))
        got.append(res["audit"])
    # Two draws: the gates hold on both, and the second says whether the
    # output varies with the input (hrworker/vacuity.py).
    check(got[0]["fast_draws"] == 2 and got[1]["fast_draws"] == 0,
          "the audit's two draws go through the library when the worker has it (%s, %s)"
          % (got[0]["fast_draws"], got[1]["fast_draws"]))
    check(got[0]["stats"] == got[1]["stats"] and got[0]["gates"] == got[1]["gates"],
          "and the audit is the same: %r" % got[0]["stats"])
else:
    print("skip: %s not built; the audit's draws not checked" % VLIB)
