/* verify_bench_gpu.cu - benchmark of the CUDA verify path against the
 * card's own copy bandwidth, measured in the same run.
 *
 * Two fp32 tensors of 1.6e9 elements (6.4 GB each).  Copy bandwidth:
 * cudaMemcpy device-to-device of 6.4 GB, counted as bytes read + written.
 * Verify bandwidth: reference + candidate bytes / time of one hrv_check
 * call (the whole API call: allocation, pass 1, tile combine, row verdicts,
 * copy-back; no second pass since the candidate passes).  Median of 5
 * after one warm-up.  Prints key=value lines.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <algorithm>
#include <chrono>

#include "../../verify/verify.h"

__global__ void fill(float *ref, float *cand, uint64_t n, float rel)
{
	for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
	     i < n; i += (uint64_t)gridDim.x * blockDim.x) {
		uint64_t h = i * 0x9E3779B97F4A7C15ull;
		h ^= h >> 29;
		h *= 0xBF58476D1CE4E5B9ull;
		h ^= h >> 32;
		float x = ((float)(uint32_t)h / 4294967296.0f - 0.5f) * 2.0f;
		ref[i] = x;
		cand[i] = x * (1.0f + rel);
	}
}

static double median(double *v, int n)
{
	std::sort(v, v + n);
	return v[n / 2];
}

static double now(void)
{
	return std::chrono::duration<double>(
		std::chrono::steady_clock::now().time_since_epoch()).count();
}

static double time_check(const struct hrv_tensor *r, const struct hrv_tensor *c,
			 const struct hrv_opts *o, struct hrv_result *res,
			 int reps)
{
	double t[16];

	hrv_check(r, c, o, res);        /* warm-up */
	for (int k = 0; k < reps; k++) {
		double t0 = now();
		int rc = hrv_check(r, c, o, res);
		t[k] = now() - t0;
		if (rc) {
			printf("error=%s\n", hrv_strerror(rc));
			exit(1);
		}
	}
	return median(t, reps);
}

