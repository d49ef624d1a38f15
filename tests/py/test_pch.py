"""Precompiled torch headers for load_inline's C++ side (hrworker/pch.py):
the module built with the header is the module built without it (the same
object file, byte for byte; it imports and answers the same); a later
extension of the same flags uses the header and compiles for less CPU; a
cache hit imports the entry and compiles nothing, and the first
decision for a build directory is the one a concurrent build follows; flags that
make the header unusable give a plain build, and a job's build log says
so; by default a flag set's first two extensions build plain and the
third makes its header; HEADROOM_PCH=0 turns headers off.  Each build runs in a process of its own, as a job's candidate process
does (torch names a module again when one process builds it twice)."""
import json
import os
import subprocess
import sys
import tempfile
import types

from workerlib import ROOT, Worker, check

sys.path.insert(0, os.path.join(ROOT, "replay"))

SOURCE = r"""
torch::Tensor affine(torch::Tensor x, double a, double b) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float *in = xc.data_ptr<float>();
    float *out = y.data_ptr<float>();
    for (int64_t i = 0; i < xc.numel(); i++)
        out[i] = (float)(in[i] * a + b);
    return y;
}
"""

OTHER = r"""
torch::Tensor row_max(torch::Tensor x) {
    return std::get<0>(x.contiguous().max(1));
}
"""


def build_here(cache, name, source, func, flags):
    """In this process: one hooked load_inline into cache; print its
    record, its answer on fixed inputs and its build directory."""
    import torch
    from torch.utils import cpp_extension as cpp
    from hrworker.builder import LocalBuilder
    from hrworker.candidate import hook_load_inline
    cfg = types.SimpleNamespace(cache=cache, arch="cpu-test")
    exts = []
    b = LocalBuilder(cfg, torch)
    hook_load_inline(cfg, torch, exts, lambda call: b.serve({"call": call}), ["/"],
                     os.getcwd())
    kw = {} if flags is None else {"extra_cflags": flags}
    mod = cpp.load_inline(name=name, cpp_sources=[source], functions=[func], **kw)
    x = torch.arange(12, dtype=torch.float32).reshape(3, 4) - 5
    out = getattr(mod, func)(x, 0.5, 2.0) if func == "affine" else getattr(mod, func)(x)
    print(json.dumps({"rec": exts[0], "out": out.tolist(),
                      "dir": os.path.join(cache, exts[0]["dir"])}))


