"""The CPU account of a candidate's processes (replay/hrworker/account.py:
Family), on real processes: a child that stands for the candidate process
serves "calls" over a pipe, and between them does what each case says.
The account must count what the child, its threads, its children and the
orphans it leaves run between its calls, and nothing while it is idle.

Plain script: one line per check, exits non-zero on any failure.
"""
import ctypes
import os
import sys
import threading
import time

from workerlib import ROOT, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker.account import ALLOW_CUDA_NS, ALLOW_NS, BUSY_RUN_SHARE, Family  # noqa: E402

PR_SET_CHILD_SUBREAPER = 36


def spin(ms):
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < ms / 1e3:
        pass


HELPER = {}


def named_helper():
    """A long-lived thread named hr-helper (its comm) that spins 60 ms each
    time it is woken."""
    wake = threading.Event()

    def loop():
        ctypes.CDLL(None).prctl(15, b"hr-helper", 0, 0, 0)     # PR_SET_NAME
        while True:
            wake.wait()
            wake.clear()
            spin(60)
    threading.Thread(target=loop, daemon=True).start()
    return wake


def after_call(what):
    """In the stand-in candidate: what it does once a call has returned."""
    if what == b"i":                    # nothing
        return
    if what == b"d":                    # 1.5 ms of its own (a CUDA process's threads)
        spin(1.5)
    if what == b"n":                    # a named thread of its own, woken
        if "wake" not in HELPER:
            HELPER["wake"] = named_helper()
        HELPER["wake"].set()
    if what == b"s":                    # a thread of its own, spinning from now on
        if "spinner" not in HELPER:
            HELPER["spinner"] = threading.Thread(target=spin, args=(1e6,), daemon=True)
            HELPER["spinner"].start()
    if what == b"w":                    # a child starved of a CPU: 0.3 ms of work
        if os.fork() == 0:              # at SCHED_IDLE (waits while others run)
            os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
            t0 = time.process_time()
            while time.process_time() - t0 < 0.3e-3:
                pass
            os._exit(0)
    if what == b"t":                    # a thread that spins 60 ms, then ends
        threading.Thread(target=spin, args=(60,)).start()
    elif what == b"c":                  # a child that spins 60 ms, left unreaped
        if os.fork() == 0:
            spin(60)
            os._exit(0)
    elif what == b"o":                  # an orphan in a session of its own
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                time.sleep(0.02)
                spin(60)
                os._exit(0)
            os._exit(0)


def stand_in(case, subreaper):
    """Fork the stand-in candidate process: each byte on its pipe is a
    call, answered at once; after each it does what case says."""
    req_r, req_w = os.pipe()
    rep_r, rep_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        if subreaper:
            ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        os.write(rep_w, b"s")           # started: as a candidate process's hello
        while os.read(req_r, 1) == b"c":
            os.write(rep_w, b"r")
            after_call(case)
        os._exit(0)
    # Its start-up (the fork's faults, ctypes) is over before any window
    # opens, as a candidate process has said hello before the timing phase.
    os.read(rep_r, 1)
    return pid, req_w, rep_r


def run(case, subreaper=True, calls=4, armed=True, ref_s=0.1, timed=True, paused_s=0.0,
        allow_ns=ALLOW_NS, held=False):
    """The family's account of calls calls of the stand-in, each followed by
    ref_s outside its calls, during which the "reference" (a sleep) is
    timed; armed as the job's timing phase arms it (else its windows
    outside the calls are not counted); not timed: the judge only waits
    (the reference's timed calls elsewhere, its process stopped then);
    paused_s of each window told as the time the judge had the family
    stopped (quiet.Quiet); held: the reference timed with the family told
    stopped (as quiet.Quiet tells it), though it is not."""
    pid, req_w, rep_r = stand_in(case, subreaper)
    fam = Family(pid, judge=-1, parent=os.getpid(), allow_ns=allow_ns)
    fam.arm(armed)
    fam.leave()
    for _ in range(calls):
        fam.enter("call")
        os.write(req_w, b"c")
        os.read(rep_r, 1)
        fam.leave("called")
        if timed:
            fam.held = held
            fam.around(lambda: time.sleep(ref_s))
            fam.held = False
        else:
            time.sleep(ref_s)
        fam.paused_ns += int(paused_s * 1e9)
    fam.enter("quit")
    os.write(req_w, b"q")
    os.waitpid(pid, 0)
    rec = fam.summary()
    found = fam.finding()
    fam.close()
    return rec, found


# The test process stands for the worker: a subreaper, so that an orphan
# the stand-in leaves, once its subreaper flag is unset, comes here.
ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)

