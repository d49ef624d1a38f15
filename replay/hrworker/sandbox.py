"""hrworker/sandbox.py - a job's confinement: the audit hook that refuses and
records Python-level writes outside the run's roots (and, in the candidate
process, reads outside what it may read and network connections)
(Sandbox), the Landlock rules that restrict the job's processes
themselves, C code included (Landlock), and the candidate process's own
network namespace (isolate_network)."""
import ctypes
import functools
import os
import stat
import sys

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
        self.reads = None       # the candidate process: where it may read (None: anywhere)
        self.no_network = False     # the candidate process: no connect, bind, sendto
        self.violations = []
        self.active = False

    @staticmethod
    def beneath(p, roots):
        return any(p == r or p.startswith(r.rstrip(os.sep) + os.sep) for r in roots)

    def readable(self, path):
        if self.reads is None or isinstance(path, int):
            return True
        try:
            p = os.path.realpath(os.fsdecode(path))
        except (TypeError, ValueError):
            return True
        if self.beneath(p, self.deny):
            return False
        return self.beneath(p, self.reads) or self.beneath(p, self.roots)

    def allowed(self, path):
        if isinstance(path, int):
            return True
        try:
            p = os.path.realpath(os.fsdecode(path))
        except (TypeError, ValueError):
            return True
        if p in ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random"):
            return True
        if self.beneath(p, self.deny):
            return False
        return self.beneath(p, self.roots)

    # What a refusal refused, by refuse's what: the job's error names it.
    KINDS = {"outside scratch": "write outside scratch",
             "outside what the candidate may read": "read outside what the candidate may read",
             "(the candidate process has no network)": "network connection"}

    @classmethod
    def describe(cls, v):
        """A recorded refusal as a job's error says it."""
        return "%s refused: %s" % (cls.KINDS.get(v.get("what"), v["event"]), v["path"])

    def refuse(self, event, path, what="outside scratch"):
        path = path if isinstance(path, str) else (os.fsdecode(path) if isinstance(
            path, (bytes, os.PathLike)) else repr(path))
        if len(self.violations) < 20:
            self.violations.append({"event": event, "path": path, "what": what})
        raise PermissionError("headroom sandbox: %s %s refused: %s" % (event, what, path))

    NET_EVENTS = ("socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg")

    @staticmethod
    def local_unix(addr):
        """A path (AF_UNIX) address, not an abstract one."""
        return isinstance(addr, (str, bytes)) and not (
            addr[:1] in ("\0", b"\0") or addr == "" or addr == b"")

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
            if not writing and path is not None and not self.readable(path):
                self.refuse(event, path, "outside what the candidate may read")
        elif event in self.NET_EVENTS:
            addr = args[1] if len(args) > 1 else None
            if self.no_network and addr is not None and not (
                    self.local_unix(addr) and self.allowed(addr)):
                self.refuse(event, addr, "(the candidate process has no network)")
        elif event in ("os.listdir", "os.scandir") and args and not self.readable(args[0]):
            self.refuse(event, args[0], "outside what the candidate may read")
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
        file_rights = handled & (self.WRITE_FILE | self.TRUNCATE)
        paths = [(r, handled) for r in roots + ["/dev/shm"] if os.path.isdir(r)]
        paths += self.device_rules(file_rights)
        return self.restrict(handled, paths, 0, 0, every_thread)

    def device_rules(self, file_rights):
        """Writing (not creating) the null devices, the GPU's device files
        and procfs.  CUDA's cuInit names its threads through
        /proc/PID/task/TID/comm and fails (error 304) where it may not
        (NVIDIA/OpenShell#1486, PR #710)."""
        paths = [(p, file_rights) for p in self.DEVICES + ("/proc",) if os.path.exists(p)]
        paths += [(os.path.join("/dev", n), file_rights) for n in
                  sorted(os.listdir("/dev")) if n.startswith("nvidia")]
        return paths

    # Reading (and executing) is handled too in the candidate process.
    EXECUTE, READ_FILE, READ_DIR = 1 << 0, 1 << 2, 1 << 3
    NET_BIND_TCP, NET_CONNECT_TCP = 1 << 0, 1 << 1          # ABI 4
    SCOPE_ABSTRACT_UNIX, SCOPE_SIGNAL = 1 << 0, 1 << 1      # ABI 6

    def apply_candidate(self, writes, reads, shm=None):
        """The candidate process's rules, in one layer: reading and
        executing beneath reads and writes only, writing beneath writes
        only (plus the device rules), no TCP bind or connect (ABI 4), no
        signal to and no abstract Unix socket of a process outside it
        (ABI 6: the judge, the worker).  shm="cuda": the files of /dev/shm
        may be read and written (CUDA IPC's reference counts, which torch
        keeps there), none created or removed.  Returns what was
        restricted."""
        read = self.EXECUTE | self.READ_FILE | self.READ_DIR
        handled = self.handled() | read
        file_rights = handled & (self.WRITE_FILE | self.TRUNCATE)
        paths = [(r, handled) for r in writes if os.path.isdir(r)]
        paths += [(r, read) for r in reads if os.path.exists(r)]
        paths += [(p, r | self.READ_FILE) for p, r in self.device_rules(file_rights)]
        if shm and os.path.isdir("/dev/shm"):
            paths.append(("/dev/shm", self.READ_FILE | self.READ_DIR | file_rights))
        net = self.NET_BIND_TCP | self.NET_CONNECT_TCP if self.abi >= 4 else 0
        scope = self.SCOPE_ABSTRACT_UNIX | self.SCOPE_SIGNAL if self.abi >= 6 else 0
        self.restrict(handled, paths, net, scope, False)
        return {"abi": self.abi, "reads": "restricted", "writes": "restricted",
                "tcp": "refused" if net else "not handled (ABI < 4)",
                "signals_and_abstract_sockets": "scoped" if scope else "not handled (ABI < 6)"}

    def restrict(self, handled, paths, net, scope, every_thread):
        """One Landlock layer: the ruleset (fs rights handled, net rights
        handled, scopes), a rule per (path, rights), then restrict_self."""
        fields = [handled] + ([net] if net or scope else []) + ([scope] if scope else [])
        attr = (ctypes.c_uint64 * len(fields))(*fields)
        ruleset = self.call(0, ctypes.byref(attr), ctypes.c_size_t(8 * len(fields)),
                            ctypes.c_uint32(0))
        try:
            for path, rights in paths:
                try:
                    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue
                try:
                    if not os.path.isdir(path):
                        # a file's rule may name file rights only
                        rights &= (self.EXECUTE | self.WRITE_FILE | self.READ_FILE |
                                   self.TRUNCATE)
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


