"""hrworker/cudadrv.py - the few CUDA driver API calls the persisting-L2
reset needs (l2.py), by ctypes on libcuda.so.1 (the driver ships it; no
Python package): the context's persisting-L2 limit, a stream's
access-policy window, their reset, device attributes.  PyTorch exposes
neither limit nor window (checked in 2.11).
Must not: make a context of its own (it acts on the current one, torch's
primary context once torch initialised CUDA)."""
import ctypes

from hrworker.util import finite


CU_LIMIT_PERSISTING_L2_CACHE_SIZE = 0x06          # cuda.h CUlimit
CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW = 1      # = CU_STREAM_ATTRIBUTE_...
CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38
CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE = 108
CU_ACCESS_PROPERTY = {0: "normal", 1: "streaming", 2: "persisting"}


class _Window(ctypes.Structure):
    """CUaccessPolicyWindow (cuda.h)."""
    _fields_ = [("base_ptr", ctypes.c_void_p), ("num_bytes", ctypes.c_size_t),
                ("hitRatio", ctypes.c_float), ("hitProp", ctypes.c_int),
                ("missProp", ctypes.c_int)]


class _AttrValue(ctypes.Union):
    """CUstreamAttrValue: a 64-byte union whose access-policy member is
    the window."""
    _fields_ = [("pad", ctypes.c_char * 64), ("accessPolicyWindow", _Window)]


class CudaDriver:
    """The few driver-API calls the L2 reset needs (libcuda.so.1, the one
    instance the process has; its current context is torch's primary one
    once torch initialised CUDA)."""

    def __init__(self):
        self.lib = ctypes.CDLL("libcuda.so.1")

    def err(self, rc):
        if rc == 0:
            return None
        s = ctypes.c_char_p()
        self.lib.cuGetErrorName(rc, ctypes.byref(s))
        return (s.value or b"CUDA error %d" % rc).decode()

    def limit(self):
        v = ctypes.c_size_t()
        e = self.err(self.lib.cuCtxGetLimit(ctypes.byref(v), CU_LIMIT_PERSISTING_L2_CACHE_SIZE))
        return (None, e) if e else (v.value, None)

    def window(self, stream):
        v = _AttrValue()
        e = self.err(self.lib.cuStreamGetAttribute(ctypes.c_void_p(stream),
                                                   CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW,
                                                   ctypes.byref(v)))
        if e:
            return {"error": e}
        w = v.accessPolicyWindow
        return {"base_ptr": w.base_ptr or 0, "num_bytes": w.num_bytes,
                "hit_ratio": finite(w.hitRatio),
                "hit_prop": CU_ACCESS_PROPERTY.get(w.hitProp, w.hitProp),
                "miss_prop": CU_ACCESS_PROPERTY.get(w.missProp, w.missProp)}

    def reset(self, stream):
        errs = [self.err(self.lib.cuCtxSetLimit(CU_LIMIT_PERSISTING_L2_CACHE_SIZE,
                                                ctypes.c_size_t(0))),
                self.err(self.lib.cuCtxResetPersistingL2Cache())]
        v = _AttrValue()                 # an empty window, normal misses
        errs.append(self.err(self.lib.cuStreamSetAttribute(
            ctypes.c_void_p(stream), CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW, ctypes.byref(v))))
        return [e for e in errs if e]

    def device_attr(self, attr, dev):
        v = ctypes.c_int()
        e = self.err(self.lib.cuDeviceGetAttribute(ctypes.byref(v), attr, dev))
        return None if e else v.value


_DRIVER: list[CudaDriver] = []


def driver() -> CudaDriver:
    """The process's CudaDriver, made once: l2_reset runs before every
    timed call of a robust job."""
    if not _DRIVER:
        _DRIVER.append(CudaDriver())
    return _DRIVER[0]

