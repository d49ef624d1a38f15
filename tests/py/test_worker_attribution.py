"""Failures are attributed: a reference that fails is failed:reference
(problem_error), not the candidate's; a job that runs out of device memory
while the tool held memory is the tool's (runtime_error of kind "tool",
retried alone), and only a job that ran out alone, with no more than a
few CUDA contexts outside it, keeps its verdict (Job.out_of_memory, with
stand-ins for torch.cuda and NVML's process list: the CPU has no device
memory to run out of); the judge's own exception is failed:tool."""
import os
import subprocess
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workerlib import ROOT, Worker, check_on as check, checks_done  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker import job as job_module  # noqa: E402
from hrworker.job import Job, is_oom  # noqa: E402


# --- the reference fails in the trials (an op the device lacks: raised on
# whichever device the test runs) ---
PROBLEM = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        raise NotImplementedError('"repeat_interleave_%s" not implemented for \\'Float\\''
                                  % x.device.type)

def get_inputs():
    return [torch.rand(8, 8)]

def get_init_inputs():
    return []
'''
CANDIDATE = '''
import torch
import torch.nn as nn

class ModelNew(nn.Module):
    def forward(self, x):
        return x * 2
'''
w = Worker("--verify-lib", os.path.join(ROOT, "build", "libhrverify.so"))
for mode in ("faithful", "robust"):
    _, res = w.run(PROBLEM, CANDIDATE, mode=mode, perf_trials=3, warmup=1)
    check(res is not None and res.get("verdict") == "problem_error"
          and res.get("error_kind") == "reference",
          "%s: a reference failing in the trials is problem_error/reference (got %s, %s)"
          % (mode, res and res.get("verdict"), res and res.get("error_kind")))
w.close()

# --- out of device memory: whose? ---
OOM = ("OutOfMemoryError: CUDA out of memory. Tried to allocate 6.00 GiB. GPU 0 has "
       "a total capacity of 139.80 GiB of which 2.10 GiB is free.")
check(is_oom(OOM), "torch's message reads as out of memory")
check(not is_oom("RuntimeError: shape mismatch"), "another error does not")


def fake_job(alone, verdict="runtime_error"):
    cuda = types.SimpleNamespace(mem_get_info=lambda: (2 << 30, 140 << 30),
                                 memory_allocated=lambda: 48 << 30,
                                 memory_reserved=lambda: 50 << 30)
    job = types.SimpleNamespace(
        ctx=types.SimpleNamespace(cuda=True), checks={}, m={"alone": alone},
        cfg=types.SimpleNamespace(keeper_pid=77),
        cand=types.SimpleNamespace(pid=88, family=types.SimpleNamespace(pids=lambda: [88, 89])),
        torch=types.SimpleNamespace(cuda=cuda),
        result={"verdict": verdict, "phase": "correctness", "error": OOM})
    job.tool_failure = lambda error, **extra: Job.tool_failure(job, error, **extra)
    job.out_of_memory = lambda text, where=None: Job.out_of_memory(job, text, where)
    return job


j = fake_job(alone=False)
made = Job.out_of_memory(j, OOM)
check(made and j.result["verdict"] == "runtime_error" and j.result["error_kind"] == "tool"
      and j.result.get("retry_alone") is True,
      "out of memory while the tool held memory: the tool's, retried alone (%s)" % j.result)
check(j.checks["memory"]["judge_allocated_bytes"] == 48 << 30
      and j.checks["verdict_without_tool"] == "runtime_error",
      "the memory the judge held is recorded with the verdict it replaces")
mem = j.checks["memory"]
check(mem.get("pids") == {"judge": os.getpid(), "keeper": 77, "candidate": 88}
      and "6.00 GiB" in mem.get("error", ""),
      "the note names the pids of the judge, keeper and candidate beside the error's "
      "per-process lines (%s)" % mem.get("pids"))
j = fake_job(alone=True)
check(not Job.out_of_memory(j, OOM) and j.result["verdict"] == "runtime_error"
      and "retry_alone" not in j.result and "candidate" in j.checks["memory"]["attribution"],
      "out of memory alone: the candidate's verdict stands")
j = fake_job(alone=True, verdict="problem_error")
check(not Job.out_of_memory(j, OOM) and j.result["verdict"] == "problem_error"
      and "reference" in j.checks["memory"]["attribution"],
      "the reference out of memory alone: failed:reference")
j = fake_job(alone=True, verdict="correct")
j.checks["audit_tool_error"] = "correctness: " + OOM
Job.tool_failed_audit(j)
check(j.result["verdict"] == "runtime_error" and j.result["error_kind"] == "tool"
      and "judge's audit" in j.checks["memory"]["attribution"]
      and "retry_alone" not in j.result,
      "the judge's own audit out of memory alone: the tool's (failed:tool), never the "
      "candidate's (%s)" % j.checks["memory"].get("attribution"))


# Alone and still short while processes outside the job held memory (NVML's
# process list: another run's keeper nobody stopped): not the GPU the
# original harness had, nobody's verdict: failed:tool, not retried again.
class FakeDevice:
    def __init__(self, procs):
        self.procs = procs

    def processes(self):
        return self.procs

    def close(self):
        pass


GiB = 1 << 30
real_open = job_module.nvml.open_device
for procs, tools, what in (
        ({88: GiB, 89: GiB // 2, 77: GiB // 2, 4242: 70 * GiB}, True,
         "another process held 70 GiB: the tool's"),
        ({88: 40 * GiB, 4242: GiB // 2, 4243: GiB // 2}, False,
         "only CUDA contexts outside the job: the candidate's"),
        ({88: GiB, 4242: 3 * GiB + GiB // 2}, False,
         "3.5 GiB outside the job, under the floor: the candidate's"),
        ({5088: GiB, 5077: GiB, 9242: 70 * GiB}, False,
         "pids of another namespace (none of the job's): unknown, the candidate's")):
    job_module.nvml.open_device = lambda **kw: (FakeDevice(procs), None)
    j = fake_job(alone=True)
    made = Job.out_of_memory(j, OOM)
    mem = j.checks["memory"]
    check(made is tools and (j.result.get("error_kind") == "tool") is tools
          and "retry_alone" not in j.result and "88" not in mem["others"]
          and "89" not in mem["others"] and mem["asked_bytes"] == 6 * GiB
          and (isinstance(mem["others"], dict) or mem["others"].startswith("unknown")),
          "out of memory alone, %s (%s; %s)" % (what, mem.get("attribution"), mem.get("others")))
job_module.nvml.open_device = real_open

# Whose the other processes are (memory_note's others_whose): each one's
# command name, and whether this run's root (the orchestrator) is among its
# ancestors; a process gone reads command None and not the run's.  Real
# processes: this test's, and a child it starts.
child = subprocess.Popen(["sleep", "30"])
try:
    got = job_module.whose([os.getpid(), child.pid, 2 ** 22 + 7], root=os.getppid())
    me, kid, gone = got[str(os.getpid())], got[str(child.pid)], got[str(2 ** 22 + 7)]
    check(me["run"] is True and kid["run"] is True and kid["command"] == "sleep"
          and gone == {"command": None, "run": False},
          "whose: this process and its child are of the run rooted at its parent; a pid "
          "gone is nobody's (%s)" % got)
    got = job_module.whose([os.getpid()], root=child.pid)
    check(got[str(os.getpid())]["run"] is False,
          "whose: a process whose ancestors do not hold the root is outside the run (%s)" % got)
    with open("/proc/self/comm") as f:
        name = f.read().strip()
    try:
        with open("/proc/self/comm", "w") as f:
            f.write("a) b (c")
        got = job_module.proc_stat(os.getpid())
        check(got == ("a) b (c", os.getppid()),
              "proc_stat reads a command name holding spaces and parentheses (%s)" % (got,))
    finally:
        with open("/proc/self/comm", "w") as f:
            f.write(name)
finally:
    child.kill()
    child.wait()

# An exception of the judge's own code that no part answered (Job.run):
# failed:tool, never the candidate's; out of device memory there, retried
# alone.
j = fake_job(alone=False, verdict="built")
j.judge_failed = lambda e: Job.judge_failed(j, e)
Job.judge_failed(j, KeyError("a field the judge expected"))
check(j.result["verdict"] == "runtime_error" and j.result["error_kind"] == "tool"
      and "judge's own code" in j.result["error"] and "retry_alone" not in j.result,
      "the judge's own exception: failed:tool (%s)" % j.result.get("error"))
j = fake_job(alone=False, verdict="built")
Job.judge_failed(j, RuntimeError(OOM))
check(j.result["error_kind"] == "tool" and j.result.get("retry_alone") is True,
      "the judge's own allocation out of memory: the tool's, retried alone")

j = fake_job(alone=False)
j.ctx.cuda = False
check(not Job.out_of_memory(j, OOM) and j.result["verdict"] == "runtime_error",
      "a CPU job's error is never made the tool's")
checks_done()
