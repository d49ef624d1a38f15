#!/bin/bash
# h200-run.sh STAGE... - the GPU-machine plan, one stage after another
# (docs/gpu-machine.md lists the stages).  Run from the repository root of a
# copy that has .debs/ and .kb/ (or set DEBS= and KB=).  Writes a log and
# JSON files to $OUT (default ./out).  Each stage prints "== stage NAME" and
# its wall time; a failing stage is reported and the next one still runs.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
OUT=${OUT:-$ROOT/out}
KB=${KB:-.kb}
DEBS=${DEBS:-.debs}
JOBS=${JOBS:-$(nproc)}
CAND=${CAND:-tests/gpu/kb-candidates}   # tests/gpu/kb-large: the 1.6 G-element problems
WORK=${WORK:-/tmp/hr-gpu}
export PYTHONUNBUFFERED=1 TORCH_CUDA_ARCH_LIST=${TORCH_CUDA_ARCH_LIST:-9.0}
mkdir -p "$OUT" "$WORK"
status=0

have_replay() { [ -x ./headroom ] && ./headroom replay --help >/dev/null 2>&1; }

# The tree this copy holds: on the device machine the copy's git metadata
# may stay at an older commit, so `headroom --version` alone does not say
# what ran.  Compare with the same line run locally (tests/gpu/tree-hash.sh).
stage_setup() {
	echo "tree $(sh tests/gpu/tree-hash.sh)"
	sh replay/gpu-machine.sh -d "$DEBS" -j "$JOBS" && . .sysroot/env.sh &&
		./headroom --version && ldd ./headroom | grep -E 'archive|cjson|sqlite|crypto|yajl|libz'
	[ -f build/libhrverify_cuda.so ] && ldd build/libhrverify_cuda.so | grep -E 'cudart|not found'
	return 0
}

stage_info() {
	nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
	nvcc --version | tail -2
	python3 -c 'import sys, torch; print("python", sys.version.split()[0], "torch", torch.__version__, "cuda", torch.version.cuda, "gpu", torch.cuda.get_device_name(0))'
	echo "cores $(nproc)  $(grep MemTotal /proc/meminfo)  $(uname -r)"
	grep -m1 'model name' /proc/cpuinfo
}

stage_probe() { python3 tests/gpu/machine_probe.py --out "$OUT/probe.json"; }

# The persisting-L2 limit new contexts read, alone and beside others, and
# whether an MPS daemon serves the GPU (tests/gpu/l2_probe.py).
stage_l2() {
	nvidia-smi -q | grep -i -A2 mps
	timeout "${CAP_L2:-60}" python3 tests/gpu/l2_probe.py | tee "$OUT/l2-probe.jsonl"
}

# The worker's keeper on the GPU (CUDA IPC), alone: before timing with it;
# then the sets it draws itself from recipes (pinned memory, then device).
stage_keeper() {
	local rc=0 t
	for t in keeper recipe; do
		HR_TEST_DEVICE=cuda timeout "${CAP_KEEPER:-120}" \
			python3 tests/py/test_worker_$t.py || rc=1
	done
	return $rc
}

# Every tests/py/test_worker_*.py under CUDA, each stopped after
# CAP_WORKER s (default 150), then tests/gpu/replay.sh (the CUDA fixtures):
# what `make gpu-check-replay` runs, but one failing file does not hide the
# others' results.
# WORKER_TESTS="escapes_job judge": those files only, and no replay.sh.
stage_worker_tests() {
	local t rc=0 files=tests/py/test_worker_*.py
	[ -n "${WORKER_TESTS:-}" ] && files=$(for t in $WORKER_TESTS; do echo tests/py/test_worker_$t.py; done)
	for t in $files; do
		echo "-- $t (cuda)"
		HR_TEST_DEVICE=cuda timeout "${CAP_WORKER:-150}" python3 "$t" || { echo "-- $t: exit $?"; rc=1; }
	done
	[ -n "${WORKER_TESTS:-}" ] && return $rc
	echo "-- tests/gpu/replay.sh"
	HEADROOM=$ROOT/headroom PYTHON=python3 timeout "${CAP_WORKER:-150}" sh tests/gpu/replay.sh || rc=1
	return $rc
}

