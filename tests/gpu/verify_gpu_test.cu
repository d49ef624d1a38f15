/* verify_gpu_test.cu - GPU test of the verify library: on the same data,
 * the CPU path (host pointers) and the CUDA path (device pointers) of
 * build/libhrverify_cuda.so must give the same struct hrv_result, byte for
 * byte (verdicts, counts, indices, maxima and the fp64 sums).  Cases cover
 * every dtype, passing and failing candidates (so the second pass runs),
 * special values, rows shorter than a vector and longer than a tile, rows
 * that are whole warp steps (256, 4096), a
 * scalar, an empty tensor, unaligned pointers, the poison count and the
 * bitwise comparison.  Prints one line per failure and a summary line;
 * exit status 1 on any failure.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../verify/verify.h"
#include "../../verify/rules.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static double urand(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0;
}

/* Store x in element i of buf as dtype. */
static void put(int dt, void *buf, uint64_t i, double x)
{
	switch (dt) {
	case HRV_F32: ((float *)buf)[i] = (float)x; break;
	case HRV_F16: ((uint16_t *)buf)[i] = hrv_f_to_f16((float)x); break;
	case HRV_BF16: ((uint16_t *)buf)[i] = hrv_f_to_bf16((float)x); break;
	case HRV_I32: ((int32_t *)buf)[i] = (int32_t)(x * 1000); break;
	case HRV_I64: ((int64_t *)buf)[i] = (int64_t)(x * 1e6); break;
	default: ((uint8_t *)buf)[i] = x > 0.5; break;
	}
}

static int failures = 0, cases = 0;

static void *to_device(const void *h, size_t bytes, size_t offset)
{
	char *d = NULL;

	if (cudaMalloc((void **)&d, bytes + offset + 16) != cudaSuccess) {
		fprintf(stderr, "cudaMalloc failed\n");
		exit(2);
	}
	cudaMemcpy(d + offset, h, bytes, cudaMemcpyHostToDevice);
	return d + offset;
}

static void compare(const char *name, const struct hrv_result *a,
		    const struct hrv_result *b)
{
	cases++;
	if (!memcmp(a, b, sizeof(*a)))
		return;
	failures++;
	printf("FAIL %s: CPU and GPU results differ\n", name);
#define F(f, fmt) if (a->f != b->f) printf("  %-22s cpu %.17g  gpu %.17g\n", #f, (double)a->f, (double)b->f)
	F(n_violations, "%llu"); F(first_violation, "%lld");
	F(max_abs_err, "%.17g"); F(max_rel_err, "%.17g");
	F(n_nonfinite_mismatch, "%llu"); F(ref_rms, "%.17g");
	F(normwise_rel_err, "%.17g"); F(si_max_excess, "%.17g");
	F(si_violations, "%llu"); F(si_first_violation, "%lld");
	F(row_violations, "%llu"); F(row_first_violation, "%lld");
	F(rows_failed, "%llu"); F(ref_mean, "%.17g"); F(ref_amax, "%.17g");
	F(n_poison, "%llu"); F(gate_zero_pass, "%d"); F(gate_const_pass, "%d");
	F(allclose_pass, "%d"); F(si_pass, "%d"); F(row_pass, "%d");
#undef F
}

/* POISON_FINITE: a finite payload (0.25 in the dtype) that a tenth of
 * the candidate holds (the fast path must test finite pairs against it).
 * TIED: ref uniform in (-1, 1), cand = ref * (1 + e) in the dtype (fp32:
 * e = 2^-20, tests/gpu/verify_bench_gpu.cu's data): a few percent of the
 * pairs tie the largest |d|.  TIED_LOW: ties in fl32(|d|) that are not
 * ties in |d| (tests/py/test_verify_torch.py gen_tied): a tenth of ref =
 * 1.9375, the rest in [1.25, 1.9375), cand = -u 2^-30, so |d| = ref +
 * u 2^-30 differs below float precision (and in the low word of its
 * double); a hundredth ref = 0.25, cand = -0.5, the largest relative
 * error.  atol = 4, rtol = 1, si_rtol = 1000: every pair is close and
 * takes the fast path, where the max-abs filter decides. */
