#!/usr/bin/env python3
"""ipc_probe.py - can one process hold input sets on the GPU and another,
forked from a parent that never initialised CUDA, use them through CUDA IPC
(torch.multiprocessing's reductions)?  And what do the alternatives cost on
this machine: torch.rand of a large tensor on the CPU, torch.save/load of it,
a copy to the device from a loaded (mmap) file.  Prints one line per figure.

usage: ipc_probe.py [--numel N] [--dir D]
"""
import argparse
import os
import pickle
import sys
import time


def keeper(conn_w, numel, ready_r):
    import torch
    import torch.multiprocessing  # noqa: F401  registers the CUDA reductions
    from multiprocessing.reduction import ForkingPickler
    t0 = time.monotonic()
    torch.manual_seed(1)
    x = torch.rand(numel).cuda()
    torch.cuda.synchronize()
    t1 = time.monotonic()
    buf = bytes(ForkingPickler.dumps([x]))
    t2 = time.monotonic()
    os.write(conn_w, len(buf).to_bytes(8, "little") + buf)
    print("keeper: rand+cuda %.3f s, pickle %.4f s, %d bytes" % (t1 - t0, t2 - t1, len(buf)),
          flush=True)
    os.read(ready_r, 1)          # hold until the user is done
    os._exit(0)


def readn(fd, n):
    out = b""
    while len(out) < n:
        b = os.read(fd, n - len(out))
        if not b:
            raise EOFError
        out += b
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--numel", type=int, default=4096 * 393216)
    ap.add_argument("--dir", default="/tmp")
    a = ap.parse_args()
    import torch   # never initialises CUDA in this process
    r, w = os.pipe()
    rr, rw = os.pipe()
    kp = os.fork()
    if kp == 0:
        try:
            keeper(w, a.numel, rr)
        except BaseException as e:   # noqa
            print("keeper: failed: %r" % e, flush=True)
            os._exit(2)
    os.close(w)
    try:
        n = int.from_bytes(readn(r, 8), "little")
    except EOFError:
        print("ipc: FAILED (no keeper)")
        return 1
    buf = readn(r, n)
    up = os.fork()
    if up == 0:
        try:
            t0 = time.monotonic()
            torch.cuda.init()
            torch.zeros(1, device="cuda")
            t1 = time.monotonic()
            (y,) = pickle.loads(buf)
            torch.cuda.synchronize()
            t2 = time.monotonic()
            z = y.clone()
            torch.cuda.synchronize()
            t3 = time.monotonic()
            torch.manual_seed(1)
            ok = torch.equal(z.cpu(), torch.rand(a.numel))
            print("user: cuda init %.3f s, open handle %.4f s, clone %.4f s (%.0f GB/s), "
                  "values equal: %s" % (t1 - t0, t2 - t1, t3 - t2,
                                        2 * z.numel() * 4 / (t3 - t2) / 1e9, ok), flush=True)
            os._exit(0 if ok else 1)
        except BaseException as e:   # noqa
            print("user: IPC failed: %r" % e, flush=True)
            os._exit(2)
    _, st = os.waitpid(up, 0)
    os.write(rw, b"!")
    os.waitpid(kp, 0)
    print("ipc: %s" % ("works" if os.waitstatus_to_exitcode(st) == 0 else "FAILED"))

    # The alternatives, in this process's forked child (CUDA after fork).
    pid = os.fork()
    if pid == 0:
        path = os.path.join(a.dir, "ipc_probe_set.pt")
        t0 = time.monotonic()
        torch.manual_seed(2)
        x = torch.rand(a.numel)
        t1 = time.monotonic()
        torch.save({"inputs": [x]}, path)
        os.sync()
        t2 = time.monotonic()
        del x
        obj = torch.load(path, mmap=True, weights_only=True)
        x = obj["inputs"][0]
        torch.zeros(1, device="cuda")
        t3 = time.monotonic()
        y = x.to("cuda")
        torch.cuda.synchronize()
        t4 = time.monotonic()
        y2 = x.to("cuda")
        torch.cuda.synchronize()
        t5 = time.monotonic()
        gb = a.numel * 4 / 1e9
        print("cpu: torch.rand %.2f s (%.2f GB); save+sync %.2f s (%.2f GB/s); "
              "mmap load->cuda %.2f s (%.2f GB/s), again %.2f s; threads %d"
              % (t1 - t0, gb, t2 - t1, gb / (t2 - t1), t4 - t3, gb / (t4 - t3), t5 - t4,
                 torch.get_num_threads()), flush=True)
        os.unlink(path)
        os._exit(0)
    os.waitpid(pid, 0)
    st = os.statvfs(a.dir)
    print("disk: %.1f GB free in %s" % (st.f_bavail * st.f_frsize / 1e9, a.dir))


if __name__ == "__main__":
    sys.exit(main())
