# DLRM-Bench 3.  Workload kernel class: embedding -- the lookup of all 26
# sparse features at once (TorchRec's EmbeddingBagCollection; in a profile
# the one batched FBGEMM TBE forward kernel, or one embedding_bag kernel per
# table in eager PyTorch).  Sizes: docs/dlrm-bench.md.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Sum-pooled lookups in several tables, one bag per (table, sample), laid
    out table-major as TorchRec's KeyedJaggedTensor: the ids of table 0's
    bags for every sample, then table 1's, ...; offsets has one entry per
    bag plus a closing one.  The pooled rows are concatenated per sample,
    table after table.
    """

    def __init__(self, table_rows: list, embedding_dim: int):
        super(Model, self).__init__()
        self.tables = nn.ModuleList(
            nn.EmbeddingBag(n, embedding_dim, mode="sum") for n in table_rows)

    def forward(self, indices: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            indices (torch.Tensor): int64 (nnz,); table t's ids in
                [0, table_rows[t]).
            offsets (torch.Tensor): int64 (tables * batch + 1,),
                non-decreasing, from 0 to nnz.

        Returns:
            torch.Tensor: (batch, tables * embedding_dim).
        """
        batch = (offsets.numel() - 1) // len(self.tables)
        pooled = []
        for t, table in enumerate(self.tables):
            bags = offsets[t * batch:(t + 1) * batch + 1]
            lo, hi = int(bags[0]), int(bags[-1])
            pooled.append(table(indices[lo:hi], bags[:-1] - lo))
        return torch.cat(pooled, dim=1)


batch_size = 16384
# Criteo Terabyte's 26 features, rows capped at 1,000,000 (DLRM's
# --max-ind-range): see docs/dlrm-bench.md.
table_rows = [1000000, 36084, 17217, 7378, 20134, 3, 7112, 1442, 61,
              1000000, 1000000, 313829, 10, 2208, 11156, 122, 4, 970, 14,
              1000000, 1000000, 1000000, 415421, 12420, 101, 36]
embedding_dim = 128
pooling = 20  # mean ids per bag: bag sizes uniform in 0..2*pooling


def get_inputs():
    ids = []
    lengths = torch.randint(0, 2 * pooling + 1, (len(table_rows), batch_size))
    for rows, n in zip(table_rows, lengths.sum(1).tolist()):
        ids.append(torch.randint(0, rows, (n,)))
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lengths.flatten(), 0)])
    return [torch.cat(ids), offsets]


def get_init_inputs():
    return [table_rows, embedding_dim]