enum mode { NEAR, NOISY, ZEROS, SPECIAL, POISONED, POISON_FINITE, TIED,
	    TIED_LOW };

/* x as dtype stores it, back as a double. */
static double stored(int dt, double x)
{
	uint64_t b = 0;

	put(dt, &b, 0, x);
	return hrv_load(dt, &b, 0).d;
}

static void one(int dt, int ndim, const int64_t *shape, enum mode m,
		size_t offset)
{
	struct hrv_tensor rt, ct;
	struct hrv_opts o;
	struct hrv_result hr, dr;
	struct hrv_bitwise_result hb, db;
	int es = hrv_dtype_size(dt);
	int64_t n;
	void *rh, *ch, *rd, *cd;
	char name[160];
	int rc1, rc2, rc3, rc4;
	uint64_t fin_bits = 0;

	put(dt, &fin_bits, 0, 0.25);
	memset(&rt, 0, sizeof rt);
	rt.dtype = dt;
	rt.ndim = ndim;
	for (int i = 0; i < ndim; i++)
		rt.shape[i] = shape[i];
	ct = rt;
	n = hrv_numel(&rt);
	rh = calloc((size_t)n + 1, (size_t)es);
	ch = calloc((size_t)n + 1, (size_t)es);
	for (int64_t i = 0; i < n; i++) {
		double x = (urand() - 0.3) * (i % 7 == 0 ? 100.0 : 1.0);
		double y = x;

		if (m == TIED) {
			x = stored(dt, urand() * 2.0 - 1.0);
			y = dt == HRV_F32 ? (double)((float)x * (1.0f + 1e-6f))
			    : x * (dt == HRV_F16 ? 1.00390625 : 1.0078125);
		} else if (m == TIED_LOW) {
			double w = urand();

			x = w < 0.01 ? 0.25 : w < 0.11 ? 1.9375
			    : 1.25 + (double)(rnd() % (11u << 19)) * 0x1p-23;
			y = w < 0.01 ? -0.5 : -urand() * 0x1p-30;
		}
		if (m == NEAR)
			y = x * (1.0 + 1e-5 * (urand() - 0.5));
		else if (m == NOISY)
			y = x + (urand() < 0.01 ? 0.5 : 1e-4 * urand());
		else if (m == ZEROS)
			y = 0.0;
		put(dt, rh, (uint64_t)i, x);
		put(dt, ch, (uint64_t)i, y);
		if (m == SPECIAL && hrv_is_float(dt) && urand() < 0.05) {
			static const double sp[] = { NAN, INFINITY, -INFINITY,
						     0.0, -0.0, 1e-40, 70000.0 };
			put(dt, rh, (uint64_t)i, sp[rnd() % 7]);
			put(dt, ch, (uint64_t)i, sp[rnd() % 7]);
		}
		if (m == POISONED && urand() < 0.1) {
			uint64_t pb = hrv_poison_bits(dt);

			memcpy((char *)ch + i * es, &pb, (size_t)es);
		}
		if (m == POISON_FINITE && urand() < 0.1)
			memcpy((char *)ch + i * es, &fin_bits, (size_t)es);
	}
	hrv_opts_default(&o, dt);
	o.have_poison = 1;
	if (m == POISON_FINITE)
		o.poison_bits = fin_bits;
	if (m == TIED_LOW) {
		o.atol = 4.0;
		o.rtol = 1.0;
		o.si_rtol = 1000.0;
	}
	o.equal_nan = m == SPECIAL && (n & 1);
	rt.data = rh;
	ct.data = ch;
	rc1 = hrv_check(&rt, &ct, &o, &hr);
	rc3 = hrv_bitwise(&rt, &ct, &hb);
	rd = to_device(rh, (size_t)n * es, offset);
	cd = to_device(ch, (size_t)n * es, offset);
	rt.data = rd;
	ct.data = cd;
	rt.on_device = ct.on_device = 1;
	rc2 = hrv_check(&rt, &ct, &o, &dr);
	rc4 = hrv_bitwise(&rt, &ct, &db);
	snprintf(name, sizeof name, "%s ndim=%d last=%lld n=%lld mode=%d off=%zu",
		 hrv_dtype_name(dt), ndim, ndim ? (long long)shape[ndim - 1] : 1LL,
		 (long long)n, (int)m, offset);
	if (rc1 || rc2 || rc3 || rc4) {
		cases++;
		failures++;
		printf("FAIL %s: status cpu %d/%d gpu %d/%d (%s)\n", name, rc1,
		       rc3, rc2, rc4, hrv_strerror(rc2));
	} else {
		compare(name, &hr, &dr);
		cases++;
		if (memcmp(&hb, &db, sizeof hb)) {
			failures++;
			printf("FAIL %s: bitwise cpu %llu@%lld gpu %llu@%lld\n",
			       name, (unsigned long long)hb.n_diff,
			       (long long)hb.first_diff,
			       (unsigned long long)db.n_diff,
			       (long long)db.first_diff);
		}
		/* the failing modes must actually fail, or the second pass
		 * was never exercised */
		if ((m == NOISY || m == ZEROS) && n > 64 && hr.si_pass &&
		    hr.row_pass) {
			failures++;
			printf("FAIL %s: expected a scale-invariant failure\n",
			       name);
		}
	}
	cudaFree((char *)rd - offset);
	cudaFree((char *)cd - offset);
	free(rh);
	free(ch);
}

