/* test_report_dlrm.c - readmodel/dlrm.h: DLRM-Bench's problem -> kernel class
 * mapping, the weights it gives each problem, and the projection. */
#include <cjson/cJSON.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../readmodel/dlrm.h"

/* Four problems: two embedding lookups, an MLP (GEMM and its elementwise
 * epilogue) and an id hash. */
static const char four[] =
	"{\"problems\": ["
	" {\"problem\": \"1_emb_a\", \"classes\": [\"embedding\"]},"
	" {\"problem\": \"2_emb_b\", \"classes\": [\"embedding\"]},"
	" {\"problem\": \"3_mlp\", \"classes\": [\"gemm\", \"elementwise\"]},"
	" {\"problem\": \"4_hash\", \"classes\": [\"elementwise\"]}]}";

static const struct dlrm_share shares[] = {
	{ "embedding", 0.5 }, { "gemm", 0.2 }, { "elementwise", 0.1 },
};

/* Parse text into m; returns the error code, message in e. */
static int parse(const char *text, struct dlrm_map *m, struct hr_err *e)
{
	cJSON *doc = cJSON_Parse(text);
	int rc;

	assert_non_null(doc);
	hr_err_clear(e);
	rc = dlrm_map_parse(doc, "map.json", m, e);
	cJSON_Delete(doc);
	return rc;
}

static void map_keeps_problems_and_classes_in_file_order(void **state)
{
	struct dlrm_map m;
	struct hr_err e;

	assert_int_equal(parse(four, &m, &e), HR_OK);
	assert_int_equal(m.n, 4);
	assert_string_equal(m.v[2].problem, "3_mlp");
	assert_int_equal(m.v[2].nclasses, 2);
	assert_string_equal(m.v[2].classes[0], "gemm");
	assert_string_equal(m.v[2].classes[1], "elementwise");
	assert_int_equal(dlrm_map_find(&m, "4_hash"), 3);
	assert_int_equal(dlrm_map_find(&m, "5_none"), -1);
	dlrm_map_release(&m);
}

static void map_refuses_a_problem_twice(void **state)
{
	struct dlrm_map m;
	struct hr_err e;

	assert_int_equal(parse("{\"problems\": ["
			       "{\"problem\": \"1_a\", \"classes\": [\"x\"]},"
			       "{\"problem\": \"1_a\", \"classes\": [\"y\"]}]}",
			       &m, &e), HR_INPUT);
	assert_string_equal(e.msg, "map.json: problem '1_a' twice");
	dlrm_map_release(&m);
}

static void map_refuses_a_problem_without_classes(void **state)
{
	struct dlrm_map m;
	struct hr_err e;

	assert_int_equal(parse("{\"problems\": [{\"problem\": \"1_a\", "
			       "\"classes\": []}]}", &m, &e), HR_INPUT);
	assert_non_null(strstr(e.msg, "problem '1_a': \"classes\" must be "
			       "a non-empty array"));
	dlrm_map_release(&m);
}

static void map_refuses_a_class_twice_in_one_problem(void **state)
{
	struct dlrm_map m;
	struct hr_err e;

	assert_int_equal(parse("{\"problems\": [{\"problem\": \"1_a\", "
			       "\"classes\": [\"gemm\", \"gemm\"]}]}", &m, &e),
			 HR_INPUT);
	assert_string_equal(e.msg, "map.json: problem '1_a': class 'gemm' "
			    "twice");
	dlrm_map_release(&m);
}

static void map_wants_a_problems_array(void **state)
{
	struct dlrm_map m;
	struct hr_err e;

	assert_int_equal(parse("{\"problem\": []}", &m, &e), HR_INPUT);
	assert_string_equal(e.msg, "map.json: wants an array \"problems\"");
	dlrm_map_release(&m);
}

static void weights_split_each_class_among_the_problems_naming_it(
	void **state)
{
	struct dlrm_map m;
	struct hr_err e;
	double w[4];

	assert_int_equal(parse(four, &m, &e), HR_OK);
	assert_int_equal(dlrm_weights(&m, shares, 3, w, &e), HR_OK);
	/* embedding 0.5 over two problems; the MLP has all of gemm and half
	 * of elementwise (0.2 + 0.05); the hash the other half (0.05). */
	assert_float_equal(w[0], 0.25, 1e-15);
	assert_float_equal(w[1], 0.25, 1e-15);
	assert_float_equal(w[2], 0.25, 1e-15);
	assert_float_equal(w[3], 0.05, 1e-15);
	dlrm_map_release(&m);
}

