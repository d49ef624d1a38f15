"""hrworker/outputs.py - what a model's output may be: one tensor, or a
tuple (or list) of tensors, as a problem that returns values and indices
does (torch.max over a dimension, topk).  The one place that says how two
outputs match in structure, how a tuple is described across the judge-
candidate channel, and how the checks of its elements add up.
Must not: decide what passes (checks.py's compare, element by element)."""

MAX_ELEMENTS = 16     # a tuple output of more tensors is not taken


def elements(torch, out):
    """The output's tensors, in order, or None when it is neither a
    tensor nor a tuple or list of (at most MAX_ELEMENTS) tensors."""
    if isinstance(out, torch.Tensor):
        return [out]
    if (isinstance(out, (tuple, list)) and 0 < len(out) <= MAX_ELEMENTS
            and all(isinstance(x, torch.Tensor) for x in out)):
        return list(out)
    return None


def is_tuple(torch, out):
    return not isinstance(out, torch.Tensor) and elements(torch, out) is not None


def shapes(torch, out):
    """[shape, ...] of the output's tensors, or None."""
    xs = elements(torch, out)
    return None if xs is None else [list(x.shape) for x in xs]


def same_structure(torch, ref, cand):
    """Both one tensor, or both tuples of as many tensors, of the same
    shapes."""
    if isinstance(ref, torch.Tensor) != isinstance(cand, torch.Tensor):
        return False
    a, b = shapes(torch, ref), shapes(torch, cand)
    return a is not None and a == b


def merge(recs):
    """One record of the element checks' records: a check passes when it
    passes on every element; counts add up; errors take the largest; the
    elements' own records under "elements"."""
    out = {"elements": recs}
    for k in ("allclose_pass", "scale_invariant_pass", "nonfinite_pass", "torch_allclose"):
        got = [r.get(k) for r in recs if k in r]
        if got:
            out[k] = int(all(bool(v) for v in got)) if k != "torch_allclose" else \
                all(bool(v) for v in got)
    for k in ("n_violations", "n_poison"):
        got = [r.get(k) for r in recs if isinstance(r.get(k), int)]
        if got:
            out[k] = sum(got)
    for k in ("max_abs_err", "max_rel_err", "normwise_rel_err", "ref_amax", "poison_fraction"):
        got = [r.get(k) for r in recs if isinstance(r.get(k), (int, float))]
        if got:
            out[k] = max(got)
    if any("vacuous" in r for r in recs):
        out["vacuous"] = int(all(bool(r.get("vacuous")) for r in recs))
    checkers = {r.get("checker") for r in recs if r.get("checker")}
    if checkers:
        out["checker"] = "+".join(sorted(checkers))
    return out
