"""gen_archive.py OUT [--scale F] [--device cuda|cpu] [--seed N] [--subset N] - write a
representative archive of KernelBench evaluations for the replay
benchmark (tests/bench/archive_bench.py): about 900 x F evaluations, written by
the headroom project (no model wrote them), standard library only.

OUT/problems/levelL/ID_Name.py: the project's own problems in KernelBench
format, levels 1-3 (level 1: elementwise, reductions, softmax, matmul,
conv; level 2: an op followed by epilogues; level 3: small networks), at
today's KernelBench sizes with --device cuda (3 of the 23 problems large:
inputs of 4.3-6.4 GB, as KernelBench's current level-1 elementwise and
softmax problems; the others up to about 1 GB) and at small sizes with --device cpu.

OUT/runs/<model>_level_<L>/: one KernelBench run directory per model and
level (generation_config.yaml, eval_results.json in the array schema,
level_L_problem_P_sample_S_kernel.py), several models, several samples a
problem.  Each candidate computes the problem's torch ops and its last,
elementwise step in a load_inline extension of its own (CUDA sources with
--device cuda, C++ with --device cpu), so every distinct candidate is one
extension build as in the real archives.  The mix (the recorded claims
say the same): correct kernels, incorrect ones (a wrong constant, a
skipped tail), compile errors, crashes (an exception from the kernel's
checks), timeouts (a forward that never returns), and duplicates (another
sample's kernel, byte for byte: one build).  Deterministic: the same
arguments give the same bytes.  Prints the mix as one JSON line.

--subset N also writes N of the evaluations, evenly spread over the
archive, as OUT/subset/runs/subset_level_L/ (write_subset): what KernelBench's
own flow and the replay are both given for their side-by-side.
"""
import argparse
import json
import os
import random

# (level, name, reference expression over x or the module's parts, the
# torch part a candidate keeps, the elementwise step in C and in torch,
# shapes {device: (args of get_inputs)}, init, large).  The reference is
# EPI(BODY(...)); a candidate computes BODY with torch and EPI itself.
EPI = {
    "relu": ("v > 0.f ? v : 0.f", "torch.relu(t)"),
    "scale": ("v * 1.5f + 0.25f", "t * 1.5 + 0.25"),
    "sigmoid": ("1.f / (1.f + expf(-v))", "torch.sigmoid(t)"),
    "tanh": ("tanhf(v)", "torch.tanh(t)"),
    "leaky": ("v > 0.f ? v : 0.01f * v", "torch.nn.functional.leaky_relu(t, 0.01)"),
    "hswish": ("v * fminf(fmaxf(v + 3.f, 0.f), 6.f) / 6.f",
               "torch.nn.functional.hardswish(t)"),
    "square": ("v * v", "t * t"),
}

