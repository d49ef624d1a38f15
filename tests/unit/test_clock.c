/* test_clock.c - clock.h: SOURCE_DATE_EPOCH is the one fixed clock, taken
 * only when it is a whole number of seconds >= 0. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../dataset/base/clock.h"

static void epoch_is_taken_when_a_whole_number(void **state)
{
	time_t t = 7;
	char buf[32];

	(void)state;
	setenv("SOURCE_DATE_EPOCH", "1767225600", 1);
	assert_int_equal(clock_epoch(&t), 1);
	assert_int_equal((long long)t, 1767225600LL);
	clock_utc_now(buf, sizeof(buf));
	assert_string_equal(buf, "2026-01-01T00:00:00Z");
	setenv("SOURCE_DATE_EPOCH", "0", 1);
	assert_int_equal(clock_epoch(&t), 1);
	assert_int_equal((long long)t, 0);
}

static void epoch_is_refused_unless_a_whole_number(void **state)
{
	static const char *const bad[] = {
		"", "-1", "+5", " 5", "5s", "1.5", "abc",
		"99999999999999999999999",
	};
	time_t t = 7;

	(void)state;
	unsetenv("SOURCE_DATE_EPOCH");
	assert_int_equal(clock_epoch(&t), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		setenv("SOURCE_DATE_EPOCH", bad[i], 1);
		assert_int_equal(clock_epoch(&t), 0);
		assert_int_equal((long long)t, 7);
	}
}

static void utc_is_iso_8601(void **state)
{
	char buf[32];

	(void)state;
	clock_utc(86400 + 3661, buf, sizeof(buf));
	assert_string_equal(buf, "1970-01-02T01:01:01Z");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(epoch_is_taken_when_a_whole_number),
		cmocka_unit_test(epoch_is_refused_unless_a_whole_number),
		cmocka_unit_test(utc_is_iso_8601),
	};
	return cmocka_run_group_tests_name("clock", tests, NULL, NULL);
}
