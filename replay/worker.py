#!/usr/bin/env python3
"""worker.py - the replay worker: runs one KernelBench-style job at a time.

Owns: importing a problem (Model, get_inputs, get_init_inputs) and a
candidate (ModelNew) under PyTorch, building the candidate's extension in a
content-addressed cache, drawing the job's input sets into the run's shared
inputs directory (a build job with "draw" does it ahead for the run worker,
which then only loads), the correctness trials and the timing loop, and one
JSON result line per job.  The protocol is docs/replay.md.
Must not: open the database, write outside --scratch, --cache and --inputs,
remove input files (the orchestrator owns their lifetime; but the keeper of
the run's only GPU worker takes the files it holds, --take-inputs), let candidate
code write the inputs directory, or write on the protocol stream.

Shape: a fork server.  The parent imports torch once (it never initialises
CUDA) and forks one child per job; the child runs the job in its own process
group and writes its phase and result lines itself.  A crash, a sticky CUDA
error or a monkey-patched torch therefore dies with the child.  A second
long-lived child, the keeper, holds the inputs directory's sets in device
memory and lends them to the jobs (class Keeper).  Standard library + torch
+ numpy only.
"""
import argparse
import ctypes
import gc
import hashlib
import json
import os
import platform
import re
import resource
import select
import shutil
import signal
import socket
import subprocess
import sys
import time
import traceback

T0 = time.monotonic()   # the worker's start (its hello says what took how long)
LIBC = ctypes.CDLL(None, use_errno=True)
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
PROTOCOL = 1
TAIL = 4000            # characters of a log kept in a result

# KernelBench tolerance by harness version and precision (eval.py
# get_tolerance_for_precision at 423217d; v0/v0.1 src/eval.py: fp32 1e-2).
TOLERANCE = {
    "v0": {"fp32": 1e-2, "fp16": 1e-2, "bf16": 1e-2},
    "v0.1": {"fp32": 1e-2, "fp16": 1e-2, "bf16": 1e-2},
    "current": {"fp32": 1e-4, "fp16": 1e-2, "bf16": 1e-2},
}
KB_L2_FILL_BYTES = 32 * 1024 * 1024 * 8   # timing.py clear_l2_cache: 256 MiB


class Proto:
    """The private protocol stream (a dup of the original fd 1)."""

    def __init__(self, fd):
        self.fd = fd

    def send(self, obj):
        data = (json.dumps(obj, allow_nan=False, default=str) + "\n").encode()
        view = memoryview(data)
        while view:
            n = os.write(self.fd, view)
            view = view[n:]


def tail(text, n=TAIL):
    text = text if isinstance(text, str) else str(text)
    return text[-n:]


def finite(x):
    """JSON has no NaN/inf: map them to None."""
    if x is None:
        return None
    x = float(x)
    return x if x == x and abs(x) != float("inf") else None


# --------------------------------------------------------------- sandbox
class Sandbox:
    """Python audit hook that refuses writes outside the allowed roots.

    It sees Python-level file operations (open for writing, remove, rename,
    mkdir, ...) of the candidate and of torch; C/C++ code writing with libc
    directly is not seen here (Landlock, below, refuses those where the
    kernel has it).  Each refusal raises PermissionError in the caller and
    is recorded."""

    WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
    PATH_EVENTS = {"os.remove": 1, "os.rmdir": 1, "os.mkdir": 1,
                   "os.rename": 2, "os.replace": 2, "os.symlink": 2,
                   "os.link": 2, "os.chmod": 1, "os.truncate": 1,
                   "shutil.rmtree": 1, "os.utime": 1}

    def __init__(self, roots):
        self.roots = [os.path.realpath(r) for r in roots]
        self.deny = []          # inside the roots, yet closed to the candidate
        self.violations = []
        self.active = False

    def allowed(self, path):
        if isinstance(path, int):
            return True
        try:
            p = os.path.realpath(os.fsdecode(path))
        except (TypeError, ValueError):
            return True
        if p in ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"):
            return True
        if any(p == r or p.startswith(r + os.sep) for r in self.deny):
            return False
        return any(p == r or p.startswith(r + os.sep) for r in self.roots)

    def refuse(self, event, path):
        if len(self.violations) < 20:
            self.violations.append({"event": event, "path": os.fsdecode(path)})
        raise PermissionError("headroom sandbox: %s outside scratch refused: %s"
                              % (event, os.fsdecode(path)))

    def hook(self, event, args):
        if not self.active:
            return
        if event == "open":
            path, mode, flags = (tuple(args) + (None, None, None))[:3]
            writing = False
            if isinstance(mode, str):
                writing = any(c in mode for c in "wax+")
            elif isinstance(flags, int):
                writing = bool(flags & self.WRITE_FLAGS)
            if writing and path is not None and not self.allowed(path):
                self.refuse(event, path)
        elif event in self.PATH_EVENTS:
            paths = args[:self.PATH_EVENTS[event]]
            for p in paths[-1:] if event in ("os.symlink", "os.link") else paths:
                if isinstance(p, (str, bytes, os.PathLike)) and not self.allowed(p):
                    self.refuse(event, p)


class Landlock:
    """The kernel's half of the sandbox: Linux Landlock (landlock(7),
    include/uapi/linux/landlock.h), through ctypes.  A job process, right
    after its fork (one thread: whatever it starts later inherits it),
    gives up every way of changing the file system outside its roots
    (the run's scratch, cache and inputs, /dev/shm, where torch keeps its
    IPC reference counts) save writing /dev/null, /dev/zero, /dev/full,
    the GPU's device files and procfs: writing a file, creating, removing,
    linking and renaming, and (ABI 3 and up) truncating.  Reading stays
    free.  This reaches C and C++ code, which the audit hook (Sandbox)
    does not see: such a write fails with EACCES, unrecorded (the audit
    hook still records the Python-level ones).  Where the kernel has no
    Landlock (or a seccomp filter refuses it) jobs run with the audit hook
    only; hello's fs_jail says which.  Under CUDA the procfs writes are
    cuInit's: it names its threads in /proc/PID/task/TID/comm and fails
    where it may not (checked on the H200, tests/gpu/jail_probe.py)."""

    SYSCALLS = (444, 445, 446)   # create_ruleset, add_rule, restrict_self: every arch
    WRITE_FILE, TRUNCATE, REFER = 1 << 1, 1 << 14, 1 << 13
    # REMOVE_DIR, REMOVE_FILE, MAKE_CHAR, MAKE_DIR, MAKE_REG, MAKE_SOCK,
    # MAKE_FIFO, MAKE_BLOCK, MAKE_SYM
    CHANGE = sum(1 << b for b in range(4, 13))
    DEVICES = ("/dev/null", "/dev/zero", "/dev/full")

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    def __init__(self, off=None):
        """off: why not to jail (the kernel is not asked); abi stays None."""
        self.abi, self.why = None, off
        if off is None:
            LIBC.syscall.restype = ctypes.c_long
            abi = LIBC.syscall(ctypes.c_long(self.SYSCALLS[0]), None, ctypes.c_size_t(0),
                               ctypes.c_uint32(1))   # LANDLOCK_CREATE_RULESET_VERSION
            self.abi = abi if abi > 0 else None
            self.why = None if self.abi else "landlock: %s" % os.strerror(ctypes.get_errno())

    def describe(self):
        return ({"landlock_abi": self.abi} if self.abi else
                {"landlock_abi": None, "audit_hook_only": self.why})

    def handled(self):
        h = self.WRITE_FILE | self.CHANGE
        if self.abi >= 2:
            h |= self.REFER
        if self.abi >= 3:
            h |= self.TRUNCATE
        return h

    def call(self, n, *args):
        r = LIBC.syscall(ctypes.c_long(self.SYSCALLS[n]), *args)
        if r < 0:
            raise OSError(ctypes.get_errno(), "landlock: %s" % os.strerror(ctypes.get_errno()))
        return r

    def apply(self, roots):
        """Restrict this process (call it while it has one thread)."""
        handled = self.handled()
        attr = ctypes.c_uint64(handled)
        ruleset = self.call(0, ctypes.byref(attr), ctypes.c_size_t(8), ctypes.c_uint32(0))
        try:
            file_rights = handled & (self.WRITE_FILE | self.TRUNCATE)
            paths = [(r, handled) for r in roots + ["/dev/shm"] if os.path.isdir(r)]
            # CUDA's cuInit names its threads through /proc/PID/task/TID/comm
            # and fails (error 304) where it may not (NVIDIA/OpenShell#1486,
            # PR #710): writing procfs files is allowed, creating none is.
            paths += [(p, file_rights) for p in self.DEVICES + ("/proc",)
                      if os.path.exists(p)]
            paths += [(os.path.join("/dev", n), file_rights) for n in
                      sorted(os.listdir("/dev")) if n.startswith("nvidia")]
            for path, rights in paths:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                try:
                    rule = self.PathBeneath(rights, fd)
                    self.call(1, ctypes.c_int(ruleset), ctypes.c_int(1),  # PATH_BENEATH
                              ctypes.byref(rule), ctypes.c_uint32(0))
                finally:
                    os.close(fd)
            if not prctl(PR_SET_NO_NEW_PRIVS, 1):
                raise OSError("landlock: prctl(PR_SET_NO_NEW_PRIVS) refused")
            self.call(2, ctypes.c_int(ruleset), ctypes.c_uint32(0))
        finally:
            os.close(ruleset)


# ------------------------------------------------------------ verify lib
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

    def raw(self, ref, cand, harness, tol):
        """hrv_check on one pair: allclose with atol = rtol = tol; the
        struct hrv_result as ctypes gives it."""
        a, keep_a = self.tensor(ref)
        b, keep_b = self.tensor(cand)
        opts, out = HrvOpts(), HrvResult()
        rc = self.lib.hrv_opts_preset(ctypes.byref(opts), harness.encode(), a.dtype)
        if rc:
            raise ValueError("hrv_opts_preset: %s" % self.lib.hrv_strerror(rc).decode())
        opts.atol = opts.rtol = tol
        opts.torch_cpu = int(not ref.is_cuda)   # round atol as torch does on this device
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

    def check(self, ref, cand, harness, tol):
        """Every check; allclose semantics with atol = rtol = tol."""
        return self.pick(self.raw(ref, cand, harness, tol),
                         ("n_violations", "max_abs_err", "max_rel_err",
                          "normwise_rel_err", "allclose_pass", "scale_invariant_pass",
                          "nonfinite_pass", "vacuous", "ref_amax"))


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
        # them: hrrand.h).  One in build workers and jobs, which draw side
        # by side; the keeper, the one drawer of its GPU, takes every CPU.
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


# ------------------------------------------------------------- the job
def problem_namespace(code, filename):
    """The namespace a problem's code runs in, as KernelBench's
    exec(src, context): Model, get_inputs, get_init_inputs (and, in a
    faithful job, the candidate after them)."""
    ctx = {}
    exec(compile(code, filename or "problem.py", "exec"), ctx)
    return ctx


