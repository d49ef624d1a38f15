"""hrworker/builder.py - the build cache's one writer.  A candidate's
load_inline call is compiled by its job's builder process, never by the
candidate process: the judge forks the builder before the candidate
process (neither has a CUDA context yet); it confines itself as the
candidate process does (confine.py), with a uid of its own where the job
jail makes ids, the cache read-only and one folder it may write,
CACHE/.building/JOB/work.  For each call it runs torch's own build
(cpp_extension.load_inline, the module not imported) into a fresh folder
of a name the judge chose, then kills whatever the build left running.
The judge renames that folder into place as the cache entry of the
call's arguments (entry_name); the candidate process, to which the cache
is read-only, imports the module from there
(cpp_extension._import_module_from_library, as load_inline ends).

So an entry holds what the compilers made of its own key's arguments,
whatever any candidate did: no candidate writes an entry, a
compile-failure marker or a precompiled header, and a program the
candidate's flags make the compilers run (gcc's -wrapper, nvcc's -ccbin)
writes only into the folder of its own call, under its own key.  A
precompiled header built for a call (pch.py) is published only as its
bytes were when the builder made it, before the extension's compilers
ran (a hash the judge checks).

A call the builder cannot take is built by the candidate process in its
own folder, uncached, as the original harness would (call_of says why:
arguments that are not JSON, a flag or include path outside the read
roots, a relative include path, "..").  A build that fails for want of processes, memory or disk
is not kept.

Message (candidate to judge, inside any request): {"t": "compile",
"call": {"args": {...}, "env": {...}}}; the judge's answer: {"op":
"compiled", "ok", "dir" (the entry's name), "cache": "hit" | "miss",
"error", "seconds", "cpu_seconds", the pch fields}.
Owns: CACHE/.building/, the entries' names, .headroom-build-failed.
Must not: import the candidate's module into the builder, publish what
another call's build left, or keep a failure that was the machine's."""
import ctypes
import hashlib
import json
import os
import platform
import re
import secrets
import shutil
import signal
import stat
import time

from hrworker import pch
from hrworker.account import children_of
from hrworker.channel import ChannelError, JudgeEnd, pair
from hrworker.confine import run_child
from hrworker.jail import BUILDER_UIDS, PR_SET_DUMPABLE, beneath
from hrworker.util import LIBC, children_cpu, exc_text, prctl

FAILED = ".headroom-build-failed"
BUILDING = ".building"
# The environment torch's build and its compilers read; all but MAX_JOBS
# change what is built (entry_name).
BUILD_ENV = ("TORCH_CUDA_ARCH_LIST", "CFLAGS", "CXXFLAGS", "LDFLAGS", "CXX", "CC",
             "NVCC_APPEND_FLAGS", "NVCC_PREPEND_FLAGS", "NVCC_CCBIN", "MAX_JOBS")
# load_inline's arguments that name flags and paths (what call_of reads).
FLAG_ARGS = ("extra_cflags", "extra_cuda_cflags", "extra_sycl_cflags", "extra_ldflags",
             "extra_include_paths")
# Failures of the machine, not of the sources: never kept (gcc's report of
# a pass killed, collect2's of ld killed, nvcc's of cicc or ptxas killed,
# the shell's, ninja stopped by a signal, the C library's and the
# compilers' words for a lack of processes, memory or disk).
MACHINE = re.compile(r"signal terminated program|terminated (?:by|with) signal|"
                     r"died due to signal|(?m:^\s*Killed\b)|\d\s+Killed\b|"
                     r"interrupted by user|Resource temporarily unavailable|"
                     r"Cannot allocate memory|No space left on device|[Oo]ut of memory|"
                     r"virtual memory exhausted|cannot fork|Too many open files|"
                     r"Disk quota exceeded|File size limit exceeded")
# A compiler's or the linker's error diagnostic: gcc's and nvcc's "FILE:
# LINE: error:" and "fatal error:", ld's "undefined reference to", collect2's
# "error: ld returned", nvcc's own "nvcc fatal" (torch's "Error building
# extension" heads every failure and is not one).
DIAGNOSTIC = re.compile(r"(?m)(?::\s*|^\s*)(?:fatal )?error\b|undefined reference to|nvcc fatal")
ABS_PATH = re.compile(r"(?:^|[=,:]|^-[A-Za-z-]+)(/[^\s,:;]*)")
MAX_ERROR = 64 << 10


