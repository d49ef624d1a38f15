/* fuzz_npy.c - fuzz target: the .npy reader of verify/ (npy_read), fed
 * through a memfd since it reads a path. */
#include "fuzz.h"

#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../verify/npy.h"

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct npy_array a = { 0 };
	struct hr_err e;
	char path[64];
	int fd = memfd_create("fuzz.npy", 0), rc;

	if (fd < 0)
		return 0;
	if (size && write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	hr_err_clear(&e);
	rc = npy_read(path, &a, &e);
	fuzz_check_error(rc, &e);
	npy_release(&a);
	close(fd);
	return 0;
}
