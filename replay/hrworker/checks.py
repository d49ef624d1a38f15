"""hrworker/checks.py - what a job judges: the correctness trials (the
original check, reference first, through the verify library when present,
torch.allclose beside it) and, for `headroom audit problems`, which
degenerate outputs a problem's check accepts (audit_problem).
Must not: time anything (hrworker/timing.py)."""
from hrworker.context import Verdict
from hrworker.util import Laps, exc_text, finite


class Checks:
    """The correctness trials of the job's reference (ref) and candidate
    (new) on its input sets (sets: InputSets)."""

    def __init__(self, ctx, ref, new, sets):
        self.ctx, self.ref, self.new, self.sets = ctx, ref, new, sets
        self.m, self.cfg, self.torch = ctx.m, ctx.cfg, ctx.torch
        self.harness, self.tol, self.mode = ctx.harness, ctx.tol, ctx.mode
        self.checks, self.result = ctx.checks, ctx.result
        self.sync, self.set_seed = ctx.sync, ctx.set_seed
        self.fresh_inputs, self.trial_seeds = sets.fresh_inputs, sets.trial_seeds

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


def audit_problem(ctx, sets, ref_model):
    """headroom audit problems: run the reference once (seed 42, the
    first correctness trial's inputs are not needed: the magnitude is a
    property of the problem) and ask the verify library, for each preset
    the orchestrator sent, whether zeros, the reference mean or one of
    the inputs would pass the original check.  fp16/bf16 presets use the
    fp32 output rounded to that dtype (recorded)."""
    t = ctx.torch
    if ctx.cfg.verify is None:
        raise Verdict("problem_error", "audit",
                      "the audit needs the verify library: %s"
                      % (ctx.cfg.verify_error or "none given (--verify-lib)"))
    # "device": draw the inputs with the device's generator (same
    # distributions, other values): problems of 10^9 elements then take
    # seconds, not the minute the CPU generator needs.
    on_device = ctx.m.get("audit_inputs") == "device"
    try:
        with t.no_grad():
            ctx.set_seed(ctx.seed)
            if on_device:
                with t.device(ctx.device):
                    raw = sets.get_inputs()
            else:
                raw = sets.host_inputs()
            inputs = [ctx.place(x) for x in raw]
            del raw
            out = ctx.place_model(ref_model)(*inputs)
            ctx.sync()
    except Exception as e:
        raise Verdict("problem_error", "reference", exc_text(e))
    if not isinstance(out, t.Tensor):
        raise Verdict("problem_error", "reference",
                      "the reference returned %s, not a tensor" % type(out).__name__)
    dtypes = {"fp32": t.float32, "fp16": t.float16, "bf16": t.bfloat16}
    gates = {}
    for p in ctx.m.get("audit_presets", []):
        ref = out.detach().to(dtypes[p["dtype"]])
        r = ctx.cfg.verify.raw(ref, ref, p["harness"], p["tol"])
        same = [i for i, x in enumerate(inputs) if isinstance(x, t.Tensor)
                and x.shape == ref.shape]
        inp = [bool(ctx.cfg.verify.raw(ref, inputs[i].to(ref.dtype), p["harness"],
                                        p["tol"]).allclose_pass) for i in same]
        gates[p["name"]] = {
            "atol": p["tol"], "rtol": p["tol"], "dtype": p["dtype"],
            "reference": "computed" if ref.dtype == out.dtype
            else "%s output rounded to %s" % (str(out.dtype)[6:], p["dtype"]),
            "zeros": bool(r.gate_zero_pass), "constant": bool(r.gate_const_pass),
            "constant_value": finite(r.const_value),
            "input": any(inp), "inputs_same_shape": same,
            "margin": finite(r.margin)}
    full = ctx.cfg.verify.pick(ctx.cfg.verify.raw(out, out, "current", 1e-4),
                                ("ref_amax", "ref_rms", "ref_min", "ref_max",
                                 "ref_mean", "n_nan_ref", "n_inf_ref"))
    ctx.result.update(verdict="audited", audit={
        "inputs": "device generator" if on_device else "host generator (KernelBench)",
        "output_shape": list(out.shape), "output_dtype": str(out.dtype)[6:],
        "numel": out.numel(), "stats": full, "gates": gates,
        "fast_draws": sets.fast_draws})
