/* test_verify_scale.c - the scale-invariant checks: hand-computed cases
 * (normwise error, alpha*RMS and per-row bounds, the 0/0 rule, non-finite
 * masks) and property tests: C(s*cand, s*ref) = C(cand, ref) for s > 0,
 * zeros rejected on every non-zero reference, and the counter-example that
 * shows allclose is not scale-invariant. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../verify/verify.h"
#include "../../verify/rules.h"

static struct hrv_result run2(int dtype, const void *r, const void *c,
			      int64_t rows, int64_t cols,
			      const struct hrv_opts *o)
{
	struct hrv_tensor rt, ct;
	struct hrv_result res;

	memset(&rt, 0, sizeof rt);
	rt.dtype = dtype;
	rt.ndim = 2;
	rt.shape[0] = rows;
	rt.shape[1] = cols;
	ct = rt;
	rt.data = r;
	ct.data = c;
	assert_int_equal(hrv_check(&rt, &ct, o, &res), HRV_OK);
	return res;
}

static struct hrv_opts si_opts(double rtol, double alpha, double row_alpha,
			       double tau)
{
	struct hrv_opts o;

	hrv_opts_default(&o, HRV_F32);
	o.si_rtol = rtol;
	o.si_alpha = alpha;
	o.si_row_alpha = row_alpha;
	o.si_tau = tau;
	return o;
}

/* ref (3, 4), cand (3, 4.5): ||d|| = 0.5, ||ref|| = 5, error 0.1. */
static void test_normwise_error(void **state)
{
	float r[2] = { 3, 4 }, c[2] = { 3, 4.5f };
	struct hrv_opts o = si_opts(0, 1, 1, 0.1);
	struct hrv_result res = run2(HRV_F32, r, c, 1, 2, &o);

	(void)state;
	assert_true(res.normwise_rel_err == 0.1);
	assert_true(res.normwise_pass);
	o.si_tau = 0.0999;
	assert_false(run2(HRV_F32, r, c, 1, 2, &o).normwise_pass);
}

/* All-zero reference: only an exact zero difference passes (0/0 -> 0,
 * x/0 -> inf), whatever the thresholds. */
static void test_zero_over_zero_rule(void **state)
{
	float z[3] = { 0, 0, 0 }, c[3] = { 0, -0.0f, 1e-30f };
	struct hrv_opts o = si_opts(0.5, 0.5, 0.5, 0.5);
	struct hrv_result res;

	(void)state;
	res = run2(HRV_F32, z, z, 1, 3, &o);
	assert_true(res.normwise_rel_err == 0.0);
	assert_true(res.scale_invariant_pass);
	res = run2(HRV_F32, z, c, 1, 3, &o);
	assert_true(isinf(res.normwise_rel_err));
	assert_false(res.normwise_pass);
	assert_false(res.si_pass);           /* RMS 0: bound 0 */
	assert_int_equal(res.si_violations, 1);
	assert_int_equal(res.si_first_violation, 2);
}

/* ref (1, -1, 1, -1): RMS 1.  cand[0] = 1.125: excess 0.125 - rtol*1. */
static void test_alpha_rms_bound(void **state)
{
	float r[4] = { 1, -1, 1, -1 }, c[4] = { 1.125f, -1, 1, -1 };
	struct hrv_opts o = si_opts(0.0, 0.125, 1.0, 1.0);
	struct hrv_result res = run2(HRV_F32, r, c, 1, 4, &o);

	(void)state;
	assert_true(res.ref_rms == 1.0);
	assert_true(res.si_threshold == 0.125);
	assert_true(res.si_pass);           /* 0.125 <= 0.125 */
	o.si_alpha = 0.0625;
	res = run2(HRV_F32, r, c, 1, 4, &o);
	assert_false(res.si_pass);
	assert_int_equal(res.si_violations, 1);
	assert_int_equal(res.si_first_violation, 0);
	/* the relative term, on |ref|, absorbs it: 0.125 - 0.0625*1 */
	o.si_rtol = 0.0625;
	assert_true(run2(HRV_F32, r, c, 1, 4, &o).si_pass);
}

