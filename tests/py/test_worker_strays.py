"""The worker's sweep for strays (replay/worker.py: own_children, sweep).

own_children() finds this process's children both ways: by the
/proc/self/task/*/children files and, where those cannot be read, by a
scan of every /proc/PID/stat.  sweep(cfg) kills and reaps the children
that are neither the keeper nor a job still tearing down, leaves those
two alone, and says how many it killed.

Plain script: one line per check, exits non-zero on any failure.
"""
import builtins
import os
import signal
import sys
import time

from workerlib import ROOT, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
import worker  # noqa: E402


def sleeper():
    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    return pid


class Cfg:
    pass


def alive(pid):
    """Running and not yet reaped (a killed child we reaped is gone)."""
    try:
        return os.waitpid(pid, os.WNOHANG) == (0, 0)
    except ChildProcessError:
        return False


def main():
    a, b, c = sleeper(), sleeper(), sleeper()
    check({a, b, c} <= worker.own_children(), "the children files name every child")
    real_open = builtins.open

    def no_children_files(path, *args, **kw):
        if str(path).endswith("/children"):
            raise FileNotFoundError(path)
        return real_open(path, *args, **kw)

    builtins.open = no_children_files
    try:
        found = worker.own_children()
    finally:
        builtins.open = real_open
    check({a, b, c} <= found, "so does the scan of /proc it falls back to")
    cfg = Cfg()
    cfg.dying, cfg.keeper_pid = [a], b
    n = worker.sweep(cfg)
    check(n == 1 and not alive(c), "sweep killed and reaped the stray (%d killed)" % n)
    check(alive(a) and alive(b), "and left the keeper and the dying job alone")
    check(worker.sweep(cfg) == 0, "a second sweep finds nothing")
    for pid in (a, b):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


if __name__ == "__main__":
    main()
