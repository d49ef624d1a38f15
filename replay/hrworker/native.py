"""hrworker/native.py - the worker's two C libraries through ctypes: the verify
library (libhrverify, the checks that CPU and GPU share: Verify) and the
rand library (libhrrand, KernelBench's torch.rand draws in parallel:
FastRand)."""
import ctypes
import os

from hrworker.util import exc_text, finite


class HrvTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("shape", ctypes.c_int64 * 8),
                ("dtype", ctypes.c_int32), ("ndim", ctypes.c_int32),
                ("on_device", ctypes.c_int32), ("pad_", ctypes.c_int32)]


class HrvOpts(ctypes.Structure):
    _fields_ = [(n, ctypes.c_double) for n in
                ("atol", "rtol", "si_rtol", "si_alpha", "si_row_alpha", "si_tau")] + \
               [("poison_bits", ctypes.c_uint64), ("equal_nan", ctypes.c_int32),
                ("have_poison", ctypes.c_int32), ("torch_cpu", ctypes.c_int32),
                ("pad_", ctypes.c_int32)]


class HrvResult(ctypes.Structure):
    _fields_ = (
        [(n, ctypes.c_uint64) for n in ("n", "row_len", "n_rows", "n_violations")] +
        [("first_violation", ctypes.c_int64), ("max_abs_err", ctypes.c_double),
         ("max_rel_err", ctypes.c_double)] +
        [(n, ctypes.c_uint64) for n in ("n_nan_ref", "n_nan_cand", "n_inf_ref",
                                        "n_inf_cand", "n_nonfinite_mismatch")] +
        [("first_nonfinite_mismatch", ctypes.c_int64)] +
        [(n, ctypes.c_double) for n in ("ref_rms", "normwise_rel_err",
                                        "si_threshold", "si_max_excess")] +
        [("si_violations", ctypes.c_uint64), ("si_first_violation", ctypes.c_int64),
         ("row_violations", ctypes.c_uint64), ("row_first_violation", ctypes.c_int64),
         ("rows_failed", ctypes.c_uint64)] +
        [(n, ctypes.c_double) for n in ("ref_amax", "ref_min", "ref_max", "ref_mean",
                                        "const_value", "margin")] +
        [("n_poison", ctypes.c_uint64), ("poison_fraction", ctypes.c_double)] +
        [(n, ctypes.c_int32) for n in ("allclose_pass", "nonfinite_pass",
                                       "normwise_pass", "si_pass", "row_pass",
                                       "scale_invariant_pass", "gate_zero_pass",
                                       "gate_const_pass", "vacuous", "dtype")])


class HrvBitwise(ctypes.Structure):
    _fields_ = [("n", ctypes.c_uint64), ("n_diff", ctypes.c_uint64),
                ("first_diff", ctypes.c_int64), ("identical", ctypes.c_int32),
                ("pad_", ctypes.c_int32)]


