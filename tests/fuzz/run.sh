#!/bin/sh
# run.sh SECONDS TARGET... - run each built fuzz target (build/fuzz/fuzz_T)
# for SECONDS from its seeds (tests/fuzz/corpus/T, read only) and what
# earlier runs found (build/fuzz/corpus/T, where new inputs go); print one
# line per target with executions, coverage and findings; exit 1 when any
# target found a crash, a leak or a sanitizer report.
set -u
secs=$1
shift
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 2
. tests/fuzz/dict.sh
mkdir -p build/fuzz/findings
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
bad=0
for t in "$@"; do
	dict=$(fuzz_dict "$t")
	mkdir -p "build/fuzz/corpus/$t"
	log=build/fuzz/findings/$t.log
	"build/fuzz/fuzz_$t" -max_total_time="$secs" -dict="$dict" \
		-timeout=10 -rss_limit_mb=2048 -max_len=1048576 \
		-print_final_stats=1 \
		-artifact_prefix="build/fuzz/findings/$t-" \
		"build/fuzz/corpus/$t" "tests/fuzz/corpus/$t" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	ft=$(grep -o 'ft: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
	if [ $rc -ne 0 ] || grep -q 'runtime error\|ERROR: AddressSanitizer\|ERROR: LeakSanitizer' "$log"; then
		bad=1
		echo "fuzz_$t: FOUND SOMETHING (exit $rc), see $log"
	else
		echo "fuzz_$t: ${execs:-?} executions in ${secs} s, cov ${cov:-?}, ft ${ft:-?}, 0 crashes"
	fi
done
exit $bad
