/* profileset.h - the ingested profiles, classified, for reports, figures
 * and the claims ledger; and the workload weights other stages ask for.
 *
 * Owns: reading the profile tables (profile/trace.h writes them),
 * classifying each kernel name with the rule file (profile/kclass.h) at
 * load time, so that an edited rule file changes every output without a
 * re-ingest; the addressable fraction; the Amdahl projection
 * R = sum over addressable classes i of w_i (1 - 1/s_i'), with s_i' the
 * median verified speedup (robust replay) of the problems the problem map
 * (paper/problem-classes.rules, same format as the class rules, problem
 * names instead of kernel names) puts in class i, 1 when there is none;
 * and the bound 1/(1 - f).  Shares are of the summed GPU-activity time
 * (kernels, memcpy, memset), the "kernel_sum" denominator; busy time (the
 * union of the intervals across streams) is carried beside it, since the
 * two differ when streams overlap.  Must not: write to the store, print.
 */
#ifndef HR_PROFILESET_H
#define HR_PROFILESET_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../dataset/base/err.h"
#include "../profile/kclass.h"
#include "evalset.h"
#include "replayset.h"

struct profile_row {
	int64_t id;
	char *workload, *domain, *stack, *format, *device; /* owned; NULL
							      when unknown */
	int64_t activities, kernel_ns, busy_ns, span_ns;
	int64_t class_ns[KC_COUNT];
	int64_t addressable_ns;
	char *top_name;        /* owned: the addressable (kind, name) with the
				  most time, NULL when none */
	int64_t top_ns;
	double projected;      /* R as a fraction; NAN when no verified
				  speedup is known (no replay, no map) */
};

struct profileset {
	struct profile_row *rows; /* owned; by workload, stack, id */
	size_t n;
	const char *why;          /* static: why n is 0, or why projected is
				     NAN */
	struct kclass_rules *rules;    /* owned, NULL when n is 0 */
	double class_speedup[KC_COUNT]; /* s_i' (1 when none verified) */
	int class_wins[KC_COUNT];       /* verified problems behind it */
};

/* Load every profile.  classes and problems are the rule files; NULL
 * finds the shipped ones beside the binary
 * (dataset/maps/kernel-classes.rules, paper/problem-classes.rules).  es
 * and rs give the verified speedups of the projection (rs may be empty).
 * Release with profileset_release, also after a failed load. */
int profileset_load(struct profileset *ps, sqlite3 *db, const char *classes,
		    const char *problems, const struct evalset *es,
		    const struct replayset *rs, struct hr_err *e);
void profileset_release(struct profileset *ps);

/* Fraction (0..1) of r's summed GPU time in class c, and in the
 * addressable classes. */
double profile_share(const struct profile_row *r, enum kclass c);
double profile_addressable(const struct profile_row *r);

/* For a workload's weights (DLRM-Bench, issue 21): the fraction of
 * workload's GPU time per kernel class (share[KC_COUNT], summing to 1)
 * and its addressable fraction, from its latest-ingested profile under
 * stack (NULL: any stack).  Returns 0, or -1 when no such profile is
 * stored (share and *addressable untouched). */
int profile_workload_shares(const struct profileset *ps,
			    const char *workload, const char *stack,
			    double share[KC_COUNT], double *addressable);

#endif
