"""hrworker/launch.py - the forks of a job's builder process
(builder.start_builder) and candidate process: the one module that knows
both sides, the judge's (remote.CandidateProcess) and the candidate's
(candidate.candidate_main); neither of those imports the other.
worker.py's job child calls start_candidate before it makes a CUDA
context or reads the problem.
Must not: run candidate code in the judge (the child never returns)."""
import os
from types import ModuleType

from hrworker.builder import start_builder
from hrworker.candidate import candidate_main
from hrworker.channel import JudgeEnd, pair
from hrworker.protocol import JobMessage
from hrworker.remote import CandidateProcess
from hrworker.state import WorkerState


def start_candidate(cfg: WorkerState, torch: ModuleType, msg: JobMessage,
                    jobdir: str) -> CandidateProcess:
    """Fork the builder process, then the candidate process (before any
    CUDA context: this is the job's process, forked from the worker which
    never makes one); the judge's CandidateProcess once it said hello,
    the builder's side in its builder."""
    builder = start_builder(cfg, torch)
    cfg.builder_pid = builder.pid      # a process the candidate must not touch
    mine, theirs = pair()
    pid = os.fork()
    if pid == 0:
        mine.close()
        candidate_main(cfg, torch, theirs, msg, jobdir)
    theirs.close()
    cp = CandidateProcess(pid, JudgeEnd(mine), torch, cfg.device, builder=builder)
    cp.hello = cp.reply("hello")
    return cp
