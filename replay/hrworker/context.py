"""hrworker/context.py - what every stage of one job shares: the job message,
the worker's state, torch, the semantics the job asks for (mode, harness
version, precision, tolerance, seed, device), the result being built, and
the operations every stage does alike (seeding, syncing, placing tensors
and models as the harness does); and how a problem's code is executed
(problem_namespace), for the job and the keeper alike."""
import os
import secrets
from types import ModuleType
from typing import Any

from hrworker import vocab
from hrworker.budget import AuditBudget
from hrworker.protocol import JobMessage, Record, Result
from hrworker.state import WorkerState

# The share of the device's memory (the host's on the CPU) a job's judge
# holds beyond the harness's own tensors, for sets of its own: input sets
# drawn on the device and kept (inputs.InputSets.device_kept), the fresh
# sets the audit times at once (timing.Timing.fresh_timing).  The harness
# holds one set, its output and the candidate's; on a 1.6 G-element problem
# each is 6 GiB, and seven fresh sets with their outputs would not fit.
HOLD_SHARE = 0.1

# JobContext.audit_seed's offsets, one a use: robust's warm-up pool and its
# rounds (numpy generators of their sets' seeds and, for the rounds, the
# order and the bootstrap), the distribution checks' set and transforms,
# the re-drawn parameters, and the sets of new content from AUDIT_FRESH on
# (timing.py: the recheck after timing, fresh_timing's, the escapes pass's).
AUDIT_POOL, AUDIT_ROUNDS, AUDIT_DISTRIBUTION, AUDIT_REDRAW, AUDIT_FRESH = 0, 1, 2, 3, 16


def device_memory(torch: ModuleType, device: Any) -> int:
    """A CUDA device's memory in bytes."""
    return int(torch.cuda.get_device_properties(device).total_memory)


# KernelBench tolerance by harness version and precision (eval.py
# get_tolerance_for_precision at 423217d; v0/v0.1 src/eval.py: fp32 1e-2).
TOLERANCE: dict[str, dict[str, float]] = {
    "v0": {"fp32": 1e-2, "fp16": 1e-2, "bf16": 1e-2},
    "v0.1": {"fp32": 1e-2, "fp16": 1e-2, "bf16": 1e-2},
    "current": {"fp32": 1e-4, "fp16": 1e-2, "bf16": 1e-2},
}


def problem_namespace(code: str, filename: str | None) -> dict[str, Any]:
    """The namespace a problem's code runs in, as KernelBench's
    exec(src, context): Model, get_inputs, get_init_inputs (and, in a
    faithful job, the candidate after them)."""
    ctx: dict[str, Any] = {}
    exec(compile(code, filename or "problem.py", "exec"), ctx)
    return ctx


class Verdict(Exception):
    """Ends a job early with a verdict."""

    def __init__(self, verdict: str, kind: str | None, text: str, **extra: Any) -> None:
        super().__init__(text)
        self.verdict, self.kind, self.text, self.extra = verdict, kind, text, extra


class JobContext:
    """One job's message (m), the worker's state (cfg: WorkerState), torch,
    the semantics and the result (result, and its checks)."""

    m: JobMessage
    cfg: WorkerState
    torch: ModuleType
    id: int
    mode: str
    harness: str
    precision: str
    seed: int
    device: Any             # a torch.device
    cuda: bool
    dtype: Any              # a torch.dtype
    tol: float
    result: Result
    checks: Record          # result["checks"]
    budget: AuditBudget     # the audit's own calls within its phase's limit

    def __init__(self, msg: JobMessage, cfg: WorkerState, torch: ModuleType) -> None:
        self.m, self.cfg, self.torch = msg, cfg, torch
        self.id = msg["job"]
        self.mode = msg.get("mode", vocab.MODE_FAITHFUL)
        self.harness = msg.get("harness") or "current"
        if self.harness not in TOLERANCE:
            self.harness = "current"
        self.precision = msg.get("precision") or "fp32"
        self.seed = int(msg.get("seed", 42))
        self.device = torch.device(cfg.device)
        self.cuda = self.device.type == "cuda"
        self._memory_total: int | None = None     # memory_total, read once
        self._audit_seed: int | None = None       # audit_seed's secret, drawn once
        self.dtype = {"fp32": torch.float32, "fp16": torch.float16,
                      "bf16": torch.bfloat16}.get(self.precision, torch.float32)
        self.tol = TOLERANCE[self.harness].get(self.precision, 1e-4)
        self.result = {"type": "result", "job": self.id, "compiled": None,
                       "correct": None, "checks": {}}
        self.checks = self.result["checks"]
        self.budget = AuditBudget(msg.get("timeout_run"))

    def sync(self) -> None:
        if self.cuda:
            self.torch.cuda.synchronize(device=self.device)

    def memory_total(self) -> int:
        """The job's device's memory in bytes (the host's on the CPU): what
        the audit's own copies are sized against (HOLD_SHARE)."""
        if self._memory_total is None:
            self._memory_total = (device_memory(self.torch, self.device) if self.cuda else
                                  int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")))
        return self._memory_total

    def audit_seed(self, offset: int = 0) -> int:
        """A seed of the audit's own draws (robust's warm-up and timed sets
        and its rounds' order, the rechecks' fresh content, the escapes
        pass's set, the distribution checks' set and transforms, the
        re-drawn parameters): the job's secret plus offset.  The harness's
        own seeds (the trials', the timing set's) stay KernelBench's.  The
        secret is 62 random bits drawn in the judge when first asked, after
        the candidate process was forked from it, so no candidate can draw
        a set of the audit's before it is given it (with seeds from the
        job's seed, one computed every robust round's output at import and
        read 2.8-3.4x verified-faster on the CPU).  A job message's
        "audit_seed" fixes it, to repeat a job (the candidate process, a
        fork of the judge's, can then read it).  checks.audit_seed."""
        secret = self._audit_seed
        if secret is None:
            fixed = self.m.get("audit_seed")
            secret = secrets.randbits(62)
            if isinstance(fixed, int) and not isinstance(fixed, bool) and 0 <= fixed < 2**62:
                secret = fixed
            self._audit_seed = secret
            self.checks["audit_seed"] = secret
        return secret + offset

    def set_seed(self, s: int) -> None:
        self.torch.manual_seed(s)
        if self.cuda:
            self.torch.cuda.manual_seed(s)

    # KernelBench moves inputs with _process_input_tensor (current: cast to
    # the precision, then device) or x.cuda() (v0, v0.1: no cast).
    def place(self, x: Any) -> Any:
        if not isinstance(x, self.torch.Tensor):
            return x
        if self.harness == "current":
            x = x.to(dtype=self.dtype)
        return x.to(device=self.device)

    def place_model(self, m: Any) -> Any:
        if self.harness == "current":
            return m.to(device=self.device, dtype=self.dtype)
        return m.to(device=self.device)
