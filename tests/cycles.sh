#!/bin/sh
# cycles.sh ROOT - no include cycle between files.  A module is a source
# (.c, .cu) with its header: the path without its extension (replay/pool.c
# and replay/pool.h are replay/pool).  A module depends on each other
# module whose header one of its files includes (tests/includes.sh lists
# the includes); a header without a source of its own (verify/rules.h,
# dataset/reader.h) is no module: who includes it depends on what it
# includes.  Two or more modules that depend on each other, directly or
# around a loop, are a cycle: the modules of each (every module on a loop
# through one of them) are printed on one line, "cycle: A B ...", in path
# order, and the exit status is 1.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$1" && pwd -P)
srcs=$(mktemp)
incs=$(mktemp)
edges=$(mktemp)
loops=$(mktemp)
trap 'rm -f "$srcs" "$incs" "$edges" "$loops"' EXIT

(cd "$root" && find dataset profile verify replay readmodel report \
	figures cli \( -name '*.c' -o -name '*.cu' \) -type f 2>/dev/null) >"$srcs"
sh "$here/includes.sh" "$root" >"$incs"
awk 'function mod(p) { sub(/\.[^.\/]*$/, "", p); return p }
     # deps(FROM, FILE): the edges FROM -> each module FILE stands for.
     function deps(from, file, seen,    k, n, t) {
	if (mod(file) in src) {
		if (mod(file) != from)
			print from, mod(file)
		return
	}
	if ((file SUBSEP "") in seen)
		return
	seen[file SUBSEP ""] = 1
	n = ninc[file]
	for (k = 1; k <= n; k++)
		deps(from, inc[file, k], seen)
     }
     FNR == NR { src[mod($0)] = 1; next }
     { inc[$1, ++ninc[$1]] = $3; order[++nf] = $1 }
     END {
	for (i = 1; i <= nf; i++) {
		f = order[i]
		if (!(mod(f) in src) || done[f]++)
			continue
		for (k = 1; k <= ninc[f]; k++) {
			split("", seen)
			deps(mod(f), inc[f, k], seen)
		}
	}
     }' "$srcs" "$incs" | sort -u >"$edges"
# Every module that reaches another and is reached back from it (a
# transitive closure, Floyd-Warshall: the modules are a few hundred).
awk '{ if (!($1 in id)) { id[$1] = ++n; name[n] = $1 }
       if (!($2 in id)) { id[$2] = ++n; name[n] = $2 }
       r[id[$1], id[$2]] = 1 }
     END {
	for (k = 1; k <= n; k++)
		for (i = 1; i <= n; i++)
			if ((i, k) in r)
				for (j = 1; j <= n; j++)
					if ((k, j) in r)
						r[i, j] = 1
	for (i = 1; i <= n; i++) {
		if (in_cycle[i])
			continue
		m = 0
		for (j = 1; j <= n; j++)
			if (j == i || ((i, j) in r && (j, i) in r)) {
				in_cycle[j] = 1
				for (k = ++m; k > 1 && member[k - 1] > name[j]; k--)
					member[k] = member[k - 1]
				member[k] = name[j]
			}
		line = ""
		for (k = 1; k <= m; k++)
			line = line " " member[k]
		if ((i, i) in r)
			print "cycle:" line
	}
     }' "$edges" | sort >"$loops"
cat "$loops"
[ ! -s "$loops" ]
