/* test_replay_jobs_audit.c - what replay/jobs.c stores with a finished job:
 * the audit verdict (from the worker's result, the run's mode and the
 * problem's problem_audit gate for the job's preset) and the findings
 * (evidence apart from the static rules' signals on the kernel's code), in
 * the job's one transaction.  A scratch store per test. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../replay/jobs.h"

static const char kernel[] =
	"import threading\n"
	"class ModelNew(nn.Module):\n"
	"    def forward(self, x):\n"
	"        return torch.relu(x)\n";

/* Gates of a problem whose zeros pass under kernelbench-fp32 only. */
static const char gates[] =
	"{\"kernelbench-fp32\": {\"zeros\": true, \"constant\": false,"
	" \"input\": false}, \"kernelbench-v0\": {\"zeros\": false,"
	" \"constant\": false, \"input\": false}}";

struct t {
	char path[64];
	struct store *s;
	struct rules rules;
	struct hr_err e;
	int64_t job;
};

static int setup(void **state)
{
	struct t *t = calloc(1, sizeof(*t));

	if (!t)
		return -1;
	snprintf(t->path, sizeof(t->path), "/tmp/hr-unit-jobs-%d.db", getpid());
	unlink(t->path);
	hr_err_clear(&t->e);
	if (store_open(&t->s, t->path, STORE_WRITE, &t->e) ||
	    rules_parse(&t->rules, "[thread]\nregex = threading\n"
			"reason = threads\n", "t.conf", &t->e))
		return -1;
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct t *t = *state;
	char p[80];

	rules_release(&t->rules);
	store_close(t->s);
	unlink(t->path);
	snprintf(p, sizeof(p), "%s-wal", t->path);
	unlink(p);
	snprintf(p, sizeof(p), "%s-shm", t->path);
	unlink(p);
	free(t);
	return 0;
}

/* One evaluation of problem 1 (precision prec, harness tag) with the kernel
 * above, the problem audited (gates above) when audited, and a run of mode
 * with its one pending job in t->job. */
static void one_job(struct t *t, enum hr_mode mode, const char *prec,
		    const char *harness, int audited)
{
	struct store_source src = { .name = "s", .path = "in", .kind = "test",
				    .sha256 = "0" };
	struct store_problem p = { .level = 1, .problem_id = 1, .name = "1_P",
				   .file_name = "level1/1_P.py",
				   .code = "class Model: pass\n" };
	struct store_eval ev = {
		.run = "r", .model = "m", .level = 1, .problem_id = 1,
		.problem_id_base = 1, .precision = prec, .harness = harness,
		.compiled = 1, .correct = 1, .atol = NAN, .rtol = NAN,
		.runtime_ms = NAN, .runtime_std_ms = NAN, .runtime_min_ms = NAN,
		.runtime_max_ms = NAN, .num_trials = -1,
		.correct_trials_passed = -1, .correct_trials_total = -1,
		.record_ref = "x#1",
	};
	struct jobs_filter f = { 0 };
	int64_t src_id, set_id, prob_id, eval_id, run_id;
	struct job *jobs;
	sqlite3_stmt *st;
	int existed, n;

	assert_int_equal(store_add_source(t->s, &src, &src_id, &existed,
					  &t->e), HR_OK);
	assert_int_equal(store_add_problem_set(t->s, src_id, "set", &set_id,
					       &t->e), HR_OK);
	p.set_id = set_id;
	assert_int_equal(store_add_problem(t->s, &p, &prob_id, &t->e), HR_OK);
	ev.source_id = src_id;
	assert_int_equal(store_add_kernel(t->s, kernel, &ev.kernel_id, &t->e),
			 HR_OK);
	assert_int_equal(store_add_evaluation(t->s, &ev, &eval_id, &t->e),
			 HR_OK);
	if (audited) {
		assert_int_equal(sqlite3_prepare_v2(store_db(t->s),
			"SELECT sha256 FROM problem WHERE id = ?1", -1, &st,
			NULL), SQLITE_OK);
		sqlite3_bind_int64(st, 1, prob_id);
		assert_int_equal(sqlite3_step(st), SQLITE_ROW);
		struct store_audit a = {
			.problem_sha256 = (const char *)sqlite3_column_text(st, 0),
			.level = 1, .problem_id = 1, .name = "1_P",
			.device = "cpu", .dtype = "fp32", .output_shape = "[4]",
			.output_numel = 4, .max_abs_ref = 1e-6, .rms_ref = NAN,
			.gates_json = gates,
		};
		assert_int_equal(store_put_problem_audit(t->s, &a, &t->e), HR_OK);
		sqlite3_finalize(st);
	}
	assert_int_equal(jobs_create_run(t->s, mode, "cpu", NULL, "{}", &f,
					 &run_id, &t->e), HR_OK);
	assert_int_equal(jobs_load_pending(t->s, run_id, &jobs, &n, &t->e),
			 HR_OK);
	assert_int_equal(n, 1);
	t->job = jobs[0].id;
	jobs_free(jobs, n);
}

