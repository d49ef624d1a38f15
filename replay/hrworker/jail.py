"""hrworker/jail.py - what keeps a job's candidate process from the rest of
the machine beyond Landlock and the audit hook (hrworker/sandbox.py): its
own mount namespace whose root holds only what it may read and write (no
path to a Unix socket, a file or a directory outside it), a procfs that
shows only its own processes, a uid of its own (never root), limits on
its processes and file sizes; and the job's cgroup, where the system has
a writable cgroup v2.  docs/replay.md, The worker, says what each
enforces and what is left where the kernel or the privileges lack it.
Must not: run candidate code, or leave the process half-confined without
saying so (each step returns what took)."""
import ctypes
import errno
import os
import resource

from hrworker.util import LIBC, prctl, set_pdeathsig

CLONE_NEWNS, CLONE_NEWNET = 0x00020000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_DUMPABLE = 4
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}     # syscall numbers

# A job's candidate process runs as uid JOB_ID_BASE + the judge's pid
# (every live job has its own: its processes are counted, signalled and
# traced apart from every other job's), its builder process (builder.py)
# as JOB_ID_BASE + BUILDER_UIDS + the judge's pid (pids stay below 2^22,
# the kernel's largest pid_max), both with gid JOB_ID_BASE, shared by
# every job, which reads the build cache.  No account has such ids on a
# usual system (2^30, above every distribution's range and the subuid
# ranges of rootless containers, 100000 + 65536 n).
JOB_ID_BASE = 1 << 30
BUILDER_UIDS = 1 << 22

# RLIMIT_FSIZE: no file a candidate writes (its build's objects and
# library, its own scratch files) may reach 4 GiB; an nvcc build of a
# KernelBench extension writes tens of MB.  Past it the write fails with
# EFBIG (SIGXFSZ, which kills the process unless it ignores it).
FSIZE_MAX = 4 << 30


def nproc_max():
    """RLIMIT_NPROC of a job's uid: the kernel counts threads, and torch
    starts one per core in its CPU pool (a compile pool of up to 32
    processes when a candidate uses torch.compile), CUDA a few: 128 and
    two a core.  A fork bomb stops there (EAGAIN)."""
    return 128 + 2 * (os.cpu_count() or 1)


def mount(src, target, fstype, flags, data=None):
    r = LIBC.mount(None if src is None else os.fsencode(src), os.fsencode(target),
                   None if fstype is None else fstype.encode(), ctypes.c_ulong(flags),
                   None if data is None else data.encode())
    if r != 0:
        e = ctypes.get_errno()
        raise OSError(e, "mount %s on %s: %s" % (src or fstype, target, os.strerror(e)))


def beneath(p, roots):
    return any(p == r or p.startswith(r.rstrip("/") + "/") for r in roots)


# The group a job's procfs names as the one that sees every process
# (procfs's gid=): one no process has.  Without it the group is 0, and a
# candidate that keeps root's ids (a CUDA job: ids_off) saw every process.
PROC_GID = JOB_ID_BASE - 1


