# DLRM-Bench 9.  Workload kernel classes: gemm and elementwise -- DLRM's
# bottom MLP over the dense features: Linear + ReLU layers (cuBLAS GEMMs
# with bias, and ReLU kernels, in an eager profile).
# Sizes: docs/dlrm-bench.md.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    A stack of Linear layers, each followed by ReLU, widths given as
    [in, hidden..., out].  Weights are drawn as the DLRM reference draws
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
        self.mlp = nn.Sequential(*layers)

    def forward(self, dense: torch.Tensor) -> torch.Tensor:
        """
        Args:
            dense (torch.Tensor): (batch, widths[0]), log-scaled counts.

        Returns:
            torch.Tensor: (batch, widths[-1]), non-negative.
        """
        return self.mlp(dense)


batch_size = 16384
widths = [13, 512, 256, 128]
max_count = 1000.0  # dense features are log(1 + count), count < max_count


def get_inputs():
    return [torch.log1p(torch.rand(batch_size, widths[0]) * max_count)]


def get_init_inputs():
    return [widths]
