import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Product reduction over the last dimension: each row holds independent
    probabilities in [0.5, 1) and the output is their joint probability.
    """

    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (rows, factors).

        Returns:
            torch.Tensor: product over self.dim; shape (rows,) for dim=1.
        """
        return torch.prod(x, dim=self.dim)


rows = 65536
factors = 58
reduce_dim = 1


def get_inputs():
    x = 0.5 + 0.5 * torch.rand(rows, factors)
    return [x]


def get_init_inputs():
    return [reduce_dim]
