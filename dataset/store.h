/* store.h - the one SQLite store (headroom.db): schema, migrations, writes.
 *
 * Owns: opening the database (WAL, busy timeout, application_id, foreign
 * keys), the schema and its user_version migrations, and every INSERT of
 * ingested data.  Other stages read through store_db() with their own
 * prepared SELECTs; nothing outside dataset/ changes the schema.
 * Must not: parse outside formats (readers do), print anything.
 *
 * Missing values: doubles use NAN, tri-state flags use -1 (unknown),
 * strings use NULL.  All strings are borrowed for the duration of the call.
 */
#ifndef HR_STORE_H
#define HR_STORE_H

#include <sqlite3.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/err.h"
#include "digest.h"

#define HR_APPLICATION_ID 0x48526d31 /* "HRm1" */

/* Every mode refuses, without changing it, a file that is not a headroom
 * store or an empty database: another program's SQLite database, one of a
 * newer schema, or a file that is not SQLite at all (HR_INPUT naming the
 * path).  The schema version is always read under the write lock, so two
 * processes opening a new or older store cannot both migrate it. */
enum store_open_mode {
	STORE_READ = 0,   /* the file must exist and carry our application_id */
	STORE_WRITE = 1,  /* create when missing, migrate to the current schema
			   * in a transaction of its own, switch to WAL */
	/* Create when missing, but change nothing until the caller's first
	 * store_begin, which migrates inside that same transaction; WAL is
	 * switched on after its commit.  A write that is rolled back leaves
	 * the file byte-identical (a 0-byte file stays 0 bytes). */
	STORE_APPEND = 2,
	/* Or'd into STORE_WRITE or STORE_APPEND: adopt a database that is
	 * someone else's (tables of its own, no application_id, user_version
	 * 0): headroom's tables are added beside its own, which are left as
	 * they are.  Without it such a database is refused (HR_INPUT).  One
	 * with another application_id or a user_version of its own is
	 * refused either way: its owner keeps its version there. */
	STORE_ADOPT = 0x10,
};

struct store;

/* Open path.  On success *out owns the connection; free with store_close.
 * A store it creates (a mode other than STORE_READ, path missing) gets
 * store_file_mode's mode. */
int store_open(struct store **out, const char *path, enum store_open_mode mode,
	       struct hr_err *e);
void store_close(struct store *s);

/* The mode of a new store at path: it holds other people's code and what
 * their jobs printed, so 0600, or 0640 in a folder whose files take its
 * group (set-group-ID: a folder shared with a group). */
mode_t store_file_mode(const char *path);

/* HR_SYSTEM in e, "database: WHAT: MESSAGE" (without "WHAT: " when what
 * is NULL), MESSAGE being db's last error: the one way a failed SQLite
 * call becomes an error value. */
int store_db_err(sqlite3 *db, const char *what, struct hr_err *e);

/* The one row loop: prepare sql on db and call row(st, arg, e) for each
 * row it gives.  A row that returns non-zero stops the loop, its error in
 * e; a failed prepare or step is store_db_err.  Returns e->code. */
int store_each(sqlite3 *db, const char *sql,
	       int (*row)(sqlite3_stmt *st, void *arg, struct hr_err *e),
	       void *arg, struct hr_err *e);

/* The raw connection, for prepared SELECTs in report/ and figures/. */
sqlite3 *store_db(struct store *s);

/* A malloc'd copy of text column col of the current row of st; if_null
 * (copied too) or NULL when the value is SQL NULL.  NULL also when out of
 * memory. */
char *store_col_dup(sqlite3_stmt *st, int col, const char *if_null);

/* 1 when the database has a table whose name matches the GLOB pattern
 * (a plain name matches only itself), 0 otherwise or on error. */
int store_has_table(sqlite3 *db, const char *pattern);

/* Schema version this build writes (PRAGMA user_version after migration). */
int store_schema_version(void);

/* One logical write = one transaction (BEGIN IMMEDIATE ... COMMIT).
 * store_begin also migrates an empty or older file to the current schema
 * inside the transaction (so a rollback undoes it too); store_commit
 * switches the file to WAL once it holds a committed schema. */
int store_begin(struct store *s, struct hr_err *e);
int store_commit(struct store *s, struct hr_err *e);
void store_rollback(struct store *s);

struct store_source {
	const char *name;       /* --source NAME, or the input's base name */
	const char *path;       /* as given on the command line */
	const char *kind;       /* kernelbench-run | leaderboard | problems | export */
	const char *sha256;     /* content hash of the input (see ingest) */
	const char *map_name;   /* mapping file name for leaderboard input */
	const char *notes_json; /* assumptions made while reading (JSON) */
	/* When the source was first ingested and by which headroom (an
	 * export read back keeps them); NULL: now, this build. */
	const char *ingested_at, *tool_version;
};

