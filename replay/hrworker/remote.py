"""hrworker/remote.py - the judge's side of the candidate process (forked by
launch.start_candidate): sharing tensors with it (host memory through
memfd, device memory through CUDA IPC: the judge allocates all of it),
its requests, and each reply checked field by field (nothing it sends is
unpickled).  Every timed call is timed twice: by the judge's clock around
the candidate's handshake (warm, ready, go, done), less what that handshake
costs as the judge calibrated it before any candidate code ran
(calibrate): that is the figure; and by the harness's own clock in the
candidate process (CUDA events, or perf_counter_ns on a CPU; timing
events cannot cross a process, cudaEventInterprocess requires
cudaEventDisableTiming), which never enters a figure and is checked
against the judge's (clock_check: timer-disagrees).  The CPU time of the
candidate's processes is accounted around every request (account.Family:
background-work).
RemoteModel is the candidate's model as the checks and the timing loops
call it.
Must not: run candidate code, or trust a reply beyond its checked fields."""
import base64
import math
import mmap
import os
import signal
import time
import weakref

from hrworker.account import ALLOW_CUDA_NS, ALLOW_NS, Family
from hrworker.channel import SPIN_DONE_S, ChannelError, RemoteError, spin_wait, stamps_on
from hrworker.escapes import CANDIDATE_FINDINGS
from hrworker.outputs import MAX_ELEMENTS
from hrworker.util import exc_text

PERF_NS = time.perf_counter_ns     # the judge's clock (no candidate code runs here)


def torch_dtype(torch, name):
    """The torch dtype a candidate process names (str(dtype)[6:]: every
    dtype torch has, fp8 and unsigned ones included), or None when the
    name is not one."""
    if not isinstance(name, str) or not name or len(name) > 40 or \
            not all(c.isalnum() or c == "_" for c in name):
        return None
    d = getattr(torch, name, None)
    return d if isinstance(d, torch.dtype) else None


# The calibration of a timed call's handshake (CandidateProcess.calibrate):
# CAL_CALLS timed calls of nothing for each way the job times, before any
# candidate code runs.  A call's figure is the judge's reading less the
# lower quartile of theirs (each less its run delay), FIGURE_MIN_MS at
# least; the gap admitted between the judge's reading and the candidate's
# own is the CAL_PERCENTILE-th percentile of theirs plus CAL_MARGIN_MS.
CAL_CALLS = 16
CAL_PERCENTILE = 90
CAL_MARGIN_MS = 0.15
# The least handshake (calibration's least_ms) is taken over the calls
# that waited for a CPU under LEAST_CALM_SHARE of their reading, where at
# least LEAST_CALM_CALLS did.
LEAST_CALM_SHARE = 0.05
LEAST_CALM_CALLS = 4
# Calls timed again before the clocks' disagreement counts
# (CandidateProcess.confirm_clock): CONFIRM_CALLS, or fewer (CONFIRM_MIN_CALLS
# at least) once they took CONFIRM_BUDGET_S of the judge's clock, so that the
# audit's own calls cannot push a job of slow calls past its phase's limit.
CONFIRM_CALLS = 16
CONFIRM_MIN_CALLS = 4
CONFIRM_BUDGET_S = 5.0
# The share of a call's own reading by the judge that its gap may also
# take (clock_disagreement): an honest call's own tail -- copy-on-write
# faults after a fork, the previous output's memory given back -- is
# beyond its clock too.  The figure is the judge's reading, so a gap
# forges no speedup whatever its size; this is the check's tolerance,
# and honest kernels come first (at 5 % an honest elementwise kernel on
# 8 MB tensors read timer-disagrees once in the planted suite).
GAP_SHARE = 0.25
FIGURE_MIN_MS = 0.001
# How many timed calls' readings timer-disagrees keeps as its evidence.
READINGS_KEPT = 64

# How many timed calls' stamps (channel.stamps_on) the judge keeps.
STAMPS_KEPT = 512

# The most an output (or a drawn input) the judge takes may hold.
MAX_TAKE_BYTES = 64 << 30


def audit_failure(checks, where, e):
    """An audit part of the judge's raised e: the candidate's own error
    (RemoteError: raised in its process) is checks.audit_error, the
    verdict failed:audit; any other was raised by the judge's own code
    (a case it did not foresee), checks.audit_tool_error: the job is the
    tool's failure (Job.run), never the candidate's."""
    key = "audit_error" if isinstance(e, RemoteError) else "audit_tool_error"
    checks.setdefault(key, "%s: %s" % (where, exc_text(e)))


class CandidateGone(BaseException):
    """The candidate process ended, or broke the protocol.  Not an
    Exception: no handler of a candidate's errors (a trial's, the audit's)
    takes it for one; the job's run() answers it."""

    def __init__(self, text, status=None, tampered=False, how=None):
        super().__init__(text)
        self.remote_text, self.status, self.tampered = text, status, tampered
        self.how = how          # ("signal", N) or ("exit", N): how the process ended


