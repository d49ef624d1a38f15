/* dlrmset.h - DLRM-Bench's projection from the store: per model
 * configuration, each problem's outcome (as the archive reports it, and as
 * the robust replay's audit verifies it), its weight from the DLRM
 * workload's ingested profile, and the projected end-to-end time reduction
 * R = sum_i w_i (1 - 1/s_i') (readmodel/dlrm.h computes it).
 *
 * Owns: reading the problem -> kernel class mapping file (the set's
 * kernel-classes.json; shipped as dlrm-kernel-classes.json in the share
 * folder) with its class names checked against profile/kclass.h, matching
 * evaluations to its problems (the suite's level; the problem id is the
 * stem's leading number; sample 0 only, as every problem-level number),
 * and which outcome counts as a win: sample 0 correct with a speedup above
 * 1 -- in the robust view (readmodel/replayset.h) that is a job whose audit
 * verdict is verified-faster, nothing else.  Must not: write to the
 * store, print.
 */
#ifndef HR_DLRMSET_H
#define HR_DLRMSET_H

#include <stddef.h>

#include "../dataset/base/err.h"
#include "dlrm.h"
#include "evalset.h"
#include "profileset.h"
#include "replayset.h"

/* Where the DLRM workload's shares come from, by default. */
#define DLRM_WORKLOAD "dlrm"
#define DLRM_STACK "eager"

/* Read and check a mapping file (dlrm.h's format; every class a name of
 * profile/kclass.h; every problem stem "ID_Name").  path NULL: the shipped
 * one.  Release m with dlrm_map_release, also after a failure. */
int dlrmset_map_load(const char *path, struct dlrm_map *m, struct hr_err *e);

/* The level of suite DLRM_SUITE in the roles file (paper/roles.json's
 * "suites"; path NULL: the shipped one). */
#define DLRM_SUITE "dlrm-bench"
int dlrmset_suite_level(const char *roles_path, int *level,
			struct hr_err *e);

/* The problem id of entry i of m (the stem's leading number). */
int dlrmset_problem_id(const struct dlrm_map *m, size_t i);

/* Each entry's outcome in es (the archive's rows, or a replay view of
 * them) for configuration config at level: o[i].win when sample 0 of the
 * entry's problem is correct with a speedup above 1.  A problem without a
 * sample-0 row is no win.  Returns how many entries have a row. */
size_t dlrmset_outcomes(const struct dlrm_map *m, const struct evalset *es,
			const char *config, int level,
			struct dlrm_outcome *o);

/* Each entry's weight w[i] from the latest profile of workload under
 * stack (NULL: any) in ps.  Returns HR_OK; HR_INPUT with e saying why
 * when no such profile is stored or its shares do not fit. */
int dlrmset_weights(const struct dlrm_map *m, const struct profileset *ps,
		    const char *workload, const char *stack, double *w,
		    double *addressable, struct hr_err *e);

/* One problem of one configuration. */
struct dlrmset_problem {
	int problem_id;
	const char *problem;     /* borrowed from the map */
	double weight;           /* w_i, NAN without a profile */
	double archive_speedup;  /* sample 0 as reported, NAN when none */
	int archive_win;
	const char *verdict;     /* borrowed: the robust job's audit verdict,
				    NULL when not replayed robustly */
	double robust_speedup, ci_low; /* the robust job's, NAN when none */
	int verified;            /* a verified win: counts in R */
};

struct dlrmset_config {
	const char *config;          /* borrowed from the evalset */
	struct dlrmset_problem *p;   /* owned, one per map entry */
	struct dlrm_projection verified; /* from verified wins only */
	int archive_wins;
	int replayed;                /* problems with a robust job */
};

struct dlrmset {
	struct dlrm_map map;         /* owned */
	int level;
	const char *workload, *stack; /* borrowed */
	int have_weights;
	double addressable;          /* the workload's f, NAN without one */
	char why_weights[1024];       /* why have_weights is 0 */
	struct dlrmset_config *c;    /* owned, by configuration name */
	size_t n;
};

/* Every configuration with an evaluation at level.  map_path NULL: the
 * shipped mapping.  es, rs and ps must outlive ds (strings are
 * borrowed).  Release with dlrmset_release, also after a failure. */
int dlrmset_load(struct dlrmset *ds, const char *map_path, int level,
		 const char *workload, const char *stack,
		 const struct evalset *es, const struct replayset *rs,
		 const struct profileset *ps, struct hr_err *e);
void dlrmset_release(struct dlrmset *ds);

#endif
