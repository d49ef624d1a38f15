"""The worker's wait for a job (worker.job_over): a child that answered
says whether its teardown is large (b"B": its judge held a tenth of the
device's memory or more, worker.large_teardown), and the next job then
waits for that teardown (serve: reap with none left); b"!" is an ordinary
answer; a child that ends without one gives its exit status.  On a CPU no
teardown is large."""
import os
import sys
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workerlib import ROOT, check  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "replay"))
import worker  # noqa: E402


def child_says(byte):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        if byte:
            os.write(w, byte)
        os._exit(3)
    os.close(w)
    try:
        return worker.job_over(pid, r), pid
    finally:
        os.close(r)


got, pid = child_says(b"B")
os.waitpid(pid, 0)
check(got == "large", "a child that says B: its teardown is large (%r)" % (got,))
got, pid = child_says(b"!")
os.waitpid(pid, 0)
check(got is None, "a child that says !: answered (%r)" % (got,))
got, _ = child_says(b"")
check(isinstance(got, int) and os.waitstatus_to_exitcode(got) == 3,
      "a child that ends without answering: its exit status (%r)" % (got,))
check(worker.large_teardown(types.SimpleNamespace(ctx=types.SimpleNamespace(cuda=False)))
      is False,
      "a CPU job's teardown is never large")
