#!/usr/bin/env python3
"""Write benchmark variants of KernelBench-format candidates.

For every level_L_problem_P_sample_0_kernel.py in SRC, write samples
1..N-1 to DEST (and copy sample 0): the same kernel with its extension renamed
(name="x" -> name="x_sS") and a comment line added to the CUDA source, so
that every sample is a distinct source that needs its own build (no build
cache, KernelBench's or headroom's, can share them).  Problems in --skip keep
only sample 0.

usage: make_variants.py SRC DEST [-n 3] [--skip 14]
"""
import argparse
import os
import re
import shutil

NAME_RE = re.compile(r'(name\s*=\s*")([A-Za-z0-9_]+)(")')
SRC_RE = re.compile(r'(cuda_source\s*=\s*r?""")')


def variant(text, s):
    text, n = NAME_RE.subn(lambda m: f"{m.group(1)}{m.group(2)}_s{s}{m.group(3)}", text, count=1)
    if n != 1:
        raise ValueError("no load_inline name= found")
    text, n = SRC_RE.subn(lambda m: f"{m.group(1)}\n// headroom benchmark variant {s}", text, count=1)
    if n != 1:
        raise ValueError("no cuda_source string found")
    return text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("src")
    ap.add_argument("dest")
    ap.add_argument("-n", type=int, default=3)
    ap.add_argument("--skip", default="")
    a = ap.parse_args()
    skip = {s for s in a.skip.split(",") if s}
    os.makedirs(a.dest, exist_ok=True)
    count = 0
    for f in sorted(os.listdir(a.src)):
        m = re.match(r"level_(\d+)_problem_(\d+)_sample_0_kernel\.py$", f)
        if not m:
            continue
        shutil.copy(os.path.join(a.src, f), os.path.join(a.dest, f))
        count += 1
        if m.group(2) in skip:
            continue
        text = open(os.path.join(a.src, f)).read()
        for s in range(1, a.n):
            out = f.replace("_sample_0_", f"_sample_{s}_")
            with open(os.path.join(a.dest, out), "w") as fh:
                fh.write(variant(text, s))
            count += 1
    print(f"make_variants: {count} kernels in {a.dest}")


if __name__ == "__main__":
    main()
