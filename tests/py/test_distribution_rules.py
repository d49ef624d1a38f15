"""The distribution checks' allowances for honest float32 kernels
(replay/hrworker/distribution.py, precision.py), on tensors built here:
a row's sum counts in the sequential-sum allowance where the output keeps
the input's shape (a LayerNorm over its last dimensions, a cumsum); a mask
that differs from the reference in a few elements near its step is not a
failure, one whose step moved is (MASK_FLIP_SHARE).  And an honest one-pass LayerNorm on the
ramp of planted problem 12's shape stays within the allowance.  An error
that one float32 accumulator may make decides nothing alone
(within_serial_sum); the reorder check then tells a kernel that skips
elements (it moves when neighbouring elements or rows exchange values)
from one that adds them all in its own order (it does not)."""
import os
import sys

import torch

from workerlib import ROOT, check

sys.path.insert(0, os.path.join(ROOT, "replay"))
from hrworker import distribution  # noqa: E402
from hrworker.budget import AuditBudget  # noqa: E402
from hrworker.channel import RemoteError  # noqa: E402
from hrworker.precision import MASK_FLIP_SHARE, U32, flipped_share, fp32_allowance  # noqa: E402

x = torch.rand(16, 8, 32, 32)
plain = fp32_allowance(torch, [x], x)
along = fp32_allowance(torch, [x], x, along=True)
check(plain < 2 * U32 and abs(along - 8192 * U32 / (1 - 8192 * U32)) < 1e-12,
      "an output of the input's shape: gamma_1 alone (%.2g); along its rows, gamma_8192 (%.2g)"
      % (plain, along))
s = torch.rand(4, 1 << 20)
check(fp32_allowance(torch, [s], s.sum(), along=True) == fp32_allowance(torch, [s], s.sum()),
      "a scalar output: the inputs' elements over the output's already count every term")

# unit: magnitudes 1 to 1 + UNIT_SPREAD, signs and zeros kept, the draw's
# order kept; a product of 4000 such terms stays finite where the normal
# draw's falls below float32's least.
z = torch.randn(64, 4000)
z[0, 0] = 0.0
u = distribution.transform(torch, "unit", z, None, *distribution.describe(torch, z))
mag = u.abs()[z != 0]
spread = distribution.UNIT_SPREAD + 1e-6
check(bool((torch.sign(u) == torch.sign(z)).all()) and float(mag.min()) >= 1.0 - spread and
      float(mag.max()) <= 1.0 + spread,
      "unit keeps signs and zeros, magnitudes within 1 -+ %g ([%.4f, %.4f])"
      % (distribution.UNIT_SPREAD, float(mag.min()), float(mag.max())))
pos = distribution.transform(torch, "unit", z.abs(), None, *distribution.describe(torch, z.abs()))
prod = torch.cumprod(u[1:].double(), dim=1)[:, -1].abs()
check(bool((pos >= 0).all()) and float(prod.min()) > 1e-6 and float(prod.max()) < 1e6
      and float(torch.cumprod(z[1:], dim=1)[:, -1].abs().max()) < 1e-30,
      "a non-negative input stays so; the rows' products of 4000 unit terms stay within "
      "1e-6 to 1e6 (%.2g to %.2g), the normal draw's fall below 1e-30"
      % (float(prod.min()), float(prod.max())))

# The ramp of problem 12's shape into a LayerNorm, one pass in float32
# (E[x^2] - E[x]^2) against the float64 reference: within the allowance.
ramp = distribution.transform(torch, "ramp", x, None, *distribution.describe(torch, x))
ln = torch.nn.LayerNorm((8, 32, 32))
with torch.no_grad():
    ref64 = ln.double()(ramp.double())
    flat = ramp.reshape(16, -1)
    mean = flat.sum(1, keepdim=True) / flat.shape[1]
    var = (flat * flat).sum(1, keepdim=True) / flat.shape[1] - mean * mean
    one = ((flat - mean) * torch.rsqrt(var.clamp_min(0) + 1e-5)).reshape(x.shape)
