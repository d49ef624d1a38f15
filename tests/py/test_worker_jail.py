"""The candidate process's jail, door by door (hrworker/jail.py,
docs/replay.md "The worker"): each attack is a candidate of the test's
own that tries it from C (ctypes: no audit hook sees it) when its module
runs, and raises with what it got, so that the job's build_log says it.
A door that reopens fails its check.  As root (CI): /etc/shadow cannot
be read, a Unix socket outside the scratch cannot be reached, /proc shows
the candidate's own processes only, the candidate runs as the job's
own uid (under CUDA: uid 0 without a capability), /tmp is the job's
own and so, on a CPU, is /dev/shm (a multiprocessing pool works); with
any uid: a fork bomb stops at RLIMIT_NPROC (as root: the
job's uid), a file stops at RLIMIT_FSIZE, no process is made outside the
candidate's own tree (clone's CLONE_PARENT: the seccomp filter), no
System V IPC, no namespace of its own and no io_uring (the seccomp
filter), and,
running as the judge's uid without Landlock, it cannot signal, renice or
trace the judge (the seccomp filter).  And an honest twin builds its
C++ extension (load_inline, ninja, into the build cache) and passes."""
import json
import os
import socket
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workerlib import DEVICE, ROOT, Worker, accepted, check, reported  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker.jail import FSIZE_MAX, JOB_ID_BASE, nproc_max  # noqa: E402

ROOT_RUN = os.geteuid() == 0
FIX = os.path.join(ROOT, "tests", "fixtures", "replay")
PROBLEM = open(os.path.join(FIX, "problems", "level1", "1_ReLU.py")).read()

# What every attack's module starts with: libc, and a report that ends
# the build (compile_error) with what the attack got.
HEAD = '''
import ctypes, json, os
import torch
import torch.nn as nn
libc = ctypes.CDLL(None, use_errno=True)
def report(**got):
    raise RuntimeError("JAIL " + json.dumps(got))
'''


def attack(w, body, **job):
    """Run a candidate of HEAD + body; the dict it reported."""
    _, res = w.run(PROBLEM, HEAD + body, **job)
    return reported(res, "JAIL ")


def unix_socket_outside(w):
    """A listening pathname socket beside the scratch (the worker's
    folder), as the judge's, a database's or a daemon's would be; the
    candidate connects from C."""
    path = os.path.join(w.tmp.name, "outside.sock")
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path)
    os.chmod(path, 0o777)
    srv.listen(4)
    srv.settimeout(0.2)
    got = attack(w, '''
class Addr(ctypes.Structure):
    _fields_ = [("family", ctypes.c_ushort), ("path", ctypes.c_char * 108)]
fd = libc.socket(1, 1, 0)        # AF_UNIX, SOCK_STREAM
a = Addr(1, %r)
rc = libc.connect(fd, ctypes.byref(a), ctypes.sizeof(a))
report(rc=rc, errno=ctypes.get_errno())
''' % os.fsencode(path))
    check(got.get("rc") == -1 and not accepted(srv),
          "a C connect() to a Unix socket outside the scratch is refused (%s)" % got, w)


def shadow(w, own_ids):
    """/etc/shadow refused from C; the candidate's uid is the job's own,
    or (CUDA: jail.ids_off) uid 0 without a capability."""
    got = attack(w, '''
fd = libc.open(b"/etc/shadow", 0)
caps = [l.split()[1] for l in open("/proc/self/status") if l.startswith(("CapEff", "CapBnd"))]
report(fd=fd, errno=ctypes.get_errno(), uid=os.getuid(), euid=os.geteuid(), caps=caps)
''')
    check(got.get("fd") == -1 and got.get("errno") == 13,
          "/etc/shadow cannot be read from C (%s)" % got, w)
    if own_ids:
        check(got.get("uid", 0) >= JOB_ID_BASE and got.get("euid", 0) >= JOB_ID_BASE,
              "the candidate runs as the job's own uid, not root (%s)" % got, w)
    else:
        check(got.get("caps") and all(int(c, 16) == 0 for c in got["caps"]),
              "the candidate keeps uid 0 but no capability, effective or bounding (%s)" % got, w)


