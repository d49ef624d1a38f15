"""hrworker/redraw.py - is the candidate right only at its parameters'
initial values?  A LayerNorm's weight starts at one and its bias at zero,
so a kernel that declares them and never reads them passes every trial.
After the job's timing, in a job whose trials passed (both modes: the
audit's own calls), each reference parameter that starts as one constant
(ones, zeros, a fill value) and that the candidate holds as the same
parameter (Redraw.pairs: the same name, shape and initial value, or a
shape and value unique on both sides, or a group of one shape and value
of the same count on both sides, all its members given the same values)
gets new values, the same in both models; then reference and candidate
are compared once on a fresh draw of the problem's inputs, as the distribution checks
compare (hrworker/distribution.py: the scale-invariant checks, the
error of the problem's own draws, float32's own rounding).  Wrong there:
parameters-differ, with the re-drawn names and the error.

Parameters drawn at random (a Linear's or a convolution's weight) keep
their values: a kernel cannot be right only at a random draw it never
saw, and one that prepares its own copy of such a weight once (a
transposed or packed layout, in __init__) is honest and must stay clean;
a copy prepared from a constant parameter is not told apart from a
kernel that ignores it (docs/verification.md says so).
Must not: run before timing (the models keep the new values), or fail a
job: a parameter the candidate's process will not take is recorded and
skipped."""
from hrworker.distribution import Distribution, trials_error
from hrworker.channel import RemoteError
from hrworker.util import exc_text, is_oom

SPREAD = 0.5        # c -> c * U(1 - SPREAD, 1 + SPREAD); 0 -> U(-SPREAD, SPREAD)
MAX_NAMES = 16      # names kept in the evidence


def constant(torch, p):
    """The one value a floating parameter holds everywhere, or None."""
    if not isinstance(p, torch.Tensor) or not p.is_floating_point() or p.numel() == 0:
        return None
    flat = p.detach().reshape(-1)
    first = flat[0]
    if not bool((flat == first).all()):
        return None
    v = float(first.item())
    return v if v == v and abs(v) != float("inf") else None


def redrawn(torch, p, value, gen):
    """New values for a parameter that holds value everywhere: around it,
    its sign kept (a scale stays a scale), or around zero for zero."""
    u = torch.rand(p.shape, generator=gen, dtype=torch.float64) * 2.0 - 1.0
    if value == 0.0:
        new = u * SPREAD
    else:
        new = value * (1.0 + SPREAD * u)
    return new.to(device=p.device, dtype=p.dtype)


def spec_entries(spec):
    """(name, shape, constant) of each well-formed entry of a candidate
    model's parameter list as its process sent it (candidate.
    parameter_spec: data, checked here once for Job.parameters and
    Redraw.pairs); constant None where it holds no one value."""
    out = []
    for item in spec if isinstance(spec, list) else ():
        if not (isinstance(item, list) and len(item) >= 3 and isinstance(item[0], str)
                and isinstance(item[1], list)):
            continue
        v = item[3] if len(item) >= 4 else None
        v = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None
        out.append((item[0], tuple(int(n) for n in item[1] if type(n) is int), v))
    return out


