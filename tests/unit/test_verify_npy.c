/* test_verify_npy.c - .npy read/write: round trip of every dtype, and each
 * malformed file rejected with HR_INPUT and a message naming the file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "../../verify/npy.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/hrv-npy-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	return system(cmd);
}

static const char *path(const char *name)
{
	static char p[160];

	snprintf(p, sizeof p, "%s/%s", dir, name);
	return p;
}

static void write_raw(const char *name, const void *data, size_t n)
{
	FILE *f = fopen(path(name), "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, n, f), n);
	fclose(f);
}

/* A v1.0 file with the given dictionary (padded) and data bytes. */
static void write_npy(const char *name, const char *dict, const void *data,
		      size_t n)
{
	unsigned char buf[512];
	size_t len = strlen(dict), total;

	memcpy(buf, "\x93NUMPY\x01\x00", 8);
	memcpy(buf + 10, dict, len);
	total = 10 + len + 1;
	while (total % 64) {
		buf[10 + len++] = ' ';
		total++;
	}
	buf[10 + len++] = '\n';
	buf[8] = (unsigned char)(len & 0xff);
	buf[9] = (unsigned char)(len >> 8);
	if (n)
		memcpy(buf + 10 + len, data, n);
	write_raw(name, buf, 10 + len + n);
}

static void expect_bad(const char *name, const char *fragment)
{
	struct npy_array a;
	struct hr_err e;

	hr_err_clear(&e);
	assert_int_equal(npy_read(path(name), &a, &e), HR_INPUT);
	assert_non_null(strstr(e.msg, path(name)));
	if (!strstr(e.msg, fragment))
		fail_msg("message '%s' lacks '%s'", e.msg, fragment);
	assert_null(a.data);
}

static void test_round_trip_every_dtype(void **state)
{
	unsigned char data[48];
	struct hrv_tensor t;
	struct npy_array a;
	struct hr_err e;

	(void)state;
	for (int i = 0; i < 48; i++)
		data[i] = (unsigned char)(i * 37 + 1);
	for (int dt = 0; dt < HRV_NDTYPES; dt++) {
		memset(&t, 0, sizeof t);
		t.dtype = dt;
		t.ndim = 2;
		t.shape[0] = 2;
		t.shape[1] = 3;
		t.data = data;
		hr_err_clear(&e);
		assert_int_equal(npy_write(path("rt.npy"), &t, &e), HR_OK);
		assert_int_equal(npy_read(path("rt.npy"), &a, &e), HR_OK);
		assert_int_equal(a.t.dtype, dt);
		assert_int_equal(a.t.ndim, 2);
		assert_int_equal(a.t.shape[1], 3);
		assert_memory_equal(a.data, data, 6 * hrv_dtype_size(dt));
		npy_release(&a);
	}
}

static void test_scalar_and_empty(void **state)
{
	float x = 2.5f;
	struct npy_array a;
	struct hr_err e;

	(void)state;
	hr_err_clear(&e);
	write_npy("s.npy", "{'descr': '<f4', 'fortran_order': False, "
		  "'shape': (), }", &x, 4);
	assert_int_equal(npy_read(path("s.npy"), &a, &e), HR_OK);
	assert_int_equal(a.t.ndim, 0);
	assert_true(*(float *)a.data == 2.5f);
	npy_release(&a);
	write_npy("e.npy", "{'descr': '<f2', 'fortran_order': False, "
		  "'shape': (0, 4), }", NULL, 0);
	assert_int_equal(npy_read(path("e.npy"), &a, &e), HR_OK);
	assert_int_equal(hrv_numel(&a.t), 0);
	npy_release(&a);
}

static void test_u2_is_bf16(void **state)
{
	uint16_t one = 0x3f80;
	struct npy_array a;
	struct hr_err e;

	(void)state;
	hr_err_clear(&e);
	write_npy("b.npy", "{'descr': '<u2', 'fortran_order': False, "
		  "'shape': (1,), }", &one, 2);
	assert_int_equal(npy_read(path("b.npy"), &a, &e), HR_OK);
	assert_int_equal(a.t.dtype, HRV_BF16);
	npy_release(&a);
}

