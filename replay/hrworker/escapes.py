"""hrworker/escapes.py - what a candidate's call does beyond the stream, the
thread and the precision its timer and check look at, measured once per
correct, timed job: candidate_pass in the process where the candidate's
code runs (the precision flags at a call, the threads a call leaves
(threads.py), the persisting-L2 state (l2.py), one profiled pass and
wall against event time (profiled.py), the CUDA-graph figure
(cudagraph.py)), judge_pass in the judge (the reference's own profiled
pass and precision_check of the candidate's output (precision.py)).
Each part returns JSON-able evidence with a "findings" list of {"id",
"evidence"} (side-stream, work-after-end-event, no-own-kernel,
background-thread, precision-downgrade, l2-persisting); docs/replay.md,
"GPU escapes", says what each measures.  job.py: Job.escapes calls
them.
Must not: judge correctness or take the job's timed figures (checks.py,
timing.py), run inside a timed call, or keep a reference to the
candidate's objects past the call it measures."""
import shutil
import tempfile

from hrworker import vocab
from hrworker.cudagraph import graph_timing, refill
from hrworker.kernels import loaded_modules, own_names
from hrworker.l2 import l2_reset
from hrworker.precision import precision_check, precision_flags, reference_fp64
from hrworker.profiled import profiled_pass, wall_vs_event
from hrworker.threads import thread_check
from hrworker.util import Laps


# ------------------------------------------------------------ the job's passes
# The findings the candidate process's pass may report (anything else it
# sends is dropped by the judge).
CANDIDATE_FINDINGS = (vocab.F_SIDE_STREAM, vocab.F_WORK_AFTER_END_EVENT,
                      vocab.F_NO_OWN_KERNEL, vocab.F_BACKGROUND_THREAD,
                      vocab.F_L2_PERSISTING)



def candidate_pass(torch, model, args, source, ns, robust, tmpdir=None, flush=None,
                   fresh=None):
    """The candidate process's escape measurements for one job, after its
    timing: the precision flags at a call, the threads a call leaves
    (thread_check), the persisting-L2 state (read; reset too in a robust
    job), one profiled pass (streams, work after the end marker, own
    share, reduced-precision kernels), wall against event time, and in a
    robust job on CUDA the CUDA-graph figure (on copies of the inputs).
    The warm-up and every call but the profiled one are on args; the
    profiled call is on fresh (the same shapes, content no call saw; args
    when None), so that a candidate that caches its output by the input's
    address or content runs its work there (a cache hit runs no kernel
    and hid no-own-kernel).  Returns {"evidence": {...}, "findings":
    [...], "flags_at_call", "reduced"}: data for the judge (judge_pass)."""
    cuda = torch.cuda.is_available() and any(
        isinstance(a, torch.Tensor) and a.is_cuda for a in args)
    own = own_names(source, loaded_modules(ns, model))

    def call(xs=args):
        with torch.no_grad():
            return model(*xs)

    def sync():
        if cuda:
            torch.cuda.synchronize()

    ev, found = {"own": own, "seconds": {}}, []
    laps = Laps(ev["seconds"])          # each part's seconds, for the audit's cost
    _, th = thread_check(call, warmup=1)     # its warm-up is the pass's
    sync()
    flags_at_call = precision_flags(torch)
    ev["threads"] = th
    laps.lap("threads")
    if cuda:
        ev["l2"] = l2_reset(torch, reset=robust)
        laps.lap("l2")
    d = tempfile.mkdtemp(dir=tmpdir) if tmpdir else None
    try:
        prof = profiled_pass(torch, lambda: call(args if fresh is None else fresh),
                             own, cuda, d)
    finally:
        if d:
            shutil.rmtree(d, ignore_errors=True)
    ev["profile"] = {k: prof.get(k) for k in (
        "device", "kernels", "streams", "current_stream", "n_hidden", "hidden", "n_after_end",
        "after_end", "share", "own_kernels_seen", "top_kernels", "graph_launches", "error")
        if k in prof}
    laps.lap("profile")
    ev["wall_vs_event"] = wall_vs_event(torch, call) if cuda else {
        "applicable": False, "why": "needs CUDA (on CPU the timer is the wall clock)"}
    laps.lap("wall_vs_event")
    if robust and cuda:
        copies = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
        with torch.no_grad():
            ev["graph"] = graph_timing(torch, model, copies, refill=lambda xs: refill(torch, xs),
                                       flush=flush)
        laps.lap("graph")
    for part in (th, ev.get("l2", {}), prof, ev["wall_vs_event"]):
        found += [f for f in part.get("findings", ()) if f["id"] in CANDIDATE_FINDINGS]
    if not cuda and not own["functions"]:
        # On a CPU a candidate that built no extension is a pure-PyTorch
        # stand-in for a kernel (the test suites' CPU candidates; CUDA
        # and Triton kernels in its source cannot run on a CPU): its
        # share, 0, is reported; no-own-kernel is for one that built code
        # and did not run it.  On a GPU share 0 is no-own-kernel either way.
        found = [f for f in found if f["id"] != vocab.F_NO_OWN_KERNEL]
    for part in (ev.get("l2", {}), ev["wall_vs_event"]):
        part.pop("findings", None)
    th.pop("findings", None)
    return {"evidence": ev, "findings": found, "flags_at_call": flags_at_call,
            "reduced": prof.get("reduced")}


def judge_pass(torch, ref, cand_out, inputs, flags_before, rep, cuda):
    """The judge's side, on the same input set: the reference's own
    profiled pass (the reduced-precision kernels it runs itself, which
    those the candidate ran are counted against: so only where the
    candidate process reported any; a profiled pass is the escapes'
    costliest part), its fp32 and fp64 outputs, and precision_check of the
    candidate's output (cand_out, in the judge's memory) with the flags
    and reduced kernels the candidate process reported (rep:
    candidate_pass's result, as CandidateProcess.escapes checked it)."""
    red = rep["reduced"]
    secs = {}
    laps = Laps(secs)
    with torch.no_grad():
        ref_prof = profiled_pass(torch, lambda: ref(*inputs), own_names(""), cuda) \
            if red.get("kernels") or red.get("ops") else None
        laps.lap("reference_profile")
        ref32 = ref(*inputs)
        ref64 = reference_fp64(torch, ref, inputs)
        laps.lap("reference_fp32_fp64")
    res = precision_check(torch, cand_out, ref32, ref64, flags_before, rep["flags_at_call"],
                          profile={"reduced": red},
                          baseline_reduced=(ref_prof or {}).get("reduced"), inputs=inputs)
    laps.lap("precision_check")
    res["reference_profiled"] = ref_prof is not None
    res["seconds"] = secs
    return res
