/* verify.h - the verify library's public C ABI: every numerical check on one
 * (reference, candidate) pair, on host arrays or CUDA device pointers.
 *
 * Owns: the ABI that headroom, build/libhrverify.so (host only, gcc) and
 * build/libhrverify_cuda.so (nvcc) all export, and that the Python replay
 * worker calls through ctypes.  Every struct is made of fixed-width fields,
 * 8-byte fields first, so a ctypes.Structure mirrors it field by field; the
 * worker checks hrv_abi_version() and hrv_sizeof_result() before use.
 * Must not: do I/O, print, or keep state between calls.  The rules
 * themselves live in rules.h, shared by the CPU and the CUDA build.
 *
 * Pointers: every pointer argument is borrowed for the call only; the
 * library never frees or keeps what it is given.  Device tensors are read
 * on the current CUDA device, on the default stream; the call returns after
 * the device work is done.  See docs/verification.md for the rules.
 */
#ifndef HRV_VERIFY_H
#define HRV_VERIFY_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HRV_ABI_VERSION 1
#define HRV_MAX_DIMS 8

/* Element types.  HRV_BF16 is stored as its 16 raw bits (the .npy '<u2'
 * convention, see npy.h). */
enum hrv_dtype {
	HRV_F32 = 0,
	HRV_F16 = 1,
	HRV_BF16 = 2,
	HRV_I32 = 3,
	HRV_I64 = 4,
	HRV_BOOL = 5,
	HRV_NDTYPES
};

/* Return codes of the library (not process exit codes). */
enum hrv_status {
	HRV_OK = 0,
	HRV_EINVAL = 1,   /* bad argument: dtype, ndim, negative tolerance */
	HRV_EDTYPE = 2,   /* reference and candidate dtypes differ */
	HRV_ENODEV = 3,   /* device pointer given to a build without CUDA */
	HRV_ENOMEM = 4,   /* host or device allocation failed */
	HRV_ECUDA = 5,    /* a CUDA call failed */
	HRV_ESHAPE = 6    /* shapes differ (KernelBench: not correct) */
};

/* A tensor: C-contiguous, shape[0..ndim-1]; ndim 0 is a scalar. */
struct hrv_tensor {
	const void *data;        /* borrowed; host or device address */
	int64_t shape[HRV_MAX_DIMS];
	int32_t dtype;           /* enum hrv_dtype */
	int32_t ndim;            /* 0..HRV_MAX_DIMS */
	int32_t on_device;       /* 0: host memory, 1: CUDA device memory */
	int32_t pad_;            /* zero */
};

/* Options.  Fill with hrv_opts_default() or hrv_opts_preset(), then adjust.
 * atol/rtol: the original check, torch.allclose(ref, cand, atol, rtol).
 * si_*: the scale-invariant checks (defaults per dtype, docs/verification.md)
 *   normwise:   ||cand-ref||_2 / ||ref||_2 <= si_tau
 *   elementwise |cand-ref| - si_rtol*|ref| <= si_alpha * RMS(ref)
 *   per row:    |cand-ref| - si_rtol*|ref| <= si_row_alpha * amax(|ref row|)
 * poison_bits: raw bits of the NaN payload memory was filled with before the
 *   candidate ran (coverage); counted only when have_poison is 1.
 * torch_cpu: 0 (default) follows torch.allclose on CUDA tensors, where
 *   atol enters `atol + |rtol*cand|` as a float; 1 follows PyTorch's CPU
 *   kernels, which first round atol to fp16/bf16 (measured on torch 2.11:
 *   the two differ on fp16/bf16 pairs at the tolerance boundary; fp32,
 *   integers and bool are unaffected). */
struct hrv_opts {
	double atol, rtol;
	double si_rtol, si_alpha, si_row_alpha, si_tau;
	uint64_t poison_bits;
	int32_t equal_nan;       /* torch.allclose(equal_nan=) */
	int32_t have_poison;
	int32_t torch_cpu;       /* 1: PyTorch CPU rounding of atol */
	int32_t pad_;            /* zero */
};

/* Everything one check computes.  Indices are flat C-order element
 * indices, -1 when there is none.  Maxima are over pairs where both values
 * are finite; sums use fp64 in one fixed order (identical on CPU and GPU). */
