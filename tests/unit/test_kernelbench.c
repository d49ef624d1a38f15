/* test_kernelbench.c - ingest_kernelbench: both eval_results schemas and
 * the flat one, sentinels, model names, kernels, baselines and computed
 * speedups, and the errors that name file and record. */
#include "fixture.h"

#define RUN "runs/r1/"

/* A correct new-schema record for problem P sample S at T ms on an H100. */
#define REC(S, T) "{\"sample_id\": " #S ", \"compiled\": true," \
	" \"correctness\": true, \"metadata\": {\"hardware\": \"H100\"," \
	" \"device\": \"cuda:0\", \"correctness_trials\": \"(5 / 5)\"}," \
	" \"runtime\": " #T ", \"runtime_stats\": {\"mean\": " #T "," \
	" \"std\": 0.01, \"min\": 1.0, \"max\": 3.0, \"num_trials\": 100," \
	" \"hardware\": \"H100\", \"device\": \"cuda:0\"}}"

#define BASE(NAME, MEAN, HW) "\"" NAME "\": {\"mean\": " #MEAN ", \"std\":" \
	" 0.1, \"min\": 0.1, \"max\": 9.0, \"num_trials\": 100," \
	" \"hardware\": \"" HW "\", \"device\": \"cuda:0\"}"

static int run(struct fx *f)
{
	fx_finish(f);
	return ingest_kernelbench(&f->fs, &f->ctx, &f->e);
}

static void array_schema_stores_every_field(void **state)
{
	struct fx *f = *state;
	char b[256];

	fx_file(f, RUN "eval_results.json", "{\"3\": [" REC(0, 2.5) "]}");
	fx_file(f, RUN "level_1_problem_3_sample_0_kernel.py", "code\n");
	assert_int_equal(run(f), HR_OK);
	assert_string_equal(fx_text(f, b, sizeof(b), "SELECT compiled || correct"
		" || ' ' || runtime_ms || ' ' || runtime_std_ms || ' ' ||"
		" runtime_min_ms || ' ' || runtime_max_ms || ' ' || num_trials"
		" || ' ' || correct_trials_passed || '/' ||"
		" correct_trials_total || ' ' || hardware || ' ' || level ||"
		" ' ' || problem_id || ' ' || sample_id FROM evaluation"),
		"11 2.5 0.01 1.0 3.0 100 5/5 H100 1 3 0");
	assert_string_equal(fx_text(f, b, sizeof(b), "SELECT harness || ' ' ||"
		" record_ref FROM evaluation"),
		"kernelbench/eval_results-array runs/r1/eval_results.json#3[0]");
}

static void metadata_is_kept_as_json(void **state)
{
	struct fx *f = *state;
	char b[256];

	fx_file(f, RUN "eval_results.json", "{\"3\": [" REC(0, 2.5) "]}");
	fx_file(f, RUN "level_1_problem_3_sample_0_kernel.py", "code\n");
	assert_int_equal(run(f), HR_OK);
	assert_string_equal(fx_text(f, b, sizeof(b),
		"SELECT metadata_json FROM evaluation"),
		"{\"hardware\":\"H100\",\"device\":\"cuda:0\","
		"\"correctness_trials\":\"(5 / 5)\"}");
}

static void object_schema_is_one_record_per_problem(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "eval_results.json", "{\"3\": " REC(0, 2.5) ", \"4\": "
		REC(0, 1.5) "}");
	fx_file(f, RUN "level_1_problem_3_sample_0_kernel.py", "a\n");
	assert_int_equal(run(f), HR_OK);
	assert_int_equal(fx_num(f, "SELECT count(*) FROM evaluation WHERE"
		" harness = 'kernelbench/eval_results-object'"), 2);
	assert_true(fx_num(f, "SELECT runtime_ms FROM evaluation WHERE"
		" problem_id = 4") == 1.5);
}

