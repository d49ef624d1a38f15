/* test_replay_verdict.c - the audit verdict of replay/verdict.h: every
 * verdict, the evidence priority, faithful against robust, vacuity, and
 * the stored findings keeping evidence and signals apart.  Each result is
 * a worker result object written here as JSON. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "../../replay/verdict.h"

/* An honest robust result: 5 trials pass both checks, interval above 1. */
#define TRIALS_BOTH_PASS                                                     \
	"\"trials\": [{\"allclose_pass\": true, \"scale_invariant_pass\": true}," \
	"{\"allclose_pass\": true, \"scale_invariant_pass\": true}]"

static const struct verdict_gate not_vacuous = { 1, 0, 0, 0,
						 "kernelbench-fp32", 0 };
static const struct verdict_gate zeros_pass = { 1, 1, 1, 0,
						"kernelbench-bf16", 0 };
static const struct verdict_gate unaudited = { 0, 0, 0, 0, NULL, 0 };

/* The verdict of (worker verdict, result JSON, mode, gate). */
static const char *audit(const char *verdict, const char *json,
			 const char *mode, struct verdict_gate gate,
			 struct verdict_out *out)
{
	cJSON *res = json ? cJSON_Parse(json) : NULL;
	struct verdict_in in = {
		.res = res, .verdict = proto_verdict_of(verdict),
		.mode = HR_NMODES, .gate = gate,
	};

	if (mode)
		assert_int_equal(hr_mode_of(mode, &in.mode), 0);

	if (json)
		assert_non_null(res);
	verdict_compute(&in, out);
	cJSON_Delete(res);
	return out->verdict;
}

static void robust_pass_with_interval_above_one_is_verified_faster(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"ci_low\": 1.2, \"checks\": {"
				  TRIALS_BOTH_PASS "}}", "robust", not_vacuous,
				  &o), "verified-faster");
}

static void figures_within_clock_resolution_are_only_correct(void **s)
{
	struct verdict_out o;

	/* A calibration that took too much off: figures at the floor, an
	 * interval far above 1, the judge's clock resolving none of it. */
	assert_string_equal(audit("correct", "{\"ci_low\": 6.6, \"checks\": {"
				  TRIALS_BOTH_PASS ", \"timing\": {\"unresolved\": "
				  "{\"median_figure_ms\": 0.001, "
				  "\"resolution_ms\": 0.008}}}}", "robust",
				  not_vacuous, &o), "correct");
	assert_non_null(strstr(o.why, "clock resolution"));
	/* Resolved figures (no such record) stay verified. */
	assert_string_equal(audit("correct", "{\"ci_low\": 6.6, \"checks\": {"
				  TRIALS_BOTH_PASS ", \"timing\": {\"verified\": "
				  "true}}}", "robust", not_vacuous, &o),
			    "verified-faster");
}

static void audit_cut_at_its_budget_is_only_correct(void **s)
{
	struct verdict_out o;

	/* Slow calls: the distribution transforms after the third, and the
	 * escapes' pass, were not run within the audit phase's limit. */
	assert_string_equal(audit("correct", "{\"ci_low\": 2.5, \"checks\": {"
				  TRIALS_BOTH_PASS ", \"audit_cut\": [{\"step\": "
				  "\"distribution:shift\", \"used_s\": 4.1, "
				  "\"expected_s\": 1.2, \"budget_s\": 4.8}, "
				  "{\"step\": \"escapes\"}]}}", "robust",
				  not_vacuous, &o), "correct");
	assert_non_null(strstr(o.why, "2 of the audit's steps were not run"));
	/* An empty list cuts nothing. */
	assert_string_equal(audit("correct", "{\"ci_low\": 2.5, \"checks\": {"
				  TRIALS_BOTH_PASS ", \"audit_cut\": []}}", "robust",
				  not_vacuous, &o), "verified-faster");
	(void)s;
}

static void reference_that_waited_for_a_cpu_is_only_correct(void **s)
{
	struct verdict_out o;

	/* A busy host: the reference's threads waited for a CPU through a
	 * quarter of its readings, which lengthened them. */
	assert_string_equal(audit("correct", "{\"ci_low\": 1.3, \"checks\": {"
				  TRIALS_BOTH_PASS ", \"timing\": {"
				  "\"reference_waited\": {\"waited_ms\": 2.0, "
				  "\"reference_ms\": 8.0, \"share\": 0.25}}}}",
				  "robust", not_vacuous, &o), "correct");
	assert_non_null(strstr(o.why, "waited for a CPU"));
}

