/* cmd_show.c - `headroom show ID`: one evaluation with everything stored
 * about it, a section each (evaluation, speedups, replays, kernel).  A later stage
 * adds its own section as one more function of the same shape.
 *
 * md output is "field: value" lines and a speedup table; json output is
 * one object with a member per section.
 */
#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "../dataset/base/table.h"
#include "../dataset/harness.h"
#include "../dataset/store.h"
#include "commands.h"
#include "evaldetail.h"

static const char usage[] =
	"usage: headroom show ID [--no-code] [--format md|json]\n"
	"\n"
	"Show evaluation ID (the id column of 'headroom ls'): every field\n"
	"read from the archive (verdicts, timings, error, metadata as stored\n"
	"JSON, where it came from, what its source's reader had to assume),\n"
	"its speedups with their baselines, every replay of it (headroom\n"
	"replay: verdict, timings, checks, errors, with its run's device and\n"
	"versions; its audit verdict and each finding, the evidence of the\n"
	"dynamic checks apart from the signals of the static rules; a\n"
	"tolerance line: the atol = rtol the worker used and why, the run's\n"
	"--harness, the KernelBench version the archive names, or current's\n"
	"assumed when it names none), and the kernel's SHA-256 and code.\n"
	"\n"
	"  --no-code     leave the kernel code out\n"
	"  --format F    md (default) or json\n";

/* Where a section writes: stdout lines (md) or a member of root (json). */
struct out {
	enum hr_format fmt;
	cJSON *root;
};

static const char eval_sql[] =
	"SELECT e.*, s.name AS source, s.kind AS source_kind,"
	" s.path AS source_path, s.sha256 AS source_sha256,"
	" s.notes_json AS source_notes_json, k.sha256 AS kernel_sha256"
	" FROM evaluation e JOIN source s ON s.id = e.source_id"
	" LEFT JOIN kernel k ON k.id = e.kernel_id WHERE e.id = ?1";

/* Stored text on the terminal: control characters other than newline
 * and tab are written as \xNN, so that an escape sequence in a stored
 * string (an error text, a kernel) cannot drive the terminal. */
static void put_text(const char *v)
{
	for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
		if ((*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
			printf("\\x%02x", *p);
		else
			putchar(*p);
	}
}

/* "name: value" (or "name:" for NULL), the value through put_text. */
static void put_field(const char *name, const char *v)
{
	printf("%s:%s", name, v ? " " : "");
	if (v)
		put_text(v);
	putchar('\n');
}

static int show_evaluation(sqlite3 *db, int64_t id, struct out *o,
			   struct hr_err *e)
{
	sqlite3_stmt *st;
	cJSON *obj = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, eval_sql, -1, &st, NULL) != SQLITE_OK)
		return store_db_err(db, NULL, e);
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc != SQLITE_ROW) {
		if (rc == SQLITE_DONE)
			hr_errf(e, HR_INPUT, "no evaluation with id %" PRId64
				" (see 'headroom ls')", id);
		else
			store_db_err(db, NULL, e);
		sqlite3_finalize(st);
		return e->code;
	}
	if (o->fmt == HR_FMT_JSON)
		obj = cJSON_AddObjectToObject(o->root, "evaluation");
	else
		printf("# evaluation %" PRId64 "\n\n", id);
	for (int c = 0; c < sqlite3_column_count(st); c++) {
		const char *name = sqlite3_column_name(st, c);
		const char *v = (const char *)sqlite3_column_text(st, c);

		if (obj)
			cJSON_AddItemToObject(obj, name,
					      evaldetail_column_json(st, c));
		else
			put_field(name, v);
	}
	sqlite3_finalize(st);
	return HR_OK;
}

static const struct table_col sp_cols[] = {
	{ "baseline_kind", COL_TEXT }, { "origin", COL_TEXT },
	{ "speedup", COL_REAL }, { "baseline_ms", COL_REAL },
	{ "baseline_ref", COL_TEXT },
};
#define SP_NCOLS ((int)(sizeof(sp_cols) / sizeof(sp_cols[0])))

