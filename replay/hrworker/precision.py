"""hrworker/precision.py - the precision a candidate's fp32 call computes
in: torch's TF32 and reduced-precision flags at the call against before
it, the error of its output against an fp64 reference beside the fp32
reference's own (rel_err, the project's normwise fp64 rule), and the
reduced-precision kernels and ops of the profiled pass (precision_check;
finding precision-downgrade).
Must not: judge correctness (checks.py): an error beyond WRONG is a wrong
output, not a precision finding."""
import copy
import math
import warnings

from hrworker import vocab
from hrworker.audit import finding
from hrworker.util import finite


def precision_flags(torch):
    """TF32 and reduced-precision settings as torch reads them now."""
    b = torch.backends
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for key, get in (
                ("matmul.allow_tf32", lambda: b.cuda.matmul.allow_tf32),
                ("cudnn.allow_tf32", lambda: b.cudnn.allow_tf32),
                ("float32_matmul_precision", torch.get_float32_matmul_precision),
                ("matmul.allow_fp16_reduced_precision_reduction",
                 lambda: b.cuda.matmul.allow_fp16_reduced_precision_reduction),
                ("matmul.allow_bf16_reduced_precision_reduction",
                 lambda: b.cuda.matmul.allow_bf16_reduced_precision_reduction),
                ("fp32_precision", lambda: b.fp32_precision),
                ("matmul.fp32_precision", lambda: b.cuda.matmul.fp32_precision),
                ("cudnn.conv.fp32_precision", lambda: b.cudnn.conv.fp32_precision),
                ("cudnn.rnn.fp32_precision", lambda: b.cudnn.rnn.fp32_precision)):
            try:
                v = get()
            except Exception:               # noqa: BLE001 - absent in this torch
                continue
            out[key] = v if isinstance(v, (bool, int, float, str)) else str(v)
    return out


# A flag (key, value at the call) that lowers fp32 precision; compared with
# its value before the candidate was loaded (or torch's default).
_LOWERING = {
    "matmul.allow_tf32": (True,), "cudnn.allow_tf32": (True,),
    "float32_matmul_precision": ("high", "medium"),
    "fp32_precision": ("tf32",), "matmul.fp32_precision": ("tf32",),
    "cudnn.conv.fp32_precision": ("tf32",), "cudnn.rnn.fp32_precision": ("tf32",),
}
TORCH_DEFAULTS = {"matmul.allow_tf32": False, "cudnn.allow_tf32": True,
                  "float32_matmul_precision": "highest", "matmul.fp32_precision": "none",
                  "cudnn.conv.fp32_precision": "tf32"}


# The settings a candidate's import may change that KernelBench's own
# reference then runs under (one process): how to set each, and the values
# a setting takes (a value the candidate process reports is not trusted).
def _setter(path):
    def put(torch, v):
        obj = torch.backends
        parts = path.split(".")
        for p in parts[:-1]:
            obj = getattr(obj, p)
        setattr(obj, parts[-1], v)
    return put


_PRECISIONS = ("ieee", "tf32", "none", "bf16")
SETTABLE = {
    "matmul.allow_tf32": ((True, False), _setter("cuda.matmul.allow_tf32")),
    "cudnn.allow_tf32": ((True, False), _setter("cudnn.allow_tf32")),
    "float32_matmul_precision": (("highest", "high", "medium"),
                                 lambda torch, v: torch.set_float32_matmul_precision(v)),
    "matmul.allow_fp16_reduced_precision_reduction":
        ((True, False), _setter("cuda.matmul.allow_fp16_reduced_precision_reduction")),
    "matmul.allow_bf16_reduced_precision_reduction":
        ((True, False), _setter("cuda.matmul.allow_bf16_reduced_precision_reduction")),
    "fp32_precision": (_PRECISIONS, _setter("fp32_precision")),
    "matmul.fp32_precision": (_PRECISIONS, _setter("cuda.matmul.fp32_precision")),
    "cudnn.conv.fp32_precision": (_PRECISIONS, _setter("cudnn.conv.fp32_precision")),
    "cudnn.rnn.fp32_precision": (_PRECISIONS, _setter("cudnn.rnn.fp32_precision")),
    "cudnn.benchmark": ((True, False), _setter("cudnn.benchmark")),
    "cudnn.deterministic": ((True, False), _setter("cudnn.deterministic")),
    "deterministic_algorithms": ((True, False),
                                 lambda torch, v: torch.use_deterministic_algorithms(v)),
}