err = ((one.double() - ref64).norm() / ref64.norm()).item()
check(err < along, "an honest one-pass LayerNorm on the ramp: %.2g off, within gamma_8192 (%.2g)"
      % (err, along))

ref = (torch.randn(512, 1024) > 0).float()
few = ref.clone()
few.view(-1)[:40] = 1 - few.view(-1)[:40]
moved = ref.clone()
moved.view(-1)[:20000] = 1 - moved.view(-1)[:20000]
share_few = flipped_share(torch, ref, few)
share_moved = flipped_share(torch, ref, moved)
check(share_few is not None and share_few <= MASK_FLIP_SHARE
      and share_moved > MASK_FLIP_SHARE,
      "a mask: 40 of 524288 elements flipped pass (%.2g), 20000 fail (%.2g)"
      % (share_few, share_moved))
# The precision check reads a mask the same way: one element flipped near
# the step (the float32 reference's error 0) is no precision-downgrade,
# a step moved is a wrong output.
from hrworker.precision import precision_check  # noqa: E402
x = torch.randn(1024, 1024)
ref64 = (x.double() > x.double().mean(1, keepdim=True)).double()
one = ref64.float().clone()
one.view(-1)[7] = 1 - one.view(-1)[7]
r = precision_check(torch, one, ref64.float(), ref64, {}, {})
check(r["findings"] == [] and r.get("within_mask_flips"),
      "a mask with one element flipped: no precision-downgrade (%s)" % r)
r = precision_check(torch, moved.float(), ref.float(), ref.double(), {}, {})
check(not r.get("within_mask_flips") and "beyond_precision" in r,
      "a mask with 4 %% of its elements flipped: a wrong output, not rounding (%s)" % r)
check(flipped_share(torch, torch.randn(64, 64), torch.randn(64, 64)) is None
      and flipped_share(torch, torch.tensor(0.5), torch.tensor(0.6)) is None
      and flipped_share(torch, torch.ones(8), torch.zeros(8)) is None,
      "an output of more than two values, a scalar (a loss) or a constant is not a mask")


# The serial-sum zone and the reorder check (Distribution.fails, reorder),
# through a stand-in for the job's checks: the reference and the candidate
# called in this process.
class Sets:
    def share(self, x):
        return x


class Job:
    """What Distribution reads of checks.Checks."""
    def __init__(self, ref, cand):
        self.torch, self.ref, self.cand = torch, ref, cand
        self.sets, self.checks, self.tol, self.harness = Sets(), {}, 1e-2, "v0.1"
        self.ctx = type("Ctx", (), {"memory_total": lambda self: 1 << 40,
                                    "budget": AuditBudget(None)})()
        self.cfg = type("Cfg", (), {"verify": None})()

    def sync(self):
        pass

    def call_candidate(self, inputs, *_):
        # As the channel gives it: what the candidate's code raises is a
        # RemoteError; anything else is the judge's own.
        try:
            return self.cand(*inputs)
        except ToolTrouble:
            raise
        except Exception as e:
            raise RemoteError(str(e))


class ToolTrouble(OSError):
    """A failure of the judge's own side (its shared memory, its channel)."""


class Fn(torch.nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *xs):
        return self.f(*xs)


def l1(p, t):
    return (p - t).abs().mean()


def accumulated(terms):
    """The mean of terms through one float32 accumulator, in order."""
    import numpy
    terms = terms.reshape(-1).numpy()
    return torch.tensor(numpy.add.accumulate(terms, dtype=numpy.float32)[-1] / terms.size)


def serial(p, t):
    """One float32 accumulator over every term, in order."""
    return accumulated((p - t).abs())


def moved_by_reorder(cand, ref=l1, shape=(512, 1024), inputs=2):
    gen = torch.Generator().manual_seed(5)
    base = [torch.randn(*shape, generator=gen) for _ in range(inputs)]
    d = distribution.Distribution(Job(Fn(ref), Fn(cand)))
    rec, moved = d.reorder(base, [distribution.describe(torch, x) for x in base], gen)
    return rec, moved


