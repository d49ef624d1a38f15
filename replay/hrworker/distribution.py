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
import os

from hrworker.precision import (MASK_FLIP_SHARE, SUM_CAP, WRONG, flipped_share,
                                fp32_allowance, rel_err)
from hrworker.channel import RemoteError
from hrworker.util import Laps, exc_text, finite, is_oom, set_bytes

# name -> what it does to one floating input (docs/verification.md); the
# JOINT ones change how the inputs relate, each input's own values kept.
TRANSFORMS = ("scale-down", "scale-up", "shift", "sign-flip", "sparse", "heavy", "ramp", "unit",
              "mix", "aligned")
# mix: a free floating input with an earlier one of its shape, dtype and
# domain becomes their mean, (x_i + x_j) / 2 (a convex mix: the domain's
# sign kept, the values within the two's range): inputs the problem draws
# independently become correlated (about 0.7), as a model's predictions
# and its targets are.  A kernel that takes a cross moment as a product
# of means (an MSE from E[p^2] + E[t^2] - 2 E[p] E[t]) is right only
# where they are independent.
# aligned: scores that agree with their targets, as a trained model's do,
# the targets kept.  A free floating input that takes both signs, beside an
# input of its shape that takes two values (+-1 or 0/1 targets, a mask),
# gets the sign of that input's value (|x| where it holds its larger
# value, -|x| where the smaller), its magnitudes kept; a free floating
# input of scores (N, C, ...) beside an integer input of labels (N, ...)
# in [0, C) (torch's cross_entropy and nll_loss form) has each label's
# score raised to |x| + amax(x), above every other score of its row and of
# x's sign where it is sign-definite.  A loss that never reads its targets
# (a hinge from max(0, 1 - p), a BCE from its expectation over fair
# targets, a cross entropy from the row's mean score) is right only while
# they are independent of the scores.
JOINT = ("mix", "aligned")
# Drawn again at new places (up to SPARSE_DRAWS), the next only where the
# last passed.
PLACED = ("sparse", "heavy")
SCALE_DOWN, SCALE_UP = 1e-3, 64.0
# unit: each element's magnitude 1 + UNIT_SPREAD (|x| - mean |x|) / amax,
# its sign kept (magnitudes centred on one, so that a product of many
# terms wanders about one instead of drifting): it stays finite and
# varies, where the problem's own draw (a normal one's |x| is below one
# more often than not) takes it below float32's least within a few
# hundred terms: a cumprod of 4000
# columns was zero within the check's atol beyond column 256, and a kernel
# that wrote zeros there passed the trials and every other transform
# (whose references overflowed, or did not vary).
UNIT_SPREAD = 2.0 ** -4
# lend: a set of at most this share of the device's memory (the host's on
# the CPU) is lent in one shared copy refilled each draw; a larger one gets
# a copy of its own each call, dropped after it, so that the judge holds no
# more at a reference call than before the lending (the copy would be a
# fifth harness-size tensor held: tests/py/test_worker_held_sets.py), and
# there the copy's sharing is small against the call.  HEADROOM_LEND=0:
# never lent (as for a large set).
LEND_MAX_SHARE = 1.0 / 64
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
# A kernel whose error on a draw is within LOOSE times its largest on the
# trials' draws is as loose there as everywhere: no transform's failure
# (for one that does not pass the scale-invariant checks on its own draws
# either) and no audit call's (timing.Timing.passes) reads as another
# computation.
LOOSE = 10
# The capped sequential-sum allowance (precision.SUM_CAP) is not all one
# float32 accumulator can lose: over millions of near-equal terms it loses
# up to k u / 2 (a sequential sum of 2^22 terms of log 2 was 5 % off, of
# 2^24 squares of a normal draw 2.8 %), and honest kernels written so (one
# float accumulator a thread, over 2-4 M terms) read 0.9-5 % off on
# scale-down, shift, sparse, heavy and ramp, where subsamples read 1.7-28 %.
# An error above the capped allowance but within gamma_k (at most WRONG,
# a quarter: beyond it no rounding) decides nothing by its size; such a
# transform fails only where the candidate also moves when the terms are
# reordered (reorder).
SERIAL_CAP = WRONG
# reorder: REORDER_PAIRS pairs of neighbouring elements (i, i+1), of
# neighbouring rows (the same column of rows 2r and 2r+1), and of a batch's
# neighbouring samples (entries 2r and 2r+1 of the first dimension, whole,
# in every input of that first dimension: labels go with them), the first
# of each pair given a heavy value (HEAVY_MASS of the draw over the
# pairs), then the pair's values exchanged, in every input of that shape
# at once.
# The terms are the same; a reference that reads each element alike (a
# sum, a mean, a loss over elements) does not move (checked in float64,
# to REORDER_INVARIANT), and neither does an honest kernel beyond the
# rounding of adding a term one place earlier or later: honest serial,
# OpenMP and torch kernels on 2-4 M elements moved 0 to 3e-4.  A kernel
# that skips elements (a strided, row or random subsample) meets a heavy
# value in one order and its neighbour in the other: 3e-2 to 1.98.  It
# moves when the change exceeds REORDER_TOL and REORDER_NOISE times its
# own call-to-call change and the float32 reference's under the exchange.
REORDER_PAIRS = 1024
REORDER_TOL = 2.0 ** -8
REORDER_NOISE = 8
REORDER_INVARIANT = 2.0 ** -40