static void test_bad_files(void **state)
{
	float d[6] = { 0 };
	char huge[12000];

	(void)state;
	write_raw("magic.npy", "\x93NUMPZ\x01\x00\x00\x00", 10);
	expect_bad("magic.npy", "bad magic");
	write_raw("short.npy", "\x93NU", 3);
	expect_bad("short.npy", "bad magic");
	write_raw("ver.npy", "\x93NUMPY\x09\x00\x00\x00", 10);
	expect_bad("ver.npy", "version 9.0");
	write_raw("hdr.npy", "\x93NUMPY\x01\x00\x40\x00{'descr'", 18);
	expect_bad("hdr.npy", "truncated .npy header");
	write_npy("trunc.npy", "{'descr': '<f4', 'fortran_order': False, "
		  "'shape': (2, 3), }", d, 20);
	expect_bad("trunc.npy", "truncated");
	write_npy("trail.npy", "{'descr': '<f4', 'fortran_order': False, "
		  "'shape': (2, 2), }", d, 20);
	expect_bad("trail.npy", "bytes after the data");
	write_npy("fort.npy", "{'descr': '<f4', 'fortran_order': True, "
		  "'shape': (2, 3), }", d, 24);
	expect_bad("fort.npy", "fortran_order");
	write_npy("be.npy", "{'descr': '>f4', 'fortran_order': False, "
		  "'shape': (2, 3), }", d, 24);
	expect_bad("be.npy", "big-endian");
	write_npy("f8.npy", "{'descr': '<f8', 'fortran_order': False, "
		  "'shape': (3,), }", d, 24);
	expect_bad("f8.npy", "unsupported dtype '<f8'");
	write_npy("syn.npy", "{'descr': '<f4', 'fortran_order': False, "
		  "'shape': (2, x), }", d, 24);
	expect_bad("syn.npy", "malformed");
	write_npy("key.npy", "{'descr': '<f4', 'fortran_order': False, "
		  "'shape': (6,), 'extra': 1}", d, 24);
	expect_bad("key.npy", "unknown key");
	write_npy("miss.npy", "{'descr': '<f4', 'shape': (6,), }", d, 24);
	expect_bad("miss.npy", "missing");
	write_npy("dims.npy", "{'descr': '<f4', 'fortran_order': False, "
		  "'shape': (1,1,1,1,1,1,1,1,1), }", d, 4);
	expect_bad("dims.npy", "dimensions");
	write_npy("big.npy", "{'descr': '<f4', 'fortran_order': False, "
		  "'shape': (99999999999, 99999999999), }", d, 4);
	expect_bad("big.npy", "too large");
	/* a v2 header longer than NumPy's default limit of 10000 bytes */
	memcpy(huge, "\x93NUMPY\x02\x00", 8);
	huge[8] = (char)0x11;   /* 10001 */
	huge[9] = (char)0x27;
	huge[10] = 0;
	huge[11] = 0;
	memset(huge + 12, ' ', sizeof huge - 12);
	write_raw("huge.npy", huge, sizeof huge);
	expect_bad("huge.npy", "larger than the limit");
	(void)d;
}

static void test_missing_file(void **state)
{
	struct npy_array a;
	struct hr_err e;

	(void)state;
	hr_err_clear(&e);
	assert_int_equal(npy_read(path("none.npy"), &a, &e), HR_INPUT);
	assert_non_null(strstr(e.msg, "none.npy: cannot open"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_every_dtype),
		cmocka_unit_test(test_scalar_and_empty),
		cmocka_unit_test(test_u2_is_bf16),
		cmocka_unit_test(test_bad_files),
		cmocka_unit_test(test_missing_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
