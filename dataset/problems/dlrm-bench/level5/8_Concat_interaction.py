# DLRM-Bench 8.  Workload kernel class: elementwise -- DLRM's "cat"
# feature interaction: the dense vector and every pooled embedding side by
# side (ATen's CatArrayBatchedCopy kernel in a profile).
# Sizes: docs/dlrm-bench.md.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Concatenates the dense vector and the pooled embeddings of each sample
    into one row: [dense, sparse[0], ..., sparse[num_sparse - 1]].
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, dense: torch.Tensor, sparse: torch.Tensor) -> torch.Tensor:
        """
        Args:
            dense (torch.Tensor): (batch, dim).
            sparse (torch.Tensor): (batch, num_sparse, dim).

        Returns:
            torch.Tensor: (batch, (num_sparse + 1) * dim).
        """
        return torch.cat([dense, sparse.flatten(1)], dim=1)


batch_size = 16384
num_sparse = 26
dim = 128


def get_inputs():
    return [torch.rand(batch_size, dim), torch.randn(batch_size, num_sparse, dim)]


def get_init_inputs():
    return []