struct hrv_result {
	/* sizes */
	uint64_t n;                  /* elements */
	uint64_t row_len, n_rows;    /* last dimension; rows */
	/* original check: torch.allclose(ref, cand, atol, rtol) */
	uint64_t n_violations;       /* elements isclose() calls not close */
	int64_t first_violation;
	double max_abs_err;          /* max |cand-ref| (fp64) */
	double max_rel_err;          /* max |cand-ref|/|ref| over ref != 0 */
	/* non-finite values */
	uint64_t n_nan_ref, n_nan_cand, n_inf_ref, n_inf_cand;
	uint64_t n_nonfinite_mismatch; /* not (both finite, both NaN, same inf) */
	int64_t first_nonfinite_mismatch;
	/* scale-invariant checks */
	double ref_rms;              /* RMS of the finite reference values */
	double normwise_rel_err;     /* 0/0 -> 0, x/0 -> +inf */
	double si_threshold;         /* si_alpha * ref_rms */
	double si_max_excess;        /* max(0, |d| - si_rtol*|ref|) */
	uint64_t si_violations;      /* elements with excess > si_threshold */
	int64_t si_first_violation;
	uint64_t row_violations;     /* elements failing their row's bound */
	int64_t row_first_violation;
	uint64_t rows_failed;
	/* reference statistics and degeneracy gates */
	double ref_amax, ref_min, ref_max, ref_mean; /* finite values */
	double const_value;          /* the mean rounded to the dtype */
	double margin;               /* ref_amax / atol (inf when atol 0) */
	/* coverage */
	uint64_t n_poison;           /* candidate elements still == poison */
	double poison_fraction;      /* n_poison / n (0 when n 0) */
	/* verdicts: 1 pass, 0 fail */
	int32_t allclose_pass;       /* the original check */
	int32_t nonfinite_pass;      /* non-finite masks equal */
	int32_t normwise_pass;
	int32_t si_pass;             /* elementwise, alpha * RMS(ref) */
	int32_t row_pass;            /* elementwise, per-row amax */
	int32_t scale_invariant_pass; /* all four above */
	int32_t gate_zero_pass;      /* zeros pass the original check */
	int32_t gate_const_pass;     /* const_value everywhere passes it */
	int32_t vacuous;             /* gate_zero_pass || gate_const_pass */
	int32_t dtype;
};

/* Bitwise comparison of two candidates (determinism). */
struct hrv_bitwise_result {
	uint64_t n;
	uint64_t n_diff;             /* elements whose bits differ */
	int64_t first_diff;          /* -1 when identical */
	int32_t identical;
	int32_t pad_;
};

int hrv_abi_version(void);
uint64_t hrv_sizeof_tensor(void);
uint64_t hrv_sizeof_opts(void);
uint64_t hrv_sizeof_result(void);
/* 1 when this build can read device pointers. */
int hrv_has_cuda(void);

/* Element size in bytes, 0 for an unknown dtype; dtype names "fp32",
 * "fp16", "bf16", "int32", "int64", "bool"; hrv_dtype_parse returns -1
 * for an unknown name. */
int hrv_dtype_size(int dtype);
const char *hrv_dtype_name(int dtype);
int hrv_dtype_parse(const char *name);
/* Message for an enum hrv_status value. */
const char *hrv_strerror(int status);

/* Default options for a dtype: the "current" KernelBench tolerances and the
 * scale-invariant defaults. */
void hrv_opts_default(struct hrv_opts *o, int dtype);
/* Tolerance presets by KernelBench version: "v0", "v0.1" (fp32 1e-2),
 * "current" (fp32 1e-4, fp16/bf16 1e-2; integers and bool use fp32's).
 * Sets atol = rtol and leaves the rest as hrv_opts_default.  Returns
 * HRV_EINVAL for an unknown name. */
int hrv_opts_preset(struct hrv_opts *o, const char *name, int dtype);
/* Default poison payload for a dtype: the 32-bit word 0x7FA57FA5 cut or
 * repeated to the element size (a NaN in fp32, fp16 and bf16). */
uint64_t hrv_poison_bits(int dtype);

/* Number of elements, or -1 for a bad shape (negative dim, ndim out of
 * range, overflow). */
int64_t hrv_numel(const struct hrv_tensor *t);

/* Every check on (ref, cand).  Shapes must match exactly (the caller turns
 * a mismatch into a failed verdict; torch's broadcasting is not followed,
 * KernelBench checks shapes first).  Returns HRV_OK and fills *out, or an
 * error (HRV_EDTYPE when dtypes differ, as torch.allclose raises). */
int hrv_check(const struct hrv_tensor *ref, const struct hrv_tensor *cand,
	      const struct hrv_opts *opts, struct hrv_result *out);

/* 1 when the shapes are identical, else 0. */
int hrv_same_shape(const struct hrv_tensor *a, const struct hrv_tensor *b);

/* Bitwise comparison of two tensors of one dtype and shape. */
int hrv_bitwise(const struct hrv_tensor *a, const struct hrv_tensor *b,
		struct hrv_bitwise_result *out);

#ifdef __cplusplus
}
#endif
#endif
