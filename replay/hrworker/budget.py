"""hrworker/budget.py - the audit's own calls within the audit phase's
limit (--timeout-run, the job message's "timeout_run"): before each step
of the audit that calls both models again (a distribution transform and
the reorder check after them, faithful's rechecks after the timing and its
fresh timing's sets, the escapes' pass, the parameters' re-draw, the
clock's confirmation) the job asks whether the step, at what such a step
has cost in this job, still fits SHARE of the limit since the audit phase
began; one that does not is not run, and the job records it
(checks.audit_cut).  A job whose candidate and reference are slow but
within the harness's limits, each step costing about what such a step
cost before, is thereby not stopped by the tool's own calls (a timeout of
the audit phase, failed:audit: the tool's failure read as the
candidate's); a job
with a step cut verifies no speedup (replay/verdict.c), since what the
step would have checked was not.  A candidate that hangs in a call of
the audit is still stopped at the limit (failed:audit), and one slow in
the audit's calls alone gets no step cut: where the phase has used more
than STALL_FACTOR times what its steps were expected to cost (and a
pair's time or a second beside), the slowness is the audit's calls' own
(a candidate that stalls on the transforms' inputs to have the rest cut,
say), the budget is off for the phase and says so
(checks.audit_budget_off), and the phase's limit applies as it did.
Must not: call either model."""
import time

# The share of the audit phase's limit the budgeted steps may fill: the
# rest is the margin for the step under way (its cost is what the job's
# slowest such step cost before, not a bound), for the steps no budget
# covers (the calls on identical inputs, robust's recheck after its rounds,
# the floor), and for the job's end.
SHARE = 0.6
STALL_FACTOR = 2.0


class AuditBudget:
    """The budget of one job's audit, one per audit phase (begin)."""

    def __init__(self, limit_s):
        ok = isinstance(limit_s, (int, float)) and not isinstance(limit_s, bool) and limit_s > 0
        self.limit_s = float(limit_s) if ok else None
        self.t0 = None          # when the audit phase began (begin)
        self.pair_s = 0.0       # the slowest trial: one call of each model, compared
        self.cut = []           # the steps not run (checks.audit_cut)
        self.expected_s = 0.0   # what the phase's steps so far were expected to cost
        self.off = None         # why the budget is off for this phase (stalled)
        self.offs = []          # every phase's (checks.audit_budget_off)

    def begin(self):
        """The audit phase begins (again, after the timing): a new limit."""
        self.t0 = time.monotonic()
        self.expected_s, self.off = 0.0, None

    def trials(self, trials):
        """The correctness trials' records (their "seconds": a dict of
        laps): the slowest is what one call of each model, compared, costs."""
        for r in trials:
            secs = r.get("seconds")
            if isinstance(secs, dict):
                self.pair_s = max(self.pair_s, sum(v for v in secs.values()
                                                   if isinstance(v, (int, float))))

    def expect(self, pairs):
        """A step no budget cuts (the calls on identical inputs) is
        expected to cost pairs calls of each model."""
        self.expected_s += pairs * self.pair_s

    def stalled(self, step, used):
        """Whether the budget is off for this phase: the time used is
        more than STALL_FACTOR times what was expected (recorded once)."""
        if self.off is None and used > STALL_FACTOR * self.expected_s + max(1.0, self.pair_s):
            self.off = {"before": step, "used_s": round(used, 3),
                        "expected_s": round(self.expected_s, 3)}
            self.offs.append(self.off)
        return self.off is not None

    def used(self):
        """The seconds the audit phase has used, or None where no budget
        applies (no limit, or outside an audit phase)."""
        if self.limit_s is None or self.t0 is None:
            return None
        return time.monotonic() - self.t0

    def record_cut(self, step, used, expected, **more):
        """step (or part of it: more) is not run: checks.audit_cut."""
        self.cut.append(dict({"step": step, "used_s": round(used, 3),
                              "expected_s": round(expected, 3),
                              "budget_s": round(SHARE * self.limit_s, 3)}, **more))

    def allows(self, step, pairs=1.0, cost_s=0.0):
        """Whether step, expected to cost cost_s or pairs calls of each
        model (whichever is more), fits the budget; else it is recorded as
        cut and the caller skips it.  Without a limit, outside an audit
        phase, or with the budget off (stalled), every step fits."""
        used = self.used()
        if used is None:
            return True
        expect = max(cost_s, pairs * self.pair_s)
        if self.stalled(step, used) or used + expect <= SHARE * self.limit_s:
            self.expected_s += expect
            return True
        self.record_cut(step, used, expect)
        return False

    def fit(self, step, n, pairs_each):
        """How many of n like parts of step (each pairs_each calls of
        each model) fit the budget: n where there is no limit, else as
        many as fit, at least one, the rest recorded as cut."""
        used = self.used()
        if used is None or self.pair_s <= 0:
            return n
        each = pairs_each * self.pair_s
        k = int((SHARE * self.limit_s - used) // each)
        if self.stalled(step, used) or k >= n:
            self.expected_s += n * each
            return n
        k = max(1, k)
        self.expected_s += k * each
        self.record_cut(step, used, n * each, kept=k, of=n)
        return k

    def summary(self):
        """checks.audit_cut, or None where nothing was cut."""
        return list(self.cut) or None

    def off_summary(self):
        """checks.audit_budget_off, or None where the budget held."""
        return list(self.offs) or None
