/* merge.h - joining shard stores (`headroom merge`, cmd_merge.c).
 *
 * Owns: copying the replay runs and jobs of one input store into an
 * output store, evaluations and problems mapped by natural keys, one
 * transaction per input; and the checks every input passes before
 * anything is written: it exists, is a regular file, is not the output,
 * and the tables the merge reads are tables (a view, recursive or not,
 * is refused).  The merge's queries run on a budget of virtual-machine
 * steps proportional to the input's size.  Must not: print, create the
 * output (cmd_merge.c does).
 */
#ifndef HR_MERGE_H
#define HR_MERGE_H

#include <stdint.h>

#include <sqlite3.h>

#include "../dataset/base/err.h"
#include "../dataset/store.h"

/* in, before anything is written: HR_INPUT when it is missing, not a
 * regular file or holds a view where merge reads a table; HR_USAGE when
 * it is out itself.  *size: its size in bytes. */
int merge_check_input(const char *in, const char *out, int64_t *size,
		      struct hr_err *e);

/* Copy in's runs missing from out (by uuid) and their jobs, in one
 * transaction; *runs and *jobs say how many.  size: in's size (the step
 * budget).  Nothing changes on failure. */
int merge_one(struct store *out, const char *in, int64_t size, int *runs,
	      int *jobs, struct hr_err *e);

/* OUT does not exist: start it as a copy of in (migrated first) without
 * its replay rows, open for writing in *s.  On failure nothing of out is
 * left. */
int merge_start_output(const char *in, const char *out, struct store **s,
		       struct hr_err *e);

/* Remove out and its -wal, -shm and -journal (a failed merge's output). */
void merge_remove_output(const char *out);

/* Run sql (one statement, ?1 bound to bind when not NULL); -1 on
 * failure (sqlite3_errmsg says why); *changes (when not NULL): rows
 * changed. */
int merge_run_sql(sqlite3 *db, const char *sql, const char *bind,
		  int *changes);

#endif
