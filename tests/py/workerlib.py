"""workerlib.py - drive replay/worker.py from the Python tests.

Not a test itself (tests/run.sh runs test_*.py only).  The device is
$HR_TEST_DEVICE (cpu unless set; `make gpu-check` sets cuda)."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEVICE = os.environ.get("HR_TEST_DEVICE", "cpu")


# A problem of two small inputs, for the input-set tests (predraw, keeper).
PROBLEM = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x, y):
        return x * 2 + y

def get_inputs():
    return [torch.randn(4, 8), torch.rand(8)]

def get_init_inputs():
    return []
'''

# A candidate's helper: KernelBench's input draws of every set (5 trials,
# then timing), recomputed with torch's own generator.
KB_DRAWS = '''
def _kb_draws():
    torch.manual_seed(42)
    seeds = [torch.randint(0, 2**32 - 1, (1,)).item() for _ in range(5)]
    out = []
    for s in seeds + [42]:
        torch.manual_seed(s)
        out.append(get_inputs())
    return out
'''

# Answers right only when its inputs are KernelBench's draws of some set.
KB_ONLY = KB_DRAWS + '''
class ModelNew(nn.Module):
    def forward(self, x, y):
        state = torch.get_rng_state()
        ok = any(torch.equal(x.cpu(), a) and torch.equal(y.cpu(), b)
                 for a, b in _kb_draws())
        torch.set_rng_state(state)
        return x * 2 + y if ok else x
'''


def worker_env():
    """The worker's environment as the tool's pool gives it (replay/pool.c):
    a CPU worker sees no GPU (CUDA_VISIBLE_DEVICES empty), on a GPU
    machine too."""
    env = dict(os.environ)
    if DEVICE != "cuda":
        env["CUDA_VISIBLE_DEVICES"] = ""
    return env


class Worker:
    def __init__(self, *extra):
        self.tmp = tempfile.TemporaryDirectory(prefix="hr-worker-test-")
        self.scratch = os.path.join(self.tmp.name, "scratch")
        self.p = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "replay", "worker.py"),
             "--device", DEVICE, "--scratch", self.scratch, *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, cwd=self.tmp.name, env=worker_env())
        self.hello = self.read()
        self.jobs = 0

    def read(self):
        line = self.p.stdout.readline()
        assert line, "worker closed its protocol stream; stderr:\n" + self.p.stderr.read()[-3000:]
        return json.loads(line)     # every protocol line must be JSON

    def run(self, problem, candidate, **settings):
        """Send one job; return (messages, result)."""
        self.jobs += 1
        job = {"op": "job", "job": self.jobs, "problem_code": problem,
               "candidate_code": candidate, "perf_trials": 3, "warmup": 1}
        job.update(settings)
        self.p.stdin.write(json.dumps(job) + "\n")
        self.p.stdin.flush()
        msgs = []
        while True:
            m = self.read()
            msgs.append(m)
            if m["type"] == "exit":
                break
        results = [m for m in msgs if m["type"] == "result"]
        return msgs, results[0] if results else None

    def close(self):
        self.p.stdin.close()
        self.p.wait(timeout=60)
        self.p.stderr.close()
        self.p.stdout.close()
        self.tmp.cleanup()


def accepted(srv):
    """Whether a listening socket (a timeout set) took a connection; it
    is closed either way."""
    import socket
    try:
        conn, _ = srv.accept()
        conn.close()
        return True
    except socket.timeout:
        return False
    finally:
        srv.close()


def reported(res, tag):
    """What a test's candidate reported by raising RuntimeError(tag + JSON)
    when its module ran (its job's build_log has it), or, where it did
    not, what the job said instead."""
    log = (res or {}).get("build_log") or ""
    if tag not in log:
        return {"no_report": (res or {}).get("verdict"), "log": log[-1500:],
                "error": (res or {}).get("error")}
    return json.loads(log.split(tag, 1)[1].splitlines()[0])


FAILED = []     # what check_on found wrong


def check_on(ok, what):
    """A check after which the test goes on, whatever it found (the
    test ends with checks_done)."""
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        FAILED.append(what)


def checks_done():
    """End a test of check_on's checks: exit non-zero when one failed."""
    sys.exit(1 if FAILED else 0)


def check(cond, what, worker=None):
    """Fail the test with a message (plain scripts: exit non-zero); with a
    worker, also the end of its stderr (the keeper's and the jobs' notes)."""
    if not cond:
        print("FAIL:", what)
        if worker is not None:
            worker.p.stdin.close()
            worker.p.wait(timeout=60)
            print("worker stderr, last lines:\n" + worker.p.stderr.read()[-4000:])
        sys.exit(1)
    print("ok:", what)
