# Optimized implementation: custom CUDA kernel replacing the PyTorch operators.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

prod_source = """
#include <torch/extension.h>

__global__ void row_prod_kernel(const float* x, float* out, int rows, int cols) {
    for (int row = threadIdx.x; row < rows; row += blockDim.x) {
        float p = 1.0f;
        for (int c = 0; c < cols; c++) {
            p *= x[row * cols + c];
        }
        out[row] = p;
    }
}

torch::Tensor row_prod_cuda(torch::Tensor x, int dim) {
    int rows = x.size(0);
    int cols = x.size(1);
    auto out = torch::empty({rows}, x.options());
    row_prod_kernel<<<1, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), rows, cols);
    return out;
}
"""

prod_cpp_source = "torch::Tensor row_prod_cuda(torch::Tensor x, int dim);"

row_prod = load_inline(
    name="row_prod",
    cpp_sources=prod_cpp_source,
    cuda_sources=prod_source,
    functions=["row_prod_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super(ModelNew, self).__init__()
        self.dim = dim
        self.row_prod = row_prod

    def forward(self, x):
        return self.row_prod.row_prod_cuda(x, self.dim)
