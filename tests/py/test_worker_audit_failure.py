"""Who failed an audit call (replay/hrworker/remote.py: audit_failure, and
hrworker/job.py: Job.tool_failed_audit): an exception the candidate's
process raised (RemoteError) is the candidate's, failed:audit; any other
was raised by the judge's own code and makes a job whose trials passed
the tool's failure (runtime_error of kind tool: failed:tool), never the
candidate's and never a win; an incorrect job keeps its verdict.

Plain script: one line per check, exits non-zero on any failure."""
import os
import sys
from types import SimpleNamespace

from workerlib import ROOT, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker import vocab  # noqa: E402
from hrworker.job import Job  # noqa: E402
from hrworker.remote import RemoteError, audit_failure  # noqa: E402


def job(verdict):
    """A job's state as Job.run leaves it, before tool_failed_audit."""
    j = SimpleNamespace(checks={}, result={"verdict": verdict, "correct": verdict ==
                                           vocab.PV_CORRECT},
                        ctx=SimpleNamespace(cuda=False), m={})
    j.out_of_memory = lambda text, where=None: Job.out_of_memory(j, text, where)
    j.tool_failure = lambda error, **extra: Job.tool_failure(j, error, **extra)
    return j


# The candidate's error, raised in its process.
j = job(vocab.PV_CORRECT)
audit_failure(j.checks, "correctness", RemoteError("ValueError: bad shape"))
Job.tool_failed_audit(j)
check(j.checks.get("audit_error") == "correctness: ValueError: bad shape"
      and "audit_tool_error" not in j.checks and j.result["verdict"] == vocab.PV_CORRECT,
      "the candidate's RemoteError is checks.audit_error; the verdict stays for "
      "replay/verdict.c to read as failed:audit (%s)" % j.checks)

# The judge's own code raised: the tool's failure.
j = job(vocab.PV_CORRECT)
try:
    {}["missing"]
except KeyError as e:
    audit_failure(j.checks, "timing", e)
Job.tool_failed_audit(j)
check(j.checks.get("audit_tool_error", "").startswith("timing: ")
      and "audit_error" not in j.checks
      and j.result["verdict"] == vocab.PV_RUNTIME_ERROR and j.result["error_kind"] == "tool"
      and j.result["correct"] is None
      and j.checks.get("verdict_without_tool") == vocab.PV_CORRECT,
      "a local exception is the judge's: runtime_error of kind tool (%s, %s)"
      % (j.checks, j.result))

# The first failure is kept; an incorrect job keeps its verdict.
j = job(vocab.PV_INCORRECT)
audit_failure(j.checks, "correctness", ValueError("first"))
audit_failure(j.checks, "timing", ValueError("second"))
Job.tool_failed_audit(j)
check(j.checks["audit_tool_error"] == "correctness: ValueError: first"
      and j.result["verdict"] == vocab.PV_INCORRECT,
      "an incorrect job stays incorrect, the first failure kept (%s)" % j.checks)
