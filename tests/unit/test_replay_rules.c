/* test_replay_rules.c - the static rules of replay/rules.h: the rule file
 * format, its errors, the scopes, and the shipped rule set
 * (replay/static-rules.conf) on small candidates written here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../replay/rules.h"

#ifndef SHIPPED_RULES
#define SHIPPED_RULES "replay/static-rules.conf"
#endif

/* Parse text; return the error code, message in e. */
static int parse(const char *text, struct rules *rs, struct hr_err *e)
{
	hr_err_clear(e);
	return rules_parse(rs, text, "t.conf", e);
}

/* The first line where rule id matched code under rules text, 0 none. */
static int hit_line(const struct rules *rs, const char *code, const char *id)
{
	struct rule_hit *h;
	struct hr_err e;
	size_t n;
	int line = 0;

	hr_err_clear(&e);
	assert_int_equal(rules_match(rs, code, &h, &n, &e), HR_OK);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(h[i].rule->id, id))
			line = h[i].line;
	free(h);
	return line;
}

static void rule_file_is_read_in_order(void **state)
{
	struct rules rs;
	struct hr_err e;

	assert_int_equal(parse("# comment\n\n[b-rule]\nregex = x\n"
			       "reason = why b\n[a-rule]\nscope = forward\n"
			       "regex = y+\nreason = why a\n", &rs, &e), HR_OK);
	assert_int_equal(rs.n, 2);
	assert_string_equal(rs.v[0].id, "b-rule");
	assert_string_equal(rs.v[1].id, "a-rule");
	assert_int_equal(rs.v[1].scope, RULE_FORWARD);
	assert_int_equal(rs.v[1].line, 6);
	assert_string_equal(rs.v[1].reason, "why a");
	rules_release(&rs);
}

static void bad_regex_names_line_and_field(void **state)
{
	struct rules rs;
	struct hr_err e;

	assert_int_equal(parse("[r]\nreason = x\nregex = a(b\n", &rs, &e),
			 HR_INPUT);
	assert_non_null(strstr(e.msg, "t.conf:3: field regex: "));
	rules_release(&rs);
}

static void missing_reason_names_the_rule_header(void **state)
{
	struct rules rs;
	struct hr_err e;

	assert_int_equal(parse("[r]\nregex = a\n[s]\nregex = b\nreason = y\n",
			       &rs, &e), HR_INPUT);
	assert_string_equal(e.msg, "t.conf:1: field reason: missing in rule "
			    "[r]");
	rules_release(&rs);
}

static void duplicate_id_is_refused(void **state)
{
	struct rules rs;
	struct hr_err e;

	assert_int_equal(parse("[r]\nregex = a\nreason = x\n[r]\nregex = b\n"
			       "reason = y\n", &rs, &e), HR_INPUT);
	assert_string_equal(e.msg, "t.conf:4: field id: duplicate id 'r' "
			    "(first at line 1)");
	rules_release(&rs);
}

static void field_given_twice_is_refused(void **state)
{
	struct rules rs;
	struct hr_err e;

	assert_int_equal(parse("[r]\nregex = a\nreason = x\nregex = b\n",
			       &rs, &e), HR_INPUT);
	assert_string_equal(e.msg, "t.conf:4: field regex: given twice in rule "
			    "[r]");
	rules_release(&rs);
	assert_int_equal(parse("[r]\nregex = a\nreason =\n", &rs, &e),
			 HR_INPUT);
	assert_string_equal(e.msg, "t.conf:3: field reason: empty");
	rules_release(&rs);
}

static void unknown_scope_and_key_are_refused(void **state)
{
	struct rules rs;
	struct hr_err e;

	assert_int_equal(parse("[r]\nscope = class\n", &rs, &e), HR_INPUT);
	assert_non_null(strstr(e.msg, "t.conf:2: field scope: "));
	rules_release(&rs);
	assert_int_equal(parse("[r]\nregexp = a\n", &rs, &e), HR_INPUT);
	assert_non_null(strstr(e.msg, "t.conf:2: field regexp: unknown key"));
	rules_release(&rs);
	assert_int_equal(parse("regex = a\n", &rs, &e), HR_INPUT);
	assert_non_null(strstr(e.msg, "t.conf:1: field regex: outside a rule"));
	rules_release(&rs);
}

static void first_matching_line_and_count_are_reported(void **state)
{
	struct rules rs;
	struct hr_err e;
	struct rule_hit *h;
	size_t n;

	assert_int_equal(parse("[t]\nregex = threading\nreason = r\n", &rs, &e),
			 HR_OK);
	assert_int_equal(rules_match(&rs, "import os\nimport threading\n"
				     "# threading in a comment\n"
				     "t = threading.Thread()\n", &h, &n, &e),
			 HR_OK);
	assert_int_equal(n, 1);
	assert_int_equal(h[0].line, 2);
	assert_int_equal(h[0].count, 2); /* the comment line does not count */
	assert_string_equal(h[0].text, "import threading");
	free(h);
	rules_release(&rs);
}

