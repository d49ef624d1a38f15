import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Softmax over the last dimension of logits divided by a temperature.
    """

    def __init__(self, temperature: float):
        super(Model, self).__init__()
        self.temperature = temperature

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """
        Args:
            x (torch.Tensor): shape (batch, features).

        Returns:
            torch.Tensor: softmax(x / temperature, dim=-1), same shape as x.
        """
        return torch.softmax(x / self.temperature, dim=-1)


batch_size = 1024
features = 512
temperature = 0.5


def get_inputs():
    x = torch.randn(batch_size, features)
    return [x]


def get_init_inputs():
    return [temperature]
