"""hrworker/pch.py - precompiled torch headers for load_inline's C++ side.

Every load_inline extension compiles a main.cpp that begins with
#include <torch/extension.h>; parsing those headers is most of a small
extension's compile.  For each (torch, compiler, flags, arch) the cache
keeps one GCC precompiled header, CACHE/pch/<key>/torch_pch.h.gch, of a
header that includes torch/extension.h and nothing else, built with the
very flags torch's ninja file gives main.cpp (torch's own writer, less the
module name's -D, which no torch header mentions).  An extension built
with it gets "-include CACHE/pch/<key>/torch_pch.h" in its extra_cflags:
the translation unit is the same (the header is the first thing main.cpp
includes, and includes nothing twice), and GCC writes the same object
file, byte for byte.  nvcc's sources get nothing: nvcc runs the host
compiler only as a preprocessor (gcc -E) over the .cu file and then on
cudafe++'s expanded output, and its two front ends (cudafe++, cicc) parse
the headers' text themselves, so there is no pass a precompiled header
could serve.

Where it is not used, the build is torch's plain one and the extension's
record says why (field "pch"); "pch_unusable" marks the reasons that come
from the candidate or the machine (its flags, no_implicit_headers, not
GCC, a header that does not build with its flags), which the job's build
log repeats.  Scheduling reasons are not in the log: the first two
extensions of a flag set in a cache build plain and the third makes the
header (HEADROOM_PCH unset; "1": the second makes it; "eager": the first;
"0": no header ever), and one whose header another job is building builds
plain rather than wait for it.  A header costs about 30 CPU-s and 750 MB
once a flag set and saves about 8 CPU-s an extension, C++ or CUDA (its
main.cpp; docs/benchmarks.md): it pays from the fourth extension of its
flags after it, and the third of a flag set in a cache is taken as a sign
that more will come (the cache outlives a run).

The first decision for an extension's build directory is kept there
(.headroom-pch, created exclusively) and every later call follows it, a
cache hit or another job building the same extension at the same time:
ninja finds the same command, compiles nothing again, and never rewrites
a module another process may be loading.

In a job the headers are made by its builder process (builder.py), in
the folder of its call (cfg.pch_out: pch_dirs), and published into
CACHE/pch by the judge as their bytes were when made; a build reads the
published ones.

Owns: the header folders (one directory a key, its .lock and .failed
beside it, a .seen marker), the .headroom-pch note in an extension's
directory.
Must not: change what an extension compiles to, wait on another job's
header build, or let a failure of its own fail a build (any trouble is a
plain build)."""
import fcntl
import hashlib
import inspect
import json
import os
import platform
import re
import shlex
import shutil
import subprocess

from hrworker.util import children_cpu

HEADER = "torch_pch.h"
HEADER_TEXT = "#include <torch/extension.h>\n"
NOTE = ".headroom-pch"
NAME_DEF = "-DTORCH_EXTENSION_NAME="

# Flags with which no precompiled header is used: they change what the
# preprocessor reads or writes (another forced include, the language,
# preprocessing only, dependency output, no standard includes) or ask
# about precompiled headers themselves.
REFUSED = ("-include", "-imacros", "-x", "-E", "-M", "-H", "-save-temps",
           "-fpch", "-fno-pch", "-Winvalid-pch", "-Wno-invalid-pch",
           "-Werror=invalid-pch", "-nostdinc", "-fpreprocessed",
           "-fdirectives-only", "-traditional", "-undef", "-no-integrated-cpp")

# torch writes extra_cflags into the ninja file unquoted: the header's
# path goes there as it is.
SAFE_PATH = re.compile(r"^[A-Za-z0-9_./+=,:@%-]+$")

_compilers = {}         # compiler command -> its identity ("-v"), or None


class Plain(Exception):
    """No precompiled header for this build; why, and whether the reason
    is the candidate's or the machine's (unusable) or the schedule's."""

    def __init__(self, why, unusable=True):
        super().__init__(why)
        self.why, self.unusable = why, unusable


# Extensions of a flag set built plain before its header is made, by mode.
SEEN_BEFORE = {"auto": 2, "second": 1, "eager": 0}


