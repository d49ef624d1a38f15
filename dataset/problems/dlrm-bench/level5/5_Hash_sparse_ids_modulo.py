# DLRM-Bench 5.  Workload kernel class: elementwise -- the id transform in
# front of every lookup: raw categorical values hashed and folded into each
# table's row range (DLRM's --max-ind-range modulo, feature hashing).
# Sizes: docs/dlrm-bench.md.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Hashes raw 32-bit categorical values (one per sample and sparse
    feature) to row ids: h = v * multiplier, h ^= h >> 31, row = h mod the
    feature's table rows.  Every intermediate fits int64 (v < 2^32,
    multiplier < 2^31), so no step overflows.
    """

    def __init__(self, table_rows: list, multiplier: int):
        super(Model, self).__init__()
        self.register_buffer("rows", torch.tensor(table_rows, dtype=torch.int64))
        self.multiplier = multiplier

    def forward(self, raw: torch.Tensor) -> torch.Tensor:
        """
        Args:
            raw (torch.Tensor): int64 (batch, features), each in [0, 2^32).

        Returns:
            torch.Tensor: int64 (batch, features); column f in
                [0, table_rows[f]).
        """
        h = raw * self.multiplier
        h = h ^ (h >> 31)
        return torch.remainder(h, self.rows)


batch_size = 16384
# Criteo Terabyte's 26 features, rows capped at 1,000,000 (as problem 3).
table_rows = [1000000, 36084, 17217, 7378, 20134, 3, 7112, 1442, 61,
              1000000, 1000000, 313829, 10, 2208, 11156, 122, 4, 970, 14,
              1000000, 1000000, 1000000, 415421, 12420, 101, 36]
multiplier = 0x5BD1E995  # odd, below 2^31


def get_inputs():
    return [torch.randint(0, 2 ** 32, (batch_size, len(table_rows)))]


def get_init_inputs():
    return [table_rows, multiplier]
