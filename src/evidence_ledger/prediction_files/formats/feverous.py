"""FEVEROUS prediction files (``account feverous``, ``score feverous``, ``external.feverous``).

In:  the official FEVEROUS dev/train file (``feverous_dev_challenges.jsonl``, its empty header
     line allowed) and prediction files ``{id, predicted_label, predicted_evidence}`` whose
     evidence items are element ids or ``[page, type, position]`` triples (Raldir/FEVEROUS's
     submission format).
Out: the registered :class:`FeverousFormat`: per claim the label's correctness and the evidence's
     eligibility under the official scorer's caps (5 non-cell and 25 cell-like elements,
     ``scoring.feverous``), so a cell is the official FEVEROUS score of the recombined file.
"""
from __future__ import annotations

from ...scoring import feverous
from ..format_registry import register_format
from ..labelled_claims import LabelledClaimsFormat


class FeverousFormat(LabelledClaimsFormat):
    name = "feverous"
    title = "FEVEROUS"
    record_help = "{id, predicted_label, predicted_evidence: [ids]}"
    scorer = feverous
    caps = (("max_evidence", "--max-evidence", "non-cell items scored"),
            ("max_evidence_cell", "--max-evidence-cell", "cell / item / table_caption / header_cell items scored"))
    gold_help = "official dev/train JSONL"
    score_help = "FEVEROUS score (Raldir/FEVEROUS semantics)"
    score_description = ("Prints {strict_score, label_accuracy, precision, recall, f1}. Gold is the official "
                         "dev/train JSONL (header line allowed); predicted_evidence items are id strings or "
                         "[page, type, position] triples.")


register_format(FeverousFormat())
