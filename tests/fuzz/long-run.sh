#!/bin/sh
# long-run.sh SECONDS PROCS [TARGET...] - the long runs outside CI: PROCS
# independent libFuzzer processes per target (all targets at once, so
# give it cores), each SECONDS long, from the committed seeds; prints per
# target the executions summed over its processes, the highest coverage
# one reached, and the findings.  Needs build/fuzz/ (make fuzz-build).
# No TARGET: every target of fuzz.mk's FUZZ_TARGETS.  RUNS=N in the
# environment stops each process after N executions (SECONDS still
# bounds it), for a count to reach one target at a time on a small
# machine.  A run replaces only its own targets' logs.
# Exit 1 when any process found something (logs in build/fuzz/long/).
set -u
secs=$1 procs=$2
shift 2
[ $# -gt 0 ] || set -- archive kernelbench problems export leaderboard npy \
	trace_chrome trace_nsys
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/fuzz/dict.sh
out=build/fuzz/long
mkdir -p "$out"
for t in "$@"; do
	rm -rf "$out/$t"-*
done
runs=-runs=${RUNS:--1}
start=$(date +%s)
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for t in "$@"; do
	dict=$(fuzz_dict "$t")
	p=0
	while [ $p -lt "$procs" ]; do
		mkdir -p "$out/$t-$p"
		"build/fuzz/fuzz_$t" -max_total_time="$secs" -dict="$dict" \
			-timeout=10 -rss_limit_mb=2048 -max_len=1048576 \
			-print_final_stats=1 -seed=$((p + 1)) "$runs" \
			-artifact_prefix="$out/$t-$p-" "$out/$t-$p" \
			"tests/fuzz/corpus/$t" >"$out/$t-$p.log" 2>&1 &
		p=$((p + 1))
	done
done
wait
wall=$(($(date +%s) - start))
bad=0
for t in "$@"; do
	execs=0 cov=0 found=0
	for log in "$out/$t"-*.log; do
		n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		c=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
		execs=$((execs + ${n:-0}))
		[ "${c:-0}" -gt $cov ] && cov=${c:-0}
		if [ -z "$n" ] || grep -q 'runtime error\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer\|deadly signal' "$log"; then
			found=$((found + 1))
		fi
	done
	[ $found -eq 0 ] || bad=1
	echo "fuzz_$t: $execs executions ($procs x at most $secs s; $wall s wall), cov $cov, $found processes with findings"
done
exit $bad
