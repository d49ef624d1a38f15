# headroom CPU sample: fails to build.  The extension's first line names a
# header that does not exist (torch/extention.h), so the compiler stops
# there, within a second.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

gemm_source = """
#include <torch/extention.h>

torch::Tensor matmul_scale_add(torch::Tensor a, torch::Tensor b,
                               torch::Tensor c, double alpha) {
    return torch::addmm(c, a, b, 1.0, alpha);
}
"""

gemm = load_inline(
    name="hr_cpu_sample_gemm",
    cpp_sources=[gemm_source],
    functions=["matmul_scale_add"],
    no_implicit_headers=True,
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, alpha: float):
        super(ModelNew, self).__init__()
        self.alpha = alpha

    def forward(self, A, B, C):
        return gemm.matmul_scale_add(A, B, C, self.alpha)
