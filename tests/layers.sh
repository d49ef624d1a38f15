#!/bin/sh
# layers.sh ROOT - no include points up the data flow.  The stages, from the
# bottom: dataset/base/ (0), dataset/ (1), verify/ (2), replay/ (3),
# report/ and figures/ (4, one level).  Every C source or header below ROOT
# in one of them (.c .h .cu, build/ left out) may include, through
# #include "PATH", only files of its own level or a lower one.  Excepted:
# the commands (cmd_*.c), which may use any stage, and report/main.c, the
# command table that sees them all.  An include that names no file of a
# stage (a system header, a generated file) is not checked.  Prints one
# line per include that points up, "FILE:LINE: includes TARGET (STAGE
# below STAGE)", and exits 1 when there was one.
set -eu
root=$(cd "$1" && pwd -P)
bad=0
incs=$(mktemp)
trap 'rm -f "$incs"' EXIT

# level PATH (relative to ROOT): the stage's level, or nothing.
level() {
	case $1 in
	dataset/base/*) echo 0 ;;
	dataset/*) echo 1 ;;
	verify/*) echo 2 ;;
	replay/*) echo 3 ;;
	report/*|figures/*) echo 4 ;;
	esac
}
stage() {
	case $1 in
	dataset/base/*) echo dataset/base ;;
	*) echo "${1%%/*}" ;;
	esac
}

for f in $(cd "$root" && find dataset verify replay report figures \
		\( -name '*.c' -o -name '*.h' -o -name '*.cu' \) -type f \
		2>/dev/null | sort); do
	case $f in
	*/cmd_*.c|report/main.c) continue ;;
	esac
	lf=$(level "$f")
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$root/$f" |
		sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/' >"$incs" || true
	while read -r line path; do
		t=$(realpath -m --relative-to="$root" "$(dirname "$root/$f")/$path")
		[ -e "$root/$t" ] || continue
		lt=$(level "$t")
		[ -n "$lt" ] || continue
		if [ "$lt" -gt "$lf" ]; then
			echo "$f:$line: includes $t ($(stage "$t") is above $(stage "$f"))"
			bad=1
		fi
	done <"$incs"
done
exit $bad
