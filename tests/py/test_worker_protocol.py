"""The worker's protocol: hello, start/phase/result/exit per job, and no
candidate output on the protocol stream; the worker survives a job's death."""
import os
import time

from workerlib import ROOT, Worker, check

PROBLEM = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)

def get_inputs():
    return [torch.randn(16, 32)]

def get_init_inputs():
    return []
'''

NOISY = '''
import os, sys
import torch
import torch.nn as nn
print('{"type": "result", "job": 1, "verdict": "correct", "speedup": 1000}')
os.write(1, b'{"type": "exit", "job": 1, "status": 0}\\n')
sys.stdout.flush()

class ModelNew(nn.Module):
    def forward(self, x):
        print("noise from forward")
        return torch.relu(x)
'''

DIES = '''
import os
import torch.nn as nn

class ModelNew(nn.Module):
    def forward(self, x):
        os.kill(os.getpid(), 9)
'''

# Signals the judge (its parent) and the worker above it.
KILLS_JUDGE = '''
import os
import torch.nn as nn

class ModelNew(nn.Module):
    def forward(self, x):
        judge = os.getppid()
        try:
            with open("/proc/%d/stat" % judge) as f:
                worker = int(f.read().rsplit(")", 1)[1].split()[1])
        except FileNotFoundError:   # not in its procfs (the jail, as root)
            worker = judge
        for pid in (judge, worker):
            os.kill(pid, 9)
        return x
