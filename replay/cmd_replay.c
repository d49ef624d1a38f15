/* cmd_replay.c - `headroom replay`: re-run stored evaluations' kernels.
 *
 * Parses options, writes the run's settings, creates (or resumes) a run
 * through jobs.h and hands it to replay.h; draws the progress bar and
 * prints the verdict counts.  The one piece of global mutable state is
 * stop_requested below: the SIGINT/SIGTERM flag that the main-level signal
 * handler sets and the orchestrator polls (see STYLE.md: main-level only).
 */
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../dataset/base/pyenv.h"
#include "../dataset/base/runfiles.h"
#include "../dataset/base/table.h"
#include "../dataset/base/vocab.h"
#include "commands.h"
#include "jobs.h"
#include "pool.h"
#include "replay.h"
#include "slurm.h"
#include "workercli.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static const char usage[] =
	"usage: headroom replay [--device cpu|cuda] [--gpus LIST] [--jobs N]\n"
	"                       [--mode faithful|robust] [--resume]"
	" [--shard I/N]\n"
	"                       [--limit N] [--timeout-build S]"
	" [--timeout-run S]\n"
	"                       [--python PY] [--problems-set NAME]"
	" [options]\n"
	"                       [--level N] [--model M] [--source NAME]"
	" [--problem P]\n"
	"                       [--eval ID[,ID...]]\n"
	"       headroom replay --slurm N [--slurm-dir DIR] [options]\n"
	"\n"
	"Re-run the selected stored evaluations' kernels (all, unless the\n"
	"options below choose) against their problems: build\n"
	"(a pool of build workers, one extension cache), check correctness and\n"
	"time it against the eager reference, one worker per GPU.  Results go\n"
	"to the tables replay_run and replay_job (see docs/replay.md); the\n"
	"verdict counts of the run are printed.\n"
	"\n"
	"  --device D          cpu or cuda (default: cuda when /dev/nvidiactl"
	" exists)\n"
	"  --gpus LIST         physical GPU indices, e.g. 0,1 (default:"
	" $CUDA_VISIBLE_DEVICES or 0)\n"
	"  --jobs N            build workers (default: 1.5 per online CPU; a\n"
	"                      quarter of the CPUs, at least 2, start with the\n"
	"                      run, the rest once a build compiles)\n"
	"  --mode M            faithful (KernelBench's semantics, default) or"
	" robust\n"
	"  --resume            finish the newest unfinished run instead\n"
	"  --shard I/N         only evaluations whose id hashes to shard I of N"
	" (0-based)\n"
	"  --limit N           at most N evaluations (the first by id)\n"
	"  --slurm N           replay nothing: print the sbatch lines of a job\n"
	"                      array of N shards (each its own copy of the\n"
	"                      store; a requeued task resumes) and of a job\n"
	"                      that then merges them into the store; the\n"
	"                      other options go to every shard\n"
	"  --slurm-dir DIR     with --slurm: the shard stores and logs, on a\n"
	"                      file system every node sees (default DB.slurm)\n"
	"  --timeout-build S   seconds for a build phase (default 600)\n"
	"  --timeout-run S     seconds for any other phase (default 300)\n"
	"  --python PY         interpreter with torch and numpy (default:\n"
	"                      $HEADROOM_PYTHON, else the first of python3\n"
	"                      and the venv .ci/pyenv.sh makes, $HEADROOM_VENV\n"
	"                      or ~/.cache/headroom/" PYENV_VENV_NAME ", that\n"
	"                      has them)\n"
	"  --problems-set NAME match problems of this problem set only\n"
	"  --harness H         v0, v0.1 or current for every job (default: each"
	" evaluation's)\n"
	"  --correct-trials N  correctness trials (default 5)\n"
	"  --perf-trials N     timing trials (default 100)\n"
	"  --warmup N          warm-up calls (default 3)\n"
	"  --robust-inputs N   robust: distinct input sets (default 8)\n"
	"  --robust-rounds N   robust: interleaved rounds (default 30)\n"
	"  --compile-baseline  faithful: also time torch.compile(reference)\n"
	"  --scratch DIR       worker scratch (default DB.replay)\n"
	"  --cache DIR         extension build cache (default SCRATCH/cache)\n"
	"  --worker PATH       worker.py, its hrworker/ beside it (default:\n"
	"                      the libexec folder's)\n"
	"  --rules FILE        static rules matched against each kernel's\n"
	"                      source, stored as signals beside its audit\n"
	"                      verdict (default: the share folder's\n"
	"                      static-rules.conf), or 'none'; a malformed file\n"
	"                      exits 3 naming its line and field\n"
	"  --verify-lib PATH   libhrverify.so for the checks (default: the\n"
	"                      libexec folder's), or 'none'\n"
	"  --rand-lib PATH     libhrrand.so: torch.rand's CPU stream for the\n"
	"                      input draws, checked against torch.rand by each\n"
	"                      worker before use (default: the libexec\n"
	"                      folder's), or 'none': torch draws\n"
	"  --mem-limit-mb N    address-space limit per CPU job (default half the"
	" RAM)\n"
	"  --db FILE           database (default ./headroom.db or"
	" $HEADROOM_DB)\n"
	"\n"
	"Which evaluations (a new run; --resume keeps its run's; a selection\n"
	"that matches none is an input error, exit 3):\n"
	EVALSEL_USAGE
	"\n"
	"The libexec folder is PREFIX/libexec/headroom, PREFIX being\n"
	"$HEADROOM_PREFIX or the one headroom was built for ('headroom\n"
	"--exec-path' prints the folder); never the working directory.\n"
	"\n"
	"Build workers draw each problem's inputs ahead into SCRATCH/inputs for\n"
	"its jobs to share, up to $HEADROOM_INPUTS_MB MiB (default: half the\n"
	"free space there; 0: nothing kept, every job draws its own).  Each GPU\n"
	"worker's keeper holds sets in device memory and lends them to its jobs,\n"
	"up to $HEADROOM_DEVICE_INPUTS_MB MiB (default 45% of the GPU's memory;\n"
	"0: off).  With a keeper and the rand library the build workers leave\n"
	"the draws to the keeper (a recipe per problem): it draws the sets\n"
	"itself, straight into device memory, no files.\n"
	"\n"
	"Each job restricts its own file-system writes to the run's\n"
	"directories with Linux Landlock where the kernel has it;\n"
	"$HEADROOM_FS_JAIL=0 leaves that to the audit hook (Python-level\n"
	"writes only); 1, the default, asks for Landlock.\n";

