"""hrworker/keeper.py - the keeper: a long-lived child of the worker that holds
the inputs directory's sets (or draws them from a problem's recipe) in
device memory and lends them to the jobs over CUDA IPC (Keeper)."""
import json
import os
import select
import socket
import sys
import time

from hrworker.util import exc_text, set_bytes, set_pdeathsig
from hrworker.loan import RECIPE_NAME, SET_NAME, read_recipe
from hrworker.context import JobContext, device_memory, problem_namespace
from hrworker.inputs import InputSets


def keeper_budget_mb(cfg):
    """$HEADROOM_DEVICE_INPUTS_MB: MiB of input sets the keeper holds; unset:
    45 % of the GPU's memory on CUDA, 0 (no keeper) on the CPU.  None when
    the value is not a number >= 0."""
    v = os.environ.get("HEADROOM_DEVICE_INPUTS_MB")
    if v is None or v == "":
        return "auto" if cfg.device.startswith("cuda") else 0
    return int(v) if v.isdigit() else None


def fingerprint(torch, xs):
    """Two wrapping int64 sums (of the words and of their squares) of every
    tensor's bytes: a write into a lent set changes them.  Summed where the
    tensor is, in 128 MiB chunks, and read once per tensor, not once per
    chunk (the keeper checks a job's six sets as it ends, and the next
    job's loan waits for that)."""
    out = []
    for x in xs:
        if not isinstance(x, torch.Tensor) or x.numel() == 0:
            out.append(None)
            continue
        b = x.detach().reshape(-1).view(torch.uint8)
        n8 = b.numel() // 8
        w = b[:n8 * 8].view(torch.int64)
        sums = torch.zeros(3, dtype=torch.int64, device=b.device)
        for i in range(0, n8, 1 << 24):
            c = w[i:i + (1 << 24)]
            sums[0] += c.sum()
            sums[1] += (c * c).sum()
        sums[2] = b[n8 * 8:].to(torch.int64).sum()
        out.append(tuple(sums.tolist()))
    return out


# A job of a problem whose input sets are S bytes each needs about
# FOOTPRINT_SETS x S of device memory beside what the keeper lends it: in
# the judge a trial's inputs, robust's clone of them, the reference's output
# and the buffer the candidate's output comes back in; in the candidate
# process its output and the poison fill's block of twice that; kernels'
# temporaries.  Measured on the H100 (80 GB) with sets of 6.2 GiB, four of
# them held: every first attempt ran out of memory, faithful with the judge
# at 47.2 GiB and the candidate process at 6.9 GiB asking 1.5 GiB more,
# robust with 38.2 and 12.6 GiB asking 6 GiB more: 9.0 and 9.2 sets.  The
# keeper holds no more than leaves that and FOOTPRINT_SLACK (the processes'
# CUDA contexts) free (Keeper.room).
FOOTPRINT_SETS = 10
FOOTPRINT_SLACK = 2 << 30