for name, cand in (("torch's own L1", l1), ("a sequential float32 sum", serial),
                   ("the sum of column sums", lambda p, t: (p - t).abs().sum(0).sum() / p.numel())):
    rec, moved = moved_by_reorder(cand)
    check(moved is None and all("moved" in v for v in rec["pairs"].values()),
          "reorder: %s does not move (%s)" % (name, {k: v.get("moved") for k, v in
                                                     rec["pairs"].items()}))
for name, cand, kind in (("every 16th element", lambda p, t: l1(p.reshape(-1)[::16],
                                                                  t.reshape(-1)[::16]), "element"),
                         ("every 4th row", lambda p, t: l1(p[::4], t[::4]), "row")):
    rec, moved = moved_by_reorder(cand)
    check(moved is not None and moved["pairs"] == kind and moved["moved"] > moved["limit"],
          "reorder: a subsample of %s moves under the %s pairs (%s)" % (name, kind, moved))
# A cross entropy with a label a sample: exchanging two logits of a row,
# or one column between rows, moves the reference (skipped); exchanging
# whole samples with their labels does not, and tells a subsample of rows.
def ce_moved(cand):
    gen = torch.Generator().manual_seed(9)
    base = [torch.randn(2048, 64, generator=gen), torch.randint(0, 64, (2048,), generator=gen)]
    d = distribution.Distribution(Job(Fn(torch.nn.functional.cross_entropy), Fn(cand)))
    return d.reorder(base, [distribution.describe(torch, x) for x in base], gen)


rec, moved = ce_moved(torch.nn.functional.cross_entropy)
check(moved is None and rec["pairs"]["sample"].get("moved") is not None and
      rec["pairs"]["row"].get("skipped") == "the reference reads the places apart",
      "reorder: an honest cross entropy does not move when whole samples exchange (%s)" % rec)
rec, moved = ce_moved(lambda x, y: torch.nn.functional.cross_entropy(x[::4], y[::4]))
check(moved is not None and moved.get("pairs") == "sample",
      "reorder: a cross entropy over every 4th sample moves when whole samples exchange (%s)"
      % moved)
rec, moved = moved_by_reorder(lambda x: x.cumsum(1), ref=lambda x: x.cumsum(1), inputs=1)
check(moved is None and all(v.get("skipped") == "the reference reads the places apart"
                            for v in rec["pairs"].values()),
      "reorder: a cumsum's reference moves itself: no pair kind applies (%s)" % rec)

# An error above the capped sequential-sum allowance but within gamma_k of
# 2^22 terms is no failure alone (within_serial_sum); beyond a quarter it is.
p, t = torch.randn(2048, 1024), torch.randn(2048, 1024)
d = distribution.Distribution(Job(Fn(l1), Fn(l1)))
out = l1(p, t)
for factor, fails, zone in ((1.02, False, True), (1.5, True, None)):
    got = {}
    res = d.fails([p, t], out, out * factor, True, 1e-7, got)
    check(res is fails and got.get("within_serial_sum") is zone,
          "an L1 of 2^22 terms off by %g: fails %s, within_serial_sum %s (%s)"
          % (factor - 1, res, got.get("within_serial_sum"), got))


# A candidate's error on the new inputs fails them, unless it is out of
# device memory: whose that is the job decides (Job.out_of_memory).
def raising(text):
    def f(p, t):
        raise RuntimeError(text)
    return f


rec, moved = moved_by_reorder(raising("index out of range"))
check(moved is not None and "index out of range" in moved.get("error", ""),
      "reorder: a candidate that raises on the exchanged inputs fails them (%s)" % moved)
try:
    moved_by_reorder(raising("CUDA out of memory. Tried to allocate 2.00 GiB"))
    check(False, "reorder: out of memory reads as the candidate's failure")
except RemoteError as e:
    check("out of memory" in str(e), "reorder: out of memory goes to the job, not the evidence")


