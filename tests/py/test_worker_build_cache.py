"""The build cache between jobs (hrworker/builder.py): its entries are
written by the jobs' builder processes only, so that no candidate can make
another's build fail or load what it did not build.  Each attack is a
candidate of the test's own, run as a job before an honest twin that
uses the same extension (tests/fixtures/replay/candidates/relu_fast.py):
- it writes from C into the cache: the honest extension's entry, made
  before it is built, with the compile-failure marker; every existing
  entry's files; the cache's own folder;
- its flags make the compiler write into the cache (-MF PATH);
- its flags make the compiler's driver start a process that outlives
  the build (gcc's -wrapper, setsid -f; a chain of forks; a process that
  kills the builder);
- a program its build runs makes its failure marker a link to the honest
  entry's library (the judge, root, writes the marker);
and the twin that follows builds (or hits) and is correct, the cache
unchanged.  A candidate whose include path is its own folder is built
in its own process, uncached, and is correct.  Every check fails where
the cache is writable to candidates again (the attack's writes report
"ok")."""
import base64
import json
import os
import shutil
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from workerlib import ROOT, Worker, check, reported  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker.builder import kept_failure  # noqa: E402

FIX = os.path.join(ROOT, "tests", "fixtures", "replay")
# The jobs run on the CPU whatever HR_TEST_DEVICE says: the honest twin is a
# C++ kernel, and the builder is the same process on either device (the
# CUDA setting's jail, the judge's uid kept, is HEADROOM_JOB_JAIL=0 below).
CPU = ("--device", "cpu")
PROBLEM = open(os.path.join(FIX, "problems", "level1", "1_ReLU.py")).read()
HONEST = open(os.path.join(FIX, "candidates", "relu_fast.py")).read()
# The honest candidate's extension source (its `source = """..."""`), so
# that an attack can name the honest entry as the cache would.
PRELUDE = HONEST.split("ext = load_inline(")[0]

HEAD = '''
import ctypes, json, os
import torch
import torch.nn as nn
libc = ctypes.CDLL(None, use_errno=True)
def report(**got):
    raise RuntimeError("CACHE " + json.dumps(got))
def write(path, data=b"x"):
    """A write from C (no audit hook sees it): "ok" or the errno's name."""
    import errno
    fd = libc.open(path.encode(), 0o1 | 0o100 | 0o1000, 0o644)   # O_WRONLY|O_CREAT|O_TRUNC
    if fd < 0:
        return errno.errorcode.get(ctypes.get_errno(), "?")
    libc.write(fd, data, len(data))
    libc.close(fd)
    return "ok"
def mkdir(path):
    import errno
    if libc.mkdir(path.encode(), 0o777) != 0:
        return errno.errorcode.get(ctypes.get_errno(), "?")
    return "ok"
'''


def attack(w, body, **job):
    _, res = w.run(PROBLEM, HEAD + body, stop_after="build", **job)
    return reported(res, "CACHE ")


def honest(w, what):
    _, res = w.run(PROBLEM, HONEST)
    exts = ((res or {}).get("checks") or {}).get("build", {}).get("extensions") or []
    check(res is not None and res.get("verdict") == "correct" and res.get("compiled"),
          "%s: the honest twin builds and is correct (%s: %s %s)"
          % (what, res and res.get("verdict"), res and (res.get("build_log") or
                                                        res.get("error")), exts), w)
    return exts


def snapshot(cache):
    """Every file of the cache but the builders' places: path -> bytes."""
    out = {}
    for top, dirs, files in os.walk(cache):
        dirs[:] = [d for d in dirs if d != ".building"]
        for name in files:
            p = os.path.join(top, name)
            with open(p, "rb") as f:
                out[os.path.relpath(p, cache)] = f.read()
    return out