enum {
	OPT_GPUS = 0x2000, OPT_MODE, OPT_RESUME, OPT_SHARD, OPT_LIMIT,
	OPT_TBUILD, OPT_TRUN, OPT_SET, OPT_HARNESS, OPT_CTRIALS, OPT_PTRIALS,
	OPT_WARMUP, OPT_RINPUTS, OPT_RROUNDS, OPT_SCRATCH, OPT_CACHE, OPT_MEM,
	OPT_JOBS, OPT_COMPILE, OPT_RULES, OPT_SLURM, OPT_SLURM_DIR
};

struct args {
	struct evalsel sel;    /* --level --model --source --problem --eval */
	struct worker_opts w;  /* the workers' options (workercli.h), --gpus,
	                          --scratch, --cache, --mem-limit-mb */
	const char *set, *harness, *rules;
	enum hr_mode mode;
	int jobs, resume, shard_i, shard_n, limit;
	long long inputs_mb;   /* $HEADROOM_INPUTS_MB, -1 unset */
	int started_max;       /* $HEADROOM_STARTED_MAX (replay_started_max) */
	int ctrials, ptrials, warmup, rinputs, rrounds, compile_baseline;
	double tbuild, trun;
	int slurm;             /* --slurm N: print the sbatch lines; 0: run */
	const char *slurm_dir;
	/* The options given, for --slurm's lines: each one word, "--name=value"
	 * or "--name" (owned), the selection's apart from the others. */
	const char **run_args, **sel_args;
	int nrun, nsel;
	/* What the run does without a runtime library it expects (or was
	 * told not to load): said at its start and in every verdict's
	 * reason; "" when it has them all. */
	char libs_note[512];
	char libs_why[96];
};

static int parse_int(const char *s, int min, int *out)
{
	long long v;

	if (cli_parse_int(s, min, INT_MAX, &v))
		return -1;
	*out = (int)v;
	return 0;
}

/* --shard I/N: two numbers of cli_parse_int around one '/', 0 <= I < N. */
static int parse_shard(const char *s, int *i, int *n)
{
	const char *slash = strchr(s, '/');
	char first[24];
	long long vi, vn;

	if (!slash || (size_t)(slash - s) >= sizeof(first))
		return -1;
	memcpy(first, s, (size_t)(slash - s));
	first[slash - s] = '\0';
	if (cli_parse_int(first, 0, INT_MAX, &vi) ||
	    cli_parse_int(slash + 1, 1, INT_MAX, &vn) || vi >= vn)
		return -1;
	*i = (int)vi;
	*n = (int)vn;
	return 0;
}

static int parse_secs(const char *s, double *out)
{
	double v;

	if (cli_parse_real(s, &v) || !(v > 0))
		return -1;
	*out = v;
	return 0;
}

