# DLRM-Bench 10.  Workload kernel classes: gemm and elementwise -- DLRM's
# top MLP over the interaction output: Linear + ReLU layers, a last Linear
# to one logit and the sigmoid of the click probability (cuBLAS GEMMs,
# ReLU and sigmoid kernels in an eager profile).
# Sizes: docs/dlrm-bench.md.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Linear layers of widths [in, hidden..., 1], ReLU after each but the
    last, then sigmoid.  Weights are drawn as the DLRM reference draws
    them: normal with std sqrt(2 / (fan_in + fan_out)), biases normal with
    std sqrt(1 / fan_out).
    """

    def __init__(self, widths: list):
        super(Model, self).__init__()
        layers = []
        for n_in, n_out in zip(widths[:-1], widths[1:]):
            linear = nn.Linear(n_in, n_out)
            nn.init.normal_(linear.weight, 0.0, (2.0 / (n_in + n_out)) ** 0.5)
            nn.init.normal_(linear.bias, 0.0, (1.0 / n_out) ** 0.5)
            layers += [linear, nn.ReLU()]
        layers[-1] = nn.Sigmoid()
        self.mlp = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): (batch, widths[0]), the interaction output.

        Returns:
            torch.Tensor: (batch, 1), in (0, 1).
        """
        return self.mlp(x)


batch_size = 16384
# input: 128 dense + 351 pairwise dot products of 27 features
widths = [479, 1024, 1024, 512, 256, 1]


def get_inputs():
    return [torch.randn(batch_size, widths[0])]


def get_init_inputs():
    return [widths]
