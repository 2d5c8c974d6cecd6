"""Study 1 verifier diagnostics for the report: inputs, training, answers, in one long TSV.

In:  the VERIFIER_INPUTS tables (train, dev), the checkpoint directories (``metadata.json``)
     and VERIFIER_ANSWERS.
Out: rows ``(part, split, source, checkpoint, metric, value)``: per split x source the input
     counts (inputs, sentinel inputs, inputs not in the source, inputs with unresolved ids in
     the window, truncated claims / units, mean units used, mean and max tokens); per
     checkpoint the training record (distinct examples, updates, final loss); per checkpoint
     x source the predicted-label shares. Accuracy and macro-F1 are the accounting's.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import pandas as pd
import pyarrow as pa

from .. import tables
from ..tables.report_tsv import write_report_tsv
from ..tables.verifier import VERIFIER_ANSWERS, VERIFIER_INPUTS

COLUMNS = ["part", "split", "source", "checkpoint", "metric", "value"]


def input_summary_rows(inputs: pa.Table) -> list:
    rows = []
    frame = inputs.select(["split", "source", "in_source", "sentinel", "unresolved_ids", "claim_truncated",
                           "units_truncated", "used_unit_ids", "total_tokens"]).to_pylist()
    keys = sorted({(r["split"], r["source"]) for r in frame})
    for split, source in keys:
        sub = [r for r in frame if r["split"] == split and r["source"] == source]
        n = len(sub)
        metrics = {
            "inputs": n,
            "sentinel_inputs": sum(r["sentinel"] for r in sub),
            "not_in_source": sum(not r["in_source"] for r in sub),
            "inputs_with_unresolved_in_window": sum(bool(r["unresolved_ids"]) for r in sub),
            "claims_truncated": sum(r["claim_truncated"] for r in sub),
            "units_truncated": sum(r["units_truncated"] for r in sub),
            "mean_units_used": round(sum(len(r["used_unit_ids"]) for r in sub) / n, 4),
            "mean_tokens": round(sum(r["total_tokens"] for r in sub) / n, 2),
            "max_tokens": max(r["total_tokens"] for r in sub),
        }
        rows += [{"part": "inputs", "split": split, "source": source, "checkpoint": "", "metric": k, "value": v}
                 for k, v in metrics.items()]
    return rows


def training_summary_rows(ckpt_dirs: Sequence) -> list:
    rows = []
    for k, ckpt in enumerate(ckpt_dirs, start=1):
        meta = json.loads((Path(ckpt) / "metadata.json").read_text())
        for metric in ("seed", "distinct_examples", "example_uses", "final_update", "final_loss", "pool_size",
                       "inputs_not_in_source"):
            rows.append({"part": "training", "split": "train", "source": meta.get("training_source", ""),
                         "checkpoint": str(k), "metric": metric, "value": meta.get(metric)})
    return rows


def answer_summary_rows(answers: pa.Table) -> list:
    rows = []
    frame = answers.select(["checkpoint", "source", "predicted_label"]).to_pylist()
    for k, source in sorted({(r["checkpoint"], r["source"]) for r in frame}):
        labels = [r["predicted_label"] for r in frame if r["checkpoint"] == k and r["source"] == source]
        for label in sorted(set(labels)):
            rows.append({"part": "answers", "split": "dev", "source": source, "checkpoint": str(k),
                         "metric": f"share_{label}", "value": round(labels.count(label) / len(labels), 4)})
    return rows


def write_verifier_summary(inputs_paths: Sequence, ckpt_dirs: Sequence, answers_path, out_path) -> int:
    """Rule adapter: write the summary report TSV (columns ``COLUMNS``, fixed row order)."""
    rows = []
    for path in inputs_paths:
        rows += input_summary_rows(tables.read_table(path, VERIFIER_INPUTS))
    rows += training_summary_rows(ckpt_dirs)
    rows += answer_summary_rows(tables.read_table(answers_path, VERIFIER_ANSWERS))
    write_report_tsv(pd.DataFrame(rows, columns=list(COLUMNS)), out_path)
    return len(rows)
