/* fuzz_leaderboard.c - fuzz target: the mapping file and the leaderboard
 * reader through it.  The member "map.json" is the mapping (lb_map_parse);
 * every other member is a dump (JSON array or JSON Lines) read through it.
 * A single-member input is a mapping alone. */
#include "fuzz.h"

#include <string.h>

/* ingest_leaderboard takes the map, fuzz_read a reader without one: the
 * map of the current input, set around the call (harness state). */
static const struct lb_map *the_map;

static int read_with_map(const struct afileset *fs, struct ingest_ctx *ctx,
			 struct hr_err *e)
{
	return ingest_leaderboard(fs, the_map, ctx, e);
}

int FUZZ_ENTRY(const uint8_t *data, size_t size)
{
	struct afileset fs, dump = { 0 };
	const struct afile *m;
	struct lb_map *map = NULL;
	struct hr_err e;
	int rc;

	hr_err_clear(&e);
	if (fuzz_fileset(data, size, "map.json", &fs, &e) ||
	    !(m = afileset_find(&fs, "map.json"))) {
		afileset_free(&fs);
		return 0;
	}
	rc = lb_map_parse("map.json", (const char *)m->data, m->len, &map,
			  &e);
	fuzz_check_error(rc, &e);
	if (rc == HR_OK && fs.n > 1 && (dump.input = strdup(fs.input))) {
		for (size_t i = 0; i < fs.n; i++)
			if (&fs.files[i] != m)
				afileset_add(&dump, fs.files[i].path,
					     fs.files[i].data, fs.files[i].len,
					     &e);
		if (afileset_finish(&dump, &e) == HR_OK) {
			the_map = map;
			fuzz_read(&dump, read_with_map);
			the_map = NULL;
		}
	}
	afileset_free(&dump);
	lb_map_free(map);
	afileset_free(&fs);
	return 0;
}
