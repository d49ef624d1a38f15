#!/usr/bin/env python3
"""Measure the ceilings that replay timings are read against (METHOD.md):
device-to-device copy bandwidth (bytes read + written), host-to-device copy
(pageable and pinned), the CPU and GPU random-number rates that input
generation costs, and the fp32 matmul rate (TF32 off, as KernelBench runs).
Each figure: warm-up, CUDA events (or a synchronised host clock for CPU work),
the median of several repeats.  Prints one JSON object; --out writes it."""
import argparse
import json
import statistics
import time

import torch


def events_ms(fn, reps):
    fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        fn()
        e.record()
        torch.cuda.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


def host_s(fn, reps):
    fn()
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out")
    a = ap.parse_args()
    dev = torch.device("cuda:0")
    p = torch.cuda.get_device_properties(dev)
    r = {"gpu": torch.cuda.get_device_name(dev), "sms": p.multi_processor_count,
         "mem_gib": round(p.total_memory / 2**30, 1), "torch": torch.__version__,
         "cuda": torch.version.cuda, "cpu_threads": torch.get_num_threads()}
    n = 1 << 30                                   # 4 GiB of fp32
    x = torch.rand(n, device=dev)
    y = torch.empty_like(x)
    ms = events_ms(lambda: y.copy_(x), 10)
    r["d2d_copy_GBps"] = round(2 * 4 * n / ms / 1e6, 1)
    r["gpu_rand_Gelem_per_s"] = round(n / events_ms(lambda: x.uniform_(), 10) / 1e6, 1)
    del y
    m = 1 << 28                                   # 1 GiB
    h = torch.rand(m)
    d = torch.empty(m, device=dev)
    r["h2d_pageable_GBps"] = round(4 * m / host_s(lambda: d.copy_(h), 5) / 1e9, 1)
    hp = h.pin_memory()
    r["h2d_pinned_GBps"] = round(4 * m / host_s(lambda: d.copy_(hp, non_blocking=True), 5) / 1e9, 1)
    k = 1 << 26                                   # 64 Mi elements on the CPU
    t = time.perf_counter(); torch.rand(k); dt = time.perf_counter() - t
    r["cpu_rand_Melem_per_s"] = round(k / dt / 1e6, 1)
    torch.backends.cuda.matmul.allow_tf32 = False
    A = torch.rand(8192, 8192, device=dev)
    B = torch.rand(8192, 8192, device=dev)
    ms = events_ms(lambda: A @ B, 10)
    r["fp32_matmul_TFLOPs"] = round(2 * 8192**3 / ms / 1e9, 1)
    print(json.dumps(r), flush=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(r, f, indent=1)


if __name__ == "__main__":
    main()
