#!/usr/bin/env python3
"""vocab.py ROOT [--write] - the worker's vocabulary module from the table.

dataset/base/vocab.def declares every domain word once (C expands it with
macros).  This renders replay/hrworker/vocab.py from it: one constant per
word, named as the C enum, and a tuple per set in the table's order.
Without --write it compares the committed module with the rendering and
exits 1 on drift (the CLI case vocabulary-worker-module-agrees); with
--write it writes the module.
"""
import os
import re
import sys

ENTRY = re.compile(r'^(VOCAB_[A-Z_]+)\((\w+),\s*"([^"]*)"(?:,\s*([01]))?\)')

# set macro -> (tuple name, comment)
SETS = [
    ("VOCAB_MODE", "MODES", "a replay's mode"),
    ("VOCAB_PHASE", "PHASES", "a job's phases, in the order a job goes through them"),
    ("VOCAB_JOB_VERDICT", "JOB_VERDICTS", "what a worker answers a job"),
    ("VOCAB_AUDIT", "AUDITS", "audit verdict classes (a name ending in ':' is a prefix)"),
    ("VOCAB_FINDING", "FINDINGS", "evidence finding ids, in verdict priority"),
    ("VOCAB_STOP", "STOPS", "where a job stops (a job message's stop_after)"),
    ("VOCAB_RUN_STATE", "RUN_STATES", "replay_run.state"),
    ("VOCAB_JOB_STATE", "JOB_STATES", "replay_job.state"),
]
FLAGGED = {"VOCAB_JOB_VERDICT": ("STORED_VERDICTS", "the job verdicts a finished job may store"),
           "VOCAB_FINDING": ("CORRECT_ONLY", "findings that count only where the original check passed")}


def read_table(path):
    words = {m: [] for m, _, _ in SETS}
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            m = ENTRY.match(line)
            if not m:
                continue
            macro, enum, name, flag = m.groups()
            if macro not in words:
                sys.exit("%s:%d: unknown set %s" % (path, n, macro))
            words[macro].append((enum, name, flag == "1"))
    return words


def collection(name, form, items):
    """NAME = FORM with items, on one line when it fits in 79 columns, else
    one item a line."""
    one = "%s = %s" % (name, form % ", ".join(items))
    if len(items) == 1 and form.startswith("("):
        one = "%s = (%s,)" % (name, items[0])
    if len(one) <= 79:
        return one
    body = "".join("\n    %s," % i for i in items) + "\n"
    return "%s = %s" % (name, form % body)


def render(words):
    out = ['"""The domain words of dataset/base/vocab.def, for the worker.',
           "",
           "Written by tests/vocab.py from that table; do not edit.  After a change",
           "to the table run `python3 tests/vocab.py . --write` (the CLI case",
           "vocabulary-worker-module-agrees fails until then).",
           '"""', ""]
    for macro, tup, comment in SETS:
        out.append("# %s" % comment)
        for enum, name, _ in words[macro]:
            out.append("%s = %r" % (enum, name))
        out.append(collection(tup, "(%s)", [e for e, _, _ in words[macro]]))
        if macro in FLAGGED:
            fname, fcomment = FLAGGED[macro]
            out.append("# %s" % fcomment)
            out.append(collection(fname, "frozenset({%s})",
                                  [e for e, _, flag in words[macro] if flag]))
        out.append("")
    return "\n".join(out)


def main():
    if len(sys.argv) < 2 or sys.argv[2:] not in ([], ["--write"]):
        sys.exit("usage: vocab.py ROOT [--write]")
    root = sys.argv[1]
    table = os.path.join(root, "dataset", "base", "vocab.def")
    module = os.path.join(root, "replay", "hrworker", "vocab.py")
    text = render(read_table(table))
    if sys.argv[2:] == ["--write"]:
        with open(module, "w", encoding="utf-8") as f:
            f.write(text)
        return 0
    try:
        with open(module, encoding="utf-8") as f:
            have = f.read()
    except OSError as e:
        print("replay/hrworker/vocab.py: %s" % e.strerror)
        return 1
    if have != text:
        print("replay/hrworker/vocab.py differs from dataset/base/vocab.def: "
              "run python3 tests/vocab.py . --write")
        return 1
    print("replay/hrworker/vocab.py agrees with dataset/base/vocab.def")
    return 0


if __name__ == "__main__":
    sys.exit(main())
