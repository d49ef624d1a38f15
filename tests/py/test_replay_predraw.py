"""headroom replay draws each problem's inputs ahead in build workers: build
jobs of a problem draw (they say so in checks.build_stage.predraw; every job
records its problem's draws in checks.input_draws) and idle build workers
help with inputs-only jobs (each set is drawn once: the summary counts 12
sets for 2 problems), or only inputs-only jobs when the problem has no build
to do; one problem at a time when the directory holds only one problem's
sets; every run job
loads all its sets (checks.input_cache: all hits); the verdicts and trials
are those of the worker drawing alone; the run's inputs directory is gone
when the run ends.  CPU; needs $HEADROOM (the
binary; build/asan/headroom when unset) and the sqlite3 CLI."""
import json
import os
import sqlite3
import subprocess
import sys
import tempfile

from workerlib import ROOT, Worker, check

HEADROOM = os.environ.get("HEADROOM") or os.path.join(ROOT, "build", "asan", "headroom")
CACHE = os.path.join(ROOT, "build", "test-replay-cache")
FIX = os.path.join(ROOT, "tests", "fixtures", "replay")
if os.environ.get("HR_TEST_DEVICE", "cpu") != "cpu":
    print("skip: a CPU replay test; not run on", os.environ["HR_TEST_DEVICE"])
    sys.exit(77)   # tests/run.sh: skipped

tmp = tempfile.TemporaryDirectory(prefix="hr-replay-predraw-")
db = os.path.join(tmp.name, "t.db")
env = dict(os.environ, HEADROOM=HEADROOM)
# Problem 1 (ReLU): four candidates, four build jobs (scale_torch fails to
# load there: ModelNew needs a factor).  Problem 2 (Scale): scale_torch
# again, whose kernel the first build covers: no build of its own.
subprocess.run(["sh", os.path.join(FIX, "mkdb.sh"), db, "relu_kb_inputs.py", "relu_fast.py",
                "relu_wrong.py", "scale_torch.py", "1:2:scale_torch.py"], env=env, check=True)
run = subprocess.run([HEADROOM, "--db", db, "replay", "--device", "cpu", "--jobs", "2",
                      "--perf-trials", "5", "--python", sys.executable, "--cache", CACHE,
                      "--verify-lib", "none"], env=env, capture_output=True, text=True)
print(run.stderr[-2000:])
check(run.returncode == 0, "the replay finishes")

con = sqlite3.connect(db)
rows = con.execute("""SELECT e.model, e.problem_id, j.verdict, j.trials_passed, j.checks_json,
                      p.code, k.code FROM replay_job j JOIN evaluation e ON e.id = j.evaluation_id
                      JOIN problem p ON p.id = j.problem_ref JOIN kernel k ON k.id = e.kernel_id
                      ORDER BY e.id""").fetchall()
settings = json.loads(con.execute("SELECT settings_json FROM replay_run").fetchone()[0])
con.close()
def trials(checks):
    """A job's trials, without the seconds each part took (they differ run
    to run)."""
    return [{k: v for k, v in t.items() if k != "seconds"}
            for t in checks.get("trials") or []]


jobs = [{"model": r[0], "problem": r[1], "verdict": r[2], "passed": r[3],
         "checks": json.loads(r[4]), "problem_code": r[5], "code": r[6]} for r in rows]

check([(j["model"], j["verdict"]) for j in jobs] ==
      [("relu_kb_inputs", "correct"), ("relu_fast", "correct"), ("relu_wrong", "incorrect"),
       ("scale_torch", "runtime_error"), ("scale_torch", "correct")],
      "verdicts: the candidate that checks its inputs against KernelBench's draws passes")
check(all(j["checks"].get("input_cache") == {"sets": 6, "hits": 6, "drawn_late": 0,
                                             "device_held": 0, "fast_draws": 0}
          for j in jobs),
      "every run job loads all 6 sets, drawn ahead: %s"
      % [j["checks"].get("input_cache") for j in jobs])
drew = [j["checks"]["build_stage"].get("predraw") for j in jobs
        if j["checks"].get("build_stage", {}).get("predraw")]
