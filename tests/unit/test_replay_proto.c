/* test_replay_proto.c - the worker protocol's C side (replay/proto.h): the
 * hello's version check, the names of types, phases and verdicts both ways,
 * which verdicts end a job, and the job message's common fields. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "../../replay/proto.h"

static cJSON *parse(const char *text)
{
	cJSON *j = cJSON_Parse(text);

	assert_non_null(j);
	return j;
}

static void hello_of_this_version_is_accepted(void **state)
{
	cJSON *h = parse("{\"type\": \"hello\", \"protocol\": 1}");
	struct hr_err e = { 0 };

	(void)state;
	assert_int_equal(proto_hello_check(h, &e), HR_OK);
	cJSON_Delete(h);
}

static void hello_of_another_version_names_both(void **state)
{
	cJSON *h = parse("{\"type\": \"hello\", \"protocol\": 2}");
	struct hr_err e = { 0 };

	(void)state;
	assert_int_equal(proto_hello_check(h, &e), HR_SYSTEM);
	assert_non_null(strstr(e.msg, "protocol 2"));
	assert_non_null(strstr(e.msg, "this headroom 1"));
	cJSON_Delete(h);
}

static void hello_without_version_is_refused(void **state)
{
	cJSON *h = parse("{\"type\": \"hello\"}");
	struct hr_err e = { 0 };

	(void)state;
	assert_int_equal(proto_hello_check(h, &e), HR_SYSTEM);
	assert_non_null(strstr(e.msg, "no protocol version"));
	cJSON_Delete(h);
}

static void types_by_name(void **state)
{
	static const struct { const char *line; enum proto_type t; } cases[] = {
		{ "{\"type\": \"hello\"}", PT_HELLO },
		{ "{\"type\": \"start\"}", PT_START },
		{ "{\"type\": \"phase\"}", PT_PHASE },
		{ "{\"type\": \"predraw\"}", PT_PREDRAW },
		{ "{\"type\": \"result\"}", PT_RESULT },
		{ "{\"type\": \"exit\"}", PT_EXIT },
		{ "{\"type\": \"error\"}", PT_ERROR },
		{ "{\"type\": \"Result\"}", PT_OTHER },
		{ "{\"type\": 3}", PT_OTHER },
		{ "{}", PT_OTHER },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		cJSON *m = parse(cases[i].line);

		assert_int_equal(proto_type_of(m), cases[i].t);
		cJSON_Delete(m);
	}
}

static void phases_round_trip(void **state)
{
	(void)state;
	for (int p = PH_DISPATCH; p <= PH_AUDIT; p++)
		assert_int_equal(proto_phase_of(proto_phase_name(p)), p);
	assert_int_equal(proto_phase_of("dispatch"), PH_DISPATCH);
	assert_int_equal(proto_phase_of("compile"), PH_OTHER);
	assert_int_equal(proto_phase_of(NULL), PH_OTHER);
	assert_true(proto_phase_is_build(PH_BUILD));
	assert_true(proto_phase_is_build(PH_DISPATCH));
	assert_true(proto_phase_is_build(PH_REFERENCE));
	assert_false(proto_phase_is_build(PH_TIMING));
	assert_false(proto_phase_is_build(PH_AUDIT));
}

static void verdicts_round_trip_and_which_end_a_job(void **state)
{
	(void)state;
	for (int v = PV_NO_PROBLEM; v <= PV_AUDITED; v++)
		assert_int_equal(proto_verdict_of(proto_verdict_name(v)), v);
	assert_int_equal(proto_verdict_of("verified"), PV_NONE);
	assert_null(proto_verdict_name(PV_NONE));
	assert_true(proto_verdict_ends_job(PV_CORRECT));
	assert_true(proto_verdict_ends_job(PV_NO_PROBLEM));
	assert_false(proto_verdict_ends_job(PV_BUILT));
	assert_false(proto_verdict_ends_job(PV_AUDITED));
	assert_false(proto_verdict_ends_job(PV_NONE));
}

static void job_message_has_its_common_fields(void **state)
{
	cJSON *m = proto_job_new(12, 34, STOP_BUILD);
	char *text;

	(void)state;
	assert_non_null(m);
	text = cJSON_PrintUnformatted(m);
	assert_string_equal(text, "{\"op\":\"job\",\"job\":12,"
			    "\"evaluation_id\":34,\"stop_after\":\"build\"}");
	assert_int_equal(proto_job_of(m), 12);
	cJSON_free(text);
	cJSON_Delete(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(hello_of_this_version_is_accepted),
		cmocka_unit_test(hello_of_another_version_names_both),
		cmocka_unit_test(hello_without_version_is_refused),
		cmocka_unit_test(types_by_name),
		cmocka_unit_test(phases_round_trip),
		cmocka_unit_test(verdicts_round_trip_and_which_end_a_job),
		cmocka_unit_test(job_message_has_its_common_fields),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
