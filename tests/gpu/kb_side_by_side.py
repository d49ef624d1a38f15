#!/usr/bin/env python3
"""Evaluate a KernelBench run directory with KernelBench's own harness.

headroom's reference run for `headroom replay --mode faithful`: the same
candidates, judged by KernelBench's `eval_kernel_against_ref` with the settings
of its scripts/eval_from_generations.py (5 correctness trials, 100 timed
trials with CUDA events, fp32, gpu_arch Hopper, 180 s per evaluation, one
spawned process per evaluation), so that verdicts and runtimes can be put side
by side (docs/benchmarks-history.md, "replay vs KernelBench").

KernelBench itself is not part of headroom: it is imported from a bundle that
replay/gpu-bundle.sh makes (--kb, default .kb).  Modes:
  best    KernelBench's fastest local flow (eval_from_generations.py with
          build_cache=True): all builds in parallel on the CPUs
          (compile.batch_compile, build_compile_cache), then the evaluations
          one after another, each loading its prebuilt extension.
  serial  its default flow: build and evaluate each kernel in turn.
Writes a JSON report (--out) and, in the run directory's format, an
eval_results.json (--eval-results) that `headroom ingest` can read.
"""
import argparse
import glob
import json
import multiprocessing as mp
import os
import re
import resource
import shutil
import sys
import time

KERNEL_RE = re.compile(r"level_(\d+)_problem_(\d+)_sample_(\d+)_kernel\.py$")


def setup_paths(kb):
    # KernelBench's package first; the stand-ins last, so that a real
    # package, where installed, wins over its stand-in.
    kb = os.path.abspath(kb)
    src, stubs = os.path.join(kb, "src"), os.path.join(kb, "stubs")
    if src not in sys.path:
        sys.path.insert(0, src)
    if stubs not in sys.path:
        sys.path.append(stubs)
    # (Spawned children do not inherit sys.path: build_one and eval_one call
    # this again first.)
    return kb


def cpu_children():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def cpu_self():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def problem_source(problems, level, pid):
    """The reference of level/pid: PROBLEMS/levelL/PID_*.py, KernelBench's
    layout (--problems; default KernelBench's own, KB/KernelBench)."""
    hits = glob.glob(os.path.join(problems, f"level{level}", f"{pid}_*.py"))
    if len(hits) != 1:
        raise SystemExit(f"kb_side_by_side: problem {level}/{pid}: {len(hits)} files")
    with open(hits[0]) as f:
        return os.path.basename(hits[0]), f.read()


def build_one(kb, kernel_path, build_dir, gpu_arch):
    """One build, as compile.compile_single_sample does it."""
    setup_paths(kb)
    from kernelbench.eval import build_compile_cache
    from kernelbench import utils
    utils.set_gpu_arch(gpu_arch)
    with open(kernel_path) as f:
        src = f.read()
    t0, c0, s0 = time.time(), cpu_children(), cpu_self()
    try:
        ok, _out, err = build_compile_cache(custom_model_src=src, verbose=False,
                                            build_dir=build_dir)
    except Exception as e:  # noqa: BLE001 - KernelBench's own last-level catch
        ok, err = None, str(e)
    return {"built": bool(ok), "error": None if ok else str(err)[-300:],
            "build_wall_s": time.time() - t0,
            "build_cpu_s": cpu_children() - c0,
            "worker_cpu_s": cpu_self() - s0}


def jsonable(v):
    if isinstance(v, (str, int, float, bool)) or v is None:
        return v
    if isinstance(v, dict):
        return {str(k): jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x) for x in v]
    return str(v)


def eval_one(kb, ref_src, kernel_path, build_dir, gpu_arch, cfg):
    """One evaluation, as eval_from_generations.evaluate_single_sample."""
    t0, c0 = time.time(), cpu_children()
    setup_paths(kb)
    import torch
    from kernelbench import eval as kb_eval
    from kernelbench import utils
    utils.set_gpu_arch(gpu_arch)
    t_import = time.time() - t0
    with open(kernel_path) as f:
        src = f.read()
    device = torch.device("cuda:0")
    try:
        r = kb_eval.eval_kernel_against_ref(
            original_model_src=ref_src, custom_model_src=src,
            measure_performance=True, timing_method="cuda_event",
            verbose=False, num_correct_trials=cfg["correct_trials"],
            num_perf_trials=cfg["perf_trials"], build_dir=build_dir,
            device=device, backend="cuda",
            precision=kb_eval.get_torch_dtype_from_string("fp32"))
        if r is None:
            res = {"compiled": False, "correctness": False,
                   "metadata": {"other_error": "lock file error (None result)"},
                   "runtime": -1.0, "runtime_stats": {}, "ref_runtime": -1.0}
        else:
            res = {"compiled": r.compiled, "correctness": r.correctness,
                   "metadata": jsonable(r.metadata), "runtime": r.runtime,
                   "runtime_stats": jsonable(r.runtime_stats),
                   "ref_runtime": r.ref_runtime}
    except Exception as e:  # noqa: BLE001 - mirrors evaluate_single_sample
        key = "cuda_error" if "CUDA error" in str(e) else "other_error"
        res = {"compiled": False, "correctness": False,
               "metadata": {key: str(e)[-300:]}, "runtime": -1.0,
               "runtime_stats": {}, "ref_runtime": -1.0}
    res["import_s"] = t_import
    res["eval_wall_s"] = time.time() - t0
    res["eval_cpu_children_s"] = cpu_children() - c0
    return res


