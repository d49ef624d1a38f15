"""wake_slice.py - how long a timed call's handshake waits for a CPU while
builds compile beside it, and what the kernel's scheduling attributes do
to that wait.

Two processes play the judge and the candidate process: the judge sends
"go" over a socket pair, the candidate answers "done", the judge sleeps
GAP_MS (the call's work on the device) and sends the next.  Each waits
for the other's word by blocking (a CPU replay) or by spinning
(hrworker/channel.py: CUDA jobs on hosts of SPIN_MIN_CPUS or more).
Beside them BURNERS processes compute without pause, as compilers do, at
nice 1 (the run's first group of builds) or under SCHED_IDLE (the builds
behind it: policy.h, replay_build_idle).  For each case: the handshake's
median, 90th percentile and largest wall (us), and the two processes'
wait for a CPU over all calls (ms: schedstat's run delay), with the
handshake's processes at the default slice and at a requested slice of
SLICE_US (sched_setattr's sched_runtime: EEVDF's slice, 0.1-100 ms; a
task with a shorter slice preempts a longer one when it wakes, kernel
6.12 and later).

    python3 tests/bench/wake_slice.py [CALLS]     # default 2000 calls a case

BURNERS (default: the online CPUs), GAP_MS (default 0.3) and SLICE_US
(default 100) in the environment.  A benchmark, not a test."""
import ctypes
import os
import socket
import statistics
import struct
import sys
import time

SYS_SCHED_SETATTR = {"x86_64": 314, "aarch64": 274}.get(os.uname().machine)
SCHED_OTHER = 0


def set_slice(us):
    """Request an EEVDF slice of us microseconds for the calling thread
    (its children inherit it; 0: the default slice again), keeping its
    nice.  None, or why not."""
    if SYS_SCHED_SETATTR is None:
        return "no sched_setattr number for %s" % os.uname().machine
    nice = os.getpriority(os.PRIO_PROCESS, 0)
    # struct sched_attr, SCHED_ATTR_SIZE_VER0: size, policy, flags, nice,
    # priority, runtime, deadline, period.
    attr = struct.pack("=IIQiIQQQ", 48, SCHED_OTHER, 0, nice, 0, us * 1000, 0, 0)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.syscall(SYS_SCHED_SETATTR, 0, ctypes.c_char_p(attr), 0) != 0:
        return os.strerror(ctypes.get_errno())
    return None


def slice_ns(pid):
    """se.slice of pid as /proc/PID/sched shows it (kernel 6.14 and later),
    or None."""
    try:
        with open("/proc/%d/sched" % pid) as f:
            for line in f:
                if line.startswith("se.slice"):
                    return int(float(line.split(":")[1]))
    except (OSError, ValueError):
        pass
    return None


def run_delay_ns(pid):
    with open("/proc/%d/schedstat" % pid) as f:
        return int(f.read().split()[1])


def wait(sock, spin):
    if spin:
        sock.setblocking(False)
        while True:
            try:
                b = sock.recv(1)
                sock.setblocking(True)
                return b
            except BlockingIOError:
                pass
    return sock.recv(1)


def burner(policy):
    pid = os.fork()
    if pid:
        return pid
    if policy == "idle":
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    else:
        os.setpriority(os.PRIO_PROCESS, 0, 1)
    x = 0
    while True:
        x += 1


def case(calls, burners, policy, spin, slice_us, gap_s):
    kids = [burner(policy) for _ in range(burners)]
    time.sleep(0.3)
    a, b = socket.socketpair()
    cand = os.fork()
    if cand == 0:
        a.close()
        if slice_us:
            set_slice(slice_us)
        while True:
            if wait(b, spin) != b"g":
                os._exit(0)
            b.send(b"d")
    b.close()
    why = set_slice(slice_us) if slice_us else None
    walls = []
    d0 = run_delay_ns(os.getpid()) + run_delay_ns(cand)
    for _ in range(calls):
        t0 = time.perf_counter_ns()
        a.send(b"g")
        wait(a, spin)
        walls.append((time.perf_counter_ns() - t0) / 1e3)
        time.sleep(gap_s)
    delay = (run_delay_ns(os.getpid()) + run_delay_ns(cand) - d0) / 1e6
    shown = slice_ns(cand)
    a.close()
    os.waitpid(cand, 0)
    for k in kids:
        os.kill(k, 9)
        os.waitpid(k, 0)
    set_slice(0)        # a runtime of 0: the default slice again
    walls.sort()
    return {"median": statistics.median(walls), "p90": walls[int(0.9 * len(walls))],
            "max": walls[-1], "delay_ms": delay, "slice_ns": shown, "why": why}


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    burners = int(os.environ.get("BURNERS", len(os.sched_getaffinity(0))))
    gap_s = float(os.environ.get("GAP_MS", "0.3")) / 1e3
    slice_us = int(os.environ.get("SLICE_US", "100"))
    print("kernel %s, %d CPUs, %d burners, %d calls a case, %.2f ms between calls"
          % (os.uname().release, len(os.sched_getaffinity(0)), burners, calls, gap_s * 1e3))
    print("%-8s %-6s %-9s %9s %9s %10s %10s %s"
          % ("burners", "wait", "slice", "median", "p90", "max", "delay_ms", "se.slice"))
    for policy, n in (("none", 0), ("nice1", burners), ("idle", burners)):
        for spin in (False, True):
            for sl in (0, slice_us):
                r = case(calls, n, policy, spin, sl, gap_s)
                print("%-8s %-6s %-9s %9.1f %9.1f %10.1f %10.2f %s%s"
                      % (policy, "spin" if spin else "block",
                         "%d us" % sl if sl else "default", r["median"], r["p90"], r["max"],
                         r["delay_ms"], r["slice_ns"],
                         "  (not set: %s)" % r["why"] if r["why"] else ""))
                sys.stdout.flush()


main()
