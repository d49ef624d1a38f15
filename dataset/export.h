/* export.h - the canonical archive of a store (`headroom export`).
 *
 * Owns: the export layout (format "headroom-export", version 2; version
 * 1, without profiles, is still read), writing it deterministically with
 * libarchive, and reading it back (reader.h's ingest_is_export /
 * ingest_export, implemented in export.c).
 * Must not: print, or write anything but the one output file (never the
 * store itself).
 *
 * Layout, every entry under headroom-export/ (sorted, mtime from
 * SOURCE_DATE_EPOCH or 0, uid/gid 0, mode 0644):
 *   manifest.json         format, format_version, tool, tool_version,
 *                         schema_version, counts
 *   sources.jsonl         one source row a line (all columns)
 *   problem_sets.jsonl    one problem set a line
 *   problems.jsonl        one problem a line, its code at "path"
 *   problems/<set>/levelN/ID_Name.py
 *   evaluations.jsonl     every column; the kernel as kernel_sha256
 *   kernels/<sha256>.py
 *   speedups.jsonl, baselines.jsonl
 *   profiles.jsonl        one profiled trace a line (the profile table)
 *   profile_kernels.jsonl its (kind, name) sums, by profile_id
 * Rows carry an "id" numbered 1, 2, ... in store id order; references
 * (source_id, set_id, evaluation_id, profile_id) use those numbers and
 * are remapped on import.  Sources of kind "export" (the record that an
 * export was ingested; they own no rows) are not written, so exporting
 * the store an export was ingested into gives the same bytes.  A store
 * holding what ingest would not read back as it is -- text that is not
 * UTF-8 or holds a NUL, an integer beyond 2^53 -- is refused (HR_INPUT
 * naming file, row and column), never written half-faithfully.  Not
 * exported: problem_audit, which `headroom audit problems` re-derives,
 * and the replay tables, which `headroom merge` joins.
 */
#ifndef HR_EXPORT_H
#define HR_EXPORT_H

#include <stdint.h>

#include "base/err.h"
#include "store.h"

#define EXPORT_FORMAT_NAME "headroom-export"
#define EXPORT_FORMAT_VERSION 2

enum export_format { EXPORT_TAR_ZST, EXPORT_TAR_GZ, EXPORT_TAR, EXPORT_ZIP };

/* "tar.zst", "tar.gz", "tar" or "zip"; -1 when name is none of them. */
int export_format_parse(const char *name, enum export_format *f);
/* By the extension of path (.tar.zst/.tzst, .tar.gz/.tgz, .tar, .zip);
 * -1 when it says nothing. */
int export_format_for_path(const char *path, enum export_format *f);

struct export_counts {
	int64_t sources, problem_sets, problems, evaluations, kernels,
		speedups, baselines, profiles, profile_kernels;
};

/* Write everything in s to out_path: into a temporary file beside it,
 * renamed into place only when complete.  An existing out_path is refused
 * (HR_USAGE) unless force. */
int export_write(struct store *s, const char *out_path,
		 enum export_format fmt, int force, struct export_counts *n,
		 struct hr_err *e);

#endif