def own_root(new, reads, writes, proc_opts=("hidepid=invisible,gid=%d" % PROC_GID,
                                             "hidepid=2,gid=%d" % PROC_GID), tmp=None, shm=None):
    """Make this process's root a tmpfs at new (an empty directory) that
    holds, at their own paths, the directories of reads bound read-only,
    those of writes bound writable, /dev, a procfs of its own mounted with
    the first of proc_opts the kernel takes (hidepid: only the processes
    it may trace are there: its own uid's, and of those, where Landlock
    confines it, its own domain's), the top-level links of / (/lib -> usr/lib,
    ...), and tmp (a directory of the job's) bound at /tmp first, so that a
    candidate that builds in a folder of its own under /tmp, as the
    original harness let it, writes into its scratch (the roots under
    /tmp are bound over it at their own paths); and shm (a directory of
    the job's) bound at /dev/shm, so that what names POSIX shared memory
    or semaphores there (Python's multiprocessing: a Pool's locks), as the
    original harness let it, has a /dev/shm of its own.  Call in a mount
    namespace of the process's own, as root.  Returns the procfs option
    that took."""
    mount(None, "/", None, MS_REC | MS_PRIVATE)
    mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=1m")
    if tmp is not None:
        os.makedirs(new + "/tmp", exist_ok=True)
        mount(tmp, new + "/tmp", None, MS_BIND)
    binds = sorted({(r, False) for r in reads if r not in writes} |
                   {(w, True) for w in writes})
    done = []
    for path, writable in binds:
        if path in ("/", "/proc") or not os.path.exists(path) or (
                tmp is not None and path == "/tmp"):
            continue
        # A read root beneath one already bound is there with it; a
        # writable one is bound over its place.
        if not writable and beneath(path, done):
            continue
        target = new + path
        if os.path.isdir(path):
            os.makedirs(target, exist_ok=True)
        elif not os.path.exists(target):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            open(target, "a").close()
        mount(path, target, None, MS_BIND | MS_REC)
        if not writable and path != "/dev":
            mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)
        done.append(path)
    if shm is not None and os.path.isdir(new + "/dev/shm"):
        mount(shm, new + "/dev/shm", None, MS_BIND)
    for name in os.listdir("/"):
        p = "/" + name
        if os.path.islink(p) and not os.path.lexists(new + p):
            os.symlink(os.readlink(p), new + p)
    os.makedirs(new + "/proc", exist_ok=True)
    took = None
    for opts in proc_opts:
        try:
            mount("proc", new + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, opts)
            took = opts
            break
        except OSError:
            continue
    if took is None:
        raise OSError("procfs: no mount with %s" % " or ".join(proc_opts))
    mount(None, new, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    pivot(new)
    return took


def pivot(new):
    """new becomes / (pivot_root(".", ".") and the old root detached);
    where the architecture's number is not known here, a move of new onto
    / and chroot."""
    import platform
    os.chdir(new)
    nr = PIVOT_ROOT.get(platform.machine())
    if nr is not None:
        if LIBC.syscall(ctypes.c_long(nr), b".", b".") != 0:
            e = ctypes.get_errno()
            raise OSError(e, "pivot_root: %s" % os.strerror(e))
        if LIBC.umount2(b".", MNT_DETACH) != 0:
            e = ctypes.get_errno()
            raise OSError(e, "umount of the old root: %s" % os.strerror(e))
    else:
        mount(".", "/", None, 1 << 13)      # MS_MOVE
        os.chroot(".")
    os.chdir("/")


def drop_ids(uid, gid):
    """Become uid:gid, no supplementary groups, no capabilities (a uid
    change from root clears them); the process stays dumpable (its own
    /proc entries are its own) and dies with its parent (both are reset
    by the change)."""
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    os.setresuid(uid, uid, uid)
    prctl(PR_SET_DUMPABLE, 1)
    set_pdeathsig()


def set_limits():
    """RLIMIT_NPROC (nproc_max) and RLIMIT_FSIZE (FSIZE_MAX), soft and
    hard; returns them.  NPROC binds a uid that is not root (root is
    exempt) and counts all that uid's threads."""
    n = nproc_max()
    resource.setrlimit(resource.RLIMIT_NPROC, (n, n))
    resource.setrlimit(resource.RLIMIT_FSIZE, (FSIZE_MAX, FSIZE_MAX))
    return {"nproc": n, "fsize": FSIZE_MAX}


def jail_off():
    """Why the job jail (own root, own ids or no capabilities, cgroups) is
    off, or None when it is on: HEADROOM_JOB_JAIL=0 alone."""
    return "HEADROOM_JOB_JAIL=0" if os.environ.get("HEADROOM_JOB_JAIL") == "0" else None


def ids_off(device):
    """Why a jailed job keeps the worker's uid, or None when it takes one
    of its own: unset HEADROOM_JOB_JAIL, CUDA jobs keep it.  On the H200
    and the H100 a candidate of another uid than the judge's cannot map
    the judge's CUDA IPC memory (every call fails with
    cudaErrorMapBufferObjectFailed), while its own root (the mount
    namespace, the procfs with hidepid, its own /tmp) and a process
    without capabilities map it, the whole stack too
    (tests/gpu/jail_probe.py --layers, 2026-12-06 on an H100): such a job
    keeps uid 0 in its own root with every capability dropped
    (drop_caps).  HEADROOM_JOB_JAIL=1 gives it its own uid anyway."""
    if os.environ.get("HEADROOM_JOB_JAIL") != "1" and str(device).startswith("cuda"):
        return ("kept under CUDA: a candidate of another uid cannot map the judge's CUDA "
                "IPC memory (cudaErrorMapBufferObjectFailed on the H200 and H100); "
                "HEADROOM_JOB_JAIL=1 gives it its own")
    return None


def kept_ids(why):
    """How a job that keeps uid 0 (ids_off's why) is described, in its
    record and the worker's hello alike."""
    return "uid 0, every capability dropped (%s)" % why


CAPSET_NR = {"x86_64": 126, "aarch64": 91}
PR_CAPBSET_DROP = 24
CAP_LAST_MAX = 63


def drop_caps():
    """Drop every capability of this process, its uid kept: the bounding
    set first (prctl PR_CAPBSET_DROP, which needs CAP_SETPCAP), then the
    effective, permitted and inheritable sets (capset, version 3, all
    zero); the ambient set empties with the permitted one.  A uid 0
    without capabilities owns root's files still (Landlock keeps the
    secrets among them from it: sandbox.SECRETS) but overrides no
    permission, mounts nothing, signals no other uid, and gets none back
    from a program it runs (no_new_privs, the bounding set).  OSError
    where the kernel refused."""
    for cap in range(CAP_LAST_MAX + 1):
        if LIBC.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0) != 0:
            e = ctypes.get_errno()
            if e == errno.EINVAL:
                break           # past the kernel's last capability
            raise OSError(e, "prctl(PR_CAPBSET_DROP, %d): %s" % (cap, os.strerror(e)))
    nr = CAPSET_NR.get(os.uname().machine)
    if nr is None:
        raise OSError(errno.ENOSYS, "capset: no call number for %s" % os.uname().machine)
    hdr = (ctypes.c_uint32 * 2)(0x20080522, 0)      # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()
    if LIBC.syscall(ctypes.c_long(nr), hdr, data) != 0:
        e = ctypes.get_errno()
        raise OSError(e, "capset: %s" % os.strerror(e))


