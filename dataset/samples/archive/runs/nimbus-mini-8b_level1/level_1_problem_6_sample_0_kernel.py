import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

prod_source = """
#include <torch/extension.h>
#include <c10/cuda/CUDAException.h>

__global__ void prod_kernel(const float* x, float* out, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float p = 1.0f;
        for (int c = 0; c < cols; ++c) p *= x[row * cols + c];
        out[row] = p;
    }
}

torch::Tensor prod_cuda(torch::Tensor x, int dim) {
    int rows = x.size(0);
    int cols = x.size(1);
    auto out = torch::empty({rows}, x.options());
    const int threads = 2048;
    prod_kernel<<<(rows + threads - 1) / threads, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), rows, cols);
    C10_CUDA_KERNEL_LAUNCH_CHECK();
    return out;
}
"""

prod_cpp_source = "torch::Tensor prod_cuda(torch::Tensor x, int dim);"

prod = load_inline(
    name="prod",
    cpp_sources=prod_cpp_source,
    cuda_sources=prod_source,
    functions=["prod_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x):
        return prod.prod_cuda(x, self.dim)