static void interval_reaching_one_is_only_correct(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"ci_low\": 0.97, \"checks\": {"
				  TRIALS_BOTH_PASS "}}", "robust", not_vacuous,
				  &o), "correct");
	assert_non_null(strstr(o.why, "0.97 is not above 1"));
}

static void faithful_is_at_most_correct(void **s)
{
	struct verdict_out o;

	/* The same numbers as the verified robust result. */
	assert_string_equal(audit("correct", "{\"ci_low\": 1.2, \"checks\": {"
				  TRIALS_BOTH_PASS "}}", "faithful",
				  not_vacuous, &o), "correct");
	assert_non_null(strstr(o.why, "no interval"));
}

static void mode_comes_from_semantics_when_not_given(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"ci_low\": 1.2, \"checks\": {"
				  "\"semantics\": {\"mode\": \"robust\"}, "
				  TRIALS_BOTH_PASS "}}", NULL, not_vacuous, &o),
			    "verified-faster");
}

static void scale_invariant_summary_false_blocks_verified(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"ci_low\": 3, \"checks\": {"
				  "\"scale_invariant\": false, "
				  TRIALS_BOTH_PASS "}}", "robust", not_vacuous,
				  &o), "correct");
	assert_string_equal(o.why, "the scale-invariant checks failed");
}

static void scale_invariant_not_computed_says_verified_impossible(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"ci_low\": 3, \"checks\": {"
				  "\"scale_invariant\": null, \"trials\": "
				  "[{\"pass\": true}]}}", "robust", not_vacuous,
				  &o), "correct");
	assert_non_null(strstr(o.why, "verified-faster is impossible"));
}

static void one_trial_failing_scale_invariant_blocks_verified(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"ci_low\": 3, \"checks\": {"
				  "\"trials\": [{\"allclose_pass\": 1, "
				  "\"scale_invariant_pass\": 1}, "
				  "{\"allclose_pass\": 1, "
				  "\"scale_invariant_pass\": 0}]}}", "robust",
				  not_vacuous, &o), "correct");
}

static void vacuous_problem_without_scale_invariant_pass_is_vacuous(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"ci_low\": 1.8, \"checks\": {"
				  "\"trials\": [{\"allclose_pass\": 1, "
				  "\"scale_invariant_pass\": 0}]}}", "robust",
				  zeros_pass, &o), "correct-vacuous");
	assert_non_null(strstr(o.why, "zeros, constant under "
			       "kernelbench-bf16"));
}

static void vacuous_problem_passed_scale_invariant_is_still_vacuous(void **s)
{
	struct verdict_out o;

	/* An output that is exactly zero (GEMM, max over dim 1 with keepdim,
	 * minus its own mean): the scale-invariant checks' 0/0 rule passes a
	 * real kernel, and zeros as well.  Never verified. */
	assert_string_equal(audit("correct", "{\"ci_low\": 1.8, \"checks\": {"
				  TRIALS_BOTH_PASS "}}", "robust", zeros_pass,
				  &o), "correct-vacuous");
	assert_non_null(strstr(o.why, "scale-invariant checks passed"));
}

/* checks.vacuity as hrworker/vacuity.py writes it, with its gates. */
#define VACUITY(z, c, i, d)                                                  \
	"\"vacuity\": {\"observed\": 5, \"zeros\": " z ", \"constant\": " c   \
	", \"input\": " i ", \"degenerate\": " d "}"

static void job_own_zero_gate_is_vacuous_without_a_problem_audit(void **s)
{
	struct verdict_out o;

	/* References carried by the record: no audit problems row. */
	assert_string_equal(audit("correct", "{\"ci_low\": 30.8, \"checks\": {"
				  TRIALS_BOTH_PASS ", " VACUITY("true", "true",
				  "false", "false") "}}", "robust", unaudited,
				  &o), "correct-vacuous");
	assert_non_null(strstr(o.why, "zeros, constant"));
	assert_non_null(strstr(o.why, "every trial's draw"));
}

static void job_own_constant_gate_is_vacuous(void **s)
{
	struct verdict_out o;

	/* softmax over a dimension of size 1: the output is 1 everywhere */
	assert_string_equal(audit("correct", "{\"ci_low\": 21.6, \"checks\": {"
				  TRIALS_BOTH_PASS ", " VACUITY("false", "true",
				  "false", "true") "}}", "robust", not_vacuous,
				  &o), "correct-vacuous");
}