def apply_settings(torch, changed):
    """Set in this process the settings changed maps to their "after"
    values (candidate.global_state's report), each only to a value it
    takes; {key: value set} and {key: why not}."""
    done, refused = {}, {}
    for key, rec in changed.items():
        v = rec.get("after") if isinstance(rec, dict) else None
        if key not in SETTABLE:
            refused[key] = "not a setting the judge sets"
            continue
        allowed, put = SETTABLE[key]
        if type(v) not in (bool, str) or v not in allowed:
            refused[key] = "value %r not one of %r" % (str(v)[:40], allowed)
            continue
        try:
            put(torch, v)
            done[key] = v
        except Exception as e:      # noqa: BLE001 - absent in this torch
            refused[key] = str(e)[:200]
    return done, refused


def flags_lowered(before, at_call):
    """The flags at_call lowers against before (None: torch's defaults)."""
    before = TORCH_DEFAULTS if before is None else before
    return {k: {"before": before.get(k), "at_call": v} for k, v in at_call.items()
            if k in _LOWERING and v in _LOWERING[k] and before.get(k) not in _LOWERING[k]}


def tensors(x):
    if isinstance(x, (list, tuple)):
        return [t for y in x for t in tensors(y)]
    return [x] if hasattr(x, "dtype") and hasattr(x, "double") else []


def rel_err(a, ref64):
    """Normwise relative error ||a - ref||2 / ||ref||2 in fp64 over every
    output tensor (0/0 = 0; x/0 = inf; other shapes or counts: inf)."""
    num = den = 0.0
    xs, rs = tensors(a), tensors(ref64)
    if len(xs) != len(rs) or any(x.shape != r.shape for x, r in zip(xs, rs)):
        return math.inf
    for x, r in zip(xs, rs):
        r = r.detach().double()
        d = x.detach().to(device=r.device, dtype=r.dtype) - r   # on the reference's device
        num += float((d * d).sum())
        den += float((r * r).sum())
    if den == 0.0:
        return 0.0 if num == 0.0 else math.inf
    return math.sqrt(num / den)


def reference_fp64(torch, model, inputs):
    """The reference's output in fp64: a copy of model and of the floating
    inputs cast to float64, under no_grad."""
    m = copy.deepcopy(model).double()
    args = [x.double() if hasattr(x, "is_floating_point") and x.is_floating_point() else x
            for x in inputs]
    with torch.no_grad():
        return m(*args)


# The rule: an fp32 candidate's error (vs fp64) beyond RATIO x the fp32
# reference's own error and beyond FLOOR.  Summation order alone moves an
# fp32 result's error by a small factor (a sequential 4096-term sum against
# torch's blocked one: about 10-40x on the same data); fp16 or bf16 anywhere
# on the data path costs at least its unit roundoff, 2^-11 (fp16) or 2^-8
# (bf16), normwise about 1e-4 and more: thousands of times the fp32
# reference's ~1e-7.  The floor, 2^-16 (128 fp32 roundoffs), keeps an exact
# reference (error 0) from making any rounding a downgrade.  Above WRONG (a
# quarter of the output's norm) the error is not rounding of any precision
# (bf16's unit roundoff is 2^-8) but a wrong output -- zeros that pass a
# vacuous check, a candidate honest only when checked -- which the check,
# the problem audit and the timing audit judge: no precision-downgrade by
# the error then (flags and reduced-precision kernels still count).
RATIO, FLOOR, WRONG = 32.0, 2.0 ** -16, 0.25

# A long reduction in fp32 is not torch's: its blocked or pairwise sum keeps
# the error near sqrt(k) roundoffs, while an honest kernel that adds in
# sequence (one float accumulator a thread, as OpenMP and CUDA kernels are
# written) may lose up to gamma_k = k u / (1 - k u) of it (Higham, recursive
# summation; u = 2^-24), k the terms it adds.  On the CPU a sequential fp32
# MSE of 2^20 terms was 2e-4 off fp64 (5,700x torch's own error) and a
# sequential mean of 2^22 terms 1.5e-3 off on a ramp: neither is lowered
# precision.  An error within fp32_allowance is such rounding: k is taken as
# the inputs' elements over the output's (the terms an output element may
# sum), the allowance capped at SUM_CAP (2^-7, twice bf16's unit roundoff),
# beyond which no rounding of fp32 nor bf16 is read.
SUM_CAP = 2.0 ** -7
U32 = 2.0 ** -24