class Verify:
    """ctypes binding of the verify library (verify/verify.h, ABI 1)."""
    DTYPES = {"float32": 0, "float16": 1, "bfloat16": 2, "int32": 3,
              "int64": 4, "bool": 5}

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        lib.hrv_abi_version.restype = ctypes.c_int
        for f in ("hrv_sizeof_tensor", "hrv_sizeof_opts", "hrv_sizeof_result"):
            getattr(lib, f).restype = ctypes.c_uint64
        if lib.hrv_abi_version() != 1:
            raise OSError("ABI %d, worker speaks 1" % lib.hrv_abi_version())
        for f, cls in (("hrv_sizeof_tensor", HrvTensor), ("hrv_sizeof_opts", HrvOpts),
                       ("hrv_sizeof_result", HrvResult)):
            if getattr(lib, f)() != ctypes.sizeof(cls):
                raise OSError("%s differs from the worker's struct" % f)
        lib.hrv_has_cuda.restype = ctypes.c_int
        lib.hrv_opts_preset.argtypes = [ctypes.POINTER(HrvOpts), ctypes.c_char_p,
                                        ctypes.c_int]
        lib.hrv_check.argtypes = [ctypes.POINTER(HrvTensor), ctypes.POINTER(HrvTensor),
                                  ctypes.POINTER(HrvOpts), ctypes.POINTER(HrvResult)]
        lib.hrv_bitwise.argtypes = [ctypes.POINTER(HrvTensor), ctypes.POINTER(HrvTensor),
                                    ctypes.POINTER(HrvBitwise)]
        lib.hrv_strerror.restype = ctypes.c_char_p
        self.lib, self.path = lib, path
        self.cuda = bool(lib.hrv_has_cuda())

    def tensor(self, t):
        """Describe a contiguous tensor; returns (struct, keep-alive tensor)."""
        if t.dim() > 8:
            raise ValueError("more than 8 dimensions")
        on_device = t.is_cuda and self.cuda
        t = t.detach().contiguous() if on_device else t.detach().cpu().contiguous()
        s = HrvTensor()
        s.data = t.data_ptr() if t.numel() else None
        for i, d in enumerate(t.shape):
            s.shape[i] = d
        s.dtype = self.DTYPES.get(str(t.dtype).replace("torch.", ""), -1)
        s.ndim, s.on_device = t.dim(), int(on_device)
        return s, t

    def raw(self, ref, cand, harness, tol, poison=None):
        """hrv_check on one pair: allclose with atol = rtol = tol; the
        struct hrv_result as ctypes gives it.  poison: the raw bits the
        candidate's memory was filled with (its elements still holding
        them are counted: n_poison), or None."""
        a, keep_a = self.tensor(ref)
        b, keep_b = self.tensor(cand)
        opts, out = HrvOpts(), HrvResult()
        rc = self.lib.hrv_opts_preset(ctypes.byref(opts), harness.encode(), a.dtype)
        if rc:
            raise ValueError("hrv_opts_preset: %s" % self.lib.hrv_strerror(rc).decode())
        opts.atol = opts.rtol = tol
        opts.torch_cpu = int(not ref.is_cuda)   # round atol as torch does on this device
        if poison is not None:
            opts.have_poison, opts.poison_bits = 1, poison
        rc = self.lib.hrv_check(ctypes.byref(a), ctypes.byref(b), ctypes.byref(opts),
                                ctypes.byref(out))
        del keep_a, keep_b
        if rc:
            raise RuntimeError("verify: %s" % self.lib.hrv_strerror(rc).decode())
        return out

    @staticmethod
    def pick(out, keys):
        return {k: (finite(getattr(out, k)) if isinstance(getattr(out, k), float)
                    else getattr(out, k)) for k in keys}

    def check(self, ref, cand, harness, tol, poison=None):
        """Every check; allclose semantics with atol = rtol = tol (and the
        poison count when poison is given)."""
        keys = ("n_violations", "max_abs_err", "max_rel_err", "normwise_rel_err",
                "allclose_pass", "scale_invariant_pass", "nonfinite_pass", "vacuous",
                "ref_amax")
        if poison is not None:
            keys += ("n_poison", "poison_fraction")
        return self.pick(self.raw(ref, cand, harness, tol, poison), keys)

    def bitwise(self, a, b):
        """hrv_bitwise: (identical, elements that differ, first index or -1);
        a and b of one dtype and shape."""
        x, keep_a = self.tensor(a)
        y, keep_b = self.tensor(b)
        out = HrvBitwise()
        rc = self.lib.hrv_bitwise(ctypes.byref(x), ctypes.byref(y), ctypes.byref(out))
        del keep_a, keep_b
        if rc:
            raise RuntimeError("verify: %s" % self.lib.hrv_strerror(rc).decode())
        return bool(out.identical), int(out.n_diff), int(out.first_diff)


