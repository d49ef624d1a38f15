/* test_report_dlrmset.c - readmodel/dlrmset.h: a mapping file's checks, and
 * which evaluation is a DLRM-Bench problem's outcome (sample 0 of the
 * configuration at the suite's level, a win when correct and faster). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../readmodel/dlrmset.h"

/* Write text to a fresh file; returns its path (static buffer). */
static const char *file_with(const char *text)
{
	static char path[] = "/tmp/hr-dlrmset-XXXXXX.json";
	FILE *f;
	int fd;

	strcpy(path, "/tmp/hr-dlrmset-XXXXXX.json");
	fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
	return path;
}

static int load(const char *text, struct dlrm_map *m, struct hr_err *e)
{
	const char *path = file_with(text);
	int rc;

	hr_err_clear(e);
	rc = dlrmset_map_load(path, m, e);
	unlink(path);
	return rc;
}

static void map_file_loads_and_ids_come_from_the_stems(void **state)
{
	struct dlrm_map m;
	struct hr_err e;

	assert_int_equal(load("{\"problems\": ["
			      "{\"problem\": \"3_Emb\", \"classes\": [\"embedding\"]},"
			      "{\"problem\": \"12_Mlp\", \"classes\": [\"gemm\"]}]}",
			      &m, &e), HR_OK);
	assert_int_equal(m.n, 2);
	assert_int_equal(dlrmset_problem_id(&m, 0), 3);
	assert_int_equal(dlrmset_problem_id(&m, 1), 12);
	dlrm_map_release(&m);
}

static void map_file_refuses_an_unknown_class(void **state)
{
	struct dlrm_map m;
	struct hr_err e;

	assert_int_equal(load("{\"problems\": [{\"problem\": \"1_Emb\","
			      " \"classes\": [\"embeding\"]}]}", &m, &e),
			 HR_INPUT);
	assert_non_null(strstr(e.msg, "no kernel class 'embeding'"));
	dlrm_map_release(&m);
}

static void map_file_refuses_a_stem_without_an_id(void **state)
{
	struct dlrm_map m;
	struct hr_err e;

	assert_int_equal(load("{\"problems\": [{\"problem\": \"Emb\","
			      " \"classes\": [\"embedding\"]}]}", &m, &e),
			 HR_INPUT);
	assert_non_null(strstr(e.msg, "ID_Name"));
	dlrm_map_release(&m);
}

static void map_file_refuses_an_id_twice(void **state)
{
	struct dlrm_map m;
	struct hr_err e;

	assert_int_equal(load("{\"problems\": ["
			      "{\"problem\": \"1_A\", \"classes\": [\"embedding\"]},"
			      "{\"problem\": \"1_B\", \"classes\": [\"gemm\"]}]}",
			      &m, &e), HR_INPUT);
	assert_non_null(strstr(e.msg, "problem id 1 twice"));
	dlrm_map_release(&m);
}

/* Problems 1 and 2 of configuration "c" at level 5, with rows that must
 * not count: sample 1, another level, another configuration. */
static struct evalrow rows[] = {
	{ .config = "c", .level = 5, .problem_id = 1, .sample_id = 0,
	  .correct = 1, .speedup = 1.5 },
	{ .config = "c", .level = 5, .problem_id = 1, .sample_id = 1,
	  .correct = 1, .speedup = 9.0 },
	{ .config = "c", .level = 1, .problem_id = 2, .sample_id = 0,
	  .correct = 1, .speedup = 3.0 },
	{ .config = "c", .level = 5, .problem_id = 2, .sample_id = 0,
	  .correct = 0, .speedup = 2.0 },
	{ .config = "d", .level = 5, .problem_id = 3, .sample_id = 0,
	  .correct = 1, .speedup = 4.0 },
};

static void outcomes_take_sample_0_of_the_configuration_at_the_level(
	void **state)
{
	struct evalset es = { .rows = rows, .n = 5 };
	struct dlrm_outcome o[3];
	struct dlrm_map m;
	struct hr_err e;

	assert_int_equal(load("{\"problems\": ["
			      "{\"problem\": \"1_A\", \"classes\": [\"embedding\"]},"
			      "{\"problem\": \"2_B\", \"classes\": [\"gemm\"]},"
			      "{\"problem\": \"3_C\", \"classes\": [\"gemm\"]}]}",
			      &m, &e), HR_OK);
	assert_int_equal(dlrmset_outcomes(&m, &es, "c", 5, o), 2);
	assert_int_equal(o[0].win, 1);            /* 1.5, sample 0 */
	assert_true(o[0].speedup == 1.5);
	assert_int_equal(o[1].win, 0);            /* incorrect at level 5 */
	assert_int_equal(o[2].win, 0);            /* no row in "c" */
	assert_true(isnan(o[2].speedup));
	dlrm_map_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(map_file_loads_and_ids_come_from_the_stems),
		cmocka_unit_test(map_file_refuses_an_unknown_class),
		cmocka_unit_test(map_file_refuses_a_stem_without_an_id),
		cmocka_unit_test(map_file_refuses_an_id_twice),
		cmocka_unit_test(
			outcomes_take_sample_0_of_the_configuration_at_the_level),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
