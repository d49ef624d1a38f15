/* export.c - see export.h.
 *
 * The writer builds every entry in memory, sorts the entries by path and
 * writes them in that order: the same store gives the same bytes.  Numbers
 * are printed by us, not by cJSON, because cJSON's printer may drop the
 * last bits of a double and the round trip must be exact.
 */
#include "export.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "digest.h"
#include "reader.h"
#include "json.h"
#include "../profile/trace.h"
#include "base/clock.h"
#include "base/text.h"
#include "base/version.h"

#define ROOT EXPORT_FORMAT_NAME "/"

static const struct {
	const char *name;
	enum export_format f;
} formats[] = {
	{ "tar.zst", EXPORT_TAR_ZST }, { "tar.gz", EXPORT_TAR_GZ },
	{ "tar", EXPORT_TAR }, { "zip", EXPORT_ZIP },
};

static const struct {
	const char *ext;
	enum export_format f;
} extensions[] = {
	{ ".tar.zst", EXPORT_TAR_ZST }, { ".tzst", EXPORT_TAR_ZST },
	{ ".tar.gz", EXPORT_TAR_GZ }, { ".tgz", EXPORT_TAR_GZ },
	{ ".tar", EXPORT_TAR }, { ".zip", EXPORT_ZIP },
};

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

int export_format_parse(const char *name, enum export_format *f)
{
	for (size_t i = 0; i < NELEM(formats); i++)
		if (!strcmp(name, formats[i].name)) {
			*f = formats[i].f;
			return 0;
		}
	return -1;
}

int export_format_for_path(const char *path, enum export_format *f)
{
	size_t n = strlen(path), k;

	for (size_t i = 0; i < NELEM(extensions); i++) {
		k = strlen(extensions[i].ext);
		if (n > k && !strcmp(path + n - k, extensions[i].ext)) {
			*f = extensions[i].f;
			return 0;
		}
	}
	return -1;
}

/* --- writing --- */

struct buf {
	char *p;
	size_t n, cap;
};

static int buf_add(struct buf *b, const char *s, size_t n)
{
	char *np;
	size_t cap = b->cap ? b->cap : 4096;

	while (cap < b->n + n + 1)
		cap *= 2;
	if (cap != b->cap) {
		if (!(np = realloc(b->p, cap)))
			return -1;
		b->p = np;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, n);
	b->n += n;
	b->p[b->n] = '\0';
	return 0;
}

struct entry {
	char *path;     /* owned, full member path */
	char *data;     /* owned */
	size_t len;
};

struct writer {
	sqlite3 *db;
	struct entry *ents;
	size_t n, cap;
	struct export_counts *counts;
	struct hr_err *e;
};

/* Add an entry; takes ownership of path and data (also on failure). */
static int add_entry(struct writer *w, char *path, char *data, size_t len)
{
	struct entry *ne;

	if (!path || !data)
		goto oom;
	if (w->n == w->cap) {
		w->cap = w->cap ? 2 * w->cap : 64;
		if (!(ne = realloc(w->ents, w->cap * sizeof(*ne))))
			goto oom;
		w->ents = ne;
	}
	w->ents[w->n++] = (struct entry){ path, data, len };
	return HR_OK;
oom:
	free(path);
	free(data);
	return hr_errf(w->e, HR_SYSTEM, "out of memory");
}

static char *join(const char *a, const char *b)
{
	char *s;

	if (asprintf(&s, "%s%s", a, b) < 0)
		return NULL;
	return s;
}

/* Shortest "%.Ng" that reads back to exactly d. */
static void fmt_real(char *out, size_t n, double d)
{
	if (isinf(d)) {
		/* JSON has no infinity; 1e999 is valid JSON and reads back as
		 * one. */
		snprintf(out, n, "%s", d > 0 ? "1e999" : "-1e999");
		return;
	}
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(out, n, "%.*g", prec, d);
		if (strtod(out, NULL) == d)
			return;
	}
}

/* Integers beyond 2^53 would not read back exactly (a JSON number is a
 * double to the reader). */
#define MAX_EXACT_INT 9007199254740992LL

/* What the export cannot carry so that ingest reads back the same row:
 * text that is not UTF-8 (or holds a NUL), an integer beyond 2^53.
 * HR_INPUT naming the file, the row's id and the column. */
static int check_value(struct writer *w, sqlite3_stmt *st, int i,
		       const char *file)
{
	const char *what = NULL;
	char why[96];

	if (sqlite3_column_type(st, i) == SQLITE_TEXT) {
		const unsigned char *t = sqlite3_column_text(st, i);
		size_t n = (size_t)sqlite3_column_bytes(st, i), at;

		if ((at = text_bad_at(t, n, &what)) == n)
			return HR_OK;
		snprintf(why, sizeof(why), "%s at byte %zu", what, at);
	} else if (sqlite3_column_type(st, i) == SQLITE_INTEGER) {
		sqlite3_int64 v = sqlite3_column_int64(st, i);

		if (v <= MAX_EXACT_INT && v >= -MAX_EXACT_INT)
			return HR_OK;
		snprintf(why, sizeof(why), "%lld is beyond 2^53",
			 (long long)v);
	} else {
		return HR_OK;
	}
	return hr_errf(w->e, HR_INPUT, "the store's %s, row %s: %s: %s (ingest "
		       "would not read it back as it is: not exported)",
		       file, (const char *)sqlite3_column_text(st, 0),
		       sqlite3_column_name(st, i), why);
}

/* One row as a JSON object keyed by column name; columns whose name
 * starts with '_' are for the caller only and not written (but checked
 * all the same).  NULL with w->e set when a value cannot be exported or
 * memory ran out. */
static cJSON *row_object(struct writer *w, sqlite3_stmt *st,
			 const char *file)
{
	cJSON *o = cJSON_CreateObject(), *v;
	char num[40];

	for (int i = 0; o && i < sqlite3_column_count(st); i++) {
		if (check_value(w, st, i, file)) {
			cJSON_Delete(o);
			return NULL;
		}
		if (sqlite3_column_name(st, i)[0] == '_')
			continue;
		switch (sqlite3_column_type(st, i)) {
		case SQLITE_INTEGER:
			snprintf(num, sizeof(num), "%lld",
				 (long long)sqlite3_column_int64(st, i));
			v = cJSON_CreateRaw(num);
			break;
		case SQLITE_FLOAT:
			fmt_real(num, sizeof(num),
				 sqlite3_column_double(st, i));
			v = cJSON_CreateRaw(num);
			break;
		case SQLITE_TEXT:
			v = cJSON_CreateString((const char *)
					       sqlite3_column_text(st, i));
			break;
		default:
			v = cJSON_CreateNull();
		}
		if (!v || !cJSON_AddItemToObject(o, sqlite3_column_name(st, i),
						 v)) {
			cJSON_Delete(v);
			cJSON_Delete(o);
			o = NULL;
		}
	}
	if (!o && w->e->code == HR_OK)
		hr_errf(w->e, HR_SYSTEM, "out of memory");
	return o;
}

