#!/usr/bin/env python3
"""escapes_probe.py [--json OUT] [--only NAME...] - the planted GPU suite
(tests/fixtures/planted-gpu) against the parts of replay/hrworker/escapes.py
(kernels.py, profiled.py, threads.py, precision.py, l2.py, cudagraph.py)
and nvml.py, called directly: each case's problem and candidate are loaded in
this process (one namespace each, as a robust job does), then, on the same
inputs:

  reference pass   profiled_pass of the reference (before the candidate is
                   loaded: the flags and reduced kernels it runs with)
  threads          thread_check of one call (after two warm-up calls)
  l2               l2_reset: a carve-out or persisting window found
  profiled pass    profiled_pass of one call (own names from its source
                   and the extension modules it loaded)
  wall vs event    wall_vs_event of one call
  precision        precision_check of its output against the reference's
                   fp32 and fp64 outputs, flags before and at the call
  graph            graph_timing (refilled inputs): graph-refused when the
                   replay's check fails (a failed capture is no detection)
  fresh buffers    one call on new input tensors against the reference
                   (fresh-buffers-wrong): what the job's robust
                   fresh-input check sees
  clocks           NVML samples around the graph's replays' call

and prints a detection table (case x detection: X found, . not, * expected
and found, ! expected and missed or found on an honest twin).  Exits 1
when a planted case misses what suite.json expects or an honest twin has
any detection, 77 without CUDA.  Run from the repository root with the
torch venv: python tests/gpu/escapes_probe.py.  Builds one extension (the
suite's kernels, shared by every candidate) under $TORCH_EXTENSIONS_DIR
(default: a folder in /tmp kept between runs).
Standard library + torch."""
import argparse
import gc
import json
import os
import sys
import threading
import time
import types

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SUITE = os.path.join(ROOT, "tests", "fixtures", "planted-gpu")
sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker import cudagraph, kernels, l2, nvml, precision, profiled, threads  # noqa: E402

COLUMNS = ("side-stream", "work-after-end-event", "background-thread", "no-own-kernel",
           "precision-downgrade", "l2-persisting", "graph-refused", "fresh-buffers-wrong")


def problem_file(pid):
    d = os.path.join(SUITE, "problems", "level1")
    return os.path.join(d, next(f for f in sorted(os.listdir(d)) if f.startswith("%d_" % pid)))


def load(path, ns=None):
    ns = {} if ns is None else ns
    with open(path) as f:
        code = f.read()
    exec(compile(code, path, "exec"), ns)
    return ns, code


def kernel_blocks():
    """Candidates whose kernel source differs from the first one's (each
    such costs a build of its own)."""
    blocks = {}
    d = os.path.join(SUITE, "candidates")
    for name in sorted(os.listdir(d)):
        with open(os.path.join(d, name)) as f:
            text = f.read()
        a, b = text.find('cuda_src = r"""'), text.find("verbose=False)")
        blocks[name] = text[a:b] if a >= 0 and b > a else None
    first = next(iter(blocks.values()))
    return sorted(n for n, v in blocks.items() if v is not None and v != first)


def to_cuda(xs):
    return [x.cuda() if hasattr(x, "cuda") else x for x in xs]


def join_strays(timeout=10.0):
    """Let threads a candidate left finish before the next case."""
    end = time.monotonic() + timeout
    for t in threading.enumerate():
        if t is not threading.main_thread():
            t.join(max(0.0, end - time.monotonic()))


