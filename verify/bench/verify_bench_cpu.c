/* verify_bench_cpu.c - single-thread throughput of the CPU verify path:
 * reference + candidate bytes per second of hrv_check, per dtype (the
 * library is single-threaded, so this is per core).  Median of 5 after a
 * warm-up; one passing candidate (one pass) and one failing (two passes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../verify.h"
#include "../rules.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static void bench(int dt, uint64_t n, int failing)
{
	int es = hrv_dtype_size(dt);
	unsigned char *r = malloc(n * (size_t)es), *c = malloc(n * (size_t)es);
	struct hrv_tensor rt, ct;
	struct hrv_opts o;
	struct hrv_result res;
	double t[5];
	uint64_t s = 88172645463325252ull;

	for (uint64_t i = 0; i < n; i++) {
		float x, y;

		s ^= s << 13;
		s ^= s >> 7;
		s ^= s << 17;
		x = (float)(s >> 40) / 16777216.0f - 0.5f;
		y = failing ? x + 0.1f : x * (1.0f + 1e-6f);
		if (dt == HRV_F32) {
			memcpy(r + i * 4, &x, 4);
			memcpy(c + i * 4, &y, 4);
		} else {
			uint16_t a = dt == HRV_BF16 ? hrv_f_to_bf16(x) : hrv_f_to_f16(x);
			uint16_t b = dt == HRV_BF16 ? hrv_f_to_bf16(y) : hrv_f_to_f16(y);

			memcpy(r + i * 2, &a, 2);
			memcpy(c + i * 2, &b, 2);
		}
	}
	memset(&rt, 0, sizeof rt);
	rt.dtype = dt;
	rt.ndim = 2;
	rt.shape[0] = (int64_t)(n / 4096);
	rt.shape[1] = 4096;
	ct = rt;
	rt.data = r;
	ct.data = c;
	hrv_opts_default(&o, dt);
	hrv_check(&rt, &ct, &o, &res);
	for (int k = 0; k < 5; k++) {
		double t0 = now();

		hrv_check(&rt, &ct, &o, &res);
		t[k] = now() - t0;
	}
	qsort(t, 5, sizeof t[0], cmp);
	printf("cpu dtype=%s n=%llu %s: %.1f ms, %.2f GB/s (ref+cand bytes, 1 thread)\n",
	       hrv_dtype_name(dt), (unsigned long long)n,
	       failing ? "failing (2 passes)" : "passing (1 pass)", t[2] * 1e3,
	       2.0 * (double)n * es / t[2] / 1e9);
	free(r);
	free(c);
}

int main(void)
{
	/* 32 Mi elements; $HRV_BENCH_ROWS rows of 4096 instead (e.g. 256 for
	 * an instruction count under callgrind). */
	const char *rows = getenv("HRV_BENCH_ROWS");
	const uint64_t n = 4096ull * (rows && atoi(rows) > 0 ? (uint64_t)atoi(rows) : 8192);

	bench(HRV_F32, n, 0);
	bench(HRV_F32, n, 1);
	bench(HRV_BF16, n, 0);
	bench(HRV_F16, n, 0);
	return 0;
}
