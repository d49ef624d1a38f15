"""hrworker/checks.py - what a job judges: the correctness trials (the
original check, reference first, through the verify library when present,
torch.allclose beside it) and, for `headroom audit problems`, which
degenerate outputs a problem's check accepts (audit_problem).
Must not: time anything (hrworker/timing.py)."""
from hrworker import vocab
from hrworker.audit import Poison, add_finding, aliases, fingerprint, spent
from hrworker.context import AUDIT_DISTRIBUTION, Verdict
from hrworker.distribution import Distribution
from hrworker.outputs import elements, is_tuple, merge, same_structure, shapes
from hrworker.remote import RemoteError, audit_failure
from hrworker.util import Laps, exc_text, finite
from hrworker.vacuity import Vacuity


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
        self.poison = Poison(ctx.torch, ctx.cuda, ctx.device)
        # the reference's own side effects (reference_effects)
        self.ref_effects = {"mutated": [], "aliases": []}
        self.on_audit = None    # the job's audit phase (correctness: after the trials)

    def compare(self, out, out_new, first, laps, poison=None):
        """The original check, reference first; verify library when present.
        With it, torch.allclose runs beside it (torch_allclose) on the job's
        first trial and on every trial the library fails: on the H200 a
        job's first torch.allclose of a 1.6 G-element output took 0.08-0.11
        s (its temporaries allocated; it makes about eleven passes over the
        tensors), the library's one pass 4 ms (checks.trials[].seconds)."""
        t = self.torch
        if is_tuple(t, out):
            # element by element: a tuple passes when each element does
            got = [self.compare(x, y, first, laps) for x, y in
                   zip(elements(t, out), elements(t, out_new))]
            return all(ok for ok, _ in got), merge([r for _, r in got])
        rec = {}
        if self.cfg.verify is not None:
            try:
                rec = self.cfg.verify.check(out, out_new, self.harness, self.tol, poison)
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
        vac = Vacuity(t, self.cfg.verify, self.harness, self.tol)
        self.result["trials_total"] = n
        if self.cfg.verify is not None and self.ctx.cuda:
            # The verify library's first call in this process (its module
            # loaded, its pool made: 14 ms on the H100), which the first
            # trial's check makes anyway: made before the trials, so that
            # the vacuity gates, which call it before that check does, are
            # not charged with it (checks.audit_parts).
            one = t.ones(2, device=self.ctx.device)
            self.cfg.verify.raw(one, one, self.harness, self.tol)
        with t.no_grad():
            for s in seeds:
                # Where a trial's time goes (synced: each part's own work).
                secs = {}
                laps = Laps(secs)
                # The last trial's tensors go before this one's come: the
                # judge holds one trial at a time, as the harness does
                # (on a 1.6 G-element problem each is 6 GiB).
                inputs = cand_inputs = out = out_new = None
                inputs = self.fresh_inputs(s)
                self.set_seed(s)       # KernelBench seeds again before the models run
                cand_inputs = inputs
                if self.mode == vocab.MODE_ROBUST:  # candidate cannot mutate the reference's inputs
                    cand_inputs = [self.sets.share(x.clone()) if isinstance(x, t.Tensor) else x
                                   for x in inputs]
                self.sync()
                laps.lap("inputs")
                ref_watch = None if trials else self.watch(inputs)
                try:
                    out = self.ref(*inputs)
                    self.sync()
                except Exception as e:
                    # The reference's failure, not the candidate's.
                    raise Verdict(vocab.PV_PROBLEM_ERROR, "reference", exc_text(e), correct=False,
                                  trials_passed=passed)
                ref_after = None
                if ref_watch is not None:
                    ref_after = self.reference_effects(ref_watch, inputs, out)
                laps.lap("reference")
                if is_tuple(t, out) and self.mode != vocab.MODE_ROBUST:
                    # KernelBench's check reads output.shape first, which
                    # a tuple has not: the original harness fails every
                    # candidate of such a problem (robust compares element
                    # by element).
                    raise Verdict(vocab.PV_PROBLEM_ERROR, "reference",
                                  "the reference returns a tuple of %d tensors; the original "
                                  "check reads output.shape, which a tuple has not"
                                  % len(out), correct=False, trials_passed=passed)
                with spent(self.ctx, "correctness", "vacuity"):
                    vac.observe(out, inputs)
                laps.lap("vacuity")
                bits = self.poison_bits(out) if self.mode == vocab.MODE_ROBUST else None
                # The candidate's inputs before its call, as read around the
                # reference's: robust's are clones made before it, faithful's
                # the same tensors after it.
                watch = ref_watch if self.mode == vocab.MODE_ROBUST else ref_after
                try:
                    out_new = self.call_candidate(cand_inputs, out, bits)
                    laps.lap("candidate")
                    if watch is not None:
                        with spent(self.ctx, "correctness", "side_effects"):
                            self.side_effects(watch, cand_inputs, out_new, s)
                    laps.lap("side_effects")
                    if not same_structure(t, out, out_new):
                        want, got = shapes(t, out), shapes(t, out_new)
                        if isinstance(out, t.Tensor) and isinstance(out_new, t.Tensor):
                            want, got = list(out.shape), list(out_new.shape)
                        trials.append({"seed": s, "pass": False, "issue": "shape %s != %s"
                                       % (got, want)})
                        raise Verdict(vocab.PV_INCORRECT, "shape", "output shape mismatch: expected "
                                      "%s, got %s" % (want, got),
                                      correct=False, trials_passed=passed)
                    ok, rec = self.compare(out, out_new, not trials, laps, bits)
                    self.note_coverage(rec, s, "trial")
                except Verdict:
                    raise
                except Exception as e:
                    raise Verdict(vocab.PV_RUNTIME_ERROR, "forward", exc_text(e), correct=False,
                                  trials_passed=passed)
                rec.update(seed=s, seconds=secs, **{"pass": ok})
                trials.append(rec)
                passed += ok
            inputs = cand_inputs = out = out_new = None
        self.checks["vacuity"] = vac.summary()
        self.result["trials_passed"] = passed
        self.result["correct"] = passed == n
        self.result["verdict"] = vocab.PV_CORRECT if passed == n else vocab.PV_INCORRECT
        self.checks["checker"] = trials[0]["checker"] if trials else None
        self.ctx.budget.trials(trials)
        self.checks["scale_invariant"] = self.scale_invariant(trials)
        if passed == n and self.on_audit is not None:
            # The audit's own calls after the trials that passed (audit_calls,
            # distribution: a dozen call pairs) are a phase of their own with
            # a limit of its own, as those after the timing are: the trials
            # alone keep the harness's correctness limit, so that the tool's
            # calls never stop a job as a timeout of its correctness.
            self.on_audit()
        try:
            with spent(self.ctx, "correctness", "audit_calls"):
                self.trim()
                self.ctx.budget.expect(3)
                self.audit_calls(seeds[0], passed == n)
            if passed == n:
                with spent(self.ctx, "correctness", "distribution"):
                    self.trim()
                    self.distribution(self.ctx.audit_seed(AUDIT_DISTRIBUTION))
        except Exception as e:   # noqa: the trials stand
            audit_failure(self.checks, "correctness", e)

    def trim(self):
        """Between the parts of a job on CUDA: the device memory both
        processes keep cached and no longer use goes back to the driver.
        The judge and the candidate are two processes with a caching
        allocator each, where the original harness had one: what one keeps
        cached the other cannot use (on an 80 GB GPU a 1.6 G-element job's
        audit ran out of memory with 19 GB cached in the candidate
        process).  Never between timed calls."""
        if not self.ctx.cuda:
            return
        self.torch.cuda.empty_cache()
        proc = getattr(self.new, "proc", None)
        if proc is not None:
            try:
                proc.trim()
            except RemoteError as e:    # its torch patched to refuse: noted, no more
                self.checks.setdefault("trim_errors", []).append(str(e)[:300])

    @staticmethod
    def scale_invariant(trials):
        """Every trial passed the scale-invariant checks (True), one did not
        (False), or they were not computed (None: no verify library)."""
        got = [r.get("scale_invariant_pass") for r in trials]
        if not got or any(g is None for g in got):
            return None
        return all(bool(g) for g in got)

    # ---------------------------------------------------- the audit's calls
    def poison_bits(self, out):
        """The payload to fill before the candidate's call, or None (no
        verify library to count it, no way to fill, a dtype without one)."""
        if self.cfg.verify is None or not self.poison.available:
            return None
        if not isinstance(out, self.torch.Tensor):
            return None
        return self.poison.bits(out)

    def call_candidate(self, inputs, out, bits):
        """The candidate's call in its process, memory poisoned there first
        when bits is given; its output in the judge's memory (the reply in
        self.new.last)."""
        fill = out.numel() * out.element_size() if bits is not None else None
        out_new, self.new.last = self.new.proc.call(inputs, poison_bytes=fill)
        return out_new

    def note_coverage(self, rec, seed, how):
        """A check with the poison counted: partial-write when some output
        element still holds it (the fraction never written)."""
        if "n_poison" not in rec:
            return
        cov = self.checks.setdefault("coverage", {"calls": 0, "unwritten_max": 0.0})
        cov["calls"] += 1
        frac = rec.get("poison_fraction") or 0.0
        cov["unwritten_max"] = max(cov["unwritten_max"], frac)
        if rec["n_poison"]:
            add_finding(self.ctx, vocab.F_PARTIAL_WRITE, seed=seed, call=how,
                        elements_unwritten=rec["n_poison"], fraction_unwritten=frac,
                        fraction_written=1.0 - frac)

    def watch(self, inputs):
        """The inputs' fingerprints before a call (input-mutated)."""
        return [fingerprint(self.torch, x) for x in inputs]

    def reference_effects(self, before, inputs, out):
        """The reference's own side effects, on the first trial: the
        inputs its call changed and those its output shares memory with.
        A candidate that does the same keeps the reference's semantics
        (a reshape's view of its input is no pass-through):
        side_effects holds against it only what the reference does not.
        Returns the inputs' fingerprints after the call."""
        t = self.torch
        after = [fingerprint(t, x) for x in inputs]
        self.ref_effects = {
            "mutated": [i for i, (a, b) in enumerate(zip(before, after)) if a != b],
            "aliases": aliases(t, out, inputs)}
        if self.ref_effects["mutated"] or self.ref_effects["aliases"]:
            self.checks["reference_side_effects"] = dict(self.ref_effects)
        return after

    def side_effects(self, before, inputs, out_new, seed):
        """After a candidate's call: did it change its inputs, does its
        output share their memory (beyond what the reference's call does
        with its own: reference_effects), is its output a plain tensor?"""
        t = self.torch
        after = [fingerprint(t, x) for x in inputs]
        own = self.ref_effects
        changed = [i for i, (a, b) in enumerate(zip(before, after))
                   if a != b and i not in own["mutated"]]
        if changed:
            add_finding(self.ctx, vocab.F_INPUT_MUTATED, seed=seed, inputs=changed)
        # What the candidate's process saw of its output (data: it can only
        # tell against itself): the inputs it shares memory with, its type.
        rep = self.new.last
        hits = rep.get("aliases")
        if isinstance(hits, list):
            hits = [i for i in hits[:64] if type(i) is int and i not in own["aliases"]]
            if hits:
                add_finding(self.ctx, vocab.F_OUTPUT_ALIASES_INPUT, seed=seed, inputs=hits)
        spec = rep.get("out") if isinstance(rep.get("out"), dict) else {}
        if spec.get("exact_type") is not True:
            add_finding(self.ctx, vocab.F_OUTPUT_NOT_TENSOR, seed=seed,
                        type=str(spec.get("type"))[:200])

    def audit_calls(self, seed, passed):
        """After the trials, calls of the audit's own (the trials keep the
        harness's semantics): in a faithful job one trial with memory
        poisoned (coverage: the original harness ran none); in a job whose
        trials passed, two calls on identical inputs compared bit for bit
        (nondeterministic beyond the tolerance), their inputs watched
        (input-mutated).  (Then correctness calls distribution.)"""
        t = self.torch
        with t.no_grad():
            if self.mode != vocab.MODE_ROBUST:
                inputs = self.fresh_inputs(seed)
                try:
                    out = self.ref(*inputs)
                    self.sync()
                except Exception as e:
                    # The reference's failure: the candidate is not blamed
                    # (no audit_error), the coverage trial is not run.
                    self.checks["audit_reference_error"] = exc_text(e)
                    out = None
                bits = self.poison_bits(out) if out is not None else None
                if bits is not None:
                    out_new = self.call_candidate(inputs, out, bits)
                    if isinstance(out_new, t.Tensor) and out_new.shape == out.shape:
                        ok, rec = self.compare(out, out_new, False, Laps({}), bits)
                        self.note_coverage(rec, seed, "coverage trial")
                    del out_new
                del inputs, out
            if not passed:
                return
            first = self.fresh_inputs(seed)
            watch = self.watch(first)
            a = self.call_candidate(first, None, None)
            self.side_effects(watch, first, a, seed)
            del first
            b = self.call_candidate(self.fresh_inputs(seed), None, None)
        if isinstance(a, t.Tensor) and isinstance(b, t.Tensor) and a.shape == b.shape:
            pair = [a, b]
            del a, b
            self.nondeterminism(pair, seed)

    def distribution(self, seed):
        """The calls on other input distributions (hrworker/distribution.py),
        after audit_calls, in a job whose trials passed."""
        rec, failing = Distribution(self).run(seed)
        self.checks["distribution"] = rec
        if rec.get("address_cached"):
            add_finding(self.ctx, vocab.F_RESULT_CACHED, seed=seed,
                        transforms=rec["address_cached"],
                        how="its output on a transform's draw, in the buffers of the draw "
                            "before, failed; in copies of its own it passed")
        if failing:
            add_finding(self.ctx, vocab.F_DISTRIBUTION_SPECIFIC, seed=seed, transforms=failing)

    def nondeterminism(self, pair, seed):
        """Two calls of the candidate on identical inputs (pair: [a, b],
        emptied once compared, so that the reference's two calls below
        run without them)."""
        t = self.torch
        a, b = pair
        pair.clear()
        same, ndiff, first_diff = self.bitwise(a, b)
        self.checks["deterministic"] = same
        if same:
            return
        # Bits that differ are a signal (honest reductions reorder sums);
        # evidence only beyond the check's own tolerance, and only where
        # the reference's two calls on the same inputs stay within it.
        rec = {"seed": seed, "elements_differ": ndiff, "first_difference": first_diff,
               "within_tolerance": self.close(a, b)}
        del a, b
        if not rec["within_tolerance"]:
            try:
                with t.no_grad():
                    r1 = self.ref(*self.fresh_inputs(seed))
                    r2 = self.ref(*self.fresh_inputs(seed))
                    self.sync()
                rec["reference_within_tolerance"] = (
                    self.close(r1, r2) if isinstance(r1, t.Tensor)
                    and isinstance(r2, t.Tensor) and r1.shape == r2.shape else None)
                del r1, r2
            except Exception as e:      # the reference's, not the candidate's
                self.checks["audit_reference_error"] = exc_text(e)
        self.checks["nondeterminism"] = rec
        if not rec["within_tolerance"] and rec.get("reference_within_tolerance") is not False:
            add_finding(self.ctx, vocab.F_NONDETERMINISTIC, **rec)

    def close(self, a, b):
        """Does b pass the job's original check against a (compare: the
        verify library when present, else torch.allclose)?"""
        return self.compare(a, b, False, Laps({}))[0]

    def bitwise(self, a, b):
        """(identical, elements that differ, first index): the verify
        library's comparison, else torch's on the raw bits."""
        if self.cfg.verify is not None:
            try:
                return self.cfg.verify.bitwise(a, b)
            except (ValueError, RuntimeError):
                pass
        t = self.torch
        x, y = a.detach().contiguous().view(-1), b.detach().contiguous().view(-1)
        if x.dtype != y.dtype:
            return False, x.numel(), 0
        if x.is_floating_point():
            iv = {2: t.int16, 4: t.int32, 8: t.int64}[x.element_size()]
            x, y = x.view(iv), y.view(iv)
        d = (x != y).nonzero()
        return d.numel() == 0, int(d.numel()), int(d[0].item()) if d.numel() else -1


