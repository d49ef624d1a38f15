"""Cross-check of headroom's original check against torch.isclose / allclose.

For random tensors of every supported dtype (fp32, fp16, bf16, int32, int64,
bool) and several tolerances, the verify library must give the same verdict
as torch.allclose(ref, cand, atol, rtol, equal_nan), the same number of
violations as (~torch.isclose(...)).sum() and the same first violation.
Values are drawn so that many pairs sit at the tolerance boundary, where
fp16/bf16 rounding decides.  The library is loaded through ctypes
(build/libhrverify.so and build/libhrverify_skip.so, the CPU with the
GPU's skip filters; or the ':'-separated $HRV_LIB); a subset also goes
through `$HEADROOM verify --format json` on .npy files written here.  The
fp64 maxima (max abs/rel error, max excess, ref extremes) must equal
torch's in fp64 bit for bit.

HRV_TORCH_DEVICE=cuda (with HRV_LIB=build/libhrverify_cuda.so) runs the
tensors on the GPU: torch.isclose on CUDA, the library on device pointers.

Plain script: prints "ok: ..." per check that holds (a build's dtype and
size against torch, a noise case, a multi-row case across builds),
"FAIL: ..." per mismatch (the first twenty of a build), a closing line
per part, and exits non-zero on any mismatch.
"""
import ctypes
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEVICE = os.environ.get("HRV_TORCH_DEVICE", "cpu")
LIBS = os.environ.get("HRV_LIB", ":".join(
    os.path.join(ROOT, "build", f) for f in ("libhrverify.so", "libhrverify_skip.so"))).split(":")

F32, F16, BF16, I32, I64, BOOL = range(6)
TORCH_DTYPES = {F32: torch.float32, F16: torch.float16, BF16: torch.bfloat16,
                I32: torch.int32, I64: torch.int64, BOOL: torch.bool}
NAMES = {F32: "fp32", F16: "fp16", BF16: "bf16", I32: "int32", I64: "int64",
         BOOL: "bool"}


class Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("shape", ctypes.c_int64 * 8),
                ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("on_device", ctypes.c_int32), ("pad_", ctypes.c_int32)]


class Opts(ctypes.Structure):
    _fields_ = [(n, ctypes.c_double) for n in
                ("atol", "rtol", "si_rtol", "si_alpha", "si_row_alpha", "si_tau")] + \
               [("poison_bits", ctypes.c_uint64), ("equal_nan", ctypes.c_int32),
                ("have_poison", ctypes.c_int32), ("torch_cpu", ctypes.c_int32),
                ("pad_", ctypes.c_int32)]


_U, _I, _D, _S = ctypes.c_uint64, ctypes.c_int64, ctypes.c_double, ctypes.c_int32


class Result(ctypes.Structure):
    _fields_ = [("n", _U), ("row_len", _U), ("n_rows", _U),
                ("n_violations", _U), ("first_violation", _I),
                ("max_abs_err", _D), ("max_rel_err", _D),
                ("n_nan_ref", _U), ("n_nan_cand", _U), ("n_inf_ref", _U),
                ("n_inf_cand", _U), ("n_nonfinite_mismatch", _U),
                ("first_nonfinite_mismatch", _I),
                ("ref_rms", _D), ("normwise_rel_err", _D), ("si_threshold", _D),
                ("si_max_excess", _D), ("si_violations", _U),
                ("si_first_violation", _I), ("row_violations", _U),
                ("row_first_violation", _I), ("rows_failed", _U),
                ("ref_amax", _D), ("ref_min", _D), ("ref_max", _D),
                ("ref_mean", _D), ("const_value", _D), ("margin", _D),
                ("n_poison", _U), ("poison_fraction", _D)] + \
               [(n, _S) for n in ("allclose_pass", "nonfinite_pass", "normwise_pass",
                                  "si_pass", "row_pass", "scale_invariant_pass",
                                  "gate_zero_pass", "gate_const_pass", "vacuous",
                                  "dtype")]