# The judge's own failure on the new inputs (its shared memory, its
# channel) is no evidence: it goes to the job (audit_tool_error: failed:tool),
# from the transforms and from the reorder check alike.
def tool_trouble(p, t):
    raise ToolTrouble("no room in /dev/shm")


try:
    moved_by_reorder(tool_trouble)
    check(False, "reorder: the judge's own failure reads as the candidate's")
except ToolTrouble:
    check(True, "reorder: the judge's own failure goes to the job, not the evidence")
gen = torch.Generator().manual_seed(3)
job = Job(Fn(l1), Fn(raising("index out of range")))
job.checks["trials"] = [{"scale_invariant_pass": True, "normwise_rel_err": 1e-7}]
job.sets.fresh_content = lambda seed: [torch.randn(256, 64, generator=gen) for _ in range(2)]
rec, failing = distribution.Distribution(job).run(1)
check(failing and all("index out of range" in f.get("error", "") for f in failing),
      "transforms: a candidate that raises on the new inputs fails them (%s)" % failing[:2])
job = Job(Fn(l1), Fn(tool_trouble))
job.checks["trials"] = [{"scale_invariant_pass": True, "normwise_rel_err": 1e-7}]
job.sets.fresh_content = lambda seed: [torch.randn(256, 64, generator=gen) for _ in range(2)]
try:
    distribution.Distribution(job).run(1)
    check(False, "transforms: the judge's own failure reads as the candidate's")
except ToolTrouble:
    check(True, "transforms: the judge's own failure goes to the job, not the evidence")


# The joint transforms (mix, aligned): each input's own values kept in its
# domain, how the inputs relate changed; skipped where no two inputs allow
# it.  Through run: a candidate that takes the MSE's cross term as a
# product of means fails mix, one whose BCE never reads its targets fails
# aligned (and may fail others), and their honest twins pass every one.
jg = torch.Generator().manual_seed(11)
pu, tu = torch.rand(64, 128, generator=jg), torch.rand(64, 128, generator=jg)
zs = torch.randn(64, 128, generator=jg)
tb = torch.randint(0, 2, (64, 128), generator=jg).float()


def described(*xs):
    return [distribution.describe(torch, x) for x in xs]


mixed = distribution.joint(torch, "mix", [pu, tu], described(pu, tu))
check(mixed[0] is pu and torch.equal(mixed[1], (pu + tu) * 0.5) and
      float(mixed[1].min()) >= 0 and float(mixed[1].max()) <= max(pu.max(), tu.max()),
      "mix: the second of two inputs of one shape and domain becomes their mean, within "
      "the domain and the two's range; the first is kept")
check(distribution.joint(torch, "mix", [pu, zs], described(pu, zs)) is None and
      distribution.joint(torch, "mix", [pu, tu[:32]], described(pu, tu[:32])) is None and
      distribution.joint(torch, "mix", [zs, tb], described(zs, tb)) is None,
      "mix: none where the domains, the shapes differ, or one input is two-valued")
al = distribution.joint(torch, "aligned", [zs, tb], described(zs, tb))
check(al[1] is tb and torch.equal(al[0].abs(), zs.abs()) and
      bool(((al[0] >= 0) == (tb == 1)).all()),
      "aligned: scores take the sign of their 0/1 targets, magnitudes and targets kept")
check(torch.equal(distribution.signed_by(torch, zs, tb, size=1000),
                  torch.where(tb == 1, zs.abs(), -zs.abs())),
      "aligned: the signs set a chunk at a time are the signs set at once")
pm = torch.where(tb > 0, 1.0, -1.0)
al = distribution.joint(torch, "aligned", [zs, pm], described(zs, pm))
check(bool(((al[0] >= 0) == (pm > 0)).all()),
      "aligned: and of their +-1 targets")
