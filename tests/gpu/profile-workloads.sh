#!/bin/sh
# profile-workloads.sh OUTDIR [STACKS [WORKLOADS]] - on a CUDA machine, run
# workloads of profile/profile_worker.py under torch.profiler and leave
# their traces in OUTDIR (<workload>.<stack>.pt.trace.json.gz), one JSON
# line per run in OUTDIR/runs.jsonl ({"run", "exit", "wall_s", "result":
# the worker's line or null}), each run's stderr in OUTDIR/logs/; then
# `headroom ingest OUTDIR/*.pt.trace.json.gz` on any machine.
#
# STACKS: "eager compile" (default), WORKLOADS: all seven (default; the
# smaller first, so that a run stopped early has the most of them).  Runs
# go PROFILE_JOBS at a time (default 7), every eager one before the
# compiled ones, sharing the GPU through the worker's --gpu-lock:
# preparation (model transfer, warm-up, compilation) overlaps, every
# profiled window has the GPU to itself.  Each run is stopped after PROFILE_TIMEOUT s
# (default 240); a failing run is recorded and the others go on.
# PROFILE_ARGS: more worker options ("--tiny --device cpu" checks the path
# on a CPU: the traces then hold no GPU activity, and ingest refuses them).
set -u
if [ "${1:-}" = "--one" ]; then   # --one OUTDIR STACK WORKLOAD: one run
	out=$2 stack=$3 w=$4
	t0=$(date +%s%N)
	res=$(timeout "${PROFILE_TIMEOUT:-240}" "${PYTHON:-python3}" \
		"$(dirname "$0")/../../profile/profile_worker.py" \
		--workload "$w" --stack "$stack" --out "$out" \
		--gpu-lock "$out/gpu.lock" ${PROFILE_ARGS:-} \
		2>"$out/logs/$w.$stack.log" | tail -1)
	rc=$?
	# The pipeline's status is tail's: the worker's exit is in its line.
	case $res in
	'{"trace"'*) rc=0 ;;
	'{'*) rc=1 ;;
	*) res=null rc=1 ;;
	esac
	ms=$(( ($(date +%s%N) - t0) / 1000000 ))
	printf '{"run": "%s %s", "exit": %d, "wall_s": %d.%03d, "result": %s}\n' \
		"$w" "$stack" "$rc" $((ms / 1000)) $((ms % 1000)) "$res" >>"$out/runs.jsonl"
	exit 0
fi
out=$1
stacks=${2:-eager compile}
workloads=${3:-gpt2-small dlrm resnet50 gpt2-small-train gpt2-medium llama-1b gpt2-large}
mkdir -p "$out/logs"
: >"$out/runs.jsonl"
for stack in eager compile; do
	case " $stacks " in *" $stack "*) ;; *) continue ;; esac
	for w in $workloads; do echo "$out $stack $w"; done
done | xargs -P "${PROFILE_JOBS:-7}" -L 1 sh "$0" --one
cat "$out/runs.jsonl"
