"""Robust mode's stops of the candidate's processes around the judge's
timed calls of the reference (replay/hrworker/quiet.py: Quiet), on real
processes: a stand-in candidate process with spinning children, a child
it stopped itself, an orphan it left at the "worker" (this process, a
subreaper).  Around the judge's call every process of the family is
stopped and takes no CPU; after it each runs again, but the one the
candidate had stopped itself; a process forked just before the stop is
stopped too.  The GPU's part (settle) on a stand-in torch whose probe is
slow while its "GPU" is busy: busy for a while, the judge waits; busy
until the family is killed, background-work; busy after that, the tool's.
Plain script: one line per check, exits non-zero on any failure.
"""
import ctypes
import os
import signal
import sys
import time
import types

from workerlib import ROOT, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker import quiet  # noqa: E402
from hrworker.account import Family, proc_stat  # noqa: E402
from hrworker.quiet import BackgroundGpu, Quiet, ToolBusy  # noqa: E402

PR_SET_CHILD_SUBREAPER = 36


def spin_forever():
    while True:
        pass


def state(pid):
    f = proc_stat(pid)
    return "gone" if f is None else f[0].decode()


def cpu_ns(pids):
    total = 0
    for p in pids:
        try:
            total += time.clock_gettime_ns(((~p) << 3) | 2)
        except OSError:
            pass
    return total