static const char sp_sql[] =
	"SELECT baseline_kind, origin, value, baseline_ms, baseline_ref"
	" FROM speedup WHERE evaluation_id = ?1"
	" ORDER BY origin DESC, baseline_kind, id";

static int show_speedups(sqlite3 *db, int64_t id, struct out *o,
			 struct hr_err *e)
{
	cJSON *arr = NULL;
	struct table *t = NULL;
	sqlite3_stmt *st;
	int rc = SQLITE_DONE;

	if (sqlite3_prepare_v2(db, sp_sql, -1, &st, NULL) != SQLITE_OK)
		return store_db_err(db, NULL, e);
	sqlite3_bind_int64(st, 1, id);
	if (o->fmt == HR_FMT_JSON)
		arr = cJSON_AddArrayToObject(o->root, "speedups");
	else if (!(t = table_new(sp_cols, SP_NCOLS)))
		hr_errf(e, HR_SYSTEM, "out of memory");
	while (!e->code && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		char num[SP_NCOLS][64];
		const char *cells[SP_NCOLS];
		cJSON *row = arr ? cJSON_CreateObject() : NULL;

		for (int c = 0; c < SP_NCOLS; c++) {
			if (row) {
				cJSON_AddItemToObject(
					row, sp_cols[c].name,
					evaldetail_column_json(st, c));
				continue;
			}
			cells[c] = (const char *)sqlite3_column_text(st, c);
			if (cells[c] && sp_cols[c].type == COL_REAL) {
				table_fmt_real(num[c], sizeof(num[c]),
					       sqlite3_column_double(st, c));
				cells[c] = num[c];
			}
		}
		if (row)
			cJSON_AddItemToArray(arr, row);
		else if (table_add_row(t, cells))
			hr_errf(e, HR_SYSTEM, "out of memory");
	}
	if (!e->code && rc != SQLITE_DONE)
		store_db_err(db, NULL, e);
	sqlite3_finalize(st);
	if (t && !e->code) {
		printf("\n## speedups\n\n");
		if (table_rows(t))
			table_write(t, HR_FMT_MD, stdout);
		else
			printf("(none)\n");
	}
	table_free(t);
	return e->code;
}

static const char kernel_sql[] =
	"SELECT k.sha256, k.code FROM evaluation e"
	" JOIN kernel k ON k.id = e.kernel_id WHERE e.id = ?1";

static int show_kernel(sqlite3 *db, int64_t id, int with_code,
		       struct out *o, struct hr_err *e)
{
	sqlite3_stmt *st;
	const char *sha = NULL, *code = NULL;
	int rc;

	if (sqlite3_prepare_v2(db, kernel_sql, -1, &st, NULL) != SQLITE_OK)
		return store_db_err(db, NULL, e);
	sqlite3_bind_int64(st, 1, id);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		sha = (const char *)sqlite3_column_text(st, 0);
		code = (const char *)sqlite3_column_text(st, 1);
	} else if (rc != SQLITE_DONE) {
		sqlite3_finalize(st);
		return store_db_err(db, NULL, e);
	}
	if (o->fmt == HR_FMT_JSON) {
		cJSON *k = sha ? cJSON_AddObjectToObject(o->root, "kernel") :
			NULL;

		if (!sha)
			cJSON_AddNullToObject(o->root, "kernel");
		else {
			cJSON_AddStringToObject(k, "sha256", sha);
			if (with_code)
				cJSON_AddStringToObject(k, "code", code);
		}
	} else if (!sha) {
		printf("\n## kernel\n\n(no code in the archive)\n");
	} else {
		printf("\n## kernel\n\nsha256: %s\n", sha);
		if (with_code) {
			printf("\n```python\n");
			put_text(code);
			printf("%s```\n", *code && code[strlen(code) - 1] ==
			       '\n' ? "" : "\n");
		}
	}
	sqlite3_finalize(st);
	return HR_OK;
}

/* o[k] when it is a string, else fallback. */
static const char *sv(const cJSON *o, const char *k, const char *fallback)
{
	const char *v = cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(o, k));

	return v ? v : fallback;
}

