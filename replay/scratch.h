/* scratch.h - the directories a replay writes: make them, measure them,
 * empty them.
 *
 * Owns: the file-system side of the scratch, cache and inputs directories
 * (replay.c, cmd_audit.c).  Must not: know what the files are beyond the
 * ".tmp" suffix of a set still being written.
 */
#ifndef HR_SCRATCH_H
#define HR_SCRATCH_H

#include <limits.h>
#include <stdint.h>

#include "../dataset/base/err.h"

/* mkdir -p path (mode 0755). */
int scratch_mkdir_p(const char *path, struct hr_err *e);

/* Create dir when missing and write its absolute path into out (workers
 * chdir, so the directories they are given must be absolute). */
int scratch_absolute_dir(const char *dir, char out[PATH_MAX],
			 struct hr_err *e);

/* Remove the files of dir whose names start with prefix ("" every file);
 * best effort (a missing dir has none).  Returns how many could not be
 * removed. */
int scratch_remove_files(const char *dir, const char *prefix);

/* Bytes of the regular files directly in dir (0 when it cannot be read);
 * in *largest when not NULL, the largest size of a whole file: names that
 * end in ".tmp" (a worker's set being written) count in the bytes but not
 * there, as a half-written set would understate a set's size. */
uint64_t scratch_dir_bytes(const char *dir, uint64_t *largest);

#endif