/* Insert a source.  When a source with the same sha256 and kind exists,
 * *existed is set to 1 and *id to the old row; nothing is written. */
int store_add_source(struct store *s, const struct store_source *src,
		     int64_t *id, int *existed, struct hr_err *e);

/* Replace the notes_json of source id (the readers' notes are only known
 * after reading, and the source row must exist first). */
int store_set_source_notes(struct store *s, int64_t id,
			   const char *notes_json, struct hr_err *e);

/* Insert (or find) kernel code by its SHA-256; *id is the row. */
int store_add_kernel(struct store *s, const char *code, int64_t *id,
		     struct hr_err *e);

struct store_problem {
	int64_t set_id;
	int level;
	int problem_id;          /* as in the file name (KernelBench: 1-based) */
	const char *name;        /* file stem without .py */
	const char *file_name;   /* levelN/ID_Name.py */
	const char *code;
};

int store_add_problem_set(struct store *s, int64_t source_id,
			  const char *name, int64_t *id, struct hr_err *e);
int store_add_problem(struct store *s, const struct store_problem *p,
		      int64_t *id, struct hr_err *e);
/* The problem of (set_id, level, problem_id): 1 with *id and sha (the
 * code's SHA-256) set, 0 when the set has none, or an error code. */
int store_find_problem(struct store *s, int64_t set_id, int level,
		       int problem_id, int64_t *id, char sha[HR_SHA256_HEX],
		       struct hr_err *e);

struct store_eval {
	int64_t source_id;
	const char *run;           /* run directory / dump name inside source */
	const char *model;
	int level;
	int problem_id;            /* normalised to 1-based */
	int problem_id_base;       /* 0 or 1: what the input used */
	const char *problem_name;  /* NULL when the input does not say */
	int sample_id;
	int64_t kernel_id;         /* 0 when no code was stored */
	const char *hardware;
	const char *precision;     /* fp32 | fp16 | bf16 | NULL */
	double atol, rtol;         /* NAN when unknown */
	const char *harness;       /* e.g. kernelbench-v0, or NULL */
	int compiled, correct;     /* 1, 0, or -1 unknown */
	double runtime_ms, runtime_std_ms, runtime_min_ms, runtime_max_ms;
	int num_trials;            /* -1 unknown */
	int correct_trials_passed, correct_trials_total; /* -1 unknown */
	const char *error_kind, *error_text;
	const char *unit_assumed;  /* how the runtime unit was decided */
	const char *record_ref;    /* member path + index/line in the input */
	const char *metadata_json; /* raw metadata, verbatim */
};

/* Insert an evaluation.  A second record with the same (source, run, model,
 * level, problem, sample) is a duplicate: HR_INPUT naming both records.
 * The model is part of the key because one leaderboard dump (one run)
 * holds the records of many models. */
int store_add_evaluation(struct store *s, const struct store_eval *ev,
			 int64_t *id, struct hr_err *e);

struct store_speedup {
	int64_t evaluation_id;
	const char *baseline_kind; /* eager | compile_inductor_default | ... | unknown */
	double baseline_ms;        /* NAN when the input gave only the ratio */
	double value;
	const char *origin;        /* reported | computed */
	const char *baseline_ref;  /* where the baseline came from */
};

int store_add_speedup(struct store *s, const struct store_speedup *sp,
		      struct hr_err *e);

struct store_baseline {
	int64_t source_id;
	const char *hardware_dir;  /* e.g. H100_Modal (directory name) */
	const char *baseline_kind;
	int level;
	const char *problem_file;  /* e.g. 1_Square_matrix_multiplication_.py */
	double mean_ms, std_ms, min_ms, max_ms;
	int num_trials;
	const char *hardware, *device;
};

int store_add_baseline(struct store *s, const struct store_baseline *b,
		       struct hr_err *e);

/* What running a problem's reference once showed (headroom audit
 * problems).  gates_json: {"<preset>": {"atol", "rtol", "dtype", "zeros",
 * "constant", "input", "margin", ...}}.  One row per (problem sha256,
 * device, dtype): a new audit replaces the old one. */
struct store_audit {
	const char *problem_sha256;
	int level, problem_id;
	const char *name;
	const char *device;        /* cpu | cuda */
	const char *dtype;         /* dtype the reference was computed in */
	int seed;
	const char *output_shape;  /* JSON array */
	int64_t output_numel;
	double max_abs_ref, rms_ref;
	const char *gates_json;
	const char *torch;         /* the worker's torch version, or NULL */
};

int store_put_problem_audit(struct store *s, const struct store_audit *a,
			    struct hr_err *e);

#endif