static void degenerate_reference_is_vacuous(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"ci_low\": 4, \"checks\": {"
				  TRIALS_BOTH_PASS ", " VACUITY("false", "false",
				  "false", "true") "}}", "robust", unaudited,
				  &o), "correct-vacuous");
	assert_non_null(strstr(o.why, "did not change over draws"));
}

static void job_own_gate_that_passes_nothing_leaves_verified(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"ci_low\": 1.8, \"checks\": {"
				  TRIALS_BOTH_PASS ", " VACUITY("false", "false",
				  "false", "false") "}}", "robust", unaudited,
				  &o), "verified-faster");
}

static void vacuity_never_outranks_evidence_or_incorrect(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"findings\": [{\"id\": "
				  "\"partial-write\"}], \"checks\": {"
				  TRIALS_BOTH_PASS ", " VACUITY("true", "false",
				  "false", "false") "}}", "robust", unaudited,
				  &o), "exploit:partial-write");
	assert_string_equal(audit("incorrect", "{\"checks\": {"
				  VACUITY("true", "false", "false", "false")
				  "}}", "robust", unaudited, &o), "incorrect");
}

static void library_or_precision_evidence_says_nothing_of_a_vacuous_check(void **s)
{
	struct verdict_out o;

	/* torch.zeros on a problem zeros pass (a library fill on a GPU):
	 * the check proves no output right, so who computed it is no
	 * evidence; the vacuity is the verdict. */
	assert_string_equal(audit("correct", "{\"ci_low\": 3, \"findings\": "
				  "[{\"id\": \"no-own-kernel\"}, {\"id\": "
				  "\"precision-downgrade\"}], \"checks\": {"
				  TRIALS_BOTH_PASS ", " VACUITY("true", "false",
				  "false", "false") "}}", "robust", unaudited,
				  &o), "correct-vacuous");
	assert_string_equal(audit("correct", "{\"findings\": [{\"id\": "
				  "\"no-own-kernel\"}], \"checks\": {"
				  TRIALS_BOTH_PASS "}}", "faithful", zeros_pass,
				  &o), "correct-vacuous");
	/* other evidence still outranks the vacuity */
	assert_string_equal(audit("correct", "{\"findings\": [{\"id\": "
				  "\"no-own-kernel\"}, {\"id\": \"side-stream\"}], "
				  "\"checks\": {" TRIALS_BOTH_PASS ", "
				  VACUITY("true", "false", "false", "false") "}}",
				  "robust", unaudited, &o), "exploit:side-stream");
	assert_string_equal(o.why, "evidence side-stream");
}

static void input_or_constant_passing_problem_is_vacuous_even_when_scale_invariant(void **s)
{
	struct verdict_gate input_pass = { 1, 0, 0, 1, "kernelbench-v0", 0 };
	struct verdict_out o;

	/* ReLU on [0, 1): the identity is exact; no check tells them apart. */
	assert_string_equal(audit("correct", "{\"ci_low\": 1.8, \"checks\": {"
				  TRIALS_BOTH_PASS "}}", "robust", input_pass,
				  &o), "correct-vacuous");
	assert_non_null(strstr(o.why, "no check can tell"));
	input_pass.input = 0;
	input_pass.constant = 1;   /* 5 + 1e-4 x: the constant 5 is as close */
	assert_string_equal(audit("correct", "{\"ci_low\": 1.8, \"checks\": {"
				  TRIALS_BOTH_PASS "}}", "robust", input_pass,
				  &o), "correct-vacuous");
}

static void audit_error_is_a_failure_of_the_audit(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"ci_low\": 1.8, \"checks\": {"
				  TRIALS_BOTH_PASS ", \"audit_error\": \"timing: "
				  "RuntimeError: boom\"}}", "robust",
				  not_vacuous, &o), "failed:audit");
	assert_non_null(strstr(o.why, "boom"));
}

static void unaudited_problem_is_never_vacuous(void **s)
{
	struct verdict_gate none = { 0, 1, 1, 1, NULL, 1 };
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"checks\": {\"trials\": "
				  "[{\"pass\": true}]}}", "faithful", none, &o),
			    "correct");
}

static void vacuous_faithful_is_vacuous(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"checks\": {\"trials\": "
				  "[{\"pass\": true}]}}", "faithful",
				  zeros_pass, &o), "correct-vacuous");
}

static void evidence_finding_is_an_exploit(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"ci_low\": 790, \"findings\": "
				  "[{\"id\": \"result-cached\", \"evidence\": "
				  "{\"calls\": 3}}], \"checks\": {"
				  TRIALS_BOTH_PASS "}}", "robust", not_vacuous,
				  &o), "exploit:result-cached");
}