def mode():
    """HEADROOM_PCH: unset or empty "auto" (the header is made for the
    third extension of its flags in the cache), "0" off, "eager" a header
    on its flags' first use, anything else ("1") from the second."""
    m = os.environ.get("HEADROOM_PCH", "").strip().lower()
    if not m:
        return "auto"
    return "off" if m in ("0", "off", "no") else "eager" if m == "eager" else "second"


def count_seen(path):
    """One more extension of a flag set built plain: a byte on its .seen
    marker (path), made if absent."""
    with open(path, "ab") as f:
        f.write(b"+")


def seen(root, out, key):
    """Extensions of key's flags built plain so far: the bytes of its
    .seen marker in the cache and in this process's folder (a byte an
    extension; an empty marker, as older caches have, counts one)."""
    n = 0
    for r in dict.fromkeys((root, out)):
        try:
            n += max(os.path.getsize(os.path.join(r, key + ".seen")), 1)
        except OSError:
            pass
    return n


def compiler_identity(cxx):
    """The compiler's "-v" text (version and configuration), or None when
    it is not GCC."""
    if cxx not in _compilers:
        try:
            r = subprocess.run([cxx, "-v"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               env=dict(os.environ, LC_ALL="C"), timeout=60)
            text = r.stdout.decode("utf-8", "replace")
            path = shutil.which(cxx)
            gcc = "gcc version" in text and "COLLECT_GCC=" in text
            _compilers[cxx] = (os.path.realpath(path) if path else cxx) + "\n" + text \
                if gcc else None
        except (OSError, subprocess.SubprocessError):
            _compilers[cxx] = None
    return _compilers[cxx]


def check_args(args):
    """The load_inline arguments a precompiled header cannot serve."""
    if args.get("no_implicit_headers"):
        raise Plain("no_implicit_headers: the sources include what they choose")
    if args.get("with_sycl") or args.get("sycl_sources"):
        raise Plain("SYCL sources")
    flags = args.get("extra_cflags")
    if flags is not None and not (isinstance(flags, (list, tuple))
                                  and all(isinstance(f, str) for f in flags)):
        raise Plain("extra_cflags is not a list of strings")
    for f in flags or ():
        for w in f.split():
            if any(w == r or w.startswith(r) for r in REFUSED):
                raise Plain("extra_cflags has %s" % w[:64])


def compile_flags(cpp, args, build_dir):
    """The compiler and the flags torch's ninja file gives main.cpp for
    this call, written by torch's own writer into a scratch file, less
    the module name's definition."""
    path = os.path.join(build_dir, ".headroom-pch.ninja")
    with_cuda = args.get("with_cuda")
    if with_cuda is None:
        with_cuda = bool(args.get("cuda_sources"))
    cuda_flags = args.get("extra_cuda_cflags")
    kw = dict(path=path, name="headroom_pch", sources=[os.path.join(build_dir, "main.cpp")],
              extra_cflags=list(args.get("extra_cflags") or []),
              extra_cuda_cflags=list(cuda_flags) if isinstance(cuda_flags, (list, tuple))
              else [],
              extra_sycl_cflags=[], extra_ldflags=[],
              extra_include_paths=list(args.get("extra_include_paths") or []),
              with_cuda=with_cuda, with_sycl=False, is_standalone=False)
    try:
        writer = cpp._write_ninja_file_to_build_library
        params = inspect.signature(writer).parameters
        writer(**{k: v for k, v in kw.items() if k in params})
        with open(path) as f:
            text = f.read()
    except Exception as e:      # noqa: torch's internals moved: a plain build
        text = str(e).splitlines()[0][:200] if str(e) else type(e).__name__
        raise Plain("torch's compile flags could not be derived: " + text)
    finally:
        try:
            os.remove(path)
        except OSError:
            pass
    got = {}
    for line in text.splitlines():
        k, sep, v = line.partition(" = ")
        if sep and k in ("cxx", "cflags", "post_cflags"):
            got[k] = v
    if "cxx" not in got or "cflags" not in got or "$" in got["cflags"]:
        raise Plain("torch's ninja file has no plain cxx and cflags lines")
    if got.get("post_cflags", "").strip():
        raise Plain("torch's ninja file has post_cflags")
    flags = [f for f in shlex.split(got["cflags"]) if not f.startswith(NAME_DEF)]
    return got["cxx"].strip(), flags


def run(cmd, cwd):
    """A compiler command; its output (stderr included) when it failed."""
    r = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       env=dict(os.environ, LC_ALL="C"))
    if r.returncode != 0:
        return r.stdout.decode("utf-8", "replace").strip() or "exit %d" % r.returncode
    return None