def load_lib(path):
    if not os.path.exists(path) and path.startswith(os.path.join(ROOT, "build")):
        subprocess.run(["make", "-s", "-C", ROOT, os.path.relpath(path, ROOT)],
                       check=True, stdout=subprocess.DEVNULL)
    lib = ctypes.CDLL(path)
    lib.hrv_check.argtypes = [ctypes.POINTER(Tensor), ctypes.POINTER(Tensor),
                              ctypes.POINTER(Opts), ctypes.POINTER(Result)]
    lib.hrv_opts_default.argtypes = [ctypes.POINTER(Opts), ctypes.c_int]
    lib.hrv_sizeof_result.restype = ctypes.c_uint64
    lib.hrv_sizeof_opts.restype = ctypes.c_uint64
    lib.hrv_sizeof_tensor.restype = ctypes.c_uint64
    assert lib.hrv_abi_version() == 1
    assert lib.hrv_sizeof_result() == ctypes.sizeof(Result)
    assert lib.hrv_sizeof_opts() == ctypes.sizeof(Opts)
    assert lib.hrv_sizeof_tensor() == ctypes.sizeof(Tensor)
    return lib


def as_tensor(t, dt):
    s = Tensor()
    s.data = t.data_ptr()
    s.dtype = dt
    s.ndim = t.dim()
    for i, d in enumerate(t.shape):
        s.shape[i] = d
    s.on_device = 1 if t.is_cuda else 0
    return s


def run_check(lib, r, c, dt, **opts):
    """hrv_check(r, c) with the dtype's default options changed by opts;
    returns (status, options, result)."""
    o, res = Opts(), Result()
    lib.hrv_opts_default(ctypes.byref(o), dt)
    for k, v in opts.items():
        setattr(o, k, v)
    rt, ct = as_tensor(r, dt), as_tensor(c, dt)
    rc = lib.hrv_check(ctypes.byref(rt), ctypes.byref(ct), ctypes.byref(o), ctypes.byref(res))
    return rc, o, res


