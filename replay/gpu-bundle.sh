#!/bin/sh
# gpu-bundle.sh - on a machine WITH a package registry, gather what a GPU
# machine WITHOUT one needs to build and test headroom (docs/gpu-machine.md):
#   DEST/.debs/  the Debian/Ubuntu packages of the C build (headers + libs)
#   DEST/.kb/    the parts of a KernelBench checkout that the side-by-side
#                tests import (KernelBench/levelN/, src/kernelbench/) plus the
#                stand-ins of tests/gpu/kb-stubs/ in .kb/stubs/
# Neither folder may be committed: .debs is other people's binaries and .kb
# is KernelBench's code.  Both are in the ignore list.
#
# usage: replay/gpu-bundle.sh [-d DEST] [-k KERNELBENCH] [-n]
#   -d DEST         where .debs and .kb go (default: the repository root)
#   -k KERNELBENCH  a KernelBench clone: a work tree or a bare git directory
#                   (its HEAD is exported with git archive)
#   -n              skip the packages (.kb only)
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEST=$ROOT KB= DEBS=1
while getopts d:k:nh opt; do
	case $opt in
	d) DEST=$OPTARG ;;
	k) KB=$OPTARG ;;
	n) DEBS= ;;
	*) sed -n '2,17s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
mkdir -p "$DEST"
DEST=$(cd "$DEST" && pwd)

# The packages of .ci/deps.sh's "build" group that a bare CUDA image lacks,
# with the runtime libraries they pull in (libssl3 so that -lcrypto links
# against the same OpenSSL the headers describe), and the sqlite3 shell
# that some GPU tests query the store with (it needs libreadline8, which
# CUDA images have); yajl and zlib's headers for the trace readers (zlib's
# library is in every CUDA image; the headers may not be).
PKGS="libarchive13 libarchive-dev libcjson1 libcjson-dev libsqlite3-0
libsqlite3-dev libssl-dev libssl3 sqlite3 libyajl2 libyajl-dev zlib1g-dev"

if [ -n "$DEBS" ]; then
	mkdir -p "$DEST/.debs"
	# apt-get download writes into the current directory.
	(cd "$DEST/.debs" && apt-get download $PKGS)
	echo "gpu-bundle: $(ls "$DEST/.debs" | wc -l) packages in $DEST/.debs"
fi

if [ -n "$KB" ]; then
	if [ -d "$KB/.git" ] || [ -f "$KB/HEAD" ]; then
		rm -rf "$DEST/.kb"
		mkdir -p "$DEST/.kb"
		git -C "$KB" archive --format=tar HEAD KernelBench src/kernelbench |
			tar -x -C "$DEST/.kb"
		# Keep the problem sets and the harness, nothing else.
		rm -rf "$DEST/.kb/KernelBench/changelog"
		git -C "$KB" rev-parse HEAD >"$DEST/.kb/COMMIT"
	else
		echo "gpu-bundle: $KB is not a git checkout of KernelBench" >&2
		exit 3
	fi
	mkdir -p "$DEST/.kb/stubs"
	cp -R "$ROOT/tests/gpu/kb-stubs/." "$DEST/.kb/stubs/"
	rm -f "$DEST/.kb/stubs/README.md"
	echo "gpu-bundle: KernelBench $(cut -c1-12 "$DEST/.kb/COMMIT") in $DEST/.kb" \
	     "($(du -sh "$DEST/.kb" | cut -f1))"
fi
