"""The escape measurements (replay/hrworker/: kernels.py, profiled.py,
threads.py, precision.py, l2.py and cudadrv.py, cudagraph.py; escapes.py
runs them) and the clock sampler of replay/hrworker/nvml.py, called
directly (the job's use of them: test_worker_escapes_job.py).

On CPU: the profiled pass gives a C++ extension built with load_inline a
share of the call's time above 0 and a pure-torch call a share of 0 (with
no-own-kernel); own_names finds CUDA and Triton kernels in source text and
the extension's functions; a thread the call leaves running is found, one
it joins is not; the precision rule flags an fp16-computed matmul and not
an fp32 one computed in another order; lowered TF32 flags are found; the
L2 reset and the graph figure say "needs CUDA"; NVML says why it is absent
here, decodes throttle-reason bit masks with nvml.h's constants, and, on a
fake libnvidia-ml built here, samples clocks and marks throttled samples.
With HR_TEST_DEVICE=cuda (make gpu-check): the pass on a cuBLAS matmul
and on unjoined side-stream work, wall against event time, a persisting-L2
carve-out found and reset, the graph figure of an honest call and the
refusal of one that skips its work under capture, NVML on the real GPU.

Plain script: one line per check, exits non-zero on any failure.
"""
import ctypes
import os
import subprocess
import sys
import tempfile
import threading
import time

from workerlib import DEVICE, ROOT, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
import torch  # noqa: E402
from hrworker import (cudadrv, cudagraph, kernels, l2, nvml, precision,  # noqa: E402
                      profiled, threads)

CUDA = DEVICE == "cuda"

ROW_SUMS_CPP = r"""
#include <torch/extension.h>
torch::Tensor row_sums(torch::Tensor x) {
    auto xc = x.contiguous();
    auto out = torch::empty({xc.size(0)}, xc.options());
    const float *p = xc.data_ptr<float>();
    float *o = out.data_ptr<float>();
    int64_t rows = xc.size(0), cols = xc.size(1);
    for (int64_t r = 0; r < rows; r++) {
        float s = 0.0f;
        for (int64_t c = 0; c < cols; c++) s += p[r * cols + c];
        o[r] = s;
    }
    return out;
}
"""

CUDA_SOURCE = r"""
template <typename T>
__global__ void __launch_bounds__(256) scale_rows(const T *x, T *y, int n) { }
__global__ void plain(float *y) { }
extern "C" __global__
void k_extern_c(int n) { }
"""

TRITON_SOURCE = '''
@triton.jit
def add_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    pass

@triton.autotune(configs=[], key=["n"])
@triton.jit
def tuned_kernel(x_ptr):
    pass
'''


def own_names_tests():
    got = kernels.own_names(CUDA_SOURCE + TRITON_SOURCE)
    check(got["kernels"] == ["add_kernel", "k_extern_c", "plain", "scale_rows", "tuned_kernel"],
          "own_names finds __global__ (templated, launch-bounded, extern C) and "
          "@triton.jit kernels: %s" % got["kernels"])
    check(kernels.kernel_id("void scale_rows<float>(float const*, float*, int)") == "scale_rows"
          and kernels.kernel_id("ns::plain(float*)") == "plain",
          "kernel_id strips return type, namespace, template arguments and parameters")
    own = set(got["kernels"])
    cases = {
        "void scale_rows<float>(float const*, float*, int)": "own",
        "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32": "cublas",
        "nvjet_tst_128x128_64x4_1x2_h_bz_coopA_TNT": "cublas",
        "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float, float>()": "cudnn",
        "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float> >()":
            "aten",
        "triton_poi_fused_add_0": "triton",
        "some_kernel": "other",
    }
    bad = {n: kernels.kernel_origin(n, own) for n, want in cases.items()
           if kernels.kernel_origin(n, own) != want}
    check(not bad, "kernel_origin: own first, then cuBLAS, cuDNN, Triton, ATen, other (%s)" % bad)
    check(kernels.reduced_kind("sm90_xmma_gemm_f32f32_tf32f32_f32_tn") == "tf32"
          and kernels.reduced_kind("ampere_fp16_s16816gemm_fp16_128x128") == "half"
          and kernels.reduced_kind("void at::native::vectorized_elementwise_kernel<4, "
                                   "at::native::AddFunctor<c10::Half> >()") == "half"
          and kernels.reduced_kind("void at::native::reduce_kernel<512, 1>(float*)") is None,
          "reduced_kind reads tf32 and half/bf16 from kernel names, not plain fp32 ones")


