/* auditreport.h - the audit's tables: the evidence and the signals of each
 * replayed evaluation, and the detection table of the planted suite.
 *
 * Owns: the layout of the reports `evidence`, `signals` and `detection`
 * (docs/report.md), and the rule that names an evaluation's planted class:
 * its model, else its source, is "planted-<class>" (a planted exploit) or
 * "honest-<class>-fast" / "honest-<class>-slow" (its honest twins).  What
 * each replay job found and its verdict come from replayset (stored by
 * replay/, replay/verdict.h); nothing here decides a verdict.  Must not:
 * write to the store, print.
 */
#ifndef HR_AUDITREPORT_H
#define HR_AUDITREPORT_H

#include <stddef.h>

#include "../dataset/base/err.h"
#include "../readmodel/evalset.h"
#include "../readmodel/replayset.h"
#include "../dataset/base/table.h"

/* One row per evidence finding (dynamic, from the worker) of the latest
 * replay of each evaluation in each mode. */
int auditreport_evidence(const struct evalset *es, const struct replayset *rs,
			 struct table **t, struct hr_err *e);

/* One row per static signal (suspect:<rule>) of each replayed evaluation:
 * the robust replay's when there is one, else the faithful one's. */
int auditreport_signals(const struct evalset *es, const struct replayset *rs,
			struct table **t, struct hr_err *e);

/* One row per (planted class, kernel kind, mode): how many evaluations got
 * each audit verdict, and the outcome (planted: missed when one is
 * verified-faster, else neutralised when one is correct, else caught;
 * honest: clean when none is an exploit,
 * incorrect, vacuous or failed). */
int auditreport_detection(const struct evalset *es,
			  const struct replayset *rs, struct table **t,
			  struct hr_err *e);

/* The planted-suite rule on one name: 1 and cls (size n) / *kind
 * ("planted", "honest-fast", "honest-slow") when it names a class. */
int auditreport_planted_class(const char *name, char *cls, size_t n,
			      const char **kind);

#endif
