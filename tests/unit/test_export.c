/* test_export.c - the canonical archive: deterministic bytes, and a round
 * trip through ingest_export that keeps every stored field. */
#include <archive.h>
#include <archive_entry.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../dataset/export.h"
#include "../../dataset/ingest.h"

struct fx {
	char dir[64];
	char db[96], db2[96], out[96];
	struct store *s;
	struct hr_err e;
};

static void rm_db(const char *p)
{
	char q[128];

	unlink(p);
	snprintf(q, sizeof(q), "%s-wal", p);
	unlink(q);
	snprintf(q, sizeof(q), "%s-shm", p);
	unlink(q);
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "/tmp/hr-test-export-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	snprintf(f->db, sizeof(f->db), "%s/a.db", f->dir);
	snprintf(f->db2, sizeof(f->db2), "%s/b.db", f->dir);
	snprintf(f->out, sizeof(f->out), "%s/out.tar", f->dir);
	hr_err_clear(&f->e);
	assert_int_equal(store_open(&f->s, f->db, STORE_WRITE, &f->e), 0);
	setenv("SOURCE_DATE_EPOCH", "1767225600", 1);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;
	char cmd[128];

	store_close(f->s);
	rm_db(f->db);
	rm_db(f->db2);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

/* A store with one of everything, NULLs and awkward values included. */
static void populate(struct fx *f)
{
	struct store_source lb = { .name = "dump", .path = "/x/dump.jsonl",
		.kind = "leaderboard", .sha256 = "aa", .map_name = "acme",
		.notes_json = "{\"unit\":\"us\"}" };
	struct store_source kb = { .name = "runs", .path = "runs.tar.gz",
		.kind = "kernelbench-run", .sha256 = "bb" };
	struct store_problem p = { .level = 1, .problem_id = 19,
		.name = "19_ReLU", .file_name = "level1/19_ReLU.py",
		.code = "class Model: pass\n" };
	struct store_eval ev = { .run = "dump.jsonl", .model = "gpt",
		.level = 1, .problem_id = 19, .problem_id_base = 0,
		.problem_name = "19_ReLU", .sample_id = 2,
		.hardware = "NVIDIA L40S", .precision = "fp32", .atol = 1e-2,
		.rtol = 1e-2, .harness = "kernelbench-v0", .compiled = 1,
		.correct = 0, .runtime_ms = 0.1 + 0.2, .runtime_std_ms = 1e-300,
		.runtime_min_ms = 2.0 / 3.0, .runtime_max_ms = NAN,
		.num_trials = 100, .correct_trials_passed = 4,
		.correct_trials_total = 5, .error_kind = "correctness_issue",
		.error_text = "Output mismatch \"quoted\"\n\ttab \xc3\xa9",
		.unit_assumed = "mapping:us", .record_ref = "dump.jsonl:3",
		.metadata_json = "{\"a\": [1, 2]}" };
	struct store_eval bare = { .run = "r1", .model = "m", .level = 2,
		.problem_id = 5, .problem_id_base = 1, .sample_id = 0,
		.atol = NAN, .rtol = NAN, .compiled = -1, .correct = -1,
		.runtime_ms = NAN, .runtime_std_ms = NAN,
		.runtime_min_ms = NAN, .runtime_max_ms = NAN,
		.num_trials = -1, .correct_trials_passed = -1,
		.correct_trials_total = -1, .record_ref = "eval_results.json" };
	struct store_speedup sp = { .baseline_kind = "eager",
		.baseline_ms = NAN, .value = 1.235, .origin = "reported" };
	struct store_baseline b = { .hardware_dir = "H100_Modal",
		.baseline_kind = "eager", .level = 1,
		.problem_file = "19_ReLU.py", .mean_ms = 2.66, .std_ms = 0.0199,
		.min_ms = 2.65, .max_ms = NAN, .num_trials = 100,
		.hardware = "NVIDIA H100 80GB HBM3", .device = "cuda:0" };
	int64_t lb_id, kb_id, id;
	int existed;

	assert_int_equal(store_begin(f->s, &f->e), 0);
	assert_int_equal(store_add_source(f->s, &lb, &lb_id, &existed,
					  &f->e), 0);
	assert_int_equal(store_add_source(f->s, &kb, &kb_id, &existed,
					  &f->e), 0);
	assert_int_equal(store_add_problem_set(f->s, kb_id, "KernelBench",
					       &p.set_id, &f->e), 0);
	assert_int_equal(store_add_problem(f->s, &p, &id, &f->e), 0);
	assert_int_equal(store_add_kernel(f->s, "__global__ void k() {}\n",
					  &ev.kernel_id, &f->e), 0);
	ev.source_id = lb_id;
	assert_int_equal(store_add_evaluation(f->s, &ev, &sp.evaluation_id,
					      &f->e), 0);
	assert_int_equal(store_add_speedup(f->s, &sp, &f->e), 0);
	sp.baseline_kind = "compile_inductor_default";
	sp.origin = "computed";
	sp.baseline_ms = 2.66;
	sp.baseline_ref = "H100_Modal/baseline_time_torch.json";
	assert_int_equal(store_add_speedup(f->s, &sp, &f->e), 0);
	bare.source_id = kb_id;
	assert_int_equal(store_add_evaluation(f->s, &bare, &id, &f->e), 0);
	b.source_id = kb_id;
	assert_int_equal(store_add_baseline(f->s, &b, &f->e), 0);
	/* A kernel no evaluation refers to still belongs to the store. */
	assert_int_equal(store_add_kernel(f->s, "orphan\n", &id, &f->e), 0);
	assert_int_equal(store_commit(f->s, &f->e), 0);
}

/* Every stored field except row ids and ingest times, one line a row,
 * references spelled by natural keys, reals with all their digits. */
static const char dump_sql[] =
	"SELECT 'S|' || name || '|' || path || '|' || kind || '|' || sha256"
	" || '|' || quote(map_name) || '|' || quote(notes_json) FROM source"
	" UNION ALL SELECT 'E|' || s.sha256 || '|' || e.run || '|' || e.model"
	" || '|' || e.level || '|' || e.problem_id || '|' || e.problem_id_base"
	" || '|' || quote(e.problem_name) || '|' || e.sample_id || '|' ||"
	" quote(k.sha256) || '|' || quote(e.hardware) || '|' ||"
	" quote(e.precision) || '|' || printf('%!.17g', e.atol) || '|' ||"
	" printf('%!.17g', e.rtol) || '|' || quote(e.harness) || '|' ||"
	" quote(e.compiled) || '|' || quote(e.correct) || '|' ||"
	" printf('%!.17g', e.runtime_ms) || '|' ||"
	" printf('%!.17g', e.runtime_std_ms) || '|' ||"
	" printf('%!.17g', e.runtime_min_ms) || '|' ||"
	" printf('%!.17g', e.runtime_max_ms) || '|' || quote(e.num_trials)"
	" || '|' || quote(e.correct_trials_passed) || '|' ||"
	" quote(e.correct_trials_total) || '|' || quote(e.error_kind) || '|'"
	" || quote(e.error_text) || '|' || quote(e.unit_assumed) || '|' ||"
	" e.record_ref || '|' || quote(e.metadata_json)"
	" FROM evaluation e JOIN source s ON s.id = e.source_id"
	" LEFT JOIN kernel k ON k.id = e.kernel_id"
	" UNION ALL SELECT 'K|' || sha256 || '|' || code FROM kernel"
	" UNION ALL SELECT 'P|' || ps.name || '|' || s.sha256 || '|' ||"
	" p.level || '|' || p.problem_id || '|' || p.name || '|' ||"
	" p.file_name || '|' || p.sha256 || '|' || p.code FROM problem p"
	" JOIN problem_set ps ON ps.id = p.set_id"
	" JOIN source s ON s.id = ps.source_id"
	" UNION ALL SELECT 'X|' || e.record_ref || '|' || sp.baseline_kind ||"
	" '|' || printf('%!.17g', sp.baseline_ms) || '|' ||"
	" printf('%!.17g', sp.value) || '|' || sp.origin || '|' ||"
	" quote(sp.baseline_ref) FROM speedup sp"
	" JOIN evaluation e ON e.id = sp.evaluation_id"
	" UNION ALL SELECT 'B|' || s.sha256 || '|' || b.hardware_dir || '|' ||"
	" b.baseline_kind || '|' || b.level || '|' || b.problem_file || '|' ||"
	" printf('%!.17g', b.mean_ms) || '|' || printf('%!.17g', b.std_ms) ||"
	" '|' || printf('%!.17g', b.min_ms) || '|' ||"
	" printf('%!.17g', b.max_ms) || '|' || quote(b.num_trials) || '|' ||"
	" quote(b.hardware) || '|' || quote(b.device) FROM baseline b"
	" JOIN source s ON s.id = b.source_id"
	" ORDER BY 1";

/* The dump as one malloc'd string. */
static char *dump(struct store *s)
{
	sqlite3_stmt *st;
	size_t n = 0;
	char *out = calloc(1, 1);

	assert_int_equal(sqlite3_prepare_v2(store_db(s), dump_sql, -1, &st,
					    NULL), SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *row = (const char *)sqlite3_column_text(st, 0);
		size_t k = strlen(row);

		out = realloc(out, n + k + 2);
		memcpy(out + n, row, k);
		n += k;
		out[n++] = '\n';
		out[n] = '\0';
	}
	sqlite3_finalize(st);
	return out;
}

/* Read an archive into a file set the way archive.h describes one:
 * regular files only, sorted by path, each with a NUL after its bytes. */
static void load(const char *path, struct afileset *fs)
{
	struct archive *a = archive_read_new();
	struct archive_entry *ent;
	size_t cap = 0;

	memset(fs, 0, sizeof(*fs));
	fs->input = strdup(path);
	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	assert_int_equal(archive_read_open_filename(a, path, 10240),
			 ARCHIVE_OK);
	while (archive_read_next_header(a, &ent) == ARCHIVE_OK) {
		size_t len = (size_t)archive_entry_size(ent);
		struct afile *af;

		if (fs->n == cap) {
			cap = cap ? 2 * cap : 16;
			fs->files = realloc(fs->files, cap * sizeof(*af));
		}
		af = &fs->files[fs->n++];
		af->path = strdup(archive_entry_pathname(ent));
		af->data = malloc(len + 1);
		af->len = len;
		assert_int_equal(archive_read_data(a, af->data, len),
				 (la_ssize_t)len);
		af->data[len] = '\0';
	}
	archive_read_free(a);
}

static void unload(struct afileset *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		free(fs->files[i].path);
		free(fs->files[i].data);
	}
	free(fs->files);
	free(fs->input);
}

