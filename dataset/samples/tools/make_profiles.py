#!/usr/bin/env python3
"""make_profiles.py OUTDIR - write the sample's profiler traces
(dataset/samples/profiles/*.pt.trace.json.gz): small PyTorch-profiler-
shaped Chrome traces of four made-up workloads, so that `make run` shows
a profile table and both profile figures without a GPU.  Every kernel
list and duration below was written by the project as sample data: they
are not measurements of any model (docs/profiles.md says how real ones
are made).  Deterministic: the same bytes on every run (gzip mtime 0).
Standard library only."""
import gzip
import json
import os
import sys

# workload -> (domain, stack, [(kernel name, cat, duration us, stream)]),
# one step; each step is repeated STEPS times.
# Shared by the eager and the compiled transformer (Inductor leaves cuBLAS
# GEMMs and FlashAttention in place and fuses what lies between).
GEMM = ("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_"
        "warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_cublas",
        "kernel", 120, 7)
FLASH = ("void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits"
         "<128, 128, 64, 4, false, false, cutlass::bfloat16_t>>(pytorch_"
         "flash::Flash_fwd_params)", "kernel", 60, 7)

WORKLOADS = {
    "sample-gpt-eager": ("transformer", "eager", [
        ("void at::native::(anonymous namespace)::indexSelectLargeIndex"
         "<float, long, unsigned int, 2, 2, -2, true>()", "kernel", 4, 7),
        ("void at::native::(anonymous namespace)::vectorized_layer_norm_"
         "kernel<float, float>(int, float, float const*)", "kernel", 9, 7),
        GEMM,
        FLASH,
        ("void at::native::vectorized_elementwise_kernel<4, at::native::"
         "GeluCUDAKernelImpl(at::TensorIteratorBase&, at::native::"
         "GeluType)::{lambda()#2}, std::array<char*, 2ul> >(int)",
         "kernel", 14, 7),
        ("nvjet_tst_192x192_64x3_2x1_v_bz_coopA_TNT", "kernel", 95, 7),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::"
         "CUDAFunctor_add<c10::BFloat16>, std::array<char*, 3ul> >(int)",
         "kernel", 8, 7),
        ("void (anonymous namespace)::softmax_warp_forward<c10::BFloat16, "
         "c10::BFloat16, float, 10, false, false>()", "kernel", 6, 7),
    ]),
    "sample-gpt-compile": ("transformer", "compile", [
        ("triton_red_fused_embedding_native_layer_norm_0", "kernel", 10, 7),
        GEMM,
        FLASH,
        ("triton_poi_fused_add_gelu_1", "kernel", 9, 7),
        ("nvjet_tst_192x192_64x3_2x1_v_bz_coopA_TNT", "kernel", 95, 7),
        ("triton_per_fused__softmax_2", "kernel", 4, 7),
    ]),
    "sample-dlrm": ("recommender", "eager", [
        ("Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 12, 7),
        ("void at::native::(anonymous namespace)::EmbeddingBag_update"
         "OutputKernel_sum_mean<float, long>(long const*)", "kernel", 210, 7),
        ("volta_sgemm_128x32_nn", "kernel", 40, 7),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::"
         "(anonymous namespace)::launch_clamp_scalar()::{lambda()#1}, "
         "std::array<char*, 2ul> >(int)", "kernel", 11, 7),
        ("ampere_sgemm_32x32_sliced1x4_nn", "kernel", 18, 13),
        ("void at::native::(anonymous namespace)::CatArrayBatchedCopy_"
         "aligned16_contig<float, unsigned int, 2, 128, 1>()", "kernel", 9,
         7),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::"
         "(anonymous namespace)::sigmoid_kernel_cuda()::{lambda()#2}, "
         "std::array<char*, 2ul> >(int)", "kernel", 3, 7),
    ]),
    "sample-resnet": ("cnn", "eager", [
        ("sm80_xmma_fprop_implicit_gemm_f16f16_f16f32_f32_nhwckrsc_nhwc_"
         "tilesize128x32x32_stage4_warpsize4x1x1_g1_tensor16x8x16_execute_"
         "kernel__5x_cudnn", "kernel", 150, 7),
        ("void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float, int, 512, "
         "true, 1>(cudnnTensorStruct)", "kernel", 45, 7),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::"
         "(anonymous namespace)::launch_clamp_scalar()::{lambda()#1}, "
         "std::array<char*, 2ul> >(int)", "kernel", 20, 7),
        ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<"
         "float, at::native::MeanOps<float, float, float, float>, "
         "unsigned int, float, 4>>()", "kernel", 5, 7),
        ("volta_sgemm_128x32_nn", "kernel", 6, 7),
    ]),
}
STEPS = 3


def trace(workload):
    domain, stack, step = WORKLOADS[workload]
    events, ts, corr = [], 1000.0, 1
    for _ in range(STEPS):
        for name, cat, dur, stream in step:
            events.append({"ph": "X", "cat": "cuda_runtime",
                           "name": "cudaLaunchKernel", "pid": 1234,
                           "tid": 1234, "ts": round(ts - 3, 3),
                           "dur": 2.5, "args": {"correlation": corr}})
            events.append({"ph": "X", "cat": cat, "name": name, "pid": 0,
                           "tid": stream, "ts": round(ts, 3), "dur": dur,
                           "args": {"device": 0, "stream": stream,
                                    "correlation": corr}})
            # The second stream runs beside the first.
            ts += dur + 1 if stream == 7 else 0
            corr += 1
    return {"schemaVersion": 1,
            "deviceProperties": [{"id": 0, "name": "Sample GPU"}],
            "headroom_workload": workload, "headroom_domain": domain,
            "headroom_stack": stack, "traceEvents": events,
            "traceName": workload + ".pt.trace.json"}


def main():
    out = sys.argv[1]
    for w in WORKLOADS:
        data = json.dumps(trace(w), indent=1).encode() + b"\n"
        with open(os.path.join(out, w + ".pt.trace.json.gz"), "wb") as f:
            f.write(gzip.compress(data, 9, mtime=0))


if __name__ == "__main__":
    main()
