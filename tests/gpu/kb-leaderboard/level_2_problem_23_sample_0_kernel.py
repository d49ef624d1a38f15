# headroom GPU test candidate (written by the headroom project, not by a model)
# KernelBench level 2 problem 23 (Conv3d, GroupNorm, mean over all but the
# batch; 128 x 3 x 24 x 32 x 32) at today's sizes: a GroupNorm's output has
# mean zero in each group before its affine part, so at the default
# parameters (weight 1, bias 0) the output is about 1e-9.  This kernel
# skips the convolution and the norm and writes zeros.
# headroom-expect: not-a-win (near-zero output)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void zero_batch(float* __restrict__ y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = 0.0f;
}

torch::Tensor conv_gn_mean(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto y = torch::empty({x.size(0)}, x.options());
    int64_t n = y.numel();
    zero_batch<<<(unsigned)((n + 255) / 256), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        y.data_ptr<float>(), n);
    return y;
}
"""

cpp_source = "torch::Tensor conv_gn_mean(torch::Tensor x);"

fused = load_inline(name="hr_kb23_zero", cpp_sources=cpp_source, cuda_sources=cuda_source,
                    functions=["conv_gn_mean"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, num_groups):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv3d(in_channels, out_channels, kernel_size)
        self.group_norm = nn.GroupNorm(num_groups, out_channels)

    def forward(self, x):
        return fused.conv_gn_mean(x)