def write_into_cache(w, cache):
    """Before the honest extension is built: its entry made with the
    failure marker, the cache's folder written.  After: its files
    overwritten, the marker planted beside them."""
    body = PRELUDE + '''
import inspect, platform, types
import torch.utils.cpp_extension as cpp
from hrworker import builder
CACHE = %r
orig = [c.cell_contents for c in cpp.load_inline.__closure__
        if inspect.isfunction(c.cell_contents) and c.cell_contents.__name__ == "load_inline"][0]
ba = inspect.signature(orig).bind(name="hr_fixture_relu", cpp_sources=[source],
                                  functions=["relu_fast", "relu_slow", "relu_wrong"],
                                  extra_cflags=["-O2"], verbose=False)
cfg = types.SimpleNamespace(arch="cpu-" + platform.machine(), cache=CACHE)
entry = os.path.join(CACHE, builder.entry_name(cfg, torch, builder.call_of(ba.arguments, os.environ, [])))
got = {"entry": os.path.basename(entry), "exists": os.path.isdir(entry)}
got["mkdir_entry"] = mkdir(entry)
got["marker"] = write(os.path.join(entry, builder.FAILED), b"Error building extension: planted")
got["cache_root"] = write(os.path.join(CACHE, "planted"))
files = []
for top, dirs, names in os.walk(CACHE):
    files += [os.path.join(top, n) for n in names]
got["files"] = sorted({write(p, b"planted") for p in files})
report(**got)
''' % cache
    before = snapshot(cache)
    got = attack(w, body)
    print("cache write (fresh cache):", json.dumps(got))
    check(got.get("exists") is False and got.get("mkdir_entry") != "ok"
          and got.get("marker") != "ok" and got.get("cache_root") != "ok",
          "a candidate cannot make another's entry, plant its failure marker or write the "
          "cache's folder (%s)" % got, w)
    check(snapshot(cache) == before, "the cache is as it was", w)
    exts = honest(w, "after the planted marker")
    check(exts and exts[0].get("cache") == "miss",
          "the honest extension was built for it, not answered by a plant (%s)" % exts, w)
    if os.geteuid() == 0:
        entry = os.path.join(cache, exts[0]["dir"])
        owners = {os.lstat(os.path.join(top, n)).st_uid for top, dirs, files in os.walk(entry)
                  for n in dirs + files} | {os.lstat(entry).st_uid}
        check(owners == {0}, "its entry is the judge's (root's), not the builder's uid: %s"
              % sorted(owners), w)
    before = snapshot(cache)
    got = attack(w, body)
    print("cache write (the entry built):", json.dumps(got))
    check(got.get("exists") is True and got.get("marker") != "ok"
          and got.get("files") and "ok" not in got["files"],
          "a candidate cannot write a built entry's files or plant the marker there (%s)"
          % got, w)
    check(snapshot(cache) == before, "the cache is as it was", w)
    exts = honest(w, "after the attack on its entry")
    check(exts and exts[0].get("cache") == "hit", "the honest twin hits its entry (%s)" % exts, w)


# A build's program's first lines: p, the builder's pid (the first
# ancestor whose command line names worker.py, the worker's fork), or
# the last ancestor /proc shows.
FIND_BUILDER = '''
import os, sys
p = os.getppid()
while True:
    try:
        with open("/proc/%d/cmdline" % p, "rb") as f:
            if b"worker.py" in f.read():
                break
        with open("/proc/%d/stat" % p) as f:
            p = int(f.read().rsplit(")", 1)[1].split()[1])
    except OSError:
        break
'''


def wrapper(code):
    """extra_cflags that make gcc run each of its passes through a Python
    program (code; sys.argv[1:]: the pass), as a candidate may."""
    b = base64.b64encode(code.encode()).decode()
    return ["-wrapper", "'%s,-c,exec(__import__(\"base64\").b64decode(\"%s\"))'"
            % (sys.executable, b)]


def build_with(name, flags):
    """An attack's body: one extension built with flags, reported.  The
    extension includes pybind11 alone (no_implicit_headers, no torch
    error handling): what the attack does is in its flags, and its
    compile costs 7 CPU-s, not torch/extension.h's 30."""
    return '''
from torch.utils.cpp_extension import load_inline
try:
    load_inline(name=%r, cpp_sources=["#include <pybind11/pybind11.h>\\nint %s_f() { return 1; }"],
                functions=["%s_f"], extra_cflags=%r, no_implicit_headers=True,
                with_pytorch_error_handling=False)
    report(built=True)
except RuntimeError as e:
    report(built=False, error=str(e)[-300:])
''' % (name, name, name, flags)


