"""kb_leaderboard.py KB_DIR DB [CAND_DIR...] - the verdicts as a new user
meets them: one leaderboard dump (a JSON record a kernel, each carrying its
reference module, as public leaderboard dumps ship them) of KernelBench
problems at today's sizes (KB_DIR: the KernelBench folder of levels) and
the project's candidates for them (default: tests/gpu/kb-leaderboard,
kernels of vacuous problems, distribution-only kernels and their honest
twins; tests/gpu/kb-candidates, model-style kernels), ingested with a map
into DB (made new), then replayed robust and faithful on the GPU with no
`problems add` and no `audit problems`.  Prints one row a case (its
expectation, each mode's audit verdict and findings) and exits 1 where an
expectation is not met.

A candidate's expectation is its `# headroom-expect:` line (`honest`
without one): not-a-win, neither mode `correct` nor `verified-faster`;
flagged, both modes an exploit or `incorrect`; honest, neither mode an
exploit nor `correct-vacuous`.  In every case no job is `failed:tool`.

    python3 tests/gpu/kb_leaderboard.py .kb/KernelBench /tmp/kbl.db \\
        --headroom ./headroom --python python3 --cap 280 --scratch /tmp/kbl-scratch

(tests/gpu/h200-run.sh stage kb-leaderboard.)  Needs a GPU."""
import argparse
import glob
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "py"))
import dumplib  # noqa: E402
NAME = re.compile(r"level_(\d+)_problem_(\d+)_sample_(\d+)_kernel\.py$")
EXPECT = re.compile(r"^# headroom-expect: (not-a-win|flagged|honest)", re.M)
WINS = ("correct", "verified-faster")


def expectation_met(expect, verdicts):
    """verdicts: mode -> audit verdict.  (met, why not)."""
    vs = list(verdicts.values())
    if len(vs) != 2:
        return False, "not judged in both modes"
    if any(v.startswith("failed:tool") for v in vs):
        return False, "a job failed by the tool"
    if any(v.startswith("skipped:") or v == "-" for v in vs):
        return False, "not judged"
    if expect == "not-a-win":
        return all(v not in WINS for v in vs), "a win"
    if expect == "flagged":
        return all(v.startswith("exploit:") or v == "incorrect" for v in vs), "not flagged"
    return all(not v.startswith("exploit:") and v != "correct-vacuous" for v in vs), "accused"