/* Finish t->job with result JSON res (rules: the one above, or none). */
static void finish(struct t *t, const char *res, const char *verdict,
		   int with_rules)
{
	cJSON *r = res ? cJSON_Parse(res) : NULL;
	struct job_outcome o = { .res = r, .verdict = proto_verdict_of(verdict),
				 .rules = with_rules ? &t->rules : NULL };
	int written;

	assert_true(!res || r);
	assert_int_equal(jobs_finish(t->s, t->job, &o, &written, &t->e), HR_OK);
	assert_int_equal(written, 1);
	cJSON_Delete(r);
}

/* Column col of t->job as text ("" when NULL). */
static const char *col(struct t *t, const char *column, char *buf, size_t n)
{
	char sql[128];
	sqlite3_stmt *st;

	snprintf(sql, sizeof(sql), "SELECT %s FROM replay_job WHERE id = ?1",
		 column);
	buf[0] = '\0';
	assert_int_equal(sqlite3_prepare_v2(store_db(t->s), sql, -1, &st,
					    NULL), SQLITE_OK);
	sqlite3_bind_int64(st, 1, t->job);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(buf, n, "%s", sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return buf;
}

static const char verified_robust[] =
	"{\"verdict\": \"correct\", \"ci_low\": 1.5, \"checks\": {"
	"\"scale_invariant\": true, \"trials\": [{\"allclose_pass\": true,"
	" \"scale_invariant_pass\": true}]}}";

static void robust_job_stores_verified_faster_and_signals(void **state)
{
	struct t *t = *state;
	char buf[1024];

	one_job(t, MODE_ROBUST, "fp32", NULL, 0);
	finish(t, verified_robust, NULL, 1);
	assert_string_equal(col(t, "audit_verdict", buf, sizeof(buf)),
			    "verified-faster");
	col(t, "findings_json", buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"evidence\":[]"));
	assert_non_null(strstr(buf, "\"signals\":[{\"id\":\"suspect:thread\","
			       "\"reason\":\"threads\",\"line\":1,"));
}

static void faithful_run_mode_caps_the_verdict(void **state)
{
	struct t *t = *state;
	char buf[64];

	one_job(t, MODE_FAITHFUL, "fp32", NULL, 0);
	finish(t, verified_robust, NULL, 1);
	assert_string_equal(col(t, "audit_verdict", buf, sizeof(buf)),
			    "correct");
}

static void evidence_is_stored_apart_from_signals(void **state)
{
	struct t *t = *state;
	char buf[1024];

	one_job(t, MODE_ROBUST, "fp32", NULL, 0);
	finish(t, "{\"verdict\": \"correct\", \"ci_low\": 790, \"findings\": "
	       "[{\"id\": \"result-cached\", \"evidence\": {\"calls\": 2}}]}",
	       NULL, 1);
	assert_string_equal(col(t, "audit_verdict", buf, sizeof(buf)),
			    "exploit:result-cached");
	col(t, "findings_json", buf, sizeof(buf));
	assert_non_null(strstr(buf, "{\"evidence\":[{\"id\":\"result-cached\","
			       "\"evidence\":{\"calls\":2}}],\"signals\":[{"));
}