def build(cache, name, source, func, flags=None, pch="eager"):
    env = dict(os.environ, HEADROOM_PCH=pch, CUDA_VISIBLE_DEVICES="")
    r = subprocess.run([sys.executable, __file__, "--build", cache, name, func,
                        json.dumps(flags)], input=source, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        print(r.stdout, r.stderr[-3000:])
    check(r.returncode == 0, "the build of %s (HEADROOM_PCH=%s) ran" % (name, pch))
    return json.loads(r.stdout.strip().splitlines()[-1])


def read(path):
    with open(path, "rb") as f:
        return f.read()


def main():
    tmp = tempfile.TemporaryDirectory(prefix="hr-pch-test-")
    with_pch = os.path.join(tmp.name, "cache")
    plain = os.path.join(tmp.name, "cache-plain")

    a = build(with_pch, "hr_pch_affine", SOURCE, "affine")
    check(a["rec"].get("pch") == "built" and a["rec"].get("pch_cpu_seconds", 0) > 0,
          "the first extension of its flags builds the header and uses it: %r" % a["rec"])
    ninja = read(os.path.join(a["dir"], "build.ninja")).decode()
    check("-include " + os.path.join(with_pch, ".building") in ninja and
          "/pch/" in ninja and len(os.listdir(os.path.join(with_pch, "pch"))) == 1,
          "its ninja file forces the header its builder made, which joined the cache")
    # HEADROOM_PCH unset: the first extension of its flags in a cache is
    # built plain, and counted (the judge publishes its builder's mark).
    p = build(plain, "hr_pch_affine", SOURCE, "affine", pch="")
    marks = [f for f in os.listdir(os.path.join(plain, "pch")) if f.endswith(".seen")]
    check(p["rec"].get("pch") == "plain: extension 1 of these flags (the header is made "
          "for extension 3)" and "-include" not in
          read(os.path.join(p["dir"], "build.ninja")).decode()
          and len(marks) == 1 and os.path.getsize(os.path.join(plain, "pch", marks[0])) == 1,
          "by default the first extension of its flags is a plain build, counted: %r %r"
          % (p["rec"].get("pch"), marks))
    check(a["out"] == p["out"] and a["out"][0][0] == -0.5,
          "both modules import and answer the same: %r" % a["out"][0])
    check(read(os.path.join(a["dir"], "main.o")) == read(os.path.join(p["dir"], "main.o")),
          "the object file built with the header is the plain one, byte for byte")

    b = build(with_pch, "hr_pch_rowmax", OTHER, "row_max")
    check(b["rec"].get("pch") == "used" and b["out"] == [-2.0, 2.0, 6.0] and
          "-include " + os.path.join(with_pch, "pch") in
          read(os.path.join(b["dir"], "build.ninja")).decode(),
          "a second extension of the same flags uses the header from the cache: %r"
          % b["rec"])
    check(b["rec"]["cpu_seconds"] < 0.8 * p["rec"]["cpu_seconds"],
          "and compiles for less CPU than a plain build (%.1f s, plain %.1f s)"
          % (b["rec"]["cpu_seconds"], p["rec"]["cpu_seconds"]))

    mtime = os.stat(os.path.join(b["dir"], "main.o")).st_mtime_ns
    h = build(with_pch, "hr_pch_rowmax", OTHER, "row_max")
    check(h["rec"].get("cache") == "hit" and h["out"] == b["out"]
          and os.stat(os.path.join(b["dir"], "main.o")).st_mtime_ns == mtime,
          "a cache hit imports the entry and compiles nothing: %r" % h["rec"])

    # Unusable: the reason is recorded, and the build is the plain one.
    from hrworker import pch
    for flags, why in ((["-include", "cstddef"], "-include"), (["-E"], "-E"),
                       (["-O2", "-fno-pch-preprocess"], "-fno-pch")):
        try:
            pch.check_args({"extra_cflags": flags})
            got = None
        except pch.Plain as e:
            got = e
        check(got is not None and got.unusable and why in got.why,
              "extra_cflags %s: no precompiled header (%s)" % (flags, got))
    check(pch.check_args({"extra_cflags": ["-O3", "-DN=4", "-march=native"]}) is None,
          "ordinary flags are no reason for a plain build")

    # A header GCC would not take is found before any extension uses it.
    key = os.listdir(os.path.join(with_pch, "pch"))
    d = [os.path.join(with_pch, "pch", k) for k in key if os.path.isdir(
        os.path.join(with_pch, "pch", k))][0]
    with open(os.path.join(d, "ok")) as f:
        made = json.load(f)
    check(pch.probe(d, made["cxx"], made["cflags"]) is None,
          "the probe takes the header with its own flags")
    why = pch.probe(d, made["cxx"], made["cflags"] + ["-O2"])
    check(why is not None and "refused" in why and "not used because" in why,
          "and refuses it with other flags: %s" % (why or "").splitlines()[0][-120:])

    # The first decision for a build directory is the one every later
    # call follows, a miss too (two jobs building one extension at once).
    import torch
    from torch.utils import cpp_extension as cpp
    os.environ["HEADROOM_PCH"] = "1"    # on (off by default)
    cfg = types.SimpleNamespace(cache=with_pch, arch="cpu-test")
    first = os.path.join(tmp.name, "ext-first")
    os.makedirs(first)
    check(pch.claim_note(first, {"plain": "decided first", "unusable": False})
          == {"plain": "decided first", "unusable": False}, "a first note is claimed")
    check(pch.claim_note(first, {"key": os.path.basename(d)})["plain"] == "decided first",
          "a second claim gets the first note")
    args = {"extra_cflags": ["-O3"]}
    rec = pch.prepare(cfg, torch, cpp, args, first, False)
    check(rec == {"pch": "plain: decided first"} and args["extra_cflags"] == ["-O3"],
          "a later miss follows a plain decision: %r" % rec)
    second = os.path.join(tmp.name, "ext-second")
    os.makedirs(second)
    pch.claim_note(second, {"key": os.path.basename(d)})
    args = {}
    rec = pch.prepare(cfg, torch, cpp, args, second, False)
    check(rec == {"pch": "used"} and args["extra_cflags"] == [
        "-include", os.path.join(d, pch.HEADER)],
          "and a header decision, whatever this call's flags: %r" % args)

    # The default counts a flag set's extensions: the first two build
    # plain, the third makes the header (here a stand-in that fails, so
    # nothing compiles); 0 turns headers off.
    os.environ["HEADROOM_PCH"] = ""
    check(pch.mode() == "auto", "HEADROOM_PCH unset or empty: the counted default")
    os.environ["HEADROOM_PCH"] = "0"
    check(pch.mode() == "off" and pch.prepare(cfg, torch, cpp, {}, first, False)
          == {"pch": "off"}, "HEADROOM_PCH=0: no header, a plain build")
    auto = types.SimpleNamespace(cache=os.path.join(tmp.name, "cache-auto"), arch="cpu-test")
    key = "0123456789abcdef01234567"
    said = []
    for _ in range(2):
        try:
            pch.ensure(auto, key, "c++", ["-O2"], "auto")
        except pch.Plain as e:
            said.append((e.why, e.unusable))
    root = os.path.join(auto.cache, "pch")
    check(said == [("extension %d of these flags (the header is made for extension 3)" % i,
                    False) for i in (1, 2)] and pch.seen(root, root, key) == 2,
          "the first two extensions of a flag set build plain, counted: %r" % said)
    made, real = [], pch.build
    pch.build = lambda d, cxx, flags: made.append(d) or "a stand-in header build"
    try:
        pch.ensure(auto, key, "c++", ["-O2"], "auto")
        third = None
    except pch.Plain as e:
        third = e.why
    finally:
        pch.build = real
    check(made == [os.path.join(root, key)] and third == "a stand-in header build"
          and os.path.exists(os.path.join(root, key + ".failed")),
          "the third makes the header (%r, %r)" % (made, third))
    open(os.path.join(root, "fedcba9876543210fedcba98.seen"), "w").close()
    check(pch.seen(root, root, "fedcba9876543210fedcba98") == 1,
          "an older cache's empty mark counts one extension")
    os.environ["HEADROOM_PCH"] = "1"

    # Through a job: the build log says why the header was not used.
    w = Worker("--cache", os.path.join(tmp.name, "worker-cache"))
    cand = ('import torch\nimport torch.nn as nn\n'
            'from torch.utils.cpp_extension import load_inline\n'
            'ext = load_inline(name="hr_pch_job", cpp_sources=[%r], functions=["row_max"],\n'
            '                  extra_cflags=["-include", "cstddef"])\n'
            'class ModelNew(nn.Module):\n'
            '    def forward(self, x):\n'
            '        return ext.row_max(x)\n' % OTHER)
    prob = ('import torch\nimport torch.nn as nn\n'
            'class Model(nn.Module):\n'
            '    def forward(self, x):\n'
            '        return x.max(1)[0]\n'
            'def get_inputs():\n    return [torch.randn(8, 16)]\n'
            'def get_init_inputs():\n    return []\n')
    msgs, res = w.run(prob, cand)
    ext = (res or {}).get("build", {}).get("extensions") or [{}]
    check(res is not None and res.get("verdict") == "correct"
          and ext[0].get("pch", "").startswith("plain: extra_cflags has -include")
          and ext[0].get("pch_unusable") is True,
          "a job whose flags refuse the header builds plain and is judged as ever: %r"
          % (({k: (res or {}).get(k) for k in ("verdict", "error_text")}, ext),), w)
    check("extension hr_pch_job: plain build, no precompiled header: extra_cflags "
          "has -include" in (res.get("build_log") or ""),
          "and its build log says so: %r" % res.get("build_log"), w)
    w.close()
    tmp.cleanup()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--build":
        build_here(sys.argv[2], sys.argv[3], sys.stdin.read(), sys.argv[4],
                   json.loads(sys.argv[5]))
    else:
        main()
