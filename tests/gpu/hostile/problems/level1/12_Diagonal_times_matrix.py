# headroom's own KernelBench-format problem for the GPU tests (written by the
# headroom project): C = diag(a) @ B as a row scaling.  Small enough that a
# correct candidate finishes in well under a second.
import torch
import torch.nn as nn


class Model(nn.Module):
    """Scale row i of B by a[i]."""

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, a, B):
        return a[:, None] * B


ROWS = 2048
COLS = 2048


def get_inputs():
    return [torch.rand(ROWS), torch.rand(ROWS, COLS)]


def get_init_inputs():
    return []
