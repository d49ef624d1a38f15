"""hrworker/vacuity.py - is a problem's check vacuous on the reference
outputs a job computes anyway?  The one implementation of the degeneracy
gates, for every replay job (checks.py: each trial's reference output,
whatever reference the record carries) and for `headroom audit problems`
(checks.audit_problem: the same gates on its draws), so that the two
cannot disagree.

A gate passes when an output that needs no computation passes the
evaluation's original check (torch.allclose(ref, cand, atol=tol,
rtol=tol), reference first) on every draw observed: all zeros, the
reference's own mean everywhere (a constant), or one of the inputs of the
output's shape.  The reference is degenerate when its output is the same
on draws whose inputs differ: no check can tell a kernel from a cached
answer there.  The same: one output (a scalar) bit for bit; a tensor of
more elements within the check itself -- the first draw's output passes
the original check against every later draw's reference output (a
softmax summed over its own dimension plus a bias is 1 + bias on every
draw, up to rounding: a kernel that writes that constant read 53x
verified-faster while the bits differed).  A scalar's own check would
call a loss over many elements degenerate under a loose tolerance
(v0.1's 1e-2), where the distribution checks, not the gate, tell a
constant from a loss.
Must not: call the candidate, or decide a verdict (replay/verdict.c
does, from the summary)."""
from hrworker.audit import fingerprint
from hrworker.util import finite


def output_gates(torch, verify, out, inputs, harness, tol):
    """The gates of one reference output under one check: {"zeros",
    "constant", "constant_value", "input" (the indices of the inputs of
    out's shape that pass), "margin" (amax / atol, when the verify library
    gives it)}.  Through the verify library when there is one (the same
    rounding as the check itself), else torch.allclose."""
    same = [i for i, x in enumerate(inputs) if isinstance(x, torch.Tensor)
            and x.shape == out.shape]
    if verify is not None:
        r = verify.raw(out, out, harness, tol)
        passing = [i for i in same if verify.raw(out, inputs[i].to(out.dtype), harness,
                                                 tol).allclose_pass]
        return {"zeros": bool(r.gate_zero_pass), "constant": bool(r.gate_const_pass),
                "constant_value": finite(r.const_value), "input": passing,
                "margin": finite(r.margin),
                # The output's summary from the same pass: two outputs of
                # one shape that agree on all six are one output (barring
                # an adversary, who does not write the reference).
                "summary": (r.ref_min, r.ref_max, r.ref_mean, r.ref_rms, r.n_nan_ref,
                            r.n_inf_ref)}
    ref = out.detach()
    if ref.numel() == 0:
        return {"zeros": True, "constant": True, "constant_value": 0.0, "input": [],
                "margin": None}
    wide = ref.double()
    if not bool(torch.isfinite(wide).all()):
        zeros = const = False
        mean = float("nan")
    else:
        mean = wide.mean().item()
        zeros = bool(torch.allclose(ref, torch.zeros_like(ref), atol=tol, rtol=tol))
        const = ref.numel() > 1 and bool(torch.allclose(
            ref, torch.full_like(ref, mean), atol=tol, rtol=tol))
    passing = [i for i in same if bool(torch.allclose(ref, inputs[i].to(ref.dtype),
                                                      atol=tol, rtol=tol))]
    return {"zeros": zeros, "constant": const, "constant_value": finite(mean),
            "input": passing, "margin": None}


# The first output kept for the degenerate gate: whole up to this many
# elements, else this many at even strides (later outputs compared at the
# same places).
KEEP_ELEMENTS = 1 << 24


