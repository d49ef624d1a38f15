"""The tool's own copies in the candidate process (an output fetched, a
draw: hrworker/util.quiet_copy) give the judge the same bytes as copy_,
for every dtype and layout an output takes, and leave torch's OpenMP team
asleep: a parallel copy_ of more than torch's grain leaves its threads
spinning a few ms before they sleep, which the judge's account counts as
the candidate's CPU outside its calls (a false background-work under
make check's load, in planted honest-matmul-same's robust job)."""
import os
import statistics
import sys
import time

import torch

from workerlib import ROOT, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker.account import thread_times  # noqa: E402
from hrworker.util import quiet_copy  # noqa: E402

g = torch.Generator().manual_seed(3)
base = torch.rand(64, 48, generator=g)
for name, src in (("float32", base),
                  ("a transposed view", base.t()),
                  ("bfloat16", base.to(torch.bfloat16)),
                  ("float8", base.to(torch.float8_e4m3fn)),
                  ("a transposed bfloat16 view", base.to(torch.bfloat16).t()),
                  ("0-dim", base.sum()),
                  ("bool", base > 0.5),
                  ("int64", (base * 100).long()),
                  ("complex64", torch.complex(base, -base))):
    dst = torch.empty(src.shape, dtype=src.dtype)
    quiet_copy(torch, dst, src)
    check(torch.equal(dst.view(torch.uint8) if src.dtype == torch.float8_e4m3fn else dst,
                      src.view(torch.uint8) if src.dtype == torch.float8_e4m3fn else src),
          "quiet_copy: %s copied as copy_ would" % name)


def others_cpu_ms():
    """CPU (ms) of this process's threads but the calling one."""
    me = os.getpid()
    return sum(ns for tid, (_, ns) in thread_times(me).items() if tid != me) / 1e6


def after(copy, n=5):
    """The other threads' CPU in the 50 ms after each of n copies of a
    256 x 256 float32 tensor (median, ms)."""
    a, b = torch.rand(256, 256), torch.empty(256, 256)
    got = []
    for _ in range(n):
        time.sleep(0.05)
        copy(b, a)
        c0 = others_cpu_ms()
        time.sleep(0.05)
        got.append(others_cpu_ms() - c0)
    return statistics.median(got)


torch.set_num_threads(max(2, torch.get_num_threads()))
plain = after(lambda b, a: b.copy_(a))
quiet = after(lambda b, a: quiet_copy(torch, b, a))
print("torch's copy_: the other threads ran %.3f ms after it (median); quiet_copy: %.3f ms"
      % (plain, quiet))
check(quiet < 0.5, "quiet_copy leaves the thread team asleep: %.3f ms of the other threads' "
      "CPU after it (copy_: %.3f ms)" % (quiet, plain))
