/* runfiles.c - see runfiles.h. */
#include "runfiles.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

const char *runfiles_prefix(void)
{
	const char *env = getenv("HEADROOM_PREFIX");

	return env && *env ? env : runfiles_builtin_prefix();
}

int runfiles_path(enum runfiles_dir d, const char *name, char *buf,
		  size_t n)
{
	int len = snprintf(buf, n, "%s/%s/headroom%s%s", runfiles_prefix(),
			   d == RUNFILES_LIBEXEC ? "libexec" : "share",
			   *name ? "/" : "", name);

	return len < 0 || (size_t)len >= n ? -1 : 0;
}

char *runfiles_find(enum runfiles_dir d, const char *name)
{
	char path[4096];

	if (runfiles_path(d, name, path, sizeof(path)) ||
	    access(path, R_OK) != 0)
		return NULL;
	return realpath(path, NULL);
}