/* Two rows of very different scale: row 0 ~ 1000, row 1 ~ 1e-3.  An error
 * of 1e-4 in row 1 is 10% of that row: the global alpha*RMS bound (RMS ~
 * 700) lets it through, the per-row amax bound does not. */
static void test_row_amax_bound(void **state)
{
	float r[6] = { 1000, -500, 800, 1e-3f, -1e-3f, 5e-4f };
	float c[6] = { 1000, -500, 800, 1e-3f, -1e-3f + 1e-4f, 5e-4f };
	struct hrv_opts o = si_opts(0.0, 1e-3, 1e-3, 1.0);
	struct hrv_result res = run2(HRV_F32, r, c, 2, 3, &o);

	(void)state;
	assert_true(res.si_pass);
	assert_false(res.row_pass);
	assert_int_equal(res.rows_failed, 1);
	assert_int_equal(res.row_violations, 1);
	assert_int_equal(res.row_first_violation, 4);
	assert_int_equal(res.n_rows, 2);
	assert_int_equal(res.row_len, 3);
}

static void test_nonfinite_masks(void **state)
{
	float r[4] = { INFINITY, NAN, 1, -INFINITY };
	float same[4] = { INFINITY, NAN, 1, -INFINITY };
	float c[4] = { NAN, NAN, 1, INFINITY };
	struct hrv_opts o = si_opts(0.1, 0.1, 0.1, 0.1);
	struct hrv_result res;

	(void)state;
	res = run2(HRV_F32, r, same, 1, 4, &o);
	assert_true(res.nonfinite_pass);
	assert_true(res.scale_invariant_pass);
	assert_false(res.allclose_pass);   /* NaN is never close */
	res = run2(HRV_F32, r, c, 1, 4, &o);
	assert_false(res.nonfinite_pass);
	assert_int_equal(res.n_nonfinite_mismatch, 2);   /* 0 and 3 */
	assert_int_equal(res.first_nonfinite_mismatch, 0);
	assert_int_equal(res.n_nan_ref, 1);
	assert_int_equal(res.n_nan_cand, 2);
	assert_int_equal(res.n_inf_ref, 2);
	assert_int_equal(res.n_inf_cand, 1);
}

/* ---- properties ------------------------------------------------------- */

static uint64_t seed = 12345;

static double urand(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return (double)(seed >> 11) / 9007199254740992.0;
}

#define PN 2048

/* Fill a reference of one of several shapes of distribution. */
static void make_ref(float *r, int kind)
{
	for (int i = 0; i < PN; i++) {
		double u = urand() - 0.5;

		switch (kind) {
		case 0: r[i] = (float)u; break;
		case 1: r[i] = (float)(u * 1e-6); break;            /* tiny */
		case 2: r[i] = (float)(exp(40 * u) * (u < 0 ? -1 : 1)); break;
		case 3: r[i] = i == 77 ? 3.0f : 0.0f; break;        /* one spike */
		default: r[i] = (float)(1e-30 * (u + 0.6)); break;  /* 1e-30 */
		}
	}
}

/* Scaling both tensors by a power of two is exact in fp32 and fp64, so
 * every scale-invariant metric must come out bit-identical, and every
 * verdict identical.  (For other s the metrics agree to rounding.) */
