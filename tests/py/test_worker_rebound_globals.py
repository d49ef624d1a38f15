"""A planted candidate that rebinds the problem's module globals
(tests/fixtures/planted/candidates/planted-rebind-globals.py: batch_size)
through the worker, with the input cache in each of its states: faithful
times the candidate's own 2 rows, as KernelBench's shared namespace did,
and raises inputs-redefined; robust draws the problem's own 256 rows,
which nothing the candidate rebinds reaches.  The planted suite's cases
themselves (each raises its evidence, no honest twin any) are checked job
by job through the whole tool: tests/py/test_replay_planted.py."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workerlib import DEVICE, ROOT, Worker, check_on as check, checks_done  # noqa: E402

HERE = os.path.join(ROOT, "tests", "fixtures", "planted")
PROBLEMS = {int(f.split("_")[0]): f for f in os.listdir(os.path.join(HERE, "problems", "level1"))}


def read(*parts):
    with open(os.path.join(HERE, *parts)) as f:
        return f.read()


w = Worker("--verify-lib", os.path.join(ROOT, "build", "libhrverify_cuda.so" if DEVICE == "cuda"
                                          else "libhrverify.so"))
# Faithful inputs of a candidate that rebinds batch_size: KernelBench's
# shared namespace draws 2 rows, whatever the input cache holds: a second
# job of the problem (the cache holds the problem's own 256-row sets), a
# cache too small for every set (1 MiB: one set of 1 MiB fits), none (0).
problem5 = read("problems", "level1", PROBLEMS[5])
rebind = read("candidates", "planted-rebind-globals.py")
for label, extra in (("cache filled by the problem's own sets", {}),
                     ("cache too small", {"input_cache_mb": 1}),
                     ("no cache", {"input_cache_mb": 0})):
    w.run(problem5, read("candidates", "honest-batch-fast.py"), perf_trials=2, **extra)
    _, res = w.run(problem5, rebind, perf_trials=2, **extra)
    got = [f for f in res.get("findings") or [] if f["id"] == "inputs-redefined"]
    check(res["verdict"] == "correct" and res["checks"]["inputs"]["timed"] == [[[2, 1024], "float32"]]
          and res["checks"]["namespace_rebound"] == ["batch_size"] and got
          and got[0]["evidence"]["problem"] == [[[256, 1024], "float32"]],
          "faithful, %s: the candidate's batch_size (2 rows) timed, inputs-redefined (%s)"
          % (label, res["checks"].get("inputs")))
    _, res = w.run(problem5, rebind, perf_trials=2, mode="robust", robust_rounds=2, **extra)
    check(res["checks"]["inputs"]["timed"] == [[[256, 1024], "float32"]] and not res.get("findings"),
          "robust, %s: the problem's own 256 rows, nothing rebound reaches them" % label)

w.close()
checks_done()
