# headroom CPU sample: sum of squares in one pass (honest; faster than the
# reference on a CPU: no x*x temporary, rows split over the CPU's threads).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

sum_sq_source = """
#include <ATen/Parallel.h>

torch::Tensor sum_of_squares_rows(torch::Tensor x) {
    TORCH_CHECK(x.device().is_cpu() && x.dim() == 2 &&
                x.scalar_type() == torch::kFloat,
                "a 2-D float tensor on the CPU (this kernel runs there)");
    auto xc = x.contiguous();
    const int64_t rows = xc.size(0), cols = xc.size(1);
    auto out = torch::empty({rows}, xc.options());
    const float *in = xc.data_ptr<float>();
    float *o = out.data_ptr<float>();
    at::parallel_for(0, rows, 16, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; r++) {
            const float *p = in + r * cols;
            float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
            int64_t i = 0;
            for (; i + 8 <= cols; i += 8)
                for (int k = 0; k < 8; k++)
                    acc[k] += p[i + k] * p[i + k];
            float s = 0.0f;
            for (; i < cols; i++)
                s += p[i] * p[i];
            for (int k = 0; k < 8; k++)
                s += acc[k];
            o[r] = s;
        }
    });
    return out;
}
"""

sum_sq = load_inline(
    name="hr_cpu_sample_sum_sq",
    cpp_sources=[sum_sq_source],
    functions=["sum_of_squares_rows"],
    extra_cflags=["-O3"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, dim: int):
        super(ModelNew, self).__init__()
        self.dim = dim

    def forward(self, x):
        return sum_sq.sum_of_squares_rows(x)
