/* cmd_figures.c - `headroom figures`: write each figure's data from the
 * store and draw it with gnuplot (figures/<name>.gp) as SVG, PNG and, when
 * gnuplot has pdfcairo, PDF.  Read-only on the store.
 */
#include <limits.h>
#include <string.h>

#include "../dataset/base/outdir.h"
#include "../dataset/base/runfiles.h"
#include "../dataset/store.h"
#include "../report/provenance.h"
#include "commands.h"
#include "figures.h"

/* The usage is printed in two parts around the list of figures, which
 * comes from figure_names so that it names every figure drawn. */
static const char usage[] =
	"usage: headroom figures [--out DIR] [--scripts DIR] [--data-only]\n"
	"\n"
	"Write the data behind every figure (NAME.dat with a provenance\n"
	"line, NAME.cfg; DIR/provenance.json, DIR/provenance.cfg) and draw\n"
	"it with gnuplot: NAME.svg, NAME.png, and NAME.pdf when gnuplot has\n"
	"pdfcairo, each with the store's provenance line as its footer.  The\n"
	"scripts are copied next to the data, so `gnuplot -d NAME.gp` in DIR\n"
	"redraws a figure.  A placeholder says so when a figure's data is not\n"
	"in the store.  Figures:\n";

static const char usage_options[] =
	"\n"
	"  --out DIR      output folder (default out/figures; created)\n"
	"  --scripts DIR  where the .gp scripts are (default:\n"
	"                 PREFIX/share/headroom/figures, PREFIX being\n"
	"                 $HEADROOM_PREFIX or the one headroom was built for)\n"
	"  --data-only    write the data files, do not run gnuplot\n"
	"  --workload W   the profiled workload whose class shares weigh\n"
	"                 DLRM-Bench in the dlrm figure (default dlrm)\n"
	"  --stack S      its software stack (default eager)\n"
	"  --db FILE      database (default ./headroom.db or $HEADROOM_DB)\n";

/* Print the usage with figure_names as an indented list wrapped at 72
 * columns. */
static void print_usage(void)
{
	size_t col = 0;

	fputs(usage, stdout);
	for (int i = 0; figure_names[i]; i++) {
		size_t n = strlen(figure_names[i]) + (figure_names[i + 1] ?
						       1 : 0);

		if (col > 0 && col + 1 + n > 72) {
			fputc('\n', stdout);
			col = 0;
		}
		col += (size_t)printf("%s%s%s", col ? " " : "  ",
				      figure_names[i],
				      figure_names[i + 1] ? "," : "");
	}
	fputc('\n', stdout);
	fputs(usage_options, stdout);
}

int cmd_figures(int argc, char **argv, struct hr_global *g)
{
	static const struct option opts[] = {
		CLI_COMMON_OPTIONS,
		{ "out", required_argument, NULL, 'o' },
		{ "scripts", required_argument, NULL, 's' },
		{ "data-only", no_argument, NULL, 'd' },
		{ "workload", required_argument, NULL, 'W' },
		{ "stack", required_argument, NULL, 'S' },
		{ 0 }
	};
	struct evalset es;
	struct auditset as;
	struct replayset rs;
	struct profileset ps;
	struct dlrmset ds;
	int have_ds = 0, level;
	struct hr_err e, le;
	struct store *s = NULL;
	cJSON *prov = NULL;
	const char *out = "out/figures", *scripts = NULL;
	const char *workload = DLRM_WORKLOAD, *stack = DLRM_STACK;
	char defscripts[PATH_MAX];
	int c, r, data_only = 0;

	memset(&es, 0, sizeof(es));
	memset(&as, 0, sizeof(as));
	memset(&rs, 0, sizeof(rs));
	memset(&ps, 0, sizeof(ps));
	memset(&ds, 0, sizeof(ds));
	hr_err_clear(&e);
	hr_err_clear(&le);
	while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT "o:", opts,
				NULL)) != -1) {
		if (c == 'h') {
			print_usage();
			return HR_OK;
		}
		r = cli_common_option(g, "figures", usage, c, argc, argv);
		if (r == CLI_NEXT)
			continue;
		if (r != CLI_OTHER)
			return r;
		if (c == 'o')
			out = optarg;
		else if (c == 's')
			scripts = optarg;
		else if (c == 'd')
			data_only = 1;
		else if (c == 'W')
			workload = optarg;
		else if (c == 'S')
			stack = optarg;
	}
	if ((r = cli_check_format(g, "figures", 0)) != CLI_NEXT)
		return r;
	if (optind < argc)
		return cli_usage_error("figures", "unexpected argument '%s'",
				       argv[optind]);
	if (!scripts) {
		runfiles_path(RUNFILES_SHARE, "figures", defscripts,
			      sizeof(defscripts));
		scripts = defscripts;
	}
	if (store_open(&s, g->db_path, STORE_READ, &e))
		return cli_report("figures", &e);
	if (outdir_create(out, &e) ||
	    evalset_load(&es, store_db(s), &e) ||
	    auditset_load(&as, store_db(s), &e) ||
	    replayset_load(&rs, store_db(s), &e) ||
	    profileset_load(&ps, store_db(s), NULL, NULL, &es, &rs, &e))
		goto done;
	/* DLRM-Bench's level comes from the shipped roles file: without the
	 * suite there, its figure says so (readmodel/dlrmset.h). */
	if (dlrmset_suite_level(NULL, &level, &le) == HR_OK) {
		if (dlrmset_load(&ds, NULL, level, workload, stack,
				 &es, &rs, &ps, &e))
			goto done;
		have_ds = 1;
	}
	if (provenance_build(store_db(s), &rs, &prov, &e) ||
	    provenance_write_file(prov, out, &e) ||
	    figures_write_data(out, store_db(s), &es, &as, &rs, &ps,
			       have_ds ? &ds : NULL, le.msg, prov, &e))
		goto done;
	/* the report's date, as provenance_build read it */
	if (!data_only && figures_render(out, scripts, cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(prov, "date")), &e) == HR_OK &&
	    !g->quiet)
		fprintf(stderr, "figures: %s/{%s,...}.{svg,png,pdf}\n", out,
			figure_names[0]);
done:
	cJSON_Delete(prov);
	dlrmset_release(&ds);
	profileset_release(&ps);
	auditset_release(&as);
	replayset_release(&rs);
	evalset_release(&es);
	store_close(s);
	return cli_report("figures", &e);
}
