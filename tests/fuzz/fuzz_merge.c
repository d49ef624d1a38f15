/* fuzz_merge.c - fuzz target: `headroom merge` of one shard store into a
 * new output (replay/merge.h): the input is the shard's database file,
 * checked (merge_check_input), copied to start the output
 * (merge_start_output) and merged into it (merge_one), as cmd_merge does
 * for `merge OUT.db IN.db` with OUT.db missing.  Files, not memory:
 * ATTACH and VACUUM INTO take paths. */
#include "fuzz.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../replay/merge.h"

/* The input and output files of this process (test-harness state). */
static char fuzz_merge_in[4096], fuzz_merge_out[4096 + 8];
static int fuzz_merge_fd = -1;

static void fuzz_merge_cleanup(void)
{
	unlink(fuzz_merge_in);
	merge_remove_output(fuzz_merge_out);
}

static const char *fuzz_merge_file(const uint8_t *data, size_t size)
{
	if (fuzz_merge_fd < 0) {
		fuzz_merge_fd = fuzz_temp_file("merge", fuzz_merge_in,
					       sizeof(fuzz_merge_in));
		if (fuzz_merge_fd < 0)
			return NULL;
		snprintf(fuzz_merge_out, sizeof(fuzz_merge_out), "%s.out",
			 fuzz_merge_in);
		atexit(fuzz_merge_cleanup);
	}
	/* The input's -wal or -journal of the last run would be read as
	 * this one's. */
	fuzz_merge_cleanup();
	close(fuzz_merge_fd);
	if ((fuzz_merge_fd = open(fuzz_merge_in, O_RDWR | O_CREAT | O_TRUNC,
				  0600)) < 0)
		return NULL;
	if (size && pwrite(fuzz_merge_fd, data, size, 0) != (ssize_t)size)
		return NULL;
	return fuzz_merge_in;
}

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	const char *in = fuzz_merge_file(data, size);
	struct store *out = NULL;
	struct hr_err e;
	int64_t bytes;
	int runs, jobs, rc;

	if (!in)
		return 0;
	hr_err_clear(&e);
	rc = merge_check_input(in, fuzz_merge_out, &bytes, &e);
	if (rc == HR_OK)
		rc = merge_start_output(in, fuzz_merge_out, &out, &e);
	if (rc == HR_OK)
		rc = merge_one(out, in, bytes, &runs, &jobs, &e);
	fuzz_check_error(rc, &e);
	store_close(out);
	merge_remove_output(fuzz_merge_out);
	return 0;
}