def stand_in():
    """The stand-in candidate process: two spinning children, one child it
    stops itself, an orphan spinner in a session of its own (left at
    this process once the stand-in's subreaper flag is off); it spins
    too.  Its pids come back on a pipe."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        kids = []
        for _ in range(2):
            k = os.fork()
            if k == 0:
                spin_forever()
            kids.append(k)
        held = os.fork()
        if held == 0:
            spin_forever()
        os.kill(held, signal.SIGSTOP)
        if os.fork() == 0:          # a zombie: never reaped
            os._exit(0)
        o = os.fork()
        if o == 0:
            os.setsid()
            g = os.fork()
            if g == 0:
                spin_forever()
            os.write(w, b"%d\n" % g)
            os._exit(0)
        os.waitpid(o, 0)
        os.write(w, b"%s\n" % " ".join(str(k) for k in kids + [held]).encode())
        spin_forever()
    f = os.fdopen(r)
    orphan = int(f.readline())
    rest = [int(x) for x in f.readline().split()]
    return pid, rest[:2], rest[2], orphan


def stops():
    pid, kids, held, orphan = stand_in()
    while state(held) not in ("T", "t"):
        time.sleep(0.01)
    fam = Family(pid, judge=-1, parent=os.getpid())
    q = Quiet(fam, None, False)
    running = [pid] + kids + [orphan]
    seen = {}

    def reference():
        before = cpu_ns(running)
        time.sleep(0.2)
        seen["cpu_ms"] = (cpu_ns(running) - before) / 1e6
        seen["states"] = {p: state(p) for p in running + [held]}
    try:
        q.around(reference)
        time.sleep(0.05)
        after = {p: state(p) for p in running + [held]}
        check(fam.reference["held_ran_calls"] == 0,
              "a family held stopped, a zombie of it among them: nothing of it ran (%s)"
              % fam.reference["held_ran"])
        check(all(v in ("T", "t") for v in seen["states"].values()),
              "around the judge's call every process of the family is stopped (%s)"
              % seen["states"])
        check(seen["cpu_ms"] < 5, "and takes no CPU (%.2f ms in 200 ms, 4 spinners)"
              % seen["cpu_ms"])
        check(all(after[p] == "R" for p in running) and after[held] in ("T", "t"),
              "after it each runs again but the one the candidate had stopped itself (%s)"
              % after)
        rec = q.summary()
        check(rec["stops"] == 1 and rec["processes_max"] == 4 and rec["left_stopped"] == 2
              and "stop_timeouts" not in rec and rec["stop_us_total"] < 40_000,
              "checks.quiet counts the stop, the four stopped, the one stopped already and "
              "the zombie left, no wait for either (%s)" % rec)
        # A process that joins the family once the judge has listed it (a
        # child of the "worker" born since the candidate process) is found
        # by the walk the stop makes and stopped too.
        late = os.fork()
        if late == 0:
            spin_forever()
        try:
            q.around(lambda: seen.update(late=state(late)))
        finally:
            os.kill(late, signal.SIGKILL)
            os.waitpid(late, 0)
        # A process gone whose pid another process took (pid_max may be
        # 32768): the family's record of it no longer reads, and the stop
        # leaves the newcomer alone.
        other = os.fork()
        if other == 0:
            spin_forever()
        try:
            from hrworker.account import Member
            r, w = os.pipe()
            dead = os.fork()
            if dead == 0:
                os.read(r, 1)
                os._exit(0)
            old = Member(dead)
            os.write(w, b"x")
            os.waitpid(dead, 0)
            fam.members[other] = old    # the newcomer under a record of the gone
            q.fds.pop(other, None)
            q.around(lambda: seen.update(newcomer=state(other)))
        finally:
            os.kill(other, signal.SIGKILL)
            os.waitpid(other, 0)
    finally:
        q.close()
        fam.close()
        for p in [pid, orphan, held] + kids:
            try:
                os.kill(p, signal.SIGKILL)
            except OSError:
                pass
        # the stand-in's, and those it left at this process (a subreaper)
        while True:
            try:
                os.waitpid(-1, 0)
            except ChildProcessError:
                break
    return seen


class FakeGpu:
    """A stand-in torch whose synchronize takes 2 ms while busy() says so
    (another context's kernel holding the GPU), 5 us otherwise."""

    def __init__(self, busy):
        self.busy = busy
        outer = self
        self.cuda = types.SimpleNamespace(synchronize=lambda: time.sleep(
            0.002 if outer.busy() else 5e-6))

    def zeros(self, n, device=None):
        return types.SimpleNamespace(add_=lambda v: None)


def settle():
    quiet.QUIET_WAIT_S, quiet.KILL_WAIT_S = 0.3, 0.3
    killed = {"n": 0}
    fam = types.SimpleNamespace(pids=lambda: [], paused_ns=0, held=False,
                                marks=lambda: {}, ran_since=lambda m: [], held_ran=None)

    def job(busy, kill_ends):
        q = Quiet(fam, None, True)

        def end():
            killed["n"] += 1
            if kill_ends:
                q.busy_until = 0
        q.end_family = end
        q.busy_until = 0
        q.torch = FakeGpu(lambda: time.monotonic() < q.busy_until)
        q.calibrate()
        q.busy_until = time.monotonic() + busy
        return q
    q = job(0, True)
    q.around(lambda: None)
    check(q.summary()["waits"] == 0 and q.summary()["busy_probes"] == 0 and killed["n"] == 0,
          "a quiet GPU: no wait (%s)" % q.summary())
    q = job(0.05, True)
    q.around(lambda: None)
    rec = q.summary()
    check(rec["waits"] == 1 and 40 < rec["wait_ms_max"] < 200 and killed["n"] == 0,
          "busy for 50 ms (work launched before the stop): the judge waits, kills nothing (%s)"
          % rec)

    def outcome(q):
        try:
            q.around(lambda: None)
        except (BackgroundGpu, ToolBusy) as e:
            return e
        return None
    got = outcome(job(100, True))
    check(isinstance(got, BackgroundGpu) and killed["n"] == 1
          and "quiet_after_kill_ms" in got.evidence,
          "busy until the family is killed: background-work (%r)" % getattr(got, "evidence", got))
    got = outcome(job(100, False))
    check(isinstance(got, ToolBusy) and killed["n"] == 2,
          "busy after the family is killed: the tool's, not the candidate's (%r)" % got)


def thread_states(pid):
    out = []
    for tid in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/stat" % (pid, tid), "rb") as f:
                out.append(f.read().rsplit(b")", 1)[1].split()[0].decode())
        except OSError:
            pass
    return out


def first_thread_gone():
    """A process whose first thread exited (pthread_exit: its stat reads
    a zombie) while another thread spins: it can run, so it is stopped,
    and the stop waits for every thread of it."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        import threading
        threading.Thread(target=spin_forever, daemon=True).start()
        os.write(w, b"!")
        ctypes.CDLL(None).pthread_exit(None)
        os._exit(1)
    os.read(r, 1)
    while state(pid) != "Z":
        time.sleep(0.01)
    fam = Family(pid, judge=-1, parent=os.getpid())
    q = Quiet(fam, None, False)
    seen = {}

    def reference():
        before = cpu_ns([pid])
        seen["threads"] = thread_states(pid)
        time.sleep(0.1)
        seen["cpu_ms"] = (cpu_ns([pid]) - before) / 1e6
    try:
        q.around(reference)
        check(seen["cpu_ms"] < 2 and all(t in ("T", "t", "Z") for t in seen["threads"])
              and q.summary()["left_stopped"] == 0,
              "a process whose first thread exited, another spinning, is stopped: every "
              "thread (%s), %.2f ms of CPU in 100 ms" % (seen["threads"], seen["cpu_ms"]))
        time.sleep(0.05)
        check("R" in thread_states(pid), "and runs again after (%s)" % thread_states(pid))
    finally:
        q.close()
        fam.close()
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def stop_not_seen():
    """A process never seen stopped within STOP_WAIT_S (a thread in an
    uninterruptible wait; here a family that always reads it running):
    the stop is counted a timeout, its CPU across the reference call is
    not "a stop undone" (the reference's budget counts it) and the window
    keeps its whole wall."""
    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    fam = types.SimpleNamespace(held=False, paused_ns=0, pids=lambda: [pid],
                                state=lambda p: b"S", thread_states=lambda p: [b"R"])
    q = Quiet(fam, None, False)
    seen = {}
    try:
        q.around(lambda: seen.update(held=fam.held))
        check(seen == {"held": False} and fam.paused_ns == 0
              and q.summary().get("stop_timeouts") == 1,
              "a stop never seen whole: a timeout, not held, no stopped time credited "
              "(%s, paused %d ns, %s)" % (seen, fam.paused_ns, q.summary()))
    finally:
        q.close()
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def stop_in_uninterruptible_wait():
    """A process one of whose threads stays in an uninterruptible wait (D:
    a vfork's parent while its child, stopped, never execs), the others
    stopped: held (the thread takes the stop before its own code runs
    again), no timeout, so no candidate can make each stop time out and
    have the stopped time counted as its wall.  A process in that wait
    before the stop is signalled all the same."""
    pid = os.fork()
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    states = {"now": [b"D", b"S"]}
    fam = types.SimpleNamespace(held=False, paused_ns=0, pids=lambda: [pid],
                                state=lambda p: b"D", thread_states=lambda p: states["now"],
                                marks=lambda: {}, ran_since=lambda m: [], held_ran=None)
    q = Quiet(fam, None, False)
    sent = []
    q.signal = lambda p, sig, again=True: (sent.append(sig), states.update(now=[b"D", b"T"]))
    seen = {}
    try:
        q.around(lambda: seen.update(held=fam.held))
        rec = q.summary()
        check(seen == {"held": True} and fam.paused_ns > 0 and "stop_timeouts" not in rec
              and rec["left_stopped"] == 0 and sent[:1] == [signal.SIGSTOP],
              "a thread in an uninterruptible wait, the others stopped: signalled, held, "
              "no timeout (%s, %s)" % (seen, rec))
    finally:
        q.close()
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def undone_quietly():
    """A process that undoes its stop for less CPU than HELD_NS (a
    sleeper continued, woken once, stopped again) and a child born and
    ended meanwhile: each call's account says what ran, and two such
    calls are a stop undone."""
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
        while True:
            time.sleep(0.005)
    time.sleep(0.05)
    fam = Family(pid, judge=-1, parent=os.getpid())
    q = Quiet(fam, None, False)

    def reference():
        os.kill(pid, signal.SIGCONT)
        time.sleep(0.02)
        os.kill(pid, signal.SIGSTOP)
        while state(pid) != "T":
            time.sleep(0.001)
    try:
        for _ in range(2):
            q.around(reference)
        found = fam.finding()
        rec = fam.summary()
        check(rec["reference_stopped_ran_calls"] == 2 and found is not None
              and "stop undone" in found["rule"]
              and "scheduled" in " ".join(rec["reference_stopped_ran_first"]),
              "a sleeper continued and stopped again inside each held call: a stop undone "
              "by its run count (%s)" % rec["reference_stopped_ran_first"])
    finally:
        q.close()
        fam.close()
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)


def frozen_too():
    """Where the family has a cgroup of its own, the stop freezes it as
    well: a spinner continued by another (a SIGCONT inside the judge's
    call) runs no further, and thaws and runs again after the call."""
    from hrworker.jail import JobCgroups
    cgs = JobCgroups.off("test")
    pid = os.fork()
    if pid == 0:
        spin_forever()
    where, why = cgs.enter_candidate("quiet-test", [pid])
    if where is None:
        print("note: no cgroup here (%s): the freeze is not checked" % why)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        return
    fam = Family(pid, judge=-1, parent=os.getpid())
    fam.count_cgroup(where)
    q = Quiet(fam, None, False)
    seen = {}

    def reference():
        os.kill(pid, signal.SIGCONT)
        before = cpu_ns([pid])
        time.sleep(0.05)
        seen["cpu_ms"] = (cpu_ns([pid]) - before) / 1e6
    try:
        q.around(reference)
        time.sleep(0.05)
        rec = q.summary()
        check(rec.get("frozen") == 1 and seen["cpu_ms"] < 1 and state(pid) == "R",
              "a family in its own cgroup is frozen with the stop: continued inside the call, "
              "a spinner ran %.3f ms of 50 ms, and runs again after (%s, %s)"
              % (seen["cpu_ms"], state(pid), rec))
    finally:
        q.close()
        fam.close()
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        cgs.remove("quiet-test")


ctypes.CDLL(None).prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
frozen_too()
undone_quietly()
first_thread_gone()
stop_not_seen()
stop_in_uninterruptible_wait()
seen = stops()
check(seen.get("late") in ("T", "t"),
      "a process forked after the judge listed the family is stopped too (%s)" % seen.get("late"))
check(seen.get("newcomer") == "R",
      "a process that took the pid of one gone is not stopped for it (%s)" % seen.get("newcomer"))
settle()


# The planted suite's CPU timing attacks (issue 34's families), run on a GPU
# by gpu_attacks.
CPU_FAMILIES = ("planted-spinners.py", "planted-spinner-orphan.py", "planted-spinner-thread.py",
                "planted-stop-undone.py", "planted-clock-gap.py", "planted-timer-sleeper.py")


def gpu_attacks():
    """On a GPU, through the worker, robust: the honest matmul, then GPU
    work of the candidate's while the judge times the reference (a side
    stream of its own process after its reply; a helper process's
    kernels; a helper's kernel of minutes).  None reads a speedup above
    the honest twin's interval; the last is background-work, its
    processes killed.  Faithful runs of the first two are printed beside
    them: the harness ran nothing of this, and faithful does as it did.
    Then CPU_FAMILIES, each in both modes: no robust speedup beyond the
    twin's interval, and in faithful a finding or no speedup beyond the
    twin's."""
    import json
    from workerlib import Worker
    fix = os.path.join(ROOT, "tests", "fixtures", "quiet")

    def read(name):
        with open(os.path.join(fix, name)) as f:
            return f.read()
    # The planted suite's matmul at 2048 (about 0.3 ms on an H200): long
    # enough for another context's kernels to stretch the reference's calls.
    planted = os.path.join(ROOT, "tests", "fixtures", "planted")
    with open(os.path.join(planted, "problems", "level1", "14_Matmul.py")) as f:
        problem = f.read().replace("n = 256", "n = 2048")
    with open(os.path.join(planted, "candidates", "honest-matmul-same.py")) as f:
        honest = f.read()
    # The same jobs without the stops (HEADROOM_QUIET=0), printed first:
    # what each attack reads where nothing stops it.
    os.environ["HEADROOM_QUIET"] = "0"
    w = Worker()
    del os.environ["HEADROOM_QUIET"]

    def job(cand, name, mode="robust", label=""):
        _, res = w.run(problem, cand, mode=mode, candidate_file=name, robust_rounds=20,
                       robust_inputs=2, bootstrap=200, perf_trials=20)
        res = res or {}
        ch = res.get("checks") or {}
        print("%s (%s%s): %s speedup %s [%s, %s] findings %s quiet %s" % (
            name, mode, label, res.get("verdict"), res.get("speedup"), res.get("ci_low"),
            res.get("ci_high"), [f["id"] for f in res.get("findings") or []],
            json.dumps(ch.get("quiet"))))
        return res
    try:
        for name in ("honest-matmul-same.py", "attack-after-reply.py",
                     "attack-helper-process.py"):
            job(honest if name.startswith("honest") else read(name), name,
                label=", no stops")
    finally:
        w.close()
    w = Worker()
    try:
        base = job(honest, "honest-matmul-same.py")
        # The reference's own kernel reads about 1x: 0.75-0.77x on the
        # H100 and H200 while the flush's tensor was allocated inside the
        # judge's clock around the candidate's call.  On three H100 machines
        # of one day, with the same timing code, it read 0.75-0.78x on one
        # and 0.86-0.88x on another: the handshake the calibration misses
        # (docs/replay.md, Timing across the two) varies by machine.
        check(0.85 <= (base.get("speedup") or 0) <= 1.15,
              "the honest matmul, the reference's own, reads about 1x in robust (%s)"
              % base.get("speedup"))
        hi = max(1.0, base.get("ci_high") or 1.0)
        for name in ("attack-after-reply.py", "attack-helper-process.py"):
            job(read(name), name, "faithful")
            res = job(read(name), name)
            check(res.get("verdict") == "correct" and (res.get("ci_low") or 0) <= hi,
                  "%s: no robust speedup beyond the honest twin's interval (%s [%s, %s]; "
                  "honest up to %.3f)" % (name, res.get("speedup"), res.get("ci_low"),
                                          res.get("ci_high"), hi))
        res = job(read("attack-persistent.py"), "attack-persistent.py")
        ids = [f["id"] for f in res.get("findings") or []]
        check("background-work" in ids and res.get("speedup") is None,
              "a helper's kernel of minutes: background-work, no speedup (%s, %s)"
              % (ids, res.get("speedup")))
        # The CPU's families of the planted suite (background CPU work,
        # its stops undone, a clock paused, the timers patched) against a
        # GPU matmul: the reference's launches and syncs are the CPU's too.
        for name in CPU_FAMILIES:
            with open(os.path.join(planted, "candidates", name)) as f:
                cand = f.read()
            res = job(cand, name, "faithful")
            ids = [f["id"] for f in res.get("findings") or []]
            check(res.get("verdict") != "correct" or bool(ids) or
                  (res.get("speedup") or 0) <= 1.15 * max(1.0, base.get("speedup") or 1.0),
                  "%s (faithful): a finding, or no speedup beyond the honest twin's "
                  "(%s, findings %s)" % (name, res.get("speedup"), ids))
            res = job(cand, name)
            check(res.get("verdict") != "correct" or (res.get("ci_low") or 0) <= hi,
                  "%s: no robust speedup beyond the honest twin's interval (%s [%s, %s], "
                  "findings %s; honest up to %.3f)" % (
                      name, res.get("speedup"), res.get("ci_low"), res.get("ci_high"),
                      [f["id"] for f in res.get("findings") or []], hi))
    finally:
        w.close()


if os.environ.get("HR_TEST_DEVICE", "cpu") == "cuda":
    gpu_attacks()
