/* test_verify_gates.c - degeneracy gates (zeros, the reference mean, an
 * input), coverage (poison count) and determinism (bitwise comparison).
 * The synthetic references have the magnitudes of the level-1 problems
 * whose "correct" verdicts are vacuous under atol 1e-2 (KernelBench issue
 * #165): 23_Softmax 4.02e-6, 37_FrobeniusNorm 3.98e-5, 53_Min_reduction
 * 3.6e-3, 39_L2Norm 6.8e-3. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../verify/verify.h"
#include "../../verify/rules.h"

#define N 1000

static struct hrv_tensor mat(int dtype, const void *data)
{
	struct hrv_tensor t;

	memset(&t, 0, sizeof t);
	t.data = data;
	t.dtype = dtype;
	t.ndim = 2;
	t.shape[0] = 10;
	t.shape[1] = N / 10;
	return t;
}

static struct hrv_result check(int dtype, const void *r, const void *c,
			       const struct hrv_opts *o)
{
	struct hrv_tensor rt = mat(dtype, r), ct = mat(dtype, c);
	struct hrv_result res;

	assert_int_equal(hrv_check(&rt, &ct, o, &res), HRV_OK);
	return res;
}

/* A reference of uniform-ish values in (0, amax]. */
static void ref_with_amax(float *r, double amax)
{
	for (int i = 0; i < N; i++)
		r[i] = (float)(amax * (0.05 + 0.95 * ((i * 7919) % N) / (N - 1.0)));
}

static void test_known_vacuous_magnitudes_flagged(void **state)
{
	static const double amax[] = { 4.02e-6, 3.98e-5, 3.6e-3, 6.8e-3 };
	static float r[N];
	static uint16_t rb[N];
	static float c[N];
	struct hrv_opts o;

	(void)state;
	for (size_t k = 0; k < sizeof amax / sizeof *amax; k++) {
		struct hrv_result res;

		ref_with_amax(r, amax[k]);
		for (int i = 0; i < N; i++) {
			rb[i] = hrv_f_to_bf16(r[i]);
			c[i] = r[i];
		}
		hrv_opts_preset(&o, "current", HRV_BF16);   /* 1e-2 */
		res = check(HRV_BF16, rb, rb, &o);
		assert_true(res.gate_zero_pass);
		assert_true(res.vacuous);
		assert_true(res.margin < 1.0);
		hrv_opts_preset(&o, "v0.1", HRV_F32);       /* 1e-2 */
		res = check(HRV_F32, r, c, &o);
		assert_true(res.gate_zero_pass);
		assert_true(res.vacuous);
	}
}

static void test_ordinary_reference_not_flagged(void **state)
{
	static float r[N];
	static uint16_t rb[N];
	struct hrv_opts o;
	struct hrv_result res;

	(void)state;
	for (int i = 0; i < N; i++) {
		r[i] = (float)sin(i * 0.37);        /* max |ref| ~ 1 */
		rb[i] = hrv_f_to_bf16(r[i]);
	}
	hrv_opts_preset(&o, "current", HRV_BF16);
	res = check(HRV_BF16, rb, rb, &o);
	assert_false(res.gate_zero_pass);
	assert_false(res.gate_const_pass);
	assert_false(res.vacuous);
	assert_true(res.margin > 90.0);
	hrv_opts_preset(&o, "v0.1", HRV_F32);
	res = check(HRV_F32, r, r, &o);
	assert_false(res.vacuous);
}

/* max|ref| exactly at the bound: zeros pass iff |ref| <= atol in fp32. */
static void test_zero_gate_boundary(void **state)
{
	static float r[N];
	struct hrv_opts o;

	(void)state;
	hrv_opts_preset(&o, "v0.1", HRV_F32);
	ref_with_amax(r, 0.01);
	r[5] = 0.01f;                           /* == (float)atol */
	assert_true(check(HRV_F32, r, r, &o).gate_zero_pass);
	r[5] = nextafterf(0.01f, 1.0f);
	assert_false(check(HRV_F32, r, r, &o).gate_zero_pass);
	r[5] = -nextafterf(0.01f, 1.0f);        /* the sign does not matter */
	assert_false(check(HRV_F32, r, r, &o).gate_zero_pass);
}

/* Max of 4096 uniforms: everything in (0.98, 1); zeros fail but the mean
 * everywhere passes with tol 1e-2 (49_Max_reduction). */
static void test_constant_gate(void **state)
{
	static float r[N];
	struct hrv_opts o;
	struct hrv_result res;

	(void)state;
	for (int i = 0; i < N; i++)
		r[i] = 0.985f + 0.014f * (float)((i * 31) % N) / N;
	hrv_opts_preset(&o, "v0.1", HRV_F32);
	res = check(HRV_F32, r, r, &o);
	assert_false(res.gate_zero_pass);
	assert_true(res.gate_const_pass);
	assert_true(res.vacuous);
	assert_true(fabs(res.const_value - res.ref_mean) < 1e-7);
	hrv_opts_preset(&o, "current", HRV_F32);  /* 1e-4: not vacuous */
	assert_false(check(HRV_F32, r, r, &o).gate_const_pass);
}

