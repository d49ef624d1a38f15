"""hrworker/job.py - one job in its own process: the problem and the candidate,
the build, the reference, the correctness trials and timing under the
semantics the job asks for, and its one result (Job)."""
import gc
import hashlib
import json
import os
import platform
import time

from hrworker.util import Laps, children_cpu, exc_text, finite
from hrworker.loan import borrow, read_recipe


# KernelBench tolerance by harness version and precision (eval.py
# get_tolerance_for_precision at 423217d; v0/v0.1 src/eval.py: fp32 1e-2).
TOLERANCE = {
    "v0": {"fp32": 1e-2, "fp16": 1e-2, "bf16": 1e-2},
    "v0.1": {"fp32": 1e-2, "fp16": 1e-2, "bf16": 1e-2},
    "current": {"fp32": 1e-4, "fp16": 1e-2, "bf16": 1e-2},
}

KB_L2_FILL_BYTES = 32 * 1024 * 1024 * 8   # timing.py clear_l2_cache: 256 MiB


def problem_namespace(code, filename):
    """The namespace a problem's code runs in, as KernelBench's
    exec(src, context): Model, get_inputs, get_init_inputs (and, in a
    faithful job, the candidate after them)."""
    ctx = {}
    exec(compile(code, filename or "problem.py", "exec"), ctx)
    return ctx


class Verdict(Exception):
    """Ends a job early with a verdict."""

    def __init__(self, verdict, kind, text, **extra):
        super().__init__(text)
        self.verdict, self.kind, self.text, self.extra = verdict, kind, text, extra


