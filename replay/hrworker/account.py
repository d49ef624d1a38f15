"""hrworker/account.py - the CPU time of a job's candidate process and of
every process it forked (its family), from the kernel's own accounts: each
process's CPU-time clock (clock_getcpuclockid(3): the run time of all its
threads, those that ended included, in ns) and the CPU time of the
children it reaped (/proc/PID/stat cutime and cstime).  The judge reads it
as each request goes out to the candidate process and as its final reply
comes in, and around each of its own timed calls of the reference: what
the family ran between its calls (while the judge timed the reference,
say) is work the candidate did outside its calls, which steals the CPU
the reference is timed on (background-work).  The candidate can neither
pause nor patch these counters.
Must not: signal, stop or otherwise touch the processes it reads."""
import os
import time

# What one window outside the candidate's calls may hold without counting
# (ns): the candidate process's serving thread returning to its socket after
# its reply went out, its CPU pool's threads spinning down after the call's
# last parallel region (OpenMP spins before it sleeps).
ALLOW_NS = 200_000

# What one window outside the calls may hold in a CUDA job instead of
# ALLOW_NS: the process's own threads finishing an op's work after its
# reply (below: up to 2.5 ms on the H100), which the judge's stop around a
# reference call only defers into the same window.
ALLOW_CUDA_NS = 3_000_000

# What one window outside the candidate's calls may hold beside ALLOW_NS,
# as a share of its wall (less the time the judge had the family stopped:
# quiet.Quiet): a CUDA process's own threads finishing an op's
# work after its reply.  On the H100 an honest CUDA candidate's process
# ran 1.4-2.5 ms in windows of 4.3-12.8 ms after the judge fetched its
# output (its serving thread, cuda-EvtHandlr and the context's thread;
# up to 58 % of a window, 12 % of the time outside its calls over the
# job), and read background-work with ALLOW_NS alone.  A thread spinning
# outside the calls takes the whole wall of every window.
WINDOW_SHARE = 0.5

# background-work: the family's CPU time outside its calls, beyond ALLOW_NS
# and WINDOW_SHARE of its wall a window, above BG_MIN_NS and BG_SHARE of
# the time outside them; or busy windows, their wall above BG_MIN_NS and
# BUSY_WALL_SHARE of the time outside the calls and the family's CPU in
# them above BG_MIN_NS (work done, as the other rules ask: an honest
# candidate's serving thread ran 1-3.4 ms in such a window after its
# fetched reply, the planted spinners 25 ms and more; the tool's own
# copies there are single-threaded, util.quiet_copy, since torch's OpenMP
# team spins 4-8 ms after a parallel copy): windows at whose close a
# thread of it was running or waiting to run (state R) after it had been
# on a CPU or waiting for one (its schedstat) beyond the window's
# allowance and BUSY_SHARE of its wall.  A spinner takes the whole wall of
# every window it can, but where other processes hold the CPUs it runs
# for a share of it only (a thread spinning between calls ran 26-40 % of
# the windows' wall beside two busy loops on two cores, under
# WINDOW_SHARE), while its time waiting to run shows it wanted all of it.
# The kernel adds a wait to schedstat only once the wait ends, so a
# thread waiting at a reading shows less than it waited (up to a few
# time slices where several processes share a CPU): hence the half, and
# the state at the close, which an honest thread that finished its work
# after the reply no longer shows.  Such a thread counts only where it ran
# BUSY_RUN_SHARE of that time at least (its run bounded by its process's
# clock: Family.busiest): a spinner beside the busy loops ran 26-40 % of
# it, where an honest thread starved of a CPU (one job's serving thread
# under make check's load: 0.61 ms on a CPU in 73 ms of windows; a thread
# at SCHED_IDLE beside busy loops, test_worker_account) waits nearly all of
# it and barely runs: in the planted suite's jobs beside its spinners,
# honest serving threads preempted between their reply and their next wait
# ran 1-3 % of it, a CPU pool's thread woken at its call's end 11.5 %; or,
# while the judge timed the reference, above BG_MIN_NS and BG_SHARE of the
# reference's timed wall.
BG_MIN_NS = 5_000_000
BG_SHARE = 0.05
BUSY_SHARE = 0.5
BUSY_RUN_SHARE = 0.2
BUSY_WALL_SHARE = 0.25