# The jobs' Landlock jail under CUDA (on by default; docs/replay.md,
# Sandbox): tests/gpu/jail_probe.py (a jailed child's CUDA tensor, then a
# lent one over CUDA IPC; --strace's refused file calls where strace is
# installed; --layers: each layer of the candidate's confinement alone),
# then tests/gpu/replay.sh with HEADROOM_FS_JAIL=0, the control
# (its escape_libc fixture's write from C goes through without the jail;
# worker_tests runs it jailed), each stopped after CAP_WORKER s (default 150).
stage_jail() {
	local rc=0
	timeout "${CAP_WORKER:-150}" python3 tests/gpu/jail_probe.py || rc=1
	# Each layer of the candidate's confinement alone under CUDA IPC, then
	# all of them: which keeps the job jail off under CUDA, and that the
	# seccomp filter does not.
	timeout "${CAP_WORKER:-150}" python3 tests/gpu/jail_probe.py --layers || rc=1
	if command -v strace >/dev/null; then
		timeout "${CAP_WORKER:-150}" python3 tests/gpu/jail_probe.py --strace
	fi
	HEADROOM_FS_JAIL=0 HEADROOM=$ROOT/headroom PYTHON=python3 \
		timeout "${CAP_WORKER:-150}" sh tests/gpu/replay.sh || rc=1
	return $rc
}

# Where a job's CUDA start goes (cuInit, torch's init, the primary context,
# the first kernels' lazy loading), in children forked as jobs are; then
# with every kernel loaded eagerly.
stage_context() {
	timeout "${CAP_WORKER:-150}" python3 -W ignore tests/gpu/context_probe.py --jobs 8 &&
		CUDA_MODULE_LOADING=EAGER timeout "${CAP_WORKER:-150}" \
			python3 -W ignore tests/gpu/context_probe.py --jobs 2
}

# CUDA IPC between a holder process and a job process (the worker's input
# keeper), and what a 1.6 G-element input set costs to draw, save and load.
stage_ipc() { timeout "${CAP_IPC:-240}" python3 tests/gpu/ipc_probe.py --dir "$WORK"; }

# The planted GPU suite against hrworker/escapes.py and nvml.py, called
# directly: the detection table (tests/gpu/escapes_probe.py).
stage_escapes() {
	timeout "${CAP_ESCAPES:-300}" python3 tests/gpu/escapes_probe.py --json "$OUT/escapes.json"
}

# CAP_CHECK: seconds after which gpu-check is stopped (a hung kernel must
# not take the whole device call).
stage_gpu_check() {
	if make -n gpu-check >/dev/null 2>&1; then
		timeout "${CAP_CHECK:-400}" make SYSROOT=.sysroot HEADROOM_DEPS=skip gpu-check
	else
		echo "no gpu-check target in this checkout"
	fi
}

# The verify library alone: its GPU tests, then its GPU benchmark (the
# "verify on the GPU" rows of docs/benchmarks.md), each with a time cap.
stage_verify() {
	timeout "${CAP_CHECK:-120}" make SYSROOT=.sysroot HEADROOM_DEPS=skip gpu-check-verify &&
		make -s SYSROOT=.sysroot HEADROOM_DEPS=skip build/cuda/verify_bench_gpu &&
		timeout "${CAP_BENCH:-60}" ./build/cuda/verify_bench_gpu | tee "$OUT/verify-bench.txt"
}

# torch.rand against the rand library, side by side (replay/bench/
# rand_bench.py): one 1.6 G-element set alone, then six at once (as six
# build workers draw a problem ahead); the lines go to rand-bench.txt.
stage_rand() {
	for p in 1 6; do
		timeout "${CAP_RAND:-120}" python3 replay/bench/rand_bench.py --procs $p --rounds 1 || return 1
	done | tee "$OUT/rand-bench.txt"
}

