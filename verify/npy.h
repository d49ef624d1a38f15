/* npy.h - NumPy .npy files (format versions 1.0, 2.0, 3.0) for the verify
 * command: read into a struct hrv_tensor, write from one.
 *
 * Owns: the file format and its checks (magic, version, header size and
 * syntax, dtype, byte order, fortran_order, shape, exact data length).
 * Must not: interpret the numbers.
 *
 * Dtypes: '<f4' fp32, '<f2' fp16, '<i4' int32, '<i8' int64, '|b1' bool,
 * and '<u2', which headroom reads and writes as bfloat16 bit patterns
 * (NumPy has no bfloat16; write one with
 * `t.view(torch.uint16).numpy()` or `t.view(torch.int16).numpy().view('<u2')`).
 * '=' is accepted as '<' (little-endian hosts only); '>' is rejected.
 */
#ifndef HRV_NPY_H
#define HRV_NPY_H

#include "../dataset/base/err.h"
#include "verify.h"

/* Largest header accepted, in bytes: NumPy's own default max_header_size
 * (np.load refuses longer ones without allow_pickle). */
#define NPY_MAX_HEADER 10000

struct npy_array {
	struct hrv_tensor t;     /* t.data points into data */
	void *data;              /* owned; free with npy_release */
};

/* Read path into *out.  On error fills e (HR_INPUT for a malformed file,
 * naming the file and what is wrong; HR_SYSTEM for an I/O failure) and
 * leaves *out empty. */
int npy_read(const char *path, struct npy_array *out, struct hr_err *e);

/* Write t (host memory) to path; bf16 is written as '<u2'. */
int npy_write(const char *path, const struct hrv_tensor *t,
	      struct hr_err *e);

void npy_release(struct npy_array *a);

#endif
