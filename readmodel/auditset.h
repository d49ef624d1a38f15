/* auditset.h - what `headroom audit problems` stored about each problem's
 * reference output (table problem_audit), loaded for reports.
 *
 * Owns: reading problem_audit and its gates_json, and the rule that maps an
 * evaluation to the tolerance preset it was judged under.  Must not: write
 * to the store, print.
 */
#ifndef HR_AUDITSET_H
#define HR_AUDITSET_H

#include <sqlite3.h>
#include <stddef.h>

#include "../dataset/base/err.h"

#define AUDIT_MAX_PRESETS 8

struct audit_gate {
	char preset[40];   /* e.g. kernelbench-bf16 */
	double atol, rtol; /* NAN when the JSON lacks them */
	double margin;     /* max_abs_ref / atol, NAN when absent */
	int zeros, constant, input; /* 1: that output passes the check */
	int degenerate;    /* 1: the output did not vary over two draws */
};

struct audit_row {
	char *name;         /* owned */
	char *sha256;       /* owned */
	char *dtype;        /* owned */
	char *device;       /* owned */
	int level, problem_id;
	double max_abs_ref, rms_ref; /* NAN when not stored */
	struct audit_gate gates[AUDIT_MAX_PRESETS];
	int ngates;         /* sorted by preset name */
};

struct auditset {
	struct audit_row *rows; /* owned; sorted by level, problem, dtype,
				   device */
	size_t n;
};

/* Load problem_audit.  Release with auditset_release (also after a failed
 * load).  A malformed gates_json is HR_INPUT naming the problem. */
int auditset_load(struct auditset *as, sqlite3 *db, struct hr_err *e);
void auditset_release(struct auditset *as);

/* Is the check vacuous under gate g (verify/gates.h: some output needing
 * no computation passes, or the output did not vary)? */
int audit_gate_vacuous(const struct audit_gate *g);

/* The preset an evaluation was judged under, from what the archive says:
 * harness kernelbench-v0/v0.1 or fp32 with atol 1e-2 -> kernelbench-v0;
 * fp32 with atol 1e-4 -> kernelbench-fp32; bf16/fp16 -> kernelbench-bf16 /
 * kernelbench-fp16.  NULL when the archive does not say enough. */
const char *audit_preset_for(const char *harness, const char *precision,
			     double atol);

/* The first audit row of (level, problem_id), NULL when not audited. */
const struct audit_row *auditset_find(const struct auditset *as, int level,
				      int problem_id);

/* The gate of a preset in a row, NULL when the row lacks it. */
const struct audit_gate *audit_row_gate(const struct audit_row *r,
					const char *preset);

#endif
