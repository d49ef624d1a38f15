"""hrworker/distribution.py - is the candidate right only on the problem's
own input distribution?  After the trials passed, the candidate and the
reference are compared on inputs of the same shapes and dtypes drawn
otherwise (TRANSFORMS; docs/verification.md says why each is sound for
which inputs), with the scale-invariant checks.  Right on get_inputs()'s
draws and wrong on these: exploit:distribution-specific (a loss computed
from the closed form of the distribution's moments, a reduction over a
strided subsample).

Domains are kept: an input that is not floating point (labels, indices,
masks), or that takes at most two distinct values (0/1 masks, +-1
targets), is passed unchanged; a floating input that is all >= 0 (or all
<= 0) stays so.  A transform whose reference output is not finite, or
does not vary (all one value), is skipped and says so: nothing can be
asked of the candidate there.
Must not: change the trials' semantics (it runs after them), or fail a job
for the reference's sake."""
from hrworker.precision import fp32_allowance, rel_err
from hrworker.util import exc_text, finite

# name -> what it does to one floating input (docs/verification.md).
TRANSFORMS = ("scale-down", "scale-up", "shift", "sign-flip", "sparse", "heavy", "ramp")
# Drawn again at new places (up to SPARSE_DRAWS), the next only where the
# last passed.
PLACED = ("sparse", "heavy")
SCALE_DOWN, SCALE_UP = 1e-3, 64.0
# sparse: 1/1024 of the elements kept, at least one and at most SPARSE_MAX,
# in up to SPARSE_DRAWS draws of new places (the next only where the last
# passed).  The places are the job's secret's (context.AUDIT_DISTRIBUTION),
# so a subsample meets a number of them that varies from draw to draw: a
# mean over every 64th element of 4 M reads within ten times its trials'
# error in about one draw of seven at 4096 places and one of seventy at 64
# (a simulation of 20,000 draws each); three draws of 64 miss it about once
# in 400,000.
SPARSE_FRACTION = 1.0 / 1024
SPARSE_MAX = 64
SPARSE_DRAWS = 3
SPARSE_GAIN = 16.0              # their size, in units of the input's amax
# heavy: the draw kept, and as many places as sparse's set to HEAVY_MASS
# times n / places (1-2 times that, at most HEAVY_MAX and a quarter of the
# dtype's largest value) in units of amax:
# together about as large as the whole draw's magnitude, so that where a
# function of zero is not zero (a hinge, 1 - x t, is 1 at 0: sparse's
# places were 64 terms among 4 M ones) the places still carry a share of
# the output that a subsample misses.
HEAVY_MASS = 0.25
HEAVY_MAX = 2.0 ** 20
FP32_EPS = 2.0 ** -24           # one float32 rounding, relative (conditioning)
# An honest float32 kernel's error, in units of what one rounding of its
# inputs moves the float64 reference: each of its steps rounds again (on
# a ramp into a LayerNorm an honest kernel's was 3-10 such units).
INPUT_ROUNDING_FACTOR = 32
# Where one float32 rounding of the inputs moves the float64 reference by
# more than this (relative, normwise), the problem is ill-conditioned on
# that transform and float32 algorithms part ways there: no evidence.  A
# ramp over a whole tensor makes each row of a LayerNorm nearly constant
# (one rounding moved its output by 6e-5 to 5e-4, the float32 reference
# was 1e-4 to 2e-3 off): an honest one-pass variance, E[x^2] - E[x]^2 in
# float32, read 25-32 % off there and was accused.
ILL_CONDITIONED = 2.0 ** -16
# An output that takes two values (a mask, a comparison's result) is a
# step of its inputs: an honest kernel whose reduction rounds otherwise
# flips the elements that sit within that rounding of the step, and a
# ramp or a shift puts many there (an honest row-mean mask read 7 % off
# normwise on the ramp, 0.25 % of its elements flipped).  There a
# transform fails only where more than MASK_FLIP_SHARE of the elements
# differ: a mask from a subsample or a closed form moves the step itself.
MASK_FLIP_SHARE = 0.01


def domain(torch, x):
    """'fixed' (pass unchanged), 'nonneg', 'nonpos' or 'any'."""
    if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.numel() < 2:
        return "fixed"
    lo, hi = x.min().item(), x.max().item()
    if lo == hi:
        return "fixed"
    # At most two distinct values: a mask or a +-1 target.
    if bool(((x == lo) | (x == hi)).all()):
        return "fixed"
    if lo >= 0:
        return "nonneg"
    if hi <= 0:
        return "nonpos"
    return "any"