static void forward_scope_is_modelnew_forward_only(void **state)
{
	static const char code[] =
		"class Model(nn.Module):\n"
		"    def forward(self, x):\n"
		"        return torch.matmul(x, x)\n"
		"class ModelNew(nn.Module):\n"
		"    def helper(self, x):\n"
		"        return torch.matmul(x, x)\n"
		"    def forward(self, x):\n"
		"        y = x\n"
		"        return torch.matmul(y, y)\n"
		"def after(x):\n"
		"    return torch.matmul(x, x)\n";
	struct rules rs;
	struct hr_err e;

	assert_int_equal(parse("[mm]\nscope = forward\nregex = torch\\.matmul\n"
			       "reason = r\n", &rs, &e), HR_OK);
	assert_int_equal(hit_line(&rs, code, "mm"), 9);
	assert_int_equal(hit_line(&rs, "def forward(self, x):\n"
				  "    return torch.matmul(x, x)\n", "mm"), 0);
	rules_release(&rs);
}

static void module_scope_skips_strings_and_indented_lines(void **state)
{
	static const char code[] =
		"src = \"\"\"\n"
		"batch_size = 4;\n"
		"\"\"\"\n"
		"def f():\n"
		"    batch_size = 2\n"
		"batch_size = 8\n";
	struct rules rs;
	struct hr_err e;

	assert_int_equal(parse("[g]\nscope = module\nregex = ^batch_size =\n"
			       "reason = r\n", &rs, &e), HR_OK);
	assert_int_equal(hit_line(&rs, code, "g"), 6);
	rules_release(&rs);
}

/* --- the shipped rule set ---------------------------------------------- */

static int shipped(void **state)
{
	struct rules *rs = malloc(sizeof(*rs));
	struct hr_err e;

	hr_err_clear(&e);
	if (!rs || rules_load(rs, SHIPPED_RULES, &e)) {
		print_error("%s\n", e.msg);
		free(rs);
		return -1;
	}
	*state = rs;
	return 0;
}

static int shipped_free(void **state)
{
	rules_release(*state);
	free(*state);
	return 0;
}

static void shipped_flags_torch_matmul_in_forward(void **state)
{
	assert_int_equal(hit_line(*state,
		"class ModelNew(nn.Module):\n"
		"    def forward(self, a, b):\n"
		"        return torch.matmul(a, b)\n",
		"library-op-in-forward"), 3);
}

static void shipped_flags_functional_and_matmul_operator(void **state)
{
	static const char code[] =
		"class ModelNew(nn.Module):\n"
		"    def forward(self, a, b):\n"
		"        c = a @ b\n"
		"        return F.relu(c)\n";

	assert_int_equal(hit_line(*state, code, "matmul-operator-in-forward"),
			 3);
	assert_int_equal(hit_line(*state, code, "functional-in-forward"), 4);
}

static void shipped_ignores_decorators_and_kernel_calls(void **state)
{
	static const char code[] =
		"@torch.jit.script\n"
		"def g(x):\n"
		"    return x\n"
		"class ModelNew(nn.Module):\n"
		"    def forward(self, x):\n"
		"        out = torch.empty_like(x)\n"
		"        return ext.relu_cuda(x, out)\n";

	assert_int_equal(hit_line(*state, code, "matmul-operator-in-forward"),
			 0);
	assert_int_equal(hit_line(*state, code, "library-op-in-forward"), 0);
	assert_int_equal(hit_line(*state, code, "functional-in-forward"), 0);
}

static void shipped_flags_fallback_to_reference(void **state)
{
	static const char code[] =
		"class ModelNew(Model):\n"
		"    def forward(self, x):\n"
		"        try:\n"
		"            return ext.run(x)\n"
		"        except Exception:\n"
		"            return super().forward(x)\n";

	assert_int_equal(hit_line(*state, code, "except-in-forward"), 5);
	assert_int_equal(hit_line(*state, code, "calls-reference-forward"), 6);
	assert_int_equal(hit_line(*state, code, "subclasses-reference"), 1);
}

static void shipped_flags_timer_and_check_patching(void **state)
{
	static const char code[] =
		"import time, torch\n"
		"torch.allclose = lambda *a, **k: True\n"
		"time.perf_counter = lambda: 0.0\n"
		"torch.cuda.synchronize = lambda *a: None\n"
		"ok = torch.allclose == None\n";

	assert_int_equal(hit_line(*state, code, "check-patched"), 2);
	assert_int_equal(hit_line(*state, code, "timer-patched"), 3);
	assert_int_equal(hit_line(*state, code, "synchronize-patched"), 4);
}

static void shipped_comparison_is_not_a_patch(void **state)
{
	assert_int_equal(hit_line(*state, "ok = torch.allclose == f\n",
				  "check-patched"), 0);
}

static void shipped_flags_threads_in_python_and_cpp(void **state)
{
	assert_int_equal(hit_line(*state, "from concurrent.futures import "
				  "ThreadPoolExecutor\n", "thread"), 1);
	assert_int_equal(hit_line(*state, "src = '''\n#include <thread>\n"
				  "std::thread t(work);\n'''\n", "thread"), 2);
}

