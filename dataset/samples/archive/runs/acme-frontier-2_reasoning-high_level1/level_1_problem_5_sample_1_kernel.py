# Optimized implementation: custom CUDA kernel replacing the PyTorch operators.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_source = """
#include <torch/extension.h>

// One thread per row, three sequential passes over the row.
__global__ void softmax_kernel(const float* x, float* out, int rows, int cols, float temperature) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= rows) return;
    float max_val = x[row * cols] / temperature;
    for (int j = 1; j < cols; j++) {
        float v = x[row * cols + j] / temperature;
        if (v > max_val) max_val = v;
    }
    float sum = 0.0f;
    for (int j = 0; j < cols; j++) {
        sum += expf(x[row * cols + j] / temperature - max_val);
    }
    for (int j = 0; j < cols; j++) {
        out[row * cols + j] = expf(x[row * cols + j] / temperature - max_val) / sum;
    }
}

torch::Tensor softmax_cuda(torch::Tensor x, float temperature) {
    auto out = torch::zeros_like(x);
    int rows = x.size(0);
    int cols = x.size(1);
    const int block_size = 256;
    const int num_blocks = (rows + block_size - 1) / block_size;
    softmax_kernel<<<num_blocks, block_size>>>(x.data_ptr<float>(), out.data_ptr<float>(), rows, cols, temperature);
    return out;
}
"""

softmax_cpp_source = "torch::Tensor softmax_cuda(torch::Tensor x, float temperature);"

softmax = load_inline(
    name="softmax",
    cpp_sources=softmax_cpp_source,
    cuda_sources=softmax_source,
    functions=["softmax_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self, temperature):
        super(ModelNew, self).__init__()
        self.temperature = temperature
        self.softmax = softmax

    def forward(self, x):
        return self.softmax.softmax_cuda(x, self.temperature)
