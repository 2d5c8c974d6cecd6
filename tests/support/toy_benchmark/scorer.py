"""Toy scorer: a claim's evidence is eligible when some gold group lies inside the first
``max_evidence`` scored units (UNKNOWN claims need none), as in FEVER."""
from __future__ import annotations

from typing import Mapping, Sequence

NEI = "UNKNOWN"


def unit_evidence_eligible(claim: Mapping, doc_id: str, scored_unit_ids: Sequence[str], *, max_evidence: int,
                           max_evidence_cell: int, max_sentences: int) -> bool:
    if claim["label"] == NEI:
        return True
    kept = set(scored_unit_ids[:max_evidence])
    return any(set(group) <= kept for group in claim["evidence_groups"] or [])