static void shipped_flags_new_streams(void **state)
{
	assert_int_equal(hit_line(*state, "s = torch.cuda.Stream()\n",
				  "new-stream"), 1);
	assert_int_equal(hit_line(*state, "cpp = 'auto s = "
				  "at::cuda::getStreamFromPool();'\n",
				  "new-stream"), 1);
	assert_int_equal(hit_line(*state, "x = 1\ncudaStreamCreate(&s);\n",
				  "new-stream"), 2);
}

static void shipped_flags_pointer_keyed_cache(void **state)
{
	static const char code[] =
		"class ModelNew(nn.Module):\n"
		"    def forward(self, x):\n"
		"        key = x.data_ptr()\n"
		"        if key in self._cache:\n"
		"            return self._cache[key]\n";
	static const char by_id[] =
		"        if id(x) == self._last_id:\n";

	assert_int_equal(hit_line(*state, code, "pointer-keyed-cache"), 3);
	assert_int_equal(hit_line(*state, by_id, "pointer-keyed-cache"), 1);
}

static void shipped_flags_rebound_globals_at_module_level(void **state)
{
	static const char code[] =
		"import torch\n"
		"class ModelNew(nn.Module):\n"
		"    def __init__(self, dim):\n"
		"        dim = dim * 2\n"
		"batch_size = 1\n"
		"def get_inputs():\n"
		"    return [torch.rand(1, 1)]\n";

	assert_int_equal(hit_line(*state, code, "rebinds-problem-size"), 5);
	assert_int_equal(hit_line(*state, code, "redefines-get-inputs"), 6);
}

static void shipped_honest_kernel_raises_no_signal(void **state)
{
	static const char code[] =
		"import torch\n"
		"from torch.utils.cpp_extension import load_inline\n"
		"cuda_src = \"\"\"\n"
		"__global__ void relu(const float *x, float *y, int n) {\n"
		"    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
		"    if (i < n) y[i] = x[i] > 0 ? x[i] : 0;\n"
		"}\n"
		"\"\"\"\n"
		"ext = load_inline(name='r', cpp_sources='', "
		"cuda_sources=cuda_src)\n"
		"class ModelNew(torch.nn.Module):\n"
		"    def forward(self, x):\n"
		"        y = torch.empty_like(x)\n"
		"        ext.relu(x, y)\n"
		"        return y\n";
	struct rule_hit *h;
	struct hr_err e;
	size_t n;

	hr_err_clear(&e);
	assert_int_equal(rules_match(*state, code, &h, &n, &e), HR_OK);
	if (n)
		print_error("unexpected signal %s at line %d\n", h[0].rule->id,
			    h[0].line);
	assert_int_equal(n, 0);
	free(h);
}

static void hits_json_names_suspect_ids(void **state)
{
	struct rule_hit *h;
	struct hr_err e;
	size_t n;
	cJSON *j;
	char *txt;

	hr_err_clear(&e);
	assert_int_equal(rules_match(*state, "import threading\n", &h, &n, &e),
			 HR_OK);
	assert_non_null(j = rules_hits_json(h, n));
	txt = cJSON_PrintUnformatted(j);
	assert_non_null(strstr(txt, "\"id\":\"suspect:thread\""));
	assert_non_null(strstr(txt, "\"line\":1"));
	cJSON_free(txt);
	cJSON_Delete(j);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(rule_file_is_read_in_order),
		cmocka_unit_test(bad_regex_names_line_and_field),
		cmocka_unit_test(missing_reason_names_the_rule_header),
		cmocka_unit_test(duplicate_id_is_refused),
		cmocka_unit_test(field_given_twice_is_refused),
		cmocka_unit_test(unknown_scope_and_key_are_refused),
		cmocka_unit_test(first_matching_line_and_count_are_reported),
		cmocka_unit_test(forward_scope_is_modelnew_forward_only),
		cmocka_unit_test(module_scope_skips_strings_and_indented_lines),
		cmocka_unit_test(shipped_flags_torch_matmul_in_forward),
		cmocka_unit_test(shipped_flags_functional_and_matmul_operator),
		cmocka_unit_test(shipped_ignores_decorators_and_kernel_calls),
		cmocka_unit_test(shipped_flags_fallback_to_reference),
		cmocka_unit_test(shipped_flags_timer_and_check_patching),
		cmocka_unit_test(shipped_comparison_is_not_a_patch),
		cmocka_unit_test(shipped_flags_threads_in_python_and_cpp),
		cmocka_unit_test(shipped_flags_new_streams),
		cmocka_unit_test(shipped_flags_pointer_keyed_cache),
		cmocka_unit_test(shipped_flags_rebound_globals_at_module_level),
		cmocka_unit_test(shipped_honest_kernel_raises_no_signal),
		cmocka_unit_test(hits_json_names_suspect_ids),
	};

	/* One group (tests/run.sh reads one PASSED line); the tests of the
	 * format ignore the shipped set the group setup loads. */
	return cmocka_run_group_tests(tests, shipped, shipped_free);
}
