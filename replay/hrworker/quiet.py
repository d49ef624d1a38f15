"""hrworker/quiet.py - robust mode: the candidate's processes stopped
while the judge times the reference, on a GPU only once the GPU is quiet.

Before each timed call of the reference the judge stops (SIGSTOP) every
process of the candidate's family (account.Family.pids: the candidate
process, what it forked, orphans it left at the worker), and continues
(SIGCONT) them after it; a process that was stopped already (every
thread's state T: a candidate's own helper it stopped) is left stopped.
Where the family has a cgroup of its own (account.Family.count_cgroup),
the stopped family's cgroup is frozen too for the call (freeze): no
SIGCONT, a timer's of its own included, runs a frozen process.
A process is stopped once every thread of it is (Family.thread_states):
its first thread shows stopped while another still runs to its own
stop, and shows a zombie once it exited while the others run.  A stopped
process neither runs on a CPU nor launches GPU work, so neither the CPU
the reference is timed on nor the GPU is the candidate's meanwhile.

On CUDA a kernel launched before the stop runs on (a kernel on a side
stream or in a second process's context, launched after the candidate's
reply): the judge waits until the GPU is quiet -- its own probe, a
one-element kernel and a synchronize timed on the host, comes back within
PROBE_FLOOR_NS and PROBE_FACTOR times the calm probe (calibrate, before
candidate code runs); work of another context holds the judge's kernel
until the GPU's time slice passes to it.  A GPU still busy after
QUIET_WAIT_S with the family stopped: the family is killed, and a GPU
quiet within KILL_WAIT_S after that was busy with the candidate's work
(BackgroundGpu: background-work); one busy still is another's (ToolBusy:
the tool's failure).  Signals go through a pidfd opened while the
family's own record of the process still reads (account.Family.state),
so that a process that took the pid of one gone is never signalled.  Where contexts share the GPU's SMs (MPS) a foreign
kernel may not delay the probe: the stop still keeps new work out.
Faithful jobs are left as the harness ran them (Timing.time_one).
Must not: stop the judge, the worker, the builder or the keeper (the
family has none of them), or leave a process it stopped stopped."""
import os
import signal
import time

# The states of a process that cannot run: stopped, traced, a zombie, dead.
CANNOT_RUN = (b"T", b"t", b"Z", b"X")
# What a signalled process's threads may show once its stop holds them:
# those states, or an uninterruptible wait (D: a vfork's parent until its
# child execs, a page read), whose thread takes the stop before it runs
# its own code again (waiting for it would let a candidate make every
# stop time out).
STOP_HOLDS = CANNOT_RUN + (b"D",)

# A probe slower than both is a busy GPU (the calm probe on the H200: a
# launch and a synchronize, about 10-20 us).
PROBE_FLOOR_NS = 100_000
PROBE_FACTOR = 6
CALM_PROBES = 16
# How long the judge waits for a quiet GPU with the family stopped, then
# with it killed (s): a killed process's context goes with it at once, so
# that work which ends later was not the candidate's.
QUIET_WAIT_S = 3.0
KILL_WAIT_S = 1.0
# How long a stop waits for its processes to show stopped (s).
STOP_WAIT_S = 0.05


class BackgroundGpu(Exception):
    """The GPU stayed busy with the candidate's family stopped and was
    quiet once it was killed: evidence (a dict) of background-work."""

    def __init__(self, evidence):
        super().__init__("background GPU work")
        self.evidence = evidence


class ToolBusy(Exception):
    """The GPU stayed busy with the candidate's family killed: work of
    neither the judge nor the candidate (the tool's failure)."""


