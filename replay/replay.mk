# replay.mk - the replay stage's own rules (included by the root Makefile).
#
#   make gpu-check       on a CUDA machine: the worker's Python tests on the
#                        GPU (HR_TEST_DEVICE=cuda) and tests/gpu/replay.sh
#                        (a `headroom replay --device cuda` of the CUDA
#                        fixtures when tests/fixtures/replay/cuda/ has them)
#
# Nothing here runs in `make check`: the CPU side of replay is tested there
# by tests/cli/replay-* and tests/py/test_worker_*.py.

.PHONY: gpu-check gpu-check-replay replay-libs

# The worker's rand library (replay/hrrand.h): -O3, whose vectoriser the
# block loops need (gcc 12's -O2 leaves them scalar: 4x slower).
RAND_LIB_CFLAGS = $(CSTD) $(WARN) -O3 -fPIC

replay-libs: build/libhrrand.so

build/libhrrand.so: replay/hrrand.c replay/hrrand.h replay/mtjump.c replay/mtjump.h verify/clones.h
	@mkdir -p build
	$(CC) $(RAND_LIB_CFLAGS) -pthread -shared -o $@ replay/hrrand.c replay/mtjump.c

gpu-check: gpu-check-replay

gpu-check-replay: headroom
	@for t in tests/py/test_worker_*.py; do \
		echo "== $$t (cuda)"; \
		HR_TEST_DEVICE=cuda $(or $(PYTHON),python3) $$t || exit 1; \
	done
	@echo "== tests/py/test_replay_planted.py (cuda)"; \
	HR_TEST_DEVICE=cuda PLANTED_FORM=leaderboard HEADROOM=$(abspath headroom) \
	  PYTHON=$(or $(PYTHON),python3) $(or $(PYTHON),python3) tests/py/test_replay_planted.py
	@HEADROOM=$(abspath headroom) PYTHON=$(or $(PYTHON),python3) sh tests/gpu/replay.sh
