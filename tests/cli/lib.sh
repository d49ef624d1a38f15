# lib.sh - helpers for the golden cases (ingest and problems mostly); a
# case's cmd sources it with  . "$ROOT/tests/cli/lib.sh"  (this file is
# not a case: run.sh only runs folders).

# needs_torch: a case that runs the worker skips itself (exit 77, the
# reason on stderr's last line) when $PYTHON has no torch and numpy.
needs_torch() {
	"$PYTHON" -c 'import torch, numpy' >/dev/null 2>&1 && return 0
	echo "needs PyTorch: '$PYTHON -c \"import torch, numpy\"' fails" >&2
	exit 77
}

FIX=$ROOT/tests/fixtures/ingest

# A database that already holds one source, so that "unchanged" is a
# claim about real content.
seed_db() {
	cp -r "$FIX/kb-object" seed &&
		$HEADROOM --db h.db ingest seed >/dev/null
}

# refuses ARGS...: run `headroom --db h.db ingest ARGS` against a seeded
# database; print whether h.db stayed byte-for-byte the same; return the
# exit status of the ingest.
refuses() {
	[ -f h.db ] || seed_db || return 99
	before=$(cksum <h.db)
	$HEADROOM --db h.db ingest "$@"
	rc=$?
	after=$(cksum <h.db)
	if [ "$before" = "$after" ]; then
		echo "database unchanged"
	else
		echo "database CHANGED"
	fi
	return $rc
}

# tar_with ARCHIVE KIND NAME: a gzip tar holding one good run directory
# plus one entry NAME of KIND (file, symlink, hardlink, chr, fifo), made
# with Python's tarfile so no special privilege is needed.
tar_with() {
	python3 - "$FIX/kb-object" "$@" <<'PY'
import io, os, sys, tarfile
src, out, kind, name = sys.argv[1:5]
with tarfile.open(out, "w:gz", format=tarfile.GNU_FORMAT,
                  encoding="utf-8", errors="surrogateescape") as t:
    t.add(src, arcname="run")
    ti = tarfile.TarInfo(name)
    data = b"print('x')\n"
    if kind == "file":
        ti.size = len(data)
        t.addfile(ti, io.BytesIO(data))
        sys.exit(0)
    ti.type = {"symlink": tarfile.SYMTYPE, "hardlink": tarfile.LNKTYPE,
               "chr": tarfile.CHRTYPE, "fifo": tarfile.FIFOTYPE}[kind]
    if kind in ("symlink", "hardlink"):
        ti.linkname = "/etc/passwd"
    t.addfile(ti)
PY
}

# under ROOT (needs $PYTHON): the live processes below pid ROOT (from /proc), one a line
under() {
	"$PYTHON" - "$1" <<'PY'
import os, sys
kids, state = {}, {}
for p in filter(str.isdigit, os.listdir("/proc")):
    try:
        f = open("/proc/%s/stat" % p).read().rsplit(")", 1)[1].split()
    except OSError:
        continue
    state[int(p)] = f[0]
    kids.setdefault(int(f[1]), []).append(int(p))
todo, seen = [int(sys.argv[1])], []
while todo:
    for c in kids.get(todo.pop(), []):
        if state[c] != "Z":
            seen.append(c)
            todo.append(c)
print("\n".join(map(str, seen)))
PY
}
# alive: those of $pids still alive (not zombies), one a line
alive() { for p in $pids; do [ -r "/proc/$p/stat" ] && ! grep -q ') Z ' "/proc/$p/stat" && echo "$p"; done; }