static void flat_schema_reads_correct_and_avg_runtime(void **state)
{
	struct fx *f = *state;
	char b[256];

	fx_file(f, "old_level_1/eval_results.json", "{\"8\": {\"device\":"
		" \"cuda:7\", \"correct\": true, \"compiled\": true, \"hardware\":"
		" \"NVIDIA L40S\", \"timestamp\": 1730792748.5, \"avg_runtime\":"
		" 42.1, \"runtime_stats\": {}, \"correctness_trials\": \"(5 / 5)\"}}");
	assert_int_equal(run(f), HR_OK);
	assert_string_equal(fx_text(f, b, sizeof(b), "SELECT correct || ' ' ||"
		" runtime_ms || ' ' || hardware || ' ' || correct_trials_passed"
		" || ' ' || harness FROM evaluation"),
		"1 42.1 NVIDIA L40S 5 kernelbench/eval_results-flat");
	assert_string_equal(fx_text(f, b, sizeof(b), "SELECT metadata_json"
		" FROM evaluation"), "{\"device\":\"cuda:7\",\"hardware\":"
		"\"NVIDIA L40S\",\"timestamp\":1730792748.5,"
		"\"correctness_trials\":\"(5 / 5)\"}");
}

static void early_results_file_names_model_and_level(void **state)
{
	struct fx *f = *state;
	char b[256];

	fx_file(f, "times/baseline_claude-3.5-sonnet_level_2_L40S.json",
		"{\"57\": {\"device\": \"cuda:7\", \"correct\": false,"
		" \"compiled\": false, \"hardware\": \"NVIDIA L40S\","
		" \"avg_runtime\": -1.0, \"other_error\": \"error: name 'math'"
		" is not defined\", \"runtime_stats\": {}}}");
	assert_int_equal(run(f), HR_OK);
	assert_string_equal(fx_text(f, b, sizeof(b), "SELECT model || ' ' ||"
		" level || ' ' || problem_id || ' ' || run || ' ' || error_kind"
		" FROM evaluation"), "claude-3.5-sonnet 2 57 times/baseline_"
		"claude-3.5-sonnet_level_2_L40S.json other_error");
}

static void minus_one_means_no_runtime(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "eval_results.json", "{\"2\": [{\"sample_id\": 0,"
		" \"compiled\": false, \"correctness\": false, \"metadata\": {},"
		" \"runtime\": -1.0, \"runtime_stats\": {}}]}");
	fx_file(f, RUN "level_1_problem_2_sample_0_kernel.py", "x\n");
	assert_int_equal(run(f), HR_OK);
	assert_int_equal(fx_num(f, "SELECT count(*) FROM evaluation WHERE"
		" runtime_ms IS NULL AND runtime_std_ms IS NULL AND"
		" num_trials IS NULL AND compiled = 0"), 1);
}

static void other_negative_runtime_is_refused(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "eval_results.json", "{\"2\": [{\"sample_id\": 0,"
		" \"compiled\": true, \"correctness\": true, \"runtime\": -2.0}]}");
	fx_file(f, RUN "level_1_problem_2_sample_0_kernel.py", "x\n");
	assert_int_equal(run(f), HR_INPUT);
	assert_non_null(strstr(f->e.msg, "\"runtime\": negative time -2"));
}

static void first_error_key_is_the_error_kind(void **state)
{
	struct fx *f = *state;
	char b[256];

	fx_file(f, RUN "eval_results.json", "{\"2\": [{\"sample_id\": 0,"
		" \"compiled\": true, \"correctness\": false, \"metadata\":"
		" {\"correctness_issue\": \"Output mismatch\", \"runtime_error\":"
		" \"illegal memory access\"}, \"runtime\": -1.0}]}");
	fx_file(f, RUN "level_1_problem_2_sample_0_kernel.py", "x\n");
	assert_int_equal(run(f), HR_OK);
	assert_string_equal(fx_text(f, b, sizeof(b), "SELECT error_kind || ': '"
		" || error_text FROM evaluation"),
		"runtime_error: illegal memory access");
}

