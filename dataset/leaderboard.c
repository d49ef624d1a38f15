/* leaderboard.c - TEMPORARY STUB on branch `dataset` only.
 *
 * The real reader of leaderboard-style dumps is written on branch
 * `leaderboard`; when the lead merges, that branch's file replaces this
 * one entirely.  Until then --map inputs are refused, so that nothing
 * links against absent symbols.
 */
#include <stdlib.h>

#include "ingest.h"

int lb_map_load(const char *path, struct lb_map **out, struct hr_err *e)
{
	*out = NULL;
	return hr_errf(e, HR_INPUT, "%s: leaderboard mappings are not "
		       "supported yet", path);
}

void lb_map_free(struct lb_map *m)
{
	(void)m;
}

const char *lb_map_name(const struct lb_map *m)
{
	(void)m;
	return NULL;
}

int ingest_leaderboard(const struct afileset *fs, const struct lb_map *map,
		       struct ingest_ctx *ctx, struct hr_err *e)
{
	(void)map;
	(void)ctx;
	return hr_errf(e, HR_INPUT, "%s: leaderboard input is not supported "
		       "yet", fs->input);
}
