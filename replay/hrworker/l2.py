"""hrworker/l2.py - the persisting-L2 state of the candidate process's
context: the carve-out limit read at points of the candidate process
(l2_note: the baseline before its code ran), and before a timed call the
limit and the current stream's access-policy window read, then reset
(l2_reset; finding l2-persisting).  The driver calls are cudadrv.py's.
Must not: set a carve-out or a window (only reset them to none)."""
from hrworker import vocab
from hrworker.audit import finding
from hrworker.cudadrv import (CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE,
                              CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, driver)


_L2_POINTS: dict[str, int | None] = {}     # point -> the limit first read there (l2_note), in order


def l2_note(torch, point):
    """The persisting-L2 limit of this process's context at a point of the
    candidate process (its start, before any candidate code; after the
    first of each operation), kept for l2_reset's evidence; the first
    reading is the baseline a limit found later is compared with: a
    carve-out the process had before the candidate's code ran is not the
    candidate's doing.  CUDA only; a reading that fails is None."""
    points = _L2_POINTS
    if point in points:                 # the first reading at each point
        return points[point]
    v = None
    if torch.cuda.is_available():
        try:
            torch.cuda.init()
            v = driver().limit()[0]
        except (OSError, RuntimeError):
            pass
    points[point] = v
    return v


def l2_reset(torch, reset=True):
    """Before a timed call: the persisting-L2 state found (the carve-out
    limit, the current stream's access-policy window), then, with reset,
    the carve-out set to 0, persisting lines reset to normal
    (cuCtxResetPersistingL2Cache) and the window cleared, where a carve-out
    or a window was found (none found: no setter is called).  The judge never
    sets either, so a carve-out above the one the process had before the
    candidate's code ran (l2_note's baseline), or a persisting window, was
    set by the candidate: l2-persisting.  PyTorch exposes neither (checked
    in 2.11): the driver API through ctypes does it.  CUDA only."""
    if not torch.cuda.is_available():
        return {"applicable": False, "why": "needs CUDA: there is no persisting L2 on a CPU",
                "findings": []}
    try:
        drv = driver()
    except OSError as e:
        return {"applicable": False, "why": "libcuda.so.1: %s" % e, "findings": []}
    torch.cuda.init()
    dev = torch.cuda.current_device()
    stream = torch.cuda.current_stream().cuda_stream
    limit, lerr = drv.limit()
    win = drv.window(stream)
    base = next(iter(_L2_POINTS.values()), None) or 0
    res = {"applicable": True, "stream": stream, "limit_bytes": limit, "limit_error": lerr,
           "baseline_limit_bytes": base, "limit_points": dict(_L2_POINTS),
           "max_persisting_bytes": drv.device_attr(CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, dev),
           "l2_bytes": drv.device_attr(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, dev),
           "window": win, "findings": []}
    persisting = win.get("num_bytes") and "persisting" in (win.get("hit_prop"), win.get("miss_prop"))
    if (limit or 0) > base or persisting:
        res["findings"].append(finding(vocab.F_L2_PERSISTING, limit_bytes=limit, window=win,
                                       baseline_limit_bytes=base,
                                       limit_points=res["limit_points"],
                                       why="a persisting-L2 carve-out above the process's own "
                                           "before the candidate's code ran, or a persisting "
                                           "access-policy window, was set before the timed call"))
    if reset and limit == 0 and not win.get("num_bytes") and "error" not in win:
        # Nothing to reset: no driver call that changes the L2 set-aside
        # (one that does may cost the next kernels a reconfiguration).
        res["reset"], res["reset_errors"], res["limit_after_reset"] = False, [], 0
    elif reset:
        res["reset"] = True
        res["reset_errors"] = drv.reset(stream)
        res["limit_after_reset"] = drv.limit()[0]
    return res
