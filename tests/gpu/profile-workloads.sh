#!/bin/sh
# profile-workloads.sh OUTDIR [eager|compile] - on a CUDA machine, run every
# workload of dataset/profile_worker.py under torch.profiler and leave its
# traces in OUTDIR, one JSON line per run in OUTDIR/runs.jsonl; then
# `headroom ingest OUTDIR/*.pt.trace.json.gz` on any machine.  Each run has
# a 240 s limit; a failing run is recorded and the next one starts.
set -u
out=$1
stacks=${2:-eager compile}
PY=${PYTHON:-python3}
mkdir -p "$out"
for stack in $stacks; do
	for w in gpt2-small gpt2-medium gpt2-large llama-1b gpt2-small-train dlrm resnet50; do
		timeout 240 "$PY" "$(dirname "$0")/../../dataset/profile_worker.py" \
			--workload "$w" --stack "$stack" --out "$out" \
			2>>"$out/stderr.log" | tail -1 >>"$out/runs.jsonl" ||
			echo "{\"error\": \"$w $stack: exit $?\"}" >>"$out/runs.jsonl"
	done
done
cat "$out/runs.jsonl"
