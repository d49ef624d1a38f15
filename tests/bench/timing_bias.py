"""timing_bias.py - how far robust timing reads an honest candidate from
the truth: the candidate is the reference's own code (planted problem 14's
matmul, honest-matmul-same.py), so its true speedup is 1.  Each size runs
REPS robust jobs through the worker; a line a job: the speedup and its
interval, the reference's median (the judge's CUDA events or clock), the
median of the candidate's figures over all its timed calls (the judge's
clock around the handshake less its calibrated overhead:
CandidateProcess.figure) and, beside it, the median of the candidate
process's own readings, which enter no figure (checks.timing_channel).  The gap
between the last two is the handshake the calibration did not take off.

    $PYTHON tests/bench/timing_bias.py [N ...]          # CPU, N = 512 256
    HR_TEST_DEVICE=cuda python3 tests/bench/timing_bias.py 2048 512

REPS (default 2) in the environment; HEADROOM_HANDSHAKE_SPIN=0 or 1 sets
whether the handshake's waits spin (channel.spin_wait; each line says);
HEADROOM_HANDSHAKE_STAMPS=1 adds where the handshakes' time went (split).
A benchmark, not a test."""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "py"))
from workerlib import DEVICE, ROOT, Worker  # noqa: E402

PLANTED = os.path.join(ROOT, "tests", "fixtures", "planted")


def read(*parts):
    with open(os.path.join(PLANTED, *parts)) as f:
        return f.read()


def channel(res, key):
    """checks.timing_channel's key (figure_ms_median, own_ms_median)."""
    return ((res.get("checks") or {}).get("timing_channel") or {}).get(key)


def main():
    sizes = [int(a) for a in sys.argv[1:]] or [512, 256]
    reps = int(os.environ.get("REPS", "2"))
    lib = os.path.join(ROOT, "build", "libhrverify_cuda.so" if DEVICE == "cuda" else
                       "libhrverify.so")
    w = Worker("--verify-lib", lib) if os.path.exists(lib) else Worker()
    honest = read("candidates", "honest-matmul-same.py")
    try:
        for n in sizes:
            problem = read("problems", "level1", "14_Matmul.py").replace("n = 256", "n = %d" % n)
            for _ in range(reps):
                _, res = w.run(problem, honest, mode="robust",
                               candidate_file="honest-matmul-same.py", robust_rounds=20,
                               robust_inputs=2, bootstrap=200, perf_trials=20)
                res = res or {}
                print("n %5d  spin %-5s %-8s speedup %s [%s, %s]  reference %s ms  candidate figure %s ms"
                      "  its own clock %s ms" % (
                          n, channel(res, "handshake_spin"), res.get("verdict"), fmt(res.get("speedup")), fmt(res.get("ci_low")),
                          fmt(res.get("ci_high")), fmt(res.get("baseline_ms")),
                          fmt(channel(res, "figure_ms_median")),
                          fmt(channel(res, "own_ms_median"))), flush=True)
                for line in split(res):
                    print("    " + line, flush=True)
    finally:
        w.close()


def split(res):
    """Where the handshakes' time went (HEADROOM_HANDSHAKE_STAMPS=1): the
    medians of go (the judge's go sent to the candidate's go received), the
    call (to its done sent) and done (to the judge's done received), ms,
    over the calls of nothing and over the timed calls."""
    st = channel(res, "stamps") or []
    out = []
    for what, rows in (("calls of nothing", [x for x in st if x["way"] is None]),
                       ("timed calls", [x for x in st if x["way"] is not None])):
        rows = [x for x in rows if x["go"] is not None and x["done"] is not None]
        if rows:
            out.append("%-16s %3d: go %s  call %s  done %s  (own clock %s)" % (
                what, len(rows), *(fmt(statistics.median(f(x) for x in rows) / 1e6) for f in (
                    lambda x: x["go"] - x["t0"], lambda x: x["done"] - x["go"],
                    lambda x: x["t1"] - x["done"])),
                fmt(statistics.median(x["own_ms"] for x in rows))))
    return out


def fmt(x):
    return "%.4f" % x if isinstance(x, (int, float)) else "-"


if __name__ == "__main__":
    main()
