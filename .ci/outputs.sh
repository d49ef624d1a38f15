#!/bin/sh
# outputs.sh LABEL DIR EXT... - one summary line per group of outputs that
# DIR really holds, "LABEL DIR/{a,b}.{svg,png}": the files of the given
# extensions, stems with the same extensions together, in the order the
# extensions are given.  "LABEL none in DIR" when there are none.  make
# run's summary uses it, so that it names only files that were written.
set -eu
label=$1 dir=$2
shift 2
[ -d "$dir" ] || { echo "$label none in $dir"; exit 0; }
ls "$dir" | awk -v label="$label" -v dir="$dir" -v want="$*" '
function brace(s, n) { return n > 1 ? "{" s "}" : s }
BEGIN { n = split(want, ext, " ") }
{
	for (i = 1; i <= n; i++) {
		suf = "." ext[i]
		if (length($0) > length(suf) &&
		    substr($0, length($0) - length(suf) + 1) == suf) {
			stem = substr($0, 1, length($0) - length(suf))
			if (!(stem in has)) order[++nstems] = stem
			has[stem, i] = 1; has[stem] = 1
		}
	}
}
END {
	for (s = 1; s <= nstems; s++) {
		stem = order[s]; key = ""; k = 0
		for (i = 1; i <= n; i++)
			if ((stem, i) in has) { key = key (k++ ? "," : "") ext[i] }
		if (!(key in stems)) { keys[++nkeys] = key; cnt[key] = 0 }
		stems[key] = stems[key] (cnt[key]++ ? "," : "") stem
		nexts[key] = k
	}
	if (!nkeys) print label " none in " dir
	for (j = 1; j <= nkeys; j++) {
		key = keys[j]
		print label " " dir "/" brace(stems[key], cnt[key]) "." brace(key, nexts[key])
	}
}'