# Its windows may still list one over ALLOW_NS (0.2 ms): the stand-in's
# own wake-up from its read now and then took 0.29 ms on the 2-core host
# (one run in seven); a listed window is where to look, not a finding.
rec, found = run(b"i")
check(rec["source"] == "process CPU clocks" and found is None and
      rec["outside_excess_ms"] < 1 and rec["outside_windows"] == 5 and
      rec["reference_calls"] == 4 and rec["outside_busy_windows"] == 0 and
      all(w["cpu_ms"] < 1 for w in rec["largest_windows"]),
      "an idle candidate: nothing outside its calls, no finding (%r)" % rec)

# An honest CUDA candidate's process after each reply: its own threads
# work a little (1.5 ms of 4 ms windows, as on the H100), no finding.
rec, found = run(b"d", calls=12, ref_s=0.004, timed=False)
check(found is None and rec["outside_cpu_ms"] > 3 and rec["outside_excess_ms"] < 2,
      "1.5 ms of its own threads' work in each 4 ms window: within WINDOW_SHARE, no "
      "finding (%.1f ms outside, %.1f ms over)" % (rec["outside_cpu_ms"],
                                                   rec["outside_excess_ms"]))

# The same work where the judge had the family stopped for the 4 ms it
# waited in each window: the half is of the little left, and it counts.
rec, found = run(b"d", calls=12, ref_s=0.004, timed=False, paused_s=0.004)
check(found is not None and rec["outside_excess_ms"] > 5 and rec["stopped_ms"] > 40,
      "1.5 ms in each window, stopped for all but its own time: counted, background-work "
      "(%.1f ms over, %.1f ms stopped)" % (rec["outside_excess_ms"], rec["stopped_ms"]))

# A CUDA job: its process's threads finish an op's work after the reply
# (up to 2.5 ms on the H100), which the stop only defers: within
# ALLOW_CUDA_NS whatever the window's runnable wall; a spinner still counts.
rec, found = run(b"d", calls=12, ref_s=0.004, timed=False, paused_s=0.0035,
                 allow_ns=ALLOW_CUDA_NS)
check(found is None and rec["outside_excess_ms"] < 1,
      "a CUDA job, 1.5 ms after each reply in windows stopped but 0.5 ms: no finding "
      "(%.1f ms over)" % rec["outside_excess_ms"])
rec, found = run(b"t", allow_ns=ALLOW_CUDA_NS, timed=False, paused_s=0.1)
check(found is not None and rec["outside_excess_ms"] > 4 * 5,
      "a CUDA job, a thread spinning 60 ms after each call in windows stopped but for "
      "its own time: background-work, 3 ms a window admitted (%.1f ms over)"
      % rec["outside_excess_ms"])

# 1.5 ms of its CPU across each of two 20 ms reference calls: under the
# reference's budget (5 ms beyond 0.2 ms a call; the fork's copy-on-write
# faults in the first call count too); with the family stopped for them,
# a stop undone (in two of three calls at least: the judge may come to a
# call after the 1.5 ms).
rec, found = run(b"d", calls=2, ref_s=0.02)
check(found is None, "1.5 ms across each of 2 reference calls: within the budget (%r)"
      % (found and found.get("rule")))
# 200 ms calls: 5 % of their wall is above the family's CPU, so the
# reference's budget, whose rule would be named first, stays unmet.  Five
# calls: the rule wants two, and the judge may come to any one of them
# after its 1.5 ms (one of three calls in one run of six).
rec, found = run(b"d", calls=5, ref_s=0.2, held=True)
check(found is not None and rec["reference_stopped_busy_calls"] >= 2
      and "stop undone" in found["rule"],
      "the same with its processes stopped for the calls: background-work, a stop undone "
      "(%r, %s busy calls)" % (found and found.get("rule"), rec["reference_stopped_busy_calls"]))

for case, what in ((b"t", "a thread of its own process"),
                   (b"c", "a child process"),
                   (b"o", "an orphan in a session of its own, beneath its subreaper")):
    rec, found = run(case)
    check(found is not None and rec["outside_excess_ms"] > 4 * 5 and
          rec["reference_cpu_ms"] > 4 * 20,
          "%s spinning 60 ms after each call: counted, background-work (%.1f ms outside, "
          "%.1f ms while the reference was timed, %d processes)"
          % (what, rec["outside_excess_ms"], rec["reference_cpu_ms"], rec["processes"]))
    big = rec["largest_windows"]
    check(len(big) == 3 and all(w["cpu_ms"] > 20 and w["after"] == "called"
                                and w["before"] in ("call", "quit") for w in big)
          and big[0]["cpu_ms"] >= big[-1]["cpu_ms"],
          "%s: the three largest windows kept, largest first, each named by the reply "
          "that opened it and the request that closed it (%r)" % (what, big))
    if case == b"t":
        ran = [t for w in big for t in w.get("threads_since_last_reading", [])]
        ended = [w.get("ended_threads_ms", 0) for w in big]
        check(all(e > 20 for e in ended) and all(t["cpu_ms"] < 20 for t in ran)
              and all(isinstance(t["name"], str) and t["tid"] > 0 for t in ran),
              "a thread of its own process that ends within the window: its time is the "
              "ended threads', not a live thread's (%r; %r)" % (ended, ran))