class Private(Exception):
    """A call the builder cannot take: built by the candidate process in
    its own folder, uncached."""


def call_of(arguments, environ, readable):
    """The builder's request for a load_inline call's bound arguments
    (without build_directory): {"args", "env"}; Private(why) where it must
    be built in the candidate process.  readable: the read roots the
    builder has (sandbox.read_roots, the candidate's own folder left
    out)."""
    args = {k: v for k, v in arguments.items() if k != "build_directory"}
    try:
        json.dumps(args, allow_nan=False)
    except (TypeError, ValueError) as e:
        raise Private("arguments that are not JSON (%s)" % str(e)[:200])
    for k in FLAG_ARGS:
        v = args.get(k)
        for f in ([v] if isinstance(v, str) else v if isinstance(v, (list, tuple)) else []):
            if not isinstance(f, str):
                continue
            if ".." in f:
                raise Private("%s has %r" % (k, f[:200]))
            if k == "extra_include_paths" and not f.startswith("/"):
                # torch makes it absolute in the process that calls
                # load_inline: the candidate's working directory, not the
                # builder's, says what it names
                raise Private("%s has %r, relative" % (k, f[:200]))
            paths = [f] if k == "extra_include_paths" else ABS_PATH.findall(f)
            for p in paths:
                if not beneath(p, readable):
                    raise Private("%s names %s, which the build process cannot read"
                                  % (k, p[:200]))
    return {"args": args, "env": {k: environ[k] for k in BUILD_ENV if k in environ}}


def entry_name(cfg, torch, call):
    """The cache entry of a call: its arguments (verbose aside), the
    environment that changes the build, torch, CUDA, arch, machine."""
    args = {k: v for k, v in call["args"].items() if k != "verbose"}
    env = call.get("env") or {}
    key = "\n".join(["load_inline/2", json.dumps(args, sort_keys=True), torch.__version__,
                     str(torch.version.cuda), cfg.arch, platform.machine()] +
                    ["%s=%s" % (k, env.get(k, "")) for k in BUILD_ENV if k != "MAX_JOBS"])
    return hashlib.sha256(key.encode()).hexdigest()[:24]


DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def open_dir(name, dir_fd=None):
    """A directory of a builder's folder, not a link in its place (what a
    build runs may have put one there; the judge, root, must not follow
    it)."""
    return os.open(name, DIR_FLAGS, dir_fd=dir_fd)


def tree(fd, rel=""):
    """(folder fd, entry, path) of everything beneath the folder fd, in
    name order, each folder before what it holds; a folder is opened
    without following a link (open_dir)."""
    with os.scandir(fd) as it:
        entries = sorted(it, key=lambda e: e.name)
    for e in entries:
        path = os.path.join(rel, e.name)
        yield fd, e, path
        if e.is_dir(follow_symlinks=False):
            sub = open_dir(e.name, fd)
            try:
                yield from tree(sub, path)
            finally:
                os.close(sub)


def tree_hash(d, dir_fd=None):
    """sha256 over a folder's files (paths and bytes), in tree order;
    OSError where it holds a link or what is neither a file nor a
    folder (a FIFO would block its reader)."""
    h = hashlib.sha256()
    top = open_dir(d, dir_fd)
    try:
        for fd, e, path in tree(top):
            if e.is_symlink():
                raise OSError("%s is a link" % path)
            if e.is_dir(follow_symlinks=False):
                continue
            f = os.open(e.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC,
                        dir_fd=fd)
            with open(f, "rb") as fo:
                if not stat.S_ISREG(os.fstat(f).st_mode):
                    raise OSError("%s is not a file" % path)
                h.update(path.encode() + b"\0")
                for block in iter(lambda: fo.read(1 << 20), b""):
                    h.update(block)
    finally:
        os.close(top)
    return h.hexdigest()


def own_tree(fd):
    """The folder fd and all beneath it become the judge's (root's: its
    uid and gid), read-only to the builder's uid, whose processes could
    otherwise still write an entry once published; no link followed."""
    uid, gid = os.geteuid(), os.getegid()
    os.chown(fd, uid, gid)
    for dfd, e, _ in tree(fd):
        os.chown(e.name, uid, gid, dir_fd=dfd, follow_symlinks=False)