def run_case(torch, nvml_dev, case, flags0):
    det, ev = set(), {}
    pns, _ = load(problem_file(case["problem"]))
    torch.manual_seed(42)
    inputs = to_cuda(pns["get_inputs"]())
    ref = pns["Model"](*pns["get_init_inputs"]()).cuda()
    with torch.no_grad():
        ref_pass = profiled.profiled_pass(torch, lambda: ref(*inputs), kernels.own_names(""), True)
        ref32 = ref(*inputs)
        ref64 = precision.reference_fp64(torch, ref, inputs)
    cns, code = load(os.path.join(SUITE, "candidates", case["candidate"]))
    # load_inline's modules are not in sys.modules: the candidate holds them
    mods = [m for m in cns.values() if isinstance(m, types.ModuleType)
            and str(getattr(m, "__file__", "")).endswith(".so")]
    new = cns["ModelNew"](*pns["get_init_inputs"]()).cuda()
    own = kernels.own_names(code, mods)

    def call():
        with torch.no_grad():
            return new(*inputs)

    call()
    torch.cuda.synchronize()
    flags_at_call = precision.precision_flags(torch)
    _, th = threads.thread_check(call, warmup=1)
    torch.cuda.synchronize()
    join_strays()
    l2 = l2.l2_reset(torch)
    prof = profiled.profiled_pass(torch, call, own, True)
    join_strays()
    wall = profiled.wall_vs_event(torch, call)
    join_strays()
    cand = call()
    torch.cuda.synchronize()
    join_strays()
    prec = precision.precision_check(torch, cand, ref32, ref64, flags0, flags_at_call,
                                   profile=prof, baseline_reduced=ref_pass.get("reduced"))
    sampler = nvml.Sampler(*nvml_dev)

    def refill(xs):
        for x in xs:
            if x.is_floating_point():
                x.copy_(torch.randn_like(x) if x.min() < 0 else torch.rand_like(x))

    with torch.no_grad():
        graph = sampler.around(lambda: cudagraph.graph_timing(torch, new, inputs, refill=refill))
    join_strays()
    torch.manual_seed(7)
    fresh = to_cuda(pns["get_inputs"]())
    with torch.no_grad():
        out_f, ref_f = new(*fresh), ref(*fresh)
        torch.cuda.synchronize()
        join_strays()
        torch.cuda.synchronize()
        rel = precision.rel_err(out_f, ref_f.double())
    fresh_ok = rel < 1e-2
    for part in (th, l2, prof, wall, prec):
        det.update(f["id"] for f in part.get("findings", ()))
    if graph.get("refused"):
        det.add("graph-refused")
    if not fresh_ok:
        det.add("fresh-buffers-wrong")
    ev = {"threads": th, "l2": l2, "profile": {k: prof.get(k) for k in (
              "kernels", "current_stream", "markers_found", "streams", "n_other_stream", "n_hidden",
              "n_after_end", "share", "own_kernels_seen", "top_kernels", "reduced",
              "graph_launches", "error")},
          "wall_vs_event": wall, "precision": prec, "graph": graph,
          "fresh_buffers_rel_err": rel, "clocks": sampler.summary(), "own": own}
    # clean up what the candidate changed: flags, L2 state, its memory
    torch.backends.cuda.matmul.allow_tf32 = flags0.get("matmul.allow_tf32", False)
    torch.backends.cudnn.allow_tf32 = flags0.get("cudnn.allow_tf32", True)
    torch.set_float32_matmul_precision(flags0.get("float32_matmul_precision", "highest"))
    l2.l2_reset(torch)
    new = ref = cns = cand = out_f = None     # the closures hold the cells
    gc.collect()
    torch.cuda.empty_cache()
    return det, ev


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--json", help="write every case's evidence here")
    ap.add_argument("--only", nargs="*", help="candidate file names to run")
    a = ap.parse_args()
    import torch
    if not torch.cuda.is_available():
        print("escapes_probe: needs CUDA (torch.cuda.is_available() is False here)")
        sys.exit(77)
    cap = torch.cuda.get_device_capability()
    os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "%d.%d" % cap)
    os.environ.setdefault("TORCH_EXTENSIONS_DIR", "/tmp/hr-escapes-probe-ext")
    with open(os.path.join(SUITE, "suite.json")) as f:
        cases = json.load(f)["cases"]
    if a.only:
        cases = [c for c in cases if c["candidate"] in a.only]
    nvml_dev = nvml.open_device(pci_bus_id=nvml.torch_pci_bus_id(torch))
    print("device: %s, torch %s, CUDA %s; NVML: %s" % (
        torch.cuda.get_device_name(), torch.__version__, torch.version.cuda,
        nvml_dev[0].name if nvml_dev[0] else nvml_dev[1]))
    differ = kernel_blocks()
    if differ:
        print("note: these candidates' kernel source differs from the suite's, each builds "
              "apart: %s" % differ)
    flags0 = precision.precision_flags(torch)
    l2.l2_reset(torch)
    t_all = time.monotonic()
    rows, evidence, bad = [], {}, []
    for case in cases:
        t0 = time.monotonic()
        try:
            det, ev = run_case(torch, nvml_dev, case, flags0)
        except Exception as e:               # noqa: BLE001 - report, go on
            import traceback
            traceback.print_exc()
            det, ev = {"probe-error"}, {"error": "%s: %s" % (type(e).__name__, e)}
        ev["seconds"] = round(time.monotonic() - t0, 2)
        evidence[case["candidate"]] = ev
        want = set(case["expect"])
        if case["honest"]:
            wrong = sorted(det)
        else:
            wrong = sorted(want - det)
        if wrong or "probe-error" in det:
            bad.append((case["candidate"], wrong))
        rows.append((case, det, want))
    width = max(len(c["candidate"]) for c, _, _ in rows)
    print("\n%-*s  %s" % (width, "case", "  ".join("%d" % (i + 1) for i in range(len(COLUMNS)))))
    for case, det, want in rows:
        marks = []
        for col in COLUMNS:
            if col in want:
                marks.append("*" if col in det else "!")
            elif col in det:
                marks.append("!" if case["honest"] else "X")
            else:
                marks.append(".")
        extra = sorted(det - set(COLUMNS))
        print("%-*s  %s  %s %s" % (width, case["candidate"], "  ".join(marks),
                                   "honest" if case["honest"] else "planted",
                                   ",".join(case["classes"]) + (" " + str(extra) if extra else "")))
    print("\ncolumns: " + ", ".join("%d %s" % (i + 1, c) for i, c in enumerate(COLUMNS)))
    print("* expected and found; ! expected and missed, or found on an honest twin; "
          "X found, not required")
    for name, ev in evidence.items():
        p, pr, g = ev.get("profile", {}), ev.get("precision", {}), ev.get("graph", {})
        print("%s: own share %s, streams %s, after end %s, wall/event %s/%s ms, err %s vs ref %s, "
              "graph %s, %ss" % (
                  name, (p.get("share") or {}).get("own_share"), len(p.get("streams") or {}),
                  p.get("n_after_end"), ev.get("wall_vs_event", {}).get("wall_ms"),
                  ev.get("wall_vs_event", {}).get("event_ms"), pr.get("candidate_err"),
                  pr.get("reference_err"), g.get("ms_median") if g.get("captured") else g.get("why"),
                  ev.get("seconds")))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(evidence, f, indent=1, default=str)
    print("\n%d cases in %.1f s; %s" % (len(rows), time.monotonic() - t_all,
                                       "all as expected" if not bad else
                                       "NOT as expected: %s" % bad))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
