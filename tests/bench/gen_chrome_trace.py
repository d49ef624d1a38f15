#!/usr/bin/env python3
"""gen_chrome_trace.py OUT.json SIZE_MB - write a Kineto-shaped Chrome
trace of about SIZE_MB megabytes for the ingest benchmark
(docs/benchmarks.md): per step a cpu_op, a cuda_runtime launch, its ac2g
flow pair and a kernel with Kineto's args, on two streams, from 64
kernel names; timestamps in us with ns decimals.  Made-up content, never
committed; standard library only."""
import sys

NAMES = ["volta_sgemm_128x32_nn", "ampere_bf16_s16816gemm_bf16_64x64_tn",
         "void at::native::vectorized_elementwise_kernel<4, "
         "at::native::CUDAFunctor_add<float>, std::array<char*, 3ul> >(int)",
         "void at::native::reduce_kernel<512, 1>(int)",
         "void pytorch_flash::flash_fwd_kernel<Flash_fwd_kernel_traits<128>"
         ">(pytorch_flash::Flash_fwd_params)"]
NAMES = [f"{n} [{i}]" for i in range(13) for n in NAMES][:64]


def main():
    out, size = sys.argv[1], int(sys.argv[2]) << 20
    with open(out, "w", buffering=1 << 20) as f:
        f.write('{"schemaVersion": 1, "deviceProperties": [{"id": 0, '
                '"name": "Bench GPU"}], "headroom_workload": "bench", '
                '"traceEvents": [\n')
        ts, i, written = 1000.0, 0, 0
        while written < size:
            name = NAMES[i % len(NAMES)]
            stream = 7 if i % 3 else 13
            chunk = (
                f'{{"ph": "X", "cat": "cpu_op", "name": "aten::op{i % 97}", '
                f'"pid": 4242, "tid": 4242, "ts": {ts:.3f}, "dur": 3.250, '
                f'"args": {{"External id": {i}, "Sequence number": {i}, '
                f'"Record function id": 0, "Ev Idx": {i}}}}},\n'
                f'{{"ph": "X", "cat": "cuda_runtime", "name": '
                f'"cudaLaunchKernel", "pid": 4242, "tid": 4242, '
                f'"ts": {ts + 0.5:.3f}, "dur": 2.125, "args": {{"External '
                f'id": {i}, "cbid": 211, "correlation": {i}}}}},\n'
                f'{{"ph": "s", "id": {i}, "pid": 4242, "tid": 4242, '
                f'"ts": {ts + 0.5:.3f}, "cat": "ac2g", "name": "ac2g"}},\n'
                f'{{"ph": "X", "cat": "kernel", "name": "{name}", "pid": 0, '
                f'"tid": {stream}, "ts": {ts + 4:.3f}, "dur": 5.375, '
                f'"args": {{"External id": {i}, "queued": 0, "device": 0, '
                f'"context": 1, "stream": {stream}, "correlation": {i}, '
                f'"registers per thread": 96, "shared memory": 0, '
                f'"blocks per SM": 0.5, "warps per SM": 2.0, "grid": '
                f'[64, 1, 1], "block": [128, 1, 1], '
                f'"est. achieved occupancy %": 3}}}},\n'
                f'{{"ph": "f", "id": {i}, "pid": 0, "tid": {stream}, '
                f'"ts": {ts + 4:.3f}, "cat": "ac2g", "name": "ac2g", '
                f'"bp": "e"}},\n')
            f.write(chunk)
            written += len(chunk)
            ts += 4.0
            i += 1
        f.write('{"ph": "X", "cat": "Trace", "name": "PyTorch Profiler (0)", '
                '"pid": "Spans", "tid": "PyTorch Profiler", "ts": 1000.0, '
                f'"dur": {ts - 1000.0:.3f}}}\n], "traceName": "bench"}}\n')


if __name__ == "__main__":
    main()
