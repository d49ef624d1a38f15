#!/usr/bin/env python3
"""jail_probe.py [--strace] - why CUDA fails under the worker's Landlock
jail (replay/worker.py: Landlock).  On the H200 (2026-12-01) every CUDA
job restricted by it ended `problem_error` in its reference phase, so the
worker applies it to CPU jobs only.  This forks a child as the worker
does, restricts it to a fresh directory, and makes a CUDA tensor, then
prints the traceback or "ok".  With --strace (strace on PATH) it runs
itself under `strace -f -e trace=%file` and prints the file calls that
were refused (EACCES, EPERM): the writes the jail's rules lack."""
import os
import subprocess
import sys
import tempfile
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def probe():
    sys.path.insert(0, os.path.join(ROOT, "replay"))
    import worker
    import torch
    root = tempfile.mkdtemp(prefix="hr-jail-")
    pid = os.fork()
    if pid == 0:
        try:
            jail = worker.Landlock()
            print("landlock:", jail.describe(), flush=True)
            jail.apply([root])
            x = torch.zeros(1, device="cuda")
            print("cuda under the jail: ok", x.item(), flush=True)
        except BaseException:  # noqa: report whatever it was
            traceback.print_exc()
            print("cuda under the jail: FAILED", flush=True)
        os._exit(0)
    os.waitpid(pid, 0)


def main(argv):
    if "--strace" not in argv:
        probe()
        return 0
    log = tempfile.mktemp(prefix="hr-jail-strace-")
    subprocess.run(["strace", "-f", "-e", "trace=%file", "-o", log,
                    sys.executable, os.path.abspath(__file__)])
    with open(log) as f:
        for line in f:
            if "EACCES" in line or "EPERM" in line:
                print(line.rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
