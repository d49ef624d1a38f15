#!/bin/sh
# doclinks.sh ROOT - every Markdown link of the docs under ROOT (README.md,
# docs/*.md, and any tracked or untracked *.md below ROOT but build/,
# out/ and the GPU machine's ignored bundles .kb/, .debs/, .sysroot/) must name a file or folder that exists inside ROOT: no URL, no
# path that leaves ROOT.  Links to a heading of the same page (#...) are
# fine; "FILE.md#heading" is checked as FILE.md.  Prints one line per bad
# link, "FILE:LINE: TARGET: why", and exits 1 when there was one.
set -eu
root=$(cd "$1" && pwd -P)
bad=0
links=$(mktemp)
trap 'rm -f "$links"' EXIT
for doc in $(cd "$root" && find . -name '*.md' -not -path './build/*' \
		-not -path './out/*' -not -path './.git/*' -not -path './.kb/*' \
		-not -path './.debs/*' -not -path './.sysroot/*' | sed 's|^\./||' | sort); do
	# One "LINE TARGET" per inline link [text](target).
	grep -no '\](\([^)]*\))' "$root/$doc" 2>/dev/null |
		sed 's/^\([0-9]*\):](\(.*\))$/\1 \2/' >"$links" || true
	while read -r line target; do
		target=${target%% *}       # drop a "title"
		path=${target%%#*}
		[ -n "$path" ] || continue # #heading of this page
		case $target in
		*://*|mailto:*)
			echo "$doc:$line: $target: links outside the repository"
			bad=1; continue ;;
		/*)
			echo "$doc:$line: $target: an absolute path"
			bad=1; continue ;;
		esac
		dir=$(dirname "$root/$doc")
		if [ ! -e "$dir/$path" ]; then
			echo "$doc:$line: $target: no such file"
			bad=1; continue
		fi
		real=$(cd "$(dirname "$dir/$path")" && pwd -P)
		case $real/ in
		"$root"/*) ;;
		*) echo "$doc:$line: $target: leaves the repository"; bad=1 ;;
		esac
	done <"$links"
done
exit $bad
