#!/usr/bin/env python3
"""Checks the embedded sample data. Needs torch (CPU is enough) and nvcc.

1. every problems/level1/*.py imports and its reference runs on CPU;
2. every archive kernel file and every leaderboard kernel_code parses
   (compile(), i.e. what python3 -m py_compile checks);
3. every distinct cuda source string (the cuda_sources= argument of
   load_inline, resolved to its module-level string) compiles with
   `nvcc -c -arch=sm_90 -std=c++17` and torch's include dirs; nothing is run;
4. the nvcc verdict matches the label in expected.json (compile-error
   kernels must fail, all others must build) and the archive's "compiled".

    python3 dataset/samples/tools/check_samples.py [--jobs N] [--no-nvcc]

Exit status 0 when everything matches, 1 otherwise.
"""
import argparse
import ast
import concurrent.futures as cf
import glob
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile

SAMPLES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ARCHIVE = os.path.join(SAMPLES, "archive")


def check_problems():
    import torch
    ok = True
    for path in sorted(glob.glob(os.path.join(SAMPLES, "problems", "level1", "*.py"))):
        try:
            spec = importlib.util.spec_from_file_location("p", path)
            m = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(m)
            torch.manual_seed(42)
            inputs = m.get_inputs()
            torch.manual_seed(42)
            model = m.Model(*m.get_init_inputs())
            with torch.no_grad():
                out = model(*inputs)
            print(f"problem ok   {os.path.basename(path)} -> {tuple(out.shape)}")
        except Exception as e:  # report and continue
            ok = False
            print(f"problem FAIL {os.path.basename(path)}: {e}")
    return ok


def cuda_source_of(text):
    """(extension name, cuda source) of the load_inline call in a kernel file."""
    tree = ast.parse(text)
    strings = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) \
                and isinstance(node.value.value, str):
            for t in node.targets:
                if isinstance(t, ast.Name):
                    strings[t.id] = node.value.value
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "load_inline":
            kw = {k.arg: k.value for k in node.keywords}
            src = kw["cuda_sources"]
            src = strings[src.id] if isinstance(src, ast.Name) else src.value
            return kw["name"].value, src
    raise ValueError("no load_inline call")


def kernel_texts():
    """yield (where, text) for every archive kernel file and leaderboard record."""
    for path in sorted(glob.glob(os.path.join(ARCHIVE, "runs", "*", "*_kernel.py"))):
        with open(path) as f:
            yield os.path.relpath(path, SAMPLES), f.read()
    with open(os.path.join(ARCHIVE, "leaderboard", "records.jsonl")) as f:
        for i, line in enumerate(f, 1):
            yield f"archive/leaderboard/records.jsonl:{i}", json.loads(line)["kernel_code"]


def nvcc_flags():
    import torch
    import torch.utils.cpp_extension as ce
    incs = ce.include_paths(device_type="cuda") + [sysconfig.get_paths()["include"]]
    abi = int(torch._C._GLIBCXX_USE_CXX11_ABI)
    return ["-c", "-arch=sm_90", "-std=c++17", f"-D_GLIBCXX_USE_CXX11_ABI={abi}"] + \
        [f"-I{p}" for p in incs]


def nvcc_one(args):
    name, src, flags, tmp = args
    cu = os.path.join(tmp, f"{name}.cu")
    with open(cu, "w") as f:
        f.write(src)
    r = subprocess.run(["nvcc"] + flags + [f"-DTORCH_EXTENSION_NAME={name}", cu,
                                           "-o", cu + ".o"],
                       capture_output=True, text=True)
    err = [l for l in (r.stderr or "").splitlines() if "error" in l]
    return r.returncode == 0, err[:2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--no-nvcc", action="store_true")
    a = ap.parse_args()
    ok = check_problems()

    with open(os.path.join(SAMPLES, "expected.json")) as f:
        exp = json.load(f)
    label = {}
    for e in exp["labels"]:
        label[f"archive/runs/{e['run']}/level_1_problem_{e['problem_id']}_sample_{e['sample_id']}_kernel.py"] = e["label"]
    for i, r in enumerate(exp["leaderboard"]["rows"], 1):
        label[f"archive/leaderboard/records.jsonl:{i}"] = r["label"]

    # archive "compiled" must agree with the labels
    for d in sorted(glob.glob(os.path.join(ARCHIVE, "runs", "*"))):
        with open(os.path.join(d, "eval_results.json")) as f:
            res = json.load(f)
        for pid, v in res.items():
            for rec in (v if isinstance(v, list) else [v]):
                key = f"archive/runs/{os.path.basename(d)}/level_1_problem_{pid}_sample_{rec['sample_id']}_kernel.py"
                want = label[key] != "compile-error"
                if rec["compiled"] != want or not os.path.exists(os.path.join(SAMPLES, key)):
                    ok = False
                    print(f"archive MISMATCH {key}: compiled={rec['compiled']} label={label[key]}")

    distinct = {}  # sha -> (name, src, [where...])
    for where, text in kernel_texts():
        try:
            compile(text, where, "exec")   # what py_compile does, minus the .pyc
            name, src = cuda_source_of(text)
        except Exception as e:
            ok = False
            print(f"parse FAIL {where}: {e}")
            continue
        h = hashlib.sha256(src.encode()).hexdigest()[:12]
        distinct.setdefault(h, [name, src, []])[2].append(where)
    print(f"kernel texts parse ok; {len(distinct)} distinct cuda sources")
    if a.no_nvcc:
        return 0 if ok else 1
    if not shutil.which("nvcc"):
        print("nvcc not found")
        return 1
    flags = nvcc_flags()
    with tempfile.TemporaryDirectory() as tmp, cf.ThreadPoolExecutor(a.jobs) as pool:
        jobs = {h: pool.submit(nvcc_one, (f"{v[0]}_{h}", v[1], flags, tmp))
                for h, v in distinct.items()}
        for h, (name, _, wheres) in sorted(distinct.items(), key=lambda kv: kv[1][2][0]):
            built, err = jobs[h].result()
            labels = {label[w] for w in wheres}
            want = "compile-error" not in labels
            verdict = "ok  " if built == want else "MISMATCH"
            if built != want or len(labels) != 1:
                ok = False
            print(f"nvcc {verdict} {'builds' if built else 'FAILS '} {name:22s} "
                  f"label={'/'.join(sorted(labels))} uses={len(wheres)} e.g. {wheres[0]}")
            for line in err:
                print(f"       {line.strip()[:160]}")
    print("ALL OK" if ok else "SOME CHECKS FAILED")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
