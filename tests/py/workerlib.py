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


class Worker:
    def __init__(self, *extra):
        self.tmp = tempfile.TemporaryDirectory(prefix="hr-worker-test-")
        self.scratch = os.path.join(self.tmp.name, "scratch")
        self.p = subprocess.Popen(
            [sys.executable, os.path.join(ROOT, "replay", "worker.py"),
             "--device", DEVICE, "--scratch", self.scratch, *extra],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            text=True, cwd=self.tmp.name)
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


def check(cond, what):
    """Fail the test with a message (plain scripts: exit non-zero)."""
    if not cond:
        print("FAIL:", what)
        sys.exit(1)
    print("ok:", what)
