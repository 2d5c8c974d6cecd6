"""Study 1 indicator tables from verifier answers and provider evidence.

In:  ``VERIFIER_ANSWERS`` rows, the evaluation CLAIMS rows, the provider EVIDENCE tables
     (one per source, budget ``full``) and the ``VERIFIER_INPUTS`` of the evaluation claims.
Out: ANSWER_INDICATORS (system = verifier name, format ``verifier``, replicate = checkpoint
     index, parser ``none``, answer_budget ``full``, doc_id ''), EVIDENCE_INDICATORS
     (``eligible`` = the FEVEROUS evidence condition on the provider's ranked ids in provider
     order, repeats and unresolved ids included, kept to 5 non-cell + 25 cell-like items),
     RELEVANT, the per-claim UNRESOLVED_FLAGS (unresolved ids inside each source's verifier
     input window, and in its whole submitted list; repeated ids) and their report rows.

All scoring rules are those of :mod:`evidence_ledger.scoring` (``scoring.feverous`` for the
truncation and the evidence condition, ``scoring.indicators`` for the central rows); this
module only adapts the verifier's tables to them. The FEVEROUS strict score of answers
``a`` with evidence ``b`` is then ``label_correct_a * eligible_b`` claim by claim (no NEI
exemption: NEI claims need evidence too).
"""
from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import pandas as pd

from ..evidence.providers import repeated_id_count
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
                           max_evidence: int = feverous.MAX_EVIDENCE,
                           max_evidence_cell: int = feverous.MAX_EVIDENCE_CELL) -> tuple[list, int]:
    """EVIDENCE-like rows of one provider for every claim, ``scored_unit_ids`` = the FEVEROUS
    kept prefix of the provider table's ``scored_unit_ids`` (the submitted list as written,
    where an unresolved or a repeated id still takes its slot, as in the official scorer).
    Returns (rows, number of claims the provider has no row for); such a claim gets an empty
    submission (never eligible unless a gold set is empty), it is not dropped. Rows of claims
    outside ``claims`` are ignored (a provider file may cover the training claims as well).

    Each row also carries ``unresolved`` (the provider table's count over its whole submitted
    list) and ``repeated`` (repeated ids in that list, :func:`providers.repeated_id_count`)."""
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
            ids, unresolved, repeated = [], 0, 0
        else:
            ids, unresolved = list(ev["scored_unit_ids"] or []), int(ev["unresolved"] or 0)
            repeated = repeated_id_count(list(ev.get("submitted_unit_ids") or []))
        rows.append({"dataset": key[0], "claim_id": key[1], "doc_id": "", "source": source, "budget": BUDGET,
                     "scored_unit_ids": feverous_scored_prefix(ids, max_evidence, max_evidence_cell),
                     "unresolved": unresolved, "repeated": repeated})
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


def unresolved_flag_rows(claims: Sequence[Mapping], sources: Sequence[str], window_unresolved: Mapping,
                         provider_rows: Iterable[Mapping]) -> list:
    """Per-claim UNRESOLVED_FLAGS rows, sorted by (dataset, claim_id).

    ``window_unresolved``: ``(source, claim_id) -> unresolved ids in the verifier's input window``
    (:func:`window_unresolved_counts`; every claim x source needs one). ``provider_rows``: the
    rows of :func:`provider_evidence_rows` of every source (``unresolved`` over the whole
    submitted list, ``repeated``). ``any_unresolved`` / ``both_resolved``: some / no source has
    an unresolved id *inside its window* (the restricted Study 1 population); the ``_in_list``
    pair says the same of the whole submitted lists.
    """
    whole = {(r["source"], str(r["claim_id"])): (int(r["unresolved"]), int(r["repeated"])) for r in provider_rows}
    rows = []
    for dataset, claim_id in sorted({(c["dataset"], str(c["claim_id"])) for c in claims}):
        missing = [s for s in sources if (s, claim_id) not in window_unresolved or (s, claim_id) not in whole]
        if missing:
            raise ValueError(f"claim {claim_id!r} has no verifier input or provider row for sources {missing}")
        window = [(s, int(window_unresolved[(s, claim_id)])) for s in sources]
        in_list = [(s, whole[(s, claim_id)][0]) for s in sources]
        any_window = any(n > 0 for _, n in window)
        any_list = any(n > 0 for _, n in in_list)
        rows.append({"dataset": dataset, "claim_id": claim_id, "unresolved_by_source": window,
                     "list_unresolved_by_source": in_list,
                     "duplicates_by_source": [(s, whole[(s, claim_id)][1]) for s in sources],
                     "any_unresolved": any_window, "both_resolved": not any_window,
                     "any_unresolved_in_list": any_list, "both_resolved_in_list": not any_list})
    return rows


