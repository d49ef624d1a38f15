"""The rand library (replay/hrrand.h) against torch.rand on the CPU.

From generator states torch leaves -- after manual_seed with seeds across
the 32-bit range, then a skip of 0..1300 elements drawn by torch (every
position in a 624-word block, and block ends) -- hrr_rand_f32 must give
torch.rand's values bit for bit, leave the state torch would (the 5056
bytes of torch.get_rng_state()), and torch's next draws (rand, randn,
randint) must continue the same.  States it cannot know (wrong length, an
unseeded generator, left/next that disagree, a word over 32 bits) are
refused with -1 and left as they were.  hrr_rand_f32_par splits a draw of
8.4 M elements or more between threads, each jumping to its own place in
the stream (mtjump.h): the same values and state for 2 to 16 threads, from
the start of a block and from inside one, with a last part of one element
or of a whole part.  The library is build/libhrrand.so, or $HRR_LIB.

Plain script: prints "ok: ..." per check that holds (a seed's draws, a
threaded draw, a refusal), "FAIL: ..." per difference (the first ten), a
closing line, and exits non-zero on any difference.
"""
import ctypes
import os
import random
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LIB = os.environ.get("HRR_LIB", os.path.join(ROOT, "build", "libhrrand.so"))

lib = ctypes.CDLL(LIB)
lib.hrr_abi_version.restype = ctypes.c_int
lib.hrr_rand_f32.restype = ctypes.c_int
lib.hrr_rand_f32.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_uint64]
lib.hrr_rand_f32_par.restype = ctypes.c_int
lib.hrr_rand_f32_par.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p,
                                 ctypes.c_uint64, ctypes.c_int]
lib.hrr_part_elements.restype = ctypes.c_uint64
PART = lib.hrr_part_elements()      # a split draw's part (hrrand.h)
failures = []


def fail(what):
    failures.append(what)
    if len(failures) <= 10:
        print("FAIL:", what)


def passed(what, before):
    """Print "ok: what" when no check failed since failures had before
    entries."""
    if len(failures) == before:
        print("ok:", what)


def fast(n, state=None, threads=0):
    """(values, state after, rc) drawn by the library from the current
    state (or the given bytes); on threads (hrr_rand_f32_par) when given."""
    st = (torch.get_rng_state() if state is None else state).clone()
    out = torch.empty(n)
    ptr = out.data_ptr() if n else None
    rc = (lib.hrr_rand_f32_par(st.data_ptr(), st.numel(), ptr, n, threads) if threads
          else lib.hrr_rand_f32(st.data_ptr(), st.numel(), ptr, n))
    return out, st, rc


def position(seed, skip):
    torch.manual_seed(seed)
    if skip:
        torch.rand(skip)


if lib.hrr_abi_version() != 2:
    fail("ABI %d" % lib.hrr_abi_version())
passed("ABI version 2", 0)

rng = random.Random(20261130)
seeds = [0, 1, 42, 5489, 2**31 - 1, 2**32 - 2, 2**32 - 1] + [rng.randrange(2**32) for _ in range(5)]
skips = [0, 1, 2, 227, 396, 397, 622, 623, 624, 625, 1247, 1248, 1249] + \
    [rng.randrange(1300) for _ in range(8)]
sizes = [0, 1, 3, 226, 227, 623, 624, 625, 1248, 4099, 65536, 1000003]
cases = 0
for seed in seeds:
    before, first = len(failures), cases
    for skip in skips:
        for n in rng.sample(sizes, 4) + [rng.randrange(1, 3000)]:
            position(seed, skip)
            want = torch.rand(n)
            want_state = torch.get_rng_state()
            want_next = (torch.rand(700), torch.randn(33), torch.randint(0, 2**32 - 1, (3,)))
            position(seed, skip)
            got, st, rc = fast(n)
            cases += 1
            if rc != 0:
                fail("seed %d skip %d n %d: refused (rc %d)" % (seed, skip, n, rc))
                continue
            if not torch.equal(got, want):
                i = int((got != want).nonzero()[0])
                fail("seed %d skip %d n %d: element %d is %r, torch %r"
                     % (seed, skip, n, i, got[i].item(), want[i].item()))
            if not torch.equal(st, want_state):
                fail("seed %d skip %d n %d: state differs" % (seed, skip, n))
            torch.set_rng_state(st)
            nxt = (torch.rand(700), torch.randn(33), torch.randint(0, 2**32 - 1, (3,)))
            if not all(torch.equal(a, b) for a, b in zip(nxt, want_next)):
                fail("seed %d skip %d n %d: torch's next draws differ" % (seed, skip, n))
    passed("seed %d: %d draws after skips of 0..1300 give torch.rand's values, "
           "state and next draws" % (seed, cases - first), before)

