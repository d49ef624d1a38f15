"""l2_probe.py - the persisting-L2 limit a fresh CUDA context reads, alone
and while other processes hold contexts on the same GPU (the carve-out a
worker's candidate process found at its start; docs/benchmarks-history.md).
Prints one JSON line per reading."""
import json
import os
import subprocess
import sys
import time

REPLAY = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "replay")

# The reading the worker's candidate process makes (cudadrv.CudaDriver),
# in a fresh process with its context made; argv: who, the replay folder,
# then the seconds to hold the context, if any.
READ = r"""
import json, os, sys, torch
sys.path.insert(0, sys.argv[2])
from hrworker.cudadrv import CudaDriver
torch.empty(1, device="cuda")
limit, err = CudaDriver().limit()
print(json.dumps({"who": sys.argv[1], "pid": os.getpid(), "limit": limit, "error": err}),
      flush=True)
if len(sys.argv) > 3:
    import time; time.sleep(float(sys.argv[3]))
"""


def read(who, hold=None):
    args = [sys.executable, "-c", READ, who, REPLAY] + ([str(hold)] if hold else [])
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
