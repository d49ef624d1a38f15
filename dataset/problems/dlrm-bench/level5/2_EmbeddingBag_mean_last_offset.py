# DLRM-Bench 2.  Workload kernel class: embedding -- the EmbeddingBag
# forward with mean pooling, bags given TorchRec/FBGEMM-style (batch + 1
# offsets, the last one closing the id list).  Sizes: docs/dlrm-bench.md.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Mean-pooled lookup in one embedding table, offsets with a closing
    entry (include_last_offset); an empty bag pools to zeros.
    """

    def __init__(self, num_rows: int, embedding_dim: int):
        super(Model, self).__init__()
        self.table = nn.EmbeddingBag(num_rows, embedding_dim, mode="mean",
                                     include_last_offset=True)

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            indices (torch.Tensor): int64 (nnz,), each in [0, num_rows).
            offsets (torch.Tensor): int64 (batch + 1,), non-decreasing, from
                0 to nnz.

        Returns:
            torch.Tensor: (batch, embedding_dim), the mean of each bag's rows.
        """
        return self.table(indices, offsets)


batch_size = 16384
num_rows = 1000000
embedding_dim = 128
pooling = 20  # mean ids per bag: bag sizes uniform in 0..2*pooling


def get_inputs():
    lengths = torch.randint(0, 2 * pooling + 1, (batch_size,))
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lengths, 0)])
    indices = torch.randint(0, num_rows, (int(offsets[-1]),))
    return [indices, offsets]


def get_init_inputs():
    return [num_rows, embedding_dim]
