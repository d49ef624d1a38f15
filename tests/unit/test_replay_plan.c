/* test_replay_plan.c - the plan of a new replay run (replay/jobplan.h):
 * which problem each selected evaluation is matched to and how the match
 * says so, the verdicts given at once (no_problem, no_kernel, a CPU run's
 * needs_gpu) with their audit verdict and findings, and the run's shard
 * and limit.  Plain structs in, plain structs out: no store. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "../../replay/jobplan.h"

static const char plain[] =
	"class ModelNew(nn.Module):\n"
	"    def forward(self, x):\n"
	"        return torch.relu(x)\n";

static const char cuda[] =
	"from torch.utils.cpp_extension import load_inline\n"
	"mod = load_inline(name='k', cpp_sources=cpp,\n"
	"                  cuda_sources=src)\n";

/* The plan of evals against problems, expected to succeed with n jobs. */
static struct jobplan_job *plan(struct jobplan_in *in,
				const struct jobplan_eval *evals, size_t ne,
				const struct jobplan_problem *problems,
				size_t np, size_t n)
{
	struct jobplan_job *jobs;
	struct hr_err e;
	size_t got;

	hr_err_clear(&e);
	in->evals = evals;
	in->nevals = ne;
	in->problems = problems;
	in->nproblems = np;
	assert_int_equal(jobplan_make(in, &jobs, &got, &e), HR_OK);
	assert_int_equal(got, n);
	return jobs;
}

static void level_and_id_newest_wins(void **state)
{
	const struct jobplan_problem p[] = {
		{ .id = 3, .level = 1, .problem_id = 7, .name = "7_Conv.py" },
		{ .id = 9, .level = 1, .problem_id = 7, .name = "7_Conv.py" },
		{ .id = 5, .level = 2, .problem_id = 7, .name = "7_Conv.py" },
	};
	const struct jobplan_eval ev[] = {
		{ .id = 1, .level = 1, .problem_id = 7, .has_kernel = 1 },
	};
	struct jobplan_in in = { 0 };
	struct jobplan_job *j = plan(&in, ev, 1, p, 3, 1);

	(void)state;
	assert_int_equal(j[0].evaluation_id, 1);
	assert_int_equal(j[0].problem, 9);
	assert_string_equal(j[0].match, "{\"by\":\"level+id\","
			    "\"candidates\":2,\"ambiguous\":true}");
	assert_int_equal(j[0].verdict, PV_NONE);
	assert_null(j[0].findings);
	jobplan_free(j, 1);
}

static void name_narrows_the_id(void **state)
{
	const struct jobplan_problem p[] = {
		{ .id = 4, .level = 1, .problem_id = 7, .name = "7_Conv.py" },
		{ .id = 8, .level = 1, .problem_id = 7, .name = "7_Gemm.py" },
	};
	/* "7_Conv", "Conv.py" and "Conv" all name 7_Conv.py. */
	const struct jobplan_eval ev[] = {
		{ .id = 1, .level = 1, .problem_id = 7, .name = "7_Conv",
		  .has_kernel = 1 },
		{ .id = 2, .level = 1, .problem_id = 7, .name = "Conv.py",
		  .has_kernel = 1 },
		{ .id = 3, .level = 1, .problem_id = 7, .name = "Conv",
		  .has_kernel = 1 },
	};
	struct jobplan_in in = { 0 };
	struct jobplan_job *j = plan(&in, ev, 3, p, 2, 3);

	(void)state;
	for (int i = 0; i < 3; i++) {
		assert_int_equal(j[i].problem, 4);
		assert_string_equal(j[i].match, "{\"by\":\"level+id+name\","
				    "\"candidates\":1,\"ambiguous\":false}");
	}
	jobplan_free(j, 3);
}