rec, found = run(b"n")
ran = [t for w in rec["largest_windows"] for t in w.get("threads_since_last_reading", [])]
check(found is not None and any(t["name"] == "hr-helper" and t["cpu_ms"] > 20 for t in ran),
      "a named thread of its own process, alive: the windows name it with its time (%r)" % ran)

# Unarmed (before or after the timing phase: a CUDA context's start, a
# profiler's buffers after the audit's pass): windows outside the calls are
# not counted; what runs while the reference is timed still is.
rec, found = run(b"t", armed=False)
check(rec["outside_windows"] == 0 and rec["outside_excess_ms"] == 0 and
      rec["reference_cpu_ms"] > 4 * 20 and found is not None
      and found["rule"] == "while the reference was timed",
      "unarmed: no window outside the calls counted, the reference's timed calls "
      "still are (%r)" % rec)

rec, found = run(b"o", subreaper=False)
check(found is not None and rec["outside_excess_ms"] > 4 * 5 and rec["processes"] > 4,
      "an orphan whose subreaper was unset, now the worker's child: counted (%.1f ms, "
      "%d processes)" % (rec["outside_excess_ms"], rec["processes"]))



def contended(fn):
    """fn() while two busy loops run for every CPU of this machine (other
    jobs' processes, another worker): a thread of the family gets a share
    of the wall only, under WINDOW_SHARE."""
    hogs = []
    for _ in range(2 * (os.cpu_count() or 1)):
        pid = os.fork()
        if pid == 0:
            while True:
                pass
        hogs.append(pid)
    # The worker's children born since the candidate process are of its
    # family (orphans land there), and a start time is in clock ticks:
    # the loops start a few ticks before the stand-in.
    time.sleep(0.05)
    try:
        return fn()
    finally:
        for pid in hogs:
            os.kill(pid, 9)
            os.waitpid(pid, 0)


# A thread spinning between the calls while every CPU is held by another
# process: it runs for a share of each window only, under WINDOW_SHARE, but
# is on a run queue for the rest: the windows read busy.  The stop of a
# robust job keeps it off the reference's calls (not timed here), so the
# windows are the evidence.
rec, found = contended(lambda: run(b"s", calls=8, ref_s=0.02, timed=False))
check(found is not None and rec["outside_busy_windows"] >= 4
      and rec["outside_busy_wall_ms"] > 0.25 * rec["outside_wall_ms"],
      "a thread spinning outside the calls, every CPU held by other processes: busy windows, "
      "background-work (%d of %d windows busy, %.1f of %.1f ms; %.1f ms over the CPU share; %s)"
      % (rec["outside_busy_windows"], rec["outside_windows"], rec["outside_busy_wall_ms"],
         rec["outside_wall_ms"], rec["outside_excess_ms"], found and found["rule"]))
# Its honest twins under the same contention: 1.5 ms of an op's work after
# each reply (waiting for a CPU longer than it ran), and an idle process.
for allow, what in ((ALLOW_NS, "a CPU job"), (ALLOW_CUDA_NS, "a CUDA job")):
    rec, found = contended(lambda: run(b"d", calls=12, ref_s=0.004, timed=False,
                                       allow_ns=allow))
    check(found is None and rec["outside_busy_windows"] == 0,
          "%s, 1.5 ms of its own threads' work after each reply, every CPU held by other "
          "processes: no busy window, no finding (%r)" % (what, found and found["rule"]))
# A thread of the family waiting for a CPU through whole windows while it
# barely runs (starved: the busy loops at normal priority, it at
# SCHED_IDLE) is a victim of the load, not background work: before
# BUSY_RUN_SHARE such windows read busy in 3 of 4 runs.
rec, found = contended(lambda: run(b"w", calls=12, ref_s=0.02, timed=False))
check(found is None and rec["outside_busy_windows"] <= 2,
      "a child starved of a CPU after each reply, every CPU held by other processes: "
      "no finding (%d of %d windows busy; %r)"
      % (rec["outside_busy_windows"], rec["outside_windows"], found and found["rule"]))
