"""dlrm_check.py - each project-written candidate of the sample DLRM-Bench
run (dataset/samples/dlrm-archive, the files headed "headroom GPU test
candidate") against its
DLRM-Bench problem on CUDA, before a replay: does it build, does it match
the reference on five draws (torch.allclose at 1e-2 and 1e-4, max error),
and the median of 20 event-timed calls of each (after 3 warm-ups).  A
probe for the candidates' author, not a verdict: `headroom replay` is.

    python3 tests/gpu/dlrm_check.py [OUT.json]
"""
import glob
import json
import os
import re
import statistics
import sys
import time

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LEVEL = os.path.join(ROOT, "dataset", "problems", "dlrm-bench", "level5")


def timed(f, args, n=20):
    for _ in range(3):
        f(*args)
    torch.cuda.synchronize()
    ms = []
    for _ in range(n):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        f(*args)
        b.record()
        torch.cuda.synchronize()
        ms.append(a.elapsed_time(b))
    return statistics.median(ms)


def main():
    rows = []
    for path in sorted(glob.glob(os.path.join(ROOT, "dataset/samples/dlrm-archive/runs/*/"
                                              "level_5_*.py"))):
        with open(path) as f:
            if not f.readline().startswith("# headroom GPU test candidate"):
                continue
        pid = int(re.search(r"problem_(\d+)_", path).group(1))
        prob = glob.glob(os.path.join(LEVEL, "%d_*.py" % pid))[0]
        ns = {}
        exec(compile(open(prob).read(), prob, "exec"), ns)
        row = {"problem": os.path.basename(prob)[:-3]}
        t0 = time.monotonic()
        try:
            cand = dict(ns)
            exec(compile(open(path).read(), path, "exec"), cand)
        except Exception as e:
            row["build_error"] = str(e)[-2000:]
            rows.append(row)
            print(json.dumps(row), flush=True)
            continue
        row["build_s"] = round(time.monotonic() - t0, 1)
        init = ns["get_init_inputs"]()
        torch.manual_seed(42)
        ref = ns["Model"](*init).cuda()
        torch.manual_seed(42)
        new = cand["ModelNew"](*init).cuda()
        ok2 = ok4 = True
        worst = 0.0
        with torch.no_grad():
            for seed in range(5):
                torch.manual_seed(seed)
                x = [t.cuda() if isinstance(t, torch.Tensor) else t for t in ns["get_inputs"]()]
                r, c = ref(*x), new(*x)
                torch.cuda.synchronize()
                ok2 &= r.shape == c.shape and torch.allclose(r, c, atol=1e-2, rtol=1e-2)
                ok4 &= r.shape == c.shape and torch.allclose(r, c, atol=1e-4, rtol=1e-4)
                if r.shape == c.shape:
                    worst = max(worst, (r.double() - c.double()).abs().max().item())
            row.update(allclose_1e2=bool(ok2), allclose_1e4=bool(ok4), max_abs_err=worst)
            row["ref_ms"] = timed(ref, x)
            row["new_ms"] = timed(new, x)
        row["speedup"] = row["ref_ms"] / row["new_ms"]
        rows.append(row)
        print(json.dumps(row), flush=True)
        del ref, new, x
        torch.cuda.empty_cache()
    info = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
            "cuda": torch.version.cuda, "rows": rows}
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            json.dump(info, f, indent=1)


if __name__ == "__main__":
    main()