static char *settings_json(const struct args *a)
{
	cJSON *s = cJSON_CreateObject();
	char *txt;

	cJSON_AddStringToObject(s, "mode", hr_mode_name(a->mode));
	cJSON_AddStringToObject(s, "device", a->w.device);
	cJSON_AddNumberToObject(s, "seed", 42);
	cJSON_AddNumberToObject(s, "correct_trials", a->ctrials);
	cJSON_AddNumberToObject(s, "perf_trials", a->ptrials);
	cJSON_AddNumberToObject(s, "warmup", a->warmup);
	if (a->harness)
		cJSON_AddStringToObject(s, "harness", a->harness);
	else
		cJSON_AddNullToObject(s, "harness");
	cJSON_AddStringToObject(s, "baseline", "eager");
	/* The static rules the signals come from: 'none', a file given, or
	 * the shipped one (show says which). */
	cJSON_AddStringToObject(s, "rules", a->rules ? a->rules :
				"static-rules.conf");
	cJSON_AddBoolToObject(s, "compile_baseline", a->compile_baseline);
	if (evalsel_given(&a->sel)) {
		cJSON *w = cJSON_AddObjectToObject(s, "selection");

		if (a->sel.level)
			cJSON_AddNumberToObject(w, "level", a->sel.level);
		if (a->sel.model)
			cJSON_AddStringToObject(w, "model", a->sel.model);
		if (a->sel.source)
			cJSON_AddStringToObject(w, "source", a->sel.source);
		if (a->sel.problem)
			cJSON_AddStringToObject(w, "problem", a->sel.problem);
		if (a->sel.ids_json)
			cJSON_AddItemToObject(w, "eval",
					      cJSON_Parse(a->sel.ids_json));
	}
	cJSON_AddNumberToObject(s, "robust_inputs", a->rinputs);
	cJSON_AddNumberToObject(s, "robust_rounds", a->rrounds);
	cJSON_AddNumberToObject(s, "bootstrap", 1000);
	cJSON_AddNumberToObject(s, "timeout_build", a->tbuild);
	cJSON_AddNumberToObject(s, "timeout_run", a->trun);
	txt = cJSON_PrintUnformatted(s);
	cJSON_Delete(s);
	return txt;
}

/* A resumed run keeps its own settings: the device and mode it began with. */
static void adopt_settings(struct args *a, const cJSON *s)
{
	const cJSON *v;

	if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(s, "mode")))
		(void)hr_mode_of(v->valuestring, &a->mode);
	if (cJSON_IsString(v = cJSON_GetObjectItemCaseSensitive(s, "device")))
		a->w.device = v->valuestring;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(s,
							      "timeout_build")))
		a->tbuild = v->valuedouble;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(s,
							      "timeout_run")))
		a->trun = v->valuedouble;
}

struct bar {
	int tty, verbose;
	time_t started, last;
	int seen;               /* jobs finished while watching */
};

static void on_progress(void *arg, int done, int total, const char *verdict,
			const char *what)
{
	struct bar *b = arg;
	time_t now = time(NULL);

	b->seen++;
	if (b->verbose)
		fprintf(stderr, "%sreplay: [%d/%d] %s: %s\n", b->tty ? "\r" : "",
			done, total, what, verdict);
	if (!b->tty || (now == b->last && done < total))
		return;
	b->last = now;
	{
		double el = difftime(now, b->started);
		double rate = el > 0 ? b->seen / el * 60 : 0;
		double eta = rate > 0 ? (total - done) / rate * 60 : 0;

		fprintf(stderr, "\rreplay: %d/%d (%d%%), %.1f jobs/min, ETA "
			"%dm%02ds ", done, total, total ? 100 * done / total : 100,
			rate, (int)eta / 60, (int)eta % 60);
		if (done == total)
			fputc('\n', stderr);
	}
}

static int print_counts(struct store *s, int64_t run_id, enum hr_format fmt,
			struct hr_err *e)
{
	static const struct table_col cols[] = {
		{ "verdict", COL_TEXT }, { "jobs", COL_INT },
	};
	sqlite3_stmt *st;
	struct table *t = table_new(cols, 2);
	int rc;

	if (!t)
		return hr_errf(e, HR_SYSTEM, "out of memory");
	if (sqlite3_prepare_v2(store_db(s), "SELECT verdict, count(*) FROM"
			       " replay_job WHERE run_id = ?1 GROUP BY verdict"
			       " ORDER BY verdict", -1, &st, NULL) != SQLITE_OK) {
		table_free(t);
		return store_db_err(store_db(s), NULL, e);
	}
	sqlite3_bind_int64(st, 1, run_id);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *cells[2] = {
			(const char *)sqlite3_column_text(st, 0),
			(const char *)sqlite3_column_text(st, 1),
		};

