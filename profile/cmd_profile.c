/* cmd_profile.c - `headroom profile WORKLOAD...`: run workloads under the
 * PyTorch profiler on this machine (profile/profile_worker.py), keep their
 * traces and ingest them like any other trace.
 *
 * Command layer: spawns the worker without a shell, one process per
 * (workload, stack), reads its one JSON line, then ingests the trace it
 * wrote through ingest_cli_one (one transaction per trace).  Must not:
 * parse traces itself, write SQL.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../dataset/base/pyenv.h"
#include "../dataset/base/runfiles.h"
#include "../dataset/cmd_ingest.h"
#include "commands.h"

#define MAX_TRACES 64   /* the traces one command writes and ingests */

static const char usage[] =
	"usage: headroom profile WORKLOAD... [--stack eager|compile|both]\n"
	"                        [--device D] [--out DIR] [--tiny]\n"
	"                        [--python PY] [--worker FILE]\n"
	"\n"
	"Run each workload with random weights (nothing is downloaded) under\n"
	"torch.profiler -- warm-up steps, then a profiled window -- write its\n"
	"Chrome trace into DIR and ingest it (docs/profiles.md).  Workloads:\n"
	"gpt2-small gpt2-medium gpt2-large llama-1b (transformer inference;\n"
	"Hugging Face transformers), gpt2-small-train (a training step), dlrm\n"
	"(the project's DLRM), resnet50 (torchvision).  A profile needs GPU\n"
	"activity: on a machine without CUDA the trace is written and its\n"
	"ingest refused.\n"
	"\n"
	"  --stack S      eager (default), compile (torch.compile) or both\n"
	"  --device D     torch device (default cuda)\n"
	"  --out DIR      where the traces go (default out/profiles)\n"
	"  --tiny         small configurations (tests the path on a CPU)\n"
	"  --python PY    interpreter with torch (default: $HEADROOM_PYTHON,\n"
	"                 else the first of python3 and the venv\n"
	"                 .ci/pyenv.sh makes that has torch, as replay)\n"
	"  --worker FILE  the worker (default profile/profile_worker.py beside\n"
	"                 headroom)\n"
	"  --db FILE      database (default ./headroom.db or $HEADROOM_DB)\n"
	"  -q             no summary lines\n";

enum { OPT_STACK = 0x2100, OPT_DEVICE, OPT_OUT, OPT_TINY, OPT_PYTHON,
	OPT_WORKER };

/* The workloads profile_worker.py builds (its WORKLOADS; keep the two in
 * step: tests/cli/profile-knows-the-workers-workloads compares them). */
static const char *const workloads[] = {
	"gpt2-small", "gpt2-medium", "gpt2-large", "llama-1b",
	"gpt2-small-train", "dlrm", "resnet50", NULL
};

static int known_workload(const char *w)
{
	for (int i = 0; workloads[i]; i++)
		if (!strcmp(workloads[i], w))
			return 1;
	return 0;
}

struct profile_args {
	const char *python, *worker, *device, *out;
	int tiny;
};

/* Run the worker for one (workload, stack); its last stdout line is
 * copied into line.  HR_OK when it exited 0. */
static int run_worker(const struct profile_args *a, const char *workload,
		      const char *stack, char *line, size_t n,
		      struct hr_err *e)
{
	const char *argv[16];
	char *last;
	int fd[2], status, k = 0;
	size_t len = 0;
	ssize_t r;
	pid_t pid;

