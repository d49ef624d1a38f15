#!/bin/sh
# run.sh UNIT_BIN... - run every test of headroom and print one closing line
# "N passed, N failed[, N skipped]".
#   unit:  each cmocka binary; its own pass/fail counts are added up.
#   cli:   each tests/cli/<case>/ (see tests/cli/README.md) is one test.
#   py:    each tests/py/test_*.py is one test (needs PyTorch; skipped with a
#          note when `$PYTHON -c 'import torch'` fails).
# Exit status: 0 when nothing failed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
PYTHON=${PYTHON:-python3}
HEADROOM=$ROOT/build/asan/headroom
export ROOT HEADROOM PYTHON
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
passed=0 failed=0 skipped=0
failures=
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT

fail() { failed=$((failed + 1)); failures="$failures
  $1"; }

# --- unit tests (cmocka) ---
for bin in "$@"; do
	name=$(basename "$bin")
	out=$log/$name.out
	"$bin" >"$out" 2>&1
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
	passed=$((passed + ${p:-0}))
	if [ -n "$f" ] && [ "$f" -gt 0 ]; then
		failed=$((failed + f))
		failures="$failures
  unit/$name: $(grep '^\[  FAILED  \] [a-z_]' "$out" | sed 's/.*\] //' | tr '\n' ' ')"
		cat "$out" >&2
	elif [ $rc -ne 0 ] || [ -z "$p" ]; then
		fail "unit/$name (exit $rc)"
		tail -40 "$out" >&2
	fi
done

# --- golden CLI tests ---
for dir in "$ROOT"/tests/cli/*/; do
	[ -f "$dir/cmd" ] || continue
	name=$(basename "$dir")
	work=$log/cli-$name
	mkdir -p "$work"
	(cd "$work" && HEADROOM_DB= SOURCE_DATE_EPOCH=1767225600 sh "$dir/cmd") \
		>"$work/.stdout" 2>"$work/.stderr"
	rc=$?
	want_rc=$(cat "$dir/expected.exit" 2>/dev/null || echo 0)
	ok=1
	[ "$rc" = "$want_rc" ] || { ok=0; echo "cli/$name: exit $rc, expected $want_rc" >&2; }
	if [ -f "$dir/expected.stdout" ] && ! diff -u "$dir/expected.stdout" "$work/.stdout" >&2; then
		ok=0; echo "cli/$name: stdout differs" >&2
	fi
	if [ -f "$dir/expected.stderr" ] && ! diff -u "$dir/expected.stderr" "$work/.stderr" >&2; then
		ok=0; echo "cli/$name: stderr differs" >&2
	fi
	if [ $ok = 1 ]; then passed=$((passed + 1)); else fail "cli/$name"; cat "$work/.stderr" >&2; fi
done

# --- Python tests (the worker, cross-checks against PyTorch) ---
if "$PYTHON" -c 'import torch, numpy' >/dev/null 2>&1; then
	for t in "$ROOT"/tests/py/test_*.py; do
		[ -f "$t" ] || continue
		name=$(basename "$t" .py)
		if (cd "$ROOT" && "$PYTHON" "$t") >"$log/$name.out" 2>&1; then
			passed=$((passed + 1))
		else
			fail "py/$name"
			tail -40 "$log/$name.out" >&2
		fi
	done
else
	n=$(ls "$ROOT"/tests/py/test_*.py 2>/dev/null | wc -l)
	skipped=$((skipped + n))
	echo "note: $n Python tests skipped: '$PYTHON -c \"import torch, numpy\"' fails;" \
	     "install with: $PYTHON -m pip install torch==2.11.0 numpy" >&2
fi

[ -n "$failures" ] && printf 'failed:%s\n' "$failures" >&2
if [ $skipped -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ $failed -eq 0 ]
