# Optimized implementation: custom CUDA kernel replacing the PyTorch operators.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

gemm_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define TILE 16

// Shared-memory tiled SGEMM with the alpha * AB + C epilogue fused in.
__global__ void gemm_scale_add_kernel(const float* __restrict__ A, const float* __restrict__ B,
                                      const float* __restrict__ C, float* __restrict__ out,
                                      int M, int N, int K, float alpha) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int a_col = t * TILE + threadIdx.x;
        int b_row = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && a_col < K) ? A[row * K + a_col] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (b_row < K && col < N) ? B[b_row * N + col] : 0.0f;
        __syncthreads();
        #pragma unroll
        for (int k = 0; k < TILE; ++k) {
            acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        }
        __syncthreads();
    }
    if (row < M && col < N) {
        out[row * N + col] = alpha * acc + C[row * N + col];
    }
}

torch::Tensor gemm_scale_add_cuda(torch::Tensor A, torch::Tensor B, torch::Tensor C, double alpha) {
    int M = A.size(0);
    int K = A.size(1);
    int N = B.size(1);
    auto out = torch::empty({M, N}, A.options());
    dim3 threads(TILE, TILE);
    dim3 blocks((N + TILE - 1) / TILE, (M + TILE - 1) / TILE);
    gemm_scale_add_kernel<<<blocks, threads>>>(A.data_ptr<float>(), B.data_ptr<float>(),
                                               C.data_ptr<float>(), out.data_ptr<float>(),
                                               M, N, K, (float)alpha);
    return out;
}
"""

gemm_cpp_source = "torch::Tensor gemm_scale_add_cuda(torch::Tensor A, torch::Tensor B, torch::Tensor C, double alpha);"

gemm_scale_add = load_inline(
    name="gemm_scale_add",
    cpp_sources=gemm_cpp_source,
    cuda_sources=gemm_source,
    functions=["gemm_scale_add_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, alpha: float):
        super(ModelNew, self).__init__()
        self.alpha = alpha

    def forward(self, A, B, C):
        return gemm_scale_add.gemm_scale_add_cuda(A.contiguous(), B.contiguous(), C.contiguous(), self.alpha)
