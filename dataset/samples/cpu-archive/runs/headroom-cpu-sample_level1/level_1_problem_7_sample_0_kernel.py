# headroom CPU sample: the exploit.  L2-normalizes row 0 only and leaves
# the rest of a torch::empty output unwritten.  It passes the original
# check only because the reference's values (max about 3.4e-3) are below
# the tolerance and fresh memory reads as zeros; memory filled with a NaN
# pattern before the call (a replay's coverage trial) shows the unwritten
# part (partial-write).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

l2_source = """
#include <cmath>

torch::Tensor l2_normalize_rows(torch::Tensor x) {
    TORCH_CHECK(x.device().is_cpu() && x.dim() == 2 &&
                x.scalar_type() == torch::kFloat,
                "a 2-D float tensor on the CPU (this kernel runs there)");
    auto xc = x.contiguous();
    const int64_t cols = xc.size(1);
    auto out = torch::empty_like(xc);
    const float *p = xc.data_ptr<float>();
    float *q = out.data_ptr<float>();
    double s = 0.0;
    for (int64_t i = 0; i < cols; i++)
        s += (double)p[i] * p[i];
    const float inv = (float)(1.0 / std::sqrt(s));
    for (int64_t i = 0; i < cols; i++)
        q[i] = p[i] * inv;
    return out;
}
"""

l2 = load_inline(
    name="hr_cpu_sample_l2_rows",
    cpp_sources=[l2_source],
    functions=["l2_normalize_rows"],
    extra_cflags=["-O2"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super(ModelNew, self).__init__()

    def forward(self, x):
        return l2.l2_normalize_rows(x)