def kernel_event(name, ts, dur, stream, corr):
    return {"ph": "X", "cat": "kernel", "name": name, "ts": ts, "dur": dur,
            "args": {"stream": stream, "correlation": corr}}


def launch_event(ts, corr, tid=1):
    return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": ts, "dur": 2,
            "tid": tid, "args": {"correlation": corr}}


def trace(side_end):
    """A profiled pass's events as torch writes them: the two markers on
    stream 7 (launched inside hr::start and hr::end), the candidate's own
    kernel on stream 7, and a cuBLAS kernel on stream 13 that ends at
    side_end (the end marker starts at 200)."""
    ann = [{"ph": "X", "cat": "user_annotation", "name": n, "ts": ts, "dur": d, "tid": 1}
           for n, ts, d in (("hr::start", 0, 10), ("hr::call", 10, 50), ("hr::end", 60, 10))]
    return ann + [
        launch_event(2, 100), launch_event(20, 101), launch_event(30, 102), launch_event(62, 103),
        kernel_event("void at::native::vectorized_elementwise_kernel<4, FillFunctor<float> >()",
                     5, 2, 7, 100),
        kernel_event("row_sums_kernel(float const*, float*, long, long)", 25, 150, 7, 101),
        kernel_event("sm90_xmma_gemm_f32f32_f32f32_f32_nn_n", 35, side_end - 35, 13, 102),
        kernel_event("void at::native::vectorized_elementwise_kernel<4, FillFunctor<float> >()",
                     200, 2, 7, 103)]


def trace_tests():
    own = {"kernels": ["row_sums_kernel"], "functions": [], "modules": []}
    r = profiled.trace_evidence(trace(side_end=900), own, True)
    ids = sorted(f["id"] for f in r["findings"])
    check(r["markers_found"] and r["current_stream"] == 7 and r["kernels"] == 2,
          "the markers are found by correlation, their stream is the current one, and "
          "they are not the call's kernels")
    check(ids == ["side-stream", "work-after-end-event"]
          and r["streams"]["13"] == {"kernels": 1, "device_us": 865.0, "current": False},
          "a kernel on stream 13 ending after the end marker: side-stream and "
          "work-after-end-event, and the streams table says so (%s)" % ids)
    share = r["share"]
    check(abs(share["own_share"] - 150 / 1015) < 1e-9 and share["by_origin_us"]["cublas"] == 865,
          "the own share is own kernel time over all kernel time: %s" % share)
    r = profiled.trace_evidence(trace(side_end=150), own, True)
    check(r["findings"] == [] and r["n_other_stream"] == 1,
          "the same kernel ending before the end marker (a joined stream) is listed, "
          "not a finding")
    r = profiled.trace_evidence(trace(side_end=150), {"kernels": []}, True)
    check([f["id"] for f in r["findings"]] == ["no-own-kernel"],
          "without an own kernel in the call: no-own-kernel")


def build_extension():
    from torch.utils.cpp_extension import load_inline
    t0 = time.monotonic()
    ext = load_inline(name="hr_test_escapes_row_sums", cpp_sources=ROW_SUMS_CPP,
                      functions=["row_sums"], verbose=False)
    print("# extension ready in %.1f s" % (time.monotonic() - t0))
    return ext


