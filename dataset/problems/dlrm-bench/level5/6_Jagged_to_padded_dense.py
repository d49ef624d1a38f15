# DLRM-Bench 6.  Workload kernel class: elementwise -- jagged to padded
# dense conversion of a sequence feature (a user's history of item
# embeddings), FBGEMM's jagged_to_padded_dense or the index/copy kernels
# eager PyTorch runs for it.  Sizes: docs/dlrm-bench.md.
import torch
import torch.nn as nn


class Model(nn.Module):
    """
    Turns a jagged batch (the rows of every sample one after the other,
    with batch + 1 offsets) into a dense (batch, max_length, dim) tensor:
    each sample's first max_length rows, the rest padded with
    padding_value; longer samples are truncated.
    """

    def __init__(self, max_length: int, padding_value: float):
        super(Model, self).__init__()
        self.max_length = max_length
        self.padding_value = padding_value

    def forward(self, values: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        """
        Args:
            values (torch.Tensor): float32 (nnz, dim).
            offsets (torch.Tensor): int64 (batch + 1,), non-decreasing, from
                0 to nnz.

        Returns:
            torch.Tensor: (batch, max_length, dim).
        """
        lengths = offsets[1:] - offsets[:-1]
        batch = lengths.numel()
        sample = torch.repeat_interleave(
            torch.arange(batch, device=values.device), lengths)
        pos = torch.arange(values.shape[0], device=values.device) - offsets[sample]
        keep = pos < self.max_length
        out = values.new_full((batch, self.max_length, values.shape[1]),
                              self.padding_value)
        out[sample[keep], pos[keep]] = values[keep]
        return out


batch_size = 16384
dim = 128
mean_length = 32   # sample lengths uniform in 0..2*mean_length
max_length = 48    # so about a quarter of the samples are truncated
padding_value = 0.0


def get_inputs():
    lengths = torch.randint(0, 2 * mean_length + 1, (batch_size,))
    offsets = torch.cat([torch.zeros(1, dtype=torch.int64), torch.cumsum(lengths, 0)])
    return [torch.randn(int(offsets[-1]), dim), offsets]


def get_init_inputs():
    return [max_length, padding_value]
