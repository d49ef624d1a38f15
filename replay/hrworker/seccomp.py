"""hrworker/seccomp.py - the candidate process's seccomp filter, made with
libseccomp (seccomp(2) through libseccomp.so.2, by ctypes).  It shuts the
doors to the processes that judge and run the job (the judge, the worker,
the orchestrator, the keeper: `protected`) that permissions leave open
wherever the candidate runs as their uid (the job jail off: under CUDA, or
a worker that is not root) and Landlock cannot scope signals (ABI < 6,
Linux before 6.12).  A candidate that stops the judge (SIGSTOP) while the
judge times the reference stretches the reference's times: on the CPU
sample's matmul, robust 1.83x with no finding.  Refused (EPERM):

- clone with CLONE_PARENT (and clone3 answers ENOSYS, so that the C
  library falls back to clone, whose flags a filter can read; clone3's
  sit in memory a filter cannot): such a process is the judge's child,
  outside the candidate's tree and the CPU account of its processes
  (account.Family);
- kill, tgkill, rt_sigqueueinfo, rt_tgsigqueueinfo and pidfd_open of a
  protected pid; kill of a protected process group (pid 0 too: the
  candidate shares the judge's) or of all (-1); tkill,
  pidfd_send_signal and pidfd_getfd;
- setpriority of a protected process or process group, or of a user;
  sched_setaffinity, sched_setscheduler, sched_setparam, sched_setattr and
  prlimit64 of a protected pid;
- a descriptor's SIGIO owner (fcntl F_SETOWN, F_SETOWN_EX; ioctl
  FIOSETOWN, SIOCSPGRP), which F_SETSIG turns into any signal;
- ptrace, process_vm_readv and process_vm_writev;
- System V IPC (shared memory, message queues, semaphores: SYSV_IPC): its
  objects live in the host's IPC namespace, outlive the job and are
  reached by key from any uid the mode allows, so a candidate kept the
  outputs of its timed calls in a 0666 segment and read them back in a
  later job, another uid's (robust 1.6x verified-faster on the CPU, no
  finding).  torch and the CUDA driver share memory by descriptors (memfd,
  CUDA IPC), never so;
- new namespaces (unshare, setns, clone with a CLONE_NEW* flag: a user
  namespace of its own gives a process capabilities over its own mounts
  and network, the kernel's code behind them) and io_uring (its
  operations are not system calls a filter sees: containers' default
  profiles refuse it too).  The jail makes its namespaces before the
  filter is loaded.

Not closed: the judge's other threads.  kill(TID) with the id of any of
its threads signals the whole judge, and sched_setaffinity(TID) pins that
thread; their ids are born after the filter and cannot be named in it.
Nor /proc/PID/mem of a process of the same uid where no Landlock
confines the candidate.  Those close only with a uid of the candidate's
own (the job jail's ids, off under CUDA) or a PID namespace, both of
which CUDA IPC may refuse (tests/gpu/jail_probe.py --layers asks).

Every other call is allowed: threads, fork, posix_spawn, vfork, the
compilers, signals to its own processes, POSIX shared memory (files).
HEADROOM_SECCOMP=0 in the worker's environment loads no filter.  Not yet
run under CUDA: the premises that the CUDA driver makes no System V IPC,
namespace or io_uring call, and that its IPC (cuIpcOpenMemHandle) makes
none of these calls on the judge's pid (torch's expandable segments do make
pidfd_open on it, and Landlock already refuses their pidfd_getfd).  A pid compares on its low 32
bits (pid_t is an int; the register's upper half is not the caller's).
Must not: refuse a call the candidate's honest code makes."""
import ctypes
import ctypes.util
import errno
import os

from hrworker.account import proc_stat

CLONE_PARENT = 0x00008000
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_EQ = 4
SCMP_CMP_MASKED_EQ = 7
LOW32 = 0xFFFFFFFF
PRIO_PROCESS, PRIO_PGRP, PRIO_USER = 0, 1, 2

