# Optimized implementation: custom CUDA kernel replacing the PyTorch operators.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

l2norm_source = """
#include <torch/extension.h>

// One block per row: reduce the sum of squares, then scale the row.
__global__ void l2_normalize_kernel(const float* __restrict__ x, float* __restrict__ y, int dim) {
    __shared__ float sdata[1024];
    const float* xr = x + (size_t)blockIdx.x * dim;
    float* yr = y + (size_t)blockIdx.x * dim;
    float acc = 0.0f;
    for (int i = threadIdx.x; i < dim; i += blockDim.x) acc += xr[i] * xr[i];
    sdata[threadIdx.x] = acc;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) sdata[threadIdx.x] += sdata[threadIdx.x + s];
        __syncthreads();
    }
    float inv = rsqrtf(sdata[0]);
    for (int i = threadIdx.x; i < dim; i += blockDim.x) yr[i] = xr[i] * inv;
}

torch::Tensor l2_normalize_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    int rows = x.size(0);
    int dim = x.size(1);
    l2_normalize_kernel<<<rows, 1024>>>(x.data_ptr<float>(), y.data_ptr<float>(), dim);
    return y;
}
"""

l2norm_cpp_source = "torch::Tensor l2_normalize_cuda(torch::Tensor x);"

l2_normalize = load_inline(
    name="l2_normalize",
    cpp_sources=l2norm_cpp_source,
    cuda_sources=l2norm_source,
    functions=["l2_normalize_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        return l2_normalize.l2_normalize_cuda(x.contiguous())