def confine_candidate(cfg, own_dir, reads, uid_offset=0, umask=0o002):
    """The jail of a process that runs what is not the project's (the
    candidate process, the builder process: hrworker/confine.py), as far
    as this process may make it: as root, a mount and a network namespace
    of its own (own_root on own_dir/../root: the read roots read-only,
    own_dir and own_dir/../tmp, its /tmp, writable, and on the CPU
    own_dir/../shm, its /dev/shm), then ids of the
    job's own (uid JOB_ID_BASE + uid_offset + the judge's pid), or, for
    a CUDA job (ids_off), uid 0 kept and every capability dropped after
    the limits (drop_caps); the limits in any case; umask: the process's own once its ids are the
    job's (002: a later job of the same scratch, of another uid but the
    same group, may rewrite what it left).  Returns (what took, whether
    the network namespace is made); seconds: what it took."""
    import time
    t0 = time.monotonic()
    got = {}
    own_net = False
    off, keep_ids = jail_off(), ids_off(cfg.device)
    if off is not None:
        got["ids"] = got["root"] = "kept (%s)" % off
    elif os.geteuid() != 0:
        got["ids"] = "the worker's own (uid %d: not root)" % os.geteuid()
        got["root"] = "shared (a mount namespace needs root)"
    elif LIBC.unshare(ctypes.c_int(CLONE_NEWNS | CLONE_NEWNET)) != 0:
        why = os.strerror(ctypes.get_errno())
        got["ids"] = "root (no mount namespace: unshare: %s)" % why
        got["root"] = "shared (unshare: %s)" % why
    else:
        own_net = True
        uid, gid = JOB_ID_BASE + uid_offset + os.getppid(), JOB_ID_BASE
        new = os.path.join(os.path.dirname(own_dir), "root")
        try:
            if keep_ids is None:
                os.chown(own_dir, uid, gid)
            os.makedirs(new, exist_ok=True)
            # A CUDA job's /dev/shm is the machine's: torch's CUDA IPC
            # reference counts are files the judge names there.
            tmp, shm = (os.path.join(os.path.dirname(own_dir), d) for d in ("tmp", "shm"))
            shm = None if cfg.device.startswith("cuda") else shm
            for d in (tmp, shm):
                if d is not None:
                    os.makedirs(d, exist_ok=True)
                    os.chmod(d, 0o1777)
            mine = os.stat(shm)[1:3] if shm is not None else None    # (inode, device)
            got["proc"] = own_root(new, reads, [own_dir], tmp=tmp, shm=shm)
            # Its own only where the bind took (a root without /dev has none).
            shm = shm if mine is not None and os.path.isdir("/dev/shm") and \
                os.stat("/dev/shm")[1:3] == mine else None
        except OSError as e:
            # Still on the machine's root (pivot is the last step): the
            # job's uid could not reach Python there; root it stays.
            got["ids"] = "root (its own root not made: %s)" % e
            got["root"] = "shared (%s)" % e
        else:
            got["root"] = ("own (pivot_root): the read roots (the build cache among them) "
                           "read-only, its own folder writable, /tmp%s its own (beside it)"
                           % (" and /dev/shm" if shm is not None else ""))
            got["tmp"] = "/tmp"
            if shm is not None:
                got["shm"] = "/dev/shm"
            if keep_ids is None:
                drop_ids(uid, gid)
                got["ids"] = {"uid": uid, "gid": gid}
            os.umask(umask)
    got["limits"] = set_limits()
    if keep_ids is not None and off is None and os.geteuid() == 0:
        # After the limits (lowered without a capability, raised only
        # with one): uid 0 in its own root, no capabilities.
        try:
            drop_caps()
            got["ids"] = kept_ids(keep_ids)
        except OSError as e:
            got["ids"] = "root, capabilities kept (%s; %s)" % (keep_ids, e)
    got["seconds"] = round(time.monotonic() - t0, 4)
    return got, own_net