def compiler_writes(w, cache):
    """The candidate's flags make gcc write its dependency file into the
    cache: the builder process cannot write there."""
    before = snapshot(cache)
    target = os.path.join(cache, "planted-by-gcc")
    got = attack(w, build_with("hr_cache_mf", ["-MD", "-MF" + target]))
    print("compiler writes:", json.dumps(got)[:600])
    after = snapshot(cache)
    check("built" in got and not os.path.exists(target)
          and all(after.get(k) == v for k, v in before.items()),
          "flags that make the compiler write into the cache write nothing there but their "
          "own entry (%s)" % json.dumps(got)[:400], w)


def marker_link(w, cache):
    """A program the build runs makes its call's failure marker a link to
    the honest entry's library, then fails as a compiler does: the judge
    (root) writes the marker of that failed build without following the
    link, and the honest twin still loads its library."""
    entry = [d for d in os.listdir(cache) if os.path.exists(
        os.path.join(cache, d, "hr_fixture_relu.so"))]
    check(len(entry) == 1, "the honest entry is there (%s)" % entry, w)
    so = os.path.join(cache, entry[0], "hr_fixture_relu.so")
    before = snapshot(cache)
    got = attack(w, build_with("hr_cache_link", wrapper('''
import os, sys
if not os.path.lexists(".headroom-build-failed"):
    os.symlink(%r, ".headroom-build-failed")
print("main.cpp:1:1: error: planted")
sys.exit(1)
''' % so)))
    print("marker link:", json.dumps(got)[:300])
    after = snapshot(cache)
    check(got.get("built") is False and all(after.get(k) == v for k, v in before.items()),
          "a failure marker made a link writes nothing through it (%s)"
          % [k for k, v in before.items() if after.get(k) != v], w)
    exts = honest(w, "after a marker made a link")
    check(exts and exts[0].get("cache") == "hit", "the honest twin hits its entry (%s)" % exts, w)


def alive(marker):
    pids = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as f:
                    if marker.encode() in f.read():
                        pids.append(int(pid))
            except OSError:
                pass
    return pids


def detached_process(w):
    """gcc's -wrapper starts, for each of its compiler's passes, a process
    in a new session (setsid -f) that would run on through the timed calls
    (it closes its output first, so that ninja does not wait for it): the
    builder process kills it when the build is over.  torch writes the
    flags into the ninja file as they are, and ninja hands its commands to
    sh: the quotes keep the wrapper one word."""
    marker = "hr-build-stray-%d" % os.getpid()
    code = "import os;import time;os.close(1);os.close(2);time.sleep(300)#" + marker
    got = attack(w, build_with("hr_cache_stray", [
        "-wrapper", "'/usr/bin/setsid,-f,%s,-c,%s'" % (sys.executable, code)]))
    print("detached process:", json.dumps(got)[:600])
    time.sleep(0.5)
    left = alive(marker)
    for pid in left:
        try:
            os.kill(pid, 9)
        except OSError:
            pass
    check("built" in got and not left,
          "a process a build started in a session of its own is gone when the build is "
          "(%s, left: %s)" % (json.dumps(got)[:300], left), w)


CHAIN = r'''
#include <unistd.h>
int main(void) {
    for (;;) {
        pid_t p = fork();
        if (p > 0)
            for (;;)
                pause();
        if (p < 0)
            usleep(50);
    }
}
'''


def strays(w):
    """What a build's program starts must not outlive the build however it
    hides: a chain of forks that grows as fast as fork() (the builder
    reaped its children, a generation a round, for at most 1000 rounds),
    and a process in a session of its own whose program then kills the
    builder (its orphans went to the worker and ran on through the job)."""
    marker = "hr-build-chain-%d" % os.getpid()
    chain = wrapper('''
import os, subprocess, sys, time
if os.path.basename(sys.argv[1]).startswith("cc1"):
    open("chain.c", "w").write(%r)
    subprocess.run(["gcc", "-O2", "-o", "chain", "chain.c"], check=True)
    if os.fork() == 0:
        os.setsid()
        os.closerange(0, 1024)
        os.execv("./chain", ["./chain", %r])
    time.sleep(1)
os.execvp(sys.argv[1], sys.argv[1:])
''' % (CHAIN, marker))
    kill = wrapper(FIND_BUILDER + '''
if os.fork() == 0:
    os.setsid()
    os.closerange(0, 1024)
    os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(300) #%s"])
try:
    os.kill(p, 9)
except OSError as e:
    print("kill of the builder:", e)
sys.exit(1)
''' % marker)
    for what, flags in (("a chain of forks", chain), ("the builder killed", kill)):
        got = attack(w, build_with("hr_cache_" + what.split()[-1], flags))
        time.sleep(0.5)
        left = alive(marker)
        for _ in range(100):
            if not alive(marker):
                break
            for pid in alive(marker):
                try:
                    os.kill(pid, 9)
                except OSError:
                    pass
            time.sleep(0.05)
        check("built" in got and not left,
              "%s: nothing it started runs after the build (%s, left: %d)"
              % (what, json.dumps(got)[-200:], len(left)), w)


