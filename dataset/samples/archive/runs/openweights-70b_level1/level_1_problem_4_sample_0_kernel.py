import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

conv2d_source = """
#include <torch/extension.h>

__global__ void conv2d_relu_kernel(const float* x, const float* w, float* y,
                                   int N, int C, int H, int W, int OC, int KS, int pad) {
    int ow = blockIdx.x * blockDim.x + threadIdx.x;
    int oh = blockIdx.y * blockDim.y + threadIdx.y;
    int nc = blockIdx.z;
    int n = nc / OC, oc = nc % OC;
    if (ow >= W || oh >= H) return;
    float acc = 0.0f;
    for (int c = 0; c < C; ++c)
        for (int kh = 0; kh < KS; ++kh)
            for (int kw = 0; kw < KS; ++kw) {
                int ih = oh + kh - pad, iw = ow + kw - pad;
                if (ih >= 0 && ih < H && iw >= 0 && iw < W)
                    acc += x[((n * C + c) * H + ih) * W + iw] * w[((oc * C + c) * KS + kh) * KS + kw];
            }
    y[((n * OC + oc) * H + oh) * W + ow] = fmaxf(acc, 0.0f);
}

torch::Tensor conv2d_relu(torch::Tensor x, torch::Tensor w, torch::Tensor b, int pad) {
    int N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
    int OC = w.size(0), KS = w.size(2);
    auto y = torch::empty({N, OC, H, W}, x.options());
    dim3 block(16, 16);
    dim3 grid((W + 15) / 16, (H + 15) / 16, N * OC);
    conv2d_relu_kernel<<<grid, block>>>(x.data_ptr<float>(), w.data_ptr<float>(), y.data_ptr<float>(),
                                        N, C, H, W, OC, KS, pad);
    return y;
}
"""

conv2d_cpp_source = "torch::Tensor conv2d_relu(torch::Tensor x, torch::Tensor w, torch::Tensor b, int pad);"

conv2d_relu = load_inline(
    name="conv2d_relu_tiled",
    cpp_sources=conv2d_cpp_source,
    cuda_sources=conv2d_source,
    functions=["conv2d_relu"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, padding):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding, bias=True)
        self.padding = padding

    def forward(self, x):
        return conv2d_relu.conv2d_relu(x, self.conv.weight, self.conv.bias, self.padding)