# An output that takes two values (a mask, a comparison's result) is a
# step of its inputs: an honest kernel whose reduction rounds otherwise
# flips the elements that sit within that rounding of the step, and a
# ramp or a shift puts many there (an honest row-mean mask read 7 % off
# normwise on the ramp, 0.25 % of its elements flipped).  There a
# transform fails only where more than MASK_FLIP_SHARE of the elements
# differ: a mask from a subsample or a closed form moves the step itself.
# So does an audit call of a mask (timing.Timing.passes), and the
# precision check reads no error of a mask that flips no more than that
# (one element of 4 M flipped near the step read 6.9e-4 normwise against
# the float32 reference's 0).
MASK_FLIP_SHARE = 0.01


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


def fp32_allowance(torch, inputs, out, along=False, cap=SUM_CAP):
    """The error (normwise, against fp64) an honest fp32 kernel may make by
    adding the terms of its reductions in sequence: min(gamma_k, cap)
    with k the floating inputs' elements over the output's; along: or a
    floating input's elements past its first dimension (a row of it),
    where that is more (an output of the input's shape may still sum
    along a row: a LayerNorm's over its last dimensions, a cumsum)."""
    floats = [x for x in inputs if isinstance(x, torch.Tensor) and x.is_floating_point()]
    n_in = sum(x.numel() for x in floats)
    n_out = sum(x.numel() for x in tensors(out)) or 1
    k = max(1, n_in // n_out)
    if along:
        k = max([k] + [x.numel() // x.shape[0] for x in floats if x.dim() and x.shape[0]])
    if k * U32 >= 1:
        return cap
    return min(k * U32 / (1 - k * U32), cap)


def precision_check(torch, cand, ref32, ref64, flags_before=None, flags_at_call=None,
                    profile=None, baseline_reduced=None, inputs=()):
    """precision-downgrade evidence for one output of an fp32 problem: the
    candidate's error and the fp32 reference's, both against the fp64
    reference (rel_err), the flags at the call against before it, and the
    reduced-precision kernels and ops of the profiled pass (profile:
    profiled_pass's result) not also in baseline_reduced (the reference's
    pass's "reduced", same form).  Not applicable when the reference's
    output is not float32.  inputs: the call's, for the rounding its
    reductions may make in fp32 (fp32_allowance)."""
    refs = tensors(ref32)
    if not refs or any(r.dtype != torch.float32 for r in refs):
        return {"applicable": False, "why": "the reference's output is not float32",
                "findings": []}
    ec, er = rel_err(cand, ref64), rel_err(ref32, ref64)
    sums = fp32_allowance(torch, inputs, ref32)
    limit = max(RATIO * er, FLOOR, sums)
    res = {"applicable": True, "candidate_err": finite(ec), "reference_err": finite(er),
           "ratio": finite(ec / er) if er > 0 else None, "limit": finite(limit),
           "sequential_sum_allowance": finite(sums),
           "rule": "max(%g x reference_err, 2^-16, sequential_sum_allowance) < candidate_err "
                   "<= %g" % (RATIO, WRONG),
           "flags_at_call": flags_at_call, "findings": []}
    why = []
    # Read only where the error would count: a pass over the whole output.
    share = flipped_share(torch, ref64, cand) if ec > min(limit, WRONG) else None
    if share is not None:
        res["flipped_share"] = finite(share)
    if share is not None and share <= MASK_FLIP_SHARE:
        res["within_mask_flips"] = True     # a step's elements within rounding of it
    elif ec > WRONG:
        res["beyond_precision"] = "an error of %.3g is a wrong output, not rounding" % ec
    elif ec > limit:
        why.append("error %.3g against fp64 is %s the fp32 reference's %.3g"
                   % (ec, "%.0fx" % (ec / er) if er > 0 else "far beyond", er))
    lowered = flags_lowered(flags_before, flags_at_call or {})
    if lowered:
        res["flags_lowered"] = lowered
        why.append("flags lowered at the call: " + ", ".join(sorted(lowered)))
    if profile is not None:
        red = profile.get("reduced", {})
        base = baseline_reduced or {}
        ks = {k: v for k, v in red.get("kernels", {}).items() if k not in base.get("kernels", {})}
        ops = {k: v for k, v in red.get("ops", {}).items() if k not in base.get("ops", {})}
        res["reduced"] = {"kernels": ks, "ops": ops}
        if ks or ops:
            why.append("reduced-precision %s in the call" % " and ".join(
                w for w, x in (("kernels", ks), ("ops", ops)) if x))
    if why:
        res["findings"].append(finding(vocab.F_PRECISION_DOWNGRADE, why="; ".join(why),
                                       candidate_err=res["candidate_err"],
                                       reference_err=res["reference_err"],
                                       flags_lowered=lowered or None,
                                       reduced=res.get("reduced")))
    return res
