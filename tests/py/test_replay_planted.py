"""The planted suite through the whole tool (tests/fixtures/planted): its
candidates as a KernelBench run archive (one run per model, planted-CLASS
or honest-CLASS-fast|slow, the naming `headroom report detection` groups
by), ingested; the problems added (not audited: each job measures its own
problem's vacuity); a robust and a faithful
replay on the CPU (HR_TEST_DEVICE=cuda: on the GPU, make gpu-check); then
the detection table.  Every planted kernel is
caught (an exploit, incorrect, vacuous or failed verdict) or neutralised
(correct without a verified speedup: the robust loop gave it no cache to
hit), none verified-faster; no honest twin is flagged.  Prints the table.

Needs $HEADROOM, build/libhrverify.so and $PYTHON (tests/run.sh sets them)."""
import csv
import io
import json
import os
import subprocess
import sys
import shutil
import sqlite3
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "tests", "fixtures", "planted")
HEADROOM = os.environ.get("HEADROOM", os.path.join(ROOT, "headroom"))
PYTHON = os.environ.get("PYTHON", sys.executable)
DEVICE = os.environ.get("HR_TEST_DEVICE", "cpu")   # make gpu-check: cuda
suite = json.load(open(os.path.join(HERE, "suite.json")))["cases"]
failed = 0


def check(ok, what):
    global failed
    print(("ok: " if ok else "FAIL: ") + what)
    failed += not ok


def model_of(case):
    if not case.get("honest"):
        return "planted-" + case["class"]
    return "honest-%s-%s" % (case["class"], "fast" if "fast" in case["candidate"] else "slow")


def hr(db, *args):
    p = subprocess.run([HEADROOM, "--db", db, *args], capture_output=True, text=True)
    if p.returncode not in (0, 1):
        sys.exit("headroom %s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr[-3000:]))
    return p.stdout


def flagged(row):
    """What a flagged honest twin's jobs found, printed (a failure on a
    box nobody can look at says why)."""
    with sqlite3.connect(db) as con:
        for verdict, findings in con.execute(
                "SELECT j.audit_verdict, j.findings_json FROM replay_job j "
                "JOIN evaluation e ON e.id = j.evaluation_id JOIN replay_run r ON r.id = j.run_id "
                "WHERE e.model = ? AND r.mode = ?",
                ("honest-%s-%s" % (row["class"], row["kernel"].split("-")[1]), row["mode"])):
            print("   %s: %s" % (verdict, (findings or "")[:3000]))


tmp = tempfile.TemporaryDirectory(prefix="hr-planted-")
runs = os.path.join(tmp.name, "archive", "runs")
by_model = {}
for case in suite:
    if case.get("device", DEVICE) == DEVICE:
        by_model.setdefault(model_of(case), []).append(case)
for model, cases in by_model.items():
    d = os.path.join(runs, model + "_level1")
    os.makedirs(d)
    with open(os.path.join(d, "generation_config.yaml"), "w") as f:
        f.write("model_name: %s\nlevel: 1\nprecision: fp32\n" % model)
    results = {}
    for sample, case in enumerate(cases):
        with open(os.path.join(HERE, "candidates", case["candidate"])) as src, \
                open(os.path.join(d, "level_1_problem_%d_sample_%d_kernel.py"
                                  % (case["problem"], sample)), "w") as dst:
            dst.write(src.read())
        results.setdefault(str(case["problem"]), []).append(
            {"sample_id": sample, "compiled": True, "correctness": True,
             "metadata": {"hardware": "cpu"}, "runtime": 1.0, "runtime_stats": {}})
    with open(os.path.join(d, "eval_results.json"), "w") as f:
        json.dump(results, f)

db = os.path.join(tmp.name, "planted.db")
lib = os.path.join(ROOT, "build", "libhrverify_cuda.so" if DEVICE == "cuda" else
                   "libhrverify.so")
hr(db, "problems", "add", os.path.join(HERE, "problems"))
hr(db, "ingest", os.path.join(tmp.name, "archive"))
# No `audit problems`: every job measures its own problem's vacuity.
common = ["--device", DEVICE, "--python", PYTHON, "--verify-lib", lib, "--harness", "v0.1",
          "--perf-trials", "10", "--robust-rounds", "8", "--robust-inputs", "2",
          "--scratch", os.path.join(tmp.name, "scratch"),
          "--cache", os.path.join(ROOT, "build", "planted-cache")]
hr(db, "replay", "--mode", "robust", *common)
hr(db, "replay", "--mode", "faithful", *common)
table = hr(db, "report", "detection", "--format", "csv")
rows = list(csv.DictReader(io.StringIO(table)))
print(hr(db, "report", "detection"))
check(len(rows) > 0, "the detection table has rows")
classes = {c["class"] for c in suite if not c.get("honest") and c.get("device", DEVICE) == DEVICE}
# A planted kernel whose exploit has no effect in a mode may be fast there
# for real (the candidate that rebinds batch_size computes the problem's
# answer, and robust mode gives it the problem's own inputs): suite.json
# says so by that mode's verdict.
fast_for_real = {(c["class"], m) for c in suite for m, v in c.get("verdicts", {}).items()
                 if not c.get("honest") and v == "verified-faster"}
for r in rows:
    what = "%s %s %s: %s" % (r["class"], r["kernel"], r["mode"], r["verdicts"])
    if r["kernel"] == "planted" and (r["class"], r["mode"]) in fast_for_real:
        print("note: not judged, fast for real in this mode (suite.json): " + what)
    elif r["kernel"] == "planted":
        check(r["outcome"] in ("caught", "neutralised"), "caught or neutralised: " + what)
    else:
        check(r["outcome"] == "clean", "clean: " + what)
        if r["outcome"] != "clean":
            flagged(r)
# The verdicts suite.json names, where they do not depend on a time: each
# appears in its class's row of that mode (an exploit: some exploit, since
# a finding of the measurement -- timer-disagrees on a loaded host --
# outranks the one the case plants; test_worker_planted.py checks that
# finding is raised).
for c in suite:
    if c.get("honest") or c.get("device", DEVICE) != DEVICE:
        continue
    for mode, v in c.get("verdicts", {}).items():
        if not (v == "correct-vacuous" or v == "incorrect" or v.startswith("exploit:")):
            continue
        row = [r for r in rows if r["class"] == c["class"] and r["kernel"] == "planted"
               and r["mode"] == mode]
        want = "exploit:" if v.startswith("exploit:") else v + " "
        check(bool(row) and want in row[0]["verdicts"],
              "%s (%s): %s (row: %s)" % (c["candidate"], mode, v,
                                        row[0]["verdicts"] if row else "none"))
check({r["class"] for r in rows if r["kernel"] == "planted"} == classes,
      "every class of the suite has a row")
# PLANTED_DB_OUT: where to keep the store (tests/gpu/h200-run.sh brings it
# back from the GPU machine, for the jobs' checks of a wrong verdict).
if os.environ.get("PLANTED_DB_OUT"):
    shutil.copyfile(db, os.environ["PLANTED_DB_OUT"])
sys.exit(1 if failed else 0)