sc, lab = torch.rand(64, 10, generator=jg), torch.randint(0, 10, (64,), generator=jg)
al = distribution.joint(torch, "aligned", [sc, lab], described(sc, lab))
check(al[1] is lab and bool((al[0].argmax(dim=1) == lab).all()) and float(al[0].min()) >= 0 and
      torch.equal(al[0].scatter(1, lab[:, None], 0.0), sc.scatter(1, lab[:, None], 0.0)),
      "aligned: each label's score above its row's others, the other scores and the "
      "labels kept, a sign-definite input's sign too")
check(distribution.joint(torch, "aligned", [sc, lab + 10], described(sc, lab + 10)) is None and
      distribution.joint(torch, "aligned", [-sc, lab], described(-sc, lab)) is None and
      distribution.joint(torch, "aligned", [sc, lab[:32]], described(sc, lab[:32])) is None,
      "aligned: none for labels beyond the scores' classes, scores all <= 0, or labels of "
      "another batch")
check(distribution.joint(torch, "aligned", [pu, tb], described(pu, tb)) is None and
      distribution.joint(torch, "aligned", [zs, tu], described(zs, tu)) is None and
      distribution.joint(torch, "aligned", [zs, tb[:32]], described(zs, tb[:32])) is None,
      "aligned: none for a sign-definite input, beside no two-valued one, or one of "
      "another shape")


def mse(p, t):
    return ((p - t) ** 2).mean()


def bce(z, t):
    return torch.nn.functional.binary_cross_entropy_with_logits(z, t)


for name, ref, cand, draw, should_fail in (
        ("an MSE from moments", mse,
         lambda p, t: (p * p).mean() + (t * t).mean() - 2 * p.mean() * t.mean(),
         lambda g: [torch.rand(256, 1024, generator=g), torch.rand(256, 1024, generator=g)],
         "mix"),
        ("its honest twin", mse, lambda p, t: torch.nn.functional.mse_loss(p, t),
         lambda g: [torch.rand(256, 1024, generator=g), torch.rand(256, 1024, generator=g)],
         None),
        ("a BCE that never reads its targets", bce,
         lambda z, t: (torch.nn.functional.softplus(z) - z / 2).mean(),
         lambda g: [torch.randn(256, 1024, generator=g),
                    torch.randint(0, 2, (256, 1024), generator=g).float()], "aligned"),
        ("its honest twin", bce, lambda z, t: (z.clamp(min=0) - z * t +
                                               torch.log1p(torch.exp(-z.abs()))).mean(),
         lambda g: [torch.randn(256, 1024, generator=g),
                    torch.randint(0, 2, (256, 1024), generator=g).float()], None),
        ("a cross entropy that never reads its labels", torch.nn.functional.cross_entropy,
         lambda s, y: (torch.logsumexp(s, dim=1) - s.mean(dim=1)).mean(),
         lambda g: [torch.rand(4096, 512, generator=g), torch.randint(0, 512, (4096,), generator=g)],
         "aligned"),
        ("its honest twin, one float32 accumulator over its rows",
         torch.nn.functional.cross_entropy, lambda s, y: accumulated(
             torch.logsumexp(s, dim=1) - s.gather(1, y[:, None]).squeeze(1)),
         lambda g: [torch.rand(4096, 512, generator=g), torch.randint(0, 512, (4096,), generator=g)],
         None)):
    job = Job(Fn(ref), Fn(cand))
    drawn = draw(torch.Generator().manual_seed(3))
    job.sets.fresh_content = lambda seed, drawn=drawn: drawn
    rec, failing = distribution.Distribution(job).run(7)
    got = sorted(f["transform"] for f in failing)
    check(should_fail in got if should_fail else not got,
          "joint transforms: %s fails %s (failing %s; mix %s, aligned %s)"
          % (name, should_fail or "none", got, rec["transforms"]["mix"],
             rec["transforms"]["aligned"]))


# The transforms' draws lend the candidate one shared copy of each input,
# refilled a draw (Distribution.candidate's lend): what each call receives
# is that draw's content; the reorder check's calls get copies of their
# own; none is kept once the transforms are done.
class CountingSets:
    def __init__(self):
        self.shared = []

    def share(self, x):
        self.shared.append(x)
        return x


seen = []


