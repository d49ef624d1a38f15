#!/usr/bin/env python3
"""Writes dataset/samples/dlrm-archive/ (the run's eval_results.json and
generation_config.yaml, the level-5 baseline timing) from the table below:
the sample's DLRM-Bench run by an invented configuration of the sample's
frontier model.  Deterministic: re-running it reproduces the committed
files byte for byte.  Standard library only.

    python3 dataset/samples/tools/build_dlrm_archive.py

The kernel files are hand-written and committed (README.md there says
what each is); every number here is invented for the sample, not
measured.  The problem set is dataset/problems/dlrm-bench (level 5).
"""
import json
import os

import kbrecords
from kbrecords import write

HERE = os.path.dirname(os.path.abspath(__file__))
ARCHIVE = os.path.join(os.path.dirname(HERE), "dlrm-archive")
RUN = "acme-frontier-2_reasoning-high_dlrm-bench"
HW = "NVIDIA H100 80GB HBM3"

# problem id -> (file name, eager baseline mean ms)
PROBLEMS = {
    1: ("1_EmbeddingBag_sum_one_table.py", 0.420),
    2: ("2_EmbeddingBag_mean_last_offset.py", 0.440),
    3: ("3_EmbeddingBag_sum_26_tables.py", 2.60),
    4: ("4_EmbeddingBag_per_sample_weights.py", 0.470),
    5: ("5_Hash_sparse_ids_modulo.py", 0.0520),
    6: ("6_Jagged_to_padded_dense.py", 0.950),
    7: ("7_Dot_interaction_lower_triangle.py", 0.760),
    8: ("8_Concat_interaction.py", 0.0900),
    9: ("9_Bottom_MLP_ReLU.py", 0.310),
    10: ("10_Top_MLP_sigmoid.py", 0.880),
    11: ("11_BCE_with_logits_loss.py", 0.0300),
    12: ("12_DCN_cross_layers.py", 1.15),
}

# problem id -> (outcome, runtime ms); problems 2, 4, 9, 10 and 12 have no
# kernel (generation failed): absent from the run.
EVALS = {
    1: ("correct", 0.280),      # 1.5x
    3: ("compile-error", None),
    5: ("correct", 0.0400),     # 1.3x
    6: ("wrong", None),
    7: ("correct", 0.0200),     # 38x: the vacuous pass
    8: ("correct", 0.100),      # 0.9x
    11: ("correct", 0.0150),    # 2.0x
}


def stats(mean):
    return kbrecords.stats(mean, HW, "cuda:0", (0.01, 0.99, 1.05))


def record(outcome, runtime):
    return kbrecords.record(0, outcome, runtime, HW, "cuda:0",
                            "Error building extension 'acme_dlrm_bags26'",
                            ("3.402823e+38", "1.7e+37"), stats)


def main():
    run = os.path.join(ARCHIVE, "runs", RUN)
    evals = {str(p): record(*EVALS[p]) for p in sorted(EVALS)}
    write(os.path.join(run, "eval_results.json"), json.dumps(evals, indent=4) + "\n")
    write(os.path.join(run, "generation_config.yaml"),
          "backend: cuda\ndataset_name: dlrm-bench\nis_reasoning_model: true\nlevel: 5\n"
          "max_tokens: 32768\nmodel_name: acme-frontier-2\nnum_samples: 1\nprecision: fp32\n"
          "reasoning_effort: high\nrun_name: %s\nserver_type: acme\ntemperature: 1.0\n" % RUN)
    base = {"level5": {name: stats(ms) for _, (name, ms) in sorted(PROBLEMS.items())}}
    write(os.path.join(ARCHIVE, "results", "timing", "H100_sample", "baseline_time_torch.json"),
          json.dumps(base, indent=4) + "\n")


if __name__ == "__main__":
    main()
