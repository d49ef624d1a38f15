# Optimized implementation: custom CUDA kernel replacing the PyTorch operators.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// Vectorized: each thread handles one float4 (4 elements); tail handled separately.
__global__ void scaled_relu_vec4_kernel(const float4* __restrict__ x, float4* __restrict__ out,
                                        float scale, int64_t n4) {
    int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = x[i];
        v.x = fmaxf(v.x, 0.0f) * scale;
        v.y = fmaxf(v.y, 0.0f) * scale;
        v.z = fmaxf(v.z, 0.0f) * scale;
        v.w = fmaxf(v.w, 0.0f) * scale;
        out[i] = v;
    }
}

__global__ void scaled_relu_tail_kernel(const float* __restrict__ x, float* __restrict__ out,
                                        float scale, int64_t start, int64_t n) {
    int64_t i = start + blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = fmaxf(x[i], 0.0f) * scale;
}

torch::Tensor scaled_relu_forward(torch::Tensor x, double scale) {
    TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
    auto xc = x.contiguous();
    auto out = torch::empty_like(xc);
    int64_t n = xc.numel();
    int64_t n4 = n / 4;
    const int threads = 256;
    if (n4 > 0) {
        int64_t blocks = (n4 + threads - 1) / threads;
        scaled_relu_vec4_kernel<<<(unsigned)blocks, threads>>>(
            reinterpret_cast<const float4*>(xc.data_ptr<float>()),
            reinterpret_cast<float4*>(out.data_ptr<float>()), (float)scale, n4);
    }
    if (n - n4 * 4 > 0) {
        scaled_relu_tail_kernel<<<1, threads>>>(xc.data_ptr<float>(), out.data_ptr<float>(),
                                               (float)scale, n4 * 4, n);
    }
    return out;
}
"""

cpp_source = "torch::Tensor scaled_relu_forward(torch::Tensor x, double scale);"

scaled_relu_ext = load_inline(
    name="scaled_relu_vec4",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["scaled_relu_forward"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, scale: float):
        super(ModelNew, self).__init__()
        self.scale = scale

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return scaled_relu_ext.scaled_relu_forward(x, self.scale)