def profiled_pass_tests(ext):
    x = torch.rand(256, 4096)
    own = kernels.own_names(ROW_SUMS_CPP, modules=[ext])
    check(own["functions"] == ["row_sums"] and own["modules"] == [ext.__name__],
          "own_names lists the extension module's function")
    # One unprofiled call first, as candidate_pass's warm-up: the first
    # ATen op of a process can start its thread pool inside the call
    # (aten read 4.0 ms against own 2.8 ms once, a share of 0.41).
    ext.row_sums(x) * 2.0
    with tempfile.TemporaryDirectory() as tmp:
        p = profiled.profiled_pass(torch, lambda: ext.row_sums(x) * 2.0, own, False, tmp)
        leftover = os.listdir(tmp)
    share = p["share"]["own_share"]
    check(share is not None and share > 0.5,
          "a C++ extension's row sums hold most of the call's time (own share %s, %s)"
          % (share, p["share"]["by_origin_us"]))
    check(p["own_functions_seen"] == ["row_sums"], "and the pass names the function it saw")
    check("no-own-kernel" not in [f["id"] for f in p["findings"]],
          "no no-own-kernel finding for it")
    check(leftover == [], "the trace file is removed after the pass")
    q = profiled.profiled_pass(torch, lambda: x.sum(dim=1) * 2.0, own, False)
    check(q["share"]["own_share"] == 0.0 and q["share"]["total_us"] > 0,
          "a pure-torch call's own share is 0 (%s)" % q["share"]["by_origin_us"])
    ids = [f["id"] for f in q["findings"]]
    check(ids == ["no-own-kernel"], "and it raises no-own-kernel alone: %s" % ids)
    h = profiled.profiled_pass(torch, lambda: (x.half() * 2).float(), own, False)
    check(h["reduced"]["ops"], "the pass lists ops that took half tensors: %s" % h["reduced"]["ops"])
    e = profiled.profiled_pass(torch, lambda: ext.row_sums(x.double()), own, False)
    check("error" in e and "share" not in e,
          "a call that raises gives its error, not a share: %s" % e.get("error", "")[:80])


def thread_tests():
    done = threading.Event()

    def leaves_thread():
        t = threading.Thread(target=done.wait, name="late-writer", daemon=True)
        t.start()
        return 1

    def joins_thread():
        t = threading.Thread(target=lambda: None, name="joined")
        t.start()
        t.join()
        return 2

    _, ev = threads.thread_check(leaves_thread, warmup=0)
    ids = [f["id"] for f in ev["findings"]]
    check(ids == ["background-thread"] and ev["started_alive"][0]["name"] == "late-writer",
          "a thread left alive after the call is found, by name: %s" % ev["started_alive"])
    check(ev["python_after"] == ev["python_before"] + 1
          and ev["tasks_after"] == ev["tasks_before"] + 1,
          "its counts before and after differ by one (Python %d -> %d, tasks %s -> %s)"
          % (ev["python_before"], ev["python_after"], ev["tasks_before"], ev["tasks_after"]))
    done.set()
    time.sleep(0.05)
    out, ev = threads.thread_check(joins_thread)
    check(out == 2 and ev["findings"] == [] and ev["native_started_alive"] == [],
          "a thread the call joins is not a finding (its task may still be leaving at "
          "the return: tasks %s -> %s)" % (ev["tasks_before"], ev["tasks_after"]))
    # A native thread, as a C extension's std::thread would be: no Python
    # Thread object, only a task in /proc/self/task.
    libc = ctypes.CDLL(None)
    body = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)(lambda _: time.sleep(0.3))

    def native_call():
        tid = ctypes.c_ulong()
        libc.pthread_create(ctypes.byref(tid), None, body, None)
        libc.pthread_detach(tid)
        return 3

    _, ev = threads.thread_check(native_call, warmup=0)
    check([f["id"] for f in ev["findings"]] == ["background-thread"]
          and ev["started_alive"] == [] and len(ev["native_started_alive"]) == 1,
          "a native thread left running is found by its task alone: %s"
          % ev["native_started_alive"])
    time.sleep(0.4)
    snap = threads.host_threads()
    check(snap["tasks"] is not None and os.getpid() in snap["tasks"],
          "host_threads reads /proc/self/task (the main thread's id is the pid)")


