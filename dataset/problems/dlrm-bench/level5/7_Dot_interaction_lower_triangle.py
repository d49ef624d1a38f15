# DLRM-Bench 7.  Workload kernel classes: gemm and elementwise -- DLRM's
# dot feature interaction: a batched matmul of the features with
# themselves (cuBLAS bmm in a profile), the gather of its strictly lower
# triangle and the concatenation with the dense vector (index and
# CatArrayBatchedCopy kernels).  Sizes: docs/dlrm-bench.md.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Pairwise dot products of the dense vector and the pooled embeddings of
    one sample: T = [dense; sparse] (features x dim), Z = T T^T, and the
    output is dense followed by Z's strictly lower triangle, row by row.
    """

    def __init__(self, num_sparse: int):
        super(Model, self).__init__()
        rows, cols = torch.tril_indices(num_sparse + 1, num_sparse + 1, offset=-1)
        self.register_buffer("rows", rows)
        self.register_buffer("cols", cols)

    def forward(self, dense: torch.Tensor, sparse: torch.Tensor) -> torch.Tensor:
        """
        Args:
            dense (torch.Tensor): (batch, dim), the bottom MLP's output.
            sparse (torch.Tensor): (batch, num_sparse, dim), pooled embeddings.

        Returns:
            torch.Tensor: (batch, dim + (num_sparse + 1) * num_sparse / 2).
        """
        t = torch.cat([dense.unsqueeze(1), sparse], dim=1)
        z = torch.bmm(t, t.transpose(1, 2))
        return torch.cat([dense, z[:, self.rows, self.cols]], dim=1)


batch_size = 16384
num_sparse = 26
dim = 128


def get_inputs():
    # dense follows a ReLU (non-negative); pooled sums of N(0, 1) rows
    return [torch.rand(batch_size, dim), torch.randn(batch_size, num_sparse, dim)]


def get_init_inputs():
    return [num_sparse]
