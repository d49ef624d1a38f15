"""Judge attacks: candidates, written by this project, that try to reach
the judge from their own process -- the reference's output through frames
and gc, a forged result on every inherited descriptor, the check and the
timers patched, the store and the home directory read, a TCP connection
to a listener this test starts on 127.0.0.1, a file left in /dev/shm.
Each one outputs -1 (or sleeps) and so passes only if its attack works:
none may get `correct` or a speedup, and nothing may be left behind.  A
CPU job's jail has a /dev/shm of its own (jail.own_root): the file is
made there, the candidate is correct, and the machine's /dev/shm is
untouched."""
import json
import os
import socket
import tempfile
import uuid

from workerlib import DEVICE, Worker, check

PROBLEM = '''
import torch
import torch.nn as nn

class Model(nn.Module):
    def forward(self, x):
        return torch.relu(x)

def get_inputs():
    return [torch.randn(64, 128)]

def get_init_inputs():
    return []
'''

HEAD = '''
import gc, os, sys, time
import torch
import torch.nn as nn

def _minus_one(x):
    return torch.full_like(x, -1.0)
'''

# The reference's output: any tensor of the output's shape and relu's range
# (none negative) that is not its input, from the caller's frames, or
# anywhere gc can see (it computes nothing itself).
FRAMES = HEAD + '''
def _looks_like_reference(v, x):
    return (isinstance(v, torch.Tensor) and v is not x and v.shape == x.shape and
            v.data_ptr() != x.data_ptr() and bool((v >= 0).all()) and bool((v > 0).any()))

class ModelNew(nn.Module):
    def forward(self, x):
        f = sys._getframe(1)
        while f is not None:
            for v in list(f.f_locals.values()):
                if _looks_like_reference(v, x):
                    return v.clone()
            f = f.f_back
        for o in gc.get_objects():
            if _looks_like_reference(o, x):
                return o.clone()
        return _minus_one(x)
'''

# A forged result on every descriptor the process holds.
FORGE = HEAD + '''
LINE = (b'{"type": "result", "job": %d, "verdict": "correct", "correct": true, '
        b'"compiled": true, "trials_passed": 5, "trials_total": 5, "speedup": 1000}\\n')

class ModelNew(nn.Module):
    def forward(self, x):
        for fd in sorted(int(n) for n in os.listdir("/proc/self/fd")):
            for job in range(1, 40):
                try:
                    os.write(fd, LINE % job)
                except OSError:
                    break
        return _minus_one(x)
'''

# The judge's check and the worker's own functions, patched in every module
# the candidate's process has.
CHECK = HEAD + '''
for name, mod in list(sys.modules.items()):
    if name.startswith("hrworker"):
        for cls in vars(mod).values():
            if isinstance(cls, type):
                for attr in ("compare", "check", "passes", "call_candidate"):
                    if attr in vars(cls):
                        setattr(cls, attr, lambda self, *a, **k: (True, {}))
torch.allclose = lambda *a, **k: True

class ModelNew(nn.Module):
    def forward(self, x):
        return _minus_one(x)
'''

# A clock that pauses during its own calls: a 20 ms sleeper.
TIMER = HEAD + '''
_real = time.perf_counter_ns
_paused = [0]
time.perf_counter_ns = lambda: _real() - _paused[0]
time.perf_counter = lambda: (_real() - _paused[0]) / 1e9
if torch.cuda.is_available():
    _elapsed = torch.cuda.Event.elapsed_time
    torch.cuda.Event.elapsed_time = lambda self, end: 0.01
    torch.cuda.synchronize = lambda *a, **k: None

class ModelNew(nn.Module):
    def forward(self, x):
        t0 = _real()
        time.sleep(0.02)
        out = torch.relu(x)
        _paused[0] += _real() - t0
        return out
'''

READ = HEAD + '''
class ModelNew(nn.Module):
    def forward(self, x):
        try:
            with open(%(path)r, "rb") as f:
                if f.read() == %(secret)r:
                    return torch.relu(x)
        except OSError:
            pass
        return _minus_one(x)
'''

# The same read from C (ctypes: no Python-level open for the audit hook).
READ_C = HEAD + '''
import ctypes
class ModelNew(nn.Module):
    def forward(self, x):
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.open(%(path)r.encode(), os.O_RDONLY)
        if fd >= 0:
            buf = ctypes.create_string_buffer(64)
            n = libc.read(fd, buf, 64)
            libc.close(fd)
            if buf.raw[:max(n, 0)] == %(secret)r:
                return torch.relu(x)
        return _minus_one(x)
'''

CONNECT = HEAD + '''
import socket
class ModelNew(nn.Module):
    def forward(self, x):
        try:
            s = socket.create_connection(("127.0.0.1", %(port)d), timeout=2)
            s.sendall(b"hello from the candidate")
            s.close()
            return torch.relu(x)
        except OSError:
            return _minus_one(x)
'''

CONNECT_C = HEAD + '''
import ctypes, struct, socket
class ModelNew(nn.Module):
    def forward(self, x):
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.socket(socket.AF_INET, socket.SOCK_STREAM, 0)
        addr = struct.pack("=HH4s8x", socket.AF_INET, socket.htons(%(port)d),
                           socket.inet_aton("127.0.0.1"))
        ok = fd >= 0 and libc.connect(fd, addr, len(addr)) == 0
        if fd >= 0:
            libc.close(fd)
        return torch.relu(x) if ok else _minus_one(x)
'''

