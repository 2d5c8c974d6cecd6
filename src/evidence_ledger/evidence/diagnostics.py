"""Diagnostics of retrieval, pools and assembled evidence for one dataset.

In:  claims (label, gold evidence groups), RETRIEVED, POOLS and EVIDENCE rows.
Out: a long table, one row per (scope, source, budget, metric) with numerator,
     denominator and value = numerator / denominator (NaN-free: value 0 when the
     denominator is 0).

Metrics
  retrieval / retrieval_miss_rate   claims with >= 1 gold document not retrieved, over claims
                                    with a gold document
  retrieval / no_gold_doc_retrieved claims retrieving none of their gold documents, same base
  pool / gold_recall                claims whose pool contains a complete gold group, over
                                    claims with gold groups
  pool / capped                     claims whose retrieved documents held more units than
                                    the cap, over all claims
  pool / mean_units                 pool size (numerator = total units, denominator = claims)
  evidence / visible_gold_recall    evaluation units whose visible evidence contains a
                                    complete gold group, over units with a gold group
  evidence / scored_gold_recall     same for the scored prefix (what a scorer can credit)
  evidence / eligible_rate          units whose scored prefix contains a complete gold group
                                    or that need none (FEVER NOT ENOUGH INFO), over all units:
                                    the eligibility-style coverage of the source
  evidence / fits_budget            units with ``fits_budget`` True, over all units
  evidence / unresolved_ids         total unresolved ids (denominator = units)
  evidence / mean_visible_units     visible units per evaluation unit
  evidence / special_token_text     evaluation units whose visible evidence text spelled a
                                    special token (kept as text: ``render.neutralize_special_tokens``),
                                    over all units
SciFact's evaluation unit is claim x retrieved abstract; its gold groups are the rationale
sets inside that abstract.
"""
from __future__ import annotations

import pandas as pd

from ..tables.report_tsv import write_report_tsv

from ..benchmark_registry import FEVER
from .render import spells_special_token

NEI = FEVER.nei_label


def _row(dataset, scope, source, budget, metric, num, den) -> dict:
    return {"dataset": dataset, "scope": scope, "source": source, "budget": budget, "metric": metric,
            "numerator": float(num), "denominator": float(den), "value": float(num) / den if den else 0.0}


def covers(ids, groups) -> bool:
    """True when some non-empty group is wholly contained in ``ids``."""
    s = set(ids)
    return any(len(g) and set(g) <= s for g in groups)


def diagnostics(dataset: str, claims: dict[str, dict], retrieved: list[dict], pools: list[dict],
                evidence: list[dict], per_document: bool = False, needs_no_evidence=(NEI,)) -> list[dict]:
    """Diagnostics rows (see module doc). ``claims``: claim id -> {label, evidence_groups}."""
    out = []
    with_gold = [r for r in retrieved if len(r["gold_doc_ids"])]
    out.append(_row(dataset, "retrieval", "", "", "retrieval_miss_rate",
                    sum(bool(r["retrieval_miss"]) for r in with_gold), len(with_gold)))
    out.append(_row(dataset, "retrieval", "", "", "no_gold_doc_retrieved",
                    sum(not (set(r["gold_doc_ids"]) & set(r["doc_ids"])) for r in with_gold), len(with_gold)))
    groups = {cid: [list(g) for g in (c["evidence_groups"] if c["evidence_groups"] is not None else [])]
              for cid, c in claims.items()}
    pooled = [p for p in pools if any(len(g) for g in groups.get(p["claim_id"], []))]
    out.append(_row(dataset, "pool", "", "", "gold_recall",
                    sum(covers(p["unit_ids"], groups[p["claim_id"]]) for p in pooled), len(pooled)))
    out.append(_row(dataset, "pool", "", "", "capped", sum(bool(p["capped"]) for p in pools), len(pools)))
    out.append(_row(dataset, "pool", "", "", "mean_units", sum(len(p["unit_ids"]) for p in pools), len(pools)))

    def unit_groups(e):
        gs = groups.get(e["claim_id"], [])
        if per_document:
            prefix = f"{e['doc_id']}:"
            gs = [g for g in gs if len(g) and all(u.startswith(prefix) for u in g)]
        return gs

    keys = sorted({(e["source"], e["budget"]) for e in evidence})
    for source, budget in keys:
        rows = [e for e in evidence if e["source"] == source and e["budget"] == budget]
        gold_rows = [(e, unit_groups(e)) for e in rows]
        has_gold = [(e, g) for e, g in gold_rows if any(len(x) for x in g)]
        out.append(_row(dataset, "evidence", source, budget, "visible_gold_recall",
                        sum(covers(e["visible_unit_ids"], g) for e, g in has_gold), len(has_gold)))
        out.append(_row(dataset, "evidence", source, budget, "scored_gold_recall",
                        sum(covers(e["scored_unit_ids"], g) for e, g in has_gold), len(has_gold)))
        eligible = 0
        for e, g in gold_rows:
            label = claims.get(e["claim_id"], {}).get("label")
            if (not per_document and label in needs_no_evidence) or covers(e["scored_unit_ids"], g):
                eligible += 1
        out.append(_row(dataset, "evidence", source, budget, "eligible_rate", eligible, len(rows)))
        out.append(_row(dataset, "evidence", source, budget, "fits_budget",
                        sum(bool(e["fits_budget"]) for e in rows), len(rows)))
        out.append(_row(dataset, "evidence", source, budget, "unresolved_ids",
                        sum(int(e["unresolved"]) for e in rows), len(rows)))
        out.append(_row(dataset, "evidence", source, budget, "mean_visible_units",
                        sum(len(e["visible_unit_ids"]) for e in rows), len(rows)))
        out.append(_row(dataset, "evidence", source, budget, "special_token_text",
                        sum(spells_special_token(e["visible_text"]) for e in rows), len(rows)))
    return out


DIAGNOSTIC_COLUMNS = ["dataset", "scope", "source", "budget", "metric", "numerator", "denominator", "value"]


def write_diagnostics_tsv(rows: list[dict], path) -> pd.DataFrame:
    """The diagnostics rows as a report TSV (columns ``DIAGNOSTIC_COLUMNS``); returns the frame."""
    frame = pd.DataFrame(rows, columns=DIAGNOSTIC_COLUMNS)
    write_report_tsv(frame, path)
    return frame
