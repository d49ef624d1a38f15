#!/usr/bin/env python3
"""profile_worker.py - run one workload under torch.profiler and write its
Chrome trace (`headroom profile` runs it; docs/profiles.md).

Owns: the workloads -- their model code, sizes and inputs, built with
random weights (nothing is downloaded) -- the warm-up, the profiled
window, and the trace file with the headroom_workload / _domain / _stack
keys that `headroom ingest` reads.  Transformers use the Hugging Face
`transformers` model classes and the CNN `torchvision`'s, so the profile
is of the stack users run; the DLRM is the project's own (EmbeddingBag
tables, bottom and top MLPs, dot interaction; sizes in WORKLOADS).
Must not: open the database, download anything, write outside --out
(and the --gpu-lock file).
Prints one JSON line: {"trace": path, ...} or {"error": text}.

--gpu-lock FILE lets several workers share one GPU without measuring each
other: every one holds FILE shared (flock) while it touches the GPU --
model transfer, warm-up, compilation -- and exclusively for its profiled
window, so no other worker's kernel runs while a profile is recorded.
Compilation (CPU-bound) of several workloads overlaps; the profiled
windows run one at a time.
Standard library + torch only (transformers, torchvision where named).
"""
import argparse
import contextlib
import fcntl
import gzip
import json
import os
import platform
import shutil
import sys
import time

import torch

# name -> (domain, builder, full sizes, tiny sizes for a CPU test).
# Sizes: transformers (layers, width, heads, batch, sequence); GPT-2
# small/medium/large are the published GPT-2 shapes, llama-1b a Llama-style
# 1.2 B configuration (GQA 32/8 heads, SwiGLU 8192, vocabulary 32000).


def gpt2(sz, train):
    from transformers import GPT2Config, GPT2LMHeadModel
    cfg = GPT2Config(n_layer=sz["layers"], n_embd=sz["width"],
                     n_head=sz["heads"], n_positions=max(1024, sz["seq"]),
                     vocab_size=50257)
    return GPT2LMHeadModel(cfg), cfg.vocab_size


