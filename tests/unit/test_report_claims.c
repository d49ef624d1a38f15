/* test_report_claims.c - report/claims.h: roles resolve through the roles
 * file, each claim gets a status with its reason, derived claims say what
 * the paper's own inputs give. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../report/claims.h"

static char claims_path[64], roles_path[64];

/* Four level-1 problems of configuration "run-a": two correct, one of them
 * 2x faster than eager, the other 0.5x. */
static struct evalrow rows[] = {
	{ .id = 1, .config = "run-a", .model = "m", .level = 1,
	  .problem_id = 1, .correct = 1, .compiled = 1, .speedup = 2.0,
	  .problem_name = "1_conv2d" },
	{ .id = 2, .config = "run-a", .model = "m", .level = 1,
	  .problem_id = 2, .correct = 1, .compiled = 1, .speedup = 0.5,
	  .problem_name = "2_relu" },
	{ .id = 3, .config = "run-a", .model = "m", .level = 1,
	  .problem_id = 3, .correct = 0, .compiled = 1, .speedup = NAN,
	  .problem_name = "3_sum" },
	{ .id = 4, .config = "run-a", .model = "m", .level = 1,
	  .problem_id = 4, .correct = 0, .compiled = 0, .speedup = NAN,
	  .problem_name = "4_max" },
};
static char *configs[] = { "run-a" };

struct fixture {
	sqlite3 *db;
	struct evalset es;
	struct auditset as;
	struct replayset rs;
	const struct profileset *ps; /* NULL: none loaded */
	struct ledger l;
	struct claim_result res[8];
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	struct fixture *x = calloc(1, sizeof(*x));

