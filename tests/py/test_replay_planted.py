"""The planted suite through the whole tool (tests/fixtures/planted): its
candidates as a KernelBench run archive (one run per model, planted-CLASS
or honest-CLASS-fast|slow, the naming `headroom report detection` groups
by) with the problems added, and as a leaderboard dump whose records
carry their reference code (PLANTED_FORM, below), ingested; no problem
audited (each job measures its own problem's vacuity); a robust and a faithful
replay on the CPU (HR_TEST_DEVICE=cuda: on the GPU, make gpu-check); then
the detection table.  Every planted kernel is
caught (an exploit, incorrect, vacuous or failed verdict) or neutralised
(correct without a verified speedup: the robust loop gave it no cache to
hit), none verified-faster; no honest twin is flagged.  Job by job, each
planted case raises the evidence suite.json lists for it in each mode, and
each honest twin is correct with none.  Prints the table.

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

import dumplib

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


def flagged(model, mode):
    """What model's jobs in mode found, printed: a failure on a box nobody
    can look at (CI) says why."""
    with sqlite3.connect(db) as con:
        for verdict, findings in con.execute(
                "SELECT j.audit_verdict, j.findings_json FROM replay_job j "
                "JOIN evaluation e ON e.id = j.evaluation_id JOIN replay_run r ON r.id = j.run_id "
                "WHERE e.model = ? AND r.mode = ?", (model, mode)):
            print("   %s: %s" % (verdict, (findings or "")[:3000]))


tmp = tempfile.TemporaryDirectory(prefix="hr-planted-")
runs = os.path.join(tmp.name, "archive", "runs")
by_model = {}
for case in suite:
    if case.get("device", DEVICE) == DEVICE:
        by_model.setdefault(model_of(case), []).append(case)
# PLANTED_FORM: how the archive ships: "runs" (KernelBench run folders,
# the problems added as a set), "leaderboard" (one dump whose records carry
# their own reference code, no problem set added: make gpu-check's form),
# "mixed" (the default: the models alternate between the two, so that both
# ways to a job's problem run in one replay).
FORM = os.environ.get("PLANTED_FORM", "mixed")
records = []
for m, (model, cases) in enumerate(sorted(by_model.items())):
    in_dump = FORM == "leaderboard" or (FORM == "mixed" and m % 2 == 1)
    d = os.path.join(runs, model + "_level1")
    if not in_dump:
        os.makedirs(d)
        with open(os.path.join(d, "generation_config.yaml"), "w") as f:
            f.write("model_name: %s\nlevel: 1\nprecision: fp32\n" % model)
    results = {}
    for sample, case in enumerate(cases):
        code = open(os.path.join(HERE, "candidates", case["candidate"])).read()
        if in_dump:
            pfile = next(f for f in os.listdir(os.path.join(HERE, "problems", "level1"))
                         if f.split("_")[0] == str(case["problem"]))
            records.append(dumplib.record(model, 1, pfile, sample, code, open(
                os.path.join(HERE, "problems", "level1", pfile)).read()))
            continue
        with open(os.path.join(d, "level_1_problem_%d_sample_%d_kernel.py"
                               % (case["problem"], sample)), "w") as dst:
            dst.write(code)
        results.setdefault(str(case["problem"]), []).append(
            {"sample_id": sample, "compiled": True, "correctness": True,
             "metadata": {"hardware": "cpu"}, "runtime": 1.0, "runtime_stats": {}})
    if not in_dump:
        with open(os.path.join(d, "eval_results.json"), "w") as f:
            json.dump(results, f)
dump, mapping = dumplib.write(tmp.name, records)

db = os.path.join(tmp.name, "planted.db")
lib = os.path.join(ROOT, "build", "libhrverify_cuda.so" if DEVICE == "cuda" else
                   "libhrverify.so")
if os.path.isdir(runs):
    hr(db, "problems", "add", os.path.join(HERE, "problems"))
    hr(db, "ingest", os.path.join(tmp.name, "archive"))
if records:
    hr(db, "ingest", dump, "--map", mapping)
# No `audit problems`: every job measures its own problem's vacuity.
common = ["--device", DEVICE, "--python", PYTHON, "--verify-lib", lib, "--harness", "v0.1",
          "--perf-trials", "10", "--robust-rounds", "8", "--robust-inputs", "2",
          "--scratch", os.path.join(tmp.name, "scratch"),
          "--cache", os.path.join(ROOT, "build", "planted-cache")]
hr(db, "replay", "--mode", "robust", *common)
hr(db, "replay", "--mode", "faithful", *common)
# Each job's problem came the way its model's archive shipped it.
with sqlite3.connect(db) as con:
    ways = con.execute("SELECT json_extract(j.problem_match, '$.by') = 'record-reference', "
                       "count(*) FROM replay_job j GROUP BY 1").fetchall()
ways = {bool(k): n for k, n in ways}
check(ways.get(True, 0) == 2 * len(records) and
      ways.get(False, 0) == 2 * sum(len(v) for v in by_model.values()) - 2 * len(records),
      "%s form: %d jobs judged against their record's own reference, %d against the problem "
      "set" % (FORM, ways.get(True, 0), ways.get(False, 0)))
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
            flagged("honest-%s-%s" % (r["class"], r["kernel"].split("-")[1]), r["mode"])
# The verdicts suite.json names, where they do not depend on a time: each
# appears in its class's row of that mode (an exploit: some exploit, since
# a finding of the measurement -- timer-disagrees on a loaded host --
# outranks the one the case plants; the check below that asks for each
# case's own evidence finds it raised).
for c in suite:
    if c.get("honest") or c.get("device", DEVICE) != DEVICE:
        continue
    for mode, v in c.get("verdicts", {}).items():
        if not (v == "correct-vacuous" or v == "incorrect" or v.startswith("exploit:")):
            continue
        row = [r for r in rows if r["class"] == c["class"] and r["kernel"] == "planted"
               and r["mode"] == mode]
        want = "exploit:" if v.startswith("exploit:") else v + " "
        ok = bool(row) and want in row[0]["verdicts"]
        check(ok, "%s (%s): %s (row: %s)" % (c["candidate"], mode, v,
                                            row[0]["verdicts"] if row else "none"))
        if not ok:
            flagged(model_of(c), mode)
check({r["class"] for r in rows if r["kernel"] == "planted"} == classes,
      "every class of the suite has a row")
# Each case's own evidence (suite.json's "findings"), job by job: every id
# its mode lists raised; an honest twin correct with no evidence at all.  In
# a mode the case lists in "or_neutralised" (an attack that needs the host's
# CPU at the right moment, which a loaded host may not give it) the case
# passes uncaught only with no interval above 1, the verified-faster bound.
with sqlite3.connect(db) as con:
    jobs = {(m, s, mode): (v, f, low) for m, s, mode, v, f, low in con.execute(
        "SELECT e.model, e.sample_id, r.mode, j.verdict, j.findings_json, j.ci_low "
        "FROM replay_job j JOIN evaluation e ON e.id = j.evaluation_id "
        "JOIN replay_run r ON r.id = j.run_id")}
for model, cases in sorted(by_model.items()):
    for sample, case in enumerate(cases):
        for mode in ("faithful", "robust"):
            verdict, findings, low = jobs.get((model, sample, mode), (None, None, None))
            evidence = (json.loads(findings) if findings else {}).get("evidence") or []
            got = sorted({e.get("id") for e in evidence})
            want = case["findings"][mode]
            if case.get("honest"):
                check(verdict == "correct" and not got,
                      "%s (%s): correct, no evidence (got %s, %s)%s"
                      % (case["candidate"], mode, verdict, got,
                         "; evidence: " + json.dumps(evidence)[:1500] if got else ""))
            elif not set(want) <= set(got) and mode in case.get("or_neutralised", ()):
                check(verdict == "correct" and not (isinstance(low, (int, float)) and low > 1.0),
                      "%s (%s): raises %s, or is neutralised (got %s; verdict %s, interval "
                      "low %s)" % (case["candidate"], mode, want, got, verdict, low))
                print("note: %s (%s): neutralised, not caught: no %s, interval low %s"
                      % (case["candidate"], mode, want, low))
            else:
                check(set(want) <= set(got), "%s (%s): raises %s (got %s; verdict %s)"
                      % (case["candidate"], mode, want or "nothing required", got, verdict))
# PLANTED_DB_OUT: where to keep the store (tests/gpu/h200-run.sh brings it
# back from the GPU machine, for the jobs' checks of a wrong verdict).
if os.environ.get("PLANTED_DB_OUT"):
    shutil.copyfile(db, os.environ["PLANTED_DB_OUT"])
sys.exit(1 if failed else 0)
