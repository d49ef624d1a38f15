/* fuzz_trace.h - what the two trace targets share: the input as a file
 * (the readers take a path, and stream it), read by one trace reader,
 * then stored (trace_store: the busy union, the checked sums, the rows)
 * into the run's in-memory store, emptied again after each input.  Included by
 * fuzz_trace_chrome.c and fuzz_trace_nsys.c (and, through them, by the
 * corpus replay), so its functions are static.
 *
 * The file is a real one ($TMPDIR, else /dev/shm, else /tmp; removed at
 * exit), rewritten
 * for every input: SQLite resolves a /proc/self/fd/N link to the memfd's
 * name, which no open can find, so the npy target's memfd would test
 * only the refusal to open. */
#ifndef HR_FUZZ_TRACE_H
#define HR_FUZZ_TRACE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../profile/trace.h"
#include "fuzz.h"

/* The one input file of this process (test-harness state). */
static char fuzz_trace_path[4096];
static int fuzz_trace_fd = -1;

static void fuzz_trace_cleanup(void)
{
	if (fuzz_trace_fd >= 0)
		unlink(fuzz_trace_path);
}

static const char *fuzz_trace_file(const uint8_t *data, size_t size)
{
	if (fuzz_trace_fd < 0) {
		fuzz_trace_fd = fuzz_temp_file("trace", fuzz_trace_path,
					       sizeof(fuzz_trace_path));
		if (fuzz_trace_fd < 0)
			return NULL;
		atexit(fuzz_trace_cleanup);
	}
	if (ftruncate(fuzz_trace_fd, 0) ||
	    (size && pwrite(fuzz_trace_fd, data, size, 0) != (ssize_t)size))
		return NULL;
	return fuzz_trace_path;
}

static void fuzz_trace_one(const uint8_t *data, size_t size,
			   int (*reader)(const char *, struct trace *,
					 struct hr_err *))
{
	const char *path = fuzz_trace_file(data, size);
	struct trace t;
	struct hr_err e;
	int rc;

	if (!path)
		return;
	hr_err_clear(&e);
	trace_init(&t);
	rc = reader(path, &t, &e);
	fuzz_check_error(rc, &e);
	if (rc == HR_OK) {
		struct trace_meta m = { .path = path };
		int64_t id;
		int existed;

		rc = trace_store(fuzz_store(), &t, &m, &id, &existed, &e);
		fuzz_check_error(rc, &e);
		if (rc == HR_OK && existed)
			abort();  /* the store was emptied */
		fuzz_store_reset();
	}
	trace_release(&t);
}

#endif
