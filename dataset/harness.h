/* harness.h - which KernelBench version an evaluation was judged by, read
 * from the harness tag its reader stored (evaluation.harness).
 *
 * Owns: the rule that replay follows (replay/jobs.c: the job's harness,
 * hence its tolerances) and that `show` states with the tolerance a
 * replay used.  A tag naming v0.1 is v0.1, one naming v0 is v0; a tag
 * naming no version (KernelBench's own eval_results.json never does) is
 * replayed as current, which is an assumption and is said to be one
 * (harness_tolerance_text: the one phrase `show` and `report replay`
 * print).  Must not: know the tolerances (the worker owns them; a replay job
 * records the one it used in checks.semantics).
 */
#ifndef HR_DATASET_HARNESS_H
#define HR_DATASET_HARNESS_H

#include <stddef.h>

/* "v0.1", "v0", or NULL when tag (may be NULL) names no version. */
const char *harness_version(const char *tag);

/* The version replay uses for tag: harness_version's, else "current". */
const char *harness_replayed(const char *tag);

/* The tolerance a replay job used and why, into buf (n bytes):
 * "atol = rtol = TOL (KernelBench USED, PRECISION): WHY", WHY being the
 * run's --harness (run_opt, NULL when not given), else the evaluation's
 * tag naming a version, else "assumed: ... so current's".  tolerance and
 * used come from the job's checks.semantics; "" when either is NULL (the
 * job did not reach the check).  precision NULL reads fp32. */
/* The four SQL result columns, in harness_tolerance_text's order
 * (tolerance, used, precision, run_opt), of a replay job aliased j in a
 * run aliased r; the query adds the evaluation's tag after them. */
#define HARNESS_TOLERANCE_SQL \
	" CASE WHEN json_valid(j.checks_json) THEN" \
	"   json_extract(j.checks_json, '$.semantics.tolerance') END," \
	" CASE WHEN json_valid(j.checks_json) THEN" \
	"   json_extract(j.checks_json, '$.semantics.harness') END," \
	" CASE WHEN json_valid(j.checks_json) THEN" \
	"   json_extract(j.checks_json, '$.semantics.precision') END," \
	" CASE WHEN json_valid(r.settings_json) THEN" \
	"   json_extract(r.settings_json, '$.harness') END,"

void harness_tolerance_text(const char *tolerance, const char *used,
			    const char *precision, const char *run_opt,
			    const char *tag, char *buf, size_t n);

#endif
