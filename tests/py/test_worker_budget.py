"""The audit's budget (replay/hrworker/budget.py: AuditBudget), alone: a
step fits while what it is expected to cost, added to what the audit phase
used, stays within SHARE of the limit; one that does not is recorded as
cut; fit keeps as many like parts as fit, one at least; without a limit,
or before an audit phase began, nothing is cut.

Plain script: one line per check, exits non-zero on any failure.
"""
import os
import sys
import time

from workerlib import ROOT, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker.budget import SHARE, AuditBudget  # noqa: E402

b = AuditBudget(10)
b.trials([{"seconds": {"reference": 0.5, "candidate": 0.4, "check": 0.1}},
          {"seconds": {"reference": 0.2}}, {"no seconds": 1}])
check(b.pair_s == 1.0, "a pair costs the slowest trial's laps summed (%r)" % b.pair_s)
check(b.allows("before", pairs=100) and not b.cut,
      "before the audit phase begins nothing is cut")
b.begin()
check(b.allows("small", pairs=2) and not b.cut, "2 pairs of 1 s fit 60 % of 10 s")
check(not b.allows("large", pairs=7) and b.cut[-1]["step"] == "large"
      and b.cut[-1]["budget_s"] == SHARE * 10 and b.cut[-1]["expected_s"] == 7.0,
      "7 pairs of 1 s do not: recorded with what was expected and the budget (%r)" % b.cut)
check(not b.allows("slow", cost_s=6.5) and b.cut[-1]["step"] == "slow",
      "a step's own cost counts where it exceeds its pairs' (%r)" % b.cut[-1])
check(b.fit("sets", 7, pairs_each=2) == 2 and b.cut[-1]["kept"] == 2 and b.cut[-1]["of"] == 7,
      "of 7 sets of 2 pairs, 2 fit what is left of 6 s (%r)" % b.cut[-1])
check(b.fit("sets", 2, pairs_each=2) == 2 and len(b.cut) == 3,
      "2 sets fit whole and cut nothing")
b.t0 = time.monotonic() - 5.9
check(b.fit("sets", 7, pairs_each=2) == 1, "one set at least, with the budget spent")
b.begin()
check(b.allows("small", pairs=5), "a new audit phase: a new budget")
check([c["step"] for c in b.summary()] == ["large", "slow", "sets", "sets"],
      "the cuts in order (%r)" % b.summary())
for limit in (None, 0, -3, True, "300"):
    n = AuditBudget(limit)
    n.pair_s = 100.0
    n.begin()
    check(n.allows("x", pairs=50) and n.fit("y", 7, 2) == 7 and n.summary() is None,
          "no usable limit (%r): nothing is cut" % (limit,))
# A phase whose time went far beyond what its steps were expected to cost
# (a candidate that stalls on the audit's inputs to have the rest cut):
# the budget is off for the phase, nothing more is cut, and it says so.
s = AuditBudget(10)
s.pair_s = 0.5
s.begin()
check(s.allows("first", pairs=2), "the first step fits")
s.t0 = time.monotonic() - 5.5       # it took 5.5 s where 1 s was expected
check(s.allows("second", pairs=2) and s.fit("sets", 7, 2) == 7 and s.summary() is None
      and s.off_summary() == [{"before": "second", "used_s": s.off_summary()[0]["used_s"],
                               "expected_s": 1.0}],
      "a phase that took more than twice what was expected: no step cut, the budget off "
      "(%r)" % s.off_summary())
s.begin()
check(s.off is None and not s.allows("large", pairs=20) and s.summary()[0]["step"] == "large",
      "the next audit phase has its budget again (%r)" % s.summary())
