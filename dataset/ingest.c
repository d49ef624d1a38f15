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

static int count_kernels(struct store *s, int64_t *n, struct hr_err *e)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(store_db(s), "SELECT count(*) FROM kernel", -1,
			       &st, NULL) != SQLITE_OK)
		return store_db_err(store_db(s), NULL, e);
	rc = sqlite3_step(st);
	*n = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return store_db_err(store_db(s), NULL, e);
	return HR_OK;
}

/* The readers, in the order they are asked: the first whose detect takes
 * the set reads it.  name is the source kind stored with it. */
struct ingest_reader {
	const char *name;
	int (*detect)(const struct afileset *fs, const struct ingest_opts *o);
	int (*read)(const struct afileset *fs, struct ingest_ctx *ctx,
		    struct hr_err *e);
};

static int is_problems(const struct afileset *fs, const struct ingest_opts *o)
{
	(void)fs;
	return o->kind == INGEST_PROBLEMS;
}

static int is_export(const struct afileset *fs, const struct ingest_opts *o)
{
	return o->kind == INGEST_AUTO && ingest_is_export(fs);
}

static int is_leaderboard(const struct afileset *fs,
			  const struct ingest_opts *o)
{
	(void)fs;
	return o->kind == INGEST_AUTO && o->map;
}

static int is_kernelbench(const struct afileset *fs,
			  const struct ingest_opts *o)
{
	(void)fs;
	return o->kind == INGEST_AUTO;
}

static int read_leaderboard(const struct afileset *fs, struct ingest_ctx *ctx,
			    struct hr_err *e)
{
	return ingest_leaderboard(fs, ctx->map, ctx, e);
}

static const struct ingest_reader readers[] = {
	{ "problems", is_problems, ingest_problems },
	{ "export", is_export, ingest_export },
	{ "leaderboard", is_leaderboard, read_leaderboard },
	{ "kernelbench-run", is_kernelbench, ingest_kernelbench },
};

static const struct ingest_reader *find_reader(const struct afileset *fs,
					       const struct ingest_opts *o)
{
	for (size_t i = 0; i < sizeof(readers) / sizeof(*readers); i++)
		if (readers[i].detect(fs, o))
			return &readers[i];
	return NULL;
}

/* Everything inside the transaction. */
static int ingest_set(struct store *s, const struct afileset *fs,
		      const struct ingest_opts *o,
		      const struct ingest_reader *reader,
		      struct ingest_result *r, struct hr_err *e)
{
	struct store_source src = {
		.name = r->name, .path = fs->input, .kind = r->kind,
		.sha256 = fs->sha256,
		.map_name = o->map ? lb_map_name(o->map) : NULL,
	};
	struct ingest_ctx ctx = { .store = s, .source_name = r->name,
				  .map = o->map };
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
		rc = reader->read(fs, &ctx, e);
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
	const struct ingest_reader *reader = find_reader(fs, o);
	int rc;

	memset(r, 0, sizeof(*r));
	memcpy(r->sha256, fs->sha256, sizeof(r->sha256));
	if (o->source_name)
		text_copy(r->name, sizeof(r->name), o->source_name,
			  strlen(o->source_name));
	else
		archive_base_name(fs->input, r->name, sizeof(r->name));
	if (!reader)
		return hr_errf(e, HR_USAGE, "%s: no reader for this input",
			       fs->input);
	r->kind = reader->name;
	rc = store_begin(s, e);
	if (rc == HR_OK)
		rc = ingest_set(s, fs, o, reader, r, e);
	if (rc == HR_OK && !r->existed)
		rc = store_commit(s, e);
	if (rc != HR_OK || r->existed)
		store_rollback(s);
	return rc;
}
