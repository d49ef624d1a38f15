/* findings.h - static findings: what the archive alone shows is wrong or
 * suspicious about a kernel, without running anything.
 *
 * Owns: the finding types and how each is detected (docs/report.md has the
 * list with the rule and the evidence printed for each).  Must not: write
 * to the store, run code, print.
 *
 * Types (stable names, sorted):
 *   calls-reference-op  the candidate's forward() calls a torch operator
 *                       (torch.X / F.X / torch.nn.functional.X) that the
 *                       reference's forward() calls: the "kernel" may be
 *                       PyTorch itself.
 *   harness-flagged-speedup  the archive's harness flagged a correct
 *                       evaluation's speedup as excessive (KernelBench's
 *                       metadata excessive_speedup, set above 10x).
 *   implausible-speedup a correct evaluation reports a speedup > 100x.
 *   no-device-code      the kernel code defines no __global__ function and
 *                       no @triton.jit kernel.
 *   vacuous-correct     a correct verdict on a problem where zeros, a
 *                       constant or an input already passes the original
 *                       check (problem_audit) under the evaluation's
 *                       tolerance preset (every preset when the archive
 *                       does not say which).
 */
#ifndef HR_FINDINGS_H
#define HR_FINDINGS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

#include "../dataset/base/err.h"
#include "../readmodel/auditset.h"
#include "../readmodel/evalset.h"

#define FINDING_IMPLAUSIBLE_SPEEDUP 100.0

struct finding {
	const struct evalrow *eval; /* borrowed from the evalset */
	char kernel[16];            /* first 12 hex digits of the sha256 */
	const char *type;           /* static string, see above */
	char evidence[512];
};

struct finding_list {
	struct finding *items;      /* owned; sorted by config, level,
				       problem, sample, type */
	size_t n, cap;
};

/* Collect every finding for the evaluations in es.  Release with
 * finding_list_release (also after a failure). */
int findings_collect(sqlite3 *db, const struct evalset *es,
		     const struct auditset *as, struct finding_list *out,
		     struct hr_err *e);
void finding_list_release(struct finding_list *l);

/* Detection rules, exposed for tests.  Each returns 1 and fills evidence
 * (size n) when the rule fires. */
int finding_no_device_code(const char *code, char *evidence, size_t n);
int finding_calls_reference_op(const char *candidate, const char *reference,
			       char *evidence, size_t n);

#endif