def proc(w):
    """The worker's, the judge's and this test's processes are not in the
    candidate's /proc, nor readable by pid."""
    got = attack(w, '''
me = str(os.getpid())
seen = [p for p in os.listdir("/proc") if p.isdigit()]
others = {}
for pid in [os.getppid(), %d, %d, 1]:
    fd = libc.open(("/proc/%%d/cmdline" %% pid).encode(), 0)
    others[pid] = fd
report(seen=seen, me=me, others={str(k): v for k, v in others.items()})
''' % (w.p.pid, os.getpid()))
    check(got.get("seen") == [got.get("me")] and
          all(v == -1 for v in got.get("others", {"x": 0}).values()),
          "/proc shows the candidate's own process only; the judge's, the worker's "
          "and the test's cmdline cannot be opened (%s)" % got, w)


def fork_bomb(w, limit):
    """Children that sleep until the candidate's report is written: the
    forks stop at the limit, EAGAIN."""
    got = attack(w, '''
import signal
n, err = 0, None
kids = []
r, wfd = os.pipe()
while n < 2000:
    try:
        pid = os.fork()
    except OSError as e:
        err = e.errno
        break
    if pid == 0:
        os.close(wfd)
        os.read(r, 1)
        os._exit(0)
    kids.append(pid)
    n += 1
os.close(wfd)
for k in kids:
    os.waitpid(k, 0)
report(forks=n, errno=err)
''')
    check(got.get("errno") == 11 and 0 < got.get("forks", 0) < limit[1],
          "a fork bomb stops at %s (%d): %s" % (limit[0], limit[1], got), w)


def file_bomb(w):
    """A write past FSIZE_MAX fails (EFBIG), SIGXFSZ ignored; one byte
    below it is written (a sparse file: no disk spent)."""
    got = attack(w, '''
import signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
fd = os.open("big", os.O_WRONLY | os.O_CREAT, 0o600)
below = os.pwrite(fd, b"x", %d - 1)
try:
    os.pwrite(fd, b"x", %d)
    past = "written"
except OSError as e:
    past = e.errno
os.close(fd)
os.unlink("big")
report(below=below, past=past)
''' % (FSIZE_MAX, FSIZE_MAX))
    check(got.get("below") == 1 and got.get("past") == 27,
          "a write past RLIMIT_FSIZE (%d bytes) fails with EFBIG (%s)" % (FSIZE_MAX, got), w)


def clone_parent(w):
    """A process made with clone(2)'s CLONE_PARENT would be the judge's
    child, outside the candidate's tree, where the CPU account of its
    processes does not look: the seccomp filter refuses it (EPERM), and
    clone3 (whose flags a filter cannot read) answers ENOSYS; a fork and
    a thread still work."""
    got = attack(w, '''
import platform, signal, threading
nr = {"x86_64": 56, "aarch64": 220}[platform.machine()]
sysc = ctypes.PyDLL(None, use_errno=True).syscall
sysc.restype = ctypes.c_long
pid = sysc(ctypes.c_long(nr), ctypes.c_long(0x8000 | signal.SIGCHLD), ctypes.c_long(0),
           ctypes.c_long(0), ctypes.c_long(0), ctypes.c_long(0))
if pid == 0:
    os._exit(0)
err = ctypes.get_errno()
nr3 = {"x86_64": 435, "aarch64": 435}[platform.machine()]
r3 = sysc(ctypes.c_long(nr3), ctypes.c_long(0), ctypes.c_long(0))
err3 = ctypes.get_errno()
k = os.fork()
if k == 0:
    os._exit(3)
forked = os.waitpid(k, 0)[1] >> 8
seen = []
t = threading.Thread(target=lambda: seen.append(1))
t.start()
t.join()
report(pid=pid, errno=err, clone3=r3, errno3=err3, forked=forked, thread=len(seen))
''')
    check(got.get("pid") == -1 and got.get("errno") == 1 and got.get("clone3") == -1
          and got.get("errno3") == 38 and got.get("forked") == 3 and got.get("thread") == 1,
          "clone with CLONE_PARENT is refused (EPERM), clone3 answers ENOSYS; a fork "
          "and a thread still work (%s)" % got, w)


