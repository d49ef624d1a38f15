/* test_verify_allclose.c - the original check, torch.allclose(ref, cand,
 * atol, rtol), on hand-computed cases: argument order, NaN/inf, signed
 * zero, zero tolerances, fp16/bf16 rounding, integers, empty tensors,
 * counts and first index.  Expected values were worked out by hand (the
 * arithmetic is in the comments) and agree with torch 2.11. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../verify/verify.h"
#include "../../verify/rules.h"

static struct hrv_tensor vec(int dtype, const void *data, int64_t n)
{
	struct hrv_tensor t;

	memset(&t, 0, sizeof t);
	t.data = data;
	t.dtype = dtype;
	t.ndim = 1;
	t.shape[0] = n;
	return t;
}

static struct hrv_result check(int dtype, const void *r, const void *c,
			       int64_t n, double atol, double rtol,
			       int equal_nan, int torch_cpu)
{
	struct hrv_tensor rt = vec(dtype, r, n), ct = vec(dtype, c, n);
	struct hrv_opts o;
	struct hrv_result res;

	hrv_opts_default(&o, dtype);
	o.atol = atol;
	o.rtol = rtol;
	o.equal_nan = equal_nan;
	o.torch_cpu = torch_cpu;
	assert_int_equal(hrv_check(&rt, &ct, &o, &res), HRV_OK);
	return res;
}

static int close1(float r, float c, double atol, double rtol, int equal_nan)
{
	return check(HRV_F32, &r, &c, 1, atol, rtol, equal_nan, 0)
		.allclose_pass;
}

static uint16_t bf(float f)
{
	return hrv_f_to_bf16(f);
}

static uint16_t hf(float f)
{
	return hrv_f_to_f16(f);
}

/* |ref - cand| <= atol + rtol*|cand|: the candidate's magnitude widens the
 * bound.  ref 1, cand 2, rtol 0.5: 1 <= 0.5*2 close; swapped: 1 <= 0.5*1
 * is false. */
static void test_relative_term_uses_candidate(void **state)
{
	(void)state;
	assert_true(close1(1.0f, 2.0f, 0.0, 0.5, 0));
	assert_false(close1(2.0f, 1.0f, 0.0, 0.5, 0));
}

/* A zero candidate passes iff max|ref| <= atol; the swapped call would
 * need |ref| <= atol + rtol|ref|, i.e. |ref| <= atol/(1-rtol). */
static void test_zero_candidate_bound_is_atol(void **state)
{
	(void)state;
	assert_true(close1(0.0099f, 0.0f, 1e-2, 1e-2, 0));
	assert_false(close1(0.0101f, 0.0f, 1e-2, 1e-2, 0));
	assert_true(close1(0.0f, 0.0101f, 1e-2, 1e-2, 0));
}

static void test_nan_never_close(void **state)
{
	(void)state;
	assert_false(close1(NAN, NAN, 1e30, 1.0, 0));
	assert_false(close1(NAN, 1.0f, 1e30, 1.0, 0));
	assert_false(close1(1.0f, NAN, 1e30, 1.0, 0));
}

static void test_equal_nan_only_pairs_nans(void **state)
{
	(void)state;
	assert_true(close1(NAN, NAN, 0.0, 0.0, 1));
	assert_false(close1(NAN, 1.0f, 1e30, 1.0, 1));
}

static void test_infinities(void **state)
{
	(void)state;
	assert_true(close1(INFINITY, INFINITY, 0.0, 0.0, 0));
	assert_true(close1(-INFINITY, -INFINITY, 1e-2, 1e-2, 0));
	assert_false(close1(INFINITY, -INFINITY, 1e30, 1.0, 0));
	/* inf - finite is inf: not finite, never close, whatever atol */
	assert_false(close1(INFINITY, 3e38f, 1e38, 1.0, 0));
	/* an allowed error of inf does not help either */
	assert_false(close1(1.0f, INFINITY, 0.0, 1.0, 0));
}

static void test_signed_zero_is_equal(void **state)
{
	(void)state;
	assert_true(close1(0.0f, -0.0f, 0.0, 0.0, 0));
	assert_true(close1(-0.0f, 0.0f, 0.0, 0.0, 0));
}

/* atol = rtol = 0 is exact equality (torch's short-circuit). */
static void test_zero_tolerance_is_equality(void **state)
{
	(void)state;
	assert_true(close1(1.5f, 1.5f, 0.0, 0.0, 0));
	assert_false(close1(1.0f, nextafterf(1.0f, 2.0f), 0.0, 0.0, 0));
}

/* fp32 arithmetic: atol + rtol*|cand| is rounded to float.  atol 1e-2f,
 * rtol 1e-2f, cand 99 -> 0.01f + 0.99f = 0.99999994f < 1: 100 vs 99 is
 * not close, although 1 <= 1.0 in exact arithmetic. */
