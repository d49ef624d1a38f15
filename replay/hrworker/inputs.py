"""hrworker/inputs.py - a job's input sets: the seeds KernelBench draws with,
each set drawn (set_seed(s); get_inputs()) or loaded from the run's inputs
directory or lent by the keeper, before any candidate code runs; the draws
ahead of a build worker (predraw) and the recipes the keeper draws from;
and each set handed out afresh, RNG state restored (fresh_inputs).
Must not: run candidate code, or remove input files (the orchestrator and
the keeper own their lifetime)."""
import hashlib
import json
import os
import time

from hrworker import vocab
from hrworker.audit import describe
from hrworker.context import AUDIT_POOL, HOLD_SHARE
from hrworker.util import exc_text, set_bytes
from hrworker.loan import borrow, read_recipe


class InputSets:
    """The input sets of one job (ctx: its JobContext), drawn by the
    problem's get_inputs as the harness calls it."""

    def __init__(self, ctx, get_inputs):
        self.ctx, self.get_inputs = ctx, get_inputs
        self.m, self.cfg, self.torch = ctx.m, ctx.cfg, ctx.torch
        self.cuda, self.seed, self.mode, self.checks = ctx.cuda, ctx.seed, ctx.mode, ctx.checks
        self.place, self.set_seed = ctx.place, ctx.set_seed
        self.draws = None       # seed -> (raw, rng state, cuda state) | None (draw late)
        self.late_seed = None   # fresh_inputs: the one late set kept
        self.placed = None      # fresh_inputs: (seed, the last set placed), kept
        self.pool_seeds = []    # robust: the warm-up sets' seeds (new content, not drawn here)
        self.fast_draws = 0     # draws the rand library served (FastRand)
        self.clean = {}         # seed -> the timed sets' descriptions, drawn before any candidate code
        self.in_namespace = False   # drawn again in the candidate's namespace (redraw_in_namespace)
        self.remote = None      # there: the candidate process (remote.CandidateProcess)
        self.device_bytes = 0   # bytes of the sets kept on the device (device_kept)
        self.host_copies = 0    # device-drawn sets kept on the host instead
        # Every set handed out goes through share: on a CPU job with a
        # candidate process, into memory that process maps (the judge's
        # tensor is the shared one, so the check sees what the candidate
        # wrote into its inputs).
        self.share = lambda x: x

    def trial_seeds(self):
        """KernelBench: torch.manual_seed(42), then one randint per trial."""
        t = self.torch
        t.manual_seed(self.seed)
        return [t.randint(0, 2**32 - 1, (1,)).item()
                for _ in range(int(self.m.get("correct_trials", 5)))]

    def inputs_key(self):
        """The input files' prefix: the orchestrator's inputs_key (sha16 of
        the problem's code, computed once for the run), else the same here."""
        k = self.m.get("inputs_key")
        if isinstance(k, str) and len(k) == 16 and all(c in "0123456789abcdef" for c in k):
            return k
        return hashlib.sha256(self.m["problem_code"].encode()).hexdigest()[:16]

    def set_path(self, seed):
        """The file of one input set: <inputs_key>-<seed>.pt in the inputs
        directory (the orchestrator removes a problem's files by that
        prefix)."""
        return os.path.join(self.cfg.inputs_dir, "%s-%d.pt" % (self.inputs_key(), seed))

    def input_seeds(self):
        """Every seed s whose set_seed(s); get_inputs() the job draws as
        the harness does: the trial seeds and the timing seed (no
        repeats).  Robust's warm-up seeds (pool_seeds, robust_inputs of
        them) are set here but not drawn: Timing.time_robust draws their
        sets as new content (fresh_content), as its rounds' -- eight more
        sets from the problem's CPU stream, 6 GiB each on today's largest
        problems, each served one warm-up call."""
        seeds = self.trial_seeds()
        if self.mode == vocab.MODE_ROBUST:
            import numpy as np
            k = max(1, int(self.m.get("robust_inputs", 8)))
            rng = np.random.default_rng(self.ctx.audit_seed(AUDIT_POOL))
            self.pool_seeds = [int(x) for x in rng.integers(0, 2**62, size=k)]
        return list(dict.fromkeys(seeds + [self.seed]))

    def host_inputs(self):
        """get_inputs() as KernelBench calls it; its plain torch.rand calls
        served by the rand library when the worker has one (FastRand: the
        same values, the same generator state), counted in fast_draws."""
        fast = None if self.in_namespace else self.cfg.rand
        if fast is None:
            return self.get_inputs()
        served = fast.served
        raw = fast.call(self.get_inputs)
        self.fast_draws += fast.served > served
        return raw

    def draw(self, s, cuda_state=True):
        """set_seed(s); get_inputs(), as KernelBench: the inputs, the RNG
        states the draw left (CPU, CUDA or None), their bytes, and whether
        every tensor is on the CPU (only those are saved: a file is loaded
        by whichever worker comes next).  cuda_state=False (a draw ahead,
        which keeps only CPU draws) leaves CUDA alone unless the problem's
        get_inputs uses it: a build worker needs no CUDA context.  The
        rand library, when the worker has one (FastRand), serves the
        get_inputs' torch.rand calls: same values, same state."""
        t = self.torch
        if self.remote is not None:     # in the candidate's namespace, in its process
            raw, state = self.remote.draw(s)
            return raw, state, None, set_bytes(t, raw), all(
                not isinstance(x, t.Tensor) or x.device.type == "cpu" for x in raw)
        self.set_seed(s)
        raw = self.host_inputs()
        on_cpu = all(not isinstance(x, t.Tensor) or x.device.type == "cpu" for x in raw)
        return (raw, t.get_rng_state(),
                t.cuda.get_rng_state() if self.cuda and cuda_state else None,
                set_bytes(t, raw), on_cpu)

    def save_draw(self, path, raw, state):
        """Write a draw under a name of this process's, then rename: several
        workers may draw the same set at once, and a reader only ever sees
        a whole file.  A write that fails leaves no file."""
        tmp = "%s.%d.tmp" % (path, os.getpid())
        try:
            self.torch.save({"inputs": list(raw), "rng": state}, tmp)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def restore_rng(self, before):
        """The candidate starts where it would have without the draws."""
        self.torch.set_rng_state(before)
        if self.cuda:
            self.torch.cuda.manual_seed(self.seed)

    def keepable(self, size):
        """A drawn set of size bytes may be saved to the inputs directory:
        the directory stays within input_cache_mb (the run's budget for it,
        which the orchestrator sends; 2 GiB when run alone), and the
        filesystem keeps 1 GiB free.  Sets that do not fit are kept in
        memory or drawn again when used."""
        budget = int(self.m.get("input_cache_mb", 2048)) << 20
        d = self.cfg.inputs_dir
        used = 0
        try:
            for f in os.listdir(d):
                try:
                    used += os.stat(os.path.join(d, f)).st_size
                except OSError:
                    pass
            st = os.statvfs(d)
            free = st.f_bavail * st.f_frsize
        except OSError:
            return False
        return used + size <= budget and free - size >= 1 << 30

    def mapped(self, path):
        """The set in file path, mapped (not read): (inputs, rng state,
        None), or None when there is no such file (or it cannot be mapped:
        a CPU job's address-space limit; the set is then drawn).  Mapped at
        once: with --take-inputs the keeper may take (remove) the file
        before this job's trials use it, and a mapping outlives the name."""
        try:
            obj = self.torch.load(path, mmap=True, weights_only=True)
        except (OSError, RuntimeError, MemoryError):
            return None
        return (obj["inputs"], obj["rng"], None)

    def draw_all(self):
        """Draw every input set the job uses (set_seed(s); get_inputs()),
        before any candidate code runs.  A set already in the inputs
        directory (--inputs: the run's, shared by every worker; a build
        worker usually drew it ahead, see predraw) is loaded instead; a
        missing CPU draw is saved there for the jobs after (faithful inputs
        are drawn by a single-stream CPU torch.rand: on large problems that,
        not the GPU, bounds a warm replay).  The orchestrator removes a
        problem's files when its last job is done.  A set that does not fit
        (keepable: the directory's budget, input_cache_mb) is not kept: the
        first such draw stays in memory for its trial, the others are drawn
        when used."""
        t = self.torch
        before = t.get_rng_state()          # as left by Model(*init_inputs)
        self.draws, hits, late, keeper_drew = {}, 0, False, []
        self.late_seed = None               # fresh_inputs: the one late set kept
        seeds = self.input_seeds()
        # Sets the keeper holds in device memory are lent, not loaded.
        secs = {}
        lent = borrow(self.cfg, t, [os.path.basename(self.set_path(s)) for s in seeds], secs)
        for s in seeds:
            path = self.set_path(s)
            got = lent.get(os.path.basename(path))
            if got is not None:
                self.draws[s] = (got[0], t.frombuffer(bytearray(got[1]), dtype=t.uint8), None)
                hits += 1
                if got[2].get("how") == "drawn":
                    keeper_drew.append([got[2].get("started"), got[2].get("ended")])
                continue
            got = self.mapped(path)
            if got is not None:
                self.draws[s] = got
                hits += 1
                continue
            if late:                        # too large to keep: drawn when used
                self.draws[s] = None
                continue
            raw, state, cuda_state, size, on_cpu = self.draw(s)
            fits = on_cpu and self.keepable(size)
            if fits:
                try:
                    self.save_draw(path, raw, state)
                except (OSError, RuntimeError):   # the disk: kept in memory
                    fits = False
            # Saved: mapped (in memory when the keeper took it at once).
            # Not: in memory; with no room the rest are drawn late.
            got = self.mapped(path) if fits else None
            if got is None and not on_cpu:
                raw = self.device_kept(raw, size)
            self.draws[s] = got if got is not None else (raw, state, cuda_state)
            late = not fits and on_cpu
        self.checks["input_cache"] = {"sets": len(self.draws), "hits": hits,
                                      "drawn_late": sum(v is None for v in self.draws.values()),
                                      "device_held": len(lent),
                                      "fast_draws": self.fast_draws}
        if self.host_copies:    # device draws kept on the host (device_kept)
            self.checks["input_cache"]["host_copies"] = self.host_copies
        if secs:            # the keeper's loan: where its time went (borrow)
            self.checks["input_cache"]["borrow_seconds"] = secs
        if keeper_drew:     # sets the keeper drew from the recipe: when
            self.checks["input_cache"]["keeper_drew"] = sorted(keeper_drew)
        self.describe_clean()
        self.restore_rng(before)

    def device_kept(self, raw, size):
        """A set the problem's get_inputs drew on the device, kept for
        its trial: on the device while the job's sets kept there stay
        within context.HOLD_SHARE of the device's memory, else
        copied to the host (fresh_inputs places it again: the same
        values).  The harness holds one set at a time; a job's six or
        more sets of a multi-GB problem held on the device would leave
        the candidate less than the harness left it."""
        t = self.torch
        if not self.cuda:
            return raw
        if self.holds(size):
            self.device_bytes += size
            return raw
        self.host_copies += 1
        return [x.cpu() if isinstance(x, t.Tensor) and x.device.type != "cpu" else x
                for x in raw]

    def predraw(self):
        """A build worker's part of draw_all (message field "draw"): save
        every input set of the job that is not in the inputs directory yet
        and that no other worker claimed (<set>.claim), the same draws with
        the same RNG state, so the run worker only loads.
        It stops at the first set it cannot share (no room: keepable, or
        drawn on the device): the run worker deals with that one and the
        rest as draw_all does.  Returns what it did, for the job's record."""
        t = self.torch
        before = t.get_rng_state()
        t0 = time.monotonic()
        seeds = self.input_seeds()
        rec = {"sets": len(seeds), "present": 0, "drawn": 0, "claimed": 0,
               "started": round(time.time(), 3)}
        if self.cfg.recipes:     # the keeper draws them: nothing to do here
            self.write_recipe(seeds)
            rec["recipe"], seeds = True, []

        def note_bytes(n):
            """set_bytes: the largest set seen, file or tensors (the
            orchestrator's room rule)."""
            if n > rec.get("set_bytes", 0):
                rec["set_bytes"] = n

        def file_bytes(path):
            try:
                return os.stat(path).st_size
            except OSError:              # held: the keeper took the file
                return 0

        def present(path):
            """Saved already, or held by the keeper: counted, with its size."""
            if not (os.path.exists(path) or os.path.exists(path + ".held")):
                return False
            rec["present"] += 1
            note_bytes(file_bytes(path))
            return True

        for s in seeds:
            path = self.set_path(s)
            if present(path):
                continue
            # Several build workers may draw one problem: each set goes to
            # the one that claims it first (the claim is removed with the
            # set saved, or given up; a stale one only costs a late draw).
            claim = path + ".claim"
            try:
                os.close(os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            except FileExistsError:
                rec["claimed"] += 1
                continue
            try:
                # Saved by the claim's last holder between the look above
                # and the claim (it saves, then gives the claim up).
                if present(path):
                    continue
                raw, state, _, size, on_cpu = self.draw(s, cuda_state=False)
                note_bytes(size)
                if not on_cpu or not self.keepable(size):
                    rec["stopped"] = ("over input_cache_mb" if on_cpu
                                      else "drawn on the device")
                    break
                try:
                    self.save_draw(path, raw, state)
                except (OSError, RuntimeError) as e:
                    # The disk, not the problem (torch's zip writer says
                    # RuntimeError on a short write): the job goes on, the
                    # run worker draws the set itself.
                    rec["stopped"] = "saving failed: %s" % exc_text(e)
                    break
                rec["drawn"] += 1
                note_bytes(file_bytes(path))   # what the budget counts
            finally:
                os.unlink(claim)
        rec["seconds"] = round(time.monotonic() - t0, 3)
        rec["ended"] = round(time.time(), 3)
        rec["fast"] = self.fast_draws
        self.restore_rng(before)
        return rec

    def write_recipe(self, seeds):
        """A build worker's draw when the run worker's keeper draws (cfg.recipes):
        <inputs_key>-recipe in the inputs directory (removed with the
        problem's sets, by the key and "-") says how to draw the
        problem's sets -- its code and the seeds -- and the keeper draws
        them itself, into pinned memory and on to the device (Keeper.draw):
        no set goes through a file.  Written whole (a name of this
        process's, then rename); seeds another job's recipe named are kept."""
        path = os.path.join(self.cfg.inputs_dir, self.inputs_key() + "-recipe")
        old = read_recipe(path)
        if old is not None and set(seeds) <= set(old["seeds"]):
            return
        if old is not None:
            seeds = old["seeds"] + [s for s in seeds if s not in old["seeds"]]
        tmp = "%s.%d.tmp" % (path, os.getpid())
        with open(tmp, "w") as f:
            json.dump({"problem_code": self.m["problem_code"],
                       "problem_file": self.m.get("problem_file", "problem.py"),
                       "seeds": seeds}, f)
        os.replace(tmp, path)

    def fresh_inputs(self, seed):
        """set_seed(seed); get_inputs(); placed -- from the job's draws: the
        same values, placed afresh (never objects another call saw), and
        the RNG state the draw left restored, so nothing downstream can
        tell the draw from a load."""
        t = self.torch
        kept = self.draws[seed]
        if kept is None:
            # A set with no room to keep (keepable) is drawn when used,
            # KernelBench's own way, and kept until the next such draw:
            # the timing seed's set serves both timing loops (on the H200
            # a 1.6 G-element set takes 10 s to draw on the CPU).
            if self.late_seed is not None:
                self.draws[self.late_seed] = None
            raw, state, cuda_state, _, _ = self.draw(seed)
            kept = self.draws[seed] = (raw, state, cuda_state)
            self.late_seed = seed
            ic = self.checks.get("input_cache")
            if ic is not None:              # how many draws the job made late
                ic["late_draws"] = ic.get("late_draws", 0) + 1
        self.set_seed(seed)                 # the CUDA generator, as set_seed does
        raw, state = kept[0], kept[1]
        if self.cuda and kept[2] is not None:
            t.cuda.set_rng_state(kept[2])
        t.set_rng_state(state)
        placed = self.placed[1] if self.placed is not None and self.placed[0] == seed else None
        if placed is None:
            self.placed = None              # the last seed's copy goes first
            placed = []
            for x in raw:
                y = self.place(x)
                if isinstance(x, t.Tensor) and y.data_ptr() == x.data_ptr():
                    y = y.clone()
                placed.append(y)
            if not self.keep_placed(placed):
                return [self.share(y) for y in placed]
            self.placed = (seed, placed)
        return [self.share(y.clone()) if isinstance(y, t.Tensor) else y for y in placed]

    def keep_placed(self, placed):
        """Keep a set as placed for the next fresh_inputs of its seed (the
        audit asks for the first trial's set five times or more, the
        timing's twice): on a GPU a 6 GiB set is a second's copy from the
        host, a clone on the device milliseconds.  Kept while it fits
        within context.HOLD_SHARE beside the device-drawn sets the job
        keeps; never handed out (each caller gets its clone)."""
        return self.holds(set_bytes(self.torch, placed))

    def holds(self, size):
        """May the job keep size bytes more of its own beside the sets it
        keeps on the device (device_bytes), within context.HOLD_SHARE?"""
        return self.device_bytes + size <= HOLD_SHARE * self.ctx.memory_total()

    def redraw_in_namespace(self, remote):
        """Forget every set: each is drawn again when used, by the
        problem's get_inputs in the namespace candidate code has changed
        (in the candidate process, remote), with torch's own generator
        there (as KernelBench, a patched torch.rand included), and never
        saved."""
        self.draws = {s: None for s in (self.draws or {})}
        self.late_seed = None
        self.placed = None
        self.in_namespace = True
        self.remote = remote
        ic = self.checks.get("input_cache")
        if ic is not None:
            ic["drawn_in_candidate_namespace"] = True

    def describe_clean(self):
        """The set timing uses (the timing seed's) as the problem alone
        draws them (before candidate code ran): audit.describe of each the
        job holds, by seed.  A problem whose shapes depend on the seed (bags
        of random length) is compared seed with seed."""
        t, cast = self.torch, self.ctx.harness == "current"
        for seed in [self.seed]:
            kept = (self.draws or {}).get(seed)
            if kept is None:
                continue
            self.clean[seed] = describe(t, [t.empty(x.shape, device="meta",
                                                    dtype=self.ctx.dtype if cast else x.dtype)
                                            if isinstance(x, t.Tensor) else x for x in kept[0]])

    def fresh_content(self, seed):
        """A set of new content for the audit's calls: set_seed(seed);
        get_inputs() drawn with the device's generator (the problem's
        distributions, other values; on a GPU a large set takes
        milliseconds, not the CPU generator's seconds), placed.  Never
        one of the harness's sets."""
        t = self.torch
        self.set_seed(seed)
        with t.device(self.ctx.device):
            raw = self.get_inputs()
        return [self.share(self.place(x)) for x in raw]
