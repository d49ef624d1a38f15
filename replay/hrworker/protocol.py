"""hrworker/protocol.py - the messages the worker exchanges, as types, and
what both ends of a job's channel agree on.  The protocol stream
(docs/replay.md, "Messages"): the orchestrator's job message, the
worker's hello, start, phase, predraw, result, exit and error lines.  The
channel (channel.py) between the judge (remote.py) and the candidate
process (candidate.py): the judge's requests, the candidate's hello;
its other replies are data the judge checks field by field (Reply).
Types only (typing.TypedDict: at run time a message is a plain dict);
the values of modes, verdicts and phases are the vocabulary's.
Must not: import a module of the package (it is the leaf both sides of
the fork share)."""
from typing import Any, TypedDict, Union

# The launch cover of a call the candidate process times on CUDA
# (Timing.time_one): about 0.5 ms at the H200's 1980 MHz; what the
# candidate process accepts at most.
COVER_CYCLES = 1000000
COVER_CYCLES_MAX = 100000000

# Evidence, checks and the other open records: JSON objects.
Record = dict[str, Any]


# ------------------------------------------------ orchestrator -> worker
class JobMessage(TypedDict, total=False):
    """{"op": "job", ...}: one job and the run's settings (or {"op":
    "quit"}).  Every field but op and job may be absent; the worker's
    defaults stand then (context.JobContext)."""
    op: str
    job: int
    evaluation_id: int
    stop_after: str                 # vocab.STOPS
    draw: bool
    nice: int
    alone: bool
    after_builds: bool              # run again once the builds were done (Job.retry_after_builds)
    problem_code: str
    problem_file: str
    inputs_key: str
    input_cache_mb: int
    candidate_code: str
    candidate_file: str
    mode: str
    harness: str
    precision: str
    seed: int
    audit_seed: int         # JobContext.audit_seed's secret, fixed (to repeat a job)
    correct_trials: int
    perf_trials: int
    warmup: int
    robust_inputs: int
    robust_rounds: int
    bootstrap: int
    timeout_run: float      # the run's --timeout-run (budget.AuditBudget)
    compile_baseline: bool
    audit_inputs: str
    audit_presets: list[Record]


# ------------------------------------------------ worker -> orchestrator
class Hello(TypedDict, total=False):
    """Once, after import torch (worker.py: hello)."""
    type: str
    protocol: int
    pid: int
    python: str
    torch: str
    cuda: str | None
    device: str
    arch: str
    verify: str | None
    verify_error: str | None
    keeper_pid: int | None
    rand: str | None
    rand_error: str | None
    fs_jail: Record
    job_jail: Record
    start_seconds: dict[str, float]
    gpu_name: str | None
    driver: str | None
    gpu_uuid: str | None
    clocks: dict[str, str | None]
    cpu: str | None
    llc_bytes: int


class Start(TypedDict):
    """The job's child forked; pid is its process group."""
    type: str
    job: int
    pid: int


class Phase(TypedDict):
    """The job entered a phase (job.py: Job.phase)."""
    type: str
    job: int
    phase: str


class Predraw(TypedDict):
    """A build job's draws ahead, sent as soon as they are made."""
    type: str
    job: int
    predraw: Record


class Exit(TypedDict):
    """The job's child was reaped: its exit code, None while it tears
    down."""
    type: str
    job: int
    status: int | None


class ErrorLine(TypedDict):
    """A request the worker could not read."""
    type: str
    error: str


class Finding(TypedDict):
    """One entry of a result's findings (audit.finding)."""
    id: str
    evidence: Record


class Result(TypedDict, total=False):
    """A job's one answer (context.JobContext.result, built by the
    stages); a Verdict's extra fields join it."""
    type: str
    job: int | None
    phase: str
    verdict: str
    error_kind: str
    error: str
    compiled: bool | None
    correct: bool | None
    build: Record
    build_log: str
    trials_passed: int
    trials_total: int
    runtime_ms: float | None
    runtime_stats: Record
    baseline_ms: float | None
    baseline_stats: Record
    baseline: str
    speedup: float | None
    ci_low: float | None
    ci_high: float | None
    own_share: float | None
    findings: list[Finding]
    audit: Record
    audit_notes: list[str]
    predraw: Record
    checks: Record
    retry_alone: bool           # Job.out_of_memory: once more, alone
    retry_after_builds: bool    # Job.retry_after_builds: once more, after the builds


Line = Union[Hello, Start, Phase, Predraw, Exit, ErrorLine, Result]


# ------------------------------------------------ judge <-> candidate
class Request(TypedDict, total=False):
    """The judge's request (pickled: the candidate process trusts the
    judge, who forked it).  op names it; args are the tensors' and values'
    descriptors (remote.Shared.describe), forget the keys of tensors the
    judge dropped; the other fields are the op's."""
    op: str
    args: list[tuple[Any, ...]]
    forget: list[int]
    code: str
    problem_code: str
    problem_file: str | None
    filename: str | None
    init: list[Any]
    seed: int
    rng: bytes
    cuda_rng: bytes
    poison_bytes: int | None
    no_grad: bool
    flush: int
    sync_before: bool
    keep: bool
    cover_cycles: int
    robust: bool
    split: int
    configs: list[tuple[int, bool, int]]
    n: int


class CandidateHello(TypedDict):
    """The candidate process's (and the builder process's) first reply:
    confined, what took (confine.confine)."""
    t: str
    pid: int
    confined: Record


# A reply of the candidate process: JSON it chose, "t" its type; the
# judge reads no field it has not checked (remote.CandidateProcess).
Reply = dict[str, Any]
