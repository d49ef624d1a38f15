#!/usr/bin/env python3
"""GPU-only sanity check of the sample kernels' labels (not part of CI).

Builds every distinct kernel variant with load_inline (in parallel), then per
variant, on its problem: KernelBench-style correctness (Model and ModelNew
built after torch.manual_seed(42); 5 trials, fresh inputs per trial, allclose
at atol=rtol=1e-2 and 1e-4), and a quick timing (3 warm-ups, 100 trials, CUDA
events, sync before each, mean) of eager vs the kernel. Prints one line per
variant: label, build, correct@1e-2, correct@1e-4, eager ms, kernel ms,
speedup, and whether that is consistent with the label.

    python3 dataset/samples/tools/gpu_label_check.py [--jobs 16]
"""
import argparse
import concurrent.futures as cf
import importlib.util
import json
import os
import sys
import traceback

import torch

SAMPLES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def load_file(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def time_ms(fn, inputs):
    for _ in range(3):
        fn(*inputs)
    torch.cuda.synchronize()
    ts = []
    for _ in range(100):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        s.record()
        fn(*inputs)
        e.record()
        torch.cuda.synchronize()
        ts.append(s.elapsed_time(e))
    return sum(ts) / len(ts)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=16)
    a = ap.parse_args()
    with open(os.path.join(SAMPLES, "expected.json")) as f:
        exp = json.load(f)
    first = {}
    for e in exp["labels"]:
        first.setdefault(e["variant"], e)
    probs = {}
    for name, p in exp["problems"].items():
        probs[p["problem_id"]] = os.path.join(SAMPLES, "problems", "level1", name)

    def build(v):
        e = first[v]
        path = os.path.join(SAMPLES, "archive", "runs", e["run"],
                            f"level_1_problem_{e['problem_id']}_sample_{e['sample_id']}_kernel.py")
        try:
            return v, load_file(path, "k_" + v), None
        except Exception as ex:
            return v, None, str(ex).splitlines()[0][:100]

    with cf.ThreadPoolExecutor(a.jobs) as pool:
        built = {v: (m, err) for v, m, err in pool.map(build, sorted(first))}

    trial_seeds = []
    torch.manual_seed(42)
    for _ in range(5):
        trial_seeds.append(int(torch.randint(0, 2**31 - 1, (1,)).item()))
    eager_cache = {}
    bad = 0
    for v in sorted(first, key=lambda v: (first[v]["problem_id"], v)):
        e = first[v]
        label = e["label"]
        pid = e["problem_id"]
        m, err = built[v]
        prob = load_file(probs[pid], f"p{pid}")
        line = f"{v:14s} P{pid} label={label:13s} "
        if m is None:
            ok = label == "compile-error"
            bad += not ok
            print(line + f"build=FAIL ({err})  {'OK' if ok else 'INCONSISTENT'}", flush=True)
            continue
        try:
            init = prob.get_init_inputs()
            torch.manual_seed(42)
            ref_model = prob.Model(*init).cuda()
            torch.manual_seed(42)
            new_model = m.ModelNew(*init).cuda()
            c2 = c4 = 0
            with torch.no_grad():
                for s in trial_seeds:
                    torch.manual_seed(s)
                    inputs = [x.cuda() if isinstance(x, torch.Tensor) else x for x in prob.get_inputs()]
                    ref = ref_model(*inputs)
                    out = new_model(*inputs)
                    torch.cuda.synchronize()
                    if out.shape == ref.shape:
                        c2 += bool(torch.allclose(ref, out, atol=1e-2, rtol=1e-2))
                        c4 += bool(torch.allclose(ref, out, atol=1e-4, rtol=1e-4))
                    del out
                if pid not in eager_cache:
                    eager_cache[pid] = time_ms(ref_model, inputs)
                tk = time_ms(new_model, inputs)
            sp = eager_cache[pid] / tk
            correct = c2 == 5
            if label == "fast":
                ok = correct and sp > 1
            elif label == "slow":
                ok = correct and sp < 1
            elif label == "vacuous":
                ok = correct
            else:
                ok = not correct
            bad += not ok
            print(line + f"build=ok correct@1e-2={c2}/5 @1e-4={c4}/5 eager={eager_cache[pid]:.4f}ms "
                  f"kernel={tk:.4f}ms speedup={sp:.2f}  {'OK' if ok else 'INCONSISTENT'}", flush=True)
        except Exception as ex:
            ok = label in ("runtime-error", "wrong")
            bad += not ok
            print(line + f"build=ok RUNTIME ERROR {type(ex).__name__}: {str(ex).splitlines()[0][:80]}  "
                  f"{'OK' if ok else 'INCONSISTENT'}", flush=True)
            torch.cuda.synchronize()
    print(f"{bad} inconsistent of {len(first)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
