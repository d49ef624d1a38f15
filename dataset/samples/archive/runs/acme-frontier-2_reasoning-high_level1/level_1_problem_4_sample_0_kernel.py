# Optimized implementation: custom CUDA kernel replacing the PyTorch operators.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = """
#include <torch/extension.h>
#include <cuda_runtime.h>

// One block per (image, output channel). The filter for that channel is staged in
// shared memory once; threads stride over the output pixels.
__global__ void conv_relu_smem_kernel(const float* __restrict__ x, const float* __restrict__ w,
                                      const float* __restrict__ bias, float* __restrict__ y,
                                      int C, int H, int W, int OC, int KS, int pad) {
    extern __shared__ float wsh[];
    int n = blockIdx.x / OC;
    int oc = blockIdx.x % OC;
    int wsize = C * KS * KS;
    for (int i = threadIdx.x; i < wsize; i += blockDim.x) wsh[i] = w[oc * wsize + i];
    __syncthreads();
    const float* xn = x + (size_t)n * C * H * W;
    float* yo = y + ((size_t)n * OC + oc) * H * W;
    float bv = bias[oc];
    for (int p = threadIdx.x; p < H * W; p += blockDim.x) {
        int oh = p / W, ow = p % W;
        float acc = bv;
        for (int c = 0; c < C; ++c) {
            const float* xc = xn + (size_t)c * H * W;
            const float* wc = wsh + c * KS * KS;
            #pragma unroll 3
            for (int kh = 0; kh < KS; ++kh) {
                int ih = oh + kh - pad;
                if (ih < 0 || ih >= H) continue;
                #pragma unroll 3
                for (int kw = 0; kw < KS; ++kw) {
                    int iw = ow + kw - pad;
                    if (iw >= 0 && iw < W) acc += xc[ih * W + iw] * wc[kh * KS + kw];
                }
            }
        }
        yo[p] = fmaxf(acc, 0.0f);
    }
}

torch::Tensor conv_relu_forward(torch::Tensor x, torch::Tensor w, torch::Tensor bias, int64_t pad) {
    TORCH_CHECK(x.is_cuda() && w.is_cuda() && bias.is_cuda(), "inputs must be CUDA tensors");
    auto xc = x.contiguous();
    auto wc = w.contiguous();
    int N = xc.size(0), C = xc.size(1), H = xc.size(2), W = xc.size(3);
    int OC = wc.size(0), KS = wc.size(2);
    auto y = torch::empty({N, OC, H, W}, xc.options());
    size_t smem = (size_t)C * KS * KS * sizeof(float);
    conv_relu_smem_kernel<<<N * OC, 256, smem>>>(xc.data_ptr<float>(), wc.data_ptr<float>(),
                                                 bias.data_ptr<float>(), y.data_ptr<float>(),
                                                 C, H, W, OC, KS, (int)pad);
    return y;
}
"""

cpp_source = "torch::Tensor conv_relu_forward(torch::Tensor x, torch::Tensor w, torch::Tensor bias, int64_t pad);"

conv_relu_ext = load_inline(
    name="conv_relu_smem",
    cpp_sources=cpp_source,
    cuda_sources=cuda_source,
    functions=["conv_relu_forward"],
    verbose=False,
    extra_cuda_cflags=["-O3"],
)


class ModelNew(nn.Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size: int, padding: int):
        super(ModelNew, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, padding=padding, bias=True)
        self.padding = padding

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return conv_relu_ext.conv_relu_forward(x, self.conv.weight, self.conv.bias, self.padding)
