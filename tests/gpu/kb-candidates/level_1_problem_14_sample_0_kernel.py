# headroom GPU test candidate (written by the headroom project, not by a model)
# KernelBench level 1 problem 14 (product of upper triangular matrices).
# DELIBERATELY BROKEN BUILD: the CUDA source calls __syncthread() (a typo for
# __syncthreads()), so nvcc rejects it.  Expected: NOT compiled.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

#define TILE 32

__global__ void triu_matmul(const float* A, const float* B, float* C, int N) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    if (blockIdx.x < blockIdx.y) {            // whole tile below the diagonal
        if (row < N && col < N) C[(size_t)row * N + col] = 0.f;
        return;
    }
    float sum = 0.f;
    // only k in [row, col] contributes for upper triangular A and B
    for (int t = blockIdx.y; t <= blockIdx.x; ++t) {
        int k = t * TILE;
        As[threadIdx.y][threadIdx.x] = (row < N && k + threadIdx.x < N) ? A[(size_t)row * N + k + threadIdx.x] : 0.f;
        Bs[threadIdx.y][threadIdx.x] = (k + threadIdx.y < N && col < N) ? B[(size_t)(k + threadIdx.y) * N + col] : 0.f;
        __syncthread();
        for (int kk = 0; kk < TILE; ++kk) sum += As[threadIdx.y][kk] * Bs[kk][threadIdx.x];
        __syncthreads();
    }
    if (row < N && col < N) C[(size_t)row * N + col] = (col >= row) ? sum : 0.f;
}

torch::Tensor triu_matmul_cuda(torch::Tensor A, torch::Tensor B) {
    A = A.contiguous(); B = B.contiguous();
    int N = A.size(0);
    auto C = torch::empty_like(A);
    dim3 block(TILE, TILE);
    dim3 grid((N + TILE - 1) / TILE, (N + TILE - 1) / TILE);
    triu_matmul<<<grid, block>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), N);
    return C;
}
"""

cpp_source = "torch::Tensor triu_matmul_cuda(torch::Tensor A, torch::Tensor B);"

triu_matmul = load_inline(
    name="hr_triu_matmul",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["triu_matmul_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.op = triu_matmul

    def forward(self, A, B):
        return self.op.triu_matmul_cuda(A, B)