class Quiet:
    """The stops of one job's robust timing (family: account.Family; torch
    and cuda: the judge's)."""

    def __init__(self, family, torch, cuda, device="cuda"):
        self.family, self.torch, self.cuda, self.device = family, torch, cuda, device
        self.fds = {}               # pid -> its pidfd (handle)
        self.buf = None
        self.calm_ns = None
        self.rec = {"stops": 0, "processes_max": 0, "left_stopped": 0, "stop_us_total": 0.0,
                    "hold_us_total": 0.0,   # the freeze and the marks, before and after each call
                    "probes": 0, "busy_probes": 0, "waits": 0, "wait_ms_total": 0.0,
                    "wait_ms_max": 0.0}

    # ------------------------------------------------------------ the GPU
    def probe(self):
        """One probe: the judge's one-element kernel and a synchronize,
        ns on the host."""
        t0 = time.perf_counter_ns()
        self.buf.add_(1)
        self.torch.cuda.synchronize()
        return time.perf_counter_ns() - t0

    def calibrate(self):
        """The calm probe, before candidate code runs (Job.calibrate)."""
        if not self.cuda:
            return
        self.buf = self.torch.zeros(1, device=self.device)
        self.probe()
        ns = sorted(self.probe() for _ in range(CALM_PROBES))
        self.calm_ns = ns[len(ns) // 2]
        self.rec["calm_probe_us"] = round(self.calm_ns / 1e3, 2)

    def bound_ns(self):
        return max(PROBE_FLOOR_NS, PROBE_FACTOR * (self.calm_ns or 0))

    def busy(self):
        """Two probes in a row both over the bound (a host hiccup delays
        one)."""
        self.rec["probes"] += 1
        if self.probe() <= self.bound_ns() or self.probe() <= self.bound_ns():
            return False
        self.rec["busy_probes"] += 1
        return True

    def wait_quiet(self, limit_s):
        """Probe until the GPU is quiet: the seconds waited (0 where the
        first probe found it quiet), or None when it was busy still after
        limit_s."""
        t0 = time.monotonic()
        if not self.busy():
            return 0.0
        while self.busy():
            if time.monotonic() - t0 > limit_s:
                return None
        return time.monotonic() - t0

    # ------------------------------------------------------------ the stops
    def handle(self, pid):
        """A pidfd of pid, opened while the family's own record of it
        still reads (account.Family.state: so the pidfd is of that process,
        never of another that took a pid of the family's later), -1 where
        the kernel has no pidfds (os.kill then), None where it is gone."""
        if pid not in self.fds:
            try:
                fd = os.pidfd_open(pid)
            except ProcessLookupError:
                return None
            except OSError:
                fd = -1
            if self.family.state(pid) is None:
                if fd >= 0:
                    os.close(fd)
                return None
            self.fds[pid] = fd
        return self.fds[pid]

    def signal(self, pid, sig, again=True):
        """sig to pid; False where it is gone.  again: a pidfd of a process
        gone is opened again once, for the process the family lists under
        its pid now (never for a continue: only what was stopped is)."""
        for _ in range(2 if again else 1):
            fd = self.handle(pid)
            try:
                if fd is None:
                    return False
                if fd < 0:
                    os.kill(pid, sig)
                else:
                    signal.pidfd_send_signal(fd, sig)
                return True
            except ProcessLookupError:
                if fd >= 0:
                    os.close(self.fds.pop(pid))
            except OSError:
                return False
        return False

    def stop(self):
        """Stop the family; the pids stopped here (not those stopped
        already), until a walk finds none new, each seen stopped, every
        thread of it (a signal is delivered when its thread next enters
        the kernel) or STOP_WAIT_S passed; and whether each was seen
        stopped."""
        done, mine = set(), []
        while True:
            new = [p for p in self.family.pids() if p not in done]
            if not new:
                deadline = time.monotonic() + STOP_WAIT_S
                while not all(self.stopped(p, STOP_HOLDS) for p in mine):
                    if time.monotonic() > deadline:
                        self.rec["stop_timeouts"] = self.rec.get("stop_timeouts", 0) + 1
                        return mine, False
                    time.sleep(0)
                return mine, True
            for pid in new:
                done.add(pid)
                if self.stopped(pid):
                    self.rec["left_stopped"] += 1
                elif self.signal(pid, signal.SIGSTOP):
                    mine.append(pid)

    def stopped(self, pid, states_held=CANNOT_RUN):
        """No thread of pid can run (each in states_held), or it is gone."""
        states = self.family.thread_states(pid)
        return states is None or all(st in states_held for st in states)

    def cont(self, pids):
        for pid in pids:
            self.signal(pid, signal.SIGCONT, again=False)

    def end_family(self):
        """Kill every process of the family (settle: whose work the GPU
        holds)."""
        for pid in self.family.pids():
            self.signal(pid, signal.SIGKILL)

    def close(self):
        for fd in self.fds.values():
            if fd is not None and fd >= 0:
                os.close(fd)
        self.fds = {}

    def around(self, fn):
        """fn() (one timed call of the reference) with the family stopped
        and, on a GPU, the GPU quiet."""
        t0 = time.perf_counter_ns()
        pids, whole = self.stop()
        t1 = time.perf_counter_ns()
        self.rec["stops"] += 1
        self.rec["processes_max"] = max(self.rec["processes_max"], len(pids))
        self.rec["stop_us_total"] += (t1 - t0) / 1e3
        frozen = False
        try:
            if self.cuda and self.buf is not None:
                self.settle()
            h0 = time.perf_counter_ns()
            frozen = self.freeze(True)
            # the account: its CPU across the call is a stop undone, where
            # every process was seen stopped (else the reference's budget
            # counts it, as without stops); and so is any of it that ran
            marks = self.family.marks() if whole else None
            self.family.held = whole
            self.rec["hold_us_total"] += (time.perf_counter_ns() - h0) / 1e3
            try:
                return fn()
            finally:
                self.family.held = False
                h0 = time.perf_counter_ns()
                if marks is not None:
                    ran = self.family.ran_since(marks)
                    if ran:
                        self.family.held_ran(ran)
                self.rec["hold_us_total"] += (time.perf_counter_ns() - h0) / 1e3
        finally:
            if frozen:
                self.freeze(False)
            self.cont(pids)
            # the windows outside the calls leave out the time it was
            # stopped for (from the last process seen stopped), where every
            # process was: what one not yet stopped ran is judged against
            # the whole wall
            if whole:
                self.family.paused_ns += time.perf_counter_ns() - t1

    def freeze(self, on):
        """The family's cgroup (account.Family.count_cgroup) frozen (on)
        or thawed, where it has one: a frozen process runs for no SIGCONT
        (a POSIX timer's undoing the stop, a chain of children each
        continued by its own) and forks nothing.  Frozen once its
        cgroup.events says so, within STOP_WAIT_S (its processes are
        stopped already: about 0.1 ms); True where it froze."""
        fds = getattr(self.family, "cg_freeze", None)
        if not fds:
            return False
        try:
            os.pwrite(fds[0], b"1" if on else b"0", 0)
            if not on:
                return False
            deadline = time.monotonic() + STOP_WAIT_S
            while True:
                if b"frozen 1" in os.pread(fds[1], 256, 0):
                    self.rec["frozen"] = self.rec.get("frozen", 0) + 1
                    return True
                if time.monotonic() > deadline:
                    self.rec["freeze_timeouts"] = self.rec.get("freeze_timeouts", 0) + 1
                    return True         # asked: thawed after the call all the same
                time.sleep(0)
        except OSError as e:
            self.rec["freeze_error"] = str(e)[:200]
            return False

    def settle(self):
        """Wait for a quiet GPU (the family stopped); past QUIET_WAIT_S
        the family is killed, and the GPU quiet or not then says whose the
        work was."""
        waited = self.wait_quiet(QUIET_WAIT_S)
        if waited is not None:
            if waited > 0:
                ms = waited * 1e3
                self.rec["waits"] += 1
                self.rec["wait_ms_total"] += ms
                self.rec["wait_ms_max"] = max(self.rec["wait_ms_max"], ms)
            return
        self.end_family()
        after = self.wait_quiet(KILL_WAIT_S)
        ev = dict(self.summary(), rule="the GPU stayed busy for %.1f s with the candidate's "
                  "processes stopped" % QUIET_WAIT_S)
        if after is None:
            raise ToolBusy("the GPU stayed busy %.1f s after the candidate's processes were "
                           "stopped and %.1f s after they were killed: work of neither the "
                           "judge nor the candidate" % (QUIET_WAIT_S, KILL_WAIT_S))
        ev["quiet_after_kill_ms"] = round(after * 1e3, 3)
        ev["rule"] += ", and was quiet %.1f ms after they were killed" % (after * 1e3)
        raise BackgroundGpu(ev)

    def summary(self):
        """checks.quiet."""
        r = dict(self.rec, stop_us_total=round(self.rec["stop_us_total"], 1),
                 hold_us_total=round(self.rec["hold_us_total"], 1),
                 wait_ms_total=round(self.rec["wait_ms_total"], 3),
                 wait_ms_max=round(self.rec["wait_ms_max"], 3))
        if self.cuda:
            r["probe_bound_us"] = round(self.bound_ns() / 1e3, 2)
        return r
