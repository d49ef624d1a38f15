#!/bin/sh
# commentpaths.sh ROOT - the comments of the sources under ROOT cite only
# files inside ROOT.  Sources: C, header and CUDA files (their /* */
# comments), Python, shell and make files and tests/cli/*/cmd (their #
# comments, and Python's triple-quoted strings); build/, out/ and the GPU
# machine's ignored bundles .kb/, .debs/, .sysroot/ are left out.  In a
# comment:
# - a path whose first component is a top-level entry of ROOT (docs/...,
#   replay/..., tests/...; build/ and out/ hold build outputs and are not
#   looked for) must name a file or folder of ROOT; "replay/pool" stands
#   for replay/pool.*;
# - a path that starts with ../ must lead, from the comment's folder, to
#   a file or folder inside ROOT;
# - NAME.md must be beside the comment, at the top or in docs/;
# - an absolute path must be the system's (/proc, /sys, /dev, /etc, /usr,
#   /lib, /bin, /opt, /tmp, /run, /var), never a machine's own tree;
# - a URL is refused: a public source is cited by its name and version,
#   as the docs cite it (tests/doclinks.sh refuses URLs in the docs).
# In the path, <x> and an all-capital component (NAME, N, PID) match any
# name, * is a glob.  Prints one line per bad citation, "FILE:LINE: PATH:
# why", and exits 1 when there was one.
set -eu
exec python3 - "$1" <<'PY'
import glob, os, re, sys

root = os.path.realpath(sys.argv[1])
SKIP = {"build", "out", ".git", ".kb", ".debs", ".sysroot"}
SYSTEM = {"proc", "sys", "dev", "etc", "usr", "lib", "lib64", "bin", "sbin",
          "opt", "tmp", "run", "var"}
NAME = r"[A-Za-z0-9_.+*<>-]+"
PATH = re.compile(r"(?<![\w./$%{}<>~\[\]@:=-])"
                  r"((?:\.\./)*/?[A-Za-z0-9_.+*<-]" + NAME[:-1] + "*"
                  r"(?:/" + NAME + r")+/?"
                  r"|[A-Za-z0-9_-]+\.md)(?![\w/])")
URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+")
top = {e for e in os.listdir(root) if e not in SKIP}


def sources():
    for d, ds, fs in os.walk(root):
        rel = os.path.relpath(d, root)
        ds[:] = sorted(x for x in ds if x != "__pycache__"
                       and not (rel == "." and x in SKIP))
        for f in sorted(fs):
            if f.endswith((".c", ".h", ".cu")):
                yield os.path.join(d, f), "c"
            elif f.endswith(".py"):
                yield os.path.join(d, f), "py"
            elif f.endswith((".sh", ".mk")) or f in ("Makefile", "cmd"):
                yield os.path.join(d, f), "hash"


def comments(text, kind):
    """(line, text) of each comment."""
    if kind == "c":
        for m in re.finditer(r"/\*.*?\*/", text, re.S):
            yield text.count("\n", 0, m.start()) + 1, m.group(0)
        return
    for i, l in enumerate(text.split("\n")):
        m = re.search(r"(?:^|\s)#(.*)$", l)
        if m and not (i == 0 and l.startswith("#!")):
            yield i + 1, m.group(1)
    if kind != "py":
        return
    for m in re.finditer(r"(\"\"\"|''')(.*?)\1", text, re.S):
        yield text.count("\n", 0, m.start()) + 1, m.group(2)


def pattern(path):
    """The path as a glob: <x> and all-capital components match any name."""
    parts = []
    for c in path.split("/"):
        c = re.sub(r"<[^>]*>", "*", c)
        if re.fullmatch(r"[A-Z][A-Z0-9_]*(\.[a-z]+)?", c):
            c = "*" + c[c.find("."):] if "." in c else "*"
        parts.append(c)
    return "/".join(parts)


def exists(base, path):
    g = os.path.join(base, pattern(path.rstrip("/")))
    for hit in glob.glob(g):
        real = os.path.realpath(hit)
        if real == root or real.startswith(root + os.sep):
            return True
    return False


def why(src, path):
    here = os.path.dirname(src)
    if path.startswith("/"):
        first = path.split("/")[1]
        if first in SYSTEM:
            return None
        return "an absolute path outside the system's"
    first = path.split("/")[0]
    if first in ("build", "out", ".", ""):
        return None
    if first == "..":
        real = os.path.realpath(os.path.join(here, path))
        if not (real == root or real.startswith(root + os.sep)):
            return "leaves the repository"
        return None if exists(here, path) else "no such file"
    if "/" not in path:     # NAME.md: beside the comment, at the top, in docs/
        for d in (here, root, os.path.join(root, "docs")):
            if exists(d, path):
                return None
        return "no such file"
    if first not in top:
        return None
    if exists(root, path) or exists(root, path.rstrip("/") + ".*"):
        return None
    return "no such file"


bad = 0
for src, kind in sources():
    with open(src, errors="replace") as f:
        text = f.read()
    rel = os.path.relpath(src, root)
    found = []
    for line, c in comments(text, kind):
        for m in URL.finditer(c):
            found.append((line + c.count("\n", 0, m.start()),
                          m.group(0).rstrip(".,;:)"),
                          "a URL (cite the source by name)"))
        for m in PATH.finditer(c):
            path = m.group(1).rstrip(".")
            w = why(src, path)
            if w:
                found.append((line + c.count("\n", 0, m.start()), path, w))
    for line, path, w in sorted(found):
        print("%s:%d: %s: %s" % (rel, line, path, w))
        bad = 1
sys.exit(bad)
PY
