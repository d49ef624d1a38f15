# Optimized implementation: custom CUDA kernel replacing the PyTorch operators.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_source = """
#include <torch/extension.h>
#include <cfloat>

// One block per row: block max, block sum of exp, then normalize. Temperature folded in.
__global__ void softmax_temp_kernel(const float* __restrict__ x, float* __restrict__ y,
                                    int cols, float inv_t) {
    __shared__ float red[256];
    const float* xr = x + (size_t)blockIdx.x * cols;
    float* yr = y + (size_t)blockIdx.x * cols;
    float m = -FLT_MAX;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, xr[c] * inv_t);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) {
        float e = __expf(xr[c] * inv_t - m);
        yr[c] = e;
        sum += e;
    }
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    float inv_sum = 1.0f / red[0];
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] *= inv_sum;
}

torch::Tensor softmax_temp_cuda(torch::Tensor x, double temperature) {
    auto y = torch::empty_like(x);
    int rows = x.size(0);
    int cols = x.size(1);
    softmax_temp_kernel<<<rows, 256>>>(x.data_ptr<float>(), y.data_ptr<float>(), cols, (float)(1.0 / temperature));
    return y;
}
"""

softmax_cpp_source = "torch::Tensor softmax_temp_cuda(torch::Tensor x, double temperature);"

softmax_temp = load_inline(
    name="softmax_temp",
    cpp_sources=softmax_cpp_source,
    cuda_sources=softmax_source,
    functions=["softmax_temp_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, temperature):
        super(ModelNew, self).__init__()
        self.temperature = temperature

    def forward(self, x):
        return softmax_temp.softmax_temp_cuda(x.contiguous(), self.temperature)