def sysv_ipc(w):
    """System V IPC lives in the host's IPC namespace and outlives the job:
    a segment of mode 0666 made in one job is read by key in the next,
    another uid's (a cache of timed outputs across jobs).  The seccomp
    filter refuses every call of it (EPERM): a new segment, message queue
    or semaphore set by key, and attaching a segment made outside the job
    (here by the test, mode 0666); nothing of the candidate's key is left."""
    libc = __import__("ctypes").CDLL(None, use_errno=True)
    key = 0x48520000 | (os.getpid() & 0xFFFF)
    outside = libc.shmget(0, 4096, 0o1000 | 0o666)     # IPC_PRIVATE, IPC_CREAT
    try:
        got = attack(w, '''
libc.shmat.restype = ctypes.c_void_p
def err(rc):
    return ctypes.get_errno() if rc in (-1, 2**64 - 1) else "rc %%d" %% rc
got = {"shmget": err(libc.shmget(%d, 4096, 0o1000 | 0o666)),
       "msgget": err(libc.msgget(%d, 0o1000 | 0o666)),
       "semget": err(libc.semget(%d, 1, 0o1000 | 0o666))}
a = libc.shmat(%d, None, 0)
got["shmat_outside"] = ctypes.get_errno() if a in (None, 2**64 - 1) else "attached"
got["unshare_user"] = err(libc.unshare(0x10000000))        # CLONE_NEWUSER
import platform
nr = {"x86_64": 425, "aarch64": 425}[platform.machine()]   # io_uring_setup
params = ctypes.create_string_buffer(120)
got["io_uring"] = err(libc.syscall(nr, 4, params))
report(**got)
''' % (key, key, key, outside))
        with open("/proc/sysvipc/shm") as f:
            left = [ln for ln in f.read().splitlines()[1:] if ln.split()
                    and int(ln.split()[0]) == key]
        check(outside >= 0 and all(got.get(k) == 1 for k in
                                   ("shmget", "msgget", "semget", "shmat_outside"))
              and not left,
              "System V IPC is refused (EPERM): a segment, queue or semaphore by key, "
              "and a segment made outside the job (%s, left %s)" % (got, left), w)
        check(got.get("unshare_user") == 1 and got.get("io_uring") == 1,
              "a user namespace of its own and an io_uring are refused (EPERM) (%s)" % got, w)
    finally:
        if outside >= 0:
            libc.shmctl(outside, 0, None)           # IPC_RMID


def judge_untouchable():
    """In a worker whose candidate runs as the judge's own uid (the job
    jail off, as under CUDA or for a worker that is not root) and without
    Landlock (as on a kernel before 6.12, which cannot scope signals): a
    signal to the judge (kill with signal 0: the same permission check
    as SIGSTOP's), to its process group or to all, a tgkill, a pidfd of
    it, a new priority for it (its own again), a ptrace seize or making it
    a descriptor's SIGIO owner are refused by the seccomp filter (EPERM);
    a signal to its own process, or to the process group of a child it
    made, is not.  The judge's other threads stay open (seccomp.py).  Each attempt is harmless where it succeeds: the door fails its
    check, never the test's run."""
    old = {k: os.environ.get(k) for k in ("HEADROOM_JOB_JAIL", "HEADROOM_FS_JAIL")}
    os.environ.update(HEADROOM_JOB_JAIL="0", HEADROOM_FS_JAIL="0")
    try:
        w = Worker()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    try:
        got = attack(w, '''
import platform
judge = os.getppid()
nr = {"x86_64": (234, 434), "aarch64": (131, 434)}[platform.machine()]
def err(rc):
    return ctypes.get_errno() if rc == -1 else "rc %d" % rc
got = {"judge_same_uid": os.stat("/proc/%d" % judge).st_uid == os.getuid()}
got["kill_judge"] = err(libc.kill(judge, 0))
got["kill_group"] = err(libc.kill(0, 0))
got["kill_all"] = err(libc.kill(-1, 0))
got["tgkill_judge"] = err(libc.syscall(nr[0], judge, judge, 0))
got["pidfd_judge"] = err(libc.syscall(nr[1], judge, 0))
got["renice_judge"] = err(libc.setpriority(0, judge, os.getpriority(os.PRIO_PROCESS, judge)))
got["ptrace_judge"] = err(libc.ptrace(0x4206, judge, 0, 0))     # PTRACE_SEIZE: no stop
got["kill_self"] = err(libc.kill(os.getpid(), 0))
r, w_ = os.pipe()
got["sigio_owner_judge"] = err(libc.fcntl(r, 8, judge))          # F_SETOWN
k = os.fork()
if k == 0:
    os.setpgid(0, 0)
    os.read(r, 1)
    os._exit(0)
os.setpgid(k, k)
got["kill_own_group"] = err(libc.kill(-k, 0))       # as ninja or timeout(1) would
os.write(w_, b"x")
os.waitpid(k, 0)
report(**got)
''')
        doors = ("kill_judge", "kill_group", "kill_all", "tgkill_judge", "pidfd_judge",
                 "renice_judge", "ptrace_judge", "sigio_owner_judge")
        check(got.get("judge_same_uid") is True and all(got.get(k) == 1 for k in doors)
              and got.get("kill_self") == "rc 0" and got.get("kill_own_group") == "rc 0",
              "the judge's own uid, no Landlock: signals, a pidfd, a new priority, "
              "ptrace and SIGIO ownership of the judge are refused (EPERM), its own "
              "signals and its child's group's are not (%s)" % got, w)
    finally:
        w.close()


