# headroom GPU test candidate (written by the headroom project, not by a model)
# DLRM-Bench problem 5 (hash of 16384 x 26 raw ids, then each feature's
# modulo).  One fused pass instead of the reference's multiply, shift, xor
# and remainder kernels; the multiply wraps as torch's int64 does, and the
# remainder takes the divisor's sign as torch.remainder.  Expected:
# compiled, correct, faster (the reference is four small launches).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void hash_mod(const long long* __restrict__ raw, const long long* __restrict__ rows,
                         long long* __restrict__ out, long long n, int features,
                         unsigned long long mult) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        long long h = (long long)((unsigned long long)raw[i] * mult);
        h = h ^ (h >> 31);
        long long m = rows[i % features];
        long long r = h % m;
        if (r != 0 && ((r < 0) != (m < 0)))
            r += m;
        out[i] = r;
    }
}

torch::Tensor hash_mod_cuda(torch::Tensor raw, torch::Tensor rows, int64_t mult) {
    TORCH_CHECK(raw.is_cuda() && rows.is_cuda(), "CUDA tensors wanted");
    TORCH_CHECK(raw.scalar_type() == torch::kInt64 && rows.scalar_type() == torch::kInt64,
                "int64 wanted");
    TORCH_CHECK(raw.dim() == 2 && raw.size(1) == rows.numel(), "one modulus per column");
    raw = raw.contiguous();
    rows = rows.contiguous();
    auto out = torch::empty_like(raw);
    long long n = raw.numel();
    if (n == 0) return out;
    int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    if (blocks > 132 * 32) blocks = 132 * 32;
    hash_mod<<<(unsigned)blocks, threads>>>((const long long*)raw.data_ptr<int64_t>(),
        (const long long*)rows.data_ptr<int64_t>(), (long long*)out.data_ptr<int64_t>(), n,
        (int)rows.numel(), (unsigned long long)mult);
    return out;
}
"""

cpp_source = "torch::Tensor hash_mod_cuda(torch::Tensor raw, torch::Tensor rows, int64_t mult);"

hash_mod = load_inline(
    name="hr_dlrm_hash_mod",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["hash_mod_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, table_rows, multiplier):
        super(ModelNew, self).__init__()
        self.register_buffer("rows", torch.tensor(table_rows, dtype=torch.int64))
        self.multiplier = multiplier

    def forward(self, raw):
        return hash_mod.hash_mod_cuda(raw, self.rows, self.multiplier)