/* A 1-based id that names another problem: the name alone decides. */
static void id_naming_another_falls_back_to_the_name(void **state)
{
	const struct jobplan_problem p[] = {
		{ .id = 1, .level = 1, .problem_id = 0, .name = "0_Conv.py" },
		{ .id = 2, .level = 1, .problem_id = 1, .name = "1_Gemm.py" },
		{ .id = 3, .level = 2, .problem_id = 0, .name = "0_Conv.py" },
	};
	const struct jobplan_eval ev[] = {
		{ .id = 1, .level = 1, .problem_id = 1, .name = "1_Conv",
		  .has_kernel = 1 },
		{ .id = 2, .level = 1, .problem_id = 5, .name = "Softmax",
		  .has_kernel = 1 },
	};
	struct jobplan_in in = { 0 };
	struct jobplan_job *j = plan(&in, ev, 2, p, 3, 2);

	(void)state;
	assert_int_equal(j[0].problem, 1);
	assert_string_equal(j[0].match, "{\"by\":\"level+name\","
			    "\"candidates\":1,\"ambiguous\":false,"
			    "\"id_names_other\":1}");
	assert_int_equal(j[0].verdict, PV_NONE);
	/* Neither the id nor the name: no problem, decided now. */
	assert_int_equal(j[1].problem, 0);
	assert_string_equal(j[1].match, "{\"by\":\"level+name\","
			    "\"candidates\":0,\"ambiguous\":false,"
			    "\"id_names_other\":0}");
	assert_int_equal(j[1].verdict, PV_NO_PROBLEM);
	jobplan_free(j, 2);
}

/* The reference the evaluation's own record carried comes first, unless
 * the run matches against one problem set. */
static void record_reference_first(void **state)
{
	const struct jobplan_problem p[] = {
		{ .id = 2, .level = 1, .problem_id = 7, .name = "7_Conv.py",
		  .record_source = 5 },
		{ .id = 9, .level = 1, .problem_id = 7, .name = "7_Conv.py" },
		{ .id = 4, .level = 1, .problem_id = 7, .name = "7_Conv.py",
		  .record_source = 6 },
	};
	const struct jobplan_eval ev[] = {
		{ .id = 1, .source_id = 5, .level = 1, .problem_id = 7,
		  .has_kernel = 1 },
	};
	struct jobplan_in in = { 0 };
	struct jobplan_job *j = plan(&in, ev, 1, p, 3, 1);

	(void)state;
	assert_int_equal(j[0].problem, 2);
	assert_string_equal(j[0].match, "{\"by\":\"record-reference\","
			    "\"candidates\":1,\"ambiguous\":false}");
	jobplan_free(j, 1);
	in.by_set = 1;
	j = plan(&in, ev, 1, p, 3, 1);
	assert_int_equal(j[0].problem, 9);
	assert_string_equal(j[0].match, "{\"by\":\"level+id\","
			    "\"candidates\":3,\"ambiguous\":true}");
	jobplan_free(j, 1);
}

static void no_problem_and_no_kernel_are_decided_now(void **state)
{
	const struct jobplan_problem p[] = {
		{ .id = 1, .level = 1, .problem_id = 1, .name = "1_Gemm.py" },
	};
	const struct jobplan_eval ev[] = {
		{ .id = 1, .level = 3, .problem_id = 1, .has_kernel = 1 },
		{ .id = 2, .level = 1, .problem_id = 1, .has_kernel = 0 },
	};
	struct jobplan_in in = { .mode = MODE_ROBUST };
	struct jobplan_job *j = plan(&in, ev, 2, p, 1, 2);

	(void)state;
	assert_int_equal(j[0].verdict, PV_NO_PROBLEM);
	assert_string_equal(j[0].why, "no stored problem matches this "
			    "evaluation (headroom problems add DIR)");
	assert_string_equal(j[0].audit.verdict, "failed:match");
	assert_non_null(strstr(j[0].findings, "\"evidence\":[]"));
	assert_non_null(strstr(j[0].findings, "\"signals\":null"));
	assert_int_equal(j[1].problem, 1);
	assert_int_equal(j[1].verdict, PV_NO_KERNEL);
	assert_string_equal(j[1].why, "the archive holds no kernel code for "
			    "this evaluation");
	assert_string_equal(j[1].audit.verdict, "failed:match");
	jobplan_free(j, 2);
}

