#!/bin/sh
# replay-cpu.sh HEADROOM DB PYTHON MODEL [OPTION...] - make run's replay on
# a machine without a GPU: the evaluations of MODEL only (the sample's
# headroom-cpu-sample, whose kernels are C++ extensions a CPU builds), in
# faithful and then robust mode, with --device cpu; the other models'
# kernels need a GPU and are not attempted.  OPTIONs go to both replays.
# Exits with the first replay's failure, else 0.
set -u
hr=$1 db=$2 py=$3 model=$4
shift 4
echo "note: no GPU here: replaying model $model only (C++ kernels) with" \
	"--device cpu, faithful then robust; the GPU kernels are not replayed"
rc=0
for mode in faithful robust; do
	"$hr" --db "$db" replay --device cpu --mode "$mode" --model "$model" \
		--python "$py" "$@" || { r=$?; [ "$rc" -ne 0 ] || rc=$r; }
done
exit "$rc"
