# DLRM-Bench 12.  Workload kernel classes: gemm and elementwise -- the DCN-v2
# cross network that replaces the dot interaction in DLRMv2 (MLPerf):
# low-rank cross layers x_{l+1} = x0 * (U (V x_l) + b) + x_l (two cuBLAS
# GEMMs and elementwise kernels per layer).  Sizes: docs/dlrm-bench.md.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    num_layers low-rank cross layers over x0 (batch, in_features): layer l
    computes x0 * U_l(V_l(x_l)) + x_l, V_l without bias (in -> rank), U_l
    with bias (rank -> in).
    """

    def __init__(self, in_features: int, rank: int, num_layers: int):
        super(Model, self).__init__()
        self.down = nn.ModuleList(nn.Linear(in_features, rank, bias=False)
                                  for _ in range(num_layers))
        self.up = nn.ModuleList(nn.Linear(rank, in_features)
                                for _ in range(num_layers))

    def forward(self, x0: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x0 (torch.Tensor): (batch, in_features), the dense vector and the
                pooled embeddings side by side.

        Returns:
            torch.Tensor: (batch, in_features).
        """
        x = x0
        for down, up in zip(self.down, self.up):
            x = x0 * up(down(x)) + x
        return x


batch_size = 16384
in_features = 3456   # 27 features x 128
rank = 512
num_layers = 3


def get_inputs():
    return [torch.randn(batch_size, in_features)]


def get_init_inputs():
    return [in_features, rank, num_layers]
