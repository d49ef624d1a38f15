"""The GPU escapes as a job measures them (replay/hrworker/job.py:
Job.escapes; escapes.candidate_pass in the candidate process, judge_pass
in the judge), through the worker.

On CPU (make check), robust and faithful: a C++ extension that does the
work has an own share above 0 and no escape finding, also when it runs
it only on content it has not seen (the pass's set is new content); one that builds its
extension and calls torch instead is no-own-kernel; a pure-PyTorch
stand-in reports share 0 and no finding (docs/replay.md); a call that
leaves a thread running is background-thread; a half-precision compute
of an fp32 problem that passes v0's tolerance is precision-downgrade,
with the judge's fp64 error.
With HR_TEST_DEVICE=cuda (make gpu-check): the planted GPU suite
(tests/fixtures/planted-gpu) through robust jobs: each planted case has
the findings suite.json expects (the probe's own detections: a refused
graph figure for graph-refused, a job that is not clean and correct for
fresh-buffers-wrong), no honest twin has an escape finding, and the jobs'
clocks were sampled by NVML.

Plain script: one line per check, exits non-zero on any failure.
"""
import json
import os

from workerlib import DEVICE, ROOT, Worker, check

PROBLEM = '''
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2.0
def get_inputs():
    return [torch.randn(256, 256)]
def get_init_inputs():
    return []
'''

EXT = '''
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline
_src = """
torch::Tensor relu2(torch::Tensor x) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float *in = xc.data_ptr<float>();
    float *out = y.data_ptr<float>();
    for (int64_t i = 0; i < xc.numel(); i++)
        out[i] = in[i] > 0.0f ? 2.0f * in[i] : 0.0f;
    return y;
}
"""
_ext = load_inline(name="hr_escjob_relu2", cpp_sources=_src, functions=["relu2"],
                   verbose=False)
'''

OWN = EXT + '''
class ModelNew(nn.Module):
    def forward(self, x):
        return _ext.relu2(x)
'''

# Its extension runs only on content it has not seen: on the job's first
# input set (a correctness trial's) the call is a cache hit that runs
# none of its code.
CACHED_OWN = EXT + '''
_seen = {}
class ModelNew(nn.Module):
    def forward(self, x):
        key = (float(x.sum()), tuple(x.shape))
        if key not in _seen:
            _seen[key] = _ext.relu2(x)
        return _seen[key].clone()
'''

LIBRARY_ONLY = EXT + '''
class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2.0
'''

STAND_IN = '''
import torch
import torch.nn as nn
class ModelNew(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2.0
'''

THREAD = '''
import threading, time
import torch
import torch.nn as nn
class ModelNew(nn.Module):
    def forward(self, x):
        threading.Thread(target=time.sleep, args=(0.5,), daemon=True).start()
        return torch.relu(x) * 2.0
'''

HALF = '''
import torch
import torch.nn as nn
class ModelNew(nn.Module):
    def forward(self, x):
        return (torch.relu(x.half()) * 2.0).float()
'''


# A problem whose get_inputs() is empty: the pass has no set to split.
NO_INPUTS_PROBLEM = '''
import torch
import torch.nn as nn
class Model(nn.Module):
    def forward(self):
        return torch.arange(1000, dtype=torch.float32) * 2.0
def get_inputs():
    return []
def get_init_inputs():
    return []
'''

NO_INPUTS = '''
import torch
import torch.nn as nn
class ModelNew(nn.Module):
    def forward(self):
        return torch.arange(1000, dtype=torch.float32) * 2.0
'''


def findings(res):
    return sorted(f["id"] for f in res.get("findings", []))


