#!/bin/sh
# replay_gpu_test.sh - GPU test of `headroom replay` against hostile kernels
# (tests/gpu/hostile/README.md).  Run by `make gpu-check` on a CUDA machine.
# Prints one line per check and "N passed, N failed"; exit 1 on a failure.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HEADROOM=${HEADROOM:-$ROOT/headroom}
PYTHON=${PYTHON:-python3}
T=$(mktemp -d "${TMPDIR:-/tmp}/hr-gpu-XXXXXX")
trap 'rm -rf "$T"' EXIT
H=$ROOT/tests/gpu/hostile
mkdir -p "$T/run"
cp "$H"/level_1_problem_12_sample_[135]_kernel.py "$T/run/"
for s in 0 2 4 6; do
	cp "$ROOT/tests/gpu/kb-candidates/level_1_problem_12_sample_0_kernel.py" \
	   "$T/run/level_1_problem_12_sample_${s}_kernel.py"
done
db=$T/db
"$HEADROOM" --db "$db" problems add "$H/problems" >/dev/null &&
"$HEADROOM" --db "$db" ingest "$T/run" >/dev/null || {
	echo "replay_gpu_test: could not set up the database"; echo "0 passed, 1 failed"; exit 1; }
start=$(date +%s)
"$HEADROOM" --db "$db" replay --device cuda --timeout-run ${TIMEOUT_RUN:-20} \
	--scratch "$T/scratch" ${REPLAY_ARGS:-}
echo "replay_gpu_test: replay took $(( $(date +%s) - start )) s"
"$PYTHON" - "$db" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("""
    SELECT e.sample_id, j.verdict, j.compiled, j.correct, j.phase, j.attempts,
           substr(coalesce(j.error_text, ''), 1, 100)
    FROM replay_job j JOIN evaluation e ON e.id = j.evaluation_id
    WHERE j.run_id = (SELECT max(id) FROM replay_run) ORDER BY e.sample_id""").fetchall()
want = {0: ("correct",), 2: ("correct",), 4: ("correct",), 6: ("correct",),
        1: ("runtime_error", "crashed"), 3: ("timeout",), 5: ("runtime_error",)}
what = {0: "correct job first", 1: "illegal address", 2: "correct after illegal address",
        3: "infinite loop", 4: "correct after infinite loop", 5: "CUDA out of memory",
        6: "correct after out of memory"}
got = {r[0]: r for r in rows}
passed = failed = 0
for s in sorted(want):
    r = got.get(s)
    ok = r is not None and r[1] in want[s]
    passed += ok
    failed += not ok
    print("%s sample %d (%s): %s" % ("ok  " if ok else "FAIL", s, what[s],
          "missing" if r is None else "verdict=%s compiled=%s correct=%s phase=%s attempts=%s %s" % r[1:]))
print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
PY