def recording(p, t):
    seen.append((p.data_ptr(), t.data_ptr(), p.clone(), t.clone()))
    return l1(p, t)


job = Job(Fn(l1), Fn(recording))
job.sets = CountingSets()
job.checks["trials"] = [{"scale_invariant_pass": True, "normwise_rel_err": 1e-7}]
base = [torch.randn(256, 64, generator=gen) for _ in range(2)]
job.sets.fresh_content = lambda seed: base
d = distribution.Distribution(job)
rec, failing = d.run(1)
drawn = [k for k, v in rec["transforms"].items() if "calls" in v.get("seconds", {})]
check(not failing and len(seen) >= 8 and len(job.sets.shared) == 2 and
      len({(a, b) for a, b, _, _ in seen}) == 1 and not d.lent,
      "transforms: %d calls (%s) through the same 2 shared copies, none kept after (%d shared, "
      "%d pointers)" % (len(seen), ",".join(drawn), len(job.sets.shared),
                        len({(a, b) for a, b, _, _ in seen})))
firsts = [(p.double().sum().item(), t.double().sum().item()) for _, _, p, t in seen]
check(len(set(firsts)) == len(firsts) and
      all(all(isinstance(v.get("seconds", {}).get(k), float) for k in ("inputs", "calls", "judge"))
          for v in rec["transforms"].values() if "skipped" not in v),
      "transforms: each call received its own draw's content; each draw's seconds recorded")
check(set(rec.get("seconds", {})) == {"base", "describe", "transforms", "reorder"},
      "transforms: the whole check's parts recorded (%s)" % rec.get("seconds"))
# A placed transform's further draws add to its seconds: the draws' seconds
# are the transforms' part, less the loop's own steps between them.  Those
# steps are wall time, which a loaded machine stretches (a preemption
# between two draws): the check is run again, up to 3 runs, and holds if
# one run's seconds add up.  Draws left uncounted fail every run.


def draws_seconds(r):
    return sum(sum(v.get("seconds", {}).values()) for v in r["transforms"].values())


def adds_up(r):
    return 0.75 * r["seconds"]["transforms"] <= draws_seconds(r) <= r["seconds"]["transforms"] + 1e-3


runs = [rec]
while not adds_up(runs[-1]) and len(runs) < 3:
    runs.append(distribution.Distribution(job).run(1)[0])
check(adds_up(runs[-1]),
      "transforms: the draws' seconds (%s s, sparse and heavy %d and %d draws) add up to "
      "the transforms' part (%s s; %d runs)"
      % (", ".join("%.4f" % draws_seconds(r) for r in runs),
         rec["transforms"]["sparse"].get("draws", 1), rec["transforms"]["heavy"].get("draws", 1),
         ", ".join("%.4f" % r["seconds"]["transforms"] for r in runs), len(runs)))
seen.clear()
job.sets.shared.clear()
d.reorder(base, [distribution.describe(torch, x) for x in base], gen)
check(len(seen) > 0 and len(job.sets.shared) == 2 * len(seen),
      "reorder: each of its %d calls gets copies of its own (%d shared)"
      % (len(seen), len(job.sets.shared)))
# A candidate whose output follows its input's address (a result cached by
# data_ptr) fails a lent draw and passes the same draw in copies of its
# own: result-cached (address_cached), not distribution-specific.
memo = {}


def by_address(p, t):
    key = (p.data_ptr(), t.data_ptr())
    if key not in memo:             # the inputs kept: no later tensor takes their address
        memo[key] = (p, t, l1(p, t))
    return memo[key][2]


job = Job(Fn(l1), Fn(by_address))
job.checks["trials"] = [{"scale_invariant_pass": True, "normwise_rel_err": 1e-7}]
job.sets.fresh_content = lambda seed: base
rec, failing = distribution.Distribution(job).run(1)
check(not failing and len(rec.get("address_cached", [])) >= 6,
      "transforms: an output cached by the inputs' address is address_cached (%s), "
      "not distribution-specific (%s)" % (rec.get("address_cached"), failing))