/* A scalar output (a loss) is its own mean: the constant gate says
 * nothing and must not mark it vacuous; zeros still count. */
static void test_constant_gate_ignores_one_element(void **state)
{
	float big = 0.15f, tiny = 0.004f;
	struct hrv_tensor t = { .data = &big, .dtype = HRV_F32, .ndim = 0 };
	struct hrv_opts o;
	struct hrv_result res;

	(void)state;
	hrv_opts_preset(&o, "v0.1", HRV_F32);
	assert_int_equal(hrv_check(&t, &t, &o, &res), HRV_OK);
	assert_false(res.gate_const_pass);
	assert_false(res.vacuous);
	t.data = &tiny;
	assert_int_equal(hrv_check(&t, &t, &o, &res), HRV_OK);
	assert_true(res.gate_zero_pass);
	assert_true(res.vacuous);
}

/* A NaN or inf in the reference: nothing constant can pass. */
static void test_gates_fail_on_nonfinite_reference(void **state)
{
	static float r[N];
	struct hrv_opts o;

	(void)state;
	ref_with_amax(r, 1e-6);
	r[3] = NAN;
	hrv_opts_preset(&o, "v0.1", HRV_F32);
	assert_false(check(HRV_F32, r, r, &o).vacuous);
	r[3] = INFINITY;
	assert_false(check(HRV_F32, r, r, &o).vacuous);
}

/* The input gate is the original check with the input as the candidate:
 * ReLU on uniform [0, 1) inputs returns the input unchanged. */
static void test_input_gate_identity(void **state)
{
	static float x[N], relu[N], other[N];
	struct hrv_opts o;

	(void)state;
	for (int i = 0; i < N; i++) {
		x[i] = (float)((i * 7919) % N) / N;
		relu[i] = x[i] > 0 ? x[i] : 0;
		other[i] = x[i] - 0.5f;
	}
	hrv_opts_preset(&o, "current", HRV_F32);
	assert_true(check(HRV_F32, relu, x, &o).allclose_pass);
	for (int i = 0; i < N; i++)
		relu[i] = other[i] > 0 ? other[i] : 0;   /* randn-like input */
	assert_false(check(HRV_F32, relu, other, &o).allclose_pass);
}

/* Coverage: 3 of 1000 candidate elements still hold the poison payload. */
static void test_poison_count(void **state)
{
	static float r[N], c[N];
	uint32_t pb = (uint32_t)hrv_poison_bits(HRV_F32);
	struct hrv_opts o;
	struct hrv_result res;

	(void)state;
	assert_int_equal(pb, 0x7FA57FA5u);
	assert_true(isnan(hrv_u2f(pb)));
	assert_true(isnan(hrv_f16_to_f((uint16_t)hrv_poison_bits(HRV_F16))));
	assert_true(isnan(hrv_bf16_to_f((uint16_t)hrv_poison_bits(HRV_BF16))));
	ref_with_amax(r, 1.0);
	memcpy(c, r, sizeof c);
	hrv_opts_default(&o, HRV_F32);
	o.have_poison = 1;
	o.poison_bits = pb;
	res = check(HRV_F32, r, c, &o);
	assert_int_equal(res.n_poison, 0);
	for (int i = 0; i < 3; i++)
		memcpy(&c[i * 100 + 7], &pb, 4);
	res = check(HRV_F32, r, c, &o);
	assert_int_equal(res.n_poison, 3);
	assert_true(res.poison_fraction == 3.0 / N);
	assert_false(res.allclose_pass);          /* NaN is never close */
	o.have_poison = 0;
	assert_int_equal(check(HRV_F32, r, c, &o).n_poison, 0);
}

static void test_bitwise_compare(void **state)
{
	static float a[N], b[N];
	struct hrv_tensor at = mat(HRV_F32, a), bt = mat(HRV_F32, b);
	struct hrv_bitwise_result res;

	(void)state;
	ref_with_amax(a, 1.0);
	memcpy(b, a, sizeof b);
	assert_int_equal(hrv_bitwise(&at, &bt, &res), HRV_OK);
	assert_true(res.identical);
	assert_int_equal(res.first_diff, -1);
	a[500] = 0.0f;
	b[500] = -0.0f;                /* equal as numbers, not as bits */
	b[900] = nextafterf(b[900], 2.0f);
	assert_int_equal(hrv_bitwise(&at, &bt, &res), HRV_OK);
	assert_false(res.identical);
	assert_int_equal(res.n_diff, 2);
	assert_int_equal(res.first_diff, 500);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_vacuous_magnitudes_flagged),
		cmocka_unit_test(test_ordinary_reference_not_flagged),
		cmocka_unit_test(test_zero_gate_boundary),
		cmocka_unit_test(test_constant_gate),
		cmocka_unit_test(test_constant_gate_ignores_one_element),
		cmocka_unit_test(test_gates_fail_on_nonfinite_reference),
		cmocka_unit_test(test_input_gate_identity),
		cmocka_unit_test(test_poison_count),
		cmocka_unit_test(test_bitwise_compare),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