# Calls whose first argument names a process: refused for a protected one.
BY_PID = ("kill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open",
          "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr",
          "prlimit64")
# Calls refused whatever their arguments (tkill: glibc signals a thread
# with tgkill; pidfd_getfd: another process's descriptors).
ALWAYS = ("tkill", "pidfd_send_signal", "pidfd_getfd", "ptrace", "process_vm_readv",
          "process_vm_writev")
# System V IPC, every call but shmdt (ipc: the multiplexer of architectures
# that have it; skipped where the architecture has none).
SYSV_IPC = ("shmget", "shmat", "shmctl", "msgget", "msgsnd", "msgrcv", "msgctl",
            "semget", "semop", "semtimedop", "semctl", "ipc")
# New namespaces and io_uring, refused whatever their arguments; clone's
# CLONE_NEW* flags (CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER,
# NEWPID, NEWNET), each refused by a rule of its own.
NAMESPACES = ("unshare", "setns", "io_uring_setup", "io_uring_enter", "io_uring_register")
CLONE_NEW = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
             0x40000000)
# Who gets a descriptor's SIGIO (and so any signal F_SETSIG names): fcntl's
# F_SETOWN, F_SETOWN_EX; ioctl's FIOSETOWN, SIOCSPGRP.
F_SETOWN, F_SETOWN_EX = 8, 15
FIOSETOWN, SIOCSPGRP = 0x8901, 0x8902


def scmp_act_errno(e):
    return 0x00050000 | (e & 0xFFFF)


class ArgCmp(ctypes.Structure):
    """struct scmp_arg_cmp (seccomp.h)."""
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int),
                ("datum_a", ctypes.c_uint64), ("datum_b", ctypes.c_uint64)]


def library():
    """libseccomp, or raise OSError saying why not."""
    name = ctypes.util.find_library("seccomp") or "libseccomp.so.2"
    lib = ctypes.CDLL(name, use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int,
                                           ctypes.c_uint, ctypes.POINTER(ArgCmp)]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    return lib


def ancestors(pid, n):
    """pid and up to n - 1 of its ancestors (/proc/PID/stat), nearest
    first; 0 and 1 never."""
    out = []
    while pid > 1 and len(out) < n:
        out.append(pid)
        f = proc_stat(pid)
        try:
            pid = int(f[1])
        except (TypeError, ValueError, IndexError):
            break
    return out


def protected_pids(keeper_pid=None):
    """The processes the candidate must not touch, read before any jail
    hides them: its parent (the judge), the worker and the process that
    started it (the orchestrator, or whatever ran the worker), and the
    keeper."""
    pids = ancestors(os.getppid(), 3)
    if keeper_pid:
        pids.append(int(keeper_pid))
    return sorted(set(pids))


def groups_of(pids):
    """The process groups of pids (/proc/PID/stat), those that can be read."""
    out = set()
    for pid in pids:
        f = proc_stat(pid)
        try:
            out.add(int(f[2]))
        except (TypeError, ValueError, IndexError):
            pass
    return sorted(g for g in out if g > 1)


def expandable_segments():
    """Whether torch's allocator is set to expandable segments, whose CUDA
    IPC takes the sharer's memory through pidfd_open and pidfd_getfd."""
    conf = os.environ.get("PYTORCH_CUDA_ALLOC_CONF", "") + "," + \
        os.environ.get("PYTORCH_ALLOC_CONF", "")
    return "expandable_segments:true" in conf.replace(" ", "").lower()


