"""hrworker/timing.py - a job's timing loops: KernelBench's (faithful: its
warm-ups, discarded trial, L2 fill, CUDA events or perf_counter_ns, mean)
and the robust one (interleaved rounds over a pool of input sets, median,
bootstrap interval), and the optional torch.compile baseline.  Writes
runtime, baseline and speedup into the job's result.
Must not: judge correctness (hrworker/checks.py)."""
import os
import time

from hrworker import vocab
from hrworker import distribution, nvml
from hrworker.audit import (FLOOR_TRIES, add_finding, copy_bandwidth, copy_bytes, describe, fingerprint,
                            floor_margin, floor_ms, spent)
from hrworker.context import AUDIT_FRESH, AUDIT_ROUNDS, HOLD_SHARE
from hrworker.l2 import l2_reset
from hrworker.outputs import elements, same_structure
from hrworker.precision import MASK_FLIP_SHARE, flipped_share
from hrworker.protocol import COVER_CYCLES
from hrworker.remote import RemoteModel, audit_failure
from hrworker.util import Laps, exc_text, finite, set_bytes


KB_L2_FILL_BYTES = 32 * 1024 * 1024 * 8   # timing.py clear_l2_cache: 256 MiB

# What a figure of the candidate's is (remote.CandidateProcess.figure).
CANDIDATE_TIMER = ("the judge's perf_counter_ns around the call's handshake, less the "
                   "handshake's overhead as calibrated before candidate code ran")

# How much faster on the harness's repeated inputs than on fresh content a
# candidate must be for result-cached (fresh_timing).  A cache hit skips the
# work (the planted caches: 50-100x on a CPU); on the loaded 2-core
# development machine an honest row sum ran up to 9.3x faster on the
# repeated set than on fresh ones, least against least.
CACHE_RATIO = 30
# The CPU's flush before a timed call: the largest cache (worker.llc_bytes),
# at most CPU_FLUSH_MAX (twice either in robust mode): a cache of hundreds
# of MiB (480 MiB on the development machine's Xeon) would make every
# timed call of a CPU job a fill of that size, tens of ms.  What a smaller
# flush leaves may still be read from the cache: the floor counts only the
# input bytes beyond it (Timing.floor).
CPU_FLUSH_MAX = 32 << 20

# The audit's sets of new content, by seed offset from the job's secret
# (context.AUDIT_FRESH + k): recheck's after timing (1), fresh_timing's
# (2 .. 2 + FRESH_TIMING_SETS - 1), then the escapes pass's (Job.escapes),
# which no other call has seen.
FRESH_TIMING_SETS = 7

# What the physical floor compares (Timing.floor, remote.fastest_call).
FLOOR_STATISTIC = ("the fastest timed call: the judge's reading less the least handshake "
                   "its calibration saw")
ESCAPES_SEED_OFFSET = 2 + FRESH_TIMING_SETS


def cached_ratio(repeated_ms, fresh_ms, resolution_ms):
    """Whether the least time on the repeated timing inputs is under
    1/CACHE_RATIO of the least on fresh content (result-cached), the
    repeated figure read as the judge's clock resolution where it is less:
    a figure within the resolution says only that the call took no more,
    and a ratio of it is the calibration's noise (on the 2-core host a
    view's call read 0.001 ms on the repeated inputs and 0.071 ms on fresh
    content, its module call's overhead varying by more than either, at a
    resolution of 0.03-0.04 ms)."""
    return max(repeated_ms, resolution_ms) * CACHE_RATIO < fresh_ms


