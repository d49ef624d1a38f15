"""archive_bench.py [--scale F] [--device cuda|cpu] [--modes faithful,robust]
[--headroom PATH] [--python PY] [--work DIR] [--timeout-run S] [--jobs N]
[--cap S] [--subset N [--levels L,..] [--kb KB]] [--json OUT] - the
archive benchmark: write the representative archive
(gen_archive.py, 900 x F evaluations), store it (problems add, ingest),
replay it once per mode, each cold (a build cache of its own), and print
one JSON line a mode: wall, evaluations a minute, jobs an hour, the
compilers' CPU seconds (all and per evaluation; the replay's own count),
the extensions' precompiled-header use, the run jobs' seconds by phase,
the verdicts, the run workers' busy share and idle seconds by reason
(the replay's summary), the jobs whose first attempt ran out of device
memory (and the most that other processes held then), and on CUDA the
GPU's busy fraction (nvidia-smi's utilization.gpu sampled every second
over the replay: samples above 0, and the mean), its memory used (most
and mean) and the most processes holding a context on it at once.  Not
a test: nothing fails on a slow machine.  Standard library only
(sqlite3 reads the store).

--subset N replays only N of the archive's evaluations, evenly spread
(gen_archive.py --subset).  With --kb KB (a bundle with KernelBench's
source, replay/gpu-bundle.sh; CUDA only) KernelBench's own fastest local
flow judges the same N first (tests/gpu/kb_side_by_side.py --mode best,
a run directory a level, as its eval_from_generations.py takes them:
all of a level's builds at once on the CPUs, then its evaluations one
after another; cold, the replay's --timeout-run as its per-evaluation
timeout, each build waited for up to 900 s): one JSON line
"kernelbench", and after the replays one "side_by_side" with each mode's
wall over KernelBench's.  --modes ""
replays nothing (KernelBench's side alone, for a call of its own on the
same machine); --levels keeps the subset's evaluations of those levels
(both sides), so that a subset too long for one call goes in parts.

CPU smoke (CI-sized): python3 tests/bench/archive_bench.py --device cpu --scale 0.014
The full run (H200): see docs/benchmarks.md.
"""
import argparse
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def smi(*query):
    """nvidia-smi's CSV rows (no header, no units) for one query, or []."""
    try:
        out = subprocess.run(["nvidia-smi"] + list(query) + ["--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        return []
    return [[f.strip() for f in row.split(",")] for row in out.splitlines() if row.strip()]


class GpuSampler(threading.Thread):
    """utilization.gpu and memory.used of the visible GPUs, and the
    number of processes holding a context on them, once a second."""

    def __init__(self):
        super().__init__(daemon=True)
        self.samples, self.memory, self.procs = [], [], []
        self.stop = threading.Event()

    def run(self):
        while not self.stop.is_set():
            try:
                for util, used in smi("--query-gpu=utilization.gpu,memory.used"):
                    self.samples.append(float(util))
                    self.memory.append(float(used))
            except ValueError:
                pass
            self.procs.append(len(smi("--query-compute-apps=pid")))
            self.stop.wait(1.0)

    def result(self):
        s = self.samples
        if not s:
            return None
        m = self.memory
        return {"samples": len(s), "busy_fraction": round(sum(1 for x in s if x > 0) / len(s), 3),
                "mean_utilization": round(sum(s) / len(s) / 100, 3),
                # None where nvidia-smi gave no figure ("[N/A]")
                "memory_used_max_gib": round(max(m) / 1024, 1) if m else None,
                "memory_used_mean_gib": round(sum(m) / len(m) / 1024, 1) if m else None,
                "processes_max": max(self.procs) if self.procs else None}


def hr(args, a, db, cap=None):
    """headroom with these arguments; past cap seconds it gets SIGTERM (a
    replay then stops, keeps what is done and prints its summary)."""
    p = subprocess.Popen([a.headroom, "--db", db] + args, text=True,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = p.communicate(timeout=cap)
        capped = False
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate()
        capped = True
    return subprocess.CompletedProcess(p.args, p.returncode, out, err), capped


def store_figures(db, run_id):
    """The run's jobs from the store: verdicts, its extensions'
    precompiled-header use (build stage's records, else the job's), and
    its jobs that ran out of device memory on a first attempt (checks.
    first_attempt_memory: the largest others_bytes, what processes
    other than the job's held then)."""
    con = sqlite3.connect(db)
    verdicts = dict((v or "none", n) for v, n in con.execute(
        "SELECT verdict, count(*) FROM replay_job WHERE run_id = ? GROUP BY verdict",
        (run_id,)).fetchall())
    pch = {}
    oom = {"jobs": 0, "others_gib_max": 0.0}
    for (cj,) in con.execute("SELECT checks_json FROM replay_job WHERE run_id = ?", (run_id,)):
        try:
            checks = json.loads(cj or "{}")
        except ValueError:
            continue
        first = checks.get("first_attempt_memory")
        if isinstance(first, dict):
            oom["jobs"] += 1
            others = first.get("others_bytes")
            if isinstance(others, int):
                oom["others_gib_max"] = max(oom["others_gib_max"], round(others / 2**30, 1))
        b = checks.get("build_stage") or checks.get("build") or {}
        for x in b.get("extensions") or []:
            if x.get("cache") != "miss":    # each compiled extension once
                continue
            k = str(x.get("pch", "none")).split(":")[0]
            pch[k] = pch.get(k, 0) + 1
    con.close()
    return verdicts, pch, oom


def replay(a, db, mode, cache):
    args = ["replay", "--device", a.device, "--mode", mode, "--python", a.python,
            "--problems-set", "bench-archive", "--cache", cache,
            "--timeout-run", str(a.timeout_run)]
    if a.jobs:
        args += ["--jobs", str(a.jobs)]
    if a.device == "cpu":
        args += ["--perf-trials", "10", "--warmup", "1"]
    gpu = GpuSampler() if a.device == "cuda" else None
    if gpu:
        gpu.start()
    t0 = time.monotonic()
    r, capped = hr(args, a, db, a.cap or None)
    wall = time.monotonic() - t0
    if gpu:
        gpu.stop.set()
        gpu.join()
    err = r.stderr
    m = re.search(r"replay: run (\d+): (\d+) of (\d+) jobs done", err)
    if not m:
        sys.stderr.write(err[-3000:])
        raise SystemExit("archive_bench: replay (%s) printed no summary, exit %d"
                         % (mode, r.returncode))
    run_id, done = int(m.group(1)), int(m.group(2))
    cpu = re.search(r"builds: ([0-9.]+) CPU-s of compilers", err)
    builds = re.search(r"(\d+) builds \((\d+) cache hits", err)
    phases = dict((k, float(v)) for k, v in re.findall(r"(\w+) ([0-9.]+) s",
                  (re.search(r"time by phase:(.*?);", err) or re.search("()", "")).group(1)))
    # Where the run workers' time went (issue 35: the GPU never idle while
    # a built job waits): busy, and idle by reason.
    rw = re.search(r"replay: run workers? \((\d+)\): busy ([0-9.]+) % of ([0-9.]+) s; "
                   r"idle:(.*)", err)
    run_workers = {"workers": int(rw.group(1)), "busy_percent": float(rw.group(2)),
                   "wall_s": float(rw.group(3)),
                   "idle_s": dict((k.strip(), float(v)) for k, v in
                                  re.findall(r"([a-z ]+) ([0-9.]+) s", rw.group(4)))} \
        if rw else None
    verdicts, pch, oom = store_figures(db, run_id)
    build_cpu = float(cpu.group(1)) if cpu else 0.0
    out = {"mode": mode, "device": a.device, "exit": r.returncode, "capped": capped,
           "evaluations": done, "jobs_total": int(m.group(3)),
           "wall_s": round(wall, 1),
           "evaluations_per_minute": round(done / wall * 60, 2) if wall else None,
           "jobs_per_hour": round(done / wall * 3600) if wall else None,
           "build_cpu_s": build_cpu,
           "build_cpu_s_per_evaluation": round(build_cpu / done, 2) if done else None,
           "builds": int(builds.group(1)) if builds else None,
           "build_cache_hits": int(builds.group(2)) if builds else None,
           "extensions_pch": pch, "phase_s": phases, "run_workers": run_workers,
           "verdicts": verdicts, "out_of_memory_first_attempts": oom}
    if gpu:
        out["gpu"] = gpu.result()
    return out


def subset_runs(arch, levels):
    """The subset's run directories (gen_archive.py: subset_level_L), of
    the levels asked (all when none)."""
    root = os.path.join(arch, "subset", "runs")
    return [os.path.join(root, d) for d in sorted(os.listdir(root))
            if not levels or d.rsplit("_", 1)[-1] in levels]


def kernelbench(a, arch, work):
    """KernelBench's fastest local flow on the subset's run directories,
    one level after another, each cold: their summaries and the sums."""
    levels = []
    t0 = time.monotonic()
    for run in subset_runs(arch, a.levels):
        d = os.path.basename(run)
        out = os.path.join(work, "kb-%s.json" % d)
        cmd = [a.python, os.path.join(ROOT, "tests", "gpu", "kb_side_by_side.py"),
               run, "--kb", a.kb, "--problems", os.path.join(arch, "problems"),
               "--mode", "best", "--workers", str(os.cpu_count() or 1),
               "--cache", os.path.join(work, "kb-cache-" + d), "--timeout", str(a.timeout_run),
               "--build-timeout", "900", "--out", out]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.stderr.write(r.stderr[-3000:])
            raise SystemExit("archive_bench: kb_side_by_side on %s: exit %d" % (d, r.returncode))
        with open(out) as f:
            rep = json.load(f)
        res = rep["results"]
        levels.append(dict(rep["summary"], run=d,
                           compiled=sum(1 for x in res if x.get("compiled")),
                           correct=sum(1 for x in res if x.get("correctness")),
                           timed_out=sum(1 for x in res if x.get("timed_out"))))
    wall = time.monotonic() - t0
    n = sum(x["kernels"] for x in levels)
    return {"kernelbench": {
        "evaluations": n, "wall_s": round(wall, 1),
        "evaluations_per_minute": round(n / wall * 60, 2) if wall else None,
        "build_cpu_s": round(sum(x["build_cpu_s_total"] for x in levels), 1),
        "build_phase_s": round(sum(x["build_phase_s"] for x in levels), 1),
        "eval_phase_s": round(sum(x["eval_phase_s"] for x in levels), 1),
        "compiled": sum(x["compiled"] for x in levels),
        "correct": sum(x["correct"] for x in levels),
        "timed_out": sum(x["timed_out"] for x in levels),
        "timeout_s": a.timeout_run, "levels": levels}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--modes", default="faithful,robust")
    ap.add_argument("--headroom", default=os.path.join(ROOT, "headroom"))
    ap.add_argument("--python", default=os.environ.get("HEADROOM_PYTHON", "python3"))
    ap.add_argument("--work", help="keep the archive, store and caches here")
    ap.add_argument("--timeout-run", type=int, default=None,
                    help="seconds a run phase (default 60 on CUDA, 20 on the CPU)")
    ap.add_argument("--jobs", type=int, default=0, help="build workers (default: replay's)")
    ap.add_argument("--json", help="also write the lines to this file, as they come")
    ap.add_argument("--cap", type=float, default=0,
                    help="stop each replay after this many seconds (SIGTERM: what is "
                    "done is reported; default none)")
    ap.add_argument("--subset", type=int, default=0,
                    help="replay N of the archive's evaluations, evenly spread")
    ap.add_argument("--levels", default="",
                    help="with --subset: only its evaluations of these levels (1,2,3)")
    ap.add_argument("--kb", help="KernelBench's bundle: its own flow judges the subset first")
    a = ap.parse_args()
    if a.subset < 0:
        ap.error("--subset takes a number of evaluations, 0 or more")
    a.levels = [x for x in a.levels.split(",") if x]
    if a.levels and (not a.subset or not set(a.levels) <= {"1", "2", "3"}):
        ap.error("--levels takes levels of 1, 2, 3, with --subset")
    if a.kb and not (a.subset and a.device == "cuda"):
        ap.error("--kb needs --subset and --device cuda (KernelBench's evaluation is CUDA's)")
    if a.timeout_run is None:
        a.timeout_run = 60 if a.device == "cuda" else 20
    tmp = None
    if a.work:
        os.makedirs(a.work, exist_ok=True)
        work = a.work
    else:
        tmp = tempfile.TemporaryDirectory(prefix="hr-archive-bench-")
        work = tmp.name
    arch, db = os.path.join(work, "archive"), os.path.join(work, "bench.db")
    g = subprocess.run([sys.executable, os.path.join(HERE, "gen_archive.py"), arch,
                        "--scale", str(a.scale), "--device", a.device,
                        "--subset", str(a.subset)], capture_output=True, text=True, check=True)
    sink = open(a.json, "w") if a.json else None

    def emit(line):
        print(line, flush=True)
        if sink:
            sink.write(line + "\n")
            sink.flush()
    emit(json.dumps({"archive": json.loads(g.stdout)}))
    runs = subset_runs(arch, a.levels) if a.subset else [os.path.join(arch, "runs")]
    side = {}
    if a.kb:
        kb = kernelbench(a, arch, work)
        side["kernelbench_wall_s"] = kb["kernelbench"]["wall_s"]
        emit(json.dumps(kb, sort_keys=True))
    for args in [["problems", "add", os.path.join(arch, "problems"), "--name", "bench-archive"]] + \
            [["ingest", run, "--source", "bench-archive"] for run in runs]:
        r, _ = hr(args, a, db)
        if r.returncode != 0:
            raise SystemExit("archive_bench: %s: exit %d\n%s" % (" ".join(args[:2]),
                                                                 r.returncode, r.stderr))
    for mode in [m for m in a.modes.split(",") if m]:
        line = replay(a, db, mode, os.path.join(work, "cache-" + mode))
        side[mode + "_wall_s"] = line["wall_s"]
        if line["capped"]:          # stopped at --cap: no ratio
            side[mode + "_capped"] = True
        elif a.kb and side.get("kernelbench_wall_s"):
            side[mode + "_over_kernelbench"] = round(line["wall_s"] / side["kernelbench_wall_s"], 3)
        emit(json.dumps(line, sort_keys=True))
    if a.kb and len(side) > 1:
        n = sum(1 for run in runs for f in os.listdir(run) if f.endswith("_kernel.py"))
        emit(json.dumps({"side_by_side": dict(side, evaluations=n, levels=a.levels or "all")},
                        sort_keys=True))
    if sink:
        sink.close()
    if tmp:
        tmp.cleanup()


main()