static void weights_of_a_class_without_workload_time_are_zero(void **state)
{
	struct dlrm_map m;
	struct hr_err e;
	double w[1];

	assert_int_equal(parse("{\"problems\": [{\"problem\": \"11_loss\", "
			       "\"classes\": [\"reduction\"]}]}", &m, &e),
			 HR_OK);
	assert_int_equal(dlrm_weights(&m, shares, 3, w, &e), HR_OK);
	assert_float_equal(w[0], 0.0, 0.0);
	dlrm_map_release(&m);
}

/* The weights of the four problems under shares s[0..n) are refused with
 * message msg. */
static void weights_refused(const struct dlrm_share *s, size_t n,
			    const char *msg)
{
	struct dlrm_map m;
	struct hr_err e;
	double w[4];

	assert_int_equal(parse(four, &m, &e), HR_OK);
	assert_int_equal(dlrm_weights(&m, s, n, w, &e), HR_INPUT);
	assert_string_equal(e.msg, msg);
	dlrm_map_release(&m);
}

static void weights_refuse_shares_over_the_whole_workload(void **state)
{
	static const struct dlrm_share over[] = {
		{ "embedding", 0.7 }, { "gemm", 0.4 },
	};

	weights_refused(over, 2, "the class shares add up to 1.1, more than "
			"the whole workload");
}

static void weights_refuse_a_share_that_is_not_a_fraction(void **state)
{
	static const struct dlrm_share negative[] = { { "gemm", -0.1 } };
	static const struct dlrm_share nan[] = { { "gemm", NAN } };

	weights_refused(negative, 1, "class 'gemm': share -0.1 is not in "
			"[0, 1]");
	weights_refused(nan, 1, "class 'gemm': share nan is not in [0, 1]");
}

static void weights_refuse_a_class_listed_twice(void **state)
{
	static const struct dlrm_share twice[] = {
		{ "gemm", 0.1 }, { "gemm", 0.2 },
	};

	weights_refused(twice, 2, "class 'gemm' has two shares");
}

/* The four problems above replayed: the first lookup won at 2x, the
 * second lost, the MLP won at 1.25x, the hash at 4x. */
static const struct dlrm_outcome outcomes[] = {
	{ 1, 2.0 }, { 0, 0.5 }, { 1, 1.25 }, { 1, 4.0 },
};

static void projection_matches_the_hand_computed_value(void **state)
{
	const double w[] = { 0.25, 0.25, 0.25, 0.05 };
	struct dlrm_projection p;
	struct hr_err e;

	hr_err_clear(&e);
	assert_int_equal(dlrm_project(outcomes, w, 4, 0.6, &p, &e), HR_OK);
	assert_int_equal(p.problems, 4);
	assert_int_equal(p.wins, 3);
	assert_float_equal(p.win_rate, 0.75, 0.0);
	assert_float_equal(p.median_win, 2.0, 0.0);   /* of 1.25, 2, 4 */
	assert_float_equal(p.reach, 0.8, 1e-15);
	/* 0.25 (1 - 1/2) + 0.25 (1 - 1/1.25) + 0.05 (1 - 1/4)
	 * = 0.125 + 0.05 + 0.0375 */
	assert_float_equal(p.reduction, 0.2125, 1e-15);
	assert_float_equal(p.speedup, 1.0 / 0.7875, 1e-12);
	/* 0.6 x 0.75 x (1 - 1/2) */
	assert_float_equal(p.simplified, 0.225, 1e-15);
}

static void projection_counts_a_loss_as_unchanged_whatever_its_speedup(
	void **state)
{
	/* Not a verified win (say, incorrect) yet "faster": it saves
	 * nothing. */
	const struct dlrm_outcome o[] = { { 0, 3.0 }, { 1, 2.0 } };
	const double w[] = { 0.5, 0.25 };
	struct dlrm_projection p;
	struct hr_err e;

	hr_err_clear(&e);
	assert_int_equal(dlrm_project(o, w, 2, NAN, &p, &e), HR_OK);
	assert_int_equal(p.wins, 1);
	assert_float_equal(p.reduction, 0.125, 1e-15);
}