class Job:
    def __init__(self, msg, cfg, proto, torch):
        self.m, self.cfg, self.proto, self.torch = msg, cfg, proto, torch
        self.id = msg["job"]
        self.mode = msg.get("mode", "faithful")
        self.harness = msg.get("harness") or "current"
        if self.harness not in TOLERANCE:
            self.harness = "current"
        self.precision = msg.get("precision") or "fp32"
        self.seed = int(msg.get("seed", 42))
        self.device = torch.device(cfg.device)
        self.cuda = self.device.type == "cuda"
        self.result = {"type": "result", "job": self.id, "compiled": None,
                       "correct": None, "checks": {}}
        self.checks = self.result["checks"]
        self.predrawn = None    # what predraw did (a build job with "draw")
        self.fast_draws = 0     # draws the rand library served (FastRand)
        self.t_start = cfg.job_t0 or time.monotonic()
        self.phase_s = self.checks["phase_seconds"] = {}

    def phase(self, name):
        """Enter a phase: tell the orchestrator, and time the phases (the
        seconds of each, from the job's start, in checks.phase_seconds)."""
        now = time.monotonic()
        prev = self.result.get("phase")
        if prev is not None:
            self.phase_s[prev] = round(now - self.phase_t0, 3)
        else:
            self.phase_s["start"] = round(now - self.t_start, 3)
        self.phase_t0 = now
        self.result["phase"] = name
        self.proto.send({"type": "phase", "job": self.id, "phase": name})

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize(device=self.device)

    def set_seed(self, s):
        self.torch.manual_seed(s)
        if self.cuda:
            self.torch.cuda.manual_seed(s)

    # KernelBench moves inputs with _process_input_tensor (current: cast to
    # the precision, then device) or x.cuda() (v0, v0.1: no cast).
    def place(self, x):
        if not isinstance(x, self.torch.Tensor):
            return x
        if self.harness == "current":
            x = x.to(dtype=self.dtype)
        return x.to(device=self.device)

    def place_model(self, m):
        if self.harness == "current":
            return m.to(device=self.device, dtype=self.dtype)
        return m.to(device=self.device)

    def cache_dir(self, what):
        """Content-addressed build directory: what is built (an extension's
        sources and options, or a whole candidate), torch, CUDA, arch, flags."""
        t = self.torch
        flags = "|".join("%s=%s" % (k, os.environ.get(k, "")) for k in
                         ("TORCH_CUDA_ARCH_LIST", "CFLAGS", "CXXFLAGS", "LDFLAGS"))
        key = "\n".join([what, t.__version__, str(t.version.cuda), self.cfg.arch, flags,
                         platform.machine()])
        return os.path.join(self.cfg.cache, hashlib.sha256(key.encode()).hexdigest()[:24])

    def hook_load_inline(self, exts):
        """Give each load_inline call without a build_directory one keyed by
        its own arguments, so an identical extension is built once whatever
        Python wraps it; record hit or miss per extension.  A build the
        compiler rejected is kept too (its error text), and answered again
        from the cache."""
        import inspect
        import torch.utils.cpp_extension as cpp
        orig, job = cpp.load_inline, self
        sig = inspect.signature(orig)

        def load_inline(*args, **kwargs):
            ba = sig.bind(*args, **kwargs)
            if ba.arguments.get("build_directory"):
                return orig(*args, **kwargs)
            what = json.dumps({k: v for k, v in ba.arguments.items() if k != "verbose"},
                              sort_keys=True, default=repr)
            d = job.cache_dir("load_inline\n" + what)
            hit = os.path.isdir(d) and any(f.endswith(".so") for f in os.listdir(d))
            os.makedirs(d, exist_ok=True)
            ba.arguments["build_directory"] = d
            t0, cpu0 = time.monotonic(), children_cpu()
            rec = {"name": ba.arguments.get("name"), "dir": os.path.basename(d),
                   "cache": "hit" if hit else "miss"}
            exts.append(rec)
            failed = os.path.join(d, ".headroom-build-failed")
            try:
                if not hit and os.path.exists(failed):
                    rec.update(cache="hit", failed=True)
                    with open(failed) as f:
                        raise RuntimeError(f.read())
                return orig(*ba.args, **ba.kwargs)
            except Exception as e:
                # The compiler's "no" is as deterministic as its "yes" for
                # this key; lock or I/O trouble is not, and is not kept.
                if "Error building extension" in str(e) and not rec.get("failed"):
                    with open(failed, "w") as f:
                        f.write(str(e))
                raise
            finally:
                rec["seconds"] = round(time.monotonic() - t0, 3)
                # the compilers' CPU time (ninja and what it ran, reaped)
                rec["cpu_seconds"] = round(children_cpu() - cpu0, 3)
        cpp.load_inline = load_inline

    def run(self):
        t = self.torch
        self.dtype = {"fp32": t.float32, "fp16": t.float16,
                      "bf16": t.bfloat16}.get(self.precision, t.float32)
        self.tol = TOLERANCE[self.harness].get(self.precision, 1e-4)
        self.checks["semantics"] = {
            "mode": self.mode, "harness": self.harness, "precision": self.precision,
            "seed": self.seed, "tolerance": self.tol,
            "allclose": "torch.allclose(ref, cand, atol=tol, rtol=tol)",
            "namespace": "one" if self.mode == "faithful" else "copy",
            "inputs_cast": self.harness == "current"}
        try:
            self.stages()
        except Verdict as v:
            self.result.update(verdict=v.verdict, error_kind=v.kind, error=v.text, **v.extra)
        if self.result.get("phase") is not None:
            self.phase_s[self.result["phase"]] = round(time.monotonic() - self.phase_t0, 3)
        if self.cfg.sandbox.violations:
            self.checks["sandbox"] = self.cfg.sandbox.violations
            if self.result.get("verdict") in ("correct", "incorrect"):
                self.checks["verdict_without_sandbox"] = self.result["verdict"]
                self.result.update(verdict="runtime_error", correct=False,
                                   error_kind="sandbox",
                                   error="write outside scratch refused: %s"
                                   % self.cfg.sandbox.violations[0]["path"])
        return self.result

    def give_back(self):
        """Before the process exits: free the sets the keeper lent, so that
        torch's IPC reference counts reach zero.  The job ends with
        os._exit, which frees nothing: a lent set the keeper later drops
        would stay in its "limbo" (device memory it never gets back; on the
        H200 the keeper outgrew its budget and left mid-run), then close
        the connection, on which the keeper checks the sets."""
        self.draws = None
        gc.collect()
        conn = getattr(self.cfg, "keeper_conn", None)
        if conn is not None:
            conn.close()
            self.cfg.keeper_conn = None

    def stages(self):
        t, m = self.torch, self.m
        stop = m.get("stop_after")
        # Reference: one namespace as KernelBench's exec(src, context).
        self.phase("reference")
        try:
            ctx = problem_namespace(m["problem_code"], m.get("problem_file"))
            Model, get_inputs = ctx["Model"], ctx["get_inputs"]
            get_init_inputs = ctx["get_init_inputs"]
            self.set_seed(self.seed)
            init_inputs = [self.place(x) for x in get_init_inputs()]
            with t.no_grad():
                self.set_seed(self.seed)
                ref_model = Model(*init_inputs)
            self.get_inputs = get_inputs
            if stop in ("build", "inputs") and m.get("draw"):
                self.predrawn = self.predraw()     # ahead, for the run worker
                # At once, not with the result: a build's result comes a
                # minute later, and the orchestrator's room for the next
                # problem's draws needs the number of sets a problem has.
                self.proto.send({"type": "predraw", "job": self.id,
                                 "predraw": self.predrawn})
            elif stop not in ("build", "reference", "inputs"):
                self.draw_all()
        except Exception as e:
            raise Verdict("problem_error", "reference", exc_text(e))
        if stop == "reference":
            self.audit(ref_model)
            return
        if stop == "inputs":
            self.result.update(verdict="drawn", predraw=self.predrawn)
            return
        # From here on candidate code runs: the input cache is read-only,
        # and the keeper takes no more requests from this job.
        self.cfg.sandbox.deny = [self.cfg.inputs_dir]
        self.close_inputs()
        if self.cfg.keeper is not None:
            self.cfg.keeper.close()
            self.cfg.keeper = None

        # Build: executing the candidate runs load_inline into the cache.
        # Other builders (load, setup-style) land in a directory keyed by
        # the whole candidate, through TORCH_EXTENSIONS_DIR as KernelBench.
        self.phase("build")
        code = m["candidate_code"]
        exts = []
        self.hook_load_inline(exts)
        os.environ["TORCH_EXTENSIONS_DIR"] = self.cache_dir("candidate\n" + code)
        build = self.result["build"] = self.checks["build"] = {"extensions": exts}
        if self.predrawn is not None:
            build["predraw"] = self.predrawn
        cand_ctx = ctx if self.mode == "faithful" else dict(ctx)
        t0 = time.monotonic()
        try:
            exec(compile(code, m.get("candidate_file", "candidate.py"), "exec"), cand_ctx)
            ModelNew = cand_ctx.get("ModelNew")
            if ModelNew is None:
                raise NameError("ModelNew is not defined by the candidate")
        except Exception as e:
            self.result["build_log"] = exc_text(e)
            raise Verdict("compile_error", "build", exc_text(e), compiled=False,
                          correct=False)
        finally:
            build["seconds"] = round(time.monotonic() - t0, 3)
            build["cpu_seconds"] = round(sum(x.get("cpu_seconds", 0) for x in exts), 3)
            build["cache"] = ("none" if not exts else "hit" if
                              all(x["cache"] == "hit" for x in exts) else "miss")
        self.result["compiled"] = True
        if stop == "build":
            self.result.update(verdict="built")
            return

        self.phase("load")
        try:
            with t.no_grad():
                self.set_seed(self.seed)
                new_model = ModelNew(*init_inputs)
                self.ref = self.place_model(ref_model)
                self.new = self.place_model(new_model)
                self.sync()
        except Exception as e:
            raise Verdict("runtime_error", "load", exc_text(e), correct=False)

        self.phase("correctness")
        self.correctness()
        if not self.result["correct"]:
            return
        self.phase("timing")
        try:
            if self.mode == "robust":
                self.time_robust()
            else:
                self.time_faithful()
        except Exception as e:  # KernelBench: error_during_performance
            self.result.update(error_kind="timing", error=exc_text(e))

    def close_inputs(self):
        """The jail's second layer: the job's roots without the inputs
        directory, so that C code of the candidate cannot write the sets
        either (checks.fs_jail_inputs: on which threads; where the inputs
        lie beneath another root, that root still admits them)."""
        cfg = self.cfg
        if not cfg.jail.layers:     # no Landlock, or its first layer failed
            return
        roots = [r for r in cfg.sandbox.roots if r != cfg.inputs_dir]
        try:
            self.checks["fs_jail_inputs"] = cfg.jail.apply(roots, every_thread=True)
        except OSError as e:
            self.checks["fs_jail_inputs"] = "not closed: %s" % e

    # ---------------------------------------------------------- audit
    def audit(self, ref_model):
        """headroom audit problems: run the reference once (seed 42, the
        first correctness trial's inputs are not needed: the magnitude is a
        property of the problem) and ask the verify library, for each preset
        the orchestrator sent, whether zeros, the reference mean or one of
        the inputs would pass the original check.  fp16/bf16 presets use the
        fp32 output rounded to that dtype (recorded)."""
        t = self.torch
        if self.cfg.verify is None:
            raise Verdict("problem_error", "audit",
                          "the audit needs the verify library: %s"
                          % (self.cfg.verify_error or "none given (--verify-lib)"))
        # "device": draw the inputs with the device's generator (same
        # distributions, other values): problems of 10^9 elements then take
        # seconds, not the minute the CPU generator needs.
        on_device = self.m.get("audit_inputs") == "device"
        try:
            with t.no_grad():
                self.set_seed(self.seed)
                if on_device:
                    with t.device(self.device):
                        raw = self.get_inputs()
                else:
                    raw = self.host_inputs()
                inputs = [self.place(x) for x in raw]
                del raw
                out = self.place_model(ref_model)(*inputs)
                self.sync()
        except Exception as e:
            raise Verdict("problem_error", "reference", exc_text(e))
        if not isinstance(out, t.Tensor):
            raise Verdict("problem_error", "reference",
                          "the reference returned %s, not a tensor" % type(out).__name__)
        dtypes = {"fp32": t.float32, "fp16": t.float16, "bf16": t.bfloat16}
        gates = {}
        for p in self.m.get("audit_presets", []):
            ref = out.detach().to(dtypes[p["dtype"]])
            r = self.cfg.verify.raw(ref, ref, p["harness"], p["tol"])
            same = [i for i, x in enumerate(inputs) if isinstance(x, t.Tensor)
                    and x.shape == ref.shape]
            inp = [bool(self.cfg.verify.raw(ref, inputs[i].to(ref.dtype), p["harness"],
                                            p["tol"]).allclose_pass) for i in same]
            gates[p["name"]] = {
                "atol": p["tol"], "rtol": p["tol"], "dtype": p["dtype"],
                "reference": "computed" if ref.dtype == out.dtype
                else "%s output rounded to %s" % (str(out.dtype)[6:], p["dtype"]),
                "zeros": bool(r.gate_zero_pass), "constant": bool(r.gate_const_pass),
                "constant_value": finite(r.const_value),
                "input": any(inp), "inputs_same_shape": same,
                "margin": finite(r.margin)}
        full = self.cfg.verify.pick(self.cfg.verify.raw(out, out, "current", 1e-4),
                                    ("ref_amax", "ref_rms", "ref_min", "ref_max",
                                     "ref_mean", "n_nan_ref", "n_inf_ref"))
        self.result.update(verdict="audited", audit={
            "inputs": "device generator" if on_device else "host generator (KernelBench)",
            "output_shape": list(out.shape), "output_dtype": str(out.dtype)[6:],
            "numel": out.numel(), "stats": full, "gates": gates,
            "fast_draws": self.fast_draws})

    # ---------------------------------------------------- correctness
    def compare(self, out, out_new, first, laps):
        """The original check, reference first; verify library when present.
        With it, torch.allclose runs beside it (torch_allclose) on the job's
        first trial and on every trial the library fails: on the H200 a
        job's first torch.allclose of a 1.6 G-element output took 0.08-0.11
        s (its temporaries allocated; it makes about eleven passes over the
        tensors), the library's one pass 4 ms (checks.trials[].seconds)."""
        t = self.torch
        rec = {}
        if self.cfg.verify is not None:
            try:
                rec = self.cfg.verify.check(out, out_new, self.harness, self.tol)
                rec["checker"] = "hrverify"
                ok = bool(rec["allclose_pass"])
                laps.lap("check")
                if first or not ok:
                    rec["torch_allclose"] = bool(t.allclose(out, out_new, atol=self.tol,
                                                            rtol=self.tol))
                    laps.lap("torch_allclose")
                return ok, rec
            except (ValueError, RuntimeError) as e:
                if "dtype" not in str(e).lower():
                    rec["verify_error"] = str(e)
        laps.lap(None)
        ok = bool(t.allclose(out, out_new, atol=self.tol, rtol=self.tol))
        laps.lap("torch_allclose")
        rec["checker"] = "torch.allclose"
        if not ok:
            d = (out.float() - out_new.float()).abs()
            rec["max_abs_err"] = finite(d.max().item()) if d.numel() else 0.0
        return ok, rec

    def correctness(self):
        t = self.torch
        n = int(self.m.get("correct_trials", 5))
        seeds = self.trial_seeds()
        trials, passed = [], 0
        self.checks["trials"] = trials
        self.result["trials_total"] = n
        with t.no_grad():
            for s in seeds:
                # Where a trial's time goes (synced: each part's own work).
                secs = {}
                laps = Laps(secs)
                inputs = self.fresh_inputs(s)
                self.set_seed(s)       # KernelBench seeds again before the models run
                cand_inputs = inputs
                if self.mode == "robust":  # candidate cannot mutate the reference's inputs
                    cand_inputs = [x.clone() if isinstance(x, t.Tensor) else x for x in inputs]
                self.sync()
                laps.lap("inputs")
                try:
                    out = self.ref(*inputs)
                    self.sync()
                except Exception as e:
                    raise Verdict("runtime_error", "reference", exc_text(e), correct=False,
                                  trials_passed=passed)
                laps.lap("reference")
                try:
                    out_new = self.new(*cand_inputs)
                    self.sync()
                    laps.lap("candidate")
                    if out.shape != out_new.shape:
                        trials.append({"seed": s, "pass": False, "issue": "shape %s != %s"
                                       % (list(out_new.shape), list(out.shape))})
                        raise Verdict("incorrect", "shape", "output shape mismatch: expected "
                                      "%s, got %s" % (list(out.shape), list(out_new.shape)),
                                      correct=False, trials_passed=passed)
                    ok, rec = self.compare(out, out_new, not trials, laps)
                except Verdict:
                    raise
                except Exception as e:
                    raise Verdict("runtime_error", "forward", exc_text(e), correct=False,
                                  trials_passed=passed)
                rec.update(seed=s, seconds=secs, **{"pass": ok})
                trials.append(rec)
                passed += ok
        self.result["trials_passed"] = passed
        self.result["correct"] = passed == n
        self.result["verdict"] = "correct" if passed == n else "incorrect"
        self.checks["checker"] = trials[0]["checker"] if trials else None

    # ---------------------------------------------------------- timing
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
        """Every seed s whose set_seed(s); get_inputs() the job uses: the
        trial seeds, the robust pool, the timing seed (no repeats)."""
        seeds = self.trial_seeds()
        if self.mode == "robust":
            import numpy as np
            k = max(1, int(self.m.get("robust_inputs", 8)))
            self.pool_seeds = [int(x) for x in
                               np.random.default_rng(self.seed).integers(0, 2**31 - 1, size=k)]
            seeds += self.pool_seeds
        return list(dict.fromkeys(seeds + [self.seed]))

    def host_inputs(self):
        """get_inputs() as KernelBench calls it; its plain torch.rand calls
        served by the rand library when the worker has one (FastRand: the
        same values, the same generator state), counted in fast_draws."""
        fast = self.cfg.rand
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
        self.set_seed(s)
        raw = self.host_inputs()
        size = sum(x.numel() * x.element_size() for x in raw if isinstance(x, t.Tensor))
        on_cpu = all(not isinstance(x, t.Tensor) or x.device.type == "cpu" for x in raw)
        return (raw, t.get_rng_state(),
                t.cuda.get_rng_state() if self.cuda and cuda_state else None, size, on_cpu)

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
            self.draws[s] = got if got is not None else (raw, state, cuda_state)
            late = not fits and on_cpu
        self.checks["input_cache"] = {"sets": len(self.draws), "hits": hits,
                                      "drawn_late": sum(v is None for v in self.draws.values()),
                                      "device_held": len(lent),
                                      "fast_draws": self.fast_draws}
        if secs:            # the keeper's loan: where its time went (borrow)
            self.checks["input_cache"]["borrow_seconds"] = secs
        if keeper_drew:     # sets the keeper drew from the recipe: when
            self.checks["input_cache"]["keeper_drew"] = sorted(keeper_drew)
        self.restore_rng(before)

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
        out = []
        for x in raw:
            y = self.place(x)
            if isinstance(x, t.Tensor) and y.data_ptr() == x.data_ptr():
                y = y.clone()
            out.append(y)
        return out

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
        pool = [self.fresh_inputs(s) for s in self.pool_seeds]
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