def domain(torch, x):
    """('fixed' (pass unchanged), 'nonneg', 'nonpos' or 'any', x's least
    element, its largest; None for a tensor not read)."""
    if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.numel() < 2:
        return "fixed", None, None
    lo, hi = x.min().item(), x.max().item()
    if lo == hi or only(torch, x, lo, hi):
        # One value, or at most two distinct ones: a mask or a +-1 target.
        return "fixed", lo, hi
    return ("nonneg" if lo >= 0 else "nonpos" if hi <= 0 else "any"), lo, hi


def describe(torch, x):
    """(domain, amax) of one input, read once for every transform; amax
    from the least and largest element domain read (no pass of its own)."""
    dom, lo, hi = domain(torch, x)
    if dom == "fixed":
        return dom, None
    if lo != lo or hi != hi:
        return dom, float("nan")
    return dom, max(abs(lo), abs(hi)) or 1.0


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
        y = wide * -1.0         # the scales' multiply: a negation is a first use (placed)
    elif name == "sparse":
        y = placed(torch, torch.zeros(x.numel(), device=x.device, dtype=wide.dtype), gen,
                   dom, lambda k: (amax, SPARSE_GAIN * amax)).view(x.shape)
    elif name == "heavy":
        y = placed(torch, wide.reshape(-1).clone(), gen, dom,
                   lambda k: (heavy_size(torch, x, k, amax),) * 2).view(x.shape)
    elif name == "ramp":
        # Sign-definite (0 to amax, or -amax to 0): a ramp across zero
        # cancels in every sum, and an honest kernel's rounding then reads
        # as a large relative error.
        y = torch.linspace(0.0, sign * amax, x.numel(), device=x.device).view(x.shape)
    elif name == "unit":
        mag = wide.abs()
        y = torch.sign(wide) * (1.0 + UNIT_SPREAD * (mag - mag.mean()) / amax)
    else:
        raise ValueError(name)
    return y.to(x.dtype)


def joint(torch, name, xs, described):
    """xs under the JOINT transform name (inputs it changes are new
    tensors of their shape, dtype and device; the others are xs's own), or
    None where no two inputs of xs allow it; described: describe's of xs."""
    out, changed = list(xs), False
    for i, (x, (dom, _)) in enumerate(zip(xs, described)):
        if dom == "fixed":
            continue
        # One new tensor an input changed, as the other transforms make
        # (on 1 G-element inputs every further one is 4 GB): the rest in
        # place, a chunk at a time.
        if name == "mix":
            j = next((j for j in range(i) if described[j][0] == dom and
                      xs[j].shape == x.shape and xs[j].dtype == x.dtype), None)
            if j is None:
                continue
            out[i] = x.float().add(xs[j].float()).mul_(0.5).to(x.dtype)
        elif name == "aligned":
            y = next((y for y in xs if y is not x and two_valued(torch, y, x.shape)), None) \
                if dom == "any" else None
            labels = None if y is not None or dom == "nonpos" else next(
                (y for y in xs if labels_of(torch, y, x.shape)), None)
            if y is not None:
                out[i] = signed_by(torch, x, y)
            elif labels is not None:
                at = labels.long().unsqueeze(1)
                raised = x.gather(1, at).abs() + described[i][1]
                out[i] = x.clone().scatter_(1, at, raised.to(x.dtype))
            else:
                continue
        else:
            raise ValueError(name)
        changed = True
    return out if changed else None