# name, level, init (module attributes), body (torch, over inputs and
# self), inputs {device: [shape of each input]}, large
PROBLEMS = [
    # level 1: one op each
    ("ReLU", 1, "", "x", {"cuda": [[4096, 393216]], "cpu": [[64, 512]]}, "relu", True),
    ("Sigmoid", 1, "", "x", {"cuda": [[4096, 16384]], "cpu": [[64, 512]]}, "sigmoid", False),
    ("Tanh", 1, "", "x", {"cuda": [[4096, 16384]], "cpu": [[64, 512]]}, "tanh", False),
    ("LeakyReLU", 1, "", "x", {"cuda": [[4096, 16384]], "cpu": [[64, 512]]}, "leaky", False),
    ("HardSwish", 1, "", "x", {"cuda": [[4096, 16384]], "cpu": [[64, 512]]}, "hswish", False),
    ("Scale", 1, "", "x", {"cuda": [[4096, 16384]], "cpu": [[64, 512]]}, "scale", False),
    ("Square_matmul", 1, "", "torch.matmul(x, y)",
     {"cuda": [[4096, 4096], [4096, 4096]], "cpu": [[96, 96], [96, 96]]}, "scale", False),
    ("Tall_matmul", 1, "", "torch.matmul(x, y)",
     {"cuda": [[16384, 1024], [1024, 4096]], "cpu": [[128, 32], [32, 64]]}, "scale", False),
    ("Sum_reduction_over_a_dimension", 1, "", "torch.sum(x, dim=1)",
     {"cuda": [[64, 4096, 1023]], "cpu": [[8, 64, 63]]}, "scale", False),
    ("Softmax", 1, "", "torch.softmax(x, dim=1)",
     {"cuda": [[4096, 393216]], "cpu": [[64, 512]]}, "scale", True),
    ("Max_reduction", 1, "", "torch.max(x, dim=2)[0]",
     {"cuda": [[64, 4096, 1023]], "cpu": [[8, 64, 63]]}, "scale", False),
    ("Conv2d_standard", 1, "self.conv = nn.Conv2d(64, 128, 3, padding=1)", "self.conv(x)",
     {"cuda": [[16, 64, 256, 256]], "cpu": [[2, 64, 16, 16]]}, "scale", False),
    ("LayerNorm", 1, "self.ln = nn.LayerNorm({L})", "self.ln(x)",
     {"cuda": [[4096, 8192]], "cpu": [[64, 256]]}, "scale", False),
    ("Cumsum", 1, "", "torch.cumsum(x, dim=1)",
     {"cuda": [[32768, 32768]], "cpu": [[64, 256]]}, "scale", True),
    # level 2: an op and its epilogues
    ("Gemm_ReLU", 2, "self.fc = nn.Linear({L}, {L})", "self.fc(x)",
     {"cuda": [[1024, 8192]], "cpu": [[32, 256]]}, "relu", False),
    ("Gemm_Sigmoid_Scale", 2, "self.fc = nn.Linear({M}, {M})", "self.fc(x)",
     {"cuda": [[2048, 4096]], "cpu": [[32, 128]]}, "sigmoid", False),
    ("Conv2d_HardSwish", 2, "self.conv = nn.Conv2d(32, 64, 3)", "self.conv(x)",
     {"cuda": [[128, 32, 128, 128]], "cpu": [[2, 32, 16, 16]]}, "hswish", False),
    ("Conv2d_Tanh", 2, "self.conv = nn.Conv2d(16, 32, 3)", "self.conv(x)",
     {"cuda": [[128, 16, 256, 256]], "cpu": [[2, 16, 16, 16]]}, "tanh", False),
    ("Matmul_Residual_Square", 2, "self.fc = nn.Linear({M}, {M})", "self.fc(x) + x",
     {"cuda": [[4096, 4096]], "cpu": [[32, 128]]}, "square", False),
    ("ConvTranspose2d_LeakyReLU", 2, "self.ct = nn.ConvTranspose2d(32, 16, 4, stride=2)",
     "self.ct(x)", {"cuda": [[64, 32, 128, 128]], "cpu": [[2, 32, 8, 8]]}, "leaky", False),
    # level 3: small networks
    ("MLP", 3, "self.net = nn.Sequential(nn.Linear({M}, {L}), nn.ReLU(), "
     "nn.Linear({L}, {M}))", "self.net(x)",
     {"cuda": [[2048, 4096]], "cpu": [[16, 128]]}, "relu", False),
    ("TinyCNN", 3, "self.net = nn.Sequential(nn.Conv2d(3, 32, 3), nn.ReLU(), "
     "nn.Conv2d(32, 64, 3), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), "
     "nn.Linear(64, 1000))", "self.net(x)",
     {"cuda": [[256, 3, 224, 224]], "cpu": [[2, 3, 32, 32]]}, "scale", False),
    ("AttentionBlock", 3, "self.attn = nn.MultiheadAttention({E}, {HEADS}, batch_first=True)",
     "self.attn(x, x, x, need_weights=False)[0]",
     {"cuda": [[32, 512, 1024]], "cpu": [[2, 32, 64]]}, "tanh", False),
]

# The layers' sizes: today's KernelBench sizes on CUDA, small on the CPU.
WIDTH = {"cuda": {"L": 8192, "M": 4096, "E": 1024, "HEADS": 16},
         "cpu": {"L": 256, "M": 128, "E": 64, "HEADS": 4}}

