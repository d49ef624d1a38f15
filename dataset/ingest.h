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

struct cJSON;

struct ingest_ctx {
	struct store *store;
	int64_t source_id;
	const char *source_name;
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
 * are files named baseline_time_*.json.  What is assumed (model name source, unit, ids,
 * which baselines made which speedups) goes to ctx->notes. */
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
struct lb_map;
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

/* The driver cmd_ingest and cmd_problems share: load path, pick the
 * reader, and do it all in one transaction (nothing is written on any
 * error).  A source whose content hash is already stored under the same
 * kind is not read again: r->existed = 1 and nothing changes. */
enum ingest_kind {
	INGEST_AUTO,      /* export manifest, else --map, else kernelbench */
	INGEST_PROBLEMS,  /* a problem set */
};

struct ingest_opts {
	enum ingest_kind kind;
	const char *source_name;  /* NULL: the input's base name */
	const struct lb_map *map; /* leaderboard mapping, or NULL */
	struct archive_limits limits;
	/* Profiler traces (trace.h): what the trace is of; NULL = what the
	 * trace says, else (workload) the file's base name. */
	const char *workload, *domain, *stack;
	/* --adopt: a database of someone else's gets headroom's tables
	 * beside its own (store.h, STORE_ADOPT); else it is refused. */
	int adopt;
};

struct ingest_result {
	int64_t source_id;
	int existed;              /* already ingested: nothing added */
	const char *kind;         /* kernelbench-run | leaderboard | ... */
	char sha256[HR_SHA256_HEX];
	char name[256];           /* the source name used */
	int64_t n_evaluations, n_kernels, n_kernels_new, n_speedups;
	int64_t n_baselines, n_problems;
};

/* Ingest a set already loaded by archive_load (the CLI loads first so
 * that a bad input never creates or locks the database). */
int ingest_fileset(struct store *s, const struct afileset *fs,
		   const struct ingest_opts *o, struct ingest_result *r,
		   struct hr_err *e);

/* The input's base name without trailing '/' or archive extensions
 * (.tar.gz, .tgz, .zip, ...): a default source or run name.  Writes at
 * most n bytes into buf. */
void ingest_base_name(const char *path, char *buf, size_t n);

#endif
