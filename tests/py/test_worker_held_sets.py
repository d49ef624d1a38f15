"""The judge holds what the harness holds, not the audit's sets on top:
a problem whose reference, called in the judge, counts the float32
tensors of its own size alive in the judge's process at every call
(the harness's inputs, outputs and the judge's copies; the draws are
float64 and not counted).  Through the trials, the audit's calls, the
distribution checks and the robust warm-ups at most four are alive at
any call (before: a trial's leftovers stayed through the audit, the
distribution checks kept them beside their own, and robust warmed up
with its whole pool of eight sets held: on a 1.6 G-element problem, 6 GiB
each, jobs ran out of an 80 GB GPU's memory in the judge's own audit);
the fresh-content timing holds its checks.timing.fresh_sets sets and their
outputs, no more (context.HOLD_SHARE).  The distribution checks' lent copy
of a small set is the one fifth (distribution.LEND_MAX_SHARE); not lending
(a large set), they hold four."""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workerlib import ROOT, Worker, check_on as check, checks_done  # noqa: E402


PROBLEM = '''
import gc
import sys
import traceback
import torch
import torch.nn as nn

N = 129 * 131

def held():
    seen = set()
    for o in gc.get_objects():
        if isinstance(o, torch.Tensor) and o.dtype == torch.float32 and o.numel() == N:
            seen.add(o.untyped_storage().data_ptr())
    return len(seen)

class Model(nn.Module):
    def forward(self, x):
        where = [f.name for f in traceback.extract_stack()[-8:-1]]
        sys.stderr.write("HELD %d %s\\n" % (held(), " ".join(where)))
        return x * 2 + 1

def get_inputs():
    return [torch.rand(129, 131, dtype=torch.float64)]

def get_init_inputs():
    return []
'''
CANDIDATE = '''
import torch
import torch.nn as nn

class ModelNew(nn.Module):
    def forward(self, x):
        return x * 2 + 1
'''
def held_by_part(lend):
    """Both modes' jobs in a worker (HEADROOM_LEND=0 where not lend): the
    largest count at a reference call by part, the fresh sets of each mode,
    whether the distribution checks lent their draws, how many calls."""
    if not lend:
        os.environ["HEADROOM_LEND"] = "0"
    w = Worker("--verify-lib", os.path.join(ROOT, "build", "libhrverify.so"))
    os.environ.pop("HEADROOM_LEND", None)
    fresh, lent = {}, {}
    for mode in ("faithful", "robust"):
        _, res = w.run(PROBLEM, CANDIDATE, mode=mode, perf_trials=3, robust_rounds=4)
        check(res.get("verdict") == "correct", "%s: correct (%s, %s)"
              % (mode, res.get("verdict"), str(res.get("error"))[:300]))
        checks = res.get("checks") or {}
        fresh[mode] = (checks.get("timing") or {}).get("fresh_sets")
        lent[mode] = (checks.get("distribution") or {}).get("lent")
    w.p.stdin.close()
    lines = [ln.split(" ", 2) for ln in w.p.stderr.read().splitlines() if ln.startswith("HELD ")]
    w.close()
    by_part = collections.defaultdict(int)
    for _, n, where in lines:
        part = "fresh_timing" if "fresh_timing" in where else \
            next((p for p in ("distribution", "audit_calls", "warm", "correctness") if p in where),
                 "other")
        by_part[part] = max(by_part[part], int(n))
    print("largest count of harness-size tensors at a reference call, by part (lending %s): %s"
          % (lend, dict(by_part)))
    return by_part, fresh, lent, len(lines)


# The distribution checks lend a small set in one shared copy refilled a
# draw (distribution.LEND_MAX_SHARE): a fifth tensor of the set's size,
# held there only; a set too large to lend (HEADROOM_LEND=0 does as for
# one) is held no more than before.
for lend in (True, False):
    by_part, fresh, lent, calls = held_by_part(lend)
    what = "lending" if lend else "not lending"
    check(calls > 40, "%s: the reference was called throughout both jobs (%d calls)" % (what, calls))
    check(lent == {"faithful": lend, "robust": lend},
          "%s: checks.distribution.lent says so (%s)" % (what, lent))
    for part in ("correctness", "audit_calls", "distribution", "warm"):
        most = 5 if lend and part == "distribution" else 4
        check(part in by_part, "%s, %s: the reference was called there" % (what, part))
        check(by_part.get(part, 99) <= most, "%s, %s: at most %d held at a call (%s)"
              % (what, part, most, by_part.get(part)))
    check(by_part.get("other", 0) <= 4, "%s, elsewhere: at most four (%s)"
          % (what, by_part.get("other")))
    n = fresh.get("faithful")
    check(isinstance(n, int) and 1 <= n <= 7 and by_part.get("fresh_timing", 99) <= 2 * n + 2,
          "%s: fresh-content timing: its %s sets and their outputs, no more (%s)"
          % (what, n, by_part.get("fresh_timing")))
checks_done()