def read_roots(cfg, own):
    """What the candidate process may read and execute: the system's
    programs and libraries (/usr, /lib*, /bin, /sbin, /opt, /etc), the
    kernel's and the GPU's files (/proc, /sys, /dev), Python and its
    packages (every sys.path directory, torch's), the CUDA toolkit
    ($CUDA_HOME), the build cache and its own scratch.  Not the store, the
    archive, the inputs directory or the home directory (a virtual
    environment beneath the home directory is readable, the rest of it
    not)."""
    import torch
    roots = ["/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/opt", "/etc",
             "/proc", "/sys", "/dev", "/run/nvidia-persistenced"]
    roots += [sys.prefix, sys.base_prefix, sys.exec_prefix,
              os.path.dirname(os.path.dirname(torch.__file__))]
    roots += [p for p in sys.path if p and os.path.isabs(p)]
    roots += [os.environ[k] for k in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(k)]
    roots += [cfg.cache, own]
    out = []
    for r in roots:
        r = os.path.realpath(r)
        if r != "/" and os.path.exists(r) and r not in out:
            out.append(r)
    return out


# What beneath the read roots holds secrets (password hashes, sudo rules,
# host keys, TLS private keys).  Root owns them: a candidate that runs as
# root (the job jail off: CUDA jobs) reads them through /etc's rule, so
# there a root that leads to one is allowed entry by entry without it
# (without_secrets; Landlock cannot take a path back from a rule above it).
SECRETS = ("/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/sudoers",
           "/etc/sudoers.d", "/etc/ssh", "/etc/ssl/private", "/etc/security/opasswd")
