/* trace_nsys.c - Nsight Systems SQLite exports (`nsys export --type
 * sqlite`).
 *
 * Owns: reading CUPTI_ACTIVITY_KIND_KERNEL (names through StringIds:
 * demangledName, else shortName), CUPTI_ACTIVITY_KIND_MEMCPY (named by
 * copyKind, as nsys's own reports do) and CUPTI_ACTIVITY_KIND_MEMSET;
 * start and end are nanoseconds.  nsys creates tables lazily, so any of
 * them may be missing; one at least must be there.  The file is outside
 * input: it is opened read-only and immutable (no lock, no -wal or -shm
 * beside it), defensive, with SQLite's limits lowered and a budget of
 * virtual-machine steps proportional to its size; only the tables the
 * format defines are read, by name, and each must be a table (a view,
 * recursive or not, is refused).  Rows are stepped, never loaded whole.
 * Must not: store anything, print.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <sqlite3.h>

#include "../dataset/archive.h"
#include "trace.h"

/* Virtual-machine steps allowed per byte of the file, and at least. */
#define STEPS_PER_BYTE 100
#define STEPS_MIN 100000000LL
#define STEP_CHUNK 1000

struct budget {
	int64_t left;   /* in STEP_CHUNK steps */
};

static int on_progress(void *arg)
{
	struct budget *b = arg;

	return --b->left < 0;
}

static int has_column(sqlite3 *db, const char *table, const char *col)
{
	sqlite3_stmt *st;
	int found = 0;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info(?1)"
			       " WHERE name = ?2", -1, &st, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, col, -1, SQLITE_STATIC);
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/* CUpti_ActivityMemcpyKind, in nsys's short spelling. */
static const char *copy_name(int kind)
{
	static const char *const names[] = {
		"[CUDA memcpy Unknown]", "[CUDA memcpy HtoD]",
		"[CUDA memcpy DtoH]", "[CUDA memcpy HtoA]",
		"[CUDA memcpy AtoH]", "[CUDA memcpy AtoA]",
		"[CUDA memcpy AtoD]", "[CUDA memcpy DtoA]",
		"[CUDA memcpy DtoD]", "[CUDA memcpy HtoH]",
		"[CUDA memcpy PtoP]",
	};

	return kind >= 0 && kind < (int)(sizeof(names) / sizeof(*names)) ?
		names[kind] : names[0];
}

/* Step st (columns: name or NULL, start, end, [copyKind]) into t. */
static int read_rows(sqlite3 *db, sqlite3_stmt *st, const char *path,
		     const char *table, enum trace_kind kind, struct trace *t,
		     struct hr_err *e)
{
	int64_t row = 0;
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *name;
		size_t len;
		int64_t start, end;
		int ar;

		row++;
		if (sqlite3_column_type(st, 1) != SQLITE_INTEGER ||
		    sqlite3_column_type(st, 2) != SQLITE_INTEGER)
			return hr_errf(e, HR_INPUT, "%s: %s row %lld: start "
				       "and end must be integers (ns)", path,
				       table, (long long)row);
		start = sqlite3_column_int64(st, 1);
		end = sqlite3_column_int64(st, 2);
		if (kind == TRACE_KERNEL)
			name = sqlite3_column_type(st, 0) == SQLITE_NULL ?
				NULL : (const char *)sqlite3_column_blob(st, 0);
		else if (kind == TRACE_MEMCPY)
			name = copy_name(sqlite3_column_int(st, 4));
		else
			name = "[CUDA memset]";
		if (!name && kind == TRACE_KERNEL &&
		    sqlite3_column_type(st, 0) == SQLITE_NULL)
			return hr_errf(e, HR_INPUT, "%s: %s row %lld: its name "
				       "id is not in StringIds", path, table,
				       (long long)row);
		if (start > TRACE_MAX_TS_NS || start < -TRACE_MAX_TS_NS ||
		    end > TRACE_MAX_TS_NS || end < -TRACE_MAX_TS_NS)
			return hr_errf(e, HR_INPUT, "%s: %s row %lld: start or "
				       "end out of range", path, table,
				       (long long)row);
		if (end < start)
			return hr_errf(e, HR_INPUT, "%s: %s row %lld: end before "
				       "start", path, table, (long long)row);
		if (end - start > 3600LL * 1000000000LL)
			return hr_errf(e, HR_INPUT, "%s: %s row %lld: lasts "
				       "over an hour; nsys times are ns (wrong "
				       "units?)", path, table, (long long)row);
		len = kind == TRACE_KERNEL ?
			(size_t)sqlite3_column_bytes(st, 0) : strlen(name);
		ar = trace_add(t, kind, name ? name : "", len,
			       sqlite3_column_int64(st, 3), start, end - start);
		if (ar == TRACE_ADD_NOMEM)
			return hr_errf(e, HR_SYSTEM, "out of memory");
		if (ar)
			return hr_errf(e, HR_INPUT, "%s: %s row %lld: %s%s",
				       path, table, (long long)row,
				       trace_add_error(ar),
				       ar == TRACE_ADD_OVERFLOW ? "" :
				       " (StringIds value)");
	}
	if (rc == SQLITE_INTERRUPT)
		return hr_errf(e, HR_INPUT, "%s: %s: reading it took more "
			       "steps than a file of its size can need (a "
			       "hostile schema?)", path, table);
	if (rc != SQLITE_DONE)
		return hr_errf(e, HR_INPUT, "%s: %s: %s", path, table,
			       sqlite3_errmsg(db));
	return HR_OK;
}