		if (table_add_row(t, cells)) {
			hr_errf(e, HR_SYSTEM, "out of memory");
			break;
		}
	}
	if (rc != SQLITE_DONE && !e->code)
		store_db_err(store_db(s), NULL, e);
	sqlite3_finalize(st);
	if (!e->code)
		table_write(t, fmt, stdout);
	table_free(t);
	return e->code;
}

/* Keep option c as one word, "--name=value" or "--name" (malloc'd), for
 * --slurm's lines: the selection apart, --slurm's own left out.  -1 when
 * out of memory. */
static int keep_option(struct args *a, const struct option *opts, int c,
		       const char *arg)
{
	const struct option *o = opts;
	char *w;
	size_t n;

	while (o->name && o->val != c)
		o++;
	if (!o->name || c == OPT_SLURM || c == OPT_SLURM_DIR)
		return 0;
	n = strlen(o->name) + (arg ? strlen(arg) : 0) + 4;
	if (!(w = malloc(n)))
		return -1;
	snprintf(w, n, "--%s%s%s", o->name, arg ? "=" : "", arg ? arg : "");
	if (c == OPT_LIMIT || (c >= EVALSEL_OPT_LEVEL && c <= EVALSEL_OPT_EVAL))
		a->sel_args[a->nsel++] = w;
	else
		a->run_args[a->nrun++] = w;
	return 0;
}

static int out_of_memory(void)
{
	struct hr_err e;

	hr_err_clear(&e);
	hr_errf(&e, HR_SYSTEM, "out of memory");
	return cli_report("replay", &e);
}

static void args_release(struct args *a)
{
	evalsel_release(&a->sel);
	for (int i = 0; a->run_args && i < a->nrun; i++)
		free((char *)a->run_args[i]);
	for (int i = 0; a->sel_args && i < a->nsel; i++)
		free((char *)a->sel_args[i]);
	free(a->run_args);
	free(a->sel_args);
}

