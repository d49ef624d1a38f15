import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Standard 2D convolution (square input, square kernel, 'same' padding)
    followed by ReLU.
    """

    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, padding: int):
        super(Model, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding, bias=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch, in_channels, H, W).

        Returns:
            torch.Tensor: shape (batch, out_channels, H, W).
        """
        return torch.relu(self.conv(x))


batch_size = 8
in_channels = 8
out_channels = 16
kernel_size = 3
padding = 1
height = 32
width = 32


def get_inputs():
    x = torch.randn(batch_size, in_channels, height, width)
    return [x]


def get_init_inputs():
    return [in_channels, out_channels, kernel_size, padding]