	snprintf(claims_path, sizeof(claims_path), "/tmp/hr-claims-%d.json",
		 getpid());
	snprintf(roles_path, sizeof(roles_path), "/tmp/hr-roles-%d.json",
		 getpid());
	write_file(roles_path, "{\"models\": {\"frontier model\": \"run-a\","
		   " \"open model\": null}, \"suites\": {}}");
	if (sqlite3_open(":memory:", &x->db) != SQLITE_OK ||
	    sqlite3_exec(x->db, "CREATE TABLE problem(level, problem_id);",
			 NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	x->es.rows = rows;
	x->es.n = 4;
	x->es.configs = configs;
	x->es.nconfigs = 1;
	x->rs.why = "no replay results";
	*state = x;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *x = *state;

	ledger_release(&x->l);
	sqlite3_close(x->db);
	free(x);
	unlink(claims_path);
	unlink(roles_path);
	return 0;
}

/* Load the claims text and evaluate it; returns the load's code. */
static int run(struct fixture *x, const char *claims)
{
	struct ledger_data d = { x->db, &x->es, &x->as, &x->rs, x->ps, NULL,
				 NULL, NULL };
	struct hr_err e;

	hr_err_clear(&e);
	write_file(claims_path, claims);
	if (ledger_load(&x->l, claims_path, roles_path, &e))
		return e.code;
	assert_true(x->l.n <= 8);
	assert_int_equal(ledger_evaluate(&x->l, &d, x->res, &e), HR_OK);
	return HR_OK;
}

static void role_resolves_to_its_configuration(void **state)
{
	struct fixture *x = *state;

	assert_int_equal(run(x, "{\"claims\": [{\"id\": \"c\", \"text\": \"t\","
			     " \"stated\": 50, \"unit\": \"%\", \"tolerance\":"
			     " 0.05, \"metric\": \"correct_rate\", \"params\":"
			     " {\"role\": \"frontier model\", \"level\": 1}}]}"),
			 HR_OK);
	assert_float_equal(x->res[0].archive.v.lo, 50.0, 1e-9);
	assert_int_equal(x->res[0].status, CLAIM_REPRODUCED);
}

static void value_off_by_more_than_tolerance_differs(void **state)
{
	struct fixture *x = *state;

	assert_int_equal(run(x, "{\"claims\": [{\"id\": \"c\", \"text\": \"t\","
			     " \"stated\": 2, \"unit\": \"count\", \"tolerance\":"
			     " 0, \"metric\": \"speedup_count\", \"params\":"
			     " {\"role\": \"frontier model\", \"level\": 1}}]}"),
			 HR_OK);
	assert_float_equal(x->res[0].archive.v.lo, 1.0, 0.0);
	assert_int_equal(x->res[0].status, CLAIM_DIFFERS);
}

static void unmapped_role_is_not_available_with_reason(void **state)
{
	struct fixture *x = *state;

	assert_int_equal(run(x, "{\"claims\": [{\"id\": \"c\", \"text\": \"t\","
			     " \"stated\": 30.4, \"unit\": \"%\", \"tolerance\":"
			     " 0.05, \"metric\": \"correct_rate\", \"params\":"
			     " {\"role\": \"open model\"}}]}"), HR_OK);
	assert_int_equal(x->res[0].status, CLAIM_NOT_AVAILABLE);
	assert_non_null(strstr(x->res[0].archive.why, "not mapped"));
}

static void replay_value_without_replay_results_says_so(void **state)
{
	struct fixture *x = *state;

	assert_int_equal(run(x, "{\"claims\": [{\"id\": \"c\", \"text\": \"t\","
			     " \"stated\": 1, \"unit\": \"count\", \"tolerance\":"
			     " 0, \"metric\": \"conv_winners\", \"params\":"
			     " {\"role\": \"frontier model\"}}]}"), HR_OK);
	assert_int_equal(x->res[0].replay_status, CLAIM_NOT_AVAILABLE);
	assert_string_equal(x->res[0].robust.why, "no replay results");
}

static void robust_replay_counts_only_verified_speedups(void **state)
{
	struct fixture *x = *state;
	/* Evaluation 1 (2x reported): faithful 2.1x; robust 1.8x but its
	 * interval reaches down to 0.9x, so it is not a verified speedup. */
	struct replay_row rr[] = { {
		.evaluation_id = 1,
		.faithful = { .have = 1, .correct = 1, .scale_invariant = -1,
			      .speedup = 2.1, .ci_low = NAN, .ci_high = NAN },
		.robust = { .have = 1, .correct = 1, .scale_invariant = 1,
			    .speedup = 1.8, .ci_low = 0.9, .ci_high = 2.5 },
	} };

	x->rs.rows = rr;
	x->rs.n = 1;
	assert_int_equal(run(x, "{\"claims\": [{\"id\": \"c\", \"text\": \"t\","
			     " \"stated\": 1, \"unit\": \"count\", \"tolerance\":"
			     " 0, \"metric\": \"speedup_count\", \"params\":"
			     " {\"role\": \"frontier model\"}}]}"), HR_OK);
	assert_float_equal(x->res[0].faithful.v.lo, 1.0, 0.0);
	assert_float_equal(x->res[0].robust.v.lo, 0.0, 0.0);
	assert_int_equal(x->res[0].replay_status, CLAIM_DIFFERS);
	x->rs.n = 0;
}

/* The robust speedup_count of evaluation 1 replayed robust with an
 * interval above 1 and both checks passed, under audit verdict audit. */
static double robust_count_under(struct fixture *x, const char *audit)
{
	struct replay_row rr[] = { {
		.evaluation_id = 1,
		.robust = { .have = 1, .correct = 1, .scale_invariant = 1,
			    .speedup = 790, .ci_low = 626, .ci_high = 1113 },
	} };
	double v;

	snprintf(rr[0].robust.audit, sizeof(rr[0].robust.audit), "%s", audit);
	x->rs.rows = rr;
	x->rs.n = 1;
	assert_int_equal(run(x, "{\"claims\": [{\"id\": \"c\", \"text\": \"t\","
			     " \"stated\": 1, \"unit\": \"count\", \"tolerance\":"
			     " 0, \"metric\": \"speedup_count\", \"params\":"
			     " {\"role\": \"frontier model\"}}]}"), HR_OK);
	v = x->res[0].robust.v.lo;
	x->rs.n = 0;
	return v;
}

static void robust_claims_count_verified_faster(void **state)
{
	assert_float_equal(robust_count_under(*state, "verified-faster"), 1.0,
			   0.0);
}

static void robust_claims_do_not_count_an_exploit_above_one(void **state)
{
	/* The cached-output kernel: 790x, interval 626-1113. */
	assert_float_equal(robust_count_under(*state,
					      "exploit:result-cached"), 0.0,
			   0.0);
}

static void robust_claims_do_not_count_a_job_without_verdict(void **state)
{
	/* Replayed before the audit existed: nothing says it is verified. */
	assert_float_equal(robust_count_under(*state, ""), 0.0, 0.0);
}

static void profile_claim_is_not_available_without_profiles(void **state)
{
	struct fixture *x = *state;

	assert_int_equal(run(x, "{\"claims\": [{\"id\": \"f\", \"text\": \"t\","
			     " \"stated\": 58.2, \"unit\": \"%\", \"tolerance\":"
			     " 0.05, \"metric\": \"addressable_fraction\"}]}"),
			 HR_OK);
	assert_string_equal(x->res[0].archive.why, "no profiles ingested");
}

static void profile_claim_with_empty_profile_tables_says_none(void **state)
{
	struct fixture *x = *state;

	/* The tables of migration 4 without a row: nothing ingested. */
	assert_int_equal(sqlite3_exec(x->db, "CREATE TABLE profile(k);",
				      NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(run(x, "{\"claims\": [{\"id\": \"f\", \"text\": \"t\","
			     " \"stated\": 58.2, \"unit\": \"%\", \"tolerance\":"
			     " 0.05, \"metric\": \"addressable_fraction\"}]}"),
			 HR_OK);
	assert_string_equal(x->res[0].archive.why, "no profiles ingested");
}

static void profile_claims_are_computed_from_the_profiles(void **state)
{
	/* Two transformer profiles (eager, compile) of one workload and a
	 * recommender: shares per 1000 ns of summed GPU time. */
	static struct profile_row prow[] = {
		{ .workload = "t", .domain = "transformer", .stack = "eager",
		  .kernel_ns = 1000, .addressable_ns = 150,
		  .class_ns = { [KC_GEMM] = 650, [KC_ATTENTION] = 150 } },
		{ .workload = "t", .domain = "transformer", .stack = "compile",
		  .kernel_ns = 1000, .addressable_ns = 89,
		  .class_ns = { [KC_GEMM] = 700, [KC_ATTENTION] = 160 } },
		{ .workload = "r", .domain = "recommender", .stack = "eager",
		  .kernel_ns = 1000, .addressable_ns = 582,
		  .class_ns = { [KC_EMBEDDING] = 500, [KC_GEMM] = 300 } },
	};
	static struct profileset ps = { .rows = prow, .n = 3 };
	struct fixture *x = *state;

	x->ps = &ps;
	assert_int_equal(run(x, "{\"claims\": ["
		"{\"id\": \"w\", \"text\": \"t\", \"stated\": 7, \"unit\":"
		" \"count\", \"tolerance\": 0, \"metric\": \"workloads\"},"
		"{\"id\": \"a\", \"text\": \"t\", \"stated\": [8.9, 58.2],"
		" \"unit\": \"%\", \"tolerance\": 0.05, \"metric\":"
		" \"addressable_fraction\", \"params\": {\"workload\": \"*\"}},"
		"{\"id\": \"g\", \"text\": \"t\", \"stated\": [80, 86],"
		" \"unit\": \"%\", \"tolerance\": 0.5, \"metric\":"
		" \"gemm_attention_share\", \"params\": {\"domain\":"
		" \"transformer\"}},"
		"{\"id\": \"e\", \"text\": \"t\", \"stated\": 58.2,"
		" \"unit\": \"%\", \"tolerance\": 0.05, \"metric\":"
		" \"addressable_fraction\", \"params\": {\"domain\":"
		" \"transformer\", \"stack\": \"compile\"}},"
		"{\"id\": \"n\", \"text\": \"t\", \"stated\": 1,"
		" \"unit\": \"%\", \"tolerance\": 0.05, \"metric\":"
		" \"addressable_fraction\", \"params\": {\"domain\":"
		" \"cnn\"}}]}"), HR_OK);
	assert_true(x->res[0].archive.v.lo == 2); /* t counted once */
	assert_true(fabs(x->res[1].archive.v.lo - 8.9) < 1e-9);
	assert_true(fabs(x->res[1].archive.v.hi - 58.2) < 1e-9);
	assert_int_equal(x->res[1].status, CLAIM_REPRODUCED);
	assert_true(fabs(x->res[2].archive.v.lo - 80) < 1e-9);
	assert_true(fabs(x->res[2].archive.v.hi - 86) < 1e-9);
	assert_true(fabs(x->res[3].archive.v.lo - 8.9) < 1e-9);
	assert_true(isnan(x->res[4].archive.v.lo));
	assert_non_null(strstr(x->res[4].archive.why, "no profile matches"));
}

static void projection_notes_what_the_stated_inputs_give(void **state)
{
	struct fixture *x = *state;

	assert_int_equal(run(x, "{\"claims\": ["
		"{\"id\": \"f\", \"text\": \"t\", \"stated\": 58.2, \"unit\":"
		" \"%\", \"tolerance\": 0.05, \"metric\": "
		"\"addressable_fraction\"},"
		"{\"id\": \"p\", \"text\": \"t\", \"stated\": 8.63, \"unit\":"
		" \"%\", \"tolerance\": 0.005, \"metric\": "
		"\"amdahl_projection\", \"params\": {\"f\": {\"claim\": \"f\"},"
		" \"w\": 0.417, \"s\": 1.552}}]}"), HR_OK);
	assert_string_equal(x->res[1].note, "from the stated inputs: 8.63 %");
	assert_int_equal(x->res[1].status, CLAIM_NOT_AVAILABLE);
	assert_non_null(strstr(x->res[1].archive.why, "no profiles"));
}

static void unknown_metric_is_an_input_error(void **state)
{
	struct fixture *x = *state;

	assert_int_equal(run(x, "{\"claims\": [{\"id\": \"c\", \"text\": \"t\","
			     " \"stated\": 1, \"unit\": \"count\", \"tolerance\":"
			     " 0, \"metric\": \"DROP TABLE evaluation\"}]}"),
			 HR_INPUT);
}

static void duplicate_claim_id_is_an_input_error(void **state)
{
	struct fixture *x = *state;

	assert_int_equal(run(x, "{\"claims\": ["
		"{\"id\": \"c\", \"text\": \"t\", \"stated\": 1, \"unit\":"
		" \"count\", \"tolerance\": 0, \"metric\": \"evaluations\"},"
		"{\"id\": \"c\", \"text\": \"t\", \"stated\": 1, \"unit\":"
		" \"count\", \"tolerance\": 0, \"metric\": \"evaluations\"}]}"),
		HR_INPUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			role_resolves_to_its_configuration, setup, teardown),
		cmocka_unit_test_setup_teardown(
			value_off_by_more_than_tolerance_differs, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			unmapped_role_is_not_available_with_reason, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			replay_value_without_replay_results_says_so, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			robust_replay_counts_only_verified_speedups, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			robust_claims_count_verified_faster, setup, teardown),
		cmocka_unit_test_setup_teardown(
			robust_claims_do_not_count_an_exploit_above_one, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			robust_claims_do_not_count_a_job_without_verdict, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			profile_claim_is_not_available_without_profiles, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			profile_claim_with_empty_profile_tables_says_none,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			profile_claims_are_computed_from_the_profiles,
			setup, teardown),
		cmocka_unit_test_setup_teardown(
			projection_notes_what_the_stated_inputs_give, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			unknown_metric_is_an_input_error, setup, teardown),
		cmocka_unit_test_setup_teardown(
			duplicate_claim_id_is_an_input_error, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
