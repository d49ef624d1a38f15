import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

l2_source = """
#include <torch/extension.h>

__global__ void sumsq_kernel(const float* x, float* norms, int dim) {
    __shared__ float buf[256];
    int row = blockIdx.x;
    float acc = 0.0f;
    for (int i = threadIdx.x; i < dim; i += 256) acc += x[(size_t)row * dim + i] * x[(size_t)row * dim + i];
    buf[threadIdx.x] = acc;
    __syncthreads();
    for (int s = 128; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) norms[row] = sqrtf(buf[0]);
}

__global__ void scale_kernel(const float* x, const float* norms, float* y, int dim, long n) {
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * norms[i / dim];
}

torch::Tensor l2_normalize_cuda(torch::Tensor x) {
    int rows = x.size(0), dim = x.size(1);
    auto norms = torch::empty({rows}, x.options());
    auto y = torch::empty_like(x);
    long n = x.numel();
    sumsq_kernel<<<rows, 256>>>(x.data_ptr<float>(), norms.data_ptr<float>(), dim);
    scale_kernel<<<(n + 255) / 256, 256>>>(x.data_ptr<float>(), norms.data_ptr<float>(), y.data_ptr<float>(), dim, n);
    return y;
}
"""

l2_cpp_source = "torch::Tensor l2_normalize_cuda(torch::Tensor x);"

l2_normalize = load_inline(
    name="l2_normalize_two_pass",
    cpp_sources=l2_cpp_source,
    cuda_sources=l2_source,
    functions=["l2_normalize_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        return l2_normalize.l2_normalize_cuda(x)
