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
- kill to a protected pid, to pid 0 or any negative pid (a process group:
  the candidate shares the judge's), tkill, tgkill, rt_sigqueueinfo,
  rt_tgsigqueueinfo and pidfd_open for a protected pid, pidfd_send_signal;
- setpriority of a protected process, of any process group or user;
  sched_setaffinity, sched_setscheduler, sched_setparam, sched_setattr and
  prlimit64 of a protected pid;
- ptrace, process_vm_readv and process_vm_writev.

Every other call is allowed: threads, fork, posix_spawn, vfork, the
compilers, signals to its own processes.  HEADROOM_SECCOMP=0 in the
worker's environment loads no filter.  Not yet run under CUDA: the
premise that the CUDA driver's IPC (cuIpcOpenMemHandle) makes none of
these calls on the judge's pid (torch's expandable segments do make
pidfd_open on it, and Landlock already refuses their pidfd_getfd).  A pid compares on its low 32
bits (pid_t is an int; the register's upper half is not the caller's).
Must not: refuse a call the candidate's honest code makes."""
import ctypes
import ctypes.util
import errno
import os

CLONE_PARENT = 0x00008000
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_EQ = 4
SCMP_CMP_MASKED_EQ = 7
LOW32 = 0xFFFFFFFF
PRIO_PROCESS, PRIO_PGRP, PRIO_USER = 0, 1, 2

# Calls whose first argument names a process: refused for a protected one.
BY_PID = ("kill", "tgkill", "tkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo", "pidfd_open",
          "sched_setaffinity", "sched_setscheduler", "sched_setparam", "sched_setattr",
          "prlimit64")
# Calls refused whatever their arguments.
ALWAYS = ("pidfd_send_signal", "ptrace", "process_vm_readv", "process_vm_writev")


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
        try:
            with open("/proc/%d/stat" % pid, "rb") as f:
                pid = int(f.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return out


def protected_pids(keeper_pid=None):
    """The processes the candidate must not touch, read before any jail
    hides them: its parent (the judge), the worker and the orchestrator
    above it, and the keeper."""
    pids = ancestors(os.getppid(), 3)
    if keeper_pid:
        pids.append(int(keeper_pid))
    return sorted(set(pids))


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

    try:
        rule("clone", ArgCmp(0, SCMP_CMP_MASKED_EQ, CLONE_PARENT, CLONE_PARENT))
        rule("clone3", action=scmp_act_errno(errno.ENOSYS))
        for name in BY_PID:
            for pid in protected:
                rule(name, ArgCmp(0, SCMP_CMP_MASKED_EQ, LOW32, pid & LOW32))
        rule("kill", ArgCmp(0, SCMP_CMP_MASKED_EQ, LOW32, 0))
        rule("kill", ArgCmp(0, SCMP_CMP_MASKED_EQ, 1 << 31, 1 << 31))
        for pid in protected:
            rule("setpriority", ArgCmp(0, SCMP_CMP_MASKED_EQ, LOW32, PRIO_PROCESS),
                 ArgCmp(1, SCMP_CMP_MASKED_EQ, LOW32, pid & LOW32))
        for which in (PRIO_PGRP, PRIO_USER):
            rule("setpriority", ArgCmp(0, SCMP_CMP_MASKED_EQ, LOW32, which))
        for name in ALWAYS:
            rule(name)
        rc = lib.seccomp_load(ctx)
        if rc < 0:
            raise OSError(-rc, "seccomp_load: %s" % os.strerror(-rc))
    finally:
        lib.seccomp_release(ctx)
    return {"filter": "libseccomp", "protected": protected,
            "refused": "clone with CLONE_PARENT (clone3: ENOSYS); signals, scheduling and "
                       "limits of a protected pid; kill of a process group or all; ptrace, "
                       "process_vm_readv and process_vm_writev, pidfd_send_signal",
            "not_on_this_architecture": skipped}