def load(protected):
    """Load the filter into this process (it holds for every thread made
    after and every child; no_new_privs is set with it).  Returns what
    took, for checks.candidate_process.seccomp; OSError when it could not
    be loaded (no libseccomp, a kernel without seccomp filters)."""
    if os.environ.get("HEADROOM_SECCOMP") == "0":
        raise OSError("HEADROOM_SECCOMP=0 (the worker's environment)")
    lib = library()
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        raise OSError("seccomp_init failed")
    eperm, skipped = scmp_act_errno(errno.EPERM), []

    def rule(name, *cmps, action=eperm):
        nr = lib.seccomp_syscall_resolve_name(name.encode())
        if nr < 0:
            skipped.append(name)    # not a call of this architecture
            return
        arr = (ArgCmp * len(cmps))(*cmps) if cmps else None
        rc = lib.seccomp_rule_add_array(ctx, action, nr, len(cmps), arr)
        if rc < 0:
            raise OSError(-rc, "seccomp rule for %s: %s" % (name, os.strerror(-rc)))

    pidfds = not expandable_segments()
    try:
        rule("clone", ArgCmp(0, SCMP_CMP_MASKED_EQ, CLONE_PARENT, CLONE_PARENT))
        for flag in CLONE_NEW:
            rule("clone", ArgCmp(0, SCMP_CMP_MASKED_EQ, flag, flag))
        rule("clone3", action=scmp_act_errno(errno.ENOSYS))
        for name in BY_PID:
            if name == "pidfd_open" and not pidfds:
                continue
            for pid in protected:
                rule(name, ArgCmp(0, SCMP_CMP_MASKED_EQ, LOW32, pid & LOW32))
        # Process groups: the protected ones (the candidate's own is the
        # judge's: kill(0) and PRIO_PGRP 0 name it) and all (-1).
        groups = groups_of(protected)
        own = os.getpgrp() in groups
        for pid in [-g for g in groups] + [-1] + ([0] if own else []):
            rule("kill", ArgCmp(0, SCMP_CMP_MASKED_EQ, LOW32, pid & LOW32))
        for pid in protected:
            rule("setpriority", ArgCmp(0, SCMP_CMP_MASKED_EQ, LOW32, PRIO_PROCESS),
                 ArgCmp(1, SCMP_CMP_MASKED_EQ, LOW32, pid & LOW32))
        for g in groups + ([0] if own else []):
            rule("setpriority", ArgCmp(0, SCMP_CMP_MASKED_EQ, LOW32, PRIO_PGRP),
                 ArgCmp(1, SCMP_CMP_MASKED_EQ, LOW32, g & LOW32))
        rule("setpriority", ArgCmp(0, SCMP_CMP_MASKED_EQ, LOW32, PRIO_USER))
        for cmd in (F_SETOWN, F_SETOWN_EX):
            rule("fcntl", ArgCmp(1, SCMP_CMP_MASKED_EQ, LOW32, cmd))
        for cmd in (FIOSETOWN, SIOCSPGRP):
            rule("ioctl", ArgCmp(1, SCMP_CMP_MASKED_EQ, LOW32, cmd))
        for name in ALWAYS:
            if name != "pidfd_getfd" or pidfds:
                rule(name)
        for name in SYSV_IPC + NAMESPACES:
            rule(name)
        rc = lib.seccomp_load(ctx)
        if rc < 0:
            raise OSError(-rc, "seccomp_load: %s" % os.strerror(-rc))
    finally:
        lib.seccomp_release(ctx)
    return {"filter": "libseccomp", "protected": protected, "groups": groups,
            "refused": "clone with CLONE_PARENT (clone3: ENOSYS); signals, pidfds, "
                       "scheduling and limits of a protected pid; kill and setpriority of a "
                       "protected process group or of all; a descriptor's SIGIO owner; "
                       "tkill, ptrace, process_vm_readv, process_vm_writev, "
                       "pidfd_send_signal, pidfd_getfd; System V IPC; new namespaces "
                       "(unshare, setns, clone's CLONE_NEW*); io_uring",
            "not_on_this_architecture": skipped,
            "pidfds": "refused" if pidfds else
                      "allowed: torch's expandable segments share CUDA memory through them"}
