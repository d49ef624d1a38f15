/* tables.h - the tables of `headroom report`, each built from the read
 * models once loaded: claims, detection, dlrm, evidence, findings, models,
 * problems, profiles, provenance, replay, signals.
 *
 * Owns: what the read models of one report run hold (struct report_data),
 * loading and releasing them, and one builder per table (tables.c).
 * cmd_report.c parses the options and writes the tables; html.c lays them
 * out as one page.  Must not: write to the store, print.
 */
#ifndef HR_REPORT_TABLES_H
#define HR_REPORT_TABLES_H

#include <stddef.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "../dataset/base/err.h"
#include "../dataset/base/table.h"
#include "../readmodel/auditset.h"
#include "../readmodel/dlrmset.h"
#include "../readmodel/evalset.h"
#include "../readmodel/profileset.h"
#include "../readmodel/replayset.h"
#include "findings.h"

/* The read models of one report run; the caller sets db and the paths
 * (NULL: shipped) before report_data_load. */
struct report_data {
	sqlite3 *db;
	struct evalset es;
	struct auditset as;
	struct finding_list fl;
	struct replayset rs;
	struct profileset ps;
	struct dlrmset ds;
	int have_ds;          /* ds loaded; else dlrm_why says why not */
	char dlrm_why[1024];
	const char *claims_path, *roles_path;
	const char *classes_path, *problem_map_path; /* NULL: shipped */
	const char *dlrm_map_path;                   /* NULL: shipped */
	const char *workload, *stack;                /* DLRM-Bench weights */
	int workload_given, stack_given;             /* by --workload, --stack */
	const cJSON *prov;    /* provenance of this output */
	int differs;          /* claims: how many differ from the archive */
};

/* Load every read model d's tables read (d->db and the paths set). */
int report_data_load(struct report_data *d, struct hr_err *e);
void report_data_release(struct report_data *d);

/* One table: its name (the report's argument) and its builder, which
 * returns a new table in *t (table_free) or an error in e. */
struct report_table {
	const char *name;
	int (*build)(struct report_data *d, struct table **t,
		     struct hr_err *e);
};

/* Every table, sorted by name (tables.c's definition must have this many:
 * the two types would conflict). */
#define REPORT_NTABLES 11
extern const struct report_table report_tables[REPORT_NTABLES];

#endif