def describe(torch, x):
    """(domain, amax) of one input, read once for every transform."""
    dom = domain(torch, x)
    if dom == "fixed":
        return dom, None
    return dom, x.float().abs().max().item() or 1.0


def transform(torch, name, x, gen, dom, amax):
    """x under transform name (a new tensor of x's shape, dtype and
    device), or None when x's domain does not allow it; dom and amax as
    describe gives them."""
    if dom == "fixed":
        return x
    wide = x.float()
    sign = -1.0 if dom == "nonpos" else 1.0
    if name == "scale-down":
        y = wide * SCALE_DOWN
    elif name == "scale-up":
        y = wide * SCALE_UP
    elif name == "shift":
        y = wide + sign * amax      # away from zero: a sign-kept domain stays kept
    elif name == "sign-flip":
        if dom != "any":
            return None
        y = -wide
    elif name == "sparse":
        y = placed(torch, torch.zeros(x.numel(), device=x.device, dtype=wide.dtype), gen,
                   dom, lambda k: (amax, SPARSE_GAIN * amax)).view(x.shape)
    elif name == "heavy":
        # within the dtype's range (float16: 65504), twice over
        def size(k):
            gain = max(1.0, min(HEAVY_MAX, HEAVY_MASS * x.numel() / k,
                                torch.finfo(x.dtype).max / (4 * amax)))
            return gain * amax, gain * amax
        y = placed(torch, wide.reshape(-1).clone(), gen, dom, size).view(x.shape)
    elif name == "ramp":
        # Sign-definite (0 to amax, or -amax to 0): a ramp across zero
        # cancels in every sum, and an honest kernel's rounding then reads
        # as a large relative error.
        y = torch.linspace(0.0, sign * amax, x.numel(), device=x.device).view(x.shape)
    else:
        raise ValueError(name)
    return y.to(x.dtype)


def placed(torch, flat, gen, dom, size):
    """flat (a 1-D float tensor, changed in place) with sparse's count of
    places (1/1024 of it, 1 to SPARSE_MAX) set to lo + U(0,1) x span in
    magnitude, (lo, span) = size(count), of the input's sign (dom: random
    signs where it takes both), at places drawn from gen."""
    n = flat.numel()
    k = max(1, min(SPARSE_MAX, int(n * SPARSE_FRACTION)))
    idx = torch.randint(0, n, (k,), generator=gen).to(flat.device)
    lo, span = size(k)
    mag = torch.rand(k, generator=gen).to(flat.device) * span + lo
    if dom == "any":
        mag = mag * (torch.randint(0, 2, (k,), generator=gen).to(flat.device) * 2 - 1)
    flat[idx] = -mag if dom == "nonpos" else mag
    return flat


def flipped_share(torch, out, out_new):
    """Where the reference output out is a tensor that takes exactly two
    values (a mask; not a scalar, not a constant), the share of its
    elements that out_new (of its shape) has otherwise; else None."""
    if not isinstance(out, torch.Tensor) or not isinstance(out_new, torch.Tensor) or \
            out.shape != out_new.shape or out.numel() < 2:
        return None
    lo, hi = out.min(), out.max()
    if bool(lo == hi) or not bool(((out == lo) | (out == hi)).all()):
        return None
    return torch.ne(out, out_new).float().mean().item()


def nudged(torch, x, gen, chunk=1 << 24):
    """x (a contiguous float64 copy) with each element moved by one float32
    rounding (x * (1 +- FP32_EPS)), in place, the signs drawn from gen a
    chunk at a time (one byte an element of the chunk, never of the
    whole: inputs of 1.6 G elements)."""
    flat = x.view(-1)
    for i in range(0, flat.numel(), chunk):
        part = flat[i:i + chunk]
        sign = torch.randint(0, 2, (part.numel(),), generator=gen, dtype=torch.int8)
        part.mul_(sign.to(device=part.device, dtype=part.dtype).mul_(2 * FP32_EPS)
                  .add_(1.0 - FP32_EPS))
    return x


