/* metrics.c - see metrics.h. */
#include "metrics.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double metric_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	if (n % 2)
		return v[n / 2];
	return (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double metric_geomean(const double *v, size_t n)
{
	double sum = 0.0;

	if (n == 0)
		return 0.0;
	for (size_t i = 0; i < n; i++)
		sum += log(v[i]);
	return exp(sum / (double)n);
}

size_t metric_fast_p_count(const int *correct, const double *speedup,
			   size_t n, double p)
{
	size_t count = 0;

	for (size_t i = 0; i < n; i++) {
		if (correct[i] != 1)
			continue;
		if (p <= 0.0 || (!isnan(speedup[i]) && speedup[i] > p))
			count++;
	}
	return count;
}

double metric_amdahl_reduction(double f, double w, double s)
{
	return f * w * (1.0 - 1.0 / s);
}

enum claim_status metric_compare(struct metric_range stated, double tol,
				 struct metric_range got)
{
	if (isnan(got.lo) || isnan(got.hi))
		return CLAIM_NOT_AVAILABLE;
	/* A small relative slack so that 0.1 + 0.2 style rounding of a value
	 * exactly at the tolerance edge does not flip the verdict. */
	tol += 1e-9 * fmax(fabs(stated.lo), fabs(stated.hi));
	if (fabs(got.lo - stated.lo) <= tol && fabs(got.hi - stated.hi) <= tol)
		return CLAIM_REPRODUCED;
	return CLAIM_DIFFERS;
}

const char *metric_status_name(enum claim_status s)
{
	switch (s) {
	case CLAIM_REPRODUCED:
		return "reproduced";
	case CLAIM_DIFFERS:
		return "differs";
	default:
		return "not available";
	}
}
