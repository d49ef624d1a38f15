# Optimized implementation: custom CUDA kernel replacing the PyTorch operators.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# Fused ReLU + scale: one pass over memory instead of two.
scaled_relu_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void scaled_relu_kernel(const float* __restrict__ x, float* __restrict__ out,
                                   float scale, int64_t n) {
    int64_t idx = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    int64_t stride = (int64_t)gridDim.x * blockDim.x;
    for (; idx < n; idx += stride) {
        float v = x[idx];
        out[idx] = v > 0.0f ? v * scale : 0.0f;
    }
}

torch::Tensor scaled_relu_cuda(torch::Tensor x, double scale) {
    auto out = torch::empty_like(x);
    int64_t n = x.numel();
    const int threads = 256;
    int64_t blocks = (n + threads - 1) / threads;
    if (blocks > 65535) blocks = 65535;
    scaled_relu_kernel<<<(int)blocks, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(),
                                                 (float)scale, n);
    return out;
}
"""

scaled_relu_cpp_source = "torch::Tensor scaled_relu_cuda(torch::Tensor x, double scale);"

scaled_relu = load_inline(
    name="scaled_relu",
    cpp_sources=scaled_relu_cpp_source,
    cuda_sources=scaled_relu_source,
    functions=["scaled_relu_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super(ModelNew, self).__init__()
        self.scale = scale
        self.scaled_relu = scaled_relu

    def forward(self, x):
        return self.scaled_relu.scaled_relu_cuda(x.contiguous(), self.scale)
