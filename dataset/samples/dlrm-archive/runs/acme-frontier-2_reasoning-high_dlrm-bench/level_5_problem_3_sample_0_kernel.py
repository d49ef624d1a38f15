# Optimized implementation: custom CUDA kernel replacing the PyTorch operators.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

# One warp per (table, sample) bag; the pooled row goes to its slot in the
# concatenated output.  (Does not compile: `lane` is used undeclared.)
cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void bags_kernel(const float* const* tables, const long long* ids,
                            const long long* offsets, long long nbags, long long nnz,
                            int ntables, int dim, float* out) {
    long long bag = (long long)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    if (bag >= nbags) return;
    long long batch = nbags / ntables;
    int table = (int)(bag / batch);
    long long sample = bag % batch;
    long long end = bag + 1 < nbags ? offsets[bag + 1] : nnz;
    for (int c = lane; c < dim; c += 32) {
        float acc = 0.0f;
        for (long long k = offsets[bag]; k < end; k++)
            acc += tables[table][ids[k] * dim + c];
        out[(sample * ntables + table) * dim + c] = acc;
    }
}

torch::Tensor bags_cuda(std::vector<torch::Tensor> tables, torch::Tensor ids,
                        torch::Tensor offsets) {
    int ntables = (int)tables.size();
    int dim = (int)tables[0].size(1);
    long long nbags = offsets.size(0) - 1;
    auto out = torch::empty({nbags / ntables, ntables * dim}, tables[0].options());
    std::vector<const float*> ptrs;
    for (auto& t : tables) ptrs.push_back(t.data_ptr<float>());
    auto dptrs = torch::from_blob(ptrs.data(), {ntables}, torch::kInt64).to(ids.device());
    int warps = 8;
    bags_kernel<<<(unsigned)((nbags + warps - 1) / warps), warps * 32>>>(
        (const float* const*)dptrs.data_ptr<int64_t>(), ids.data_ptr<int64_t>(),
        offsets.data_ptr<int64_t>(), nbags, ids.size(0), ntables, dim, out.data_ptr<float>());
    return out;
}
"""

cpp_source = ("torch::Tensor bags_cuda(std::vector<torch::Tensor> tables, torch::Tensor ids, "
              "torch::Tensor offsets);")

bags = load_inline(
    name="acme_dlrm_bags26",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["bags_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, table_rows, embedding_dim):
        super(ModelNew, self).__init__()
        self.tables = nn.ModuleList(
            nn.EmbeddingBag(n, embedding_dim, mode="sum") for n in table_rows)

    def forward(self, indices, offsets):
        return bags.bags_cuda([t.weight for t in self.tables], indices, offsets)
