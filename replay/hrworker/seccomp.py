"""hrworker/seccomp.py - the candidate process's seccomp filter, made with
libseccomp (seccomp(2) through libseccomp.so.2, by ctypes): clone(2) with
CLONE_PARENT is refused (EPERM) and clone3(2) answers ENOSYS, so that the
C library falls back to clone, whose flags a filter can read (clone3's sit
in memory a filter cannot).  A process made with CLONE_PARENT is its
maker's sibling: the judge's child, outside the candidate's process tree
and subreaper, where the CPU account of its processes (account.Family)
does not look; nothing else in the candidate needs that flag (threads,
fork, posix_spawn and vfork do not use it).  Every other call is allowed.
Must not: refuse a call the candidate's honest code makes."""
import ctypes
import ctypes.util
import errno

CLONE_PARENT = 0x00008000
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_MASKED_EQ = 7


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


def refuse_clone_parent():
    """Load the filter into this process (it holds for every thread made
    after and every child; no_new_privs is set with it).  Returns what
    took, for checks.candidate_process.seccomp; OSError when it could not
    be loaded (no libseccomp, a kernel without seccomp filters)."""
    lib = library()
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW)
    if not ctx:
        raise OSError("seccomp_init failed")
    try:
        clone = lib.seccomp_syscall_resolve_name(b"clone")
        clone3 = lib.seccomp_syscall_resolve_name(b"clone3")
        cmp = ArgCmp(0, SCMP_CMP_MASKED_EQ, CLONE_PARENT, CLONE_PARENT)
        rc = lib.seccomp_rule_add_array(ctx, scmp_act_errno(errno.EPERM), clone, 1,
                                        ctypes.byref(cmp))
        if rc < 0:
            raise OSError(-rc, "seccomp rule for clone: %s" % errno.errorcode.get(-rc, rc))
        if clone3 >= 0:
            rc = lib.seccomp_rule_add_array(ctx, scmp_act_errno(errno.ENOSYS), clone3, 0, None)
            if rc < 0:
                raise OSError(-rc, "seccomp rule for clone3: %s"
                              % errno.errorcode.get(-rc, rc))
        rc = lib.seccomp_load(ctx)
        if rc < 0:
            raise OSError(-rc, "seccomp_load: %s" % errno.errorcode.get(-rc, rc))
    finally:
        lib.seccomp_release(ctx)
    return "clone with CLONE_PARENT refused (EPERM), clone3 ENOSYS (libseccomp)"
