# headroom GPU test candidate (written by the headroom project, not by a model)
# KernelBench level 1 problem 40 (LayerNorm over (64, 256, 256), batch 16).
# Two launches: per-sample sum and sum of squares in double (block reduction +
# atomicAdd), then one normalising pass with the affine weight and bias.
# Expected: compiled, correct.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void ln_stats(const float* __restrict__ x, double* __restrict__ stats, long n_per) {
    int b = blockIdx.y;
    const float* xb = x + (size_t)b * n_per;
    double s = 0.0, q = 0.0;
    for (long i = blockIdx.x * (long)blockDim.x + threadIdx.x; i < n_per; i += (long)gridDim.x * blockDim.x) {
        double v = xb[i];
        s += v; q += v * v;
    }
    __shared__ double ss[32], qq[32];
    for (int off = 16; off > 0; off >>= 1) {
        s += __shfl_down_sync(0xffffffff, s, off);
        q += __shfl_down_sync(0xffffffff, q, off);
    }
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) { ss[warp] = s; qq[warp] = q; }
    __syncthreads();
    if (warp == 0) {
        int nw = blockDim.x / 32;
        s = lane < nw ? ss[lane] : 0.0;
        q = lane < nw ? qq[lane] : 0.0;
        for (int off = 16; off > 0; off >>= 1) {
            s += __shfl_down_sync(0xffffffff, s, off);
            q += __shfl_down_sync(0xffffffff, q, off);
        }
        if (lane == 0) { atomicAdd(&stats[2 * b], s); atomicAdd(&stats[2 * b + 1], q); }
    }
}

__global__ void ln_apply(const float* __restrict__ x, const double* __restrict__ stats,
                         const float* __restrict__ w, const float* __restrict__ bias,
                         float* __restrict__ y, long n_per, int batch, float eps) {
    size_t n = (size_t)n_per * batch;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        int b = i / n_per;
        long j = i % n_per;
        double mean = stats[2 * b] / n_per;
        double var = stats[2 * b + 1] / n_per - mean * mean;
        float rstd = (float)(1.0 / sqrt(var + eps));
        y[i] = ((x[i] - (float)mean) * rstd) * w[j] + bias[j];
    }
}

torch::Tensor layernorm_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b, double eps) {
    TORCH_CHECK(x.is_cuda(), "input must be a CUDA tensor");
    x = x.contiguous();
    long n_per = w.numel();
    int batch = x.numel() / n_per;
    auto stats = torch::zeros({2 * batch}, x.options().dtype(torch::kFloat64));
    auto y = torch::empty_like(x);
    dim3 sgrid(128, batch);
    ln_stats<<<sgrid, 512>>>(x.data_ptr<float>(), stats.data_ptr<double>(), n_per);
    ln_apply<<<132 * 8, 256>>>(x.data_ptr<float>(), stats.data_ptr<double>(),
        w.contiguous().data_ptr<float>(), b.contiguous().data_ptr<float>(),
        y.data_ptr<float>(), n_per, batch, (float)eps);
    return y;
}
"""

cpp_source = "torch::Tensor layernorm_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b, double eps);"

layernorm = load_inline(
    name="hr_layernorm",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["layernorm_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, normalized_shape: tuple):
        super(ModelNew, self).__init__()
        self.normalized_shape = tuple(normalized_shape)
        self.weight = nn.Parameter(torch.ones(self.normalized_shape))
        self.bias = nn.Parameter(torch.zeros(self.normalized_shape))
        self.eps = 1e-5

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return layernorm.layernorm_cuda(x, self.weight, self.bias, self.eps)