/* md: a job's findings_json as one line per finding, evidence (dynamic)
 * apart from signals (static rules).  rules: the run's --rules setting
 * (NULL for a run that did not record it). */
static void print_findings(const char *json, const char *rules)
{
	cJSON *doc = json ? cJSON_Parse(json) : NULL;
	const cJSON *f, *why = cJSON_GetObjectItemCaseSensitive(doc, "why");
	const cJSON *sig = cJSON_GetObjectItemCaseSensitive(doc, "signals");
	int n = 0;

	if (!doc)
		return;
	if (cJSON_IsString(why))
		put_field("audit_why", why->valuestring);
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(doc,
							       "evidence")) {
		char *ev = cJSON_PrintUnformatted(
			cJSON_GetObjectItemCaseSensitive(f, "evidence"));

		fputs("evidence: ", stdout);
		put_text(sv(f, "id", "(unnamed)"));
		if (ev) {
			putchar(' ');
			put_text(ev);
		}
		putchar('\n');
		cJSON_free(ev);
		n++;
	}
	if (!n)
		printf("evidence: none\n");
	n = 0;
	cJSON_ArrayForEach(f, sig) {
		const cJSON *ln = cJSON_GetObjectItemCaseSensitive(f, "line");

		fputs("signal: ", stdout);
		put_text(sv(f, "id", "?"));
		printf(" line %d: ", cJSON_IsNumber(ln) ? ln->valueint : 0);
		put_text(sv(f, "text", ""));
		fputs(" (", stdout);
		put_text(sv(f, "reason", ""));
		fputs(")\n", stdout);
		n++;
	}
	if (!n)
		printf("signal: %s\n", !cJSON_IsNull(sig) ? "none" :
		       rules && !strcmp(rules, "none") ?
		       "not matched (replayed with --rules none)" : rules ?
		       "not matched (the job ended before the static rules)" :
		       "not matched");
	cJSON_Delete(doc);
}

/* The replay stage's section: every replay of this evaluation, latest
 * first, each with its run's provenance (replay_run, replay_job). */
static const char replay_sql[] =
	"SELECT r.mode, r.device, r.gpu_name, r.driver, r.cuda, r.torch,"
	" r.tool_version AS replay_tool_version, j.*,"
	/* The tolerance the worker used (checks.semantics) and what chose
	 * it: the run's --harness, else the evaluation's tag. */
	HARNESS_TOLERANCE_SQL
	" e.harness, json_extract(r.settings_json, '$.rules')"
	" FROM replay_job j JOIN replay_run r ON r.id = j.run_id"
	" JOIN evaluation e ON e.id = j.evaluation_id"
	" WHERE j.evaluation_id = ?1"
	" ORDER BY j.finished_at IS NULL, j.finished_at DESC, j.id DESC";
/* The columns after j.*, from the last: */
enum { RUN_RULES = 1, TOL_TAG, TOL_RUN, TOL_PRECISION, TOL_HARNESS, TOL_VALUE,
       TOL_N = 6 };

/* "0.0001 (KernelBench current, fp32): assumed, ..." into buf; "" when
 * the job recorded no tolerance (it did not get to the check). */
static void tolerance_line(sqlite3_stmt *st, char *buf, size_t n)
{
	int last = sqlite3_column_count(st) - 1;
	const char *tag = (const char *)sqlite3_column_text(st, last + 1 -
							     TOL_TAG);
	const char *run = (const char *)sqlite3_column_text(st, last + 1 -
							     TOL_RUN);
	const char *h = (const char *)sqlite3_column_text(st, last + 1 -
							   TOL_HARNESS);
	const char *p = (const char *)sqlite3_column_text(st, last + 1 -
							   TOL_PRECISION);
	const char *v = (const char *)sqlite3_column_text(st, last + 1 -
							   TOL_VALUE);

	harness_tolerance_text(v, h, p, run, tag, buf, n);
}

