"""What a robust job's input sets cost beside a faithful job's, on a CPU
problem of 64 MiB inputs (sigmoid of torch.rand(4096, 4096)): one worker,
a fresh inputs directory, faithful then robust twice, each job's wall, its
phases and how many input sets it drew (checks.input_cache.sets).  Run it
with torch's Python from a tree's tests/bench (TREE: another checkout to
compare, default this one):

    $PYTHON tests/bench/robust_warmup.py [TREE]
"""
import json
import os
import sys
import time

TREE = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else \
    os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(TREE, "tests", "py"))
from workerlib import ROOT, Worker  # noqa: E402

PROBLEM = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return torch.sigmoid(x)

def get_inputs():
    return [torch.rand(4096, 4096)]

def get_init_inputs():
    return []
'''
CANDIDATE = '''
import torch
import torch.nn as nn

class ModelNew(nn.Module):
    def forward(self, x):
        return torch.sigmoid(x)
'''
w = Worker("--verify-lib", os.path.join(ROOT, "build", "libhrverify.so"))
print("tree %s" % ROOT)
for mode in ("faithful", "robust", "faithful", "robust"):
    t0 = time.monotonic()
    _, res = w.run(PROBLEM, CANDIDATE, mode=mode, perf_trials=20, robust_rounds=10)
    ch = res.get("checks") or {}
    print("%-8s %s wall %.2f s, sets %s, phases %s" % (
        mode, res.get("verdict"), time.monotonic() - t0,
        (ch.get("input_cache") or {}).get("sets"), json.dumps(ch.get("phase_seconds"))))
w.close()