static void model_and_precision_come_from_generation_config(void **state)
{
	struct fx *f = *state;
	char b[256];

	fx_file(f, RUN "generation_config.yaml", "server_type: openai\n"
		"model_name: 'o1-2024-12-17'   # the model\nprecision: bf16\n");
	fx_file(f, RUN "level_1_problem_2_sample_0_kernel.py", "x\n");
	assert_int_equal(run(f), HR_OK);
	assert_string_equal(fx_text(f, b, sizeof(b), "SELECT model || ' ' ||"
		" precision FROM evaluation"), "o1-2024-12-17 bf16");
}

static void model_is_run_directory_name_without_config(void **state)
{
	struct fx *f = *state;
	char b[512];
	cJSON *runs;

	fx_file(f, RUN "level_1_problem_2_sample_0_kernel.py", "x\n");
	assert_int_equal(run(f), HR_OK);
	assert_string_equal(fx_text(f, b, sizeof(b), "SELECT model || ' ' || run"
		" FROM evaluation"), "r1 runs/r1");
	runs = cJSON_GetObjectItem(f->ctx.notes, "runs");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(runs, 0),
		"model_from")->valuestring, "run directory name (no model_name"
		" in generation_config.yaml)");
}

static void top_level_run_is_named_after_the_root_directory(void **state)
{
	struct fx *f = *state;
	char b[256];

	f->fs.root_name = strdup("gpt4_level_1");
	fx_file(f, "level_1_problem_2_sample_0_kernel.py", "x\n");
	assert_int_equal(run(f), HR_OK);
	assert_string_equal(fx_text(f, b, sizeof(b), "SELECT model || ' ' || run"
		" FROM evaluation"), "gpt4_level_1 gpt4_level_1");
}

static void kernel_without_result_has_unknown_verdicts(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "eval_results.json", "{\"3\": [" REC(0, 2.5) "]}");
	fx_file(f, RUN "level_1_problem_3_sample_0_kernel.py", "a\n");
	fx_file(f, RUN "level_1_problem_9_sample_2_kernel.py", "b\n");
	assert_int_equal(run(f), HR_OK);
	assert_int_equal(fx_num(f, "SELECT count(*) FROM evaluation WHERE"
		" problem_id = 9 AND sample_id = 2 AND compiled IS NULL AND"
		" correct IS NULL AND kernel_id IS NOT NULL"), 1);
}

static void result_without_kernel_has_no_code(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "eval_results.json", "{\"3\": [" REC(0, 2.5) "]}");
	fx_file(f, RUN "level_1_problem_4_sample_0_kernel.py", "a\n");
	assert_int_equal(run(f), HR_OK);
	assert_int_equal(fx_num(f, "SELECT count(*) FROM evaluation WHERE"
		" problem_id = 3 AND kernel_id IS NULL AND correct = 1"), 1);
}

static void identical_kernels_are_stored_once(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "level_1_problem_1_sample_0_kernel.py", "same\n");
	fx_file(f, RUN "level_1_problem_1_sample_1_kernel.py", "same\n");
	assert_int_equal(run(f), HR_OK);
	assert_int_equal(fx_num(f, "SELECT count(*) FROM kernel"), 1);
	assert_int_equal(fx_num(f, "SELECT count(DISTINCT kernel_id) FROM"
		" evaluation"), 1);
	assert_int_equal(fx_num(f, "SELECT count(*) FROM evaluation"), 2);
}

static void wrong_field_type_names_file_problem_and_sample(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "eval_results.json", "{\"3\": [" REC(0, 2.5) ", {"
		"\"sample_id\": 1, \"compiled\": \"yes\"}]}");
	fx_file(f, RUN "level_1_problem_3_sample_0_kernel.py", "a\n");
	assert_int_equal(run(f), HR_INPUT);
	assert_string_equal(f->e.msg, "in: runs/r1/eval_results.json: problem"
		" \"3\" sample index 1: \"compiled\": must be true or false, not"
		" a string");
}

static void malformed_json_gives_line_column_and_byte(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "eval_results.json", "{\n\"3\": [\n  {\"compiled\": ,}\n]}");
	fx_file(f, RUN "level_1_problem_3_sample_0_kernel.py", "a\n");
	assert_int_equal(run(f), HR_INPUT);
	assert_string_equal(f->e.msg, "in: runs/r1/eval_results.json: line 3,"
		" column 16 (byte 24): malformed JSON");
}

