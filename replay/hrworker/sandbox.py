"""hrworker/sandbox.py - a job's confinement: the audit hook that refuses and
records Python-level writes outside the run's roots (Sandbox), and the
Landlock rules that restrict the job process itself, C code included
(Landlock)."""
import ctypes
import os

from hrworker.util import LIBC, PR_SET_NO_NEW_PRIVS, prctl


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
    TSYNC = 1 << 3               # LANDLOCK_RESTRICT_SELF_TSYNC (ABI 8)

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    def __init__(self, off=None):
        """off: why not to jail (the kernel is not asked); abi stays None."""
        self.abi, self.why = None, off
        self.layers = 0          # restrictions this process has applied
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

    def apply(self, roots, every_thread=False):
        """Restrict this process (call it while it has one thread), or add
        a narrower layer later (Landlock stacks them: a write must pass
        every layer).  A later layer reaches the process's other threads
        only where the kernel restricts them all at once (every_thread and
        ABI 8, Linux 7.0: LANDLOCK_RESTRICT_SELF_TSYNC); else this thread
        and the threads it starts afterwards.  Returns which."""
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
            flags = self.TSYNC if every_thread and self.abi >= 8 else 0
            self.call(2, ctypes.c_int(ruleset), ctypes.c_uint32(flags))
            self.layers += 1
            return "every thread" if flags else "this thread"
        finally:
            os.close(ruleset)
