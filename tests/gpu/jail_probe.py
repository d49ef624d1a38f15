#!/usr/bin/env python3
"""jail_probe.py [--strace] - CUDA under the worker's Landlock jail
(replay/hrworker/sandbox.py: Landlock).  On the H200 (2026-12-01) every CUDA job
restricted by its first rules ended `problem_error` in its reference
phase (cuInit writes its threads' names in procfs); this probe checked
the rules that allow it, and is kept to check them on a new machine.
It forks children as the worker does: a holder (the keeper's part) makes
a CUDA tensor and pickles it with torch.multiprocessing's reductions
(CUDA IPC); a jailed child, restricted to a fresh directory, first makes
its own CUDA tensor, then opens the holder's, as a job opens a lent set.
Each step prints "ok" or its traceback; the exit status is 1 when one
failed.  With --strace (strace on PATH) it runs itself under `strace -f
-e trace=%file` and prints the file calls that were refused (EACCES,
EPERM): the writes the jail's rules lack.  With --layers it runs the
same two steps once per layer of the candidate process's confinement, each
alone in a fresh pair of children, then all of them as the worker stacks
them (docs/replay.md, the worker's table of layers): which one keeps a
candidate from the judge's CUDA IPC memory (the job jail, on under CUDA,
did: cudaErrorMapBufferObjectFailed), and that the seccomp filter does not.
One line a layer, "LAYER: ok" or "LAYER: FAILED at STEP: ERROR"; the exit
status is 1 when the seccomp filter or Landlock alone failed."""
import os
import subprocess
import sys
import tempfile
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


LAYERS = ("seccomp", "landlock", "netns", "uid", "root", "root-nohide", "nocaps",
          "root+nocaps", "root+uid", "cuda", "all")


def apply_layer(layer, root):
    """This process confined by one layer (or a stack) of the worker's:
    seccomp (hrworker/seccomp.py), landlock (sandbox.Landlock), netns (a
    network namespace), uid (the job's uid, as jail.drop_ids), root (a
    mount namespace whose root is a tmpfs holding / read-only and a
    procfs with hidepid, as jail.own_root; root-nohide: the same with a
    procfs that hides nothing), nocaps (uid 0 kept, every capability
    dropped: jail.drop_caps), and their stacks (cuda: a CUDA job's)."""
    import ctypes
    from hrworker import jail, seccomp
    from hrworker.sandbox import Landlock
    parts = {"all": ("root", "netns", "uid", "landlock", "seccomp"),
             "root+uid": ("root", "uid"),
             "root+nocaps": ("root", "nocaps"),
             # A CUDA job's stack (jail.ids_off): the uid kept.
             "cuda": ("root", "netns", "nocaps", "landlock", "seccomp")}.get(layer, (layer,))
    protected = seccomp.protected_pids()
    for part in parts:
        if part == "seccomp":
            seccomp.load(protected)
        elif part == "landlock":
            Landlock().apply([root])
        elif part == "netns":
            if jail.LIBC.unshare(ctypes.c_int(jail.CLONE_NEWNET)) != 0:
                raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNET)")
        elif part == "uid":
            jail.drop_ids(jail.JOB_ID_BASE + os.getpid(), jail.JOB_ID_BASE)
        elif part == "nocaps":
            jail.drop_caps()
        elif part in ("root", "root-nohide"):
            if jail.LIBC.unshare(ctypes.c_int(jail.CLONE_NEWNS)) != 0:
                raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWNS)")
            reads = ["/" + d for d in os.listdir("/")
                     if d not in ("proc", "tmp") and os.path.isdir("/" + d)
                     and not os.path.islink("/" + d)]
            new = tempfile.mkdtemp(prefix="hr-jail-root-")
            jail.own_root(new, reads, [root],
                          **({"proc_opts": ("",)} if part == "root-nohide" else {}))


def layers():
    """probe() once per layer; the lines it printed, summed up."""
    bad = 0
    for layer in LAYERS:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--layer", layer],
                           capture_output=True, text=True)
        failed = [x for x in p.stdout.splitlines() if "FAILED" in x]
        print("%s: %s" % (layer, ("FAILED at " + failed[0]) if failed or p.returncode else "ok"),
              flush=True)
        if (failed or p.returncode) and layer in ("seccomp", "landlock"):
            bad = 1
        if failed or p.returncode:
            print("  " + (p.stdout + p.stderr).strip().replace("\n", "\n  ")[-1500:])
    return bad


def probe(layer="landlock"):
    sys.path.insert(0, os.path.join(ROOT, "replay"))
    import pickle
    from hrworker.sandbox import Landlock
    import torch
    import torch.multiprocessing  # noqa: F401  the reductions, as the worker
    from multiprocessing.reduction import ForkingPickler
    root = tempfile.mkdtemp(prefix="hr-jail-")
    to_job_r, to_job_w = os.pipe()
    done_r, done_w = os.pipe()
    holder = os.fork()
    if holder == 0:     # never jailed: makes the tensor, lends it, waits
        try:
            x = torch.full((1024,), 7.0, device="cuda")
            data = bytes(ForkingPickler.dumps(x))
            os.write(to_job_w, len(data).to_bytes(8, "little") + data)
            os.read(done_r, 1)
        except BaseException:  # noqa
            traceback.print_exc()
            print("holder: FAILED", flush=True)
        os._exit(0)
    os.close(to_job_w)   # the holder's end only: its death is the job's EOF
    job = os.fork()
    if job == 0:
        step = layer
        try:
            if layer == "landlock":
                jail = Landlock()
                print("landlock:", jail.describe(), flush=True)
                jail.apply([root])
            else:
                apply_layer(layer, root)
            print("jailed: %s: ok" % step, flush=True)
            step = "a CUDA tensor of its own"
            x = torch.zeros(1, device="cuda")
            print("jailed: %s: ok" % step, x.item(), flush=True)
            step = "the holder's tensor over CUDA IPC"
            n = int.from_bytes(os.read(to_job_r, 8), "little")
            data = b""
            while len(data) < n:
                more = os.read(to_job_r, n - len(data))
                if not more:
                    raise EOFError("the holder lent nothing")
                data += more
            y = pickle.loads(data)
            print("jailed: %s: ok" % step, y.sum().item(), flush=True)
        except BaseException:  # noqa: report whatever it was
            traceback.print_exc()
            print("jailed: %s: FAILED" % step, flush=True)
            os.write(done_w, b"!")
            os._exit(1)
        os.write(done_w, b"!")
        os._exit(0)
    _, status = os.waitpid(job, 0)
    os.write(done_w, b"!")
    os.waitpid(holder, 0)
    return 0 if status == 0 else 1


def main(argv):
    if "--layers" in argv:
        return layers()
    if "--layer" in argv:
        return probe(argv[argv.index("--layer") + 1])
    if "--strace" not in argv:
        return probe()
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