draws1 = jobs[0]["checks"].get("input_draws", [])
draws2 = jobs[4]["checks"].get("input_draws", [])
check(drew and drew[0] == jobs[0]["checks"]["build_stage"].get("predraw") and
      all(d in draws1 for d in drew) and
      all(j["checks"].get("input_draws") == draws1 for j in jobs[:4]) and
      sum(d["drawn"] for d in draws1) == 6,
      "problem 1: its build jobs (the first among them) and idle build workers' "
      "inputs-only jobs drew its 6 sets, each once; every job of the problem records "
      "those draws: %s" % draws1)
check("build_stage" not in jobs[4]["checks"] and sum(d["drawn"] for d in draws2) == 6,
      "problem 2: no build; its 6 sets came from inputs-only jobs: %s" % draws2)
check("inputs of 2 problems drawn ahead (12 sets)" in run.stderr,
      "the closing summary counts the draws")
check(not os.path.exists(db + ".replay/inputs") and os.path.isdir(db + ".replay"),
      "the run's inputs directory is removed when the run ends")

# One problem's sets are drawn at a time when the directory has no room
# for two problems' sets: problems 3 and 4 (one kernel, so one build; sets
# of 2 MiB that take 0.3 s each to draw: 12 MiB a problem) on three build
# workers, HEADROOM_INPUTS_MB=16.  Problem 4's draws, which only idle build
# workers can do, wait until every draw of problem 3 is through.
db34 = os.path.join(tmp.name, "t34.db")
subprocess.run(["sh", os.path.join(FIX, "mkdb.sh"), db34, "1:3:scale_torch.py",
                "1:4:scale_torch.py"], env=env, check=True)
run34 = subprocess.run([HEADROOM, "--db", db34, "replay", "--device", "cpu", "--jobs", "3",
                        "--perf-trials", "5", "--python", sys.executable, "--cache", CACHE,
                        "--verify-lib", "none"], env=dict(env, HEADROOM_INPUTS_MB="16"),
                       capture_output=True, text=True)
con = sqlite3.connect(db34)
rows34 = [(r[0], json.loads(r[1])) for r in con.execute(
    "SELECT j.verdict, j.checks_json FROM replay_job j ORDER BY j.evaluation_id")]
con.close()
d3, d4 = (c.get("input_draws", []) for _, c in rows34)
check(run34.returncode == 0 and [v for v, _ in rows34] == ["correct", "correct"] and
      sum(d["drawn"] for d in d3) == 6 and sum(d["drawn"] for d in d4) == 6 and
      all(c["input_cache"]["hits"] == 6 for _, c in rows34),
      "problems 3 and 4: correct, each problem's 6 sets drawn ahead once (%s; %s)"
      % (d3, d4))
check(min(d["started"] for d in d4) >= max(d["ended"] for d in d3),
      "problem 4's draws began after problem 3's ended (one problem at a time): %s"
      % [(d["started"], d["ended"]) for d in d3 + d4])

# HEADROOM_INPUTS_MB=0: the inputs directory may hold nothing: no draws
# ahead, every job draws its own sets (KernelBench's way); the same verdicts.
db0 = os.path.join(tmp.name, "t0.db")
subprocess.run(["sh", os.path.join(FIX, "mkdb.sh"), db0, "relu_kb_inputs.py", "relu_fast.py",
                "relu_wrong.py", "scale_torch.py", "1:2:scale_torch.py"], env=env, check=True)
run0 = subprocess.run([HEADROOM, "--db", db0, "replay", "--device", "cpu", "--jobs", "2",
                       "--perf-trials", "5", "--python", sys.executable, "--cache", CACHE,
                       "--verify-lib", "none"], env=dict(env, HEADROOM_INPUTS_MB="0"),
                      capture_output=True, text=True)
check(run0.returncode == 0, "HEADROOM_INPUTS_MB=0: the replay finishes")
con = sqlite3.connect(db0)
rows0 = [(r[0], json.loads(r[1])) for r in con.execute(
    "SELECT j.verdict, j.checks_json FROM replay_job j ORDER BY j.evaluation_id")]
con.close()
check([v for v, _ in rows0] == [j["verdict"] for j in jobs],
      "HEADROOM_INPUTS_MB=0: the same verdicts")
check(not any(c.get("build_stage", {}).get("predraw") for _, c in rows0) and
      "inputs of 0 problems drawn ahead (0 sets)" in run0.stderr,
      "HEADROOM_INPUTS_MB=0: nothing drawn ahead (%s)" % run0.stderr[-300:])