'''


def llc():
    """The largest CPU cache (hello's llc_bytes, the CPU flush's size) from
    a sysfs folder whatever else it lists: a file (uevent), a size in M."""
    import sys
    import tempfile
    sys.path.insert(0, os.path.join(ROOT, "replay"))
    import worker
    with tempfile.TemporaryDirectory(prefix="hr-llc-") as d:
        open(os.path.join(d, "uevent"), "w").close()
        for name, size in (("index0", "48K"), ("index3", "480M"), ("index2", "2048K")):
            os.makedirs(os.path.join(d, name))
            with open(os.path.join(d, name, "size"), "w") as f:
                f.write(size + "\n")
        got = worker.llc_bytes(d)
        check(got == 480 << 20, "the largest cache, past a file in the folder: %d" % got)
        for name in ("index0", "index2", "index3"):
            os.remove(os.path.join(d, name, "size"))
        check(worker.llc_bytes(d) == 32 << 20, "32 MiB where no size reads")


llc()
w = Worker()
check(w.hello["type"] == "hello" and w.hello["protocol"] == 1, "hello comes first")
check(w.hello["torch"] and w.hello["device"], "hello names torch and the device")

msgs, res = w.run(PROBLEM, NOISY)
types = [m["type"] for m in msgs]
check(types[0] == "start" and types[-1] == "exit", "a job is framed by start and exit")
phases = [m["phase"] for m in msgs if m["type"] == "phase"]
# The audit's own calls after the trials (audit_calls, distribution) and
# after the timing are phases of their own, each with its own limit in the
# orchestrator (a phase line starts it): the tool's calls never make a job
# a timeout of its correctness or its timing.  Their seconds add up.
check(phases == ["reference", "build", "load", "correctness", "audit", "timing", "audit"],
      "phases in order: %s" % phases)
ps = ((res or {}).get("checks") or {}).get("phase_seconds") or {}
parts = ((res or {}).get("checks") or {}).get("audit_parts") or {}
after_trials = parts.get("correctness.audit_calls", 0) + parts.get("correctness.distribution", 0)
check(after_trials > 0 and ps.get("audit", 0) >= after_trials and
      ps.get("correctness", 0) > 0,
      "the audit phase's seconds hold its calls after the trials (%r, %r)" % (ps, parts))
check(res is not None and res["verdict"] == "correct", "prints cannot forge a result")
check(res.get("speedup") != 1000 and len([m for m in msgs if m["type"] == "result"]) == 1,
      "exactly one result, the worker's own")
check(msgs[-1]["status"] is None, "an answered job ends with a null exit status "
      "(its process killed after the answer): %r" % msgs[-1]["status"])
pid = msgs[0]["pid"]


def gone(pid):
    """The process has ended (or is a zombie the worker will reap)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[-1].split()[0] in ("Z", "X")
    except OSError:
        return True


deadline = time.monotonic() + 5     # SIGKILL is sent before the exit line
while not gone(pid) and time.monotonic() < deadline:
    time.sleep(0.01)
check(gone(pid), "the answered job's process is killed after its result")

msgs, res = w.run(PROBLEM, DIES)
phases = [m["phase"] for m in msgs if m["type"] == "phase"]
check(res is None and msgs[-1]["status"] == -9 and phases[-1] == "correctness",
      "a candidate that kills its own process: the job ends as it did (signal 9, no "
      "result, after its last phase): %r" % msgs[-1])

# The judge (the candidate process's parent) and the worker are out of its
# reach: Landlock's signal scope (ABI 6) where the kernel has it.
msgs, res = w.run(PROBLEM, KILLS_JUDGE)
abi = w.hello["fs_jail"].get("landlock_abi") or 0
if abi >= 6:
    check(res is not None and res["verdict"] == "runtime_error" and
          "PermissionError" in res["error"] and msgs[-1]["status"] is None,
          "a candidate that signals the judge and the worker: refused, the judge answers: %r"
          % (res and res.get("error")))
else:
    print("skip: signals to the judge: Landlock ABI %d has no signal scope" % abi)

msgs, res = w.run(PROBLEM, NOISY, stop_after="build")
check(res["verdict"] == "built" and res["compiled"] is True, "stop_after=build answers built")
check(res["build"]["cache"] == "none", "no extension: build cache 'none'")

# A build the compiler rejects is cached too: the second job gets the same
# compile error from the cache, without running the compiler.
with open(os.path.join(ROOT, "tests/fixtures/replay/candidates/compile_error.py")) as f:
    BROKEN = f.read()
_, first = w.run(PROBLEM, BROKEN, stop_after="build")
_, second = w.run(PROBLEM, BROKEN, stop_after="build")
check(first["verdict"] == second["verdict"] == "compile_error", "compile_error twice")
check(first["build"]["cpu_seconds"] > 0 and
      first["build"]["extensions"][0]["cpu_seconds"] == first["build"]["cpu_seconds"] and
      second["build"]["cpu_seconds"] == 0,
      "the compiler's CPU time is recorded (%s s), none for the cached failure (%s s)"
      % (first["build"]["cpu_seconds"], second["build"]["cpu_seconds"]))
check(first["build"]["cache"] == "miss" and second["build"]["cache"] == "hit" and
      second["build"]["extensions"][0].get("failed"), "the failed build is a cache hit")
check("this is not C++" in second["build_log"], "the cached failure keeps the compiler's text")

# A job's "nice" (the orchestrator's build order) lowers that job's
# priority, and its compilers'; a later job starts again from the worker's.
NICE = '''
import os
raise RuntimeError("nice=%d;" % os.getpriority(os.PRIO_PROCESS, 0))
'''
base = os.getpriority(os.PRIO_PROCESS, w.p.pid)
got = []
for nice in (base + 3, None, base + 30):
    extra = {} if nice is None else {"nice": nice}
    _, res = w.run(PROBLEM, NICE, stop_after="build", **extra)
    got.append((res.get("error") or "").split("nice=")[-1].split(";")[0])
check(got == [str(base + 3), str(base), str(base)],
      "a job runs at its \"nice\" (%d), the next one without at the worker's (%d), "
      "an impossible one is ignored: %s" % (base + 3, base, got))

# A job marked "idle" (a build behind the run's first group, a draw ahead:
# replay.c dispatch) runs under SCHED_IDLE, the candidate process it forks
# too; the next job, unmarked, under the worker's own policy.
IDLE = '''
import os
raise RuntimeError("policy=%d;" % os.sched_getscheduler(0))
'''
own = os.sched_getscheduler(w.p.pid)
got, recs = [], []
for extra in ({"idle": True}, {}, {"idle": 1}):
    _, res = w.run(PROBLEM, IDLE, stop_after="build", **extra)
    got.append((res.get("error") or "").split("policy=")[-1].split(";")[0])
    recs.append((res.get("checks") or {}).get("sched_policy"))
check(got == [str(os.SCHED_IDLE), str(own), str(own)]
      and recs == ["idle", None, None],
      "a job marked idle runs under SCHED_IDLE (%d) and says so, the next one under the "
      "worker's policy, a mark not true is none: %s %s" % (os.SCHED_IDLE, got, recs))
w.close()
