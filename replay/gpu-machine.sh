#!/bin/sh
# gpu-machine.sh - build headroom on a CUDA machine (docs/gpu-machine.md).
#
# With the C libraries installed system-wide (the normal case: apt-get install
# the packages that `make deps` names), it is just `make headroom`.  On a
# machine without a package registry that lacks them, it unpacks the packages
# that replay/gpu-bundle.sh put in .debs/ into .sysroot/ (never into /) and
# builds against that: make SYSROOT=.sysroot HEADROOM_DEPS=skip.  Then it
# builds the verify library (host and CUDA, `make verify-libs verify-cuda`)
# and the rand library (`make replay-libs`)
# with the local compilers when verify/ provides it, and writes
# .sysroot/env.sh, to be sourced:
#     sh replay/gpu-machine.sh && . .sysroot/env.sh
#
# usage: replay/gpu-machine.sh [-d DEBS] [-j JOBS] [-f]
#   -d DEBS   folder of .deb files (default .debs)
#   -j JOBS   make jobs (default: the number of cores)
#   -f        use .sysroot even when the system has the headers
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
DEBS=.debs JOBS=$(nproc 2>/dev/null || echo 4) FORCE=
while getopts d:j:fh opt; do
	case $opt in
	d) DEBS=$OPTARG ;;
	j) JOBS=$OPTARG ;;
	f) FORCE=1 ;;
	*) sed -n '2,18s/^# \{0,1\}//p' "$0"; exit 2 ;;
	esac
done
SYS=$ROOT/.sysroot
LIBDIR=$SYS/usr/lib/x86_64-linux-gnu
MAKEVARS=
[ -d .git ] || [ -f .git ] || MAKEVARS="VERSION=$(cat .version 2>/dev/null || echo unknown)"

have_system_headers() {
	for h in archive.h cjson/cJSON.h sqlite3.h openssl/evp.h yajl/yajl_parse.h zlib.h; do
		echo "#include <$h>" | ${CC:-cc} -E -x c - >/dev/null 2>&1 || return 1
	done
}

# A -dev package's libX.so may be an absolute link to the runtime library
# of its own distribution (zlib1g-dev: /lib/x86_64-linux-gnu/libz.so.1.2.13),
# which another distribution's version does not have (Ubuntu 24.04 has
# zlib 1.3): the link dangles and -lX finds nothing.  Point each such link
# at this machine's library of the same major version (libz.so.1), the one
# the binary loads at run time anyway.
relink_dangling() {
	for l in "$1"/*.so; do
		[ -L "$l" ] && [ ! -e "$l" ] || continue
		t=$(readlink "$l")
		case $t in /*) ;; *) continue ;; esac
		d=$(dirname "$t") b=$(basename "$t") found=
		while :; do
			for dir in "$d" /lib/x86_64-linux-gnu /usr/lib/x86_64-linux-gnu; do
				[ -e "$dir/$b" ] && { found=$dir/$b; break 2; }
			done
			case $b in *.so.*.*) b=${b%.*} ;; *) break ;; esac
		done
		if [ -n "$found" ]; then
			ln -sfn "$found" "$l"
			echo "gpu-machine: $(basename "$l") -> $found (was $t, absent here)"
		else
			echo "gpu-machine: $(basename "$l") -> $t: absent here, no other version found" >&2
		fi
	done
}

if [ -z "$FORCE" ] && have_system_headers; then
	echo "gpu-machine: system headers found; plain build"
	make -j"$JOBS" HEADROOM_DEPS=skip $MAKEVARS headroom
	SYSLIBS=
else
	ls "$DEBS"/*.deb >/dev/null 2>&1 || {
		echo "gpu-machine: no system headers and no packages in $DEBS;" >&2
		echo "  run replay/gpu-bundle.sh where a registry is reachable" >&2
		exit 4
	}
	mkdir -p "$SYS"
	for f in "$DEBS"/*.deb; do dpkg -x "$f" "$SYS"; done
	echo "gpu-machine: unpacked $(ls "$DEBS"/*.deb | wc -l) packages into .sysroot"
	relink_dangling "$LIBDIR"
	make -j"$JOBS" SYSROOT=.sysroot HEADROOM_DEPS=skip $MAKEVARS headroom
	SYSLIBS=$LIBDIR
fi

# The verify library, host and CUDA builds (verify/verify.mk), if this
# checkout has them; the CUDA one with this machine's nvcc and GPU.
CUDA_LIB=
if make -n verify-cuda >/dev/null 2>&1; then
	make -j"$JOBS" HEADROOM_DEPS=skip $MAKEVARS verify-libs replay-libs verify-cuda &&
		CUDA_LIB=build/libhrverify_cuda.so
fi

mkdir -p "$SYS"
{
	echo "# written by replay/gpu-machine.sh; source it: . .sysroot/env.sh"
	echo "export HEADROOM=\"$ROOT/headroom\""
	if [ -n "$SYSLIBS" ]; then
		echo "export PATH=\"$ROOT:$SYS/usr/bin:/usr/local/cuda/bin:\$PATH\""
	else
		echo "export PATH=\"$ROOT:/usr/local/cuda/bin:\$PATH\""
	fi
	[ -n "$SYSLIBS" ] &&
		echo "export LD_LIBRARY_PATH=\"$SYSLIBS\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}\""
	[ -n "$CUDA_LIB" ] && echo "export HEADROOM_VERIFY_LIB=\"$ROOT/$CUDA_LIB\""
	echo "export HEADROOM_GPU_SETUP=1"
} >"$SYS/env.sh"
echo "gpu-machine: $("$ROOT/headroom" --version 2>&1 | head -1)" \
     "${CUDA_LIB:+(verify CUDA library: $CUDA_LIB)}"
echo "gpu-machine: now run  . .sysroot/env.sh"
