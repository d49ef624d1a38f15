"""The distribution checks' allowances for honest float32 kernels
(replay/hrworker/distribution.py, precision.py), on tensors built here:
a row's sum counts in the sequential-sum allowance where the output keeps
the input's shape (a LayerNorm over its last dimensions, a cumsum); a mask
that differs from the reference in a few elements near its step is not a
failure, one whose step moved is (MASK_FLIP_SHARE).  And an honest one-pass LayerNorm on the
ramp of planted problem 12's shape stays within the allowance."""
import os
import sys

import torch

from workerlib import ROOT, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker import distribution  # noqa: E402
from hrworker.precision import U32, fp32_allowance  # noqa: E402

x = torch.rand(16, 8, 32, 32)
plain = fp32_allowance(torch, [x], x)
along = fp32_allowance(torch, [x], x, along=True)
check(plain < 2 * U32 and abs(along - 8192 * U32 / (1 - 8192 * U32)) < 1e-12,
      "an output of the input's shape: gamma_1 alone (%.2g); along its rows, gamma_8192 (%.2g)"
      % (plain, along))
s = torch.rand(4, 1 << 20)
check(fp32_allowance(torch, [s], s.sum(), along=True) == fp32_allowance(torch, [s], s.sum()),
      "a scalar output: the inputs' elements over the output's already count every term")

# The ramp of problem 12's shape into a LayerNorm, one pass in float32
# (E[x^2] - E[x]^2) against the float64 reference: within the allowance.
ramp = distribution.transform(torch, "ramp", x, None, *distribution.describe(torch, x))
ln = torch.nn.LayerNorm((8, 32, 32))
with torch.no_grad():
    ref64 = ln.double()(ramp.double())
    flat = ramp.reshape(16, -1)
    mean = flat.sum(1, keepdim=True) / flat.shape[1]
    var = (flat * flat).sum(1, keepdim=True) / flat.shape[1] - mean * mean
    one = ((flat - mean) * torch.rsqrt(var.clamp_min(0) + 1e-5)).reshape(x.shape)
err = ((one.double() - ref64).norm() / ref64.norm()).item()
check(err < along, "an honest one-pass LayerNorm on the ramp: %.2g off, within gamma_8192 (%.2g)"
      % (err, along))

ref = (torch.randn(512, 1024) > 0).float()
few = ref.clone()
few.view(-1)[:40] = 1 - few.view(-1)[:40]
moved = ref.clone()
moved.view(-1)[:20000] = 1 - moved.view(-1)[:20000]
share_few = distribution.flipped_share(torch, ref, few)
share_moved = distribution.flipped_share(torch, ref, moved)
check(share_few is not None and share_few <= distribution.MASK_FLIP_SHARE
      and share_moved > distribution.MASK_FLIP_SHARE,
      "a mask: 40 of 524288 elements flipped pass (%.2g), 20000 fail (%.2g)"
      % (share_few, share_moved))
check(distribution.flipped_share(torch, torch.randn(64, 64), torch.randn(64, 64)) is None
      and distribution.flipped_share(torch, torch.tensor(0.5), torch.tensor(0.6)) is None
      and distribution.flipped_share(torch, torch.ones(8), torch.zeros(8)) is None,
      "an output of more than two values, a scalar (a loss) or a constant is not a mask")
