/* workercli.c - see workercli.h. */
#include "workercli.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../dataset/base/runfiles.h"

const char *workercli_default_device(void)
{
	return access("/dev/nvidiactl", F_OK) == 0 ? "cuda" : "cpu";
}

int workercli_option(struct worker_opts *w, int c, const char *arg,
		     char *why, size_t n)
{
	switch (c) {
	case WORKER_OPT_DEVICE:
		if (strcmp(arg, "cpu") && strcmp(arg, "cuda")) {
			snprintf(why, n, "--device is cpu or cuda, not '%s'",
				 arg);
			return -1;
		}
		w->device = arg;
		return 1;
	case WORKER_OPT_PYTHON:
		w->python = arg;
		return 1;
	case WORKER_OPT_WORKER:
		w->worker = arg;
		return 1;
	case WORKER_OPT_VERIFY:
		w->verify_lib = arg;
		return 1;
	case WORKER_OPT_RAND:
		w->rand_lib = arg;
		return 1;
	}
	return 0;
}

int workercli_check_libs(const struct worker_opts *w, const char *cmd)
{
	int r = cli_check_lib(cmd, "verify-lib", w->verify_lib);

	if (r != CLI_NEXT)
		return r;
	return cli_check_lib(cmd, "rand-lib", w->rand_lib);
}

int workercli_find_worker(struct worker_opts *w, char **owned,
			  struct hr_err *e)
{
	char want[512];

	*owned = NULL;
	if (w->worker)
		return HR_OK;
	*owned = runfiles_find(RUNFILES_LIBEXEC, "worker.py");
	w->worker = *owned;
	if (w->worker)
		return HR_OK;
	runfiles_path(RUNFILES_LIBEXEC, "worker.py", want, sizeof(want));
	return hr_errf(e, HR_SYSTEM, "no worker at %s (see $HEADROOM_PREFIX); "
		       "give --worker PATH", want);
}

const char *workercli_verify_name(const char *device)
{
	return strcmp(device, "cuda") ? "libhrverify.so" :
		"libhrverify_cuda.so";
}