static void truncated_json_says_unexpected_end(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "eval_results.json", "{\"3\": [");
	fx_file(f, RUN "level_1_problem_3_sample_0_kernel.py", "a\n");
	assert_int_equal(run(f), HR_INPUT);
	assert_non_null(strstr(f->e.msg, "malformed JSON (unexpected end)"));
}

static void invalid_utf8_in_kernel_is_refused(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "level_1_problem_3_sample_0_kernel.py", "ok\n\xc3\x28\n");
	assert_int_equal(run(f), HR_INPUT);
	assert_string_equal(f->e.msg, "in: runs/r1/level_1_problem_3_sample_0_"
		"kernel.py: line 2, column 1 (byte 3): not valid UTF-8");
}

static void same_sample_twice_in_array_is_refused(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "eval_results.json", "{\"3\": [" REC(0, 2.5) ", "
		REC(0, 2.0) "]}");
	fx_file(f, RUN "level_1_problem_3_sample_0_kernel.py", "a\n");
	assert_int_equal(run(f), HR_INPUT);
	assert_non_null(strstr(f->e.msg, "duplicate record"));
	assert_non_null(strstr(f->e.msg, "eval_results.json#3[0]"));
	assert_non_null(strstr(f->e.msg, "eval_results.json#3[1]"));
}

static void correctness_trials_must_be_k_of_n(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "eval_results.json", "{\"3\": {\"compiled\": true,"
		" \"correctness\": true, \"metadata\": {\"correctness_trials\":"
		" \"5 of 5\"}}}");
	fx_file(f, RUN "level_1_problem_3_sample_0_kernel.py", "a\n");
	assert_int_equal(run(f), HR_INPUT);
	assert_non_null(strstr(f->e.msg, "\"correctness_trials\": expected"));
}

static void problem_key_must_be_a_positive_integer(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "eval_results.json", "{\"level1\": {}}");
	fx_file(f, RUN "level_1_problem_3_sample_0_kernel.py", "a\n");
	assert_int_equal(run(f), HR_INPUT);
	assert_non_null(strstr(f->e.msg, "key \"level1\""));
}

static void level_comes_from_directory_name_without_kernels(void **state)
{
	struct fx *f = *state;

	fx_file(f, "gpt_level_2/eval_results.json", "{\"3\": " REC(0, 2.5) "}");
	assert_int_equal(run(f), HR_OK);
	assert_int_equal(fx_num(f, "SELECT level FROM evaluation"), 2);
}

static void unknown_level_is_refused(void **state)
{
	struct fx *f = *state;

	fx_file(f, "gpt/eval_results.json", "{\"3\": " REC(0, 2.5) "}");
	assert_int_equal(run(f), HR_INPUT);
	assert_non_null(strstr(f->e.msg, "cannot tell the level"));
}

static void input_without_runs_or_baselines_is_refused(void **state)
{
	struct fx *f = *state;

	fx_file(f, "README.md", "hello\n");
	assert_int_equal(run(f), HR_INPUT);
	assert_non_null(strstr(f->e.msg, "no KernelBench run directory"));
}

static void baseline_file_names_give_kinds(void **state)
{
	struct fx *f = *state;
	char b[256];

	fx_file(f, "H100/baseline_time_torch.json",
		"{\"level1\": {" BASE("1_A.py", 3.0, "H100") "}}");
	fx_file(f, "H100/baseline_time_torch_compile_inductor_max-autotune.json",
		"{\"level1\": {" BASE("1_A.py", 3.0, "H100") "}}");
	fx_file(f, "H100/baseline_time_torch_compile_cudagraphs.json",
		"{\"level1\": {" BASE("1_A.py", 3.0, "H100") "}}");
	assert_int_equal(run(f), HR_OK);
	assert_string_equal(fx_text(f, b, sizeof(b), "SELECT group_concat("
		"baseline_kind || '@' || hardware_dir, ' ') FROM (SELECT * FROM"
		" baseline ORDER BY baseline_kind)"), "compile_cudagraphs@H100"
		" compile_inductor_max-autotune@H100 eager@H100");
	assert_int_equal(f->ctx.n_baselines, 3);
}

