#!/bin/sh
# layers.sh ROOT - no include points up the data flow.  The stages, from the
# bottom: dataset/base/ (0), dataset/ and profile/ (1, one level), verify/
# (2), replay/ (3), readmodel/ (4), report/ and figures/ (5, one level),
# cli/ (6: the command table, the one file that sees every command).
# Every C source or header below ROOT in one of them (.c .h .cu, build/
# left out) may include, through #include "PATH", only files of its own
# level or a lower one, with no exception: a command (cmd_<name>.c)
# lives in the lowest stage that has everything it uses.  An
# include that names no file of a stage (a system header, a generated
# file) is not checked (the includes as tests/includes.sh lists them).
# Prints one line per include that points up, "FILE:LINE: includes TARGET
# (STAGE below STAGE)", and exits 1 when there was one.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
bad=0
list=$(mktemp)
trap 'rm -f "$list"' EXIT

# level PATH (relative to ROOT): the stage's level, or nothing.
level() {
	case $1 in
	dataset/base/*) echo 0 ;;
	dataset/*|profile/*) echo 1 ;;
	verify/*) echo 2 ;;
	replay/*) echo 3 ;;
	readmodel/*) echo 4 ;;
	report/*|figures/*) echo 5 ;;
	cli/*) echo 6 ;;
	esac
}
stage() {
	case $1 in
	dataset/base/*) echo dataset/base ;;
	*) echo "${1%%/*}" ;;
	esac
}

sh "$here/includes.sh" "$1" >"$list"
while read -r f line t; do
	lt=$(level "$t")
	[ -n "$lt" ] || continue
	if [ "$lt" -gt "$(level "$f")" ]; then
		echo "$f:$line: includes $t ($(stage "$t") is above $(stage "$f"))"
		bad=1
	fi
done <"$list"
exit $bad
