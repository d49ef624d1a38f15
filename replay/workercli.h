/* workercli.h - the command-line options of the commands that start
 * workers (`replay`, `audit problems`): --device, --python, --worker,
 * --verify-lib and --rand-lib mean the same in both and fill one struct
 * worker_opts (pool.h).
 *
 * Owns: those options' getopt entries and codes, their one parser, the
 * check of the libraries they name and where the worker and its
 * libraries are found when not given.  Must not: know a command's other
 * options, print (cli.h's usage errors excepted: workercli_check_libs).
 * Each command's --help describes them in its own words.
 */
#ifndef HR_REPLAY_WORKERCLI_H
#define HR_REPLAY_WORKERCLI_H

#include <stddef.h>

#include "../dataset/base/cli.h"
#include "pool.h"

enum {
	WORKER_OPT_DEVICE = 0x2800, WORKER_OPT_PYTHON, WORKER_OPT_WORKER,
	WORKER_OPT_VERIFY, WORKER_OPT_RAND
};

/* Put these in the command's struct option array. */
#define WORKER_OPTIONS                                                    \
	{ "device", required_argument, NULL, WORKER_OPT_DEVICE },         \
	{ "python", required_argument, NULL, WORKER_OPT_PYTHON },         \
	{ "worker", required_argument, NULL, WORKER_OPT_WORKER },         \
	{ "verify-lib", required_argument, NULL, WORKER_OPT_VERIFY },     \
	{ "rand-lib", required_argument, NULL, WORKER_OPT_RAND }

/* The device when --device is not given: cuda where the NVIDIA driver's
 * control device exists, else cpu. */
const char *workercli_default_device(void);

/* Handle getopt result c with value arg (borrowed into *w).  Returns 1
 * when c is a worker option, 0 when it is not, -1 with why (n bytes) for a
 * bad value. */
int workercli_option(struct worker_opts *w, int c, const char *arg,
		     char *why, size_t n);

/* A --verify-lib or --rand-lib given by name must be readable ('none'
 * is): CLI_NEXT, or the usage error of cmd printed and HR_USAGE. */
int workercli_check_libs(const struct worker_opts *w, const char *cmd);

/* w->worker when given, else the libexec folder's worker.py (malloc'd
 * into *owned); none there is a system error naming where it looked. */
int workercli_find_worker(struct worker_opts *w, char **owned,
			  struct hr_err *e);

/* The file name of the verify library for device (cpu | cuda). */
const char *workercli_verify_name(const char *device);

#endif
