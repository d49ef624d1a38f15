"""hrworker/audit.py - the dynamic audit of one job: evidence that a
candidate's verdict or time does not mean what it says.  Each finding goes
into the result's "findings" list as {"id", "evidence"} (docs/replay.md,
Verdicts): inputs-redefined, partial-write, result-cached,
timing-path-differs, nondeterministic, input-mutated, output-aliases-input,
output-not-tensor, harness-patched, below-physical-floor.  This module
holds the means (what a namespace rebinds, memory poisoning, fingerprints,
the harness's references, the bandwidth floor); checks.py and timing.py
call them where the job's calls happen.
Must not: change what the original harness computes in a faithful job (the
audit's own calls come after the faithful ones, or beside them)."""
import ctypes
import os
import time

from hrworker.util import set_bytes


def finding(fid, **evidence):
    """A finding as a result's "findings" list holds it."""
    return {"id": fid, "evidence": evidence}


def add_finding(ctx, fid, **evidence):
    """One finding of ctx's job (once per id: the first evidence is kept,
    later ones are counted)."""
    found = ctx.result.setdefault("findings", [])
    for f in found:
        if f["id"] == fid:
            f["evidence"]["times_seen"] = f["evidence"].get("times_seen", 1) + 1
            return
    found.append(finding(fid, **evidence))


class spent:
    """with spent(ctx, part, what): adds the block's seconds to
    checks.audit_seconds[part] (what the audit's own calls cost the job,
    beside its phase seconds) and to checks.audit_parts["part.what"]
    (which of the part's checks they went to; tests/gpu/audit_cost.py
    sums them over a run)."""

    def __init__(self, ctx, part, what):
        self.ctx, self.part, self.what = ctx, part, what

    def __enter__(self):
        self.t0 = time.monotonic()

    def __exit__(self, *exc):
        dt = time.monotonic() - self.t0
        for key, name in (("audit_seconds", self.part),
                          ("audit_parts", "%s.%s" % (self.part, self.what))):
            d = self.ctx.checks.setdefault(key, {})
            d[name] = round(d.get(name, 0.0) + dt, 4)
        return False


# ------------------------------------------------------------ namespaces
def code_reads(fn, ns, seen=None):
    """The global names fn's code reads, and those of the namespace's
    functions it reads, transitively (a helper of get_inputs reads
    batch_size too)."""
    seen = set() if seen is None else seen
    code = getattr(fn, "__code__", None)
    if code is None or code in seen:
        return set()
    seen.add(code)
    names, stack = set(), [code]
    while stack:
        c = stack.pop()
        names.update(c.co_names)
        stack.extend(k for k in c.co_consts if hasattr(k, "co_names"))
    for n in list(names):
        g = ns.get(n)
        if callable(g) and getattr(g, "__globals__", None) is ns:
            names |= code_reads(g, ns, seen)
    return names


def binding(ns, name):
    """What name is bound to in ns, for comparison: the object, or a
    marker when unbound."""
    return ns[name] if name in ns else _UNBOUND


_UNBOUND = object()


def same_binding(a, b):
    """One object, or equal plain values (batch_size = 16 again is no
    rebinding)."""
    if a is b:
        return True
    plain = (int, float, str, bytes, bool, tuple, type(None))
    return type(a) is type(b) and isinstance(a, plain) and a == b


def namespace_snapshot(ns, fns):
    """Before candidate code runs in ns: every name of ns and every name
    the problem's input functions read, with its binding."""
    names = {n for n in ns if not n.startswith("__")}
    for fn in fns:
        names |= code_reads(fn, ns)
    return {n: binding(ns, n) for n in names}


def rebound(snapshot, ns):
    """The names of snapshot whose binding in ns changed (sorted)."""
    return sorted(n for n, b in snapshot.items() if not same_binding(b, binding(ns, n)))


def describe(torch, values):
    """What a call was given, shape by shape: [shape, dtype] per tensor,
    the value of a plain number, else the type's name."""
    out = []
    for x in values:
        if isinstance(x, torch.Tensor):
            out.append([list(x.shape), str(x.dtype).replace("torch.", "")])
        elif isinstance(x, (int, float, bool)) or x is None:
            out.append(x)
        else:
            out.append(type(x).__name__)
    return out


def clean_inputs_description(torch, code, filename, seed, problem_namespace):
    """The problem's own inputs, as a clean namespace draws them (no
    candidate code ever ran in it): their description, drawn on the meta
    device (shapes and dtypes only, no memory)."""
    ns = problem_namespace(code, filename)
    torch.manual_seed(seed)
    with torch.device("meta"):
        return describe(torch, ns["get_inputs"]())


