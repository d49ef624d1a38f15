# headroom GPU test candidate (written by the headroom project, not by a model)
# DLRM-Bench problem 11 (per-sample binary cross-entropy with logits, 16384
# samples).  One fused pass computing max(z, 0) - z y + log1p(exp(-|z|)),
# the stable form, instead of the reference's chain of elementwise
# kernels.  Expected: compiled, correct, faster (launch-bound sizes).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void bce_logits(const float* __restrict__ z, const float* __restrict__ y,
                           float* __restrict__ out, long long n) {
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        float zi = z[i];
        out[i] = fmaxf(zi, 0.f) - zi * y[i] + log1pf(expf(-fabsf(zi)));
    }
}

torch::Tensor bce_cuda(torch::Tensor logits, torch::Tensor labels) {
    TORCH_CHECK(logits.is_cuda() && labels.is_cuda(), "CUDA tensors wanted");
    TORCH_CHECK(logits.scalar_type() == torch::kFloat32 && labels.scalar_type() == torch::kFloat32,
                "float32 wanted");
    TORCH_CHECK(logits.sizes() == labels.sizes(), "one label per logit");
    logits = logits.contiguous();
    labels = labels.contiguous();
    auto out = torch::empty_like(logits);
    long long n = logits.numel();
    if (n == 0) return out;
    int threads = 256;
    long long blocks = (n + threads - 1) / threads;
    if (blocks > 132 * 32) blocks = 132 * 32;
    bce_logits<<<(unsigned)blocks, threads>>>(logits.data_ptr<float>(), labels.data_ptr<float>(),
                                              out.data_ptr<float>(), n);
    return out;
}
"""

cpp_source = "torch::Tensor bce_cuda(torch::Tensor logits, torch::Tensor labels);"

bce = load_inline(
    name="hr_dlrm_bce",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["bce_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, logits, labels):
        return bce.bce_cuda(logits, labels)
