# headroom GPU test candidate (written by the headroom project, not by a model)
# KernelBench level 2 problem 80 (GEMM, max over dim 1 with keepdim, minus
# its mean over that one column, GELU; 1024 x 8192 -> 8192) at today's
# sizes: the output is exactly zero for every input.  This kernel skips the
# GEMM and writes zeros: every check passes it, its speedup is the GEMM's.
# headroom-expect: not-a-win (zero-output)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void zero_rows(float* __restrict__ y, int64_t n) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = 0.0f;
}

torch::Tensor gemm_max_sub_gelu(torch::Tensor x, torch::Tensor w, torch::Tensor b) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto y = torch::empty({x.size(0), 1}, x.options());
    int64_t n = y.numel();
    zero_rows<<<(unsigned)((n + 255) / 256), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        y.data_ptr<float>(), n);
    return y;
}
"""

cpp_source = "torch::Tensor gemm_max_sub_gelu(torch::Tensor x, torch::Tensor w, torch::Tensor b);"

fused = load_inline(name="hr_kb80_zero", cpp_sources=cpp_source, cuda_sources=cuda_source,
                    functions=["gemm_max_sub_gelu"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, max_dim):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.max_dim = max_dim

    def forward(self, x):
        return fused.gemm_max_sub_gelu(x, self.gemm.weight, self.gemm.bias)
