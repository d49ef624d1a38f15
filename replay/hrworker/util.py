"""hrworker/util.py - the small helpers every part of the worker uses: log
tails, exception text, phase laps, prctl, the CPU time of children."""
import ctypes
import resource
import signal
import time
import traceback


LIBC = ctypes.CDLL(None, use_errno=True)

PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38

TAIL = 4000            # characters of a log kept in a result


def tail(text, n=TAIL):
    text = text if isinstance(text, str) else str(text)
    return text[-n:]


def set_bytes(torch, xs):
    """The bytes of the tensors among xs (an input set, an output's
    elements): what a set weighs wherever it is held."""
    return sum(x.numel() * x.element_size() for x in xs if isinstance(x, torch.Tensor))


def finite(x):
    """JSON has no NaN/inf: map them to None."""
    if x is None:
        return None
    x = float(x)
    return x if x == x and abs(x) != float("inf") else None


def exc_text(e):
    """An exception's last line; for one raised in the candidate process
    (remote.RemoteError), the text that process gave."""
    if isinstance(getattr(e, "remote_text", None), str):
        return tail(e.remote_text)
    return tail("".join(traceback.format_exception_only(type(e), e)).strip())


class Laps:
    """Seconds between marks, into a dict: lap(name) records under name
    the seconds since the last mark (or the start), to 0.1 ms (add: added
    to what the dict holds under name); lap(None) only marks."""

    def __init__(self, into, add=False):
        self.into, self.t, self.add = into, time.monotonic(), add

    def lap(self, name):
        now = time.monotonic()
        if name is not None:
            self.into[name] = round(now - self.t + (self.into.get(name, 0.0) if self.add
                                                      else 0.0), 4)
        self.t = now


def is_oom(text):
    """Does an error's text say the device ran out of memory (torch's
    OutOfMemoryError, the caching allocator's or the driver's message)?
    Such an error is never a candidate's evidence: the job decides whose
    it is (job.Job.out_of_memory)."""
    t = str(text or "")
    return ("OutOfMemoryError" in t or "CUDA out of memory" in t
            or "CUDA_ERROR_OUT_OF_MEMORY" in t or "cudaErrorMemoryAllocation" in t)


def prctl(option, arg):
    """Linux prctl(2) through libc: True when it took."""
    try:
        return LIBC.prctl(option, arg, 0, 0, 0) == 0
    except AttributeError:
        return False


def set_pdeathsig():
    """Die with the parent (PR_SET_PDEATHSIG)."""
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def quiet_copy(torch, dst, src):
    """dst.copy_(src) in the candidate process, for the tool's own copies
    (an output fetched, a draw): host tensors by numpy's copy, on this
    thread only.  torch's copy of more than its grain (32768 elements)
    runs on its OpenMP team, whose threads then spin a few ms before they
    sleep (libgomp; 3.8-7.7 ms of a worker's CPU after a 256 x 256 copy on
    a 2-core host, none after numpy's), work the judge would count as the
    candidate's outside its calls (account.py: background-work).  A
    dtype numpy lacks (bfloat16, float8) goes by its bytes where both
    tensors are contiguous; anything else, and device tensors, by copy_."""
    if (dst.device.type == "cpu" and src.device.type == "cpu" and dst.dtype == src.dtype and
            dst.shape == src.shape and not src.requires_grad):
        import numpy
        try:
            numpy.copyto(dst.numpy(), src.numpy())
            return
        except (TypeError, RuntimeError, ValueError):
            pass
        if dst.is_contiguous() and src.is_contiguous() and dst.numel():
            try:
                numpy.copyto(dst.reshape(-1).view(torch.uint8).numpy(),
                             src.reshape(-1).view(torch.uint8).numpy())
                return
            except (TypeError, RuntimeError, ValueError):
                pass
    dst.copy_(src)


def children_cpu():
    """User + system CPU seconds of this process's children that were
    waited for (a build's ninja and, through it, the compilers)."""
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime
