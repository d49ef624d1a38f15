#!/usr/bin/env python3
"""worker.py - the replay worker: runs one KernelBench-style job at a time.

Owns: importing a problem (Model, get_inputs, get_init_inputs) and a
candidate (ModelNew) under PyTorch, building the candidate's extension in a
content-addressed cache, drawing the job's input sets into the run's shared
inputs directory (a build job with "draw" does it ahead for the run worker,
which then only loads), the correctness trials and the timing loop, and one
JSON result line per job.  The protocol is docs/replay.md.
Must not: open the database, write outside --scratch, --cache and --inputs,
remove input files (the orchestrator owns their lifetime; but the keeper of
the run's only GPU worker takes the files it holds, --take-inputs), let candidate
code write the inputs directory, or write on the protocol stream.

Shape: a fork server.  The parent imports torch once (it never initialises
CUDA) and forks one child per job; the child runs the job in its own process
group and writes its phase and result lines itself.  A crash, a sticky CUDA
error or a monkey-patched torch therefore dies with the child.  A second
long-lived child, the keeper, holds the inputs directory's sets in device
memory and lends them to the jobs (hrworker/keeper.py).  This file is the
entry point and the fork server; hrworker/ holds the job, the keeper, the
sandbox and the C libraries' bindings (docs/replay.md, The worker).
Standard library + torch + numpy only.
"""
import argparse
import gc
import json
import os
import platform
import resource
import select
import shutil
import signal
import subprocess
import sys
import time
from types import ModuleType

from hrworker import vocab
from hrworker.protocol import Hello, JobMessage, Line
from hrworker.util import PR_SET_CHILD_SUBREAPER, exc_text, is_oom, prctl, set_pdeathsig
from hrworker.sandbox import Landlock, Sandbox, private_beneath
from hrworker.builder import tidy_building
from hrworker.jail import (FSIZE_MAX, JobCgroups, ids_off, jail_off, kept_ids, nproc_max,
                           share_cache)
from hrworker.native import FastRand, Verify
from hrworker.job import JUDGE_FAILED, Job, judges_own
from hrworker.launch import start_candidate
from hrworker.keeper import keeper_budget_mb, start_keeper
from hrworker.state import WorkerState

T0 = time.monotonic()   # the worker's start (its hello says what took how long)

PROTOCOL = 1


class Proto:
    """The private protocol stream (a dup of the original fd 1)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, obj: Line) -> None:
        data = (json.dumps(obj, allow_nan=False, default=str) + "\n").encode()
        view = memoryview(data)
        while view:
            n = os.write(self.fd, view)
            view = view[n:]


def llc_bytes(base="/sys/devices/system/cpu/cpu0/cache"):
    """Size of the largest CPU cache (sysfs: each indexN/size, whatever
    else the folder lists, in whatever order), 32 MiB when none reads."""
    best = 0
    try:
        names = os.listdir(base)
    except OSError:
        names = []
    for d in names:
        if not d.startswith("index"):
            continue
        try:
            with open(os.path.join(base, d, "size")) as f:
                s = f.read().strip()
            mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(s[-1:], 1)
            best = max(best, int(s.rstrip("KMG")) * mult)
        except (OSError, ValueError):
            continue
    return best or 32 << 20


SMI_FIELDS = "name,driver_version,compute_cap,clocks.sm,clocks.mem,clocks.max.sm,uuid"


def nvidia_smi_start(index):
    """Start the one nvidia-smi query of the worker (its GPU's name, driver,
    compute capability, clocks, uuid); it runs while torch is imported
    (smi_answer).  None when nvidia-smi cannot run."""
    try:
        return subprocess.Popen(["nvidia-smi", "--query-gpu=" + SMI_FIELDS,
                                 "--format=csv,noheader", "-i", str(index)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                stdin=subprocess.DEVNULL, text=True)
    except OSError:
        return None


def smi_answer(proc):
    """The query's fields by name ({} when it failed or took over 20 s)."""
    if proc is None:
        return {}
    try:
        out, _ = proc.communicate(timeout=20)
    except subprocess.SubprocessError:
        proc.kill()
        proc.wait()
        return {}
    vals = [v.strip() for v in out.strip().split(",")]
    fields = SMI_FIELDS.split(",")
    return dict(zip(fields, vals)) if proc.returncode == 0 and len(vals) == len(fields) else {}


