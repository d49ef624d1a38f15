/* test_vocab.c - dataset/base/vocab.def is the one spelling of the domain
 * words: the C lookups agree with it both ways, and a fresh store's CHECK
 * lists (dataset/store.c's schema, written out by hand) name exactly its
 * words, in its order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../dataset/base/vocab.h"
#include "../../dataset/store.h"
#include "../../replay/proto.h"

static void modes_round_trip(void **state)
{
	enum hr_mode m;

	(void)state;
	for (int i = 0; i < HR_NMODES; i++) {
		assert_int_equal(hr_mode_of(hr_mode_name((enum hr_mode)i), &m),
				 0);
		assert_int_equal(m, i);
	}
	assert_string_equal(hr_mode_name(MODE_ROBUST), "robust");
	assert_int_equal(hr_mode_of("Robust", &m), -1);
	assert_int_equal(hr_mode_of(NULL, &m), -1);
	assert_null(hr_mode_name(HR_NMODES));
}

static void audit_classes_by_name_and_prefix(void **state)
{
	(void)state;
	for (int i = AV_NONE + 1; i < HR_NAUDITS; i++)
		assert_int_equal(hr_audit_of(hr_audit_name((enum hr_audit)i)),
				 i);
	assert_int_equal(hr_audit_of("exploit:result-cached"), AV_EXPLOIT);
	assert_int_equal(hr_audit_of("failed:build"), AV_FAILED);
	assert_int_equal(hr_audit_of("skipped:needs-gpu"), AV_SKIPPED);
	assert_int_equal(hr_audit_of("correct-vacuous"), AV_CORRECT_VACUOUS);
	/* a name is whole unless it is a prefix */
	assert_int_equal(hr_audit_of("correct-ish"), AV_NONE);
	assert_int_equal(hr_audit_of("verified-faster!"), AV_NONE);
	assert_int_equal(hr_audit_of("exploit"), AV_NONE);
	assert_int_equal(hr_audit_of(""), AV_NONE);
	assert_int_equal(hr_audit_of(NULL), AV_NONE);
	assert_null(hr_audit_name(AV_NONE));
}

static void findings_in_priority_order(void **state)
{
	(void)state;
	for (int i = 0; i < HR_NFINDINGS; i++)
		assert_int_equal(hr_finding_of(hr_finding_name(
			(enum hr_finding)i)), i);
	assert_int_equal(hr_finding_of("no-such-finding"), HR_NFINDINGS);
	assert_int_equal(hr_finding_of(NULL), HR_NFINDINGS);
	assert_true(hr_finding_of("channel-tampered") <
		    hr_finding_of("partial-write"));
	assert_true(hr_finding_correct_only(F_NO_OWN_KERNEL));
	assert_true(hr_finding_correct_only(F_PRECISION_DOWNGRADE));
	assert_false(hr_finding_correct_only(F_PARTIAL_WRITE));
	assert_false(hr_finding_correct_only(HR_NFINDINGS));
}

/* The quoted words of the first "CHECK(col IN (...))" in sql, joined by
 * ',' into buf. */
static const char *check_list(const char *sql, const char *col, char *buf,
			      size_t n)
{
	char head[64];
	const char *p, *end;
	size_t used = 0;

	snprintf(head, sizeof(head), "CHECK(%s IN (", col);
	p = strstr(sql, head);
	assert_non_null(p);
	p += strlen(head);
	end = strstr(p, "))");
	assert_non_null(end);
	buf[0] = '\0';
	while ((p = memchr(p, '\'', (size_t)(end - p)))) {
		const char *q = memchr(p + 1, '\'', (size_t)(end - p - 1));

		assert_non_null(q);
		used += (size_t)snprintf(buf + used, n - used, "%s%.*s",
					 used ? "," : "", (int)(q - p - 1),
					 p + 1);
		p = q + 1;
	}
	return buf;
}

/* The schema of table t in a fresh store. */
static char *schema_of(struct store *s, const char *t)
{
	sqlite3_stmt *st;
	char *sql = NULL;

	assert_int_equal(sqlite3_prepare_v2(store_db(s), "SELECT sql FROM "
					    "sqlite_master WHERE name = ?1",
					    -1, &st, NULL), SQLITE_OK);
	sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		sql = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	assert_non_null(sql);
	return sql;
}

static void store_checks_name_the_vocabulary(void **state)
{
	static const char *const modes =
#define VOCAB_MODE(e, s) s ","
#include "../../dataset/base/vocab.def"
		;
	static const char *const run_states =
#define VOCAB_RUN_STATE(e, s) s ","
#include "../../dataset/base/vocab.def"
		;
	static const char *const job_states =
#define VOCAB_JOB_STATE(e, s) s ","
#include "../../dataset/base/vocab.def"
		;
	char path[64], buf[512], want[512] = "";
	struct store *s;
	struct hr_err e;
	char *run, *job;
	size_t used = 0;

	(void)state;
	snprintf(path, sizeof(path), "/tmp/hr-test-vocab-%d.db", getpid());
	unlink(path);
	hr_err_clear(&e);
	assert_int_equal(store_open(&s, path, STORE_WRITE, &e), HR_OK);
	run = schema_of(s, "replay_run");
	job = schema_of(s, "replay_job");
	snprintf(want, sizeof(want), "%s", modes);
	want[strlen(want) - 1] = '\0';
	assert_string_equal(check_list(run, "mode", buf, sizeof(buf)), want);
	snprintf(want, sizeof(want), "%s", run_states);
	want[strlen(want) - 1] = '\0';
	assert_string_equal(check_list(run, "state", buf, sizeof(buf)), want);
	snprintf(want, sizeof(want), "%s", job_states);
	want[strlen(want) - 1] = '\0';
	assert_string_equal(check_list(job, "state", buf, sizeof(buf)), want);
	/* the job verdicts a finished job may store, in the table's order */
	for (int v = PV_NONE + 1; proto_verdict_name(v); v++)
		if (proto_verdict_ends_job(v))
			used += (size_t)snprintf(want + used, sizeof(want) - used,
						 "%s%s", used ? "," : "",
						 proto_verdict_name(v));
	assert_string_equal(check_list(job, "verdict", buf, sizeof(buf)),
			    want);
	free(run);
	free(job);
	store_close(s);
	unlink(path);
	snprintf(buf, sizeof(buf), "%s-wal", path);
	unlink(buf);
	snprintf(buf, sizeof(buf), "%s-shm", path);
	unlink(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(modes_round_trip),
		cmocka_unit_test(audit_classes_by_name_and_prefix),
		cmocka_unit_test(findings_in_priority_order),
		cmocka_unit_test(store_checks_name_the_vocabulary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