def cpu_cases(w):
    for mode in ("robust", "faithful"):
        kw = dict(mode=mode, harness="current", perf_trials=5, robust_rounds=4,
                  robust_inputs=2)
        _, res = w.run(PROBLEM, OWN, **kw)
        esc = res["checks"].get("escapes", {})
        check(res["verdict"] == "correct" and res.get("own_share", 0) > 0
              and not findings(res),
              "%s: an extension doing the work: own share %r, no finding (%s)"
              % (mode, res.get("own_share"), findings(res) or esc.get("error")))
        check(esc.get("precision", {}).get("reference_profiled") is False,
              "%s: no reduced-precision work reported: the reference is not profiled" % mode)
        got = (sorted(esc.get("seconds", {})), sorted(esc.get("judge_seconds", {})),
               sorted(esc.get("precision", {}).get("seconds", {})))
        check(got == (["profile", "threads", "wall_vs_event"],
                      ["candidate_call", "candidate_pass", "draw", "judge_pass"],
                      ["precision_check", "reference_fp32_fp64", "reference_profile"]),
              "%s: the pass's parts are timed on both sides (%s)" % (mode, got))
        au, parts = res["checks"].get("audit_seconds", {}), res["checks"].get("audit_parts", {})
        want = {"robust": {"timing.draw", "timing.round_check", "timing.recheck_fresh"},
                "faithful": {"timing.recheck_fresh_timing"}}[mode] | {
                    "correctness.side_effects", "correctness.audit_calls", "timing.floor",
                    "escapes.pass", "correctness.vacuity", "correctness.distribution"}
        sums = {k: sum(v for n, v in parts.items() if n.split(".")[0] == k) for k in au}
        # timing.confirm_clock runs only where the clocks disagreed on the
        # timed calls (a hiccup of the host, Job.confirm_clock)
        check(set(parts) - {"timing.confirm_clock"} == want
              and all(abs(sums[k] - au[k]) < 1e-3 for k in au),
              "%s: the audit's seconds by check add up to its seconds by part (%s; %s)"
              % (mode, sorted(parts), au))
        _, res = w.run(PROBLEM, CACHED_OWN, **kw)
        check(res.get("own_share", 0) > 0 and "no-own-kernel" not in findings(res),
              "%s: an extension run only on unseen content: the escapes pass's set is new "
              "content, own share %r (%s)" % (mode, res.get("own_share"), findings(res)))
        _, res = w.run(NO_INPUTS_PROBLEM, NO_INPUTS, **kw)
        esc = res["checks"].get("escapes", {})
        check(res["verdict"] == "correct" and "profile" in esc and not esc.get("error"),
              "%s: a problem without inputs: the pass runs (%s)" % (mode, esc.get("error")))
        _, res = w.run(PROBLEM, LIBRARY_ONLY, **kw)
        check(res["verdict"] == "correct" and "no-own-kernel" in findings(res)
              and res.get("own_share") == 0,
              "%s: an extension built and torch doing the work: no-own-kernel (%s)"
              % (mode, findings(res)))
        _, res = w.run(PROBLEM, STAND_IN, **kw)
        check(res["verdict"] == "correct" and res.get("own_share") == 0 and not findings(res),
              "%s: a pure-PyTorch stand-in: share 0 reported, no finding (%s)"
              % (mode, findings(res)))
        _, res = w.run(PROBLEM, THREAD, **kw)
        check("background-thread" in findings(res),
              "%s: a call that leaves a thread running: background-thread (%s)"
              % (mode, findings(res)))
        # Under v0's fp32 tolerance (1e-2), where fp16 compute passes.
        _, res = w.run(PROBLEM, HALF, **dict(kw, harness="v0"))
        prec = res["checks"].get("escapes", {}).get("precision", {})
        check(prec.get("reference_profiled") is True,
              "%s: half-precision ops reported: the reference's own pass is profiled" % mode)
        check("precision-downgrade" in findings(res) and prec.get("candidate_err", 0) >
              prec.get("limit", 1),
              "%s: fp16 compute of an fp32 problem: precision-downgrade, error %r over %r (%s)"
              % (mode, prec.get("candidate_err"), prec.get("limit"), findings(res)))


def gpu_cases(w):
    suite_dir = os.path.join(ROOT, "tests", "fixtures", "planted-gpu")
    with open(os.path.join(suite_dir, "suite.json")) as f:
        suite = json.load(f)
    probe_only = {"graph-refused", "fresh-buffers-wrong"}
    pdir = os.path.join(suite_dir, "problems", "level1")
    clocks_seen = False
    for case in suite["cases"]:
        pf = next(x for x in sorted(os.listdir(pdir)) if x.startswith("%d_" % case["problem"]))
        with open(os.path.join(pdir, pf)) as f:
            problem = f.read()
        with open(os.path.join(suite_dir, "candidates", case["candidate"])) as f:
            cand = f.read()
        # v0's fp32 tolerance (1e-2), under which TF32 and fp16 compute pass
        # the check: the escapes are measured on jobs that are correct.
        _, res = w.run(problem, cand, mode="robust", harness="v0", robust_rounds=6,
                       robust_inputs=2)
        got = set(findings(res))
        want = set(case["expect"]) - probe_only
        clocks_seen |= bool(res["checks"].get("clocks", {}).get("available"))
        if case["honest"]:
            esc = set(got) & {"side-stream", "work-after-end-event", "no-own-kernel",
                              "background-thread", "precision-downgrade", "l2-persisting"}
            check(not esc, "%s (honest): no escape finding (%s)%s" % (
                case["candidate"], sorted(got), "; evidence: " + json.dumps(
                    [f for f in res["findings"] if f["id"] in esc])[:1500] if esc else ""))
        elif want:
            check(want <= got, "%s: %s found (%s)%s" % (
                case["candidate"], sorted(want), sorted(got), "" if want <= got else
                "; escapes: " + json.dumps({k: v for k, v in res["checks"].get(
                    "escapes", {}).items() if k in ("precision", "error")})[:2500]))
        elif "graph-refused" in case["expect"]:     # no finding: no graph figure
            graph = res["checks"].get("escapes", {}).get("graph", {})
            check(graph.get("refused") is True and "ms_median" not in graph,
                  "%s: the graph figure refused (%s)" % (case["candidate"], graph.get("why")))
        else:       # fresh-buffers-wrong: in a job, the fresh inputs fail it
            check(res["verdict"] != "correct" or got,
                  "%s: not a clean correct job (verdict %s, %s)"
                  % (case["candidate"], res["verdict"], sorted(got)))
    check(clocks_seen, "the jobs' SM clocks were sampled through NVML")


w = Worker()
try:
    if DEVICE == "cuda":
        gpu_cases(w)
    else:
        cpu_cases(w)
finally:
    w.close()