# On threads: (seed, skip, n, threads).  2 * PART - 1 from a block start
# stays on one thread; 2 * PART on two; a skip inside a block draws the
# block's rest first; the last part is 1 element, or whole.
for seed, skip, n, threads in ((3, 0, 2 * PART - 1, 4), (3, 0, 2 * PART, 2),
                               (2**32 - 1, 300, 2 * PART + 324, 2),
                               (42, 7, 3 * PART + 617 + 1, 3), (5489, 623, 4 * PART, 16),
                               (9, 1, 5 * PART + 12345, 16), (1, 624, 3 * PART + 1000, 64)):
    position(seed, skip)
    want = torch.rand(n)
    want_state = torch.get_rng_state()
    position(seed, skip)
    before = len(failures)
    got, st, rc = fast(n, threads=threads)
    cases += 1
    what = "seed %d skip %d n %d on %d threads" % (seed, skip, n, threads)
    if rc != 0:
        fail("%s: refused (rc %d)" % (what, rc))
    elif not torch.equal(got, want):
        i = int((got != want).nonzero()[0])
        fail("%s: element %d is %r, torch %r" % (what, i, got[i].item(), want[i].item()))
    elif not torch.equal(st, want_state):
        fail("%s: state differs" % what)
    passed("%s: torch.rand's values and state" % what, before)

# A multi-dimensional tensor is one stream in memory order.
position(42, 5)
want = torch.rand(64, 33, 70)
position(42, 5)
before = len(failures)
got, _, rc = fast(64 * 33 * 70)
cases += 1
if rc or not torch.equal(got.view(64, 33, 70), want):
    fail("a 64x33x70 draw differs from torch.rand(64, 33, 70)")
passed("a 64x33x70 draw equals torch.rand(64, 33, 70)", before)

# Refusals: -1, the state left as it was.
torch.manual_seed(7)
torch.rand(10)
good = torch.get_rng_state()


def refused(state, what):
    global cases
    cases += 1
    n_failed = len(failures)
    before = state.clone()
    buf = (ctypes.c_uint8 * max(1, state.numel())).from_buffer_copy(bytes(state.numpy()) or b"\0")
    out = (ctypes.c_float * 8)()
    rc = lib.hrr_rand_f32(buf, state.numel(), out, 8)
    if rc != -1:
        fail("%s: rc %d, want -1" % (what, rc))
    if bytes(buf)[:state.numel()] != bytes(before.numpy()):
        fail("%s: the state was changed" % what)
    passed("%s: refused, the state left as it was" % what, n_failed)


def patched(off, value, size):
    s = good.clone()
    s[off:off + size] = torch.frombuffer(bytearray(value.to_bytes(size, "little", signed=value < 0)),
                                         dtype=torch.uint8)
    return s


refused(good[:5000].clone(), "a short state")
refused(torch.cat([good, torch.zeros(8, dtype=torch.uint8)]), "a long state")
refused(patched(12, 0, 4), "seeded = 0")
refused(patched(8, 0, 4), "left = 0")
refused(patched(8, 625, 4), "left = 625")
refused(patched(8, -3, 4), "left < 0")
refused(patched(16, 3, 8), "next that disagrees with left")
refused(patched(16, 625, 8), "next = 625")
refused(patched(24 + 8 * 100, 1 << 32, 8), "a word over 32 bits")
before = len(failures)
if lib.hrr_rand_f32(None, 5056, None, 0) != -1:
    fail("a NULL state is not refused")
passed("a NULL state: refused", before)
cases += 1

print("test_rand_torch: %d cases against torch %s (%s), %d differ"
      % (cases, torch.__version__, os.path.basename(LIB), len(failures)))
sys.exit(1 if failures else 0)