def unresolved_report(flags: Sequence[Mapping], sources: Sequence[str]) -> pd.DataFrame:
    """Report rows ``(dataset, source, item, count)`` of the UNRESOLVED_FLAGS rows: per source
    the claims with an unresolved id in the window / in the whole list, those ids, the claims
    with repeated ids and the repeats; per dataset (source ``all``) the claims and the
    restricted population under both definitions (window: the one the accounting uses by
    default; whole list: reported beside it)."""
    out = []
    for dataset in sorted({f["dataset"] for f in flags}):
        sub = [f for f in flags if f["dataset"] == dataset]
        for source in sources:
            w = [dict(f["unresolved_by_source"])[source] for f in sub]
            lst = [dict(f["list_unresolved_by_source"])[source] for f in sub]
            dup = [dict(f["duplicates_by_source"])[source] for f in sub]
            items = {"claims": len(sub),
                     "claims_with_unresolved_in_window": sum(n > 0 for n in w), "unresolved_ids_in_window": sum(w),
                     "claims_with_unresolved_in_list": sum(n > 0 for n in lst), "unresolved_ids_in_list": sum(lst),
                     "claims_with_duplicates": sum(n > 0 for n in dup), "duplicate_ids": sum(dup)}
            out += [{"dataset": dataset, "source": source, "item": k, "count": int(v)} for k, v in items.items()]
        items = {"claims": len(sub), "claims_both_resolved_in_window": sum(f["both_resolved"] for f in sub),
                 "claims_both_resolved_in_list": sum(f["both_resolved_in_list"] for f in sub)}
        out += [{"dataset": dataset, "source": "all", "item": k, "count": int(v)} for k, v in items.items()]
    return pd.DataFrame(out, columns=["dataset", "source", "item", "count"])


def run_study1_indicators(answers_path, claims_path, evidence_paths: Mapping[str, str], inputs_path,
                          outputs: Mapping[str, str], *, max_evidence: int = feverous.MAX_EVIDENCE,
                          max_evidence_cell: int = feverous.MAX_EVIDENCE_CELL, log=None) -> dict:
    """Rule adapter: write ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT, the unresolved
    flags and their report TSV (``outputs`` keys ``answers``, ``evidence``, ``relevant``,
    ``unresolved``, and ``unresolved_tsv`` when given)."""
    from .. import tables
    from ..tables.report_tsv import write_report_tsv
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
                                                       max_evidence=max_evidence, max_evidence_cell=max_evidence_cell)
        ev_rows.extend(rows)
    ev_ind = evidence_indicator_rows(claims, ev_rows, max_evidence=max_evidence, max_evidence_cell=max_evidence_cell)
    tables.write_table(EVIDENCE_INDICATORS.from_rows(ev_ind), outputs["evidence"], EVIDENCE_INDICATORS)
    tables.write_table(RELEVANT.from_rows(relevant_rows(claims)), outputs["relevant"], RELEVANT)
    flags = unresolved_flag_rows(claims, list(evidence_paths), window, ev_rows)
    tables.write_table(UNRESOLVED_FLAGS.from_rows(flags), outputs["unresolved"], UNRESOLVED_FLAGS)
    if outputs.get("unresolved_tsv"):
        write_report_tsv(unresolved_report(flags, list(evidence_paths)), outputs["unresolved_tsv"])
    summary = {
        "answers": len(answers), "claims": len(claims), "claims_missing_from_source": missing,
        "eligible_by_source": {s: sum(r["eligible"] for r in ev_ind if r["evidence_source"] == s)
                               for s in evidence_paths},
        "claims_with_unresolved": sum(r["any_unresolved"] for r in flags),
        "claims_with_unresolved_in_list": sum(r["any_unresolved_in_list"] for r in flags),
        "duplicate_ids_by_source": {s: sum(r["repeated"] for r in ev_rows if r["source"] == s)
                                    for s in evidence_paths},
    }
    if log:
        log.info("study1 indicators: %s", summary)
    return summary