int main(void)
{
	static const int64_t shapes[][3] = {
		{ 3, 1000, 0 }, { 7, 3, 0 }, { 1000001, 0, 0 }, { 4096, 1, 0 },
		{ 5, 4, 70001 }, { 65536 * 3 + 17, 0, 0 }, { 0, 5, 0 },
		{ 131, 1029, 0 }, { 64, 4096, 0 }, { 300, 256, 0 },
	};
	static const int ndims[] = { 2, 2, 1, 2, 3, 1, 2, 2, 2, 2 };
	int dev_count = 0;

	if (cudaGetDeviceCount(&dev_count) != cudaSuccess || dev_count == 0) {
		printf("verify gpu test: no CUDA device\n");
		return 1;
	}
	if (!hrv_has_cuda()) {
		printf("verify gpu test: library built without CUDA\n");
		return 1;
	}
	for (int dt = 0; dt < HRV_NDTYPES; dt++) {
		for (size_t s = 0; s < sizeof(ndims) / sizeof(ndims[0]); s++)
			for (int m = NEAR; m <= POISONED; m++)
				one(dt, ndims[s], shapes[s], (enum mode)m, 0);
		/* a scalar, and pointers off the 16-byte boundary */
		one(dt, 0, shapes[0], NEAR, 0);
		one(dt, 2, shapes[7], NOISY, (size_t)hrv_dtype_size(dt));
		one(dt, 1, shapes[2], SPECIAL, (size_t)hrv_dtype_size(dt));
	}
	/* after the others, which keep their random data */
	for (int dt = 0; dt < HRV_NDTYPES; dt++)
		for (size_t s = 0; s < sizeof(ndims) / sizeof(ndims[0]); s++)
			one(dt, ndims[s], shapes[s], POISON_FINITE, 0);
	for (int dt = HRV_F32; dt <= HRV_BF16; dt++)
		for (size_t s = 0; s < sizeof(ndims) / sizeof(ndims[0]); s++)
			for (int m = TIED; m <= TIED_LOW; m++)
				one(dt, ndims[s], shapes[s], (enum mode)m, 0);
	printf("verify gpu test: %d cases, %d failed (CPU and GPU results %s)\n",
	       cases, failures, failures ? "DIFFER" : "identical");
	return failures != 0;
}
