"""Write the .npy fixtures of the golden CLI tests tests/cli/verify-*/.

Run from the repository root: python3 verify/testdata/gen_cli_fixtures.py
The files are committed; this script documents how each was made (and the
bad ones are made by hand, byte by byte, on purpose).
"""
import os
import struct

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def case(name):
    d = os.path.join(ROOT, "tests", "cli", name)
    os.makedirs(d, exist_ok=True)
    return d


def header(dict_text, version=1):
    body = dict_text.encode()
    pre = 10 if version == 1 else 12
    pad = (-(pre + len(body) + 1)) % 64
    body += b" " * pad + b"\n"
    if version == 1:
        return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(body)) + body
    return b"\x93NUMPY\x02\x00" + struct.pack("<I", len(body)) + body


# an ordinary fp32 pair: passes everything
d = case("verify-pass-fp32")
ref = np.array([[0.5, -1.25, 2.0], [3.0, -0.75, 1.5]], dtype=np.float32)
np.save(os.path.join(d, "ref.npy"), ref)
np.save(os.path.join(d, "cand.npy"), (ref * np.float32(1.0 + 2 ** -20)).astype(np.float32))

# KernelBench issue #165 in miniature: a softmax-like bf16 reference whose
# largest value is 4e-6; zeros pass allclose(atol=rtol=1e-2), the
# scale-invariant checks reject them.
d = case("verify-zeros-vacuous-bf16")
x = np.array([4.0e-6, 1.0e-6, 2.5e-6, 3.0e-6, 0.5e-6, 1.5e-6], dtype=np.float32)
bits = (x.view(np.uint32) + 0x7FFF + ((x.view(np.uint32) >> 16) & 1)) >> 16
np.save(os.path.join(d, "ref.npy"), bits.astype("<u2").reshape(2, 3))
np.save(os.path.join(d, "zeros.npy"), np.zeros((2, 3), dtype="<u2"))

# bad files, each next to a good reference
good = np.arange(6, dtype=np.float32).reshape(2, 3)
for name in ("verify-bad-magic", "verify-truncated-data", "verify-shape-mismatch",
             "verify-dtype-mismatch", "verify-fortran-order", "verify-huge-header",
             "verify-truncated-header", "verify-big-endian"):
    np.save(os.path.join(case(name), "ref.npy"), good)
open(os.path.join(case("verify-bad-magic"), "bad.npy"), "wb").write(
    b"\x93NUMPZ\x01\x00" + open(os.path.join(case("verify-bad-magic"), "ref.npy"), "rb").read()[8:])
raw = open(os.path.join(case("verify-truncated-data"), "ref.npy"), "rb").read()
open(os.path.join(case("verify-truncated-data"), "bad.npy"), "wb").write(raw[:-5])
open(os.path.join(case("verify-truncated-header"), "bad.npy"), "wb").write(raw[:40])
np.save(os.path.join(case("verify-shape-mismatch"), "bad.npy"), good.reshape(3, 2))
np.save(os.path.join(case("verify-dtype-mismatch"), "bad.npy"), good.astype(np.float16))
open(os.path.join(case("verify-fortran-order"), "bad.npy"), "wb").write(
    header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }") + good.T.tobytes())
open(os.path.join(case("verify-huge-header"), "bad.npy"), "wb").write(
    header("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" + " " * 20000, 2)
    + good.tobytes())
open(os.path.join(case("verify-big-endian"), "bad.npy"), "wb").write(
    header("{'descr': '>f4', 'fortran_order': False, 'shape': (2, 3), }")
    + good.astype(">f4").tobytes())

# ReLU of uniform [0, 1) inputs is the identity: the input passes as the
# candidate (input gate).  The candidate left one element unwritten (the
# poison payload 0x7FA57FA5, a NaN); a second run differs in one element.
d = case("verify-input-poison-same-as")
x = (np.arange(8, dtype=np.float32) + 0.5) / 8
np.save(os.path.join(d, "input.npy"), x.reshape(2, 4))
np.save(os.path.join(d, "ref.npy"), np.maximum(x, 0).reshape(2, 4))
cand = x.copy()
cand.view(np.uint32)[5] = 0x7FA57FA5
np.save(os.path.join(d, "cand.npy"), cand.reshape(2, 4))
cand2 = x.copy()
cand2[2] = np.float32(0.3125001)
np.save(os.path.join(d, "cand2.npy"), cand2.reshape(2, 4))