# ------------------------------------------------------------ coverage
# The NaN payload memory holds before a candidate's call.  CPU: c10's
# allocator junk (c10/core/impl/alloc_cpu.cpp memset_junk: the word
# 0x7fedbeef, an fp32 NaN; in 2-byte elements it reads 0xbeef, 0x7fed in
# turn, of which only 0x7fed is a NaN, so half the elements are counted).
# CUDA: the verify library's payload, 0x7FA57FA5 (hrv_poison_bits: a NaN
# in fp32, and 0x7FA5 in fp16 and bf16 alike).
C10_JUNK = 0x7fedbeef
HRV_POISON32 = 0x7FA57FA5


class Poison:
    """Fills the memory a candidate's output may come from with a NaN
    payload before a call (fill) and says which raw bits to count in its
    output (bits).  CPU: c10's allocator fills each new allocation while
    the flag FLAGS_caffe2_cpu_allocator_do_junk_fill is set (libc10's
    exported flag, through ctypes).  CUDA: the caching allocator's free
    blocks (after empty_cache: those of segments in use) and one block
    twice the output's size are allocated, filled and freed again, so
    that the candidate's next allocations hand out poisoned memory.
    available is False (and why says why) where neither can be done."""

    def __init__(self, torch, cuda, device):
        self.torch, self.cuda, self.device = torch, cuda, device
        self.flag, self.why = None, None
        if not cuda:
            try:
                lib = ctypes.CDLL(os.path.join(os.path.dirname(torch.__file__), "lib",
                                               "libc10.so"))
                self.flag = ctypes.c_bool.in_dll(lib, "FLAGS_caffe2_cpu_allocator_do_junk_fill")
            except (OSError, ValueError) as e:
                self.why = "c10's junk-fill flag not found: %s" % e
        self.available = cuda or self.flag is not None

    def bits(self, out):
        """The raw bits an unwritten element of out holds (None: a dtype
        without a NaN payload here: integers, bool, 8-byte floats)."""
        size = out.element_size()
        if not out.is_floating_point() or size not in (2, 4):
            return None
        word = HRV_POISON32 if self.cuda else C10_JUNK
        return word if size == 4 else word >> 16

    def fill(self, out_bytes):
        """Before the call (CUDA: poison what the allocator holds free)."""
        if self.cuda:
            t = self.torch
            # What the allocator holds free whole goes back first: otherwise
            # each fill's new block joined the cache's free blocks that the
            # next fill fills again (a 1.6 G-element output's 12 GiB a call:
            # 48 GiB held by the fourth robust trial, and the candidate's
            # call ran out of an 80 GB GPU's memory).
            t.cuda.empty_cache()
            sizes = [2 * out_bytes]
            for seg in t.cuda.memory_snapshot():
                if seg.get("device") != self.device.index and self.device.index is not None:
                    continue
                sizes += [b["size"] for b in seg.get("blocks", ()) if b.get("state") == "inactive"]
            held = []
            fill = HRV_POISON32     # an int32 below 2**31
            for n in sorted(sizes, reverse=True):
                if n >= 4:
                    x = t.empty(n // 4, dtype=t.int32, device=self.device)
                    x.fill_(fill)
                    held.append(x)
            del held
        elif self.flag is not None:
            self.flag.value = True

    def end(self):
        """After the call (CPU: allocations are no longer filled)."""
        if self.flag is not None:
            self.flag.value = False


# ------------------------------------------------------------ fingerprints
# The words fingerprint squares: a strided sample of at most this many.
PRINT_SAMPLE = 1 << 16


def fingerprint(torch, x):
    """Two sums over a tensor's raw words (int64, wrapping): of every word
    (one pass, no temporary as large as the tensor), and of the squares of
    at most PRINT_SAMPLE words taken at even strides.  A change of its
    content shows in the first, barring an adversary who knows it; two
    different outputs that agree on both are a coincidence no honest
    kernel makes."""
    if not isinstance(x, torch.Tensor) or x.numel() == 0:
        return None
    b = x.detach().contiguous().view(-1).view(torch.uint8)
    pad = (-b.numel()) % 8
    if pad:
        b = torch.cat([b, b.new_zeros(pad)])
    w = b.view(torch.int64)
    step = max(1, w.numel() // PRINT_SAMPLE)
    s = w[::step]
    return (int(w.sum().item()), int((s * s).sum().item()) ^ w.numel())


def storage_range(torch, x):
    """The bytes of memory x's storage spans: (start, end), or None."""
    if not isinstance(x, torch.Tensor):
        return None
    try:
        s = x.untyped_storage()
        return (s.data_ptr(), s.data_ptr() + s.nbytes())
    except (RuntimeError, NotImplementedError):
        return None


def aliases(torch, out, inputs):
    """The indices of the inputs whose storage overlaps out's."""
    r = storage_range(torch, out)
    if r is None or r[0] == r[1]:
        return []
    hits = []
    for i, x in enumerate(inputs):
        q = storage_range(torch, x)
        if q is not None and q[0] < r[1] and r[0] < q[1]:
            hits.append(i)
    return hits


# ------------------------------------------------------------ the harness
def harness_refs(torch):
    """What the harness relies on, by name, as it is before candidate code
    runs: the check, the timers, the seeds, the sync, module calls, the
    launch cover and the flush."""
    t = torch
    refs = {
        "torch.allclose": t.allclose, "torch.isclose": t.isclose, "torch.equal": t.equal,
        "torch.manual_seed": t.manual_seed, "torch.rand": t.rand, "torch.randn": t.randn,
        "torch.randint": t.randint, "torch.nn.Module.__call__": t.nn.Module.__call__,
        "torch.nn.Module.to": t.nn.Module.to, "torch.Tensor.to": t.Tensor.to,
        "time.perf_counter": time.perf_counter, "time.perf_counter_ns": time.perf_counter_ns,
        "time.monotonic": time.monotonic,
        "torch.cuda.synchronize": t.cuda.synchronize, "torch.cuda.Event": t.cuda.Event,
        "torch.cuda.Event.record": t.cuda.Event.record,
        "torch.cuda.Event.elapsed_time": t.cuda.Event.elapsed_time,
        "torch.cuda.manual_seed": t.cuda.manual_seed,
        # What a timed call's handshake runs inside the judge's clock and
        # the calibration took off: the launch cover and the flush.  One
        # patched to do less in the timed calls than in the calls of
        # nothing would take the difference off every figure.
        "torch.cuda._sleep": t.cuda._sleep,
        "torch._C._cuda_sleep": getattr(t._C, "_cuda_sleep", None),
        "torch.empty": t.empty, "torch.Tensor.fill_": t.Tensor.fill_,
    }
    return refs


def patched(before, torch, own=None):
    """The names whose object is no longer the one kept (own: the worker's
    own functions, name -> (holder, attribute, object))."""
    now = harness_refs(torch)
    names = [n for n, obj in before.items() if now.get(n) is not obj]
    for n, (holder, attr, obj) in (own or {}).items():
        if getattr(holder, attr, None) is not obj:
            names.append(n)
    return sorted(names)


# ------------------------------------------------------------ the floor
def copy_bytes(cuda):
    """The size of copy_bandwidth's copy: 256 MiB (CPU: 32 MiB)."""
    return (256 if cuda else 32) << 20


def copy_bandwidth(torch, device, cuda):
    """Bytes a second the device moves in a copy (read + write), the best
    of three copies of copy_bytes, measured in this job's process on its
    device (warm: where the cache holds source and destination, the
    cache's bandwidth)."""
    n = copy_bytes(cuda)
    t = torch
    src = t.empty(n // 4, dtype=t.float32, device=device).fill_(1.0)
    dst = t.empty_like(src)
    best = None
    for _ in range(3):
        if cuda:
            a, b = t.cuda.Event(enable_timing=True), t.cuda.Event(enable_timing=True)
            a.record()
            dst.copy_(src)
            b.record()
            t.cuda.synchronize(device)
            s = a.elapsed_time(b) / 1e3
        else:
            t0 = time.perf_counter_ns()
            dst.copy_(src)
            s = (time.perf_counter_ns() - t0) / 1e9
        if s > 0 and (best is None or s < best):
            best = s
    del src, dst
    return 2 * n / best if best else None


# The floor divides the bytes by this many times the measured copy
# bandwidth, so that it stays below what a kernel better than a copy (an
# ideal streaming one) could reach: a time below it is not a fast kernel.
FLOOR_MARGIN = 1.25
# On a CPU, more: a copy's stores first read each line they write
# (write-allocate), so a copy counted as two moves of its size made three,
# and a kernel that only reads goes faster than the copy suggests; and the
# caches and the other processes of the host change between the copy and
# the calls.  An honest row sum of squares on 16 MiB (the CPU sample's
# problem 3) read its input 1.28x faster than the copy bandwidth measured
# in its job on the loaded 2-core development machine, where 1.25 had it
# below the floor.
FLOOR_MARGIN_CPU = 3.0
# How many times the floor's bandwidth is measured at most (Timing.floor):
# again while a time is under the floor, the best kept.
FLOOR_TRIES = 4


def floor_margin(cuda):
    """FLOOR_MARGIN on a GPU, FLOOR_MARGIN_CPU on a CPU."""
    return FLOOR_MARGIN if cuda else FLOOR_MARGIN_CPU


def floor_ms(torch, inputs, bandwidth, cache_bytes=0, cuda=True):
    """The least time a call can take: the bytes of its tensor inputs
    (each must be read once; a flush before the call left none in a cache,
    else cache_bytes of them may be) over floor_margin times the measured
    bandwidth.  Outputs are not counted: a cache may absorb their writes
    before the end of the timed call.  (ms, input bytes), or (None, bytes)
    without a bandwidth."""
    nbytes = set_bytes(torch, inputs)
    if not bandwidth:
        return None, nbytes
    return 1e3 * max(0, nbytes - cache_bytes) / (floor_margin(cuda) * bandwidth), nbytes
