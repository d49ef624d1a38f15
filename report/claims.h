/* claims.h - the claims ledger: each claim of the paper, its stated value,
 * and the same number recomputed from the store.
 *
 * Owns: reading the ledger (paper/claims.json) and the role mapping
 * (paper/roles.json), the catalogue of named metrics a claim may name (C
 * code, never SQL from the file), and the status of each claim.  Must not:
 * write to the store, print.  The file formats and every metric are
 * documented in docs/report.md.
 */
#ifndef HR_CLAIMS_H
#define HR_CLAIMS_H

#include <cjson/cJSON.h>
#include <sqlite3.h>
#include <stddef.h>

#include "../dataset/base/err.h"
#include "../readmodel/auditset.h"
#include "../readmodel/dlrm.h"
#include "../readmodel/evalset.h"
#include "../readmodel/metrics.h"
#include "../readmodel/profileset.h"
#include "../readmodel/replayset.h"

struct claim {
	const char *id, *text, *unit, *metric; /* borrowed from the doc */
	struct metric_range stated;
	double tolerance;
	int decimals;          /* how values of this claim are printed */
	const cJSON *params;   /* borrowed; an object, maybe empty */
};

struct ledger {
	cJSON *claims_doc;     /* owned */
	cJSON *roles_doc;      /* owned */
	struct claim *claims;  /* owned array of n */
	size_t n;
};

/* Read and check both files.  Errors (HR_INPUT) name the file and claim. */
int ledger_load(struct ledger *l, const char *claims_path,
		const char *roles_path, struct hr_err *e);
void ledger_release(struct ledger *l);

/* One recomputed value: v is NAN..NAN when not available, and then why
 * says why ("no replay results", "role ... not mapped", ...). */
struct claim_value {
	struct metric_range v;
	char why[256];
};

struct claim_result {
	struct claim_value archive;   /* from the archive, as reported */
	struct claim_value faithful;  /* this machine's replay, faithful */
	struct claim_value robust;    /* this machine's replay, robust */
	int replayable;               /* 0: an archive fact, replay n/a */
	enum claim_status status;     /* archive value vs stated */
	enum claim_status replay_status; /* robust replay vs stated */
	char note[256];               /* extra evidence, or "" */
};

struct ledger_data {
	sqlite3 *db;
	const struct evalset *es;
	const struct auditset *as;
	const struct replayset *rs; /* replay results, maybe empty */
	const struct profileset *ps; /* profiles, or NULL: none loaded */
	const struct dlrm_map *dlrm; /* DLRM-Bench's problem -> class
					mapping, or NULL: none loaded */
	/* The profiled workload and stack that weigh DLRM-Bench when given
	 * (report --workload, --stack), over a claim's own params; NULL:
	 * the claim's. */
	const char *workload, *stack;
};

/* Evaluate every claim into out[0..l->n).  A claim that cannot be computed
 * is "not available" in its result, not an error; errors are database or
 * memory failures.  No claim reads the evaluations of a model the roles
 * file lists in "excluded_models" (the project's own samples). */
int ledger_evaluate(const struct ledger *l, const struct ledger_data *d,
		    struct claim_result *out, struct hr_err *e);

/* Format a value of claim c ("n/a" when not available). */
void claim_format(const struct claim *c, struct metric_range v, char *buf,
		  size_t n);

#endif