/* Rows of table as read_rows takes them: name, start, end, the device
 * (deviceId; 0 in an export without it), then what (copyKind) or nothing;
 * name is an SQL expression over the table as k. */
static int read_table(sqlite3 *db, const char *path, const char *table,
		      const char *name, const char *join, const char *what,
		      enum trace_kind kind, struct trace *t, struct hr_err *e)
{
	sqlite3_stmt *st;
	char sql[512];

	if (!store_has_table(db, table))
		return HR_OK;
	snprintf(sql, sizeof(sql), "SELECT %s, k.start, k.end, %s%s FROM %s k%s",
		 name, has_column(db, table, "deviceId") ? "k.deviceId" : "0",
		 what, table, join);
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return hr_errf(e, HR_INPUT, "%s: %s lacks the columns of an "
			       "nsys export: %s", path, table,
			       sqlite3_errmsg(db));
	read_rows(db, st, path, table, kind, t, e);
	sqlite3_finalize(st);
	return e->code;
}

static int hash_file(const char *path, char out[HR_SHA256_HEX],
		     struct hr_err *e)
{
	struct hr_sha256 *h = hr_sha256_new();
	unsigned char *buf = malloc(1 << 16);
	FILE *f = NULL;
	size_t n;

	if (!h || !buf) {
		hr_errf(e, HR_SYSTEM, "out of memory");
	} else if (archive_fopen_regular(path, NULL, &f, e) == HR_OK) {
		while ((n = fread(buf, 1, 1 << 16, f)) > 0)
			hr_sha256_update(h, buf, n);
		if (ferror(f))
			hr_errf(e, HR_SYSTEM, "%s: read error", path);
		fclose(f);
	}
	free(buf);
	if (h && hr_sha256_final(h, out) && e->code == HR_OK)
		hr_errf(e, HR_SYSTEM, "sha256 failed");
	return e->code;
}

/* path as an SQLite URI that opens it read-only and immutable: every
 * byte outside [A-Za-z0-9/._~-] percent-encoded (sqlite3_free). */
static char *file_uri(const char *path)
{
	static const char tail[] = "?mode=ro&immutable=1";
	size_t n = strlen(path), cap = 5 + 3 * n + sizeof(tail), w = 5;
	char *u = sqlite3_malloc64(cap);

	if (!u)
		return NULL;
	memcpy(u, "file:", 5);
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		if (strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			   "0123456789/._~-", *c))
			u[w++] = (char)*c;
		else
			w += (size_t)snprintf(u + w, cap - w, "%%%02X", *c);
	memcpy(u + w, tail, sizeof(tail));
	return u;
}