static int parse(int argc, char **argv, struct hr_global *g, struct args *a)
{
	static const struct option opts[] = {
		CLI_COMMON_OPTIONS,
		{ "gpus", required_argument, NULL, OPT_GPUS },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "mode", required_argument, NULL, OPT_MODE },
		{ "resume", no_argument, NULL, OPT_RESUME },
		{ "shard", required_argument, NULL, OPT_SHARD },
		{ "limit", required_argument, NULL, OPT_LIMIT },
		{ "timeout-build", required_argument, NULL, OPT_TBUILD },
		{ "timeout-run", required_argument, NULL, OPT_TRUN },
		{ "problems-set", required_argument, NULL, OPT_SET },
		{ "harness", required_argument, NULL, OPT_HARNESS },
		{ "correct-trials", required_argument, NULL, OPT_CTRIALS },
		{ "perf-trials", required_argument, NULL, OPT_PTRIALS },
		{ "warmup", required_argument, NULL, OPT_WARMUP },
		{ "robust-inputs", required_argument, NULL, OPT_RINPUTS },
		{ "robust-rounds", required_argument, NULL, OPT_RROUNDS },
		{ "scratch", required_argument, NULL, OPT_SCRATCH },
		{ "cache", required_argument, NULL, OPT_CACHE },
		{ "mem-limit-mb", required_argument, NULL, OPT_MEM },
		{ "compile-baseline", no_argument, NULL, OPT_COMPILE },
		{ "rules", required_argument, NULL, OPT_RULES },
		{ "slurm", required_argument, NULL, OPT_SLURM },
		{ "slurm-dir", required_argument, NULL, OPT_SLURM_DIR },
		WORKER_OPTIONS,
		EVALSEL_OPTIONS,
		{ 0 }
	};
	char why[160];
	int c, r, bad, li = 0;

	/* An option takes one slot of either list, at most one per argument. */
	a->run_args = calloc((size_t)argc + 1, sizeof(*a->run_args));
	a->sel_args = calloc((size_t)argc + 1, sizeof(*a->sel_args));
	if (!a->run_args || !a->sel_args)
		return out_of_memory();
	while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT, opts, &li)) != -1) {
		r = cli_common_option(g, "replay", usage, c, argc, argv);
		if (r == CLI_NEXT)
			continue;
		if (r != CLI_OTHER)
			return r;
		bad = 0;
		if (keep_option(a, opts, c, optarg))
			return out_of_memory();
		r = evalsel_option(&a->sel, c, optarg, why, sizeof(why));
		if (r == 0)
			r = workercli_option(&a->w, c, optarg, why, sizeof(why));
		if (r > 0)
			continue;
		if (r < 0)
			return cli_usage_error("replay", "%s", why);
		switch (c) {
		case OPT_GPUS: a->w.gpus = optarg; break;
		case OPT_JOBS: bad = parse_int(optarg, 1, &a->jobs); break;
		case OPT_MODE:
			bad = hr_mode_of(optarg, &a->mode) != 0;
			break;
		case OPT_RESUME: a->resume = 1; break;
		case OPT_SHARD:
			bad = parse_shard(optarg, &a->shard_i, &a->shard_n);
			break;
		case OPT_LIMIT: bad = parse_int(optarg, 1, &a->limit); break;
		case OPT_TBUILD: bad = parse_secs(optarg, &a->tbuild); break;
		case OPT_TRUN: bad = parse_secs(optarg, &a->trun); break;
		case OPT_SET: a->set = optarg; break;
		case OPT_HARNESS:
			a->harness = optarg;
			bad = strcmp(optarg, "v0") && strcmp(optarg, "v0.1") &&
				strcmp(optarg, "current");
			break;
		case OPT_CTRIALS: bad = parse_int(optarg, 1, &a->ctrials); break;
		case OPT_PTRIALS: bad = parse_int(optarg, 1, &a->ptrials); break;
		case OPT_WARMUP: bad = parse_int(optarg, 0, &a->warmup); break;
		case OPT_RINPUTS: bad = parse_int(optarg, 1, &a->rinputs); break;
		case OPT_RROUNDS: bad = parse_int(optarg, 2, &a->rrounds); break;
		case OPT_SCRATCH: a->w.scratch = optarg; break;
		case OPT_CACHE: a->w.cache = optarg; break;
		case OPT_MEM:
			bad = parse_int(optarg, 0, &a->w.mem_limit_mb);
			break;
		case OPT_COMPILE: a->compile_baseline = 1; break;
		case OPT_RULES: a->rules = optarg; break;
		case OPT_SLURM: bad = parse_int(optarg, 1, &a->slurm); break;
		case OPT_SLURM_DIR: a->slurm_dir = optarg; break;
		default: return HR_USAGE;
		}
		if (bad)
			return cli_usage_error("replay", "bad value '%s' for --%s",
					       optarg, opts[li].name);
	}
	if (optind < argc)
		return cli_usage_error("replay", "unexpected argument '%s'",
				       argv[optind]);
	if (a->slurm_dir && !a->slurm)
		return cli_usage_error("replay", "--slurm-dir goes with --slurm");
	if (a->slurm && (a->resume || a->shard_n || a->w.scratch))
		return cli_usage_error("replay", "--slurm gives each array task "
				       "its shard, its store's scratch and the "
				       "resume: no --shard, --resume or "
				       "--scratch with it");
	if (a->slurm && a->limit)
		return cli_usage_error("replay", "--limit with --slurm would "
				       "take N evaluations of each shard");
	if (a->resume && (evalsel_given(&a->sel) || a->limit || a->shard_n))
		return cli_usage_error("replay", "--resume finishes a run as it "
				       "was selected: no --level, --model, "
				       "--source, --problem, --eval, --limit or "
				       "--shard with it");
	/* A library asked for by name and missing is an error, not a
	 * quiet fallback (to torch.allclose, or to torch's draws). */
	r = workercli_check_libs(&a->w, "replay");
	if (r != CLI_NEXT)
		return r;
	/* HEADROOM_DEVICE_INPUTS_MB is the workers' to read; a bad value is
	 * refused here, before any starts. */
	static const char *const mib_env[] = { "HEADROOM_INPUTS_MB",
					       "HEADROOM_DEVICE_INPUTS_MB" };
	for (size_t i = 0; i < sizeof(mib_env) / sizeof(*mib_env); i++) {
		const char *env = getenv(mib_env[i]);
		int mb;

		if (!env || !*env)
			continue;
		if (parse_int(env, 0, &mb))
			return cli_usage_error("replay", "%s=%s: not a number "
					       "of MiB", mib_env[i], env);
		if (i == 0)
			a->inputs_mb = mb;
	}
	const char *started = getenv("HEADROOM_STARTED_MAX");

	if ((a->started_max = replay_started_max(started)) < 0)
		return cli_usage_error("replay", "HEADROOM_STARTED_MAX=%s: not a "
				       "number from 1 to 8", started);
	/* The workers' too: the Landlock jail of the jobs (docs/replay.md). */
	const char *jail = getenv("HEADROOM_FS_JAIL");

	if (jail && *jail && strcmp(jail, "0") && strcmp(jail, "1"))
		return cli_usage_error("replay", "HEADROOM_FS_JAIL=%s: not 0 or 1",
				       jail);
	return CLI_NEXT;
}

/* --rules FILE, 'none', or the rule file headroom ships (its share
 * folder, dataset/base/runfiles.h). */
