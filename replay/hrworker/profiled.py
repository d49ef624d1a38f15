"""hrworker/profiled.py - what a call runs on the device beyond the stream
and the end event its timer looks at: one profiled pass under
torch.profiler (kernels per stream, kernels still running when the end
marker fired, the share of kernel time in the candidate's own code
against library code, reduced-precision kernels and ops; findings
side-stream, work-after-end-event, no-own-kernel), and unprofiled calls'
wall time against their CUDA events (work-after-end-event).
Must not: run inside a timed call, or keep the call's output past it."""
import json
import os
import re
import tempfile
import time
import warnings

from hrworker import vocab
from hrworker.audit import finding
from hrworker.kernels import REDUCED_TYPES, kernel_id, kernel_origin, reduced_kind
from hrworker.util import exc_text, finite


def _trace_events(prof, tmpdir):
    with tempfile.TemporaryDirectory(prefix="hr-trace-", dir=tmpdir) as d:
        path = os.path.join(d, "trace.json")
        prof.export_chrome_trace(path)
        with open(path) as f:
            return [e for e in json.load(f).get("traceEvents", ()) if e.get("ph") == "X"]


def _within(e, w):
    return w is not None and e["ts"] >= w["ts"] and e["ts"] + e.get("dur", 0) <= w["ts"] + w.get("dur", 0) + 1e-3


def _top_level(ops):
    """The ops (cpu_op events) not inside another op of the same thread."""
    out, ends = [], {}
    for e in sorted(ops, key=lambda e: (str(e.get("tid")), e["ts"], -e.get("dur", 0))):
        end = e["ts"] + e.get("dur", 0)
        if e["ts"] < ends.get(e.get("tid"), -1):
            continue
        ends[e.get("tid")] = end
        out.append(e)
    return out


def _share(times):
    total = sum(times.values())
    return {"by_origin_us": {k: round(v, 3) for k, v in sorted(times.items())},
            "total_us": round(total, 3),
            "own_share": finite(times.get("own", 0.0) / total) if total > 0 else None}


def profiled_pass(torch, call, own, cuda, tmpdir=None):
    """Run call() once under torch.profiler (CPU activities, and CUDA ones
    on a GPU), outside any timed call.  own: own_names(...).  On CUDA two
    marker kernels on the current stream (a 1-element fill, inside
    record_function("hr::start"/"hr::end")) bracket the call: the end
    marker stands where the timer's end event is recorded.  Returns
    {"kernels": n, "streams": {stream: {kernels, device_us, current}},
    "other_stream": [...], "hidden": [...] (those still running at the end
    marker), "after_end": [...], "share": {by_origin_us,
    total_us, own_share}, "own_kernels_seen", "top_kernels", "reduced":
    {kernels, ops}, "graph_launches", "findings"}; "error" when the call
    raised.  On CPU the share is over host time: an extension function's
    own time (its Python-visible call, found by the Python tracer, minus
    the ATen ops inside it) against the ATen ops' time."""
    from torch.profiler import ProfilerActivity, profile, record_function
    acts = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if cuda else [])
    res = {"device": "cuda" if cuda else "cpu", "own": own, "findings": []}
    marker = torch.zeros(1, device="cuda") if cuda else None
    if cuda:
        torch.cuda.synchronize()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with profile(activities=acts, record_shapes=True, with_stack=not cuda) as prof:
                if cuda:
                    with record_function("hr::start"):
                        marker.fill_(1.0)
                with record_function("hr::call"):
                    out = call()
                if cuda:
                    with record_function("hr::end"):
                        marker.fill_(2.0)
                    torch.cuda.synchronize()
        del out
    except Exception as e:                   # noqa: BLE001 - the candidate's
        res["error"] = exc_text(e)
        return res
    res.update(trace_evidence(_trace_events(prof, tmpdir), own, cuda))
    return res


def trace_evidence(events, own, cuda):
    """profiled_pass's evidence from the pass's Chrome-trace events ("X"
    events: cat user_annotation, cpu_op, python_function, cuda_runtime,
    kernel; a kernel's args carry its stream and the correlation id of the
    launch)."""
    ann = {e["name"]: e for e in events if e.get("cat") == "user_annotation"}
    res = _cuda_part(events, ann, own) if cuda else _cpu_part(events, ann, own)
    res["findings"] = _pass_findings(res, own, cuda)
    return res