# A family the judge stopped for a reference call cannot run: more than
# HELD_NS of its CPU across such a call means a process undid the stop (a
# SIGCONT of its own: a POSIX timer, another process), in HELD_CALLS calls
# or more background-work whatever the budget above.  So does, in
# HELD_RAN_CALLS calls, a thread of it that was continued or scheduled
# meanwhile (its state, its run count: /proc/PID/task/TID/schedstat), a
# thread or process of it that ended or began meanwhile (Family.marks,
# ran_since): work done by children reaped unread (SIGCHLD ignored) is in
# no process's clock, but their parent ran.
HELD_NS = 50_000
HELD_CALLS = 2
# ... and one call in which a thread of it stopped then was continued,
# scheduled, or a thread or process of it began or ended: no honest
# process does any of these stopped (and, where its cgroup is frozen
# too, a continued thread runs no code: quiet.Quiet.freeze), so one is
# enough (planted-stop-undone.py, frozen, showed it in 2 to 5 of 8 calls).
HELD_RAN_CALLS = 1

# Where the judge counts the family in a cgroup of its own (its cpu.stat:
# every process that was in it, those reaped unread included), the CPU the
# cgroup ran over the timing phase beyond what the processes' clocks
# account for (children reaped unread: SIGCHLD ignored) is background-work
# above UNSEEN_MIN_NS and BG_SHARE of the phase's wall: the cgroup's count
# of a thread running at a reading may lag by a tick (update_curr), and
# reaped children's time comes in clock ticks.  So is a process of the
# family found outside that cgroup at the phase's end.
UNSEEN_MIN_NS = 20_000_000

# The largest windows kept in checks.background (each with what bounded it
# and its process's threads), and how many windows over ALLOW_NS have their
# threads read at most (a read is a listing of /proc/PID/task and a file a
# thread: paid only for a window that already counts).
LARGE_KEPT = 3
THREAD_READS_MAX = 8

CPUCLOCK_SCHED = 2
TICK_NS = 1_000_000_000 // os.sysconf("SC_CLK_TCK")


def process_clock(pid):
    """The clock id of process pid's CPU-time clock (the kernel's
    MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED))."""
    return ((~pid) << 3) | CPUCLOCK_SCHED


def stat_fields(raw):
    """/proc/PID/stat's fields after the command name (field 3 first)."""
    return raw.rsplit(b")", 1)[1].split()


def proc_stat(pid):
    """pid's /proc/PID/stat fields (stat_fields), or None where it cannot
    be read."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            return stat_fields(f.read())
    except (OSError, IndexError):
        return None


def thread_times(pid):
    """{tid: (name, ns on a CPU)} of pid's threads (/proc/PID/task/TID/comm
    and schedstat's first field); {} once it is gone."""
    out = {}
    try:
        tids = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for tid in tids:
        base = "/proc/%d/task/%s/" % (pid, tid)
        try:
            with open(base + "schedstat", "rb") as f:
                ns = int(f.read().split()[0])
            with open(base + "comm", "rb") as f:
                name = f.read().strip().decode("utf-8", "replace")[:32]
        except (OSError, ValueError, IndexError):
            continue
        out[int(tid)] = (name, ns)
    return out


def children_of(pid):
    """The pids of pid's children (every thread's /proc/.../children)."""
    out = []
    try:
        tasks = os.listdir("/proc/%d/task" % pid)
    except OSError:
        return out
    for tid in tasks:
        try:
            with open("/proc/%d/task/%s/children" % (pid, tid), "rb") as f:
                out += [int(x) for x in f.read().split()]
        except (OSError, ValueError):
            pass
    return out


def cgroup_line(pid):
    """pid's cgroup v2 line of /proc/PID/cgroup ("0::/path"), or None."""
    try:
        with open("/proc/%d/cgroup" % pid) as f:
            for line in f.read().splitlines():
                if line.startswith("0::"):
                    return line
    except OSError:
        pass
    return None


