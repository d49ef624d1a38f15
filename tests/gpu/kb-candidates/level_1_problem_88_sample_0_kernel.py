# headroom GPU test candidate (written by the headroom project, not by a model)
# KernelBench level 1 problem 88 (MinGPT "new GELU", tanh form, 8192x8192).
# One fused pass with float4 accesses instead of the reference's chain of
# elementwise kernels.  Expected: compiled, correct, several times faster.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float gelu_tanh(float x) {
    const float k = 0.7978845608028654f;   // sqrt(2 / pi)
    return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}

__global__ void new_gelu(const float4* __restrict__ x, float4* __restrict__ y, size_t n4) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n4; i += (size_t)gridDim.x * blockDim.x) {
        float4 v = x[i];
        y[i] = make_float4(gelu_tanh(v.x), gelu_tanh(v.y), gelu_tanh(v.z), gelu_tanh(v.w));
    }
}

__global__ void new_gelu_tail(const float* __restrict__ x, float* __restrict__ y, size_t start, size_t n) {
    size_t i = start + blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) y[i] = gelu_tanh(x[i]);
}

torch::Tensor new_gelu_cuda(torch::Tensor x) {
    TORCH_CHECK(x.is_cuda(), "input must be a CUDA tensor");
    x = x.contiguous();
    auto y = torch::empty_like(x);
    size_t n = x.numel(), n4 = n / 4;
    if (n4) new_gelu<<<132 * 16, 256>>>(reinterpret_cast<const float4*>(x.data_ptr<float>()),
                                         reinterpret_cast<float4*>(y.data_ptr<float>()), n4);
    if (n % 4) new_gelu_tail<<<1, 4>>>(x.data_ptr<float>(), y.data_ptr<float>(), n4 * 4, n);
    return y;
}
"""

cpp_source = "torch::Tensor new_gelu_cuda(torch::Tensor x);"

new_gelu = load_inline(
    name="hr_new_gelu",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["new_gelu_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.op = new_gelu

    def forward(self, x):
        return self.op.new_gelu_cuda(x)
