"""What the judge's CPU account of the candidate's processes and robust
mode's stops of them cost a job (replay/hrworker/account.py, quiet.py):
honest candidates of the planted suite, both modes, 100 trials and 30
robust rounds, N runs each, with both and without them (a worker with
HEADROOM_ACCOUNT=0 and HEADROOM_QUIET=0), jobs interleaved; the job's
wall is the sum of its phase seconds.  Also their own time (the
account's reads, checks.background.reads_ms; the stops, checks.quiet.
stop_us_total, and the freeze and marks around each stopped call,
hold_us_total; on a GPU the quiet probes, counted at the calm probe's
time each) and the handshake's calibration (checks.timing_channel.
calibration_seconds).  Not a test:
$PYTHON tests/bench/account_cost.py [N]; on a GPU,
HR_TEST_DEVICE=cuda python3 tests/bench/account_cost.py [N]."""
import os
import shutil
import statistics
import sys
import tempfile
N = int(sys.argv[1]) if len(sys.argv) > 1 else 5
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "py"))
import workerlib  # noqa: E402
P = os.path.join(ROOT, "tests", "fixtures", "planted")
# On a GPU (HR_TEST_DEVICE=cuda) the row sums are the CUDA twins; the
# matmul is torch's on either device.
GPU = "-cuda" if workerlib.DEVICE == "cuda" else ""
cases = [("1_Row_sums.py", "honest-rowsums-fast%s.py" % GPU), ("14_Matmul.py", "honest-matmul-same.py"),
         ("1_Row_sums.py", "honest-rowsums-slow%s.py" % GPU)]
# ACCOUNT_ONLY=matmul: the cases whose candidate's name holds it (no build).
cases = [c for c in cases if os.environ.get("ACCOUNT_ONLY", "") in c[1]]
# One build cache for both workers: a CUDA twin is built once.
cache = tempfile.mkdtemp(prefix="hr-account-cache-")
workers = {"on": workerlib.Worker("--cache", cache)}
os.environ["HEADROOM_ACCOUNT"] = os.environ["HEADROOM_QUIET"] = "0"
workers["off"] = workerlib.Worker("--cache", cache)
del os.environ["HEADROOM_ACCOUNT"], os.environ["HEADROOM_QUIET"]
walls = {}
for i in range(N):
    for pf, cf in cases:
        prob = open(os.path.join(P, "problems/level1", pf)).read()
        cand = open(os.path.join(P, "candidates", cf)).read()
        for mode in ("faithful", "robust"):
            for k, w in (list(workers.items()) if i % 2 == 0 else list(workers.items())[::-1]):
                _, r = w.run(prob, cand, mode=mode, harness="v0.1", perf_trials=100, warmup=3,
                             robust_rounds=30, robust_inputs=2, bootstrap=1000)
                ph = r["checks"]["phase_seconds"]
                bg = r["checks"].get("background", {})
                cal = r["checks"].get("timing_channel", {}).get("calibration_seconds", 0)
                q = r["checks"].get("quiet") or {}
                own = (bg.get("reads_ms", 0) / 1e3 + q.get("stop_us_total", 0) / 1e6
                       + q.get("hold_us_total", 0) / 1e6
                       + q.get("probes", 0) * q.get("calm_probe_us", 0) / 1e6)
                walls.setdefault((cf, mode, k), []).append(
                    (sum(ph.values()), own, cal, r.get("speedup")))
for w in workers.values():
    w.close()
shutil.rmtree(cache, ignore_errors=True)
print("%-24s %-8s %9s %9s %7s %9s %9s %8s %8s" % ("candidate", "mode", "on_s", "off_s", "diff%",
      "own_s", "calib_s", "own%", "spd on/off"))
for cf in [c for _, c in cases]:
    for mode in ("faithful", "robust"):
        on, off = walls[(cf, mode, "on")], walls[(cf, mode, "off")]
        mon, moff = statistics.median(x[0] for x in on), statistics.median(x[0] for x in off)
        rd, cal = statistics.median(x[1] for x in on), statistics.median(x[2] for x in on)
        print("%-24s %-8s %9.3f %9.3f %7.1f %9.4f %9.4f %8.2f %5.2f/%.2f" % (
            cf, mode, mon, moff, 100 * (mon - moff) / moff, rd, cal, 100 * (rd + cal) / mon,
            statistics.median(x[3] for x in on), statistics.median(x[3] for x in off)))
