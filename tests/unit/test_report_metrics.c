/* test_report_metrics.c - readmodel/metrics.h: median, geometric mean,
 * KernelBench's fast_p, the Amdahl projection, claim status. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../readmodel/metrics.h"

static void median_of_odd_count_is_middle_value(void **state)
{
	double v[] = { 3.0, 1.0, 2.0 };

	assert_float_equal(metric_median(v, 3), 2.0, 0.0);
}

static void median_of_even_count_is_mean_of_middle_two(void **state)
{
	double v[] = { 4.0, 1.0, 3.0, 2.0 };

	assert_float_equal(metric_median(v, 4), 2.5, 0.0);
}

static void median_of_nothing_is_nan(void **state)
{
	assert_true(isnan(metric_median(NULL, 0)));
}

static void geomean_of_two_and_eight_is_four(void **state)
{
	double v[] = { 2.0, 8.0 };

	assert_float_equal(metric_geomean(v, 2), 4.0, 1e-12);
}

static void geomean_of_nothing_is_zero_as_in_kernelbench(void **state)
{
	assert_float_equal(metric_geomean(NULL, 0), 0.0, 0.0);
}

static void fast_1_counts_correct_and_strictly_faster(void **state)
{
	int ok[] = { 1, 1, 1, 0, 1 };
	double sp[] = { 2.0, 1.0, 0.5, 3.0, NAN };

	/* 1.0 is not > 1; the incorrect 3x does not count. */
	assert_int_equal(metric_fast_p_count(ok, sp, 5, 1.0), 1);
}

static void fast_0_counts_correct_even_without_timing(void **state)
{
	int ok[] = { 1, 0, 1 };
	double sp[] = { NAN, 5.0, 0.1 };

	assert_int_equal(metric_fast_p_count(ok, sp, 3, 0.0), 2);
}

static void amdahl_reproduces_the_papers_8_63_percent(void **state)
{
	double r = metric_amdahl_reduction(0.582, 0.417, 1.552);
	char buf[16];

	snprintf(buf, sizeof(buf), "%.2f", 100.0 * r);
	assert_string_equal(buf, "8.63");
}

static void amdahl_without_speedup_saves_nothing(void **state)
{
	assert_float_equal(metric_amdahl_reduction(0.582, 0.417, 1.0), 0.0,
			   0.0);
}

static void compare_within_tolerance_is_reproduced(void **state)
{
	struct metric_range stated = { 91.1, 91.1 }, got = { 91.14, 91.14 };

	assert_int_equal(metric_compare(stated, 0.05, got), CLAIM_REPRODUCED);
}

static void compare_outside_tolerance_differs(void **state)
{
	struct metric_range stated = { 91.1, 91.1 }, got = { 91.16, 91.16 };

	assert_int_equal(metric_compare(stated, 0.05, got), CLAIM_DIFFERS);
}

static void compare_exactly_at_tolerance_edge_is_reproduced(void **state)
{
	/* 8.625 printed to two decimals is the stated 8.63 (half-unit). */
	struct metric_range stated = { 8.63, 8.63 }, got = { 8.625, 8.625 };

	assert_int_equal(metric_compare(stated, 0.005, got), CLAIM_REPRODUCED);
}

static void compare_ranges_needs_both_ends(void **state)
{
	struct metric_range stated = { 80, 86 }, got = { 80, 90 };

	assert_int_equal(metric_compare(stated, 0.5, got), CLAIM_DIFFERS);
}

static void compare_missing_value_is_not_available(void **state)
{
	struct metric_range stated = { 4, 4 }, got = { NAN, NAN };

	assert_int_equal(metric_compare(stated, 0, got), CLAIM_NOT_AVAILABLE);
	assert_string_equal(metric_status_name(CLAIM_NOT_AVAILABLE),
			    "not available");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(median_of_odd_count_is_middle_value),
		cmocka_unit_test(median_of_even_count_is_mean_of_middle_two),
		cmocka_unit_test(median_of_nothing_is_nan),
		cmocka_unit_test(geomean_of_two_and_eight_is_four),
		cmocka_unit_test(geomean_of_nothing_is_zero_as_in_kernelbench),
		cmocka_unit_test(fast_1_counts_correct_and_strictly_faster),
		cmocka_unit_test(fast_0_counts_correct_even_without_timing),
		cmocka_unit_test(amdahl_reproduces_the_papers_8_63_percent),
		cmocka_unit_test(amdahl_without_speedup_saves_nothing),
		cmocka_unit_test(compare_within_tolerance_is_reproduced),
		cmocka_unit_test(compare_outside_tolerance_differs),
		cmocka_unit_test(compare_exactly_at_tolerance_edge_is_reproduced),
		cmocka_unit_test(compare_ranges_needs_both_ends),
		cmocka_unit_test(compare_missing_value_is_not_available),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