class Redraw:
    """The re-draw of one job: run(spec, seed) after its timing."""

    def __init__(self, checks, proc):
        self.c = checks             # checks.Checks: its ref, candidate, sets, verify
        self.proc = proc            # remote.CandidateProcess
        self.t = checks.torch
        self.params = dict(checks.ref.named_parameters())   # the reference's, by name

    def pairs(self, spec):
        """(reference name, candidate name, its value) of each constant
        parameter of the reference and the candidate's parameter that is
        the same one:
        of the same name, shape and initial value; else, among those left,
        the only one of the candidate's with its shape and value where the
        reference has only one too (a module renamed); else, where both
        sides have the same number of a shape and value (a renamed
        BatchNorm's and LayerNorm's weights, say), each with one of the
        other's: draw gives every member of such a group the same new
        values, so which pairs with which does not matter (a kernel that
        reads none of them fails; one that reads them all is compared as
        the reference computes).  Groups of unequal counts are left.
        Returns (reference name, candidate name, value, the group's key or
        None)."""
        ref = {}
        for name, p in self.params.items():
            v = constant(self.t, p)
            if v is not None:
                ref[name] = (tuple(p.shape), v)
        cand = {n: (shape, v) for n, shape, v in spec_entries(spec) if v is not None}
        out = [(n, n) for n, key in ref.items() if cand.get(n) == key]
        taken = {n for n, _ in out}
        left_ref = {n: k for n, k in ref.items() if n not in taken}
        left_cand = {n: k for n, k in cand.items() if n not in taken}
        grouped = []
        for key in dict.fromkeys(left_ref.values()):
            theirs = [n for n, k in left_ref.items() if k == key]
            mine = [m for m, k in left_cand.items() if k == key]
            if len(theirs) == len(mine):
                grouped += [(r, m, key if len(theirs) > 1 else None)
                            for r, m in zip(theirs, mine)]
        return [(r, m, ref[r][1], None) for r, m in out] + \
            [(r, m, ref[r][1], g) for r, m, g in grouped]

    def draw(self, pairs, seed):
        """(reference name, candidate name, new values) of each pair
        (reference name, candidate name, the value it holds, its group):
        one draw a pair, or a group's."""
        t = self.t
        gen = t.Generator().manual_seed(int(seed) % (2 ** 63))
        drawn = {}          # a pair's own draw, or its group's
        for r, _, v, g in pairs:
            key = (None, r) if g is None else g
            if key not in drawn:
                drawn[key] = redrawn(t, self.params[r], v, gen)
        return [(r, n, drawn[(None, r) if g is None else g]) for r, n, _, g in pairs]

    def run(self, spec, seed, draw_seed):
        """checks.parameters_redrawn: what was re-drawn and the comparison;
        the finding's evidence, or None (spec: the candidate model's
        parameters, candidate.parameter_spec; seed: the harness's set the
        models are called on; draw_seed: the new values', the job's secret's
        (JobContext.audit_seed), so that no candidate knows them before)."""
        t, c = self.t, self.c
        rec = {"seed": seed, "draw_seed": draw_seed}
        drawn = self.draw(self.pairs(spec), draw_seed)
        rec["redrawn"] = [r for r, _, _ in drawn][:MAX_NAMES]
        rec["count"] = len(drawn)
        if not drawn:
            rec["skipped"] = ("no constant parameter of the reference that the candidate holds "
                              "by the same name, shape and value, or by a shape and value "
                              "unique on both sides")
            return rec, None
        dist = Distribution(c)
        base_ok, base_err = trials_error(c.checks)
        try:
            rep = self.proc.set_parameters([n for _, n, _ in drawn],
                                           [c.sets.share(v.clone()) for _, _, v in drawn])
        except Exception as e:      # noqa: its process would not take them
            rec["skipped"] = "the candidate's process did not take the values: %s" % (
                exc_text(e)[:300],)
            return rec, None
        if rep.get("set") != len(drawn):
            rec["skipped"] = "the candidate's process took %r of %d values" % (
                rep.get("set"), len(drawn))
            return rec, None
        with t.no_grad():
            for ref_name, _, v in drawn:
                self.params[ref_name].copy_(v)
        c.sync()
        inputs = c.fresh_inputs(seed)
        try:
            both = dist.call_both(inputs)
        except RemoteError as e:    # raised in its process; the judge's own propagate
            if is_oom(exc_text(e)):
                raise                   # whose, the job decides
            rec.update({"pass": False, "error": exc_text(e)[:300]})
            return rec, {"seed": seed, "redrawn": rec["redrawn"], "error": rec["error"]}
        if isinstance(both, str):
            rec["skipped"] = both
            return rec, None
        out, out_new = both
        if not isinstance(out_new, t.Tensor) or out_new.shape != out.shape:
            rec.update({"pass": False, "error": "output shape or type differs"})
            return rec, {"seed": seed, "redrawn": rec["redrawn"], "error": rec["error"]}
        rec["base_normwise_rel_err"] = base_err
        if not dist.fails(inputs, out, out_new, base_ok, base_err, rec):
            return rec, None
        return rec, {"seed": seed, "redrawn": rec["redrawn"],
                     "normwise_rel_err": rec["normwise_rel_err"], "base_normwise_rel_err": base_err,
                     "how": "right at the parameters' initial values, wrong at others"}
