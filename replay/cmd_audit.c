/* cmd_audit.c - `headroom audit problems`: run every stored problem's
 * reference once and record which degenerate outputs its check accepts.
 *
 * Static findings over what the archive reports (vacuous "correct"
 * verdicts, implausible speedups, kernels without a kernel) are
 * `headroom report findings`, which reads what this command stores.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "../dataset/base/pyenv.h"
#include "../dataset/base/runfiles.h"
#include "../dataset/base/table.h"
#include "audit.h"
#include "commands.h"
#include "pool.h"
#include "scratch.h"
#include "workercli.h"

static const char usage[] =
	"usage: headroom audit problems [--device cpu|cuda] [--gpu I]\n"
	"                               [--set NAME] [--timeout S]\n"
	"                               [--level N] [--model M] [--source NAME]\n"
	"                               [--problem P] [--eval ID[,ID...]]\n"
	"                               [--python PY] [--worker PATH]\n"
	"                               [--verify-lib PATH] [--rand-lib PATH]\n"
	"                               [--inputs host|device]\n"
	"\n"
	"Run each stored problem's reference on two input draws (seeds 42\n"
	"and 43) in a replay worker and record, per KernelBench tolerance\n"
	"preset, whether an all-zero output, the reference mean everywhere,\n"
	"or one of the inputs would pass the original check\n"
	"torch.allclose(ref, cand, atol=tol, rtol=tol) on both, whether the\n"
	"output changed with the input at all (degenerate when not), and\n"
	"the margin max|ref| / atol.  Every replay job runs the same gates on\n"
	"its own reference outputs; a job on a problem either finds vacuous\n"
	"is correct-vacuous, never correct or verified-faster (see\n"
	"'headroom report problems').\n"
	"\n"
	"Presets: kernelbench-v0 (fp32, 1e-2; also v0.1), kernelbench-fp32\n"
	"(1e-4), kernelbench-fp16 and kernelbench-bf16 (1e-2; the fp32\n"
	"output rounded to that dtype).  Problems are distinct by content\n"
	"(sha256); a new audit replaces the old row for the same device.\n"
	"\n"
	"  --device D      cpu or cuda (default: cuda when a GPU is present)\n"
	"  --gpu I         GPU index for the worker (default 0)\n"
	"  --set NAME      only the problem set NAME ('headroom problems ls')\n"
	"  --timeout S     seconds for one reference (default 300)\n"
	"  --python PY     interpreter with torch and numpy (default:\n"
	"                  $HEADROOM_PYTHON, else the first of python3 and\n"
	"                  the venv .ci/pyenv.sh makes, $HEADROOM_VENV or\n"
	"                  ~/.cache/headroom/" PYENV_VENV_NAME ", that has them)\n"
	"  --worker PATH   worker.py (default: the libexec folder's)\n"
	"  --verify-lib L  libhrverify.so (cpu) or _cuda.so (default: the\n"
	"                  libexec folder's; the audit needs it)\n"
	"  --rand-lib L    libhrrand.so (default: the libexec folder's, when\n"
	"                  built), torch.rand's CPU stream for the host inputs\n"
	"                  (the same values, faster); 'none': torch draws\n"
	"  --inputs W      host (default): get_inputs() as KernelBench calls it,\n"
	"                  on the CPU generator; device: the same code under\n"
	"                  torch.device(D), other values of the same\n"
	"                  distributions, far faster for 10^9-element inputs\n"
	"\n"
	"Which problems: --level N and --problem P (its id or name) choose\n"
	"them directly; --model M, --source NAME and --eval ID[,ID...] choose\n"
	"evaluations as 'headroom ls' does, and the audit takes the problems\n"
	"they name (same level and problem id):\n"
	EVALSEL_USAGE
	"\n"
	"The libexec folder is PREFIX/libexec/headroom, PREFIX being\n"
	"$HEADROOM_PREFIX or the one headroom was built for ('headroom\n"
	"--exec-path' prints the folder); never the working directory.\n"
	"\n"
	"Exit: 0 every problem audited, 1 some could not be (their reference\n"
	"failed or timed out), 3 bad input, 4 worker or database failure.\n";

static const struct table_col cols[] = {
	{ "level", COL_INT }, { "problem_id", COL_INT },
	{ "problem_name", COL_TEXT }, { "status", COL_TEXT },
	{ "max_abs_ref", COL_REAL }, { "zeros_pass", COL_TEXT },
	{ "constant_pass", COL_TEXT }, { "input_pass", COL_TEXT },
	{ "degenerate", COL_TEXT }, { "margin_v0", COL_REAL },
	{ "error", COL_TEXT },
};
#define NCOLS ((int)(sizeof(cols) / sizeof(cols[0])))

struct sink {
	struct table *t;
	int quiet;
	int oom;
};

/* The presets under which gate passes, as "v0 fp32" (or "-"). */
static void presets_passing(const cJSON *gates, const char *gate, char *buf,
			    size_t n)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < audit_npresets; i++) {
		const cJSON *g = cJSON_GetObjectItemCaseSensitive(
			gates, audit_presets[i].name);
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(g, gate);

		if (cJSON_IsTrue(v) && used + 32 < n)
			used += (size_t)snprintf(buf + used, n - used, "%s%s",
						 used ? " " : "",
						 audit_presets[i].name +
						 strlen("kernelbench-"));
	}
	if (!used)
		snprintf(buf, n, "-");
}