static int load_rules(const char *given, struct rules *rs, struct hr_err *e)
{
	char *found = NULL;
	int rc;

	if (given && !strcmp(given, "none"))
		return HR_OK;
	if (!given && !(given = found = runfiles_find(RUNFILES_SHARE,
						      "static-rules.conf"))) {
		char where[PATH_MAX];

		runfiles_path(RUNFILES_SHARE, "static-rules.conf", where,
			      sizeof(where));
		return hr_errf(e, HR_USAGE, "cannot find %s; give --rules FILE "
			       "(or --rules none)", where);
	}
	rc = rules_load(rs, given, e);
	free(found);
	return rc;
}

/* Whether the selection matches any stored evaluation, in any shard: 1, 0,
 * or -1 with e set. */
static int selects_any(struct store *s, const struct evalsel *sel,
		       struct hr_err *e)
{
	sqlite3_stmt *st;
	int rc;

	if (sqlite3_prepare_v2(store_db(s), "SELECT EXISTS (SELECT 1 FROM"
			       " evaluation e JOIN source s ON s.id ="
			       " e.source_id WHERE " EVALSEL_WHERE ")", -1, &st,
			       NULL) != SQLITE_OK || evalsel_bind(sel, st) !=
	    SQLITE_OK || (rc = sqlite3_step(st)) != SQLITE_ROW) {
		store_db_err(store_db(s), NULL, e);
		sqlite3_finalize(st);
		return -1;
	}
	rc = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc;
}

/* --slurm N: the lines of slurm.h, nothing run. */
static int print_slurm(struct hr_global *g, const struct args *a)
{
	struct slurm_plan p = {
		.shards = a->slurm, .run_args = a->run_args, .nrun = a->nrun,
		.sel_args = a->sel_args, .nsel = a->nsel,
	};
	struct hr_err e;
	char *own[5] = { 0 };

	hr_err_clear(&e);
	if (slurm_plan_paths(&p, g->db_path, a->slurm_dir, own, &e) == HR_OK)
		slurm_print(stdout, &p);
	for (int i = 0; i < 5; i++)
		free(own[i]);
	return cli_report("replay", &e);
}

static void defaults(struct args *a)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

	memset(a, 0, sizeof(*a));
	a->w.device = workercli_default_device();
	a->w.gpus = getenv("CUDA_VISIBLE_DEVICES");
	a->mode = MODE_FAITHFUL;
	a->jobs = replay_default_build_workers(replay_online_cpus());
	a->ctrials = 5;
	a->ptrials = 100;
	a->warmup = 3;
	a->rinputs = 8;
	a->rrounds = 30;
	a->tbuild = 600;
	a->trun = 300;
	a->inputs_mb = -1;
	a->w.mem_limit_mb = pages > 0 && psize > 0 ?
		(int)((double)pages * (double)psize / 2 / (1 << 20)) : 0;
}

/* a->libs_note and a->libs_why for the libraries setup resolved: a
 * verify library that is missing (or --verify-lib none) leaves the
 * scale-invariant checks out, so no job can be verified-faster; a missing
 * rand library leaves the draws to torch (--rand-lib none chose that: no
 * note).  libs_note is said at the start, libs_why (shorter) goes into
 * every verdict's reason. */
static void libs_note(struct args *a, const char *vname, int verify_none,
		      int rand_given)
{
	char where[PATH_MAX];
	size_t n = 0, cap = sizeof(a->libs_note);
	int no_rand = !a->w.rand_lib && !rand_given;

	a->libs_note[0] = a->libs_why[0] = '\0';
	if (!a->w.verify_lib && verify_none) {
		n += (size_t)snprintf(a->libs_note, cap, "run with --verify-lib "
				      "none: no scale-invariant checks, so no "
				      "job can be verified-faster");
		snprintf(a->libs_why, sizeof(a->libs_why), "run with "
			 "--verify-lib none%s", no_rand ? "; without "
			 "libhrrand.so (make replay-libs)" : "");
	} else if (!a->w.verify_lib) {
		runfiles_path(RUNFILES_LIBEXEC, vname, where, sizeof(where));
		n += (size_t)snprintf(a->libs_note, cap, "run without %s (not at "
				      "%.200s; make verify-libs): no "
				      "scale-invariant checks, so no job can "
				      "be verified-faster", vname, where);
		snprintf(a->libs_why, sizeof(a->libs_why), "run without %s%s "
			 "(make verify-libs%s)", vname, no_rand ?
			 " and libhrrand.so" : "", no_rand ? " replay-libs" : "");
	} else if (no_rand) {
		snprintf(a->libs_why, sizeof(a->libs_why), "run without "
			 "libhrrand.so (make replay-libs): torch drew the "
			 "inputs");
	}
	if (no_rand && n < cap) {
		runfiles_path(RUNFILES_LIBEXEC, "libhrrand.so", where,
			      sizeof(where));
		snprintf(a->libs_note + n, cap - n, "%srun without libhrrand.so "
			 "(not at %.200s; make replay-libs): torch drew the "
			 "inputs", n ? "; " : "", where);
	}
}

