"""pch_bench.py [--python PY] [--json OUT] [CANDIDATE.py ...] - precompiled
torch headers against the plain build, side by side in one run: each C++
load_inline candidate is built twice, each time cold in a process of its
own through the worker's load_inline hook (hrworker/candidate.py): plain
(HEADROOM_PCH=0, a cache of its own) and with the header (HEADROOM_PCH=
eager, one cache for all, so the first candidate of each flag set builds
that set's header).  The figure is each extension's build CPU-s (its
record's cpu_seconds: ninja and the compilers), the header's own build
taken out and listed apart; printed as one JSON line a candidate and a
summary (median ratio, and the ratio with the headers' builds counted),
and, with the default candidates, the floor: an extension of the header
alone, plain and with it.

Default candidates: the project's C++ fixtures (tests/fixtures/replay
relu_fast.py, -O2; tests/fixtures/planted partial-write-cpp, no flags)
and six correct C++ candidates of the benchmark archive's CPU form
(gen_archive.py --device cpu --scale 0.03), three with no flags and
three with -O3.  Not a
test: nothing fails on a slow machine.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

BUILD = r'''
import json, os, sys, types
sys.path.insert(0, os.path.join(%(root)r, "replay"))
import torch
from hrworker.builder import LocalBuilder
from hrworker.candidate import hook_load_inline
cfg = types.SimpleNamespace(cache=sys.argv[1], arch="cpu-bench")
exts = []
b = LocalBuilder(cfg, torch)
hook_load_inline(cfg, torch, exts, lambda call: b.serve({"call": call}), ["/"], os.getcwd())
code = open(sys.argv[2]).read()
ns = {"__name__": "candidate"}
try:
    exec(compile(code, sys.argv[2], "exec"), ns)
except Exception as e:
    exts.append({"error": str(e)[:300]})
print(json.dumps(exts))
'''


# The floor: an extension of nothing but torch/extension.h (no function,
# no binding; loaded as a library, not a Python module), the part of every
# build that is the header's alone.
FLOOR = '''from torch.utils.cpp_extension import load_inline
load_inline(name="hr_pch_floor", cpp_sources="", is_python_module=False)
'''


def build(py, cache, path, pch):
    env = dict(os.environ, HEADROOM_PCH=pch, CUDA_VISIBLE_DEVICES="")
    r = subprocess.run([py, "-c", BUILD % {"root": ROOT}, cache, path], env=env,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("pch_bench: %s: %s" % (path, r.stderr[-2000:]))
    return json.loads(r.stdout.strip().splitlines()[-1])


def default_candidates(work):
    arch = os.path.join(work, "archive")
    subprocess.run([sys.executable, os.path.join(HERE, "gen_archive.py"), arch,
                    "--device", "cpu", "--scale", "0.03"], check=True, capture_output=True)
    out = [os.path.join(ROOT, "tests/fixtures/replay/candidates/relu_fast.py"),
           os.path.join(ROOT, "tests/fixtures/planted/candidates/planted-partial-write-cpp.py")]
    seen = set()
    for d in sorted(os.listdir(os.path.join(arch, "runs"))):
        for f in sorted(os.listdir(os.path.join(arch, "runs", d))):
            p = os.path.join(arch, "runs", d, f)
            if not f.endswith(".py"):
                continue
            text = open(p).read()
            if ", correct\n" in text and text not in seen:
                seen.add(text)
                out.append(p)
    # six of them, both flag sets of the archive's C++ form
    o3 = [p for p in out[2:] if '"-O3"' in open(p).read()][:3]
    return out[:2] + o3 + [p for p in out[2:] if p not in o3][:6 - len(o3)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("candidates", nargs="*")
    ap.add_argument("--python", default=os.environ.get("HEADROOM_PYTHON", sys.executable))
    ap.add_argument("--json", help="also write the lines to this file")
    a = ap.parse_args()
    tmp = tempfile.TemporaryDirectory(prefix="hr-pch-bench-")
    cands = a.candidates or default_candidates(tmp.name)
    with_pch = os.path.join(tmp.name, "cache-pch")
    lines, ratios, plain_all, pch_all, headers = [], [], 0.0, 0.0, 0.0
    for i, path in enumerate(cands):
        plain = build(a.python, os.path.join(tmp.name, "cache-plain-%d" % i), path, "0")
        used = build(a.python, with_pch, path, "eager")
        for p, u in zip(plain, used):
            if "error" in p or "error" in u or p.get("failed") or u.get("failed"):
                continue
            header = u.get("pch_cpu_seconds", 0.0)
            own = round(u["cpu_seconds"] - header, 3)
            flags = re.findall(r"extra_cflags=(\[[^\]]*\])", open(path).read())
            row = {"candidate": os.path.relpath(path, tmp.name if path.startswith(tmp.name)
                                                else ROOT),
                   "extension": p.get("name"), "flags": flags[0] if flags else "[]",
                   "plain_cpu_s": p["cpu_seconds"], "pch_cpu_s": own, "pch": u.get("pch"),
                   "header_build_cpu_s": header,
                   "ratio": round(own / p["cpu_seconds"], 3) if p["cpu_seconds"] else None}
            ratios.append(row["ratio"])
            plain_all += p["cpu_seconds"]
            pch_all += u["cpu_seconds"]
            headers += header
            lines.append(json.dumps(row))
            print(lines[-1], flush=True)
    rows = list(lines)
    if not a.candidates:
        floor = os.path.join(tmp.name, "floor.py")
        with open(floor, "w") as f:
            f.write(FLOOR)
        plain = build(a.python, os.path.join(tmp.name, "cache-floor-plain"), floor, "0")[0]
        used = build(a.python, with_pch, floor, "eager")[0]     # the no-flags header
        lines.append(json.dumps({"floor": "the header alone, no flags", "plain_cpu_s":
                                 plain.get("cpu_seconds"), "pch_cpu_s":
                                 used.get("cpu_seconds"), "pch": used.get("pch")}))
        print(lines[-1], flush=True)
    summary = {"extensions": len(ratios),
               "median_ratio": round(statistics.median(ratios), 3) if ratios else None,
               "plain_cpu_s_median": round(statistics.median(
                   json.loads(x)["plain_cpu_s"] for x in rows), 2) if rows else None,
               "pch_cpu_s_median": round(statistics.median(
                   json.loads(x)["pch_cpu_s"] for x in rows), 2) if rows else None,
               "header_builds_cpu_s": round(headers, 1),
               "ratio_with_header_builds": round(pch_all / plain_all, 3) if plain_all else None}
    lines.append(json.dumps({"summary": summary}))
    print(lines[-1], flush=True)
    if a.json:
        with open(a.json, "w") as f:
            f.write("\n".join(lines) + "\n")
    tmp.cleanup()


main()