static void speedup_is_baseline_mean_over_runtime(void **state)
{
	struct fx *f = *state;
	char b[256];

	fx_file(f, RUN "eval_results.json", "{\"1\": [" REC(0, 2.5) "]}");
	fx_file(f, RUN "level_1_problem_1_sample_0_kernel.py", "a\n");
	fx_file(f, "timing/H100_Modal/baseline_time_torch.json",
		"{\"level1\": {" BASE("1_Square_matrix_multiplication_.py", 3.0,
				      "H100") "}}");
	assert_int_equal(run(f), HR_OK);
	assert_true(fx_num(f, "SELECT value FROM speedup") == 3.0 / 2.5);
	assert_string_equal(fx_text(f, b, sizeof(b), "SELECT baseline_kind ||"
		" ' ' || origin || ' ' || baseline_ms || ' ' || baseline_ref"
		" FROM speedup"), "eager computed 3.0 timing/H100_Modal/baseline"
		"_time_torch.json: level1 \"1_Square_matrix_multiplication_.py\"");
}

static void problem_name_comes_from_baseline_file_stem(void **state)
{
	struct fx *f = *state;
	char b[256];

	fx_file(f, RUN "level_1_problem_1_sample_0_kernel.py", "a\n");
	fx_file(f, "H100/baseline_time_torch.json", "{\"level1\": {"
		BASE("1_Square_matrix_multiplication_.py", 3.0, "H100") "}}");
	assert_int_equal(run(f), HR_OK);
	assert_string_equal(fx_text(f, b, sizeof(b), "SELECT problem_name FROM"
		" evaluation"), "1_Square_matrix_multiplication_");
}

static void incorrect_evaluation_gets_no_speedup(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "eval_results.json", "{\"1\": [{\"sample_id\": 0,"
		" \"compiled\": true, \"correctness\": false, \"runtime\": 2.0}]}");
	fx_file(f, RUN "level_1_problem_1_sample_0_kernel.py", "a\n");
	fx_file(f, "H100/baseline_time_torch.json", "{\"level1\": {"
		BASE("1_A.py", 3.0, "H100") "}}");
	assert_int_equal(run(f), HR_OK);
	assert_int_equal(fx_num(f, "SELECT count(*) FROM speedup"), 0);
}

static void baseline_of_another_level_or_id_is_not_used(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "eval_results.json", "{\"1\": [" REC(0, 2.5) "]}");
	fx_file(f, RUN "level_1_problem_1_sample_0_kernel.py", "a\n");
	fx_file(f, "H100/baseline_time_torch.json", "{\"level2\": {"
		BASE("1_A.py", 3.0, "H100") "}, \"level1\": {"
		BASE("11_B.py", 3.0, "H100") "}}");
	assert_int_equal(run(f), HR_OK);
	assert_int_equal(fx_num(f, "SELECT count(*) FROM speedup"), 0);
}

static void baseline_on_another_gpu_gives_no_speedup(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "eval_results.json", "{\"1\": [" REC(0, 2.5) "]}");
	fx_file(f, RUN "level_1_problem_1_sample_0_kernel.py", "a\n");
	fx_file(f, "L40S/baseline_time_torch.json", "{\"level1\": {"
		BASE("1_A.py", 3.0, "NVIDIA L40S") "}}");
	assert_int_equal(run(f), HR_OK);
	assert_int_equal(fx_num(f, "SELECT count(*) FROM speedup"), 0);
	assert_int_equal(cJSON_GetObjectItem(f->ctx.notes, "speedups_not_"
		"computed_no_single_baseline_on_the_same_gpu")->valueint, 1);
}