/* The tables read, each a table (not a view) when present. */
static int check_tables(sqlite3 *db, const char *path, struct hr_err *e)
{
	static const char *const names[] = {
		"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
		"CUPTI_ACTIVITY_KIND_MEMSET", "StringIds",
	};
	sqlite3_stmt *st;
	int rc = HR_OK;

	if (sqlite3_prepare_v2(db, "SELECT type FROM sqlite_schema WHERE"
			       " name = ?1 COLLATE NOCASE", -1, &st, NULL) !=
	    SQLITE_OK)
		return hr_errf(e, HR_INPUT, "%s: cannot read its schema: %s",
			       path, sqlite3_errmsg(db));
	for (size_t i = 0; i < sizeof(names) / sizeof(*names) && !rc; i++) {
		sqlite3_reset(st);
		sqlite3_bind_text(st, 1, names[i], -1, SQLITE_STATIC);
		while (sqlite3_step(st) == SQLITE_ROW)
			if (strcmp((const char *)sqlite3_column_text(st, 0),
				   "table"))
				rc = hr_errf(e, HR_INPUT, "%s: %s is a %s, not "
					     "a table (refused: an nsys export "
					     "has tables)", path, names[i],
					     sqlite3_column_text(st, 0));
	}
	sqlite3_finalize(st);
	return rc;
}

int trace_read_nsys(const char *path, struct trace *t, struct hr_err *e)
{
	static const char *const kt = "CUPTI_ACTIVITY_KIND_KERNEL";
	struct budget b;
	struct stat sb;
	sqlite3 *db = NULL;
	const char *kjoin;
	char *uri;

	t->format = TRACE_NSYS;
	if (hash_file(path, t->sha256, e))
		return e->code;
	if (!(uri = file_uri(path)))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI,
			    NULL) != SQLITE_OK) {
		sqlite3_free(uri);
		hr_errf(e, HR_INPUT, "%s: cannot open as SQLite: %s", path,
			db ? sqlite3_errmsg(db) : "out of memory");
		goto done;
	}
	sqlite3_free(uri);
	/* Outside input: no schema tricks, no writable schema, small
	 * limits, and a step budget (an expensive query ends). */
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, NULL);
	sqlite3_limit(db, SQLITE_LIMIT_LENGTH, 16 << 20);
	sqlite3_limit(db, SQLITE_LIMIT_SQL_LENGTH, 100000);
	sqlite3_limit(db, SQLITE_LIMIT_COLUMN, 500);
	sqlite3_limit(db, SQLITE_LIMIT_EXPR_DEPTH, 100);
	sqlite3_limit(db, SQLITE_LIMIT_COMPOUND_SELECT, 10);
	sqlite3_limit(db, SQLITE_LIMIT_VDBE_OP, 25000);
	sqlite3_limit(db, SQLITE_LIMIT_FUNCTION_ARG, 8);
	sqlite3_limit(db, SQLITE_LIMIT_ATTACHED, 0);
	sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, 100);
	sqlite3_limit(db, SQLITE_LIMIT_TRIGGER_DEPTH, 1);
	sqlite3_limit(db, SQLITE_LIMIT_WORKER_THREADS, 0);
	b.left = (stat(path, &sb) ? 0 : (int64_t)sb.st_size) *
		STEPS_PER_BYTE / STEP_CHUNK + STEPS_MIN / STEP_CHUNK;
	sqlite3_progress_handler(db, STEP_CHUNK, on_progress, &b);
	if (check_tables(db, path, e))
		goto done;
	if (!store_has_table(db, kt) &&
	    !store_has_table(db, "CUPTI_ACTIVITY_KIND_MEMCPY") &&
	    !store_has_table(db, "CUPTI_ACTIVITY_KIND_MEMSET")) {
		hr_errf(e, HR_INPUT, "%s: an SQLite file without CUPTI "
			"activity tables: not an nsys export of a CUDA trace "
			"(nsys profile --trace=cuda)", path);
		goto done;
	}
	kjoin = has_column(db, kt, "demangledName") ?
		" LEFT JOIN StringIds s ON s.id = k.demangledName" :
		" LEFT JOIN StringIds s ON s.id = k.shortName";
	if (read_table(db, path, kt, "s.value", kjoin, "", TRACE_KERNEL, t,
		       e) ||
	    read_table(db, path, "CUPTI_ACTIVITY_KIND_MEMCPY", "NULL", "",
		       ", k.copyKind", TRACE_MEMCPY, t, e) ||
	    read_table(db, path, "CUPTI_ACTIVITY_KIND_MEMSET", "NULL", "", "",
		       TRACE_MEMSET, t, e))
		goto done;
	if (t->activities == 0)
		hr_errf(e, HR_INPUT, "%s: the CUPTI tables hold no GPU "
			"activity", path);
done:
	sqlite3_close(db);
	return e->code;
}
