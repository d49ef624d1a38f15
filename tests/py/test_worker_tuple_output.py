"""A problem whose model returns a tuple (values and indices, as
torch.max over a dimension does): robust mode takes the candidate's tuple
across the channel and checks it element by element (hrworker/outputs.py);
a wrong element fails it; faithful mode reproduces the original harness,
whose check reads output.shape, which a tuple has not: failed:reference
(problem_error), not the candidate's failure."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workerlib import ROOT, Worker, check_on as check, checks_done  # noqa: E402


PROBLEM = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return torch.max(x, dim=1)

def get_inputs():
    return [torch.rand(64, 512)]

def get_init_inputs():
    return []
'''
HONEST = '''
import torch
import torch.nn as nn

class ModelNew(nn.Module):
    def forward(self, x):
        i = x.argmax(dim=1)
        return x.gather(1, i[:, None])[:, 0], i
'''
WRONG_INDICES = '''
import torch
import torch.nn as nn

class ModelNew(nn.Module):
    def forward(self, x):
        v = x.amax(dim=1)
        return v, torch.zeros(x.shape[0], dtype=torch.int64)
'''
w = Worker("--verify-lib", os.path.join(ROOT, "build", "libhrverify.so"))
_, res = w.run(PROBLEM, HONEST, mode="robust", perf_trials=3, robust_rounds=4, robust_inputs=2)
ids = [f["id"] for f in res.get("findings") or []]
check(res.get("verdict") == "correct" and res.get("trials_passed") == res.get("trials_total")
      and "output-not-tensor" not in ids and "channel-tampered" not in ids,
      "robust: an honest (values, indices) tuple is correct, element by element (%s, %s, %s)"
      % (res.get("verdict"), ids, str(res.get("error"))[:300]))
trial = (res.get("checks", {}).get("trials") or [{}])[0]
check(len(trial.get("elements", [])) == 2, "each trial records both elements' checks")
_, res = w.run(PROBLEM, WRONG_INDICES, mode="robust", perf_trials=3, robust_rounds=4,
               robust_inputs=2)
check(res.get("verdict") == "incorrect",
      "robust: right values with wrong indices are incorrect (%s)" % res.get("verdict"))
_, res = w.run(PROBLEM, HONEST, mode="faithful", perf_trials=3)
check(res.get("verdict") == "problem_error" and "output.shape" in str(res.get("error")),
      "faithful: the original check cannot read a tuple: problem_error (%s: %s)"
      % (res.get("verdict"), str(res.get("error"))[:200]))
w.close()
checks_done()
