"""Every dtype torch has crosses the judge-candidate channel: an fp8
tensor is data, not a forged protocol message (remote.torch_dtype).  A
problem with an fp8 input and an fp32 output is judged as any other; one
whose output is fp8 fails where torch.allclose itself fails on fp8 (as the
original harness would), never as channel-tampered."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workerlib import ROOT, Worker, check_on as check, checks_done  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "replay"))
import torch  # noqa: E402
from hrworker.remote import torch_dtype  # noqa: E402


check(torch_dtype(torch, "float8_e4m3fn") is torch.float8_e4m3fn, "fp8 names its dtype")
check(torch_dtype(torch, "uint16") is torch.uint16, "uint16 names its dtype")
for bad in ("Tensor", "float8_e4m3fn()", "", None, "__class__", "x" * 50):
    check(torch_dtype(torch, bad) is None, "%r names no dtype" % (bad,))

PROBLEM = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return %s

def get_inputs():
    return [torch.rand(32, 32).to(torch.float8_e4m3fn)]

def get_init_inputs():
    return []
'''
CANDIDATE = '''
import torch
import torch.nn as nn

class ModelNew(nn.Module):
    def forward(self, x):
        return %s
'''
w = Worker("--verify-lib", os.path.join(ROOT, "build", "libhrverify.so"))
for mode in ("faithful", "robust"):
    _, res = w.run(PROBLEM % "x.float() * 2", CANDIDATE % "x.float() + x.float()", mode=mode)
    ids = [f["id"] for f in res.get("findings") or []]
    check(res.get("verdict") == "correct" and "channel-tampered" not in ids,
          "%s: fp8 input, fp32 output: correct (%s, %s, %s)"
          % (mode, res.get("verdict"), ids, str(res.get("error"))[:300]))
    _, res = w.run(PROBLEM % "x", CANDIDATE % "x.clone()", mode=mode)
    ids = [f["id"] for f in res.get("findings") or []]
    check(res.get("verdict") != "crashed" and "channel-tampered" not in ids,
          "%s: an fp8 output is data, not tampering (%s, %s)" % (mode, res.get("verdict"), ids))
w.close()
checks_done()
