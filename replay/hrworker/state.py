"""hrworker/state.py - the worker's state (WorkerState): its options, what it
found at start (libraries, GPU, caches) and what it keeps between jobs (the
keeper, jobs still tearing down).  One declared record, made by worker.py's
main from the command line; jobs and the keeper read it (and a forked
child's copy may change its own fields: a job closes its keeper connection).
Must not: run anything."""
import argparse
import socket
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:       # the types of found things only: nothing is run
    from hrworker.jail import JobCgroups
    from hrworker.native import FastRand, Verify
    from hrworker.sandbox import Landlock, Sandbox


@dataclass(slots=True)
class WorkerState:
    # the command line
    device: str = "cpu"             # cpu | cuda (the one visible GPU)
    gpu_index: str = "0"            # physical index, for nvidia-smi
    scratch: str = ""               # the only directory written (real path)
    cache: str = ""                 # extension build cache (real path)
    inputs_dir: str = ""            # input sets shared by the run's workers
    verify_lib: str | None = None
    rand_lib: str | None = None
    mem_limit_mb: int = 0           # RLIMIT_AS per CPU job, 0 none
    keeper_wanted: bool = False     # a run worker: fork the keeper
    take_inputs: bool = False       # the keeper removes the files it holds
    # found at start
    verify: "Verify | None" = None  # native.Verify, or None (verify_error says why)
    verify_error: str | None = None
    rand: "FastRand | None" = None  # native.FastRand, or None (rand_error says why)
    rand_error: str | None = None
    llc_bytes: int = 32 << 20       # the largest CPU cache
    smi: dict[str, str] = field(default_factory=dict)   # nvidia-smi's fields by name
    arch: str = ""                  # sm_XY or cpu-MACHINE (part of build keys)
    start_s: dict[str, float] = field(default_factory=dict)   # hello's start_seconds
    sandbox: "Sandbox | None" = None      # the audit hook
    jail: "Landlock | None" = None
    cgroups: "JobCgroups | None" = None   # each job's cgroup, or why none
    job_jail: dict[str, Any] = field(default_factory=dict)  # hello's job_jail
    recipes: bool = False           # draws ahead leave a recipe for the keeper
    # kept between jobs
    keeper: socket.socket | None = None   # the worker's end of the keeper socket
    keeper_pid: int | None = None
    builder_pid: int | None = None  # the job's builder process (builder.py)
    pch_out: str | None = None      # a builder's call's folder for the header it makes (pch.py)
    keeper_stopped: bool = False    # stopped for a job run alone; started again after
    keeper_conn: socket.socket | None = None   # a job's connection to the keeper (loan.py)
    job_t0: float | None = None     # when the running job's process started
    dying: list[int] = field(default_factory=list)   # answered jobs still tearing down
    large_teardown: bool = False    # the last job's teardown is waited for (worker.serve)
    cgroups_left: list[int] = field(default_factory=list)  # jobs whose cgroup is not removed yet

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "WorkerState":
        """From worker.py's parsed options (argparse names)."""
        return cls(device=args.device, gpu_index=args.gpu_index, scratch=args.scratch,
                   cache=args.cache, inputs_dir=args.inputs, verify_lib=args.verify_lib,
                   rand_lib=args.rand_lib, mem_limit_mb=args.mem_limit_mb,
                   keeper_wanted=args.keeper_wanted, take_inputs=args.take_inputs)