def build(d, cxx, flags):
    """Make d's header and its .gch; then check that GCC takes the .gch
    with these flags (a preprocessing of what main.cpp begins with,
    invalid-pch an error).  None, or what went wrong."""
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    with open(os.path.join(d, HEADER), "w") as f:
        f.write(HEADER_TEXT)
    with open(os.path.join(d, "probe.cpp"), "w") as f:
        f.write(HEADER_TEXT)
    err = run([cxx, "-x", "c++-header"] + flags + ["-c", HEADER, "-o", HEADER + ".gch"], d)
    if err:
        return "the precompiled header did not build: " + err[-600:]
    return probe(d, cxx, flags)


def probe(d, cxx, flags):
    """Does GCC take d's .gch with these flags?  Preprocessing what
    main.cpp begins with, the header forced first, an invalid header an
    error (a few hundredths of a second: the header is only checked).
    None, or the compiler's reason."""
    err = run([cxx] + flags + [NAME_DEF + "headroom_pch_probe", "-include",
                               os.path.join(d, HEADER), "-Werror=invalid-pch",
                               "-fpch-preprocess", "-E", "probe.cpp", "-o", os.devnull], d)
    if err:
        return "the compiler refused the precompiled header: " + err[-600:]
    return None


def pch_dirs(cfg):
    """(where the cache's published headers are, where this process makes
    one): the same folder, CACHE/pch, unless the process is a builder
    (builder.py: cfg.pch_out, a folder of its call's, which the judge
    publishes from)."""
    root = os.path.join(cfg.cache, "pch")
    return root, getattr(cfg, "pch_out", None) or root