def precision_tests():
    g = torch.Generator().manual_seed(7)
    a = torch.randn(256, 1024, generator=g)
    b = torch.randn(1024, 256, generator=g)
    ref32 = a @ b
    ref64 = a.double() @ b.double()
    half = (a.half() @ b.half()).float() if not CUDA else (a.cuda().half() @ b.cuda().half()).float().cpu()
    chunked = sum(a[:, i:i + 128] @ b[i:i + 128] for i in range(0, 1024, 128))
    r = precision.precision_check(torch, half, ref32, ref64, flags_before={}, flags_at_call={})
    check(r["applicable"] and [f["id"] for f in r["findings"]] == ["precision-downgrade"],
          "an fp16-computed matmul is a precision downgrade (error %.3g, fp32 reference %.3g)"
          % (r["candidate_err"], r["reference_err"]))
    r = precision.precision_check(torch, chunked, ref32, ref64, flags_before={}, flags_at_call={})
    check(r["findings"] == [] and r["candidate_err"] < r["limit"],
          "an fp32 matmul summed in another order is not (error %.3g, limit %.3g)"
          % (r["candidate_err"], r["limit"]))
    # A mean of a ramp's 2^21 terms added in sequence with one float
    # accumulator (numpy's cumsum), as a plain C loop adds it: fp32 all
    # through, its error far beyond torch's pairwise sum's and 2^-16 (a
    # downgrade without the inputs), within what sequential adding loses.
    import numpy as np
    x = torch.linspace(0, 1, 1 << 21) + torch.rand(1 << 21, generator=g) * 1e-3   # a ramp
    seq = torch.tensor(np.cumsum(x.numpy(), dtype=np.float32)[-1] / np.float32(x.numel()))
    m32, m64 = x.mean(), x.double().mean()
    r = precision.precision_check(torch, seq, m32, m64, {}, {}, inputs=[x])
    plain = precision.precision_check(torch, seq, m32, m64, {}, {})
    check(r["findings"] == [] and r["sequential_sum_allowance"] > r["candidate_err"]
          and r["candidate_err"] > 32 * r["reference_err"] and plain["findings"],
          "a mean added in sequence in fp32 is no downgrade: its error %.3g is %.0fx torch's, "
          "within the sequential-sum allowance %.3g of 2^21 terms (without the inputs, limit "
          "%.3g: %s)" % (r["candidate_err"], r["candidate_err"] / max(r["reference_err"], 1e-30),
                         r["sequential_sum_allowance"], plain["limit"],
                         [f["id"] for f in plain["findings"]]))
    check(precision.fp32_allowance(torch, [a, b], ref32) < 2 ** -16
          and precision.fp32_allowance(torch, [x], m32) == precision.SUM_CAP,
          "the allowance: a 256x1024 @ 1024x256 matmul's inputs over its output, 8 terms "
          "(%.3g); a mean of 2^21, capped at 2^-7" % precision.fp32_allowance(torch, [a, b], ref32))
    r = precision.precision_check(torch, torch.zeros_like(ref32), ref32, ref64, {}, {})
    check(r["applicable"] and not r["findings"] and r.get("beyond_precision"),
          "zeros are a wrong output, not a precision downgrade: %s" % r.get("beyond_precision"))
    r = precision.precision_check(torch, ref32.half(), ref32.half(), ref64)
    check(not r["applicable"], "a half-precision problem is not checked: %s" % r.get("why"))
    before = precision.precision_flags(torch)
    check("matmul.allow_tf32" in before and "float32_matmul_precision" in before,
          "precision_flags reads the TF32 settings: %s" % sorted(before))
    old = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("high")
    try:
        at_call = precision.precision_flags(torch)
    finally:
        torch.set_float32_matmul_precision(old)
    r = precision.precision_check(torch, chunked, ref32, ref64, before, at_call)
    low = r.get("flags_lowered", {})
    check([f["id"] for f in r["findings"]] == ["precision-downgrade"]
          and "float32_matmul_precision" in low,
          "a candidate that sets float32_matmul_precision('high') is one, by the flag: %s" % low)
    check(precision.flags_lowered(None, {"cudnn.allow_tf32": True}) == {},
          "cuDNN's TF32 default (on) is not the candidate's doing")
    prof = {"reduced": {"kernels": {"sm90_xmma_gemm_f32f32_tf32f32_f32": "tf32"}, "ops": {}}}
    r = precision.precision_check(torch, chunked, ref32, ref64, {}, {}, profile=prof,
                                baseline_reduced={"kernels": {}, "ops": {}})
    r2 = precision.precision_check(torch, chunked, ref32, ref64, {}, {}, profile=prof,
                                 baseline_reduced=prof["reduced"])
    check(r["findings"] and not r2["findings"],
          "a TF32 kernel name counts unless the reference's pass ran it too")
    check(precision.rel_err(torch.zeros(3), torch.zeros(3, dtype=torch.float64)) == 0.0
          and precision.rel_err(torch.ones(3), torch.zeros(3, dtype=torch.float64)) == float("inf"),
          "rel_err's 0/0 is 0 and x/0 is inf")
    model = torch.nn.Linear(8, 4)
    out64 = precision.reference_fp64(torch, model, [torch.randn(2, 8)])
    check(out64.dtype == torch.float64 and model.weight.dtype == torch.float32,
          "reference_fp64 runs a float64 copy and leaves the model alone")