class Member:
    """One process of the family: its stat file (open: once the process is
    gone, reads fail, so a reused pid is never read for it) and its CPU
    clock; the last reading of both, ns."""

    def __init__(self, pid):
        self.pid, self.clock = pid, process_clock(pid)
        self.fd = os.open("/proc/%d/stat" % pid, os.O_RDONLY | os.O_CLOEXEC)
        self.start = int(stat_fields(os.pread(self.fd, 1024, 0))[19])
        self.last = 0
        self.threads = 0            # its thread count at the last read
        self.tasks = {}             # tid: its (schedstat, stat), open (demand)

    def read(self):
        """Its CPU time and that of its reaped children, ns; OSError once
        it is gone."""
        f = stat_fields(os.pread(self.fd, 1024, 0))
        reaped = (int(f[13]) + int(f[14])) * TICK_NS
        self.threads = int(f[17])
        self.last = time.clock_gettime_ns(self.clock) + reaped
        return self.last

    def demand(self):
        """{tid: (ns its thread was on a CPU, ns it was on a CPU or waiting
        on a run queue, whether it is running or waiting to run now)}
        (schedstat's first two fields, stat's state R), through files kept
        open: the thread
        listing is read again only when the count read last (read)
        differs from the files held; {} where the kernel keeps no
        schedstat."""
        if len(self.tasks) != self.threads:
            self.list_tasks()
        out = {}
        for tid, fds in list(self.tasks.items()):
            try:
                f = os.pread(fds[0], 128, 0).split()
                out[tid] = (int(f[0]), int(f[0]) + int(f[1]),
                            stat_fields(os.pread(fds[1], 1024, 0))[0] == b"R")
            except (OSError, ValueError, IndexError):   # ended
                self.drop_task(tid)
        return out

    def drop_task(self, tid):
        for fd in self.tasks.pop(tid):
            os.close(fd)

    def list_tasks(self):
        """Open the schedstat and stat of its threads not held yet; close
        those of threads gone.  The listing is of this process: its stat file
        still reads after it (a pid is not reused while its process is)."""
        try:
            tids = {int(t) for t in os.listdir("/proc/%d/task" % self.pid)}
            os.pread(self.fd, 1, 0)
        except (OSError, ValueError):
            tids = set()
        for tid in set(self.tasks) - tids:
            self.drop_task(tid)
        for tid in tids - set(self.tasks):
            fds = []
            try:
                for name in ("schedstat", "stat"):
                    fds.append(os.open("/proc/%d/task/%d/%s" % (self.pid, tid, name),
                                       os.O_RDONLY | os.O_CLOEXEC))
                self.tasks[tid] = tuple(fds)
            except OSError:
                for fd in fds:
                    os.close(fd)

    def close(self):
        os.close(self.fd)
        for tid in list(self.tasks):
            self.drop_task(tid)