def run_in_own_process(fn, args, timeout):
    """cuda_single_eval_wrapper: one spawned process, killed at the timeout."""
    with mp.get_context("spawn").Pool(1) as pool:
        try:
            return pool.apply_async(fn, args).get(timeout=timeout)
        except mp.TimeoutError:
            return {"compiled": False, "correctness": False,
                    "metadata": {"error": "Evaluation timed out"},
                    "runtime": -1.0, "runtime_stats": {}, "ref_runtime": -1.0,
                    "timed_out": True}
        except Exception as e:  # noqa: BLE001
            return {"compiled": False, "correctness": False,
                    "metadata": {"error": str(e)[-300:]}, "runtime": -1.0,
                    "runtime_stats": {}, "ref_runtime": -1.0}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run_dir")
    ap.add_argument("--kb", default=".kb")
    ap.add_argument("--problems", default=None,
                    help="the problems, levelL/ID_Name.py (default KB/KernelBench)")
    ap.add_argument("--mode", choices=("best", "serial"), default="best")
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--cache", default=None, help="build directory root")
    ap.add_argument("--timeout", type=float, default=180.0,
                    help="seconds an evaluation (and a build, unless --build-timeout)")
    ap.add_argument("--build-timeout", type=float, default=None,
                    help="seconds to wait for each build's result (default --timeout)")
    ap.add_argument("--correct-trials", type=int, default=5)
    ap.add_argument("--perf-trials", type=int, default=100)
    ap.add_argument("--gpu-arch", default="Hopper")
    ap.add_argument("--only", default=None, help="comma-separated problem ids")
    ap.add_argument("--out", default=None)
    ap.add_argument("--eval-results", default=None)
    a = ap.parse_args()
    kb = setup_paths(a.kb)
    problems = os.path.abspath(a.problems or os.path.join(kb, "KernelBench"))
    gpu_arch = [a.gpu_arch]
    cfg = {"correct_trials": a.correct_trials, "perf_trials": a.perf_trials}
    cache = os.path.abspath(a.cache or os.path.join(a.run_dir, "..", "kb-cache-" + a.mode))
    shutil.rmtree(cache, ignore_errors=True)   # cold: no earlier build counts

    work = []
    for path in sorted(glob.glob(os.path.join(a.run_dir, "level_*_kernel.py"))):
        m = KERNEL_RE.search(path)
        if not m:
            continue
        level, pid, sid = map(int, m.groups())
        if a.only and str(pid) not in a.only.split(","):
            continue
        work.append((level, pid, sid, os.path.abspath(path),
                     os.path.join(cache, str(pid), str(sid))))
    work.sort(key=lambda w: (w[1], w[2]))
    if not work:
        raise SystemExit("kb_side_by_side: no kernels in " + a.run_dir)

    t_all = time.time()
    builds = {}
    t_build = 0.0
    if a.mode == "best":
        t0 = time.time()
        with mp.get_context("spawn").Pool(min(a.workers, len(work))) as pool:
            asyncs = [(w, pool.apply_async(build_one, (kb, w[3], w[4], gpu_arch)))
                      for w in work]
            for w, r in asyncs:
                try:
                    builds[(w[1], w[2])] = r.get(timeout=a.build_timeout or a.timeout)
                except mp.TimeoutError:
                    builds[(w[1], w[2])] = {"built": None, "error": "build timed out"}
        t_build = time.time() - t0
        print(f"[kb] parallel builds: {len(work)} kernels, {t_build:.1f} s wall, "
              f"{a.workers} workers", flush=True)

    results = []
    t0 = time.time()
    for level, pid, sid, path, bdir in work:
        name, ref_src = problem_source(problems, level, pid)
        r = run_in_own_process(eval_one, (kb, ref_src, path, bdir, gpu_arch, cfg),
                               a.timeout)
        r.update({"level": level, "problem_id": pid, "sample_id": sid,
                  "problem": name})
        if (pid, sid) in builds:
            r["build"] = builds[(pid, sid)]
        results.append(r)
        print(f"[kb] L{level} P{pid} S{sid} {name}: compiled={r['compiled']} "
              f"correct={r['correctness']} runtime={r['runtime']} ms "
              f"ref={r.get('ref_runtime')} ms eval={r.get('eval_wall_s', 0):.1f} s",
              flush=True)
    t_eval = time.time() - t0
    total = time.time() - t_all
    n = len(results)
    summary = {
        "mode": a.mode, "kernels": n, "workers": a.workers,
        "build_phase_s": t_build, "eval_phase_s": t_eval, "total_s": total,
        "per_evaluation_s": total / n,
        "build_cpu_s_total": sum(b.get("build_cpu_s", 0) for b in builds.values()),
    }
    print("[kb] summary " + json.dumps(summary), flush=True)
    report = {"kernelbench_commit": open(os.path.join(kb, "COMMIT")).read().strip()
              if os.path.exists(os.path.join(kb, "COMMIT")) else None,
              "summary": summary, "results": results}
    try:
        import torch
        report["torch"] = torch.__version__
        report["cuda"] = torch.version.cuda
    except Exception:  # noqa: BLE001
        pass
    if a.out:
        with open(a.out, "w") as f:
            json.dump(report, f, indent=1)
    if a.eval_results:
        # KernelBench's current eval_results.json schema: problem -> [samples]
        er = {}
        for r in results:
            er.setdefault(str(r["problem_id"]), []).append({
                "sample_id": r["sample_id"], "compiled": r["compiled"],
                "correctness": r["correctness"], "metadata": r["metadata"],
                "runtime": r["runtime"], "runtime_stats": r["runtime_stats"]})
        with open(a.eval_results, "w") as f:
            json.dump(er, f, indent=4)


if __name__ == "__main__":
    main()