def chunks(n, size=1 << 24):
    """(start, end) of n elements a chunk of size at a time."""
    return ((a, min(n, a + size)) for a in range(0, n, size))


def signed_by(torch, x, y, size=1 << 24):
    """|x| where two-valued y holds its larger value, -|x| where the
    smaller: a new contiguous tensor of x's shape and dtype, the signs set
    a chunk at a time."""
    out = x.abs().contiguous()
    flat, yf, hi = out.view(-1), y.reshape(-1), y.max()
    for a, b in chunks(flat.numel(), size):
        flat[a:b].mul_((yf[a:b] == hi).to(out.dtype).mul_(2).sub_(1))
    return out


def labels_of(torch, y, shape):
    """Is tensor y the labels of scores of shape (N, C, ...): integer, of
    shape (N, ...), each in [0, C)?"""
    if (not isinstance(y, torch.Tensor) or y.is_floating_point() or y.is_complex() or
            y.dtype == torch.bool or len(shape) < 2 or y.numel() == 0 or
            tuple(y.shape) != tuple(shape[:1]) + tuple(shape[2:])):
        return False
    return bool(y.min() >= 0) and bool(y.max() < shape[1])


def two_valued(torch, y, shape):
    """Does tensor y, of shape, hold exactly two distinct values (+-1 or
    0/1 targets, a mask)?"""
    if not isinstance(y, torch.Tensor) or y.shape != shape or y.numel() < 2 or y.is_complex():
        return False
    lo, hi = y.min(), y.max()
    return bool(lo != hi) and only(torch, y, lo, hi)


def only(torch, y, lo, hi):
    """Does y hold no value but lo and hi?  A chunk at a time (one byte an
    element of the chunk, never of the whole)."""
    yf = y.reshape(-1)
    return all(bool(((yf[a:b] == lo) | (yf[a:b] == hi)).all()) for a, b in chunks(yf.numel()))


def heavy_size(torch, x, k, amax):
    """The magnitude (its lower end; heavy's span is as much again) of k
    heavy places in x: HEAVY_MASS of x's elements over k, times amax,
    at least amax, at most HEAVY_MAX times it and within the dtype's range
    (float16: 65504) twice over."""
    return amax * max(1.0, min(HEAVY_MAX, HEAVY_MASS * x.numel() / k,
                               torch.finfo(x.dtype).max / (4 * amax)))


