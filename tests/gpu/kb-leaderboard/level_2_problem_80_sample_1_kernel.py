# headroom GPU test candidate (written by the headroom project, not by a model)
# KernelBench level 2 problem 80 at today's sizes, computed: cuBLAS's GEMM
# (torch's addmm), then one kernel a row for the max, the subtraction of
# the one-column mean and the GELU.  Honest, and still no win: the problem's
# output is zero for every input, so no check tells it from a zero writer.
# headroom-expect: not-a-win (zero-output, computed)
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void row_max_sub_gelu(const float* __restrict__ h, float* __restrict__ y, int64_t cols) {
    __shared__ float part[256];
    const float* row = h + blockIdx.x * cols;
    float m = -INFINITY;
    for (int64_t j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, row[j]);
    part[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] = fmaxf(part[threadIdx.x], part[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        float v = part[0] - part[0];            // minus the mean of its one column
        y[blockIdx.x] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
    }
}

torch::Tensor max_sub_gelu(torch::Tensor h) {
    TORCH_CHECK(h.is_cuda() && h.dim() == 2, "h must be a 2-D CUDA tensor");
    h = h.contiguous();
    auto y = torch::empty({h.size(0), 1}, h.options());
    row_max_sub_gelu<<<(unsigned)h.size(0), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        h.data_ptr<float>(), y.data_ptr<float>(), h.size(1));
    return y;
}
"""

cpp_source = "torch::Tensor max_sub_gelu(torch::Tensor h);"

fused = load_inline(name="hr_kb80_rows", cpp_sources=cpp_source, cuda_sources=cuda_source,
                    functions=["max_sub_gelu"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self, in_features, out_features, max_dim):
        super(ModelNew, self).__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.max_dim = max_dim

    def forward(self, x):
        return fused.max_sub_gelu(torch.addmm(self.gemm.bias, x, self.gemm.weight.t()))