class StallingCuda:
    """A stand-in for torch.cuda in wall_vs_event: every event pair reads
    event_ms; the synchronize after call i (from 0) sleeps stall_s when i
    is in stalls (a host stall after the end event, which lengthens the
    wall time and not the events')."""

    def __init__(self, event_ms, stall_s, stalls):
        self.event_ms, self.stall_s, self.stalls, self.syncs = event_ms, stall_s, stalls, 0
        outer = self

        class Event:
            def __init__(self, enable_timing=False):
                pass

            def record(self):
                pass

            def synchronize(self):
                pass

            def elapsed_time(self, other):
                return outer.event_ms

        self.Event = Event

    @staticmethod
    def is_available():
        return True

    def synchronize(self):
        call, after = divmod(self.syncs, 2)   # one before each call, one after
        self.syncs += 1
        if after and call in self.stalls:
            time.sleep(self.stall_s)


def wall_tests():
    """wall_vs_event's rule and its confirmation, over a stand-in torch.cuda
    (the GPU side runs in cuda_tests)."""
    check(profiled.wall_trips(0.01, 0.2) and not profiled.wall_trips(0.01, 0.1)
          and not profiled.wall_trips(1.0, 2.9) and profiled.wall_trips(1.0, 3.2),
          "the rule: wall over 3x event and 0.1 ms past it")

    def run(stalls):
        fake = type("T", (), {})()
        fake.cuda = StallingCuda(0.01, 0.005, stalls)
        return profiled.wall_vs_event(fake, lambda: None), fake.cuda

    w, c = run(set())
    check(w["applicable"] and not w["findings"] and "confirm" not in w and c.syncs == 2,
          "no stall: one call, nothing found (%s ms against %s)" % (w["wall_ms"], w["event_ms"]))
    w, c = run({0})
    check(w["wall_ms"] > 5 and not w["findings"] and len(w["confirm"]) == 1 and c.syncs == 4,
          "a host stall after the first call's end event: one more call, clean, "
          "so no work-after-end-event (%s)" % w.get("confirm"))
    w, c = run({0, 1, 2, 3})
    check(not w["findings"] and len(w["confirm"]) == 4,
          "stalls on four calls of five: not found (%s)" % len(w.get("confirm", ())))
    w, c = run(set(range(5)))
    check([f["id"] for f in w["findings"]] == ["work-after-end-event"]
          and w["findings"][0]["evidence"]["calls"] == 5 and c.syncs == 10,
          "the wall outlasting the events on every call of five: work-after-end-event (%s)"
          % w["findings"])


def cpu_only_tests():
    r = l2.l2_reset(torch)
    check(not r["applicable"] and "needs CUDA" in r["why"] and r["findings"] == [],
          "the L2 reset on CPU: not applicable (%s)" % r["why"])
    g = cudagraph.graph_timing(torch, lambda x: x * 2, [torch.ones(3)])
    check(not g["captured"] and g["why"] == "needs CUDA", "the graph figure on CPU: needs CUDA")
    w = profiled.wall_vs_event(torch, lambda: None)
    check(not w["applicable"], "wall against event time on CPU: not applicable")


