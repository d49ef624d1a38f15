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

# --- golden CLI tests ---
for dir in "$ROOT"/tests/cli/*/; do
	[ -f "$dir/cmd" ] || continue
	name=cli/$(basename "$dir")
	work=$log/cli-$(basename "$dir")
	mkdir -p "$work"
	t0=$(date +%s)
	(cd "$work" && HEADROOM_DB= SOURCE_DATE_EPOCH=1767225600 sh "$dir/cmd") \
		>"$work/.stdout" 2>"$work/.stderr"
	rc=$?
	want_rc=$(cat "$dir/expected.exit" 2>/dev/null || echo 0)
	if [ "$rc" = $SKIP ] && [ "$want_rc" != $SKIP ]; then
		skipped=$((skipped + 1))
		report skip "$name" "$(tail -1 "$work/.stderr")"
		continue
	fi
	ok=1
	[ "$rc" = "$want_rc" ] || { ok=0; echo "$name: exit $rc, expected $want_rc" >&2; }
	if [ -f "$dir/expected.stdout" ] && ! diff -u "$dir/expected.stdout" "$work/.stdout" >&2; then
		ok=0; echo "$name: stdout differs" >&2
	fi
	if [ -f "$dir/expected.stderr" ] && ! diff -u "$dir/expected.stderr" "$work/.stderr" >&2; then
		ok=0; echo "$name: stderr differs" >&2
	fi
	if [ $ok = 1 ]; then
		passed=$((passed + 1))
		report ok "$name" "$(since $t0)"
	else
		failed=$((failed + 1))
		report fail "$name"
		cat "$work/.stderr" >&2
	fi
done

# --- Python tests (the worker, cross-checks against PyTorch) ---
if "$PYTHON" -c 'import torch, numpy' >/dev/null 2>&1; then
	for t in "$ROOT"/tests/py/test_*.py; do
		[ -f "$t" ] || continue
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
		passed=$((passed + p)) failed=$((failed + f))
		skipped=$((skipped + s))
		what="$p passed"
		[ "$s" = 0 ] || what="$what, $s skipped"
		if [ "$f" != 0 ]; then
			report fail "$name" "$f failed (exit $rc)"
			# every failing check, wherever it is, then the end
			grep '^FAIL:' "$out" >&2
			tail -40 "$out" >&2
		elif [ "$rc" = $SKIP ]; then
			report skip "$name" "$(grep '^skip:' "$out" | tail -1 |
				sed 's/^skip: //') ($what)"
		else
			report ok "$name" "$what, $(since $t0)"
		fi
	done
else
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
