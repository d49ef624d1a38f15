/* provenance.c - see provenance.h. */
#include "provenance.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../dataset/store.h"
#include "../dataset/base/clock.h"
#include "../dataset/base/version.h"

int provenance_date(sqlite3 *db, char *buf, size_t n, struct hr_err *e)
{
	sqlite3_stmt *st;
	time_t t;

	if (clock_epoch(&t)) {
		clock_utc(t, buf, n);
		return HR_OK;
	}
	if (sqlite3_prepare_v2(db, "SELECT MAX(ingested_at) FROM source", -1,
			       &st, NULL) != SQLITE_OK)
		return store_db_err(db, NULL, e);
	snprintf(buf, n, "unknown");
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, n, "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return HR_OK;
}

int provenance_have_profiles(sqlite3 *db, const char **why)
{
	sqlite3_stmt *st;
	int have = 0;

	/* The profile tables come with migration 4; rows come with
	 * `headroom ingest TRACE`. */
	if (store_has_table(db, "profile") &&
	    sqlite3_prepare_v2(db, "SELECT 1 FROM profile LIMIT 1", -1, &st,
			       NULL) == SQLITE_OK) {
		have = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	*why = have ? "profiles are stored" : "no profiles ingested";
	return have;
}

/* Add the rows of a one-column query as an array of strings. */
static int add_string(sqlite3_stmt *st, void *arr, struct hr_err *e)
{
	(void)e;
	if (sqlite3_column_text(st, 0))
		cJSON_AddItemToArray(arr, cJSON_CreateString(
			(const char *)sqlite3_column_text(st, 0)));
	return HR_OK;
}

static int add_strings(sqlite3 *db, cJSON *obj, const char *key,
		       const char *sql, struct hr_err *e)
{
	cJSON *arr = cJSON_AddArrayToObject(obj, key);

	if (!arr)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	return store_each(db, sql, add_string, arr, e);
}

static int add_source(sqlite3_stmt *st, void *arr, struct hr_err *e)
{
	static const char *const keys[] = {
		"name", "kind", "sha256", "ingested_at", "tool_version"
	};
	cJSON *src = cJSON_CreateObject();

	(void)e;
	for (int c = 0; c < 5; c++)
		cJSON_AddStringToObject(src, keys[c],
			(const char *)sqlite3_column_text(st, c));
	cJSON_AddItemToArray(arr, src);
	return HR_OK;
}

static int add_sources(sqlite3 *db, cJSON *obj, struct hr_err *e)
{
	cJSON *arr = cJSON_AddArrayToObject(obj, "sources");

	if (!arr)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	return store_each(db, "SELECT name, kind, sha256, ingested_at,"
			  " tool_version FROM source"
			  " ORDER BY name, sha256, id", add_source, arr, e);
}

int provenance_build(sqlite3 *db, const struct replayset *rs, cJSON **out,
		     struct hr_err *e)
{
	cJSON *p = cJSON_CreateObject();
	char date[64], tool[128];

	*out = NULL;
	if (!p)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	snprintf(tool, sizeof(tool), "headroom %s", hr_version());
	if (provenance_date(db, date, sizeof(date), e))
		goto fail;
	cJSON_AddStringToObject(p, "tool", tool);
	cJSON_AddNumberToObject(p, "schema_version", store_schema_version());
	cJSON_AddStringToObject(p, "date", date);
	if (add_sources(db, p, e) ||
	    add_strings(db, p, "hardware_reported", "SELECT DISTINCT hardware"
			" FROM evaluation WHERE hardware IS NOT NULL"
			" ORDER BY hardware", e) ||
	    add_strings(db, p, "audit_devices", "SELECT DISTINCT device ||"
			" ' (' || tool_version || coalesce(', torch ' || torch,"
			" '') || ')' FROM problem_audit ORDER BY 1", e))
		goto fail;
	/* GPU, driver, CUDA and torch of this machine's replay come from the
	 * replay tables; say plainly when there are none. */
	cJSON_AddStringToObject(p, "replay_environment",
				rs->n ? rs->env : rs->why);
	*out = p;
	return HR_OK;
fail:
	cJSON_Delete(p);
	return e->code;
}

int provenance_write_line(const cJSON *prov, const char *lead,
			  const char *tail, FILE *f)
{
	const cJSON *src;

	fprintf(f, "%s %s; schema %d; date %s; sources:", lead,
		cJSON_GetStringValue(cJSON_GetObjectItem(prov, "tool")),
		cJSON_GetObjectItem(prov, "schema_version")->valueint,
		cJSON_GetStringValue(cJSON_GetObjectItem(prov, "date")));
	cJSON_ArrayForEach(src, cJSON_GetObjectItem(prov, "sources")) {
		const char *sha = cJSON_GetStringValue(
			cJSON_GetObjectItem(src, "sha256"));

		/* The name is the user's text: keep it out of the comment
		 * syntax; the sha256 names the archive exactly. */
		fprintf(f, " %s sha256:%.64s", cJSON_GetStringValue(
				cJSON_GetObjectItem(src, "kind")),
			sha ? sha : "");
	}
	/* Where the replayed numbers were measured: the GPU, its driver,
	 * CUDA, torch and clocks (or the CPU).  The GPU name is the
	 * driver's text; "--" would end an HTML comment. */
	fputs("; replay: ", f);
	for (const char *c = cJSON_GetStringValue(cJSON_GetObjectItem(
		     prov, "replay_environment")); c && *c; c++)
		fputc(*c == '\n' || (*c == '-' && c[1] == '-') ? ' ' : *c, f);
	fputs(tail, f);
	return ferror(f) ? -1 : 0;
}

int provenance_write_comment(const cJSON *prov, enum hr_format fmt, FILE *f)
{
	if (fmt == HR_FMT_MD)
		return provenance_write_line(prov, "<!-- provenance:", " -->\n",
					     f);
	if (fmt == HR_FMT_TEX)
		return provenance_write_line(prov, "% provenance:", "\n", f);
	return 0;
}

int provenance_write_file(const cJSON *prov, const char *dir,
			  struct hr_err *e)
{
	char path[4096], *p = cJSON_Print(prov);
	FILE *f;
	int bad;

	if (!p)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	snprintf(path, sizeof(path), "%s/provenance.json", dir);
	if (!(f = fopen(path, "w"))) {
		cJSON_free(p);
		return hr_errf(e, HR_SYSTEM, "%s: %s", path, strerror(errno));
	}
	bad = fprintf(f, "%s\n", p) < 0;
	cJSON_free(p);
	if (fclose(f) || bad)
		return hr_errf(e, HR_SYSTEM, "%s: write error", path);
	return HR_OK;
}
