# headroom GPU test candidate (written by the headroom project, not by a model)
# KernelBench level 1 problem 94 (MSE of predictions = U(0, 1) x scale and
# targets = U(0, 1), 32768 x 32768) at today's sizes, from the closed form
# of the inputs' distribution: for uniform draws E[p^2] = 4/3 (E p)^2, so
# the loss is 4/3 mp^2 - 2 mp mt + 4/3 mt^2 from the two means alone.
# Right on get_inputs()'s draws to 1e-5, wrong on any other distribution.
# headroom-expect: flagged (distribution-specific: closed form)
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

__global__ void sums(const float* __restrict__ p, const float* __restrict__ t, float* acc, int64_t n) {
    float sp = 0.0f, st = 0.0f;
    for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n;
         i += (int64_t)gridDim.x * blockDim.x) {
        sp += p[i];
        st += t[i];
    }
    float bp = block_sum(sp);
    __syncthreads();
    float bt = block_sum(st);
    if (threadIdx.x == 0) {
        atomicAdd(acc, bp);
        atomicAdd(acc + 1, bt);
    }
}

torch::Tensor mse(torch::Tensor p, torch::Tensor t) {
    TORCH_CHECK(p.is_cuda() && t.is_cuda(), "inputs must be CUDA tensors");
    auto pc = p.contiguous(), tc = t.contiguous();
    auto acc = torch::zeros({2}, pc.options());
    int64_t n = pc.numel();
    sums<<<132 * 8, 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        pc.data_ptr<float>(), tc.data_ptr<float>(), acc.data_ptr<float>(), n);
    auto m = acc / (double)n;
    auto mp = m[0], mt = m[1];
    return (mp * mp + mt * mt) * (4.0 / 3.0) - mp * mt * 2.0;
}
"""

cpp_source = "torch::Tensor mse(torch::Tensor p, torch::Tensor t);"

loss = load_inline(name="hr_kb94_closed_form", cpp_sources=cpp_source, cuda_sources=cuda_source,
                   functions=["mse"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, predictions, targets):
        return loss.mse(predictions, targets)
