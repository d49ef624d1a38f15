"""l2_probe.py - the persisting-L2 limit a fresh CUDA context reads, alone
and while other processes hold contexts on the same GPU (the carve-out a
worker's candidate process found at its start; docs/benchmarks-history.md).
Prints one JSON line per reading."""
import json
import os
import subprocess
import sys
import time

READ = r"""
import ctypes, json, os, sys, torch
torch.empty(1, device="cuda")
lib = ctypes.CDLL("libcuda.so.1")
v = ctypes.c_size_t()
rc = lib.cuCtxGetLimit(ctypes.byref(v), 0x06)
print(json.dumps({"who": sys.argv[1], "pid": os.getpid(), "rc": rc, "limit": v.value}), flush=True)
if len(sys.argv) > 2:
    import time; time.sleep(float(sys.argv[2]))
"""


def read(who, hold=None):
    args = [sys.executable, "-c", READ, who] + ([str(hold)] if hold else [])
    return subprocess.Popen(args, stdout=subprocess.PIPE, text=True)


def line(p):
    return p.stdout.readline().strip()


def main():
    env = {k: v for k, v in os.environ.items() if "CUDA" in k or "MPS" in k}
    print(json.dumps({"env": env}))
    print(line(read("alone")))
    holders = []
    for i in range(3):
        holders.append(read("holder%d" % i, hold=20))
        print(line(holders[-1]))
    print(line(read("with-3-holders")))
    for p in holders:
        p.kill()
        p.wait()
    time.sleep(1)
    print(line(read("after-holders")))


if __name__ == "__main__":
    main()