class Shared:
    """The judge's tensors as the candidate process receives them: each
    tensor is given a key the first time it is sent; host tensors live in
    memfd memory (made by share_cpu, so that the judge's own tensor is the
    shared one: what the candidate writes, the judge sees); device tensors
    go by CUDA IPC.  A key whose tensor the judge dropped is forgotten by
    the candidate process with the next request."""

    def __init__(self, torch):
        self.torch = torch
        self.keys = {}          # id(tensor) -> key, while the tensor lives
        self.sent = set()
        self.forget = []
        self.next_key = 1
        self.fds = {}           # id(host tensor) -> (its memfd, bytes), while it lives

    def share_cpu(self, x):
        """x's bytes in memfd memory: a tensor of the same shape, strides
        and content (x itself when it is shared already)."""
        t = self.torch
        if not isinstance(x, t.Tensor) or x.device.type != "cpu" or id(x) in self.fds:
            return x
        x = x.detach()
        st = x.untyped_storage()
        nbytes = st.nbytes()
        if nbytes == 0:
            return x
        fd = os.memfd_create("headroom-input", os.MFD_CLOEXEC)
        os.ftruncate(fd, nbytes)
        mm = mmap.mmap(fd, nbytes)
        whole = t.frombuffer(mm, dtype=t.uint8)
        whole.copy_(t.empty(0, dtype=t.uint8).set_(st))
        y = whole.view(x.dtype).as_strided(x.shape, x.stride(), x.storage_offset())
        self.fds[id(y)] = (fd, nbytes)
        weakref.finalize(y, self._dropped_fd, id(y), fd)
        return y

    def _dropped_fd(self, ident, fd):
        self.fds.pop(ident, None)
        _close_quietly(fd)

    def _dropped(self, ident, k):
        self.keys.pop(ident, None)
        self.forget.append(k)

    def key(self, x):
        k = self.keys.get(id(x))
        if k is None:
            k = self.keys[id(x)] = self.next_key
            self.next_key += 1
            weakref.finalize(x, self._dropped, id(x), k)
        return k

    def describe(self, args, fds):
        """The descriptors of args (candidate.Candidate.tensor), their
        memfds appended to fds."""
        t = self.torch
        out = []
        for x in args:
            if not isinstance(x, t.Tensor):
                out.append(("v", x))
                continue
            if x.numel() == 0 and x.untyped_storage().nbytes() == 0:
                out.append(("empty", str(x.dtype)[6:], list(x.shape), x.device.type))
                continue
            k = self.key(x)
            if k in self.sent:
                out.append(("cpu" if x.device.type == "cpu" else "cuda", k))
                continue
            if x.device.type == "cpu":
                if id(x) not in self.fds:
                    raise ValueError("a host tensor not in shared memory (share_cpu)")
                fd, nbytes = self.fds[id(x)]
                out.append(("cpu", k, len(fds), str(x.dtype)[6:], list(x.shape),
                            list(x.stride()), x.storage_offset(), nbytes))
                fds.append(fd)
            else:
                from multiprocessing.reduction import ForkingPickler
                import torch.multiprocessing  # noqa: F401  the CUDA reductions
                out.append(("cuda", k, bytes(ForkingPickler.dumps(x))))
            self.sent.add(k)
        return out

    def take_forgotten(self):
        f, self.forget = self.forget, []
        for k in f:
            self.sent.discard(k)
        return f


def _close_quietly(fd):
    try:
        os.close(fd)
    except OSError:
        pass


def _num(x, what):
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x):
        raise CandidateGone("the candidate process sent %s = %r" % (what, x), tampered=True)
    return float(x)


class RunDelay:
    """The time the candidate process's serving thread and the judge's
    thread spent runnable but waiting for a CPU, from the kernel's own
    accounts (the second field of /proc/PID/schedstat and of
    /proc/thread-self/schedstat, ns; proc(5)): on a loaded host the
    handshake around a timed call waits there, and the candidate cannot
    write those counters.  read() is 0 where the kernel keeps no such
    account (source says so)."""

    def __init__(self, pid):
        self.fds = []
        try:
            for path in ("/proc/%d/schedstat" % pid, "/proc/thread-self/schedstat"):
                self.fds.append(os.open(path, os.O_RDONLY | os.O_CLOEXEC))
            self.read()
            self.source = "schedstat"
        except (OSError, ValueError, IndexError) as e:
            self.close()
            self.source = "none: %s" % e

    def read(self):
        return sum(int(os.pread(fd, 128, 0).split()[1]) for fd in self.fds)

    def close(self):
        for fd in self.fds:
            os.close(fd)
        self.fds = []


