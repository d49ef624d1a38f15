/* reader.h - what a reader of an outside format is given, and the readers.
 *
 * Owns: struct ingest_ctx (the store, the source being written, the
 * counters and notes every reader fills) and the readers' entry points:
 * KernelBench runs (kernelbench.c), problem sets (problems.c),
 * leaderboard dumps through a mapping file (leaderboard.c) and the
 * canonical export (export.c).  The driver (ingest.h) holds the one table
 * of them it walks.  Each reader interprets an in-memory file set
 * (archive.h) and writes what it finds through store.h, inside the
 * transaction the driver opened.  Must not: print, open transactions, or
 * know of each other or of the driver; they return HR_INPUT with a
 * message that names the input, the member file and the record (line,
 * byte offset, key).
 */
#ifndef HR_READER_H
#define HR_READER_H

#include <stdint.h>

#include "archive.h"
#include "store.h"

struct cJSON;
struct lb_map;

struct ingest_ctx {
	struct store *store;
	int64_t source_id;
	const char *source_name;
	/* The leaderboard mapping the input is read through (borrowed), or
	 * NULL. */
	const struct lb_map *map;
	/* A JSON object the reader adds its assumptions and ambiguities to
	 * (owned by the caller, stored as the source's notes_json); NULL
	 * when the caller does not want them. */
	struct cJSON *notes;
	int64_t n_evaluations;   /* counters the readers increment */
	int64_t n_speedups;
	int64_t n_baselines;
	int64_t n_problems;
	int64_t n_kernels;
};

/* KernelBench run directories + baseline timing JSON (any depth).
 * A run directory is one holding eval_results.json and/or
 * level_L_problem_P_sample_S_kernel.py files; a file named
 * baseline_<model>_level_<L>_<hardware>.json (the early sample store's
 * results, without kernels) is read like an eval_results.json; baselines
 * are files named baseline_time_*.json.  What is assumed (model name
 * source, unit, ids, which baselines made which speedups) goes to
 * ctx->notes. */
int ingest_kernelbench(const struct afileset *fs, struct ingest_ctx *ctx,
		       struct hr_err *e);

/* A KernelBench-format problem set: levelN/ID_Name.py at any depth, one
 * problem set named ctx->source_name.  Other files are ignored; a file
 * named ID_Name.py in a directory whose name starts with "level" but is
 * not levelN (N >= 1) is refused, since it is most likely a problem file
 * this reader would otherwise drop without a word. */
int ingest_problems(const struct afileset *fs, struct ingest_ctx *ctx,
		    struct hr_err *e);

/* Leaderboard-style JSON array / JSON Lines through a mapping file. */
int lb_map_load(const char *path, struct lb_map **out, struct hr_err *e);
/* The same from bytes in memory (buf[0..len), borrowed); name stands for
 * the file in messages. */
int lb_map_parse(const char *name, const char *buf, size_t len,
		 struct lb_map **out, struct hr_err *e);
void lb_map_free(struct lb_map *m);
const char *lb_map_name(const struct lb_map *m);
int ingest_leaderboard(const struct afileset *fs, const struct lb_map *map,
		       struct ingest_ctx *ctx, struct hr_err *e);

/* The problem set a leaderboard source's records' reference code goes
 * into (mapping target reference_code): the source's name followed by
 * this suffix.  Replay matches an evaluation to its own record's
 * reference first (replay/jobs.c). */
#define INGEST_REFERENCE_SET_SUFFIX " (record references)"

/* The canonical archive `headroom export` writes (detected by its
 * manifest). */
int ingest_is_export(const struct afileset *fs);
int ingest_export(const struct afileset *fs, struct ingest_ctx *ctx,
		  struct hr_err *e);

#endif
