# export-lib.sh - a store with something of every kind for the export
# cases; a case's cmd sources it (this file is not a case).

# seed DB: a problem set, KernelBench runs with baselines (computed
# speedups), and a leaderboard dump (reported speedups, 0-based ids, us).
seed() {
	cp -r "$ROOT/tests/fixtures/ingest/problems" kb-problems &&
	cp -r "$ROOT/tests/fixtures/ingest/kb-array" \
		"$ROOT/tests/fixtures/ingest/kb-flat" . &&
	$HEADROOM --db "$1" problems add kb-problems >/dev/null &&
	$HEADROOM --db "$1" ingest kb-array kb-flat >/dev/null &&
	$HEADROOM --db "$1" ingest "$ROOT/tests/fixtures/leaderboard/acme.jsonl" \
		--map "$ROOT/tests/fixtures/leaderboard/acme.map.json" >/dev/null
}

# fields DB: every stored field of evaluations, speedups, baselines,
# kernels and problems, without row ids and ingest times, references
# spelled by natural keys, reals with all their digits.
fields() {
	python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
def dump(sql):
    for row in sorted(repr(r) for r in db.execute(sql)):
        print(row)
dump("""SELECT s.name, s.kind, s.sha256, s.map_name, s.notes_json, e.run,
        e.model, e.level, e.problem_id, e.problem_id_base, e.problem_name,
        e.sample_id, k.sha256, e.hardware, e.precision, e.atol, e.rtol,
        e.harness, e.compiled, e.correct, e.runtime_ms, e.runtime_std_ms,
        e.runtime_min_ms, e.runtime_max_ms, e.num_trials,
        e.correct_trials_passed, e.correct_trials_total, e.error_kind,
        e.error_text, e.unit_assumed, e.record_ref, e.metadata_json
        FROM evaluation e JOIN source s ON s.id = e.source_id
        LEFT JOIN kernel k ON k.id = e.kernel_id""")
dump("""SELECT s.sha256, e.run, e.model, e.level, e.problem_id, e.sample_id,
        sp.baseline_kind, sp.baseline_ms, sp.value, sp.origin, sp.baseline_ref
        FROM speedup sp JOIN evaluation e ON e.id = sp.evaluation_id
        JOIN source s ON s.id = e.source_id""")
dump("""SELECT s.sha256, b.hardware_dir, b.baseline_kind, b.level,
        b.problem_file, b.mean_ms, b.std_ms, b.min_ms, b.max_ms,
        b.num_trials, b.hardware, b.device
        FROM baseline b JOIN source s ON s.id = b.source_id""")
dump("SELECT sha256, code FROM kernel")
dump("""SELECT s.sha256, ps.name, p.level, p.problem_id, p.name, p.file_name,
        p.sha256, p.code FROM problem p JOIN problem_set ps ON ps.id = p.set_id
        JOIN source s ON s.id = ps.source_id""")
PY
}
