#!/bin/sh
# replay.sh - GPU smoke test of `headroom replay --device cuda` (device
# machine only; `make gpu-check`).  Replays every CUDA fixture candidate in
# tests/fixtures/replay/cuda/candidates/, and the CPU fixture escape_libc,
# against problem 1 of the fixture problems and prints the verdict counts;
# fails when a job has no verdict or another than cuda/expected.verdicts
# says, or when escape_libc's write from C was not refused by the jobs'
# Landlock jail (with HEADROOM_FS_JAIL=0, the control: when it was).
# The GPU engineer adds fixtures (and expected verdicts) there.
set -eu
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
F=$ROOT/tests/fixtures/replay
cands=$(ls "$F/cuda/candidates" 2>/dev/null | grep '\.py$' || true)
if [ -z "$cands" ]; then
	echo "replay.sh: no CUDA fixtures in $F/cuda/candidates; nothing to replay"
	exit 0
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
specs=
for c in $cands; do specs="$specs ../cuda/candidates/$c"; done
# And the CPU fixture that writes outside its scratch from C (libc through
# ctypes): under CUDA too the job's Landlock jail refuses it.
# shellcheck disable=SC2086
sh "$F/mkdb.sh" "$work/t.db" $specs escape_libc.py
HR_ESCAPE_TARGET=$work/escaped "$HEADROOM" --db "$work/t.db" replay --device cuda \
	--python "${PYTHON:-python3}" --cache "$ROOT/build/gpu-replay-cache"
left=$(sqlite3 "$work/t.db" "SELECT count(*) FROM replay_job WHERE state != 'done'")
[ "$left" = 0 ] || { echo "replay.sh: $left jobs without a verdict" >&2; exit 1; }
sqlite3 -separator ' ' "$work/t.db" "SELECT e.model, j.verdict FROM replay_job j
	JOIN evaluation e ON e.id = j.evaluation_id ORDER BY e.model" |
	sed 's|^[^ ]*/||' >"$work/got"    # the model is the spec: cuda/candidates/NAME
if ! diff -u "$F/cuda/expected.verdicts" "$work/got"; then
	echo "replay.sh: verdicts differ from $F/cuda/expected.verdicts" >&2
	exit 1
fi
jail=$(sqlite3 "$work/t.db" "SELECT json_extract(env_json, '\$.fs_jail') FROM replay_run")
if [ "${HEADROOM_FS_JAIL:-1}" = 0 ]; then
	# The control: the audit hook alone does not see a write from C.
	[ -e "$work/escaped-libc" ] || {
		echo "replay.sh: HEADROOM_FS_JAIL=0 and escape_libc's write did not go through" >&2
		exit 1
	}
elif [ -e "$work/escaped-libc" ]; then
	echo "replay.sh: escape_libc wrote outside its scratch (fs_jail $jail)" >&2
	exit 1
elif ! sqlite3 "$work/t.db" "SELECT worker_stderr_tail FROM replay_job j
	JOIN evaluation e ON e.id = j.evaluation_id WHERE e.model = 'escape_libc'" |
	grep -q 'open failed: Permission denied'; then
	echo "replay.sh: escape_libc's refused write is not in its stderr (fs_jail $jail)" >&2
	exit 1
fi
echo "replay.sh: $(wc -l <"$work/got") fixtures on CUDA, verdicts as expected; fs_jail $jail"
