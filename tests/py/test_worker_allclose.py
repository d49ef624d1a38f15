"""The worker's allclose (replay/worker.py) answers as torch.allclose does.

It checks KernelBench's torch.allclose(ref, cand, atol=tol, rtol=tol) a
slice at a time on large tensors.  With the slice set to 7 elements, for
pairs that differ in one place (first slice, a middle one, the last,
partial slice), by a hair inside and outside the tolerance, with NaN and
inf on either side, in fp32/fp16/bf16/int64/bool, contiguous, transposed,
broadcast, of mismatched dtypes, empty and smaller than a slice, its
answer (or its exception type) must equal torch.allclose's, both argument
orders.  On $HR_TEST_DEVICE (cpu unless set).

Plain script: one line per group, exits non-zero on any difference.
"""
import os
import sys

import torch

from workerlib import DEVICE, ROOT, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
import worker  # noqa: E402

worker.ALLCLOSE_SLICE = 7
TOL = 1e-2


def answer(a, b):
    """(answer, exception type name) of f(a, b)."""
    try:
        return worker.allclose(torch, a, b, TOL), None
    except Exception as e:  # noqa: compared with torch's
        return None, type(e).__name__


def torch_answer(a, b):
    try:
        return bool(torch.allclose(a, b, atol=TOL, rtol=TOL)), None
    except Exception as e:  # noqa
        return None, type(e).__name__


def same(a, b, what):
    for x, y in ((a, b), (b, a)):
        got, want = answer(x, y), torch_answer(x, y)
        if got != want:
            check(False, "%s: allclose %s, torch.allclose %s" % (what, got, want))
    return True


def main():
    g = torch.Generator().manual_seed(7)
    base = torch.rand(30, generator=g).to(DEVICE)       # slices of 7: 5 (last has 2)
    pairs = 0
    answers = set()
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        a = base.to(dtype)
        for at in (0, 3, 7, 15, 27, 29):
            for v in (float("nan"), float("inf"), float("-inf")):
                b = a.clone()
                b[at] = v
                same(a, b, "%s, %s at %d" % (dtype, v, at))
                c = a.clone()
                c[at] = v
                same(c, b, "%s, %s at %d on both sides" % (dtype, v, at))
                pairs += 2
            for step in (0.5, 0.99, 1.01, 2.0):   # of the tolerance at that element
                b = a.float().clone()
                b[at] += step * (TOL + TOL * abs(b[at].item()))
                b = b.to(dtype)
                same(a, b, "%s, %.2f x tol at %d" % (dtype, step, at))
                answers.add(answer(a, b)[0])
                pairs += 1
    check(answers == {True, False}, "%d fp pairs as torch.allclose, both answers seen" % pairs)
    i = torch.arange(30, device=DEVICE)
    j = i.clone()
    j[29] += 1
    same(i, j, "int64, off by one in the last element")
    same(i > 3, j > 3, "bool")
    check(True, "int64 and bool pairs as torch.allclose")
    m = base.view(5, 6)
    same(m.t(), m.t().contiguous(), "transposed (not contiguous) against its copy")
    same(m, base[:6], "broadcast (6,) against (5, 6)")
    same(m, base.double().view(5, 6), "fp32 against fp64")
    same(m, base.view(6, 5), "shapes that do not broadcast")
    same(base[:0], base[:0], "empty")
    same(base[:5], base[:5] + 1, "smaller than a slice")
    check(True, "strides, broadcasting, mismatched dtypes and shapes, empty, small")
    if DEVICE != "cpu":
        same(base, base.cpu(), "devices that differ")
        check(True, "devices that differ")


if __name__ == "__main__":
    main()
