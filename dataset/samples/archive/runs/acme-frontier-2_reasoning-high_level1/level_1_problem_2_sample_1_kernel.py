# Optimized implementation: custom CUDA kernel replacing the PyTorch operators.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

#define TILE_DIM 32

__global__ void fused_gemm_kernel(const float* A, const float* B, const float* C, float* out,
                                  int M, int N, int K, float alpha) {
    __shared__ float sA[TILE_DIM][TILE_DIM];
    __shared__ float sB[TILE_DIM][TILE_DIM];
    int ty = threadIdx.y, tx = threadIdx.x;
    int row = blockIdx.y * TILE_DIM + ty;
    int col = blockIdx.x * TILE_DIM + tx;
    float acc = 0.0f;
    for (int t = 0; t < K; t += BLOCK_SIZE) {
        sA[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
        sB[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE_DIM; ++k) acc += sA[ty][k] * sB[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) out[row * N + col] = alpha * acc + C[row * N + col];
}

torch::Tensor fused_gemm(torch::Tensor A, torch::Tensor B, torch::Tensor C, double alpha) {
    int M = A.size(0), K = A.size(1), N = B.size(1);
    auto out = torch::empty({M, N}, A.options());
    dim3 block(TILE_DIM, TILE_DIM);
    dim3 grid((N + TILE_DIM - 1) / TILE_DIM, (M + TILE_DIM - 1) / TILE_DIM);
    fused_gemm_kernel<<<grid, block>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(),
                                       out.data_ptr<float>(), M, N, K, (float)alpha);
    return out;
}
"""

cpp_src = "torch::Tensor fused_gemm(torch::Tensor A, torch::Tensor B, torch::Tensor C, double alpha);"

fused_gemm_module = load_inline(
    name="fused_gemm",
    cpp_sources=cpp_src,
    cuda_sources=source,
    functions=["fused_gemm"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, alpha: float):
        super().__init__()
        self.alpha = alpha

    def forward(self, A, B, C):
        return fused_gemm_module.fused_gemm(A, B, C, self.alpha)
