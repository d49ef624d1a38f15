import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Sums the squares of the elements along one dimension.
    """

    def __init__(self, dim: int):
        super(Model, self).__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (rows, cols).

        Returns:
            torch.Tensor: sum of x*x over self.dim; shape (rows,) for dim=1.
        """
        return torch.sum(x * x, dim=self.dim)


rows = 4096
cols = 1024
reduce_dim = 1


def get_inputs():
    x = torch.rand(rows, cols)
    return [x]


def get_init_inputs():
    return [reduce_dim]
