#!/bin/sh
# pyenv.sh - print the path of a Python that has PyTorch 2.11 and numpy
# (the GPU machine's versions), making one when there is none.
#   1. $PYTHON when set and it has them;
#   2. python3 when it has them;
#   3. else a virtual environment outside the clone, created on first use
#      (about 5 GB: the PyPI wheel of torch brings its CUDA libraries).
# Everything but the final path goes to stderr.  headroom itself, when no
# --python is given, looks for 2. and 3. (python3, then this venv; not
# $PYTHON, which is this script's and the tests' variable:
# dataset/base/pyenv.h; keep the venv's name and the pins in step).
set -eu
want='import torch, numpy, sys; sys.exit(not torch.__version__.startswith("2.11."))'
for py in ${PYTHON:-} python3; do
	if "$py" -c "$want" >/dev/null 2>&1; then
		command -v "$py"
		exit 0
	fi
done
VENV=${HEADROOM_VENV:-$HOME/.cache/headroom/venv-torch-2.11.0}
if ! "$VENV/bin/python" -c "$want" >/dev/null 2>&1; then
	echo "pyenv: installing PyTorch 2.11.0 (CPU use) into $VENV" >&2
	python3 -m venv "$VENV" >&2
	"$VENV/bin/pip" install -q --disable-pip-version-check \
		torch==2.11.0 numpy==2.4.6 ninja==1.13.2 >&2
fi
echo "$VENV/bin/python"
