"""Per-claim traces for the report: claims whose credit changed with evidence alone.

In:  PATTERN_TRACES rows (accounting: units whose four scores are ``1010`` or ``0101``),
     the sampled CLAIMS, the EVIDENCE table and the UNITS of each dataset.
Out: one row per selected trace with the claim text, the gold label, both answers, both
     scored evidence lists (ids and texts) and the four scores ``S00 S01 S10 S11``.

Selection (post hoc, as in the seed study): per (dataset, system, pattern), the traces of
the lowest claim ids (numeric order when ids are integers), greedy replicate first, at most
``per_pattern`` of them. ``1010`` = the same correct answer under both sources, only source-0
evidence eligible; ``0101`` the reverse.
"""
from __future__ import annotations

from typing import Iterable

import pandas as pd

TRACE_COLUMNS = [
    "dataset", "system", "format", "budget", "replicate", "pattern", "claim_id", "doc_id", "claim",
    "gold_label", "answer_0", "answer_1", "scores", "evidence_0_ids", "evidence_1_ids",
    "evidence_0_text", "evidence_1_text",
]


def claim_sort_key(claim_id: str) -> tuple[int, int | str]:
    """Integers sort numerically before any non-integer id, which sort as strings."""
    return (0, int(claim_id)) if claim_id.lstrip("-").isdigit() else (1, claim_id)


def pattern_scores(pattern: str) -> str:
    """'1010' -> 'S00=1 S01=0 S10=1 S11=0'."""
    names = ("S00", "S01", "S10", "S11")
    return " ".join(f"{name}={bit}" for name, bit in zip(names, pattern))


def select_traces(traces: pd.DataFrame, per_pattern: int) -> pd.DataFrame:
    """The ``per_pattern`` lowest-id traces per (dataset, system, pattern); deterministic."""
    if traces.empty:
        return traces
    ordered = traces.assign(_key=traces["claim_id"].map(claim_sort_key))
    ordered = ordered.sort_values(
        ["dataset", "system", "pattern", "_key", "doc_id", "replicate", "format", "budget"], kind="stable"
    )
    ordered = ordered.drop_duplicates(["dataset", "system", "pattern", "claim_id", "doc_id"])
    return ordered.groupby(["dataset", "system", "pattern"], sort=True).head(per_pattern).drop(columns="_key")


def render_units(unit_ids: Iterable[str], unit_text: dict[str, str]) -> str:
    """Unit texts joined as ``[id] text`` lines; an id missing from the corpus is shown as such."""
    return "\n".join(f"[{uid}] {unit_text.get(uid, '<not in corpus>')}" for uid in unit_ids)


def trace_unit_ids(selected: pd.DataFrame, evidence: pd.DataFrame, sources: tuple[str, str]) -> set[str]:
    """The unit ids whose text :func:`build_trace_rows` shows for ``selected``: the scored units of
    each trace's (claim, document, budget) under both ``sources`` (so a stage reads only those)."""
    wanted = {(t.claim_id, t.doc_id, source, t.budget) for t in selected.itertuples(index=False) for source in sources}
    return {u for row in evidence.itertuples(index=False)
            if (row.claim_id, row.doc_id, row.source, row.budget) in wanted for u in row.scored_unit_ids}


def build_trace_rows(selected: pd.DataFrame, claims: pd.DataFrame, evidence: pd.DataFrame,
                     units: pd.DataFrame, sources: tuple[str, str]) -> pd.DataFrame:
    """Join selected traces with claim text and both sources' scored evidence at the trace's budget."""
    claim_text = dict(zip(claims["claim_id"], claims["claim"]))
    unit_text = dict(zip(units["unit_id"], units["text"]))
    scored = {
        (row.claim_id, row.doc_id, row.source, row.budget): list(row.scored_unit_ids)
        for row in evidence.itertuples(index=False)
    }
    rows = []
    for trace in selected.itertuples(index=False):
        ids = [scored.get((trace.claim_id, trace.doc_id, source, trace.budget), []) for source in sources]
        rows.append({
            "dataset": trace.dataset, "system": trace.system, "format": trace.format, "budget": trace.budget,
            "replicate": int(trace.replicate), "pattern": trace.pattern, "claim_id": trace.claim_id,
            "doc_id": trace.doc_id, "claim": claim_text.get(trace.claim_id, ""), "gold_label": trace.gold_label,
            "answer_0": trace.predicted_0, "answer_1": trace.predicted_1, "scores": pattern_scores(trace.pattern),
            "evidence_0_ids": " ".join(ids[0]), "evidence_1_ids": " ".join(ids[1]),
            "evidence_0_text": render_units(ids[0], unit_text), "evidence_1_text": render_units(ids[1], unit_text),
        })
    return pd.DataFrame(rows, columns=TRACE_COLUMNS)