check(all(c["input_cache"]["hits"] == 0 and c["input_cache"]["drawn_late"] == 5
          for _, c in rows0),
      "HEADROOM_INPUTS_MB=0: every job draws all its sets itself: %s"
      % [c.get("input_cache") for _, c in rows0])
bad = subprocess.run([HEADROOM, "--db", db0, "replay", "--device", "cpu"],
                     env=dict(env, HEADROOM_INPUTS_MB="lots"), capture_output=True, text=True)
check(bad.returncode == 2 and "HEADROOM_INPUTS_MB=lots" in bad.stderr,
      "a bad HEADROOM_INPUTS_MB is a usage error (%d: %s)" % (bad.returncode, bad.stderr.strip()))
bad = subprocess.run([HEADROOM, "--db", db0, "replay", "--device", "cpu"],
                     env=dict(env, HEADROOM_DEVICE_INPUTS_MB="-1"), capture_output=True,
                     text=True)
check(bad.returncode == 2 and "HEADROOM_DEVICE_INPUTS_MB=-1" in bad.stderr,
      "so is a bad HEADROOM_DEVICE_INPUTS_MB (%d: %s)" % (bad.returncode, bad.stderr.strip()))

# A keeper on the CPU (HEADROOM_DEVICE_INPUTS_MB, shared memory) and the
# rand library: build workers write each problem's recipe, the keeper
# draws the sets and lends them; nothing is drawn into files; the same
# verdicts and trials.
RAND = os.path.join(ROOT, "build", "libhrrand.so")
dbk = os.path.join(tmp.name, "tk.db")
subprocess.run(["sh", os.path.join(FIX, "mkdb.sh"), dbk, "relu_kb_inputs.py", "relu_fast.py",
                "relu_wrong.py", "scale_torch.py", "1:2:scale_torch.py"], env=env, check=True)
runk = subprocess.run([HEADROOM, "--db", dbk, "replay", "--device", "cpu", "--jobs", "2",
                       "--perf-trials", "5", "--python", sys.executable, "--cache", CACHE,
                       "--verify-lib", "none", "--rand-lib", RAND],
                      env=dict(env, HEADROOM_DEVICE_INPUTS_MB="64"), capture_output=True,
                      text=True)
con = sqlite3.connect(dbk)
rowsk = [(r[0], r[1], json.loads(r[2])) for r in con.execute(
    "SELECT j.verdict, j.trials_passed, j.checks_json FROM replay_job j "
    "ORDER BY j.evaluation_id")]
con.close()
check(runk.returncode == 0 and [v for v, _, _ in rowsk] == [j["verdict"] for j in jobs] and
      [p for _, p, _ in rowsk] == [j["passed"] for j in jobs] and
      [trials(c) for _, _, c in rowsk] == [trials(j["checks"]) for j in jobs],
      "with a keeper that draws: the same verdicts and trials (%s)" % runk.stderr[-500:])
check(all(c["input_cache"]["device_held"] == 6 and len(c["input_cache"]["keeper_drew"]) == 6
          for _, _, c in rowsk) and
      all(d.get("recipe") is True and d["drawn"] == 0
          for _, _, c in rowsk for d in c.get("input_draws", [])) and
      "inputs of 0 problems drawn ahead (0 sets), of 2 drawn by the keeper" in runk.stderr,
      "every set drawn by the keeper from the problems' recipes, none into a file: %s"
      % [c["input_cache"] for _, _, c in rowsk])

# The same jobs in a worker of their own, each under an inputs key with no
# files (so it draws every set itself): the same verdicts and trials.
w = Worker("--cache", CACHE)
for i, j in enumerate(jobs):
    sem = j["checks"]["semantics"]
    _, res = w.run(j["problem_code"], j["code"], **dict(
        settings, harness=sem["harness"], precision=sem["precision"],
        inputs_key="%016x" % (0xfeed0 + i)))
    check(res["checks"]["input_cache"]["hits"] == 0 and res["verdict"] == j["verdict"] and
          res.get("trials_passed") == j["passed"] and
          trials(res["checks"]) == trials(j["checks"]),
          "%s: drawing in the job gives the replay's verdict and trials (%s, %s)"
          % (j["model"], res.get("verdict"), res.get("error")))
w.close()
tmp.cleanup()
