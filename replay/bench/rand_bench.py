"""rand_bench.py - torch.rand against the rand library (replay/hrrand.h),
side by side in one run: the time of one faithful input draw of N fp32
elements each way from the same seed, the values compared bit for bit.

    python3 replay/bench/rand_bench.py [--elements N] [--procs P] [--rounds R]
                                       [--threads T]

--procs P draws P sets at once in P processes (as P build workers do when
they draw a problem ahead), each way in turn; every process reports its
own draw's seconds.  --threads T adds a third way: the library on T
threads (hrr_rand_f32_par, as the keeper draws).  Not a test: prints one
line per round and way."""
import argparse
import ctypes
import multiprocessing as mp
import os
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.environ.get("HRR_LIB", os.path.join(ROOT, "build", "libhrrand.so"))


def draw(way, n, seed, q, threads=1):
    import torch
    torch.set_num_threads(1)     # as a build worker's draw: one stream
    torch.manual_seed(seed)
    t0 = time.perf_counter()
    if way == "torch":
        x = torch.rand(n)
    else:
        lib = ctypes.CDLL(LIB)
        lib.hrr_rand_f32_par.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                                         ctypes.c_uint64, ctypes.c_int]
        st = torch.get_rng_state()
        x = torch.empty(n)
        if lib.hrr_rand_f32_par(st.data_ptr(), st.numel(), x.data_ptr(), n, threads):
            raise SystemExit("the library refused the state")
        torch.set_rng_state(st)
    secs = time.perf_counter() - t0
    # A digest to compare the two ways' values (every element).
    import hashlib
    h = hashlib.sha256(x.numpy().tobytes()).hexdigest()[:16]
    q.put((way, seed, secs, h))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--elements", type=int, default=4096 * 393216)
    p.add_argument("--procs", type=int, default=1)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    ways = [("torch", 1), ("headroom", 1)] + ([("headroom-%d" % a.threads, a.threads)]
                                              if a.threads > 1 else [])
    ctx = mp.get_context("spawn")
    digests = {}
    for r in range(a.rounds):
        for way, threads in ways:
            q = ctx.Queue()
            t0 = time.perf_counter()
            ps = [ctx.Process(target=draw, args=(way, a.elements, 42 + i, q, threads))
                  for i in range(a.procs)]
            for pr in ps:
                pr.start()
            got = [q.get() for _ in ps]
            for pr in ps:
                pr.join()
            wall = time.perf_counter() - t0
            secs = sorted(g[2] for g in got)
            for g in got:
                digests.setdefault(g[1], set()).add(g[3])
            print("round %d %-8s %d x %d elements: draw %.3f-%.3f s each, %.3f s wall"
                  " (with process start)" % (r + 1, way, a.procs, a.elements, secs[0],
                                             secs[-1], wall), flush=True)
    same = all(len(v) == 1 for v in digests.values())
    print("values identical (sha256 of every set, every way): %s" % ("yes" if same else "NO"))
    raise SystemExit(0 if same else 1)


if __name__ == "__main__":
    main()
