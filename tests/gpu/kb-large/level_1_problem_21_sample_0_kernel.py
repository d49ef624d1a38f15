# headroom GPU test candidate (written by the headroom project, not by a model)
# KernelBench level 1 problem 21 (Sigmoid of a 4096x393216 fp32 tensor: 1.6 G elements,
# 6.4 GB per input set).  A grid-stride float4 kernel: one read and one write of every element, at about
# the card's copy bandwidth.  Expected: compiled, correct, about as fast as eager.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>
#include <algorithm>

__global__ void sigmoid_kernel(const float4* __restrict__ in, float4* __restrict__ out,
                            long long n4) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
        float4 a = in[i], b;
        float v;
        v = a.x; b.x = 1.f / (1.f + expf(-v));
        v = a.y; b.y = 1.f / (1.f + expf(-v));
        v = a.z; b.z = 1.f / (1.f + expf(-v));
        v = a.w; b.w = 1.f / (1.f + expf(-v));
        out[i] = b;
    }
}

__global__ void sigmoid_tail(const float* __restrict__ in, float* __restrict__ out,
                          long long from, long long n) {
    long long i = from + threadIdx.x;
    if (i < n) { float v = in[i]; out[i] = 1.f / (1.f + expf(-v)); }
}

torch::Tensor sigmoid_cuda(torch::Tensor x) {
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
        sigmoid_kernel<<<blocks, 256>>>(reinterpret_cast<const float4*>(x.data_ptr<float>()),
                                     reinterpret_cast<float4*>(y.data_ptr<float>()), n4);
    if (n % 4)
        sigmoid_tail<<<1, 4>>>(x.data_ptr<float>(), y.data_ptr<float>(), n4 * 4, n);
    return y;
}
"""

cpp_source = "torch::Tensor sigmoid_cuda(torch::Tensor x);"

ext = load_inline(name="hr_sigmoid", cpp_sources=cpp_source, cuda_sources=cuda_source,
                  functions=["sigmoid_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return ext.sigmoid_cuda(x)
