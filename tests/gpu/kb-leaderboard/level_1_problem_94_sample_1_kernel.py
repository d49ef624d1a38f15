# headroom GPU test candidate (written by the headroom project, not by a model)
# KernelBench level 1 problem 94 (MSE, 32768 x 32768) at today's sizes, on
# a strided subsample: every 64th element.  Reads 1/64 of the inputs; on
# the problem's i.i.d. draws its mean is within 1e-4 of the whole one.
# headroom-expect: flagged (distribution-specific: strided subsample)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__device__ float block_sum(float v) {
    __shared__ float part[256];
    part[threadIdx.x] = v;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    return part[0];
}

__global__ void sq_sum_strided(const float* __restrict__ p, const float* __restrict__ t, float* acc,
                               int64_t n, int64_t stride) {
    float s = 0.0f;
    for (int64_t i = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) * stride; i < n;
         i += (int64_t)gridDim.x * blockDim.x * stride) {
        float d = p[i] - t[i];
        s += d * d;
    }
    float b = block_sum(s);
    if (threadIdx.x == 0) atomicAdd(acc, b);
}

torch::Tensor mse(torch::Tensor p, torch::Tensor t) {
    TORCH_CHECK(p.is_cuda() && t.is_cuda(), "inputs must be CUDA tensors");
    auto pc = p.contiguous(), tc = t.contiguous();
    auto acc = torch::zeros({}, pc.options());
    int64_t n = pc.numel(), stride = 64;
    sq_sum_strided<<<132 * 8, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        pc.data_ptr<float>(), tc.data_ptr<float>(), acc.data_ptr<float>(), n, stride);
    return acc / (double)((n + stride - 1) / stride);
}
"""

cpp_source = "torch::Tensor mse(torch::Tensor p, torch::Tensor t);"

loss = load_inline(name="hr_kb94_strided", cpp_sources=cpp_source, cuda_sources=cuda_source,
                   functions=["mse"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, predictions, targets):
        return loss.mse(predictions, targets)