def calibration(walls, events, delays):
    """One way's calibration from its calls of nothing (ms): the overhead
    taken off each figure (the lower quartile of the judge's readings, each
    less its run delay) and the gap admitted (the CAL_PERCENTILE-th
    percentile of the gaps between the judge's reading and the candidate
    process's own, less the run delay, plus CAL_MARGIN_MS), and the least
    handshake seen (least_ms, the floor's: fastest_call): the least of the
    calls that waited for a CPU under LEAST_CALM_SHARE of their reading,
    where at least LEAST_CALM_CALLS did, else of all, each less its run
    delay; and how far above it the lower quartile of those same calls
    lies (spread_ms: CandidateProcess.resolution_ms).  The kernel adds a
    thread's wait to its account when the thread gets its CPU, the part
    before the call too: a call that found the CPUs busy read less than
    nothing once its delay was taken off (on an H100 beside a run's
    builds, one such call of 16 made the least 0 and the floor blind to a
    kernel that does no work).  The spread is taken over the calls the
    least came from: the calls that waited read low once their wait was
    taken off, and against the calm least the lower quartile of all
    sixteen may lie under it (read as a resolution below nothing, it made
    a 0.1 ms flatten's view of a 2-core host's calls "below the physical
    floor")."""
    n = len(walls)
    net = sorted(w - d for w, d in zip(walls, delays))
    gaps = sorted(w - e - d for w, e, d in zip(walls, events, delays))
    calm = sorted(w - d for w, d in zip(walls, delays) if d < LEAST_CALM_SHARE * w)
    pool = calm if len(calm) >= LEAST_CALM_CALLS else net
    least = max(0.0, pool[0])
    return {"calls": n, "overhead_ms": round(max(0.0, net[n // 4]), 6),
            "least_ms": round(least, 6),
            "spread_ms": round(max(0.0, pool[len(pool) // 4] - least), 6),
            "gap_bound_ms": round(gaps[min(n - 1, n * CAL_PERCENTILE // 100)] + CAL_MARGIN_MS,
                                  6),
            "wall_ms_median": round(sorted(walls)[n // 2], 6)}


def stamps(st, t0, t1, way, own_ms):
    """One timed call's stamps (channel.stamps_on): the judge's perf_counter_ns
    at go sent (t0) and done received (t1), the candidate process's at go
    received and done sent (its word: integers or None), the way (None: a
    call of nothing of the calibration) and its own reading."""
    st = st if isinstance(st, dict) else {}
    return {"way": None if way is None else list(way), "t0": t0, "t1": t1,
            "go": st.get("go") if type(st.get("go")) is int else None,
            "done": st.get("done") if type(st.get("done")) is int else None,
            "own_ms": own_ms}


def lower_calibration(cal, again):
    """The calibration figures go by once the calls of nothing were made
    again after a run of timed calls (again): each way's overhead and
    least handshake the lower of the two, its spread the larger (the
    resolution only widens), its gap bound the first's (gap_bounds
    widens it).  A calibration made while the host was slow takes too
    much off every figure: on the H100 16 calls of nothing that
    ran 0.07-0.09 ms slower than usual (their go twice as long) took that
    much off each call of a 17 us matmul, the reference's own code, which
    read 17.9x [6.6, 18.5] (in a run with the collector off around the
    handshakes, an experiment not kept; the calibration's slow moment is
    the host's).  The calls made again come after the candidate's
    code ran, which may slow or speed them: the lower of the two can only
    take less off, and a figure only read longer."""
    out = {}
    for w, c in cal.items():
        a = again.get(w)
        out[w] = dict(c) if a is None else dict(
            c, overhead_ms=min(c["overhead_ms"], a["overhead_ms"]),
            least_ms=min(c["least_ms"], a["least_ms"]),
            spread_ms=max(c["spread_ms"], a["spread_ms"]))
    return out


def fastest_call(walls, ways, cal):
    """The least time any of these timed calls can have taken (ms; walls:
    the judge's readings, ways: each call's way, cal: the calibration),
    the physical floor's statistic (Timing.floor): the fastest call's
    reading less the least handshake its way's calls of nothing showed
    (least_ms, each less its run delay), 0 at least; a way left out of the
    calibration, nothing taken off.  The fastest, not the mean or median:
    a hiccup on the host only adds time to a call, and one call under the
    floor is as impossible as all of them.  The least handshake, not the
    figure's lower quartile: a call whose handshake beat most calls of
    nothing would read less than its work took, and an honest call's
    reading holds its whole work and one handshake.  None without calls."""
    if not walls:
        return None
    return min(max(0.0, w - cal[k]["least_ms"]) if k in cal else w
               for w, k in zip(walls, ways))


def gap_bounds(cal, cal_after, ways):
    """The gap admitted for each timed call (ways: each call's way): its
    way's calibrated bound (a way left out: the largest calibrated),
    widened to the bound the same calls of nothing showed after the timed
    calls (cal_after, CandidateProcess.recalibrate), never narrowed by
    it."""
    most = max((c["gap_bound_ms"] for c in cal.values()), default=0.0)
    return [max(cal[w]["gap_bound_ms"] if w in cal else most,
                cal_after.get(w, {}).get("gap_bound_ms", 0.0)) for w in ways]


def clock_disagreement(walls, events, delays, bounds):
    """The rule behind timer-disagrees, on the judge's reading of each
    timed call (walls, ms), the candidate's own (events), the run-queue
    waits of the two processes' threads across it (delays, RunDelay) and
    the gap admitted for it (bounds: its way's calibration, calibration).
    The judge's reading of a call spans the candidate's own plus the
    handshake (two wake-ups) and, on a GPU, the flush's kernel and the
    launch cover before the call; the calls of nothing the judge made
    before any candidate code ran had the same, and the gaps they showed
    are what is admitted.  On a loaded host a wake-up may wait for a CPU
    (a process that just ran its flush waits a whole time slice:
    milliseconds on a busy 2-core host), which the kernel counts as run
    delay and is taken off every gap; but the two threads' waits overlap,
    and a wait inside the candidate's own reading is in both readings, so
    the sum can take off more than the handshake waited, hidden work with
    it.  So the calls judged are the calmest quarter (the least run delay,
    two at least): a candidate that hides work from its own clock (a
    patched timer, events recorded around part of the work) widens the
    gap of every call it hides work in, and the lower median of those
    calls' gaps above their bound is disagreement.  So is a call its
    clock says took longer than the judge saw.  None when they agree,
    else the evidence.  The figure is the judge's reading either way
    (CandidateProcess.figure)."""
    n = len(walls)
    gaps = [w - e - d for w, e, d in zip(walls, events, delays)]
    calm = sorted(range(n), key=lambda i: delays[i])[:max(2, n // 4)]
    # A gap is admitted up to its calibrated bound, or up to GAP_SHARE of
    # the judge's reading of that call, whichever is more: an honest call
    # leaves work its own clock cannot see behind it too (a kernel that
    # forks in each call pays copy-on-write faults after its clock stops:
    # 0.22-0.27 ms on calls of 10 ms on the development machine), and the
    # figure is the judge's reading in any case.
    admitted = [max(b, GAP_SHARE * w) for b, w in zip(bounds, walls)]
    excess = sorted(gaps[i] - admitted[i] for i in calm)
    mid = excess[(len(excess) - 1) // 2]
    over = sum(e > w + 0.05 for w, e in zip(walls, events))
    if not over and mid <= 0:
        return None

    def first(xs):
        return [round(x, 6) for x in xs[:READINGS_KEPT]]
    # Every reading the rule went by (the first READINGS_KEPT calls, in
    # the order timed), so that an accusation can be told from the
    # host's doing afterwards: a hiccup stretches a few calls, a clock
    # hidden from stretches every one.
    return {"calls": n, "calm_calls": len(calm),
            "calm_index": calm[:16],
            "judge_ms_calm": [round(walls[i], 6) for i in calm][:16],
            "gap_ms_calm": [round(gaps[i], 6) for i in calm][:16],
            "excess_ms_calm": [round(x, 6) for x in excess][:16],
            "gap_over_bound_ms": round(mid, 6),
            "gap_bound_ms": round(sorted(bounds)[len(bounds) // 2], 6),
            "gap_share": GAP_SHARE,
            "run_delay_ms_total": round(sum(delays), 6),
            "calls_longer_than_judge_saw": over,
            "readings": {"judge_ms": first(walls), "own_ms": first(events),
                         "run_delay_ms": first(delays), "admitted_ms": first(admitted)}}


def host_steal_ms():
    """The time the host's hypervisor has taken from this machine's CPUs
    (steal, the eighth figure of /proc/stat's cpu line, in clock ticks;
    proc(5)), in ms, all CPUs together: a thread whose CPU was taken is
    neither running nor waiting for a CPU in its own account (RunDelay).
    None where it cannot be read."""
    try:
        with open("/proc/stat") as f:
            fields = f.readline().split()
        return int(fields[8]) * 1e3 / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


class CandidateProcess:
    """The candidate process of one job, seen from the judge."""

    def __init__(self, pid, end, torch, device, ctx=None, builder=None):
        self.pid, self.end, self.torch, self.device = pid, end, torch, device
        self.builder = builder      # builder.Builder: its compile messages' answers
        self.cuda = device.startswith("cuda")
        self.shared = Shared(torch)
        self.ctx = ctx
        self.hello = None
        self.patched = []           # harness functions it said were patched
        self.sandbox = []           # sandbox refusals it reported
        self.walls, self.events = [], []     # every timed call: the judge's ms, its own
        self.timed_as = (0, False, 0)        # the last timed calls' way (flush, sync, cover)
        self.delays = []            # and the run-queue waits across it (ms; RunDelay)
        self.ways = []              # and the way it was timed (flush, sync, cover cycles)
        self.run_delay = RunDelay(pid)
        self.cal = {}               # way -> its calibration (calibrate)
        self.taken = {}             # way -> what figures take off (lower_calibration)
        self.cal_settled = {}       # way -> the calls of nothing after a run (settle)
        self.cal_after = {}         # way -> the same after the timed calls (recalibrate)
        self.steal_at_cal = None    # host_steal_ms at the calibration
        # the CPU time of its processes
        self.family = Family(pid, allow_ns=ALLOW_CUDA_NS if self.cuda else ALLOW_NS)
        self.quiet = None           # quiet.Quiet: robust, its processes stopped around the reference
        self.keep_stamps = stamps_on()
        self.stamps = []            # the handshakes' stamps (stamps)
        self.spin_s = SPIN_DONE_S if spin_wait(self.cuda) else 0.0   # the wait for done

    # ------------------------------------------------------------ replies
    def status(self, wait=2.0):
        """How the candidate process ended, once it has (waiting up to wait
        seconds): ("signal", N) or ("exit", N); else None."""
        deadline = time.monotonic() + wait
        while True:
            try:
                pid, st = os.waitpid(self.pid, os.WNOHANG)
            except ChildProcessError:
                return ("exit", 70)
            if pid:
                if os.WIFSIGNALED(st):
                    return ("signal", os.WTERMSIG(st))
                return ("exit", os.WEXITSTATUS(st))
            if time.monotonic() > deadline:
                return None
            time.sleep(0.01)

    def gone(self, why):
        how = self.status()
        if how is None:
            return CandidateGone("the candidate process broke the protocol: %s" % why,
                                 tampered=True)
        text = ("killed by signal %d (%s)" % (how[1], signal.Signals(how[1]).name)
                if how[0] == "signal" else "exit status %d" % how[1])
        return CandidateGone("the candidate process ended (%s)" % text, text, how=how)

    def recv(self, spin_s=0.0):
        """The next reply (its first spin_s seconds spent spinning:
        channel.await_readable); a compile message before it (a load_inline call
        the cache does not hold, in whatever request) is answered by the
        builder process (builder.py) and the wait goes on."""
        while True:
            try:
                rep = self.end.recv(spin_s)
            except ChannelError as e:
                raise self.gone(str(e))
            if rep.get("t") != "compile":
                return rep
            ans = (self.builder.serve(rep) if self.builder is not None else
                   {"ok": False, "error": "no builder process"})
            try:
                self.end.send(dict(ans, op="compiled"))
            except OSError as e:
                raise self.gone(str(e))

    def reply(self, want):
        """The next reply, which must be of type want (or "error": raised
        as RemoteError)."""
        return self.check(self.recv(), want)

    def check(self, rep, want):
        """What every reply may carry (patched names, sandbox refusals),
        kept; its type checked."""
        p = rep.get("patched")
        if isinstance(p, list):
            self.patched = sorted(set(self.patched) | {str(x)[:200] for x in p[:64]})
        s = rep.get("sandbox")
        if isinstance(s, list):
            self.sandbox += [{"event": str(v.get("event"))[:64], "path": str(v.get("path"))[:500],
                              "what": str(v.get("what"))[:80]}
                             for v in s[:20] if isinstance(v, dict)]
        self.family.leave(rep.get("t"))
        t = rep["t"]
        if t == "error" and want != "error":
            raise RemoteError(str(rep.get("error"))[:4000], rep.get("op"))
        if t != want:
            raise CandidateGone("the candidate process broke the protocol: %s where %s was "
                                "due" % (t[:40], want), tampered=True)
        return rep

    def request(self, op, args=(), **fields):
        fds = []
        desc = self.shared.describe(list(args), fds)
        req = dict(fields, op=op, args=desc, forget=self.shared.take_forgotten())
        self.family.enter(op)
        try:
            self.end.send(req, fds)
        except OSError as e:
            raise self.gone(str(e))

    def rng_fields(self):
        """The judge's RNG state at a call: the candidate's call starts
        from it, as it would in one process after the reference's call."""
        t = self.torch
        f = {"rng": t.get_rng_state().numpy().tobytes()}
        if self.cuda:
            f["cuda_rng"] = t.cuda.get_rng_state().numpy().tobytes()
        return f

    # ------------------------------------------------------------ the ops
    def build(self, **fields):
        self.request("build", **fields)
        return self.reply("built")

    def load(self, init, seed):
        self.request("load", init=list(init), seed=seed)
        return self.reply("loaded")

    def set_parameters(self, names, values):
        """New values for the candidate model's parameters of these names
        (redraw.py): the reply's set, how many it took."""
        self.sync_inputs()
        self.request("set_parameters", values, names=list(names))
        return self.reply("parameters_set")

    def trim(self):
        """The candidate process's cached device memory back to the
        driver (candidate.Candidate.op_trim); the reply's reserved bytes."""
        self.request("trim")
        return self.reply("trimmed")

    def sync_inputs(self):
        """The judge's device work is done before the candidate process
        runs anything: its writes to what it shares (another process,
        another stream), and its own kernels, which would share the GPU
        with the candidate's timed calls (the calibration's calls of
        nothing included)."""
        if self.cuda:
            self.torch.cuda.synchronize()

    def no_grad(self):
        """The candidate's call runs in the grad mode the judge's call is in."""
        return not self.torch.is_grad_enabled()

    def call(self, args, poison_bytes=None):
        """One call of the candidate, synchronised: (its output, copied into
        the judge's memory, and the reply: out, aliases)."""
        self.sync_inputs()
        self.request("call", args, poison_bytes=poison_bytes, no_grad=self.no_grad(),
                     **self.rng_fields())
        rep = self.reply("called")
        return self.take_output(rep.get("out"), args), rep

    def take_output(self, spec, args):
        """The candidate's kept output, copied into a buffer of the judge's."""
        if not isinstance(spec, dict) or spec.get("tensor") is not True:
            typ = spec.get("type") if isinstance(spec, dict) else None
            raise RemoteError("the candidate's output is %s, not a tensor" % str(typ)[:200])
        parts = spec.get("tuple")
        if parts is not None:
            if not isinstance(parts, list) or not 0 < len(parts) <= MAX_ELEMENTS or \
                    not all(isinstance(p, dict) for p in parts):
                raise CandidateGone("the candidate process described its output as %r"
                                    % (spec,)[:300], tampered=True)
            bufs = [self.buffer(p, "its output's element %d" % i) for i, p in enumerate(parts)]
            self.request("fetch", bufs)
            self.reply("fetched")
            return tuple(bufs)
        buf = self.buffer(spec, "its output")
        self.request("fetch", [buf])
        self.reply("fetched")
        return buf

    def buffer(self, spec, what, device=None):
        """Memory of the judge's for what the candidate process describes
        (spec: shape, dtype), shared with it; on device (the job's by
        default)."""
        t = self.torch
        device = device or self.device
        shape, dtype = spec.get("shape"), spec.get("dtype")
        if (not isinstance(shape, list) or len(shape) > 16 or
                not all(type(n) is int and 0 <= n < 1 << 40 for n in shape) or
                torch_dtype(t, dtype) is None):
            raise CandidateGone("the candidate process described %s as %r" % (what, spec)[:300],
                                tampered=True)
        n = math.prod(shape) * t.empty(0, dtype=getattr(t, dtype)).element_size()
        if n > MAX_TAKE_BYTES:
            raise RemoteError("%s holds %d bytes: more than the judge takes" % (what, n))
        buf = t.empty(shape, dtype=getattr(t, dtype), device=device)
        return self.shared.share_cpu(buf) if buf.device.type == "cpu" else buf

    def escapes(self, args, fresh, robust, flush):
        """The candidate process's escape measurements (escapes.candidate_pass):
        warm-ups on args, the profiled call on fresh (a set no call saw);
        its reply, which is data -- the findings it may report are checked
        against escapes.CANDIDATE_FINDINGS."""
        self.sync_inputs()
        self.request("escapes", list(args) + list(fresh), robust=robust, flush=flush,
                     split=len(args))
        rep = self.reply("escaped")
        found = rep.get("findings") if isinstance(rep.get("findings"), list) else []
        rep["findings"] = [f for f in found[:16] if isinstance(f, dict)
                           and f.get("id") in CANDIDATE_FINDINGS
                           and isinstance(f.get("evidence"), dict)]
        if not isinstance(rep.get("evidence"), dict):
            rep["evidence"] = {}

        def plain(d):
            """A dict of scalars at most, as the precision check takes it."""
            return {str(k)[:80]: v for k, v in list(d.items())[:64]
                    if v is None or isinstance(v, (str, bool, int, float))} \
                if isinstance(d, dict) else {}
        red = rep.get("reduced") if isinstance(rep.get("reduced"), dict) else {}
        rep["flags_at_call"] = plain(rep.get("flags_at_call"))
        rep["reduced"] = {k: plain(red.get(k)) for k in ("kernels", "ops")}
        return rep

    def run(self, args):
        """One call neither timed nor checked (a warm-up)."""
        self.sync_inputs()
        self.request("run", args, no_grad=self.no_grad())
        self.reply("ran")

    def draw(self, seed):
        """set_seed(seed); get_inputs() in the candidate's namespace: the
        drawn values (tensors copied into the judge's memory, on the device
        they were drawn on) and the CPU RNG state the draw left."""
        t = self.torch
        self.request("draw", seed=seed)
        rep = self.reply("drawn")
        specs = rep.get("inputs")
        if not isinstance(specs, list) or len(specs) > 4096:
            raise CandidateGone("the candidate process sent no inputs", tampered=True)
        raw, bufs = [], []
        for s in specs:
            if not isinstance(s, dict):
                raise CandidateGone("the candidate process described an input as %r"
                                    % (s,), tampered=True)
            if s.get("tensor") is True:
                b = self.buffer(s, "an input", "cpu" if s.get("device") == "cpu" else None)
                bufs.append(b)
                raw.append(b)
            elif "value" in s and (s["value"] is None or
                                   isinstance(s["value"], (int, float, bool, str))):
                raw.append(s["value"])
            else:
                raise RemoteError("get_inputs returned a %s" % str(s.get("type"))[:100])
        self.request("fetch_draw", bufs)
        self.reply("fetched")
        try:
            state = base64.b64decode(rep.get("rng", ""), validate=True)
        except (ValueError, TypeError):
            state = b""
        if len(state) != t.get_rng_state().numel():
            raise CandidateGone("the candidate process sent an RNG state of %d bytes"
                                % len(state), tampered=True)
        return raw, t.frombuffer(bytearray(state), dtype=t.uint8)

    # ------------------------------------------------------------ timing
    def calibrate(self, ways, n=CAL_CALLS):
        """Before any candidate code runs: n timed calls of nothing for each
        way a job times its calls (flush bytes, sync before, launch cover
        cycles), through the same handshake as the candidate's; each way's
        calibration (calibration) is what every figure and every clock
        check of its calls go by.  A way left out gets none: no overhead
        taken off, the largest bound admitted."""
        self.cal = self.calls_of_nothing(ways, n)
        self.taken = self.cal
        self.steal_at_cal = host_steal_ms()

    def settle(self, first, ways, n=CAL_CALLS):
        """After a run of timed calls (from the first-th on), before their
        figures are used: the calls of nothing made again, and every figure
        from then on takes off the lower of the two calibrations
        (lower_calibration).  The run's figures, as that makes them."""
        self.cal_settled = self.calls_of_nothing(ways, n)
        self.taken = lower_calibration(self.cal, self.cal_settled)
        return [self.figure(i) for i in range(first, len(self.walls))]

    def recalibrate(self, ways, n=CAL_CALLS):
        """After the timed calls: the same calls of nothing again, under the
        load the timed calls met (a host whose other processes took the
        caches and the cores after the first calibration stretches every
        handshake: an honest call's gap then outgrew a bound measured on a
        calm host).  Their gap bounds only widen the bound clock_check
        admits; what figures take off is settle's.  The candidate's code
        has run by then and may slow these calls: that can spare it
        timer-disagrees, never change a figure.  A way settle made the
        calls of nothing for after the run already has those, the same
        load's, not a third run of them (16 calls a way: on a CPU a flushing
        way's each first flush the host's caches, 50 ms a job).  The ways
        whose calls were made now."""
        ways = self.distinct_ways(ways)
        left = [w for w in ways if w not in self.cal_settled]
        self.cal_after = {w: self.cal_settled[w] for w in ways if w in self.cal_settled}
        if left:
            self.cal_after.update(self.calls_of_nothing(left, n))
        return left

    def calls_of_nothing(self, ways, n):
        """n timed calls of nothing for each way; each way's calibration."""
        ways = self.distinct_ways(ways)
        self.sync_inputs()
        self.request("calibrate", configs=ways, n=n)
        k = len(self.walls)
        self.handshakes("calibrated")
        if len(self.walls) - k != n * len(ways):
            raise CandidateGone("the candidate process made %d calls of nothing where %d "
                                "were due" % (len(self.walls) - k, n * len(ways)),
                                tampered=True)
        cal = {}
        for i, way in enumerate(ways):
            a, b = k + i * n, k + (i + 1) * n
            cal[way] = calibration(self.walls[a:b], self.events[a:b], self.delays[a:b])
        for lst in (self.walls, self.events, self.delays, self.ways):
            del lst[k:]
        return cal

    def distinct_ways(self, ways):
        """ways as the judge's reading tells them apart (way), each once,
        in their order."""
        return list(dict.fromkeys(self.way(*w) for w in ways))

    def way(self, flush, sync_before, cycles):
        """The way a call is timed, as far as it changes the judge's
        reading.  On a CPU the flush comes before the candidate process
        says ready, and still changes the reading: the handshake after it
        runs on caches the flush emptied, in both processes.  Calibrated
        without it, the handshake of a robust call after the flush took
        25-40 us more each way than the calls of nothing showed on the
        2-core development machine, and the reference's own 256 matmul
        read 0.66-0.83x; calibrated with it, 0.69-0.98x, median 0.87x over
        12 jobs (the rest: the judge, asleep through a call, wakes later
        than after a call of nothing).  The sync before is nothing on a
        CPU."""
        if not self.cuda:
            return (int(flush), False, 0)
        return (int(flush), bool(sync_before), int(cycles))

    def handshakes(self, final, way=None):
        """Serve the timed calls' handshakes until the final reply; each
        timed call was timed the way way says.  A warm is answered at once,
        outside the clock (Candidate.ready)."""
        while True:
            rep = self.recv()
            if rep["t"] == "warm":
                try:
                    self.end.send({"op": "warm"})
                except OSError as e:
                    raise self.gone(str(e))
                continue
            if rep["t"] != "ready":
                return self.check(rep, final)
            d0 = self.run_delay.read()
            t0 = PERF_NS()
            try:
                self.end.send({"op": "go"})
                done = self.recv(self.spin_s)
            except (ChannelError, OSError) as e:
                raise self.gone(str(e))
            t1 = PERF_NS()
            wall = (t1 - t0) / 1e6
            delay = (self.run_delay.read() - d0) / 1e6
            if done.get("t") == "error":
                return self.check(done, final)
            if done.get("t") != "done":
                raise CandidateGone("the candidate process broke the protocol: %s where "
                                    "done was due" % str(done.get("t"))[:40], tampered=True)
            self.walls.append(wall)
            self.events.append(_num(done.get("ms"), "a timed call's ms"))
            self.delays.append(delay)
            self.ways.append(way)
            if self.keep_stamps and len(self.stamps) < STAMPS_KEPT:
                self.stamps.append(stamps(done.get("stamps"), t0, t1, way, self.events[-1]))

    def figure(self, i):
        """Timed call i's figure (ms): the judge's clock around it, less the
        handshake's overhead as calibrated for its way (the lower of the
        calibrations, once settled: settle; FIGURE_MIN_MS at least).  The
        candidate process's own clock never enters it."""
        cal = self.taken.get(self.ways[i])
        return max(FIGURE_MIN_MS, self.walls[i] - (cal["overhead_ms"] if cal else 0.0))

    def fastest(self, first, end=None):
        """The fastest of timed calls first .. end - 1, as the physical
        floor judges it (fastest_call)."""
        return fastest_call(self.walls[first:end], self.ways[first:end], self.taken)

    def resolution_ms(self):
        """How far a call's handshake may fall under the least one its
        way's calls of nothing showed: the spread from that least to the
        lower quartile of the calls it came from (the calibration's
        spread_ms), the largest over the ways, never below nothing; a call
        of less work than this the judge's reading does not resolve
        (fastest_call may read it 0)."""
        return max((c["spread_ms"] for c in self.taken.values()), default=0.0)

    def time_one(self, args, flush, sync_before, cycles, keep=None):
        """One call timed by the candidate process (Timing.time_one there),
        behind cycles of launch cover (Timing.cover: the reference's calls
        wait behind as many, and Timing.ways calibrates that way)."""
        self.sync_inputs()
        self.timed_as = (flush, sync_before, cycles)
        self.request("time_one", args, flush=flush, sync_before=sync_before,
                     keep=keep is not None, no_grad=self.no_grad(), cover_cycles=cycles,
                     **self.rng_fields())
        n = len(self.walls)
        rep = self.handshakes("timed", self.way(flush, sync_before, cycles))
        if len(self.walls) != n + 1:
            raise CandidateGone("the candidate process timed %d calls where one was asked"
                                % (len(self.walls) - n), tampered=True)
        if keep is not None:
            keep.append(self.take_output(rep.get("out"), args))
        return self.figure(n)

    @staticmethod
    def confirm_seconds(call_s):
        """What confirm_clock takes at calls of call_s seconds: CONFIRM_CALLS
        calls, fewer past CONFIRM_BUDGET_S, CONFIRM_MIN_CALLS at least."""
        return max(CONFIRM_MIN_CALLS * call_s, min(CONFIRM_CALLS * call_s, CONFIRM_BUDGET_S))

    def confirm_clock(self, args, n=CONFIRM_CALLS):
        """The clocks disagreed on the timed calls: n more calls of the
        candidate on args (fewer past CONFIRM_BUDGET_S), timed as its last timed calls were, judged
        alone by the same rule (clock_check).  A candidate that hides
        work from its own clock hides it in these too; a hiccup of the
        host that stretched a few handshakes (time the hypervisor took,
        a burst of other work) seldom comes back at once.  The figures
        are the judge's whatever this says: the re-timed calls enter no
        figure.  Timed the same way, the cover too: a call behind a cover
        its way's calibration did not span reads the cover as a gap."""
        first = len(self.walls)
        flush, sync_before, cycles = self.timed_as
        t0 = time.monotonic()
        for i in range(n):
            if i >= CONFIRM_MIN_CALLS and time.monotonic() - t0 > CONFIRM_BUDGET_S:
                break
            self.time_one(args, flush, sync_before, cycles)
        return self.clock_check(first)

    def kb_loop(self, args, way):
        """The harness's loop (Timing.kb_loop there), each timed call the
        way the judge expects of the job's harness (way: flush bytes, sync
        before, cover cycles)."""
        self.sync_inputs()
        self.timed_as = tuple(way)
        self.request("kb_loop", args, **self.rng_fields())
        n = len(self.walls)
        rep = self.handshakes("looped", self.way(*way))
        how = rep.get("how") if isinstance(rep.get("how"), dict) else {}
        trials, discard = how.get("trials"), how.get("discard_first", 0)
        if type(trials) is not int or type(discard) is not int or discard < 0:
            raise CandidateGone("the candidate process's loop said %r" % (how,), tampered=True)
        want = trials + discard
        if len(self.walls) - n != want or trials < 0:
            raise CandidateGone("the candidate process's loop timed %d calls where %d were "
                                "due" % (len(self.walls) - n, want), tampered=True)
        figs = self.settle(n, [tuple(way)])
        how = {k: how[k] for k in ("warmup", "trials", "discard_first", "l2_fill_bytes",
                                   "sync_before_each", "timer") if k in how}
        return figs[int(how.get("discard_first", 0)):], how

    def clock_check(self, first=0):
        """Do the candidate's clock and the judge's agree on its timed
        calls (from the first-th on)?  None when they do (or nothing was
        timed), else the evidence (clock_disagreement)."""
        if len(self.walls) <= first:
            return None
        bounds = gap_bounds(self.cal, self.cal_after, self.ways[first:])
        rec = clock_disagreement(self.walls[first:], self.events[first:], self.delays[first:],
                                 bounds)
        if rec is not None:
            rec["calibration"] = self.calibration_record()
            rec["recalibration"] = self.calibration_record(self.cal_after)
            rec["run_delay"] = self.run_delay.source
            steal = host_steal_ms()
            if steal is not None and self.steal_at_cal is not None:
                # Between the calibration and this check (clock ticks):
                # the timed calls lie inside, with the job's other work.
                rec["host_steal_ms_since_calibration"] = round(steal - self.steal_at_cal, 3)
        return rec

    def uncalibrated(self):
        """The ways calls were timed that the calibration left out (each
        judged against the largest bound, nothing taken off its figure):
        none where Timing.ways names every way the job times."""
        return sorted({w for w in self.ways if w is not None and w not in self.cal})

    def calibration_record(self, cal=None):
        """The calibration (or cal), as checks.timing_channel keeps it."""
        return [dict(c, flush_bytes=w[0], sync_before=w[1], cover_cycles=w[2])
                for w, c in (self.cal if cal is None else cal).items()]

    def close(self):
        """Ask the candidate process to go; it is killed with the job's
        process group either way."""
        try:
            self.end.send({"op": "quit"})
        except OSError:
            pass
        self.end.close()
        self.run_delay.close()
        self.family.close()
        if self.quiet is not None:
            self.quiet.close()
        if self.builder is not None:
            self.builder.close()


class RemoteModel:
    """The candidate's model as Checks and Timing call it: a call returns
    its output in the judge's memory; what the call's reply said is in
    last."""

    def __init__(self, proc):
        self.proc, self.last = proc, {}

    def __call__(self, *args):
        out, self.last = self.proc.call(list(args))
        return out