/* Resolve paths and create or find the run.  Owned strings land in the
 * out-parameters (free()). */
static int setup(struct store *s, struct hr_global *g, struct args *a,
		 int64_t *run_id, char **settings, char **paths, struct hr_err *e)
{
	char shard[32];
	const char *vname;
	int verify_none, rand_given;
	struct jobs_filter f = { a->shard_i, a->shard_n, a->limit, a->set,
				 &a->sel };
	cJSON *adopted;

	/* The worker first: a run that cannot start stores nothing. */
	if (workercli_find_worker(&a->w, &paths[0], e))
		return e->code;
	if (a->resume) {
		if (jobs_find_resumable(s, run_id, settings, e))
			return e->code;
		if (!*run_id)
			return hr_errf(e, HR_INPUT, "%s: no unfinished replay run "
				       "to resume", g->db_path);
		if (!(adopted = cJSON_Parse(*settings)))
			return hr_errf(e, HR_INPUT, "replay run %lld: settings "
				       "are not JSON", (long long)*run_id);
		/* Keep the strings alive: a holds pointers into the copy. */
		adopt_settings(a, adopted);
		a->w.device = strdup(a->w.device);
		paths[4] = (char *)a->w.device;
		cJSON_Delete(adopted);
	} else {
		if (!(*settings = settings_json(a)))
			return hr_errf(e, HR_SYSTEM, "out of memory");
		snprintf(shard, sizeof(shard), "%d/%d", a->shard_i, a->shard_n);
		if (jobs_create_run(s, a->mode, a->w.device, a->shard_n ? shard :
				    NULL, *settings, &f, run_id, e))
			return e->code;
	}
	vname = workercli_verify_name(a->w.device);
	verify_none = a->w.verify_lib && !strcmp(a->w.verify_lib, "none");
	rand_given = a->w.rand_lib != NULL;
	a->w.verify_lib = cli_lib_path(a->w.verify_lib, vname, &paths[1]);
	a->w.rand_lib = cli_lib_path(a->w.rand_lib, "libhrrand.so", &paths[5]);
	libs_note(a, vname, verify_none, rand_given);
	if (!a->w.scratch) {
		size_t n = strlen(g->db_path) + 16;

		if (!(paths[2] = malloc(n)))
			return hr_errf(e, HR_SYSTEM, "out of memory");
		snprintf(paths[2], n, "%s.replay", g->db_path);
		a->w.scratch = paths[2];
	}
	return HR_OK;
}

