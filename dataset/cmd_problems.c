/* cmd_problems.c - `headroom problems add|ls`: KernelBench-format problem
 * sets (levelN/ID_Name.py), each problem identified by its file's SHA-256.
 */
#include <string.h>

#include "base/table.h"
#include "cmd_ingest.h"
#include "commands.h"

static const char usage[] =
	"usage: headroom problems add DIR|ARCHIVE [--name NAME]\n"
	"                         [--max-entry-mb N] [--max-total-mb N]\n"
	"       headroom problems ls [--format md|csv|json|tex]\n"
	"\n"
	"add: store a KernelBench-format problem set: every levelN/ID_Name.py\n"
	"at any depth of a directory or archive, with the SHA-256 of its\n"
	"file.  Other files are ignored; ID_Name.py under a directory named\n"
	"level-something that is not levelN is refused.  The set is named\n"
	"--name, else the input's base name.  The same content twice adds\n"
	"nothing.\n"
	"ls: one row per stored problem: set, level, problem_id, name,\n"
	"sha256.\n";

enum { OPT_NAME = 0x2000, OPT_MAX_ENTRY, OPT_MAX_TOTAL };

static int problems_add(int argc, char **argv, struct hr_global *g)
{
	static const struct option opts[] = {
		CLI_COMMON_OPTIONS,
		{ "name", required_argument, NULL, OPT_NAME },
		{ "max-entry-mb", required_argument, NULL, OPT_MAX_ENTRY },
		{ "max-total-mb", required_argument, NULL, OPT_MAX_TOTAL },
		{ 0 }
	};
	struct ingest_opts o = { .kind = INGEST_PROBLEMS };
	struct hr_err e;
	int c, r;

	hr_err_clear(&e);
	archive_limits_default(&o.limits);
	while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT, opts, NULL))
	       != -1) {
		r = cli_common_option(g, "problems", usage, c, argc, argv);
		if (r == CLI_NEXT)
			continue;
		if (r != CLI_OTHER)
			return r;
		if (c == OPT_NAME) {
			o.source_name = optarg;
			continue;
		}
		r = ingest_parse_cap("problems", c == OPT_MAX_ENTRY, optarg,
				     &o.limits);
		if (r)
			return r;
	}
	if ((r = cli_check_format(g, "problems add", 0)) != CLI_NEXT)
		return r;
	if (optind + 1 != argc)
		return cli_usage_error("problems", "add wants one DIR or "
				       "ARCHIVE");
	r = ingest_cli_run(g, argv + optind, 1, &o, &e);
	return r ? cli_report("problems", &e) : HR_OK;
}

static const struct table_col cols[] = {
	{ "set", COL_TEXT }, { "level", COL_INT }, { "problem_id", COL_INT },
	{ "name", COL_TEXT }, { "sha256", COL_TEXT },
};
#define NCOLS ((int)(sizeof(cols) / sizeof(cols[0])))

static const char query[] =
	"SELECT ps.name, p.level, p.problem_id, p.name, p.sha256"
	" FROM problem p JOIN problem_set ps ON ps.id = p.set_id"
	" ORDER BY ps.name, ps.id, p.level, p.problem_id";

static int add_row(sqlite3_stmt *st, void *t, struct hr_err *e)
{
	const char *cells[NCOLS];

	for (int c = 0; c < NCOLS; c++)
		cells[c] = (const char *)sqlite3_column_text(st, c);
	if (table_add_row(t, cells))
		return hr_errf(e, HR_SYSTEM, "out of memory");
	return HR_OK;
}

static int fill(struct store *s, struct table *t, struct hr_err *e)
{
	return store_each(store_db(s), query, add_row, t, e);
}

static int problems_ls(int argc, char **argv, struct hr_global *g)
{
	static const struct option opts[] = { CLI_COMMON_OPTIONS, { 0 } };
	struct store *s;
	struct table *t;
	struct hr_err e;
	int c, r;

	hr_err_clear(&e);
	while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT, opts, NULL))
	       != -1) {
		r = cli_common_option(g, "problems", usage, c, argc, argv);
		if (r == CLI_NEXT)
			continue;
		return r == CLI_OTHER ? HR_USAGE : r;
	}
	if (optind < argc)
		return cli_usage_error("problems", "unexpected argument '%s'",
				       argv[optind]);
	if (store_open(&s, g->db_path, STORE_READ, &e))
		return cli_report("problems", &e);
	if (!(t = table_new(cols, NCOLS))) {
		store_close(s);
		return HR_SYSTEM;
	}
	if (fill(s, t, &e) == HR_OK)
		table_write(t, g->format, stdout);
	table_free(t);
	store_close(s);
	return cli_report("problems", &e);
}

int cmd_problems(int argc, char **argv, struct hr_global *g)
{
	if (argc >= 2 && !strcmp(argv[1], "add"))
		return problems_add(argc - 1, argv + 1, g);
	if (argc >= 2 && !strcmp(argv[1], "ls"))
		return problems_ls(argc - 1, argv + 1, g);
	if (argc >= 2 && (!strcmp(argv[1], "-h") ||
			  !strcmp(argv[1], "--help"))) {
		fputs(usage, stdout);
		return HR_OK;
	}
	return cli_usage_error("problems", "expected 'add' or 'ls'");
}
