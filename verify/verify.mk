# verify.mk - the verify stage's own rules (included by the root Makefile).
#
#   build/libhrverify.so       host-only C ABI of verify.h (gcc), for the
#                              Python worker on CPU and CI
#   build/libhrverify_cuda.so  the same ABI with the CUDA backend (nvcc)
#   build/libhrverify_skip.so  test build: the CPU with the GPU's skip
#                              filters (rules.h hrv_err), checked by
#                              tests/py/test_verify_torch.py in make check
#   make gpu-check             GPU tests: CPU == GPU on every rule, and the
#                              torch CUDA cross-check (device machine only)
#   make bench-verify          CPU benchmark (and GPU when a GPU is present)
#
# None of these needs libarchive, cJSON or SQLite.

NVCC       ?= $(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
CUDA_HOME  ?= $(patsubst %/bin/nvcc,%,$(NVCC))
CUDA_ARCH  ?= -arch=native
# No --use_fast_math: the rules depend on IEEE rounding (see rules.h).
NVCCFLAGS  ?= -O3 -std=c++17 $(CUDA_ARCH) -Xcompiler -fPIC -Xcompiler -Wall
VERIFY_LIB_CFLAGS = $(CSTD) $(WARN) -O2 -fPIC
VERIFY_HDRS = verify/verify.h verify/rules.h verify/backend.h verify/clones.h

.PHONY: verify-libs verify-cuda gpu-check gpu-check-verify bench-verify

verify-libs: build/libhrverify.so build/libhrverify_skip.so
verify-cuda: build/libhrverify_cuda.so

build/libhrverify.so: verify/verify.c $(VERIFY_HDRS)
	@mkdir -p build
	$(CC) $(VERIFY_LIB_CFLAGS) -shared -o $@ verify/verify.c -lm

build/libhrverify_skip.so: verify/verify.c $(VERIFY_HDRS)
	@mkdir -p build
	$(CC) $(VERIFY_LIB_CFLAGS) -DHRV_CPU_SKIP=1 -shared -o $@ verify/verify.c -lm

build/cuda/verify_host.o: verify/verify.c $(VERIFY_HDRS)
	@mkdir -p build/cuda
	$(CC) $(VERIFY_LIB_CFLAGS) -DHRV_WITH_CUDA -c $< -o $@

build/cuda/verify_cuda.o: verify/verify_cuda.cu $(VERIFY_HDRS)
	@mkdir -p build/cuda
	$(NVCC) $(NVCCFLAGS) -c $< -o $@

build/libhrverify_cuda.so: build/cuda/verify_host.o build/cuda/verify_cuda.o
	$(NVCC) -shared -o $@ $^ -lcudart

build/cuda/verify_gpu_test: tests/gpu/verify_gpu_test.cu build/libhrverify_cuda.so
	$(NVCC) $(NVCCFLAGS) -o $@ $< -Lbuild -lhrverify_cuda \
	  -Xlinker -rpath -Xlinker $(abspath build)

build/cuda/verify_bench_gpu: tests/gpu/verify_bench_gpu.cu build/libhrverify_cuda.so
	$(NVCC) $(NVCCFLAGS) -o $@ $< -Lbuild -lhrverify_cuda \
	  -Xlinker -rpath -Xlinker $(abspath build)

build/verify_bench_cpu: verify/bench/verify_bench_cpu.c build/libhrverify.so
	$(CC) $(CSTD) $(WARN) -O2 -o $@ $< -Lbuild -lhrverify \
	  -Wl,-rpath,$(abspath build) -lm

# The root Makefile's gpu-check depends on this; other stages add theirs.
gpu-check: gpu-check-verify
gpu-check-verify: build/cuda/verify_gpu_test build/libhrverify.so
	./build/cuda/verify_gpu_test
	@for s in 2,1 2,2 1,1 3,1; do echo "HRV_CUDA_PASS1=$$s:"; \
	  HRV_CUDA_PASS1=$$s ./build/cuda/verify_gpu_test || exit 1; done
	@if $(or $(PYTHON),python3) -c 'import torch, numpy; assert torch.cuda.is_available()' \
	    >/dev/null 2>&1; then \
	  HRV_LIB=build/libhrverify_cuda.so HRV_TORCH_DEVICE=cuda \
	    $(or $(PYTHON),python3) tests/py/test_verify_torch.py; \
	else echo "gpu-check-verify: torch with CUDA not found; torch cross-check skipped"; fi

bench-verify: build/verify_bench_cpu
	./build/verify_bench_cpu
	@if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory build/cuda/verify_bench_gpu && \
	  ./build/cuda/verify_bench_gpu; \
	else echo "bench-verify: no GPU; GPU benchmark skipped"; fi