def hello(cfg: WorkerState, torch: ModuleType) -> Hello:
    assert cfg.jail is not None         # main made it before the keeper
    info: Hello = {"type": "hello", "protocol": PROTOCOL, "pid": os.getpid(),
                   "python": platform.python_version(), "torch": torch.__version__,
                   "cuda": torch.version.cuda, "device": cfg.device, "arch": cfg.arch,
                   "verify": cfg.verify.path if cfg.verify else None,
                   "verify_error": cfg.verify_error, "keeper_pid": cfg.keeper_pid,
                   "rand": cfg.rand.path if cfg.rand else None, "rand_error": cfg.rand_error,
                   "fs_jail": cfg.jail.describe(), "job_jail": cfg.job_jail,
                   "start_seconds": cfg.start_s}
    if cfg.device.startswith("cuda"):
        smi = cfg.smi
        info["gpu_name"] = smi.get("name")
        info["driver"] = smi.get("driver_version")
        info["gpu_uuid"] = smi.get("uuid")
        info["clocks"] = {k: smi.get(k) for k in ("clocks.sm", "clocks.mem", "clocks.max.sm")}
    else:
        model = None
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        model = line.split(":", 1)[1].strip()
                        break
        except OSError:
            pass
        info["gpu_name"], info["driver"] = None, None
        info["cpu"], info["llc_bytes"] = model, cfg.llc_bytes
    return info


def set_subreaper():
    """Become the parent of every orphan among this process's descendants
    (PR_SET_CHILD_SUBREAPER), so that sweep finds what a job left running
    outside its process group."""
    prctl(PR_SET_CHILD_SUBREAPER, 1)


def child(msg, cfg, proto, torch, done_fd):
    """Run one job in the forked child; never returns.  Once its result is
    sent and the lent sets are given back, a byte on done_fd tells the
    parent the job is over (serve): the process's teardown is not waited
    for."""
    code = 0
    cfg.job_t0 = time.monotonic()
    try:
        os.setpgid(0, 0)
        set_pdeathsig()
        fd = os.open(os.devnull, os.O_RDONLY)
        os.dup2(fd, 0)
        jobdir = os.path.join(cfg.scratch, "job-%s" % msg["job"])
        os.makedirs(jobdir, exist_ok=True)
        os.chdir(jobdir)
        for k in ("HOME", "TMPDIR", "TMP", "TEMP"):
            os.environ[k] = jobdir
        # Compilers torch may call keep their caches beside the extensions.
        os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(cfg.cache, "inductor"))
        os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(cfg.cache, "triton"))
        import tempfile
        tempfile.tempdir = None
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if cfg.mem_limit_mb and not cfg.device.startswith("cuda"):
            lim = cfg.mem_limit_mb << 20
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
        sched = lower_priority(msg)
        # The candidate process, forked before the judge (this process)
        # makes a CUDA context or reads the problem: candidate code runs
        # there only (hrworker/candidate.py).  Jobs that run no candidate
        # (the problem audit, draws ahead) have none.
        # The job's cgroup, before the candidate process is forked: both
        # are in it, and whatever they start.  Threads count in pids.max:
        # two processes' worth of torch pools.
        cgroup = cfg.cgroups.enter(msg["job"], 2 * nproc_max(), 0 if cfg.device.startswith("cuda")
                                   else cfg.mem_limit_mb << 20)
        cand = None
        cand_cgroup = None
        if msg.get("stop_after") not in (vocab.STOP_REFERENCE, vocab.STOP_INPUTS):
            cand = start_candidate(cfg, torch, msg, jobdir)
            # The cgroup the judge counts the candidate's processes in
            # (account.Family: those reaped unread too), before candidate
            # code runs.
            if cand.family.loadavg is not None:
                where, why = cfg.cgroups.enter_candidate(msg["job"], cand.family.pids())
                cand.family.count_cgroup(where)
                cand_cgroup = {"cgroup": where} if where else {"cgroup": None, "why": why}
        cfg.sandbox.roots = [os.path.realpath(r) for r in
                             (cfg.scratch, cfg.cache, cfg.inputs_dir)]
        jail_error = None
        if cfg.jail.abi:
            try:
                cfg.jail.apply(cfg.sandbox.roots)
            except OSError as e:   # the audit hook alone, as without Landlock
                jail_error = str(e)
        cfg.sandbox.active = True
        job = Job(msg, cfg, proto, torch, cand)
        if cand_cgroup is not None:
            job.checks["candidate_cgroup"] = cand_cgroup
        if jail_error:
            job.checks["fs_jail_error"] = jail_error
        result = job.run()
        job.checks["job_cgroup"] = JobCgroups.usage(cgroup)
        if sched is not None:
            job.checks["sched_policy"] = sched
        cfg.sandbox.active = False
        proto.send(result)
        job.give_back()
        os.write(done_fd, b"B" if large_teardown(job) else b"!")
    except BaseException as e:  # noqa: the child must always answer
        cfg.sandbox.active = False
        try:
            # An Exception no part answered, a candidate's RemoteError
            # aside, is the judge's own code's (Job.run answers those it
            # meets: judge_failed): failed:tool, never the candidate's;
            # out of device memory, once more alone.
            res = {"type": "result", "job": msg.get("job"), "verdict": vocab.PV_CRASHED,
                   "error_kind": "worker", "error": exc_text(e)}
            if judges_own(e):
                res.update(verdict=vocab.PV_RUNTIME_ERROR, error_kind="tool",
                           error=JUDGE_FAILED % exc_text(e))
                if is_oom(res["error"]) and not msg.get("alone"):
                    res["retry_alone"] = True
            proto.send(res)
            os.write(done_fd, b"!")
        except OSError:
            code = 70
    finally:
        os._exit(code)