def rename_dir(fd, name, src_fd, dest):
    """Rename the folder name of src_fd (fd: that folder, opened) to dest;
    where what was renamed is not that folder (a link or another put in
    its place meanwhile), it is removed and OSError raised."""
    os.rename(name, dest, src_dir_fd=src_fd)
    st, want = os.lstat(dest), os.fstat(fd)
    if (st.st_dev, st.st_ino) != (want.st_dev, want.st_ino):
        if stat.S_ISDIR(st.st_mode):
            shutil.rmtree(dest, ignore_errors=True)
        else:
            os.unlink(dest)
        raise OSError("%s was replaced while it was published" % name)


def kept_failure(e):
    """Is a failed build (load_inline's exception) the sources' doing, kept
    in the cache and answered again?  Only where a compiler or the linker
    said why (an error diagnostic: a compiler killed without a word, say
    by another process of the candidate's uid, leaves none); not where
    ninja ended by a signal (torch raises from its CalledProcessError) or
    the text names the machine's trouble."""
    text = str(e)
    code = getattr(e.__cause__, "returncode", None)
    return ("Error building extension" in text and bool(DIAGNOSTIC.search(text))
            and not MACHINE.search(text) and not (isinstance(code, int) and code < 0))


# ------------------------------------------------------------ the builder
def build_into(cfg, torch, call, base):
    """Build one call into base/ext (base/pch: a header it makes); the
    reply's fields.  In the builder process (or a test's own)."""
    import torch.utils.cpp_extension as cpp
    d = os.path.join(base, "ext")
    os.mkdir(d)
    cfg.pch_out = os.path.join(base, "pch")
    for k in BUILD_ENV:
        v = (call.get("env") or {}).get(k)
        if isinstance(v, str):
            os.environ[k] = v
        else:
            os.environ.pop(k, None)
    args = dict(call["args"], build_directory=d)
    # Each build is the first of its name here: the module is name.so
    # (torch names one built again in a process with other sources
    # name_vN; the candidate process imports whichever entry it asked for).
    cpp.JIT_EXTENSION_VERSIONER.entries.clear()
    rep = {"ok": False}
    t0, cpu0 = time.monotonic(), children_cpu()
    saved = cpp._import_module_from_library
    try:
        rep.update(pch.prepare(cfg, torch, cpp, args, d, False))
        key = rep.get("pch_key")
        if rep.get("pch") == "built" and key:
            rep["pch_sha256"] = tree_hash(os.path.join(cfg.pch_out, key))
        if key and os.path.exists(os.path.join(cfg.pch_out, key + ".failed")):
            with open(os.path.join(cfg.pch_out, key + ".failed")) as f:
                rep["pch_failed"] = f.read(4000)
        cpp._import_module_from_library = lambda name, path, is_python_module: path
        cpp.load_inline(**args)
        rep["ok"] = True
    except Exception as e:      # noqa: the compilers' answer, sent as data
        text = str(e) or exc_text(e)
        rep.update(error=text[:MAX_ERROR], kept=kept_failure(e))
    finally:
        cpp._import_module_from_library = saved
    rep["seconds"] = round(time.monotonic() - t0, 3)
    rep["cpu_seconds"] = round(children_cpu() - cpu0, 3)
    return rep


def descendants():
    """Every process beneath this one that /proc shows (each one's
    children, theirs in turn), parents first."""
    out, todo = [], [os.getpid()]
    while todo:
        kids = children_of(todo.pop(0))
        out += kids
        todo += kids
    return out


def reap_all(seconds=10.0):
    """Kill and reap every process beneath this one (a subreaper: what
    its builds left running, however detached, is its child), at every
    depth at once, so that a chain of forks cannot outgrow the killing;
    how many were still there after seconds (0: none)."""
    deadline = time.monotonic() + seconds
    while True:
        kids = descendants()
        if not kids:
            return 0
        for pid in kids:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for pid in kids:
            try:
                os.waitpid(pid, 0)      # ours (reparented ones too); else ECHILD
            except OSError:
                pass
        if time.monotonic() > deadline:
            return len(descendants())