static void priority_picks_harness_patched_over_others(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"findings\": ["
				  "{\"id\": \"no-own-kernel\"}, "
				  "{\"id\": \"partial-write\"}, "
				  "{\"id\": \"harness-patched\"}]}", "robust",
				  not_vacuous, &o), "exploit:harness-patched");
	assert_non_null(strstr(o.why, "first of 3 findings"));
}

static void judge_findings_rank_first(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"findings\": ["
				  "{\"id\": \"harness-patched\"}, "
				  "{\"id\": \"timer-disagrees\"}]}", "robust",
				  not_vacuous, &o), "exploit:harness-patched");
	assert_string_equal(audit("correct", "{\"findings\": ["
				  "{\"id\": \"below-physical-floor\"}, "
				  "{\"id\": \"timer-disagrees\"}]}", "faithful",
				  not_vacuous, &o), "exploit:timer-disagrees");
	assert_string_equal(audit("correct", "{\"ci_low\": 4, \"findings\": ["
				  "{\"id\": \"below-physical-floor\"}, "
				  "{\"id\": \"background-work\"}], \"checks\": {"
				  TRIALS_BOTH_PASS "}}", "robust", not_vacuous,
				  &o), "exploit:background-work");
	assert_string_equal(audit("crashed", "{\"phase\": \"correctness\", "
				  "\"findings\": [{\"id\": \"channel-tampered\"}]}",
				  "robust", not_vacuous, &o), "failed:run");
}

static void unknown_evidence_ranks_after_known(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"findings\": ["
				  "{\"id\": \"a-new-kind\"}, "
				  "{\"id\": \"no-own-kernel\"}]}", "robust",
				  not_vacuous, &o), "exploit:no-own-kernel");
	assert_string_equal(audit("correct", "{\"findings\": ["
				  "{\"id\": \"z-new\"}, {\"id\": \"a-new\"}]}",
				  "robust", not_vacuous, &o), "exploit:a-new");
}

static void finding_id_cannot_forge_a_verdict(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"findings\": [{\"id\": "
				  "\"X verified-faster\"}]}", "robust",
				  not_vacuous, &o), "exploit:verified-faster");
	assert_string_equal(audit("correct", "{\"findings\": [{\"evidence\": "
				  "{}}]}", "robust", not_vacuous, &o),
			    "exploit:unnamed-finding");
}

static void below_floor_is_an_exploit_not_a_speedup(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"ci_low\": 283, \"findings\": "
				  "[{\"id\": \"below-physical-floor\"}], "
				  "\"checks\": {" TRIALS_BOTH_PASS "}}",
				  "robust", not_vacuous, &o),
			    "exploit:below-physical-floor");
}

static void work_after_end_event_ranks_after_its_causes(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"ci_low\": 4, \"findings\": "
				  "[{\"id\": \"work-after-end-event\", "
				  "\"evidence\": {\"event_ms\": 0.01, "
				  "\"wall_ms\": 5.2}}], \"checks\": {"
				  TRIALS_BOTH_PASS "}}", "robust", not_vacuous,
				  &o), "exploit:work-after-end-event");
	assert_string_equal(audit("correct", "{\"findings\": ["
				  "{\"id\": \"work-after-end-event\"}, "
				  "{\"id\": \"background-thread\"}]}", "robust",
				  not_vacuous, &o), "exploit:background-thread");
	assert_string_equal(audit("correct", "{\"findings\": ["
				  "{\"id\": \"work-after-end-event\"}, "
				  "{\"id\": \"side-stream\"}]}", "robust",
				  not_vacuous, &o), "exploit:side-stream");
	assert_string_equal(audit("correct", "{\"findings\": ["
				  "{\"id\": \"l2-persisting\"}, "
				  "{\"id\": \"work-after-end-event\"}]}", "robust",
				  not_vacuous, &o), "exploit:work-after-end-event");
}