def llama(sz, train):
    from transformers import LlamaConfig, LlamaForCausalLM
    cfg = LlamaConfig(hidden_size=sz["width"], num_hidden_layers=sz["layers"],
                      num_attention_heads=sz["heads"],
                      num_key_value_heads=max(1, sz["heads"] // 4),
                      intermediate_size=4 * sz["width"], vocab_size=32000,
                      max_position_embeddings=max(2048, sz["seq"]))
    return LlamaForCausalLM(cfg), cfg.vocab_size


class DLRM(torch.nn.Module):
    """Bottom MLP on the dense features, one EmbeddingBag (sum) per sparse
    feature, pairwise dot products of the d-dimensional vectors (strictly
    lower triangle), concatenated with the dense vector, top MLP."""

    def __init__(self, rows, dim, bottom, top, device="cpu"):
        super().__init__()

        def mlp(sizes):
            layers = []
            for a, b in zip(sizes[:-1], sizes[1:]):
                layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
            return torch.nn.Sequential(*layers[:-1])
        self.bottom = mlp(bottom)
        # Built where they run: 3.5 GB of tables initialise in
        # milliseconds on a GPU, in tens of seconds on a CPU.
        self.tables = torch.nn.ModuleList(
            torch.nn.EmbeddingBag(n, dim, mode="sum", device=device)
            for n in rows)
        f = len(rows) + 1
        li, lj = torch.tril_indices(f, f, offset=-1)
        self.register_buffer("li", li, persistent=False)
        self.register_buffer("lj", lj, persistent=False)
        self.top = mlp([dim + f * (f - 1) // 2] + top)

    def forward(self, dense, indices, offsets):
        x = self.bottom(dense)
        ly = [t(indices[k], offsets[k]) for k, t in enumerate(self.tables)]
        t = torch.stack([x] + ly, dim=1)
        z = torch.bmm(t, t.transpose(1, 2))[:, self.li, self.lj]
        return torch.sigmoid(self.top(torch.cat([x, z], dim=1)))


# Every transformer's --tiny size: the path, not the numbers.
TINY_LM = dict(layers=2, width=64, heads=2, batch=2, seq=16)

WORKLOADS = {
    "gpt2-small": ("transformer", gpt2, False,
                   dict(layers=12, width=768, heads=12, batch=8, seq=512),
                   TINY_LM),
    "gpt2-medium": ("transformer", gpt2, False,
                    dict(layers=24, width=1024, heads=16, batch=8, seq=512),
                    TINY_LM),
    "gpt2-large": ("transformer", gpt2, False,
                   dict(layers=36, width=1280, heads=20, batch=8, seq=512),
                   TINY_LM),
    "llama-1b": ("transformer", llama, False,
                 dict(layers=16, width=2048, heads=32, batch=8, seq=512),
                 dict(TINY_LM, heads=4)),
    "gpt2-small-train": ("transformer", gpt2, True,
                         dict(layers=12, width=768, heads=12, batch=8,
                              seq=512),
                         TINY_LM),
    # DLRM-Bench's configuration (docs/dlrm-bench.md), so that the
    # profile that weighs the problems is of the sizes they were cut
    # from: Criteo Terabyte's 26 tables capped at 1 M rows (DLRM's
    # --max-ind-range), d = 128, MLPerf DLRM's MLPs (13-512-256-128,
    # 479-1024-1024-512-256-1), batch 16384, bags of 0..40 ids (mean 20).
    "dlrm": ("recommender", None, False,
             dict(rows=[1000000, 36084, 17217, 7378, 20134, 3, 7112, 1442,
                        61, 1000000, 1000000, 313829, 10, 2208, 11156, 122,
                        4, 970, 14, 1000000, 1000000, 1000000, 415421,
                        12420, 101, 36],
                  dim=128, bottom=[13, 512, 256, 128],
                  top=[1024, 1024, 512, 256, 1], batch=16384, pooling=20),
             dict(rows=[100] * 4, dim=8, bottom=[13, 16, 8], top=[16, 1],
                  batch=8, pooling=3)),
    "resnet50": ("cnn", None, False, dict(batch=32, size=224),
                 dict(batch=2, size=32)),
}


def build(name, tiny, device, dtype):
    domain, builder, train, full, small = WORKLOADS[name]
    sz = small if tiny else full
    g = torch.Generator().manual_seed(0)
    if name == "dlrm":
        model = DLRM(sz["rows"], sz["dim"], sz["bottom"], sz["top"], device)
        b, p = sz["batch"], sz["pooling"]
        # DLRM's preprocessing of the dense counts: log(1 + x).
        dense = torch.log1p(torch.randint(0, 1000, (b, 13), generator=g)
                            .float())
        idx, off = [], []
        for n in sz["rows"]:
            lengths = torch.randint(0, 2 * p + 1, (b,), generator=g)
            off.append(torch.cumsum(lengths, 0) - lengths)
            idx.append(torch.randint(0, n, (int(lengths.sum()),),
                                     generator=g))
        inputs = (dense.to(device), [i.to(device) for i in idx],
                  [o.to(device) for o in off])
        return domain, model.to(device), inputs, False, sz
    if name == "resnet50":
        import torchvision
        model = torchvision.models.resnet50(weights=None)
        x = torch.rand(sz["batch"], 3, sz["size"], sz["size"], generator=g)
        model = model.to(device, dtype).to(memory_format=torch.channels_last)
        return domain, model, (x.to(device, dtype).to(
            memory_format=torch.channels_last),), False, sz
    model, vocab = builder(sz, train)
    ids = torch.randint(0, vocab, (sz["batch"], sz["seq"]), generator=g)
    return domain, model.to(device, dtype), (ids.to(device),), train, sz


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workload", required=True, choices=sorted(WORKLOADS))
    ap.add_argument("--stack", default="eager", choices=["eager", "compile"])
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--out", required=True)
    ap.add_argument("--tiny", action="store_true")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--gpu-lock", metavar="FILE",
                    help="share the GPU with other workers (see above)")
    a = ap.parse_args()
    try:
        print(json.dumps(run(a)), flush=True)
    except Exception as ex:  # one line the command prints, then exit 1
        print(json.dumps({"error": f"{type(ex).__name__}: {ex}"}),
              flush=True)
        sys.exit(1)


@contextlib.contextmanager
def gpu_lock(path, mode, waited):
    """flock(path, mode) for the block, adding the seconds waited to
    waited[0]; no path, no lock.  Taken through a turnstile (path +
    ".turnstile", held only while waiting), so that a worker waiting for
    its exclusive window keeps new shared holders out and is not starved
    by a queue of compilations."""
    if not path:
        yield
        return
    t = time.time()
    with open(path, "a") as f, open(path + ".turnstile", "a") as gate:
        fcntl.flock(gate, fcntl.LOCK_EX)
        fcntl.flock(f, mode)
        fcntl.flock(gate, fcntl.LOCK_UN)
        waited[0] += time.time() - t
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def run(a):
    waited = [0.0]
    with gpu_lock(a.gpu_lock, fcntl.LOCK_SH, waited):
        prep = prepare(a)
    with gpu_lock(a.gpu_lock, fcntl.LOCK_EX, waited):
        res = record(a, *prep)
    res["lock_wait_s"] = round(waited[0], 3)
    return res


def prepare(a):
    """Build the workload and warm it up: what may overlap another
    worker's preparation."""
    torch.manual_seed(0)
    cuda = a.device.startswith("cuda")
    dtype = torch.bfloat16 if cuda and a.workload != "dlrm" else \
        torch.float32
    domain, model, inputs, train, sz = build(a.workload, a.tiny, a.device,
                                             dtype)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4) if train else None
    model.train(train)
    fn = torch.compile(model) if a.stack == "compile" else model

    def step():
        if train:
            loss = fn(*inputs, labels=inputs[0]).loss
            loss.backward()
            opt.step()
            opt.zero_grad(set_to_none=True)
        else:
            with torch.no_grad():
                fn(*inputs)

    t0 = time.time()
    for _ in range(a.warmup):  # compile, autotune, allocator warm
        step()
    if cuda:
        torch.cuda.synchronize()
    warm_s = time.time() - t0
    return cuda, domain, step, sz, warm_s


def record(a, cuda, domain, step, sz, warm_s):
    """One more untimed step (the GPU is ours alone from here), then the
    profiled window; the trace is written."""
    from torch.profiler import ProfilerActivity, profile
    step()
    if cuda:
        torch.cuda.synchronize()
    t0 = time.time()
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    tag = f"{a.workload}{'-tiny' if a.tiny else ''}"
    with profile(activities=acts) as prof:
        for _ in range(a.steps):
            step()
        if cuda:
            torch.cuda.synchronize()
        # Metadata goes in while the profiler runs (it is dropped after).
        prof.add_metadata("headroom_workload", tag)
        prof.add_metadata("headroom_domain", domain)
        prof.add_metadata("headroom_stack", a.stack)
        # No quotes in values: torch 2.11 escapes them as /" (invalid
        # JSON, which headroom ingest refuses).
        prof.add_metadata("headroom_sizes", " ".join(
            f"{k}={len(v) if k == 'rows' else v}".replace(" ", "")
            for k, v in sz.items()))
    window_s = time.time() - t0
    os.makedirs(a.out, exist_ok=True)
    plain = os.path.join(a.out, f"{tag}.{a.stack}.pt.trace.json")
    prof.export_chrome_trace(plain)
    with open(plain, "rb") as src, gzip.open(plain + ".gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.unlink(plain)
    return {"trace": plain + ".gz", "workload": tag, "stack": a.stack,
            "domain": domain, "warmup_s": round(warm_s, 3),
            "window_s": round(window_s, 3),
            "torch": torch.__version__, "python": platform.python_version(),
            "device": torch.cuda.get_device_name() if cuda else "cpu"}


if __name__ == "__main__":
    main()
