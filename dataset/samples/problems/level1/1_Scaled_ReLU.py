import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Applies ReLU and multiplies the result by a constant scale factor.
    """

    def __init__(self, scale: float):
        super(Model, self).__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): input of any shape.

        Returns:
            torch.Tensor: relu(x) * scale, same shape as x.
        """
        return torch.relu(x) * self.scale


batch_size = 1024
dim = 4096
scale = 0.5


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return [scale]