static void test_scale_invariance(void **state)
{
	static float r[PN], c[PN], rs[PN], cs[PN];
	static const float scales[] = { 0x1p-20f, 0.25f, 8.0f, 0x1p30f };
	struct hrv_opts o;

	(void)state;
	hrv_opts_default(&o, HRV_F32);
	for (int kind = 0; kind < 5; kind++) {
		for (int noisy = 0; noisy < 3; noisy++) {
			make_ref(r, kind);
			for (int i = 0; i < PN; i++) {
				double e = noisy == 0 ? 1e-6 : noisy == 1
					   ? 1e-3 : 0.3;
				c[i] = (float)(r[i] * (1 + e * (urand() - 0.5)));
			}
			struct hrv_result a = run2(HRV_F32, r, c, 32, PN / 32, &o);

			for (size_t k = 0; k < sizeof scales / sizeof *scales;
			     k++) {
				for (int i = 0; i < PN; i++) {
					rs[i] = r[i] * scales[k];
					cs[i] = c[i] * scales[k];
				}
				if (kind == 4 && scales[k] < 1)
					continue;     /* would underflow */
				struct hrv_result b = run2(HRV_F32, rs, cs, 32,
							   PN / 32, &o);

				assert_true(a.normwise_rel_err ==
					    b.normwise_rel_err);
				assert_int_equal(a.si_pass, b.si_pass);
				assert_int_equal(a.row_pass, b.row_pass);
				assert_int_equal(a.si_violations,
						 b.si_violations);
				assert_int_equal(a.row_violations,
						 b.row_violations);
				assert_int_equal(a.scale_invariant_pass,
						 b.scale_invariant_pass);
			}
		}
	}
}

/* Zeros fail every scale-invariant check on every non-zero reference
 * (rtol + alpha < 1 makes it a theorem; here it is checked). */
static void test_zeros_rejected_on_nonzero_reference(void **state)
{
	static float r[PN], z[PN];
	struct hrv_opts o;

	(void)state;
	hrv_opts_default(&o, HRV_F32);
	for (int kind = 0; kind < 5; kind++) {
		make_ref(r, kind);
		struct hrv_result res = run2(HRV_F32, r, z, 64, PN / 64, &o);

		assert_false(res.normwise_pass);
		assert_false(res.si_pass);
		assert_false(res.row_pass);
		assert_false(res.scale_invariant_pass);
	}
	/* bf16 and fp16 defaults too */
	{
		uint16_t rb[4] = { 0x3f80, 0, 0, 0 }, zb[4] = { 0 };

		hrv_opts_default(&o, HRV_BF16);
		assert_false(run2(HRV_BF16, rb, zb, 2, 2, &o)
			     .scale_invariant_pass);
		hrv_opts_default(&o, HRV_F16);
		rb[0] = 0x0001;      /* the smallest fp16 subnormal */
		assert_false(run2(HRV_F16, rb, zb, 2, 2, &o)
			     .scale_invariant_pass);
	}
}

/* Counter-example: allclose with atol 1e-2 accepts zeros against a
 * reference of magnitude 4e-6 and rejects them once both are scaled by
 * 1e4; the scale-invariant verdict is "fail" at both scales. */
static void test_allclose_is_not_scale_invariant(void **state)
{
	float r[4] = { 4e-6f, 1e-6f, 2e-6f, 3e-6f }, z[4] = { 0 };
	float rs[4];
	struct hrv_opts o;
	struct hrv_result a, b;

	(void)state;
	hrv_opts_preset(&o, "v0.1", HRV_F32);
	for (int i = 0; i < 4; i++)
		rs[i] = r[i] * 1e4f;
	a = run2(HRV_F32, r, z, 1, 4, &o);
	b = run2(HRV_F32, rs, z, 1, 4, &o);
	assert_true(a.allclose_pass);
	assert_false(b.allclose_pass);
	assert_false(a.scale_invariant_pass);
	assert_false(b.scale_invariant_pass);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_normwise_error),
		cmocka_unit_test(test_zero_over_zero_rule),
		cmocka_unit_test(test_alpha_rms_bound),
		cmocka_unit_test(test_row_amax_bound),
		cmocka_unit_test(test_nonfinite_masks),
		cmocka_unit_test(test_scale_invariance),
		cmocka_unit_test(test_zeros_rejected_on_nonzero_reference),
		cmocka_unit_test(test_allclose_is_not_scale_invariant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
