# headroom GPU test candidate (written by the headroom project, not by a model)
# KernelBench level 1 problem 22 (Tanh of a 4096x393216 fp32 tensor: 1.6 G elements,
# 6.4 GB per input set).  One thread per element, scalar loads, full-precision tanhf: slower than eager
# (more instructions per byte).  Expected: compiled, correct, a speedup below 1.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <algorithm>

__global__ void tanh_kernel(const float* __restrict__ in, float* __restrict__ out,
                            long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = in[i]; out[i] = tanhf(v); }
}

torch::Tensor tanh_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "float32 CUDA tensor expected");
    x = x.contiguous();
    auto y = torch::empty_like(x);
    long long n = x.numel();
    long long blocks = (n + 127) / 128;
    if (n > 0)
        tanh_kernel<<<(unsigned)blocks, 128>>>(x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""

cpp_source = "torch::Tensor tanh_cuda(torch::Tensor x);"

ext = load_inline(name="hr_tanh", cpp_sources=cpp_source, cuda_sources=cuda_source,
                  functions=["tanh_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.tanh_cuda(x)