MODELS = ["bench-frontier", "bench-open-large", "bench-open-small", "bench-coder",
          "bench-reasoner"]

# kind: share of the evaluations
MIX = [("correct", 0.52), ("incorrect", 0.16), ("compile_error", 0.10),
       ("crash", 0.05), ("timeout", 0.02), ("duplicate", 0.15)]

PROBLEM = '''import torch
import torch.nn as nn


class Model(nn.Module):
    """{name} (a headroom benchmark problem, written by the project)."""

    def __init__(self):
        super().__init__()
{init}

    def forward(self, {args}):
        t = {body}
        return {epi}


{shapes}


def get_inputs():
    return [{draws}]


def get_init_inputs():
    return []
'''

CUDA_SRC = r'''
#include <torch/extension.h>
#include <cuda_runtime.h>

__global__ void {fn}_kernel(const float* __restrict__ in, float* __restrict__ out, long n) {{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    long stride = (long)gridDim.x * blockDim.x;
    for (; i < n{tail}; i += stride) {{
        float v = in[i];
        out[i] = {expr};
    }}
}}

torch::Tensor {fn}(torch::Tensor x) {{
    TORCH_CHECK(x.is_cuda(), "{fn}: x must be a CUDA tensor");{check}
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    long n = xc.numel();
    int threads = {threads};
    int blocks = (int)std::min<long>((n + threads - 1) / threads, 65535L);
    {fn}_kernel<<<blocks, threads>>>(xc.data_ptr<float>(), y.data_ptr<float>(), n);{broken}
    return y;
}}
'''

CPP_SRC = r'''
#include <cmath>
#include <torch/extension.h>

torch::Tensor {fn}(torch::Tensor x) {{{check}
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float *in = xc.data_ptr<float>();
    float *out = y.data_ptr<float>();
    long n = xc.numel();
    for (long i = 0; i < n{tail}; i++) {{
        float v = in[i];
        out[i] = {expr};
    }}{broken}
    return y;
}}
'''

CANDIDATE = '''# headroom benchmark candidate (written by the headroom project, not by a model)
# {tag}
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

{src_name} = r"""{src}"""

{decl}
{ext} = load_inline(
    name="{ext}",
{sources}
    functions=["{fn}"],{flags}
    verbose=False,
)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
{init}

    def forward(self, {args}):
        t = {body}{hang}
        return {ext}.{fn}(t)
'''


def problem_text(p, device):
    name, level, init, body, shapes, epi, large = p
    init = init.format(**WIDTH[device])
    n = len(shapes[device])
    args = ", ".join("xyzw"[i] for i in range(n))
    dims = "\n".join("shape_%s = %r" % ("xyzw"[i], tuple(s)) for i, s in enumerate(shapes[device]))
    return PROBLEM.format(
        name=name, init="        " + init if init else "        pass", args=args, body=body,
        epi=EPI[epi][1], shapes=dims,
        draws=", ".join("torch.randn(*shape_%s)" % "xyzw"[i] for i in range(n)))


def candidate_text(p, device, kind, tag, variant, rng):
    name, level, init, body, shapes, epi, large = p
    init = init.format(**WIDTH[device])
    n = len(shapes[device])
    args = ", ".join("xyzw"[i] for i in range(n))
    fn = "epi_%s" % variant
    expr = EPI[epi][0]
    tail, broken, check, hang = "", "", "", ""
    if kind == "incorrect":
        if rng.random() < 0.5:
            tail = " - (n / 64)"                            # a skipped tail
            broken = ""
        else:
            expr = "(%s) + 0.125f" % expr                   # a wrong constant
    elif kind == "compile_error":
        broken = "\n    return y.undefined_method_%s();" % variant
    elif kind == "crash":
        check = '\n    TORCH_CHECK(x.dim() > 8, "%s: unsupported rank");' % fn
    elif kind == "timeout":
        hang = "\n        while True:\n            pass"
    if device == "cuda":
        src = CUDA_SRC.format(fn=fn, expr=expr, tail=tail, broken=broken, check=check,
                              threads=rng.choice([128, 256, 512]))
        decl = 'cpp_src = "torch::Tensor %s(torch::Tensor x);"' % fn
        sources = "    cpp_sources=cpp_src,\n    cuda_sources=cuda_src,"
        src_name = "cuda_src"
        flags = rng.choice(["", '\n    extra_cuda_cflags=["-O3"],',
                            '\n    extra_cflags=["-O3"],'
                            '\n    extra_cuda_cflags=["-O3", "--use_fast_math"],'])
    else:
        src = CPP_SRC.format(fn=fn, expr=expr, tail=tail, broken=broken, check=check)
        decl = ""
        sources = "    cpp_sources=cpp_src,"
        src_name = "cpp_src"
        flags = rng.choice(["", "", '\n    extra_cflags=["-O3"],'])
    return CANDIDATE.format(
        tag=tag, src_name=src_name, src=src, decl=decl, ext="hr_bench_%s" % variant,
        sources=sources, fn=fn, flags=flags, init="        " + init if init else "        pass",
        args=args, body=body, hang=hang)