def builder_memory(cache):
    """With the job jail off (HEADROOM_JOB_JAIL=0, as under CUDA) the
    builder keeps the judge's uid, root here: a program its build runs,
    root in the builder's Landlock domain, must not open the builder's
    memory for writing (it would build what it likes under the next call's
    key)."""
    if os.geteuid() != 0:
        return
    os.environ["HEADROOM_JOB_JAIL"] = "0"
    try:
        w = Worker("--cache", cache, *CPU)
    finally:
        del os.environ["HEADROOM_JOB_JAIL"]
    try:
        got = attack(w, build_with("hr_cache_mem", wrapper(FIND_BUILDER + '''
try:
    open("/proc/%d/mem" % p, "r+b").close()
    print("MEM open")
except OSError as e:
    print("MEM", e.strerror)
sys.exit(1)
''')))
        print("builder memory:", json.dumps(got)[-300:])
        check("MEM " in got.get("error", "") and "MEM open" not in got["error"],
              "the jail off, a build's program cannot write the builder's memory (%s)"
              % json.dumps(got)[-200:], w)
    finally:
        w.close()


def private_build(w):
    """An extension whose include path is the candidate's own folder (a
    header it wrote there), named whole or relative to its working
    directory (torch makes it absolute in the process that calls
    load_inline), is built by the candidate process, uncached, and
    works."""
    cand = '''
import os
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline
here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inc")
os.makedirs(here, exist_ok=True)
with open(os.path.join(here, "hr_relu.h"), "w") as f:
    f.write("static inline float hr_relu(float v) { return v > 0.0f ? v : 0.0f; }\\n")
os.chdir(os.path.dirname(here))
ext = load_inline(name="hr_cache_private", cpp_sources=["""
#include "hr_relu.h"
torch::Tensor relu_own(torch::Tensor x) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float *in = xc.data_ptr<float>();
    float *out = y.data_ptr<float>();
    for (int64_t i = 0; i < xc.numel(); i++)
        out[i] = hr_relu(in[i]);
    return y;
}
"""], functions=["relu_own"], extra_include_paths=[INC])


class ModelNew(nn.Module):
    def forward(self, x):
        return ext.relu_own(x)
'''
    for inc in ("here", "'inc'"):
        _, res = w.run(PROBLEM, cand.replace("INC", inc))
        exts = ((res or {}).get("checks") or {}).get("build", {}).get("extensions") or []
        check(res is not None and res.get("verdict") == "correct" and exts
              and exts[0].get("cache") == "private"
              and ("cannot read" in exts[0].get("private", "")
                   or "relative" in exts[0].get("private", "")),
              "an extension that includes the candidate's own folder (%s) is built in its "
              "process, uncached, and is correct (%s: %s %s)"
              % (inc, res and res.get("verdict"),
                 res and (res.get("build_log") or res.get("error")), exts), w)


