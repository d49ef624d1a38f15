#!/bin/sh
# style.sh ROOT - the checkable rules of docs/style.md over the C, header
# and CUDA sources of the stages below ROOT (dataset/ profile/ verify/
# replay/ readmodel/ report/ figures/ cli/, build/ left out): the first line
# opens a comment that names the file ("/* NAME - "), no // comments, no
# typedef'd struct, union or enum, none of the banned functions, no
# trailing blanks, no carriage returns.  Prints one line per breach,
# "FILE:LINE: rule", and exits 1 when there was one.
set -eu
root=$(cd "$1" && pwd -P)
cd "$root"
bad=0
files=$(find dataset profile verify replay readmodel report figures cli \
	\( -name '*.c' -o -name '*.h' -o -name '*.cu' \) -type f \
	2>/dev/null | sort)
[ -n "$files" ] || exit 0
for f in $files; do
	b=$(basename "$f")
	if ! head -1 "$f" | grep -q "^/\* $b - "; then
		echo "$f:1: the first line is not \"/* $b - ...\""
		bad=1
	fi
done
# rule: a grep pattern (ERE) a line must not match.  Strings and
# comments are not parsed: a match inside one is a breach too, so the
# patterns are ones no string or comment here needs.
check() {
	why=$1 pat=$2
	out=$(grep -nE -- "$pat" $files || true)
	[ -n "$out" ] || return 0
	echo "$out" | sed "s|^\([^:]*:[0-9]*\):.*|\1: $why|"
	bad=1
}
check "a // comment (write /* */)" '(^|[^:"\\])//'
check "a typedef'd struct, union or enum (use the tag)" \
	'(^|[^[:alnum:]_])typedef[[:space:]]+(struct|union|enum)([^[:alnum:]_]|$)'
check "a banned function (docs/style.md)" \
	'(^|[^[:alnum:]_.>])(gets|sprintf|vsprintf|strcpy|strcat|strtok|tmpnam|mktemp|asctime|ctime|gmtime|localtime|alloca)[[:space:]]*\('
check "trailing blanks" '[[:space:]]$'
check "a carriage return" "$(printf '\r')"
exit $bad
