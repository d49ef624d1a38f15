import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

conv_source = """
#include <torch/extension.h>

__global__ void conv_relu_kernel(const float* x, const float* w, const float* b, float* y,
                                 int N, int C, int H, int W, int OC, int KS, int pad) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= N * OC * H * W) return;
    int ow = idx % W, oh = (idx / W) % H, oc = (idx / (H * W)) % OC, n = idx / (H * W * OC);
    float acc = b[oc];
    for (int c = 0; c < C; ++c)
        for (int kh = 0; kh < KS; ++kh)
            for (int kw = 0; kw < KS; ++kw) {
                int ih = oh + kh - pad, iw = ow + kw - pad;
                if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                    acc += x[((n * C + c) * H + ih) * W + iw] * w[((oc * C + c) * KS + kh) * KS + kw];
            }
    y[idx] = acc > 0.0f ? acc : 0.0f;
}

torch::Tensor conv_relu_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b, int pad) {
    int N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
    int OC = w.size(0), KS = w.size(2);
    auto y = torch::empty({N, OC, H, W}, x.options());
    int total = N * OC * H * W;
    conv_relu_kernel<<<(total + 255) / 256, 256>>>(x.data_ptr<float>(), w.data_ptr<float>, b.data_ptr<float>(),
                                                   y.data_ptr<float>(), N, C, H, W, OC, KS, pad);
    return y;
}
"""

conv_cpp_source = "torch::Tensor conv_relu_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b, int pad);"

conv_relu = load_inline(
    name="conv_relu",
    cpp_sources=conv_cpp_source,
    cuda_sources=conv_source,
    functions=["conv_relu_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, padding):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding, bias=True)
        self.padding = padding

    def forward(self, x):
        return conv_relu.conv_relu_cuda(x, self.conv.weight, self.conv.bias, self.padding)
