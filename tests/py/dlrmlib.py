"""dlrmlib.py - DLRM-Bench's problems at test sizes, for the Python tests
and for the CPU audit (docs/dlrm-bench.md).

Not a test itself (tests/run.sh runs test_*.py only).  Every problem keeps
its sizes in module constants read when get_inputs/get_init_inputs run, so
a test size is the problem's own code with other values for those
constants: load() sets them in the exec'd namespace; write_small_set()
writes each file with the assignments appended (a set of its own, with its
own hashes), which `headroom problems add` and `headroom audit problems`
take like any set.

    python3 tests/py/dlrmlib.py OUT_DIR    # writes OUT_DIR/level5/*.py
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SET = os.path.join(ROOT, "dataset", "problems", "dlrm-bench")
LEVEL_DIR = os.path.join(SET, "level5")
MAPPING = os.path.join(SET, "kernel-classes.json")

EMB = {"batch_size": 64, "num_rows": 1000, "embedding_dim": 16, "pooling": 4}
TABLES = [1000, 50, 3, 200, 7, 1000]

# Test sizes, by problem id.  Small enough for seconds on one CPU core,
# large enough that each output has many distinct values.
SMALL = {
    1: EMB,
    2: EMB,
    3: {"batch_size": 32, "table_rows": TABLES, "embedding_dim": 8, "pooling": 3},
    4: EMB,
    5: {"batch_size": 64, "table_rows": TABLES + [1000000]},
    6: {"batch_size": 32, "dim": 8, "mean_length": 6, "max_length": 8},
    7: {"batch_size": 32, "num_sparse": 5, "dim": 16},
    8: {"batch_size": 32, "num_sparse": 5, "dim": 16},
    9: {"batch_size": 64, "widths": [13, 32, 16, 8]},
    10: {"batch_size": 64, "widths": [31, 64, 32, 1]},
    11: {"batch_size": 256},
    12: {"batch_size": 32, "in_features": 96, "rank": 16, "num_layers": 2},
}


def files():
    """{problem id: file name} of the shipped set."""
    out = {}
    for name in os.listdir(LEVEL_DIR):
        if name.endswith(".py"):
            out[int(name.split("_", 1)[0])] = name
    return out


def source(pid):
    with open(os.path.join(LEVEL_DIR, files()[pid])) as f:
        return f.read()


def load(pid, small=True):
    """The problem's namespace, as KernelBench's exec(src, context), with
    the test sizes when small."""
    ns = {}
    exec(compile(source(pid), files()[pid], "exec"), ns)
    if small:
        for k, v in SMALL[pid].items():
            if k not in ns:
                raise KeyError("problem %d has no constant %s" % (pid, k))
            ns[k] = v
    return ns


def mapping():
    with open(MAPPING) as f:
        return json.load(f)


def write_small_set(out_dir):
    level = os.path.join(out_dir, "level5")
    os.makedirs(level, exist_ok=True)
    for pid, name in sorted(files().items()):
        load(pid)                      # every override names a constant
        lines = ["", "", "# test sizes (tests/py/dlrmlib.py)"]
        lines += ["%s = %r" % kv for kv in SMALL[pid].items()]
        with open(os.path.join(level, name), "w") as f:
            f.write(source(pid) + "\n".join(lines) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: dlrmlib.py OUT_DIR")
    write_small_set(sys.argv[1])
