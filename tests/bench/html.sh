#!/bin/sh
# html.sh [HEADROOM] - the audit page of a 10,000-evaluation store (4 runs x
# 250 problems x 10 samples, tests/bench/gen_kernelbench.py): the time to
# write it, its size, and how long headless Chromium takes to open it at
# 1280 px (goal < 2 s): the page's script stamps <html data-ready-ms> with
# performance.now() when it is done (the document parsed, the tables made
# sortable), measured from the navigation's start; then the same for the
# page opened on one evaluation's drill-down (its JSON block parsed on
# demand).  Three runs each; prints one line a measure.  Not a test.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HEADROOM=${1:-$ROOT/headroom}
PYTHON=${PYTHON:-python3}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
command -v chromium >/dev/null 2>&1 || {
	echo "html.sh: chromium is not installed (apt-get install chromium)" >&2
	exit 1
}
cd "$WORK"
"$PYTHON" "$ROOT/tests/bench/gen_kernelbench.py" kb 4 250 10
"$HEADROOM" --db h.db ingest kb >/dev/null
"$PYTHON" "$ROOT/tests/bench/timeit.py" "report html, 10000 evaluations" \
	"$HEADROOM" --db h.db report html --out p.html
echo "page: $(wc -c <p.html) bytes"
ready() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
		--user-data-dir="$WORK/profile" --window-size=1280,900 \
		--dump-dom "file://$WORK/p.html$1" 2>/dev/null |
		sed -n 's/.*data-ready-ms="\([0-9]*\)".*/\1/p' | head -1
}
for view in "" "#eval-5000"; do
	ms=
	for i in 1 2 3; do
		ms="$ms $(ready "$view")"
	done
	echo "open in headless chromium${view:+ at $view}: ready after$ms ms"
done
