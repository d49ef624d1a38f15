"""Cross-check of headroom's original check against torch.isclose / allclose.

For random tensors of every supported dtype (fp32, fp16, bf16, int32, int64,
bool) and several tolerances, the verify library must give the same verdict
as torch.allclose(ref, cand, atol, rtol, equal_nan), the same number of
violations as (~torch.isclose(...)).sum() and the same first violation.
Values are drawn so that many pairs sit at the tolerance boundary, where
fp16/bf16 rounding decides.  The library is loaded through ctypes
(build/libhrverify.so, or $HRV_LIB); a subset also goes through
`$HEADROOM verify --format json` on .npy files written here.

HRV_TORCH_DEVICE=cuda (with HRV_LIB=build/libhrverify_cuda.so) runs the
tensors on the GPU: torch.isclose on CUDA, the library on device pointers.

Plain script: prints one line, exits non-zero on any mismatch.
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
LIB = os.environ.get("HRV_LIB", os.path.join(ROOT, "build", "libhrverify.so"))

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


def load_lib():
    if not os.path.exists(LIB) and LIB.endswith("libhrverify.so"):
        subprocess.run(["make", "-s", "-C", ROOT, "build/libhrverify.so"],
                       check=True, stdout=subprocess.DEVNULL)
    lib = ctypes.CDLL(LIB)
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


TOLS = [(1e-2, 1e-2), (1e-4, 1e-4), (0.0, 0.0), (1e-2, 0.0), (0.0, 1e-2),
        (1e-8, 1e-5), (0.5, 0.25), (1e-3, 1.6e-2)]


def torch_truth(r, c, atol, rtol, equal_nan):
    close = torch.isclose(r, c, rtol=rtol, atol=atol, equal_nan=equal_nan).reshape(-1)
    bad = (~close).nonzero()
    first = int(bad[0, 0]) if bad.numel() else -1
    return (bool(torch.allclose(r, c, rtol=rtol, atol=atol, equal_nan=equal_nan)),
            int((~close).sum()), first)


def npy_save(path, t, dt):
    a = t.cpu()
    if dt == BF16:
        np.save(path, a.view(torch.int16).numpy().view("<u2"))
    else:
        np.save(path, a.numpy())


def main():
    lib = load_lib()
    headroom = os.environ.get("HEADROOM")
    g = torch.Generator().manual_seed(20261130)
    n_cases = n_fail = n_cli = 0
    msgs = []
    for dt in range(6):
        for trial in range(6):
            n = [1, 17, 1000, 4099, 65536 + 5, 300000][trial]
            r, c = gen(dt, n, g)
            shape = (n,) if trial % 2 else (1, n)
            r = r.reshape(shape).to(DEVICE).contiguous()
            c = c.reshape(shape).to(DEVICE).contiguous()
            for atol, rtol in TOLS:
                for equal_nan in (False, True):
                    truth = torch_truth(r, c, atol, rtol, equal_nan)
                    o = Opts()
                    lib.hrv_opts_default(ctypes.byref(o), dt)
                    o.atol, o.rtol, o.equal_nan = atol, rtol, int(equal_nan)
                    o.torch_cpu = int(DEVICE == "cpu")
                    res = Result()
                    rt, ct = as_tensor(r, dt), as_tensor(c, dt)
                    rc = lib.hrv_check(ctypes.byref(rt), ctypes.byref(ct),
                                       ctypes.byref(o), ctypes.byref(res))
                    got = (bool(res.allclose_pass), res.n_violations, res.first_violation)
                    n_cases += 1
                    if rc != 0 or got != truth:
                        n_fail += 1
                        msgs.append(f"{NAMES[dt]} n={n} atol={atol} rtol={rtol} "
                                    f"equal_nan={equal_nan}: torch {truth}, "
                                    f"headroom {got} rc={rc}")
            # max |ref - cand| over finite pairs, in fp64, must match too
            if dt != BOOL:
                rd, cd = r.double(), c.double()
                fin = torch.isfinite(rd) & torch.isfinite(cd)
                want = float((cd - rd)[fin].abs().max()) if fin.any() else 0.0
                if res.max_abs_err != want:
                    n_fail += 1
                    msgs.append(f"{NAMES[dt]} n={n}: max_abs_err {res.max_abs_err} != {want}")
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
    for m in msgs[:20]:
        print(m)
    print(f"test_verify_torch: {n_cases} library cases + {n_cli} CLI cases on {DEVICE} "
          f"(torch {torch.__version__}), {n_fail} mismatches")
    return 1 if n_fail else 0


if __name__ == "__main__":
    sys.exit(main())