static int show_replays(sqlite3 *db, int64_t id, struct out *o,
			struct hr_err *e)
{
	cJSON *arr = NULL;
	sqlite3_stmt *st;
	int rc, n = 0;

	if (sqlite3_prepare_v2(db, replay_sql, -1, &st, NULL) != SQLITE_OK)
		return store_db_err(db, NULL, e);
	sqlite3_bind_int64(st, 1, id);
	if (o->fmt == HR_FMT_JSON)
		arr = cJSON_AddArrayToObject(o->root, "replays");
	else
		printf("\n## replays\n");
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		cJSON *row = arr ? cJSON_CreateObject() : NULL;

		if (!arr)
			printf("\n### replay job %lld (run %lld)\n\n",
			       (long long)sqlite3_column_int64(st, 7),
			       (long long)sqlite3_column_int64(st, 8));
		const char *findings = NULL;
		char tol[512];
		int last = sqlite3_column_count(st) - 1;

		for (int c = 0; c < sqlite3_column_count(st) - TOL_N; c++) {
			const char *name = sqlite3_column_name(st, c);
			const char *v = (const char *)sqlite3_column_text(st, c);

			if (row)
				cJSON_AddItemToObject(
					row, name,
					evaldetail_column_json(st, c));
			else if (!strcmp(name, "findings_json"))
				findings = v; /* printed below, per finding */
			else
				put_field(name, v);
		}
		tolerance_line(st, tol, sizeof(tol));
		if (row && *tol)
			cJSON_AddStringToObject(row, "tolerance", tol);
		else if (*tol)
			printf("tolerance: %s\n", tol);
		if (!row)
			print_findings(findings, (const char *)
				       sqlite3_column_text(st, last - RUN_RULES
							   + 1));
		if (row)
			cJSON_AddItemToArray(arr, row);
		n++;
	}
	if (rc != SQLITE_DONE)
		store_db_err(db, NULL, e);
	else if (!arr && !n)
		printf("\n(not replayed)\n");
	sqlite3_finalize(st);
	return e->code;
}

int cmd_show(int argc, char **argv, struct hr_global *g)
{
	static const struct option opts[] = {
		CLI_COMMON_OPTIONS,
		{ "no-code", no_argument, NULL, 'n' },
		{ 0 }
	};
	struct out o = { 0 };
	struct store *s;
	struct hr_err e;
	int c, r, with_code = 1;
	long long id;

	hr_err_clear(&e);
	while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT, opts, NULL))
	       != -1) {
		r = cli_common_option(g, "show", usage, c, argc, argv);
		if (r == CLI_NEXT)
			continue;
		if (r != CLI_OTHER)
			return r;
		with_code = 0;
	}
	if (optind + 1 != argc)
		return cli_usage_error("show", "wants one evaluation ID");
	if (cli_parse_int(argv[optind], 1, INT64_MAX, &id))
		return cli_usage_error("show", "ID must be a positive integer, "
				       "not '%s'", argv[optind]);
	if ((r = cli_check_format(g, "show", CLI_FMT(HR_FMT_MD) |
				  CLI_FMT(HR_FMT_JSON))) != CLI_NEXT)
		return r;
	if (store_open(&s, g->db_path, STORE_READ, &e))
		return cli_report("show", &e);
	o.fmt = g->format;
	if (o.fmt == HR_FMT_JSON && !(o.root = cJSON_CreateObject()))
		hr_errf(&e, HR_SYSTEM, "out of memory");
	if (!e.code && !show_evaluation(store_db(s), id, &o, &e) &&
	    !show_speedups(store_db(s), id, &o, &e) &&
	    !show_replays(store_db(s), id, &o, &e))
		show_kernel(store_db(s), id, with_code, &o, &e);
	if (!e.code && o.root) {
		char *txt = cJSON_Print(o.root);

		if (txt)
			printf("%s\n", txt);
		else
			hr_errf(&e, HR_SYSTEM, "out of memory");
		cJSON_free(txt);
	}
	cJSON_Delete(o.root);
	store_close(s);
	return cli_report("show", &e);
}
