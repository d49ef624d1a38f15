/* test_report_audit.c - the planted-suite naming rule of
 * report/auditreport.h (which evaluations the detection table groups, and
 * under which class and kernel kind). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "../../report/auditreport.h"

static void planted_name_gives_its_class(void **state)
{
	const char *kind = NULL;
	char cls[64];

	assert_int_equal(auditreport_planted_class("planted-partial-write", cls,
						   sizeof(cls), &kind), 1);
	assert_string_equal(cls, "partial-write");
	assert_string_equal(kind, "planted");
}

static void honest_twins_give_class_and_speed(void **state)
{
	const char *kind = NULL;
	char cls[64];

	assert_int_equal(auditreport_planted_class("honest-result-cached-fast",
						   cls, sizeof(cls), &kind), 1);
	assert_string_equal(cls, "result-cached");
	assert_string_equal(kind, "honest-fast");
	assert_int_equal(auditreport_planted_class("honest-zeros-slow", cls,
						   sizeof(cls), &kind), 1);
	assert_string_equal(cls, "zeros");
	assert_string_equal(kind, "honest-slow");
}

static void other_names_are_not_in_the_suite(void **state)
{
	const char *kind;
	char cls[64];

	assert_int_equal(auditreport_planted_class("acme-frontier-2", cls,
						   sizeof(cls), &kind), 0);
	assert_int_equal(auditreport_planted_class("planted-", cls,
						   sizeof(cls), &kind), 0);
	assert_int_equal(auditreport_planted_class("honest-fast", cls,
						   sizeof(cls), &kind), 0);
	assert_int_equal(auditreport_planted_class("honest-zeros-medium", cls,
						   sizeof(cls), &kind), 0);
	assert_int_equal(auditreport_planted_class(NULL, cls, sizeof(cls),
						   &kind), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(planted_name_gives_its_class),
		cmocka_unit_test(honest_twins_give_class_and_speed),
		cmocka_unit_test(other_names_are_not_in_the_suite),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
