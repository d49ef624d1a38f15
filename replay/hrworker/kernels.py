"""hrworker/kernels.py - the candidate's own code and where a kernel comes
from: the names of the CUDA and Triton kernels its source defines and of
the functions of the extension modules it built (own_names,
loaded_modules), a demangled kernel name's identifier, its origin (own,
cuBLAS, cuDNN, ATen, ...) and the reduced precision its name spells.  The
profiled pass (profiled.py) attributes the call's time by them.
Must not: run or import the candidate's code (it reads names and module
objects only)."""
import re
import sys
import types

_GLOBAL = re.compile(r"__global__\b")
_LAUNCH_BOUNDS = re.compile(r"__launch_bounds__\s*\([^)]*\)")
_TRITON = re.compile(r"@triton\.jit\b[^\n]*\n(?:\s*@[^\n]*\n)*\s*def\s+(\w+)")


def own_names(source="", modules=()):
    """The candidate's own code, by name: the CUDA kernels (__global__
    functions) and Triton kernels (@triton.jit) its source text defines,
    and the functions of the extension modules load_inline built (modules:
    the module objects, or their names in sys.modules)."""
    kernels = set(_TRITON.findall(source or ""))
    for m in _GLOBAL.finditer(source or ""):
        head = _LAUNCH_BOUNDS.sub(" ", source[m.end():m.end() + 400])
        head = head.split("(", 1)[0]
        ids = re.findall(r"[A-Za-z_]\w*", head)
        if ids:
            kernels.add(ids[-1])
    functions, names = set(), []
    for mod in modules:
        if isinstance(mod, str):
            names.append(mod)
            mod = sys.modules.get(mod)
        if mod is None:
            continue
        names.append(getattr(mod, "__name__", "?"))
        functions.update(n for n in dir(mod) if not n.startswith("__")
                         and callable(getattr(mod, n, None)))
    return {"kernels": sorted(kernels), "functions": sorted(functions),
            "modules": sorted(set(names))}



def kernel_id(name):
    """The identifier of a demangled kernel name: "void ns::k<float>(float
    const*, int)" -> "k"; a Triton kernel's name is its function's."""
    s = name.split("(", 1)[0].strip()
    depth, out = 0, []
    for ch in s:                        # drop template arguments
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth = max(0, depth - 1)
        elif depth == 0:
            out.append(ch)
    s = "".join(out).strip().split()
    return s[-1].split("::")[-1] if s else ""


# Where a kernel that is not the candidate's own comes from, first match
# wins (case-insensitive search in the demangled name).  This is the one
# rule for the origin of a kernel; what kind of work a kernel does (gemm,
# convolution, ...) is dataset/maps/kernel-classes.rules' question, asked
# in C of the names this pass keeps.
ORIGINS = (
    ("nccl", r"nccl"),
    ("cudnn", r"cudnn|xmma_(fprop|dgrad|wgrad)|implicit_?gemm|winograd|fft2d"),
    ("cublas", r"cublas|gemm|gemv|nvjet|splitkreduce|cutlass"),
    ("flash-attention", r"flash_fwd|flash_bwd|flash::|fmha|pytorch_flash"),
    ("triton", r"^triton_"),
    ("aten", r"at::|c10::|^aten::|native::|elementwise_kernel|reduce_kernel|"
             r"vectorized_|unrolled_|catarray|index_elementwise|distribution_"),
)
_ORIGINS = [(o, re.compile(p, re.I)) for o, p in ORIGINS]


def kernel_origin(name, own_kernels):
    """"own" when the kernel's identifier is one of own_kernels, else the
    first ORIGINS match, else "other"."""
    if kernel_id(name) in own_kernels:
        return "own"
    for origin, rx in _ORIGINS:
        if rx.search(name):
            return origin
    return "other"


# Reduced precision in a library kernel's name: cuBLAS/CUTLASS/cuDNN spell
# the element types into it (sm90_xmma_gemm_f32f32_tf32f32_f32,
# s16816gemm_fp16, nvjet_hsh_, bf16, ...), ATen's templates name
# c10::Half/c10::BFloat16.  Not read from the candidate's own kernels: their
# names are its to choose (its error against fp64 speaks for them).
REDUCED_NAME = re.compile(r"tf32|bf16|bfloat16|fp16|f16|half|__nv_bfloat|"
                          r"[hs]16816|h1688|nvjet_[hbt]", re.I)
REDUCED_TYPES = ("c10::Half", "c10::BFloat16", "c10::Float8", "half", "bfloat16")


def reduced_kind(name):
    """"tf32", "half" or None for a kernel name."""
    m = REDUCED_NAME.search(name)
    if not m:
        return None
    return "tf32" if "tf32" in m.group(0).lower() or m.group(0).lower() == "nvjet_t" else "half"


def loaded_modules(*holders):
    """The extension modules load_inline built that holders (a namespace
    dict, a model) hold: load_inline's modules are not in sys.modules."""
    mods, seen = [], set()
    for h in holders:
        vals = h.values() if isinstance(h, dict) else vars(h).values() if hasattr(h, "__dict__") else ()
        for m in vals:
            if (isinstance(m, types.ModuleType) and id(m) not in seen
                    and str(getattr(m, "__file__", "")).endswith(".so")):
                seen.add(id(m))
                mods.append(m)
    return mods
