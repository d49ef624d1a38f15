"""Robust timing on a host whose CPUs other processes keep busy
(hrworker/timing.py: waited_for_a_cpu, judge_wait_ns): the reference's
readings on a host clock hold its threads' waits for a CPU, which make
the candidate read faster than it is; where they waited more than
CPU_WAIT_SHARE of those readings, checks.timing.reference_waited
says so and no speedup is verified (replay/verdict.c: correct at most).

The attack it stops: planted-clock-gap.py, the reference's own matmul with
0.3 ms more work a call (true speedup about 0.5), read verified-faster in
the planted suite's robust replay beside two busy loops on 2 cores.  Here
each robust job runs beside one busy loop a CPU; its honest twin (the
reference's own code) on a quiet host keeps no such record.

Plain script: one line per check, exits non-zero on any failure."""
import os
import subprocess
import sys
import time
import types

from workerlib import ROOT, Worker, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker.job import Job  # noqa: E402
from hrworker.timing import CPU_WAIT_SHARE, judge_wait_ns, waited_for_a_cpu  # noqa: E402

PLANTED = os.path.join(ROOT, "tests", "fixtures", "planted")


def read(*parts):
    with open(os.path.join(PLANTED, *parts)) as f:
        return f.read()


# The rule on numbers written here.
WHOSE = "the reference's threads"
check(waited_for_a_cpu([1.0] * 8, [0.1] * 8, WHOSE) is None,
      "waits of 10 %% of the reference's readings: no record (allowed %g)" % CPU_WAIT_SHARE)
rec = waited_for_a_cpu([1.0] * 8, [0.5] * 8, WHOSE)
check(rec is not None and rec["share"] == 0.5 and rec["waited_ms"] == 4.0
      and rec["rule"].startswith(WHOSE),
      "waits of 50 %%: the record says how much, and whose (%s)" % rec)
check(waited_for_a_cpu([1.0] * 8, [None] * 8, WHOSE) is None
      and waited_for_a_cpu([], [], WHOSE) is None,
      "no account of waits (no schedstat), or no reading: no record")


# Job.retry_after_builds on stubs: a robust GPU job whose candidate's
# handshakes waited (checks.timing.candidate_waited) asks to run once more
# after the builds, findings or none (a timing finding the waits hid
# would be missing), unless its verdict is other than correct or it is
# that attempt; a CPU job never asks.
def asks(cuda=True, findings=(), verdict="correct", after=False, waited=True):
    stub = types.SimpleNamespace(
        ctx=types.SimpleNamespace(cuda=cuda), m={"after_builds": True} if after else {},
        checks={"timing": {"candidate_waited": rec} if waited else {}},
        result={"verdict": verdict, **({"findings": list(findings)} if findings else {})})
    Job.retry_after_builds(stub)
    return stub.result.get("retry_after_builds") is True


got = [asks(), asks(waited=False), asks(cuda=False), asks(after=True),
       asks(findings=[{"id": "output-aliases-input"}]), asks(verdict="incorrect")]
check(got == [True, False, False, False, True, False],
      "retry_after_builds: only a correct GPU job whose candidate waited, findings or none, "
      "and not its attempt after the builds (%s)" % got)


def burners(n):
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"]) for _ in range(n)]


def stop(kids):
    for k in kids:
        k.kill()
        k.wait()


CPUS = len(os.sched_getaffinity(0))
w0 = judge_wait_ns()
if w0 is None:
    print("skip: the kernel keeps no run-delay account (/proc/self/task/*/schedstat)")
    sys.exit(77)

# The account: this process's threads waited while busy loops held every CPU.
kids = burners(CPUS)
try:
    w0 = judge_wait_ns()
    t0 = time.monotonic()
    while time.monotonic() - t0 < 0.5:
        pass
    waited = (judge_wait_ns() - w0) / 1e6
finally:
    stop(kids)
check(waited > 20.0, "a thread that computes 0.5 s beside %d busy loops waited %.1f ms for a CPU"
      % (CPUS, waited))

problem = read("problems", "level1", "14_Matmul.py")
JOB = dict(mode="robust", harness="v0.1", perf_trials=10, warmup=3, robust_rounds=8,
           robust_inputs=2, bootstrap=200, problem_file="14_Matmul.py")
w = Worker("--verify-lib", os.path.join(ROOT, "build", "libhrverify.so"))
try:
    _, res = w.run(problem, read("candidates", "honest-matmul-same.py"),
                   candidate_file="honest-matmul-same.py", **JOB)
    timing = ((res or {}).get("checks") or {}).get("timing") or {}
    check(res and res.get("speedup") and "reference_waited" not in timing,
          "a quiet host: the honest twin's reference kept its readings (speedup %s, %s)"
          % ((res or {}).get("speedup"), timing.get("reference_waited")))
    kids = burners(CPUS)
    try:
        for name in ("planted-clock-gap.py", "honest-matmul-same.py"):
            _, res = w.run(problem, read("candidates", name), candidate_file=name, **JOB)
            res = res or {}
            timing = (res.get("checks") or {}).get("timing") or {}
            rec = timing.get("reference_waited")
            check(rec is not None and rec["share"] > CPU_WAIT_SHARE
                  and timing.get("verified") is False,
                  "%s beside %d busy loops: its reference waited (%s), no speedup verified "
                  "(speedup %s [%s, %s])" % (name, CPUS, rec, res.get("speedup"),
                                             res.get("ci_low"), res.get("ci_high")))
    finally:
        stop(kids)
finally:
    w.close()