class Keeper:
    """The worker's second child: the inputs directory's sets, held in device
    memory (CUDA; shared memory on the CPU) and lent to the jobs.

    A faithful job loads six sets; a 1.6 G-element problem's are 6.4 GB each,
    and loading one from a file takes a second or more.  The keeper loads
    each file once (when a job asks for it, or ahead when idle) and lends it
    over CUDA IPC (torch.multiprocessing's reductions): opening a lent set
    takes milliseconds; the job clones it before use, as it clones a loaded
    one.  What it holds follows the directory: a set whose file the
    orchestrator removed (its problem is done) is dropped; at most the
    budget ($HEADROOM_DEVICE_INPUTS_MB) is held, a set that does not fit is
    not (the job loads the file itself).
    A job could write into a lent set (its own process maps it): the keeper
    fingerprints every set and checks the sets it lent when the job's
    connection closes; a changed set is dropped and reloaded from its file.
    It never runs candidate code and never writes a file."""

    def __init__(self, cfg, torch, sock, budget_mb):
        self.cfg, self.t, self.sock = cfg, torch, sock
        self.budget_mb = budget_mb   # keeper_budget_mb: a number or "auto"
        self.held = {}       # name -> {"inputs", "rng", "bytes", "print", "last"}
        self.lent = {}       # reply socket -> names lent through it
        self.sizes = {}      # name -> bytes of a file loaded once (held or not)
        self.used = 0
        self.total = 0       # the device's memory in bytes (CUDA; 0: no footprint rule)
        self.take = cfg.take_inputs
        self.stage = None    # to_device's pinned buffers, stream and events
        self.recipes = {}    # inputs key -> its recipe, read once (Keeper.recipe)
        self.drawers = {}    # inputs key -> the InputSets that draw its sets
        self.bad = set()     # inputs keys whose sets are not drawn here
        self.deferred = []   # (names, reply) asked mid-draw, answered after it
        # Jobs' hush channels (loan.hush_channel), and those of them that
        # time calls now (loan.keeper_quiet): no set is drawn or loaded
        # ahead while one does.
        self.hushers = set()
        self.quiet = set()
        self.ahead = False   # a draw ahead is under way (prefetch_drawn): it waits while one does

    def log(self, text):
        sys.stderr.write("headroom worker keeper: %s\n" % text)

    def start(self):
        t = self.t
        import torch.multiprocessing as tmp
        self.cuda = self.cfg.device.startswith("cuda")
        if not self.cuda:
            tmp.set_sharing_strategy("file_system")
        self.device = t.device(self.cfg.device)
        if self.cfg.rand is not None:    # this process's copy: the keeper's draws
            self.cfg.rand.pin = self.cuda
            self.cfg.rand.threads = len(os.sched_getaffinity(0))
            try:
                self.cfg.rand.check()
            except Exception as e:   # noqa: whatever it is, one thread is known good
                self.log("the rand library on %d threads: %s; drawing on one"
                         % (self.cfg.rand.threads, exc_text(e)))
                self.cfg.rand.threads = 1
        if self.cuda:
            self.pin_on_threads()
        if self.cuda:
            self.total = device_memory(t, self.device)
        budget = self.budget_mb
        if budget == "auto":
            budget = int(0.45 * self.total) >> 20
        self.budget = budget << 20

    def room(self, size):
        """The bytes the keeper may hold, a set of size bytes among its
        sets: its budget, less where the largest set's job would not be
        left its footprint (FOOTPRINT_SETS such sets and FOOTPRINT_SLACK).
        On an 80 GB GPU a problem of 6.4 GB sets is held two at a time,
        not the 45 % budget's five or six: beside four, its jobs' first
        attempts ran out of memory."""
        if not self.total:
            return self.budget
        big = max([size] + [h["bytes"] for h in self.held.values()])
        return max(0, min(self.budget, self.total - FOOTPRINT_SETS * big - FOOTPRINT_SLACK))

    def fits(self, size):
        """Do size bytes more fit the room (room) beside what is held?"""
        return self.used + size <= self.room(size)

    def pin_on_threads(self):
        """torch's pinned blocks for the keeper's draws (FastRand.pin) by
        cudaHostRegister after the block's pages are touched on threads (a
        power of two, up to the CPUs), not by cudaHostAlloc, which pins on
        one thread: on the H200 the first draw of a run, which allocates an
        8 GiB block, took 3.3-7.2 s of which a set's draw is 0.3 s.  Torch's
        allocator settings (PYTORCH_CUDA_ALLOC_CONF) already given win."""
        conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "") + \
            os.environ.get("PYTORCH_ALLOC_CONF", "")
        if "pinned_" in conf:
            return
        n = 1 << (min(len(os.sched_getaffinity(0)), 128).bit_length() - 1)
        try:
            setting = getattr(self.t._C, "_accelerator_setAllocatorSettings", None) or \
                self.t.cuda.memory._set_allocator_settings     # before torch 2.9
            setting("pinned_use_cuda_host_register:True,pinned_num_register_threads:%d" % n)
        except (RuntimeError, AttributeError) as e:   # another torch: cudaHostAlloc
            self.log("pinned memory through cudaHostAlloc: %s" % exc_text(e))

    def lent_now(self):
        return set().union(*self.lent.values()) if self.lent else set()

    def taken(self, name, names):
        """With --take-inputs: the set's file is gone and only this keeper
        has it, as long as its marker is among names (the directory's
        listing; the orchestrator removes a problem's files, markers
        included, when its last job is done)."""
        return self.take and name + ".held" in names

    def make_room(self, name, size):
        """Drop held sets of other problems, least recently lent first (never
        one a job has now, nor a taken one: that problem's later jobs would
        have to draw it again; on the H200 jobs of two problems that took
        turns drew 2 of their 6 sets again, 10 s each), until size more
        bytes fit; False if they cannot."""
        busy, names = self.lent_now(), self.listing()
        old = sorted((h["last"], n) for n, h in self.held.items()
                     if n[:16] != name[:16] and n not in busy and not self.taken(n, names))
        while not self.fits(size) and old:
            self.drop(old.pop(0)[1])
        return self.fits(size)

    def load(self, name, need=False):
        """Hold the set in file name (the caller checked it is not held);
        when need (a job asks for it), other problems' sets make room.
        With --take-inputs (the run's only GPU worker) the file is removed
        once held: the directory's room goes to the next problem's draws."""
        t = self.t
        path = os.path.join(self.cfg.inputs_dir, name)
        obj = t.load(path, mmap=True, weights_only=True)
        raw = obj["inputs"]
        size = self.sizes[name] = set_bytes(t, raw)
        if not self.hold(name, raw, obj["rng"].numpy().tobytes(), size, need, {"how": "file"}):
            return False
        del obj, raw
        if self.take:   # the file goes; a marker says the set is held
            try:
                os.close(os.open(path + ".held", os.O_CREAT | os.O_WRONLY, 0o644))
                os.unlink(path)
            except OSError:
                pass
        return True

    def recipe(self, key):
        """The problem's recipe (InputSets.write_recipe), read once; None when it
        has none, or when drawing it failed or would draw on the device
        (its jobs then draw their sets themselves)."""
        if key in self.bad:
            return None
        r = self.recipes.get(key)
        if r is None:
            r = read_recipe(os.path.join(self.cfg.inputs_dir, key + "-recipe"))
            if r is not None:
                self.recipes[key] = r
        return r

    def draw(self, name, need=False):
        """Hold set name drawn here from its problem's recipe: set_seed(s);
        get_inputs() as a job draws it (InputSets.draw: the same values, the same
        RNG state), its plain torch.rand calls served by the rand library
        into pinned memory, then copied to the device.  False when there is
        no recipe or the set does not fit."""
        key, seed = name[:16], int(name[17:-3])
        r = self.recipe(key)
        if r is None:
            return False
        t = self.t
        try:
            job = self.drawers.get(key)
            if job is None:
                # The problem's code runs here as in a build worker: under
                # the sandbox (writes only in scratch, cache and inputs).
                self.cfg.sandbox.active = True
                ns = problem_namespace(r["problem_code"], r.get("problem_file"))
                ctx = JobContext({"job": 0, "inputs_key": key,
                                  "problem_code": r["problem_code"]}, self.cfg, t)
                job = InputSets(ctx, ns["get_inputs"])
                self.drawers[key] = job
            started, t0 = time.time(), time.monotonic()
            raw, state, _, size, on_cpu = job.draw(seed, cuda_state=False)
        except Exception as e:   # noqa: the problem's own error; its jobs meet it too
            self.log("%s: not drawn here: %s" % (name, exc_text(e)))
            self.bad.add(key)
            return False
        if not on_cpu:
            self.bad.add(key)
            return False
        self.sizes[name] = size
        info = {"how": "drawn", "started": round(started, 3),
                "seconds": round(time.monotonic() - t0, 3)}
        return self.hold(name, raw, state.numpy().tobytes(), size, need, info)

    def hold(self, name, raw, rng, size, need, info):
        """Hold a set's inputs raw (size bytes of tensors) with the RNG state
        its draw left, when it fits the budget (need: other problems' sets
        make room).  info says how it came (checks.input_cache)."""
        t = self.t
        if not self.fits(size) and not (need and self.make_room(name, size)):
            return False
        held = []
        for x in raw:
            if isinstance(x, t.Tensor):
                x = self.to_device(x) if self.cuda else x.clone().share_memory_()
            held.append(x)
        if self.cuda:
            t.cuda.synchronize(self.device)
        info["ended"] = round(time.time(), 3)
        self.held[name] = {"inputs": held, "rng": rng, "bytes": size,
                           "print": fingerprint(t, held), "last": time.monotonic(),
                           "info": info}
        self.used += size
        return True

    STAGE = 64 << 20     # bytes of each of to_device's two pinned buffers

    def to_device(self, x):
        """A copy of CPU tensor x (a mapped file's) in device memory, through
        two pinned buffers: the copy of one chunk into a buffer (torch's CPU
        threads) overlaps the other's DMA to the device.  A pageable .to()
        of a 6.4 GB set ran at 4-6 GB/s on the H200 machine, and the keeper's
        load of a problem's six sets sat in its first job.  Small or
        non-contiguous tensors take .to()."""
        t = self.t
        n = x.numel() * x.element_size()
        if x.is_pinned():          # drawn here (FastRand.pin): a DMA
            return x.to(self.device, non_blocking=True)
        if n < 2 * self.STAGE or not x.is_contiguous():
            return x.to(self.device)
        if self.stage is None:
            self.stage = ([t.empty(self.STAGE, dtype=t.uint8, pin_memory=True) for _ in range(2)],
                          t.cuda.Stream(self.device), [None, None])
        bufs, stream, done = self.stage
        dst = t.empty(x.shape, dtype=x.dtype, device=self.device)
        src_b, dst_b = x.reshape(-1).view(t.uint8), dst.reshape(-1).view(t.uint8)
        stream.wait_stream(t.cuda.current_stream(self.device))   # dst's memory is free there
        with t.cuda.stream(stream):
            for i, off in enumerate(range(0, n, self.STAGE)):
                k, j = min(self.STAGE, n - off), i % 2
                if done[j] is not None:
                    done[j].synchronize()      # that buffer's last DMA is over
                bufs[j][:k].copy_(src_b[off:off + k])
                dst_b[off:off + k].copy_(bufs[j][:k], non_blocking=True)
                done[j] = t.cuda.Event()
                done[j].record(stream)
        stream.synchronize()
        return dst

    def drop(self, name):
        h = self.held.pop(name, None)
        if h is not None:
            self.used -= h["bytes"]
            del h
            if self.take:   # no longer held: a draw ahead may draw it again
                try:
                    os.unlink(os.path.join(self.cfg.inputs_dir, name + ".held"))
                except OSError:
                    pass
            if self.cuda:
                self.t.cuda.ipc_collect()
                self.t.cuda.empty_cache()

    def mtime(self, name):
        """When the inputs directory's file name was written (the order
        sets and recipes are taken in); gone: last."""
        try:
            return os.stat(os.path.join(self.cfg.inputs_dir, name)).st_mtime
        except OSError:
            return float("inf")

    def listing(self):
        """Every name in the inputs directory (sets, markers, claims)."""
        try:
            return set(os.listdir(self.cfg.inputs_dir))
        except OSError:
            return set()

    def tidy(self, prefetch):
        """Drop the sets whose file (or recipe) is gone; when prefetch, hold
        one new set that fits: drawn from the oldest recipe, else loaded
        from the oldest file.  True when it held one."""
        if self.cuda and self.t.cuda.memory_reserved(self.device) > \
                self.budget + self.budget // 10 + (1 << 30):
            # Sets lent to jobs that were killed are never given back by
            # torch's IPC refcounts (its "limbo"): leave, the worker starts
            # a fresh keeper before its next job.
            self.log("device memory beyond the budget (sets lent to killed jobs): exiting")
            os._exit(0)
        names = self.listing()
        files = {n for n in names if SET_NAME.match(n)}
        recipes = {n[:16] for n in names if RECIPE_NAME.match(n)}
        lent = self.lent_now()
        # Its file, its marker and its recipe gone: the problem is done.
        for name in [n for n in self.held if n not in lent and n not in files and
                     not self.taken(n, names) and n[:16] not in recipes]:
            self.drop(name)
        for n in [n for n in self.sizes if n not in files and n[:16] not in recipes]:
            del self.sizes[n]
        for key in [k for k in set(self.recipes) | set(self.drawers) | self.bad
                    if k not in recipes]:
            self.recipes.pop(key, None)
            self.drawers.pop(key, None)
            self.bad.discard(key)
        if not prefetch or self.quiet:
            return False
        if self.prefetch_drawn(names):
            return True
        # Not held, and not known to be too large for the room left (a
        # file that did not fit is not opened again every tick).
        new = [n for n in files if n not in self.held and
               self.fits(self.sizes.get(n, 0))]
        for n in sorted(new, key=self.mtime):
            try:
                if self.load(n):
                    return True
            except Exception as e:   # noqa: a file being removed, out of memory
                self.log("%s not held: %s" % (n, exc_text(e)))
                return False
        return False

    def prefetch_drawn(self, names):
        """Draw one set ahead from the oldest recipe that has one not held,
        when it fits the budget (a set's size is known once one of its
        problem's sets was drawn); True when it drew.  The problems go in
        the order their recipes were written, the order of their jobs."""
        for rn in sorted((n for n in names if RECIPE_NAME.match(n)), key=self.mtime):
            key = rn[:16]
            r = self.recipe(key)
            if r is None:
                continue
            known = [v for n, v in self.sizes.items() if n[:16] == key]
            for seed in r["seeds"]:
                name = "%s-%d.pt" % (key, seed)
                if name in self.held:
                    continue
                est = self.sizes.get(name, max(known, default=0))
                if not self.fits(est):
                    return False       # no room: later problems wait their turn
                self.ahead = True
                try:
                    return self.draw(name)
                except Exception as e:   # noqa: out of memory, a set being removed
                    self.log("%s not drawn: %s" % (name, exc_text(e)))
                    return False
                finally:
                    self.ahead = False
        return False

    def returned(self, s):
        """A job's connection closed: check the sets it was lent."""
        for name in self.lent.pop(s, ()):
            h = self.held.get(name)
            if h is not None and fingerprint(self.t, h["inputs"]) != h["print"]:
                self.log("%s was written by a job: dropped" % name)
                self.drop(name)
        s.close()

    def request(self, held_only=False):
        """A job's request (its set names, and the socket to answer on).
        held_only: asked in the middle of a draw (poll): answered now when
        every set it names is held, else after the draw."""
        msg, fds, _, _ = socket.recv_fds(self.sock, 65536, 1)
        if not msg:
            if held_only:
                os._exit(0)       # the worker is gone, mid-draw
            return False          # the worker is gone
        if not fds:
            return True
        reply = socket.socket(fileno=fds[0])
        try:
            obj = json.loads(msg)
            if obj.get("hush"):
                self.hushers.add(reply)
                return True
            names = [n for n in obj.get("sets", []) if SET_NAME.match(n)]
        except (ValueError, AttributeError) as e:
            self.log("request failed: %s" % exc_text(e))
            reply.close()
            return True
        if held_only and not all(n in self.held for n in names):
            self.deferred.append((names, reply))
        else:
            self.answer(names, reply)
        return True

    def hush(self, s):
        """A job's hush channel said something (loan.keeper_quiet): 1, it
        is about to time calls: nothing is drawn or loaded ahead until it
        says 0 or closes, and it is told so (read here, between draws: a
        set drawn meanwhile would share the device with its timed calls,
        which the original harness never did)."""
        try:
            data = s.recv(64)
        except OSError:
            data = b""
        if not data:
            self.hushers.discard(s)
            self.quiet.discard(s)
            s.close()
            return
        for b in data:
            if b == ord("1"):
                self.quiet.add(s)
                try:
                    s.sendall(b"q")
                except OSError:
                    pass
            elif b == ord("0"):
                self.quiet.discard(s)

    def poll(self):
        """Between the chunks of a draw (FastRand.between): a job whose sets
        are all held is lent them at once, not a draw later (on the H200
        the jobs that asked while the next problem's 6.4 GB sets were drawn
        ahead waited 1.0-1.4 s each); a job about to time its calls is told
        at once that nothing is drawn ahead, and a draw ahead waits here
        until no job times (its calls then do not wait a whole draw, up to
        10 s for such a set, on the tool inside their phase's limit).  A
        draw a job asked for goes on: a job asks only before it times."""
        while True:
            r, _, _ = select.select([self.sock] + list(self.hushers), [], [],
                                    0.25 if self.quiet and self.ahead else 0)
            for s in [s for s in r if s in self.hushers]:
                self.hush(s)
            if self.sock in r:
                self.request(held_only=True)
            if not (self.quiet and self.ahead):
                return

    def answer(self, names, reply):
        """Lend the sets names (loaded or drawn first when not held; what
        cannot be held is left out) through reply."""
        from multiprocessing.reduction import ForkingPickler
        try:
            self.tidy(False)
            out = {}
            for n in names:
                try:
                    if n in self.held:
                        pass
                    elif os.path.exists(os.path.join(self.cfg.inputs_dir, n)):
                        self.load(n, need=True)
                    else:
                        self.draw(n, need=True)
                except Exception as e:   # noqa
                    self.log("%s not held: %s" % (n, exc_text(e)))
                h = self.held.get(n)
                if h is not None:
                    h["last"] = time.monotonic()
                    out[n] = (h["inputs"], h["rng"], h["info"])
            data = bytes(ForkingPickler.dumps(out))
            reply.sendall(len(data).to_bytes(8, "little") + data)
            self.lent[reply] = set(out)
        except Exception as e:   # noqa: the job loads its files itself
            self.log("request failed: %s" % exc_text(e))
            reply.close()

    def serve(self):
        busy = False      # the last idle tick held a set: look again at once
        if self.cfg.rand is not None:
            self.cfg.rand.between = self.poll    # this process's copy
        while True:
            while self.deferred:
                self.answer(*self.deferred.pop(0))
            r, _, _ = select.select([self.sock] + list(self.lent) + list(self.hushers), [], [],
                                    0 if busy else 0.25)
            for s in [s for s in r if s in self.hushers]:
                self.hush(s)
            for s in [s for s in r if s in self.lent]:
                if not s.recv(1):
                    self.returned(s)
            if self.sock in r:
                if not self.request():
                    return
            elif not r:
                busy = self.tidy(True)


def keeper_main(cfg, torch, sock, budget_mb):
    """The keeper child; never returns."""
    code = 0
    try:
        os.setpgid(0, 0)
        set_pdeathsig()
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        k = Keeper(cfg, torch, sock, budget_mb)
        k.start()
        k.serve()
    except BaseException as e:   # noqa: jobs load their files themselves
        sys.stderr.write("headroom worker keeper: stopped: %s\n" % exc_text(e))
        code = 1
    finally:
        os._exit(code)


def start_keeper(cfg, torch):
    """Fork the keeper; returns the socket jobs ask it through, or None."""
    if not cfg.keeper_wanted:
        return None
    budget = keeper_budget_mb(cfg)
    if budget is None:
        sys.stderr.write("headroom worker: HEADROOM_DEVICE_INPUTS_MB=%s is not a number of "
                         "MiB; no keeper\n" % os.environ.get("HEADROOM_DEVICE_INPUTS_MB"))
        return None
    if budget == 0:
        return None
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        mine.close()
        keeper_main(cfg, torch, theirs, budget)
    theirs.close()
    cfg.keeper_pid = pid
    return mine
