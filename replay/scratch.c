/* scratch.c - see scratch.h. */
#include "scratch.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int scratch_mkdir_p(const char *path, struct hr_err *e)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof(buf))
		return hr_errf(e, HR_USAGE, "bad directory name '%s'", path);
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(buf, 0755) && errno != EEXIST)
				return hr_errf(e, HR_SYSTEM, "%s: %s", buf,
					       strerror(errno));
			*p = c;
			if (!c)
				break;
		}
	}
	return HR_OK;
}

int scratch_absolute_dir(const char *dir, char out[PATH_MAX],
			 struct hr_err *e)
{
	if (scratch_mkdir_p(dir, e))
		return e->code;
	if (!realpath(dir, out))
		return hr_errf(e, HR_SYSTEM, "%s: %s", dir, strerror(errno));
	return HR_OK;
}

uint64_t scratch_dir_bytes(const char *dir, uint64_t *largest)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	struct stat sb;
	uint64_t n = 0;

	if (largest)
		*largest = 0;
	if (!d)
		return 0;
	while ((de = readdir(d)) != NULL)
		if (!fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) &&
		    S_ISREG(sb.st_mode)) {
			size_t len = strlen(de->d_name);

			n += (uint64_t)sb.st_size;
			if (largest && (uint64_t)sb.st_size > *largest &&
			    !(len >= 4 && !strcmp(de->d_name + len - 4, ".tmp")))
				*largest = (uint64_t)sb.st_size;
		}
	closedir(d);
	return n;
}

int scratch_remove_files(const char *dir, const char *prefix)
{
	size_t plen = strlen(prefix);
	DIR *d = opendir(dir);
	struct dirent *de;
	int left = 0;

	if (!d)
		return errno == ENOENT ? 0 : 1;
	while ((de = readdir(d)) != NULL) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    strncmp(de->d_name, prefix, plen))
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) && errno != ENOENT)
			left++;
	}
	closedir(d);
	return left;
}