class FastRand:
    """torch.rand's CPU stream from the rand library (replay/hrrand.h): the
    same values and the same generator state torch leaves, a 624-word
    block at a time instead of an element at a time (a 1.6 G-element set
    on the H200 machine: 4-6 s instead of 9-13 s, most of it the fresh
    pages; 0.3-0.5 s in the keeper, on 16 threads into pinned memory).
    Only the plain call is served -- torch.rand(*size) of fp32 on the CPU
    with the default generator, at least MIN elements -- and
    only while a draw runs the problem's get_inputs (patched); anything
    else goes to torch.  The worker checks it against torch.rand before
    any job (check_forked); a library that fails the check is not used
    (hello's rand_error says why)."""
    MIN = 1 << 16
    CHUNK = 1 << 26          # elements a thread a call when between is set (about 0.05 s)

    def __init__(self, path, torch):
        lib = ctypes.CDLL(path)
        lib.hrr_abi_version.restype = ctypes.c_int
        if lib.hrr_abi_version() != 2:
            raise OSError("ABI %d, worker speaks 2" % lib.hrr_abi_version())
        lib.hrr_part_elements.restype = ctypes.c_uint64
        lib.hrr_rand_f32_par.restype = ctypes.c_int
        lib.hrr_rand_f32_par.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                                         ctypes.c_uint64, ctypes.c_int]
        self.lib, self.path, self.torch = lib, path, torch
        self.orig = torch.rand
        self.served = 0          # calls served, for the job's record
        self.pin = False         # the keeper's draws: into pinned memory
        self.between = None      # the keeper: called between chunks of a draw
        # Threads a draw may use (the library splits the stream between
        # them: hrrand.h).  One in build workers' jobs, which draw side by
        # side; half the CPUs in the run worker's jobs (worker.py); the
        # keeper, the one drawer ahead of its GPU, takes every CPU.
        self.threads = 1

    def fill(self, shape, n):
        """n elements of the stream into a new tensor of shape, the state
        advanced; None when the library refuses the state."""
        t = self.torch
        st = t.get_rng_state()
        out = None
        if self.pin:
            # The keeper: torch's caching host allocator gives the same
            # pinned block back set after set (no fresh pages to fault in,
            # and the copy to the device is a DMA).
            try:
                out = t.empty(shape, dtype=t.float32, pin_memory=True)
            except RuntimeError:
                out = None
        if out is None:
            out = t.empty(shape, dtype=t.float32)
        # In chunks when someone waits between them (the keeper answers its
        # jobs meanwhile): the library continues the stream across calls.
        step = self.CHUNK * self.threads if self.between is not None else max(n, 1)
        for off in range(0, n, step):
            if off:
                self.between()
            if self.lib.hrr_rand_f32_par(st.data_ptr(), st.numel(), out.data_ptr() + 4 * off,
                                         min(step, n - off), self.threads):
                return None      # refused: only ever the first call (the state is torch's)
        t.set_rng_state(st)
        return out

    def check(self):
        """Values and state against torch.rand: a stream that starts a
        block, one that starts mid-block, a draw that ends one exactly;
        with threads, one that the library splits between them (8.4 M
        elements: 0.1 s).  Leaves the generator as it found it; raises on a
        difference."""
        t = self.torch
        saved = t.get_rng_state()
        cases = [(42, 0, self.MIN + 625), (7, 5, 1243), (2**32 - 2, 1, 623)]
        if self.threads > 1:      # two parts after the first block's rest
            cases.append((11, 3, 2 * self.lib.hrr_part_elements() + 999))
        try:
            for seed, skip, n in cases:
                got = []
                for fast in (False, True):
                    t.manual_seed(seed)
                    t.rand(skip)
                    x = self.fill((n,), n) if fast else self.orig(n)
                    if x is None:
                        raise OSError("refused a state torch left (seed %d)" % seed)
                    got.append((x, t.get_rng_state(), self.orig(3)))
                (a, sa, na), (b, sb, nb) = got
                if not (t.equal(a, b) and t.equal(sa, sb) and t.equal(na, nb)):
                    raise OSError("differs from torch.rand (seed %d, %d elements)" % (seed, n))
        finally:
            t.set_rng_state(saved)

    def check_forked(self):
        """check() in a child of this process, which it leaves untouched:
        the fork server must not run torch ops (a started intra-op thread
        pool deadlocks the jobs forked after it).  Raises OSError with the
        child's reason."""
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            try:
                self.check()
                msg = b"ok"
            except BaseException as e:     # anything: told, never raised here
                msg = (exc_text(e) or type(e).__name__).encode()[:2000]
            os.write(w, msg)
            os._exit(0)
        os.close(w)
        with os.fdopen(r, "rb") as f:
            msg = f.read().decode(errors="replace")
        _, status = os.waitpid(pid, 0)
        if msg != "ok":
            raise OSError(msg or "the check's process died (wait status %d)" % status)

    def rand(self, *size, **kw):
        t = self.torch
        shape = size[0] if len(size) == 1 and isinstance(size[0], (tuple, list)) else size
        n = 1
        for d in shape:
            if type(d) is not int or d < 0:
                return self.orig(*size, **kw)
            n *= d
        plain = (not kw or (set(kw) <= {"dtype", "device"}
                            and kw.get("dtype") in (None, t.float32)
                            and kw.get("device") in (None, "cpu", t.device("cpu"))))
        if (not plain or n < self.MIN or t.get_default_dtype() != t.float32
                or t.get_default_device().type != "cpu"):
            return self.orig(*size, **kw)
        out = self.fill(tuple(shape), n)
        if out is None:
            return self.orig(*size, **kw)
        self.served += 1
        return out

    def call(self, fn):
        """fn() with torch.rand served here (a problem's get_inputs)."""
        t = self.torch
        t.rand = self.rand
        try:
            return fn()
        finally:
            t.rand = self.orig