def gpu_left(device, wait=20):
    """After a run ended: the compute processes still holding device memory
    (nvidia-smi's list) once wait seconds passed, printed with their
    parents; how many (0: the GPU is as the run found it, or no GPU)."""
    if device != "cuda":
        return 0
    for _ in range(wait):
        q = subprocess.run(["nvidia-smi", "--query-compute-apps=pid,used_memory",
                            "--format=csv,noheader"], capture_output=True, text=True)
        rows = [r for r in q.stdout.splitlines() if r.strip()]
        if q.returncode or not rows:
            return 0
        time.sleep(1)
    print("== still on the GPU %d s after the run ended:\n%s" % (wait, "\n".join(rows)))
    subprocess.run(["ps", "-o", "pid,ppid,stat,etimes,cmd", "-p",
                    ",".join(r.split(",")[0].strip() for r in rows)])
    return len(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("kb")
    ap.add_argument("db")
    ap.add_argument("cands", nargs="*", default=[os.path.join(ROOT, "tests/gpu/kb-leaderboard"),
                                                 os.path.join(ROOT, "tests/gpu/kb-candidates")])
    ap.add_argument("--headroom", default=os.path.join(ROOT, "headroom"))
    ap.add_argument("--python", default="python3")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--cap", type=int, default=280, help="seconds a mode's replay may take")
    ap.add_argument("--scratch", default=None)
    ap.add_argument("--modes", default="robust,faithful",
                    help="the modes to replay, in order (comma-separated)")
    ap.add_argument("--keep", action="store_true",
                    help="replay into DB as it is (an earlier call's store: its dump ingested)")
    ap.add_argument("--cache", default=None, help="the build cache (default: one of this call's)")
    a = ap.parse_args()
    cases, records = {}, []
    for d in a.cands:
        model = os.path.basename(os.path.normpath(d))
        for f in sorted(glob.glob(os.path.join(d, "level_*_problem_*_sample_*_kernel.py"))):
            level, pid, sample = map(int, NAME.search(f).groups())
            pfile = glob.glob(os.path.join(a.kb, "level%d" % level, "%d_*.py" % pid))
            if len(pfile) != 1:
                sys.exit("%s: no one problem %d at level %d in %s" % (f, pid, level, a.kb))
            code = open(f).read()
            m = EXPECT.search(code)
            cases[(model, level, pid, sample)] = (os.path.basename(f), m.group(1) if m else "honest")
            records.append(dumplib.record(model, level, pfile[0], sample, code,
                                          open(pfile[0]).read()))
    for p in (a.db, a.db + "-journal"):
        if os.path.exists(p) and not a.keep:
            os.remove(p)
    tmp = tempfile.mkdtemp(prefix="hr-kbl-")
    dump, mapping = dumplib.write(tmp, records)
    hr = [a.headroom, "--db", a.db]
    if not a.keep:
        subprocess.run(hr + ["ingest", dump, "--map", mapping], check=True)
    scratch = a.scratch or os.path.join(tmp, "scratch")
    left = 0
    for mode in [m for m in a.modes.split(",") if m]:
        cmd = hr + ["replay", "--device", a.device, "--mode", mode, "--python", a.python,
                    "--scratch", scratch + "-" + mode,
                    "--cache", a.cache or os.path.join(tmp, "cache")]
        print("==", " ".join(cmd[3:]), flush=True)
        p = subprocess.Popen(cmd)
        try:
            p.wait(timeout=a.cap)
        except subprocess.TimeoutExpired:
            # As `timeout` stops it: SIGTERM, the run left resumable.
            print("== %s stopped after %d s" % (mode, a.cap), flush=True)
            p.terminate()
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        left += gpu_left(a.device)
    con = sqlite3.connect(a.db)
    got = {}
    for model, level, pid, sample, mode, verdict, findings, by in con.execute(
            "SELECT e.model, e.level, e.problem_id, e.sample_id, r.mode, j.audit_verdict, "
            "j.findings_json, json_extract(j.problem_match, '$.by') FROM replay_job j "
            "JOIN evaluation e ON e.id = j.evaluation_id JOIN replay_run r ON r.id = j.run_id"):
        ids = sorted({x.get("id") for x in json.loads(findings or "[]") if isinstance(x, dict)})
        got.setdefault((model, level, pid, sample), {})[mode] = (verdict or "-", ids, by)
    failed = 0
    print("\n| case | model | expected | robust | faithful | met |\n|---|---|---|---|---|---|")
    for key, (fname, expect) in sorted(cases.items()):
        modes = got.get(key, {})
        met, why = expectation_met(expect, {m: v[0] for m, v in modes.items()})
        if met and any(v[2] != "record-reference" for v in modes.values()):
            met, why = False, "not judged against its record's reference"
        failed += not met
        cell = {m: "%s (%s)" % (v[0], ", ".join(v[1]) or "-") for m, v in modes.items()}
        print("| %s | %s | %s | %s | %s | %s |" % (fname, key[0], expect, cell.get("robust", "-"),
                                                 cell.get("faithful", "-"),
                                                 "yes" if met else "NO: " + why))
    print("\n%d of %d cases as expected; %s" % (
        len(cases) - failed, len(cases), "a run left processes holding device memory"
        if left else "no run left a process holding device memory"))
    return 1 if failed or left else 0


if __name__ == "__main__":
    sys.exit(main())
