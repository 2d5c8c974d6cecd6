"""Study 1 indicator tables from verifier answers and provider evidence.

In:  ``VERIFIER_ANSWERS`` rows, the evaluation CLAIMS rows, the provider EVIDENCE tables
     (one per source, budget ``full``) and the ``VERIFIER_INPUTS`` of the evaluation claims.
Out: ANSWER_INDICATORS (system = verifier name, format ``verifier``, replicate = checkpoint
     index, parser ``none``, answer_budget ``full``, doc_id ''), EVIDENCE_INDICATORS
     (``eligible`` = the FEVEROUS evidence condition on the provider's ranked ids in provider
     order, kept to 5 non-cell + 25 cell-like items), RELEVANT and the per-claim
     UNRESOLVED_FLAGS.

All scoring rules are those of :mod:`evidence_ledger.scoring` (``scoring.feverous`` for the
truncation and the evidence condition, ``scoring.indicators`` for the central rows); this
module only adapts the verifier's tables to them. The FEVEROUS strict score of answers
``a`` with evidence ``b`` is then ``label_correct_a * eligible_b`` claim by claim (no NEI
exemption: NEI claims need evidence too).
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from ..scoring import feverous
from ..scoring import indicators as scoring_indicators

FORMAT = "verifier"
PARSER = "none"
BUDGET = "full"


def answer_indicator_rows(answers: Iterable[Mapping], claims: Iterable[Mapping]) -> list:
    """ANSWER_INDICATORS rows (parser ``none``), one per answer row, via the central scorer."""
    parsed = [{
        "model": a["system"], "dataset": a["dataset"], "claim_id": a["claim_id"], "doc_id": "",
        "source": a["source"], "budget": BUDGET, "format": FORMAT, "replicate": int(a["checkpoint"]),
        f"{PARSER}_label": a["predicted_label"],
    } for a in answers]
    return scoring_indicators.answer_indicator_rows(claims, parsed, parsers=(PARSER,))


def feverous_scored_prefix(unit_ids: Sequence[str], max_evidence: int = feverous.MAX_EVIDENCE,
                           max_evidence_cell: int = feverous.MAX_EVIDENCE_CELL) -> list:
    """The ids the FEVEROUS scorer keeps from a ranked list, in provider order.

    ``scoring.feverous.truncate_evidence`` decides; its kept items are a subsequence of the
    input, so the ids are recovered by walking both lists in order.
    """
    elements = [feverous.split_element_id(u) for u in unit_ids]
    kept = feverous.truncate_evidence(elements, max_evidence, max_evidence_cell)
    out, j = [], 0
    for unit_id, element in zip(unit_ids, elements):
        if j < len(kept) and element == kept[j]:
            out.append(unit_id)
            j += 1
    return out


def provider_evidence_rows(claims: Sequence[Mapping], source: str, evidence: Iterable[Mapping], *,
                           window_unresolved: Mapping | None = None,
                           max_evidence: int = feverous.MAX_EVIDENCE,
                           max_evidence_cell: int = feverous.MAX_EVIDENCE_CELL) -> tuple[list, int]:
    """EVIDENCE-like rows of one provider for every claim, ``scored_unit_ids`` = the FEVEROUS
    kept prefix of the provider table's ``scored_unit_ids`` (the full submitted list, where an
    unresolved id still takes its slot, as in the official scorer). Returns (rows, number of claims the provider has no
    row for); such a claim gets an empty submission (never eligible unless a gold set is
    empty), it is not dropped. Rows of claims outside ``claims`` are ignored (a provider file
    may cover the training claims as well).

    ``unresolved`` = max(the provider table's count, unresolved ids met in the verifier's
    input window, ``window_unresolved[(source, claim_id)]``): when a provider table keeps
    unresolved ids in its list, both count the same ids, so they are not added."""
    wanted = {(c["dataset"], str(c["claim_id"])) for c in claims}
    by_key = {}
    for ev in evidence:
        key = (ev["dataset"], str(ev["claim_id"]))
        if key not in wanted:
            continue
        if key in by_key:
            raise ValueError(f"evidence source {source!r}: claim {key[1]!r} has two rows")
        by_key[key] = ev
    rows, missing = [], 0
    for c in claims:
        key = (c["dataset"], str(c["claim_id"]))
        ev = by_key.get(key)
        if ev is None:
            missing += 1
            ids, unresolved = [], 0
        else:
            ids, unresolved = list(ev["scored_unit_ids"] or []), int(ev["unresolved"] or 0)
        unresolved = max(unresolved, (window_unresolved or {}).get((source, key[1]), 0))
        rows.append({"dataset": key[0], "claim_id": key[1], "doc_id": "", "source": source, "budget": BUDGET,
                     "scored_unit_ids": feverous_scored_prefix(ids, max_evidence, max_evidence_cell),
                     "unresolved": unresolved})
    return rows, missing


def evidence_indicator_rows(claims: Sequence[Mapping], evidence_rows: Iterable[Mapping], *,
                            max_evidence: int = feverous.MAX_EVIDENCE,
                            max_evidence_cell: int = feverous.MAX_EVIDENCE_CELL) -> list:
    """EVIDENCE_INDICATORS rows through ``scoring.indicators`` (complete per source)."""
    return scoring_indicators.evidence_indicator_rows(claims, evidence_rows, max_evidence=max_evidence,
                                                      max_evidence_cell=max_evidence_cell)


def relevant_rows(claims: Iterable[Mapping]) -> list:
    """RELEVANT rows (FEVEROUS: ``n_relevant`` 1 per claim)."""
    return scoring_indicators.relevant_rows(claims)


def window_unresolved_counts(inputs: Iterable[Mapping]) -> dict:
    """``(source, claim_id) -> number of unresolved ids in the verifier's input window``."""
    return {(r["source"], str(r["claim_id"])): len(r["unresolved_ids"] or []) for r in inputs}


