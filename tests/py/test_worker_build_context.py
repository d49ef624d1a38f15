"""A build job's candidate process holds no CUDA context of the tool's
(hrworker/candidate.py: early_context).  A run job's candidate process
makes its context before any candidate code (the persisting-L2 baseline);
a build job's runs the candidate's module only while its extensions
compile, and a context made there held about 0.5 GiB of device memory
for the whole build: 24 build jobs at once held 13 GiB on an H100 beside
a run job whose 6 GiB-input problem ran out of memory.

The rule on its cases, then through a worker: a candidate module that
reports, when it runs, whether torch's CUDA state is initialised in its
process.  In a build job it never is; in a run job it is exactly on a
GPU (HR_TEST_DEVICE=cuda: make gpu-check).  The build job's judge builds
no reference model and places no init input either (hrworker/job.py):
a problem whose Model() raises is built and drawn, and its run job is
problem_error.

Plain script: one line per check, exits non-zero on any failure."""
import os
import sys

from workerlib import DEVICE, PROBLEM, ROOT, Worker, check, reported

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker import vocab  # noqa: E402
from hrworker.candidate import early_context  # noqa: E402

for cuda, stop, want in ((True, vocab.STOP_ALL, True), (True, None, True),
                         (True, vocab.STOP_BUILD, False), (False, vocab.STOP_ALL, False),
                         (False, vocab.STOP_BUILD, False)):
    check(early_context(cuda, stop) is want,
          "early_context(cuda=%s, stop_after=%r) is %s" % (cuda, stop, want))

TAG = "HR-CONTEXT:"
CANDIDATE = '''
import json
import torch
raise RuntimeError("%s" + json.dumps({"initialized": torch.cuda.is_initialized()}))
''' % TAG

w = Worker()
try:
    for stop, want in ((vocab.STOP_BUILD, False), (vocab.STOP_ALL, DEVICE == "cuda")):
        _, res = w.run(PROBLEM, CANDIDATE, stop_after=stop)
        got = reported(res, TAG)
        check(got.get("initialized") is want,
              "%s job on %s: CUDA initialised in the candidate process when its module "
              "runs: %s (got %s)" % (stop, DEVICE, want, got))

    # Nor does the build job's judge (hrworker/job.py: stages): a build or
    # a draw job builds no reference model and places no init input (a
    # tensor among them would make the judge a context held through the
    # build).  A Model() that raises says so: built and drawn where the
    # model is not built, problem_error in the run job, where it is.
    BROKEN = PROBLEM.replace("class Model(nn.Module):\n",
                             "class Model(nn.Module):\n"
                             "    def __init__(self, scale):\n"
                             "        super().__init__()\n"
                             "        raise RuntimeError('HR-MODEL-INIT ' + str(scale.shape))\n"
                             "\n").replace("return []", "return [torch.ones(3)]")
    check(BROKEN.count("HR-MODEL-INIT") == 1 and "torch.ones(3)" in BROKEN,
          "the problem whose Model() raises, an init input a tensor")
    HONEST = PROBLEM.replace("class Model(", "class ModelNew(")
    for stop, extra, want in ((vocab.STOP_BUILD, {}, vocab.PV_BUILT),
                              (vocab.STOP_INPUTS, {"draw": True}, vocab.PV_DRAWN),
                              (vocab.STOP_ALL, {}, vocab.PV_PROBLEM_ERROR)):
        _, res = w.run(BROKEN, HONEST, stop_after=stop, **extra)
        res = res or {}
        check(res.get("verdict") == want and
              (want != vocab.PV_PROBLEM_ERROR or "HR-MODEL-INIT" in str(res.get("error"))),
              "%s job, Model() raises: %s (got %s: %s)"
              % (stop, want, res.get("verdict"), str(res.get("error"))[:300]))
finally:
    w.close()