def kept(x, step=None):
    """(the part of x the degenerate gate keeps, contiguous, and its
    stride: the first output's, or step as it took for that one)."""
    flat = x.detach().reshape(-1)
    if step is None:
        step = max(1, -(-flat.numel() // KEEP_ELEMENTS))
    return flat[::step].contiguous(), step


def sample_print(torch, x, n=4096):
    """A tensor's shape and a sum over at most n of its raw words at even
    strides: enough to tell two draws of a problem's inputs apart, in
    a pass over n words, not the tensor.  The words are summed on the
    host (a copy of 2n elements at most): on a GPU the integer sums'
    kernels would be a first use in the job's process, a module load of
    milliseconds."""
    if x.numel() == 0:
        return (tuple(x.shape), 0)
    flat = x.detach().reshape(-1)
    step = max(1, flat.numel() // n)
    s = flat[::step].cpu().contiguous().view(torch.uint8)
    pad = (-s.numel()) % 8
    if pad:
        s = torch.cat([s, s.new_zeros(pad)])
    w = s.view(torch.int64)
    return (tuple(x.shape), int(w.sum().item()), int((w * w).sum().item()))


class Vacuity:
    """The gates of one check over the draws a job observes (observe once
    per draw, summary at the end)."""

    def __init__(self, torch, verify, harness, tol):
        self.torch, self.verify, self.harness, self.tol = torch, verify, harness, tol
        self.draws = 0
        self.zeros = self.constant = True
        self.inputs = None          # indices passing on every draw so far
        self.constants = []
        self.outs, self.ins = set(), set()
        self.skipped = None
        self.first = None           # the first draw's gates (output_gates)
        self.kept = None            # the first output (kept), its stride, its shape
        self.same = True            # every later output within the check of the first

    def observe(self, out, inputs):
        """One draw: its inputs and the reference's output on them."""
        t = self.torch
        if not isinstance(out, t.Tensor):
            self.skipped = "the reference returned %s, not a tensor" % type(out).__name__
            return
        g = output_gates(t, self.verify, out, inputs, self.harness, self.tol)
        self.draws += 1
        if self.first is None:
            self.first = g
        self.zeros &= g["zeros"]
        self.constant &= g["constant"]
        self.constants.append(g["constant_value"])
        self.inputs = set(g["input"]) if self.inputs is None else self.inputs & set(g["input"])
        self.outs.add((tuple(out.shape), g.get("summary") or fingerprint(t, out)))
        if out.numel() > 1:
            self.same &= self.within_check(out)
        self.ins.add(tuple(sample_print(t, x) if isinstance(x, t.Tensor) else repr(x)[:64]
                           for x in inputs))

    def within_check(self, out):
        """Does the first draw's output pass the original check against
        this draw's reference output (at the kept places)?  The first
        draw's is kept and passes."""
        t = self.torch
        if self.kept is None:
            part, step = kept(out)
            self.kept = (part.clone(), step, tuple(out.shape))
            return True
        first, step, shape = self.kept
        if tuple(out.shape) != shape or not bool(t.isfinite(first).all()):
            return False
        part, _ = kept(out, step)
        if self.verify is not None:
            return bool(self.verify.raw(part, first.to(part.dtype), self.harness,
                                        self.tol).allclose_pass)
        return bool(t.allclose(part, first.to(part.dtype), atol=self.tol, rtol=self.tol))

    def summary(self):
        """checks.vacuity: what replay/verdict.c reads.  degenerate needs
        two draws whose inputs differ."""
        if self.draws == 0:
            return {"observed": 0, "skipped": self.skipped or "no reference output"}
        degenerate = len(self.ins) > 1 and (
            len(self.outs) == 1 or (self.kept is not None and self.same))
        passes = sorted(self.inputs or ())
        gates = [n for n, on in (("zeros", self.zeros), ("constant", self.constant),
                                 ("input", bool(passes)), ("degenerate", degenerate)) if on]
        rec = {"observed": self.draws, "harness": self.harness, "atol": self.tol,
               "rtol": self.tol, "zeros": self.zeros, "constant": self.constant,
               "constant_values": self.constants[:8], "input": bool(passes),
               "inputs_passing": passes, "degenerate": degenerate,
               "distinct_inputs": len(self.ins), "distinct_outputs": len(self.outs),
               "outputs_within_check": bool(self.kept is not None and self.same),
               "vacuous": bool(gates), "gates": gates}
        if self.skipped:
            rec["skipped"] = self.skipped
        return rec