int main(void)
{
	const uint64_t n = 1600000000ull, bytes = n * 4;
	const int reps = 5;
	float *ref, *cand, *dst;
	cudaEvent_t e0, e1;
	cudaDeviceProp prop;
	double tc[reps], t_copy, t_v2, t_v1, t_fail, t_bw;
	int drv = 0, rtv = 0, dev = 0, clk = 0, memclk = 0;
	struct hrv_tensor rt, ct;
	struct hrv_opts o;
	struct hrv_result res;

	cudaGetDevice(&dev);
	cudaGetDeviceProperties(&prop, dev);
	cudaDriverGetVersion(&drv);
	cudaRuntimeGetVersion(&rtv);
	cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, dev);
	cudaDeviceGetAttribute(&memclk, cudaDevAttrMemoryClockRate, dev);
	printf("device=%s sms=%d clock_khz=%d mem_clock_khz=%d driver=%d runtime=%d\n",
	       prop.name, prop.multiProcessorCount, clk, memclk, drv, rtv);
	if (cudaMalloc((void **)&ref, bytes) || cudaMalloc((void **)&cand, bytes) ||
	    cudaMalloc((void **)&dst, bytes)) {
		printf("error=cannot allocate 3 x %llu bytes\n",
		       (unsigned long long)bytes);
		return 1;
	}
	fill<<<prop.multiProcessorCount * 16, 256>>>(ref, cand, n, 1e-6f);
	cudaDeviceSynchronize();

	cudaEventCreate(&e0);
	cudaEventCreate(&e1);
	cudaMemcpy(dst, ref, bytes, cudaMemcpyDeviceToDevice);
	for (int k = 0; k < reps; k++) {
		float ms;

		cudaEventRecord(e0);
		cudaMemcpy(dst, ref, bytes, cudaMemcpyDeviceToDevice);
		cudaEventRecord(e1);
		cudaEventSynchronize(e1);
		cudaEventElapsedTime(&ms, e0, e1);
		tc[k] = ms / 1e3;
	}
	t_copy = median(tc, reps);
	cudaFree(dst);

	memset(&rt, 0, sizeof rt);
	rt.dtype = HRV_F32;
	rt.on_device = 1;
	rt.ndim = 2;
	rt.shape[0] = (int64_t)(n / 4096);
	rt.shape[1] = 4096;
	ct = rt;
	rt.data = ref;
	ct.data = cand;
	hrv_opts_default(&o, HRV_F32);
	o.have_poison = 1;
	t_v2 = time_check(&rt, &ct, &o, &res, reps);
	printf("case=2d_rows4096 pass=%d allclose=%d si=%d row=%d normwise=%.3g\n",
	       res.allclose_pass && res.scale_invariant_pass, res.allclose_pass,
	       res.si_pass, res.row_pass, res.normwise_rel_err);
	rt.ndim = ct.ndim = 1;
	rt.shape[0] = ct.shape[0] = (int64_t)n;
	t_v1 = time_check(&rt, &ct, &o, &res, reps);
	printf("case=1d pass=%d\n", res.allclose_pass && res.scale_invariant_pass);
	/* Pass 1's launch shapes (HRV_CUDA_PASS1, verify_cuda.cu): each must
	 * give the default's results byte for byte; the default is timed
	 * above, the others here. */
	{
		static const char *const shapes[] = { "2,1", "2,2", "1,1", "3,1" };
		struct hrv_result want, got;

		for (int v = 0; v < 4; v++) {
			double t2, t1;

			rt.ndim = ct.ndim = 2;
			rt.shape[0] = ct.shape[0] = (int64_t)(n / 4096);
			rt.shape[1] = ct.shape[1] = 4096;
			unsetenv("HRV_CUDA_PASS1");
			hrv_check(&rt, &ct, &o, &want);
			setenv("HRV_CUDA_PASS1", shapes[v], 1);
			t2 = time_check(&rt, &ct, &o, &got, reps);
			rt.ndim = ct.ndim = 1;
			rt.shape[0] = ct.shape[0] = (int64_t)n;
			t1 = time_check(&rt, &ct, &o, &res, reps);
			unsetenv("HRV_CUDA_PASS1");
			printf("shape=%s verify_2d_ms=%.3f verify_1d_ms=%.3f "
			       "same_results=%d ratio_2d_to_copy=%.3f\n",
			       shapes[v], t2 * 1e3, t1 * 1e3,
			       !memcmp(&want, &got, sizeof want), t_copy / t2);
		}
		printf("shape=1,2 (default) verify_2d_ms=%.3f verify_1d_ms=%.3f "
		       "ratio_2d_to_copy=%.3f\n", t_v2 * 1e3, t_v1 * 1e3,
		       t_copy / t_v2);
	}
	/* a bit-identical candidate (common in replays) */
	{
		double t_same;

		rt.ndim = ct.ndim = 2;
		rt.shape[0] = ct.shape[0] = (int64_t)(n / 4096);
		rt.shape[1] = ct.shape[1] = 4096;
		ct.data = ref;
		t_same = time_check(&rt, &ct, &o, &res, reps);
		ct.data = cand;
		printf("case=2d_identical pass=%d verify_ms=%.3f GBps=%.1f\n",
		       res.allclose_pass && res.scale_invariant_pass,
		       t_same * 1e3, 2.0 * bytes / t_same / 1e9);
	}
	{
		struct hrv_bitwise_result bw;
		double tb[reps];

		hrv_bitwise(&rt, &ct, &bw);
		for (int k = 0; k < reps; k++) {
			double t0 = now();
			hrv_bitwise(&rt, &ct, &bw);
			tb[k] = now() - t0;
		}
		t_bw = median(tb, reps);
		printf("case=bitwise identical=%d n_diff=%llu\n", bw.identical,
		       (unsigned long long)bw.n_diff);
	}
	/* a failing candidate: the second pass runs */
	fill<<<prop.multiProcessorCount * 16, 256>>>(ref, cand, n, 1e-2f);
	cudaDeviceSynchronize();
	rt.ndim = ct.ndim = 2;
	rt.shape[0] = ct.shape[0] = (int64_t)(n / 4096);
	rt.shape[1] = ct.shape[1] = 4096;
	t_fail = time_check(&rt, &ct, &o, &res, reps);
	printf("case=2d_failing pass=%d violations=%llu si_violations=%llu\n",
	       res.allclose_pass && res.scale_invariant_pass,
	       (unsigned long long)res.n_violations,
	       (unsigned long long)res.si_violations);

	double bw_copy = 2.0 * bytes / t_copy;
	printf("copy_d2d_bytes=%llu copy_ms=%.3f copy_GBps=%.1f\n",
	       (unsigned long long)bytes, t_copy * 1e3, bw_copy / 1e9);
	printf("verify_2d_ms=%.3f verify_2d_GBps=%.1f ratio_to_copy=%.3f\n",
	       t_v2 * 1e3, 2.0 * bytes / t_v2 / 1e9, 2.0 * bytes / t_v2 / bw_copy);
	printf("verify_1d_ms=%.3f verify_1d_GBps=%.1f ratio_to_copy=%.3f\n",
	       t_v1 * 1e3, 2.0 * bytes / t_v1 / 1e9, 2.0 * bytes / t_v1 / bw_copy);
	printf("verify_2d_failing_ms=%.3f (two passes) GBps=%.1f\n",
	       t_fail * 1e3, 2.0 * bytes / t_fail / 1e9);
	printf("bitwise_ms=%.3f GBps=%.1f ratio_to_copy=%.3f\n", t_bw * 1e3,
	       2.0 * bytes / t_bw / 1e9, 2.0 * bytes / t_bw / bw_copy);
	printf("target: verify_2d ratio_to_copy >= 0.70: %s\n",
	       2.0 * bytes / t_v2 / bw_copy >= 0.70 ? "met" : "NOT met");
	cudaFree(ref);
	cudaFree(cand);
	return 0;
}
