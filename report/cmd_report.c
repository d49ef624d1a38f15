/* cmd_report.c - `headroom report claims|models|problems|findings|
 * evidence|signals|detection|replay|profiles|dlrm|all|html`: the tables
 * behind the paper, from the store alone; html lays them out as one page
 * (report/html.h).
 *
 * Every table goes through dataset/base/table.h; every output carries its
 * provenance (report/provenance.h says how per format).  Read-only.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "../dataset/base/outdir.h"
#include "../dataset/base/runfiles.h"
#include "../dataset/store.h"
#include "commands.h"
#include "html.h"
#include "provenance.h"
#include "tables.h"

static const char usage[] =
	"usage: headroom report REPORT [--out DIR] [--format md|csv|json|tex]\n"
	"                       [--claims FILE] [--roles FILE] [--strict]\n"
	"                       [--classes FILE] [--problem-map FILE]\n"
	"                       [--dlrm-map FILE] [--workload W] [--stack S]\n"
	"       headroom report html --out FILE.html [--no-figures] [...]\n"
	"\n"
	"Tables recomputed from the store (docs/report.md defines every\n"
	"column).  REPORT is one of:\n"
	"  claims     the paper's claims: stated value, value recomputed from\n"
	"             the archive as reported, this machine's replay (faithful,\n"
	"             robust), status\n"
	"  models     per model configuration: evaluations, compiled, correct\n"
	"             (original and scale-invariant checks), speedups > 1,\n"
	"             median speedup of winners, convolutions solved\n"
	"  problems   per problem: max|ref|, presets under which a degenerate\n"
	"             output passes, margin (from 'headroom audit problems')\n"
	"  findings   what the archive alone shows per kernel (static), with\n"
	"             evidence\n"
	"  evidence   per replayed kernel and mode: each dynamic evidence\n"
	"             finding of the replay's checks, with its audit verdict\n"
	"  signals    per replayed kernel: each static rule that matched its\n"
	"             source (suspect:RULE), line and reason\n"
	"  detection  the planted suite (models planted-CLASS and\n"
	"             honest-CLASS-fast|slow): audit verdicts per class,\n"
	"             kernel and mode, caught / neutralised / missed,\n"
	"             clean / flagged\n"
	"  replay     per kernel: reported vs replayed speedup and interval,\n"
	"             status, and the tolerance of the check behind it\n"
	"  profiles   per profiled workload: GPU time by kernel class, the\n"
	"             addressable fraction, its bound 1/(1-f) and the\n"
	"             projection from verified speedups (docs/profiles.md)\n"
	"  dlrm       DLRM-Bench per model configuration and problem: weight\n"
	"             from the DLRM workload's profile, reported and verified\n"
	"             speedups, and the projected end-to-end time reduction\n"
	"             R (docs/dlrm-bench.md)\n"
	"  provenance where the numbers come from (sources, sha256, tool)\n"
	"  all        every report above; needs --out\n"
	"  html       every report above, the figures and each\n"
	"             evaluation's drill-down as one self-contained page;\n"
	"             needs --out FILE.html (--no-figures: leave the\n"
	"             figures out)\n"
	"\n"
	"  --out DIR      write REPORT.md/.csv/.json/.tex and provenance.json\n"
	"                 into DIR instead of printing one format\n"
	"  --claims FILE  claims ledger (default claims.json in\n"
	"                 PREFIX/share/headroom: $HEADROOM_PREFIX or the\n"
	"                 prefix headroom was built for; a copy of\n"
	"                 paper/claims.json)\n"
	"  --roles FILE   roles -> configurations (default roles.json there)\n"
	"  --strict       claims: exit 1 when a claim differs from the archive\n"
	"  --classes FILE kernel-class rules (default maps/kernel-\n"
	"                 classes.rules, found like --claims)\n"
	"  --problem-map FILE  problem name -> kernel class, for the\n"
	"                 projection (default problem-classes.rules there)\n"
	"  --dlrm-map FILE  DLRM-Bench problem -> kernel classes (default\n"
	"                 dlrm-kernel-classes.json there)\n"
	"  --workload W   dlrm, claims: the profiled workload whose class\n"
	"                 shares weigh DLRM-Bench (default dlrm)\n"
	"  --stack S      ... and its stack (default eager)\n"
	"  --db FILE      database (default ./headroom.db or $HEADROOM_DB)\n"
	"  --format F     md (default), csv, json or tex\n"
	"\n"
	"md starts with a <!-- provenance --> line, tex with a % line, json\n"
	"embeds it as \"provenance\"; csv has none (see provenance.json).\n";


static int emit(const struct table *t, const cJSON *prov, enum hr_format fmt,
		FILE *f)
{
	if (fmt == HR_FMT_JSON) {
		char *p = cJSON_Print(prov);

		if (!p)
			return -1;
		fprintf(f, "{\"provenance\": %s,\n\"rows\": ", p);
		cJSON_free(p);
		if (table_write(t, fmt, f))
			return -1;
		fputs("}\n", f);
		return ferror(f) ? -1 : 0;
	}
	if (provenance_write_comment(prov, fmt, f))
		return -1;
	return table_write(t, fmt, f);
}

static int write_file(const char *dir, const char *name, const char *ext,
		      const struct table *t, const cJSON *prov,
		      enum hr_format fmt, struct hr_err *e)
{
	char path[4096];
	FILE *f;
	int bad;

	snprintf(path, sizeof(path), "%s/%s.%s", dir, name, ext);
	if (!(f = fopen(path, "w")))
		return hr_errf(e, HR_SYSTEM, "%s: %s", path, strerror(errno));
	bad = emit(t, prov, fmt, f);
	if (fclose(f) || bad)
		return hr_errf(e, HR_SYSTEM, "%s: write error", path);
	return HR_OK;
}

static int run_one(struct report_data *d, size_t k, const char *out,
		   enum hr_format fmt, const cJSON *prov, struct hr_err *e)
{
	static const char *const ext[] = {
		[HR_FMT_MD] = "md", [HR_FMT_CSV] = "csv",
		[HR_FMT_JSON] = "json", [HR_FMT_TEX] = "tex",
	};
	struct table *t = NULL;

	if (report_tables[k].build(d, &t, e) == HR_OK) {
		if (!out) {
			emit(t, prov, fmt, stdout);
		} else {
			for (int f = 0; f < 4 && e->code == HR_OK; f++)
				write_file(out, report_tables[k].name, ext[f], t,
					   prov, (enum hr_format)f, e);
		}
	}
	table_free(t);
	return e->code;
}

/* Every report's table, laid out as one page (report/html.h). */
static int run_html(struct report_data *d, const char *path, int no_figures,
		    struct hr_err *e)
{
	struct html_table tables[REPORT_NTABLES];
	struct html_input in = {
		d->db, &d->es, &d->as, &d->rs, &d->fl, &d->ps,
		d->have_ds ? &d->ds : NULL, d->dlrm_why, d->prov,
		d->claims_path, d->roles_path, tables, 0, NULL,
		"left out (--no-figures)",
	};
	char scripts[4096];
	size_t k;

