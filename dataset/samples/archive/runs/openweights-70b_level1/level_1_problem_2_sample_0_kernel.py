import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

gemm_source = """
#include <torch/extension.h>

__global__ void gemm_kernel(const float* A, const float* B, const float* C, float* D,
                            int M, int N, int K, float alpha) {
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) {
            acc += A[row * K + k] * B[col * K + k];
        }
        D[row * N + col] = alpha * acc + C[row * N + col];
    }
}

torch::Tensor gemm_cuda(torch::Tensor A, torch::Tensor B, torch::Tensor C, float alpha) {
    const int M = A.size(0);
    const int K = A.size(1);
    const int N = B.size(1);
    auto D = torch::empty({M, N}, A.options());
    dim3 block(32, 8);
    dim3 grid((N + block.x - 1) / block.x, (M + block.y - 1) / block.y);
    gemm_kernel<<<grid, block>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(),
                                 D.data_ptr<float>(), M, N, K, alpha);
    return D;
}
"""

gemm_cpp_source = "torch::Tensor gemm_cuda(torch::Tensor A, torch::Tensor B, torch::Tensor C, float alpha);"

gemm = load_inline(
    name="gemm_alpha_c",
    cpp_sources=gemm_cpp_source,
    cuda_sources=gemm_source,
    functions=["gemm_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, alpha):
        super(ModelNew, self).__init__()
        self.alpha = alpha
        self.gemm = gemm

    def forward(self, A, B, C):
        return self.gemm.gemm_cuda(A, B, C, self.alpha)
