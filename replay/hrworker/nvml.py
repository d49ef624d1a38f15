"""hrworker/nvml.py - the GPU's clocks and clock-event (throttle) reasons
through NVML, by ctypes on libnvidia-ml.so.1 (the driver ships it; no
Python package): the SM and memory clocks, the reasons bit mask and its
names, and a sampler to call around each timed call that says which
samples were throttled and drops their times.  The judge samples around
each timed call (timing.py: Timing.clock_sampler; docs/replay.md, "GPU
escapes").
Must not: change a clock or any setting (queries only), or fail a job:
where the library or the GPU is missing, open_device returns None and why."""
import ctypes
import statistics

# nvml.h, nvmlClocksEventReasons (formerly ...ThrottleReasons; the same
# bits), checked against NVIDIA's nvml.h as the nvidia-ml-py bindings copy it.
REASONS = (
    (0x0000000000000001, "gpu_idle"),
    (0x0000000000000002, "applications_clocks_setting"),
    (0x0000000000000004, "sw_power_cap"),
    (0x0000000000000008, "hw_slowdown"),
    (0x0000000000000010, "sync_boost"),
    (0x0000000000000020, "sw_thermal_slowdown"),
    (0x0000000000000040, "hw_thermal_slowdown"),
    (0x0000000000000080, "hw_power_brake_slowdown"),
    (0x0000000000000100, "display_clock_setting"),
)
# The reasons that mean the clock is below what the work asked for: power
# and thermal limits and the hardware slowdowns.  Idle (between calls),
# the applications-clocks setting (a configured ceiling, constant over a
# run), sync boost and display clocks are not a slowed sample.
THROTTLING = 0x4 | 0x8 | 0x20 | 0x40 | 0x80

NVML_CLOCK_SM, NVML_CLOCK_MEM = 1, 2      # nvmlClockType_t
NVML_ERROR_INSUFFICIENT_SIZE = 7
NVML_VALUE_NOT_AVAILABLE = (1 << 64) - 1  # usedGpuMemory where NVML does not know it


class ProcessInfo(ctypes.Structure):
    """nvml.h's nvmlProcessInfo_t (nvmlDeviceGetComputeRunningProcesses_v3)."""
    _fields_ = [("pid", ctypes.c_uint), ("usedGpuMemory", ctypes.c_ulonglong),
                ("gpuInstanceId", ctypes.c_uint), ("computeInstanceId", ctypes.c_uint)]


def decode(mask):
    """The names of the bits set in a reasons mask (unknown bits as
    unknown_0x...)."""
    names, rest = [], int(mask)
    for bit, name in REASONS:
        if rest & bit:
            names.append(name)
            rest &= ~bit
    bit = 1
    while rest:
        if rest & bit:
            names.append("unknown_%#x" % bit)
            rest &= ~bit
        bit <<= 1
    return names


def throttled(mask):
    return bool(int(mask) & THROTTLING)


class Device:
    """One GPU's NVML handle (open_device makes it)."""

    def __init__(self, lib, handle, name):
        self.lib, self.handle, self.name = lib, handle, name
        fn = getattr(lib, "nvmlDeviceGetCurrentClocksEventReasons", None)
        self._reasons = fn or lib.nvmlDeviceGetCurrentClocksThrottleReasons

    def _clock(self, kind, fn="nvmlDeviceGetClockInfo"):
        v = ctypes.c_uint()
        rc = getattr(self.lib, fn)(self.handle, kind, ctypes.byref(v))
        return v.value if rc == 0 else None

    def sample(self):
        """{"sm_mhz", "mem_mhz", "reasons_mask", "reasons", "throttled"};
        a query that fails gives None there."""
        r = ctypes.c_ulonglong()
        rc = self._reasons(self.handle, ctypes.byref(r))
        mask = r.value if rc == 0 else None
        return {"sm_mhz": self._clock(NVML_CLOCK_SM), "mem_mhz": self._clock(NVML_CLOCK_MEM),
                "reasons_mask": mask, "reasons": decode(mask) if mask is not None else None,
                "throttled": throttled(mask) if mask is not None else None}

    def max_clocks(self):
        return {"sm_mhz": self._clock(NVML_CLOCK_SM, "nvmlDeviceGetMaxClockInfo"),
                "mem_mhz": self._clock(NVML_CLOCK_MEM, "nvmlDeviceGetMaxClockInfo")}

    def processes(self):
        """{pid: device memory bytes} of the compute processes on this GPU
        (NVML's list, pids as the driver gives them: the host's, which a
        process in another PID namespace does not share; a process whose
        use NVML does not know left out), or None where the query is
        missing or fails."""
        fn = getattr(self.lib, "nvmlDeviceGetComputeRunningProcesses_v3", None)
        if fn is None:
            return None
        n = ctypes.c_uint(0)
        rc = fn(self.handle, ctypes.byref(n), None)
        for _ in range(3):          # the list may grow between the two calls
            if rc == 0 and n.value == 0:
                return {}
            if rc not in (0, NVML_ERROR_INSUFFICIENT_SIZE):
                return None
            cap = n.value + 8
            infos = (ProcessInfo * cap)()
            n = ctypes.c_uint(cap)
            rc = fn(self.handle, ctypes.byref(n), infos)
            if rc == 0:
                return {infos[i].pid: infos[i].usedGpuMemory for i in range(n.value)
                        if infos[i].usedGpuMemory != NVML_VALUE_NOT_AVAILABLE}
        return None

    def close(self):
        self.lib.nvmlShutdown()