def lower_priority(msg):
    """The job's priority, as the orchestrator placed it; only ever lower
    than the worker's own, and its builder and compilers inherit it.
    "nice": a build's place in the run (builds dispatched earlier go
    first).  "idle" (a build behind the run's first group, a draw ahead:
    replay.c dispatch): SCHED_IDLE, so that a run worker's thread that
    wakes takes the CPU from it at once.  At nice 19 it did not: on the
    H100 (kernel 6.18, EEVDF) a job timed while builds ran saw each
    handshake wait 4-8 ms for a CPU (the candidate's figure that much
    slower; docs/replay.md, Priorities).  The policy set ("idle", or why
    not), or None."""
    nice = msg.get("nice")
    if type(nice) is int and os.getpriority(os.PRIO_PROCESS, 0) < nice <= 19:
        try:
            os.setpriority(os.PRIO_PROCESS, 0, nice)
        except OSError:
            pass
    if msg.get("idle") is not True:
        return None
    try:
        os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
    except (OSError, AttributeError) as e:
        return "not idle: %s" % e
    return "idle"


# A job whose judge held more than this share of the device's memory at
# once (torch.cuda.max_memory_reserved) is let tear down before the next
# job starts (serve): its candidate process held as much again, and the
# next job's first allocations met the memory of both still held.
LARGE_TEARDOWN_SHARE = 0.1


def large_teardown(job):
    """Did this job (a CUDA job's judge, in its child) hold device memory
    enough that the next job should wait for its teardown?"""
    ctx = job.ctx
    if not ctx.cuda:
        return False
    try:
        t = ctx.torch
        return bool(t.cuda.is_initialized() and
                    t.cuda.max_memory_reserved() > LARGE_TEARDOWN_SHARE * ctx.memory_total())
    except Exception:       # noqa: a note for the schedule, never a failure
        return False