def unresolved_flag_rows(evidence_indicators: Sequence[Mapping], sources: Sequence[str]) -> list:
    """Per-claim unresolved flags from EVIDENCE_INDICATORS rows (``unresolved`` per source).

    ``any_unresolved``: some source has an unresolved id for the claim; ``both_resolved`` is
    its negation (the restricted Study 1 population). Claims keep their first-seen order.
    """
    per_claim: dict = {}
    for row in evidence_indicators:
        per_claim.setdefault((row["dataset"], row["claim_id"]), {})[row["evidence_source"]] = int(row["unresolved"])
    rows = []
    for (dataset, claim_id), counts in per_claim.items():
        missing = [s for s in sources if s not in counts]
        if missing:
            raise ValueError(f"claim {claim_id!r} has no evidence indicator for sources {missing}")
        any_unresolved = any(counts[s] > 0 for s in sources)
        rows.append({"dataset": dataset, "claim_id": claim_id,
                     "unresolved_by_source": [(s, counts[s]) for s in sources],
                     "any_unresolved": any_unresolved, "both_resolved": not any_unresolved})
    return rows


def run_study1_indicators(answers_path, claims_path, evidence_paths: Mapping[str, str], inputs_path,
                          outputs: Mapping[str, str], *, max_evidence: int = feverous.MAX_EVIDENCE,
                          max_evidence_cell: int = feverous.MAX_EVIDENCE_CELL, log=None) -> dict:
    """Rule adapter: write ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT and the unresolved
    flags (``outputs`` keys ``answers``, ``evidence``, ``relevant``, ``unresolved``)."""
    from .. import tables
    from ..tables.evidence import EVIDENCE
    from ..tables.ingest import CLAIMS
    from ..tables.scoring import ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT
    from ..tables.verifier import UNRESOLVED_FLAGS, VERIFIER_ANSWERS, VERIFIER_INPUTS

    claims = tables.read_table(claims_path, CLAIMS).to_pylist()
    answers = tables.read_table(answers_path, VERIFIER_ANSWERS).to_pylist()
    tables.write_table(ANSWER_INDICATORS.from_rows(answer_indicator_rows(answers, claims)),
                       outputs["answers"], ANSWER_INDICATORS)
    inputs = tables.read_table(inputs_path, VERIFIER_INPUTS, columns=["source", "claim_id", "unresolved_ids"])
    window = window_unresolved_counts(inputs.to_pylist())
    ev_rows, missing = [], {}
    for source, path in evidence_paths.items():
        rows, missing[source] = provider_evidence_rows(claims, source, tables.read_table(path, EVIDENCE).to_pylist(),
                                                       window_unresolved=window, max_evidence=max_evidence,
                                                       max_evidence_cell=max_evidence_cell)
        ev_rows.extend(rows)
    ev_ind = evidence_indicator_rows(claims, ev_rows, max_evidence=max_evidence, max_evidence_cell=max_evidence_cell)
    tables.write_table(EVIDENCE_INDICATORS.from_rows(ev_ind), outputs["evidence"], EVIDENCE_INDICATORS)
    tables.write_table(RELEVANT.from_rows(relevant_rows(claims)), outputs["relevant"], RELEVANT)
    flags = unresolved_flag_rows(ev_ind, list(evidence_paths))
    tables.write_table(UNRESOLVED_FLAGS.from_rows(flags), outputs["unresolved"], UNRESOLVED_FLAGS)
    summary = {
        "answers": len(answers), "claims": len(claims), "claims_missing_from_source": missing,
        "eligible_by_source": {s: sum(r["eligible"] for r in ev_ind if r["evidence_source"] == s)
                               for s in evidence_paths},
        "claims_with_unresolved": sum(r["any_unresolved"] for r in flags),
    }
    if log:
        log.info("study1 indicators: %s", summary)
    return summary