struct rows {
	struct writer *w;
	int (*fn)(struct writer *, sqlite3_stmt *, void *);
	void *arg;
};

static int to_writer(sqlite3_stmt *st, void *arg, struct hr_err *e)
{
	struct rows *r = arg;

	(void)e;   /* r->w->e, the same */
	return r->fn(r->w, st, r->arg);
}

/* Run sql and hand every row to fn (arg passed through). */
static int for_rows(struct writer *w, const char *sql,
		    int (*fn)(struct writer *, sqlite3_stmt *, void *),
		    void *arg)
{
	struct rows r = { w, fn, arg };

	return store_each(w->db, sql, to_writer, &r, w->e);
}

struct lines {
	struct buf b;
	int64_t n;
	const char *name;
	int (*also)(struct writer *, sqlite3_stmt *, void *);
};

static int add_line(struct writer *w, sqlite3_stmt *st, void *arg)
{
	struct lines *l = arg;
	cJSON *o = row_object(w, st, l->name);
	char *line = o ? cJSON_PrintUnformatted(o) : NULL;
	int bad = !line || buf_add(&l->b, line, strlen(line)) ||
		  buf_add(&l->b, "\n", 1);

	cJSON_Delete(o);
	free(line);
	if (w->e->code)
		return w->e->code;
	if (bad)
		return hr_errf(w->e, HR_SYSTEM, "out of memory");
	l->n++;
	return l->also ? l->also(w, st, NULL) : HR_OK;
}

/* Run sql and make each row one line of the JSON Lines entry `name`;
 * also (may be NULL) sees every row too. */
static int dump_rows(struct writer *w, const char *name, const char *sql,
		     int64_t *count,
		     int (*also)(struct writer *, sqlite3_stmt *, void *))
{
	struct lines l = { .name = name, .also = also };

	if (for_rows(w, sql, add_line, &l) ||
	    (!l.b.p && buf_add(&l.b, "", 0))) {
		free(l.b.p);
		return w->e->code ? w->e->code :
			hr_errf(w->e, HR_SYSTEM, "out of memory");
	}
	*count = l.n;
	return add_entry(w, join(ROOT, name), l.b.p, l.b.n);
}

static int add_kernel_file(struct writer *w, sqlite3_stmt *st, void *arg)
{
	const char *sha = (const char *)sqlite3_column_text(st, 0);
	const char *code = (const char *)sqlite3_column_text(st, 1);
	char *path;

	if (check_value(w, st, 1, "kernels"))
		return w->e->code;
	if (asprintf(&path, ROOT "kernels/%s.py", sha) < 0)
		path = NULL;
	(*(int64_t *)arg)++;
	return add_entry(w, path, strdup(code), strlen(code));
}

/* Directory names of problem sets: the set's name made safe for an
 * archive path; "-<id>" added when two sets share a name. */