/* Export f->s to path in fmt; returns the code. */
static int export_to(struct fx *f, const char *path, enum export_format fmt,
		     int force)
{
	struct export_counts n;

	hr_err_clear(&f->e);
	return export_write(f->s, path, fmt, force, &n, &f->e);
}

/* Ingest the file set fs into store s (new or not) in one transaction.
 * The export's records go to their own sources, so no source is made for
 * the export itself here. */
static int import_set(struct fx *f, struct store *s, struct afileset *fs)
{
	struct ingest_ctx ctx = { .store = s };
	int rc;

	hr_err_clear(&f->e);
	assert_int_equal(store_begin(s, &f->e), 0);
	rc = ingest_export(fs, &ctx, &f->e);
	if (rc)
		store_rollback(s);
	else
		assert_int_equal(store_commit(s, &f->e), 0);
	return rc;
}

static int import(struct fx *f, struct store *s, const char *path)
{
	struct afileset fs;
	int rc;

	load(path, &fs);
	rc = import_set(f, s, &fs);
	unload(&fs);
	return rc;
}

static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	char *b;

	assert_non_null(fp);
	fseek(fp, 0, SEEK_END);
	*len = (size_t)ftell(fp);
	rewind(fp);
	b = malloc(*len + 1);
	assert_int_equal(fread(b, 1, *len, fp), *len);
	fclose(fp);
	return b;
}