def proc_fields(pid):
    """The fields of /proc/PID/stat after the command's name (state,
    ppid, ...), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[-1].split()
    except OSError:
        return None


def proc_state(pid):
    """The state letter of /proc/PID/stat ("R", "S", "Z", ...), or None."""
    fields = proc_fields(pid)
    return fields[0] if fields else None


def sweep(cfg):
    """Kill and reap this worker's children it did not fork itself: what a
    job left running outside its process group (setsid, setpgid), which
    killpg missed and which became the worker's once the job's process
    ended (set_subreaper).  Where no job runs (reap); returns how many."""
    known, killed = set(cfg.dying) | {cfg.keeper_pid}, 0
    for pid in sorted(own_children() - known):
        # A zombie left nothing running: a job's candidate process, killed
        # with the job's process group, is reaped here (this process
        # became its parent when the job's process ended).
        alive = proc_state(pid) not in ("Z", "X", None)
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            killed += alive
        except (OSError, ChildProcessError):
            pass
    return killed


def own_children():
    """This process's children: each thread's /proc/self/task/TID/children,
    or, where the kernel has no such file, the processes whose ppid is
    this one (a scan of /proc; on the development machine, with 65
    processes, 3 ms against 1 ms for the children files)."""
    pids = set()
    try:
        for tid in os.listdir("/proc/self/task"):
            with open("/proc/self/task/%s/children" % tid) as f:
                pids.update(int(p) for p in f.read().split())
        return pids
    except OSError:
        pass
    me = str(os.getpid())
    for name in os.listdir("/proc"):
        fields = proc_fields(int(name)) if name.isdigit() else None
        if fields and len(fields) > 1 and fields[1] == me:
            pids.add(int(name))
    return pids


def keeper_alive(cfg, torch):
    """Before a job: a keeper that exited (crashed, killed, or left on its
    own: see Keeper.tidy) is started again; its sets are loaded anew."""
    if not cfg.keeper_pid:
        return
    try:
        pid, _ = os.waitpid(cfg.keeper_pid, os.WNOHANG)
        # Killed, but not reapable yet: a CUDA process's main thread is a
        # zombie while its other threads are still in the driver's
        # teardown (seen on the H200).  Wait for it (up to 30 s) rather
        # than lend through a keeper that is going.
        deadline = time.monotonic() + 30
        while not pid and proc_state(cfg.keeper_pid) == "Z" and time.monotonic() < deadline:
            time.sleep(0.05)
            pid, _ = os.waitpid(cfg.keeper_pid, os.WNOHANG)
    except ChildProcessError:
        pid = cfg.keeper_pid
    if pid:
        sys.stderr.write("headroom worker: the keeper exited; starting another\n")
        cfg.keeper.close()
        cfg.keeper_pid, cfg.keeper = None, None
        cfg.keeper = start_keeper(cfg, torch)


def stop_keeper(cfg):
    """Stop the keeper and wait for its end (its device memory back to the
    driver); cfg.keeper_stopped tells serve to start it again."""
    if not cfg.keeper_pid:
        return
    pid, cfg.keeper_pid = cfg.keeper_pid, None
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (OSError, ChildProcessError):
        pass
    if cfg.keeper is not None:
        cfg.keeper.close()
    cfg.keeper = None
    cfg.keeper_stopped = True


def reap(cfg, keep):
    """Wait for the job processes serve killed after their answer (their
    CUDA teardown overlaps the next job) until at most keep are left."""
    while len(cfg.dying) > keep:
        pid = cfg.dying.pop(0)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    for pid in list(cfg.dying):
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                cfg.dying.remove(pid)
        except ChildProcessError:
            cfg.dying.remove(pid)
    cfg.cgroups_left = [j for j in cfg.cgroups_left if not cfg.cgroups.remove(j)]
    n = sweep(cfg)
    if n:
        sys.stderr.write("headroom worker: killed %d process%s an earlier job left "
                         "outside its process group\n" % (n, "es" if n > 1 else ""))


def job_over(pid, done_r):
    """Wait until the job's child says it answered (its byte on done_r:
    returns None, or "large" when the byte says its teardown is large:
    large_teardown) or ends without saying so (returns its exit status).
    A stray the job forked may hold done_r's other end, so the child's
    end is watched too (a pidfd; where there is none, polled)."""
    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            pidfd = None
    try:
        while True:
            watch = [done_r] + ([pidfd] if pidfd is not None else [])
            ready, _, _ = select.select(watch, [], [], None if pidfd is not None else 0.02)
            if done_r in ready:
                said = os.read(done_r, 1)
                if said:
                    return "large" if said == b"B" else None
                _, status = os.waitpid(pid, 0)   # closed: the child has ended
                return status
            got, status = os.waitpid(pid, os.WNOHANG)
            if got:
                return status
    finally:
        if pidfd is not None:
            os.close(pidfd)


def serve(msg, cfg, proto, torch):
    """Run one job in a forked child.  The job is over when the child has
    sent its result (then its process group is killed at once, and its
    teardown -- a CUDA context, tens of GB freed -- overlaps the next job:
    exit's status is null) or when it ended without one (exit's status is
    its exit code, or minus the signal).  A job marked "alone" (a retry
    of a job that ran out of device memory while the tool held some:
    Job.out_of_memory) runs with the keeper stopped and every earlier
    job's teardown over; the keeper starts again before the next job."""
    if msg.get("alone"):
        stop_keeper(cfg)
        reap(cfg, 0)
    else:
        if cfg.keeper_stopped:
            cfg.keeper_stopped = False
            cfg.keeper = start_keeper(cfg, torch)
        keeper_alive(cfg, torch)
        # at most one job's teardown beside the next job; none after a
        # job that held a tenth of the device or more (large_teardown)
        reap(cfg, 0 if cfg.large_teardown else 1)
    cfg.large_teardown = False
    # The child waits for one byte, so "start" is always the job's first line.
    go_r, go_w = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(go_w)
        os.close(done_r)
        os.read(go_r, 1)
        os.close(go_r)
        child(msg, cfg, proto, torch, done_w)
    os.close(go_r)
    os.close(done_w)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    proto.send({"type": "start", "job": msg["job"], "pid": pid})
    os.write(go_w, b"!")
    os.close(go_w)
    try:
        status = job_over(pid, done_r)
    finally:
        os.close(done_r)
    try:
        os.killpg(pid, signal.SIGKILL)     # the child, when it answered; strays it forked
    except OSError:
        pass
    if status == "large":
        status, cfg.large_teardown = None, True
    if status is None:
        cfg.dying.append(pid)
    cfg.cgroups_left.append(msg["job"])
    shutil.rmtree(os.path.join(cfg.scratch, "job-%s" % msg["job"]), ignore_errors=True)
    proto.send({"type": "exit", "job": msg["job"],
                "status": None if status is None else os.waitstatus_to_exitcode(status)})