int cmd_replay(int argc, char **argv, struct hr_global *g)
{
	struct args a;
	struct hr_err e;
	struct store *s = NULL;
	struct replay_stats st;
	struct rules rules = { 0 };
	struct sigaction sa, old_int, old_term, old_pipe;
	struct bar bar = { 0 };
	char *settings = NULL, *paths[7] = { 0 }, cache[PATH_MAX + 16];
	int64_t run_id = 0;
	int r, total = 0, done = 0;
	time_t t0 = time(NULL);

	hr_err_clear(&e);
	defaults(&a);
	if ((r = parse(argc, argv, g, &a)) != CLI_NEXT) {
		args_release(&a);
		return r;
	}
	if (a.slurm) {
		r = print_slurm(g, &a);
		args_release(&a);
		return r;
	}
	/* The rules first: a malformed file stops the run before the store
	 * or a worker is touched. */
	if (load_rules(a.rules, &rules, &e)) {
		rules_release(&rules);
		args_release(&a);
		return cli_report("replay", &e);
	}
	if (store_open(&s, g->db_path, STORE_WRITE, &e)) {
		rules_release(&rules);
		args_release(&a);
		return cli_report("replay", &e);
	}
	if (setup(s, g, &a, &run_id, &settings, paths, &e) ||
	    jobs_count(s, run_id, &total, &done, &e))
		goto out;
	/* A shard the selection leaves empty is no error when the selection
	 * matches evaluations of other shards (--slurm's array tasks). */
	if (total == 0 && evalsel_given(&a.sel) &&
	    (r = a.shard_n ? selects_any(s, &a.sel, &e) : 0) < 1) {
		struct hr_err ignored;

		if (r < 0)
			goto out;
		hr_err_clear(&ignored);
		jobs_drop_run(s, run_id, &ignored);
		hr_errf(&e, HR_INPUT, "%s: no stored evaluation matches the "
			"selection ('headroom ls' with the same options lists "
			"them)", g->db_path);
		goto out;
	}
	/* The interpreter only matters when a job is left to run; without
	 * one nothing ran: a new run is not stored, a resumed one stays
	 * unfinished for the next --resume. */
	if (done < total && pyenv_find(a.w.python, &paths[6], &e)) {
		struct hr_err ignored;

		hr_err_clear(&ignored);
		if (!a.resume) {
			jobs_drop_run(s, run_id, &ignored);
			hr_err_prefix(&e, "nothing replayed, no run stored");
			goto out;
		}
		jobs_end_run(s, run_id, "interrupted", &ignored);
		hr_err_prefix(&e, "run %lld not resumed (resume it again with "
			      "--resume)", (long long)run_id);
		goto out;
	}
	a.w.python = paths[6] ? paths[6] : "python3";
	if (done < total && a.libs_note[0])
		fprintf(stderr, "replay: warning: %s\n", a.libs_note);
	snprintf(cache, sizeof(cache), "%s/cache", a.w.scratch);
	if (!a.w.cache)
		a.w.cache = cache;
	if (!strcmp(a.w.device, "cuda"))
		a.w.mem_limit_mb = 0;
	a.w.timeout_start = a.tbuild > 120 ? a.tbuild : 120;
	bar.tty = isatty(2) && !g->quiet;
	bar.verbose = g->verbose;
	bar.started = bar.last = time(NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;   /* no SA_RESTART: poll returns EINTR */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	sa.sa_handler = SIG_IGN;     /* a dead worker's pipe is not our death */
	sigaction(SIGPIPE, &sa, &old_pipe);
	{
		struct replay_opts o = {
			.w = a.w, .build_jobs = a.jobs,
			.libs_note = a.libs_why[0] ? a.libs_why : NULL,
			.timeout_build = a.tbuild, .timeout_run = a.trun,
			.inputs_mb = a.inputs_mb,
			.started_max = a.started_max,
			.settings_json = settings,
			.rules = a.rules && !strcmp(a.rules, "none") ? NULL :
				&rules,
			.progress = bar.tty || bar.verbose ? on_progress : NULL,
			.cb_arg = &bar, .stop = &stop_requested,
		};
		r = replay_run(s, run_id, &o, &st, &e);
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	if (!g->quiet) {
		char kept[64] = "";

		if (st.recipes > 0)
			snprintf(kept, sizeof(kept), ", of %d drawn by the "
				 "keeper", st.recipes);
		fprintf(stderr, "replay: run %lld: %d of %d jobs done (%d now), "
			"%d builds (%d cache hits; %d build worker%s started), "
			"inputs of %d problems drawn ahead (%d sets)%s, %d worker "
			"restarts, %lds\n",
			(long long)run_id, st.done, st.total, st.ran, st.builds,
			st.build_hits, st.build_workers,
			st.build_workers == 1 ? "" : "s", st.predraws,
			st.predraw_sets, kept, st.restarts,
			(long)(time(NULL) - t0));
	}
	if (!g->quiet && st.build_cpu_s > 0 && st.build_cores > 0)
		fprintf(stderr, "replay: builds: %.1f CPU-s of compilers on %d "
			"core%s (%d build worker%s), so at least %.1f s of wall\n",
			st.build_cpu_s, st.build_cores, st.build_cores == 1 ? "" : "s",
			st.build_workers, st.build_workers == 1 ? "" : "s",
			st.build_cpu_s / st.build_cores);
	if (!g->quiet && st.timed_jobs > 0) {
		fprintf(stderr, "replay: %d run jobs' time by phase:", st.timed_jobs);
		for (int i = 0; i < REPLAY_NPHASES; i++)
			fprintf(stderr, "%s %s %.1f s", i ? "," : "",
				replay_phase_name(i), st.phase_s[i]);
		fprintf(stderr, "; input sets %d, lent from device memory %d\n",
			st.sets, st.sets_lent);
	}
	if (!g->quiet && st.nrun > 0 && st.run_wall_s > 0) {
		double all = st.run_wall_s * st.nrun;

		fprintf(stderr, "replay: run worker%s (%d): busy %.1f %% of %.1f s",
			st.nrun == 1 ? "" : "s", st.nrun,
			100.0 * st.run_s[RW_BUSY] / all, st.run_wall_s);
		for (int i = RW_BUSY + 1; i < RW_N; i++)
			fprintf(stderr, "%s %s %.1f s", i == RW_BUSY + 1 ?
				"; idle:" : ",", replay_run_wait_name(i),
				st.run_s[i]);
		fputc('\n', stderr);
	}
	if (r == HR_OK)
		print_counts(s, run_id, g->format, &e);
out:
	args_release(&a);
	free(settings);
	for (size_t i = 0; i < sizeof(paths) / sizeof(*paths); i++)
		free(paths[i]);
	rules_release(&rules);
	store_close(s);
	return cli_report("replay", &e);
}
