# Optimized implementation: custom CUDA kernel replacing the PyTorch operators.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

matmul_source = """
#include <torch/extension.h>

// One thread per output element; inner product read straight from global memory.
__global__ void matmul_scale_add_kernel(const float* A, const float* B, const float* C, float* out,
                                        int M, int N, int K, float alpha) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; k++) {
            sum += A[row * K + k] * B[k * N + col];
        }
        out[row * N + col] = sum * alpha + C[row * N + col];
    }
}

torch::Tensor matmul_scale_add_cuda(torch::Tensor A, torch::Tensor B, torch::Tensor C, float alpha) {
    auto M = A.size(0);
    auto K = A.size(1);
    auto N = B.size(1);
    auto out = torch::zeros({M, N}, A.options());
    dim3 block(16, 16);
    dim3 grid((M + 15) / 16, (N + 15) / 16);
    matmul_scale_add_kernel<<<grid, block>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(),
                                             out.data_ptr<float>(), M, N, K, alpha);
    return out;
}
"""

matmul_cpp_source = "torch::Tensor matmul_scale_add_cuda(torch::Tensor A, torch::Tensor B, torch::Tensor C, float alpha);"

matmul_scale_add = load_inline(
    name="matmul_scale_add",
    cpp_sources=matmul_cpp_source,
    cuda_sources=matmul_source,
    functions=["matmul_scale_add_cuda"],
    verbose=False,
    extra_cflags=[""],
    extra_ldflags=[""],
)


class ModelNew(nn.Module):
    def __init__(self, alpha):
        super(ModelNew, self).__init__()
        self.alpha = alpha
        self.matmul_scale_add = matmul_scale_add

    def forward(self, A, B, C):
        return self.matmul_scale_add.matmul_scale_add_cuda(A, B, C, self.alpha)
