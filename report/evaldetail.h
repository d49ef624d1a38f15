/* evaldetail.h - what the drill-down of one evaluation shows beyond the
 * read models: the archive's timings, trials and error, the kernel's code,
 * and one replay job's trials, timings, build log and run (device, GPU,
 * driver, CUDA, torch, tool, clocks).
 *
 * Owns: the two SELECTs behind it, prepared once and run per evaluation
 * and per job (the job a report shows is chosen by readmodel/replayset.h).
 * Column names are those of the store, as `headroom show --format json`
 * prints them; a *_json column becomes the JSON value it holds.  Must not:
 * write to the store, print.
 */
#ifndef HR_EVALDETAIL_H
#define HR_EVALDETAIL_H

#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stdint.h>

#include "../dataset/base/err.h"

struct evaldetail {
	sqlite3 *db;          /* borrowed */
	sqlite3_stmt *eval;   /* owned */
	sqlite3_stmt *job;    /* owned; NULL without replay tables */
};

/* Prepare the statements; release with evaldetail_close (also after a
 * failure). */
int evaldetail_open(struct evaldetail *d, sqlite3 *db, struct hr_err *e);
void evaldetail_close(struct evaldetail *d);

/* Add evaluation id's archive fields and its kernel ("kernel_sha256",
 * "code"; null without code) as members of obj. */
int evaldetail_eval(struct evaldetail *d, int64_t id, cJSON *obj,
		    struct hr_err *e);

/* Add replay job job_id's fields and its run's as members of obj. */
int evaldetail_job(struct evaldetail *d, int64_t job_id, cJSON *obj,
		   struct hr_err *e);

/* Column c of st's current row as JSON: numbers stay numbers, NULL is
 * null, a *_json column becomes the value it holds (its text when that is
 * not JSON).  NULL when out of memory. */
cJSON *evaldetail_column_json(sqlite3_stmt *st, int c);

#endif
