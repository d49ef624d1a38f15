"""hrworker/timing.py - a job's timing loops: KernelBench's (faithful: its
warm-ups, discarded trial, L2 fill, CUDA events or perf_counter_ns, mean)
and the robust one (interleaved rounds over a pool of input sets, median,
bootstrap interval), and the optional torch.compile baseline.  Writes
runtime, baseline and speedup into the job's result.
Must not: judge correctness (hrworker/checks.py)."""
import time

from hrworker.util import exc_text, finite


KB_L2_FILL_BYTES = 32 * 1024 * 1024 * 8   # timing.py clear_l2_cache: 256 MiB


class Timing:
    """Times the job's reference (ref) and candidate (new) on its input
    sets (sets: InputSets) under ctx's semantics."""

    def __init__(self, ctx, ref, new, sets):
        self.ctx, self.ref, self.new, self.sets = ctx, ref, new, sets
        self.m, self.cfg, self.torch, self.cuda = ctx.m, ctx.cfg, ctx.torch, ctx.cuda
        self.device, self.harness, self.seed = ctx.device, ctx.harness, ctx.seed
        self.checks, self.result, self.sync = ctx.checks, ctx.result, ctx.sync
        self.fresh_inputs = sets.fresh_inputs

    def flush_bytes(self, robust):
        if self.cuda:
            if robust:
                p = self.torch.cuda.get_device_properties(self.device)
                return 2 * int(getattr(p, "L2_cache_size", 0) or 50 << 20)
            return KB_L2_FILL_BYTES
        return 2 * self.cfg.llc_bytes if robust else self.cfg.llc_bytes

    def flush(self, nbytes):
        """KernelBench's clear_l2_cache on CUDA (a fresh tensor from the
        caching allocator, filled).  On CPU one buffer is kept and refilled:
        a fresh 32 MiB there is an mmap and page faults, not a cache flush."""
        if not nbytes:
            return
        if self.cuda:
            dummy = self.torch.empty((nbytes // 8,), dtype=self.torch.int64, device=self.device)
            dummy.fill_(42)
            del dummy
            return
        buf = getattr(self, "_flush_buf", None)
        if buf is None or buf.numel() != nbytes // 8:
            buf = self._flush_buf = self.torch.empty((nbytes // 8,), dtype=self.torch.int64)
        buf.fill_(42)

    def time_one(self, fn, args, flush, sync_before):
        t = self.torch
        if sync_before:
            self.sync()
        if self.cuda:
            start, end = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
            self.flush(flush)
            start.record()
            fn(*args)
            end.record()
            self.sync()
            return start.elapsed_time(end)
        self.flush(flush)
        t0 = time.perf_counter_ns()
        fn(*args)
        return (time.perf_counter_ns() - t0) / 1e6

    def kb_loop(self, fn, args):
        """KernelBench's timing loop for this harness version (timing.py)."""
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

    def stats(self, times):
        import numpy as np
        a = np.asarray(times, dtype=np.float64)
        return {"mean": finite(a.mean()), "std": finite(a.std()), "min": finite(a.min()),
                "max": finite(a.max()), "median": finite(np.median(a)), "n": int(a.size),
                "mean_3sf": float("%.3g" % a.mean())}

    def time_faithful(self):
        # KernelBench: set_seed(seed); inputs = get_inputs(); timed outside no_grad.
        cand_times, how = self.kb_loop(self.new, self.fresh_inputs(self.seed))
        ref_times, _ = self.kb_loop(self.ref, self.fresh_inputs(self.seed))
        cs, rs = self.stats(cand_times), self.stats(ref_times)
        self.checks["timing"] = how
        self.result.update(runtime_ms=cs["mean"], runtime_stats=cs, baseline_ms=rs["mean"],
                           baseline_stats=rs, baseline="eager",
                           speedup=finite(rs["mean"] / cs["mean"]) if cs["mean"] else None)
        if self.m.get("compile_baseline"):
            self.time_compiled(cs["mean"])

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
        import numpy as np
        t, m = self.torch, self.m
        rounds = max(2, int(m.get("robust_rounds", 30)))
        rng = np.random.default_rng(self.seed + 1)
        pool = [self.fresh_inputs(s) for s in self.sets.pool_seeds]
        k = len(pool)
        flush = self.flush_bytes(True)
        with t.no_grad():
            for fn in (self.ref, self.new):       # warm-up, one call per input set
                for inp in pool:
                    fn(*inp)
            self.sync()
            ref_t, new_t = [], []
            for r in range(rounds):
                inp = pool[r % k]
                order = [(self.ref, ref_t), (self.new, new_t)]
                if rng.integers(0, 2):
                    order.reverse()
                for fn, acc in order:
                    acc.append(self.time_one(fn, inp, flush, True))
        ref_a, new_a = np.asarray(ref_t), np.asarray(new_t)
        speed = float(np.median(ref_a) / np.median(new_a))
        idx = rng.integers(0, rounds, size=(int(m.get("bootstrap", 1000)), rounds))
        boot = np.median(ref_a[idx], axis=1) / np.median(new_a[idx], axis=1)
        lo, hi = np.percentile(boot, [2.5, 97.5])
        self.checks["timing"] = {"input_sets": k, "rounds": rounds, "flush_bytes": flush,
                                 "order": "interleaved, shuffled per round",
                                 "statistic": "median", "ci": "bootstrap 95% of ratio of medians",
                                 "timer": "cuda_event" if self.cuda else "perf_counter_ns",
                                 "verified": bool(lo > 1.0)}
        cs, rs = self.stats(new_t), self.stats(ref_t)
        self.result.update(runtime_ms=cs["median"], runtime_stats=cs, baseline_ms=rs["median"],
                           baseline_stats=rs, baseline="eager", speedup=finite(speed),
                           ci_low=finite(lo), ci_high=finite(hi))