def _marker_kernel(events, ann, name):
    """The kernel launched inside the annotation name (by correlation)."""
    w = ann.get(name)
    corr = {e.get("args", {}).get("correlation") for e in events
            if e.get("cat") in ("cuda_runtime", "cuda_driver") and _within(e, w)
            and e.get("tid") == w.get("tid")}
    corr.discard(None)
    for e in events:
        if e.get("cat") == "kernel" and e.get("args", {}).get("correlation") in corr:
            return e
    return None


def _cuda_part(events, ann, own):
    start, end = _marker_kernel(events, ann, "hr::start"), _marker_kernel(events, ann, "hr::end")
    marks = {id(start), id(end)}
    kernels = [e for e in events if e.get("cat") == "kernel" and id(e) not in marks]
    current = (end or start or {}).get("args", {}).get("stream")
    own_k = set(own.get("kernels", ()))
    times, streams, other, after, hidden, seen, reduced = {}, {}, [], [], [], set(), {}
    end_ts = end["ts"] if end else None
    for k in kernels:
        name, dur, st = k["name"], float(k.get("dur", 0)), k.get("args", {}).get("stream")
        origin = kernel_origin(name, own_k)
        times[origin] = times.get(origin, 0.0) + dur
        if origin == "own":
            seen.add(kernel_id(name))
        s = streams.setdefault(str(st), {"kernels": 0, "device_us": 0.0, "current": st == current})
        s["kernels"] += 1
        s["device_us"] = round(s["device_us"] + dur, 3)
        brief = {"name": name[:160], "stream": st, "dur_us": round(dur, 3)}
        if end_ts is not None:
            brief["end_after_end_marker_us"] = round(k["ts"] + dur - end_ts, 3)
        if st != current:
            other.append(brief)
            if end_ts is not None and k["ts"] + dur > end_ts:
                hidden.append(brief)
        if end_ts is not None and k["ts"] + dur > end_ts:
            after.append(brief)
        kind = reduced_kind(name) if origin != "own" else None   # own names are the
        if kind:                                                  # candidate's to choose
            reduced.setdefault(name[:160], kind)
    top = {}
    for k in kernels:
        top[k["name"]] = top.get(k["name"], 0.0) + float(k.get("dur", 0))
    ops = [e for e in events if e.get("cat") == "cpu_op"]
    graph = sum(1 for e in events if e.get("cat") in ("cuda_runtime", "cuda_driver")
                and "GraphLaunch" in e["name"])
    return {"kernels": len(kernels), "current_stream": current,
            "markers_found": start is not None and end is not None,
            "streams": streams, "other_stream": other[:20], "n_other_stream": len(other),
            "hidden": hidden[:20], "n_hidden": len(hidden),
            "after_end": after[:20], "n_after_end": len(after),
            "share": _share(times), "own_kernels_seen": sorted(seen),
            "top_kernels": [{"name": n[:160], "us": round(t, 3), "origin": kernel_origin(n, own_k)}
                            for n, t in sorted(top.items(), key=lambda x: -x[1])[:10]],
            "reduced": {"kernels": reduced, "ops": _reduced_ops(ops)},
            "graph_launches": graph}


_PYBIND = re.compile(r"^<built-in (?:method|function) (\w+) of (?:pybind11|PyCapsule)")


def _cpu_part(events, ann, own):
    w = ann.get("hr::call")
    t0 = w["ts"] if w else float("-inf")
    ops = [e for e in events if e.get("cat") == "cpu_op" and e["ts"] >= t0]
    top = _top_level(ops)
    funcs = set(own.get("functions", ()))
    own_calls = []
    for e in events:
        if e.get("cat") != "python_function" or e["ts"] < t0:
            continue
        m = _PYBIND.match(e["name"])
        if m and m.group(1) in funcs:
            own_calls.append(e)
    own_us, seen = 0.0, set()
    for f in own_calls:
        inner = sum(float(o.get("dur", 0)) for o in top
                    if o.get("tid") == f.get("tid") and _within(o, f))
        own_us += max(0.0, float(f.get("dur", 0)) - inner)
        seen.add(_PYBIND.match(f["name"]).group(1))
    times = {"aten": sum(float(o.get("dur", 0)) for o in top)}
    if own_us:
        times["own"] = own_us
    agg = {}
    for o in top:
        agg[o["name"]] = agg.get(o["name"], 0.0) + float(o.get("dur", 0))
    return {"ops": len(ops), "share": _share(times), "own_functions_seen": sorted(seen),
            "top_ops": [{"name": n, "us": round(t, 3)}
                        for n, t in sorted(agg.items(), key=lambda x: -x[1])[:10]],
            "streams": "not applicable on CPU",
            "reduced": {"kernels": {}, "ops": _reduced_ops(ops)}}