class Verdict(Exception):
    """Ends a job early with a verdict."""

    def __init__(self, verdict, kind, text, **extra):
        super().__init__(text)
        self.verdict, self.kind, self.text, self.extra = verdict, kind, text, extra


def exc_text(e):
    return tail("".join(traceback.format_exception_only(type(e), e)).strip())


class Laps:
    """Seconds between marks, into a dict: lap(name) records under name
    the seconds since the last mark (or the start), to 0.1 ms; lap(None)
    only marks."""

    def __init__(self, into):
        self.into, self.t = into, time.monotonic()

    def lap(self, name):
        now = time.monotonic()
        if name is not None:
            self.into[name] = round(now - self.t, 4)
        self.t = now


class Job:
    def __init__(self, msg, cfg, proto, torch):
        self.m, self.cfg, self.proto, self.torch = msg, cfg, proto, torch
        self.id = msg["job"]
        self.mode = msg.get("mode", "faithful")
        self.harness = msg.get("harness") or "current"
        if self.harness not in TOLERANCE:
            self.harness = "current"
        self.precision = msg.get("precision") or "fp32"
        self.seed = int(msg.get("seed", 42))
        self.device = torch.device(cfg.device)
        self.cuda = self.device.type == "cuda"
        self.result = {"type": "result", "job": self.id, "compiled": None,
                       "correct": None, "checks": {}}
        self.checks = self.result["checks"]
        self.predrawn = None    # what predraw did (a build job with "draw")
        self.fast_draws = 0     # draws the rand library served (FastRand)
        self.t_start = cfg.job_t0 or time.monotonic()
        self.phase_s = self.checks["phase_seconds"] = {}

    def phase(self, name):
        """Enter a phase: tell the orchestrator, and time the phases (the
        seconds of each, from the job's start, in checks.phase_seconds)."""
        now = time.monotonic()
        prev = self.result.get("phase")
        if prev is not None:
            self.phase_s[prev] = round(now - self.phase_t0, 3)
        else:
            self.phase_s["start"] = round(now - self.t_start, 3)
        self.phase_t0 = now
        self.result["phase"] = name
        self.proto.send({"type": "phase", "job": self.id, "phase": name})

    def sync(self):
        if self.cuda:
            self.torch.cuda.synchronize(device=self.device)

    def set_seed(self, s):
        self.torch.manual_seed(s)
        if self.cuda:
            self.torch.cuda.manual_seed(s)

    # KernelBench moves inputs with _process_input_tensor (current: cast to
    # the precision, then device) or x.cuda() (v0, v0.1: no cast).
    def place(self, x):
        if not isinstance(x, self.torch.Tensor):
            return x
        if self.harness == "current":
            x = x.to(dtype=self.dtype)
        return x.to(device=self.device)

    def place_model(self, m):
        if self.harness == "current":
            return m.to(device=self.device, dtype=self.dtype)
        return m.to(device=self.device)

    def cache_dir(self, what):
        """Content-addressed build directory: what is built (an extension's
        sources and options, or a whole candidate), torch, CUDA, arch, flags."""
        t = self.torch
        flags = "|".join("%s=%s" % (k, os.environ.get(k, "")) for k in
                         ("TORCH_CUDA_ARCH_LIST", "CFLAGS", "CXXFLAGS", "LDFLAGS"))
        key = "\n".join([what, t.__version__, str(t.version.cuda), self.cfg.arch, flags,
                         platform.machine()])
        return os.path.join(self.cfg.cache, hashlib.sha256(key.encode()).hexdigest()[:24])

    def hook_load_inline(self, exts):
        """Give each load_inline call without a build_directory one keyed by
        its own arguments, so an identical extension is built once whatever
        Python wraps it; record hit or miss per extension.  A build the
        compiler rejected is kept too (its error text), and answered again
        from the cache."""
        import inspect
        import torch.utils.cpp_extension as cpp
        orig, job = cpp.load_inline, self
        sig = inspect.signature(orig)

        def load_inline(*args, **kwargs):
            ba = sig.bind(*args, **kwargs)
            if ba.arguments.get("build_directory"):
                return orig(*args, **kwargs)
            what = json.dumps({k: v for k, v in ba.arguments.items() if k != "verbose"},
                              sort_keys=True, default=repr)
            d = job.cache_dir("load_inline\n" + what)
            hit = os.path.isdir(d) and any(f.endswith(".so") for f in os.listdir(d))
            os.makedirs(d, exist_ok=True)
            ba.arguments["build_directory"] = d
            t0, cpu0 = time.monotonic(), children_cpu()
            rec = {"name": ba.arguments.get("name"), "dir": os.path.basename(d),
                   "cache": "hit" if hit else "miss"}
            exts.append(rec)
            failed = os.path.join(d, ".headroom-build-failed")
            try:
                if not hit and os.path.exists(failed):
                    rec.update(cache="hit", failed=True)
                    with open(failed) as f:
                        raise RuntimeError(f.read())
                return orig(*ba.args, **ba.kwargs)
            except Exception as e:
                # The compiler's "no" is as deterministic as its "yes" for
                # this key; lock or I/O trouble is not, and is not kept.
                if "Error building extension" in str(e) and not rec.get("failed"):
                    with open(failed, "w") as f:
                        f.write(str(e))
                raise
            finally:
                rec["seconds"] = round(time.monotonic() - t0, 3)
                # the compilers' CPU time (ninja and what it ran, reaped)
                rec["cpu_seconds"] = round(children_cpu() - cpu0, 3)
        cpp.load_inline = load_inline

    def run(self):
        t = self.torch
        self.dtype = {"fp32": t.float32, "fp16": t.float16,
                      "bf16": t.bfloat16}.get(self.precision, t.float32)
        self.tol = TOLERANCE[self.harness].get(self.precision, 1e-4)
        self.checks["semantics"] = {
            "mode": self.mode, "harness": self.harness, "precision": self.precision,
            "seed": self.seed, "tolerance": self.tol,
            "allclose": "torch.allclose(ref, cand, atol=tol, rtol=tol)",
            "namespace": "one" if self.mode == "faithful" else "copy",
            "inputs_cast": self.harness == "current"}
        try:
            self.stages()
        except Verdict as v:
            self.result.update(verdict=v.verdict, error_kind=v.kind, error=v.text, **v.extra)
        if self.result.get("phase") is not None:
            self.phase_s[self.result["phase"]] = round(time.monotonic() - self.phase_t0, 3)
        if self.cfg.sandbox.violations:
            self.checks["sandbox"] = self.cfg.sandbox.violations
            if self.result.get("verdict") in ("correct", "incorrect"):
                self.checks["verdict_without_sandbox"] = self.result["verdict"]
                self.result.update(verdict="runtime_error", correct=False,
                                   error_kind="sandbox",
                                   error="write outside scratch refused: %s"
                                   % self.cfg.sandbox.violations[0]["path"])
        return self.result

    def give_back(self):
        """Before the process exits: free the sets the keeper lent, so that
        torch's IPC reference counts reach zero.  The job ends with
        os._exit, which frees nothing: a lent set the keeper later drops
        would stay in its "limbo" (device memory it never gets back; on the
        H200 the keeper outgrew its budget and left mid-run), then close
        the connection, on which the keeper checks the sets."""
        self.draws = None
        gc.collect()
        conn = getattr(self.cfg, "keeper_conn", None)
        if conn is not None:
            conn.close()
            self.cfg.keeper_conn = None

    def stages(self):
        t, m = self.torch, self.m
        stop = m.get("stop_after")
        # Reference: one namespace as KernelBench's exec(src, context).
        self.phase("reference")
        try:
            ctx = problem_namespace(m["problem_code"], m.get("problem_file"))
            Model, get_inputs = ctx["Model"], ctx["get_inputs"]
            get_init_inputs = ctx["get_init_inputs"]
            self.set_seed(self.seed)
            init_inputs = [self.place(x) for x in get_init_inputs()]
            with t.no_grad():
                self.set_seed(self.seed)
                ref_model = Model(*init_inputs)
            self.get_inputs = get_inputs
            if stop in ("build", "inputs") and m.get("draw"):
                self.predrawn = self.predraw()     # ahead, for the run worker
                # At once, not with the result: a build's result comes a
                # minute later, and the orchestrator's room for the next
                # problem's draws needs the number of sets a problem has.
                self.proto.send({"type": "predraw", "job": self.id,
                                 "predraw": self.predrawn})
            elif stop not in ("build", "reference", "inputs"):
                self.draw_all()
        except Exception as e:
            raise Verdict("problem_error", "reference", exc_text(e))
        if stop == "reference":
            self.audit(ref_model)
            return
        if stop == "inputs":
            self.result.update(verdict="drawn", predraw=self.predrawn)
            return
        # From here on candidate code runs: the input cache is read-only,
        # and the keeper takes no more requests from this job.
        self.cfg.sandbox.deny = [self.cfg.inputs_dir]
        if self.cfg.keeper is not None:
            self.cfg.keeper.close()
            self.cfg.keeper = None

        # Build: executing the candidate runs load_inline into the cache.
        # Other builders (load, setup-style) land in a directory keyed by
        # the whole candidate, through TORCH_EXTENSIONS_DIR as KernelBench.
        self.phase("build")
        code = m["candidate_code"]
        exts = []
        self.hook_load_inline(exts)
        os.environ["TORCH_EXTENSIONS_DIR"] = self.cache_dir("candidate\n" + code)
        build = self.result["build"] = self.checks["build"] = {"extensions": exts}
        if self.predrawn is not None:
            build["predraw"] = self.predrawn
        cand_ctx = ctx if self.mode == "faithful" else dict(ctx)
        t0 = time.monotonic()
        try:
            exec(compile(code, m.get("candidate_file", "candidate.py"), "exec"), cand_ctx)
            ModelNew = cand_ctx.get("ModelNew")
            if ModelNew is None:
                raise NameError("ModelNew is not defined by the candidate")
        except Exception as e:
            self.result["build_log"] = exc_text(e)
            raise Verdict("compile_error", "build", exc_text(e), compiled=False,
                          correct=False)
        finally:
            build["seconds"] = round(time.monotonic() - t0, 3)
            build["cpu_seconds"] = round(sum(x.get("cpu_seconds", 0) for x in exts), 3)
            build["cache"] = ("none" if not exts else "hit" if
                              all(x["cache"] == "hit" for x in exts) else "miss")
        self.result["compiled"] = True
        if stop == "build":
            self.result.update(verdict="built")
            return

        self.phase("load")
        try:
            with t.no_grad():
                self.set_seed(self.seed)
                new_model = ModelNew(*init_inputs)
                self.ref = self.place_model(ref_model)
                self.new = self.place_model(new_model)
                self.sync()
        except Exception as e:
            raise Verdict("runtime_error", "load", exc_text(e), correct=False)

        self.phase("correctness")
        self.correctness()
        if not self.result["correct"]:
            return
        self.phase("timing")
        try:
            if self.mode == "robust":
                self.time_robust()
            else:
                self.time_faithful()
        except Exception as e:  # KernelBench: error_during_performance
            self.result.update(error_kind="timing", error=exc_text(e))

    # ---------------------------------------------------------- audit
    def audit(self, ref_model):
        """headroom audit problems: run the reference once (seed 42, the
        first correctness trial's inputs are not needed: the magnitude is a
        property of the problem) and ask the verify library, for each preset
        the orchestrator sent, whether zeros, the reference mean or one of
        the inputs would pass the original check.  fp16/bf16 presets use the
        fp32 output rounded to that dtype (recorded)."""
        t = self.torch
        if self.cfg.verify is None:
            raise Verdict("problem_error", "audit",
                          "the audit needs the verify library: %s"
                          % (self.cfg.verify_error or "none given (--verify-lib)"))
        # "device": draw the inputs with the device's generator (same
        # distributions, other values): problems of 10^9 elements then take
        # seconds, not the minute the CPU generator needs.
        on_device = self.m.get("audit_inputs") == "device"
        try:
            with t.no_grad():
                self.set_seed(self.seed)
                if on_device:
                    with t.device(self.device):
                        raw = self.get_inputs()
                else:
                    raw = self.host_inputs()
                inputs = [self.place(x) for x in raw]
                del raw
                out = self.place_model(ref_model)(*inputs)
                self.sync()
        except Exception as e:
            raise Verdict("problem_error", "reference", exc_text(e))
        if not isinstance(out, t.Tensor):
            raise Verdict("problem_error", "reference",
                          "the reference returned %s, not a tensor" % type(out).__name__)
        dtypes = {"fp32": t.float32, "fp16": t.float16, "bf16": t.bfloat16}
        gates = {}
        for p in self.m.get("audit_presets", []):
            ref = out.detach().to(dtypes[p["dtype"]])
            r = self.cfg.verify.raw(ref, ref, p["harness"], p["tol"])
            same = [i for i, x in enumerate(inputs) if isinstance(x, t.Tensor)
                    and x.shape == ref.shape]
            inp = [bool(self.cfg.verify.raw(ref, inputs[i].to(ref.dtype), p["harness"],
                                            p["tol"]).allclose_pass) for i in same]
            gates[p["name"]] = {
                "atol": p["tol"], "rtol": p["tol"], "dtype": p["dtype"],
                "reference": "computed" if ref.dtype == out.dtype
                else "%s output rounded to %s" % (str(out.dtype)[6:], p["dtype"]),
                "zeros": bool(r.gate_zero_pass), "constant": bool(r.gate_const_pass),
                "constant_value": finite(r.const_value),
                "input": any(inp), "inputs_same_shape": same,
                "margin": finite(r.margin)}
        full = self.cfg.verify.pick(self.cfg.verify.raw(out, out, "current", 1e-4),
                                    ("ref_amax", "ref_rms", "ref_min", "ref_max",
                                     "ref_mean", "n_nan_ref", "n_inf_ref"))
        self.result.update(verdict="audited", audit={
            "inputs": "device generator" if on_device else "host generator (KernelBench)",
            "output_shape": list(out.shape), "output_dtype": str(out.dtype)[6:],
            "numel": out.numel(), "stats": full, "gates": gates,
            "fast_draws": self.fast_draws})

    # ---------------------------------------------------- correctness
    def compare(self, out, out_new, first, laps):
        """The original check, reference first; verify library when present.
        With it, torch.allclose runs beside it (torch_allclose) on the job's
        first trial and on every trial the library fails: on the H200 a
        job's first torch.allclose of a 1.6 G-element output took 0.08-0.11
        s (its temporaries allocated; it makes about eleven passes over the
        tensors), the library's one pass 4 ms (checks.trials[].seconds)."""
        t = self.torch
        rec = {}
        if self.cfg.verify is not None:
            try:
                rec = self.cfg.verify.check(out, out_new, self.harness, self.tol)
                rec["checker"] = "hrverify"
                ok = bool(rec["allclose_pass"])
                laps.lap("check")
                if first or not ok:
                    rec["torch_allclose"] = bool(t.allclose(out, out_new, atol=self.tol,
                                                            rtol=self.tol))
                    laps.lap("torch_allclose")
                return ok, rec
            except (ValueError, RuntimeError) as e:
                if "dtype" not in str(e).lower():
                    rec["verify_error"] = str(e)
        laps.lap(None)
        ok = bool(t.allclose(out, out_new, atol=self.tol, rtol=self.tol))
        laps.lap("torch_allclose")
        rec["checker"] = "torch.allclose"
        if not ok:
            d = (out.float() - out_new.float()).abs()
            rec["max_abs_err"] = finite(d.max().item()) if d.numel() else 0.0
        return ok, rec

    def correctness(self):
        t = self.torch
        n = int(self.m.get("correct_trials", 5))
        seeds = self.trial_seeds()
        trials, passed = [], 0
        self.checks["trials"] = trials
        self.result["trials_total"] = n
        with t.no_grad():
            for s in seeds:
                # Where a trial's time goes (synced: each part's own work).
                secs = {}
                laps = Laps(secs)
                inputs = self.fresh_inputs(s)
                self.set_seed(s)       # KernelBench seeds again before the models run
                cand_inputs = inputs
                if self.mode == "robust":  # candidate cannot mutate the reference's inputs
                    cand_inputs = [x.clone() if isinstance(x, t.Tensor) else x for x in inputs]
                self.sync()
                laps.lap("inputs")
                try:
                    out = self.ref(*inputs)
                    self.sync()
                except Exception as e:
                    raise Verdict("runtime_error", "reference", exc_text(e), correct=False,
                                  trials_passed=passed)
                laps.lap("reference")
                try:
                    out_new = self.new(*cand_inputs)
                    self.sync()
                    laps.lap("candidate")
                    if out.shape != out_new.shape:
                        trials.append({"seed": s, "pass": False, "issue": "shape %s != %s"
                                       % (list(out_new.shape), list(out.shape))})
                        raise Verdict("incorrect", "shape", "output shape mismatch: expected "
                                      "%s, got %s" % (list(out.shape), list(out_new.shape)),
                                      correct=False, trials_passed=passed)
                    ok, rec = self.compare(out, out_new, not trials, laps)
                except Verdict:
                    raise
                except Exception as e:
                    raise Verdict("runtime_error", "forward", exc_text(e), correct=False,
                                  trials_passed=passed)
                rec.update(seed=s, seconds=secs, **{"pass": ok})
                trials.append(rec)
                passed += ok
        self.result["trials_passed"] = passed
        self.result["correct"] = passed == n
        self.result["verdict"] = "correct" if passed == n else "incorrect"
        self.checks["checker"] = trials[0]["checker"] if trials else None

    # ---------------------------------------------------------- timing
    def flush_bytes(self, robust):
        if self.cuda:
            if robust:
                p = self.torch.cuda.get_device_properties(self.device)
                return 2 * int(getattr(p, "L2_cache_size", 0) or 50 << 20)
            return KB_L2_FILL_BYTES
        return 2 * self.cfg.llc_bytes if robust else self.cfg.llc_bytes

    def flush(self, nbytes):
        """KernelBench's clear_l2_cache on CUDA (a fresh tensor from the
        caching allocator, filled).  On CPU one buffer is kept and refilled:
        a fresh 32 MiB there is an mmap and page faults, not a cache flush."""
        if not nbytes:
            return
        if self.cuda:
            dummy = self.torch.empty((nbytes // 8,), dtype=self.torch.int64, device=self.device)
            dummy.fill_(42)
            del dummy
            return
        buf = getattr(self, "_flush_buf", None)
        if buf is None or buf.numel() != nbytes // 8:
            buf = self._flush_buf = self.torch.empty((nbytes // 8,), dtype=self.torch.int64)
        buf.fill_(42)

    def time_one(self, fn, args, flush, sync_before):
        t = self.torch
        if sync_before:
            self.sync()
        if self.cuda:
            start, end = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
            self.flush(flush)
            start.record()
            fn(*args)
            end.record()
            self.sync()
            return start.elapsed_time(end)
        self.flush(flush)
        t0 = time.perf_counter_ns()
        fn(*args)
        return (time.perf_counter_ns() - t0) / 1e6

    def kb_loop(self, fn, args):
        """KernelBench's timing loop for this harness version (timing.py)."""
        m = self.m
        warmup, trials = int(m.get("warmup", 3)), int(m.get("perf_trials", 100))
        current = self.harness == "current"
        discard = 1 if current else 0
        flush = self.flush_bytes(False) if current else 0
        for _ in range(warmup):
            fn(*args)
            self.sync()
        if current and self.cuda:
            self.torch.cuda.empty_cache()
        times = [self.time_one(fn, args, flush, current) for _ in range(trials + discard)]
        return times[discard:], {"warmup": warmup, "trials": trials, "discard_first": discard,
                                 "l2_fill_bytes": flush, "sync_before_each": current,
                                 "timer": "cuda_event" if self.cuda else "perf_counter_ns"}

    def stats(self, times):
        import numpy as np
        a = np.asarray(times, dtype=np.float64)
        return {"mean": finite(a.mean()), "std": finite(a.std()), "min": finite(a.min()),
                "max": finite(a.max()), "median": finite(np.median(a)), "n": int(a.size),
                "mean_3sf": float("%.3g" % a.mean())}

    def trial_seeds(self):
        """KernelBench: torch.manual_seed(42), then one randint per trial."""
        t = self.torch
        t.manual_seed(self.seed)
        return [t.randint(0, 2**32 - 1, (1,)).item()
                for _ in range(int(self.m.get("correct_trials", 5)))]

    def inputs_key(self):
        """The input files' prefix: the orchestrator's inputs_key (sha16 of
        the problem's code, computed once for the run), else the same here."""
        k = self.m.get("inputs_key")
        if isinstance(k, str) and len(k) == 16 and all(c in "0123456789abcdef" for c in k):
            return k
        return hashlib.sha256(self.m["problem_code"].encode()).hexdigest()[:16]

    def set_path(self, seed):
        """The file of one input set: <inputs_key>-<seed>.pt in the inputs
        directory (the orchestrator removes a problem's files by that
        prefix)."""
        return os.path.join(self.cfg.inputs_dir, "%s-%d.pt" % (self.inputs_key(), seed))

    def input_seeds(self):
        """Every seed s whose set_seed(s); get_inputs() the job uses: the
        trial seeds, the robust pool, the timing seed (no repeats)."""
        seeds = self.trial_seeds()
        if self.mode == "robust":
            import numpy as np
            k = max(1, int(self.m.get("robust_inputs", 8)))
            self.pool_seeds = [int(x) for x in
                               np.random.default_rng(self.seed).integers(0, 2**31 - 1, size=k)]
            seeds += self.pool_seeds
        return list(dict.fromkeys(seeds + [self.seed]))

    def host_inputs(self):
        """get_inputs() as KernelBench calls it; its plain torch.rand calls
        served by the rand library when the worker has one (FastRand: the
        same values, the same generator state), counted in fast_draws."""
        fast = self.cfg.rand
        if fast is None:
            return self.get_inputs()
        served = fast.served
        raw = fast.call(self.get_inputs)
        self.fast_draws += fast.served > served
        return raw

    def draw(self, s, cuda_state=True):
        """set_seed(s); get_inputs(), as KernelBench: the inputs, the RNG
        states the draw left (CPU, CUDA or None), their bytes, and whether
        every tensor is on the CPU (only those are saved: a file is loaded
        by whichever worker comes next).  cuda_state=False (a draw ahead,
        which keeps only CPU draws) leaves CUDA alone unless the problem's
        get_inputs uses it: a build worker needs no CUDA context.  The
        rand library, when the worker has one (FastRand), serves the
        get_inputs' torch.rand calls: same values, same state."""
        t = self.torch
        self.set_seed(s)
        raw = self.host_inputs()
        size = sum(x.numel() * x.element_size() for x in raw if isinstance(x, t.Tensor))
        on_cpu = all(not isinstance(x, t.Tensor) or x.device.type == "cpu" for x in raw)
        return (raw, t.get_rng_state(),
                t.cuda.get_rng_state() if self.cuda and cuda_state else None, size, on_cpu)

    def save_draw(self, path, raw, state):
        """Write a draw under a name of this process's, then rename: several
        workers may draw the same set at once, and a reader only ever sees
        a whole file.  A write that fails leaves no file."""
        tmp = "%s.%d.tmp" % (path, os.getpid())
        try:
            self.torch.save({"inputs": list(raw), "rng": state}, tmp)
            os.replace(tmp, path)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise

    def restore_rng(self, before):
        """The candidate starts where it would have without the draws."""
        self.torch.set_rng_state(before)
        if self.cuda:
            self.torch.cuda.manual_seed(self.seed)

    def keepable(self, size):
        """A drawn set of size bytes may be saved to the inputs directory:
        the directory stays within input_cache_mb (the run's budget for it,
        which the orchestrator sends; 2 GiB when run alone), and the
        filesystem keeps 1 GiB free.  Sets that do not fit are kept in
        memory or drawn again when used."""
        budget = int(self.m.get("input_cache_mb", 2048)) << 20
        d = self.cfg.inputs_dir
        used = 0
        try:
            for f in os.listdir(d):
                try:
                    used += os.stat(os.path.join(d, f)).st_size
                except OSError:
                    pass
            st = os.statvfs(d)
            free = st.f_bavail * st.f_frsize
        except OSError:
            return False
        return used + size <= budget and free - size >= 1 << 30

    def mapped(self, path):
        """The set in file path, mapped (not read): (inputs, rng state,
        None), or None when there is no such file (or it cannot be mapped:
        a CPU job's address-space limit; the set is then drawn).  Mapped at
        once: with --take-inputs the keeper may take (remove) the file
        before this job's trials use it, and a mapping outlives the name."""
        try:
            obj = self.torch.load(path, mmap=True, weights_only=True)
        except (OSError, RuntimeError, MemoryError):
            return None
        return (obj["inputs"], obj["rng"], None)

    def draw_all(self):
        """Draw every input set the job uses (set_seed(s); get_inputs()),
        before any candidate code runs.  A set already in the inputs
        directory (--inputs: the run's, shared by every worker; a build
        worker usually drew it ahead, see predraw) is loaded instead; a
        missing CPU draw is saved there for the jobs after (faithful inputs
        are drawn by a single-stream CPU torch.rand: on large problems that,
        not the GPU, bounds a warm replay).  The orchestrator removes a
        problem's files when its last job is done.  A set that does not fit
        (keepable: the directory's budget, input_cache_mb) is not kept: the
        first such draw stays in memory for its trial, the others are drawn
        when used."""
        t = self.torch
        before = t.get_rng_state()          # as left by Model(*init_inputs)
        self.draws, hits, late, keeper_drew = {}, 0, False, []
        self.late_seed = None               # fresh_inputs: the one late set kept
        seeds = self.input_seeds()
        # Sets the keeper holds in device memory are lent, not loaded.
        secs = {}
        lent = borrow(self.cfg, t, [os.path.basename(self.set_path(s)) for s in seeds], secs)
        for s in seeds:
            path = self.set_path(s)
            got = lent.get(os.path.basename(path))
            if got is not None:
                self.draws[s] = (got[0], t.frombuffer(bytearray(got[1]), dtype=t.uint8), None)
                hits += 1
                if got[2].get("how") == "drawn":
                    keeper_drew.append([got[2].get("started"), got[2].get("ended")])
                continue
            got = self.mapped(path)
            if got is not None:
                self.draws[s] = got
                hits += 1
                continue
            if late:                        # too large to keep: drawn when used
                self.draws[s] = None
                continue
            raw, state, cuda_state, size, on_cpu = self.draw(s)
            fits = on_cpu and self.keepable(size)
            if fits:
                try:
                    self.save_draw(path, raw, state)
                except (OSError, RuntimeError):   # the disk: kept in memory
                    fits = False
            # Saved: mapped (in memory when the keeper took it at once).
            # Not: in memory; with no room the rest are drawn late.
            got = self.mapped(path) if fits else None
            self.draws[s] = got if got is not None else (raw, state, cuda_state)
            late = not fits and on_cpu
        self.checks["input_cache"] = {"sets": len(self.draws), "hits": hits,
                                      "drawn_late": sum(v is None for v in self.draws.values()),
                                      "device_held": len(lent),
                                      "fast_draws": self.fast_draws}
        if secs:            # the keeper's loan: where its time went (borrow)
            self.checks["input_cache"]["borrow_seconds"] = secs
        if keeper_drew:     # sets the keeper drew from the recipe: when
            self.checks["input_cache"]["keeper_drew"] = sorted(keeper_drew)
        self.restore_rng(before)

    def predraw(self):
        """A build worker's part of draw_all (message field "draw"): save
        every input set of the job that is not in the inputs directory yet
        and that no other worker claimed (<set>.claim), the same draws with
        the same RNG state, so the run worker only loads.
        It stops at the first set it cannot share (no room: keepable, or
        drawn on the device): the run worker deals with that one and the
        rest as draw_all does.  Returns what it did, for the job's record."""
        t = self.torch
        before = t.get_rng_state()
        t0 = time.monotonic()
        seeds = self.input_seeds()
        rec = {"sets": len(seeds), "present": 0, "drawn": 0, "claimed": 0,
               "started": round(time.time(), 3)}
        if self.cfg.recipes:     # the keeper draws them: nothing to do here
            self.write_recipe(seeds)
            rec["recipe"], seeds = True, []

        def note_bytes(n):
            """set_bytes: the largest set seen, file or tensors (the
            orchestrator's room rule)."""
            if n > rec.get("set_bytes", 0):
                rec["set_bytes"] = n

        def file_bytes(path):
            try:
                return os.stat(path).st_size
            except OSError:              # held: the keeper took the file
                return 0

        def present(path):
            """Saved already, or held by the keeper: counted, with its size."""
            if not (os.path.exists(path) or os.path.exists(path + ".held")):
                return False
            rec["present"] += 1
            note_bytes(file_bytes(path))
            return True

        for s in seeds:
            path = self.set_path(s)
            if present(path):
                continue
            # Several build workers may draw one problem: each set goes to
            # the one that claims it first (the claim is removed with the
            # set saved, or given up; a stale one only costs a late draw).
            claim = path + ".claim"
            try:
                os.close(os.open(claim, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644))
            except FileExistsError:
                rec["claimed"] += 1
                continue
            try:
                # Saved by the claim's last holder between the look above
                # and the claim (it saves, then gives the claim up).
                if present(path):
                    continue
                raw, state, _, size, on_cpu = self.draw(s, cuda_state=False)
                note_bytes(size)
                if not on_cpu or not self.keepable(size):
                    rec["stopped"] = ("over input_cache_mb" if on_cpu
                                      else "drawn on the device")
                    break
                try:
                    self.save_draw(path, raw, state)
                except (OSError, RuntimeError) as e:
                    # The disk, not the problem (torch's zip writer says
                    # RuntimeError on a short write): the job goes on, the
                    # run worker draws the set itself.
                    rec["stopped"] = "saving failed: %s" % exc_text(e)
                    break
                rec["drawn"] += 1
                note_bytes(file_bytes(path))   # what the budget counts
            finally:
                os.unlink(claim)
        rec["seconds"] = round(time.monotonic() - t0, 3)
        rec["ended"] = round(time.time(), 3)
        rec["fast"] = self.fast_draws
        self.restore_rng(before)
        return rec

    def write_recipe(self, seeds):
        """A build worker's draw when the run worker's keeper draws (cfg.recipes):
        <inputs_key>-recipe in the inputs directory (removed with the
        problem's sets, by the key and "-") says how to draw the
        problem's sets -- its code and the seeds -- and the keeper draws
        them itself, into pinned memory and on to the device (Keeper.draw):
        no set goes through a file.  Written whole (a name of this
        process's, then rename); seeds another job's recipe named are kept."""
        path = os.path.join(self.cfg.inputs_dir, self.inputs_key() + "-recipe")
        old = read_recipe(path)
        if old is not None and set(seeds) <= set(old["seeds"]):
            return
        if old is not None:
            seeds = old["seeds"] + [s for s in seeds if s not in old["seeds"]]
        tmp = "%s.%d.tmp" % (path, os.getpid())
        with open(tmp, "w") as f:
            json.dump({"problem_code": self.m["problem_code"],
                       "problem_file": self.m.get("problem_file", "problem.py"),
                       "seeds": seeds}, f)
        os.replace(tmp, path)

    def fresh_inputs(self, seed):
        """set_seed(seed); get_inputs(); placed -- from the job's draws: the
        same values, placed afresh (never objects another call saw), and
        the RNG state the draw left restored, so nothing downstream can
        tell the draw from a load."""
        t = self.torch
        kept = self.draws[seed]
        if kept is None:
            # A set with no room to keep (keepable) is drawn when used,
            # KernelBench's own way, and kept until the next such draw:
            # the timing seed's set serves both timing loops (on the H200
            # a 1.6 G-element set takes 10 s to draw on the CPU).
            if self.late_seed is not None:
                self.draws[self.late_seed] = None
            raw, state, cuda_state, _, _ = self.draw(seed)
            kept = self.draws[seed] = (raw, state, cuda_state)
            self.late_seed = seed
            ic = self.checks.get("input_cache")
            if ic is not None:              # how many draws the job made late
                ic["late_draws"] = ic.get("late_draws", 0) + 1
        self.set_seed(seed)                 # the CUDA generator, as set_seed does
        raw, state = kept[0], kept[1]
        if self.cuda and kept[2] is not None:
            t.cuda.set_rng_state(kept[2])
        t.set_rng_state(state)
        out = []
        for x in raw:
            y = self.place(x)
            if isinstance(x, t.Tensor) and y.data_ptr() == x.data_ptr():
                y = y.clone()
            out.append(y)
        return out

    def time_faithful(self):
        # KernelBench: set_seed(seed); inputs = get_inputs(); timed outside no_grad.
        cand_times, how = self.kb_loop(self.new, self.fresh_inputs(self.seed))
        ref_times, _ = self.kb_loop(self.ref, self.fresh_inputs(self.seed))
        cs, rs = self.stats(cand_times), self.stats(ref_times)
        self.checks["timing"] = how
        self.result.update(runtime_ms=cs["mean"], runtime_stats=cs, baseline_ms=rs["mean"],
                           baseline_stats=rs, baseline="eager",
                           speedup=finite(rs["mean"] / cs["mean"]) if cs["mean"] else None)
        if self.m.get("compile_baseline"):
            self.time_compiled(cs["mean"])

    def time_compiled(self, cand_mean):
        """Optional second baseline: torch.compile of the reference
        (inductor, default mode), timed with the same loop; its warm-ups
        absorb the compilation.  Recorded in checks.baselines; a failure
        is recorded there and changes nothing else."""
        rec = self.checks.setdefault("baselines", {})["compile_inductor_default"] = {}
        t0 = time.monotonic()
        try:
            compiled = self.torch.compile(self.ref)
            times, _ = self.kb_loop(compiled, self.fresh_inputs(self.seed))
            st = self.stats(times)
            rec.update(stats=st, speedup=finite(st["mean"] / cand_mean) if cand_mean else None)
        except Exception as e:
            rec["error"] = exc_text(e)
        rec["seconds"] = round(time.monotonic() - t0, 3)

    def time_robust(self):
        import numpy as np
        t, m = self.torch, self.m
        rounds = max(2, int(m.get("robust_rounds", 30)))
        rng = np.random.default_rng(self.seed + 1)
        pool = [self.fresh_inputs(s) for s in self.pool_seeds]
        k = len(pool)
        flush = self.flush_bytes(True)
        with t.no_grad():
            for fn in (self.ref, self.new):       # warm-up, one call per input set
                for inp in pool:
                    fn(*inp)
            self.sync()
            ref_t, new_t = [], []
            for r in range(rounds):
                inp = pool[r % k]
                order = [(self.ref, ref_t), (self.new, new_t)]
                if rng.integers(0, 2):
                    order.reverse()
                for fn, acc in order:
                    acc.append(self.time_one(fn, inp, flush, True))
        ref_a, new_a = np.asarray(ref_t), np.asarray(new_t)
        speed = float(np.median(ref_a) / np.median(new_a))
        idx = rng.integers(0, rounds, size=(int(m.get("bootstrap", 1000)), rounds))
        boot = np.median(ref_a[idx], axis=1) / np.median(new_a[idx], axis=1)
        lo, hi = np.percentile(boot, [2.5, 97.5])
        self.checks["timing"] = {"input_sets": k, "rounds": rounds, "flush_bytes": flush,
                                 "order": "interleaved, shuffled per round",
                                 "statistic": "median", "ci": "bootstrap 95% of ratio of medians",
                                 "timer": "cuda_event" if self.cuda else "perf_counter_ns",
                                 "verified": bool(lo > 1.0)}
        cs, rs = self.stats(new_t), self.stats(ref_t)
        self.result.update(runtime_ms=cs["median"], runtime_stats=cs, baseline_ms=rs["median"],
                           baseline_stats=rs, baseline="eager", speedup=finite(speed),
                           ci_low=finite(lo), ci_high=finite(hi))


# ------------------------------------------------------------ the keeper
SET_NAME = re.compile(r"^[0-9a-f]{16}-[0-9]+\.pt$")
RECIPE_NAME = re.compile(r"^[0-9a-f]{16}-recipe$")


def read_recipe(path):
    """A recipe file (Job.write_recipe): {"problem_code", "problem_file",
    "seeds"}, or None when there is none or it is not one."""
    try:
        with open(path) as f:
            r = json.load(f)
    except (OSError, ValueError):
        return None
    if (not isinstance(r, dict) or not isinstance(r.get("problem_code"), str) or
            not isinstance(r.get("seeds"), list) or
            not all(type(x) is int and x >= 0 for x in r["seeds"])):
        return None
    return r


def keeper_budget_mb(cfg):
    """$HEADROOM_DEVICE_INPUTS_MB: MiB of input sets the keeper holds; unset:
    45 % of the GPU's memory on CUDA, 0 (no keeper) on the CPU.  None when
    the value is not a number >= 0."""
    v = os.environ.get("HEADROOM_DEVICE_INPUTS_MB")
    if v is None or v == "":
        return "auto" if cfg.device.startswith("cuda") else 0
    return int(v) if v.isdigit() else None


def fingerprint(torch, xs):
    """Two wrapping int64 sums (of the words and of their squares) of every
    tensor's bytes: a write into a lent set changes them.  Summed where the
    tensor is, in 128 MiB chunks, and read once per tensor, not once per
    chunk (the keeper checks a job's six sets as it ends, and the next
    job's loan waits for that)."""
    out = []
    for x in xs:
        if not isinstance(x, torch.Tensor) or x.numel() == 0:
            out.append(None)
            continue
        b = x.detach().reshape(-1).view(torch.uint8)
        n8 = b.numel() // 8
        w = b[:n8 * 8].view(torch.int64)
        sums = torch.zeros(3, dtype=torch.int64, device=b.device)
        for i in range(0, n8, 1 << 24):
            c = w[i:i + (1 << 24)]
            sums[0] += c.sum()
            sums[1] += (c * c).sum()
        sums[2] = b[n8 * 8:].to(torch.int64).sum()
        out.append(tuple(sums.tolist()))
    return out


class Keeper:
    """The worker's second child: the inputs directory's sets, held in device
    memory (CUDA; shared memory on the CPU) and lent to the jobs.

    A faithful job loads six sets; a 1.6 G-element problem's are 6.4 GB each,
    and loading one from a file takes a second or more.  The keeper loads
    each file once (when a job asks for it, or ahead when idle) and lends it
    over CUDA IPC (torch.multiprocessing's reductions): opening a lent set
    takes milliseconds; the job clones it before use, as it clones a loaded
    one.  What it holds follows the directory: a set whose file the
    orchestrator removed (its problem is done) is dropped; at most the
    budget ($HEADROOM_DEVICE_INPUTS_MB) is held, a set that does not fit is
    not (the job loads the file itself).
    A job could write into a lent set (its own process maps it): the keeper
    fingerprints every set and checks the sets it lent when the job's
    connection closes; a changed set is dropped and reloaded from its file.
    It never runs candidate code and never writes a file."""

    def __init__(self, cfg, torch, sock, budget_mb):
        self.cfg, self.t, self.sock = cfg, torch, sock
        self.budget_mb = budget_mb   # keeper_budget_mb: a number or "auto"
        self.held = {}       # name -> {"inputs", "rng", "bytes", "print", "last"}
        self.lent = {}       # reply socket -> names lent through it
        self.sizes = {}      # name -> bytes of a file loaded once (held or not)
        self.used = 0
        self.take = cfg.take_inputs
        self.stage = None    # to_device's pinned buffers, stream and events
        self.recipes = {}    # inputs key -> its recipe, read once (Keeper.recipe)
        self.drawers = {}    # inputs key -> a Job that draws its sets
        self.bad = set()     # inputs keys whose sets are not drawn here
        self.deferred = []   # (names, reply) asked mid-draw, answered after it

    def log(self, text):
        sys.stderr.write("headroom worker keeper: %s\n" % text)

    def start(self):
        t = self.t
        import torch.multiprocessing as tmp
        self.cuda = self.cfg.device.startswith("cuda")
        if not self.cuda:
            tmp.set_sharing_strategy("file_system")
        self.device = t.device(self.cfg.device)
        if self.cfg.rand is not None:    # this process's copy: the keeper's draws
            self.cfg.rand.pin = self.cuda
            self.cfg.rand.threads = len(os.sched_getaffinity(0))
            try:
                self.cfg.rand.check()
            except Exception as e:   # noqa: whatever it is, one thread is known good
                self.log("the rand library on %d threads: %s; drawing on one"
                         % (self.cfg.rand.threads, exc_text(e)))
                self.cfg.rand.threads = 1
        if self.cuda:
            self.pin_on_threads()
        budget = self.budget_mb
        if budget == "auto":
            budget = int(0.45 * t.cuda.get_device_properties(self.device).total_memory) >> 20
        self.budget = budget << 20

    def pin_on_threads(self):
        """torch's pinned blocks for the keeper's draws (FastRand.pin) by
        cudaHostRegister after the block's pages are touched on threads (a
        power of two, up to the CPUs), not by cudaHostAlloc, which pins on
        one thread: on the H200 the first draw of a run, which allocates an
        8 GiB block, took 3.3-7.2 s of which a set's draw is 0.3 s.  Torch's
        allocator settings (PYTORCH_CUDA_ALLOC_CONF) already given win."""
        conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "") + \
            os.environ.get("PYTORCH_ALLOC_CONF", "")
        if "pinned_" in conf:
            return
        n = 1 << (min(len(os.sched_getaffinity(0)), 128).bit_length() - 1)
        try:
            setting = getattr(self.t._C, "_accelerator_setAllocatorSettings", None) or \
                self.t.cuda.memory._set_allocator_settings     # before torch 2.9
            setting("pinned_use_cuda_host_register:True,pinned_num_register_threads:%d" % n)
        except (RuntimeError, AttributeError) as e:   # another torch: cudaHostAlloc
            self.log("pinned memory through cudaHostAlloc: %s" % exc_text(e))

    def lent_now(self):
        return set().union(*self.lent.values()) if self.lent else set()

    def taken(self, name, names):
        """With --take-inputs: the set's file is gone and only this keeper
        has it, as long as its marker is among names (the directory's
        listing; the orchestrator removes a problem's files, markers
        included, when its last job is done)."""
        return self.take and name + ".held" in names

    def make_room(self, name, size):
        """Drop held sets of other problems, least recently lent first (never
        one a job has now, nor a taken one: that problem's later jobs would
        have to draw it again; on the H200 jobs of two problems that took
        turns drew 2 of their 6 sets again, 10 s each), until size more
        bytes fit; False if they cannot."""
        busy, names = self.lent_now(), self.listing()
        old = sorted((h["last"], n) for n, h in self.held.items()
                     if n[:16] != name[:16] and n not in busy and not self.taken(n, names))
        while self.used + size > self.budget and old:
            self.drop(old.pop(0)[1])
        return self.used + size <= self.budget

    def load(self, name, need=False):
        """Hold the set in file name (the caller checked it is not held);
        when need (a job asks for it), other problems' sets make room.
        With --take-inputs (the run's only GPU worker) the file is removed
        once held: the directory's room goes to the next problem's draws."""
        t = self.t
        path = os.path.join(self.cfg.inputs_dir, name)
        obj = t.load(path, mmap=True, weights_only=True)
        raw = obj["inputs"]
        size = self.sizes[name] = sum(x.numel() * x.element_size() for x in raw
                                      if isinstance(x, t.Tensor))
        if not self.hold(name, raw, obj["rng"].numpy().tobytes(), size, need, {"how": "file"}):
            return False
        del obj, raw
        if self.take:   # the file goes; a marker says the set is held
            try:
                os.close(os.open(path + ".held", os.O_CREAT | os.O_WRONLY, 0o644))
                os.unlink(path)
            except OSError:
                pass
        return True

    def recipe(self, key):
        """The problem's recipe (Job.write_recipe), read once; None when it
        has none, or when drawing it failed or would draw on the device
        (its jobs then draw their sets themselves)."""
        if key in self.bad:
            return None
        r = self.recipes.get(key)
        if r is None:
            r = read_recipe(os.path.join(self.cfg.inputs_dir, key + "-recipe"))
            if r is not None:
                self.recipes[key] = r
        return r

    def draw(self, name, need=False):
        """Hold set name drawn here from its problem's recipe: set_seed(s);
        get_inputs() as a job draws it (Job.draw: the same values, the same
        RNG state), its plain torch.rand calls served by the rand library
        into pinned memory, then copied to the device.  False when there is
        no recipe or the set does not fit."""
        key, seed = name[:16], int(name[17:-3])
        r = self.recipe(key)
        if r is None:
            return False
        t = self.t
        try:
            job = self.drawers.get(key)
            if job is None:
                # The problem's code runs here as in a build worker: under
                # the sandbox (writes only in scratch, cache and inputs).
                self.cfg.sandbox.active = True
                ctx = problem_namespace(r["problem_code"], r.get("problem_file"))
                job = Job({"job": 0, "inputs_key": key, "problem_code": r["problem_code"]},
                          self.cfg, None, t)
                job.get_inputs = ctx["get_inputs"]
                self.drawers[key] = job
            started, t0 = time.time(), time.monotonic()
            raw, state, _, size, on_cpu = job.draw(seed, cuda_state=False)
        except Exception as e:   # noqa: the problem's own error; its jobs meet it too
            self.log("%s: not drawn here: %s" % (name, exc_text(e)))
            self.bad.add(key)
            return False
        if not on_cpu:
            self.bad.add(key)
            return False
        self.sizes[name] = size
        info = {"how": "drawn", "started": round(started, 3),
                "seconds": round(time.monotonic() - t0, 3)}
        return self.hold(name, raw, state.numpy().tobytes(), size, need, info)

    def hold(self, name, raw, rng, size, need, info):
        """Hold a set's inputs raw (size bytes of tensors) with the RNG state
        its draw left, when it fits the budget (need: other problems' sets
        make room).  info says how it came (checks.input_cache)."""
        t = self.t
        if self.used + size > self.budget and not (need and self.make_room(name, size)):
            return False
        held = []
        for x in raw:
            if isinstance(x, t.Tensor):
                x = self.to_device(x) if self.cuda else x.clone().share_memory_()
            held.append(x)
        if self.cuda:
            t.cuda.synchronize(self.device)
        info["ended"] = round(time.time(), 3)
        self.held[name] = {"inputs": held, "rng": rng, "bytes": size,
                           "print": fingerprint(t, held), "last": time.monotonic(),
                           "info": info}
        self.used += size
        return True

    STAGE = 64 << 20     # bytes of each of to_device's two pinned buffers

    def to_device(self, x):
        """A copy of CPU tensor x (a mapped file's) in device memory, through
        two pinned buffers: the copy of one chunk into a buffer (torch's CPU
        threads) overlaps the other's DMA to the device.  A pageable .to()
        of a 6.4 GB set ran at 4-6 GB/s on the H200 machine, and the keeper's
        load of a problem's six sets sat in its first job.  Small or
        non-contiguous tensors take .to()."""
        t = self.t
        n = x.numel() * x.element_size()
        if x.is_pinned():          # drawn here (FastRand.pin): a DMA
            return x.to(self.device, non_blocking=True)
        if n < 2 * self.STAGE or not x.is_contiguous():
            return x.to(self.device)
        if self.stage is None:
            self.stage = ([t.empty(self.STAGE, dtype=t.uint8, pin_memory=True) for _ in range(2)],
                          t.cuda.Stream(self.device), [None, None])
        bufs, stream, done = self.stage
        dst = t.empty(x.shape, dtype=x.dtype, device=self.device)
        src_b, dst_b = x.reshape(-1).view(t.uint8), dst.reshape(-1).view(t.uint8)
        stream.wait_stream(t.cuda.current_stream(self.device))   # dst's memory is free there
        with t.cuda.stream(stream):
            for i, off in enumerate(range(0, n, self.STAGE)):
                k, j = min(self.STAGE, n - off), i % 2
                if done[j] is not None:
                    done[j].synchronize()      # that buffer's last DMA is over
                bufs[j][:k].copy_(src_b[off:off + k])
                dst_b[off:off + k].copy_(bufs[j][:k], non_blocking=True)
                done[j] = t.cuda.Event()
                done[j].record(stream)
        stream.synchronize()
        return dst

    def drop(self, name):
        h = self.held.pop(name, None)
        if h is not None:
            self.used -= h["bytes"]
            del h
            if self.take:   # no longer held: a draw ahead may draw it again
                try:
                    os.unlink(os.path.join(self.cfg.inputs_dir, name + ".held"))
                except OSError:
                    pass
            if self.cuda:
                self.t.cuda.ipc_collect()
                self.t.cuda.empty_cache()

    def mtime(self, name):
        """When the inputs directory's file name was written (the order
        sets and recipes are taken in); gone: last."""
        try:
            return os.stat(os.path.join(self.cfg.inputs_dir, name)).st_mtime
        except OSError:
            return float("inf")

    def listing(self):
        """Every name in the inputs directory (sets, markers, claims)."""
        try:
            return set(os.listdir(self.cfg.inputs_dir))
        except OSError:
            return set()

    def tidy(self, prefetch):
        """Drop the sets whose file (or recipe) is gone; when prefetch, hold
        one new set that fits: drawn from the oldest recipe, else loaded
        from the oldest file.  True when it held one."""
        if self.cuda and self.t.cuda.memory_reserved(self.device) > \
                self.budget + self.budget // 10 + (1 << 30):
            # Sets lent to jobs that were killed are never given back by
            # torch's IPC refcounts (its "limbo"): leave, the worker starts
            # a fresh keeper before its next job.
            self.log("device memory beyond the budget (sets lent to killed jobs): exiting")
            os._exit(0)
        names = self.listing()
        files = {n for n in names if SET_NAME.match(n)}
        recipes = {n[:16] for n in names if RECIPE_NAME.match(n)}
        lent = self.lent_now()
        # Its file, its marker and its recipe gone: the problem is done.
        for name in [n for n in self.held if n not in lent and n not in files and
                     not self.taken(n, names) and n[:16] not in recipes]:
            self.drop(name)
        for n in [n for n in self.sizes if n not in files and n[:16] not in recipes]:
            del self.sizes[n]
        for key in [k for k in set(self.recipes) | set(self.drawers) | self.bad
                    if k not in recipes]:
            self.recipes.pop(key, None)
            self.drawers.pop(key, None)
            self.bad.discard(key)
        if not prefetch:
            return False
        if self.prefetch_drawn(names):
            return True
        # Not held, and not known to be too large for the room left (a
        # file that did not fit is not opened again every tick).
        new = [n for n in files if n not in self.held and
               self.used + self.sizes.get(n, 0) <= self.budget]
        for n in sorted(new, key=self.mtime):
            try:
                if self.load(n):
                    return True
            except Exception as e:   # noqa: a file being removed, out of memory
                self.log("%s not held: %s" % (n, exc_text(e)))
                return False
        return False

    def prefetch_drawn(self, names):
        """Draw one set ahead from the oldest recipe that has one not held,
        when it fits the budget (a set's size is known once one of its
        problem's sets was drawn); True when it drew.  The problems go in
        the order their recipes were written, the order of their jobs."""
        for rn in sorted((n for n in names if RECIPE_NAME.match(n)), key=self.mtime):
            key = rn[:16]
            r = self.recipe(key)
            if r is None:
                continue
            known = [v for n, v in self.sizes.items() if n[:16] == key]
            for seed in r["seeds"]:
                name = "%s-%d.pt" % (key, seed)
                if name in self.held:
                    continue
                est = self.sizes.get(name, max(known, default=0))
                if self.used + est > self.budget:
                    return False       # no room: later problems wait their turn
                try:
                    return self.draw(name)
                except Exception as e:   # noqa: out of memory, a set being removed
                    self.log("%s not drawn: %s" % (name, exc_text(e)))
                    return False
        return False

    def returned(self, s):
        """A job's connection closed: check the sets it was lent."""
        for name in self.lent.pop(s, ()):
            h = self.held.get(name)
            if h is not None and fingerprint(self.t, h["inputs"]) != h["print"]:
                self.log("%s was written by a job: dropped" % name)
                self.drop(name)
        s.close()

    def request(self, held_only=False):
        """A job's request (its set names, and the socket to answer on).
        held_only: asked in the middle of a draw (poll): answered now when
        every set it names is held, else after the draw."""
        msg, fds, _, _ = socket.recv_fds(self.sock, 65536, 1)
        if not msg:
            if held_only:
                os._exit(0)       # the worker is gone, mid-draw
            return False          # the worker is gone
        if not fds:
            return True
        reply = socket.socket(fileno=fds[0])
        try:
            names = [n for n in json.loads(msg).get("sets", []) if SET_NAME.match(n)]
        except (ValueError, AttributeError) as e:
            self.log("request failed: %s" % exc_text(e))
            reply.close()
            return True
        if held_only and not all(n in self.held for n in names):
            self.deferred.append((names, reply))
        else:
            self.answer(names, reply)
        return True

    def poll(self):
        """Between the chunks of a draw (FastRand.between): a job whose sets
        are all held is lent them at once, not a draw later (on the H200
        the jobs that asked while the next problem's 6.4 GB sets were drawn
        ahead waited 1.0-1.4 s each)."""
        if select.select([self.sock], [], [], 0)[0]:
            self.request(held_only=True)

    def answer(self, names, reply):
        """Lend the sets names (loaded or drawn first when not held; what
        cannot be held is left out) through reply."""
        from multiprocessing.reduction import ForkingPickler
        try:
            self.tidy(False)
            out = {}
            for n in names:
                try:
                    if n in self.held:
                        pass
                    elif os.path.exists(os.path.join(self.cfg.inputs_dir, n)):
                        self.load(n, need=True)
                    else:
                        self.draw(n, need=True)
                except Exception as e:   # noqa
                    self.log("%s not held: %s" % (n, exc_text(e)))
                h = self.held.get(n)
                if h is not None:
                    h["last"] = time.monotonic()
                    out[n] = (h["inputs"], h["rng"], h["info"])
            data = bytes(ForkingPickler.dumps(out))
            reply.sendall(len(data).to_bytes(8, "little") + data)
            self.lent[reply] = set(out)
        except Exception as e:   # noqa: the job loads its files itself
            self.log("request failed: %s" % exc_text(e))
            reply.close()

    def serve(self):
        busy = False      # the last idle tick held a set: look again at once
        if self.cfg.rand is not None:
            self.cfg.rand.between = self.poll    # this process's copy
        while True:
            while self.deferred:
                self.answer(*self.deferred.pop(0))
            r, _, _ = select.select([self.sock] + list(self.lent), [], [],
                                    0 if busy else 0.25)
            for s in [s for s in r if s is not self.sock]:
                if not s.recv(1):
                    self.returned(s)
            if self.sock in r:
                if not self.request():
                    return
            elif not r:
                busy = self.tidy(True)


def keeper_main(cfg, torch, sock, budget_mb):
    """The keeper child; never returns."""
    code = 0
    try:
        os.setpgid(0, 0)
        set_pdeathsig()
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        k = Keeper(cfg, torch, sock, budget_mb)
        k.start()
        k.serve()
    except BaseException as e:   # noqa: jobs load their files themselves
        sys.stderr.write("headroom worker keeper: stopped: %s\n" % exc_text(e))
        code = 1
    finally:
        os._exit(code)


def start_keeper(cfg, torch):
    """Fork the keeper; returns the socket jobs ask it through, or None."""
    if not cfg.keeper_wanted:
        return None
    budget = keeper_budget_mb(cfg)
    if budget is None:
        sys.stderr.write("headroom worker: HEADROOM_DEVICE_INPUTS_MB=%s is not a number of "
                         "MiB; no keeper\n" % os.environ.get("HEADROOM_DEVICE_INPUTS_MB"))
        return None
    if budget == 0:
        return None
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        mine.close()
        keeper_main(cfg, torch, theirs, budget)
    theirs.close()
    cfg.keeper_pid = pid
    return mine


def recv_exact(sock, n):
    """n bytes from sock, or None when it closes first."""
    data = bytearray()
    while len(data) < n:
        b = sock.recv(min(n - len(data), 1 << 20))
        if not b:
            return None
        data += b
    return bytes(data)


def borrow(cfg, torch, names, secs, timeout=300):
    """A job asks the keeper for the sets in files names: {name: (inputs,
    rng state bytes)} for those it holds, {} when there is no keeper or it
    does not answer.  secs gets where the time went: "context" (the job's
    CUDA context, made meanwhile), "answer" (the rest of the wait for the
    keeper's answer), "open" (unpacking it: CUDA IPC opens)."""
    if cfg.keeper is None or not names:
        return {}
    import pickle
    import torch.multiprocessing  # noqa: F401  the reductions that unpickle lent sets
    mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        socket.send_fds(cfg.keeper, [json.dumps({"sets": names}).encode()], [theirs.fileno()])
        theirs.close()
        took = {}
        laps = Laps(took)
        if cfg.device.startswith("cuda"):
            # The job's CUDA context (0.23 s, the median on the H200), made
            # while the keeper checks the sets the last job gave back and
            # packs the answer.
            torch.zeros(1, device=cfg.device)
        laps.lap("context")
        mine.settimeout(timeout)
        head = recv_exact(mine, 8)
        data = head and recv_exact(mine, int.from_bytes(head, "little"))
        laps.lap("answer")
        if data is None:
            mine.close()
            return {}
        out = pickle.loads(data)
        laps.lap("open")
        secs.update(took)
        cfg.keeper_conn = mine      # closed when the job ends: the keeper then checks
        return out
    except (OSError, ValueError, EOFError, RuntimeError) as e:
        sys.stderr.write("headroom worker: keeper: %s\n" % exc_text(e))
        mine.close()
        return {}


# -------------------------------------------------------- the process
def llc_bytes():
    """Size of the largest CPU cache (sysfs), 32 MiB when unknown."""
    best = 0
    base = "/sys/devices/system/cpu/cpu0/cache"
    try:
        for d in os.listdir(base):
            with open(os.path.join(base, d, "size")) as f:
                s = f.read().strip()
            mult = {"K": 1 << 10, "M": 1 << 20}.get(s[-1:], 1)
            best = max(best, int(s.rstrip("KM")) * mult)
    except (OSError, ValueError):
        pass
    return best or 32 << 20


SMI_FIELDS = "name,driver_version,compute_cap,clocks.sm,clocks.mem,clocks.max.sm,uuid"


def nvidia_smi_start(index):
    """Start the one nvidia-smi query of the worker (its GPU's name, driver,
    compute capability, clocks, uuid); it runs while torch is imported
    (smi_answer).  None when nvidia-smi cannot run."""
    try:
        return subprocess.Popen(["nvidia-smi", "--query-gpu=" + SMI_FIELDS,
                                 "--format=csv,noheader", "-i", str(index)],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                stdin=subprocess.DEVNULL, text=True)
    except OSError:
        return None


def smi_answer(proc):
    """The query's fields by name ({} when it failed or took over 20 s)."""
    if proc is None:
        return {}
    try:
        out, _ = proc.communicate(timeout=20)
    except subprocess.SubprocessError:
        proc.kill()
        proc.wait()
        return {}
    vals = [v.strip() for v in out.strip().split(",")]
    fields = SMI_FIELDS.split(",")
    return dict(zip(fields, vals)) if proc.returncode == 0 and len(vals) == len(fields) else {}


def hello(cfg, torch):
    info = {"type": "hello", "protocol": PROTOCOL, "pid": os.getpid(),
            "python": platform.python_version(), "torch": torch.__version__,
            "cuda": torch.version.cuda, "device": cfg.device, "arch": cfg.arch,
            "verify": cfg.verify.path if cfg.verify else None,
            "verify_error": cfg.verify_error, "keeper_pid": cfg.keeper_pid,
            "rand": cfg.rand.path if cfg.rand else None, "rand_error": cfg.rand_error,
            "fs_jail": cfg.jail.describe(),
            "start_seconds": cfg.start_s}
    if cfg.device.startswith("cuda"):
        smi = cfg.smi
        info.update(gpu_name=smi.get("name"), driver=smi.get("driver_version"),
                    gpu_uuid=smi.get("uuid"),
                    clocks={k: smi.get(k) for k in ("clocks.sm", "clocks.mem", "clocks.max.sm")})
    else:
        model = None
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        model = line.split(":", 1)[1].strip()
                        break
        except OSError:
            pass
        info.update(gpu_name=None, driver=None, cpu=model, llc_bytes=cfg.llc_bytes)
    return info


def prctl(option, arg):
    """Linux prctl(2) through libc: True when it took."""
    try:
        return LIBC.prctl(option, arg, 0, 0, 0) == 0
    except AttributeError:
        return False


def set_pdeathsig():
    """Die with the parent (PR_SET_PDEATHSIG)."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def set_subreaper():
    """Become the parent of every orphan among this process's descendants
    (PR_SET_CHILD_SUBREAPER), so that sweep finds what a job left running
    outside its process group."""
    prctl(PR_SET_CHILD_SUBREAPER, 1)


def child(msg, cfg, proto, torch, done_fd):
    """Run one job in the forked child; never returns.  Once its result is
    sent and the lent sets are given back, a byte on done_fd tells the
    parent the job is over (serve): the process's teardown is not waited
    for."""
    code = 0
    cfg.job_t0 = time.monotonic()
    try:
        os.setpgid(0, 0)
        set_pdeathsig()
        fd = os.open(os.devnull, os.O_RDONLY)
        os.dup2(fd, 0)
        jobdir = os.path.join(cfg.scratch, "job-%s" % msg["job"])
        os.makedirs(jobdir, exist_ok=True)
        os.chdir(jobdir)
        for k in ("HOME", "TMPDIR", "TMP", "TEMP"):
            os.environ[k] = jobdir
        # Compilers torch may call keep their caches beside the extensions.
        os.environ.setdefault("TORCHINDUCTOR_CACHE_DIR", os.path.join(cfg.cache, "inductor"))
        os.environ.setdefault("TRITON_CACHE_DIR", os.path.join(cfg.cache, "triton"))
        import tempfile
        tempfile.tempdir = None
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if cfg.mem_limit_mb and not cfg.device.startswith("cuda"):
            lim = cfg.mem_limit_mb << 20
            resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
        # A build's place in the run (message field "nice", the
        # orchestrator's: builds dispatched earlier go first); only ever
        # lower than the worker's own priority.
        nice = msg.get("nice")
        if type(nice) is int and os.getpriority(os.PRIO_PROCESS, 0) < nice <= 19:
            try:
                os.setpriority(os.PRIO_PROCESS, 0, nice)
            except OSError:
                pass
        cfg.sandbox.roots = [os.path.realpath(r) for r in
                             (cfg.scratch, cfg.cache, cfg.inputs_dir)]
        jail_error = None
        if cfg.jail.abi:
            try:
                cfg.jail.apply(cfg.sandbox.roots)
            except OSError as e:   # the audit hook alone, as without Landlock
                jail_error = str(e)
        cfg.sandbox.active = True
        job = Job(msg, cfg, proto, torch)
        result = job.run()
        if jail_error:
            result["checks"]["fs_jail_error"] = jail_error
        cfg.sandbox.active = False
        proto.send(result)
        job.give_back()
        os.write(done_fd, b"!")
    except BaseException as e:  # noqa: the child must always answer
        cfg.sandbox.active = False
        try:
            proto.send({"type": "result", "job": msg.get("job"), "verdict": "crashed",
                        "error_kind": "worker", "error": exc_text(e)})
            os.write(done_fd, b"!")
        except OSError:
            code = 70
    finally:
        os._exit(code)


def children_cpu():
    """User + system CPU seconds of this process's children that were
    waited for (a build's ninja and, through it, the compilers)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def proc_fields(pid):
    """The fields of /proc/PID/stat after the command's name (state,
    ppid, ...), or None."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[-1].split()
    except OSError:
        return None


def proc_state(pid):
    """The state letter of /proc/PID/stat ("R", "S", "Z", ...), or None."""
    fields = proc_fields(pid)
    return fields[0] if fields else None


def sweep(cfg):
    """Kill and reap this worker's children it did not fork itself: what a
    job left running outside its process group (setsid, setpgid), which
    killpg missed and which became the worker's once the job's process
    ended (set_subreaper).  Where no job runs (reap); returns how many."""
    known, killed = set(cfg.dying) | {cfg.keeper_pid}, 0
    for pid in sorted(own_children() - known):
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            killed += 1
        except (OSError, ChildProcessError):
            pass
    return killed


def own_children():
    """This process's children: each thread's /proc/self/task/TID/children,
    or, where the kernel has no such file, the processes whose ppid is
    this one (a scan of /proc; on the development machine, with 65
    processes, 3 ms against 1 ms for the children files)."""
    pids = set()
    try:
        for tid in os.listdir("/proc/self/task"):
            with open("/proc/self/task/%s/children" % tid) as f:
                pids.update(int(p) for p in f.read().split())
        return pids
    except OSError:
        pass
    me = str(os.getpid())
    for name in os.listdir("/proc"):
        fields = proc_fields(int(name)) if name.isdigit() else None
        if fields and len(fields) > 1 and fields[1] == me:
            pids.add(int(name))
    return pids


def keeper_alive(cfg, torch):
    """Before a job: a keeper that exited (crashed, killed, or left on its
    own: see Keeper.tidy) is started again; its sets are loaded anew."""
    if not cfg.keeper_pid:
        return
    try:
        pid, _ = os.waitpid(cfg.keeper_pid, os.WNOHANG)
        # Killed, but not reapable yet: a CUDA process's main thread is a
        # zombie while its other threads are still in the driver's
        # teardown (seen on the H200).  Wait for it (up to 30 s) rather
        # than lend through a keeper that is going.
        deadline = time.monotonic() + 30
        while not pid and proc_state(cfg.keeper_pid) == "Z" and time.monotonic() < deadline:
            time.sleep(0.05)
            pid, _ = os.waitpid(cfg.keeper_pid, os.WNOHANG)
    except ChildProcessError:
        pid = cfg.keeper_pid
    if pid:
        sys.stderr.write("headroom worker: the keeper exited; starting another\n")
        cfg.keeper.close()
        cfg.keeper_pid, cfg.keeper = None, None
        cfg.keeper = start_keeper(cfg, torch)


def reap(cfg, keep):
    """Wait for the job processes serve killed after their answer (their
    CUDA teardown overlaps the next job) until at most keep are left."""
    while len(cfg.dying) > keep:
        pid = cfg.dying.pop(0)
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    for pid in list(cfg.dying):
        try:
            if os.waitpid(pid, os.WNOHANG)[0]:
                cfg.dying.remove(pid)
        except ChildProcessError:
            cfg.dying.remove(pid)
    n = sweep(cfg)
    if n:
        sys.stderr.write("headroom worker: killed %d process%s an earlier job left "
                         "outside its process group\n" % (n, "es" if n > 1 else ""))


def job_over(pid, done_r):
    """Wait until the job's child says it answered (its byte on done_r:
    returns None) or ends without saying so (returns its exit status).
    A stray the job forked may hold done_r's other end, so the child's
    end is watched too (a pidfd; where there is none, polled)."""
    pidfd = None
    if hasattr(os, "pidfd_open"):
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            pidfd = None
    try:
        while True:
            watch = [done_r] + ([pidfd] if pidfd is not None else [])
            ready, _, _ = select.select(watch, [], [], None if pidfd is not None else 0.02)
            if done_r in ready:
                if os.read(done_r, 1):
                    return None
                _, status = os.waitpid(pid, 0)   # closed: the child has ended
                return status
            got, status = os.waitpid(pid, os.WNOHANG)
            if got:
                return status
    finally:
        if pidfd is not None:
            os.close(pidfd)


def serve(msg, cfg, proto, torch):
    """Run one job in a forked child.  The job is over when the child has
    sent its result (then its process group is killed at once, and its
    teardown -- a CUDA context, tens of GB freed -- overlaps the next job:
    exit's status is null) or when it ended without one (exit's status is
    its exit code, or minus the signal)."""
    keeper_alive(cfg, torch)
    reap(cfg, 1)    # at most one job's teardown beside the next job
    # The child waits for one byte, so "start" is always the job's first line.
    go_r, go_w = os.pipe()
    done_r, done_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(go_w)
        os.close(done_r)
        os.read(go_r, 1)
        os.close(go_r)
        child(msg, cfg, proto, torch, done_w)
    os.close(go_r)
    os.close(done_w)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    proto.send({"type": "start", "job": msg["job"], "pid": pid})
    os.write(go_w, b"!")
    os.close(go_w)
    try:
        status = job_over(pid, done_r)
    finally:
        os.close(done_r)
    try:
        os.killpg(pid, signal.SIGKILL)     # the child, when it answered; strays it forked
    except OSError:
        pass
    if status is None:
        cfg.dying.append(pid)
    shutil.rmtree(os.path.join(cfg.scratch, "job-%s" % msg["job"]), ignore_errors=True)
    proto.send({"type": "exit", "job": msg["job"],
                "status": None if status is None else os.waitstatus_to_exitcode(status)})


def preload(torch):
    """Import, once in the fork server, what every job imports: the jobs
    inherit it (torch.utils.cpp_extension alone took 0.25-0.35 s a job, the
    bulk of a cached extension's 'build' phase).  cpp_extension asks
    torch.cuda.is_available() at import, only to print a warning; asking
    the driver here would initialise CUDA in the process every job is
    forked from, which CUDA does not survive.  So the question is answered
    without the driver while the import runs."""
    real = torch.cuda.is_available
    torch.cuda.is_available = lambda: True
    try:
        import numpy  # noqa: F401
        import torch.utils.cpp_extension  # noqa: F401
    finally:
        torch.cuda.is_available = real


def parse_args(argv):
    p = argparse.ArgumentParser(description="headroom replay worker (docs/replay.md)")
    p.add_argument("--device", default="cpu", help="cpu or cuda (the one visible GPU)")
    p.add_argument("--gpu-index", default="0", help="physical index, for nvidia-smi")
    p.add_argument("--scratch", required=True, help="the only directory written")
    p.add_argument("--cache", help="extension build cache (default SCRATCH/cache)")
    p.add_argument("--inputs", help="input sets shared by the run's workers "
                   "(default SCRATCH/inputs)")
    p.add_argument("--verify-lib", help="libhrverify.so to load with ctypes")
    p.add_argument("--rand-lib", help="libhrrand.so: torch.rand's CPU stream for the "
                   "input draws (checked against torch first)")
    p.add_argument("--mem-limit-mb", type=int, default=0, help="RLIMIT_AS per job (CPU)")
    p.add_argument("--keeper", action="store_true", dest="keeper_wanted",
                   help="a run worker: fork the keeper, which holds input sets in device "
                   "memory for the jobs ($HEADROOM_DEVICE_INPUTS_MB)")
    p.add_argument("--take-inputs", action="store_true",
                   help="the run's only reader of --inputs: the keeper removes the files "
                   "it holds")
    return p.parse_args(argv)


def main(argv):
    cfg = parse_args(argv)
    set_subreaper()
    # Protocol stream first: fd 1 becomes stderr so nothing imported later
    # (torch, the candidate, a compiler) can write on the protocol.
    proto = Proto(os.dup(1))
    os.set_inheritable(proto.fd, True)
    os.dup2(2, 1)
    cfg.scratch = os.path.realpath(cfg.scratch)
    cfg.cache = os.path.realpath(cfg.cache or os.path.join(cfg.scratch, "cache"))
    os.makedirs(cfg.scratch, exist_ok=True)
    os.makedirs(cfg.cache, exist_ok=True)
    cfg.inputs_dir = os.path.realpath(cfg.inputs or os.path.join(cfg.scratch, "inputs"))
    os.makedirs(cfg.inputs_dir, exist_ok=True)
    cfg.llc_bytes = llc_bytes()
    cfg.verify, cfg.verify_error = None, None
    if cfg.verify_lib:
        try:
            cfg.verify = Verify(cfg.verify_lib)
        except (OSError, AttributeError) as e:
            cfg.verify_error = "%s: %s" % (cfg.verify_lib, e)
    smi = nvidia_smi_start(cfg.gpu_index) if cfg.device.startswith("cuda") else None
    import torch  # after the fd switch; never initialises CUDA here
    cfg.start_s = {"import": round(time.monotonic() - T0, 3)}
    preload(torch)
    t0 = time.monotonic()
    cfg.smi = smi_answer(smi)
    cfg.start_s["nvidia_smi_wait"] = round(time.monotonic() - t0, 3)
    if cfg.device == "cuda" and not os.environ.get("TORCH_CUDA_ARCH_LIST"):
        cap = cfg.smi.get("compute_cap")
        if cap:   # build for this GPU only; part of the cache key
            os.environ["TORCH_CUDA_ARCH_LIST"] = cap
    cfg.arch = ("sm_" + os.environ.get("TORCH_CUDA_ARCH_LIST", "?").replace(".", "")
                if cfg.device == "cuda" else "cpu-" + platform.machine())
    cfg.rand, cfg.rand_error = None, None
    if cfg.rand_lib:
        t0 = time.monotonic()
        try:
            cfg.rand = FastRand(cfg.rand_lib, torch)
            cfg.rand.check_forked()
        except (OSError, AttributeError) as e:
            cfg.rand, cfg.rand_error = None, "%s: %s" % (cfg.rand_lib, e)
        cfg.start_s["rand_check"] = round(time.monotonic() - t0, 3)
    cfg.sandbox = Sandbox([cfg.scratch, cfg.cache, cfg.inputs_dir])
    # Every job restricts itself; HEADROOM_FS_JAIL=0 leaves it to the
    # audit hook (the orchestrator refuses values other than 0 and 1).
    cfg.jail = Landlock("HEADROOM_FS_JAIL=0"
                        if os.environ.get("HEADROOM_FS_JAIL") == "0" else None)
    # A build worker of a run whose run worker has a keeper that draws
    # leaves the draws to it: a draw ahead writes the problem's recipe
    # (Job.write_recipe).  The keeper draws with the rand library only.
    budget = keeper_budget_mb(cfg)
    cfg.recipes = (not cfg.keeper_wanted and cfg.rand is not None and
                   budget is not None and budget != 0)
    cfg.keeper_pid, cfg.job_t0, cfg.dying = None, None, []
    # The hook (inactive until a job, or the keeper's first draw, turns it
    # on) before the keeper's fork: the keeper runs problem code too.
    sys.addaudithook(cfg.sandbox.hook)
    # What the imports made lives as long as this process: out of the
    # cycle collector's sight (gc.freeze), so that a job's gc.collect
    # (give_back), on the way to its answer, walks the job's own objects
    # only.  With torch imported a full collection walked 177 k objects in
    # 0.13 s (the H200 machine and the 2-core development machine alike);
    # frozen, under 0.1 ms (docs/benchmarks.md).  The keeper and the jobs
    # fork from here.  No collection first: here it found nothing to free
    # and took 0.09 s of the start.
    gc.freeze()
    cfg.keeper = start_keeper(cfg, torch)
    cfg.start_s["hello"] = round(time.monotonic() - T0, 3)
    proto.send(hello(cfg, torch))
    for line in sys.stdin:
        try:
            msg = json.loads(line)
        except ValueError as e:
            proto.send({"type": "error", "error": "bad request: %s" % e})
            continue
        if msg.get("op") == "quit":
            break
        if msg.get("op") == "job":
            serve(msg, cfg, proto, torch)
        else:
            proto.send({"type": "error", "error": "unknown op %r" % msg.get("op")})
    reap(cfg, 0)
    return 0


if __name__ == "__main__":
    rc = main(sys.argv[1:])
    # Everything is answered and every job process reaped: skip the
    # interpreter's teardown (torch's takes a second or more; the
    # orchestrator waits for every worker to exit).
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)