static void projection_without_wins_saves_nothing(void **state)
{
	const struct dlrm_outcome o[] = { { 0, NAN }, { 0, 0.9 } };
	const double w[] = { 0.5, 0.25 };
	struct dlrm_projection p;
	struct hr_err e;

	hr_err_clear(&e);
	assert_int_equal(dlrm_project(o, w, 2, 0.6, &p, &e), HR_OK);
	assert_float_equal(p.win_rate, 0.0, 0.0);
	assert_true(isnan(p.median_win));
	assert_float_equal(p.reduction, 0.0, 0.0);
	assert_float_equal(p.speedup, 1.0, 0.0);
	assert_true(isnan(p.simplified));
}

static void projection_without_weights_gives_rate_and_median_only(
	void **state)
{
	struct dlrm_projection p;
	struct hr_err e;

	hr_err_clear(&e);
	assert_int_equal(dlrm_project(outcomes, NULL, 4, NAN, &p, &e), HR_OK);
	assert_float_equal(p.win_rate, 0.75, 0.0);
	assert_float_equal(p.median_win, 2.0, 0.0);
	assert_true(isnan(p.reach));
	assert_true(isnan(p.reduction));
	assert_true(isnan(p.simplified));
}

static void projection_refuses_a_win_that_is_not_faster(void **state)
{
	const struct dlrm_outcome o[] = { { 1, 2.0 }, { 1, 1.0 } };
	struct dlrm_projection p;
	struct hr_err e;

	hr_err_clear(&e);
	assert_int_equal(dlrm_project(o, NULL, 2, NAN, &p, &e), HR_INPUT);
	assert_string_equal(e.msg, "problem 2: a win with speedup 1 (a win "
			    "is faster: > 1)");
}

static void projection_refuses_weights_over_the_whole_workload(void **state)
{
	const double w[] = { 0.5, 0.5, 0.25, 0.0 };
	struct dlrm_projection p;
	struct hr_err e;

	hr_err_clear(&e);
	assert_int_equal(dlrm_project(outcomes, w, 4, NAN, &p, &e), HR_INPUT);
	assert_string_equal(e.msg, "the weights add up to 1.25, more than "
			    "the whole workload");
}

static void projection_refuses_no_problems(void **state)
{
	struct dlrm_projection p;
	struct hr_err e;

	hr_err_clear(&e);
	assert_int_equal(dlrm_project(NULL, NULL, 0, NAN, &p, &e), HR_INPUT);
}

/* The chain end to end: mapping, shares, outcomes. */
static void chain_from_mapping_and_shares_gives_the_same_projection(
	void **state)
{
	struct dlrm_projection p;
	struct dlrm_map m;
	struct hr_err e;
	double w[4];

	assert_int_equal(parse(four, &m, &e), HR_OK);
	assert_int_equal(dlrm_weights(&m, shares, 3, w, &e), HR_OK);
	assert_int_equal(dlrm_project(outcomes, w, m.n, 0.6, &p, &e), HR_OK);
	assert_float_equal(p.reduction, 0.2125, 1e-15);
	dlrm_map_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(map_keeps_problems_and_classes_in_file_order),
		cmocka_unit_test(map_refuses_a_problem_twice),
		cmocka_unit_test(map_refuses_a_problem_without_classes),
		cmocka_unit_test(map_refuses_a_class_twice_in_one_problem),
		cmocka_unit_test(map_wants_a_problems_array),
		cmocka_unit_test(
			weights_split_each_class_among_the_problems_naming_it),
		cmocka_unit_test(
			weights_of_a_class_without_workload_time_are_zero),
		cmocka_unit_test(weights_refuse_shares_over_the_whole_workload),
		cmocka_unit_test(weights_refuse_a_share_that_is_not_a_fraction),
		cmocka_unit_test(weights_refuse_a_class_listed_twice),
		cmocka_unit_test(projection_matches_the_hand_computed_value),
		cmocka_unit_test(
		 projection_counts_a_loss_as_unchanged_whatever_its_speedup),
		cmocka_unit_test(projection_without_wins_saves_nothing),
		cmocka_unit_test(
			projection_without_weights_gives_rate_and_median_only),
		cmocka_unit_test(projection_refuses_a_win_that_is_not_faster),
		cmocka_unit_test(
			projection_refuses_weights_over_the_whole_workload),
		cmocka_unit_test(projection_refuses_no_problems),
		cmocka_unit_test(
			chain_from_mapping_and_shares_gives_the_same_projection),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