def cuda_tests():
    """make gpu-check: the pass, the L2 reset and the graph figure on the GPU,
    with torch's own kernels (the planted GPU suite, built kernels and all,
    is tests/gpu/escapes_probe.py)."""
    a = torch.randn(2048, 2048, device="cuda")
    none = kernels.own_names("")
    p = profiled.profiled_pass(torch, lambda: a @ a, none, True)
    check(p["markers_found"] and p["n_other_stream"] == 0 and p["share"]["own_share"] == 0.0
          and [f["id"] for f in p["findings"]] == ["no-own-kernel"],
          "a cuBLAS matmul on the current stream: markers found, no other stream, "
          "no own kernel (%s)" % p["share"]["by_origin_us"])
    side = torch.cuda.Stream()

    def unjoined():
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(20):
                b = a @ a
        return b

    p = profiled.profiled_pass(torch, unjoined, none, True)
    ids = sorted(f["id"] for f in p["findings"])
    check("side-stream" in ids and "work-after-end-event" in ids,
          "20 matmuls on an unjoined stream: side-stream and work-after-end-event (%s)" % ids)
    torch.cuda.synchronize()
    w = profiled.wall_vs_event(torch, unjoined)
    check(w["applicable"] and [f["id"] for f in w["findings"]] == ["work-after-end-event"]
          and len(w["confirm"]) == 4,
          "and the wall clock outlasts the events, on all five calls (%s ms against %s)"
          % (w["wall_ms"], w["event_ms"]))
    torch.cuda.synchronize()
    # The baseline, as the candidate process takes it before any candidate
    # code: a context may start with a carve-out (11,796,480 bytes on the
    # H200 in every new context), which is the machine's, not a finding.
    base = l2.l2_note(torch, "start")
    r = l2.l2_reset(torch)
    check(r["applicable"] and r["findings"] == [] and r["limit_after_reset"] == 0
          and r["baseline_limit_bytes"] == (base or 0),
          "no persisting L2 set: nothing found (limit %s, baseline %s, window %s), reset to 0"
          % (r["limit_bytes"], base, r["window"]))
    drv = cudadrv.CudaDriver()
    mx = r["max_persisting_bytes"] or 0
    if mx:
        drv.lib.cuCtxSetLimit(cudadrv.CU_LIMIT_PERSISTING_L2_CACHE_SIZE, ctypes.c_size_t(mx))
        r = l2.l2_reset(torch)
        check([f["id"] for f in r["findings"]] == ["l2-persisting"] and r["limit_after_reset"] == 0,
              "a carve-out of %d bytes is found, then reset to 0" % mx)
    else:
        print("skip: this GPU has no persisting L2")
    x = torch.randn(1 << 20, device="cuda")
    g = cudagraph.graph_timing(torch, lambda t: t * 2 + 1, [x],
                             refill=lambda xs: xs[0].copy_(torch.randn_like(xs[0])))
    check(g["captured"] and g["ms_median"] > 0 and g["n"] == cudagraph.GRAPH_REPS,
          "an elementwise call's graph figure: %s ms, all %s replays inside the budget"
          % (g.get("ms_median"), g.get("n")))
    g = cudagraph.graph_timing(torch, lambda t: t * 2 + 1, [x], budget_ms=0.0, min_reps=5)
    check(g["captured"] and g["n"] == 5 and g["budget_ms"] == 0.0,
          "the budget spent: the graph figure stops at its least replays (%s)" % g.get("n"))
    cache = {}

    def skips_under_capture(t):
        if torch.cuda.is_current_stream_capturing():
            return cache.setdefault("out", torch.zeros_like(t))
        return t * 2 + 1

    g = cudagraph.graph_timing(torch, skips_under_capture, [x],
                             refill=lambda xs: xs[0].copy_(torch.randn_like(xs[0])))
    check(not g["captured"] and g.get("refused"), "a call that skips its work under capture "
          "is refused: %s" % g.get("why"))
    n, why = nvml.open_device(pci_bus_id=nvml.torch_pci_bus_id(torch))
    if n is None:
        print("skip: NVML on this GPU: %s" % why)
    else:
        smp = n.sample()
        check(smp["sm_mhz"] and smp["reasons"] is not None, "NVML reads this GPU: %s" % smp)
        n.close()


