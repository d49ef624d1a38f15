# headroom GPU test candidate (written by the headroom project, not by a model)
# DLRM-Bench problem 1 (EmbeddingBag sum, one table of 1,000,000 x 128 rows,
# 16384 bags of 0..40 ids).  One warp per bag, each lane summing float4
# columns of the bag's rows in id order; no offset2bag / bag_size buffers,
# which ATen's embedding_bag also builds.  Expected: compiled, correct,
# somewhat faster (a gather bound by memory either way).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

// Bag b holds ids[offsets[b] .. end), end = offsets[b + 1] or nnz.
__device__ __forceinline__ long long bag_end(const long long* offsets, long long b,
                                             long long nbags, long long nnz) {
    return b + 1 < nbags ? offsets[b + 1] : nnz;
}

__device__ __forceinline__ void add_to(float& a, float b) { a += b; }
__device__ __forceinline__ void add_to(float4& a, float4 b) {
    a.x += b.x; a.y += b.y; a.z += b.z; a.w += b.w;
}

// T is float4 when the row width is a multiple of 4 (width = dim / 4),
// else float (width = dim).  One warp per bag, lanes over the columns.
template <typename T>
__global__ void bag_sum(const T* __restrict__ table, const long long* __restrict__ ids,
                        const long long* __restrict__ offsets, T* __restrict__ out,
                        long long nbags, long long nnz, int width) {
    long long warp = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    long long nwarps = (long long)gridDim.x * blockDim.x / 32;
    for (long long b = warp; b < nbags; b += nwarps) {
        long long lo = offsets[b], hi = bag_end(offsets, b, nbags, nnz);
        for (int c = lane; c < width; c += 32) {
            T acc = {};
            for (long long j = lo; j < hi; j++)
                add_to(acc, table[ids[j] * width + c]);
            out[b * width + c] = acc;
        }
    }
}

torch::Tensor bag_sum_cuda(torch::Tensor table, torch::Tensor ids, torch::Tensor offsets) {
    TORCH_CHECK(table.is_cuda() && ids.is_cuda() && offsets.is_cuda(), "CUDA tensors wanted");
    TORCH_CHECK(table.scalar_type() == torch::kFloat32, "float32 table wanted");
    table = table.contiguous();
    ids = ids.to(torch::kInt64).contiguous();
    offsets = offsets.to(torch::kInt64).contiguous();
    long long nbags = offsets.numel(), nnz = ids.numel();
    int dim = (int)table.size(1);
    auto out = torch::empty({nbags, dim}, table.options());
    if (nbags == 0) return out;
    int threads = 256;
    long long blocks = (nbags * 32 + threads - 1) / threads;
    if (blocks > 65535LL * 8) blocks = 65535LL * 8;
    const long long* id = (const long long*)ids.data_ptr<int64_t>();
    const long long* off = (const long long*)offsets.data_ptr<int64_t>();
    if (dim % 4 == 0)
        bag_sum<float4><<<(unsigned)blocks, threads>>>(
            reinterpret_cast<const float4*>(table.data_ptr<float>()), id, off,
            reinterpret_cast<float4*>(out.data_ptr<float>()), nbags, nnz, dim / 4);
    else
        bag_sum<float><<<(unsigned)blocks, threads>>>(
            table.data_ptr<float>(), id, off, out.data_ptr<float>(), nbags, nnz, dim);
    return out;
}
"""

cpp_source = "torch::Tensor bag_sum_cuda(torch::Tensor table, torch::Tensor ids, torch::Tensor offsets);"

bag_sum = load_inline(
    name="hr_dlrm_bag_sum",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["bag_sum_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, num_rows, embedding_dim):
        super(ModelNew, self).__init__()
        # The same parameter, drawn the same way, as the reference's.
        self.table = nn.EmbeddingBag(num_rows, embedding_dim, mode="sum")

    def forward(self, indices, offsets):
        return bag_sum.bag_sum_cuda(self.table.weight, indices, offsets)
