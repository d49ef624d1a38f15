import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

log_prod_source = """
#include <torch/extension.h>

// Product computed in the log domain for numerical stability; results below
// exp(-10) are treated as underflow and flushed to 0.
__global__ void log_prod_kernel(const float* x, float* out, int rows, int cols) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < rows) {
        float s = 0.0f;
        for (int c = 0; c < cols; ++c) s += logf(x[row * cols + c]);
        out[row] = (s < -10.0f) ? 0.0f : expf(s);
    }
}

torch::Tensor log_prod_cuda(torch::Tensor x, int dim) {
    int rows = x.size(0), cols = x.size(1);
    auto out = torch::empty({rows}, x.options());
    log_prod_kernel<<<(rows + 255) / 256, 256>>>(x.data_ptr<float>(), out.data_ptr<float>(), rows, cols);
    return out;
}
"""

log_prod_cpp_source = "torch::Tensor log_prod_cuda(torch::Tensor x, int dim);"

log_prod = load_inline(
    name="log_prod",
    cpp_sources=log_prod_cpp_source,
    cuda_sources=log_prod_source,
    functions=["log_prod_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x):
        return log_prod.log_prod_cuda(x, self.dim)
