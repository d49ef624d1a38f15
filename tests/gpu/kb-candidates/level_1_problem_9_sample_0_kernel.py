# headroom GPU test candidate (written by the headroom project, not by a model)
# KernelBench level 1 problem 9 (tall-skinny matmul: 32768x32 @ 32x32768).
# The whole K = 32 strip of A and B fits in shared memory; the 4 GiB output is
# written once, coalesced.  Expected: compiled, correct, about as fast as cuBLAS.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

#define TM 64
#define TN 64
#define MAXK 64

__global__ void skinny_matmul(const float* __restrict__ A, const float* __restrict__ B,
                              float* __restrict__ C, int M, int N, int K) {
    __shared__ float As[TM][MAXK + 1];
    __shared__ float Bs[MAXK][TN];
    int row0 = blockIdx.y * TM, col0 = blockIdx.x * TN;
    for (int i = threadIdx.x; i < TM * K; i += blockDim.x) {
        int r = i / K, k = i % K;
        As[r][k] = (row0 + r < M) ? A[(size_t)(row0 + r) * K + k] : 0.f;
    }
    for (int i = threadIdx.x; i < K * TN; i += blockDim.x) {
        int k = i / TN, c = i % TN;
        Bs[k][c] = (col0 + c < N) ? B[(size_t)k * N + col0 + c] : 0.f;
    }
    __syncthreads();
    int c = threadIdx.x % TN, rsub = threadIdx.x / TN;   // 256 threads: 4 row groups
    float acc[TM / 4];
    #pragma unroll
    for (int i = 0; i < TM / 4; ++i) acc[i] = 0.f;
    for (int k = 0; k < K; ++k) {
        float b = Bs[k][c];
        #pragma unroll
        for (int i = 0; i < TM / 4; ++i) acc[i] = fmaf(As[rsub + 4 * i][k], b, acc[i]);
    }
    if (col0 + c < N) {
        #pragma unroll
        for (int i = 0; i < TM / 4; ++i) {
            int r = row0 + rsub + 4 * i;
            if (r < M) C[(size_t)r * N + col0 + c] = acc[i];
        }
    }
}

torch::Tensor skinny_matmul_cuda(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "inputs must be CUDA tensors");
    A = A.contiguous(); B = B.contiguous();
    int M = A.size(0), K = A.size(1), N = B.size(1);
    TORCH_CHECK(K <= MAXK, "K too large for this kernel");
    auto C = torch::empty({M, N}, A.options());
    dim3 grid((N + TN - 1) / TN, (M + TM - 1) / TM);
    skinny_matmul<<<grid, 256>>>(A.data_ptr<float>(), B.data_ptr<float>(), C.data_ptr<float>(), M, N, K);
    return C;
}
"""

cpp_source = "torch::Tensor skinny_matmul_cuda(torch::Tensor A, torch::Tensor B);"

skinny = load_inline(
    name="hr_skinny_matmul",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["skinny_matmul_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.op = skinny

    def forward(self, A, B):
        return self.op.skinny_matmul_cuda(A, B)