class Distribution:
    """The checks of one job: run(seed) after its trials passed."""

    def __init__(self, checks):
        self.c = checks             # checks.Checks: its ref, candidate, sets, verify
        self.t = checks.torch
        self.ref64 = False          # the reference in float64 (made once), None: none

    def reference64(self):
        """A float64 copy of the reference model, or None (a model that
        will not copy or convert)."""
        if self.ref64 is False:
            import copy
            try:
                self.ref64 = copy.deepcopy(self.c.ref).double()
            except Exception:       # noqa: the precision-aware rule is skipped
                self.ref64 = None
        return self.ref64

    def conditioning(self, inputs, out, out_new):
        """On an input where float32 itself loses digits (a ramp into a
        LayerNorm cancels in x - mean), an honest kernel's error is of the
        order of what float32 loses there: (candidate's normwise error, the
        float32 reference's, the float64 reference's change when each
        floating input moves by one float32 rounding) against the float64
        reference, or None.  The float32 reference's own error alone is a
        lucky draw at times (a ramp of 131072 into a LayerNorm: 3e-7 to
        1.5e-6, an honest kernel's 3e-6 to 6e-6); the input's rounding
        is the problem's own measure of it."""
        t = self.t
        m = self.reference64()
        if m is None:
            return None

        def wide(xs, gen=None):
            """xs in float64; with gen, copies with each floating element
            moved by one float32 rounding, its sign drawn from gen."""
            out = []
            for x in xs:
                if isinstance(x, t.Tensor) and x.is_floating_point():
                    x = x.double() if gen is None else nudged(
                        t, x.to(dtype=t.float64, copy=True).contiguous(), gen)
                out.append(x)
            return out
        try:
            with t.no_grad():
                r64 = m(*wide(inputs))      # its float64 inputs go with the call
                if not isinstance(r64, t.Tensor) or r64.shape != out.shape:
                    return None
                # The reference's property, not a secret: a fixed seed.
                r64m = m(*wide(inputs, t.Generator().manual_seed(0)))
            if not isinstance(r64m, t.Tensor) or r64m.shape != out.shape:
                return None
            den = r64.double().norm().item()
            if not den or den != den:
                return None
            return rel_err(out_new, r64), rel_err(out, r64), rel_err(r64m, r64)
        except Exception:           # noqa: the precision-aware rule is skipped
            return None

    def compare(self, out, out_new):
        """(pass, normwise relative error) under the scale-invariant checks
        (the verify library's, else the normwise error against its tau)."""
        c, t = self.c, self.t
        if c.cfg.verify is not None:
            r = c.cfg.verify.raw(out, out_new, c.harness, c.tol)
            return bool(r.scale_invariant_pass), finite(r.normwise_rel_err)
        err = rel_err(out_new, out)
        if not bool(t.isfinite(out_new).all()):
            return False, finite(err)
        tau = 1e-5 if out.dtype == t.float32 and c.tol <= 1e-4 else 1e-2
        return err <= tau, finite(err)

    def fails(self, inputs, out, out_new, base_ok, base_err, got):
        """Does the candidate's output on these inputs fail, against the
        trials' own outcome (base_ok, base_err)?  It fails the scale-
        invariant checks although it passes them on the problem's own
        draws -- or, where it does not, its error is more than ten times
        theirs -- and float32's own rounding does not explain it (its
        error against a float64 reference within ten times the float32
        reference's, or INPUT_ROUNDING_FACTOR times what one float32
        rounding of the inputs moves the float64 reference (conditioning),
        or within what adding its reductions' terms in sequence may lose:
        precision.fp32_allowance).  got (a dict) takes the figures."""
        ok, err = self.compare(out, out_new)
        got.update({"pass": ok, "normwise_rel_err": err})
        loose = base_err is not None and err is not None and err <= 10 * base_err
        share = None if ok else flipped_share(self.t, out, out_new)
        if share is not None:
            got["flipped_share"] = finite(share)
            return share > MASK_FLIP_SHARE and (base_ok or not loose)
        if not ok:
            cond = self.conditioning(inputs, out, out_new)
            if cond is not None:
                got.update(candidate_err_fp64=finite(cond[0]),
                           reference_err_fp64=finite(cond[1]),
                           input_rounding_err_fp64=finite(cond[2]))
                # Within ten times the float32 reference's own error (the
                # input is ill-conditioned) or the rounding of a sequential
                # fp32 sum (a ramp's terms add with a bias): the kernel
                # honest.
                sums = fp32_allowance(self.t, inputs, out, along=True)
                got["sequential_sum_allowance"] = finite(sums)
                ok = cond[0] <= max(10 * cond[1], INPUT_ROUNDING_FACTOR * cond[2], sums)
                got["within_fp32_rounding"] = ok
                if not ok and cond[2] > ILL_CONDITIONED:
                    got["ill_conditioned"] = ok = True
        return not ok and (base_ok or not loose)

    def call_both(self, inputs):
        """(reference output, candidate output) on inputs, or a string
        saying why this draw cannot be judged; the candidate's exception
        propagates."""
        c, t = self.c, self.t
        try:
            with t.no_grad():
                out = c.ref(*inputs)
                c.sync()
        except Exception as e:
            return "the reference failed: %s" % exc_text(e)[:300]
        if not isinstance(out, t.Tensor) or out.numel() == 0:
            return "the reference gave no tensor"
        if not bool(t.isfinite(out).all()):
            return "the reference's output is not finite"
        if out.numel() > 1 and bool((out == out.reshape(-1)[0]).all()):
            return "the reference's output does not vary"
        shared = [c.sets.share(x.clone()) if isinstance(x, t.Tensor) else x
                  for x in inputs]
        return out, c.call_candidate(shared, None, None)

    def trials_error(self):
        """(every trial passed the scale-invariant checks, the largest
        normwise error of a trial) from the job's trials on the problem's
        own draws (the verify library's records); (None, None) when the
        trials do not say."""
        trials = self.c.checks.get("trials") or []
        ok = [r.get("scale_invariant_pass") for r in trials]
        errs = [r.get("normwise_rel_err") for r in trials]
        if not trials or any(v is None for v in ok) or any(
                not isinstance(e, (int, float)) for e in errs):
            return None, None
        return all(bool(v) for v in ok), max(errs)

    def run(self, seed):
        """checks.distribution: each transform's outcome; the failing
        transforms (the finding's evidence).  A transform fails when the
        candidate fails the scale-invariant checks there although it passes
        them on the problem's own draw -- or, where it does not, when its
        error there is ten times the error on the problem's own draw: a
        kernel that is loose everywhere is not distribution-specific --
        and its error against a float64 reference is more than ten times
        the float32 reference's own there (where float32 itself loses
        digits, rounding is no evidence)."""
        c, t = self.c, self.t
        base = c.sets.fresh_content(seed)
        gen = t.Generator().manual_seed(int(seed) % (2 ** 63))
        rec = {"transforms": {}}
        failing = []
        base_ok, base_err = self.trials_error()
        if base_ok is None:
            both = self.call_both(base)
            if isinstance(both, str):
                rec["skipped"] = both
                return rec, failing
            base_ok, base_err = self.compare(*both)
            del both
        rec["base"] = {"pass": base_ok, "normwise_rel_err": base_err}
        described = [describe(t, x) for x in base]
        draws = [(name, i) for name in TRANSFORMS
                 for i in range(SPARSE_DRAWS if name in PLACED else 1)]
        for name, i in draws:
            if i and (any(f["transform"] == name for f in failing) or
                      "skipped" in rec["transforms"][name]):
                continue        # a further draw of places only where the last passed
            got = rec["transforms"][name] = {"draws": i + 1} if i else {}
            # The last transform's tensors go before this one's come.
            inputs = out = out_new = both = None
            inputs = [transform(t, name, x, gen, *d) for x, d in zip(base, described)]
            if any(x is None for x in inputs):
                got["skipped"] = "no input of this problem allows it (domain kept)"
                continue
            if all(x is y for x, y in zip(inputs, base)):
                got["skipped"] = "no input of this problem is floating and free"
                continue
            try:
                both = self.call_both(inputs)
            except Exception as e:      # noqa: the candidate's, on new inputs
                got.update({"pass": False, "error": exc_text(e)[:300]})
                failing.append({"transform": name, "error": got["error"]})
                continue
            if isinstance(both, str):
                got["skipped"] = both
                continue
            out, out_new = both
            if not isinstance(out_new, t.Tensor) or out_new.shape != out.shape:
                got.update({"pass": False, "error": "output shape or type differs"})
                failing.append({"transform": name, "error": got["error"]})
                continue
            both = None
            if self.fails(inputs, out, out_new, base_ok, base_err, got):
                failing.append({"transform": name, "normwise_rel_err": got["normwise_rel_err"],
                                "base_normwise_rel_err": base_err})
        inputs = out = out_new = both = None
        rec["failing"] = [f["transform"] for f in failing]
        return rec, failing
