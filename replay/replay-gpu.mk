# replay-gpu.mk - replay's GPU tests (included by the root Makefile).
#
#   make gpu-check     (on a CUDA machine) adds gpu-check-hostile: the hostile
#                      kernels of tests/gpu/hostile/ through `headroom replay`
#                      (illegal address, infinite loop, out of memory, each
#                      followed by a correct job; tests/gpu/replay_gpu_test.sh)
# Never part of `make check`: nothing here runs without a GPU.

.PHONY: gpu-check-hostile

gpu-check: gpu-check-hostile
gpu-check-hostile: headroom
	@if ./headroom replay --help >/dev/null 2>&1; then \
	  HEADROOM=$(abspath headroom) PYTHON=$(or $(PYTHON),python3) sh tests/gpu/replay_gpu_test.sh; \
	else echo "gpu-check-hostile: this headroom has no replay command; skipped"; fi
