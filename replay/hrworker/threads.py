"""hrworker/threads.py - the host threads a call leaves alive: Python's and
the kernel's tasks (/proc/self/task) before and after one call
(thread_check; finding background-thread).
Must not: stop or join a thread it finds (it only counts)."""
import os
import threading
import time

from hrworker import vocab
from hrworker.audit import finding


def host_threads():
    """This process's threads: Python's (ident -> name, native id) and the
    kernel's (/proc/self/task ids), so that native threads a C extension
    starts count too."""
    py = {t.ident: (t.name, getattr(t, "native_id", None)) for t in threading.enumerate()}
    try:
        tasks = sorted(int(x) for x in os.listdir("/proc/self/task"))
    except OSError:
        tasks = None
    return {"python": py, "tasks": tasks}


def _comm(tid):
    try:
        with open("/proc/self/task/%d/comm" % tid) as f:
            return f.read().strip()
    except OSError:
        return None


def thread_check(call, warmup=1, grace_s=0.05):
    """The threads around one call: counts before and after, and the threads
    the call started that are still alive when it returns
    (background-thread): a Python thread alive at the return, or a native
    task (/proc/self/task) the call added still there grace_s later.
    warmup calls come first, so that the pools torch starts on first use
    (OpenMP, cuBLAS's, the profiler's) exist before the count.  Returns
    (the call's output, evidence).  Not seen: work that a thread started
    before the counted call does after it (a persistent pool of the
    candidate's own)."""
    for _ in range(warmup):
        call()
    held = threading.enumerate()         # by object: an ident is reused at once
    before = host_threads()
    out = call()
    after = host_threads()
    new_py = [{"name": t.name, "native_id": getattr(t, "native_id", None)}
              for t in threading.enumerate()
              if t.is_alive() and not any(t is h for h in held)]
    new_tasks = []
    if before["tasks"] is not None and after["tasks"] is not None:
        new_tasks = [t for t in after["tasks"] if t not in before["tasks"]]
        # A joined thread's task leaves the kernel a moment after join()
        # returns: a task counts when it is still there after the grace.
        t_end = time.monotonic() + grace_s
        while new_tasks and time.monotonic() < t_end:
            time.sleep(0.002)
            still = set(host_threads()["tasks"] or ())
            new_tasks = [t for t in new_tasks if t in still]
    py_ids = {t["native_id"] for t in new_py}
    native = [{"tid": t, "comm": _comm(t)} for t in new_tasks if t not in py_ids]
    ev = {"python_before": len(before["python"]), "python_after": len(after["python"]),
          "tasks_before": len(before["tasks"] or ()) if before["tasks"] is not None else None,
          "tasks_after": len(after["tasks"] or ()) if after["tasks"] is not None else None,
          "started_alive": new_py[:10], "native_started_alive": native[:10], "findings": []}
    if new_py or native:
        ev["findings"].append(finding(vocab.F_BACKGROUND_THREAD, python=new_py[:10], native=native[:10],
                                      why="a thread the call started was alive after it returned"))
    return out, ev