def preload(torch):
    """Import, once in the fork server, what every job imports: the jobs
    inherit it (torch.utils.cpp_extension alone took 0.25-0.35 s a job, the
    bulk of a cached extension's 'build' phase; torch.profiler's first
    profile imports torch._inductor, 2.1 s on the development machine, in
    each of a job's two processes: the GPU-escapes pass).  cpp_extension asks
    torch.cuda.is_available() at import, only to print a warning; asking
    the driver here would initialise CUDA in the process every job is
    forked from, which CUDA does not survive.  So the question is answered
    without the driver while the import runs."""
    import tempfile
    real = torch.cuda.is_available
    env = dict(os.environ)
    torch.cuda.is_available = lambda: True
    try:
        import numpy  # noqa: F401
        import torch.utils.cpp_extension  # noqa: F401
        import torch._inductor.config  # noqa: F401
        import torch.profiler  # noqa: F401
    finally:
        torch.cuda.is_available = real
        # What the imports decided for this process is the job's to
        # decide: torch._inductor sets TORCHINDUCTOR_CACHE_DIR (to /tmp/...)
        # and fixes tempfile's directory, where a job's sandbox refuses
        # writes; the job sets both from its own scratch (job_main).
        os.environ.clear()
        os.environ.update(env)
        tempfile.tempdir = None