	argv[k++] = a->python;
	argv[k++] = a->worker;
	argv[k++] = "--workload";
	argv[k++] = workload;
	argv[k++] = "--stack";
	argv[k++] = stack;
	argv[k++] = "--device";
	argv[k++] = a->device;
	argv[k++] = "--out";
	argv[k++] = a->out;
	if (a->tiny)
		argv[k++] = "--tiny";
	argv[k] = NULL;
	if (pipe(fd))
		return hr_errf(e, HR_SYSTEM, "pipe: %s", strerror(errno));
	fflush(NULL);
	if ((pid = fork()) < 0) {
		close(fd[0]);
		close(fd[1]);
		return hr_errf(e, HR_SYSTEM, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		dup2(fd[1], 1);
		close(fd[0]);
		close(fd[1]);
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	close(fd[1]);
	/* The result is the last line; keep the tail of what came. */
	while ((r = read(fd[0], line + len, n - 1 - len)) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			break;
		len += (size_t)r;
		if (len == n - 1) {
			memmove(line, line + n / 2, len - n / 2);
			len -= n / 2;
		}
	}
	line[len] = '\0';
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return hr_errf(e, HR_SYSTEM, "waitpid: %s",
				       strerror(errno));
	while (len > 0 && line[len - 1] == '\n')
		line[--len] = '\0';
	for (last = line + len; last > line && last[-1] != '\n'; last--)
		;
	memmove(line, last, strlen(last) + 1);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return hr_errf(e, HR_SYSTEM, "cannot run %s", a->python);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		cJSON *j = cJSON_Parse(line);
		const char *msg = cJSON_GetStringValue(
			cJSON_GetObjectItemCaseSensitive(j, "error"));

		hr_errf(e, HR_SYSTEM, "%s (%s): the worker failed: %s",
			workload, stack, msg ? msg : "no result line");
		cJSON_Delete(j);
		return e->code;
	}
	return HR_OK;
}

int cmd_profile(int argc, char **argv, struct hr_global *g)
{
	static const struct option opts[] = {
		CLI_COMMON_OPTIONS,
		{ "stack", required_argument, NULL, OPT_STACK },
		{ "device", required_argument, NULL, OPT_DEVICE },
		{ "out", required_argument, NULL, OPT_OUT },
		{ "tiny", no_argument, NULL, OPT_TINY },
		{ "python", required_argument, NULL, OPT_PYTHON },
		{ "worker", required_argument, NULL, OPT_WORKER },
		{ 0 }
	};
	static const char *const both[] = { "eager", "compile", NULL };
	const char *one[] = { "eager", NULL }, *const *stacks = one;
	struct profile_args a = { .device = "cuda", .out = "out/profiles" };
	struct ingest_opts o = { .kind = INGEST_AUTO };
	char *traces[MAX_TRACES];   /* the traces written, to ingest */
	int ntraces = 0;
	char *found = NULL, *python = NULL, line[8192];
	struct hr_err e;
	int c, r;

	hr_err_clear(&e);
	archive_limits_default(&o.limits);
	while ((c = getopt_long(argc, argv, CLI_COMMON_SHORT, opts, NULL))
	       != -1) {
		r = cli_common_option(g, "profile", usage, c, argc, argv);
		if (r == CLI_NEXT)
			continue;
		if (r != CLI_OTHER)
			return r;
		switch (c) {
		case OPT_STACK:
			if (!strcmp(optarg, "both"))
				stacks = both;
			else if (!strcmp(optarg, "eager") ||
				 !strcmp(optarg, "compile"))
				one[0] = optarg;
			else
				return cli_usage_error("profile", "--stack is "
						       "eager, compile or both, "
						       "not '%s'", optarg);
			break;
		case OPT_DEVICE:
			a.device = optarg;
			break;
		case OPT_OUT:
			a.out = optarg;
			break;
		case OPT_TINY:
			a.tiny = 1;
			break;
		case OPT_PYTHON:
			a.python = optarg;
			break;
		case OPT_WORKER:
			a.worker = optarg;
			break;
		}
	}
	if (optind >= argc)
		return cli_usage_error("profile", "no workload given");
	/* Every name is checked before a worker starts. */
	for (int i = optind; i < argc; i++)
		if (!known_workload(argv[i]))
			return cli_usage_error("profile", "unknown workload "
					       "'%s' (gpt2-small, gpt2-medium, "
					       "gpt2-large, llama-1b, "
					       "gpt2-small-train, dlrm, "
					       "resnet50)", argv[i]);
	if (!a.worker && !(a.worker = found = runfiles_find(RUNFILES_LIBEXEC,
						       "profile_worker.py"))) {
		char where[4096];

		runfiles_path(RUNFILES_LIBEXEC, "profile_worker.py", where,
			      sizeof(where));
		hr_errf(&e, HR_SYSTEM, "cannot find %s; give --worker PATH",
			where);
		return cli_report("profile", &e);
	}
	if (pyenv_find(a.python, &python, &e)) {
		free(found);
		return cli_report("profile", &e);
	}
	a.python = python;
	for (int i = optind; i < argc && e.code == HR_OK; i++) {
		for (int s = 0; stacks[s] && e.code == HR_OK; s++) {
			cJSON *j;
			const char *trace;

			if (run_worker(&a, argv[i], stacks[s], line,
				       sizeof(line), &e))
				break;
			j = cJSON_Parse(line);
			trace = cJSON_GetStringValue(
				cJSON_GetObjectItemCaseSensitive(j, "trace"));
			if (!trace)
				hr_errf(&e, HR_SYSTEM, "%s (%s): the worker "
					"named no trace", argv[i], stacks[s]);
			else if (ntraces == MAX_TRACES)
				hr_errf(&e, HR_USAGE, "more than %d traces in "
					"one command", MAX_TRACES);
			else if (!(traces[ntraces++] = strdup(trace)))
				hr_errf(&e, HR_SYSTEM, "out of memory");
			cJSON_Delete(j);
		}
	}
	/* The traces written, ingested in one run of the ingest (its store
	 * opened and published once, as `headroom ingest` does). */
	if (e.code == HR_OK && ntraces)
		ingest_cli_run(g, traces, ntraces, &o, &e);
	for (int i = 0; i < ntraces; i++)
		free(traces[i]);
	free(found);
	free(python);
	return cli_report("profile", &e);
}