def root_without_jail():
    """A worker whose candidate runs as root (the job jail off; a CUDA
    job keeps uid 0 too), Landlock on: /etc's secrets are left out of the read roots
    (sandbox.SECRETS, sandbox.private_beneath), so /etc/shadow cannot be opened from C though root
    owns it, while the rest of /etc reads; the job says what it hid."""
    old = os.environ.get("HEADROOM_JOB_JAIL")
    os.environ["HEADROOM_JOB_JAIL"] = "0"
    try:
        w = Worker()
    finally:
        if old is None:
            os.environ.pop("HEADROOM_JOB_JAIL", None)
        else:
            os.environ["HEADROOM_JOB_JAIL"] = old
    try:
        _, res = w.run(PROBLEM, HEAD + '''
got = {"uid": os.getuid()}
for name in ("/etc/shadow", "/etc/passwd"):
    fd = libc.open(name.encode(), 0)
    got[name] = "read" if fd >= 0 else ctypes.get_errno()
report(**got)
''')
        got = reported(res, "JAIL ")
        conf = (res.get("checks") or {}).get("candidate_process") or {}
        if not str(conf.get("landlock", "")).startswith("{") and not isinstance(
                conf.get("landlock"), dict):
            print("skip: root without the job jail: no Landlock here (%s)" % conf.get("landlock"))
            return
        check(got.get("uid") == 0 and got.get("/etc/shadow") == 13 and got.get("/etc/passwd") == "read"
              and "/etc/shadow" in (conf.get("secrets_hidden") or []),
              "as root without the job jail (HEADROOM_JOB_JAIL=0), Landlock keeps /etc/shadow "
              "from C (EACCES) and the rest of /etc readable (%s; hidden %s)"
              % (got, conf.get("secrets_hidden")), w)
    finally:
        w.close()


def private_tmp(w):
    """A candidate that builds in a folder of its own under /tmp, as the
    original harness let it: it writes there, and what it wrote is in its
    job's scratch, not in the machine's /tmp."""
    mark = "hr-jail-tmp-%d" % os.getpid()
    got = attack(w, '''
d = "/tmp/%s"
os.makedirs(d, exist_ok=True)
with open(d + "/ext.so", "w") as f:
    f.write("x")
report(wrote=os.path.exists(d + "/ext.so"))
''' % mark)
    check(got.get("wrote") is True and not os.path.exists("/tmp/" + mark),
          "a candidate writes its own /tmp, which is not the machine's (%s)" % got, w)


