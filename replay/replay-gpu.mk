# replay-gpu.mk - replay's GPU tests (included by the root Makefile).
#
#   make gpu-check     (on a CUDA machine) adds gpu-check-replay: the hostile
#                      kernels of tests/gpu/hostile/ through `headroom replay`
#                      (illegal address, infinite loop, out of memory, each
#                      followed by a correct job; tests/gpu/replay_gpu_test.sh)
# Never part of `make check`: nothing here runs without a GPU.

.PHONY: gpu-check-replay

gpu-check: gpu-check-replay
gpu-check-replay: headroom
	@if ./headroom replay --help >/dev/null 2>&1; then \
	  HEADROOM=$(abspath headroom) PYTHON=$(PYTHON) sh tests/gpu/replay_gpu_test.sh; \
	else echo "gpu-check-replay: this headroom has no replay command; skipped"; fi