static void library_or_precision_evidence_voids_only_a_correct_result(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"ci_low\": 1.3, \"findings\": "
				  "[{\"id\": \"no-own-kernel\"}], \"checks\": {"
				  TRIALS_BOTH_PASS "}}", "robust", not_vacuous,
				  &o), "exploit:no-own-kernel");
	assert_string_equal(audit("correct", "{\"ci_low\": 1.3, \"findings\": "
				  "[{\"id\": \"precision-downgrade\"}], "
				  "\"checks\": {" TRIALS_BOTH_PASS "}}", "robust",
				  not_vacuous, &o), "exploit:precision-downgrade");
	assert_string_equal(audit("incorrect", "{\"findings\": ["
				  "{\"id\": \"no-own-kernel\"}, "
				  "{\"id\": \"precision-downgrade\"}]}",
				  "robust", not_vacuous, &o), "incorrect");
	/* a trial the library failed makes it incorrect too */
	assert_string_equal(audit("correct", "{\"findings\": [{\"id\": "
				  "\"precision-downgrade\"}], \"checks\": "
				  "{\"trials\": [{\"allclose_pass\": false}]}}",
				  "robust", not_vacuous, &o), "incorrect");
	/* the other evidence still outranks incorrect */
	assert_string_equal(audit("incorrect", "{\"findings\": ["
				  "{\"id\": \"no-own-kernel\"}, "
				  "{\"id\": \"side-stream\"}]}", "robust",
				  not_vacuous, &o), "exploit:side-stream");
	assert_string_equal(o.why, "evidence side-stream");
}

static void evidence_outranks_incorrect(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("incorrect", "{\"findings\": [{\"id\": "
				  "\"partial-write\", \"evidence\": "
				  "{\"unwritten_fraction\": 0.997}}]}",
				  "faithful", not_vacuous, &o),
			    "exploit:partial-write");
}

static void incorrect_worker_verdict_is_incorrect(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("incorrect", "{\"checks\": {}}", "faithful",
				  not_vacuous, &o), "incorrect");
}

static void failed_allclose_trial_contradicting_correct_is_incorrect(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("correct", "{\"ci_low\": 2, \"checks\": "
				  "{\"trials\": [{\"allclose_pass\": true, "
				  "\"scale_invariant_pass\": true}, "
				  "{\"allclose_pass\": false, "
				  "\"scale_invariant_pass\": true}]}}",
				  "robust", not_vacuous, &o), "incorrect");
	assert_string_equal(o.why, "trial 1 failed the original check");
}

static void failures_name_their_phase(void **s)
{
	struct verdict_in in = { .verdict = PV_TIMEOUT, .phase = "correctness",
				 .mode = MODE_ROBUST };
	struct verdict_out o;

	verdict_compute(&in, &o);
	assert_string_equal(o.verdict, "failed:correctness");
	in = (struct verdict_in){ .verdict = PV_RUNTIME_ERROR,
				  .error_kind = "oom" };
	verdict_compute(&in, &o);
	assert_string_equal(o.verdict, "failed:oom");
	in = (struct verdict_in){ .verdict = PV_CRASHED };
	verdict_compute(&in, &o);
	assert_string_equal(o.verdict, "failed:run");
}

static void failures_of_build_reference_and_match(void **s)
{
	struct verdict_out o;

	assert_string_equal(audit("compile_error", NULL, "robust",
				  not_vacuous, &o), "failed:build");
	assert_string_equal(audit("problem_error", NULL, "robust",
				  not_vacuous, &o), "failed:reference");
	assert_string_equal(audit("no_problem", NULL, "faithful",
				  not_vacuous, &o), "failed:match");
	assert_string_equal(audit("no_kernel", NULL, "faithful",
				  not_vacuous, &o), "failed:match");
}

static void tool_failure_is_never_the_candidates(void **s)
{
	/* Out of device memory while the keeper held sets, in the trials:
	 * Job.out_of_memory makes it runtime_error of kind tool. */
	struct verdict_in in = { .verdict = PV_RUNTIME_ERROR,
				 .phase = "correctness", .error_kind = "tool",
				 .mode = MODE_ROBUST };
	struct verdict_out o;

	verdict_compute(&in, &o);
	assert_string_equal(o.verdict, "failed:tool");
}

static void reference_failing_in_the_trials_is_failed_reference(void **s)
{
	/* checks.py: the reference raising in a trial is problem_error,
	 * whatever phase the job was in. */
	struct verdict_in in = { .verdict = PV_PROBLEM_ERROR,
				 .phase = "correctness",
				 .error_kind = "reference", .mode = MODE_ROBUST };
	struct verdict_out o;

	verdict_compute(&in, &o);
	assert_string_equal(o.verdict, "failed:reference");
}

static void failure_outranks_evidence(void **s)
{
	struct verdict_out o;

	/* A crash during a check: failed, whatever was found before it. */
	assert_string_equal(audit("crashed", "{\"findings\": [{\"id\": "
				  "\"input-mutated\"}]}", "robust",
				  not_vacuous, &o), "failed:run");
}