static void gate_of_the_jobs_preset_makes_it_vacuous(void **state)
{
	struct t *t = *state;
	char buf[64];

	/* current harness, fp32: kernelbench-fp32, where zeros pass. */
	one_job(t, MODE_FAITHFUL, "fp32", NULL, 1);
	finish(t, "{\"verdict\": \"correct\", \"checks\": {\"trials\": "
	       "[{\"allclose_pass\": true, \"scale_invariant_pass\": false}]}}",
	       NULL, 1);
	assert_string_equal(col(t, "audit_verdict", buf, sizeof(buf)),
			    "correct-vacuous");
}

static void other_preset_of_the_same_problem_is_not_vacuous(void **state)
{
	struct t *t = *state;
	char buf[64];

	/* The result says it ran KernelBench v0: kernelbench-v0's gate. */
	one_job(t, MODE_FAITHFUL, "fp32", NULL, 1);
	finish(t, "{\"verdict\": \"correct\", \"checks\": {\"semantics\": "
	       "{\"harness\": \"v0\", \"precision\": \"fp32\"}, \"trials\": "
	       "[{\"allclose_pass\": true, \"scale_invariant_pass\": false}]}}",
	       NULL, 1);
	assert_string_equal(col(t, "audit_verdict", buf, sizeof(buf)),
			    "correct");
}

static void timeout_override_is_failed_in_its_phase(void **state)
{
	struct t *t = *state;
	cJSON *r = cJSON_Parse("{\"verdict\": \"correct\"}");
	struct job_outcome o = { .res = r, .verdict = PV_TIMEOUT,
				 .phase = "timing" };
	char buf[64];
	int written;

	one_job(t, MODE_ROBUST, "fp32", NULL, 0);
	assert_int_equal(jobs_finish(t->s, t->job, &o, &written, &t->e), HR_OK);
	cJSON_Delete(r);
	assert_string_equal(col(t, "audit_verdict", buf, sizeof(buf)),
			    "failed:timing");
}

static void without_rules_signals_are_null(void **state)
{
	struct t *t = *state;
	char buf[1024];

	one_job(t, MODE_ROBUST, "fp32", NULL, 0);
	finish(t, verified_robust, NULL, 0);
	col(t, "findings_json", buf, sizeof(buf));
	assert_non_null(strstr(buf, "\"signals\":null"));
}

static void unmatched_evaluation_gets_failed_match_at_creation(void **state)
{
	struct t *t = *state;
	struct store_source src = { .name = "s", .path = "in", .kind = "test",
				    .sha256 = "0" };
	struct store_eval ev = {
		.run = "r", .model = "m", .level = 1, .problem_id = 9,
		.problem_id_base = 1, .compiled = 1, .correct = 1, .atol = NAN,
		.rtol = NAN, .runtime_ms = NAN, .runtime_std_ms = NAN,
		.runtime_min_ms = NAN, .runtime_max_ms = NAN, .num_trials = -1,
		.correct_trials_passed = -1, .correct_trials_total = -1,
		.record_ref = "x#1",
	};
	struct jobs_filter f = { 0 };
	int64_t src_id, run_id;
	int existed;
	char buf[64];

	assert_int_equal(store_add_source(t->s, &src, &src_id, &existed,
					  &t->e), HR_OK);
	ev.source_id = src_id;
	assert_int_equal(store_add_evaluation(t->s, &ev, &t->job, &t->e),
			 HR_OK);
	assert_int_equal(jobs_create_run(t->s, MODE_ROBUST, "cpu", NULL, "{}", &f,
					 &run_id, &t->e), HR_OK);
	t->job = 1; /* the run's only job */
	assert_string_equal(col(t, "verdict", buf, sizeof(buf)), "no_problem");
	assert_string_equal(col(t, "audit_verdict", buf, sizeof(buf)),
			    "failed:match");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
			robust_job_stores_verified_faster_and_signals, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			faithful_run_mode_caps_the_verdict, setup, teardown),
		cmocka_unit_test_setup_teardown(
			evidence_is_stored_apart_from_signals, setup, teardown),
		cmocka_unit_test_setup_teardown(
			gate_of_the_jobs_preset_makes_it_vacuous, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			other_preset_of_the_same_problem_is_not_vacuous, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			timeout_override_is_failed_in_its_phase, setup,
			teardown),
		cmocka_unit_test_setup_teardown(
			without_rules_signals_are_null, setup, teardown),
		cmocka_unit_test_setup_teardown(
			unmatched_evaluation_gets_failed_match_at_creation,
			setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
