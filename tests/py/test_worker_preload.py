"""The fork server imports torch.utils.cpp_extension, torch.profiler and
torch._inductor once for every job (worker.preload) without initialising
CUDA in itself: cpp_extension's
import-time torch.cuda.is_available() must not reach the driver there."""
import importlib
import os
import sys

import torch

from workerlib import ROOT, check

calls = []
real = torch._C._cuda_getDeviceCount


def counting():
    calls.append(1)
    return real()


torch._C._cuda_getDeviceCount = counting
check("torch.utils.cpp_extension" not in sys.modules, "cpp_extension not imported yet")
sys.path.insert(0, os.path.join(ROOT, "replay"))
import worker  # noqa: E402  after the counting driver call is in place
is_available = torch.cuda.is_available
inductor_dir = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
worker.preload(torch)
check("torch.utils.cpp_extension" in sys.modules and "numpy" in sys.modules,
      "preload imports cpp_extension and numpy")
check("torch._inductor.config" in sys.modules and "torch.profiler" in sys.modules,
      "preload imports torch.profiler and what its first profile imports (torch._inductor)")
import tempfile  # noqa: E402
check(os.environ.get("TORCHINDUCTOR_CACHE_DIR") == inductor_dir and tempfile.tempdir is None,
      "and leaves the environment and tempfile's directory to the job "
      "(TORCHINDUCTOR_CACHE_DIR %r, tempfile.tempdir %r)"
      % (os.environ.get("TORCHINDUCTOR_CACHE_DIR"), tempfile.tempdir))
check(not calls and not torch.cuda.is_initialized(),
      "without asking the CUDA driver (cudaGetDeviceCount calls: %d)" % len(calls))
check(torch.cuda.is_available is is_available, "and torch.cuda.is_available is restored")
# The check can fail: importing cpp_extension the plain way asks the driver.
del sys.modules["torch.utils.cpp_extension"]
importlib.import_module("torch.utils.cpp_extension")
check(len(calls) >= 1, "(a plain import of cpp_extension does ask it: %d calls)" % len(calls))
