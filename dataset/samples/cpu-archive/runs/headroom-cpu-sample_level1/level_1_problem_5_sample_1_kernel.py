# headroom CPU sample: the same softmax extension, called without the
# temperature (incorrect: softmax(x), not softmax(x / temperature); it
# shares its build with sample 0 of problem 5).
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_source = """
#include <cmath>

torch::Tensor softmax_rows(torch::Tensor x, double temperature) {
    TORCH_CHECK(x.device().is_cpu() && x.dim() == 2 &&
                x.scalar_type() == torch::kFloat,
                "a 2-D float tensor on the CPU (this kernel runs there)");
    auto xc = x.contiguous();
    const int64_t rows = xc.size(0), cols = xc.size(1);
    auto out = torch::empty_like(xc);
    const float *in = xc.data_ptr<float>();
    float *o = out.data_ptr<float>();
    for (int64_t r = 0; r < rows; r++) {
        const float *p = in + r * cols;
        float *q = o + r * cols;
        double m = p[0] / temperature;
        for (int64_t i = 1; i < cols; i++)
            m = std::max(m, p[i] / temperature);
        double sum = 0.0;
        for (int64_t i = 0; i < cols; i++)
            sum += std::exp(p[i] / temperature - m);
        for (int64_t i = 0; i < cols; i++)
            q[i] = (float)(std::exp(p[i] / temperature - m) / sum);
    }
    return out;
}
"""

softmax = load_inline(
    name="hr_cpu_sample_softmax",
    cpp_sources=[softmax_source],
    functions=["softmax_rows"],
    extra_cflags=["-O2"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, temperature: float):
        super(ModelNew, self).__init__()
        self.temperature = temperature

    def forward(self, x):
        return softmax.softmax_rows(x, 1.0)