/* A CPU run skips CUDA code (its line named); a GPU run builds it. */
static void cpu_run_skips_code_that_needs_a_gpu(void **state)
{
	const struct jobplan_problem p[] = {
		{ .id = 1, .level = 1, .problem_id = 1, .name = "1_Gemm.py" },
	};
	const struct jobplan_eval ev[] = {
		{ .id = 1, .level = 1, .problem_id = 1, .has_kernel = 1,
		  .code = cuda },
		{ .id = 2, .level = 1, .problem_id = 1, .has_kernel = 1,
		  .code = plain },
	};
	struct jobplan_in in = { .cpu = 1 };
	struct jobplan_job *j = plan(&in, ev, 2, p, 1, 2);

	(void)state;
	assert_int_equal(j[0].verdict, PV_NEEDS_GPU);
	assert_string_equal(j[0].why, "needs a GPU: the candidate compiles "
			    "CUDA code (load_inline with cuda_sources, a .cu "
			    "source or CUDAExtension), line 3: cuda_sources=src); "
			    "a CPU run does not build it (replay it with "
			    "--device cuda)");
	assert_string_equal(j[0].audit.verdict, "skipped:needs-gpu");
	assert_non_null(j[0].findings);
	assert_int_equal(j[1].verdict, PV_NONE);
	jobplan_free(j, 2);
	in.cpu = 0;
	j = plan(&in, ev, 2, p, 1, 2);
	assert_int_equal(j[0].verdict, PV_NONE);
	assert_int_equal(j[1].verdict, PV_NONE);
	jobplan_free(j, 2);
}

/* --shard I/N takes the ids of shard I; --limit the first N of those. */
static void shard_then_limit(void **state)
{
	struct jobplan_eval ev[40];
	struct jobplan_in in = { .shard_i = 1, .shard_n = 3 };
	struct jobplan_job *j;
	size_t want = 0, k = 0;

	(void)state;
	memset(ev, 0, sizeof(ev));
	for (int i = 0; i < 40; i++) {
		ev[i].id = 100 + i;
		ev[i].has_kernel = 1;
		want += jobplan_shard_of(ev[i].id, 3) == 1;
	}
	assert_true(want > 3 && want < 40);
	j = plan(&in, ev, 40, NULL, 0, want);
	for (int i = 0; i < 40; i++)
		if (jobplan_shard_of(ev[i].id, 3) == 1)
			assert_int_equal(j[k++].evaluation_id, ev[i].id);
	jobplan_free(j, want);
	in.limit = 3;
	j = plan(&in, ev, 40, NULL, 0, 3);
	k = 0;
	for (int i = 0; i < 40 && k < 3; i++)
		if (jobplan_shard_of(ev[i].id, 3) == 1)
			assert_int_equal(j[k++].evaluation_id, ev[i].id);
	jobplan_free(j, 3);
	/* The mix is fixed (splitmix64's finaliser): the same shard on every
	 * host and in every version, so the shards of a run merge as one. */
	assert_int_equal(jobplan_shard_of(1, 1000), 465);
	assert_int_equal(jobplan_shard_of(2, 1000), 110);
	assert_int_equal(jobplan_shard_of(879, 1000), 429);
	assert_int_equal(jobplan_shard_of(12345, 7), 5);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(level_and_id_newest_wins),
		cmocka_unit_test(name_narrows_the_id),
		cmocka_unit_test(id_naming_another_falls_back_to_the_name),
		cmocka_unit_test(record_reference_first),
		cmocka_unit_test(no_problem_and_no_kernel_are_decided_now),
		cmocka_unit_test(cpu_run_skips_code_that_needs_a_gpu),
		cmocka_unit_test(shard_then_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
