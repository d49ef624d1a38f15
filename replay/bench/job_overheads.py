"""job_overheads.py - two costs of a replay job outside its kernels, each
way side by side in one run:

  allclose   a job's first torch.allclose(ref, cand) of an output of N
             elements, in a fresh process as a job's is: the whole
             tensors at once (as the worker calls it) against slices of
             --slice elements, in order, while they pass (the same answer
             with smaller isclose temporaries, measured slower on the
             H200: not in the worker).
             The answers must agree.
  gc         the job's gc.collect (Job.give_back) in a process forked from
             one that imported what the worker imports, without and with
             gc.freeze() before the fork (the worker freezes).

    python3 replay/bench/job_overheads.py [--device cpu|cuda] [--elements N]
                                          [--slice S] [--rounds R]

Not a test: prints one line per round and way."""
import argparse
import gc
import multiprocessing as mp
import os
import sys
import time

def sliced(torch, a, b, tol, k):
    fa, fb = a.view(-1), b.view(-1)
    return all(bool(torch.allclose(fa[i:i + k], fb[i:i + k], atol=tol, rtol=tol))
               for i in range(0, fa.numel(), k))


def first_allclose(way, device, n, k, q):
    import torch
    torch.manual_seed(1)
    ref = torch.rand(n, device=device)
    cand = ref + 1e-6
    if device == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    if way == "whole":
        ok = bool(torch.allclose(ref, cand, atol=1e-4, rtol=1e-4))
    else:
        ok = sliced(torch, ref, cand, 1e-4, k)
    q.put((time.perf_counter() - t0, ok))


def forked_gc(freeze, q):
    import torch  # noqa: F401
    import numpy  # noqa: F401
    import torch.utils.cpp_extension  # noqa: F401
    gc.collect()
    if freeze:
        gc.freeze()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        t0 = time.perf_counter()
        gc.collect()
        os.write(w, repr(time.perf_counter() - t0).encode())
        os._exit(0)
    os.close(w)
    secs = float(os.read(r, 64))
    os.waitpid(pid, 0)
    q.put((secs, len(gc.get_objects()) if not freeze else gc.get_freeze_count()))


def run(target, *args):
    ctx = mp.get_context("spawn")
    q = ctx.Queue()
    p = ctx.Process(target=target, args=args + (q,))
    p.start()
    out = q.get()
    p.join()
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--elements", type=int, default=100_000_000)
    ap.add_argument("--slice", type=int, default=1 << 25)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    for r in range(a.rounds):
        got = {}
        for way in ("whole", "slices"):
            secs, ok = run(first_allclose, way, a.device, a.elements, a.slice)
            got[way] = ok
            print("round %d: first allclose of %d elements on %s, %-6s %.4f s (%s)"
                  % (r, a.elements, a.device, way, secs, ok), flush=True)
        if got["whole"] != got["slices"]:
            sys.exit("the two ways answered differently")
        for freeze in (False, True):
            secs, objs = run(forked_gc, freeze)
            print("round %d: gc.collect in a forked job, %-9s %.4f s (%d objects %s)"
                  % (r, "frozen" if freeze else "unfrozen", secs, objs,
                     "frozen" if freeze else "tracked"), flush=True)


if __name__ == "__main__":
    main()