# KB_ONLY="P...": those problems' candidates only (KernelBench takes about a
# minute an evaluation on the 1.6 G-element problems of tests/gpu/kb-large).
stage_kb_best() {
	rm -rf "$WORK/kb-run" && mkdir -p "$WORK/kb-run" || return 1
	if [ -n "${KB_ONLY:-}" ]; then
		for p in $KB_ONLY; do cp $CAND/level_1_problem_${p}_sample_0_kernel.py "$WORK/kb-run/"; done
	else
		cp $CAND/*.py "$WORK/kb-run/"
	fi
	python3 tests/gpu/kb_side_by_side.py "$WORK/kb-run" --kb "$KB" --mode best \
		--workers "$JOBS" --cache "$WORK/kb-cache" --out "$OUT/kb-best.json" \
		--eval-results "$WORK/kb-run/eval_results.json"
	cp "$WORK/kb-run/eval_results.json" "$OUT/kb-eval_results.json"
}

stage_kb_serial() {
	rm -rf "$WORK/kb-serial" && mkdir -p "$WORK/kb-serial"
	for p in ${KB_SERIAL:-12 88}; do cp $CAND/level_1_problem_${p}_sample_0_kernel.py "$WORK/kb-serial/"; done
	python3 tests/gpu/kb_side_by_side.py "$WORK/kb-serial" --kb "$KB" --mode serial \
		--cache "$WORK/kb-cache-serial" --out "$OUT/kb-serial.json"
}

# headroom's side.  One run directory holds the side-by-side candidates
# (sample 0 of every problem) and, for the benchmark, two variants of each
# problem but 14 (make_variants.py): 9 + 16 = 25 evaluations.  KB_RESULTS,
# when set, is KernelBench's eval_results.json for sample 0 (kb-best), so
# that `headroom ls` shows KernelBench's verdicts beside the replay's.
# ONLY="P..." keeps those problems; VARIANTS=1 keeps sample 0 only.
prepare_runs() {
	local run=$WORK/hr-run
	[ -f "$WORK/hr.db" ] && return 0
	local src=$CAND
	if [ -n "${ONLY:-}" ]; then   # a subset of the problems, e.g. ONLY="1 9 88"
		src=$WORK/only && rm -rf "$src" && mkdir -p "$src"
		for p in $ONLY; do cp $CAND/level_1_problem_${p}_sample_0_kernel.py "$src/"; done
	fi
	rm -rf "$run" && python3 tests/gpu/make_variants.py "$src" "$run" -n "${VARIANTS:-3}" --skip 14 || return 1
	[ -n "${KB_RESULTS:-}" ] && [ -f "$KB_RESULTS" ] && cp "$KB_RESULTS" "$run/eval_results.json"
	./headroom --db "$WORK/hr.db" problems add "$KB/KernelBench" &&
		./headroom --db "$WORK/hr.db" ingest "$run" --source h200-candidates
}

replay_pass() {   # NAME CAP: one `headroom replay` over every stored evaluation,
	# stopped (SIGTERM: the run is left resumable) after CAP seconds
	local TIMEFORMAT="replay $1: wall %R s, user %U s, sys %S s (headroom and all its workers)"
	time timeout "$2" ./headroom --db "$WORK/hr.db" replay --device cuda --mode faithful \
		--harness current --scratch "${SCRATCH_ROOT:-$WORK}/scratch-$1" --cache "$WORK/cache" \
		${REPLAY_ARGS:-}
}

dump_jobs() {
	python3 - "$WORK/hr.db" "$OUT/replay-jobs.json" <<'PY'
import json, sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.row_factory = sqlite3.Row
runs = [dict(r) for r in db.execute("SELECT id, state, mode, started_at, finished_at, gpu_name, driver, cuda, torch, python, tool_version FROM replay_run ORDER BY id")]
jobs = [dict(r) for r in db.execute("""
    SELECT j.run_id, e.problem_id, e.sample_id, e.compiled AS kb_compiled, e.correct AS kb_correct,
           e.runtime_ms AS kb_runtime_ms, j.verdict, j.compiled, j.correct, j.trials_passed,
           j.trials_total, j.runtime_ms, j.runtime_stats_json, j.baseline_kind, j.baseline_ms,
           j.speedup, j.phase, j.error_kind, substr(j.error_text, 1, 300) AS error_text,
           j.attempts, j.wall_ms, j.finished_at, j.checks_json
    FROM replay_job j JOIN evaluation e ON e.id = j.evaluation_id ORDER BY j.run_id, e.problem_id, e.sample_id""")]
json.dump({"runs": runs, "jobs": jobs}, open(sys.argv[2], "w"), indent=1)
for j in jobs:
    print("run %(run_id)s P%(problem_id)s S%(sample_id)s kb=%(kb_compiled)s/%(kb_correct)s/%(kb_runtime_ms)s "
          "hr=%(verdict)s %(compiled)s/%(correct)s rt=%(runtime_ms)s base=%(baseline_ms)s wall_ms=%(wall_ms)s" % j)
PY
}

stage_replay() {
	have_replay || { echo "headroom replay is not in this checkout"; return 3; }
	rm -rf "$WORK/hr.db" "$WORK/cache" "$WORK"/scratch-* "${SCRATCH_ROOT:-$WORK}"/scratch-*
	prepare_runs || return 1
	replay_pass cold "${CAP_COLD:-300}"
}

# Issue 19's spread: after `replay` (the stored runs and a cold faithful
# pass), robust twice and faithful once more over the same evaluations,
# then each mode's two latest runs against each other (stability.py).
stage_stability() {
	local i rc=0
	have_replay || return 3
	for i in 1 2; do
		rm -rf "$WORK"/scratch-* "${SCRATCH_ROOT:-$WORK}"/scratch-*
		REPLAY_ARGS="--mode robust" replay_pass "robust-$i" "${CAP_WARM:-300}" || rc=1
	done
	rm -rf "$WORK"/scratch-* "${SCRATCH_ROOT:-$WORK}"/scratch-*
	replay_pass faithful-2 "${CAP_WARM:-300}" || rc=1
	python3 tests/gpu/stability.py "$WORK/hr.db" | tee "$OUT/stability.md" || rc=1
	cp "$WORK/hr.db" "$OUT/stability.db"
	return $rc
}
# After `stability`: the audit's own cost (tests/gpu/audit_cost.py) in the
# latest robust and the latest faithful run, no pass of its own.
stage_audit_share() {
	local m rc=0
	for m in robust faithful; do
		python3 tests/gpu/audit_cost.py "$WORK/hr.db" $m | tee "$OUT/audit-cost-$m.md" || rc=1
	done
	return $rc
}

# After `stability`: robust times against Nsight Compute's
# gpu__time_duration.sum for the kernels of 50 us and more
# (tests/gpu/ncu_check.py), stopped after CAP_NCU s (default 200).
stage_ncu() {
	command -v ncu >/dev/null || { echo "no ncu on PATH"; return 3; }
	timeout "${CAP_NCU:-200}" python3 tests/gpu/ncu_check.py --work "$WORK/ncu" --calls "${NCU_CALLS:-20}" \
		"$WORK/hr.db" "$CAND" "$KB/KernelBench/level1" | tee "$OUT/ncu.md"
}

stage_warm() {
	have_replay || return 3
	# A capped cold pass leaves its scratch; on /dev/shm that is memory
	# the warm pass's draws need (the build cache is elsewhere: $WORK/cache).
	rm -rf "$WORK"/scratch-* "${SCRATCH_ROOT:-$WORK}"/scratch-*
	replay_pass warm "${CAP_WARM:-300}"
}

# Issue 35's archive benchmark (tests/bench/archive_bench.py): the
# ARCHIVE_SCALE part of the 900-evaluation archive (default 0.15, 135
# evaluations), each of ARCHIVE_MODES (default faithful) replayed cold and
# stopped after CAP_ARCHIVE s (default 480); $OUT/archive.jsonl.
stage_archive() {
	have_replay || return 3
	rm -rf "$WORK/archive-bench"
	python3 tests/bench/archive_bench.py --device cuda --scale "${ARCHIVE_SCALE:-0.15}" \
		--modes "${ARCHIVE_MODES:-faithful}" --cap "${CAP_ARCHIVE:-480}" \
		--headroom ./headroom --python python3 --work "$WORK/archive-bench" \
		--json "$OUT/archive.jsonl"
}

# Issue 35's ratio: KernelBench's own fastest local flow (kb_side_by_side.py
# --mode best) and the replay (ARCHIVE_KB_MODES, default faithful) on the
# same ARCHIVE_SUBSET (default 50) evaluations of the whole archive, each
# cold (archive_bench.py --subset --kb).  ARCHIVE_KB_MODES="" runs
# KernelBench's side alone, ARCHIVE_KB=0 the replay's alone, and
# ARCHIVE_KB_LEVELS (e.g. "1" or "2,3") the subset's evaluations of those
# levels only: calls on one warm machine where both sides do not fit one;
# $OUT/archive-kb.jsonl.
stage_archive_kb() {
	have_replay || return 3
	local kb= levels=
	[ "${ARCHIVE_KB:-1}" = 0 ] || kb="--kb $KB"
	[ -z "${ARCHIVE_KB_LEVELS:-}" ] || levels="--levels $ARCHIVE_KB_LEVELS"
	rm -rf "$WORK/archive-kb"
	python3 tests/bench/archive_bench.py --device cuda --scale 1 \
		--subset "${ARCHIVE_SUBSET:-50}" $levels $kb --modes "${ARCHIVE_KB_MODES-faithful}" \
		--cap "${CAP_ARCHIVE:-0}" --headroom ./headroom --python python3 \
		--work "$WORK/archive-kb" --json "$OUT/archive-kb.jsonl"
}

# Today's KernelBench sizes (tests/gpu/kb-large: level-1 problems 19-22,
# 4096 x 393216 float32, 6 GiB a tensor), one candidate each, faithful then
# robust on one store, each pass stopped after CAP_LARGE s (default 240);
# then every job's verdict and memory notes (checks.memory,
# checks.first_attempt_memory, checks.retried_alone): whether a job ran out
# of memory the tool held, and whose.  The store as $OUT/large.db.
stage_large() {
	have_replay || return 3
	local rc=0
	rm -rf "$WORK/hr.db" "$WORK/cache" "$WORK"/scratch-* "${SCRATCH_ROOT:-$WORK}"/scratch-*
	CAND=tests/gpu/kb-large VARIANTS=1 prepare_runs || return 1
	replay_pass large-faithful "${CAP_LARGE:-240}" || rc=1
	REPLAY_ARGS="--mode robust ${REPLAY_ARGS:-}" replay_pass large-robust "${CAP_LARGE:-240}" ||
		rc=1
	dump_jobs
	python3 - "$OUT/replay-jobs.json" <<'PY'
import json, sys
for j in json.load(open(sys.argv[1]))["jobs"]:
    c = json.loads(j["checks_json"] or "{}")
    first = c.get("first_attempt_memory") or {}
    mem = c.get("memory") or {}
    print("run %s P%s: %s attempts %s; first attempt: %s %s; this one: %s" % (
        j["run_id"], j["problem_id"], j["verdict"], j["attempts"],
        first.get("pids"), str(first.get("error", ""))[:300],
        mem.get("attribution", "no out-of-memory")))
PY
	cp "$WORK/hr.db" "$OUT/large.db"
	return $rc
}

stage_report() {
	./headroom --db "$WORK/hr.db" ls --format json >"$OUT/replay-ls.json"
	./headroom --db "$WORK/hr.db" ls
	dump_jobs
	cp "$WORK/hr.db" "$OUT/replay.db"
}

stage_hostile() {
	have_replay || { echo "headroom replay is not in this checkout"; return 3; }
	TIMEOUT_RUN=${TIMEOUT_RUN:-15} REPLAY_ARGS="--cache $WORK/cache" \
		timeout "${CAP_HOSTILE:-300}" sh tests/gpu/replay_gpu_test.sh
}

# The embedded sample on the GPU: every kernel of dataset/samples replayed
# (faithful), then the report; the store comes back as $OUT/sample.db.
stage_sample() {
	have_replay || return 3
	local db=$WORK/sample.db
	rm -rf "$db" "$db".replay
	./headroom --db "$db" -q problems add dataset/samples/problems &&
	./headroom --db "$db" -q ingest dataset/samples/archive &&
	./headroom --db "$db" -q ingest dataset/samples/archive/leaderboard/records.jsonl \
		--map dataset/maps/sample-leaderboard.json || return 1
	timeout "${CAP_SAMPLE:-400}" ./headroom --db "$db" replay --device cuda \
		--python python3 --timeout-run 60
	./headroom --db "$db" audit problems --device cuda --python python3 -q
	./headroom --db "$db" ls
	./headroom --db "$db" report models
	./headroom --db "$db" report findings
	cp "$db" "$OUT/sample.db"
}

# Which KernelBench level-1 problems accept zeros, the reference mean or an
# input (the paper's "4 of 60"): every level-1 reference run once on the
# GPU, inputs drawn with the device generator (audit --inputs device).
stage_kb_audit() {
	local db=$WORK/kb-audit.db
	rm -rf "$db" "$db".replay
	./headroom --db "$db" -q problems add "$KB/KernelBench" --name kernelbench || return 1
	timeout "${CAP_AUDIT:-300}" ./headroom --db "$db" --format csv audit problems \
		--device cuda --level 1 --inputs device --python python3 --timeout 60 \
		>"$OUT/kb-audit.csv"
	cat "$OUT/kb-audit.csv"
	cp "$db" "$OUT/kb-audit.db"
}

# The planted suite under CUDA through the whole tool (ingest, robust and
# faithful replays, each case's evidence job by job, the detection table).
stage_planted() {
	HR_TEST_DEVICE=cuda HEADROOM=$ROOT/headroom PYTHON=python3 \
		PLANTED_DB_OUT="$OUT/planted.db" PLANTED_FORM=${PLANTED_FORM:-leaderboard} \
		timeout "${CAP_PLANTED:-240}" python3 tests/py/test_replay_planted.py \
		>"$OUT/planted-replay.log" 2>&1
	local rc=$?
	grep -v '^ok' "$OUT/planted-replay.log" | tail -60
	return $rc
}

# Robust timing's bias against an honest candidate, the reference's own
# matmul (tests/bench/timing_bias.py): REPS jobs (default 2) at each of
# BIAS_SIZES (default 2048 512), with the handshakes' stamps (where the
# time goes: go, call, done), stopped after CAP_BIAS s (default 150).
# A leaderboard dump of KernelBench problems at today's sizes, each record
# carrying its reference (tests/gpu/kb_leaderboard.py): vacuous problems'
# kernels, distribution-only kernels, honest twins, the model-style
# candidates; robust then faithful, no problem set added or audited.
stage_kb_leaderboard() {
	have_replay || return 3
	rm -rf "$WORK"/kbl-scratch*
	# KBL_DB: an earlier call's store (carried in the tree) to go on with.
	local keep=
	if [ -n "${KBL_DB:-}" ]; then cp "$KBL_DB" "$WORK/kbl.db" && keep=--keep; fi
	python3 tests/gpu/kb_leaderboard.py "$KB/KernelBench" "$WORK/kbl.db" --headroom ./headroom \
		--python python3 --cap "${CAP_KBL:-280}" --scratch "${SCRATCH_ROOT:-$WORK}/kbl-scratch" \
		--modes "${KBL_MODES:-robust,faithful}" --cache "$WORK/kbl-cache" $keep \
		| tee "$OUT/kb-leaderboard.md"
	local rc=${PIPESTATUS[0]}
	cp "$WORK/kbl.db" "$OUT/kb-leaderboard.db"
	return "$rc"
}

# A replay killed with SIGKILL mid-run (the kernel's OOM killer, kill -9)
# over the kb-leaderboard dump's large problems: which of its processes and
# how much device memory remain, every 5 s for a minute after.
stage_orphans() {
	have_replay || return 3
	local db=$WORK/orphans.db pid i
	rm -rf "$db" "$WORK"/orphans-*
	python3 tests/gpu/kb_leaderboard.py "$KB/KernelBench" "$db" tests/gpu/kb-leaderboard \
		--modes "" >/dev/null    # the dump ingested, nothing replayed: its table says so
	[ -s "$db" ] || return 1
	./headroom --db "$db" replay --device cuda --mode robust --python python3 \
		--scratch "$WORK/orphans-scratch" --cache "$WORK/orphans-cache" >"$OUT/orphans-replay.log" 2>&1 &
	pid=$!
	sleep "${ORPHANS_AFTER:-90}"
	nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader
	kill -9 "$pid"
	for i in 0 5 10 15 20 30 45 60; do
		sleep 5
		echo "-- ${i}+5 s after the SIGKILL"
		nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader
		ps -eo pid,ppid,stat,etimes,cmd | grep -E '[w]orker.py|[h]eadroom --db' | cut -c1-160
	done
}

stage_bias() {
	HEADROOM_HANDSHAKE_STAMPS=1 REPS=${REPS:-2} HR_TEST_DEVICE=cuda \
		timeout "${CAP_BIAS:-150}" python3 tests/bench/timing_bias.py ${BIAS_SIZES:-2048 512} |
		tee "$OUT/bias.log"
}

# What the audit's own calls cost: a warm faithful and a warm robust
# replay of $CAND (after stage replay: the cache holds the builds), each
# run's checks.audit_seconds against its phase seconds (audit_cost.py).
# AUDIT_MODES: the modes measured (default both).
stage_audit_cost() {
	local m rc=0
	have_replay || return 3
	for m in ${AUDIT_MODES:-faithful robust}; do
		rm -rf "$WORK"/scratch-* "${SCRATCH_ROOT:-$WORK}"/scratch-*
		REPLAY_ARGS="--mode $m" replay_pass "warm-$m" "${CAP_WARM:-300}" &&
			python3 tests/gpu/audit_cost.py "$WORK/hr.db" |
			tee "$OUT/audit-cost-$m.md" || rc=1
	done
	cp "$WORK/hr.db" "$OUT/audit-cost.db"
	return $rc
}

# The judge/candidate split against the tree in $OLD_TREE (a checkout from
# before it, carried): tests/gpu/split_cost.py on the KernelBench candidates.
stage_split_cost() {
	[ -d "${OLD_TREE:-.oldtree}/replay" ] || { echo "no ${OLD_TREE:-.oldtree}/replay"; return 3; }
	timeout "${CAP_SPLIT:-200}" python3 tests/gpu/split_cost.py "${OLD_TREE:-.oldtree}" \
		"$KB/KernelBench/level1" "$CAND" --only "${SPLIT_ONLY:-6}" --builders 6 |
		tee "$OUT/split-cost.md"
}

# --- Profiles (issue 20) and DLRM-Bench (issue 21), one store ------------
# Stages profiles, dlrm and dlrm-report share $WORK/gpu.db; dlrm-report
# copies it to $OUT/headroom-gpu.db, the store every number below is
# re-run from (`headroom --db headroom-gpu.db report dlrm|profiles|claims`,
# `figures`).  Typical plan, one device call (docs/gpu-machine.md):
#     setup dlrm profiles dlrm-report
# QUICK=1: the smaller run (profiles under eager only).  DRY=1: the same
# commands on this CPU (tiny workloads, DLRM-Bench at its test sizes, no
# GPU: traces are refused at ingest, CUDA candidates fail to build), to
# catch a wrong command before a GPU call.
GPUDB=$WORK/gpu.db
DEV=cuda
[ -n "${DRY:-}" ] && DEV=cpu
PY=${PYTHON:-python3}

# The seven workloads of profile/profile_worker.py (sizes there and in
# docs/profiles.md), PROFILE_STACKS (default "eager compile"; QUICK=1:
# eager) of PROFILE_WORKLOADS (default all), PROFILE_JOBS at a time
# (default 7) sharing the GPU through the worker's lock
# (tests/gpu/profile-workloads.sh), stopped after CAP_PROFILES s (default
# 240; the traces written by then are kept); each trace is ingested on its
# own, so that one bad trace does not stop the others.
stage_profiles() {
	local dir=$WORK/profiles stacks=${PROFILE_STACKS:-eager compile} f n=0
	[ -n "${QUICK:-}" ] && stacks=${PROFILE_STACKS:-eager}
	rm -rf "$dir"
	if [ -n "${DRY:-}" ]; then
		export PROFILE_ARGS="--tiny --device cpu --warmup 1 --steps 1"
	fi
	PYTHON=$PY timeout "${CAP_PROFILES:-240}" sh tests/gpu/profile-workloads.sh \
		"$dir" "$stacks" ${PROFILE_WORKLOADS:+"$PROFILE_WORKLOADS"}
	cp "$dir/runs.jsonl" "$OUT/profile-runs.jsonl"
	for f in "$dir"/*.pt.trace.json.gz; do
		[ -f "$f" ] || continue
		./headroom --db "$GPUDB" ingest "$f" && n=$((n + 1))
	done
	echo "profiles: $n traces ingested"
	./headroom --db "$GPUDB" report profiles --format md | tee "$OUT/profiles.md"
	[ $n -gt 0 ]
}

# DLRM-Bench on the GPU: the twelve problems (DRY: their test sizes,
# tests/py/dlrmlib.py), `audit problems` with the device generator's
# inputs (CAP_DLRM_AUDIT, default 90 s), and a robust replay of the
# project's CUDA kernels (the sample DLRM-Bench run's files headed "headroom
# GPU test candidate": problems 1, 5, 8, 11)
# with KernelBench v0.1's harness, which moves the int64 ids to the device
# uncast (docs/dlrm-bench.md; CAP_DLRM_REPLAY, default 180 s).
stage_dlrm() {
	have_replay || { echo "headroom replay is not in this checkout"; return 3; }
	local run=$WORK/dlrm-run/headroom-own_dlrm-bench set=dataset/problems/dlrm-bench
	local rc=0 build=${DLRM_BUILD_TIMEOUT:-300}
	rm -rf "$WORK/dlrm-run" && mkdir -p "$run" || return 1
	cp $(grep -l '^# headroom GPU test candidate' \
		dataset/samples/dlrm-archive/runs/*/level_5_*.py) "$run/"
	if [ -n "${DRY:-}" ]; then
		set=$WORK/dlrm-bench-small
		rm -rf "$set" && $PY tests/py/dlrmlib.py "$set" >/dev/null || return 1
		build=${DLRM_BUILD_TIMEOUT:-20}
	fi
	./headroom --db "$GPUDB" -q problems add "$set" --name dlrm-bench &&
		./headroom --db "$GPUDB" -q ingest "$WORK/dlrm-run" --source headroom-own ||
		return 1
	timeout "${CAP_DLRM_AUDIT:-90}" ./headroom --db "$GPUDB" --format csv audit problems \
		--device "$DEV" --inputs device --set dlrm-bench --python "$PY" --timeout 60 \
		>"$OUT/dlrm-audit.csv" || rc=1
	cat "$OUT/dlrm-audit.csv"
	timeout "${CAP_DLRM_REPLAY:-180}" ./headroom --db "$GPUDB" replay --device "$DEV" \
		--mode robust --harness v0.1 --level 5 --source headroom-own \
		--python "$PY" --timeout-build "$build" || rc=1
	return $rc
}

