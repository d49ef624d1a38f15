/* ingest.c - ingest_fileset: the one way an input gets into the store.
 *
 * The caller loads (archive.h) first; then detect the kind, and in ONE
 * transaction register the source and run the reader; any error rolls
 * everything back, so a failed ingest leaves the database as it was.  Loading happens before the
 * transaction opens: a bad archive never even takes the write lock.
 */
#include <cjson/cJSON.h>
#include <stdio.h>
#include <string.h>

#include "ingest.h"
#include "base/text.h"

static const char *const archive_exts[] = {
	".tar.gz", ".tar.xz", ".tar.zst", ".tar.bz2", ".tgz", ".txz",
	".tzst", ".tar", ".zip", ".jsonl", ".json",
};

void ingest_base_name(const char *path, char *buf, size_t n)
{
	size_t len = strlen(path), start, blen;

	while (len > 1 && path[len - 1] == '/')
		len--;
	start = len;
	while (start > 0 && path[start - 1] != '/')
		start--;
	blen = len - start;
	for (size_t i = 0; i < sizeof(archive_exts) / sizeof(*archive_exts);
	     i++) {
		size_t el = strlen(archive_exts[i]);

		if (blen > el && !strncasecmp(path + start + blen - el,
					      archive_exts[i], el)) {
			blen -= el;
			break;
		}
	}
	text_copy(buf, n, path + start, blen);
}

static int count_kernels(struct store *s, int64_t *n, struct hr_err *e)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(store_db(s), "SELECT count(*) FROM kernel", -1,
			       &st, NULL) != SQLITE_OK)
		return hr_errf(e, HR_SYSTEM, "database: %s",
			       sqlite3_errmsg(store_db(s)));
	rc = sqlite3_step(st);
	*n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return hr_errf(e, HR_SYSTEM, "database: %s",
			       sqlite3_errmsg(store_db(s)));
	return HR_OK;
}

static int run_reader(const struct afileset *fs, const struct ingest_opts *o,
		      const char *kind, struct ingest_ctx *ctx,
		      struct hr_err *e)
{
	if (!strcmp(kind, "problems"))
		return ingest_problems(fs, ctx, e);
	if (!strcmp(kind, "export"))
		return ingest_export(fs, ctx, e);
	if (!strcmp(kind, "leaderboard"))
		return ingest_leaderboard(fs, o->map, ctx, e);
	return ingest_kernelbench(fs, ctx, e);
}

/* Everything inside the transaction. */
static int ingest_set(struct store *s, const struct afileset *fs,
		      const struct ingest_opts *o, struct ingest_result *r,
		      struct hr_err *e)
{
	struct store_source src = {
		.name = r->name, .path = fs->input, .kind = r->kind,
		.sha256 = fs->sha256,
		.map_name = o->map ? lb_map_name(o->map) : NULL,
	};
	struct ingest_ctx ctx = { .store = s, .source_name = r->name };
	int64_t before = 0, after = 0;
	char *notes = NULL;
	int rc;

	if (store_add_source(s, &src, &r->source_id, &r->existed, e) ||
	    r->existed)
		return e->code;
	ctx.source_id = r->source_id;
	if (!(ctx.notes = cJSON_CreateObject()))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	rc = count_kernels(s, &before, e);
	if (rc == HR_OK)
		rc = run_reader(fs, o, r->kind, &ctx, e);
	if (rc == HR_OK)
		rc = count_kernels(s, &after, e);
	if (rc == HR_OK && cJSON_GetArraySize(ctx.notes) > 0) {
		if (!(notes = cJSON_PrintUnformatted(ctx.notes)))
			rc = hr_errf(e, HR_SYSTEM, "out of memory");
		else
			rc = store_set_source_notes(s, r->source_id, notes, e);
	}
	cJSON_free(notes);
	cJSON_Delete(ctx.notes);
	r->n_evaluations = ctx.n_evaluations;
	r->n_kernels = ctx.n_kernels;
	r->n_kernels_new = after - before;
	r->n_speedups = ctx.n_speedups;
	r->n_baselines = ctx.n_baselines;
	r->n_problems = ctx.n_problems;
	return rc;
}

int ingest_fileset(struct store *s, const struct afileset *fs,
		   const struct ingest_opts *o, struct ingest_result *r,
		   struct hr_err *e)
{
	int rc;

	memset(r, 0, sizeof(*r));
	memcpy(r->sha256, fs->sha256, sizeof(r->sha256));
	if (o->source_name)
		text_copy(r->name, sizeof(r->name), o->source_name,
			  strlen(o->source_name));
	else
		ingest_base_name(fs->input, r->name, sizeof(r->name));
	if (o->kind == INGEST_PROBLEMS)
		r->kind = "problems";
	else if (ingest_is_export(fs))
		r->kind = "export";
	else if (o->map)
		r->kind = "leaderboard";
	else
		r->kind = "kernelbench-run";
	rc = store_begin(s, e);
	if (rc == HR_OK)
		rc = ingest_set(s, fs, o, r, e);
	if (rc == HR_OK && !r->existed)
		rc = store_commit(s, e);
	if (rc != HR_OK || r->existed)
		store_rollback(s);
	return rc;
}