static void test_fp32_bound_is_rounded_in_float(void **state)
{
	(void)state;
	assert_false(close1(100.0f, 99.0f, 1e-2, 1e-2, 0));
	assert_true(close1(100.0f, 101.0f, 1e-2, 1e-2, 0));
}

/* bf16, atol = rtol = 1e-2, ref -0.1806640625, cand -0.1689453125:
 * actual = bf16(0.01171875) = 0.01171875 (3/256).
 * CUDA: prod = bf16(0.01f * 0.16894531) = 0.0016860962; allowed =
 *   bf16(0.01f + 0.0016860962) = bf16(0.0116861) = 0.011657715 (191 units
 *   of 2^-14) < actual: not close.
 * CPU torch rounds atol to bf16 first (0.010009765625): bf16(0.0116958)
 *   = 0.01171875 (192 units) = actual: close. */
static void test_bf16_rounding_edge(void **state)
{
	uint16_t r = bf(-0.1806640625f), c = bf(-0.1689453125f);

	(void)state;
	assert_int_equal(check(HRV_BF16, &r, &c, 1, 1e-2, 1e-2, 0, 0)
			 .allclose_pass, 0);
	assert_int_equal(check(HRV_BF16, &r, &c, 1, 1e-2, 1e-2, 0, 1)
			 .allclose_pass, 1);
}

/* fp16, atol = rtol = 1e-2, ref 0.82421875, cand 0.80615234375:
 * exact: |d| = 0.01806640625 > 0.01 + 0.0080615234375 = 0.0180615234;
 * fp16: prod = f16(0.0080615) and allowed = f16(0.0180615) = 0.018066406
 * = actual: close.  Evaluating in real arithmetic would say not close. */
static void test_fp16_rounding_makes_close(void **state)
{
	uint16_t r = hf(0.82421875f), c = hf(0.80615234375f);

	(void)state;
	assert_int_equal(check(HRV_F16, &r, &c, 1, 1e-2, 1e-2, 0, 0)
			 .allclose_pass, 1);
}

static void test_bf16_conversion_ties_to_even(void **state)
{
	(void)state;
	/* bf16 ulp at 1 is 2^-7: 1 + 2^-8 ties to 1, 1 + 3*2^-8 to 1 + 2^-6 */
	assert_int_equal(bf(1.0f + 0x1p-8f), 0x3f80);
	assert_true(hrv_bf16_to_f(bf(1.0f + 3 * 0x1p-8f)) == 1.0f + 0x1p-6f);
	assert_int_equal(bf(NAN), 0x7fc0);
	assert_int_equal(bf(INFINITY), 0x7f80);
}

static void test_fp16_conversion_edges(void **state)
{
	(void)state;
	assert_int_equal(hf(1.0f + 0x1p-11f), 0x3c00);   /* tie to even */
	assert_int_equal(hf(65504.0f), 0x7bff);
	assert_int_equal(hf(65519.0f), 0x7bff);
	assert_int_equal(hf(65520.0f), 0x7c00);          /* rounds to inf */
	assert_int_equal(hf(0x1p-25f), 0x0000);          /* tie to even 0 */
	assert_int_equal(hf(0x1.000002p-25f), 0x0001);   /* just above */
	assert_int_equal(hf(0x1p-24f), 0x0001);
	assert_int_equal(hf(-0.0f), 0x8000);
	assert_true(hrv_f16_to_f(0x0001) == 0x1p-24f);
	assert_true(hrv_f16_to_f(hf(0x1.8p-20f)) == 0x1.8p-20f);
}

/* Integers are cast to float32 before the subtraction (torch's default
 * dtype): int32 2^24+3 vs 2 becomes 16777220 - 2 = 16777218 > 2^24. */
static void test_int_difference_in_float32(void **state)
{
	int32_t r = (1 << 24) + 3, c = 2;
	int64_t r64 = INT64_MAX, c64 = -1;

	(void)state;
	assert_int_equal(check(HRV_I32, &r, &c, 1, 16777216.0, 0.0, 0, 0)
			 .allclose_pass, 0);
	/* no wrap-around: 2^63 - 1 - (-1) is 9.2e18 in float, not INT64_MIN */
	assert_int_equal(check(HRV_I64, &r64, &c64, 1, 10.0, 0.0, 0, 0)
			 .allclose_pass, 0);
	assert_int_equal(check(HRV_I64, &r64, &c64, 1, 1e30, 0.0, 0, 0)
			 .allclose_pass, 1);
}

/* bool becomes 0.0 / 1.0: true vs false is close with atol 1. */
static void test_bool_as_float(void **state)
{
	uint8_t r[2] = { 1, 0 }, c[2] = { 0, 0 };
	struct hrv_result res;

	(void)state;
	res = check(HRV_BOOL, r, c, 2, 0.6, 0.5, 0, 0);
	assert_int_equal(res.n_violations, 1);
	assert_int_equal(res.first_violation, 0);
	assert_int_equal(check(HRV_BOOL, r, c, 2, 1.0, 0.0, 0, 0).allclose_pass,
			 1);
}

