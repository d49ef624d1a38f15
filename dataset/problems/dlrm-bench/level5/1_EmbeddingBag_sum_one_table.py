# DLRM-Bench 1.  Workload kernel class: embedding -- the EmbeddingBag
# forward (sum pooling) of one table, as ATen's embedding_bag kernel or
# FBGEMM's TBE forward appears in a profile.  Sizes: docs/dlrm-bench.md.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Sum-pooled lookup in one embedding table.  The bags of ids are given
    PyTorch-style: a flat id list and the start offset of each bag (the
    first is 0); an empty bag pools to zeros.
    """

    def __init__(self, num_rows: int, embedding_dim: int):
        super(Model, self).__init__()
        self.table = nn.EmbeddingBag(num_rows, embedding_dim, mode="sum")

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            indices (torch.Tensor): int64 (nnz,), each in [0, num_rows).
            offsets (torch.Tensor): int64 (batch,), non-decreasing, from 0.

        Returns:
            torch.Tensor: (batch, embedding_dim), the sum of each bag's rows.
        """
        return self.table(indices, offsets)


batch_size = 16384
num_rows = 1000000
embedding_dim = 128
pooling = 20  # mean ids per bag: bag sizes uniform in 0..2*pooling


def get_inputs():
    lengths = torch.randint(0, 2 * pooling + 1, (batch_size,))
    offsets = torch.cumsum(lengths, 0) - lengths
    indices = torch.randint(0, num_rows, (int(lengths.sum()),))
    return [indices, offsets]


def get_init_inputs():
    return [num_rows, embedding_dim]