def _reduced_ops(ops):
    """ATen ops that took half or bfloat16 tensors (record_shapes' input
    types), by name."""
    out = {}
    for e in ops:
        types = e.get("args", {}).get("Input type") or ()
        if any(t in REDUCED_TYPES for t in types if isinstance(t, str)):
            out[e["name"]] = out.get(e["name"], 0) + 1
    return out


def _pass_findings(res, own, cuda):
    f = []
    if res.get("n_hidden"):
        f.append(finding(vocab.F_SIDE_STREAM, kernels=res["hidden"][:5], n=res["n_hidden"],
                         current_stream=res.get("current_stream"),
                         why="kernels on another stream were still running when the "
                             "current stream reached the end marker"))
    if res.get("n_after_end"):
        f.append(finding(vocab.F_WORK_AFTER_END_EVENT, kernels=res["after_end"][:5],
                         n=res["n_after_end"], source="profiled pass",
                         why="kernels ended after the end marker on the current stream"))
    sh = res.get("share", {})
    if sh.get("total_us") and not sh.get("by_origin_us", {}).get("own"):
        f.append(finding(vocab.F_NO_OWN_KERNEL, by_origin_us=sh["by_origin_us"],
                         own=own, why="none of the call's %s time was in the "
                         "candidate's own code" % ("kernel" if cuda else "host")))
    return f


def wall_trips(event_ms, wall_ms, factor=3.0, margin_ms=0.1):
    """wall_vs_event's rule for one call: wall > factor x event and wall -
    event > margin_ms (SOL-ExecBench's 3x; the margin covers the
    synchronize's own latency on short calls)."""
    return wall_ms > factor * event_ms and wall_ms - event_ms > margin_ms


def wall_vs_event(torch, call, factor=3.0, margin_ms=0.1, confirm=4):
    """Unprofiled calls: CUDA events on the current stream around each (as
    the timer records them) against the host's wall time from before the
    start event to after a device-wide synchronize.  work-after-end-event
    when the rule (wall_trips) holds for the first call and for each of
    confirm more: work the call leaves running past its end event does so
    every call, while a host stall (another process on the CPU, a page
    fault) lengthens the wall time of one call now and then, and a 10 us
    kernel needs only a 0.1 ms stall to trip the rule once.  The calls
    after the first run only when it trips."""
    if not torch.cuda.is_available():
        return {"applicable": False, "why": "needs CUDA (on CPU the timer is the wall clock)",
                "findings": []}

    def one():
        torch.cuda.synchronize()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0 = time.perf_counter_ns()
        start.record()
        out = call()
        end.record()
        end.synchronize()
        t_end = time.perf_counter_ns()
        torch.cuda.synchronize()
        t1 = time.perf_counter_ns()
        del out
        return start.elapsed_time(end), (t1 - t0) / 1e6, (t_end - t0) / 1e6

    ev, wall, wait = one()
    res = {"applicable": True, "event_ms": finite(ev), "wall_ms": finite(wall),
           "end_event_wait_ms": finite(wait),
           "rule": "wall > %g x event and wall - event > %g ms, on the first call and %d more"
                   % (factor, margin_ms, confirm),
           "findings": []}
    if not wall_trips(ev, wall, factor, margin_ms):
        return res
    res["confirm"] = []
    for _ in range(confirm):
        e, w = one()[:2]
        res["confirm"].append({"event_ms": finite(e), "wall_ms": finite(w)})
        if not wall_trips(e, w, factor, margin_ms):
            break
    else:
        res["findings"].append(finding(vocab.F_WORK_AFTER_END_EVENT, source="wall vs event",
                                       event_ms=finite(ev), wall_ms=finite(wall),
                                       calls=1 + confirm))
    return res