static void test_counts_first_index_and_errors(void **state)
{
	float r[6] = { 1.0f, 2.0f, 4.0f, -8.0f, 0.0f, 0.5f };
	float c[6] = { 1.0f, 2.5f, 4.0f, -6.0f, 0.25f, 0.5f };
	struct hrv_result res;

	(void)state;
	res = check(HRV_F32, r, c, 6, 1e-2, 1e-2, 0, 0);
	assert_false(res.allclose_pass);
	assert_int_equal(res.n_violations, 3);       /* indices 1, 3, 4 */
	assert_int_equal(res.first_violation, 1);
	assert_true(res.max_abs_err == 2.0);         /* |-6 - -8| */
	assert_true(res.max_rel_err == 0.25);        /* 0.5/2 and 2/8; 0.25/0 skipped */
}

static void test_empty_tensor_passes(void **state)
{
	struct hrv_result res;
	float dummy = 0.0f;

	(void)state;
	res = check(HRV_F32, &dummy, &dummy, 0, 1e-4, 1e-4, 0, 0);
	assert_int_equal(res.n, 0);
	assert_true(res.allclose_pass);
	assert_true(res.scale_invariant_pass);
	assert_int_equal(res.first_violation, -1);
	assert_true(res.normwise_rel_err == 0.0);
}

static void test_mismatched_dtype_and_shape_are_errors(void **state)
{
	float r[2] = { 1, 2 };
	uint16_t c[2] = { 0, 0 };
	struct hrv_tensor rt = vec(HRV_F32, r, 2), ct = vec(HRV_F16, c, 2);
	struct hrv_opts o;
	struct hrv_result res;

	(void)state;
	hrv_opts_default(&o, HRV_F32);
	assert_int_equal(hrv_check(&rt, &ct, &o, &res), HRV_EDTYPE);
	ct = vec(HRV_F32, r, 1);
	assert_int_equal(hrv_check(&rt, &ct, &o, &res), HRV_ESHAPE);
	ct = vec(HRV_F32, r, 2);
	o.atol = -1.0;
	assert_int_equal(hrv_check(&rt, &ct, &o, &res), HRV_EINVAL);
}

static void test_device_pointer_without_cuda(void **state)
{
	float r[1] = { 1 };
	struct hrv_tensor rt = vec(HRV_F32, r, 1), ct = rt;
	struct hrv_opts o;
	struct hrv_result res;

	(void)state;
	if (hrv_has_cuda())
		skip();
	rt.on_device = ct.on_device = 1;
	hrv_opts_default(&o, HRV_F32);
	assert_int_equal(hrv_check(&rt, &ct, &o, &res), HRV_ENODEV);
}

static void test_presets(void **state)
{
	struct hrv_opts o;

	(void)state;
	assert_int_equal(hrv_opts_preset(&o, "v0", HRV_F32), HRV_OK);
	assert_true(o.atol == 1e-2 && o.rtol == 1e-2);
	assert_int_equal(hrv_opts_preset(&o, "v0.1", HRV_F32), HRV_OK);
	assert_true(o.atol == 1e-2);
	assert_int_equal(hrv_opts_preset(&o, "current", HRV_F32), HRV_OK);
	assert_true(o.atol == 1e-4 && o.rtol == 1e-4);
	assert_int_equal(hrv_opts_preset(&o, "current", HRV_BF16), HRV_OK);
	assert_true(o.atol == 1e-2);
	assert_int_equal(hrv_opts_preset(&o, "current", HRV_F16), HRV_OK);
	assert_true(o.rtol == 1e-2);
	assert_int_equal(hrv_opts_preset(&o, "v9", HRV_F32), HRV_EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relative_term_uses_candidate),
		cmocka_unit_test(test_zero_candidate_bound_is_atol),
		cmocka_unit_test(test_nan_never_close),
		cmocka_unit_test(test_equal_nan_only_pairs_nans),
		cmocka_unit_test(test_infinities),
		cmocka_unit_test(test_signed_zero_is_equal),
		cmocka_unit_test(test_zero_tolerance_is_equality),
		cmocka_unit_test(test_fp32_bound_is_rounded_in_float),
		cmocka_unit_test(test_bf16_rounding_edge),
		cmocka_unit_test(test_fp16_rounding_makes_close),
		cmocka_unit_test(test_bf16_conversion_ties_to_even),
		cmocka_unit_test(test_fp16_conversion_edges),
		cmocka_unit_test(test_int_difference_in_float32),
		cmocka_unit_test(test_bool_as_float),
		cmocka_unit_test(test_counts_first_index_and_errors),
		cmocka_unit_test(test_empty_tensor_passes),
		cmocka_unit_test(test_mismatched_dtype_and_shape_are_errors),
		cmocka_unit_test(test_device_pointer_without_cuda),
		cmocka_unit_test(test_presets),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
