"""A CUDA job's jail, run on a CPU (hrworker/jail.py: confine_candidate,
ids_off, drop_caps).  Under CUDA a candidate of another uid cannot map
the judge's CUDA IPC memory, so a CUDA job keeps uid 0 in its own root
with every capability dropped; test_worker_jail.py checks that door by
door only on a GPU.  Here a forked child is confined as a CUDA job would
be (the device said to be CUDA, nothing else of CUDA needed) and reports
what it can reach: its uid and capabilities, a root-owned file of mode
0600 in its own folder (another uid's, which only CAP_DAC_OVERRIDE opens),
a pathname Unix socket outside its roots, /tmp, the parent's /proc
entry, and a mount.  As root only (CI runs as root); else one skip line.

Plain script: one line per check, exits non-zero on any failure.
"""
import ctypes
import json
import os
import socket
import sys
import tempfile
import types

from workerlib import ROOT, accepted, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker import jail  # noqa: E402

# What root keeps from others, found by its modes (sandbox.private_beneath):
# a candidate that keeps uid 0 reads none of it (confine.py).
from hrworker.sandbox import private_beneath, without_secrets  # noqa: E402

tree = tempfile.mkdtemp(prefix="hr-private-")
os.chmod(tree, 0o755)
os.makedirs(os.path.join(tree, "conf.d"))
os.makedirs(os.path.join(tree, "munge"))
for name, mode in (("public.conf", 0o644), ("conf.d/key.pem", 0o600), ("munge/munge.key", 0o400),
                   ("conf.d/x.conf", 0o640), ("conf.d/y.conf", 0o604)):
    with open(os.path.join(tree, name), "w") as f:
        f.write("x")
    os.chmod(os.path.join(tree, name), mode)
os.chmod(os.path.join(tree, "munge"), 0o700)
os.symlink("conf.d/key.pem", os.path.join(tree, "link.pem"))
got = private_beneath((tree,))
want = tuple(sorted(os.path.join(tree, p) for p in ("conf.d/key.pem", "conf.d/x.conf", "munge")))
check(got == want, "the files others cannot read and the directory they cannot enter, "
      "found by their modes (%s)" % [os.path.relpath(p, tree) for p in got])
reads, hidden = without_secrets([tree], got)
readable = sorted(os.path.relpath(p, tree) for p in reads)
check(readable == ["conf.d/y.conf", "public.conf"] and "link.pem" not in readable,
      "the read roots keep what others may read, a link to a private file left out (%s)"
      % readable)

if os.geteuid() != 0:
    print("skip: a CUDA job's jail needs root to make (CI runs as root)")
    sys.exit(0)

os.environ.pop("HEADROOM_JOB_JAIL", None)
check(jail.ids_off("cuda:0") is not None and jail.ids_off("cpu") is None,
      "ids are kept for CUDA jobs only (%s)" % jail.ids_off("cuda:0"))
os.environ["HEADROOM_JOB_JAIL"] = "1"
check(jail.ids_off("cuda:0") is None, "HEADROOM_JOB_JAIL=1 gives CUDA jobs their own uid")
os.environ.pop("HEADROOM_JOB_JAIL")

top = tempfile.mkdtemp(prefix="hr-jail-cuda-")
os.chmod(top, 0o755)
own = os.path.join(top, "job", "own")
os.makedirs(own)
outside = tempfile.mkdtemp(prefix="hr-jail-outside-")
os.chmod(outside, 0o755)
secret = os.path.join(own, "other-uid.txt")     # inside its own, writable folder
with open(secret, "w") as f:
    f.write("not yours")
os.chown(secret, 4321, 4321)
os.chmod(secret, 0o600)
sock_path = os.path.join(outside, "outside.sock")
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(sock_path)
os.chmod(sock_path, 0o777)
srv.listen(1)
srv.settimeout(0.2)
marker = "hr-jail-cuda-%d" % os.getpid()
open("/tmp/" + marker, "w").close()

reads = [p for p in ("/usr", "/lib", "/lib64", "/bin", "/etc", "/dev", sys.prefix,
                     sys.base_prefix, os.path.join(ROOT, "replay"),
                     os.path.dirname(os.path.abspath(__file__)))
         if os.path.exists(p)]
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    got = {}
    try:
        os.close(r)
        cfg = types.SimpleNamespace(device="cuda:0")
        took, _ = jail.confine_candidate(cfg, own, reads)
        got["took"] = {k: took.get(k) for k in ("ids", "root", "proc")}
        # Landlock after, as hrworker/confine.py stacks it (where the
        # kernel has it): with the judge's uid kept, hidepid alone does
        # not hide the judge's /proc entry; Landlock's ptrace scope does.
        from hrworker.sandbox import Landlock
        ll = Landlock()
        got["landlock"] = ll.abi
        if ll.abi:
            ll.apply([own])
        got["uid"] = os.getuid()
        got["caps"] = [ln.split()[1] for ln in open("/proc/self/status")
                       if ln.startswith(("CapEff", "CapPrm", "CapBnd"))]
        try:
            open(secret).read()
            got["secret"] = "read"
        except OSError as e:
            got["secret"] = e.errno
        libc = ctypes.CDLL(None, use_errno=True)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        got["connect"] = s.connect_ex(sock_path)
        got["tmp_marker"] = os.path.exists("/tmp/" + marker)
        got["parent_proc"] = os.path.exists("/proc/%d" % os.getppid())
        got["mount"] = libc.mount(b"none", own.encode(), b"tmpfs", 0, None)
        got["mount_errno"] = ctypes.get_errno()
    except BaseException as e:  # noqa: said to the parent
        got["error"] = "%s: %s" % (type(e).__name__, e)
    os.write(w, json.dumps(got).encode())
    os._exit(0)
os.close(w)
data = b""
while True:
    b = os.read(r, 65536)
    if not b:
        break
    data += b
os.waitpid(pid, 0)
got = json.loads(data or b"{}")
took_connection = accepted(srv)
os.unlink("/tmp/" + marker)
print("child: %s" % json.dumps(got))
check("error" not in got, "the child confined itself as a CUDA job (%s)" % got.get("error"))
check(got.get("uid") == 0 and str(got.get("took", {}).get("ids")).startswith(
    "uid 0, every capability dropped ("),
      "it keeps uid 0 and says why (%s)" % got.get("took", {}).get("ids"))
check(got.get("caps") and all(int(c, 16) == 0 for c in got["caps"]),
      "no capability left, effective, permitted or bounding (%s)" % got.get("caps"))
check(str(got.get("took", {}).get("root")).startswith("own (pivot_root)") and
      str(got.get("took", {}).get("proc")).startswith("hidepid"),
      "its own root, with a procfs that hides (%s)" % got.get("took"))
check(got.get("secret") == 13,
      "another uid's 0600 file in its own folder cannot be read: no CAP_DAC_OVERRIDE "
      "(errno %s)" % got.get("secret"))
check(got.get("connect") not in (None, 0) and not took_connection,
      "a pathname Unix socket outside its roots cannot be reached (connect: %s)"
      % got.get("connect"))
check(got.get("tmp_marker") is False, "its /tmp is not the machine's")
check(got.get("mount") == -1, "it cannot mount (errno %s)" % got.get("mount_errno"))
if got.get("landlock"):
    check(got.get("parent_proc") is False,
          "its procfs does not show the judge's process (parent's /proc entry: %s)"
          % got.get("parent_proc"))
else:
    print("skip: the judge's /proc entry: no Landlock on this kernel, and hidepid does not "
          "hide a process of the same uid")
