"""DLRM-Bench's references compute what their docstrings say: each one,
at the test sizes of dlrmlib.py on the CPU, against the same definition
written out here element by element in float64 (loops over bags, samples
and layers; no call of the operator the problem is about)."""
import math

import torch

import dlrmlib
from workerlib import check

torch.set_default_dtype(torch.float32)


def run(pid):
    """(namespace, model, inputs, output) of problem pid at test size."""
    ns = dlrmlib.load(pid)
    torch.manual_seed(42)
    model = ns["Model"](*ns["get_init_inputs"]())
    torch.manual_seed(7)
    inputs = ns["get_inputs"]()
    with torch.no_grad():
        return ns, model, inputs, model(*inputs)


def close(pid, got, want, tol=1e-4):
    err = (got.double() - want).abs().max().item() if want.numel() else 0.0
    check(got.shape == want.shape and err <= tol * (1 + want.abs().max().item()),
          "problem %d: matches its definition (shape %s vs %s, max error %.3g)"
          % (pid, tuple(got.shape), tuple(want.shape), err))


def bags(offsets, nnz, closing):
    """[(start, end)] of every bag."""
    o = offsets.tolist() + ([] if closing else [nnz])
    return list(zip(o[:-1], o[1:]))


def pooled(table, ids, spans, mean=False, weights=None):
    rows = []
    for lo, hi in spans:
        acc = torch.zeros(table.shape[1], dtype=torch.float64)
        for j in range(lo, hi):
            acc += table[ids[j]].double() * (1.0 if weights is None else float(weights[j]))
        rows.append(acc / (hi - lo) if mean and hi > lo else acc)
    return torch.stack(rows)


# 1, 2, 4: one table, sum / mean / weighted sum
for pid, mean, closing in ((1, False, False), (2, True, True), (4, False, False)):
    ns, model, inp, out = run(pid)
    w = inp[2] if pid == 4 else None
    close(pid, out, pooled(model.table.weight, inp[0], bags(inp[1], inp[0].numel(), closing),
                           mean, w))
    check(any(hi == lo for lo, hi in bags(inp[1], inp[0].numel(), closing)),
          "problem %d: the draw has an empty bag" % pid)

# 3: many tables, table-major bags, concatenated per sample
ns, model, (ids, offsets), out = run(3)
b = ns["batch_size"]
spans = bags(offsets, ids.numel(), True)
want = torch.cat([pooled(t.weight, ids, spans[k * b:(k + 1) * b])
                  for k, t in enumerate(model.tables)], dim=1)
close(3, out, want)

# 5: hash of raw ids, in Python integers (no int64 wrap possible)
ns, model, (raw,), out = run(5)
rows = ns["table_rows"]
want = [[((v * ns["multiplier"]) ^ ((v * ns["multiplier"]) >> 31)) % rows[f]
         for f, v in enumerate(r)] for r in raw.tolist()]
check(out.tolist() == want, "problem 5: matches its definition")
check(all(0 <= x < rows[f] for r in out.tolist() for f, x in enumerate(r)), "problem 5: ids in range")

# 6: jagged -> padded, truncated at max_length
ns, model, (values, offsets), out = run(6)
want = torch.full((ns["batch_size"], ns["max_length"], ns["dim"]), ns["padding_value"],
                  dtype=torch.float64)
for s, (lo, hi) in enumerate(bags(offsets, values.shape[0], True)):
    for k in range(min(hi - lo, ns["max_length"])):
        want[s, k] = values[lo + k].double()
close(6, out, want)

# 7: dense, then the strictly lower triangle of pairwise dot products
ns, model, (dense, sparse), out = run(7)
rows = []
for s in range(dense.shape[0]):
    feats = [dense[s].double()] + [sparse[s, k].double() for k in range(sparse.shape[1])]
    tri = [float(feats[i] @ feats[j]) for i in range(len(feats)) for j in range(i)]
    rows.append(torch.cat([dense[s].double(), torch.tensor(tri, dtype=torch.float64)]))
close(7, out, torch.stack(rows))
check(out.shape[1] == ns["dim"] + (ns["num_sparse"] + 1) * ns["num_sparse"] // 2,
      "problem 7: dim + C(features, 2) columns")

# 8: concatenation
ns, model, (dense, sparse), out = run(8)
want = torch.stack([torch.cat([dense[s]] + [sparse[s, k] for k in range(sparse.shape[1])])
                    for s in range(dense.shape[0])]).double()
close(8, out, want, tol=0.0)


def mlp(linears, x, last):
    """x through the Linear layers, ReLU after each but the last, which
    gets last(); in float64."""
    h = x.double()
    for i, lin in enumerate(linears):
        h = h @ lin.weight.double().t() + lin.bias.double()
        h = last(h) if i == len(linears) - 1 else h.clamp(min=0)
    return h


def linears(model):
    return [m for m in model.mlp if isinstance(m, torch.nn.Linear)]


# 9: bottom MLP, ReLU after every layer
ns, model, (x,), out = run(9)
close(9, out, mlp(linears(model), x, lambda h: h.clamp(min=0)))
check(len(linears(model)) == len(ns["widths"]) - 1, "problem 9: one Linear per width step")

# 10: top MLP, then the sigmoid
ns, model, (x,), out = run(10)
close(10, out, mlp(linears(model), x, lambda h: 1 / (1 + torch.exp(-h))))
check(out.std().item() > 0.02, "problem 10: the sigmoid's outputs are spread (std %.3g)"
      % out.std().item())

# 11: binary cross-entropy from the logits, per sample
ns, model, (logits, labels), out = run(11)
want = [-(y * math.log(1 / (1 + math.exp(-z))) + (1 - y) * math.log(1 - 1 / (1 + math.exp(-z))))
        for z, y in zip(logits.tolist(), labels.tolist())]
close(11, out, torch.tensor(want, dtype=torch.float64))
check(0 < labels.sum().item() < labels.numel(), "problem 11: both labels drawn")

# 12: low-rank cross layers
ns, model, (x0,), out = run(12)
x0d, x = x0.double(), x0.double()
for down, up in zip(model.down, model.up):
    x = x0d * (x @ down.weight.double().t() @ up.weight.double().t() + up.bias.double()) + x
close(12, out, x)
print("ok")