static void on_row(void *arg, const struct audit_row *r, int done, int total)
{
	struct sink *k = arg;
	char lvl[16], pid[16], amax[32], z[64], c[64], in[64], dg[64];
	char mg[32];
	const char *cells[NCOLS];
	cJSON *gates = r->gates_json ? cJSON_Parse(r->gates_json) : NULL;
	const cJSON *v0 = cJSON_GetObjectItemCaseSensitive(gates,
							  "kernelbench-v0");
	const cJSON *m = cJSON_GetObjectItemCaseSensitive(v0, "margin");

	snprintf(lvl, sizeof(lvl), "%d", r->level);
	snprintf(pid, sizeof(pid), "%d", r->problem_id);
	table_fmt_real(amax, sizeof(amax), r->max_abs_ref);
	table_fmt_real(mg, sizeof(mg), cJSON_IsNumber(m) ? m->valuedouble
		       : NAN);
	presets_passing(gates, "zeros", z, sizeof(z));
	presets_passing(gates, "constant", c, sizeof(c));
	presets_passing(gates, "input", in, sizeof(in));
	presets_passing(gates, "degenerate", dg, sizeof(dg));
	cells[0] = lvl;
	cells[1] = pid;
	cells[2] = r->name;
	cells[3] = proto_verdict_name(r->status);
	cells[4] = amax;
	cells[5] = gates ? z : NULL;
	cells[6] = gates ? c : NULL;
	cells[7] = gates ? in : NULL;
	cells[8] = gates ? dg : NULL;
	cells[9] = mg;
	cells[10] = r->error;
	if (table_add_row(k->t, cells))
		k->oom = 1;
	if (!k->quiet)
		fprintf(stderr, "audit [%d/%d] level %d problem %d %s: %s\n",
			done, total, r->level, r->problem_id, r->name,
			proto_verdict_name(r->status));
	cJSON_Delete(gates);
}

static int parse_num(const char *s, double min, double *out)
{
	double v;

	if (cli_parse_real(s, &v) || !(v >= min))
		return -1;
	*out = v;
	return 0;
}

/* The worker's directories, laid out as replay's defaults: DB.replay and
 * DB.replay/cache (so the audit reuses replay's build cache). */
static int make_dirs(const char *db, char scratch[PATH_MAX],
		     char cache[PATH_MAX], struct hr_err *e)
{
	char buf[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s.replay/cache", db);
	if (scratch_absolute_dir(buf, cache, e))
		return e->code;
	snprintf(scratch, PATH_MAX, "%.*s", (int)(strlen(cache) - 6), cache);
	return HR_OK;
}

/* The command line into *o and *sel (sel's strings are the caller's to
 * free).  CLI_NEXT, or the exit code. */
static int parse(int argc, char **argv, struct hr_global *g,
		 struct audit_opts *o, struct evalsel *sel)
{
	static const struct option opts[] = {
		CLI_COMMON_OPTIONS,
		{ "gpu", required_argument, NULL, 'G' },
		{ "set", required_argument, NULL, 's' },
		{ "timeout", required_argument, NULL, 't' },
		{ "inputs", required_argument, NULL, 'I' },
		WORKER_OPTIONS,
		EVALSEL_OPTIONS,
		{ 0 }
	};
	char why[160];
	int c, r;

	while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT, opts, NULL))
	       != -1) {
		r = cli_common_option(g, "audit", usage, c, argc, argv);
		if (r == CLI_NEXT)
			continue;
		if (r != CLI_OTHER)
			return r;
		r = evalsel_option(sel, c, optarg, why, sizeof(why));
		if (r == 0)
			r = workercli_option(&o->w, c, optarg, why, sizeof(why));
		if (r > 0)
			continue;
		if (r < 0)
			return cli_usage_error("audit", "%s", why);
		switch (c) {
		case 'G':
			o->w.gpus = optarg;
			break;
		case 's':
			o->set = optarg;
			break;
		case 't':
			if (parse_num(optarg, 0.001, &o->timeout))
				return cli_usage_error("audit", "--timeout "
						       "wants seconds, not "
						       "'%s'", optarg);
			break;
		case 'I':
			if (strcmp(optarg, "host") && strcmp(optarg, "device"))
				return cli_usage_error("audit", "--inputs is "
						       "host or device, not "
						       "'%s'", optarg);
			o->inputs_on_device = !strcmp(optarg, "device");
			break;
		}
	}
	if (optind >= argc || strcmp(argv[optind], "problems"))
		return cli_usage_error("audit", optind < argc ?
				       "unknown audit '%s' (only 'problems')" :
				       "what to audit? (only 'problems')",
				       optind < argc ? argv[optind] : "");
	if (optind + 1 < argc)
		return cli_usage_error("audit", "unexpected argument '%s'",
				       argv[optind + 1]);
	o->sel = sel;
	return workercli_check_libs(&o->w, "audit");
}