def pairs(torch, shape, kind, gen):
    """reorder's pairs in a tensor of shape, as (first, second) flat
    indices: kind 'element', elements 2m and 2m+1; 'row', the same column
    of rows 2r and 2r+1 (rows: of the last dimension); 'sample', as
    indices of the first dimension, its entries 2r and 2r+1 whole (a
    batch's samples).  None where the shape has no two such."""
    n, cols = 1, (shape[-1] if len(shape) else 1)
    for d in shape:
        n *= d
    count = min(REORDER_PAIRS, n // 4)
    if count < 1:
        return None
    if kind == "sample":
        if len(shape) < 2 or shape[0] < 2:
            return None
        a = torch.randint(0, shape[0] // 2, (min(count, shape[0] // 2),), generator=gen).unique() * 2
        return a, a + 1
    if kind == "element":
        a = torch.randint(0, n // 2, (count,), generator=gen).unique() * 2
        return a, a + 1
    rows = n // cols
    if rows < 2:
        return None
    r = torch.randint(0, rows // 2, (count,), generator=gen)
    a = (2 * r * cols + torch.randint(0, cols, (count,), generator=gen)).unique()
    return a, a + cols


def exchanged(torch, xs, described, shape, pair, gen, samples=False):
    """(A, B): xs with the first of each pair's elements set to a heavy
    value (of the input's sign) in each free floating input of shape, and
    B, A with each pair's two values exchanged in every input of shape
    (labels, masks and targets of that shape go with their elements).
    samples: the pairs are of the first dimension ('sample'): one element
    of each first entry (its column drawn) heavy, and the entries
    exchanged whole in every input of that first dimension (a batch's
    labels go with their samples)."""
    a_list, b_list = [], []
    for x, (dom, amax) in zip(xs, described):
        mine = isinstance(x, torch.Tensor) and (
            x.dim() and x.shape[0] == shape[0] if samples else x.shape == shape)
        if not mine:
            a_list.append(x)
            b_list.append(x)
            continue
        a, b = (i.to(x.device) for i in pair)
        f = x.clone().reshape(x.shape[0], -1) if samples else x.reshape(-1).clone()
        if dom != "fixed" and x.shape == shape:
            where = (a, torch.randint(0, f.shape[1], (a.numel(),), generator=gen).to(x.device)) \
                if samples else a
            mag = (torch.rand(a.numel(), generator=gen) + 1) * heavy_size(torch, x, a.numel(), amax)
            f[where] = (-mag if dom == "nonpos" else mag).to(device=x.device, dtype=x.dtype)
        g = f.clone()
        g[a], g[b] = f[b], f[a]
        a_list.append(f.view(x.shape))
        b_list.append(g.view(x.shape))
    return a_list, b_list


def widened(torch, xs, gen=None):
    """xs with each floating tensor in float64; with gen, copies with each
    floating element moved by one float32 rounding, its sign drawn from gen."""
    out = []
    for x in xs:
        if isinstance(x, torch.Tensor) and x.is_floating_point():
            x = x.double() if gen is None else nudged(
                torch, x.to(dtype=torch.float64, copy=True).contiguous(), gen)
        out.append(x)
    return out


def placed(torch, flat, gen, dom, size):
    """flat (a 1-D float tensor, changed in place) with sparse's count of
    places (1/1024 of it, 1 to SPARSE_MAX) set to lo + U(0,1) x span in
    magnitude, (lo, span) = size(count), of the input's sign (dom: random
    signs where it takes both), at places drawn from gen."""
    n = flat.numel()
    k = max(1, min(SPARSE_MAX, int(n * SPARSE_FRACTION)))
    idx = torch.randint(0, n, (k,), generator=gen)
    lo, span = size(k)
    mag = torch.rand(k, generator=gen) * span + lo
    if dom == "any":
        mag = mag * (torch.randint(0, 2, (k,), generator=gen) * 2 - 1)
    # One fill a place (at most SPARSE_MAX): the fill kernel every job has
    # used, where an indexed write is a first use on a GPU, whose module
    # load took 13-20 ms a job on the H100 (each job's judge is a process
    # of its own).  A place drawn twice takes its last value.
    for i, v in zip(idx.tolist(), (-mag if dom == "nonpos" else mag).tolist()):
        flat[i:i + 1].fill_(v)
    return flat


def trials_error(checks):
    """(every trial passed the scale-invariant checks, the largest
    normwise error of a trial) from a job's trials on the problem's own
    draws (checks.trials: the verify library's records); (None, None)
    when the trials do not say."""
    trials = checks.get("trials") or []
    ok = [r.get("scale_invariant_pass") for r in trials]
    errs = [r.get("normwise_rel_err") for r in trials]
    if not trials or any(v is None for v in ok) or any(
            not isinstance(e, (int, float)) for e in errs):
        return None, None
    return all(bool(v) for v in ok), max(errs)


def loose(err, base_err):
    """An error within LOOSE times the trials' own (base_err): the
    kernel's everywhere, not a sign of another computation."""
    return base_err is not None and err is not None and err <= LOOSE * base_err


def nudged(torch, x, gen, chunk=1 << 24):
    """x (a contiguous float64 copy) with each element moved by one float32
    rounding (x * (1 +- FP32_EPS)), in place, the signs drawn from gen (on
    its device) a chunk at a time (one byte an element of the chunk, never
    of the whole: inputs of 1.6 G elements)."""
    flat = x.view(-1)
    for a, b in chunks(flat.numel(), chunk):
        part = flat[a:b]
        sign = torch.randint(0, 2, (part.numel(),), generator=gen, dtype=torch.int8,
                             device=gen.device)
        part.mul_(sign.to(device=part.device, dtype=part.dtype).mul_(2 * FP32_EPS)
                  .add_(1.0 - FP32_EPS))
    return x


class Distribution:
    """The checks of one job: run(seed) after its trials passed."""

    def __init__(self, checks):
        self.c = checks             # checks.Checks: its ref, candidate, sets, verify
        self.t = checks.torch
        self.ref64 = False          # the reference in float64 (made once), None: none
        self.lent = {}              # input index -> its shared copy (candidate's lend)

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
        try:
            with t.no_grad():
                r64 = m(*widened(t, inputs))      # its float64 inputs go with the call
                if not isinstance(r64, t.Tensor) or r64.shape != out.shape:
                    return None
                # The reference's property, not a secret: a fixed seed, on
                # the inputs' device (on a GPU the CPU generator's signs for
                # two inputs of 1 G elements took seconds).
                dev = next((x.device for x in inputs if isinstance(x, t.Tensor)), "cpu")
                r64m = m(*widened(t, inputs, t.Generator(device=dev).manual_seed(0)))
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

    def fails(self, inputs, out, out_new, base_ok, base_err, got, zone=True):
        """Does the candidate's output on these inputs fail, against the
        trials' own outcome (base_ok, base_err)?  It fails the scale-
        invariant checks although it passes them on the problem's own
        draws -- or, where it does not, its error is more than ten times
        theirs -- and float32's own rounding does not explain it (its
        error against a float64 reference within ten times the float32
        reference's, or INPUT_ROUNDING_FACTOR times what one float32
        rounding of the inputs moves the float64 reference (conditioning),
        or within what adding its reductions' terms in sequence may lose:
        precision.fp32_allowance).  An error above that allowance but
        within SERIAL_CAP's is not a failure here but marked
        within_serial_sum in got, which takes the figures; not so where
        zone is False (a JOINT transform: each input's magnitudes kept
        within a factor of the draw's, one accumulator loses there what it
        loses on the problem's own draw, which LOOSE already allows)."""
        ok, err = self.compare(out, out_new)
        got.update({"pass": ok, "normwise_rel_err": err})
        within = loose(err, base_err)
        share = None if ok else flipped_share(self.t, out, out_new)
        if share is not None:
            got["flipped_share"] = finite(share)
            return share > MASK_FLIP_SHARE and (base_ok or not within)
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
                # gamma_k once: capped at SUM_CAP it excuses, at SERIAL_CAP
                # it leaves the decision to reorder (below).
                serial = fp32_allowance(self.t, inputs, out, along=True, cap=SERIAL_CAP)
                sums = min(serial, SUM_CAP)
                got["sequential_sum_allowance"] = finite(sums)
                ok = cond[0] <= max(10 * cond[1], INPUT_ROUNDING_FACTOR * cond[2], sums)
                got["within_fp32_rounding"] = ok
                if not ok and cond[2] > ILL_CONDITIONED:
                    got["ill_conditioned"] = ok = True
                if zone and not ok and (base_ok or not within):
                    # A sum's rounding reaches the output as a rounding of
                    # the inputs does: amplified where the problem is
                    # ill-conditioned on this draw (a ramp into a GroupNorm
                    # of 32768-element groups, mean 400 times the spread:
                    # one rounding of the inputs moved it 250 u, and honest
                    # float32 two-pass and Welford kernels read 1.6 % and
                    # 14 % off).  The zone only: reorder decides there.
                    amp = max(1.0, cond[2] / FP32_EPS)
                    serial = min(SERIAL_CAP, serial * amp)
                    got["serial_sum_allowance"] = finite(serial)
                    got["input_amplification"] = finite(amp)
                    if cond[0] <= serial:
                        # The caller decides (run: reorder); alone, no evidence.
                        got["within_serial_sum"] = ok = True
        return not ok and (base_ok or not within)

    def call_both(self, inputs, lend=False):
        """(reference output, candidate output) on inputs, or a string
        saying why this draw cannot be judged; the candidate's exception
        propagates.  lend: as candidate's."""
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
        return out, self.candidate(inputs, lend)

    def candidate(self, inputs, lend=False):
        """The candidate's output on (copies of) inputs, under no_grad as
        the harness's trials call it (a candidate whose out= call, such as
        addmm_out, autograd refuses raised on every transformed draw and
        every re-drawn parameter, and read distribution-specific and
        parameters-differ though its trials passed); its exception
        propagates.  lend: the copies are the buffers the last lent call
        shared (lent), refilled, where each input's shape, strides and
        dtype are the same: no new shared memory a draw (on a GPU each
        new tensor is opened again by the candidate process; a transform's
        calls took half the time with them on a CPU).  The candidate's
        output is always the judge's own copy (remote.take_output)."""
        c, t = self.c, self.t
        if lend:
            shared = [self.lent_copy(i, x) for i, x in enumerate(inputs)]
        else:
            shared = [c.sets.share(x.clone()) if isinstance(x, t.Tensor) else x for x in inputs]
        with t.no_grad():
            return c.call_candidate(shared, None, None)

    def passes_unlent(self, inputs, out):
        """A draw the candidate failed in the lent copies: does it pass in
        copies of its own?  Then its output followed the buffers'
        addresses, not their content (a result cached by data_ptr): the
        caller's result-cached, not a computation right only on the
        problem's own distribution."""
        try:
            again = self.candidate(inputs)
        except RemoteError as e:
            if is_oom(exc_text(e)):
                raise               # whose, the job decides
            return False
        # The scale-invariant checks alone (no float64 reference: on 1 G
        # elements it took seconds): a computation that failed there fails
        # here too.
        return (isinstance(again, self.t.Tensor) and again.shape == out.shape and
                self.compare(out, again)[0])

    def lent_copy(self, i, x):
        """Input i's shared copy for a lent call: lent[i] refilled with x,
        or a new one where lent[i] does not take it."""
        t = self.t
        if not isinstance(x, t.Tensor):
            return x
        b = self.lent.get(i)
        if (b is None or b.shape != x.shape or b.stride() != x.stride() or
                b.dtype != x.dtype or b.device != x.device):
            b = self.lent[i] = self.c.sets.share(x.clone())
        else:
            b.copy_(x)
        return b

    def reorder(self, base, described, gen):
        """The reorder check (REORDER_*) on the draw base: (its record, the
        evidence where the candidate moves, else None).  A pair kind is
        skipped where the float64 reference itself moves (it reads places
        apart: a cumsum, a matmul's rows)."""
        t = self.t
        rec = {"pairs": {}}
        shape = next((x.shape for x, d in zip(base, described) if d[0] != "fixed"), None)
        m = self.reference64()
        if shape is None or m is None:
            rec["skipped"] = ("no input of this problem is floating and free" if shape is None
                              else "no float64 copy of the reference")
            return rec, None
        for kind in ("element", "row", "sample"):
            got = rec["pairs"][kind] = {}
            pair = pairs(t, shape, kind, gen)
            if pair is None:
                got["skipped"] = "the input has no two such"
                continue
            got["count"] = int(pair[0].numel())
            a_in, b_in = exchanged(t, base, described, shape, pair, gen, kind == "sample")
            try:
                with t.no_grad():
                    ra, rb = m(*widened(t, a_in)), m(*widened(t, b_in))
                still = isinstance(ra, t.Tensor) and isinstance(rb, t.Tensor) and \
                    ra.shape == rb.shape and rel_err(rb, ra) <= REORDER_INVARIANT
            except Exception as e:      # noqa: the float64 copy's; the kind is skipped
                got["skipped"] = "the float64 reference failed: %s" % exc_text(e)[:300]
                continue
            if not still:
                got["skipped"] = "the reference reads the places apart"
                continue
            try:
                both_a, both_b = self.call_both(a_in), self.call_both(b_in)
                if isinstance(both_a, str) or isinstance(both_b, str):
                    got["skipped"] = both_a if isinstance(both_a, str) else both_b
                    continue
                again = [self.candidate(a_in), self.candidate(b_in)]
            except RemoteError as e:    # raised in its process; the judge's own propagate
                if is_oom(exc_text(e)):
                    raise               # whose, the job decides
                got["error"] = exc_text(e)[:300]
                return rec, {"pairs": kind, "error": got["error"]}
            outs = [both_a[1], both_b[1]] + again
            if any(not isinstance(o, t.Tensor) or o.shape != ra.shape for o in outs):
                got["error"] = "output shape or type differs"
                return rec, {"pairs": kind, "error": got["error"]}
            den = ra.norm().item() or 1.0

            def apart(x, y):
                return finite((x.double() - y.double()).norm().item() / den)
            got.update(moved=apart(outs[1], outs[0]),
                       own_noise=max(apart(outs[2], outs[0]), apart(outs[3], outs[1])),
                       reference_moved=apart(both_b[0], both_a[0]))
            limit = max(REORDER_TOL, REORDER_NOISE * got["own_noise"],
                        REORDER_NOISE * got["reference_moved"])
            got["limit"] = finite(limit)
            if got["moved"] > limit:
                return rec, {"pairs": kind, "moved": got["moved"], "limit": got["limit"]}
        return rec, None

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
        secs = {}               # where the run's time goes beside the transforms' own
        laps = Laps(secs)
        base = c.sets.fresh_content(seed)
        c.sync()
        laps.lap("base")
        gen = t.Generator().manual_seed(int(seed) % (2 ** 63))
        rec = {"transforms": {}, "seconds": secs}
        failing = []
        undecided = {}          # transform -> its error, within_serial_sum
        base_ok, base_err = trials_error(self.c.checks)
        if base_ok is None:
            both = self.call_both(base)
            if isinstance(both, str):
                rec["skipped"] = both
                return rec, failing
            base_ok, base_err = self.compare(*both)
            del both
        rec["base"] = {"pass": base_ok, "normwise_rel_err": base_err}
        described = [describe(t, x) for x in base]
        lends = rec["lent"] = (
            os.environ.get("HEADROOM_LEND") != "0" and
            set_bytes(t, base) <= LEND_MAX_SHARE * c.ctx.memory_total())
        laps.lap("describe")
        draws = [(name, i) for name in TRANSFORMS
                 for i in range(SPARSE_DRAWS if name in PLACED else 1)]
        slowest, prev = 0.0, None   # the budget's cost of a transform; the last's seconds
        for name, i in draws:
            if i and (any(f["transform"] == name for f in failing) or
                      "skipped" in rec["transforms"][name]):
                continue        # a further draw of places only where the last passed
            # What a transform costs here: the slowest so far, or a trial's.
            if prev is not None:
                slowest = max(slowest, sum(prev.values()))
            if not c.ctx.budget.allows("distribution:%s" % name, cost_s=slowest):
                rec["cut"] = "%s and the transforms after it: the audit's budget "\
                             "(checks.audit_cut)" % name
                break
            # Where a job's time goes (seconds: inputs, calls, judge; a
            # further draw's added to the last's).
            secs = prev = rec["transforms"][name]["seconds"] if i else {}
            got = rec["transforms"][name] = {"seconds": secs}
            if i:
                got["draws"] = i + 1
            # The last transform's tensors go before this one's come.
            inputs = out = out_new = both = None
            lap = Laps(secs, add=True).lap
            if name in JOINT:
                inputs = joint(t, name, base, described)
            else:
                inputs = [transform(t, name, x, gen, *d) for x, d in zip(base, described)]
            c.sync()
            lap("inputs")
            if inputs is None:
                got["skipped"] = "no two inputs of this problem relate so"
                continue
            if any(x is None for x in inputs):
                got["skipped"] = "no input of this problem allows it (domain kept)"
                continue
            if all(x is y for x, y in zip(inputs, base)):
                got["skipped"] = "no input of this problem is floating and free"
                continue
            try:
                both = self.call_both(inputs, lend=lends)
            except RemoteError as e:    # raised in its process; the judge's own propagate
                if is_oom(exc_text(e)):
                    raise               # whose, the job decides
                got.update({"pass": False, "error": exc_text(e)[:300]})
                failing.append({"transform": name, "error": got["error"]})
                continue
            lap("calls")
            if isinstance(both, str):
                got["skipped"] = both
                continue
            out, out_new = both
            if not isinstance(out_new, t.Tensor) or out_new.shape != out.shape:
                got.update({"pass": False, "error": "output shape or type differs"})
                failing.append({"transform": name, "error": got["error"]})
                continue
            both = None
            if self.fails(inputs, out, out_new, base_ok, base_err, got, zone=name not in JOINT):
                if lends and self.passes_unlent(inputs, out):
                    got["address_cached"] = True
                    rec.setdefault("address_cached", []).append(name)
                else:
                    failing.append({"transform": name, "normwise_rel_err": got["normwise_rel_err"],
                                    "base_normwise_rel_err": base_err})
            elif got.get("within_serial_sum"):
                undecided.setdefault(name, got["normwise_rel_err"])
            lap("judge")
        inputs = out = out_new = both = None
        self.lent.clear()
        laps.lap("transforms")
        if undecided and not failing and c.ctx.budget.allows("distribution:reorder", pairs=4):
            # Errors one float32 accumulator may make: evidence only where
            # the candidate skips elements.
            rec["undecided"] = sorted(undecided)
            rec["reorder"], moved = self.reorder(base, described, gen)
            if moved is not None:
                failing = [{"transform": name, "normwise_rel_err": err,
                            "base_normwise_rel_err": base_err, "reorder": moved}
                           for name, err in sorted(undecided.items())]
        laps.lap("reorder")
        rec["failing"] = [f["transform"] for f in failing]
        return rec, failing
