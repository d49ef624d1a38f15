"""gen_kernelbench.py OUT RUNS PROBLEMS SAMPLES - write synthetic KernelBench
run directories for the ingest benchmark (standard library only).

OUT/runs/model_<r>_level_1/ gets generation_config.yaml, eval_results.json
(the array schema) and one kernel file per record, each a distinct ~2 KB
module; OUT/timing/BENCH_GPU/ gets eager and inductor baselines, so the
reader also computes speedups.  Deterministic: the same arguments give
the same bytes.
"""
import json
import os
import random
import sys

BODY = '''import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

source = r"""
__global__ void kernel_{tag}(const float *x, float *y, int n) {{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] * {scale}f + {shift}f;
}}
"""
''' + "# padding to a realistic size\n" * 50 + '''

class ModelNew(nn.Module):
    def forward(self, x):
        return x * {scale} + {shift}
'''


def main():
    out, runs, problems, samples = sys.argv[1], *map(int, sys.argv[2:5])
    rng = random.Random(1)
    gpu = "BENCH GPU"
    for r in range(runs):
        d = os.path.join(out, "runs", "model_%d_level_1" % r)
        os.makedirs(d)
        with open(os.path.join(d, "generation_config.yaml"), "w") as f:
            f.write("model_name: bench-model-%d\nprecision: fp32\n" % r)
        results = {}
        for p in range(1, problems + 1):
            recs = []
            for s in range(samples):
                ok = rng.random() < 0.6
                t = round(rng.uniform(0.1, 10.0), 3)
                recs.append({
                    "sample_id": s, "compiled": True, "correctness": ok,
                    "metadata": {"hardware": gpu, "device": "cuda:0",
                                 "correctness_trials": "(5 / 5)" if ok
                                 else "(0 / 5)"},
                    "runtime": t if ok else -1.0,
                    "runtime_stats": {"mean": t, "std": 0.01, "min": t,
                                      "max": t, "num_trials": 100,
                                      "hardware": gpu, "device": "cuda:0"}
                    if ok else {}})
                name = "level_1_problem_%d_sample_%d_kernel.py" % (p, s)
                with open(os.path.join(d, name), "w") as f:
                    f.write(BODY.format(tag="%d_%d_%d" % (r, p, s),
                                        scale=rng.randint(1, 99),
                                        shift=rng.randint(1, 99)))
            results[str(p)] = recs
        with open(os.path.join(d, "eval_results.json"), "w") as f:
            json.dump(results, f, indent=4)
    t = os.path.join(out, "timing", "BENCH_GPU")
    os.makedirs(t)
    for fname in ("baseline_time_torch.json",
                  "baseline_time_torch_compile_inductor_default.json"):
        lv = {"%d_Problem_%d.py" % (p, p): {
            "mean": round(rng.uniform(0.1, 10.0), 3), "std": 0.01,
            "min": 0.1, "max": 10.0, "num_trials": 100, "hardware": gpu,
            "device": "cuda:0"} for p in range(1, problems + 1)}
        with open(os.path.join(t, fname), "w") as f:
            json.dump({"level1": lv}, f)


main()
