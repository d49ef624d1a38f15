/* ingest.h - the readers of outside formats, as cmd_ingest drives them.
 *
 * Each reader interprets an in-memory file set (archive.h) and writes what
 * it finds through store.h, inside the transaction the caller opened.
 * Readers never print; they return HR_INPUT with a message that names the
 * input, the member file and the record (line, byte offset, key).
 */
#ifndef HR_INGEST_H
#define HR_INGEST_H

#include <stdint.h>

#include "archive.h"
#include "store.h"

struct ingest_ctx {
	struct store *store;
	int64_t source_id;
	const char *source_name;
	int64_t n_evaluations;   /* counters the readers increment */
	int64_t n_speedups;
	int64_t n_baselines;
	int64_t n_problems;
	int64_t n_kernels;
};

/* KernelBench run directories + baseline timing JSON (any depth). */
int ingest_kernelbench(const struct afileset *fs, struct ingest_ctx *ctx,
		       struct hr_err *e);

/* A KernelBench-format problem set: levelN/ID_Name.py. */
int ingest_problems(const struct afileset *fs, struct ingest_ctx *ctx,
		    struct hr_err *e);

/* Leaderboard-style JSON array / JSON Lines through a mapping file. */
struct lb_map;
int lb_map_load(const char *path, struct lb_map **out, struct hr_err *e);
void lb_map_free(struct lb_map *m);
const char *lb_map_name(const struct lb_map *m);
int ingest_leaderboard(const struct afileset *fs, const struct lb_map *map,
		       struct ingest_ctx *ctx, struct hr_err *e);

/* The canonical archive `headroom export` writes (detected by its
 * manifest). */
int ingest_is_export(const struct afileset *fs);
int ingest_export(const struct afileset *fs, struct ingest_ctx *ctx,
		  struct hr_err *e);

#endif