def unresolved_figures(figures, resolution_ms):
    """None where the judge's clock resolves the candidate's robust
    figures, else why not: their median is no more than the clock's
    resolution (CandidateProcess.resolution_ms, how far a handshake may
    fall under the calibration's lower quartile).  Such figures are the
    calibration's noise, not the call's time, and no speedup drawn from
    them is verified (verdict.c: correct at most): a calibration taken at
    a slow moment of the host once read the reference's own 17 us matmul
    at FIGURE_MIN_MS a call, 17.9x [6.6, 18.5] on the H100."""
    if not figures:
        return None
    mid = sorted(figures)[(len(figures) - 1) // 2]
    if mid > resolution_ms:
        return None
    return {"median_figure_ms": finite(mid), "resolution_ms": finite(resolution_ms),
            "rule": "the candidate's median figure is within the judge's clock resolution"}


# How much of one side's robust readings may have gone to waiting for a
# CPU before the readings are held to have waited (waited_for_a_cpu).
# The reference's (CPU jobs: its readings are a host clock's), summed
# over its threads (torch's pool too): on a quiet 2-core host a 0.7 ms
# matmul's threads
# waited 0-7 % of its readings (their wake-ups), beside a busy loop a CPU
# 350-870 %.  The candidate's (GPU jobs: the judge's clock around the
# handshake is its figure), its serving thread's and the judge's: on an
# H100 host 0 in jobs timed after the run's builds, 110 % of the readings
# of a candidate that does no work timed while they ran (4.6 ms a call
# for 0.0015 ms of its own).
CPU_WAIT_SHARE = 0.25


def judge_wait_ns():
    """The time every thread of this process (the judge: its own and
    torch's pool) has spent runnable but waiting for a CPU (the second
    field of /proc/self/task/TID/schedstat, ns), or None where the kernel
    keeps no such account."""
    total = 0
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        return None
    for tid in tids:
        try:
            with open("/proc/self/task/%s/schedstat" % tid) as f:
                total += int(f.read().split()[1])
        except (OSError, ValueError, IndexError):
            continue        # a thread that ended meanwhile
    return total


def waited_for_a_cpu(readings_ms, waits_ms, whose, share=CPU_WAIT_SHARE):
    """None where robust readings (readings_ms, a host clock's) held little
    waiting for a CPU, else the record of how much they did: more than
    share of them (waits_ms: the waits across each reading; whose: "the
    reference's threads" or "the candidate's handshake").  A wait
    lengthens the reading it falls in and is never taken off it
    (docs/replay.md).  The reference's (CPU jobs): a reference slowed so
    makes the candidate read faster than it is (beside two busy loops on
    2 cores the reference's own matmul with 0.3 ms of extra work a call
    read verified-faster once): no verified speedup (verdict.c: correct at
    most).  The candidate's (GPU jobs): its figures read slower than its
    kernels ran, and a figure below the physical floor goes unseen (a
    candidate that does no work read 4.6 ms a call beside the run's own
    builds): the job is run again once the builds are done (Job.
    retry_after_builds).  Never evidence against the candidate."""
    waits = [w for w in waits_ms if w is not None]
    total = sum(readings_ms)
    if not waits or total <= 0:
        return None
    waited = sum(waits)
    if waited <= share * total:
        return None
    return {"waited_ms": round(waited, 6), "readings_ms": round(total, 6),
            "share": round(waited / total, 4), "allowed_share": share,
            "rule": "%s waited for a CPU more than %g of its readings" % (whose, share)}


class Timing:
    """Times the job's reference (ref) and candidate (new) on its input
    sets (sets: InputSets) under ctx's semantics; judge (checks.Checks)
    checks the outputs the audit looks at."""

    def __init__(self, ctx, ref, new, sets, judge):
        self.ctx, self.ref, self.new, self.sets, self.judge = ctx, ref, new, sets, judge
        self.m, self.cfg, self.torch, self.cuda = ctx.m, ctx.cfg, ctx.torch, ctx.cuda
        self.device, self.harness, self.seed = ctx.device, ctx.harness, ctx.seed
        self.checks, self.result, self.sync = ctx.checks, ctx.result, ctx.sync
        self.fresh_inputs = sets.fresh_inputs if sets is not None else None
        # In the candidate process: its handshake with the judge around
        # each timed call (candidate.Candidate: ready, then done).
        self.handshake = None
        self.waits = None           # a list: each timed reading's waits for a CPU (time_call)
        # The persisting-L2 state before each timed call (l2_before_call):
        # the first found, and the calls it was read before.
        self.l2_found, self.l2_calls = None, 0
        # In the judge, on a GPU: the clocks sampled around the timed calls
        # (nvml.Sampler; clock_sampler), None elsewhere.
        self.clocks = None
        self.on_audit = None        # called once the timed calls are over

    def audit_begins(self):
        """The timed calls are over: what follows is the audit's own calls
        (the judge's on_audit: the job's audit phase, with a limit of its
        own)."""
        if self.on_audit is not None:
            self.on_audit()

    def clock_sampler(self):
        """The judge's NVML sampler for the job's GPU (nvml.py): the SM
        clock and throttle reasons before and after each timed call; where
        NVML cannot be had, a sampler that only says why.  None on a CPU."""
        if not self.cuda:
            return None
        try:
            dev, why = nvml.open_device(pci_bus_id=nvml.torch_pci_bus_id(self.torch, self.device))
        except Exception as e:  # noqa: never fails a job (nvml.py)
            dev, why = None, exc_text(e)
        return nvml.Sampler(dev, why)

    def sampled(self, fn):
        """fn() with the clocks sampled around it (clock_sampler)."""
        return self.clocks.around(fn) if self.clocks is not None else fn()

    def flush_bytes(self, robust):
        if self.cuda:
            if robust:
                p = self.torch.cuda.get_device_properties(self.device)
                return 2 * int(getattr(p, "L2_cache_size", 0) or 50 << 20)
            return KB_L2_FILL_BYTES
        n = min(self.cfg.llc_bytes, CPU_FLUSH_MAX)
        return 2 * n if robust else n

    def flush(self, nbytes, dummy=None):
        """KernelBench's clear_l2_cache on CUDA (a fresh tensor from the
        caching allocator, filled; dummy: one flush_tensor made already).
        On CPU one buffer is kept and refilled: a fresh 32 MiB there is an
        mmap and page faults, not a cache flush."""
        if not nbytes:
            return
        if self.cuda:
            if dummy is None:
                dummy = self.flush_tensor(nbytes)
            dummy.fill_(42)
            del dummy
            return
        buf = getattr(self, "_flush_buf", None)
        if buf is None or buf.numel() != nbytes // 8:
            buf = self._flush_buf = self.torch.empty((nbytes // 8,), dtype=self.torch.int64)
        buf.fill_(42)

    def flush_tensor(self, nbytes):
        """The fresh tensor of a CUDA flush, or None (none asked, or CPU)."""
        if not nbytes or not self.cuda:
            return None
        return self.torch.empty((nbytes // 8,), dtype=self.torch.int64, device=self.device)

    def time_one(self, fn, args, flush, sync_before, keep=None, cover=0):
        """One timed call, in ms; its output goes into keep (a list) when
        given.  The candidate's model (remote.RemoteModel) is timed by its
        process, the judge's clock around it (CandidateProcess.time_one),
        which asks for the launch cover: on CUDA, cover cycles of a GPU
        spin (torch.cuda._sleep) after the flush and before the start
        event, so that the call's launches are queued by the time the
        start event fires (without it the GPU waits idle for them inside
        the events: 70-165 us a call on the H200 after the robust flush,
        which is shorter than the host's launch of a call).  The judge
        gives its own calls of the reference the same cover (time_robust):
        a cover hides up to its length of host launch time, so one side
        without it reads a launch-bound call that much slower."""
        if isinstance(fn, RemoteModel):
            return fn.proc.time_one(args, flush, sync_before, self.cover(), keep)
        if isinstance(self.new, RemoteModel):
            # The judge's call of the reference: the CPU time the
            # candidate's processes take meanwhile is counted (background-work);
            # robust, they are stopped, on a GPU once it is quiet (quiet.py).
            proc = self.new.proc

            def call():
                return proc.family.around(
                    lambda: self.time_call(fn, args, flush, sync_before, keep, cover))
            return proc.quiet.around(call) if proc.quiet is not None else call()
        return self.time_call(fn, args, flush, sync_before, keep, cover)

    def time_call(self, fn, args, flush, sync_before, keep, cover):
        """time_one of a call in this process."""
        t = self.torch
        hs = self.handshake
        if hs is not None and self.cuda and self.ctx.mode == vocab.MODE_ROBUST:
            self.l2_before_call()
        if sync_before:
            self.sync()
        if self.cuda:
            start, end = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
            # The flush's tensor is allocated before the handshake: where an
            # output kept from the last call split the caching allocator's
            # block, the allocation is a cudaMalloc, inside the judge's
            # clock around the candidate's call and outside every CUDA
            # event (an honest matmul the reference's own read 0.77x in
            # robust on the H200 and H100).  The handshake before the fill,
            # as the fill is asynchronous: the call's launches then overlap
            # its kernel as they do without a handshake (start fires when
            # the flush ends), instead of meeting an idle GPU and adding
            # their latency to the events (a 38 us kernel read 62 us on the
            # H200).
            dummy = self.flush_tensor(flush)
            if hs is not None and dummy is not None and sync_before:
                # The flush once before the handshake too, waited for: the
                # timed flush then finds the cache as the calls of nothing
                # left it (full of the flush's own lines, not the last
                # call's) and the GPU running this process's work.  On the
                # H100 the GPU's time from go to the call's start was 13-22
                # us longer after a call than after a call of nothing
                # without it, 2-4 us with it.
                self.flush(flush, dummy)
                self.sync()
            if hs is not None:
                hs.ready()
            self.flush(flush, dummy)
            del dummy
            if cover:
                t.cuda._sleep(cover)
            start.record()
            out = fn(*args)
            end.record()
            self.sync()
            ms = start.elapsed_time(end)
        else:
            self.flush(flush)
            if hs is not None:
                hs.ready()
            w0 = judge_wait_ns() if self.waits is not None else None
            t0 = time.perf_counter_ns()
            out = fn(*args)
            ms = (time.perf_counter_ns() - t0) / 1e6
            if w0 is not None:
                w1 = judge_wait_ns()
                self.waits.append((w1 - w0) / 1e6 if w1 is not None else None)
        if hs is not None:
            hs.done(ms)
        if keep is not None:
            keep.append(out)
        return ms

    def l2_before_call(self):
        """Robust, on CUDA, in the candidate process: before each timed
        call the persisting-L2 carve-out and the stream's access-policy
        window are read and reset (l2.l2_reset; a flush does not evict
        persisting lines); the first l2-persisting found is kept for the
        escapes reply.  Faithful jobs leave them as the harness did."""
        res = l2_reset(self.torch, reset=True)
        self.l2_calls += 1
        if res.get("findings") and self.l2_found is None:
            f = res["findings"][0]
            f["evidence"]["timed_call"] = self.l2_calls
            self.l2_found = f

    @staticmethod
    def warm(fn, args):
        """An untimed, unchecked call (a warm-up)."""
        if isinstance(fn, RemoteModel):
            fn.proc.run(args)
        else:
            fn(*args)

    def kb_loop(self, fn, args):
        """KernelBench's timing loop for this harness version (timing.py);
        the candidate's runs in its process (CandidateProcess.kb_loop)."""
        if isinstance(fn, RemoteModel):
            return fn.proc.kb_loop(args, self.kb_way())
        m = self.m
        warmup, trials = int(m.get("warmup", 3)), int(m.get("perf_trials", 100))
        current = self.harness == "current"
        discard = 1 if current else 0
        flush = self.flush_bytes(False) if current else 0
        for _ in range(warmup):
            fn(*args)
            self.sync()
        if current and self.cuda:
            self.torch.cuda.empty_cache()
        times = [self.time_one(fn, args, flush, current) for _ in range(trials + discard)]
        return times[discard:], {"warmup": warmup, "trials": trials, "discard_first": discard,
                                 "l2_fill_bytes": flush, "sync_before_each": current,
                                 "timer": "cuda_event" if self.cuda else "perf_counter_ns"}

    def kb_way(self):
        """How the harness's loop times each call: (flush bytes, sync
        before, launch cover cycles)."""
        current = self.harness == "current"
        return (self.flush_bytes(False) if current else 0, current, 0)

    def cover(self):
        """The launch cover (GPU spin cycles) each call timed one at a time
        waits behind, the candidate's (CandidateProcess.time_one) and the
        reference's alike: COVER_CYCLES on CUDA, none on a CPU."""
        return COVER_CYCLES if self.cuda else 0

    def audit_way(self):
        """How a call timed one at a time is timed (robust timing, and the
        audit's timed calls in either mode: fresh_timing, the clock's
        confirmation): the robust flush, a sync before, the cover."""
        return (self.flush_bytes(True), True, self.cover())

    def ways(self):
        """Every way this job's timing times a call of the candidate
        (flush bytes, sync before, launch cover cycles), for the judge's
        calibration of the handshake (CandidateProcess.calibrate).  A call
        timed a way left out here is judged against no calibration of its
        own (CandidateProcess.uncalibrated): a faithful job whose audit
        calls waited behind the cover while their way was calibrated
        without it read the cover's 0.6 ms as a gap its clock did not see
        (timer-disagrees against honest scalar losses on the H100)."""
        if self.ctx.mode == vocab.MODE_ROBUST:
            return [self.audit_way()]
        return [self.kb_way(), self.audit_way()]

    def stats(self, times):
        import numpy as np
        a = np.asarray(times, dtype=np.float64)
        return {"mean": finite(a.mean()), "std": finite(a.std()), "min": finite(a.min()),
                "max": finite(a.max()), "median": finite(np.median(a)), "n": int(a.size),
                "mean_3sf": float("%.3g" % a.mean())}

    def time_faithful(self):
        # KernelBench: set_seed(seed); inputs = get_inputs(); timed outside no_grad.
        inputs = self.fresh_inputs(self.seed)
        self.checks["inputs"] = {"timed": describe(self.torch, inputs), "timed_seed": self.seed}
        mark = self.timed_mark()
        cand_times, how = self.sampled(lambda: self.kb_loop(self.new, inputs))
        fastest = self.fastest(mark + how["discard_first"], cand_times)
        ref_inputs = self.fresh_inputs(self.seed)
        ref_times, _ = self.sampled(lambda: self.kb_loop(self.ref, ref_inputs))
        ref_inputs = None      # one set held through the audit below
        if self.clocks is not None:
            # The harness dropped nothing: the clocks are recorded, one
            # sample pair around each loop (candidate's, then reference's).
            self.checks["clocks"] = dict(self.clocks.summary(), dropped=0,
                                         around="each timing loop; nothing dropped (faithful)")
        cs, rs = self.stats(cand_times), self.stats(ref_times)
        self.checks["timing"] = dict(how, candidate_timer=CANDIDATE_TIMER)
        self.result.update(runtime_ms=cs["mean"], runtime_stats=cs, baseline_ms=rs["mean"],
                           baseline_stats=rs, baseline="eager",
                           speedup=finite(rs["mean"] / cs["mean"]) if cs["mean"] else None)
        if self.m.get("compile_baseline"):
            self.time_compiled(cs["mean"])
        self.audit_begins()
        # The audit's calls, after the harness's: the same inputs once
        # more, then fresh content, checked; the candidate timed on fresh
        # content beside the harness's repeated inputs; the floor.
        budget = self.ctx.budget
        try:
            with self.torch.no_grad(), spent(self.ctx, "timing", "recheck_fresh_timing"):
                if budget.allows("recheck", pairs=3):
                    self.recheck(inputs, len(cand_times) + how["warmup"] + how["discard_first"])
                # each set: two calls of the candidate, one of the reference
                n = budget.fit("fresh_timing", FRESH_TIMING_SETS, pairs_each=2)
                self.checks["timing"]["audit_ms"] = self.fresh_timing(inputs, n)
            with spent(self.ctx, "timing", "floor"):
                self.floor(inputs, fastest, how["l2_fill_bytes"], min(ref_times, default=None))
        except Exception as e:   # noqa: the harness's times stand
            audit_failure(self.checks, "timing", e)

    def time_compiled(self, cand_mean):
        """Optional second baseline: torch.compile of the reference
        (inductor, default mode), timed with the same loop; its warm-ups
        absorb the compilation.  Recorded in checks.baselines; a failure
        is recorded there and changes nothing else."""
        rec = self.checks.setdefault("baselines", {})["compile_inductor_default"] = {}
        t0 = time.monotonic()
        try:
            compiled = self.torch.compile(self.ref)
            times, _ = self.kb_loop(compiled, self.fresh_inputs(self.seed))
            st = self.stats(times)
            rec.update(stats=st, speedup=finite(st["mean"] / cand_mean) if cand_mean else None)
        except Exception as e:
            rec["error"] = exc_text(e)
        rec["seconds"] = round(time.monotonic() - t0, 3)

    def time_robust(self):
        """Reference and candidate interleaved in rounds (order shuffled per
        round), each round on inputs of new content (fresh_content: no
        timed call sees the content of another), median and a bootstrap
        interval of the ratio of medians.  Every round's outputs are
        checked outside the timed calls: a candidate output that fails
        while it repeats an earlier one bit for bit is result-cached, any
        other failure timing-path-differs; so is a failing call on fresh
        content after the loop."""
        import numpy as np
        t, m = self.torch, self.m
        rounds = max(2, int(m.get("robust_rounds", 30)))
        rng = np.random.default_rng(self.ctx.audit_seed(AUDIT_ROUNDS))
        flush = self.flush_bytes(True)
        # The candidate's calls wait behind the launch cover its process
        # is asked for (CandidateProcess.time_one); the reference's the same.
        cover = self.cover()
        seeds = [int(x) for x in rng.integers(0, 2**62, size=rounds + 1)]
        fails, prints = [], {}
        with t.no_grad():
            # Warm-up, one call of each per set of new content of the pool's
            # seeds (InputSets.input_seeds), one set held at a time (the
            # harness holds one; a pool of eight 6 GiB sets at once would
            # not leave the candidate its memory).
            for i, s in enumerate(self.sets.pool_seeds):
                inp = self.sets.fresh_content(s)
                if i == 0:
                    self.checks["inputs"] = {"timed": describe(t, inp),
                                             "timed_seed": s}
                for fn in (self.ref, self.new):
                    self.warm(fn, inp)
                del inp
            self.sets.placed = None     # the timed rounds draw fresh content
            self.sync()
            ref_t, new_t = [], []
            # The reference's readings on a host clock, and the waits
            # for a CPU inside each (time_call; waited_for_a_cpu).
            ref_waits = self.waits = [] if not self.cuda else None
            mark = self.timed_mark()
            for r in range(rounds):
                with spent(self.ctx, "timing", "draw"):
                    inp = self.sets.fresh_content(seeds[r])
                order = [(self.ref, ref_t), (self.new, new_t)]
                if rng.integers(0, 2):
                    order.reverse()
                outs = {}
                for fn, acc in order:
                    keep = []
                    acc.append(self.sampled(lambda: self.time_one(fn, inp, flush, True, keep, cover)))
                    outs[fn is self.new] = keep[0]
                with spent(self.ctx, "timing", "round_check"):
                    self.check_round(r, outs[False], outs[True], prints, fails)
                outs.clear()            # the round's outputs go before the next round's
                last = inp
            self.waits = None
            unresolved = cand_waited = None
            if isinstance(self.new, RemoteModel):
                # On a GPU the candidate's figure is the judge's clock
                # around the handshake, and holds the handshake's waits.
                if self.cuda:
                    proc = self.new.proc
                    cand_waited = waited_for_a_cpu(proc.walls[mark:], proc.delays[mark:],
                                                   "the candidate's handshake")
                # The rounds' figures as the calls of nothing made again
                # now settle them (CandidateProcess.settle): one a round.
                new_t = self.new.proc.settle(mark, self.ways())
                unresolved = unresolved_figures(new_t, self.new.proc.resolution_ms())
            fastest = self.fastest(mark, new_t)
            self.audit_begins()
            with spent(self.ctx, "timing", "recheck_fresh"):
                self.recheck_fresh(seeds[rounds], prints, "after the timed rounds")
        timed_rounds = rounds
        # On a host clock (CPU jobs) the reference's readings hold its
        # threads' waits for a CPU; on a GPU its figure is the device's.
        waited = waited_for_a_cpu(ref_t, ref_waits or [], "the reference's threads")
        ref_fastest = min(ref_t, default=None)
        ref_t, new_t = self.drop_throttled(ref_t, new_t)
        rounds = len(new_t)
        with spent(self.ctx, "timing", "floor"):
            self.floor(last, fastest, flush, ref_fastest)
        ref_a, new_a = np.asarray(ref_t), np.asarray(new_t)
        speed = float(np.median(ref_a) / np.median(new_a))
        idx = rng.integers(0, rounds, size=(int(m.get("bootstrap", 1000)), rounds))
        boot = np.median(ref_a[idx], axis=1) / np.median(new_a[idx], axis=1)
        lo, hi = np.percentile(boot, [2.5, 97.5])
        self.checks["timing"] = {"input_sets": timed_rounds, "rounds": timed_rounds,
                                 "rounds_kept": rounds, "flush_bytes": flush,
                                 "inputs": "new content every round (fresh_content)",
                                 "order": "interleaved, shuffled per round",
                                 "statistic": "median", "ci": "bootstrap 95% of ratio of medians",
                                 "timer": "cuda_event" if self.cuda else "perf_counter_ns",
                                 "candidate_timer": CANDIDATE_TIMER,
                                 "rounds_failed": len(fails),
                                 "verified": (bool(lo > 1.0) and unresolved is None
                                              and waited is None)}
        if unresolved is not None:
            self.checks["timing"]["unresolved"] = unresolved
        if waited is not None:
            self.checks["timing"]["reference_waited"] = waited
        if cand_waited is not None:
            self.checks["timing"]["candidate_waited"] = cand_waited
        cs, rs = self.stats(new_t), self.stats(ref_t)
        self.result.update(runtime_ms=cs["median"], runtime_stats=cs, baseline_ms=rs["median"],
                           baseline_stats=rs, baseline="eager", speedup=finite(speed),
                           ci_low=finite(lo), ci_high=finite(hi))

    def drop_throttled(self, ref_t, new_t):
        """The robust rounds less those in which either call was throttled
        (nvml.THROTTLING: power or thermal limits, hardware slowdowns),
        pairs kept together; checks.clocks says how many were dropped and
        the clocks seen.  Fewer than two rounds left: all are kept, and
        that is said."""
        if self.clocks is None:
            return ref_t, new_t
        rec = self.checks["clocks"] = self.clocks.summary()
        if not rec.get("available"):
            rec["dropped"] = 0
            return ref_t, new_t
        fl = self.clocks.flags()
        bad = [fl[2 * r] or fl[2 * r + 1] for r in range(len(new_t))] \
            if len(fl) == 2 * len(new_t) else [False] * len(new_t)
        keep = [r for r, b in enumerate(bad) if not b]
        rec["around"] = "each timed call; a round dropped when either call was throttled"
        if len(keep) < 2:
            rec.update(dropped=0, kept_throttled=sum(bad))
            return ref_t, new_t
        rec["dropped"] = len(new_t) - len(keep)
        return [ref_t[r] for r in keep], [new_t[r] for r in keep]

    # ------------------------------------------------------ the audit
    def timed_mark(self):
        """How many calls the candidate's process has timed so far (for
        fastest); 0 where the candidate runs in this process."""
        return len(self.new.proc.walls) if isinstance(self.new, RemoteModel) else 0

    def fastest(self, first, times):
        """The fastest of the candidate's timed calls from the first-th on
        (remote.fastest_call: the judge's reading less the least handshake
        calibrated); times (its figures) where it runs in this process."""
        if isinstance(self.new, RemoteModel):
            return self.new.proc.fastest(first)
        return min(times) if times else None

    def output_print(self, out):
        xs = elements(self.torch, out)
        if xs is None:
            return None
        prints = tuple(fingerprint(self.torch, x) for x in xs)
        return prints[0] if isinstance(out, self.torch.Tensor) else prints

    def passes(self, out, out_new):
        """The original check of one pair, outside any timed call.  An
        audit call of a mask (a reference output of two values) that
        fails it by flipping no more than MASK_FLIP_SHARE of
        the elements passes: those sit within an honest reduction's
        rounding of the step (flipped_share).  So does one
        whose normwise error is within distribution.LOOSE times the
        trials' largest (within_trials_error): a kernel near the tolerance
        on every draw (a float32 cumsum of 262144 terms, 0.012-0.015 off
        on the trials against an atol of 0.01 where the sum crosses zero)
        fails it on some draws and passes on others, whichever path."""
        t = self.torch
        if not same_structure(t, out, out_new):
            return False, {"issue": "not a tensor (or tuple) of the reference's shapes"}
        ok, full = self.judge.compare(out, out_new, False, Laps({}))
        rec = {k: full.get(k) for k in ("n_violations", "max_abs_err") if k in full}
        share = None if ok else flipped_share(t, out, out_new)
        if share is not None:
            rec["flipped_share"] = share
            ok = share <= MASK_FLIP_SHARE
        if not ok and distribution.loose(full.get("normwise_rel_err"),
                                         distribution.trials_error(self.checks)[1]):
            rec["normwise_rel_err"] = full["normwise_rel_err"]
            rec["within_trials_error"] = ok = True
        return ok, rec

    def failed_check(self, prints, fp, ref_fp, rec, **where):
        """A checked call failed: result-cached when its output repeats,
        bit for bit, an earlier one (prints: fingerprint -> that call's
        reference fingerprint and round) whose reference differed; else
        timing-path-differs."""
        seen = prints.get(fp)
        if seen is not None and seen[0] != ref_fp:
            add_finding(self.ctx, vocab.F_RESULT_CACHED, repeats_round=seen[1], **where, **rec)
        else:
            add_finding(self.ctx, vocab.F_TIMING_PATH_DIFFERS, **where, **rec)

    def checked_call(self, inp, when, prints):
        """Reference and candidate on inp, outside any timed call, the check
        recorded in checks.rechecks (failed_check when it fails); returns
        (pass, the candidate's fingerprint, the reference's)."""
        out = self.ref(*inp)
        if any(x.is_floating_point() and not bool(self.torch.isfinite(x).all())
               for x in elements(self.torch, out) or ()):
            # Inputs the problem does not define its output on: nothing
            # can be asked of the candidate there.
            self.checks.setdefault("rechecks", []).append(
                {"when": when, "skipped": "the reference's output is not finite"})
            return True, None, None, {}
        out_new = self.new(*inp)
        self.sync()
        fp, ref_fp = self.output_print(out_new), self.output_print(out)
        ok, rec = self.passes(out, out_new)
        self.checks.setdefault("rechecks", []).append({"when": when, "pass": ok, **rec})
        if not ok and prints is not None:
            self.failed_check(prints, fp, ref_fp, rec, when=when)
        return ok, fp, ref_fp, rec

    def check_round(self, r, out, out_new, prints, fails):
        """One round's outputs: checked, and the candidate's fingerprinted
        (prints: fingerprint -> the reference's fingerprint and round)."""
        fp, ref_fp = self.output_print(out_new), self.output_print(out)
        ok, rec = self.passes(out, out_new)
        if not ok:
            fails.append(r)
            self.failed_check(prints, fp, ref_fp, rec, round=r)
        if fp is not None and fp not in prints:
            prints[fp] = (ref_fp, r)

    def recheck_fresh(self, seed, prints, when):
        """A call on fresh content, checked (failed_check)."""
        self.checked_call(self.sets.fresh_content(seed), when, prints)

    def recheck(self, inputs, calls):
        """After a faithful loop of calls on the same inputs: those inputs
        once more (drift after calls calls: timing-path-differs), then
        their middle half changed, then fresh content."""
        ok, fp, ref_fp, rec = self.checked_call(
            inputs, "after %d calls on the timing inputs" % calls, None)
        if not ok:
            add_finding(self.ctx, vocab.F_TIMING_PATH_DIFFERS, after_calls=calls, **rec)
        prints = {fp: (ref_fp, -1)}
        self.recheck_middle_changed(inputs, prints)
        self.recheck_fresh(self.ctx.audit_seed(AUDIT_FRESH + 1), prints,
                           "fresh content after timing")

    def recheck_middle_changed(self, inputs, prints):
        """The timing inputs with the middle half of each floating tensor
        changed in place within its domain (distribution.domain: x -> x / 2
        + amax / 4, toward the middle of [0, amax) for an input that is all
        >= 0, its mirror for one all <= 0, the same for one of both signs;
        masks, labels and constants as they were; the first and last
        quarters as they were; the same tensors at the same addresses),
        checked: a cache keyed on the input's address or on a sample of its
        content (its ends, say) returns the result it kept, which fails
        while it repeats an earlier output (result-cached).  Where the
        reference's output on them is not finite the check is skipped and
        says so (checked_call).  After the harness's loops: they have used
        these inputs for the last time."""
        t = self.torch
        for x in inputs:
            if (isinstance(x, t.Tensor) and x.is_floating_point() and x.numel()
                    and x.is_contiguous()):
                dom, amax = distribution.describe(t, x)
                if dom == "fixed":
                    continue
                flat = x.view(-1)
                n = flat.numel()
                mid = flat[n // 4:n - n // 4] if n > 1 else flat
                mid.mul_(0.5).add_((-0.25 if dom == "nonpos" else 0.25) * amax)
        self.checked_call(inputs, "the timing inputs, their middle half changed in place",
                          prints)

    def clock_resolution(self):
        """The judge's clock resolution for the candidate's figures
        (CandidateProcess.resolution_ms), 0 where the candidate runs in
        this process."""
        return self.new.proc.resolution_ms() if isinstance(self.new, RemoteModel) else 0.0

    def fresh_timing(self, inputs, n=FRESH_TIMING_SETS):
        """The candidate timed on the harness's timing inputs and on n sets
        of fresh content, calls interleaved (a burst of load on the host
        falls on both), each after the robust flush and a sync, so that
        caches treat both alike; the fresh sets all held at once (no two
        at one address), each fresh output checked.  The least time on the
        repeated inputs below 1/CACHE_RATIO of the least on fresh content,
        as far as the judge's clock resolves it (cached_ratio), is
        result-cached (a result kept for inputs seen before: a cache hit
        costs microseconds where the work costs milliseconds; fresh
        content of the problem's own distribution leaves an honest
        kernel's time as it was).  The least, not the median: a loaded
        host only adds time, and on the 2-core development machine under
        load medians of honest calls differed tenfold.  Returns both
        (ms).  Fewer sets where n of them and their outputs would hold
        more than context.HOLD_SHARE of the memory (at least one: its
        address differs from the repeated inputs', which stay held);
        checks.timing.fresh_sets says how many."""
        flush = self.flush_bytes(True)
        size = set_bytes(self.torch, inputs)
        n = max(1, min(n, int(HOLD_SHARE * self.ctx.memory_total()) // max(1, 2 * size)))
        self.checks.setdefault("timing", {})["fresh_sets"] = n
        sets = [self.sets.fresh_content(self.ctx.audit_seed(AUDIT_FRESH + 2 + i))
                for i in range(n)]
        outs, fresh, repeated = [], [], []
        for inp in sets:
            fresh.append(self.time_one(self.new, inp, flush, True, outs))
            repeated.append(self.time_one(self.new, inputs, flush, True))
        for i, (inp, out_new) in enumerate(zip(sets, outs)):
            ok, rec = self.passes(self.ref(*inp), out_new)
            if not ok:
                add_finding(self.ctx, vocab.F_TIMING_PATH_DIFFERS, when="fresh content, timed",
                            call=i, **rec)
        fresh, repeated = min(fresh), min(repeated)
        res = self.clock_resolution()
        if cached_ratio(repeated, fresh, res):
            add_finding(self.ctx, vocab.F_RESULT_CACHED, repeated_inputs_ms=repeated,
                        fresh_content_ms=fresh, clock_resolution_ms=finite(res))
        return {"repeated": repeated, "fresh": fresh}

    def floor(self, inputs, cand_ms, flushed, ref_ms=None):
        """below-physical-floor: the candidate's fastest timed call (cand_ms:
        fastest) under the least a call reading its inputs can take
        (audit.floor_ms, the copy bandwidth measured here, again before a
        time under it counts).  flushed: the bytes each timed call's flush
        wrote (0: none).  Inputs that fit in what the flush left of the
        last-level cache (all of it without a flush) may be read from it:
        only the bytes beyond it count, unless the bandwidth was itself
        measured in the cache (a CPU whose cache holds the copy's two
        buffers).  Where the
        reference's own fastest call (ref_ms) is under it too, the problem
        need not read all its inputs (a flatten's view, a slice of them):
        no floor holds for it, and the check says so."""
        llc = self.cache_bytes()
        # Where the copy that measures the bandwidth ran in the cache (its
        # source and destination fit), a byte read from the cache costs
        # that bandwidth too, and none is free.
        cache = 0 if llc >= 2 * copy_bytes(self.cuda) else max(0, llc - int(flushed or 0))
        bw, tries = None, 0
        low = min((x for x in (cand_ms, ref_ms) if x is not None), default=None)
        # A copy timed while the host was busy reads low and raises the
        # floor: before a time below it counts, the bandwidth is measured
        # again, up to FLOOR_TRIES times in all, the best kept.
        while tries < FLOOR_TRIES:
            bw = max(filter(None, (bw, copy_bandwidth(self.torch, self.device, self.cuda))),
                     default=None)
            tries += 1
            ms, nbytes = floor_ms(self.torch, inputs, bw, cache, self.cuda)
            if not ms or low is None or low >= ms:
                break
        self.checks["floor"] = {"ms": ms, "input_bytes": nbytes, "cache_bytes": cache,
                                "copy_bandwidth_gbps": finite(bw / 1e9) if bw else None,
                                "bandwidth_measured": tries,
                                "margin": floor_margin(self.cuda), "statistic": FLOOR_STATISTIC,
                                "candidate_ms": cand_ms, "reference_ms": ref_ms}
        if ms and ref_ms is not None and ref_ms < ms:
            self.checks["floor"]["skipped"] = ("the reference's own fastest call is under the "
                                               "floor: the problem need not read all its inputs")
            return
        # Under the floor by more than the judge's clock resolves: a call of
        # a few microseconds (a 64 KiB relu from the cache) read 0 once
        # its handshake beat the calibration's least.
        res = self.clock_resolution()
        self.checks["floor"]["clock_resolution_ms"] = finite(res)
        if ms and cand_ms is not None and cand_ms < ms - res:
            add_finding(self.ctx, vocab.F_BELOW_PHYSICAL_FLOOR, candidate_ms=cand_ms, floor_ms=ms,
                        clock_resolution_ms=finite(res), input_bytes=nbytes,
                        copy_bandwidth_gbps=finite(bw / 1e9))
        elif ms and cand_ms is not None and cand_ms < ms:
            self.checks["floor"]["unresolved"] = ("the fastest call is under the floor by less "
                                                  "than the judge's clock resolves")

    def cache_bytes(self):
        """The last-level cache: the GPU's L2, or the CPU's largest."""
        if self.cuda:
            p = self.torch.cuda.get_device_properties(self.device)
            return int(getattr(p, "L2_cache_size", 0) or 50 << 20)
        return self.cfg.llc_bytes
