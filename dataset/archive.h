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
#include <stdio.h>
#include <stdint.h>

#include "digest.h"
#include "base/err.h"

struct archive_limits {
	uint64_t max_entry_bytes;   /* one entry, uncompressed */
	uint64_t max_total_bytes;   /* all entries, uncompressed */
	uint64_t max_entries;
	double max_ratio;           /* uncompressed total / input size */
};

/* Defaults: 64 MiB an entry, 2 GiB in all, 1,000,000 entries, ratio 200.
 * The ratio is only checked once more than 1 MiB has been unpacked, so
 * that a small, very repetitive archive is not mistaken for a bomb; it
 * does not apply to directories and single files (nothing is unpacked). */
void archive_limits_default(struct archive_limits *lim);

struct afile {
	char *path;           /* relative, '/'-separated, no leading "./" */
	unsigned char *data;  /* len bytes, plus a NUL after them */
	size_t len;
};

struct afileset {
	char *input;          /* the path as given */
	/* The directory the paths are relative to: a directory input's own
	 * name, or the one top directory an archive was read as; NULL when
	 * there is none.  Readers name a run at the top level after it. */
	char *root_name;
	struct afile *files;  /* sorted by path */
	size_t n;
	size_t cap;           /* allocated slots in files (private) */
	/* SHA-256 over the sorted (path, sha256(content)) pairs, each fed as
	 * path, NUL, 64 hex digits, newline: the same content as a directory
	 * or as any archive format gives the same hash, which is what makes
	 * re-ingest idempotent. */
	char sha256[HR_SHA256_HEX];
};

/* Load input_path: a directory (walked with archive_read_disk, symlinks
 * inside it not followed), a file whose name ends in .json or .jsonl (a
 * set of one file, named by its base name), or else a tar or zip archive
 * under any compression libarchive reads.  An archive whose entries all
 * lie under one top directory is read as that directory (paths lose that
 * first component), so a directory and an archive of it load the same.
 *
 * Skipped, as benign: directory entries, and the macOS debris "__MACOSX/"
 * (any depth), ".DS_Store" and "._*" AppleDouble files.  Refused (HR_INPUT
 * naming the input and the entry, nothing kept): absolute names, ".."
 * components, symlinks, hardlinks (in archives; on disk a regular file with
 * more than one link), devices, fifos and sockets, names that are not UTF-8
 * or are empty, the same name twice, an entry over max_entry_bytes, a total
 * over max_total_bytes, more than max_entries entries, a ratio over
 * max_ratio, any read error (a truncated or corrupt stream), and bytes
 * after the end of the archive (concatenated tars, plain or compressed,
 * are read as one), a gzip member whose CRC-32 or length does not match
 * (libarchive does not check them; the loader does).  A missing or
 * unreadable input is HR_INPUT too, and so is an input that is neither a
 * regular file nor a directory (a FIFO would block, /dev/zero never
 * end).  On success *out owns everything;
 * on failure *out is left empty (afileset_free is still safe). */
int archive_load(const char *input_path, const struct archive_limits *lim,
		 struct afileset *out, struct hr_err *e);
void afileset_free(struct afileset *fs);

/* The archive branch of archive_load over bytes in memory (data[0..len),
 * borrowed for the call), with the same rules and caps; name stands for
 * the input in messages.  For the fuzz targets and tests. */
int archive_load_memory(const char *name, const void *data, size_t len,
			const struct archive_limits *lim,
			struct afileset *out, struct hr_err *e);

/* Build a set by hand (readers' tests, synthetic inputs): start from a
 * zeroed struct, afileset_add copies each file, afileset_finish sorts,
 * refuses a path added twice (HR_INPUT) and computes sha256. */
int afileset_add(struct afileset *fs, const char *path, const void *data,
		 size_t len, struct hr_err *e);
int afileset_finish(struct afileset *fs, struct hr_err *e);

/* What readers demand of text they store (code, configs): valid UTF-8
 * and no NUL byte.  HR_INPUT "<input>: <path>: line L, column C (byte
 * B): ..." otherwise. */
int afile_check_text(const char *input, const struct afile *f,
		     struct hr_err *e);

/* Open path for reading only when it is a regular file: a FIFO is never
 * opened for real (it would block until a writer came), a device is never
 * read (/dev/zero never ends).  HR_INPUT "<path>: a FIFO, not a regular
 * file" or "<path>: <errno text>"; with what (e.g. "mapping file"):
 * "<path>: not a <what> (a FIFO)", "<path>: cannot open <what>: ...". */
int archive_fopen_regular(const char *path, const char *what, FILE **f,
			  struct hr_err *e);

/* Exact path lookup (binary search); NULL when absent. */
const struct afile *afileset_find(const struct afileset *fs,
				  const char *path);

/* The input's base name without trailing '/' or archive extensions
 * (.tar.gz, .tgz, .zip, .json, ...): a default source or run name.
 * Writes at most n bytes into buf. */
void archive_base_name(const char *path, char *buf, size_t n);

#endif
