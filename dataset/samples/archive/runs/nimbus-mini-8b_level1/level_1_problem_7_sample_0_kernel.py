import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

norm_source = """
#include <torch/extension.h>

__global__ void normalize_kernel(const float* x, float* y, int dim) {
    __shared__ float s[256];
    const float* xr = x + (size_t)blockIdx.x * dim;
    float acc = 0.0f;
    for (int i = threadIdx.x; i < dim; i += 256) acc += xr[i] * xr[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int k = 128; k > 0; k >>= 1) {
        if (threadIdx.x < k) s[threadIdx.x] += s[threadIdx.x + k];
        __syncthreads();
    }
    float inv = rsqrtf(s[0]);
    for (int i = threadIdx.x; i < dim; i += 256) y[(size_t)blockIdx.x * dim + i] = xr[i] * inv;
}

torch::Tensor normalize_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    const float* x_ptr = x.data_ptr();
    float* y_ptr = y.data_ptr();
    normalize_kernel<<<x.size(0), 256>>>(x_ptr, y_ptr, x.size(1));
    return y;
}
"""

norm_cpp_source = "torch::Tensor normalize_cuda(torch::Tensor x);"

normalize = load_inline(
    name="normalize",
    cpp_sources=norm_cpp_source,
    cuda_sources=norm_source,
    functions=["normalize_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        return normalize.normalize_cuda(x)