# Where else root keeps what others may not read (a Slurm cluster's munge
# key, a database's access rules, a cluster's admin credentials): every
# file beneath these that others cannot read, and every directory they
# cannot enter, is a secret too (private_beneath).
PRIVATE_SCAN = ("/etc",)


@functools.lru_cache(maxsize=None)
def private_beneath(tops=PRIVATE_SCAN):
    """The paths beneath tops that others may not read: regular files
    without the others' read bit, directories without their search bit
    (not walked further); links are not followed.  Walked once per tops
    (a tuple) in a process (about 50 ms for a Debian /etc of 1,400 entries): the
    worker walks it at its start, and the jobs it forks inherit it."""
    def private(mode):
        return ((stat.S_ISDIR(mode) and not mode & stat.S_IXOTH) or
                (stat.S_ISREG(mode) and not mode & stat.S_IROTH))

    out = []
    for root in tops:
        for top, dirs, files in os.walk(root):
            for names in (dirs, files):
                for name in list(names):
                    p = os.path.join(top, name)
                    try:
                        mode = os.lstat(p).st_mode
                    except OSError:
                        continue
                    if private(mode):
                        out.append(p)
                        if names is dirs:
                            dirs.remove(name)       # not walked
    return tuple(sorted(out))


def without_secrets(roots, secrets=SECRETS):
    """roots with each that holds a secret replaced by its entries (again
    beneath, along the way to the secret), every path resolved, none that
    is or resolves into a secret, nor outside the roots (a link's target
    elsewhere was not readable through the root's rule either); and the
    secrets that exist."""
    def hidden(p):
        return any(p == x or p.startswith(x + "/") for x in secrets)

    out, seen = [], []
    within = [os.path.realpath(r) for r in roots]

    def add(path):
        real = os.path.realpath(path)
        if not Sandbox.beneath(real, within):
            return
        if hidden(path) or hidden(real):
            if os.path.lexists(path) and path not in seen:
                seen.append(path)
            return
        if os.path.isdir(real) and any(x.startswith(real.rstrip("/") + "/") for x in secrets):
            try:
                names = sorted(os.listdir(real))
            except OSError:
                return
            for name in names:
                add(os.path.join(real, name))
        elif real not in out:
            out.append(real)
    for r in roots:
        add(r)
    return out, seen


CLONE_NEWUSER, CLONE_NEWNET = 0x10000000, 0x40000000


def isolate_network():
    """A network namespace of the process's own (only a loopback, down),
    made in a user namespace of its own (unprivileged; the uid and gid map
    to themselves).  Call while the process has one thread.  Returns
    "own namespace", or why not (the audit hook and Landlock's TCP rules
    still refuse connections there).  Root needs no user namespace (and
    in one would lose its hold on files of ids the namespace does not map,
    as the build cache's of jailed jobs: hrworker/jail.py)."""
    uid, gid = os.getuid(), os.getgid()
    if os.geteuid() == 0:
        if LIBC.unshare(ctypes.c_int(CLONE_NEWNET)) != 0:
            return "shared (unshare: %s)" % os.strerror(ctypes.get_errno())
        return "own namespace"
    if LIBC.unshare(ctypes.c_int(CLONE_NEWUSER | CLONE_NEWNET)) != 0:
        return "shared (unshare: %s)" % os.strerror(ctypes.get_errno())
    try:
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write("%d %d 1\n" % (uid, uid))
        with open("/proc/self/gid_map", "w") as f:
            f.write("%d %d 1\n" % (gid, gid))
    except OSError as e:
        return "own namespace (ids unmapped: %s)" % e
    return "own namespace"
