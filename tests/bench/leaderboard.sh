#!/bin/sh
# leaderboard.sh HEADROOM - time `headroom ingest --map` on a generated
# leaderboard dump: one JSON array of 400 records (about 1.3 MB) with
# kernel code, nested fields, 0-based ids, microseconds and two speedups.
# Prints the median of 5 runs (each into a fresh database).  Target on the
# 2-core CI machine: < 0.3 s.  The result goes in docs/benchmarks.md's
# table, row "ingest a leaderboard dump" (the earlier ones in
# docs/benchmarks-history.md, "leaderboard ingest").
set -eu
HEADROOM=${1:?usage: leaderboard.sh PATH/TO/headroom}
case $HEADROOM in /*) ;; *) HEADROOM=$(pwd)/$HEADROOM ;; esac
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

python3 - <<'PY'
import json, random
random.seed(1)
models = ["model-%d" % i for i in range(5)]
recs = []
for i in range(400):
    body = "".join("    y%d = torch.relu(x * %d.0 + %d)  # step %d of a generated kernel\n"
                   % (k, k, random.randrange(1000), k) for k in range(42))
    recs.append({
        "submission": "s-%05d" % i,
        "kernel_code": "import torch\n\ndef forward(x):\n" + body + "    return y0\n",
        "level": 1 + i % 3, "task_id": (i // 5) % 100,
        "task_name": "%d_Problem_%d.py" % ((i // 5) % 100 + 1, i),
        "meta": {"model": models[i % 5], "sample": i // 500},
        "compiled": i % 7 != 0, "correct": i % 3 != 0,
        "time_us": round(random.uniform(5, 5000), 3),
        "speedup": round(random.uniform(0.1, 3), 4),
        "speedup_compile": None if i % 4 else round(random.uniform(0.1, 3), 4),
    })
with open("dump.json", "w") as f:
    json.dump(recs, f, indent=1)
json.dump({"name": "bench", "records": "array", "fields": {
    "code": "kernel_code", "level": "level",
    "problem_id": {"field": "task_id", "zero_based": True},
    "problem_name": "task_name", "model": "meta.model",
    "sample_id": "meta.sample", "compiled": "compiled", "correct": "correct",
    "runtime": {"field": "time_us", "unit": "us"},
    "speedups": [{"field": "speedup", "baseline": "eager"},
                 {"field": "speedup_compile",
                  "baseline": "compile_inductor_default"}]}},
    open("map.json", "w"))
PY

python3 - "$HEADROOM" <<'PY'
import os, statistics, subprocess, sys, time
headroom = sys.argv[1]
runs = []
for i in range(5):
    for f in ("h.db", "h.db-wal", "h.db-shm"):
        if os.path.exists(f):
            os.remove(f)
    t0 = time.perf_counter()
    subprocess.run([headroom, "--db", "h.db", "ingest", "-q", "dump.json",
                    "--map", "map.json"], check=True)
    runs.append(time.perf_counter() - t0)
out = subprocess.run([headroom, "--db", "h.db", "--format", "csv", "ls"],
                     check=True, capture_output=True, text=True).stdout
print("leaderboard ingest: %d bytes, %d records, median of 5: %.3f s "
      "(runs: %s)" % (os.path.getsize("dump.json"),
                      len(out.splitlines()) - 1, statistics.median(runs),
                      " ".join("%.3f" % r for r in runs)))
PY
