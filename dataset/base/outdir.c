/* outdir.c - see outdir.h. */
#include "outdir.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static int make_one(const char *path, struct hr_err *e)
{
	struct stat st;

	if (!mkdir(path, 0777))
		return HR_OK;
	if (errno == EEXIST && !stat(path, &st) && S_ISDIR(st.st_mode))
		return HR_OK;
	return hr_errf(e, HR_SYSTEM, "%s: %s", path,
		       errno == EEXIST ? "exists and is not a folder" :
		       strerror(errno));
}

int outdir_create(const char *path, struct hr_err *e)
{
	char tmp[PATH_MAX];

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp))
		return hr_errf(e, HR_USAGE, "%.64s...: path too long", path);
	for (char *p = tmp + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (make_one(tmp, e))
			return e->code;
		*p = '/';
	}
	return make_one(tmp, e);
}
