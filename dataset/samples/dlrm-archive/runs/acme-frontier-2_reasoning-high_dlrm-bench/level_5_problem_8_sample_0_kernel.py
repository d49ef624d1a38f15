# headroom GPU test candidate (written by the headroom project, not by a model)
# DLRM-Bench problem 8 (concat interaction: 16384 x 128 dense and
# 16384 x 26 x 128 pooled embeddings into 16384 x 3456).  One float4 copy
# kernel; the reference's torch.cat is one well-tuned copy kernel too.
# Expected: compiled, correct, about as fast (no verified speedup).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

// Output row r: dense[r] (d elements of T), then sparse[r] (s of them);
// T is float4 when both widths are multiples of 4, else float.
template <typename T>
__global__ void concat_rows(const T* __restrict__ dense, const T* __restrict__ sparse,
                            T* __restrict__ out, long long rows, int d, int s) {
    long long w = d + s, n = rows * w;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        long long r = i / w, c = i % w;
        out[i] = c < d ? dense[r * d + c] : sparse[r * s + (c - d)];
    }
}

torch::Tensor concat_cuda(torch::Tensor dense, torch::Tensor sparse) {
    TORCH_CHECK(dense.is_cuda() && sparse.is_cuda(), "CUDA tensors wanted");
    TORCH_CHECK(dense.scalar_type() == torch::kFloat32 && sparse.scalar_type() == torch::kFloat32,
                "float32 wanted");
    dense = dense.contiguous();
    sparse = sparse.contiguous();
    long long rows = dense.size(0);
    int d = (int)dense.size(1), s = (int)(sparse.numel() / (rows ? rows : 1));
    auto out = torch::empty({rows, (long long)d + s}, dense.options());
    if (rows == 0) return out;
    int threads = 256, vec = d % 4 == 0 && s % 4 == 0 ? 4 : 1;
    long long n = rows * (d + s) / vec, blocks = (n + threads - 1) / threads;
    if (blocks > 132 * 64) blocks = 132 * 64;
    if (vec == 4)
        concat_rows<float4><<<(unsigned)blocks, threads>>>(
            reinterpret_cast<const float4*>(dense.data_ptr<float>()),
            reinterpret_cast<const float4*>(sparse.data_ptr<float>()),
            reinterpret_cast<float4*>(out.data_ptr<float>()), rows, d / 4, s / 4);
    else
        concat_rows<float><<<(unsigned)blocks, threads>>>(dense.data_ptr<float>(),
            sparse.data_ptr<float>(), out.data_ptr<float>(), rows, d, s);
    return out;
}
"""

cpp_source = "torch::Tensor concat_cuda(torch::Tensor dense, torch::Tensor sparse);"

concat = load_inline(
    name="hr_dlrm_concat",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["concat_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, dense, sparse):
        return concat.concat_cuda(dense, sparse)
