#!/bin/sh
# run.sh - `make bench`: independent sections, each generating its own
# input, timing ./headroom on it and printing one line of figures.  Not a
# test: nothing fails on a slow machine; copy the figures (with the
# machine line printed first) into docs/benchmarks.md by hand.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HEADROOM=${HEADROOM:-$ROOT/headroom}
PYTHON=${PYTHON:-python3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

timeit() { "$PYTHON" "$ROOT/tests/bench/timeit.py" "$@"; }

echo "machine: $(nproc) cores, load $(cut -d' ' -f1 /proc/loadavg), $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1);" \
     "$($HEADROOM --version); $(date -u +%Y-%m-%d)"

# --- ingest: 10,000 KernelBench records (4 runs x 250 problems x 10
# samples, each with its own ~2 KB kernel file), as a directory and as a
# .tar.gz; goal < 2 s each. ---
section_ingest() {
	d=$WORK/ingest
	mkdir -p "$d"
	"$PYTHON" "$ROOT/tests/bench/gen_kernelbench.py" "$d/kb" 4 250 10
	(cd "$d" && tar czf kb.tar.gz kb)
	cd "$d"
	for input in kb kb.tar.gz; do
		rm -f h.db h.db-wal h.db-shm
		timeit "ingest 10000 records, $input" \
			"$HEADROOM" --db h.db ingest "$input"
		timeit "ingest $input again (nothing added)" \
			"$HEADROOM" --db h.db ingest "$input"
	done
	cd "$ROOT"
}

section_ingest

# --- leaderboard ingest: 1.3 MB JSON array, 400 records, through a
# mapping; goal < 0.3 s (tests/bench/leaderboard.sh). ---
sh "$ROOT/tests/bench/leaderboard.sh" "$HEADROOM"