def uid_processes(uid, but=()):
    """The pids of the processes whose real uid is uid (the judge's view
    of /proc), but those of but."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in but:
            continue
        try:
            with open("/proc/%s/status" % name) as f:
                for line in f:
                    if line.startswith("Uid:"):
                        if int(line.split()[1]) == uid:
                            out.append(int(name))
                        break
        except (OSError, ValueError, IndexError):
            pass
    return out


def kill_uid(uid):
    """Kill every process of uid (a builder's own, made by the job jail):
    a child of the judge's takes that uid and signals all it may
    (kill(-1): atomic with respect to forks, so no chain outgrows it)."""
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            os.setresgid(uid, uid, uid)
            os.setgroups([])
            os.setresuid(uid, uid, uid)
            for _ in range(100):
                os.kill(-1, signal.SIGKILL)
            code = 0
        except ProcessLookupError:
            code = 0            # none left
        except BaseException:   # noqa: said by the exit code
            pass
        os._exit(code)
    os.waitpid(pid, 0)


CAP_SYS_PTRACE = 19
PR_CAPBSET_DROP = 24


class CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def drop_ptrace():
    """A builder that is root (the job jail off: its ids kept) gives up
    CAP_SYS_PTRACE, from its bounding set (what its builds exec) and its
    own sets: with it a build's program, root in its Landlock domain,
    opens the builder's /proc/PID/mem for writing, non-dumpable as it
    is, and builds what it likes under the next call's key.  What took."""
    if LIBC.prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0) != 0:
        return "not dropped: %s" % os.strerror(ctypes.get_errno())
    hdr, data = CapHeader(0x20080522, 0), (CapData * 2)()   # version 3
    if LIBC.capget(ctypes.byref(hdr), data) != 0:
        return "not dropped: capget: %s" % os.strerror(ctypes.get_errno())
    bit = ~(1 << CAP_SYS_PTRACE) & 0xFFFFFFFF
    data[0].effective &= bit
    data[0].permitted &= bit
    data[0].inheritable &= bit
    if LIBC.capset(ctypes.byref(hdr), data) != 0:
        return "not dropped: capset: %s" % os.strerror(ctypes.get_errno())
    return "CAP_SYS_PTRACE dropped"


def builder_main(cfg, torch, sock, work):
    """The builder process, from its fork to its exit; never returns."""
    def settle(got):
        # Its memory is out of reach of what its builds run (the same uid).
        prctl(PR_SET_DUMPABLE, 0)
        if os.geteuid() == 0:
            got["caps"] = drop_ptrace()

    def serve(end):
        while True:
            req, fds = end.recv()
            for fd in fds:
                os.close(fd)
            if req.get("op") != "build":
                return
            base = os.path.join(work, str(req["out"]))
            try:
                os.mkdir(base)      # fresh: nothing a build before left
                rep = build_into(cfg, torch, req["call"], base)
            except Exception as e:  # noqa: said to the judge
                rep = {"ok": False, "error": exc_text(e)}
            left = reap_all()
            if left:
                rep = {"ok": False, "strays": left,
                       "error": "the build left %d processes the builder could not end" % left}
            end.send(dict(rep, t="built"))
    # umask 022: an entry it makes is its owner's to write, and only the
    # judge (root) renames it into place.  Its own pid protected: a
    # build's program cannot kill it (and run on, reparented above it,
    # past its reap).
    run_child("builder", cfg, sock, work, serve, settle, uid_offset=BUILDER_UIDS,
              umask=0o022, protect=[os.getpid()])


# -------------------------------------------------------------- the judge
def building_root(cfg):
    """CACHE/.building/JOB: the builder's place (its work folder, its
    jail's root and /tmp); a new one for each job process."""
    root = os.path.join(cfg.cache, BUILDING, "%d-%s" % (os.getpid(), secrets.token_hex(4)))
    os.makedirs(root)
    return root


