/* rules.h - the one written form of every verification rule, compiled both
 * by gcc (verify.c, the CPU path) and by nvcc (verify_cuda.cu, the GPU path)
 * as __host__ __device__ inline functions.
 *
 * Owns: dtype conversions with PyTorch's rounding, the per-element closeness
 * of torch.isclose, what one element adds to the running statistics, how
 * two partial statistics merge, the fixed summation order, and how the final
 * statistics become metrics and verdicts.  Must not: allocate, do I/O, or
 * depend on where the data lives.
 *
 * Floating-point: every product and sum that a rule depends on goes through
 * HRV_FMUL/HRV_FADD/HRV_DMUL/HRV_DADD so that neither compiler contracts it
 * into an FMA (PyTorch evaluates rtol*other and atol+... as separate
 * kernels, each rounded).  Do not build this with -ffast-math or
 * --use_fast_math.
 */
#ifndef HRV_RULES_H
#define HRV_RULES_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "verify.h"

#ifdef __CUDACC__
#define HRV_HD __host__ __device__ __forceinline__
#else
#define HRV_HD static inline __attribute__((always_inline))
#endif

/* HRV_AND/HRV_OR join pure, cheap conditions: the device evaluates both
 * sides as predicates (no branches), the host short-circuits (the right
 * side may cost a software fp16 rounding).  Same value either way. */
#if defined(__CUDA_ARCH__)    /* the device pass of nvcc */
#define HRV_UNROLL _Pragma("unroll")
#define HRV_AND(a, b) ((bool)(a) & (bool)(b))
#define HRV_OR(a, b) ((bool)(a) | (bool)(b))
#else
#define HRV_UNROLL
#define HRV_AND(a, b) ((a) && (b))
#define HRV_OR(a, b) ((a) || (b))
#endif

#if defined(__CUDA_ARCH__)
#define HRV_FMUL(a, b) __fmul_rn((a), (b))
#define HRV_FADD(a, b) __fadd_rn((a), (b))
#define HRV_FSUB(a, b) __fsub_rn((a), (b))
#define HRV_DMUL(a, b) __dmul_rn((a), (b))
#define HRV_DADD(a, b) __dadd_rn((a), (b))
#define HRV_DSUB(a, b) __dsub_rn((a), (b))
#define HRV_DDIV(a, b) __ddiv_rn((a), (b))
/* s + x * x for x the double of a float value (any float dtype): x * x is
 * exact in double (significands of at most 24 bits square to at most 48;
 * exponents from -298 to 256, far inside double's normal range), so one
 * fused multiply-add rounds exactly as HRV_DADD(s, HRV_DMUL(x, x)). */
#define HRV_DSQADD_F(s, x) __fma_rn((x), (x), (s))
/* min/max of two floats neither of which is NaN, one instruction: equal
 * to hrv_min_f/hrv_max_f except possibly for the sign of a zero result,
 * which no statistic depends on (hrv_finalize reports a zero extreme as
 * +0; amax and the gates read |x| or compare as floats, -0 == +0). */
#define HRV_FMIN_NN(a, b) fminf((a), (b))
#define HRV_FMAX_NN(a, b) fmaxf((a), (b))
#else
#define HRV_FMUL(a, b) ((a) * (b))
#define HRV_FADD(a, b) ((a) + (b))
#define HRV_FSUB(a, b) ((a) - (b))
#define HRV_DMUL(a, b) ((a) * (b))
#define HRV_DADD(a, b) ((a) + (b))
#define HRV_DSUB(a, b) ((a) - (b))
#define HRV_DDIV(a, b) ((a) / (b))
#define HRV_DSQADD_F(s, x) HRV_DADD((s), HRV_DMUL((x), (x)))
#define HRV_FMIN_NN(a, b) hrv_min_f((a), (b))
#define HRV_FMAX_NN(a, b) hrv_max_f((a), (b))
#endif

/* The fixed reduction shape shared by CPU and GPU.  A tile is
 * HRV_LANES * HRV_STEPS vectors of HRV_VEC_BYTES bytes; tile element e
 * belongs to lane (e / V) % HRV_LANES where V = HRV_VEC_BYTES / elem size,
 * and a lane adds its elements in increasing e.  Lanes are then combined by
 * the halving tree of hrv_tree_sum, tiles by lane t % HRV_LANES in
 * increasing t and the same tree.  Any implementation that follows this
 * order produces the same fp64 sums bit for bit. */
#define HRV_LANES 256
#define HRV_STEPS 64
#define HRV_VEC_BYTES 16
#define HRV_NSUMS 3   /* sum(ref), sum(ref^2), sum((cand-ref)^2) */
#define HRV_NONE UINT64_MAX

HRV_HD uint32_t hrv_f2u(float f)
{
	uint32_t u;
	memcpy(&u, &f, sizeof u);
	return u;
}

HRV_HD float hrv_u2f(uint32_t u)
{
	float f;
	memcpy(&f, &u, sizeof f);
	return f;
}

HRV_HD uint64_t hrv_d2u(double d)
{
	uint64_t u;
	memcpy(&u, &d, sizeof u);
	return u;
}

HRV_HD double hrv_u2d(uint64_t u)
{
	double d;
	memcpy(&d, &u, sizeof d);
	return d;
}

/* Float tests as float compares (one instruction on a GPU; IEEE: NaN
 * compares false, and the build never uses fast-math). */
