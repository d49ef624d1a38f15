/* test_trace.c - the trace readers' sums: per-name totals, busy time as
 * the union across streams, exact microsecond decimals, gzip members,
 * and what a trace says about itself.  Inputs are written by each test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "../../profile/trace.h"

static char path[64];

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof(path), "/tmp/hr-trace-%d.json", getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void write_file(const char *text)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, strlen(text), f), strlen(text));
	assert_int_equal(fclose(f), 0);
}

static const struct trace_name *find(const struct trace *t, const char *name)
{
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i] && !strcmp(t->slots[i]->name, name))
			return t->slots[i];
	return NULL;
}

static void busy_is_the_union_across_streams(void **state)
{
	struct trace t;

	(void)state;
	trace_init(&t);
	/* [0,100) and [50,150) overlap on two streams; [200,210) apart;
	 * [150,200) touches both neighbours. */
	assert_int_equal(trace_add(&t, TRACE_KERNEL, "a", 1, 0, 0, 100), 0);
	assert_int_equal(trace_add(&t, TRACE_KERNEL, "b", 1, 0, 50, 100), 0);
	assert_int_equal(trace_add(&t, TRACE_KERNEL, "a", 1, 0, 300, 10), 0);
	assert_int_equal(trace_add(&t, TRACE_MEMCPY, "a", 1, 0, 150, 50), 0);
	assert_int_equal(t.kernel_ns, 260);
	assert_int_equal(trace_busy_ns(&t), 210);
	/* Same name, other kind: two entries. */
	assert_int_equal(t.nnames, 3);
	trace_release(&t);
}

static void busy_sums_the_devices_unions(void **state)
{
	struct trace t;

	(void)state;
	trace_init(&t);
	/* Device 0: [0,100) and [50,150) on two streams, union 150; device 1
	 * busy over the same [0,100) at once, and [400,420): 120.  One union
	 * across devices would say 170. */
	assert_int_equal(trace_add(&t, TRACE_KERNEL, "a", 1, 0, 0, 100), 0);
	assert_int_equal(trace_add(&t, TRACE_KERNEL, "a", 1, 1, 0, 100), 0);
	assert_int_equal(trace_add(&t, TRACE_KERNEL, "b", 1, 0, 50, 100), 0);
	assert_int_equal(trace_add(&t, TRACE_KERNEL, "b", 1, 1, 400, 20), 0);
	assert_int_equal(trace_busy_ns(&t), 270);
	trace_release(&t);
}

static void device_keys_of_strings(void **state)
{
	(void)state;
	assert_int_equal(trace_device_key("3", 1), 3);
	assert_int_equal(trace_device_key("12", 2), 12);
	/* Not a number: a hash kept apart from small numbers, the same for
	 * the same string. */
	assert_true(trace_device_key("GPU 1", 5) >= (1LL << 62));
	assert_int_equal(trace_device_key("GPU 1", 5),
			 trace_device_key("GPU 1", 5));
	assert_true(trace_device_key("GPU 1", 5) !=
		    trace_device_key("GPU 2", 5));
	assert_true(trace_device_key("", 0) >= (1LL << 62));
}

static void many_intervals_merge_without_changing_the_union(void **state)
{
	struct trace t;

	(void)state;
	trace_init(&t);
	/* 200 000 kernels, each overlapping the next by half: the union is
	 * one interval, whatever compaction happened on the way. */
	for (int i = 0; i < 200000; i++)
		assert_int_equal(trace_add(&t, TRACE_KERNEL, "k", 1, 0,
					   (int64_t)i * 10, 20), 0);
	assert_int_equal(trace_busy_ns(&t), 199999LL * 10 + 20);
	assert_int_equal(t.kernel_ns, 200000LL * 20);
	trace_release(&t);
}

static void kernel_time_sum_overflow_is_refused(void **state)
{
	const int64_t hour = 3600LL * 1000000000LL;
	struct trace t;
	int64_t i = 0;
	int rc = 0;

	(void)state;
	trace_init(&t);
	/* One-hour kernels, all at the same start (one interval): INT64_MAX
	 * ns hold 2 562 047 of them; the next is refused, the sums kept. */
	while (i < 2600000 &&
	       !(rc = trace_add(&t, TRACE_KERNEL, "k", 1, 0, 0, hour)))
		i++;
	assert_int_equal(rc, TRACE_ADD_OVERFLOW);
	assert_int_equal(i, INT64_MAX / hour);
	assert_int_equal(t.kernel_ns, i * hour);
	assert_int_equal(t.activities, i);
	trace_release(&t);
}

static void names_with_nul_or_bad_utf8_are_refused(void **state)
{
	struct trace t;

	(void)state;
	trace_init(&t);
	assert_int_equal(trace_add(&t, TRACE_KERNEL, "a\0b", 3, 0, 0, 1),
			 TRACE_ADD_NUL);
	assert_int_equal(trace_add(&t, TRACE_KERNEL, "k\x80", 2, 0, 0, 1),
			 TRACE_ADD_UTF8);
	assert_int_equal(t.activities, 0);
	trace_release(&t);
}

