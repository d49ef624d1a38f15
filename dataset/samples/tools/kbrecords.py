"""The pieces build_cpu_archive.py and build_dlrm_archive.py share: an
archive record of KernelBench's eval_results.json for one outcome, its
runtime stats, and a file written with its folders.  Standard library
only; key order is part of the output (the archives are compared byte
for byte)."""
import os


def g3(x):
    return float("%.3g" % x)


def stats(mean, hw, device, spread):
    """runtime_stats of a mean (ms); spread: (std, min, max) as shares of it."""
    std, lo, hi = spread
    return {"mean": mean, "std": g3(mean * std), "min": g3(mean * lo),
            "max": g3(mean * hi), "num_trials": 100, "hardware": hw,
            "device": device}


def record(sid, outcome, runtime, hw, device, build_error, wrong_diffs, runtime_stats,
           error_name=None):
    """One sample's record: outcome compile-error (build_error, and
    error_name where the archive names the exception), wrong (wrong_diffs:
    the max and avg difference each trial reports) or correct (runtime,
    runtime_stats(runtime))."""
    meta = {"hardware": hw, "device": device}
    rec = {"sample_id": sid}
    if outcome == "compile-error":
        meta["compilation_error"] = build_error
        if error_name:
            meta["compilation_error_name"] = error_name
        rec.update(compiled=False, correctness=False, metadata=meta, runtime=-1.0,
                   runtime_stats={})
    elif outcome == "wrong":
        meta.update(correctness_issue="Output mismatch", correctness_trials="(0 / 5)",
                    max_difference=[wrong_diffs[0]] * 5, avg_difference=[wrong_diffs[1]] * 5)
        rec.update(compiled=True, correctness=False, metadata=meta, runtime=-1.0,
                   runtime_stats={})
    else:
        meta["correctness_trials"] = "(5 / 5)"
        rec.update(compiled=True, correctness=True, metadata=meta, runtime=runtime,
                   runtime_stats=runtime_stats(runtime))
    return rec


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)