static char *set_dir(const char *name, int64_t id, int taken)
{
	char *d;

	if (taken ? asprintf(&d, "%s-%lld", name, (long long)id) < 0 :
		    !(d = strdup(name)))
		return NULL;
	for (char *p = d; *p; p++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789._-", *p))
			*p = '_';
	if (d[0] == '.' || !d[0]) {
		char *u = join("_", d);

		free(d);
		d = u;
	}
	return d;
}

/* problems.jsonl names each problem's file; the SELECT computes the path
 * from the set directory chosen in dump_problems. */
static int add_problem_file(struct writer *w, sqlite3_stmt *st, void *arg)
{
	int n = sqlite3_column_count(st);
	const char *path = (const char *)sqlite3_column_text(st, n - 2);
	const char *code = (const char *)sqlite3_column_text(st, n - 1);

	(void)arg;
	return add_entry(w, join(ROOT, path), strdup(code), strlen(code));
}

/* Export ids: rows are numbered 1, 2, ... in store id order, so that
 * a store and the store its export was ingested into (whose ids start
 * after the export's own source row) export the same bytes.  Sources of
 * kind "export" (the record of an ingested export, owning no rows) are
 * left out for the same reason. */
static const char *const id_maps[] = {
	"CREATE TEMP TABLE x_src(old INTEGER PRIMARY KEY, new INTEGER)",
	"INSERT INTO temp.x_src SELECT id, row_number() OVER (ORDER BY id)"
	" FROM source WHERE kind <> 'export'",
	"CREATE TEMP TABLE x_set(old INTEGER PRIMARY KEY, new INTEGER)",
	"INSERT INTO temp.x_set SELECT ps.id, row_number() OVER"
	" (ORDER BY ps.id) FROM problem_set ps"
	" JOIN temp.x_src m ON m.old = ps.source_id",
	"CREATE TEMP TABLE x_eval(old INTEGER PRIMARY KEY, new INTEGER)",
	"INSERT INTO temp.x_eval SELECT e.id, row_number() OVER"
	" (ORDER BY e.id) FROM evaluation e"
	" JOIN temp.x_src m ON m.old = e.source_id",
	"CREATE TEMP TABLE x_prof(old INTEGER PRIMARY KEY, new INTEGER)",
	"INSERT INTO temp.x_prof SELECT p.id, row_number() OVER"
	" (ORDER BY p.id) FROM profile p"
	" JOIN temp.x_src m ON m.old = p.source_id",
};

static int make_id_maps(struct writer *w)
{
	static const char *const drop[] = {
		"DROP TABLE IF EXISTS temp.x_src",
		"DROP TABLE IF EXISTS temp.x_set",
		"DROP TABLE IF EXISTS temp.x_eval",
		"DROP TABLE IF EXISTS temp.x_prof",
	};

	for (size_t i = 0; i < NELEM(drop); i++)
		if (sqlite3_exec(w->db, drop[i], NULL, NULL, NULL) != SQLITE_OK)
			return store_db_err(w->db, NULL, w->e);
	for (size_t i = 0; i < NELEM(id_maps); i++)
		if (sqlite3_exec(w->db, id_maps[i], NULL, NULL, NULL) !=
		    SQLITE_OK)
			return store_db_err(w->db, NULL, w->e);
	return HR_OK;
}

static int dump_problems(struct writer *w)
{
	static const char sets_sql[] =
		"SELECT ms.new AS id, m.new AS source_id, ps.name"
		" FROM problem_set ps JOIN temp.x_set ms ON ms.old = ps.id"
		" JOIN temp.x_src m ON m.old = ps.source_id ORDER BY ms.new";
	static const char dirs_sql[] =
		"CREATE TEMP TABLE export_set_dir(set_id INTEGER PRIMARY KEY,"
		" dir TEXT NOT NULL UNIQUE)";
	sqlite3_stmt *st = NULL, *ins = NULL;
	int rc;

	if (sqlite3_exec(w->db, "DROP TABLE IF EXISTS temp.export_set_dir",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_exec(w->db, dirs_sql, NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(w->db, sets_sql, -1, &st, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(w->db, "INSERT INTO temp.export_set_dir"
			       " VALUES (?1, ?2)", -1, &ins, NULL) != SQLITE_OK)
		goto dberr;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t id = sqlite3_column_int64(st, 0);
		const char *name = (const char *)sqlite3_column_text(st, 2);

		for (int taken = 0; taken < 2; taken++) {
			char *dir = set_dir(name, id, taken);

			if (!dir) {
				hr_errf(w->e, HR_SYSTEM, "out of memory");
				goto out;
			}
			sqlite3_reset(ins);
			sqlite3_bind_int64(ins, 1, id);
			sqlite3_bind_text(ins, 2, dir, -1, free);
			rc = sqlite3_step(ins);
			if (rc == SQLITE_DONE)
				break;
			if (rc != SQLITE_CONSTRAINT_UNIQUE &&
			    (rc & 0xff) != SQLITE_CONSTRAINT)
				goto dberr;
		}
		if (rc != SQLITE_DONE)
			goto dberr;
	}
	if (rc != SQLITE_DONE)
		goto dberr;
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	st = ins = NULL;
	if (dump_rows(w, "problem_sets.jsonl", sets_sql,
		      &w->counts->problem_sets, NULL))
		return w->e->code;
	/* The last two columns (path, _code) feed add_problem_file. */
	return dump_rows(w, "problems.jsonl",
		"SELECT row_number() OVER (ORDER BY p.id) AS id,"
		" ms.new AS set_id, p.level, p.problem_id, p.name,"
		" p.file_name, p.sha256,"
		" 'problems/' || d.dir || '/level' || p.level || '/' ||"
		"   replace(p.file_name, rtrim(p.file_name,"
		"     replace(p.file_name, '/', '')), '') AS path,"
		" p.code AS _code"
		" FROM problem p JOIN temp.x_set ms ON ms.old = p.set_id"
		" JOIN temp.export_set_dir d ON d.set_id = ms.new"
		" ORDER BY p.id", &w->counts->problems, add_problem_file);
dberr:
	store_db_err(w->db, NULL, w->e);
out:
	sqlite3_finalize(st);
	sqlite3_finalize(ins);
	return w->e->code;
}

static int dump_all(struct writer *w)
{
	struct export_counts *n = w->counts;

	if (make_id_maps(w) ||
	    dump_rows(w, "sources.jsonl",
		      "SELECT m.new AS id, s.name, s.path, s.kind, s.sha256,"
		      " s.map_name, s.notes_json, s.ingested_at, s.tool_version"
		      " FROM source s JOIN temp.x_src m ON m.old = s.id"
		      " ORDER BY m.new", &n->sources, NULL) ||
	    dump_problems(w) ||
	    dump_rows(w, "evaluations.jsonl",
		      "SELECT me.new AS id, m.new AS source_id, e.run, e.model,"
		      " e.level, e.problem_id, e.problem_id_base, e.problem_name,"
		      " e.sample_id, k.sha256 AS kernel_sha256, e.hardware,"
		      " e.precision, e.atol, e.rtol, e.harness, e.compiled,"
		      " e.correct, e.runtime_ms, e.runtime_std_ms,"
		      " e.runtime_min_ms, e.runtime_max_ms, e.num_trials,"
		      " e.correct_trials_passed, e.correct_trials_total,"
		      " e.error_kind, e.error_text, e.unit_assumed,"
		      " e.record_ref, e.metadata_json"
		      " FROM evaluation e JOIN temp.x_eval me ON me.old = e.id"
		      " JOIN temp.x_src m ON m.old = e.source_id"
		      " LEFT JOIN kernel k ON k.id = e.kernel_id"
		      " ORDER BY me.new", &n->evaluations, NULL) ||
	    dump_rows(w, "speedups.jsonl",
		      "SELECT row_number() OVER (ORDER BY sp.id) AS id,"
		      " me.new AS evaluation_id, sp.baseline_kind,"
		      " sp.baseline_ms, sp.value, sp.origin, sp.baseline_ref"
		      " FROM speedup sp JOIN temp.x_eval me"
		      " ON me.old = sp.evaluation_id ORDER BY sp.id",
		      &n->speedups, NULL) ||
	    dump_rows(w, "baselines.jsonl",
		      "SELECT row_number() OVER (ORDER BY b.id) AS id,"
		      " m.new AS source_id, b.hardware_dir, b.baseline_kind,"
		      " b.level, b.problem_file, b.mean_ms, b.std_ms, b.min_ms,"
		      " b.max_ms, b.num_trials, b.hardware, b.device"
		      " FROM baseline b JOIN temp.x_src m ON m.old = b.source_id"
		      " ORDER BY b.id", &n->baselines, NULL) ||
	    dump_rows(w, "profiles.jsonl",
		      "SELECT mp.new AS id, m.new AS source_id, p.workload,"
		      " p.domain, p.stack, p.format, p.device, p.activities,"
		      " p.kernel_ns, p.busy_ns, p.span_ns, p.notes_json"
		      " FROM profile p JOIN temp.x_prof mp ON mp.old = p.id"
		      " JOIN temp.x_src m ON m.old = p.source_id"
		      " ORDER BY mp.new", &n->profiles, NULL) ||
	    dump_rows(w, "profile_kernels.jsonl",
		      "SELECT mp.new AS profile_id, k.kind, k.name, k.calls,"
		      " k.total_ns, k.max_ns"
		      " FROM profile_kernel k JOIN temp.x_prof mp"
		      " ON mp.old = k.profile_id ORDER BY mp.new, k.kind, k.name",
		      &n->profile_kernels, NULL))
		return w->e->code;
	/* Kernel files only: their list is the directory itself. */
	return for_rows(w, "SELECT sha256, code FROM kernel ORDER BY sha256",
			add_kernel_file, &n->kernels);
}

static int add_manifest(struct writer *w)
{
	const struct export_counts *n = w->counts;
	char *text;

	/* Written by hand: key order and layout are part of the format. */
	if (asprintf(&text,
		     "{\n"
		     "  \"format\": \"" EXPORT_FORMAT_NAME "\",\n"
		     "  \"format_version\": %d,\n"
		     "  \"tool\": \"headroom\",\n"
		     "  \"tool_version\": \"%s\",\n"
		     "  \"schema_version\": %d,\n"
		     "  \"counts\": {\"sources\": %lld, \"problem_sets\": %lld,"
		     " \"problems\": %lld, \"evaluations\": %lld,"
		     " \"kernels\": %lld, \"speedups\": %lld,"
		     " \"baselines\": %lld, \"profiles\": %lld,"
		     " \"profile_kernels\": %lld}\n"
		     "}\n", EXPORT_FORMAT_VERSION, hr_version(),
		     store_schema_version(), (long long)n->sources,
		     (long long)n->problem_sets, (long long)n->problems,
		     (long long)n->evaluations, (long long)n->kernels,
		     (long long)n->speedups, (long long)n->baselines,
		     (long long)n->profiles, (long long)n->profile_kernels) < 0)
		return hr_errf(w->e, HR_SYSTEM, "out of memory");
	return add_entry(w, join(ROOT, "manifest.json"), text, strlen(text));
}

static int by_path(const void *a, const void *b)
{
	return strcmp(((const struct entry *)a)->path,
		      ((const struct entry *)b)->path);
}

/* Fixed mtime: SOURCE_DATE_EPOCH (reproducible-builds.org), else 0. */
static time_t export_mtime(void)
{
	time_t t = 0;

	clock_epoch(&t);
	return t;
}

static int arch_err(struct writer *w, struct archive *a, const char *path)
{
	return hr_errf(w->e, HR_SYSTEM, "%s: %s", path,
		       archive_error_string(a) ? archive_error_string(a) :
		       "archive write failed");
}

static int write_archive(struct writer *w, int fd, enum export_format fmt,
			 const char *path)
{
	struct archive *a = archive_write_new();
	struct archive_entry *ent = archive_entry_new();
	time_t mtime = export_mtime();
	int r;

	if (!a || !ent) {
		hr_errf(w->e, HR_SYSTEM, "out of memory");
		goto out;
	}
	if (fmt == EXPORT_ZIP)
		r = archive_write_set_format_zip(a);
	else
		/* ustar headers, pax only for long names: no atime/ctime. */
		r = archive_write_set_format_pax_restricted(a);
	if (r == ARCHIVE_OK && fmt == EXPORT_TAR_ZST)
		r = archive_write_add_filter_zstd(a);
	if (r == ARCHIVE_OK && fmt == EXPORT_TAR_GZ) {
		r = archive_write_add_filter_gzip(a);
		/* gzip would store the current time in its header. */
		if (r == ARCHIVE_OK)
			r = archive_write_set_options(a, "gzip:!timestamp");
	}
	if (r != ARCHIVE_OK || archive_write_open_fd(a, fd) != ARCHIVE_OK) {
		arch_err(w, a, path);
		goto out;
	}
	for (size_t i = 0; i < w->n; i++) {
		archive_entry_clear(ent);
		archive_entry_set_pathname(ent, w->ents[i].path);
		archive_entry_set_filetype(ent, AE_IFREG);
		archive_entry_set_perm(ent, 0644);
		archive_entry_set_size(ent, (la_int64_t)w->ents[i].len);
		archive_entry_set_mtime(ent, mtime, 0);
		archive_entry_set_uid(ent, 0);
		archive_entry_set_gid(ent, 0);
		if (archive_write_header(a, ent) != ARCHIVE_OK ||
		    (w->ents[i].len &&
		     archive_write_data(a, w->ents[i].data, w->ents[i].len) !=
		     (la_ssize_t)w->ents[i].len)) {
			arch_err(w, a, path);
			goto out;
		}
	}
	if (archive_write_close(a) != ARCHIVE_OK)
		arch_err(w, a, path);
out:
	archive_entry_free(ent);
	archive_write_free(a);
	return w->e->code;
}

/* Write to a temporary file beside out, then link (no overwrite) or
 * rename (--force) it into place, so a reader never sees half an archive
 * and a failed export leaves nothing behind. */
static int write_atomically(struct writer *w, const char *out,
			    enum export_format fmt, int force)
{
	char *tmp = join(out, ".tmp-XXXXXX");
	struct stat sb;
	int fd;

	if (!tmp)
		return hr_errf(w->e, HR_SYSTEM, "out of memory");
	if (!force && lstat(out, &sb) == 0) {
		free(tmp);
		return hr_errf(w->e, HR_USAGE, "%s exists; use --force to "
			       "overwrite it", out);
	}
	if ((fd = mkstemp(tmp)) < 0) {
		/* Named as asked: the temporary name is ours. */
		hr_errf(w->e, HR_SYSTEM, "%s: cannot create: %s", out,
			strerror(errno));
		free(tmp);
		return w->e->code;
	}
	if (fchmod(fd, 0644) || write_archive(w, fd, fmt, out) ||
	    fsync(fd)) {
		hr_errf(w->e, HR_SYSTEM, "%s: %s", out, strerror(errno));
		goto fail;
	}
	if (close(fd)) {
		fd = -1;
		hr_errf(w->e, HR_SYSTEM, "%s: %s", out, strerror(errno));
		goto fail;
	}
	fd = -1;
	if (force ? rename(tmp, out) : link(tmp, out)) {
		if (errno == EEXIST)
			hr_errf(w->e, HR_USAGE, "%s exists; use --force to "
				"overwrite it", out);
		else
			hr_errf(w->e, HR_SYSTEM, "%s: %s", out,
				strerror(errno));
		goto fail;
	}
	if (!force)
		unlink(tmp);
	free(tmp);
	return HR_OK;
fail:
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	return w->e->code;
}

int export_write(struct store *s, const char *out_path,
		 enum export_format fmt, int force, struct export_counts *n,
		 struct hr_err *e)
{
	struct writer w = { .db = store_db(s), .counts = n, .e = e };
	const char *db_path = sqlite3_db_filename(w.db, "main");
	struct stat so, sd;

	memset(n, 0, sizeof(*n));
	/* --force replaces OUT: never when OUT is the store itself. */
	if (db_path && !stat(out_path, &so) && !stat(db_path, &sd) &&
	    so.st_dev == sd.st_dev && so.st_ino == sd.st_ino)
		return hr_errf(e, HR_USAGE, "%s is the database being exported;"
			       " give another output file", out_path);
	/* One read transaction: every file shows the same state. */
	if (sqlite3_exec(w.db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return store_db_err(w.db, NULL, e);
	if (!dump_all(&w) && !add_manifest(&w)) {
		qsort(w.ents, w.n, sizeof(*w.ents), by_path);
		write_atomically(&w, out_path, fmt, force);
	}
	sqlite3_exec(w.db, "COMMIT", NULL, NULL, NULL);
	for (size_t i = 0; i < w.n; i++) {
		free(w.ents[i].path);
		free(w.ents[i].data);
	}
	free(w.ents);
	return e->code;
}

/* --- reading an export back --- */

/* Row ids are JSON numbers: above 2^53 a double no longer holds every
 * integer, so no export of ours can have written one. */
#define MAX_ROW_ID 9007199254740992.0

/* Member root + name, looked up by afileset_find. */
static const struct afile *member(const struct afileset *fs,
				  const char *root, const char *name)
{
	size_t rl = strlen(root), nl = strlen(name);
	char small[512], *path = rl + nl < sizeof(small) ? small :
				 malloc(rl + nl + 1);
	const struct afile *f;

	if (!path)
		return NULL;
	memcpy(path, root, rl);
	memcpy(path + rl, name, nl + 1);
	f = afileset_find(fs, path);
	if (path != small)
		free(path);
	return f;
}

/* The directory holding manifest.json: the export's own top directory,
 * or the set's root when the export was unpacked and that directory
 * given. */
static const char *export_root(const struct afileset *fs)
{
	static const char *const roots[] = { ROOT, "" };
	const struct afile *m;
	cJSON *doc, *fmt;
	int ok;

	for (size_t i = 0; i < NELEM(roots); i++) {
		if (!(m = member(fs, roots[i], "manifest.json")))
			continue;
		doc = cJSON_ParseWithLength((const char *)m->data, m->len);
		fmt = cJSON_GetObjectItemCaseSensitive(doc, "format");
		ok = cJSON_IsString(fmt) &&
		     !strcmp(fmt->valuestring, EXPORT_FORMAT_NAME);
		cJSON_Delete(doc);
		if (ok)
			return roots[i];
	}
	return NULL;
}

int ingest_is_export(const struct afileset *fs)
{
	return export_root(fs) != NULL;
}

/* Old id -> new id (0: the row was skipped, its source already stored). */
struct idmap {
	struct { int64_t old, new_id; } *v;
	size_t n, cap;
};

static int idmap_put(struct idmap *m, int64_t old, int64_t new_id)
{
	if (m->n == m->cap) {
		size_t cap = m->cap ? 2 * m->cap : 256;
		void *nv = realloc(m->v, cap * sizeof(*m->v));

		if (!nv)
			return -1;
		m->v = nv;
		m->cap = cap;
	}
	m->v[m->n].old = old;
	m->v[m->n].new_id = new_id;
	m->n++;
	return 0;
}

/* Rows are written in id order; -1 when old is unknown. */
static int64_t idmap_get(const struct idmap *m, int64_t old)
{
	size_t lo = 0, hi = m->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (m->v[mid].old == old)
			return m->v[mid].new_id;
		if (m->v[mid].old < old)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

struct reader {
	const struct afileset *fs;
	const char *root;
	struct ingest_ctx *ctx;
	struct idmap sources, sets, evals, profiles;
	int version;           /* the manifest's format_version */
	struct export_counts n;
	struct hr_err *e;
	char where[600];       /* "<input>: headroom-export/x.jsonl:N" */
};

static int need_str(struct reader *r, const cJSON *rec, const char *key,
		    const char **out)
{
	if (jsonrec_str(cJSON_GetObjectItemCaseSensitive(rec, key), r->where,
			key, NULL, out, r->e))
		return r->e->code;
	if (!*out)
		return hr_errf(r->e, HR_INPUT, "%s: %s: missing", r->where,
			       key);
	return HR_OK;
}

static int opt_str(struct reader *r, const cJSON *rec, const char *key,
		   const char **out)
{
	return jsonrec_str(cJSON_GetObjectItemCaseSensitive(rec, key),
			   r->where, key, NULL, out, r->e);
}

static int opt_real(struct reader *r, const cJSON *rec, const char *key,
		    double *out)
{
	return jsonrec_real(cJSON_GetObjectItemCaseSensitive(rec, key),
			    r->where, key, NULL, out, r->e);
}

/* Integers: -1 when null (the store's "unknown"). */
static int opt_int(struct reader *r, const cJSON *rec, const char *key,
		   int *out)
{
	return jsonrec_int(cJSON_GetObjectItemCaseSensitive(rec, key),
			   r->where, key, NULL, 0, out, r->e);
}

static int need_int(struct reader *r, const cJSON *rec, const char *key,
		    int *out)
{
	if (opt_int(r, rec, key, out))
		return r->e->code;
	if (*out < 0)
		return hr_errf(r->e, HR_INPUT, "%s: %s: missing", r->where,
			       key);
	return HR_OK;
}

/* A reference to a row of another file, mapped to its new id. */
static int ref_id(struct reader *r, const cJSON *rec, const char *key,
		  const struct idmap *m, int64_t *out)
{
	double d;

	if (opt_real(r, rec, key, &d))
		return r->e->code;
	/* Range first: converting 1e300 to an integer is undefined. */
	if (!(d >= 1 && d <= MAX_ROW_ID) || d != floor(d) ||
	    (*out = idmap_get(m, (int64_t)d)) < 0)
		return hr_errf(r->e, HR_INPUT, "%s: %s: no such row in the "
			       "export", r->where, key);
	return HR_OK;
}

static int own_id(struct reader *r, const cJSON *rec, struct idmap *m,
		  int64_t new_id)
{
	double d;

	if (opt_real(r, rec, "id", &d))
		return r->e->code;
	if (!(d >= 1 && d <= MAX_ROW_ID) || d != floor(d))
		return hr_errf(r->e, HR_INPUT, "%s: id: expected a positive "
			       "integer up to 2^53", r->where);
	if (m->n && m->v[m->n - 1].old >= (int64_t)d)
		return hr_errf(r->e, HR_INPUT, "%s: id: rows must come in "
			       "increasing id order", r->where);
	if (idmap_put(m, (int64_t)d, new_id))
		return hr_errf(r->e, HR_SYSTEM, "out of memory");
	return HR_OK;
}

/* The code of member `path`, checked against the SHA-256 it is listed
 * under. */
static int member_code(struct reader *r, const char *path, const char *sha,
		       const char **code)
{
	const struct afile *f = member(r->fs, r->root, path);
	char got[HR_SHA256_HEX];

	if (!f)
		return hr_errf(r->e, HR_INPUT, "%s: %s%s is missing", r->where,
			       r->root, path);
	if (hr_sha256_hex(f->data, f->len, got))
		return hr_errf(r->e, HR_SYSTEM, "sha256 failed");
	if (strcmp(got, sha))
		return hr_errf(r->e, HR_INPUT, "%s: %s%s does not match its "
			       "sha256 %s", r->where, r->root, path, sha);
	/* The same rule as the run-directory reader: UTF-8, no NUL. */
	if (afile_check_text(r->fs->input, f, r->e))
		return r->e->code;
	*code = (const char *)f->data;
	return HR_OK;
}

/* The kinds of source an export carries (never "export" itself). */
static const char *const source_kinds[] = {
	"kernelbench-run", "leaderboard", "problems", "profile-chrome",
	"profile-nsys",
};

static int read_source(struct reader *r, const cJSON *rec)
{
	struct store_source s = { 0 };
	int64_t id;
	int existed;
	size_t k = 0;

	if (need_str(r, rec, "name", &s.name) ||
	    need_str(r, rec, "path", &s.path) ||
	    need_str(r, rec, "kind", &s.kind) ||
	    need_str(r, rec, "sha256", &s.sha256) ||
	    opt_str(r, rec, "map_name", &s.map_name) ||
	    opt_str(r, rec, "notes_json", &s.notes_json) ||
	    opt_str(r, rec, "ingested_at", &s.ingested_at) ||
	    opt_str(r, rec, "tool_version", &s.tool_version))
		return r->e->code;
	while (k < NELEM(source_kinds) && strcmp(s.kind, source_kinds[k]))
		k++;
	if (k == NELEM(source_kinds))
		return hr_errf(r->e, HR_INPUT, "%s: kind: unknown source kind "
			       "'%s' (kernelbench-run, leaderboard, problems, "
			       "profile-chrome or profile-nsys)", r->where,
			       s.kind);
	if (store_add_source(r->ctx->store, &s, &id, &existed, r->e))
		return r->e->code;
	/* Already stored (same content, same kind): keep the old rows and
	 * skip everything that belongs to this source. */
	return own_id(r, rec, &r->sources, existed ? 0 : id);
}

static int read_set(struct reader *r, const cJSON *rec)
{
	const char *name;
	int64_t src, id = 0;

	if (need_str(r, rec, "name", &name) ||
	    ref_id(r, rec, "source_id", &r->sources, &src))
		return r->e->code;
	if (src && store_add_problem_set(r->ctx->store, src, name, &id, r->e))
		return r->e->code;
	return own_id(r, rec, &r->sets, id);
}

static int read_problem(struct reader *r, const cJSON *rec)
{
	struct store_problem p = { 0 };
	const char *sha, *path;
	int64_t id;

	if (ref_id(r, rec, "set_id", &r->sets, &p.set_id) ||
	    need_int(r, rec, "level", &p.level) ||
	    need_int(r, rec, "problem_id", &p.problem_id) ||
	    need_str(r, rec, "name", &p.name) ||
	    need_str(r, rec, "file_name", &p.file_name) ||
	    need_str(r, rec, "sha256", &sha) ||
	    need_str(r, rec, "path", &path))
		return r->e->code;
	if (!p.set_id)
		return HR_OK;
	if (member_code(r, path, sha, &p.code) ||
	    store_add_problem(r->ctx->store, &p, &id, r->e))
		return r->e->code;
	r->ctx->n_problems++;
	return HR_OK;
}

static int read_kernel(struct reader *r, const char *sha, int64_t *id)
{
	char path[HR_SHA256_HEX + 16];
	const char *code;

	if (strlen(sha) != HR_SHA256_HEX - 1 ||
	    strspn(sha, "0123456789abcdef") != HR_SHA256_HEX - 1)
		return hr_errf(r->e, HR_INPUT, "%s: kernel_sha256: not a "
			       "SHA-256", r->where);
	snprintf(path, sizeof(path), "kernels/%s.py", sha);
	if (member_code(r, path, sha, &code) ||
	    store_add_kernel(r->ctx->store, code, id, r->e))
		return r->e->code;
	return HR_OK;
}

static int read_eval(struct reader *r, const cJSON *rec)
{
	struct store_eval ev = { 0 };
	const char *sha;
	int64_t id = 0;

	if (ref_id(r, rec, "source_id", &r->sources, &ev.source_id) ||
	    need_str(r, rec, "run", &ev.run) ||
	    need_str(r, rec, "model", &ev.model) ||
	    need_int(r, rec, "level", &ev.level) ||
	    need_int(r, rec, "problem_id", &ev.problem_id) ||
	    need_int(r, rec, "problem_id_base", &ev.problem_id_base) ||
	    opt_str(r, rec, "problem_name", &ev.problem_name) ||
	    need_int(r, rec, "sample_id", &ev.sample_id) ||
	    opt_str(r, rec, "kernel_sha256", &sha) ||
	    opt_str(r, rec, "hardware", &ev.hardware) ||
	    opt_str(r, rec, "precision", &ev.precision) ||
	    opt_real(r, rec, "atol", &ev.atol) ||
	    opt_real(r, rec, "rtol", &ev.rtol) ||
	    opt_str(r, rec, "harness", &ev.harness) ||
	    opt_int(r, rec, "compiled", &ev.compiled) ||
	    opt_int(r, rec, "correct", &ev.correct) ||
	    opt_real(r, rec, "runtime_ms", &ev.runtime_ms) ||
	    opt_real(r, rec, "runtime_std_ms", &ev.runtime_std_ms) ||
	    opt_real(r, rec, "runtime_min_ms", &ev.runtime_min_ms) ||
	    opt_real(r, rec, "runtime_max_ms", &ev.runtime_max_ms) ||
	    opt_int(r, rec, "num_trials", &ev.num_trials) ||
	    opt_int(r, rec, "correct_trials_passed",
		    &ev.correct_trials_passed) ||
	    opt_int(r, rec, "correct_trials_total",
		    &ev.correct_trials_total) ||
	    opt_str(r, rec, "error_kind", &ev.error_kind) ||
	    opt_str(r, rec, "error_text", &ev.error_text) ||
	    opt_str(r, rec, "unit_assumed", &ev.unit_assumed) ||
	    need_str(r, rec, "record_ref", &ev.record_ref) ||
	    opt_str(r, rec, "metadata_json", &ev.metadata_json))
		return r->e->code;
	if (ev.source_id) {
		if (sha && read_kernel(r, sha, &ev.kernel_id))
			return r->e->code;
		if (store_add_evaluation(r->ctx->store, &ev, &id, r->e))
			return hr_err_prefix(r->e, "%s", r->where);
		r->ctx->n_evaluations++;
	}
	return own_id(r, rec, &r->evals, id);
}

static int read_speedup(struct reader *r, const cJSON *rec)
{
	struct store_speedup sp = { 0 };

	if (ref_id(r, rec, "evaluation_id", &r->evals, &sp.evaluation_id) ||
	    need_str(r, rec, "baseline_kind", &sp.baseline_kind) ||
	    opt_real(r, rec, "baseline_ms", &sp.baseline_ms) ||
	    opt_real(r, rec, "value", &sp.value) ||
	    need_str(r, rec, "origin", &sp.origin) ||
	    opt_str(r, rec, "baseline_ref", &sp.baseline_ref))
		return r->e->code;
	if (isnan(sp.value))
		return hr_errf(r->e, HR_INPUT, "%s: value: missing", r->where);
	if (!sp.evaluation_id)
		return HR_OK;
	if (store_add_speedup(r->ctx->store, &sp, r->e))
		return hr_err_prefix(r->e, "%s", r->where);
	r->ctx->n_speedups++;
	return HR_OK;
}

static int read_baseline(struct reader *r, const cJSON *rec)
{
	struct store_baseline b = { 0 };

	if (ref_id(r, rec, "source_id", &r->sources, &b.source_id) ||
	    need_str(r, rec, "hardware_dir", &b.hardware_dir) ||
	    need_str(r, rec, "baseline_kind", &b.baseline_kind) ||
	    need_int(r, rec, "level", &b.level) ||
	    need_str(r, rec, "problem_file", &b.problem_file) ||
	    opt_real(r, rec, "mean_ms", &b.mean_ms) ||
	    opt_real(r, rec, "std_ms", &b.std_ms) ||
	    opt_real(r, rec, "min_ms", &b.min_ms) ||
	    opt_real(r, rec, "max_ms", &b.max_ms) ||
	    opt_int(r, rec, "num_trials", &b.num_trials) ||
	    opt_str(r, rec, "hardware", &b.hardware) ||
	    opt_str(r, rec, "device", &b.device))
		return r->e->code;
	if (!b.source_id)
		return HR_OK;
	if (store_add_baseline(r->ctx->store, &b, r->e))
		return hr_err_prefix(r->e, "%s", r->where);
	r->ctx->n_baselines++;
	return HR_OK;
}

/* Integers up to 2^53 (all an export can carry exactly), >= 0. */
static int need_count(struct reader *r, const cJSON *rec, const char *key,
		      int64_t *out)
{
	double d;

	if (opt_real(r, rec, key, &d))
		return r->e->code;
	if (!(d >= 0 && d <= MAX_ROW_ID) || d != floor(d))
		return hr_errf(r->e, HR_INPUT, "%s: %s: expected an integer "
			       "from 0 to 2^53", r->where, key);
	*out = (int64_t)d;
	return HR_OK;
}

static int one_of(struct reader *r, const char *key, const char *v,
		  const char *a, const char *b, const char *c)
{
	if (!strcmp(v, a) || !strcmp(v, b) || (c && !strcmp(v, c)))
		return HR_OK;
	return hr_errf(r->e, HR_INPUT, "%s: %s: '%s' is none of %s, %s%s%s",
		       r->where, key, v, a, b, c ? ", " : "", c ? c : "");
}

static int read_profile(struct reader *r, const cJSON *rec)
{
	struct trace_profile_row p = { 0 };
	int64_t *n[4] = { &p.activities, &p.kernel_ns, &p.busy_ns,
			  &p.span_ns };
	static const char *const nk[4] = {
		"activities", "kernel_ns", "busy_ns", "span_ns",
	};
	int64_t id = 0;

	if (ref_id(r, rec, "source_id", &r->sources, &p.source_id) ||
	    need_str(r, rec, "workload", &p.workload) ||
	    opt_str(r, rec, "domain", &p.domain) ||
	    opt_str(r, rec, "stack", &p.stack) ||
	    need_str(r, rec, "format", &p.format) ||
	    opt_str(r, rec, "device", &p.device) ||
	    opt_str(r, rec, "notes_json", &p.notes_json) ||
	    one_of(r, "format", p.format, "chrome", "nsys", NULL))
		return r->e->code;
	for (int i = 0; i < 4; i++)
		if (need_count(r, rec, nk[i], n[i]))
			return r->e->code;
	if (p.source_id &&
	    trace_insert_profile(r->ctx->store, &p, &id, r->e))
		return hr_err_prefix(r->e, "%s", r->where);
	return own_id(r, rec, &r->profiles, id);
}

static int read_profile_kernel(struct reader *r, const cJSON *rec)
{
	const char *kind, *name;
	int64_t pid, calls, total, max;

	if (ref_id(r, rec, "profile_id", &r->profiles, &pid) ||
	    need_str(r, rec, "kind", &kind) ||
	    need_str(r, rec, "name", &name) ||
	    one_of(r, "kind", kind, "kernel", "memcpy", "memset") ||
	    need_count(r, rec, "calls", &calls) ||
	    need_count(r, rec, "total_ns", &total) ||
	    need_count(r, rec, "max_ns", &max))
		return r->e->code;
	if (pid && trace_insert_kernel(r->ctx->store, pid, kind, name, calls,
				       total, max, r->e))
		return hr_err_prefix(r->e, "%s", r->where);
	return HR_OK;
}

/* Read every line of root/name with fn; *count = lines read. */
static int read_lines(struct reader *r, const char *name,
		      int (*fn)(struct reader *, const cJSON *),
		      int64_t *count)
{
	const struct afile *f = member(r->fs, r->root, name);
	struct jsonrec_iter it;
	const cJSON *rec;
	char file[256];
	int rc;

	snprintf(file, sizeof(file), "%s%s", r->root, name);
	if (!f)
		return hr_errf(r->e, HR_INPUT, "%s: %s is missing", r->fs->input,
			       file);
	if (jsonrec_open(&it, file, (const char *)f->data, f->len,
			 JSONREC_LINES, r->e))
		return hr_err_prefix(r->e, "%s", r->fs->input);
	while ((rc = jsonrec_next(&it, &rec, r->e)) == 1) {
		snprintf(r->where, sizeof(r->where), "%s: %s", r->fs->input,
			 it.ref);
		if (fn(r, rec)) {
			jsonrec_close(&it);
			return r->e->code;
		}
		(*count)++;
	}
	jsonrec_close(&it);
	if (rc)  /* a syntax error: name the input too */
		return hr_err_prefix(r->e, "%s", r->fs->input);
	return HR_OK;
}

/* The manifest: format and version we read, and the counts the files must
 * add up to (a truncated export is refused, not half-read). */
static int read_manifest(struct reader *r, struct export_counts *want)
{
	static const char *const keys[] = {
		"sources", "problem_sets", "problems", "evaluations",
		"kernels", "speedups", "baselines", "profiles",
		"profile_kernels",
	};
	int64_t *slots[] = {
		&want->sources, &want->problem_sets, &want->problems,
		&want->evaluations, &want->kernels, &want->speedups,
		&want->baselines, &want->profiles, &want->profile_kernels,
	};
	/* Format 1 had no profiles. */
	size_t nkeys = NELEM(keys);
	const struct afile *f = member(r->fs, r->root, "manifest.json");
	cJSON *doc;
	const cJSON *counts;
	int v, schema;

	snprintf(r->where, sizeof(r->where), "%s: %smanifest.json",
		 r->fs->input, r->root);
	if (!(doc = jsonrec_parse(r->where, (const char *)f->data, f->len,
				  r->e)))
		return r->e->code;
	if (need_int(r, doc, "format_version", &v) ||
	    need_int(r, doc, "schema_version", &schema))
		goto out;
	if (v == 1)
		nkeys -= 2;
	r->version = v;
	if (v < 1 || v > EXPORT_FORMAT_VERSION ||
	    schema > store_schema_version()) {
		hr_errf(r->e, HR_INPUT, "%s: format version %d, schema %d: "
			"written by a newer headroom (this one reads format %d,"
			" schema up to %d)", r->where, v, schema,
			EXPORT_FORMAT_VERSION, store_schema_version());
		goto out;
	}
	counts = cJSON_GetObjectItemCaseSensitive(doc, "counts");
	if (!cJSON_IsObject(counts)) {
		hr_errf(r->e, HR_INPUT, "%s: counts: missing", r->where);
		goto out;
	}
	for (size_t i = 0; i < nkeys; i++) {
		int c;

		if (need_int(r, counts, keys[i], &c))
			goto out;
		*slots[i] = c;
	}
out:
	cJSON_Delete(doc);
	return r->e->code;
}

/* Every kernels/<sha256>.py, referenced or not, so the kernel table
 * round-trips whole; evaluations find theirs again by hash. */
static int read_kernels(struct reader *r)
{
	char prefix[64];
	size_t pl;

	snprintf(prefix, sizeof(prefix), "%skernels/", r->root);
	pl = strlen(prefix);
	snprintf(r->where, sizeof(r->where), "%s: %s", r->fs->input, prefix);
	for (size_t i = 0; i < r->fs->n; i++) {
		const char *p = r->fs->files[i].path;
		char sha[HR_SHA256_HEX];
		size_t n = strlen(p);
		int64_t id;

		if (strncmp(p, prefix, pl))
			continue;
		if (n != pl + HR_SHA256_HEX - 1 + 3 || strcmp(p + n - 3, ".py"))
			return hr_errf(r->e, HR_INPUT, "%s: %s: not a kernel "
				       "file name (<sha256>.py)", r->fs->input,
				       p);
		memcpy(sha, p + pl, HR_SHA256_HEX - 1);
		sha[HR_SHA256_HEX - 1] = '\0';
		if (read_kernel(r, sha, &id))
			return r->e->code;
		r->n.kernels++;
		r->ctx->n_kernels++;
	}
	return HR_OK;
}

int ingest_export(const struct afileset *fs, struct ingest_ctx *ctx,
		  struct hr_err *e)
{
	struct reader r = { .fs = fs, .ctx = ctx, .e = e };
	struct export_counts want = { 0 };
	const char *what = NULL;

	if (!(r.root = export_root(fs)))
		return hr_errf(e, HR_INPUT, "%s: not a headroom export (no "
			       "manifest.json)", fs->input);
	if (read_manifest(&r, &want) ||
	    read_lines(&r, "sources.jsonl", read_source, &r.n.sources) ||
	    read_lines(&r, "problem_sets.jsonl", read_set,
		       &r.n.problem_sets) ||
	    read_lines(&r, "problems.jsonl", read_problem, &r.n.problems) ||
	    read_kernels(&r) ||
	    read_lines(&r, "evaluations.jsonl", read_eval,
		       &r.n.evaluations) ||
	    read_lines(&r, "speedups.jsonl", read_speedup, &r.n.speedups) ||
	    read_lines(&r, "baselines.jsonl", read_baseline, &r.n.baselines) ||
	    (r.version >= 2 &&
	     (read_lines(&r, "profiles.jsonl", read_profile, &r.n.profiles) ||
	      read_lines(&r, "profile_kernels.jsonl", read_profile_kernel,
			 &r.n.profile_kernels))))
		goto out;
	if (r.n.sources != want.sources)
		what = "sources";
	else if (r.n.problem_sets != want.problem_sets)
		what = "problem sets";
	else if (r.n.problems != want.problems)
		what = "problems";
	else if (r.n.evaluations != want.evaluations)
		what = "evaluations";
	else if (r.n.kernels != want.kernels)
		what = "kernels";
	else if (r.n.speedups != want.speedups)
		what = "speedups";
	else if (r.n.baselines != want.baselines)
		what = "baselines";
	else if (r.n.profiles != want.profiles)
		what = "profiles";
	else if (r.n.profile_kernels != want.profile_kernels)
		what = "profile kernels";
	if (what)
		hr_errf(e, HR_INPUT, "%s: %smanifest.json counts other %s than "
			"the export holds (truncated or edited export?)",
			fs->input, r.root, what);
out:
	free(r.sources.v);
	free(r.sets.v);
	free(r.evals.v);
	free(r.profiles.v);
	return e->code;
}