def claims(kind, rng, gpu):
    """The original run's record of a sample (what the archive claims)."""
    ok = kind == "correct" or (kind == "incorrect" and rng.random() < 0.25)
    meta = {"hardware": gpu, "device": "cuda:0"}
    if kind == "compile_error":
        meta["compilation_error"] = "Error building extension"
    elif kind in ("crash", "timeout"):
        meta["runtime_error"] = "RuntimeError" if kind == "crash" else "timeout"
    rec = {"compiled": kind != "compile_error", "correctness": ok, "metadata": meta,
           "runtime": -1.0, "runtime_stats": {}}
    if ok:
        t = round(rng.uniform(0.05, 40.0), 3)
        meta["correctness_trials"] = "(5 / 5)"
        rec.update(runtime=t, runtime_stats={"mean": t, "std": round(t * 0.01, 4),
                                             "min": t, "max": t, "num_trials": 100,
                                             "hardware": gpu, "device": "cuda:0"})
    return rec


def write_kernel(root, model, level, pid, s, code):
    """One sample's kernel in its run directory (ROOT/MODEL_level_L/)."""
    d = os.path.join(root, "%s_level_%d" % (model, level))
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "level_%d_problem_%d_sample_%d_kernel.py" % (level, pid, s)),
              "w") as f:
        f.write(code)


def write_run(root, model, level, recs):
    """A run directory's generation_config.yaml and eval_results.json
    (its kernels are written already)."""
    d = os.path.join(root, "%s_level_%d" % (model, level))
    with open(os.path.join(d, "generation_config.yaml"), "w") as f:
        f.write("# written by headroom's tests/bench/gen_archive.py\n"
                "run_name: %s_level_%d\nlevel: %d\nmodel_name: %s\n"
                "precision: fp32\nbackend: cuda\n" % (model, level, level, model))
    with open(os.path.join(d, "eval_results.json"), "w") as f:
        json.dump(recs, f, indent=2, sort_keys=True)


