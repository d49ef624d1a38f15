#!/usr/bin/env python3
"""context_probe.py [--jobs N] - where a job's CUDA start goes.  A replay
job is a process forked from the worker (torch imported, CUDA never
initialised there); its first CUDA tensor (hrworker/loan.py: borrow, the
"context" of checks.input_cache.borrow_seconds) took 0.26 s on the H200,
and its first torch.allclose 0.10 s.  This forks N children the same way
(torch imported, worker.preload, gc frozen) and times, in
each, the steps one after another:

  cuInit          the driver alone (libcuda's cuInit through ctypes)
  torch init      torch.cuda.init(): the runtime, device properties
  first tensor    torch.zeros(1) on the GPU: the primary context, the
                  caching allocator
  first add       an elementwise kernel's first launch (lazy loading)
  first allclose  torch.allclose on 1 M elements, the first time
  again           the same call again
  exit            the child's exit, its context's teardown (from the parent)

and prints each step's median and range over the children, in seconds.
Standard library + torch."""
import argparse
import ctypes
import gc
import json
import os
import statistics
import sys
import time


def child(w):
    import torch
    from hrworker.util import Laps   # the worker's own (main put replay/ on the path)
    t = {}
    laps = Laps(t)
    lap = laps.lap

    libcuda = ctypes.CDLL("libcuda.so.1")
    rc = libcuda.cuInit(0)
    lap("cuInit")
    torch.cuda.init()
    lap("torch init")
    x = torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    lap("first tensor")
    x.add_(1)
    torch.cuda.synchronize()
    lap("first add")
    a = torch.rand(1 << 20, device="cuda")
    b = a.clone()
    torch.cuda.synchronize()
    lap(None)
    ok = torch.allclose(a, b)
    lap("first allclose")
    ok = ok and torch.allclose(b, a)
    lap("again")
    t["cuInit rc"] = rc
    t["ok"] = bool(ok)
    os.write(w, (json.dumps(t) + "\n").encode())
    os._exit(0)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=8)
    a = ap.parse_args(argv)
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                    "..", "..", "replay"))
    import worker
    worker.preload(torch)   # as the worker: without asking the driver
    assert not torch.cuda.is_initialized()
    gc.freeze()
    rows = []
    for _ in range(a.jobs):
        r, w = os.pipe()
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            child(w)
        os.close(w)
        with os.fdopen(r) as f:
            line = f.readline()
        t1 = time.perf_counter()
        os.waitpid(pid, 0)
        row = json.loads(line) if line else {}
        row["exit"] = time.perf_counter() - t1
        row["fork to answer"] = t1 - t0
        rows.append(row)
    print("torch", torch.__version__, "cuda", torch.version.cuda,
          "CUDA_MODULE_LOADING", os.environ.get("CUDA_MODULE_LOADING", "(unset)"))
    bad = [r for r in rows if r.get("cuInit rc") != 0 or not r.get("ok")]
    for k in ("cuInit", "torch init", "first tensor", "first add", "first allclose",
              "again", "exit", "fork to answer"):
        xs = [r[k] for r in rows if k in r]
        if xs:
            print("%-15s median %.4f s  (%.4f-%.4f, %d children)"
                  % (k, statistics.median(xs), min(xs), max(xs), len(xs)))
    if bad:
        print("children that failed:", bad)
    return 1 if bad or not rows else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
