#!/bin/sh
# slurm-replay.sh - the two Slurm jobs of a sharded replay; `headroom replay
# --slurm N` prints the sbatch lines that submit them (docs/replay.md, "A
# cluster through Slurm").
#
#   slurm-replay.sh shard HEADROOM STORE DIR N [OPTION...] -- [SELECTION...]
#	Array task I ($SLURM_ARRAY_TASK_ID) replays shard I/N of STORE into
#	DIR/shard-I.db.  Its first attempt copies STORE there and starts
#	`replay --shard I/N OPTION... SELECTION...`; a later attempt (the
#	task requeued: its node lost, scontrol requeue, preemption) finds
#	that copy and finishes its run with `replay --resume OPTION...` (a
#	resumed run keeps its selection), or, when the copy holds no run
#	(the attempt before died first), starts it again from a new copy.
#	DIR/shard-I.db.done marks a shard finished: a later attempt exits 0.
#   slurm-replay.sh merge HEADROOM STORE DIR N
#	The job after the array: headroom merge STORE DIR/shard-0.db ...
#	(runs already in STORE are skipped: merging twice adds nothing).
#
# Exit status: the replay's or the merge's; 2 for a usage error, an
# argument holding a newline among them (q below quotes line by line).
# Every line it prints itself starts "slurm-replay:".
set -u
say() { echo "slurm-replay: $*"; }
usage() {
	echo "usage: slurm-replay.sh shard|merge HEADROOM STORE DIR N" \
		"[OPTION...] [-- SELECTION...]" >&2
	exit 2
}
[ $# -ge 5 ] || usage
nl='
'
for a do
	case $a in *"$nl"*)
		echo "slurm-replay.sh: a newline in an argument; refused" >&2
		exit 2 ;;
	esac
done
mode=$1 hr=$2 store=$3 dir=$4 n=$5
shift 5
case $n in '' | *[!0-9]*) usage ;; esac

if [ "$mode" = merge ]; then
	[ $# = 0 ] || usage
	i=0
	while [ $i -lt "$n" ]; do
		set -- "$@" "$dir/shard-$i.db"
		i=$((i + 1))
	done
	say "merging $n shard stores into $store"
	exec "$hr" merge "$store" "$@"
fi
[ "$mode" = shard ] || usage

# The options before "--" (every attempt's) and after it (the first's),
# each quoted for eval.
q() { printf "'%s'" "$(printf %s "$1" | sed "s/'/'\\\\''/g")"; }
run= sel= after=0
for a do
	if [ $after = 0 ] && [ "$a" = -- ]; then
		after=1
	elif [ $after = 0 ]; then
		run="$run $(q "$a")"
	else
		sel="$sel $(q "$a")"
	fi
done

i=${SLURM_ARRAY_TASK_ID:-}
case $i in
'' | *[!0-9]*) echo "slurm-replay.sh: not an array task (sbatch --array)" >&2
	exit 2 ;;
esac
db=$dir/shard-$i.db
say "shard $i/$n, attempt $((${SLURM_RESTART_COUNT:-0} + 1)) on $(hostname)"
if [ -e "$db.done" ]; then
	say "shard $i/$n was finished by an earlier attempt"
	exit 0
fi
if [ -e "$db" ]; then
	say "resuming the run in $db"
	eval "\"\$hr\" --db \"\$db\" replay --resume $run"
	rc=$?
	if [ $rc = 0 ]; then
		touch "$db.done"
		exit 0
	fi
	# 3: no unfinished run in the copy; anything else is the replay's.
	[ $rc = 3 ] || exit $rc
	say "no run to resume in $db: starting the shard again"
fi
mkdir -p "$dir" || exit 4
# A copy under another name, renamed when whole: an attempt killed while
# copying leaves no shard store.  The -wal of a store in WAL mode holds
# commits not yet in the file.
rm -f "$db" "$db-wal" "$db-shm" "$db.tmp" "$db.tmp-wal"
cp "$store" "$db.tmp" || exit 4
if [ -e "$store-wal" ]; then
	cp "$store-wal" "$db.tmp-wal" || exit 4
	mv "$db.tmp-wal" "$db-wal" || exit 4
fi
mv "$db.tmp" "$db" || exit 4
say "replaying shard $i/$n into $db"
eval "\"\$hr\" --db \"\$db\" replay --shard \"\$i/\$n\" $run $sel"
rc=$?
[ $rc = 0 ] && touch "$db.done"
exit $rc