def _err(lib, rc):
    try:
        lib.nvmlErrorString.restype = ctypes.c_char_p
        return "%s (%d)" % (lib.nvmlErrorString(rc).decode(), rc)
    except (AttributeError, UnicodeDecodeError):
        return "NVML error %d" % rc


def open_device(index=None, pci_bus_id=None, library="libnvidia-ml.so.1"):
    """(Device, None), or (None, why) when the library, NVML's start or the
    device is missing.  pci_bus_id ("0000:19:00.0") finds the GPU torch
    uses whatever CUDA_VISIBLE_DEVICES says; else NVML's index (0 when
    neither is given)."""
    try:
        lib = ctypes.CDLL(library)
    except OSError as e:
        return None, "%s not loadable: %s" % (library, e)
    for fn in ("nvmlInit_v2", "nvmlDeviceGetClockInfo"):
        if not hasattr(lib, fn):
            return None, "%s has no %s" % (library, fn)
    if not (hasattr(lib, "nvmlDeviceGetCurrentClocksEventReasons")
            or hasattr(lib, "nvmlDeviceGetCurrentClocksThrottleReasons")):
        return None, "%s has no clock-event reasons query" % library
    rc = lib.nvmlInit_v2()
    if rc:
        return None, "nvmlInit_v2: %s" % _err(lib, rc)
    h = ctypes.c_void_p()
    if pci_bus_id:
        rc = lib.nvmlDeviceGetHandleByPciBusId_v2(pci_bus_id.encode(), ctypes.byref(h))
    else:
        rc = lib.nvmlDeviceGetHandleByIndex_v2(int(index or 0), ctypes.byref(h))
    if rc:
        why = "no device %s: %s" % (pci_bus_id or index or 0, _err(lib, rc))
        lib.nvmlShutdown()
        return None, why
    buf = ctypes.create_string_buffer(96)
    name = buf.value.decode(errors="replace") if lib.nvmlDeviceGetName(h, buf, 96) == 0 else None
    return Device(lib, h, name), None


def torch_pci_bus_id(torch, device=None):
    """NVML's bus id of torch's device ("0000:19:00.0"), or None."""
    try:
        p = torch.cuda.get_device_properties(device if device is not None else
                                             torch.cuda.current_device())
        return "%08x:%02x:%02x.0" % (p.pci_domain_id, p.pci_bus_id, p.pci_device_id)
    except (AttributeError, RuntimeError, AssertionError):
        return None


class Sampler:
    """Samples around calls: around(fn) reads the device before and after
    fn() (outside whatever fn times) and keeps both; a call is throttled
    when either sample is.  With device None every call still runs and
    summary() says why there are no samples."""

    def __init__(self, device, why=None):
        self.device, self.why, self.pairs = device, why, []

    def around(self, fn):
        if self.device is None:
            return fn()
        a = self.device.sample()
        out = fn()
        b = self.device.sample()
        self.pairs.append((a, b))
        return out

    def flags(self):
        return [bool(a["throttled"] or b["throttled"]) for a, b in self.pairs]

    def keep(self, times):
        """times (one per around() call, in order) less the throttled
        calls' ones, and how many were dropped."""
        if self.device is None:
            return list(times), 0
        fl = self.flags()
        kept = [t for t, f in zip(times, fl) if not f]
        return kept, len(times) - len(kept)

    def summary(self):
        if self.device is None:
            return {"available": False, "why": self.why}
        sm = [s["sm_mhz"] for p in self.pairs for s in p if s["sm_mhz"] is not None]
        mem = [s["mem_mhz"] for p in self.pairs for s in p if s["mem_mhz"] is not None]
        reasons = {}
        for p in self.pairs:
            for r in set(n for s in p for n in (s["reasons"] or ())
                         if n in dict((v, k) for k, v in REASONS)
                         and dict((v, k) for k, v in REASONS)[n] & THROTTLING):
                reasons[r] = reasons.get(r, 0) + 1
        fl = self.flags()

        def span(v):
            return {"min": min(v), "median": statistics.median(v), "max": max(v)} if v else None
        return {"available": True, "n": len(self.pairs),
                "throttled": [i for i, f in enumerate(fl) if f],
                "throttle_reasons": reasons, "sm_mhz": span(sm), "mem_mhz": span(mem),
                "device": self.device.name}