def gen(dt, n, g):
    """A reference and a candidate with many pairs near the boundary."""
    if dt in (F32, F16, BF16):
        mag = torch.pow(10.0, torch.randint(-6, 3, (n,), generator=g).double())
        ref = torch.randn(n, generator=g, dtype=torch.float64) * mag
        kind = torch.randint(0, 6, (n,), generator=g)
        noise = torch.randn(n, generator=g, dtype=torch.float64)
        tol = 10.0 ** torch.randint(-5, -1, (n,), generator=g).double()
        cand = ref.clone()
        cand = torch.where(kind == 0, ref + noise * tol * (1 + ref.abs()), cand)
        cand = torch.where(kind == 1, ref * (1 + noise * tol), cand)
        cand = torch.where(kind == 2, ref + noise * 1e-2, cand)
        cand = torch.where(kind == 3, torch.zeros_like(ref), cand)
        cand = torch.where(kind == 4, -ref, cand)
        r = ref.to(TORCH_DTYPES[dt])
        c = cand.to(TORCH_DTYPES[dt])
        # special values in both
        sp = torch.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -0.0,
                           1e-30, 65504.0, 3.0e38], dtype=torch.float64)
        for x in (r, c):
            idx = torch.randint(0, n, (max(1, n // 50),), generator=g)
            x[idx] = sp[torch.randint(0, len(sp), idx.shape, generator=g)].to(x.dtype)
        return r, c
    if dt == BOOL:
        r = torch.randint(0, 2, (n,), generator=g).bool()
        c = torch.where(torch.rand(n, generator=g) < 0.1, ~r, r)
        return r, c
    hi = 2 ** 31 - 1 if dt == I32 else 2 ** 62
    scale = torch.randint(0, 3, (n,), generator=g)
    base = torch.randint(-1000, 1000, (n,), generator=g, dtype=torch.int64)
    big = torch.randint(-hi, hi, (n,), generator=g, dtype=torch.int64)
    r = torch.where(scale == 0, base, big)
    d = torch.randint(-3, 4, (n,), generator=g, dtype=torch.int64)
    d = torch.where(scale == 2, d * 2 ** 20 if dt == I64 else d * 64, d)
    c = r + torch.where(torch.rand(n, generator=g) < 0.5, d, torch.zeros_like(d))
    if dt == I32:
        c = c.clamp(-2 ** 31, 2 ** 31 - 1)
    return r.to(TORCH_DTYPES[dt]), c.to(TORCH_DTYPES[dt])


def gen_noise(dt, n, rel, g):
    """ref ~ N(0, 1); cand = ref * (1 + u * rel * si_rtol), u uniform in
    (-1, 1): relative errors spread up to rel times the dtype's si_rtol."""
    si = {F32: 1e-4, F16: 1e-2, BF16: 0.015625}[dt]
    ref = torch.randn(n, generator=g, dtype=torch.float64)
    u = torch.rand(n, generator=g, dtype=torch.float64) * 2 - 1
    cand = ref * (1 + u * rel * si)
    return ref.to(TORCH_DTYPES[dt]), cand.to(TORCH_DTYPES[dt])


def gen_abs_noise(dt, n, g):
    """ref ~ 100 N(0, 1); cand = ref + u, u uniform in (-1, 1): fine-grained
    absolute errors (few ties).  Checked with atol = rtol = 10 and
    si_rtol = 1000, so every pair is close and no excess or relative error
    can count: the max-abs filter alone decides."""
    ref = (torch.randn(n, generator=g, dtype=torch.float64) * 100).to(TORCH_DTYPES[dt])
    u = torch.rand(n, generator=g, dtype=torch.float64) * 2 - 1
    return ref, (ref.double() + u).to(TORCH_DTYPES[dt])


def gen_tied(dt, n, g, low):
    """Many pairs tie the largest |cand - ref| (skip filters must not drop
    a tie that counts, nor send one that changes nothing to the slow
    path).  low=False: ref uniform in (-1, 1), cand = ref * (1 + e) in the
    dtype (fp32: e = 2^-20, a few percent of the pairs share |d| = 2^-20,
    as in tests/gpu/verify_bench_gpu.cu).  low=True: ties in fl32(|d|) that
    are not ties in |d|: a tenth of ref = 1.9375 (the largest), the rest in
    [1.25, 1.9375), cand = -u 2^-30, so |d| = ref + u 2^-30 differs below
    float precision (and in the low word of its double); a hundredth ref =
    0.25, cand = -0.5 (the largest relative error, so that the relative
    filter passes the others).  Checked with atol = 4, rtol = 1, si_rtol =
    1000: every pair close, no excess counts."""
    if not low:
        e = {F32: 2.0 ** -20, F16: 2.0 ** -8, BF16: 2.0 ** -7}[dt]
        ref = (torch.rand(n, generator=g, dtype=torch.float32) * 2 - 1).to(TORCH_DTYPES[dt])
        return ref, ref * e + ref
    k = torch.randint(0, 11 * 2 ** 19, (n,), generator=g, dtype=torch.int64)
    u = torch.rand(n, generator=g, dtype=torch.float64)
    w = torch.rand(n, generator=g, dtype=torch.float64)
    ref = 1.25 + k.double() * 2.0 ** -23
    ref = torch.where(w < 0.11, torch.full_like(ref, 1.9375), ref)
    ref = torch.where(w < 0.01, torch.full_like(ref, 0.25), ref)
    cand = torch.where(w < 0.01, torch.full_like(ref, -0.5), -u * 2.0 ** -30)
    return ref.to(TORCH_DTYPES[dt]), cand.to(TORCH_DTYPES[dt])


TOLS = [(1e-2, 1e-2), (1e-4, 1e-4), (0.0, 0.0), (1e-2, 0.0), (0.0, 1e-2),
        (1e-8, 1e-5), (0.5, 0.25), (1e-3, 1.6e-2)]


def torch_truth(r, c, atol, rtol, equal_nan):
    close = torch.isclose(r, c, rtol=rtol, atol=atol, equal_nan=equal_nan).reshape(-1)
    bad = (~close).nonzero()
    first = int(bad[0, 0]) if bad.numel() else -1
    return (bool(torch.allclose(r, c, rtol=rtol, atol=atol, equal_nan=equal_nan)),
            int((~close).sum()), first)


def fp64_maxima(r, c, si_rtol, res):
    """(name, library value, torch value) of the maxima the library
    computes in fp64: |cand - ref|, |cand - ref| / |ref| (ref != 0),
    max(0, |cand - ref| - si_rtol * |ref|), and the finite ref extremes."""
    rd, cd = r.double(), c.double()
    fin = torch.isfinite(rd) & torch.isfinite(cd)
    ad, ar = (cd - rd)[fin].abs(), rd[fin].abs()
    nz = ar != 0
    rfin = rd[torch.isfinite(rd)]

    def mx(t, floor=0.0):
        return max(floor, float(t.max())) if t.numel() else floor
    return [("max_abs_err", res.max_abs_err, mx(ad)),
            ("max_rel_err", res.max_rel_err, mx(ad[nz] / ar[nz])),
            ("si_max_excess", res.si_max_excess, mx(ad - si_rtol * ar)),
            ("ref_min", res.ref_min, float(rfin.min()) if rfin.numel() else 0.0),
            ("ref_max", res.ref_max, float(rfin.max()) if rfin.numel() else 0.0)]


def npy_save(path, t, dt):
    a = t.cpu()
    if dt == BF16:
        np.save(path, a.view(torch.int16).numpy().view("<u2"))
    else:
        np.save(path, a.numpy())


def check_lib(path, headroom):
    """Every case against one build of the library; returns mismatches."""
    lib = load_lib(path)
    lib_name = os.path.basename(path)
    print(f"ok: {lib_name}: ABI version 1, struct sizes as here")
    g = torch.Generator().manual_seed(20261130)
    n_cases = n_fail = n_cli = 0
    msgs = []
    for dt in range(6):
        for trial in range(6):
            n = [1, 17, 1000, 4099, 65536 + 5, 300000][trial]
            before = n_fail
            r, c = gen(dt, n, g)
            shape = (n,) if trial % 2 else (1, n)
            r = r.reshape(shape).to(DEVICE).contiguous()
            c = c.reshape(shape).to(DEVICE).contiguous()
            for atol, rtol in TOLS:
                for equal_nan in (False, True):
                    truth = torch_truth(r, c, atol, rtol, equal_nan)
                    rc, o, res = run_check(lib, r, c, dt, atol=atol, rtol=rtol,
                                           equal_nan=int(equal_nan),
                                           torch_cpu=int(DEVICE == "cpu"))
                    got = (bool(res.allclose_pass), res.n_violations, res.first_violation)
                    n_cases += 1
                    if rc != 0 or got != truth:
                        n_fail += 1
                        msgs.append(f"{NAMES[dt]} n={n} atol={atol} rtol={rtol} "
                                    f"equal_nan={equal_nan}: torch {truth}, "
                                    f"headroom {got} rc={rc}")
            # the fp64 maxima over finite pairs must match torch's, bit
            # for bit (the library skips elements that cannot change them)
            if dt != BOOL:
                for name, got, want in fp64_maxima(r, c, o.si_rtol, res):
                    if got != want:
                        n_fail += 1
                        msgs.append(f"{NAMES[dt]} n={n}: {name} {got!r} != {want!r}")
            # the CLI on .npy files, for one tolerance per dtype and size
            if headroom and trial in (2, 4):
                with tempfile.TemporaryDirectory() as d:
                    rp, cp = os.path.join(d, "ref.npy"), os.path.join(d, "cand.npy")
                    npy_save(rp, r, dt)
                    npy_save(cp, c, dt)
                    atol, rtol = TOLS[trial % len(TOLS)]
                    p = subprocess.run([headroom, "verify", rp, cp, "--format", "json",
                                        "--atol", repr(atol), "--rtol", repr(rtol),
                                        "--dtype", NAMES[dt], "--torch-device",
                                        "cpu" if DEVICE == "cpu" else "cuda"],
                                       capture_output=True, text=True)
                    truth = torch_truth(r, c, atol, rtol, False)
                    n_cli += 1
                    try:
                        j = json.loads(p.stdout)["original"]
                        got = (j["pass"], j["violations"], j["first_violation"])
                    except (ValueError, KeyError):
                        got = ("no json", p.returncode, p.stderr.strip())
                    if got != truth or p.returncode not in (0, 1):
                        n_fail += 1
                        msgs.append(f"CLI {NAMES[dt]} n={n}: torch {truth}, headroom {got}")
            if n_fail == before:
                print(f"ok: {lib_name} {NAMES[dt]} n={n}: verdict, violations and "
                      f"first violation as torch's for {len(TOLS)} tolerances"
                      + (", fp64 maxima" if dt != BOOL else "")
                      + (", CLI" if headroom and trial in (2, 4) else ""))
    # Smooth noise: many elements near each running maximum, where a
    # skipped element that should have counted would show.
    # Tied maxima (gen_tied, its own generator: the other cases keep
    # their data): many elements equal to the maximum.
    gt = torch.Generator().manual_seed(20261201)
    for dt in (F32, F16, BF16):
        for n, rel in ((70001, 3.0), (300000, 0.3), (200000, None),
                       (100003, "tied"), (131075, "tied_low")):
            if rel in ("tied", "tied_low"):
                r, c = gen_tied(dt, n, gt, rel == "tied_low")
            else:
                r, c = gen_noise(dt, n, rel, g) if rel else gen_abs_noise(dt, n, g)
            r, c = r.to(DEVICE), c.to(DEVICE)
            rc, o, res = run_check(lib, r, c, dt, **(
                dict(atol=10.0, rtol=10.0, si_rtol=1000.0) if rel is None else
                dict(atol=4.0, rtol=1.0, si_rtol=1000.0) if rel == "tied_low" else {}))
            n_cases += 1
            bad = [f"{NAMES[dt]} noise n={n}: {name} {got!r} != {want!r}"
                   for name, got, want in fp64_maxima(r, c, o.si_rtol, res)
                   if got != want]
            if rc != 0 or bad:
                n_fail += 1
                msgs += bad or [f"{NAMES[dt]} noise n={n}: rc={rc}"]
            else:
                print(f"ok: {lib_name} {NAMES[dt]} noise n={n} ({rel or 'abs'}): "
                      "fp64 maxima as torch's")
    for m in msgs[:20]:
        print("FAIL:", m)
    print(f"test_verify_torch: {os.path.basename(path)}: {n_cases} library cases + "
          f"{n_cli} CLI cases on {DEVICE} (torch {torch.__version__}), {n_fail} mismatches")
    return n_fail


def elem_bits(t, i):
    """The raw bits of flat element i of t, as the library reads them."""
    b = t.reshape(-1)[i:i + 1].cpu().contiguous().view(torch.uint8).tolist()
    return int.from_bytes(bytes(b), "little")


def same_results(paths):
    """Every build in paths gives the first one's struct hrv_result, byte
    for byte, on multi-row data of every dtype (the skip build's shortcuts
    must change nothing, per-row statistics and second pass included)."""
    libs = [load_lib(p) for p in paths]
    g = torch.Generator().manual_seed(7)
    n_cases = n_fail = 0
    for dt in range(6):
        for shape in ((1000,), (7, 1000), (64, 4096), (300, 3), (4096, 1), (5, 4, 999)):
            n = 1
            for d in shape:
                n *= d
            for noisy in (False, True):
                r, c = gen_noise(dt, n, 3.0, g) if noisy and dt in (F32, F16, BF16) else gen(dt, n, g)
                r = r.reshape(shape).to(DEVICE).contiguous()
                c = c.reshape(shape).to(DEVICE).contiguous()
                # the default payload (a NaN for the float dtypes), and a
                # finite one that every 7th candidate element holds
                cf = c.clone().reshape(-1)
                cf[::7] = cf[0].item()
                cf = cf.reshape(shape).contiguous()
                for cand, opts in ((c, dict(have_poison=1)),
                                   (cf, dict(have_poison=1,
                                             poison_bits=elem_bits(cf, 0)))):
                    got = []
                    for lib in libs:
                        rc, _, res = run_check(lib, r, cand, dt, **opts)
                        got.append((rc, bytes(res)))
                    n_cases += 1
                    what = (f"{NAMES[dt]} shape {shape} noisy={noisy} "
                            f"poison {opts.get('poison_bits', 'default')}")
                    if any(x != got[0] for x in got[1:]):
                        n_fail += 1
                        print(f"FAIL: {what}: results differ between "
                              + ", ".join(os.path.basename(p) for p in paths))
                    else:
                        print(f"ok: {what}: the same result from every build")
    gt = torch.Generator().manual_seed(11)
    for dt in (F32, F16, BF16):
        for shape in ((64, 4096), (7, 1000)):
            for low in (False, True):
                r, c = gen_tied(dt, shape[0] * shape[1], gt, low)
                r = r.reshape(shape).to(DEVICE).contiguous()
                c = c.reshape(shape).to(DEVICE).contiguous()
                opts = dict(atol=4.0, rtol=1.0, si_rtol=1000.0) if low else {}
                got = [(lambda x: (x[0], bytes(x[2])))(run_check(lib, r, c, dt, **opts))
                       for lib in libs]
                n_cases += 1
                if any(x != got[0] for x in got[1:]):
                    n_fail += 1
                    print(f"FAIL: {NAMES[dt]} shape {shape} tied low={low}: results "
                          "differ between " + ", ".join(os.path.basename(p) for p in paths))
                else:
                    print(f"ok: {NAMES[dt]} shape {shape} tied low={low}: the same "
                          "result from every build")
    print(f"test_verify_torch: {len(paths)} builds on {n_cases} multi-row cases, "
          f"{n_fail} differ")
    return n_fail


def main():
    headroom = os.environ.get("HEADROOM")
    n_fail = 0
    for k, path in enumerate(LIBS):
        n_fail += check_lib(path, headroom if k == 0 else None)
    if len(LIBS) > 1:
        n_fail += same_results(LIBS)
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
