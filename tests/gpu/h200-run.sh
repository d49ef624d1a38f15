#!/bin/bash
# h200-run.sh STAGE... - the GPU-machine plan, one stage after another
# (docs/gpu-machine.md lists the stages).  Run from the repository root of a
# copy that has .debs/ and .kb/ (or set DEBS= and KB=).  Writes a log and
# JSON files to $OUT (default ./out).  Each stage prints "== stage NAME" and
# its wall time; a failing stage is reported and the next one still runs.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out}
KB=${KB:-.kb}
DEBS=${DEBS:-.debs}
JOBS=${JOBS:-$(nproc)}
CAND=tests/gpu/kb-candidates
WORK=${WORK:-/tmp/hr-gpu}
export PYTHONUNBUFFERED=1 TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}
mkdir -p "$OUT" "$WORK"
status=0

have_replay() { [ -x ./headroom ] && ./headroom replay --help >/dev/null 2>&1; }

stage_setup() {
	sh replay/gpu-machine.sh -d "$DEBS" -j "$JOBS" && . .sysroot/env.sh &&
		./headroom --version && ldd ./headroom | grep -E 'archive|cjson|sqlite|crypto'
}

stage_info() {
	nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
	nvcc --version | tail -2
	python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "gpu", torch.cuda.get_device_name(0))'
	echo "cores $(nproc)  $(grep MemTotal /proc/meminfo)  $(uname -r)"
	grep -m1 'model name' /proc/cpuinfo
}

stage_probe() { python3 tests/gpu/machine_probe.py --out "$OUT/probe.json"; }

stage_gpu_check() {
	if make -n gpu-check >/dev/null 2>&1; then
		make SYSROOT=.sysroot HEADROOM_DEPS=skip gpu-check
	else
		echo "no gpu-check target in this checkout"
	fi
}

stage_kb_best() {
	rm -rf "$WORK/kb-run" && mkdir -p "$WORK/kb-run" && cp $CAND/*.py "$WORK/kb-run/"
	python3 tests/gpu/kb_side_by_side.py "$WORK/kb-run" --kb "$KB" --mode best \
		--workers "$JOBS" --cache "$WORK/kb-cache" --out "$OUT/kb-best.json" \
		--eval-results "$WORK/kb-run/eval_results.json"
	cp "$WORK/kb-run/eval_results.json" "$OUT/kb-eval_results.json"
}

stage_kb_serial() {
	rm -rf "$WORK/kb-serial" && mkdir -p "$WORK/kb-serial"
	for p in ${KB_SERIAL:-12 88}; do cp $CAND/level_1_problem_${p}_sample_0_kernel.py "$WORK/kb-serial/"; done
	python3 tests/gpu/kb_side_by_side.py "$WORK/kb-serial" --kb "$KB" --mode serial \
		--cache "$WORK/kb-cache-serial" --out "$OUT/kb-serial.json"
}

# headroom's side: the same candidates as a KernelBench run directory.
stage_replay() {
	have_replay || { echo "headroom replay is not in this checkout"; return 3; }
	local db=$WORK/replay.db run=$WORK/hr-run
	rm -rf "$db" "$run" && mkdir -p "$run" && cp $CAND/*.py "$run/"
	./headroom --db "$db" problems add "$KB/KernelBench" &&
	./headroom --db "$db" ingest "$run" --source h200-candidates &&
	local TIMEFORMAT='replay wall %R s, user %U s, sys %S s'
	time ./headroom --db "$db" replay --mode faithful ${REPLAY_ARGS:-}
	rc=$?
	./headroom --db "$db" ls --format json >"$OUT/replay-ls.json"
	./headroom --db "$db" ls
	return $rc
}

stage_bench() {
	have_replay || { echo "headroom replay is not in this checkout"; return 3; }
	local db=$WORK/bench.db run=$WORK/bench-run
	rm -rf "$db" "$run"
	python3 tests/gpu/make_variants.py $CAND "$run" -n 3 --skip 14,13
	./headroom --db "$db" problems add "$KB/KernelBench" &&
	./headroom --db "$db" ingest "$run" --source h200-bench || return 1
	for pass in cold warm; do
		echo "-- bench $pass"
		[ $pass = cold ] && rm -rf "${HEADROOM_CACHE:-$HOME/.cache/headroom}"
		local TIMEFORMAT="bench $pass: wall %R s, user %U s, sys %S s"
		time ./headroom --db "$db" replay --mode faithful ${REPLAY_ARGS:-} -v
	done
	./headroom --db "$db" ls --format json >"$OUT/bench-ls.json"
}

stage_hostile() {
	have_replay || { echo "headroom replay is not in this checkout"; return 3; }
	local db=$WORK/hostile.db run=$WORK/hostile-run
	rm -rf "$db" "$run" && mkdir -p "$run"
	cp tests/gpu/hostile/*.py $CAND/level_1_problem_12_sample_0_kernel.py "$run/"
	./headroom --db "$db" problems add "$KB/KernelBench" &&
	./headroom --db "$db" ingest "$run" --source hostile &&
	./headroom --db "$db" replay --mode faithful ${HOSTILE_ARGS:-}
	./headroom --db "$db" ls
}

for s in "$@"; do
	fn=stage_$(echo "$s" | tr - _)
	echo "== stage $s  $(date -u +%H:%M:%S)"
	t0=$(date +%s%N)
	"$fn"
	rc=$?
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	printf '== stage %s: exit %d, %d.%03d s\n' "$s" $rc $((ms / 1000)) $((ms % 1000))
	[ $rc -eq 0 ] || status=1
done
exit $status