FAKE_NVML = r"""
/* A stand-in for libnvidia-ml.so.1: one device at 1980/2619 MHz whose
 * reasons word is taken from $FAKE_NVML_REASONS on every query. */
#include <stdlib.h>
typedef struct dev *nvmlDevice_t;
static int the_dev;
int nvmlInit_v2(void) { return 0; }
int nvmlShutdown(void) { return 0; }
int nvmlDeviceGetCount_v2(unsigned *n) { *n = 1; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, nvmlDevice_t *d)
{ if (i) return 2; *d = (nvmlDevice_t)&the_dev; return 0; }
int nvmlDeviceGetHandleByPciBusId_v2(const char *id, nvmlDevice_t *d)
{ (void)id; *d = (nvmlDevice_t)&the_dev; return 0; }
int nvmlDeviceGetName(nvmlDevice_t d, char *b, unsigned n)
{ (void)d; if (n > 5) { b[0]='F'; b[1]='a'; b[2]='k'; b[3]='e'; b[4]=0; } return 0; }
int nvmlDeviceGetClockInfo(nvmlDevice_t d, int type, unsigned *mhz)
{ (void)d; *mhz = type == 1 ? 1980 : type == 2 ? 2619 : 0; return 0; }
int nvmlDeviceGetMaxClockInfo(nvmlDevice_t d, int type, unsigned *mhz)
{ (void)d; *mhz = type == 1 ? 1980 : 2619; return 0; }
int nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *r)
{ const char *s = getenv("FAKE_NVML_REASONS"); (void)d;
  *r = s ? strtoull(s, 0, 0) : 0; return 0; }
const char *nvmlErrorString(int rc) { return rc ? "Fake error" : "Success"; }
"""


def nvml_tests():
    check(nvml.decode(0) == [] and nvml.decode(0x1) == ["gpu_idle"]
          and nvml.decode(0x4 | 0x40) == ["sw_power_cap", "hw_thermal_slowdown"]
          and nvml.decode(0x1000) == ["unknown_0x1000"],
          "decode names nvml.h's bits (0x4 SwPowerCap, 0x40 HwThermalSlowdown) and "
          "keeps unknown ones")
    check([nvml.throttled(m) for m in (0, 0x1, 0x2, 0x10, 0x100, 0x4, 0x8, 0x20, 0x40, 0x80)]
          == [False] * 5 + [True] * 5,
          "throttled: power cap, HW slowdown, SW/HW thermal, power brake; not idle, "
          "applications clocks, sync boost or display")
    n, why = nvml.open_device(library="/nonexistent/libnvidia-ml.so.1")
    check(n is None and "libnvidia-ml" in why, "a missing library: None and why (%s)" % why)
    if not CUDA:
        n, why = nvml.open_device()
        check(n is None and why, "on this machine: None, because %s" % why)
        s = nvml.Sampler(None, why)
        out = s.around(lambda: 5)
        check(out == 5 and s.summary() == {"available": False, "why": why},
              "a sampler without NVML still runs the call and says why it has no samples")
    with tempfile.TemporaryDirectory() as tmp:
        src, lib = os.path.join(tmp, "fake.c"), os.path.join(tmp, "libfake-nvml.so")
        with open(src, "w") as f:
            f.write(FAKE_NVML)
        rc = subprocess.run(["cc", "-shared", "-fPIC", "-o", lib, src],
                            capture_output=True, text=True)
        if rc.returncode:
            print("skip: no C compiler for the fake NVML:", rc.stderr[-300:])
            return
        n, why = nvml.open_device(index=0, library=lib)
        check(n is not None and why is None and n.name == "Fake",
              "the fake NVML opens through ctypes (%s)" % why)
        os.environ["FAKE_NVML_REASONS"] = "0x1"
        smp = n.sample()
        check(smp["sm_mhz"] == 1980 and smp["mem_mhz"] == 2619 and smp["reasons"] == ["gpu_idle"]
              and not smp["throttled"], "a sample reads SM and memory clocks and the reasons")
        s = nvml.Sampler(n)
        for mask in ("0x0", "0x4", "0x0", "0x40"):
            os.environ["FAKE_NVML_REASONS"] = mask
            s.around(lambda: None)
        del os.environ["FAKE_NVML_REASONS"]
        summ = s.summary()
        check(summ["n"] == 4 and summ["throttled"] == [1, 3]
              and summ["throttle_reasons"] == {"sw_power_cap": 1, "hw_thermal_slowdown": 1},
              "the sampler marks samples 1 and 3 throttled: %s" % summ)
        kept, dropped = s.keep([1.0, 9.0, 1.1, 8.0])
        check(kept == [1.0, 1.1] and dropped == 2, "keep drops the throttled calls' times")
        n.close()


def main():
    own_names_tests()
    trace_tests()
    precision_tests()
    thread_tests()
    nvml_tests()
    wall_tests()
    if CUDA:
        cuda_tests()
        print("skip: the CPU extension's share (this run is on CUDA)")
    else:
        cpu_only_tests()
        profiled_pass_tests(build_extension())


if __name__ == "__main__":
    main()
