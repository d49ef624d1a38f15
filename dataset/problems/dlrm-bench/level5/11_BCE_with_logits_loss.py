# DLRM-Bench 11.  Workload kernel class: elementwise -- the click-through
# loss of a training step: binary cross-entropy on the logits, per sample
# (the elementwise kernel of a profile; the mean that follows is left out:
# a mean over a batch is nearly the same number for every draw, so a
# constant would pass the check -- docs/dlrm-bench.md).
import torch
import torch.nn as nn
import torch.nn.functional as F


class Model(nn.Module):
    """
    Binary cross-entropy of sigmoid(logits) against 0/1 click labels, one
    loss per sample, computed from the logits (the numerically stable
    form).
    """

    def __init__(self):
        super(Model, self).__init__()

    def forward(self, logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        """
        Args:
            logits (torch.Tensor): (batch,).
            labels (torch.Tensor): (batch,), 0.0 or 1.0.

        Returns:
            torch.Tensor: (batch,), each sample's loss.
        """
        return F.binary_cross_entropy_with_logits(logits, labels, reduction="none")


batch_size = 16384
click_rate = 0.25    # share of positive labels
logit_scale = 2.0    # logits are N(0, logit_scale^2)


def get_inputs():
    logits = torch.randn(batch_size) * logit_scale
    labels = (torch.rand(batch_size) < click_rate).float()
    return [logits, labels]


def get_init_inputs():
    return []