static void several_hardware_dirs_pick_the_matching_gpu(void **state)
{
	struct fx *f = *state;
	char b[256];

	fx_file(f, RUN "eval_results.json", "{\"1\": [" REC(0, 2.0) "]}");
	fx_file(f, RUN "level_1_problem_1_sample_0_kernel.py", "a\n");
	fx_file(f, "A100/baseline_time_torch.json", "{\"level1\": {"
		BASE("1_A.py", 9.0, "A100") "}}");
	fx_file(f, "H100/baseline_time_torch.json", "{\"level1\": {"
		BASE("1_A.py", 3.0, "H100") "}}");
	assert_int_equal(run(f), HR_OK);
	assert_true(fx_num(f, "SELECT value FROM speedup") == 1.5);
	assert_string_equal(fx_text(f, b, sizeof(b), "SELECT baseline_ref FROM"
		" speedup"), "H100/baseline_time_torch.json: level1 \"1_A.py\"");
}

static void baseline_with_wrong_type_names_file_and_key(void **state)
{
	struct fx *f = *state;

	fx_file(f, "H100/baseline_time_torch.json", "{\"level1\": {\"1_A.py\":"
		" {\"mean\": \"3.0\"}}}");
	assert_int_equal(run(f), HR_INPUT);
	assert_string_equal(f->e.msg, "in: H100/baseline_time_torch.json:"
		" level1 \"1_A.py\": \"mean\": must be a number, not a string");
}

static void notes_record_unit_and_id_base(void **state)
{
	struct fx *f = *state;

	fx_file(f, RUN "level_1_problem_1_sample_0_kernel.py", "a\n");
	assert_int_equal(run(f), HR_OK);
	assert_non_null(strstr(cJSON_GetObjectItem(f->ctx.notes,
		"runtime_unit")->valuestring, "ms assumed"));
	assert_non_null(strstr(cJSON_GetObjectItem(f->ctx.notes,
		"problem_ids")->valuestring, "1-based"));
	assert_int_equal(fx_num(f, "SELECT problem_id_base FROM evaluation"), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(array_schema_stores_every_field),
		FX_TEST(metadata_is_kept_as_json),
		FX_TEST(object_schema_is_one_record_per_problem),
		FX_TEST(flat_schema_reads_correct_and_avg_runtime),
		FX_TEST(early_results_file_names_model_and_level),
		FX_TEST(minus_one_means_no_runtime),
		FX_TEST(other_negative_runtime_is_refused),
		FX_TEST(first_error_key_is_the_error_kind),
		FX_TEST(model_and_precision_come_from_generation_config),
		FX_TEST(model_is_run_directory_name_without_config),
		FX_TEST(top_level_run_is_named_after_the_root_directory),
		FX_TEST(kernel_without_result_has_unknown_verdicts),
		FX_TEST(result_without_kernel_has_no_code),
		FX_TEST(identical_kernels_are_stored_once),
		FX_TEST(wrong_field_type_names_file_problem_and_sample),
		FX_TEST(malformed_json_gives_line_column_and_byte),
		FX_TEST(truncated_json_says_unexpected_end),
		FX_TEST(invalid_utf8_in_kernel_is_refused),
		FX_TEST(same_sample_twice_in_array_is_refused),
		FX_TEST(correctness_trials_must_be_k_of_n),
		FX_TEST(problem_key_must_be_a_positive_integer),
		FX_TEST(level_comes_from_directory_name_without_kernels),
		FX_TEST(unknown_level_is_refused),
		FX_TEST(input_without_runs_or_baselines_is_refused),
		FX_TEST(baseline_file_names_give_kinds),
		FX_TEST(speedup_is_baseline_mean_over_runtime),
		FX_TEST(problem_name_comes_from_baseline_file_stem),
		FX_TEST(incorrect_evaluation_gets_no_speedup),
		FX_TEST(baseline_of_another_level_or_id_is_not_used),
		FX_TEST(baseline_on_another_gpu_gives_no_speedup),
		FX_TEST(several_hardware_dirs_pick_the_matching_gpu),
		FX_TEST(baseline_with_wrong_type_names_file_and_key),
		FX_TEST(notes_record_unit_and_id_base),
	};
	return cmocka_run_group_tests_name("kernelbench", tests, NULL, NULL);
}
