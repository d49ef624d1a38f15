"""pyimports.py ROOT - the import graph of the replay worker: replay/worker.py
and the modules of its package, replay/hrworker/*.py, parsed (ast, nothing
imported).  A module depends on each package module it imports, at module
level or inside a function ("from hrworker import m", "from hrworker.m
import x", "import hrworker.m").  Prints one line per breach and exits 1
when there was one:
  "cycle: A B ...": modules that import each other, directly or around a
  loop (every module on a loop through one of them, sorted);
  "FILE:LINE: local import of hrworker.M": a package module imported
  inside a function, where an import can hide a cycle (imports of other
  packages, torch's say, may be local: they are deliberately lazy).
A file that does not parse is a breach too ("FILE: does not parse")."""
import ast
import os
import sys

PKG = "hrworker"


def package_imports(tree):
    """(module, line, local) for each import of a package module in tree;
    local when the import is inside a function."""
    out = []

    def visit(node, local):
        for child in ast.iter_child_nodes(node):
            inner = local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                ast.Lambda))
            if isinstance(child, ast.Import):
                for a in child.names:
                    if a.name.startswith(PKG + "."):
                        out.append((a.name.split(".")[1], child.lineno, local))
            elif isinstance(child, ast.ImportFrom) and child.level == 0:
                if child.module == PKG:
                    for a in child.names:
                        out.append((a.name, child.lineno, local))
                elif child.module and child.module.startswith(PKG + "."):
                    out.append((child.module.split(".")[1], child.lineno, local))
            visit(child, inner)
    visit(tree, False)
    return out


def main(root):
    files = {"worker": os.path.join("replay", "worker.py")}
    pkg = os.path.join(root, "replay", PKG)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py") and name != "__init__.py":
            files[name[:-3]] = os.path.join("replay", PKG, name)
    edges, bad = {m: set() for m in files}, []
    for mod, rel in sorted(files.items()):
        try:
            with open(os.path.join(root, rel)) as f:
                tree = ast.parse(f.read(), rel)
        except (OSError, SyntaxError, ValueError):
            bad.append("%s: does not parse" % rel)
            continue
        for dep, line, local in package_imports(tree):
            if local:
                bad.append("%s:%d: local import of %s.%s" % (rel, line, PKG, dep))
            if dep in files and dep != "worker":
                edges[mod].add(dep)
    # reach[m]: every module m reaches (the graph is a few dozen modules)
    reach = {}
    for m in files:
        seen, todo = set(), list(edges[m])
        while todo:
            d = todo.pop()
            if d not in seen:
                seen.add(d)
                todo.extend(edges[d])
        reach[m] = seen
    done = set()
    for m in sorted(files):
        if m in done or m not in reach[m]:
            continue
        loop = sorted({m} | {d for d in reach[m] if m in reach[d]})
        done.update(loop)
        bad.append("cycle: " + " ".join(loop))
    for line in bad:
        print(line)
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: pyimports.py ROOT\n")
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
