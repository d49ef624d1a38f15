#!/bin/sh
# run.sh UNIT_BIN... - run every test of headroom, one line per test as it
# ends (TAP-like, as git's test-lib prints), and a closing line
# "N passed, N failed, N skipped" that counts checks:
#   unit:  each cmocka binary; its own passed / failed / skipped counts.
#   cli:   each tests/cli/<case>/ (see tests/cli/README.md) is one check; a
#          cmd that exits 77 (and does not expect it) skipped itself, the
#          last line of its stderr says why.
#   py:    each tests/py/test_*.py counts its "ok: ..." lines as passed
#          checks, "FAIL: ..." as failed and "skip: ..." as skipped (at
#          least one failed when it exits non-zero, one passed when it
#          exits 0 without an "ok:" line); exit 77 is "skipped" (needs
#          PyTorch: all are skipped when `$PYTHON -c 'import torch'` fails).
# Output of a failing test goes to stderr.  Exit status: 0 when nothing
# failed.
# The unit binaries run one after the other; the CLI cases and Python
# files HEADROOM_TEST_JOBS at a time (default 2: make check's 2-core
# machine), those tests/schedule names "first" started before the rest,
# and those it names "alone" afterwards, one at a time with nothing
# beside them (their timing or their kills need a quiet machine).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
HEADROOM=$ROOT/build/asan/headroom
export ROOT HEADROOM PYTHON
# No precompiled torch headers unless a test asks (tests/py/test_pch.py):
# a header costs 30 CPU-s and 750 MB, and the tests' caches are scratch.
HEADROOM_PCH=${HEADROOM_PCH-0}
export HEADROOM_PCH
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
SKIP=77
passed=0 failed=0 skipped=0 n=0
failures=
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

# report ok|fail|skip NAME DETAIL: the test's line; the counts are added
# by the caller.
report() {
	n=$((n + 1))
	case $1 in
	ok)   echo "ok $n - $2${3:+: $3}" ;;
	skip) echo "ok $n - $2 # SKIP ${3:-}" ;;
	*)    echo "not ok $n - $2${3:+: $3}"
	      failures="$failures
  $2" ;;
	esac
}
count() { grep -c "$1" "$2" 2>/dev/null || true; }
since() { echo "$(($(date +%s) - $1)) s"; }

# --- unit tests (cmocka) ---
for bin in "$@"; do
	name=unit/$(basename "$bin")
	out=$log/$(basename "$bin").out
	t0=$(date +%s)
	"$bin" >"$out" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	passed=$((passed + ${p:-0}))
	skipped=$((skipped + ${s:-0}))
	if [ "${f:-0}" -gt 0 ]; then
		failed=$((failed + f))
		report fail "$name" "$f failed: $(grep '^\[  FAILED  \] [a-z_]' "$out" |
			sed 's/.*\] //' | tr '\n' ' ')"
		cat "$out" >&2
	elif [ $rc -ne 0 ] || [ -z "$p" ]; then
		failed=$((failed + 1))
		report fail "$name" "exit $rc"
		tail -40 "$out" >&2
	else
		report ok "$name" "${p} passed${s:+, $s skipped}, $(since $t0)"
	fi
done

# --- golden CLI tests and Python tests ---
# Each runs in a child that leaves its result in $log/ID.res (status,
# name, detail, and its passed / failed / skipped counts)
# and what a failure shows in $log/ID.err; the parent counts and prints
# it (collect) as it ends.  The fields are parted by US (0x1f): a tab is
# white space to read, which joins empty fields.
JOBS=${HEADROOM_TEST_JOBS:-2}
case $JOBS in ''|*[!0-9]*|0) echo "run.sh: HEADROOM_TEST_JOBS=$JOBS is no count" >&2; exit 2 ;; esac
US=$(printf '\037')

# result ID STATUS NAME DETAIL P F S: the child's line, written whole.
result() {
	printf "%s$US%s$US%s$US%s$US%s$US%s\n" "$2" "$3" "$4" "$5" "$6" "$7" >"$log/$1.tmp"
	mv "$log/$1.tmp" "$log/$1.res"
}

run_cli() {
	dir=$1 id=$2
	name=cli/$(basename "$dir")
	work=$log/cli-$(basename "$dir")
	mkdir -p "$work"
	t0=$(date +%s)
	(cd "$work" && HEADROOM_DB= SOURCE_DATE_EPOCH=1767225600 sh "$dir/cmd") \
		>"$work/.stdout" 2>"$work/.stderr"
	rc=$?
	want_rc=$(cat "$dir/expected.exit" 2>/dev/null || echo 0)
	if [ "$rc" = $SKIP ] && [ "$want_rc" != $SKIP ]; then
		result "$id" skip "$name" "$(tail -1 "$work/.stderr")" 0 0 1
		return
	fi
	ok=1
	{
		[ "$rc" = "$want_rc" ] || { ok=0; echo "$name: exit $rc, expected $want_rc"; }
		if [ -f "$dir/expected.stdout" ] && ! diff -u "$dir/expected.stdout" "$work/.stdout"; then
			ok=0; echo "$name: stdout differs"
		fi
		if [ -f "$dir/expected.stderr" ] && ! diff -u "$dir/expected.stderr" "$work/.stderr"; then
			ok=0; echo "$name: stderr differs"
		fi
		[ $ok = 1 ] || cat "$work/.stderr"
	} >"$log/$id.err"
	if [ $ok = 1 ]; then
		result "$id" ok "$name" "$(since $t0)" 1 0 0
	else
		result "$id" fail "$name" "" 0 1 0
	fi
}

