#!/bin/sh
# tree-hash.sh - a short hash of the working tree's tracked and untracked,
# not ignored files (names and contents), the same wherever it is run.
# h200-run.sh's setup stage prints it, to name the tree a device run had.
cd "$(dirname "$0")/../.." || exit 1
git ls-files -co --exclude-standard -z | LC_ALL=C sort -z |
	xargs -0 sha256sum 2>/dev/null | sha256sum | cut -c1-16
