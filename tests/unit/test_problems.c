/* test_problems.c - ingest_problems: levelN/ID_Name.py at any depth. */
#include "fixture.h"

static const char code[] = "import torch\nclass Model: pass\n";

static int run(struct fx *f)
{
	fx_finish(f);
	return ingest_problems(&f->fs, &f->ctx, &f->e);
}

static void problems_are_stored_with_their_sha256(void **state)
{
	struct fx *f = *state;
	char b[256], sha[HR_SHA256_HEX];

	fx_file(f, "KernelBench/level1/19_ReLU.py", code);
	assert_int_equal(run(f), HR_OK);
	assert_int_equal(hr_sha256_hex(code, strlen(code), sha), 0);
	fx_text(f, b, sizeof(b), "SELECT level || ' ' || problem_id || ' ' ||"
		" name || ' ' || file_name || ' ' || sha256 FROM problem");
	assert_non_null(strstr(b, "1 19 19_ReLU level1/19_ReLU.py "));
	assert_non_null(strstr(b, sha));
	assert_int_equal(f->ctx.n_problems, 1);
}

static void problem_set_is_named_after_the_source(void **state)
{
	struct fx *f = *state;
	char b[64];

	fx_file(f, "level2/1_Conv.py", code);
	assert_int_equal(run(f), HR_OK);
	assert_string_equal(fx_text(f, b, sizeof(b), "SELECT name FROM"
		" problem_set"), "src");
}

static void other_files_are_ignored(void **state)
{
	struct fx *f = *state;

	fx_file(f, "level1/1_A.py", code);
	fx_file(f, "level1/__init__.py", "");
	fx_file(f, "level1/README.md", "x");
	fx_file(f, "level1/notes_1.py", code);
	fx_file(f, "scripts/2_B.py", code);
	assert_int_equal(run(f), HR_OK);
	assert_int_equal(fx_num(f, "SELECT count(*) FROM problem"), 1);
}

static void malformed_level_directory_is_refused(void **state)
{
	struct fx *f = *state;

	fx_file(f, "level1/1_A.py", code);
	fx_file(f, "levelA/2_B.py", code);
	assert_int_equal(run(f), HR_INPUT);
	assert_string_equal(f->e.msg, "in: levelA/2_B.py: directory 'levelA'"
		" looks like a level but is not named levelN (N >= 1)");
}

static void same_problem_twice_is_refused(void **state)
{
	struct fx *f = *state;

	fx_file(f, "v0/level1/1_A.py", code);
	fx_file(f, "v1/level1/1_A.py", "other\n");
	assert_int_equal(run(f), HR_INPUT);
	assert_non_null(strstr(f->e.msg, "duplicate problem"));
}

static void input_without_problems_is_refused(void **state)
{
	struct fx *f = *state;

	fx_file(f, "README.md", "x");
	assert_int_equal(run(f), HR_INPUT);
	assert_non_null(strstr(f->e.msg, "no problem files"));
}

static void problem_code_must_be_utf8(void **state)
{
	struct fx *f = *state;

	fx_file(f, "level1/1_A.py", "x = '\xff'\n");
	assert_int_equal(run(f), HR_INPUT);
	assert_non_null(strstr(f->e.msg, "level1/1_A.py: line 1, column 6"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(problems_are_stored_with_their_sha256),
		FX_TEST(problem_set_is_named_after_the_source),
		FX_TEST(other_files_are_ignored),
		FX_TEST(malformed_level_directory_is_refused),
		FX_TEST(same_problem_twice_is_refused),
		FX_TEST(input_without_problems_is_refused),
		FX_TEST(problem_code_must_be_utf8),
	};
	return cmocka_run_group_tests_name("problems", tests, NULL, NULL);
}