# The outputs: `report dlrm` (per problem: weight from the DLRM profile,
# audit verdict, verified speedup; R per configuration), the claims with
# the project's kernels in the role "frontier model on DLRM-Bench" (a
# roles file of this run only), `ls`, and the store itself.
stage_dlrm_report() {
	sed 's|"frontier model on DLRM-Bench": [^,}]*|"frontier model on DLRM-Bench": "headroom-own_dlrm-bench"|' \
		paper/roles.json >"$WORK/roles.json"
	./headroom --db "$GPUDB" ls --level 5
	./headroom --db "$GPUDB" report dlrm --format md | tee "$OUT/dlrm.md"
	./headroom --db "$GPUDB" report claims --roles "$WORK/roles.json" --format md |
		tee "$OUT/claims.md"
	./headroom --db "$GPUDB" -q figures --data-only --out "$WORK/figures" &&
		cat "$WORK/figures/dlrm.dat"
	cp "$GPUDB" "$OUT/headroom-gpu.db"
}

for s in "$@"; do
	fn=stage_$(echo "$s" | tr - _)
	echo "== stage $s  $(date -u +%H:%M:%S)"
	t0=$(date +%s%N)
	"$fn"
	rc=$?
	t1=$(date +%s%N)
	ms=$(( (t1 - t0) / 1000000 ))
	printf '== stage %s: exit %d, %d.%03d s\n' "$s" $rc $((ms / 1000)) $((ms % 1000))
	[ $rc -eq 0 ] || status=1
done
exit $status