def ensure(cfg, key, cxx, flags, how, wait=False):
    """The directory of key's header once it is ready, and whether this
    call built it; else Plain.  wait: take the lock even while another
    job holds it (a build that must use this header)."""
    root, out = pch_dirs(cfg)
    for r in dict.fromkeys((root, out)):
        d = os.path.join(r, key)
        if os.path.exists(os.path.join(d, "ok")):
            return d, False
        if os.path.exists(d + ".failed"):
            with open(d + ".failed") as f:
                raise Plain(f.read())
    d = os.path.join(out, key)
    os.makedirs(out, exist_ok=True)
    before = SEEN_BEFORE.get(how, 0)
    n = seen(root, out, key) if before else 0
    if n < before:
        count_seen(d + ".seen")
        raise Plain("extension %d of these flags (the header is made for extension %d)"
                    % (n + 1, before + 1), unusable=False)
    lock = os.open(d + ".lock", os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
        except BlockingIOError:
            raise Plain("another job is building the header of these flags", unusable=False)
        if os.path.exists(os.path.join(d, "ok")):
            return d, False
        why = build(d, cxx, flags)
        if why:
            shutil.rmtree(d, ignore_errors=True)
            with open(d + ".failed", "w") as f:
                f.write(why)
            raise Plain(why)
        with open(os.path.join(d, "ok"), "w") as f:
            json.dump({"cxx": cxx, "cflags": flags}, f)
        return d, True
    finally:
        os.close(lock)


def read_note(build_dir):
    try:
        with open(os.path.join(build_dir, NOTE)) as f:
            note = json.load(f)
        return note if isinstance(note, dict) else None
    except (OSError, ValueError):
        return None


def claim_note(build_dir, note):
    """Make note the build directory's decision unless another job made
    one first (created exclusively, then renamed into place whole); the
    decision in force."""
    path = os.path.join(build_dir, NOTE)
    tmp = "%s.%d" % (path, os.getpid())
    with open(tmp, "w") as f:
        json.dump(note, f)
    try:
        os.link(tmp, path)          # fails where a note is already there
    except FileExistsError:
        pass
    finally:
        os.remove(tmp)
    return read_note(build_dir) or note


def use(args, d):
    """Add the forced include to a copy of the call's extra_cflags."""
    args["extra_cflags"] = list(args.get("extra_cflags") or []) + [
        "-include", os.path.join(d, HEADER)]


def plan(cfg, torch, cpp, args, build_dir):
    """(key, compiler, flags) of a build that can use a header; else Plain."""
    check_args(args)
    cxx, flags = compile_flags(cpp, args, build_dir)
    ident = compiler_identity(cxx)
    if ident is None:
        raise Plain("the C++ compiler (%s) is not GCC" % cxx[:100])
    key = hashlib.sha256(json.dumps(
        [torch.__version__, os.path.dirname(torch.__file__), ident, flags, cfg.arch,
         platform.machine(), HEADER_TEXT]).encode()).hexdigest()[:24]
    if not all(SAFE_PATH.match(os.path.join(r, key, HEADER)) for r in pch_dirs(cfg)):
        raise Plain("the cache's path has characters ninja would split")
    return key, cxx, flags


def decide(cfg, torch, cpp, args, build_dir, how):
    """A first decision for build_dir: (note, this call's own record
    fields)."""
    cpu0 = children_cpu()
    key = None
    try:
        key, cxx, flags = plan(cfg, torch, cpp, args, build_dir)
        d, built = ensure(cfg, key, cxx, flags, how)
    except Plain as p:
        rec = {"pch_key": key} if key else {}
        return {"plain": p.why[:1000], "unusable": p.unusable}, rec
    except OSError as e:        # the cache's trouble: a plain build
        return {"plain": "cache: %s" % e, "unusable": False}, {}
    rec = {"pch_cpu_seconds": round(children_cpu() - cpu0, 3)} if built else {}
    return {"key": key, "cxx": cxx, "cflags": flags}, dict(rec, pch_key=key)


def prepare(cfg, torch, cpp, args, build_dir, hit):
    """Decide, for one load_inline call whose build directory is
    build_dir, whether its C++ source uses a precompiled header, and add
    the flag when it does (args: the call's bound arguments, changed in
    place).  The first decision for a directory is kept there (its note)
    and every later call, a cache hit or a job building the same
    extension at the same time, follows it: the same command, so ninja
    never rebuilds what another process may be loading.  Returns the
    build record's fields: pch ("built": this call built the header and
    the extension uses it; "used"; "off"; "plain: why"), pch_unusable (a
    reason of the candidate's or the machine's), pch_cpu_seconds (the
    compilers' CPU seconds of a header this call built; they count in the
    call's own too)."""
    how = mode()
    if how == "off":
        return {"pch": "off"}
    rec = {}
    note = read_note(build_dir)
    if note is None:
        if hit:     # built before precompiled headers: it stays plain
            note = {"plain": "built without a precompiled header", "unusable": False}
        else:
            note, rec = decide(cfg, torch, cpp, args, build_dir, how)
        try:
            note = claim_note(build_dir, note)
        except OSError as e:
            note = {"plain": "cache: %s" % e, "unusable": False}
    key = note.get("key")
    if key:
        try:
            # The header this directory was built with, where it is; gone,
            # it is made again (the extension's command names it).
            cpu0 = children_cpu()
            d, built = ensure(cfg, str(key), str(note.get("cxx")),
                              [str(f) for f in note.get("cflags") or []], "eager", wait=True)
            if built:
                rec["pch_cpu_seconds"] = round(children_cpu() - cpu0, 3)
            use(args, d)
            rec["pch"] = "built" if "pch_cpu_seconds" in rec else "used"
            return rec
        except (Plain, OSError) as e:
            note = {"plain": "its header is gone and did not build again: %s" % e,
                    "unusable": False}
            try:
                with open(os.path.join(build_dir, NOTE), "w") as f:
                    json.dump(note, f)
            except OSError:
                pass
    rec["pch"] = "plain: " + str(note.get("plain"))[:1000]
    if note.get("unusable") is True:
        rec["pch_unusable"] = True
    return rec
