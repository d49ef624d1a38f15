# headroom GPU test candidate (written by the headroom project, not by a model)
# KernelBench level 1 problem 20 (LeakyReLU of a 4096x393216 fp32 tensor: 1.6 G elements,
# 6.4 GB per input set).  A grid-stride float4 kernel: one read and one write of every element, at about
# the card's copy bandwidth.  Expected: compiled, correct, about as fast as eager.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <algorithm>

__global__ void leaky_relu_kernel(const float4* __restrict__ in, float4* __restrict__ out,
                            float slope, long long n4) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 a = in[i], b;
        float v;
        v = a.x; b.x = (v > 0.f ? v : v * slope);
        v = a.y; b.y = (v > 0.f ? v : v * slope);
        v = a.z; b.z = (v > 0.f ? v : v * slope);
        v = a.w; b.w = (v > 0.f ? v : v * slope);
        out[i] = b;
    }
}

__global__ void leaky_relu_tail(const float* __restrict__ in, float* __restrict__ out,
                          float slope, long long from, long long n) {
    long long i = from + threadIdx.x;
    if (i < n) { float v = in[i]; out[i] = (v > 0.f ? v : v * slope); }
}

torch::Tensor leaky_relu_cuda(torch::Tensor x, double slope) {
    TORCH_CHECK(x.is_cuda() && x.scalar_type() == torch::kFloat32, "float32 CUDA tensor expected");
    x = x.contiguous();
    auto y = torch::empty_like(x);
    long long n = x.numel(), n4 = n / 4;
    int dev;
    cudaGetDevice(&dev);
    int sms;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    int blocks = (int)std::min<long long>((n4 + 255) / 256, (long long)sms * 16);
    if (n4 > 0)
        leaky_relu_kernel<<<blocks, 256>>>(reinterpret_cast<const float4*>(x.data_ptr<float>()),
                                     reinterpret_cast<float4*>(y.data_ptr<float>()), (float)slope, n4);
    if (n % 4)
        leaky_relu_tail<<<1, 4>>>(x.data_ptr<float>(), y.data_ptr<float>(), (float)slope, n4 * 4, n);
    return y;
}
"""

cpp_source = "torch::Tensor leaky_relu_cuda(torch::Tensor x, double slope);"

ext = load_inline(name="hr_leaky_relu", cpp_sources=cpp_source, cuda_sources=cuda_source,
                  functions=["leaky_relu_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, negative_slope: float = 0.01):
        super().__init__()
        self.negative_slope = negative_slope

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.leaky_relu_cuda(x, self.negative_slope)