HRV_HD int hrv_isnan_f(float f)
{
	return f != f;
}

HRV_HD int hrv_isfinite_f(float f)
{
	return fabsf(f) < HUGE_VALF;
}

HRV_HD int hrv_isfinite_d(double d)
{
	return (hrv_d2u(d) & 0x7ff0000000000000ull) != 0x7ff0000000000000ull;
}

HRV_HD int hrv_isnan_d(double d)
{
	return (hrv_d2u(d) & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}

HRV_HD double hrv_fabs_d(double d)
{
	return hrv_u2d(hrv_d2u(d) & 0x7fffffffffffffffull);
}

HRV_HD float hrv_fabs_f(float f)
{
	return fabsf(f);        /* clears the sign bit, NaN included */
}

/* bfloat16 <-> float: c10::BFloat16's round-to-nearest-even, NaN -> 0x7fc0. */
HRV_HD float hrv_bf16_to_f(uint16_t h)
{
	return hrv_u2f((uint32_t)h << 16);
}

HRV_HD uint16_t hrv_f_to_bf16(float f)
{
	uint32_t u = hrv_f2u(f);

	if (hrv_isnan_f(f))
		return 0x7fc0;
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

/* IEEE binary16 <-> float, round-to-nearest-even (as c10::Half). */
HRV_HD float hrv_f16_to_f(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu;
	uint32_t man = h & 0x3ffu;

	if (exp == 0x1f)
		return hrv_u2f(sign | 0x7f800000u | (man << 13));
	if (exp == 0) {
		/* zero or subnormal: man * 2^-24, exact in float */
		float v = (float)man * 5.9604644775390625e-8f;
		return sign ? -v : v;
	}
	return hrv_u2f(sign | ((exp + 112u) << 23) | (man << 13));
}

HRV_HD uint16_t hrv_f_to_f16(float f)
{
	uint32_t x = hrv_f2u(f);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
	uint32_t ax = x & 0x7fffffffu;
	uint32_t man, h, rem, half;
	int e, shift;

	if (ax > 0x7f800000u)
		return sign | 0x7e00u;
	if (ax >= 0x47800000u)          /* >= 65536 (and inf) */
		return sign | 0x7c00u;
	if (ax >= 0x38800000u) {        /* normal half: >= 2^-14 */
		e = (int)(ax >> 23) - 127 + 15;
		man = ax & 0x7fffffu;
		h = ((uint32_t)e << 10) | (man >> 13);
		rem = man & 0x1fffu;
		if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
			h++;            /* may carry into the exponent: ok */
		return (uint16_t)(sign | h);
	}
	if (ax < 0x33000000u)           /* < 2^-25: rounds to zero */
		return sign;
	/* subnormal half: value = man * 2^(e-23), unit 2^-24 */
	e = (int)(ax >> 23) - 127;
	man = (ax & 0x7fffffu) | 0x800000u;
	shift = -(e + 1);               /* 14..24 */
	h = man >> shift;
	rem = man & ((1u << shift) - 1u);
	half = 1u << (shift - 1);
	if (rem > half || (rem == half && (h & 1u)))
		h++;
	return (uint16_t)(sign | h);
}

/* Round a float to the arithmetic of dtype (PyTorch computes fp16/bf16
 * elementwise ops in float and rounds the result once). */
HRV_HD float hrv_round(int dtype, float f)
{
	if (dtype == HRV_BF16)
		return hrv_bf16_to_f(hrv_f_to_bf16(f));
	if (dtype == HRV_F16)
		return hrv_f16_to_f(hrv_f_to_f16(f));
	return f;
}

/* One element, read three ways: f is the value torch.isclose computes with
 * (integers and bool are cast to float32, the default dtype), d is the
 * exact value for fp64 metrics (integers beyond 2^53 are rounded), bits is
 * the raw element for equality and poison. */
struct hrv_val {
	double d;
	uint64_t bits;
	float f;
};

HRV_HD struct hrv_val hrv_load(int dtype, const void *base, uint64_t i)
{
	/* memcpy: any buffer (a device vector register, a char array) may be
	 * read without breaking aliasing rules; compilers emit one load. */
	const char *b = (const char *)base;
	struct hrv_val v;

	switch (dtype) {
	case HRV_F32: {
		uint32_t u;

		memcpy(&u, b + i * 4, 4);
		v.bits = u;
		v.f = hrv_u2f(u);
		v.d = (double)v.f;
		break;
	}
	case HRV_F16:
	case HRV_BF16: {
		uint16_t u;

		memcpy(&u, b + i * 2, 2);
		v.bits = u;
		v.f = dtype == HRV_F16 ? hrv_f16_to_f(u) : hrv_bf16_to_f(u);
		v.d = (double)v.f;
		break;
	}
	case HRV_I32: {
		int32_t x;

		memcpy(&x, b + i * 4, 4);
		v.bits = (uint32_t)x;
		v.f = (float)x;
		v.d = (double)x;
		break;
	}
	case HRV_I64: {
		int64_t x;

		memcpy(&x, b + i * 8, 8);
		v.bits = (uint64_t)x;
		v.f = (float)x;   /* one rounding, int64 -> float, as torch */
		v.d = (double)x;
		break;
	}
	default: {        /* HRV_BOOL: any non-zero byte is true */
		uint8_t x = (uint8_t)b[i];

		v.bits = x;
		v.f = x ? 1.0f : 0.0f;
		v.d = x ? 1.0 : 0.0;
		break;
	}
	}
	return v;
}

/* Parameters every element rule reads, derived once from hrv_opts. */
struct hrv_params {
	double si_rtol;
	uint64_t poison_bits;
	float atol_f, rtol_f;     /* the Python doubles as torch casts them */
	float si_skip;            /* skip factor of si_rtol (hrv_err) */
	/* hrv_fast_close's tolerances: atol_f, rtol_f, or 0 under zero_tol */
	float fast_atol, fast_rtol;
	int32_t dtype;
	int32_t equal_nan;
	int32_t zero_tol;         /* atol == 0 && rtol == 0: equality only */
	int32_t have_poison;
	/* have_poison, and the payload cut to the element size is a finite
	 * value of a float dtype (or the dtype is an integer): only then can
	 * a finite element be poison (hrv_vec) */
	int32_t poison_finite;
};

HRV_HD int hrv_is_float(int dtype)
{
	return dtype == HRV_F32 || dtype == HRV_F16 || dtype == HRV_BF16;
}

/* Equality as torch's `self == other` in the tensors' own dtype. */
HRV_HD int hrv_equal(int dtype, struct hrv_val r, struct hrv_val c)
{
	if (hrv_is_float(dtype))
		return r.f == c.f;              /* -0 == +0, NaN != NaN */
	if (dtype == HRV_BOOL)
		return (r.bits != 0) == (c.bits != 0);
	return r.bits == c.bits;
}

/* The tolerance half of hrv_close: not zero_tol, and the rounded
 * |ref - cand| finite and within atol + |rtol * cand|. */
HRV_HD int hrv_within(int dt, const struct hrv_params *p, struct hrv_val r,
		      struct hrv_val c)
{
	float prod = hrv_round(dt, HRV_FMUL(p->rtol_f, c.f));
	float allowed = hrv_round(dt, HRV_FADD(p->atol_f, hrv_fabs_f(prod)));
	float actual = hrv_fabs_f(hrv_round(dt, HRV_FSUB(r.f, c.f)));

	return HRV_AND(HRV_AND(p->zero_tol == 0, hrv_isfinite_f(actual)),
		       actual <= allowed);
}

/* torch.isclose(ref, cand, rtol, atol, equal_nan) for one element, as
 * aten/src/ATen/native/TensorCompare.cpp computes it:
 *   close  = ref == cand
 *   close |= equal_nan && isnan(ref) && isnan(cand)      (floating only)
 *   if rtol == 0 && atol == 0: return close
 *   allowed = atol + |rtol * cand|     each op rounded to the dtype
 *   actual  = |ref - cand|             rounded to the dtype
 *   close |= isfinite(actual) && actual <= allowed
 * The relative term uses the candidate (torch's `other`), not the
 * reference: KernelBench calls allclose(ref, cand).  dt is p->dtype, passed
 * separately so that a caller with a constant dtype gets a specialised
 * copy. */
HRV_HD int hrv_close(int dt, const struct hrv_params *p, struct hrv_val r,
		     struct hrv_val c)
{
	return HRV_OR(HRV_OR(hrv_equal(dt, r, c),
			     HRV_AND(HRV_AND(p->equal_nan, hrv_isnan_f(r.f)),
				     hrv_isnan_f(c.f))),
		      hrv_within(dt, p, r, c));
}

/* The fast path's test of one pair of a float dtype (hrv_vec): both
 * finite and close, in five float operations.  t = fl32(r - c) is passed
 * in (hrv_vec reuses it), fa, fr are p->fast_atol, p->fast_rtol:
 *     actual  = |round(t)|,  allowed = round(fa + |round(fr * c)|)
 *     fast    = actual < inf && actual <= allowed
 * fast implies isfinite(r) && isfinite(c) && hrv_close(r, c):
 *  - r or c not finite: t is NaN or an infinity, so actual is NaN or inf
 *    and fast is false;
 *  - r, c finite, not zero_tol: fast is hrv_within itself (the same
 *    operations on the same values), and within implies close;
 *  - r, c finite, zero_tol: fa = fr = 0 and c finite give allowed = +0,
 *    and actual <= 0 only when r == c: two different values of a float
 *    dtype differ by at least its smallest subnormal, which fl32 and the
 *    rounding to the dtype keep non-zero (gradual underflow, monotone
 *    rounding), so close (by equality).
 * Conversely a finite close pair passes unless allowed is NaN (rtol
 * rounds to inf and c == 0): by within, or by r == c, which makes actual
 * = 0 <= allowed.  Such a pair only takes hrv_vec's exact slow path. */
HRV_HD int hrv_fast_close(int dt, const struct hrv_params *p,
			  struct hrv_val c, float t)
{
	float prod = hrv_round(dt, HRV_FMUL(p->fast_rtol, c.f));
	float allowed = hrv_round(dt, HRV_FADD(p->fast_atol, hrv_fabs_f(prod)));
	float actual = hrv_fabs_f(hrv_round(dt, t));

	return HRV_AND(actual < HUGE_VALF, actual <= allowed);
}

/* Non-finite masks agree: both finite, both NaN, or the same infinity. */
HRV_HD int hrv_nonfinite_match(double r, double c)
{
	int rf = hrv_isfinite_d(r), cf = hrv_isfinite_d(c);

	if (rf && cf)
		return 1;
	if (hrv_isnan_d(r) && hrv_isnan_d(c))
		return 1;
	return !rf && !cf && !hrv_isnan_d(r) && !hrv_isnan_d(c) && r == c;
}

/* The scale-invariant elementwise excess of one finite pair:
 * |cand - ref| - si_rtol*|ref| in fp64.  An element violates a bound B
 * (alpha*RMS, or alpha_row*amax of its row) iff excess > B. */
HRV_HD double hrv_excess(double si_rtol, double r, double c)
{
	double ad = hrv_fabs_d(HRV_DSUB(c, r));

	return HRV_DSUB(ad, HRV_DMUL(si_rtol, hrv_fabs_d(r)));
}

/* A row fails the per-row check when its largest excess exceeds alpha
 * times its largest finite |ref|; element-level counts use the same
 * bound (excess > alpha * amax of the element's row). */
HRV_HD double hrv_row_bound(double alpha, double row_amax)
{
	return HRV_DMUL(alpha, row_amax);
}

/* Order-independent running statistics (counts, extrema, first indices):
 * any grouping of elements merges to the same value. */
struct hrv_acc {
	double max_abs_err, max_rel_err, max_excess;
	double ref_min, ref_max;          /* amax = max(-min, max) */
	/* Filter of hrv_err (float dtypes): the skip factor of a value
	 * <= max_rel_err.  It only decides what can be skipped. */
	float rel_skip;
	/* float dtypes under skip: the finite reference's extremes in float
	 * (exact); hrv_acc_min/max fold them into ref_min/ref_max */
	float fmin, fmax;
	uint64_t n_viol, first_viol;
	uint64_t n_nf_mismatch, first_nf;
	uint64_t n_nan_ref, n_nan_cand, n_inf_ref, n_inf_cand;
	uint64_t n_fin_ref;
	uint64_t n_poison;
};

HRV_HD void hrv_acc_init(struct hrv_acc *a)
{
	a->max_abs_err = 0.0;
	a->max_rel_err = 0.0;
	a->max_excess = 0.0;
	a->ref_min = HUGE_VAL;
	a->ref_max = -HUGE_VAL;
	a->rel_skip = 0.0f;
	a->fmin = HUGE_VALF;
	a->fmax = -HUGE_VALF;
	a->n_viol = 0;
	a->first_viol = HRV_NONE;
	a->n_nf_mismatch = 0;
	a->first_nf = HRV_NONE;
	a->n_nan_ref = a->n_nan_cand = a->n_inf_ref = a->n_inf_cand = 0;
	a->n_fin_ref = 0;
	a->n_poison = 0;
}

HRV_HD double hrv_max_d(double a, double b)
{
	return b > a ? b : a;
}

HRV_HD double hrv_min_d(double a, double b)
{
	return b < a ? b : a;
}

HRV_HD uint64_t hrv_min_u(uint64_t a, uint64_t b)
{
	return b < a ? b : a;
}

HRV_HD float hrv_min_f(float a, float b)
{
	return b < a ? b : a;
}

HRV_HD float hrv_max_f(float a, float b)
{
	return b > a ? b : a;
}

/* The finite reference's extremes (the sign of a zero extreme depends on
 * the order the elements came in; hrv_finalize does not report it). */
HRV_HD double hrv_acc_min(const struct hrv_acc *a)
{
	return hrv_min_d(a->ref_min, (double)a->fmin);
}

HRV_HD double hrv_acc_max(const struct hrv_acc *a)
{
	return hrv_max_d(a->ref_max, (double)a->fmax);
}

/* Largest finite |ref| (0 when there is none). */
HRV_HD double hrv_acc_amax(const struct hrv_acc *a)
{
	if (a->n_fin_ref == 0)
		return 0.0;
	return hrv_max_d(hrv_fabs_d(hrv_acc_min(a)), hrv_fabs_d(hrv_acc_max(a)));
}

HRV_HD void hrv_acc_merge(struct hrv_acc *a, const struct hrv_acc *b)
{
	a->max_abs_err = hrv_max_d(a->max_abs_err, b->max_abs_err);
	a->max_rel_err = hrv_max_d(a->max_rel_err, b->max_rel_err);
	a->max_excess = hrv_max_d(a->max_excess, b->max_excess);
	a->ref_min = hrv_min_d(a->ref_min, b->ref_min);
	a->ref_max = hrv_max_d(a->ref_max, b->ref_max);
	a->rel_skip = b->rel_skip > a->rel_skip ? b->rel_skip : a->rel_skip;
	a->fmin = hrv_min_f(a->fmin, b->fmin);
	a->fmax = hrv_max_f(a->fmax, b->fmax);
	a->n_viol += b->n_viol;
	a->first_viol = hrv_min_u(a->first_viol, b->first_viol);
	a->n_nf_mismatch += b->n_nf_mismatch;
	a->first_nf = hrv_min_u(a->first_nf, b->first_nf);
	a->n_nan_ref += b->n_nan_ref;
	a->n_nan_cand += b->n_nan_cand;
	a->n_inf_ref += b->n_inf_ref;
	a->n_inf_cand += b->n_inf_cand;
	a->n_fin_ref += b->n_fin_ref;
	a->n_poison += b->n_poison;
}

/* What hrv_vec's fast path reads and writes, per lane: everything a
 * vector touches when all its pairs are finite, close and not poison.
 * The other statistics stay in struct hrv_acc, which only the slow paths
 * touch (the GPU keeps it in shared memory).  hrv_hot_fold moves the
 * extremes and the count into the acc; the filters are copies of the
 * acc's (hrv_hot_sync) and may lag behind them (see hrv_vec). */
struct hrv_hot {
	float fmin, fmax;    /* finite references since the last fold */
	float kskip;         /* min(rel_skip, si_skip) at the last sync */
	uint32_t nfast;      /* vectors the fast path took since the fold */
	double abs_max;      /* max_abs_err at the last sync */
};

HRV_HD void hrv_hot_init(struct hrv_hot *h)
{
	h->fmin = HUGE_VALF;
	h->fmax = -HUGE_VALF;
	h->kskip = 0.0f;
	h->nfast = 0;
	h->abs_max = 0.0;
}

HRV_HD void hrv_hot_sync(struct hrv_hot *h, const struct hrv_params *p,
			 const struct hrv_acc *a)
{
	h->kskip = hrv_min_f(a->rel_skip, p->si_skip);
	h->abs_max = a->max_abs_err;
}

/* Largest finite |ref| since the last fold (0 when none), exact. */
HRV_HD float hrv_hot_amax(const struct hrv_hot *h)
{
	return hrv_max_f(hrv_max_f(0.0f, -h->fmin), h->fmax);
}

/* Moves the extremes and the fast vectors' finite references (v elements
 * each) into the acc, and starts over. */
HRV_HD void hrv_hot_fold(struct hrv_hot *h, struct hrv_acc *a, int v)
{
	a->fmin = hrv_min_f(a->fmin, h->fmin);
	a->fmax = hrv_max_f(a->fmax, h->fmax);
	a->n_fin_ref += (uint64_t)h->nfast * (uint64_t)v;
	h->fmin = HUGE_VALF;
	h->fmax = -HUGE_VALF;
	h->nfast = 0;
}

/* With skip set (a constant; the GPU sets it, the CPU library only in
 * its test build: on a CPU the filters cost more than the fp64 work they
 * save), elements that cannot change a maximum are skipped (float dtypes;
 * the integers take every step).  For a finite pair let D = |c - r| exactly,
 * fd = fl32(D) (one float subtraction) and ar = |r|, exact in float.
 * Rounding is monotone, so
 *  - max_abs_err needs no filter: fl64(D) = |d| is at hand, one compare;
 *  - fd < x = fl32(rel_skip * ar) with x > HRV_SKIP_MIN: D / ar cannot
 *    exceed max_rel_err (below);
 *  - fd < x = fl32(si_skip * ar) with x > HRV_SKIP_MIN: D < si_rtol * ar,
 *    so the excess is <= 0 and changes no maximum (they all start at +0);
 *  - fd == 0 iff D == 0 (gradual underflow): error 0, excess <= 0.
 * A factor is 0, or f = fl32(fl32(q) * 0.999999f) for a normal float q:
 * with the product by ar, x carries at most three float roundings, so
 * x <= 0.999999 * (1 + 2^-24)^3 * q * ar, and fd < x gives
 * D <= fd * (1 + 2^-24) < (1 - 7e-7) * q * ar (x normal: fd's absolute
 * error 2^-150 is nothing beside it).  Skipping changes no statistic,
 * only the work.  A threshold may come from an element counted in another
 * accumulator merged into the same result (the GPU shares them across a
 * warp and across blocks): the final maxima still cover every skipped
 * element. */
#define HRV_SKIP_MIN 1e-30f

/* The skip factor of q >= 0 (see above): 0 when q is not a normal float. */
HRV_HD float hrv_skip_factor(double q)
{
	if (!(q >= 1.1754944e-38 && q < 1e38))
		return 0.0f;
	return HRV_FMUL((float)q, 0.999999f);
}

/* The error statistics of one finite pair, d = c - r in fp64.  Returns
 * the excess, or -1 where it is known to be <= 0 without computing it. */
HRV_HD double hrv_err(int dt, int skip, const struct hrv_params *p,
		      struct hrv_acc *a, struct hrv_val r, struct hrv_val c,
		      double d)
{
	double ad = hrv_fabs_d(d), ar = hrv_fabs_d(r.d), ex;

	if (skip && hrv_is_float(dt)) {
		float fd = hrv_fabs_f(HRV_FSUB(c.f, r.f));
		float ar_f = hrv_fabs_f(r.f), x;

		if (!(fd > 0.0f))
			return -1.0;
		a->max_abs_err = hrv_max_d(a->max_abs_err, ad);
		x = HRV_FMUL(a->rel_skip, ar_f);
		if (ar_f != 0.0f && !(fd < x && x > HRV_SKIP_MIN)) {
			double q = HRV_DDIV(ad, ar);

			if (q > a->max_rel_err) {
				a->max_rel_err = q;
				a->rel_skip = hrv_max_f(a->rel_skip,
							 hrv_skip_factor(q));
			}
		}
		x = HRV_FMUL(p->si_skip, ar_f);
		if (fd < x && x > HRV_SKIP_MIN)
			return -1.0;
	} else {
		a->max_abs_err = hrv_max_d(a->max_abs_err, ad);
		/* divide only when the quotient may be a new max; the
		 * filter is loose, the max is of exact quotients */
		if (ar != 0.0 && ad > 0.0 &&
		    ad >= HRV_DMUL(HRV_DMUL(a->max_rel_err, ar), 0.99999))
			a->max_rel_err = hrv_max_d(a->max_rel_err,
						   HRV_DDIV(ad, ar));
	}
	ex = hrv_excess(p->si_rtol, r.d, c.d);
	a->max_excess = hrv_max_d(a->max_excess, ex);
	return ex;
}

/* What element i adds: to the order-independent statistics *a, and to the
 * three fp64 sums s[] of its lane (in the order of hrv_tree_sum).  Returns
 * the pair's excess (for the per-row statistics), or a negative value
 * when the pair is not finite or its excess is known to be <= 0. */
HRV_HD double hrv_elem(int dt, int skip, const struct hrv_params *p,
		       struct hrv_acc *a, double *s, struct hrv_val r,
		       struct hrv_val c, uint64_t i)
{
	/* float dtypes: finite as float iff as double (32-bit tests) */
	int fl = skip && hrv_is_float(dt);
	int rfin = fl ? hrv_isfinite_f(r.f) : hrv_isfinite_d(r.d);
	int cfin = fl ? hrv_isfinite_f(c.f) : hrv_isfinite_d(c.d);
	double ex = -1.0;

	if (!hrv_close(dt, p, r, c)) {
		a->n_viol++;
		a->first_viol = hrv_min_u(a->first_viol, i);
	}
	if (p->have_poison && c.bits == p->poison_bits)
		a->n_poison++;
	if (!rfin || !cfin) {
		a->n_nan_ref += hrv_isnan_d(r.d);
		a->n_nan_cand += hrv_isnan_d(c.d);
		a->n_inf_ref += !rfin && !hrv_isnan_d(r.d);
		a->n_inf_cand += !cfin && !hrv_isnan_d(c.d);
		if (!hrv_nonfinite_match(r.d, c.d)) {
			a->n_nf_mismatch++;
			a->first_nf = hrv_min_u(a->first_nf, i);
		}
	}
	if (rfin) {
		a->n_fin_ref++;
		s[0] = HRV_DADD(s[0], r.d);
		s[1] = HRV_DADD(s[1], HRV_DMUL(r.d, r.d));
		a->ref_min = hrv_min_d(a->ref_min, r.d);
		a->ref_max = hrv_max_d(a->ref_max, r.d);
		if (cfin) {
			double d = HRV_DSUB(c.d, r.d);

			s[2] = HRV_DADD(s[2], HRV_DMUL(d, d));
			ex = hrv_err(dt, skip, p, a, r, c, d);
		}
	}
	return ex;
}

/* Bytes of one element of dtype. */
HRV_HD int hrv_esize(int dt)
{
	return dt == HRV_F16 || dt == HRV_BF16 ? 2 : dt == HRV_I64 ? 8 :
	       dt == HRV_BOOL ? 1 : 4;
}

/* One whole vector: the HRV_VEC_BYTES / size elements i0, i0 + 1, ... of
 * the vectors rv and cv, each exactly as hrv_elem does it (ex[e] is its
 * return; *em takes the maximum of those computed), sums in the same
 * order; h->fmin/fmax take every finite reference.
 *
 * With skip, float dtypes take a fast path when every pair passes
 * hrv_fast_close (finite and close) and none can be poison (only with
 * p->poison_finite is a finite candidate tested against the payload; a
 * NaN payload never equals a finite element).  The fast path adds to the
 * sums (s[1] by HRV_DSQADD_F, exact), the extremes and h->nfast (the
 * pairs are finite: hrv_hot_fold counts their references in n_fin_ref),
 * leaves the counters that stay 0 alone, and calls hrv_err only for the
 * pairs its filter does not rule out.  With fd = |t| = fl32(D) (t =
 * fl32(r - c), D = |c - r| exactly, rounding to nearest is symmetric),
 * |d| = fl64(D) (d = fl64(c - r), computed for the sums anyway), ar = |r|,
 * M = max_abs_err, x = fl32(h->kskip * ar), the filter skips a pair when
 *     fd == 0, or fd < x, x > HRV_SKIP_MIN and |d| <= h->abs_max,
 * and such a pair changes nothing in hrv_err: fd == 0 returns at once;
 * otherwise h->kskip <= min(rel_skip, si_skip) (the thresholds only grow
 * after a sync), so x <= fl32(rel_skip * ar) and x <= fl32(si_skip * ar)
 * (rounding is monotone): both relative filters of hrv_err hold with
 * thresholds > HRV_SKIP_MIN (ar == 0 gives x = 0: never skipped here);
 * and |d| <= h->abs_max <= M leaves max_abs_err as it is.  The abs test
 * is on the fp64 |d|, not on fd against fl32(M): a pair whose error ties
 * the maximum (common: with cand = r * (1 + e) in fp32 a few percent of
 * the pairs share the largest |d|) is skipped, not sent to hrv_err.
 * (fabs, not hrv_fabs_d: d is finite, and the device folds fabs into the
 * compare, one register fewer for the 2-byte dtypes.) */
HRV_HD void hrv_vec(int dt, int skip, const struct hrv_params *p,
		    struct hrv_acc *a, struct hrv_hot *h, double *s,
		    const void *rv, const void *cv, uint64_t i0, double *ex,
		    double *em)
{
	const int v = HRV_VEC_BYTES / hrv_esize(dt);
	struct hrv_val r[HRV_VEC_BYTES], c[HRV_VEC_BYTES];
	double d[HRV_VEC_BYTES];
	float t[HRV_VEC_BYTES];
	bool ok = skip && hrv_is_float(dt), need[HRV_VEC_BYTES], any = false;

	HRV_UNROLL
	for (int e = 0; e < v; e++) {
		r[e] = hrv_load(dt, rv, e);
		c[e] = hrv_load(dt, cv, e);
		t[e] = HRV_FSUB(r[e].f, c[e].f);
		ok = HRV_AND(ok, hrv_fast_close(dt, p, c[e], t[e]));
	}
	if (ok && p->poison_finite) {
		HRV_UNROLL
		for (int e = 0; e < v; e++)
			ok = HRV_AND(ok, c[e].bits != p->poison_bits);
	}
	if (!ok) {
		HRV_UNROLL
		for (int e = 0; e < v; e++) {
			ex[e] = hrv_elem(dt, skip, p, a, s, r[e], c[e], i0 + e);
			*em = hrv_max_d(*em, ex[e]);
			if (hrv_is_float(dt) && hrv_isfinite_f(r[e].f)) {
				h->fmin = hrv_min_f(h->fmin, r[e].f);
				h->fmax = hrv_max_f(h->fmax, r[e].f);
			}
		}
		hrv_hot_sync(h, p, a);
		return;
	}
	h->nfast++;
	HRV_UNROLL
	for (int e = 0; e < v; e++) {
		float fd = hrv_fabs_f(t[e]);
		float x = HRV_FMUL(h->kskip, hrv_fabs_f(r[e].f));

		s[0] = HRV_DADD(s[0], r[e].d);
		s[1] = HRV_DSQADD_F(s[1], r[e].d);
		d[e] = HRV_DSUB(c[e].d, r[e].d);
		s[2] = HRV_DADD(s[2], HRV_DMUL(d[e], d[e]));
		h->fmin = HRV_FMIN_NN(h->fmin, r[e].f);
		h->fmax = HRV_FMAX_NN(h->fmax, r[e].f);
		need[e] = HRV_AND(fd > 0.0f,
				  HRV_OR(HRV_OR(fd >= x, x <= HRV_SKIP_MIN),
					 fabs(d[e]) > h->abs_max));
		any = HRV_OR(any, need[e]);
		ex[e] = -1.0;
	}
	if (!any)
		return;
	HRV_UNROLL
	for (int e = 0; e < v; e++) {
		if (need[e]) {
			ex[e] = hrv_err(dt, skip, p, a, r[e], c[e], d[e]);
			*em = hrv_max_d(*em, ex[e]);
		}
	}
	hrv_hot_sync(h, p, a);
}

/* The fixed halving tree over HRV_LANES values: v[l] += v[l + h] for
 * h = LANES/2 .. 1.  (The GPU runs the same levels in shared memory.) */
HRV_HD double hrv_tree_sum(double *v)
{
	for (int h = HRV_LANES / 2; h > 0; h >>= 1)
		for (int l = 0; l < h; l++)
			v[l] = HRV_DADD(v[l], v[l + h]);
	return v[0];
}

/* Parameters from options; returns HRV_EINVAL for bad values. */
HRV_HD int hrv_params_make(struct hrv_params *p, const struct hrv_opts *o,
			   int dtype)
{
	if (!(o->atol >= 0.0) || !(o->rtol >= 0.0) || !(o->si_rtol >= 0.0) ||
	    !(o->si_alpha >= 0.0) || !(o->si_row_alpha >= 0.0) ||
	    !(o->si_tau >= 0.0))
		return HRV_EINVAL;
	p->dtype = dtype;
	/* torch on CUDA reads the Python double as a float (opmath); its CPU
	 * add kernel casts the scalar to the tensor's dtype first. */
	p->atol_f = o->torch_cpu ? hrv_round(dtype, (float)o->atol)
				 : (float)o->atol;
	p->rtol_f = (float)o->rtol;
	p->zero_tol = o->atol == 0.0 && o->rtol == 0.0;
	p->equal_nan = o->equal_nan != 0 && hrv_is_float(dtype);
	p->si_rtol = o->si_rtol;
	p->si_skip = hrv_skip_factor(o->si_rtol);
	p->fast_atol = p->zero_tol ? 0.0f : p->atol_f;
	p->fast_rtol = p->zero_tol ? 0.0f : p->rtol_f;
	p->have_poison = o->have_poison != 0;
	p->poison_bits = o->poison_bits;
	p->poison_finite = p->have_poison;
	if (dtype == HRV_F32)
		p->poison_finite = p->have_poison &&
			hrv_isfinite_f(hrv_u2f((uint32_t)o->poison_bits));
	else if (dtype == HRV_F16)
		p->poison_finite = p->have_poison &&
			hrv_isfinite_f(hrv_f16_to_f((uint16_t)o->poison_bits));
	else if (dtype == HRV_BF16)
		p->poison_finite = p->have_poison &&
			hrv_isfinite_f(hrv_bf16_to_f((uint16_t)o->poison_bits));
	return HRV_OK;
}

/* A finite double as a value of dtype: rounded to the dtype (the constant
 * a degenerate kernel would write), NaN for an integer overflow. */
HRV_HD struct hrv_val hrv_val_from_double(int dtype, double x)
{
	struct hrv_val v;

	v.d = x;
	v.bits = 0;
	switch (dtype) {
	case HRV_F32:
		v.f = (float)x;
		v.d = v.f;
		v.bits = hrv_f2u(v.f);
		break;
	case HRV_F16:
		v.bits = hrv_f_to_f16((float)x);
		v.f = hrv_f16_to_f((uint16_t)v.bits);
		v.d = v.f;
		break;
	case HRV_BF16:
		v.bits = hrv_f_to_bf16((float)x);
		v.f = hrv_bf16_to_f((uint16_t)v.bits);
		v.d = v.f;
		break;
	case HRV_BOOL:
		v.bits = x != 0.0;
		v.d = v.f = (float)v.bits;
		break;
	default: {        /* integers: nearest, ties away from zero */
		double t = x < 0 ? -floor(-x + 0.5) : floor(x + 0.5);
		int64_t k = (int64_t)t;

		if (dtype == HRV_I32) {
			k = (int32_t)k;
			v.bits = (uint32_t)k;   /* as hrv_load reads it */
		} else {
			v.bits = (uint64_t)k;
		}
		v.d = (double)k;
		v.f = (float)k;
		break;
	}
	}
	return v;
}

/* Turn the merged statistics and the three sums into metrics and
 * verdicts.  row_*: the per-row outcome computed by the caller's pass
 * (rows_failed, and, when it ran, the element counts). */
HRV_HD void hrv_finalize(const struct hrv_params *p, const struct hrv_opts *o,
			 const struct hrv_acc *a, const double *sums,
			 struct hrv_result *res)
{
	uint64_t n = res->n;
	double rms = 0.0, mean = 0.0;
	struct hrv_val z, cv;

	res->n_violations = a->n_viol;
	res->first_violation = a->first_viol == HRV_NONE ? -1
			       : (int64_t)a->first_viol;
	res->max_abs_err = a->max_abs_err;
	res->max_rel_err = a->max_rel_err;
	res->n_nan_ref = a->n_nan_ref;
	res->n_nan_cand = a->n_nan_cand;
	res->n_inf_ref = a->n_inf_ref;
	res->n_inf_cand = a->n_inf_cand;
	res->n_nonfinite_mismatch = a->n_nf_mismatch;
	res->first_nonfinite_mismatch = a->first_nf == HRV_NONE ? -1
					: (int64_t)a->first_nf;
	if (a->n_fin_ref > 0) {
		rms = sqrt(HRV_DDIV(sums[1], (double)a->n_fin_ref));
		mean = HRV_DDIV(sums[0], (double)a->n_fin_ref);
	}
	res->ref_rms = rms;
	res->ref_mean = mean;
	/* 0/0 rule: an all-zero reference is matched only by an exact zero
	 * difference (error 0), anything else is infinitely wrong. */
	if (sums[1] > 0.0)
		res->normwise_rel_err = sqrt(HRV_DDIV(sums[2], sums[1]));
	else
		res->normwise_rel_err = sums[2] > 0.0 ? HUGE_VAL : 0.0;
	res->si_threshold = HRV_DMUL(o->si_alpha, rms);
	res->si_max_excess = a->max_excess;
	res->ref_amax = hrv_acc_amax(a);
	/* + 0.0: the sign of a zero extreme depends on which zero came
	 * first, so it is not reported (the extrema stay order-independent) */
	res->ref_min = a->n_fin_ref ? HRV_DADD(hrv_acc_min(a), 0.0) : 0.0;
	res->ref_max = a->n_fin_ref ? HRV_DADD(hrv_acc_max(a), 0.0) : 0.0;
	res->margin = o->atol > 0.0 ? HRV_DDIV(res->ref_amax, o->atol)
				    : HUGE_VAL;
	res->n_poison = a->n_poison;
	res->poison_fraction = n ? HRV_DDIV((double)a->n_poison, (double)n)
				 : 0.0;

	res->allclose_pass = a->n_viol == 0;
	res->nonfinite_pass = a->n_nf_mismatch == 0;
	res->normwise_pass = res->normwise_rel_err <= o->si_tau;
	res->si_pass = !(a->max_excess > res->si_threshold);
	res->row_pass = res->rows_failed == 0;
	res->scale_invariant_pass = res->nonfinite_pass &&
		res->normwise_pass && res->si_pass && res->row_pass;

	/* Degeneracy gates: would all-zeros, or the mean everywhere, pass the
	 * original check?  |ref - k| computed in the dtype is monotone in ref
	 * on each side of k, so the extremes of the reference decide. */
	z = hrv_val_from_double(p->dtype, 0.0);
	cv = hrv_val_from_double(p->dtype, mean);
	res->const_value = cv.d;
	if (n == 0) {
		res->gate_zero_pass = res->gate_const_pass = 1;
	} else if (a->n_nan_ref + a->n_inf_ref > 0) {
		res->gate_zero_pass = res->gate_const_pass = 0;
	} else {
		struct hrv_val lo = hrv_val_from_double(p->dtype, hrv_acc_min(a));
		struct hrv_val hi = hrv_val_from_double(p->dtype, hrv_acc_max(a));

		res->gate_zero_pass = hrv_close(p->dtype, p, lo, z) &&
				      hrv_close(p->dtype, p, hi, z);
		/* One element is its own mean: the "constant" would be the
		 * answer itself, which says nothing about the check. */
		res->gate_const_pass = n > 1 &&
				       hrv_close(p->dtype, p, lo, cv) &&
				       hrv_close(p->dtype, p, hi, cv);
	}
	res->vacuous = res->gate_zero_pass || res->gate_const_pass;
}

#endif
