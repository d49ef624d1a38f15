#!/bin/sh
# includes.sh ROOT - every include between the stages' files, for
# layers.sh and cycles.sh.  For each C source or header below ROOT in
# dataset/ (dataset/base/ within it), profile/, verify/, replay/,
# readmodel/, report/, figures/ or cli/ (.c .h .cu), in path order, and each
# #include "PATH" in it that names a file below ROOT: one line "FILE LINE
# TARGET", both paths relative to ROOT.  A system header or a generated
# file is not listed.
set -eu
root=$(cd "$1" && pwd -P)
incs=$(mktemp)
trap 'rm -f "$incs"' EXIT

for f in $(cd "$root" && find dataset profile verify replay readmodel \
		report figures cli \( -name '*.c' -o -name '*.h' -o -name '*.cu' \) \
		-type f 2>/dev/null | sort); do
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$root/$f" |
		sed 's/^\([0-9]*\):[^"]*"\([^"]*\)".*/\1 \2/' >"$incs" || true
	while read -r line path; do
		t=$(realpath -m --relative-to="$root" "$(dirname "$root/$f")/$path")
		[ -e "$root/$t" ] || continue
		echo "$f $line $t"
	done <"$incs"
done