def private_shm(w):
    """A candidate that makes a multiprocessing lock and a process pool at
    import (POSIX semaphores named in /dev/shm), as the original harness
    let it: on a CPU its jail's /dev/shm is its own (a folder of its job's
    scratch), so they work, and the machine's /dev/shm is untouched; a
    CUDA job's /dev/shm is the machine's (torch's CUDA IPC files), which
    it may not add to."""
    before = set(os.listdir("/dev/shm"))
    got = attack(w, '''
import multiprocessing
try:
    lock = multiprocessing.Lock()
    with lock:
        pass
    pool = multiprocessing.get_context("fork").Pool(2)
    rows = pool.starmap(sum, [((1, 2),), ((3, 4),)])
    pool.terminate()
    report(pool=rows)
except OSError as e:
    report(pool=e.errno)
''')
    left = set(os.listdir("/dev/shm")) - before
    if DEVICE == "cuda":
        check(not left, "a CUDA job leaves nothing in the machine's /dev/shm (%s)" % got, w)
        return
    check(got.get("pool") == [3, 7] and not any(n.startswith("sem.") for n in left),
          "a candidate makes a multiprocessing lock and pool in its own /dev/shm, which is "
          "not the machine's (%s; new there: %s)" % (got, sorted(left)), w)


def honest_twin(w, kept):
    """The C++ candidate (load_inline, ninja, the build cache) builds and
    is correct inside the jail; under CUDA its CUDA twin (relu_fast.py's
    loop reads host pointers: on device tensors it is no honest twin)."""
    cand = open(os.path.join(FIX, "candidates", "cuda_only.py" if DEVICE == "cuda"
                             else "relu_fast.py")).read()
    _, res = w.run(PROBLEM, cand)
    check(res is not None and res.get("verdict") == "correct" and res.get("compiled"),
          "an honest load_inline candidate builds and is correct in the jail (%s: %s)"
          % (res and res.get("verdict"), res and (res.get("build_log") or res.get("error"),
                                                   res.get("build"))), w)
    conf = res["checks"].get("candidate_process") or {}
    print("candidate process: %s" % json.dumps(conf))
    if ROOT_RUN and not kept:
        check(isinstance(conf.get("ids"), dict) and conf.get("proc", "").startswith("hidepid"),
              "its job says it ran as its own uid in its own root (%s)" % conf, w)
    elif ROOT_RUN:
        # CUDA: uid 0 without capabilities in its own root, and why.
        check(str(conf.get("ids")).startswith("uid 0, every capability dropped (") and
              conf.get("proc", "").startswith("hidepid") and conf.get("secrets_hidden"),
              "its job says it kept uid 0 without capabilities in its own root, why, and "
              "which secrets were hidden (%s)" % conf, w)


def main():
    cache = os.path.join(ROOT, "build", "test-replay-cache")
    os.makedirs(cache, exist_ok=True)
    w = Worker("--cache", cache)
    try:
        jail = w.hello.get("job_jail") or {}
        check(jail.get("limits", {}).get("nproc") == nproc_max() and "cgroup" in jail,
              "hello says the jobs' limits and cgroup (%s)" % json.dumps(jail), w)
        # The job's own uid is off under CUDA by design (jail.ids_off):
        # uid 0 without capabilities there, in its own root as on a CPU.
        own_ids = str(jail.get("ids")).startswith("the job's own")
        if ROOT_RUN:
            shadow(w, own_ids)
            unix_socket_outside(w)
            proc(w)
            private_tmp(w)
            private_shm(w)
        else:
            print("skip: /etc/shadow, Unix sockets, /proc: the jail drops root, and "
                  "this test does not run as root (CI does)")
        # As root with the job's ids kept (CUDA), RLIMIT_NPROC does not
        # bind: the job's cgroup's pids.max (twice it) does.
        kept = ROOT_RUN and not own_ids
        fork_bomb(w, ("the job cgroup's pids.max", 2 * nproc_max()) if kept and jail.get("cgroup")
                  else ("RLIMIT_NPROC", nproc_max()))
        file_bomb(w)
        clone_parent(w)
        sysv_ipc(w)
        judge_untouchable()
        if ROOT_RUN:
            root_without_jail()
        honest_twin(w, kept)
    finally:
        w.close()


main()