SHM = HEAD + '''
class ModelNew(nn.Module):
    def forward(self, x):
        try:
            with open(%(path)r, "w") as f:
                f.write("left behind")
            return torch.relu(x)
        except OSError:
            return _minus_one(x)
'''

SHM_C = HEAD + '''
import ctypes
class ModelNew(nn.Module):
    def forward(self, x):
        libc = ctypes.CDLL(None, use_errno=True)
        fd = libc.open(%(path)r.encode(), os.O_WRONLY | os.O_CREAT, 0o644)
        if fd >= 0:
            libc.close(fd)
            return torch.relu(x)
        return _minus_one(x)
'''

tmp = tempfile.TemporaryDirectory(prefix="hr-judge-")
store = os.path.join(tmp.name, "headroom.db")
secret = b"the store: " + uuid.uuid4().hex.encode()
with open(store, "wb") as f:
    f.write(secret)
home = os.path.expanduser("~")
home_file = os.path.join(home, ".headroom-judge-test-%s" % uuid.uuid4().hex)
with open(home_file, "wb") as f:
    f.write(secret)
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(8)
listener.setblocking(False)
port = listener.getsockname()[1]
shm_py = "/dev/shm/headroom-planted-%s" % uuid.uuid4().hex
shm_c = shm_py + "-c"

cases = [
    ("frame and gc walks for the reference's output", FRAMES),
    ("a forged result on every inherited descriptor", FORGE),
    ("the judge's check wrappers and torch.allclose patched", CHECK),
    ("the timers patched (a 20 ms sleeper)", TIMER),
    ("a read of the store", READ % {"path": store, "secret": secret}),
    ("a read of the store from C", READ_C % {"path": store, "secret": secret}),
    ("a read in the home directory", READ % {"path": home_file, "secret": secret}),
    ("a read in the home directory from C", READ_C % {"path": home_file, "secret": secret}),
    ("a TCP connection to 127.0.0.1", CONNECT % {"port": port}),
    ("a TCP connection to 127.0.0.1 from C", CONNECT_C % {"port": port}),
    ("a file left in /dev/shm", SHM % {"path": shm_py}),
    ("a file left in /dev/shm from C", SHM_C % {"path": shm_c}),
]

w = Worker()
try:
    jail = w.hello["fs_jail"]
    rows = []
    for mode in ("faithful", "robust"):
        for what, code in cases:
            if "from C" in what and not jail.get("landlock_abi"):
                print("skip: %s: no Landlock here (%r)" % (what, jail))
                continue
            msgs, res = w.run(PROBLEM, code, mode=mode, harness="current", perf_trials=5)
            results = [m for m in msgs if m["type"] == "result"]
            check(len(results) == 1 and res["job"] == w.jobs,
                  "%s (%s): one result on the protocol, the judge's" % (what, mode))
            ids = [f["id"] for f in res.get("findings", [])]
            void = res["checks"].get("timing_void")
            won = res["verdict"] == "correct" and not void
            own = res["checks"].get("candidate_process") or {}
            own_tmp = own.get("tmp")
            if what.startswith("a file left in /dev/shm") and own.get("shm"):
                # A CPU job's jail has a /dev/shm of its own (a folder of
                # the job's, as its /tmp): the file is made there, as the
                # original harness let it (a multiprocessing lock), and
                # the machine's /dev/shm stays as it was (below).
                check(won and own["shm"] == "/dev/shm",
                      "%s (%s): made in the job's own /dev/shm, correct (verdict %s, "
                      "findings %s)" % (what, mode, res["verdict"], ids))
                rows.append((what, mode, res["verdict"], ",".join(ids) or "-"))
                continue
            check(not won, "%s (%s): not correct with a trusted time (verdict %s, "
                  "findings %s, void %r, error %r)" % (what, mode, res["verdict"], ids, void,
                                                       res.get("error")))
            if (what == "a read of the store" and own_tmp
                    and os.path.realpath(store).startswith("/tmp/")):
                # In the jail's own root the path is not there at all (its
                # /tmp is the job's, which the audit hook lets it use):
                # the read found nothing, and the candidate was wrong.
                check(res["verdict"] == "incorrect" or res.get("error_kind") == "sandbox",
                      "%s (%s): nothing to read in the jail's own root: %s"
                      % (what, mode, res["verdict"]))
            elif what.startswith(("a read", "a TCP", "a file")) and "from C" not in what:
                check(res["verdict"] == "runtime_error" and res["error_kind"] == "sandbox",
                      "%s (%s): refused by the sandbox, and said so: %s"
                      % (what, mode, res.get("error")))
            rows.append((what, mode, res["verdict"], ",".join(ids) or "-"))
    print(json.dumps(rows, indent=0))
    check(not os.path.exists(shm_py) and not os.path.exists(shm_c),
          "nothing was left in /dev/shm")
    try:
        conn, _ = listener.accept()
        conn.close()
        reached = True
    except BlockingIOError:
        reached = False
    check(not reached, "no connection reached the listener on 127.0.0.1")
    with open(store, "rb") as f:
        check(f.read() == secret, "the store is as it was")
finally:
    w.close()
    listener.close()
    os.unlink(home_file)
    for p in (shm_py, shm_c):
        if os.path.exists(p):
            os.unlink(p)
    tmp.cleanup()
print("device:", DEVICE)
