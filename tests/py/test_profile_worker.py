"""headroom profile on the CPU: profile/profile_worker.py runs the
project's DLRM at its tiny size under torch.profiler, eager and under
torch.compile, and writes gzip Chrome traces that carry
headroom_workload/_domain/_stack; headroom's
trace reader parses torch's real output; and `headroom profile`, finding
no GPU activity in it (a CPU run), refuses to store it (exit 3, no
database left behind).  What runs on a GPU is not tested here.

Plain script: prints one line, exits non-zero on any failure.
"""
import gzip
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HEADROOM = os.environ.get("HEADROOM", os.path.join(ROOT, "build", "asan", "headroom"))
failures = []


def check(ok, what):
    if not ok:
        failures.append(what)


def worker_trace(out, stack, timeout):
    """The tiny DLRM profiled on the CPU under stack: the trace's path and
    its document (None when there is none), each failure a check."""
    r = subprocess.run([sys.executable, os.path.join(ROOT, "profile", "profile_worker.py"),
                        "--workload", "dlrm", "--tiny", "--device", "cpu", "--out", out,
                        "--warmup", "1", "--steps", "1", "--stack", stack],
                       capture_output=True, text=True, timeout=timeout)
    check(r.returncode == 0, f"{stack} worker exit {r.returncode}: {r.stdout[-300:]}")
    res = json.loads(r.stdout.strip().splitlines()[-1]) if r.stdout.strip() else {}
    trace = res.get("trace", "")
    check(trace.endswith(f"dlrm-tiny.{stack}.pt.trace.json.gz") and os.path.exists(trace),
          f"no {stack} trace: {res}")
    if not os.path.exists(trace):
        return trace, None
    with gzip.open(trace, "rt") as f:
        return trace, json.load(f)


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "traces")
    trace, doc = worker_trace(out, "eager", 300)
    if doc is not None:
        check(doc.get("headroom_workload") == "dlrm-tiny", "headroom_workload")
        check(doc.get("headroom_domain") == "recommender", "headroom_domain")
        check(doc.get("headroom_stack") == "eager", "headroom_stack")
        ops = [e for e in doc["traceEvents"] if e.get("cat") == "cpu_op"]
        check(any(e["name"] == "aten::embedding_bag" for e in ops), "no embedding_bag op")
        # headroom reads torch's own output to the end: the refusal is
        # about GPU activity, not the JSON.
        db = os.path.join(tmp, "h.db")
        r = subprocess.run([HEADROOM, "--db", db, "ingest", trace],
                           capture_output=True, text=True)
        check(r.returncode == 3 and "no GPU activity" in r.stderr,
              f"ingest: exit {r.returncode}: {r.stderr}")
        check(not os.path.exists(db), "a refused first ingest left a database")
    # The compile stack on the CPU: torch.compile (inductor, its C++
    # backend) of the same model, traced after its warm-up compiled it.
    trace, doc = worker_trace(out, "compile", 600)
    if doc is not None:
        check(doc.get("headroom_stack") == "compile", "headroom_stack of the compile trace")
        names = {e.get("name", "") for e in doc["traceEvents"] if e.get("cat") == "cpu_op"}
        check(any(n.startswith("Torch-Compiled Region") for n in names),
              "no compiled region in the compile trace")
    r = subprocess.run([HEADROOM, "--db", os.path.join(tmp, "p.db"), "profile", "dlrm",
                        "--tiny", "--device", "cpu", "--python", sys.executable,
                        "--worker", os.path.join(ROOT, "profile", "profile_worker.py"),
                        "--out", os.path.join(tmp, "p")],
                       capture_output=True, text=True, timeout=300)
    check(r.returncode == 3 and "no GPU activity" in r.stderr,
          f"profile: exit {r.returncode}: {r.stderr[-300:]}")

if failures:
    print("test_profile_worker: FAIL: " + "; ".join(failures))
    sys.exit(1)
print("test_profile_worker: worker traces (eager, compile) read, CPU profile refused as expected")
