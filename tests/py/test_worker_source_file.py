"""A candidate's code runs from a real file (Candidate.source_file): a
Triton kernel's @triton.jit reads its source when it is defined, and
inspect.getsource must find it, as it does when a harness imports the
kernel from a file.  On the CPU the Triton kernel is defined, never
launched; the model computes with torch."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workerlib import ROOT, Worker  # noqa: E402

PROBLEM = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return x * 2

def get_inputs():
    return [torch.rand(16, 16)]

def get_init_inputs():
    return []
'''
CANDIDATE = '''
import inspect
import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def double_kernel(x_ptr, out_ptr, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(out_ptr + i, tl.load(x_ptr + i, mask=i < n) * 2, mask=i < n)


def helper():
    return 2


SOURCE_SEEN = "return 2" in inspect.getsource(helper)


class ModelNew(nn.Module):
    def forward(self, x):
        if x.is_cuda:
            out = torch.empty_like(x)
            double_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, x.numel(), BLOCK=1024)
            return out
        return x * helper() if SOURCE_SEEN else x
'''
failed = 0
try:
    import triton  # noqa: F401
except ImportError:
    print("skip: triton is not installed with this torch")
    sys.exit(77)
w = Worker("--verify-lib", os.path.join(ROOT, "build", "libhrverify.so"))
_, res = w.run(PROBLEM, CANDIDATE, mode="faithful", candidate_file="kernel-abc.py")
ok = res is not None and res.get("verdict") == "correct" and res.get("compiled") is True
print(("ok: " if ok else "FAIL: ") + "a Triton candidate builds and reads its own source "
      "(verdict %s, %s)" % (res and res.get("verdict"), res and str(res.get("error"))[:600]))
failed += not ok
w.close()
sys.exit(1 if failed else 0)
