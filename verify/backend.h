/* backend.h - what verify.c hands to a backend (CPU or CUDA), internal.
 *
 * Owns: the validated job description.  A backend fills the statistics of
 * rules.h in the fixed order, calls hrv_finalize, and runs the second pass
 * (element counts of the scale-invariant rules) only when a rule failed.
 */
#ifndef HRV_BACKEND_H
#define HRV_BACKEND_H

#include "verify.h"
#include "rules.h"

struct hrv_job {
	const void *ref, *cand;          /* borrowed */
	const struct hrv_opts *opts;     /* borrowed */
	struct hrv_params p;
	uint64_t n, row_len, n_rows;
	int32_t dtype;
};

#ifdef __cplusplus
extern "C" {
#endif
int hrv_cuda_run(const struct hrv_job *j, struct hrv_result *res);
int hrv_cuda_bitwise(const void *a, const void *b, uint64_t n, int esize,
		     struct hrv_bitwise_result *out);
#ifdef __cplusplus
}
#endif
#endif
