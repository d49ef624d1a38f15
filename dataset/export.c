/* export.c - TEMPORARY STUB on branch `dataset` only.
 *
 * The real reader of `headroom export` archives is written on branch
 * `leaderboard`; when the lead merges, that branch's file replaces this
 * one entirely.  Until then no input is taken for an export.
 */
#include "ingest.h"

int ingest_is_export(const struct afileset *fs)
{
	(void)fs;
	return 0;
}

int ingest_export(const struct afileset *fs, struct ingest_ctx *ctx,
		  struct hr_err *e)
{
	(void)ctx;
	return hr_errf(e, HR_INPUT, "%s: export archives are not supported "
		       "yet", fs->input);
}