static void chrome_reads_exact_us_decimals_and_sums_names(void **state)
{
	struct trace t;
	struct hr_err e;
	const struct trace_name *k;

	(void)state;
	write_file("{\"headroom_workload\": \"w\", \"headroom_stack\": \"compile\","
		   " \"deviceProperties\": [{\"id\": 0, \"name\": \"G0\"},"
		   " {\"id\": 1, \"name\": \"G1\"}],"
		   " \"traceEvents\": ["
		   "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
		   " \"ts\": 1698957821285957.001, \"dur\": 0.0015},"
		   "{\"ph\": \"X\", \"cat\": \"KERNEL\", \"name\": \"k\","
		   " \"args\": {\"grid\": [1, 2, 3]}, \"dur\": 2, \"ts\": 3},"
		   "{\"ph\": \"i\", \"cat\": \"kernel\", \"name\": \"k\","
		   " \"ts\": 3},"
		   "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"c\","
		   " \"ts\": 3, \"dur\": 1e1}]}");
	trace_init(&t);
	hr_err_clear(&e);
	assert_int_equal(trace_read_chrome(path, &t, &e), HR_OK);
	k = find(&t, "k");
	assert_non_null(k);
	assert_int_equal(k->calls, 2);
	/* 0.0015 us rounds to 2 ns; 2 us is 2000 ns. */
	assert_int_equal(k->total_ns, 2002);
	assert_int_equal(t.first_ns, 3000);
	assert_int_equal(t.last_ns, 1698957821285957001LL + 2);
	assert_int_equal(t.skipped_cpu, 2);
	assert_string_equal(t.workload, "w");
	assert_string_equal(t.stack, "compile");
	assert_null(t.domain);
	assert_string_equal(t.device, "G0");
	assert_int_equal(strlen(t.sha256), 64);
	trace_release(&t);
}

static void chrome_busy_per_device_from_pid(void **state)
{
	struct trace t;
	struct hr_err e;

	(void)state;
	/* Kineto writes a GPU event's device as its pid (an int; some tools
	 * a string) and its stream as tid: two devices busy over the same
	 * 10 us count 20 us, two streams of one device 10 us. */
	write_file("[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
		   " \"pid\": 0, \"tid\": 7, \"ts\": 0, \"dur\": 10},"
		   "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
		   " \"pid\": 0, \"tid\": 8, \"ts\": 0, \"dur\": 10},"
		   "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
		   " \"pid\": 1, \"tid\": 7, \"ts\": 0, \"dur\": 10},"
		   "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\","
		   " \"pid\": \"GPU 2\", \"tid\": \"stream 7\", \"ts\": 5,"
		   " \"dur\": 10}]");
	trace_init(&t);
	hr_err_clear(&e);
	assert_int_equal(trace_read_chrome(path, &t, &e), HR_OK);
	assert_int_equal(t.kernel_ns, 40000);
	assert_int_equal(trace_busy_ns(&t), 30000);
	trace_release(&t);
}

static void chrome_reads_concatenated_gzip_members(void **state)
{
	static const char *const part[] = {
		"[{\"ph\": \"X\", \"cat\": \"Memset\", \"name\": \"m\",",
		" \"ts\": 1, \"dur\": 4}]",
	};
	struct trace t;
	struct hr_err e;

	(void)state;
	/* gzip allows several members in one file; zlib's gzopen writes
	 * one per gzopen/gzclose. */
	for (int i = 0; i < 2; i++) {
		gzFile g = gzopen(path, i ? "ab" : "wb");

		assert_non_null(g);
		assert_true(gzputs(g, part[i]) > 0);
		assert_int_equal(gzclose(g), Z_OK);
	}
	trace_init(&t);
	hr_err_clear(&e);
	assert_int_equal(trace_read_chrome(path, &t, &e), HR_OK);
	assert_int_equal(t.activities, 1);
	assert_int_equal(t.kernel_ns, 4000);
	trace_release(&t);
}

static void chrome_without_trace_events_is_refused(void **state)
{
	struct trace t;
	struct hr_err e;

	(void)state;
	write_file("{\"schemaVersion\": 1, \"events\": []}");
	trace_init(&t);
	hr_err_clear(&e);
	assert_int_equal(trace_read_chrome(path, &t, &e), HR_INPUT);
	assert_non_null(strstr(e.msg, "no \"traceEvents\" array"));
	trace_release(&t);
}

static void sniff_tells_traces_from_other_json(void **state)
{
	(void)state;
	write_file("{\"schemaVersion\": 1, \"traceEvents\": []}");
	assert_int_equal(trace_sniff(path), TRACE_CHROME);
	write_file("  [ {\"ph\": \"X\"} ]");
	assert_int_equal(trace_sniff(path), TRACE_CHROME);
	write_file("{\"1\": {\"compiled\": true}}");
	assert_int_equal(trace_sniff(path), TRACE_NONE);
	write_file("[{\"model\": \"m\", \"speedup\": 2}]");
	assert_int_equal(trace_sniff(path), TRACE_NONE);
	write_file("SQLite format 3");
	/* 15 bytes: the magic is 16 with its NUL. */
	assert_int_equal(trace_sniff(path), TRACE_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(busy_is_the_union_across_streams),
		cmocka_unit_test(busy_sums_the_devices_unions),
		cmocka_unit_test(device_keys_of_strings),
		cmocka_unit_test(
			many_intervals_merge_without_changing_the_union),
		cmocka_unit_test(kernel_time_sum_overflow_is_refused),
		cmocka_unit_test(names_with_nul_or_bad_utf8_are_refused),
		cmocka_unit_test_setup_teardown(
			chrome_reads_exact_us_decimals_and_sums_names, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			chrome_busy_per_device_from_pid, setup, teardown),
		cmocka_unit_test_setup_teardown(
			chrome_reads_concatenated_gzip_members, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			chrome_without_trace_events_is_refused, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			sniff_tells_traces_from_other_json, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
