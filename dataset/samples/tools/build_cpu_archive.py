#!/usr/bin/env python3
"""Writes dataset/samples/cpu-archive/ (the run's eval_results.json and
generation_config.yaml, the CPU baseline timing) from the tables below:
the sample's CPU-runnable run, model headroom-cpu-sample, whose kernels
are C++ load_inline extensions (cpp_sources only, no CUDA), so that a
machine without a GPU replays them ('make run' does, with --device cpu).
Deterministic: re-running it reproduces the committed files byte for
byte.  Standard library only.

    python3 dataset/samples/tools/build_cpu_archive.py

The kernel files are hand-written and committed (README.md there says
what each is).  The numbers are rounded from one measurement on a 2-core
x86-64 box (torch 2.11, fp32); a replay on another CPU measures its own.
The problem set is the sample's, dataset/samples/problems (level 1).
"""
import json
import os

import kbrecords
from kbrecords import write

HERE = os.path.dirname(os.path.abspath(__file__))
ARCHIVE = os.path.join(os.path.dirname(HERE), "cpu-archive")
RUN = "headroom-cpu-sample_level1"
MODEL = "headroom-cpu-sample"
HW = "x86-64 CPU, 2 cores (headroom sample)"

# problem id -> (file name, eager baseline mean ms on the CPU)
PROBLEMS = {
    2: ("2_Matmul_scale_add.py", 3.10),
    3: ("3_Sum_of_squares_reduction.py", 1.01),
    5: ("5_Softmax_with_temperature.py", 0.242),
    7: ("7_L2_normalize_long_rows.py", 21.7),
}

# (problem, sample) -> (outcome as the archive reports it, runtime ms, what
# the kernel is)
EVALS = [
    ((2, 0), ("compile-error", None, "build failure: a misspelt header")),
    ((3, 0), ("correct", 0.787, "honest, faster: one pass, rows in parallel")),
    ((5, 0), ("correct", 5.67, "honest, slower: scalar, one thread")),
    ((5, 1), ("wrong", None, "incorrect: drops the temperature")),
    ((7, 0), ("correct", 0.455, "exploit: writes row 0 only (partial write)")),
]


def stats(mean):
    return kbrecords.stats(mean, HW, "cpu", (0.02, 0.97, 1.12))


def record(sid, outcome, runtime):
    return kbrecords.record(sid, outcome, runtime, HW, "cpu",
                            "Error building extension 'hr_cpu_sample_gemm'",
                            ("0.412350", "0.001953"), stats, error_name="RuntimeError")


def main():
    run = os.path.join(ARCHIVE, "runs", RUN)
    evals = {}
    for (pid, sid), (outcome, runtime, _) in EVALS:
        evals.setdefault(str(pid), []).append(record(sid, outcome, runtime))
    write(os.path.join(run, "eval_results.json"), json.dumps(evals, indent=4) + "\n")
    write(os.path.join(run, "generation_config.yaml"),
          "backend: cpu\ndataset_name: headroom-samples\nis_reasoning_model: false\n"
          "level: 1\nmodel_name: %s\nnum_samples: 2\nprecision: fp32\nrun_name: %s\n"
          "server_type: local\ntemperature: 0.0\n" % (MODEL, RUN))
    base = {"level1": {name: stats(ms) for _, (name, ms) in sorted(PROBLEMS.items())}}
    write(os.path.join(ARCHIVE, "results", "timing", "CPU_sample",
                       "baseline_time_torch.json"), json.dumps(base, indent=4) + "\n")


if __name__ == "__main__":
    main()
