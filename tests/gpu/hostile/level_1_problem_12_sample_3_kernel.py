# headroom hostile GPU fixture (written by the headroom project)
# KernelBench level 1 problem 12.  INFINITE LOOP: the kernel spins on a flag
# that nothing ever sets, so the launch never completes.
# Expected: the evaluation is stopped at its time limit (timeout); the next
# job must still be judged correctly.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void diag_scale_rows(const float* __restrict__ a, const float4* __restrict__ B,
                                float4* __restrict__ C, int rows, int cols4) {
    size_t n = (size_t)rows * cols4;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        float s = a[i / cols4];
        float4 b = B[i];
        volatile int* never = (volatile int*)a;   // a[] is never negative
        while (never[0] >= 0) { }
        C[i] = make_float4(s * b.x, s * b.y, s * b.z, s * b.w);
    }
}

torch::Tensor diag_matmul_cuda(torch::Tensor A, torch::Tensor B) {
    TORCH_CHECK(A.is_cuda() && B.is_cuda(), "inputs must be CUDA tensors");
    A = A.contiguous(); B = B.contiguous();
    int rows = B.size(0), cols = B.size(1);
    TORCH_CHECK(cols % 4 == 0, "columns must be a multiple of 4");
    auto C = torch::empty_like(B);
    int threads = 256;
    int blocks = 132 * 16;
    diag_scale_rows<<<blocks, threads>>>(A.data_ptr<float>(),
        reinterpret_cast<const float4*>(B.data_ptr<float>()),
        reinterpret_cast<float4*>(C.data_ptr<float>()), rows, cols / 4);
    return C;
}
"""

cpp_source = "torch::Tensor diag_matmul_cuda(torch::Tensor A, torch::Tensor B);"

diag_matmul = load_inline(
    name="hr_hostile_spin",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["diag_matmul_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()
        self.op = diag_matmul

    def forward(self, A, B):
        return self.op.diag_matmul_cuda(A, B)
