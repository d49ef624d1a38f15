import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Computes alpha * (A @ B) + C, a GEMM with a scaled accumulate epilogue.
    """

    def __init__(self, alpha: float):
        super(Model, self).__init__()
        self.alpha = alpha

    def forward(self, A: torch.Tensor, B: torch.Tensor, C: torch.Tensor) -> torch.Tensor:
        """
        Args:
            A (torch.Tensor): shape (M, K).
            B (torch.Tensor): shape (K, N).
            C (torch.Tensor): shape (M, N).

        Returns:
            torch.Tensor: shape (M, N).
        """
        return torch.matmul(A, B) * self.alpha + C


M = 512
K = 1024
N = 512
alpha = 0.25


def get_inputs():
    A = torch.rand(M, K)
    B = torch.rand(K, N)
    C = torch.rand(M, N)
    return [A, B, C]


def get_init_inputs():
    return [alpha]