def audit_problem(ctx, sets, ref_model):
    """headroom audit problems: run the reference on two draws (seeds 42
    and 43; the correctness trials' own inputs are not needed: the
    magnitude is a property of the problem) and ask hrworker/vacuity.py,
    the code every replay job runs on its trials, for each preset the
    orchestrator sent, whether zeros, the reference mean or one of the
    inputs would pass the original check on both, and whether the output
    changed with the input.  fp16/bf16 presets use the fp32 output
    rounded to that dtype (recorded)."""
    t = ctx.torch
    if ctx.cfg.verify is None:
        raise Verdict(vocab.PV_PROBLEM_ERROR, "audit",
                      "the audit needs the verify library: %s"
                      % (ctx.cfg.verify_error or "none given (--verify-lib)"))
    # "device": draw the inputs with the device's generator (same
    # distributions, other values): problems of 10^9 elements then take
    # seconds, not the minute the CPU generator needs.
    on_device = ctx.m.get("audit_inputs") == "device"
    model = None

    def draw_and_run(seed):
        with t.no_grad():
            ctx.set_seed(seed)
            if on_device:
                with t.device(ctx.device):
                    raw = sets.get_inputs()
            else:
                raw = sets.host_inputs()
            inputs = [ctx.place(x) for x in raw]
            del raw
            out = model(*inputs)
            ctx.sync()
        return inputs, out

    try:
        model = ctx.place_model(ref_model)
        inputs, out = draw_and_run(ctx.seed)
    except Exception as e:
        raise Verdict(vocab.PV_PROBLEM_ERROR, "reference", exc_text(e))
    if not isinstance(out, t.Tensor):
        raise Verdict(vocab.PV_PROBLEM_ERROR, "reference",
                      "the reference returned %s, not a tensor" % type(out).__name__)
    dtypes = {"fp32": t.float32, "fp16": t.float16, "bf16": t.bfloat16}
    # A second draw (the next seed's inputs): does the output vary with the
    # input at all?  The same test every job makes over its trials.
    again = None
    try:
        again = draw_and_run(ctx.seed + 1)
    except Exception as e:      # noqa: the first draw's gates still stand
        ctx.result.setdefault("audit_notes", []).append(
            "second draw failed: %s" % exc_text(e))
    gates = {}
    for p in ctx.m.get("audit_presets", []):
        vac = Vacuity(t, ctx.cfg.verify, p["harness"], p["tol"])
        ref = out.detach().to(dtypes[p["dtype"]])
        vac.observe(ref, inputs)
        g = vac.first
        if again is not None and isinstance(again[1], t.Tensor):
            vac.observe(again[1].detach().to(ref.dtype), again[0])
        s = vac.summary()
        gates[p["name"]] = {
            "atol": p["tol"], "rtol": p["tol"], "dtype": p["dtype"],
            "reference": "computed" if ref.dtype == out.dtype
            else "%s output rounded to %s" % (str(out.dtype)[6:], p["dtype"]),
            "zeros": s["zeros"], "constant": s["constant"],
            "constant_value": g["constant_value"],
            "input": s["input"], "inputs_same_shape": [
                i for i, x in enumerate(inputs) if isinstance(x, t.Tensor)
                and x.shape == ref.shape],
            "degenerate": s["degenerate"], "draws": s["observed"],
            "margin": g["margin"]}
    del again
    full = ctx.cfg.verify.pick(ctx.cfg.verify.raw(out, out, "current", 1e-4),
                                ("ref_amax", "ref_rms", "ref_min", "ref_max",
                                 "ref_mean", "n_nan_ref", "n_inf_ref"))
    ctx.result.update(verdict=vocab.PV_AUDITED, audit={
        "inputs": "device generator" if on_device else "host generator (KernelBench)",
        "output_shape": list(out.shape), "output_dtype": str(out.dtype)[6:],
        "numel": out.numel(), "stats": full, "gates": gates,
        "fast_draws": sets.fast_draws})