def parse_args(argv):
    p = argparse.ArgumentParser(description="headroom replay worker (docs/replay.md)")
    p.add_argument("--device", default="cpu", help="cpu or cuda (the one visible GPU)")
    p.add_argument("--gpu-index", default="0", help="physical index, for nvidia-smi")
    p.add_argument("--scratch", required=True, help="the only directory written")
    p.add_argument("--cache", help="extension build cache (default SCRATCH/cache)")
    p.add_argument("--inputs", help="input sets shared by the run's workers "
                   "(default SCRATCH/inputs)")
    p.add_argument("--verify-lib", help="libhrverify.so to load with ctypes")
    p.add_argument("--rand-lib", help="libhrrand.so: torch.rand's CPU stream for the "
                   "input draws (checked against torch first)")
    p.add_argument("--mem-limit-mb", type=int, default=0, help="RLIMIT_AS per job (CPU)")
    p.add_argument("--keeper", action="store_true", dest="keeper_wanted",
                   help="a run worker: fork the keeper, which holds input sets in device "
                   "memory for the jobs ($HEADROOM_DEVICE_INPUTS_MB)")
    p.add_argument("--take-inputs", action="store_true",
                   help="the run's only reader of --inputs: the keeper removes the files "
                   "it holds")
    return p.parse_args(argv)