class Family:
    """The candidate process's family: the candidate process (pid), every
    descendant (the candidate process is a child subreaper, so an orphan
    stays beneath it) and every child of the worker (parent) born since the
    candidate process that is not the judge (an orphan whose subreaper was
    unset lands there).  New processes are looked for when the pid namespace
    made one since the last reading (/proc/loadavg's last pid).  Where the
    kernel offers none of this, or the worker's environment has
    HEADROOM_ACCOUNT=0 (to measure what the account costs), source says
    why and every reading is 0."""

    def __init__(self, pid, judge=None, parent=None, allow_ns=ALLOW_NS):
        self.root, self.judge = pid, judge or os.getpid()
        self.allow_ns = allow_ns    # a window's own allowance (ALLOW_CUDA_NS in a CUDA job)
        self.parent = parent if parent is not None else os.getppid()
        self.members, self.gone_ns = {}, 0
        self.last_pid = None
        self.loadavg = None
        self.opened_by = None       # the reply that opened the window
        self.large = []             # the largest windows over ALLOW_NS
        self.busy = []              # the first busy windows (busiest's thread)
        self.thread_reads, self.threads_seen, self.root_seen = 0, {}, 0
        self.inside = True          # a request is out (hello, first)
        self.armed = False          # windows outside the calls count (arm)
        self.mark = 0               # the reading at the last final reply
        self.demand_mark = None     # demand() then, while armed
        self.clock_mark = {}        # {pid: its process clock} then (busiest)
        self.t_mark = 0
        self.paused_ns = 0          # how long the family was stopped (quiet.Quiet tells)
        self.held = False           # it is stopped now (quiet.Quiet), around a reference call
        self.paused_mark = 0        # paused_ns at the last final reply
        self.outside = {"windows": 0, "cpu_ns": 0, "excess_ns": 0, "wall_ns": 0,
                        "max_window_ns": 0, "busy_windows": 0, "busy_wall_ns": 0,
                        "busy_cpu_ns": 0}
        self.reference = {"calls": 0, "cpu_ns": 0, "wall_ns": 0, "busy_calls": 0,
                          "held_calls": 0, "held_busy_calls": 0, "held_ran_calls": 0,
                          "held_ran": None}
        self.processes = 1
        self.cost_ns, self.reads = 0, 0     # what reading took (the judge's time)
        self.cgroup, self.cg_fd, self.cg_line = None, None, None    # count_cgroup
        self.cg_freeze = None       # (cgroup.freeze for writing, cgroup.events)
        self.cg_mark = None         # (cgroup, clocks, wall) at arm(True)
        self.unseen = None          # what arm(False) found of the cgroup's CPU
        try:
            if os.environ.get("HEADROOM_ACCOUNT") == "0":
                raise OSError("HEADROOM_ACCOUNT=0 (the worker's environment)")
            self.loadavg = os.open("/proc/loadavg", os.O_RDONLY | os.O_CLOEXEC)
            self.members[pid] = Member(pid)
            self.root_start = self.members[pid].start
            self.read()
            self.source = "process CPU clocks"
        except (OSError, ValueError, IndexError) as e:
            self.close()
            self.source = "none: %s" % e

    # ------------------------------------------------------------ reading
    def count_cgroup(self, path):
        """Count the family in the cgroup at path too (the judge moved its
        processes there before candidate code ran: jail.JobCgroups)."""
        if self.loadavg is None or path is None:
            return
        try:
            self.cg_fd = os.open(os.path.join(path, "cpu.stat"), os.O_RDONLY | os.O_CLOEXEC)
            self.cgroup = path
            self.cg_read()
            self.cg_line = cgroup_line(self.root)   # as the kernel names it to this process
        except (OSError, ValueError):
            self.close_cgroup()
            return
        # Its freezer, opened now: the judge's own sandbox (Landlock, the
        # audit hook) refuses it a write outside its folders later
        # (quiet.Quiet.freeze).
        try:
            self.cg_freeze = (os.open(os.path.join(path, "cgroup.freeze"),
                                      os.O_WRONLY | os.O_CLOEXEC),
                              os.open(os.path.join(path, "cgroup.events"),
                                      os.O_RDONLY | os.O_CLOEXEC))
        except OSError:
            self.cg_freeze = None

    def cg_read(self):
        """The cgroup's CPU time so far (cpu.stat usage_usec), ns; None
        without one."""
        if self.cg_fd is None:
            return None
        for line in os.pread(self.cg_fd, 4096, 0).split(b"\n"):
            if line.startswith(b"usage_usec "):
                return int(line.split()[1]) * 1000
        raise ValueError("no usage_usec in %s/cpu.stat" % self.cgroup)

    def close_cgroup(self):
        if self.cg_fd is not None:
            os.close(self.cg_fd)
        for fd in self.cg_freeze or ():
            os.close(fd)
        self.cg_fd = self.cgroup = self.cg_freeze = None

    def outside_cgroup(self):
        """The family's processes that are not in its cgroup (their
        /proc/PID/cgroup's v2 line is not the candidate process's when it
        was moved there)."""
        out = []
        for pid in self.pids():
            line = cgroup_line(pid)
            if line is not None and line != self.cg_line:
                out.append(pid)
        return out

    def newest_pid(self):
        return os.pread(self.loadavg, 128, 0).split()[-1]

    def born_since(self, pid):
        f = proc_stat(pid)
        try:
            return f is not None and int(f[19]) >= self.root_start
        except (ValueError, IndexError):
            return False

    def walk(self):
        """Add the family's processes not yet known."""
        todo = list(self.members)
        todo += [p for p in children_of(self.parent)
                 if p != self.judge and p not in self.members and self.born_since(p)]
        seen = set(todo)
        while todo:
            pid = todo.pop()
            if pid not in self.members:
                try:
                    self.members[pid] = Member(pid)
                    self.processes += 1
                except (OSError, ValueError, IndexError):
                    continue        # gone already: its parent reaps its time
            for c in children_of(pid):
                if c not in seen:
                    seen.add(c)
                    todo.append(c)

    def refresh(self):
        """walk, where the pid namespace made a process since the last look."""
        newest = self.newest_pid()
        if newest != self.last_pid:
            self.last_pid = newest
            self.walk()

    def pids(self):
        """The family's pids now (refresh); the candidate process's alone
        without the accounts.  A pid may be of a process gone since its
        last reading."""
        if self.loadavg is None:
            return [self.root]
        self.refresh()
        return list(self.members)

    def state(self, pid):
        """The state letter (b"R", b"T", ...) of the process the family
        listed under pid, read through the stat file opened then (never
        another's that took the pid later); None once it is gone.  Without
        the accounts, the candidate process alone (the judge's child: its
        pid stays its own until the judge reaps it)."""
        if self.loadavg is None:
            f = proc_stat(pid) if pid == self.root else None
            return f[0] if f else None
        m = self.members.get(pid)
        if m is None:
            return None
        try:
            return stat_fields(os.pread(m.fd, 1024, 0))[0]
        except (OSError, IndexError):
            return None

    def thread_states(self, pid):
        """The state letters of every thread of the process the family
        lists under pid (a stopped process is one whose threads all are:
        its first thread shows stopped while another still runs to its
        own stop, or has exited and shows a zombie while the others run);
        None once it is gone (thread_runs, without the run counts)."""
        threads = self.thread_runs(pid, runs=False)
        return None if threads is None else [st for st, _ in threads.values()]

    def thread_runs(self, pid, runs=True):
        """{tid: (state letter, times scheduled)} of the process the family
        lists under pid (the count from schedstat; None where the kernel
        keeps none, or not asked: runs), or None once it is gone.  The
        listing is of that process: its stat file still reads after it (a
        pid is not reused while its process is)."""
        try:
            tids = os.listdir("/proc/%d/task" % pid)
        except OSError:
            return None
        out = {}
        for tid in tids:
            base = "/proc/%d/task/%s/" % (pid, tid)
            try:
                with open(base + "stat", "rb") as f:
                    st = stat_fields(f.read())[0]
            except (OSError, IndexError):
                continue        # ended meanwhile
            n = None
            if runs:
                try:
                    with open(base + "schedstat", "rb") as f:
                        n = int(f.read().split()[2])
                except (OSError, ValueError, IndexError):
                    pass
            out[int(tid)] = (st, n)
        return out if self.state(pid) is not None else None

    def marks(self):
        """What ran_since compares: every process of the family and its
        threads, with their run counts (taken with the family stopped)."""
        return {pid: self.thread_runs(pid) for pid in self.pids()}

    def ran_since(self, marks):
        """What of the family ran since marks were taken with it stopped:
        a list of what (empty: nothing).  A thread in an uninterruptible
        wait then (D) may finish it and take its stop; a zombie then may be
        reaped by the worker."""
        ran = []
        now = self.marks()
        for pid in now:
            if pid not in marks:
                ran.append("process %d began" % pid)
        for pid, threads in marks.items():
            if threads is None:
                continue
            after = now.get(pid)
            if after is None:
                if not all(st in (b"Z", b"X") for st, _ in threads.values()):
                    ran.append("process %d ended" % pid)
                continue
            for tid in after:
                if tid not in threads:
                    ran.append("thread %d of %d began" % (tid, pid))
            for tid, (st, runs) in threads.items():
                if st in (b"D", b"Z", b"X"):
                    continue
                if tid not in after:
                    ran.append("thread %d of %d ended" % (tid, pid))
                elif st in (b"T", b"t") and after[tid][0] not in (b"T", b"t"):
                    # continued: a frozen one shows it too, though it ran no code
                    ran.append("thread %d of %d was continued" % (tid, pid))
                elif runs is not None and after[tid][1] != runs:
                    ran.append("thread %d of %d was scheduled %d times" % (
                        tid, pid, (after[tid][1] or 0) - runs))
        return ran

    def held_ran(self, what):
        """quiet.Quiet: in a call the family was held stopped for, what of
        it ran (ran_since), counted towards a stop undone."""
        r = self.reference
        r["held_ran_calls"] += 1
        if r["held_ran"] is None:
            r["held_ran"] = what[:4]

    def read(self):
        """The family's CPU time so far, ns (0 without the accounts)."""
        if self.loadavg is None:
            return 0
        t0 = time.perf_counter_ns()
        self.refresh()
        total = self.gone_ns
        for pid, m in list(self.members.items()):
            try:
                total += m.read()
            except OSError:     # gone: what it ran until the last reading stays
                self.gone_ns += m.last
                total += m.last
                m.close()
                del self.members[pid]
        self.reads += 1
        self.cost_ns += time.perf_counter_ns() - t0
        return total

    # ------------------------------------------------------------ windows
    def arm(self, on):
        """Windows outside the calls count only while armed: from the
        timing phase's first request to its last reply (Job.stages).
        Before it the candidate's process may finish work of its own
        start-up (a CUDA context, modules loaded) and after it the audit's
        own passes (a profiler's buffers processed after the call), none
        of which the timed calls can share a CPU with; the reference's
        timed calls are counted by around whatever the arming."""
        was, self.armed = self.armed, bool(on)
        if self.armed and self.loadavg is not None and not self.threads_seen:
            self.threads_seen, self.root_seen = self.thread_reading()
        try:
            if self.armed and not was and self.cg_fd is not None:
                self.cg_mark = (self.cg_read(), self.read(), time.perf_counter_ns())
            elif was and not self.armed and self.cg_mark is not None:
                cg0, clocks0, t0 = self.cg_mark
                cg, clocks = self.cg_read(), self.read()
                self.unseen = {"cgroup_ms": (cg - cg0) / 1e6, "clocks_ms": (clocks - clocks0) / 1e6,
                               "wall_ms": (time.perf_counter_ns() - t0) / 1e6,
                               "outside_cgroup": self.outside_cgroup()}
                self.cg_mark = None
        except (OSError, ValueError) as e:
            self.unseen = {"error": str(e)}

    def enter(self, op=None):
        """A request (op) goes out: the window since the last final reply
        closes (counted while armed)."""
        if self.inside or self.loadavg is None or not self.armed:
            self.inside = True
            return
        now, t = self.read(), time.perf_counter_ns()
        # the wall it could run in: less the time the judge had it stopped
        cpu = now - self.mark
        wall = max(0, t - self.t_mark - (self.paused_ns - self.paused_mark))
        o = self.outside
        o["windows"] += 1
        o["cpu_ns"] += cpu
        o["excess_ns"] += max(0, cpu - self.allow_ns - int(WINDOW_SHARE * wall))
        o["wall_ns"] += wall
        o["max_window_ns"] = max(o["max_window_ns"], cpu)
        most = (self.busiest(self.demand_mark, self.clock_mark)
                if self.demand_mark is not None else None)
        if most is not None and most[0] > self.allow_ns + BUSY_SHARE * wall:
            o["busy_windows"] += 1
            o["busy_wall_ns"] += wall
            o["busy_cpu_ns"] += cpu
            if len(self.busy) < LARGE_KEPT:
                self.busy.append({"window": o["windows"], "wall_ms": wall / 1e6,
                                  "after": self.opened_by,
                                  "before": None if op is None else str(op)[:40],
                                  "pid": most[1][0], "tid": most[1][1],
                                  "ran_ms": most[2] / 1e6, "demand_ms": most[0] / 1e6,
                                  "cpu_ms": cpu / 1e6,
                                  "runnable_at_open": self.demand_mark.get(
                                      most[1], (0, 0, None))[2]})
        self.demand_mark = None
        if cpu > ALLOW_NS:
            self.keep_large(cpu, t - self.t_mark, op)
        self.inside = True

    def keep_large(self, cpu, wall, op):
        """A window over ALLOW_NS among the LARGE_KEPT largest: where it was
        (the reply that opened it, the request that closed it, its index
        among the windows) and, for the first THREAD_READS_MAX such
        windows, the candidate process's threads that ran since the last
        such reading (or the timing phase's start; calls included), by
        name: what to look at when an honest candidate is counted."""
        w = {"cpu_ms": cpu / 1e6, "wall_ms": wall / 1e6, "window": self.outside["windows"],
             "after": self.opened_by, "before": None if op is None else str(op)[:40]}
        if self.thread_reads < THREAD_READS_MAX:
            t0 = time.perf_counter_ns()
            self.thread_reads += 1
            now, root = self.thread_reading()
            ran = sorted(((ns - self.threads_seen.get(tid, ("", 0))[1], name, tid)
                          for tid, (name, ns) in now.items()), reverse=True)
            w["threads_since_last_reading"] = [{"name": n, "tid": tid, "cpu_ms": round(d / 1e6, 3)}
                                               for d, n, tid in ran[:6] if d > 0]
            # threads that ended meanwhile: the process's clock keeps their time
            w["ended_threads_ms"] = round(max(0, root - self.root_seen
                                              - sum(d for d, _, _ in ran if d > 0)) / 1e6, 3)
            self.threads_seen, self.root_seen = now, root
            self.cost_ns += time.perf_counter_ns() - t0
        self.large.append(w)
        self.large.sort(key=lambda x: -x["cpu_ms"])
        del self.large[LARGE_KEPT:]

    def demand(self):
        """{(pid, tid): (ns on a CPU, ns on a CPU or waiting for one,
        running or waiting to run now)} of the family's threads
        (Member.demand); read
        after read(), which counts each process's threads."""
        t0 = time.perf_counter_ns()
        out = {}
        for pid, m in self.members.items():
            for tid, ns in m.demand().items():
                out[(pid, tid)] = ns
        self.cost_ns += time.perf_counter_ns() - t0
        return out

    def busiest(self, since, clocks):
        """The most one thread of the family that is running or waiting to
        run now, and that ran BUSY_RUN_SHARE of it at least, was on a CPU
        or waiting for one since the demand() reading since (all of it
        for a thread born meanwhile): (that ns, (pid, tid), ns it ran),
        (0, None, 0) where no thread is.  What a thread ran is bounded by
        what its process's clock ran since clocks ({pid: ns}, read with
        since): schedstat's time on a CPU is brought up to date only at a
        tick or a switch, so a thread on a CPU at the reading since (the
        serving thread that has just sent its reply) shows up to a tick
        of its call's work as run in the window, where the process clock
        is exact (an honest serving thread, then preempted before its
        next wait, read 1.96 ms run in a 1.45 ms window)."""
        most = (0, None, 0)
        for k, (run, ns, runnable) in self.demand().items():
            run0, ns0, _ = since.get(k, (0, 0, False))
            m = self.members.get(k[0])
            ran = run - run0 if m is None else min(run - run0, m.last - clocks.get(k[0], 0))
            if runnable and ran >= BUSY_RUN_SHARE * (ns - ns0) and ns - ns0 > most[0]:
                most = (ns - ns0, k, ran)
        return most

    def thread_reading(self):
        """The candidate process's threads (thread_times) and its own CPU
        clock (every thread's, ended ones included), read together."""
        threads = thread_times(self.root)
        try:
            root = time.clock_gettime_ns(process_clock(self.root))
        except OSError:
            root = self.root_seen
        return threads, root

    def leave(self, what=None):
        """A final reply (of type what) came in: a window outside the calls
        opens."""
        if self.loadavg is None:
            return
        self.mark, self.t_mark = self.read(), time.perf_counter_ns()
        self.demand_mark = self.demand() if self.armed else None
        self.clock_mark = {pid: m.last for pid, m in self.members.items()} if self.armed else {}
        self.paused_mark = self.paused_ns
        self.opened_by = None if what is None else str(what)[:40]
        self.inside = False

    def around(self, fn):
        """fn() (one timed call of the reference, in the judge), the
        family's CPU time across it counted."""
        if self.loadavg is None or self.inside:
            return fn()
        c0, t0 = self.read(), time.perf_counter_ns()
        try:
            return fn()
        finally:
            t1 = time.perf_counter_ns()
            cpu = self.read() - c0
            r = self.reference
            r["calls"] += 1
            r["cpu_ns"] += cpu
            r["wall_ns"] += t1 - t0
            r["busy_calls"] += cpu > ALLOW_NS
            if self.held:
                r["held_calls"] += 1
                r["held_busy_calls"] += cpu > HELD_NS

    # ------------------------------------------------------------ the rule
    def summary(self):
        """checks.background: what was counted, in ms."""
        o, r = self.outside, self.reference
        return {"source": self.source, "processes": self.processes,
                "outside_windows": o["windows"], "outside_cpu_ms": o["cpu_ns"] / 1e6,
                "outside_excess_ms": o["excess_ns"] / 1e6,
                "outside_wall_ms": o["wall_ns"] / 1e6,
                "stopped_ms": self.paused_ns / 1e6,
                "outside_max_window_ms": o["max_window_ns"] / 1e6,
                "outside_busy_windows": o["busy_windows"],
                "outside_busy_wall_ms": o["busy_wall_ns"] / 1e6,
                "outside_busy_cpu_ms": o["busy_cpu_ns"] / 1e6,
                "busy_windows_first": [{k: round(v, 3) if isinstance(v, float) else v
                                        for k, v in w.items()} for w in self.busy],
                "reference_calls": r["calls"], "reference_cpu_ms": r["cpu_ns"] / 1e6,
                "reference_wall_ms": r["wall_ns"] / 1e6,
                "reference_busy_calls": r["busy_calls"],
                "reference_stopped_calls": r["held_calls"],
                "reference_stopped_busy_calls": r["held_busy_calls"],
                "reference_stopped_ran_calls": r["held_ran_calls"],
                "reference_stopped_ran_first": r["held_ran"],
                "largest_windows": [{k: round(v, 3) if isinstance(v, float) else v
                                     for k, v in w.items()} for w in self.large],
                "cgroup": self.cgroup, "unseen": self.unseen,
                "allowed_per_window_ms": self.allow_ns / 1e6,
                "allowed_window_share": WINDOW_SHARE,
                "reads": self.reads, "reads_ms": self.cost_ns / 1e6}

    def finding(self):
        """The evidence of background-work, or None."""
        o, r = self.outside, self.reference
        out = o["excess_ns"] > max(BG_MIN_NS, BG_SHARE * o["wall_ns"])
        busy = (o["busy_wall_ns"] > max(BG_MIN_NS, BUSY_WALL_SHARE * o["wall_ns"])
                and o["busy_cpu_ns"] > BG_MIN_NS)
        ref = r["cpu_ns"] - r["calls"] * ALLOW_NS > max(BG_MIN_NS, BG_SHARE * r["wall_ns"])
        held = r["held_busy_calls"] >= HELD_CALLS or r["held_ran_calls"] >= HELD_RAN_CALLS
        u = self.unseen or {}
        unseen = ("cgroup_ms" in u and (u["cgroup_ms"] - u["clocks_ms"]) * 1e6
                  > max(UNSEEN_MIN_NS, BG_SHARE * u["wall_ms"] * 1e6))
        left = bool(u.get("outside_cgroup"))
        if not (out or busy or ref or held or unseen or left):
            return None
        rule = ("outside its calls" if out else
                "outside its calls, a thread of it runnable throughout windows" if busy else
                "while the reference was timed" if ref else
                "while the reference was timed with its processes stopped (a stop undone)"
                if held else "in its cgroup, by processes no reading saw (reaped unread)"
                if unseen else "a process of it left the cgroup it is counted in")
        return dict({k: round(v, 6) if isinstance(v, float) else v
                     for k, v in self.summary().items()}, rule=rule)

    def close(self):
        for m in self.members.values():
            m.close()
        self.members = {}
        self.close_cgroup()
        if self.loadavg is not None:
            os.close(self.loadavg)
            self.loadavg = None
