# Optimized implementation: custom CUDA kernel replacing the PyTorch operators.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

conv_relu_source = """
#include <torch/extension.h>

// Direct convolution, one thread per output element, bias and ReLU fused.
__global__ void conv2d_relu_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                   const float* __restrict__ b, float* __restrict__ y,
                                   int N, int C, int H, int W, int OC, int KS, int pad) {
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    int total = N * OC * H * W;
    if (idx >= total) return;
    int ow = idx % W;
    int oh = (idx / W) % H;
    int oc = (idx / (W * H)) % OC;
    int n = idx / (W * H * OC);
    float acc = b[oc];
    for (int c = 0; c < C; ++c) {
        for (int kh = 0; kh < KS; ++kh) {
            int ih = oh + kh - pad;
            if (ih < 0 || ih >= H) continue;
            for (int kw = 0; kw < KS; ++kw) {
                int iw = ow + kw - pad;
                if (iw < 0 || iw >= W) continue;
                acc += x[((n * C + c) * H + ih) * W + iw] * w[((oc * C + c) * KS + kh) * KS + kw];
            }
        }
    }
    y[idx] = acc > 0.0f ? acc : 0.0f;
}

torch::Tensor conv2d_relu_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b, int pad) {
    int N = x.size(0), C = x.size(1), H = x.size(2), W = x.size(3);
    int OC = w.size(0), KS = w.size(2);
    auto y = torch::empty({N, OC, H, W}, x.options());
    int total = N * OC * H * W;
    int threads = 256;
    int blocks = (total + threads - 1) / threads;
    conv2d_relu_kernel<<<blocks, threads>>>(x.data_ptr<float>(), w.data_ptr<float>(), b.data_ptr<float>(),
                                            y.data_ptr<float>(), N, C, H, W, OC, KS, pad);
    return y;
}
"""

conv_relu_cpp_source = "torch::Tensor conv2d_relu_cuda(torch::Tensor x, torch::Tensor w, torch::Tensor b, int pad);"

conv_relu = load_inline(
    name="conv2d_relu",
    cpp_sources=conv_relu_cpp_source,
    cuda_sources=conv_relu_source,
    functions=["conv2d_relu_cuda"],
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, padding):
        super(ModelNew, self).__init__()
        # keep nn.Conv2d only as the parameter container so the weights match the reference
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding, bias=True)
        self.padding = padding

    def forward(self, x):
        return conv_relu.conv2d_relu_cuda(x.contiguous(), self.conv.weight.contiguous(),
                                          self.conv.bias.contiguous(), self.padding)
