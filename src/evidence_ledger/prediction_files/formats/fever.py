"""FEVER prediction files (``account fever``, ``score fever``, ``external.fever``).

In:  the FEVER gold file (``shared_task_dev.jsonl`` / ``paper_dev.jsonl``: ``{id, label,
     evidence}``) and prediction files ``{id, predicted_label, predicted_evidence: [[page, line],
     ...]}`` (sheffieldnlp/fever-scorer's submission format).
Out: the registered :class:`FeverFormat`: per claim the label's correctness and the evidence's
     eligibility under ``fever_score(max_evidence=5)`` (``scoring.fever``), so a cell is the
     official FEVER score of a file holding one run's labels and another's evidence.
"""
from __future__ import annotations

from ...scoring import fever
from ..format_registry import register_format
from ..labelled_claims import LabelledClaimsFormat


class FeverFormat(LabelledClaimsFormat):
    name = "fever"
    title = "FEVER"
    record_help = "{id, predicted_label, predicted_evidence: [[page, line]]}"
    scorer = fever
    caps = (("max_evidence", "--max-evidence", "predicted evidence items scored"),)
    gold_help = "gold JSONL (id, label, evidence groups)"
    score_help = "FEVER score (sheffieldnlp/fever-scorer semantics)"
    score_description = ("Prints {strict_score, label_accuracy, precision, recall, f1}. Predictions are matched to "
                         "gold by id; by position (the official blind mode) only with --match positional or when no "
                         "prediction has an id. Gold comes from --gold only, or, asked for with "
                         "--self-contained-gold, from each line's own label and evidence.")


register_format(FeverFormat())