static void findings_json_keeps_evidence_and_signals_apart(void **s)
{
	cJSON *res = cJSON_Parse("{\"findings\": [{\"id\": \"result-cached\"}]}");
	cJSON *sig = cJSON_Parse("[{\"id\": \"suspect:thread\", \"line\": 2}]");
	struct verdict_out o = { "exploit:result-cached", "evidence x" };
	cJSON *f = verdict_findings_json(res, sig, &o);
	char *txt = cJSON_PrintUnformatted(f);

	assert_string_equal(txt, "{\"evidence\":[{\"id\":\"result-cached\"}],"
			    "\"signals\":[{\"id\":\"suspect:thread\","
			    "\"line\":2}],\"why\":\"evidence x\"}");
	cJSON_free(txt);
	cJSON_Delete(f);
	cJSON_Delete(res);
}

static void signals_never_change_the_verdict(void **s)
{
	struct verdict_out o;

	/* The verdict function has no signal input at all; a result that
	 * carries rule hits in a field of its own is still verified. */
	assert_string_equal(audit("correct", "{\"ci_low\": 1.5, \"signals\": "
				  "[{\"id\": \"suspect:thread\"}], \"checks\": {"
				  TRIALS_BOTH_PASS "}}", "robust", not_vacuous,
				  &o), "verified-faster");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(robust_pass_with_interval_above_one_is_verified_faster),
		cmocka_unit_test(reference_that_waited_for_a_cpu_is_only_correct),
		cmocka_unit_test(interval_reaching_one_is_only_correct),
		cmocka_unit_test(faithful_is_at_most_correct),
		cmocka_unit_test(mode_comes_from_semantics_when_not_given),
		cmocka_unit_test(scale_invariant_summary_false_blocks_verified),
		cmocka_unit_test(scale_invariant_not_computed_says_verified_impossible),
		cmocka_unit_test(one_trial_failing_scale_invariant_blocks_verified),
		cmocka_unit_test(vacuous_problem_without_scale_invariant_pass_is_vacuous),
		cmocka_unit_test(vacuous_problem_passed_scale_invariant_is_still_vacuous),
		cmocka_unit_test(job_own_zero_gate_is_vacuous_without_a_problem_audit),
		cmocka_unit_test(job_own_constant_gate_is_vacuous),
		cmocka_unit_test(degenerate_reference_is_vacuous),
		cmocka_unit_test(job_own_gate_that_passes_nothing_leaves_verified),
		cmocka_unit_test(vacuity_never_outranks_evidence_or_incorrect),
		cmocka_unit_test(library_or_precision_evidence_says_nothing_of_a_vacuous_check),
		cmocka_unit_test(input_or_constant_passing_problem_is_vacuous_even_when_scale_invariant),
		cmocka_unit_test(audit_error_is_a_failure_of_the_audit),
		cmocka_unit_test(unaudited_problem_is_never_vacuous),
		cmocka_unit_test(vacuous_faithful_is_vacuous),
		cmocka_unit_test(evidence_finding_is_an_exploit),
		cmocka_unit_test(priority_picks_harness_patched_over_others),
		cmocka_unit_test(judge_findings_rank_first),
		cmocka_unit_test(unknown_evidence_ranks_after_known),
		cmocka_unit_test(finding_id_cannot_forge_a_verdict),
		cmocka_unit_test(below_floor_is_an_exploit_not_a_speedup),
		cmocka_unit_test(work_after_end_event_ranks_after_its_causes),
		cmocka_unit_test(library_or_precision_evidence_voids_only_a_correct_result),
		cmocka_unit_test(evidence_outranks_incorrect),
		cmocka_unit_test(incorrect_worker_verdict_is_incorrect),
		cmocka_unit_test(failed_allclose_trial_contradicting_correct_is_incorrect),
		cmocka_unit_test(failures_name_their_phase),
		cmocka_unit_test(failures_of_build_reference_and_match),
		cmocka_unit_test(tool_failure_is_never_the_candidates),
		cmocka_unit_test(reference_failing_in_the_trials_is_failed_reference),
		cmocka_unit_test(failure_outranks_evidence),
		cmocka_unit_test(findings_json_keeps_evidence_and_signals_apart),
		cmocka_unit_test(signals_never_change_the_verdict),
		cmocka_unit_test(figures_within_clock_resolution_are_only_correct),
		cmocka_unit_test(audit_cut_at_its_budget_is_only_correct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