def main(argv):
    cfg = WorkerState.from_args(parse_args(argv))
    set_subreaper()
    # Protocol stream first: fd 1 becomes stderr so nothing imported later
    # (torch, the candidate, a compiler) can write on the protocol.
    proto = Proto(os.dup(1))
    os.set_inheritable(proto.fd, True)
    os.dup2(2, 1)
    cfg.scratch = os.path.realpath(cfg.scratch)
    cfg.cache = os.path.realpath(cfg.cache or os.path.join(cfg.scratch, "cache"))
    os.makedirs(cfg.scratch, exist_ok=True)
    os.makedirs(cfg.cache, exist_ok=True)
    cfg.inputs_dir = os.path.realpath(cfg.inputs_dir or os.path.join(cfg.scratch, "inputs"))
    os.makedirs(cfg.inputs_dir, exist_ok=True)
    cfg.llc_bytes = llc_bytes()
    if cfg.verify_lib:
        try:
            cfg.verify = Verify(cfg.verify_lib)
        except (OSError, AttributeError) as e:
            cfg.verify_error = "%s: %s" % (cfg.verify_lib, e)
    smi = nvidia_smi_start(cfg.gpu_index) if cfg.device.startswith("cuda") else None
    # OpenMP's pool threads wait for work asleep, not spinning (libgomp
    # spins up to ~3 ms after each parallel region by default): the judge and
    # the candidate process share the cores, the spin of one steals the CPU
    # the other is timed on, and the judge counts the CPU time the
    # candidate's processes take outside its calls (hrworker/account.py).
    os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    import torch  # after the fd switch; never initialises CUDA here
    cfg.start_s = {"import": round(time.monotonic() - T0, 3)}
    preload(torch)
    t0 = time.monotonic()
    cfg.smi = smi_answer(smi)
    cfg.start_s["nvidia_smi_wait"] = round(time.monotonic() - t0, 3)
    if cfg.device == "cuda" and not os.environ.get("TORCH_CUDA_ARCH_LIST"):
        cap = cfg.smi.get("compute_cap")
        if cap:   # build for this GPU only; part of the cache key
            os.environ["TORCH_CUDA_ARCH_LIST"] = cap
    cfg.arch = ("sm_" + os.environ.get("TORCH_CUDA_ARCH_LIST", "?").replace(".", "")
                if cfg.device == "cuda" else "cpu-" + platform.machine())
    if cfg.rand_lib:
        t0 = time.monotonic()
        try:
            cfg.rand = FastRand(cfg.rand_lib, torch)
            if cfg.keeper_wanted:
                # The run worker: its job draws what its keeper does not
                # hold (a 6.4 GB set beyond the keeper's room, every set
                # of a job retried alone) while build workers compile;
                # half the CPUs, checked with them (a 1.6 G-element set
                # on one thread: 4-6 s).
                cfg.rand.threads = max(1, len(os.sched_getaffinity(0)) // 2)
            cfg.rand.check_forked()
        except (OSError, AttributeError) as e:
            cfg.rand, cfg.rand_error = None, "%s: %s" % (cfg.rand_lib, e)
        cfg.start_s["rand_check"] = round(time.monotonic() - t0, 3)
    cfg.sandbox = Sandbox([cfg.scratch, cfg.cache, cfg.inputs_dir])
    # Every job restricts itself; HEADROOM_FS_JAIL=0 leaves it to the
    # audit hook (the orchestrator refuses values other than 0 and 1).
    cfg.jail = Landlock("HEADROOM_FS_JAIL=0"
                        if os.environ.get("HEADROOM_FS_JAIL") == "0" else None)
    # The job's jail (hrworker/jail.py); HEADROOM_JOB_JAIL=0 leaves the
    # candidate process on the machine's root with the worker's ids and
    # the jobs out of cgroups of their own (the limits stay).  Under CUDA
    # a job keeps uid 0 in its own root, without capabilities (ids_off);
    # as root RLIMIT_NPROC does not hold there, its cgroup's pids.max does.
    jail_why = jail_off()
    jail_on = jail_why is None
    cfg.cgroups = JobCgroups() if jail_on else JobCgroups.off(jail_why)
    cfg.cgroups_left = []
    cfg.cgroups.sweep()     # those of workers killed before they removed them
    cfg.job_jail = dict(cfg.cgroups.describe(), limits={"nproc": nproc_max(),
                                                        "fsize": FSIZE_MAX})
    tidy_building(cfg.cache)
    keep = ids_off(cfg.device)      # why a jailed job keeps uid 0, or None
    if os.geteuid() == 0 and (not jail_on or keep is not None):
        # What root keeps from others, walked once here for every job's
        # candidate that keeps uid 0 (confine.py; the jobs inherit it).
        t0 = time.monotonic()
        private_beneath()
        cfg.start_s["private_scan"] = round(time.monotonic() - t0, 3)
    if jail_on and os.geteuid() == 0:
        if keep is None:
            # The jobs' own uid reads the build cache through its group;
            # a job that keeps uid 0 reads it as its owner.
            t0 = time.monotonic()
            share_cache(cfg.cache)
            cfg.start_s["share_cache"] = round(time.monotonic() - t0, 3)
        cfg.job_jail["root"] = "the job's own (a mount namespace of its own)"
        cfg.job_jail["ids"] = ("the job's own (uid 2^30 + the judge's pid)" if keep is None
                               else kept_ids(keep))
    else:
        cfg.job_jail["root"] = "the machine's" + ("" if jail_on else " (%s)" % jail_why)
        cfg.job_jail["ids"] = "the worker's own" + ("" if jail_on else " (%s)" % jail_why)
    # A build worker of a run whose run worker has a keeper that draws
    # leaves the draws to it: a draw ahead writes the problem's recipe
    # (InputSets.write_recipe).  The keeper draws with the rand library only.
    budget = keeper_budget_mb(cfg)
    cfg.recipes = (not cfg.keeper_wanted and cfg.rand is not None and
                   budget is not None and budget != 0)
    # The hook (inactive until a job, or the keeper's first draw, turns it
    # on) before the keeper's fork: the keeper runs problem code too.
    sys.addaudithook(cfg.sandbox.hook)
    # What the imports made lives as long as this process: out of the
    # cycle collector's sight (gc.freeze), so that a job's gc.collect
    # (give_back), on the way to its answer, walks the job's own objects
    # only.  With torch imported a full collection walked 177 k objects in
    # 0.13 s (the H200 machine and the 2-core development machine alike);
    # frozen, under 0.1 ms (docs/benchmarks-history.md, "replay on the
    # H200: the job's collection, torch.allclose in slices (not kept)").
    # The keeper and the jobs fork from here.  No collection first: here
    # it found nothing to free and took 0.09 s of the start.
    gc.freeze()
    cfg.keeper = start_keeper(cfg, torch)
    cfg.start_s["hello"] = round(time.monotonic() - T0, 3)
    proto.send(hello(cfg, torch))
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError as e:
            proto.send({"type": "error", "error": "bad request: %s" % e})
            continue
        if msg.get("op") == "quit":
            break
        if msg.get("op") == "job":
            serve(msg, cfg, proto, torch)
        else:
            proto.send({"type": "error", "error": "unknown op %r" % msg.get("op")})
    reap(cfg, 0)
    return 0


if __name__ == "__main__":
    rc = main(sys.argv[1:])
    # Everything is answered and every job process reaped: skip the
    # interpreter's teardown (torch's takes a second or more; the
    # orchestrator waits for every worker to exit).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)
