# DLRM-Bench 4.  Workload kernel class: embedding -- the weighted
# EmbeddingBag forward (each id scaled by its own weight before the sum),
# as weighted sparse features use it (TorchRec's weighted KJT; FBGEMM TBE
# with per_sample_weights).  Sizes: docs/dlrm-bench.md.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Weighted sum-pooled lookup in one embedding table: each bag becomes the
    sum of its rows, each row scaled by the weight given with its id.
    """

    def __init__(self, num_rows: int, embedding_dim: int):
        super(Model, self).__init__()
        self.table = nn.EmbeddingBag(num_rows, embedding_dim, mode="sum")

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor,
                weights: torch.Tensor) -> torch.Tensor:
        """
        Args:
            indices (torch.Tensor): int64 (nnz,), each in [0, num_rows).
            offsets (torch.Tensor): int64 (batch,), non-decreasing, from 0.
            weights (torch.Tensor): float32 (nnz,), one per id.

        Returns:
            torch.Tensor: (batch, embedding_dim).
        """
        return self.table(indices, offsets, per_sample_weights=weights)


batch_size = 16384
num_rows = 1000000
embedding_dim = 128
pooling = 20  # mean ids per bag: bag sizes uniform in 0..2*pooling


def get_inputs():
    lengths = torch.randint(0, 2 * pooling + 1, (batch_size,))
    nnz = int(lengths.sum())
    offsets = torch.cumsum(lengths, 0) - lengths
    return [torch.randint(0, num_rows, (nnz,)), offsets, torch.rand(nnz)]


def get_init_inputs():
    return [num_rows, embedding_dim]
