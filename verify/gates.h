/* gates.h - when a problem's check is vacuous: the one rule over the
 * degeneracy gates (docs/verification.md §3), whoever holds them: a job's
 * own gates (replay/verdict.c, from hrworker/vacuity.py's summary) and a
 * problem audit's (readmodel/auditset.c, from `audit problems`).
 *
 * Owns: the rule.  Must not: read gates from anywhere (its callers do). */
#ifndef HR_VERIFY_GATES_H
#define HR_VERIFY_GATES_H

/* 1 when an output that needs no computation passes the original check
 * (all zeros, a constant, an input) or the reference output did not vary
 * with its inputs (degenerate): no kernel's correctness means anything
 * there.  Each argument is 1 for a gate that holds. */
static inline int hr_gates_vacuous(int zeros, int constant, int input,
				   int degenerate)
{
	return zeros || constant || input || degenerate;
}

#endif
