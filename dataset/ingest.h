/* ingest.h - the ingest driver: an input loaded as a file set (archive.h)
 * goes into the store through the reader that takes it (reader.h).
 *
 * Owns: the table of readers ({name, detect, read}, walked in order, the
 * first whose detect takes the set reads it), the one transaction of an
 * ingest, and what an ingest reports.  Must not: interpret file contents
 * (the readers do), print.  Profiler traces are not in the table: their
 * readers (trace.h) stream one file by its path, never a loaded file set,
 * and store it in a transaction of their own (trace_store).
 */
#ifndef HR_INGEST_H
#define HR_INGEST_H

#include <stdint.h>

#include "archive.h"
#include "reader.h"
#include "store.h"

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

#endif