def tidy_building(cache):
    """Remove the builders' places of jobs that no longer run (a job killed
    before its judge closed its builder): CACHE/.building/PID-*, where no
    process PID is.  At the worker's start; returns how many."""
    top = os.path.join(cache, BUILDING)
    n = 0
    try:
        names = os.listdir(top)
    except OSError:
        return 0
    for name in names:
        pid = name.split("-", 1)[0]
        if pid.isdigit() and not os.path.exists("/proc/" + pid):
            shutil.rmtree(os.path.join(top, name), ignore_errors=True)
            n += 1
    return n


class Builder:
    """The judge's side of the builder process."""

    def __init__(self, cfg, torch, pid, end, root, t0=None):
        self.cfg, self.torch, self.pid, self.end, self.root = cfg, torch, pid, end, root
        self.work = os.path.join(root, "work")
        self.gone, self.builds = None, 0
        self.trouble = []       # builds the cache could not keep (serve): the tool's failures
        self.hello = self.recv("hello")
        ids = (self.hello.get("confined") or {}).get("ids")
        # its own uid (the job jail's): no other process has it
        self.uid = ids.get("uid") if isinstance(ids, dict) and ids.get("uid") else None
        if t0 is not None and isinstance(self.hello.get("confined"), dict):
            # from the fork to its hello: what a builder costs a job
            self.hello["confined"]["start_seconds"] = round(time.monotonic() - t0, 4)

    def recv(self, want):
        rep = self.end.recv()
        if rep.get("t") != want:
            raise ChannelError("the builder process sent %s where %s was due"
                               % (str(rep.get("t"))[:40], want))
        return rep

    def serve(self, msg):
        """The answer to a candidate's compile message."""
        call = msg.get("call")
        if not (isinstance(call, dict) and isinstance(call.get("args"), dict)
                and isinstance(call.get("env", {}), dict)
                and all(isinstance(v, str) for v in call.get("env", {}).values())):
            return {"ok": False, "error": "a compile message the judge refuses"}
        call = {"args": call["args"], "env": {k: v for k, v in call.get("env", {}).items()
                                             if k in BUILD_ENV}}
        name = entry_name(self.cfg, self.torch, call)
        entry = os.path.join(self.cfg.cache, name)
        if os.path.isdir(entry):
            return {"ok": True, "dir": name, "cache": "hit"}
        if self.gone:
            return {"ok": False, "error": self.gone, "dir": name}
        out = secrets.token_hex(8)
        self.builds += 1
        try:
            rep = self.build(call, out)
        except (ChannelError, OSError) as e:
            self.gone = "the build process ended: %s" % e
            self.end_uid()
            return {"ok": False, "error": self.gone, "dir": name}
        if rep.get("strays") or (self.uid and uid_processes(self.uid, (self.pid,))):
            # What its build left runs on: nothing of it is published, and
            # the builder ends with it.
            self.gone = "the build left processes running: %s" % str(
                rep.get("error") or "beyond the builder's reach")[:200]
            self.end_uid()
            shutil.rmtree(os.path.join(self.work, out), ignore_errors=True)
            return {"ok": False, "error": self.gone, "dir": name}
        ans = {"ok": rep.get("ok") is True, "dir": name, "cache": "miss"}
        for k, typ in (("error", str), ("seconds", (int, float)), ("cpu_seconds", (int, float)),
                       ("pch", str), ("pch_unusable", bool), ("pch_cpu_seconds", (int, float))):
            if isinstance(rep.get(k), typ):
                ans[k] = rep[k]
        base = os.path.join(self.work, out)
        try:
            self.publish(rep, base, entry)
        except OSError as e:
            # The cache's trouble (its disk, a file where the entry goes):
            # the tool's failure, never the candidate's (Job.tool_failed_build).
            text = "the build cache could not keep %s: %s" % (name, str(e)[:400])
            self.trouble.append(text)
            ans.update(ok=False, error=text)
        shutil.rmtree(base, ignore_errors=True)
        return ans

    def build(self, call, out):
        """The builder process's reply for call, built into work/out."""
        self.end.send({"op": "build", "call": call, "out": out})
        return self.recv("built")

    def publish(self, rep, base, entry):
        """The call's folder becomes its entry (a build the sources
        failed: with the failure marker); a header its build made joins
        CACHE/pch as its bytes were when made."""
        bfd = open_dir(base)
        try:
            self.publish_at(rep, bfd, entry)
        finally:
            os.close(bfd)

    def publish_at(self, rep, bfd, entry):
        """publish, base opened (bfd): nothing there is followed if a
        link (a build's program may have made any of them one)."""
        if rep.get("ok") is True or rep.get("kept") is True:
            efd = open_dir("ext", bfd)
            try:
                if rep.get("ok") is not True:
                    try:
                        os.unlink(FAILED, dir_fd=efd)
                    except FileNotFoundError:
                        pass
                    fd = os.open(FAILED, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
                                 os.O_CLOEXEC, 0o644, dir_fd=efd)
                    with open(fd, "w") as f:
                        f.write(str(rep.get("error")))
                if self.uid and os.geteuid() == 0:
                    own_tree(efd)
                try:
                    rename_dir(efd, "ext", bfd, entry)
                except FileExistsError:
                    pass                # another job's, published first
                except OSError:
                    if not os.path.isdir(entry) or os.path.islink(entry):
                        raise
            finally:
                os.close(efd)
        key = rep.get("pch_key")
        if not (isinstance(key, str) and re.fullmatch(r"[0-9a-f]{24}", key)):
            return
        root = os.path.join(self.cfg.cache, "pch")
        os.makedirs(root, exist_ok=True)
        try:
            pfd = open_dir("pch", bfd)
        except FileNotFoundError:
            pfd = None
        try:
            def own(name):
                try:
                    return pfd is not None and bool(os.stat(name, dir_fd=pfd,
                                                            follow_symlinks=False))
                except FileNotFoundError:
                    return False
            if own(key + ".seen"):      # one more extension of its flags
                pch.count_seen(os.path.join(root, key + ".seen"))
            if isinstance(rep.get("pch_failed"), str) and not os.path.exists(
                    os.path.join(root, key + ".failed")):
                with open(os.path.join(root, key + ".failed"), "w") as f:
                    f.write(rep["pch_failed"])
            if not (rep.get("pch_sha256") and pfd is not None and own(key)) or \
                    os.path.exists(os.path.join(root, key)):
                return
            hfd = open_dir(key, pfd)
            try:
                if tree_hash(".", hfd) == rep["pch_sha256"]:
                    try:
                        rename_dir(hfd, key, pfd, os.path.join(root, key))
                    except OSError:
                        pass
            finally:
                os.close(hfd)
        finally:
            if pfd is not None:
                os.close(pfd)

    def end_uid(self):
        """Kill every process of the builder's own uid, the builder too
        (nothing where it has none: the job jail off)."""
        if self.uid:
            kill_uid(self.uid)

    def close(self):
        try:
            self.end.send({"op": "quit"})
        except OSError:
            pass
        self.end.close()
        # The builder itself ends with the job's process group; anything
        # else of its uid is what a build left beyond its reach (a fork
        # of the judge's kills it: only then, and only after a build).
        if self.builds and self.uid and uid_processes(self.uid, (self.pid,)):
            self.end_uid()
        shutil.rmtree(self.root, ignore_errors=True)


class LocalBuilder(Builder):
    """A builder in the calling process, unconfined (tests and benches that
    build without a job: tests/py/test_pch.py); the same answers and the
    same publishing."""

    def __init__(self, cfg, torch):
        self.cfg, self.torch, self.pid, self.end = cfg, torch, os.getpid(), None
        self.root = building_root(cfg)
        self.work = os.path.join(self.root, "work")
        os.makedirs(self.work)
        self.gone, self.hello, self.uid, self.builds = None, {}, None, 0

    def build(self, call, out):
        base = os.path.join(self.work, out)
        os.mkdir(base)
        try:
            return build_into(self.cfg, self.torch, call, base)
        finally:
            self.cfg.pch_out = None

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def start_builder(cfg, torch):
    """Fork the job's builder process (before any CUDA context and before
    the candidate process, which then has none of its descriptors);
    the judge's Builder once it said hello."""
    t0 = time.monotonic()
    root = building_root(cfg)
    mine, theirs = pair()
    pid = os.fork()
    if pid == 0:
        mine.close()
        builder_main(cfg, torch, theirs, os.path.join(root, "work"))
    theirs.close()
    return Builder(cfg, torch, pid, JudgeEnd(mine), root, t0)
