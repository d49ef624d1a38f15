"""The audit's own draws are the job's secret (JobContext.audit_seed): a
candidate that knows how the judge derives them computes every robust
round's set at import and answers from a table (on the CPU such a
candidate read 2.8-3.4x verified-faster when the seeds came from the
job's seed).  The candidate here predicts the sets of robust's warm-up,
rounds and rechecks from a secret it is told, and answers those with
zeros, every other call honestly: told the job's real secret (the job
message fixes it, as to repeat a job) its predictions hit and the rounds
fail their check; not told (the secret drawn in the judge after the
candidate process was forked), they miss and the job is correct.  And
two jobs draw different secrets, and the same fixed secret gives the same
sets.  Plain script: one line per check, exits non-zero on a failure."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workerlib import ROOT, Worker, check_on as check, checks_done  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker.context import AUDIT_FRESH, AUDIT_POOL, AUDIT_ROUNDS  # noqa: E402

PROBLEM = os.path.join(ROOT, "tests", "fixtures", "planted", "problems", "level1",
                       "14_Matmul.py")
ROUNDS, POOL = 4, 2
KNOWN = 123456789

# The candidate: the problem's get_inputs is in its namespace (robust runs
# the problem's code again for it), so it can draw any set from a seed.
PREDICTOR = '''
import numpy as np
import torch
import torch.nn as nn

SECRET = %(secret)d
seeds = list(np.random.default_rng(SECRET + %(pool)d).integers(0, 2**62, size=%(npool)d))
seeds += list(np.random.default_rng(SECRET + %(rounds)d).integers(0, 2**62, size=%(nrounds)d + 1))
seeds += [SECRET + %(fresh)d + k for k in range(1, 12)]
PREDICTED = {}


def predicted(device):
    """The sets' first values, drawn as the audit draws new content: with
    the generator of the device the inputs come on (on a GPU, CUDA's)."""
    if device not in PREDICTED:
        got = PREDICTED[device] = set()
        for s in seeds:
            torch.manual_seed(int(s))
            with torch.device(device):
                got.add(tuple(get_inputs()[0].reshape(-1)[:16].tolist()))
    return PREDICTED[device]


class ModelNew(nn.Module):
    def forward(self, a, b):
        if tuple(a.reshape(-1)[:16].tolist()) in predicted(a.device):
            return torch.zeros(a.shape[0], b.shape[1], device=a.device)
        return torch.matmul(a, b)
'''


def predictor(secret):
    return PREDICTOR % {"secret": secret, "pool": AUDIT_POOL, "npool": POOL,
                        "rounds": AUDIT_ROUNDS, "nrounds": ROUNDS, "fresh": AUDIT_FRESH}


def main():
    problem = open(PROBLEM).read()
    w = Worker("--verify-lib", os.path.join(ROOT, "build", "libhrverify.so"))

    def run(candidate, **extra):
        _, res = w.run(problem, candidate, mode="robust", problem_file=PROBLEM,
                       robust_rounds=ROUNDS, robust_inputs=POOL, perf_trials=5, **extra)
        res = res or {}
        ch = res.get("checks") or {}
        # A candidate without a kernel of its own on a GPU is no-own-kernel
        # whatever it does: not what this test asks.
        ids = sorted({f.get("id") for f in res.get("findings") or ()} - {"no-own-kernel"})
        print("   %s, speedup %s, findings %s, audit_seed %s, timed_seed %s" % (
            res.get("verdict"), res.get("speedup"), ids, ch.get("audit_seed"),
            (ch.get("inputs") or {}).get("timed_seed")))
        return res, ids, ch

    try:
        res, ids, ch = run(predictor(KNOWN), audit_seed=KNOWN)
        check(ch.get("audit_seed") == KNOWN and res.get("verdict") == "correct"
              and {"result-cached", "timing-path-differs"} & set(ids),
              "told the job's secret, the predictor's table hits the robust rounds, "
              "whose check fails (%s)" % ids)
        res, ids, ch = run(predictor(KNOWN))
        check(isinstance(ch.get("audit_seed"), int) and ch["audit_seed"] != KNOWN
              and res.get("verdict") == "correct" and not ids,
              "not told, it misses every set and the job is correct with no finding "
              "(%s, %s)" % (res.get("verdict"), ids))
        honest = open(os.path.join(ROOT, "tests", "fixtures", "planted", "candidates",
                                   "honest-matmul-same.py")).read()
        _, _, a = run(honest)
        _, _, b = run(honest)
        check(a.get("audit_seed") != b.get("audit_seed") and
              a["inputs"]["timed_seed"] != b["inputs"]["timed_seed"],
              "two jobs draw different secrets and different warm-up sets")
        _, _, c = run(honest, audit_seed=KNOWN)
        _, _, d = run(honest, audit_seed=KNOWN)
        check(c["inputs"]["timed_seed"] == d["inputs"]["timed_seed"] and
              c["inputs"]["timed"] == d["inputs"]["timed"],
              "a fixed secret gives the same sets")
    finally:
        w.close()
    checks_done()


main()