def cache_trouble(w, cache):
    """A build the cache cannot keep (a file where its entry goes: the
    cache's own trouble, which no candidate can make) is the tool's
    failure, failed:tool, not the candidate's compile error; with the
    cache mended, the same candidate is correct again."""
    name = honest(w, "before the cache's trouble")[0].get("dir")
    entry = os.path.join(cache, str(name))
    check(bool(name) and os.path.isdir(entry), "the honest entry is in the cache (%s)" % name, w)
    os.rename(entry, entry + ".aside")
    with open(entry, "w") as f:
        f.write("not a folder")
    try:
        _, res = w.run(PROBLEM, HONEST)
    finally:
        os.unlink(entry)
        os.rename(entry + ".aside", entry)
    res = res or {}
    checks = res.get("checks") or {}
    check(res.get("verdict") == "runtime_error" and res.get("error_kind") == "tool"
          and res.get("correct") is None and "could not keep" in str(res.get("error"))
          and checks.get("verdict_without_tool") == "compile_error"
          and checks.get("build_cache_error"),
          "a build the cache cannot keep is the tool's failure, not a compile error "
          "(%s %s: %s)" % (res.get("verdict"), res.get("error_kind"), res.get("error")), w)
    honest(w, "with the cache mended")


def kept():
    """Which failed builds the cache keeps: the compiler's or linker's no,
    whatever the extension is called; not a pass killed, ninja ended by a
    signal, a compiler that ended without a diagnostic, or a lack of
    processes, memory or disk."""
    import subprocess

    def failure(text, code=1):
        try:
            try:
                raise subprocess.CalledProcessError(code, ["ninja"])
            except subprocess.CalledProcessError as e:
                raise RuntimeError("Error building extension 'x': " + text) from e
        except RuntimeError as e:
            return e
    err = "main.cpp:1:1: error: expected unqualified-id\nninja: build stopped: subcommand failed."
    check(kept_failure(failure(err)) and kept_failure(failure("hr_killed_once: " + err)),
          "a compile error is kept, an extension named *killed* too")
    for text in ('cuda.cu(12): error: identifier "foo" is undefined',
                 "main.o: undefined reference to `bar'\ncollect2: error: ld returned 1 exit status",
                 "main.cpp:2:10: fatal error: torch/extention.h: No such file or directory"):
        check(kept_failure(failure(text)), "kept: %r" % text)
    for text, code in (("c++: fatal error: Killed signal terminated program cc1plus", 1),
                       ("[1/2] c++ -c main.cpp", -9),
                       ("collect2: fatal error: ld terminated with signal 9 [Killed]", 1),
                       ("nvcc error   : 'cicc' died due to signal 9 (Kill signal)", 1),
                       ("ninja: build stopped: interrupted by user.", 2),
                       ("/bin/sh: line 1:  4242 Killed  c++ -c main.cpp", 1),
                       ("cc1plus: out of memory allocating 65536 bytes", 1),
                       ("fork: Resource temporarily unavailable", 1),
                       ("main.o: No space left on device", 1),
                       # a compiler ended without a word (by another process)
                       ("[1/2] c++ -c main.cpp\nninja: build stopped: subcommand failed.", 1)):
        check(not kept_failure(failure(text, code)),
              "not kept: %r (exit %d)" % (text, code))


def main():
    kept()
    cache = os.path.join(ROOT, "build", "test-build-cache")
    shutil.rmtree(cache, ignore_errors=True)
    # A builder's place left by a job killed before its judge closed it
    # (no process has that pid: above any pid_max), and a live one's.
    stale = os.path.join(cache, ".building", "999999999-0badf00d")
    live = os.path.join(cache, ".building", "%d-0badf00d" % os.getpid())
    os.makedirs(os.path.join(stale, "work"))
    os.makedirs(os.path.join(live, "work"))
    w = Worker("--cache", cache, *CPU)
    check(not os.path.exists(stale) and os.path.isdir(live),
          "the worker removes a builder's place whose process is gone, not a live one's", w)
    shutil.rmtree(live)
    fs = w.hello.get("fs_jail") or {}
    if os.geteuid() != 0 and not fs.get("landlock_abi"):
        # Nothing but the audit hook between a candidate and the cache:
        # the doors this test checks are open there (docs/replay.md).
        print("skip: neither root (the job jail) nor Landlock here: %s" % json.dumps(fs))
        w.close()
        sys.exit(77)
    try:
        write_into_cache(w, cache)
        compiler_writes(w, cache)
        marker_link(w, cache)
        detached_process(w)
        strays(w)
        private_build(w)
        cache_trouble(w, cache)
        honest(w, "at the end")
    finally:
        w.close()
    builder_memory(cache)


main()