static void round_trip_keeps_every_field(void **state)
{
	struct fx *f = *state;
	struct store *s2;
	char *before, *after;

	populate(f);
	assert_int_equal(export_to(f, f->out, EXPORT_TAR, 0), HR_OK);
	assert_int_equal(store_open(&s2, f->db2, STORE_WRITE, &f->e), 0);
	assert_int_equal(import(f, s2, f->out), HR_OK);
	before = dump(f->s);
	after = dump(s2);
	assert_non_null(strstr(before, "E|aa|dump.jsonl|gpt|1|19|0|"));
	assert_string_equal(after, before);
	free(before);
	free(after);
	store_close(s2);
}

static void reals_round_trip_bit_for_bit(void **state)
{
	struct fx *f = *state;
	struct store *s2;
	sqlite3_stmt *st;
	double v = -1;

	populate(f);
	assert_int_equal(export_to(f, f->out, EXPORT_TAR, 0), HR_OK);
	assert_int_equal(store_open(&s2, f->db2, STORE_WRITE, &f->e), 0);
	assert_int_equal(import(f, s2, f->out), HR_OK);
	assert_int_equal(sqlite3_prepare_v2(store_db(s2), "SELECT runtime_ms "
					    "FROM evaluation WHERE model = "
					    "'gpt'", -1, &st, NULL),
			 SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	/* 0.1 + 0.2 is not 0.3; a 15-digit printer would make it so. */
	assert_true(v == 0.1 + 0.2);
	store_close(s2);
}

static void same_store_gives_same_bytes(struct fx *f, enum export_format fmt,
					const char *ext)
{
	char a[128], b[128];
	char *x, *y;
	size_t nx, ny;

	populate(f);
	snprintf(a, sizeof(a), "%s/one%s", f->dir, ext);
	snprintf(b, sizeof(b), "%s/two%s", f->dir, ext);
	assert_int_equal(export_to(f, a, fmt, 0), HR_OK);
	/* A second later: nothing in the archive may depend on the clock. */
	sleep(1);
	assert_int_equal(export_to(f, b, fmt, 0), HR_OK);
	x = slurp(a, &nx);
	y = slurp(b, &ny);
	assert_int_equal(nx, ny);
	assert_memory_equal(x, y, nx);
	free(x);
	free(y);
}

static void tar_zst_export_is_byte_identical(void **state)
{
	same_store_gives_same_bytes(*state, EXPORT_TAR_ZST, ".tar.zst");
}

static void tar_gz_export_is_byte_identical(void **state)
{
	same_store_gives_same_bytes(*state, EXPORT_TAR_GZ, ".tar.gz");
}

static void tar_export_is_byte_identical(void **state)
{
	same_store_gives_same_bytes(*state, EXPORT_TAR, ".tar");
}

static void zip_export_is_byte_identical(void **state)
{
	same_store_gives_same_bytes(*state, EXPORT_ZIP, ".zip");
}

static void entries_are_sorted_with_fixed_owner_mode_time(void **state)
{
	struct fx *f = *state;
	struct archive *a = archive_read_new();
	struct archive_entry *ent;
	char prev[512] = "";
	int n = 0;

	populate(f);
	assert_int_equal(export_to(f, f->out, EXPORT_TAR, 0), HR_OK);
	archive_read_support_format_all(a);
	assert_int_equal(archive_read_open_filename(a, f->out, 10240),
			 ARCHIVE_OK);
	while (archive_read_next_header(a, &ent) == ARCHIVE_OK) {
		const char *p = archive_entry_pathname(ent);

		assert_true(strcmp(prev, p) < 0);
		snprintf(prev, sizeof(prev), "%s", p);
		assert_int_equal(strncmp(p, "headroom-export/", 16), 0);
		assert_int_equal(archive_entry_mtime(ent), 1767225600);
		assert_int_equal(archive_entry_uid(ent), 0);
		assert_int_equal(archive_entry_gid(ent), 0);
		assert_int_equal(archive_entry_perm(ent), 0644);
		n++;
	}
	archive_read_free(a);
	/* manifest, 8 JSON Lines files, 1 problem, 2 kernels */
	assert_int_equal(n, 12);
}

static void archive_holds_the_documented_files(void **state)
{
	struct fx *f = *state;
	struct afileset fs;
	static const char *const want[] = {
		"headroom-export/baselines.jsonl",
		"headroom-export/evaluations.jsonl",
		"headroom-export/manifest.json",
		"headroom-export/problem_sets.jsonl",
		"headroom-export/problems.jsonl",
		"headroom-export/problems/KernelBench/level1/19_ReLU.py",
		"headroom-export/profile_kernels.jsonl",
		"headroom-export/profiles.jsonl",
		"headroom-export/sources.jsonl",
		"headroom-export/speedups.jsonl",
	};
	size_t k = 0;

	populate(f);
	assert_int_equal(export_to(f, f->out, EXPORT_TAR, 0), HR_OK);
	load(f->out, &fs);
	for (size_t i = 0; i < fs.n && k < 10; i++)
		if (!strcmp(fs.files[i].path, want[k]))
			k++;
	assert_int_equal(k, 10);
	unload(&fs);
}

static void manifest_names_format_versions_and_counts(void **state)
{
	struct fx *f = *state;
	struct afileset fs;
	const char *m = NULL;

	populate(f);
	assert_int_equal(export_to(f, f->out, EXPORT_TAR, 0), HR_OK);
	load(f->out, &fs);
	for (size_t i = 0; i < fs.n; i++)
		if (!strcmp(fs.files[i].path, "headroom-export/manifest.json"))
			m = (const char *)fs.files[i].data;
	assert_non_null(m);
	assert_non_null(strstr(m, "\"format\": \"headroom-export\""));
	assert_non_null(strstr(m, "\"format_version\": 2"));
	{
		char want[48];

		snprintf(want, sizeof(want), "\"schema_version\": %d",
			 store_schema_version());
		assert_non_null(strstr(m, want));
	}
	assert_non_null(strstr(m, "\"tool_version\": \""));
	assert_non_null(strstr(m, "{\"sources\": 2, \"problem_sets\": 1, "
			       "\"problems\": 1, \"evaluations\": 2, "
			       "\"kernels\": 2, \"speedups\": 2, "
			       "\"baselines\": 1, \"profiles\": 0, "
			       "\"profile_kernels\": 0}"));
	unload(&fs);
}

static void sets_sharing_a_name_get_distinct_dirs(void **state)
{
	struct fx *f = *state;
	struct store_source src = { .name = "v0", .path = "v0", .kind =
		"problems", .sha256 = "cc" };
	struct store_problem p = { .level = 1, .problem_id = 19,
		.name = "19_ReLU", .file_name = "level1/19_ReLU.py",
		.code = "class Model: pass  # v0\n" };
	struct afileset fs;
	int64_t sid, id;
	int existed, found = 0;

	populate(f);
	assert_int_equal(store_add_source(f->s, &src, &sid, &existed, &f->e),
			 0);
	assert_int_equal(store_add_problem_set(f->s, sid, "KernelBench",
					       &p.set_id, &f->e), 0);
	assert_int_equal(store_add_problem(f->s, &p, &id, &f->e), 0);
	assert_int_equal(export_to(f, f->out, EXPORT_TAR, 0), HR_OK);
	load(f->out, &fs);
	for (size_t i = 0; i < fs.n; i++)
		found += !strcmp(fs.files[i].path, "headroom-export/problems/"
				 "KernelBench-2/level1/19_ReLU.py");
	assert_int_equal(found, 1);
	unload(&fs);
}

static void existing_output_is_refused_without_force(void **state)
{
	struct fx *f = *state;
	FILE *fp = fopen(f->out, "w");

	fputs("keep me", fp);
	fclose(fp);
	assert_int_equal(export_to(f, f->out, EXPORT_TAR, 0), HR_USAGE);
	assert_non_null(strstr(f->e.msg, "exists; use --force"));
	{
		size_t n;
		char *b = slurp(f->out, &n);

		assert_int_equal(n, 7);
		free(b);
	}
}

static void force_replaces_existing_output(void **state)
{
	struct fx *f = *state;
	FILE *fp = fopen(f->out, "w");
	struct stat sb;

	fputs("old", fp);
	fclose(fp);
	assert_int_equal(export_to(f, f->out, EXPORT_TAR, 1), HR_OK);
	assert_int_equal(stat(f->out, &sb), 0);
	assert_true(sb.st_size > 3);
	assert_int_equal(sb.st_mode & 0777, 0644);
}

static void failed_export_leaves_no_file(void **state)
{
	struct fx *f = *state;
	char path[128], cmd[160];
	FILE *p;
	char line[64] = "";

	snprintf(path, sizeof(path), "%s/missing/out.tar", f->dir);
	assert_int_equal(export_to(f, path, EXPORT_TAR, 0), HR_SYSTEM);
	assert_non_null(strstr(f->e.msg, "missing/out.tar"));
	snprintf(cmd, sizeof(cmd), "ls -A '%s' | grep -v '[.]db' | wc -l",
		 f->dir);
	p = popen(cmd, "r");
	assert_non_null(fgets(line, sizeof(line), p));
	pclose(p);
	assert_int_equal(atoi(line), 0);
}

static void export_is_detected_by_its_manifest(void **state)
{
	struct fx *f = *state;
	struct afileset fs;

	populate(f);
	assert_int_equal(export_to(f, f->out, EXPORT_TAR, 0), HR_OK);
	load(f->out, &fs);
	assert_int_equal(ingest_is_export(&fs), 1);
	unload(&fs);
}

static void other_manifest_is_no_export(void **state)
{
	struct afile file = { .path = "headroom-export/manifest.json",
		.data = (unsigned char *)"{\"format\": \"npm\"}", .len = 17 };
	struct afileset fs = { .input = "x", .files = &file, .n = 1 };

	(void)state;
	assert_int_equal(ingest_is_export(&fs), 0);
}

static void reimport_into_same_store_adds_nothing(void **state)
{
	struct fx *f = *state;
	char *before, *after;

	populate(f);
	assert_int_equal(export_to(f, f->out, EXPORT_TAR, 0), HR_OK);
	before = dump(f->s);
	assert_int_equal(import(f, f->s, f->out), HR_OK);
	after = dump(f->s);
	assert_string_equal(after, before);
	free(before);
	free(after);
}

/* Drop the last line of member `name` in fs. */
static void drop_last_line(struct afileset *fs, const char *name)
{
	for (size_t i = 0; i < fs->n; i++) {
		struct afile *a = &fs->files[i];

		if (strcmp(a->path, name))
			continue;
		a->data[--a->len] = '\0';
		while (a->len && a->data[a->len - 1] != '\n')
			a->data[--a->len] = '\0';
	}
}

/* Export the populated store, spoil the loaded set with spoil(), and
 * expect the import into a fresh store to fail with a message holding
 * want. */
static void import_refused(struct fx *f, void (*spoil)(struct afileset *),
			   const char *want)
{
	struct afileset fs;
	struct store *s2;
	char *left;

	populate(f);
	assert_int_equal(export_to(f, f->out, EXPORT_TAR, 0), HR_OK);
	load(f->out, &fs);
	spoil(&fs);
	assert_int_equal(store_open(&s2, f->db2, STORE_WRITE, &f->e), 0);
	assert_int_equal(import_set(f, s2, &fs), HR_INPUT);
	if (!strstr(f->e.msg, want))
		fail_msg("message '%s' lacks '%s'", f->e.msg, want);
	/* Nothing of a refused export stays behind. */
	left = dump(s2);
	assert_string_equal(left, "");
	free(left);
	unload(&fs);
	store_close(s2);
}

static void drop_last_baseline(struct afileset *fs)
{
	drop_last_line(fs, "headroom-export/baselines.jsonl");
}

static void truncated_export_is_refused(void **state)
{
	import_refused(*state, drop_last_baseline, "counts other baselines");
}

static void flip_kernel_bits(struct afileset *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		if (strstr(fs->files[i].path, "/kernels/"))
			fs->files[i].data[0] ^= 1;
}

static void kernel_that_does_not_match_its_hash_is_refused(void **state)
{
	import_refused(*state, flip_kernel_bits, "does not match its sha256");
}

/* Without its last source the last evaluation points nowhere. */
static void drop_last_source(struct afileset *fs)
{
	drop_last_line(fs, "headroom-export/sources.jsonl");
}

static void reference_to_unknown_row_is_refused(void **state)
{
	import_refused(*state, drop_last_source, "source_id: no such row");
}

static void format_follows_the_extension(void **state)
{
	enum export_format fmt = EXPORT_ZIP;

	(void)state;
	assert_int_equal(export_format_for_path("a/b.tar.zst", &fmt), 0);
	assert_int_equal(fmt, EXPORT_TAR_ZST);
	assert_int_equal(export_format_for_path("b.tgz", &fmt), 0);
	assert_int_equal(fmt, EXPORT_TAR_GZ);
	assert_int_equal(export_format_for_path("b.zip", &fmt), 0);
	assert_int_equal(fmt, EXPORT_ZIP);
	assert_int_equal(export_format_for_path("b.tar", &fmt), 0);
	assert_int_equal(fmt, EXPORT_TAR);
	assert_int_equal(export_format_for_path("b.rar", &fmt), -1);
}

static void format_names_parse(void **state)
{
	enum export_format fmt = EXPORT_ZIP;

	(void)state;
	assert_int_equal(export_format_parse("tar.gz", &fmt), 0);
	assert_int_equal(fmt, EXPORT_TAR_GZ);
	assert_int_equal(export_format_parse("7z", &fmt), -1);
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(round_trip_keeps_every_field),
		T(reals_round_trip_bit_for_bit),
		T(tar_zst_export_is_byte_identical),
		T(tar_gz_export_is_byte_identical),
		T(tar_export_is_byte_identical),
		T(zip_export_is_byte_identical),
		T(entries_are_sorted_with_fixed_owner_mode_time),
		T(archive_holds_the_documented_files),
		T(manifest_names_format_versions_and_counts),
		T(sets_sharing_a_name_get_distinct_dirs),
		T(existing_output_is_refused_without_force),
		T(force_replaces_existing_output),
		T(failed_export_leaves_no_file),
		T(export_is_detected_by_its_manifest),
		T(other_manifest_is_no_export),
		T(reimport_into_same_store_adds_nothing),
		T(truncated_export_is_refused),
		T(kernel_that_does_not_match_its_hash_is_refused),
		T(reference_to_unknown_row_is_refused),
		T(format_follows_the_extension),
		T(format_names_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