run_py() {
	t=$1 id=$2
	name=py/$(basename "$t" .py)
	out=$log/$(basename "$t" .py).out
	t0=$(date +%s)
	(cd "$ROOT" && "$PYTHON" "$t") >"$out" 2>&1
	rc=$?
	p=$(count '^ok:' "$out") f=$(count '^FAIL:' "$out")
	s=$(count '^skip:' "$out")
	[ "$rc" = $SKIP ] && [ "$s" = 0 ] && s=1
	[ "$rc" != 0 ] && [ "$rc" != $SKIP ] && [ "$f" = 0 ] && f=1
	[ "$rc" = 0 ] && [ "$p" = 0 ] && p=1
	what="$p passed"
	[ "$s" = 0 ] || what="$what, $s skipped"
	if [ "$f" != 0 ]; then
		# every failing check, wherever it is, then the end
		{ grep '^FAIL:' "$out"; tail -40 "$out"; } >"$log/$id.err"
		result "$id" fail "$name" "$f failed (exit $rc)" "$p" "$f" "$s"
	elif [ "$rc" = $SKIP ]; then
		result "$id" skip "$name" "$(grep '^skip:' "$out" | tail -1 |
			sed 's/^skip: //') ($what)" "$p" "$f" "$s"
	else
		result "$id" ok "$name" "$what, $(since $t0)" "$p" "$f" "$s"
	fi
}

# collect ID: count and print a finished test's result.
collect() {
	IFS=$US read -r st nm detail p f s <"$log/$1.res"
	passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
	report "$st" "$nm" "$detail"
	[ "$st" = fail ] && cat "$log/$1.err" >&2
	rm -f "$log/$1.res"
}

# reap MAX: collect the finished tests until fewer than MAX run.
running= nrun=0
reap() {
	while :; do
		left=
		for id in $running; do
			if [ -f "$log/$id.res" ]; then
				collect "$id"
				nrun=$((nrun - 1))
			else
				left="$left $id"
			fi
		done
		running=$left
		[ "$nrun" -ge "$1" ] || break
		sleep 0.2
	done
}

# start ID KIND PATH: run a test in a child once a slot is free.
start() {
	reap "$JOBS"
	("run_$2" "$3" "$1") </dev/null >/dev/null 2>&1 &
	running="$running $1" nrun=$((nrun + 1))
}

# tests/schedule: "first NAME" and "alone NAME" lines (and why).
sched() { [ -f "$ROOT/tests/schedule" ] && grep -q "^$1 $2\( \|$\)" "$ROOT/tests/schedule"; }

# The tests as KIND:PATH lines, in run order: "first" ones, the rest,
# then the "alone" ones.
tests=$log/tests
: >"$tests"
for dir in "$ROOT"/tests/cli/*/; do
	[ -f "$dir/cmd" ] && echo "cli:${dir%/}" >>"$tests"
done
torch=0
if "$PYTHON" -c 'import torch, numpy' >/dev/null 2>&1; then
	torch=1
	for t in "$ROOT"/tests/py/test_*.py; do
		[ -f "$t" ] && echo "py:$t" >>"$tests"
	done
fi
key() { case $1 in cli:*) echo "cli/$(basename "${1#cli:}")" ;; *) echo "py/$(basename "${1#py:}" .py)" ;; esac; }
order=$log/order
: >"$order"
for pass in first rest alone; do
	while read -r item; do
		k=$(key "$item")
		case $pass in
		first) sched first "$k" && echo "$item" >>"$order" ;;
		rest)  sched first "$k" || sched alone "$k" || echo "$item" >>"$order" ;;
		alone) sched alone "$k" && echo "alone:$item" >>"$order" ;;
		esac
	done <"$tests"
done

i=0
while read -r item; do
	i=$((i + 1))
	case $item in
	alone:*)
		reap 1          # nothing beside it
		item=${item#alone:}
		"run_${item%%:*}" "${item#*:}" "t$i" </dev/null
		collect "t$i" ;;
	*)	start "t$i" "${item%%:*}" "${item#*:}" ;;
	esac
done <"$order"
reap 1
wait

if [ $torch = 0 ]; then
	for t in "$ROOT"/tests/py/test_*.py; do
		[ -f "$t" ] || continue
		skipped=$((skipped + 1))
		report skip "py/$(basename "$t" .py)" "'$PYTHON -c \"import torch, numpy\"' fails"
	done
	echo "note: Python tests skipped: install with:" \
	     "$PYTHON -m pip install torch==2.11.0 numpy (or sh .ci/pyenv.sh)" >&2
fi

[ -n "$failures" ] && printf 'failed:%s\n' "$failures" >&2
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed -eq 0 ]
