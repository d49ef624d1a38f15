#!/bin/sh
# deps.sh GROUP... - make sure the Debian packages a make target needs are
# installed.  Checked with dpkg-query, installed with apt-get only when
# missing and only as root; otherwise prints the exact command and fails.
# HEADROOM_DEPS=skip skips the check (a machine without apt, e.g. the GPU
# machine, that brings its own libraries: see docs/gpu-machine.md).
set -eu
[ "${HEADROOM_DEPS:-}" = skip ] && exit 0
command -v dpkg-query >/dev/null 2>&1 || {
	echo "deps: no dpkg-query here; install the equivalents of: $*" >&2
	echo "      (or set HEADROOM_DEPS=skip if they are present)" >&2
	exit 0
}
pkgs=
for group in "$@"; do
	case $group in
	# libseccomp2: the candidate process's seccomp filter (replay/hrworker/seccomp.py).
	build) pkgs="$pkgs gcc make pkg-config libarchive-dev libcjson-dev libsqlite3-dev libssl-dev libyajl-dev zlib1g-dev libseccomp2" ;;
	# slurm-wlm (slurmctld, slurmd, the sbatch of slurm-client) and munge:
	# the one-node cluster of tests/cli/replay-slurm-shards-merge-as-one-run.
	# chromium: the headless browser of tests/cli/report-html-in-headless-chromium.
	# mypy: the worker's types (tests/cli/layers-worker-types).
	check) pkgs="$pkgs libcmocka-dev g++ python3 python3-venv mypy zstd xz-utils zip gnuplot-nox slurm-wlm munge chromium" ;;
	figures) pkgs="$pkgs gnuplot-nox" ;;
	paper) pkgs="$pkgs texlive-latex-recommended texlive-latex-extra texlive-fonts-recommended" ;;
	*) echo "deps: unknown group $group" >&2; exit 2 ;;
	esac
done
missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "headroom needs these Debian packages:$missing" >&2
	echo "run as root:  apt-get update && apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing" >&2
# Try with the package lists as they are; refresh them once if that fails.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends$missing >/dev/null 2>&1 || {
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends$missing >/dev/null
}
