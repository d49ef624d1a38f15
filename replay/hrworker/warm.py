"""hrworker/warm.py - the verdict checks' first uses, ahead of them, on a
GPU.  A job's judge is a process of its own, and a process's first use of
a kernel on a GPU loads its module (CUDA's lazy loading): 10-66 ms each in
a new process on the H100, so that on a job of a second the checks'
first draws and gates took about 0.1-0.2 s more than their later ones
(docs/verification.md).  WarmChecks runs the checks' own operations once
on small tensors (distribution.warm, vacuity.warm) in a thread of the
judge's, on a stream of its own, while the judge's main thread reads the
problem and draws or borrows the inputs; the job joins it before the
calibration, the first of its timed calls, so that nothing of it runs
beside a timed call.  HEADROOM_WARM=0: not.

Owns: checks.warm (the thread's seconds, the seconds the join waited, an
error) and checks.audit_parts["build.warm"] (the wait: the part a job
paid).  Must not: fail a job (an error is recorded; the checks then load
their kernels as they go), run after join returned, or run on the CPU
(no module to load)."""
import os
import threading
import time

from hrworker import vocab
from hrworker.distribution import warm as distribution_warm
from hrworker.util import exc_text
from hrworker.vacuity import warm as vacuity_warm


def wanted(ctx, stop, candidate):
    """Whether a job warms its checks: a whole job (stop: its message's
    stop_after, vocab.STOP_ALL; a build job ends before any check) with a
    candidate process, on a GPU, unless HEADROOM_WARM=0."""
    return (stop == vocab.STOP_ALL and candidate is not None and bool(ctx.cuda)
            and os.environ.get("HEADROOM_WARM") != "0")


class WarmChecks:
    """start() once, join() once (on every path out of the job's stages
    that started it)."""

    def __init__(self, torch, ctx, verify):
        self.torch, self.ctx, self.verify = torch, ctx, verify
        self.rec = {}
        self.thread = None

    def start(self):
        self.thread = threading.Thread(target=self.run, name="headroom-warm", daemon=True)
        self.thread.start()

    def run(self):
        t, c = self.torch, self.ctx
        t0 = time.monotonic()
        try:
            stream = t.cuda.Stream(device=c.device)
            with t.cuda.device(c.device), t.cuda.stream(stream):
                distribution_warm(t, c.device, self.verify, c.harness, c.tol)
                vacuity_warm(t, c.device, self.verify, c.harness, c.tol)
            stream.synchronize()
        except Exception as e:      # noqa: the checks load their kernels as they go
            self.rec["error"] = exc_text(e)[:300]
        self.rec["seconds"] = round(time.monotonic() - t0, 4)

    def join(self, checks):
        """Wait for the thread; checks.warm and the wait's seconds as the
        checks' cost (audit_parts["build.warm"]).  Idempotent."""
        if self.thread is None:
            return
        t0 = time.monotonic()
        self.thread.join()
        self.thread = None
        self.rec["waited"] = round(time.monotonic() - t0, 4)
        checks["warm"] = self.rec
        checks.setdefault("audit_parts", {})["build.warm"] = self.rec["waited"]