	runfiles_path(RUNFILES_SHARE, "figures", scripts, sizeof(scripts));
	in.scripts_dir = no_figures ? NULL : scripts;
	for (k = 0; k < REPORT_NTABLES; k++) {
		struct table *t = NULL;

		tables[k].name = report_tables[k].name;
		if (report_tables[k].build(d, &t, e)) {
			table_free(t);
			break;
		}
		tables[k].t = t;
		in.ntables = k + 1;
	}
	if (!e->code)
		html_write_file(&in, path, e);
	for (k = 0; k < in.ntables; k++)
		table_free((struct table *)tables[k].t);
	return e->code;
}

int cmd_report(int argc, char **argv, struct hr_global *g)
{
	static const struct option opts[] = {
		CLI_COMMON_OPTIONS,
		{ "out", required_argument, NULL, 'o' },
		{ "claims", required_argument, NULL, 'c' },
		{ "roles", required_argument, NULL, 'r' },
		{ "strict", no_argument, NULL, 's' },
		{ "classes", required_argument, NULL, 'k' },
		{ "problem-map", required_argument, NULL, 'p' },
		{ "dlrm-map", required_argument, NULL, 'D' },
		{ "workload", required_argument, NULL, 'W' },
		{ "stack", required_argument, NULL, 'S' },
		{ "no-figures", no_argument, NULL, 'F' },
		{ 0 }
	};
	struct report_data d;
	struct hr_err e;
	struct store *s = NULL;
	cJSON *prov = NULL;
	const char *out = NULL, *which;
	char *found[2] = { NULL, NULL }, want[2][512];
	int c, r, strict = 0, all, html, no_figures = 0;
	size_t k = 0;

	memset(&d, 0, sizeof(d));
	d.workload = DLRM_WORKLOAD;
	d.stack = DLRM_STACK;
	hr_err_clear(&e);
	while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT "o:", opts,
				NULL)) != -1) {
		r = cli_common_option(g, "report", usage, c, argc, argv);
		if (r == CLI_NEXT)
			continue;
		if (r != CLI_OTHER)
			return r;
		switch (c) {
		case 'o':
			out = optarg;
			break;
		case 'c':
			d.claims_path = optarg;
			break;
		case 'r':
			d.roles_path = optarg;
			break;
		case 's':
			strict = 1;
			break;
		case 'k':
			d.classes_path = optarg;
			break;
		case 'p':
			d.problem_map_path = optarg;
			break;
		case 'D':
			d.dlrm_map_path = optarg;
			break;
		case 'W':
			d.workload = optarg;
			d.workload_given = 1;
			break;
		case 'S':
			d.stack = optarg;
			d.stack_given = 1;
			break;
		case 'F':
			no_figures = 1;
			break;
		}
	}
	if (optind >= argc)
		return cli_usage_error("report", "which report? (claims, "
				       "models, problems, findings, evidence, "
				       "signals, detection, replay, profiles, "
				       "dlrm, provenance, all, html)");
	which = argv[optind++];
	if (optind < argc)
		return cli_usage_error("report", "unexpected argument '%s'",
				       argv[optind]);
	all = !strcmp(which, "all");
	html = !strcmp(which, "html");
	for (; !all && !html && k < REPORT_NTABLES; k++)
		if (!strcmp(report_tables[k].name, which))
			break;
	if (k == REPORT_NTABLES)
		return cli_usage_error("report", "no report '%s'", which);
	if (all && !out)
		return cli_usage_error("report", "'all' writes files: give "
				       "--out DIR");
	if (html && !out)
		return cli_usage_error("report", "'html' writes a file: give "
				       "--out FILE.html");
	if (out && !html && outdir_create(out, &e))
		return cli_report("report", &e);
	/* The shipped ledger (runfiles.h), so that the tool works from any
	 * directory; when it is missing, its path names what is. */
	if (!d.claims_path && !(d.claims_path = found[0] =
				runfiles_find(RUNFILES_SHARE, "claims.json"))) {
		runfiles_path(RUNFILES_SHARE, "claims.json", want[0],
			      sizeof(want[0]));
		d.claims_path = want[0];
	}
	if (!d.roles_path && !(d.roles_path = found[1] =
			       runfiles_find(RUNFILES_SHARE, "roles.json"))) {
		runfiles_path(RUNFILES_SHARE, "roles.json", want[1],
			      sizeof(want[1]));
		d.roles_path = want[1];
	}
	if (store_open(&s, g->db_path, STORE_READ, &e))
		goto done;
	d.db = store_db(s);
	if (report_data_load(&d, &e) || provenance_build(d.db, &d.rs, &prov, &e))
		goto done;
	d.prov = prov;
	if (out && !html && provenance_write_file(prov, out, &e))
		goto done;
	if (html) {
		run_html(&d, out, no_figures, &e);
	} else if (all) {
		for (k = 0; k < REPORT_NTABLES && e.code == HR_OK; k++)
			run_one(&d, k, out, g->format, prov, &e);
	} else {
		run_one(&d, k, out, g->format, prov, &e);
	}
done:
	cJSON_Delete(prov);
	report_data_release(&d);
	store_close(s);
	free(found[0]);
	free(found[1]);
	if (e.code == HR_OK && strict && d.differs)
		return HR_FAIL;
	return cli_report("report", &e);
}
