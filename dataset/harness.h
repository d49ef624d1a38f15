/* harness.h - which KernelBench version an evaluation was judged by, read
 * from the harness tag its reader stored (evaluation.harness).
 *
 * Owns: the rule that replay follows (replay/jobs.c: the job's harness,
 * hence its tolerances) and that `show` states with the tolerance a
 * replay used.  A tag naming v0.1 is v0.1, one naming v0 is v0; a tag
 * naming no version (KernelBench's own eval_results.json never does) is
 * replayed as current, which is an assumption and is said to be one.
 * Must not: know the tolerances (the worker owns them; a replay job
 * records the one it used in checks.semantics).
 */
#ifndef HR_DATASET_HARNESS_H
#define HR_DATASET_HARNESS_H

/* "v0.1", "v0", or NULL when tag (may be NULL) names no version. */
const char *harness_version(const char *tag);

/* The version replay uses for tag: harness_version's, else "current". */
const char *harness_replayed(const char *tag);

#endif
