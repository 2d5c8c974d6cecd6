"""Design and population tables (the paper's Tables 4 and 5).

In:  REQUESTS frames (one model x dataset each); per dataset the sampling summary (``key ->
     value`` of ``sample_claims``), the sample's claim ids, FAMILIES, EVIDENCE_INDICATORS,
     RELEVANT and the ANSWER_INDICATORS of every model.
Out: design rows ``{system, dataset, condition, conditions, rows, requests}`` (conditions =
     distinct source x budget x format x code mapping x replicate cells; requests = unique
     request ids, i.e. after reuse of identical requests) and population rows ``{dataset,
     step, system, count}`` in the order the populations flow through the joins:
     pool -> reserved exclusions -> eligible -> sampled -> families -> evaluation units
     (with evidence) -> units with an unresolved id (per evidence source) -> scored claims
     (RELEVANT) -> answered claims per model.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import pandas as pd

CONDITION_CELL = ["source", "budget", "format", "code_mapping", "replicate"]


def design_rows(requests: pd.DataFrame) -> list[dict]:
    """Per model x dataset x condition: condition cells, request rows and unique requests; plus
    an ``all`` row per model x dataset (unique over every condition)."""
    rows = []
    for (model, dataset), grp in requests.groupby(["model", "dataset"], sort=False):
        for cond, sub in grp.groupby("condition", sort=False):
            rows.append({"system": model, "dataset": dataset, "condition": cond,
                         "conditions": int(len(sub[CONDITION_CELL].drop_duplicates())), "rows": int(len(sub)),
                         "requests": int(sub["request_id"].nunique())})
        rows.append({"system": model, "dataset": dataset, "condition": "all",
                     "conditions": int(len(grp[["condition"] + CONDITION_CELL].drop_duplicates())),
                     "rows": int(len(grp)), "requests": int(grp["request_id"].nunique())})
    return rows


def population_rows(dataset: str, summary: Mapping[str, str], sample_ids: Sequence[str], families: pd.DataFrame,
                    evidence: pd.DataFrame, relevant: pd.DataFrame,
                    answers: Mapping[str, pd.DataFrame]) -> list[dict]:
    """The population steps of one dataset (see module docstring); ``count`` of each."""
    def row(step, count, system=""):
        return {"dataset": dataset, "step": step, "system": system, "count": int(count)}

    out = [row(f"sampling.{k}", summary[k]) for k in ("population", "reserved_ids", "excluded_by_reserved_families",
                                                       "eligible", "selected") if k in summary
           and str(summary[k]).lstrip("-").isdigit()]
    sample = set(map(str, sample_ids))
    fam = families[(families["dataset"] == dataset) & families["claim_id"].isin(sample)]
    out.append(row("families", fam["family_id"].nunique()))
    ev = evidence[evidence["dataset"] == dataset]
    units = ev[["claim_id", "doc_id"]].drop_duplicates()
    out.append(row("evaluation_units", len(units)))
    out.append(row("claims_with_evidence", units["claim_id"].nunique()))
    for source, sub in ev.groupby("evidence_source", sort=True):
        bad = sub.loc[sub["unresolved"] > 0, "claim_id"].nunique()
        out.append(row(f"claims_with_unresolved.{source}", bad))
    rel = relevant[relevant["dataset"] == dataset]
    out.append(row("scored_claims", len(rel)))
    for model, ans in answers.items():
        a = ans[ans["dataset"] == dataset]
        out.append(row("answered_claims", a["claim_id"].nunique(), model))
        out.append(row("answer_rows", len(a), model))
    return out
