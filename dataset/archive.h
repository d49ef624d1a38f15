/* archive.h - load any input (directory, archive or single file) into
 * memory through libarchive, with the safety checks of untrusted input.
 *
 * Owns: the walk of inputs and every rule about which entries are refused
 * (absolute paths, "..", symlinks/hardlinks, devices/fifos, entries over the
 * size cap, totals or compression ratios over the caps, truncated streams,
 * names that are not UTF-8).  Must not: interpret file contents.
 */
#ifndef HR_ARCHIVE_H
#define HR_ARCHIVE_H

#include <stddef.h>
#include <stdint.h>

#include "digest.h"
#include "err.h"

struct archive_limits {
	uint64_t max_entry_bytes;   /* one entry, uncompressed */
	uint64_t max_total_bytes;   /* all entries, uncompressed */
	uint64_t max_entries;
	double max_ratio;           /* uncompressed total / input size */
};

/* Defaults: 64 MiB an entry, 2 GiB in all, 1,000,000 entries, ratio 200. */
void archive_limits_default(struct archive_limits *lim);

struct afile {
	char *path;           /* relative, '/'-separated, no leading "./" */
	unsigned char *data;  /* len bytes, plus a NUL after them */
	size_t len;
};

struct afileset {
	char *input;          /* the path as given */
	struct afile *files;  /* sorted by path */
	size_t n;
	/* SHA-256 over the sorted (path, sha256(content)) pairs: the same
	 * content as a directory or as any archive format gives the same
	 * hash, which is what makes re-ingest idempotent. */
	char sha256[HR_SHA256_HEX];
};

/* Load input_path.  Entries that are not regular files (directories) are
 * skipped; refused entries fail the whole load with HR_INPUT naming the
 * input and the entry.  On success *out owns everything. */
int archive_load(const char *input_path, const struct archive_limits *lim,
		 struct afileset *out, struct hr_err *e);
void afileset_free(struct afileset *fs);

/* Exact path lookup (binary search); NULL when absent. */
const struct afile *afileset_find(const struct afileset *fs,
				  const char *path);

#endif