def share_cache(cache):
    """The build cache is the judges': the jobs' group (JOB_ID_BASE) may
    read it (and search its directories), nobody but its owner write it
    (an entry is written by a job's builder process in a folder of its
    own and renamed into place by the judge: builder.py).  At the
    worker's start, as root; returns how many entries changed."""
    n = 0
    gid = JOB_ID_BASE
    for top, dirs, files in os.walk(cache):
        for name in [None] + dirs + files:
            p = top if name is None else os.path.join(top, name)
            if name is not None and name in dirs:
                continue            # walked as its own top
            try:
                st = os.lstat(p)
                if os.path.islink(p):
                    continue
                want = (st.st_mode | 0o040 | (0o010 if os.path.isdir(p) else 0)) & ~0o2022
                if st.st_gid != gid:
                    os.chown(p, -1, gid)
                    n += 1
                if st.st_mode & 0o7777 != want & 0o7777:
                    os.chmod(p, want & 0o7777)
                    n += 1
            except OSError:
                pass
    return n


# ------------------------------------------------------------ the cgroup
CGROUP_ROOT = "/sys/fs/cgroup"


class JobCgroups:
    """Each job in a cgroup v2 of its own, under a parent this worker may
    write: its own cgroup's parent when the controllers are delegated to
    it, else (root) CGROUP_ROOT/headroom.  pids.max, memory.max (the
    worker's --mem-limit-mb, else none: accounted only), cpu accounting
    (cpu.stat).  where is None, and why says why, where there is none."""

    CONTROLLERS = ("cpu", "memory", "pids")

    def __init__(self):
        self.where, self.why = None, None
        self.owner = os.getpid()    # the worker: jobs' cgroups are named by it
        self.v2 = cgroup2_mount()   # read once: every job's candidate cgroup is under it
        try:
            with open(os.path.join(CGROUP_ROOT, "cgroup.controllers")) as f:
                avail = f.read().split()
        except OSError:
            self.why = "no cgroup v2 at %s (cgroup v1 or none)" % CGROUP_ROOT
            return
        missing = [c for c in self.CONTROLLERS if c not in avail]
        if missing:
            self.why = "cgroup v2 without the %s controller" % ", ".join(missing)
            return
        parent = os.path.join(CGROUP_ROOT, "headroom")
        try:
            os.makedirs(parent, exist_ok=True)
            with open(os.path.join(CGROUP_ROOT, "cgroup.subtree_control")) as f:
                on = f.read().split()
            if not all(c in on for c in self.CONTROLLERS):
                with open(os.path.join(CGROUP_ROOT, "cgroup.subtree_control"), "w") as f:
                    f.write(" ".join("+" + c for c in self.CONTROLLERS))
            with open(os.path.join(parent, "cgroup.subtree_control"), "w") as f:
                f.write(" ".join("+" + c for c in self.CONTROLLERS))
        except OSError as e:
            self.why = "cgroup v2 not writable here: %s" % e
            return
        self.where = parent

    @classmethod
    def off(cls, why):
        c = cls.__new__(cls)
        c.where, c.why, c.owner, c.v2 = None, why, os.getpid(), cgroup2_mount()
        return c

    def describe(self):
        return {"cgroup": self.where} if self.where else {"cgroup": None, "why": self.why}

    def path(self, job):
        """The job's cgroup, by the worker's pid (the same in the job's
        process, which makes it, and in the worker, which removes it)."""
        return os.path.join(self.where, "w%d-job-%s" % (self.owner, job))

    def candidate_path(self, job):
        """The cgroup the judge counts the candidate's processes in: a
        child of the job's cgroup, whose limits then hold for them (no
        controller is enabled below it, so the judge may stay in the job's
        own); where there is none (a hybrid system: cgroup v1 controllers,
        a v2 hierarchy beside them; the job jail off), one under the v2
        hierarchy's headroom folder: its cpu.stat counts every process
        that was in it, those reaped unread included.  None without a v2
        hierarchy."""
        if self.where is not None:
            return os.path.join(self.path(job), "candidate")
        mount = self.v2
        if mount is None:
            return None
        return os.path.join(mount, "headroom", "w%d-job-%s" % (self.owner, job))

    def enter_candidate(self, job, pids):
        """In the job's process, before candidate code runs: the
        candidate's cgroup made, pids (the candidate process and what it
        started) moved into it.  Returns (its path, None) or (None, why)."""
        p = self.candidate_path(job)
        if p is None:
            return None, "no cgroup v2 hierarchy mounted"
        try:
            os.makedirs(p, exist_ok=True)
            for pid in pids:
                with open(os.path.join(p, "cgroup.procs"), "w") as f:
                    f.write(str(pid))
        except OSError as e:
            return None, "%s: %s" % (p, e)
        return p, None

    def enter(self, job, pids_max, memory_max=None):
        """In the job's process: make its cgroup, set its limits, move in.
        Returns the record for checks.job_cgroup."""
        if self.where is None:
            return {"cgroup": None, "why": self.why}
        p = self.path(job)
        try:
            os.makedirs(p, exist_ok=True)
            with open(os.path.join(p, "pids.max"), "w") as f:
                f.write(str(pids_max))
            if memory_max:
                with open(os.path.join(p, "memory.max"), "w") as f:
                    f.write(str(memory_max))
            with open(os.path.join(p, "cgroup.procs"), "w") as f:
                f.write("0")
        except OSError as e:
            return {"cgroup": None, "why": "%s: %s" % (p, e)}
        return {"cgroup": p, "pids_max": pids_max, "memory_max": memory_max or "max"}

    @staticmethod
    def usage(rec):
        """The job's CPU time and peaks so far, into rec (cpu.stat's
        usage_usec, memory.peak, pids.peak where the kernel has them)."""
        p = rec.get("cgroup")
        if not p:
            return rec
        for name, key in (("cpu.stat", "usage_usec"), ("memory.peak", None),
                          ("pids.peak", None)):
            try:
                with open(os.path.join(p, name)) as f:
                    text = f.read()
            except OSError:
                continue
            if key is None:
                rec[name.replace(".", "_")] = int(text.split()[0])
            else:
                for line in text.splitlines():
                    k, _, v = line.partition(" ")
                    if k == key:
                        rec["cpu_usage_usec"] = int(v)
        return rec

    def remove(self, job):
        """After the job's processes are gone: its cgroups, the
        candidate's first (False while a process is still in one: tried
        again at the next reap)."""
        for p in (self.candidate_path(job), self.where and self.path(job)):
            if p and not kill_and_remove(p):
                return False
        return True

    def sweep(self):
        """At the worker's start: the cgroups of workers gone (a worker
        killed before it removed its jobs'), their processes killed and
        the cgroups removed; how many.  A live pid's are left, whoever
        has it now."""
        n = 0
        mount = self.v2
        for top in {self.where, mount and os.path.join(mount, "headroom")}:
            try:
                names = os.listdir(top) if top else []
            except OSError:
                continue
            for name in names:
                owner = name[1:].split("-job-")[0]
                if not (name.startswith("w") and "-job-" in name and owner.isdigit()):
                    continue
                try:
                    os.kill(int(owner), 0)
                    continue
                except ProcessLookupError:
                    pass
                except OSError:
                    continue
                kill_and_remove(os.path.join(top, name, "candidate"))
                n += kill_and_remove(os.path.join(top, name))
        return n


def kill_and_remove(path):
    """The cgroup at path: what is left in it killed (cgroup.kill: Linux
    5.14; the worker's sweep finds them elsewhere), then removed.  False
    while it cannot be (a process still in it)."""
    try:
        with open(os.path.join(path, "cgroup.kill"), "w") as f:
            f.write("1")
    except OSError:
        pass
    try:
        os.rmdir(path)
    except FileNotFoundError:
        pass
    except OSError:
        return False
    return True


def cgroup2_mount(mounts="/proc/self/mounts"):
    """Where the cgroup v2 hierarchy is mounted (/sys/fs/cgroup on a
    system of v2 alone, /sys/fs/cgroup/unified on a hybrid one), or None."""
    try:
        with open(mounts) as f:
            for line in f:
                fields = line.split()
                if len(fields) > 2 and fields[2] == "cgroup2":
                    return fields[1].replace("\\040", " ")
    except OSError:
        pass
    return None