rec, found = contended(lambda: run(b"i", calls=8, ref_s=0.02, timed=False))
check(found is None and rec["outside_busy_windows"] == 0,
      "an idle candidate, every CPU held by other processes: no busy window (%r)" % rec)

fam = Family(2 ** 22 + 12345)
check(fam.source.startswith("none: ") and fam.read() == 0 and fam.finding() is None,
      "no such process: the account counts nothing and says why (%s)" % fam.source)
check(ALLOW_NS <= 500_000, "a window outside the calls admits half a millisecond at most")


def in_cgroup():
    """The family counted in a cgroup of its own (jail.JobCgroups
    .enter_candidate, as the job's process makes it): its cpu.stat
    agrees with the processes' clocks over an armed phase; a process of
    it moved out of that cgroup is background-work.  Needs a cgroup v2
    hierarchy this process may write (root)."""
    from hrworker.jail import JobCgroups
    cgs = JobCgroups.off("test")
    pid, req_w, rep_r = stand_in(b"d", True)
    where, why = cgs.enter_candidate("acct-test", [pid])
    if where is None:
        print("note: no cgroup for the family here (%s): its checks are not run" % why)
        os.write(req_w, b"q")
        os.waitpid(pid, 0)
        return
    fam = Family(pid, judge=-1, parent=os.getpid())
    fam.count_cgroup(where)
    try:
        for moved in (False, True):
            fam.arm(True)
            fam.leave()
            for _ in range(3):
                fam.enter("call")
                os.write(req_w, b"c")
                os.read(rep_r, 1)
                fam.leave("called")
                time.sleep(0.005)
            if moved:
                with open(os.path.join(os.path.dirname(where), "..", "cgroup.procs"), "w") as f:
                    f.write(str(pid))
            fam.enter("x")
            fam.arm(False)
            u, found = fam.summary()["unseen"], fam.finding()
            if not moved:
                check(abs(u["cgroup_ms"] - u["clocks_ms"]) < 1 and u["cgroup_ms"] > 3
                      and not u["outside_cgroup"] and found is None,
                      "counted in its cgroup: the cgroup's CPU is its clocks' (%s)" % u)
            else:
                check(u["outside_cgroup"] == [pid] and found is not None
                      and "left the cgroup" in found["rule"],
                      "a process of it moved out of its cgroup: background-work (%s, %s)"
                      % (u, found and found["rule"]))
    finally:
        fam.close()
        os.write(req_w, b"q")
        os.waitpid(pid, 0)
        cgs.remove("acct-test")
    # A worker killed before it removed its jobs' cgroups: the next
    # worker's start removes them (a gone pid's alone).
    dead = os.fork()
    if dead == 0:
        os._exit(0)
    os.waitpid(dead, 0)
    stale = os.path.join(os.path.dirname(where), "w%d-job-3" % dead)
    mine = os.path.join(os.path.dirname(where), "w%d-job-3" % os.getpid())
    os.makedirs(stale)
    os.makedirs(mine)
    try:
        n = cgs.sweep()
        check(n >= 1 and not os.path.exists(stale) and os.path.isdir(mine),
              "a gone worker's job cgroup is removed at a worker's start, a live one's kept "
              "(%d removed)" % n)
    finally:
        for p in (stale, mine):
            if os.path.isdir(p):
                os.rmdir(p)


in_cgroup()


def stale_run():
    """A thread's time on a CPU in a window (schedstat's, brought up to
    date only at a tick or a switch) that its process's clock did not run
    is not counted: the serving thread on a CPU when its reply was read
    showed its call's last tick as run in the window.  The thread, a
    sleeping child, is said runnable throughout a window of 6 ms in which
    schedstat gives it 5 ms on a CPU."""
    pid = os.fork()
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    fam = Family(pid)
    try:
        fam.read()
        now = fam.demand()
        fam.demand = lambda: {k: (run, ns, True) for k, (run, ns, _) in now.items()}
        since = {k: (run - 5_000_000, ns - 6_000_000, True) for k, (run, ns, _) in now.items()}
        still = fam.busiest(since, {pid: fam.members[pid].last})
        ran = fam.busiest(since, {pid: fam.members[pid].last - 5_000_000})
        check(still == (0, None, 0) and ran[0] == 6_000_000 and ran[2] == 5_000_000
              and 5 / 6 >= BUSY_RUN_SHARE,
              "a thread's run in a window is bounded by its process's clock: 5 ms of schedstat "
              "its clock did not run count for nothing (%r), 5 ms it did count (%r)"
              % (still, ran))
    finally:
        fam.close()
        os.kill(pid, 9)
        os.waitpid(pid, 0)


stale_run()