def write_subset(out, evals, n):
    """n of the evaluations, evenly spread over the archive's order (which
    takes the problems, models and kinds in turn), as the model "subset"'s
    run directories, one a level (KernelBench evaluates a run a level):
    OUT/subset/runs/subset_level_L.  The samples of a problem are numbered
    again from 0; a duplicate stays a byte-for-byte copy.  What both
    KernelBench's own flow and the replay are given in the archive
    benchmark's side-by-side (archive_bench.py --subset).  Returns its
    evaluations, problems and mix."""
    total = len(evals)
    picks = sorted({k * total // n for k in range(min(n, total))})
    root = os.path.join(out, "subset", "runs")
    runs, samples, mix = {}, {}, {}
    for k in picks:
        level, pid, kind, code, rec = evals[k]
        mix[kind] = mix.get(kind, 0) + 1
        s = samples[(level, pid)] = samples.get((level, pid), -1) + 1
        write_kernel(root, "subset", level, pid, s, code)
        runs.setdefault(level, {}).setdefault(str(pid), []).append(dict(rec, sample_id=s))
    for level, recs in sorted(runs.items()):
        write_run(root, "subset", level, recs)
    return {"evaluations": len(picks), "problems": len(samples), "mix": mix}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--scale", type=float, default=1.0, help="evaluations: 900 x SCALE")
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--subset", type=int, default=0,
                    help="also write N of the evaluations, evenly spread over the "
                    "archive, to OUT/subset/runs (one run directory a level)")
    a = ap.parse_args()
    if a.subset < 0:
        ap.error("--subset takes a number of evaluations, 0 or more")
    rng = random.Random(a.seed)
    total = max(1, round(900 * a.scale))
    gpu = "NVIDIA H200"
    probs = {}
    for i, p in enumerate(PROBLEMS):
        level = p[1]
        pid = 1 + sum(1 for q in PROBLEMS[:i] if q[1] == level)
        d = os.path.join(a.out, "problems", "level%d" % level)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "%d_%s.py" % (pid, p[0])), "w") as f:
            f.write(problem_text(p, a.device))
        probs[i] = (level, pid)
    # The evaluations: a kind for each, in MIX's shares exactly (largest
    # remainders; every kind at least once from 12 evaluations on), over
    # as many problems as give each about 4 evaluations (levels taken in
    # turn), models and samples in turn.  A duplicate copies an earlier
    # kernel of its problem (another model's or sample's), byte for byte.
    kinds = [k for k, _ in MIX]
    quota = {k: int(total * w) for k, w in MIX}
    rest = sorted(MIX, key=lambda kw: -(total * kw[1] - int(total * kw[1])))
    for k, _ in rest[:total - sum(quota.values())]:
        quota[k] += 1
    if total >= 12:
        for k in kinds:
            while quota[k] == 0:
                big = max(quota, key=quota.get)
                quota[big] -= 1
                quota[k] += 1
    order = [k for k in kinds for _ in range(quota[k])]
    rng.shuffle(order)
    by_level = [[i for i, p in enumerate(PROBLEMS) if p[1] == lv] for lv in (1, 2, 3)]
    turn = []
    while any(by_level):
        for lv in by_level:
            if lv:
                turn.append(lv.pop(0))
    used = turn[:max(1, min(len(PROBLEMS), total // 4))]
    runs, written, count = {}, {}, {k: 0 for k in kinds}
    evals = []          # (level, pid, kind, code, record) of each evaluation, in order
    for n in range(total):
        i = used[n % len(used)]
        m = (n // len(used)) % len(MODELS)
        s = n // (len(used) * len(MODELS))
        model, p = MODELS[m], PROBLEMS[i]
        level, pid = probs[i]
        kind = order[n]
        if kind == "duplicate" and not written.get(i):
            # the first of its problem: swap with a later non-duplicate
            j = next((j for j in range(n + 1, total) if order[j] != "duplicate"), None)
            if j is not None:
                order[n], order[j] = order[j], order[n]
                kind = order[n]
            else:
                kind = "correct"
        if kind == "duplicate":
            code, orig = rng.choice(written[i])
        else:
            variant = "%d_%d_%d_%d" % (level, pid, m, s)
            code = candidate_text(p, a.device, kind, "%s, level %d problem %d (%s), %s"
                                  % (model, level, pid, p[0], kind), variant, rng)
            orig = kind
            written.setdefault(i, []).append((code, kind))
        count[kind] += 1
        rec = claims(orig, rng, gpu)
        rec["sample_id"] = s
        runs.setdefault((model, level), {}).setdefault(str(pid), []).append(rec)
        evals.append((level, pid, kind, code, rec))
        write_kernel(os.path.join(a.out, "runs"), model, level, pid, s, code)
    for (model, level), recs in sorted(runs.items()):
        write_run(os.path.join(a.out, "runs"), model, level, recs)
    subset = write_subset(a.out, evals, a.subset) if a.subset else None
    line = {"evaluations": total, "problems": len(used),
            "large_problems": sum(1 for i in used if PROBLEMS[i][6]),
            "models": len(MODELS), "distinct_kernels": sum(len(v) for v in written.values()),
            "mix": count, "device": a.device}
    if subset:
        line["subset"] = subset
    print(json.dumps(line))


main()
