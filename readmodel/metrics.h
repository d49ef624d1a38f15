/* metrics.h - the numbers a report computes, as pure functions.
 *
 * Owns: the definitions (median, geometric mean, KernelBench's fast_p,
 * the Amdahl projection, and whether a recomputed value reproduces a stated
 * one).  Must not: touch the store, allocate hidden state or print.  Every
 * function takes plain arrays so tests can state their input inline.
 */
#ifndef HR_METRICS_H
#define HR_METRICS_H

#include <stddef.h>

/* Median of v[0..n); sorts v in place.  Even n: mean of the two middle
 * values.  NAN when n is 0. */
double metric_median(double *v, size_t n);

/* Geometric mean of v[0..n) (all > 0).  0 when n is 0, as KernelBench's
 * benchmark_eval_analysis.py reports for a model with no correct sample. */
double metric_geomean(const double *v, size_t n);

/* KernelBench's fast_p numerator: how many of n problems are correct with
 * speedup > p.  correct[i] is 1 when problem i is correct; speedup[i] is its
 * speedup (NAN when none).  fast_0 counts correct problems whatever their
 * speedup (a correct sample without timing still counts, as in KernelBench
 * where fast_0 is the correctness rate). */
size_t metric_fast_p_count(const int *correct, const double *speedup,
			   size_t n, double p);

/* Fraction of end-to-end time saved when a share f of the time is
 * addressable, a fraction w of it is won, and each win runs s times faster:
 * f * w * (1 - 1/s).  The paper's 8.63 % is (0.582, 0.417, 1.552). */
double metric_amdahl_reduction(double f, double w, double s);

/* A stated or recomputed value: a number (lo == hi) or a range lo..hi. */
struct metric_range {
	double lo, hi;
};

enum claim_status {
	CLAIM_REPRODUCED,    /* every end within tolerance of the stated one */
	CLAIM_DIFFERS,       /* computed, and outside the tolerance */
	CLAIM_NOT_AVAILABLE, /* nothing to compare (the caller says why) */
};

/* Compare a recomputed value with the stated one: reproduced when
 * |got.lo - stated.lo| <= tol and |got.hi - stated.hi| <= tol.  A NAN in got
 * means not available. */
enum claim_status metric_compare(struct metric_range stated, double tol,
				 struct metric_range got);

/* "reproduced", "differs" or "not available". */
const char *metric_status_name(enum claim_status s);

#endif