/* What cmd_audit finds for the options not given (each malloc'd or NULL)
 * and the worker's directories. */
struct found {
	char *worker, *verify, *rand, *python;
	char scratch[PATH_MAX], cache[PATH_MAX];
};

/* The worker and its libraries where not given: a missing installed
 * file is a system error, as for replay (the audit needs the verify
 * library). */
static int find_files(struct audit_opts *o, struct found *f,
		      struct hr_err *e)
{
	const char *name = workercli_verify_name(o->w.device);
	char want[512];

	if (workercli_find_worker(&o->w, &f->worker, e))
		return e->code;
	if (!o->w.verify_lib) {
		f->verify = runfiles_find(RUNFILES_LIBEXEC, name);
		o->w.verify_lib = f->verify;
	}
	if (!o->w.verify_lib) {
		runfiles_path(RUNFILES_LIBEXEC, name, want, sizeof(want));
		return hr_errf(e, HR_SYSTEM, "no verify library at %s (make "
			       "verify-libs); give --verify-lib", want);
	}
	o->w.rand_lib = cli_lib_path(o->w.rand_lib, "libhrrand.so", &f->rand);
	return HR_OK;
}

/* Audit what o selects and print the table; *failed counts the problems
 * not audited. */
static int run(struct hr_global *g, struct audit_opts *o, struct found *f,
	       int *failed, struct hr_err *e)
{
	struct sink k = { NULL, g->quiet, 0 };
	struct store *s = NULL;
	int n = 0;

	if (store_open(&s, g->db_path, STORE_WRITE, e) ||
	    make_dirs(g->db_path, f->scratch, f->cache, e))
		goto out;
	o->w.scratch = f->scratch;
	o->w.cache = f->cache;
	/* Nothing to audit is said before the interpreter is looked for: it
	 * is no reason to install torch. */
	if (audit_count(s, o, &n, e))
		goto out;
	if (n && pyenv_find(o->w.python, &f->python, e))
		goto out;
	o->w.python = f->python;
	if (!(k.t = table_new(cols, NCOLS))) {
		hr_errf(e, HR_SYSTEM, "out of memory");
		goto out;
	}
	if (n)
		audit_problems(s, o, on_row, &k, failed, e);
	if (k.oom)
		hr_errf(e, HR_SYSTEM, "out of memory");
	if (!e->code && !table_rows(k.t))
		hr_errf(e, HR_INPUT, o->set || evalsel_given(o->sel) ?
			"%s: no stored problem matches the selection" :
			"%s: no problems stored (run 'headroom problems add "
			"DIR')", g->db_path);
	if (!e->code)
		table_write(k.t, g->format, stdout);
out:
	table_free(k.t);
	store_close(s);
	return e->code;
}

int cmd_audit(int argc, char **argv, struct hr_global *g)
{
	struct evalsel sel = { 0 };
	struct audit_opts o = {
		.w = { .device = workercli_default_device(), .gpus = "0",
		       .timeout_start = 180 },
		.timeout = 300,
	};
	struct found f = { 0 };
	struct hr_err e;
	int r, failed = 0;

	hr_err_clear(&e);
	r = parse(argc, argv, g, &o, &sel);
	if (r == CLI_NEXT && !find_files(&o, &f, &e))
		run(g, &o, &f, &failed, &e);
	free(f.worker);
	free(f.verify);
	free(f.rand);
	free(f.python);
	evalsel_release(&sel);
	if (r != CLI_NEXT)
		return r;
	if (e.code)
		return cli_report("audit", &e);
	return failed ? HR_FAIL : HR_OK;
}
