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
Must not: open the database, download anything, write outside --out.
Prints one JSON line: {"trace": path, ...} or {"error": text}.
Standard library + torch only (transformers, torchvision where named).
"""
import argparse
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

    def __init__(self, rows, dim, bottom, top):
        super().__init__()

        def mlp(sizes):
            layers = []
            for a, b in zip(sizes[:-1], sizes[1:]):
                layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
            return torch.nn.Sequential(*layers[:-1])
        self.bottom = mlp(bottom)
        self.tables = torch.nn.ModuleList(
            torch.nn.EmbeddingBag(n, dim, mode="sum") for n in rows)
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
    # 26 tables of the Criteo Kaggle DLRM configuration, each capped at
    # 2 M rows (fits one GPU; the lookups stay memory-bound), d = 64.
    "dlrm": ("recommender", None, False,
             dict(rows=[min(n, 2_000_000) for n in (
                 1460, 583, 10131227, 2202608, 305, 24, 12517, 633, 3,
                 93145, 5683, 8351593, 3194, 27, 14992, 5461306, 10, 5652,
                 2173, 4, 7046547, 18, 15, 286181, 105, 142572)],
                  dim=64, bottom=[13, 512, 256, 64], top=[512, 256, 1],
                  batch=4096, pooling=20),
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
        model = DLRM(sz["rows"], sz["dim"], sz["bottom"], sz["top"])
        b, p = sz["batch"], sz["pooling"]
        dense = torch.rand(b, 13, generator=g)
        idx = [torch.randint(0, n, (b * p,), generator=g) for n in sz["rows"]]
        off = [torch.arange(0, b * p, p) for _ in sz["rows"]]
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
    a = ap.parse_args()
    try:
        print(json.dumps(run(a)), flush=True)
    except Exception as ex:  # one line the command prints, then exit 1
        print(json.dumps({"error": f"{type(ex).__name__}: {ex}"}),
              flush=True)
        sys.exit(1)


def run(a):
    from torch.profiler import ProfilerActivity, profile
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
    os.makedirs(a.out, exist_ok=True)
    plain = os.path.join(a.out, f"{tag}.{a.stack}.pt.trace.json")
    prof.export_chrome_trace(plain)
    with open(plain, "rb") as src, gzip.open(plain + ".gz", "wb") as dst:
        shutil.copyfileobj(src, dst)
    os.unlink(plain)
    return {"trace": plain + ".gz", "workload": tag, "stack": a.stack,
            "domain": domain, "warmup_s": round(warm_s, 3),
            "torch": torch.__version__, "python": platform.python_version(),
            "device": torch.cuda.get_device_name() if cuda else "cpu"}


if __name__ == "__main__":
    main()
