/* test_report_findings.c - the static finding rules of report/findings.h
 * and the PDF date rule of figures/figures.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "../../figures/figures.h"
#include "../../readmodel/auditset.h"
#include "../../report/findings.h"

static const char reference[] =
	"import torch\n"
	"class Model(nn.Module):\n"
	"    def forward(self, x):\n"
	"        return torch.softmax(x / self.t, dim=-1)\n";

static void code_without_global_function_is_flagged(void **state)
{
	char ev[256];

	assert_int_equal(finding_no_device_code("import torch\n", ev,
						sizeof(ev)), 1);
	assert_non_null(strstr(ev, "no __global__"));
}

static void cuda_kernel_is_device_code(void **state)
{
	char ev[256];

	assert_int_equal(finding_no_device_code(
		"src = '__global__ void k(float *x) {}'\n", ev, sizeof(ev)), 0);
}

static void triton_kernel_is_device_code(void **state)
{
	char ev[256];

	assert_int_equal(finding_no_device_code(
		"@triton.jit\ndef k(x_ptr):\n    pass\n", ev, sizeof(ev)), 0);
}

static void forward_calling_the_reference_op_is_flagged(void **state)
{
	static const char cand[] =
		"class ModelNew(nn.Module):\n"
		"    def forward(self, x):\n"
		"        y = torch.empty_like(x)\n"
		"        return torch.softmax(x / self.t, dim=-1)\n";
	char ev[256];

	assert_int_equal(finding_calls_reference_op(cand, reference, ev,
						    sizeof(ev)), 1);
	assert_string_equal(ev, "forward() calls softmax as the reference "
			    "does");
}

static void functional_alias_of_the_reference_op_is_flagged(void **state)
{
	static const char cand[] =
		"class ModelNew(nn.Module):\n"
		"    def forward(self, x):\n"
		"        return F.softmax(x, -1)\n";
	char ev[256];

	assert_int_equal(finding_calls_reference_op(cand, reference, ev,
						    sizeof(ev)), 1);
}

static void op_outside_forward_is_not_flagged(void **state)
{
	static const char cand[] =
		"def check(x):\n"
		"    return torch.softmax(x, -1)\n"
		"class ModelNew(nn.Module):\n"
		"    def forward(self, x):\n"
		"        return ext.softmax_cuda(x)\n"
		"\n"
		"def other(x):\n"
		"    return torch.softmax(x, -1)\n";
	char ev[256];

	assert_int_equal(finding_calls_reference_op(cand, reference, ev,
						    sizeof(ev)), 0);
}

static void pdf_dates_take_the_report_date(void **state)
{
	char pdf[] = "<< /CreationDate (D:20991231235959Z) >>";

	assert_int_equal(figures_pdf_fix_dates(pdf, strlen(pdf),
					       "2026-01-01T00:00:00Z"), 1);
	assert_string_equal(pdf, "<< /CreationDate (D:20260101000000Z) >>");
}

/* auditset_find: the first row of a problem, whatever the problems
 * around it; NULL for one not audited. */
static void audit_lookup_finds_the_first_row_of_a_problem(void **state)
{
	struct audit_row rows[7] = {
		{ .level = 1, .problem_id = 1 }, { .level = 1, .problem_id = 3 },
		{ .level = 1, .problem_id = 3 }, { .level = 1, .problem_id = 19 },
		{ .level = 2, .problem_id = 1 }, { .level = 2, .problem_id = 1 },
		{ .level = 3, .problem_id = 50 },
	};
	struct auditset as = { .rows = rows, .n = 7 };

	(void)state;
	assert_ptr_equal(auditset_find(&as, 1, 1), &rows[0]);
	assert_ptr_equal(auditset_find(&as, 1, 3), &rows[1]);
	assert_ptr_equal(auditset_find(&as, 1, 19), &rows[3]);
	assert_ptr_equal(auditset_find(&as, 2, 1), &rows[4]);
	assert_ptr_equal(auditset_find(&as, 3, 50), &rows[6]);
	assert_null(auditset_find(&as, 1, 2));
	assert_null(auditset_find(&as, 2, 19));
	assert_null(auditset_find(&as, 0, 1));
	assert_null(auditset_find(&as, 4, 1));
	as.n = 0;
	assert_null(auditset_find(&as, 1, 1));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(audit_lookup_finds_the_first_row_of_a_problem),
		cmocka_unit_test(code_without_global_function_is_flagged),
		cmocka_unit_test(cuda_kernel_is_device_code),
		cmocka_unit_test(triton_kernel_is_device_code),
		cmocka_unit_test(forward_calling_the_reference_op_is_flagged),
		cmocka_unit_test(functional_alias_of_the_reference_op_is_flagged),
		cmocka_unit_test(op_outside_forward_is_not_flagged),
		cmocka_unit_test(pdf_dates_take_the_report_date),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
