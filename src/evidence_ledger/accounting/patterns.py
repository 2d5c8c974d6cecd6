"""Answer patterns of Study 2: invalid-answer rates and evidence-only credit changes.

In:  ANSWER_INDICATORS and EVIDENCE_INDICATORS frames of one dataset x system x parser.
Out: INVALID_RATES rows (share of claim-condition observations with an INVALID answer, per
     format), PATTERN_TRACES rows (units scoring (1,0,1,0) or (0,1,0,1): both sources'
     answers correct, exactly one source's evidence eligible) and the lowest-id example of
     each pattern (the ``pattern_examples.tsv`` report table).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ..vocabulary import INVALID
from .panel import claim_sort_key, sort_claims


def invalid_rates(answers: pd.DataFrame, *, dataset: str, system: str, parser: str, formats: Sequence[str],
                  sources: Sequence[str], budgets: Sequence[str]) -> pd.DataFrame:
    """Share of claim-condition observations (claim x budget x replicate, both sources, all
    abstracts) with at least one INVALID answer, per format, pooled over budgets and all
    replicates present (greedy included)."""
    ans = answers[(answers["dataset"] == dataset) & (answers["system"] == system) & (answers["parser"] == parser)
                  & answers["format"].isin(formats) & answers["answer_source"].isin(sources)
                  & answers["answer_budget"].isin(budgets)]
    obs = (ans.assign(invalid=ans["predicted_label"] == INVALID)
           .groupby(["format", "claim_id", "answer_budget", "replicate"])["invalid"].any().reset_index())
    rows = []
    for fmt in formats:
        sub = obs[obs["format"] == fmt]
        n, k = int(len(sub)), int(sub["invalid"].sum())
        rows.append({"dataset": dataset, "system": system, "parser": parser, "format": fmt, "n_observations": n,
                     "n_with_invalid": k, "rate": float(100 * k / n) if n else float("nan")})
    return pd.DataFrame(rows)


def pattern_traces(answers: pd.DataFrame, evidence: pd.DataFrame, *, dataset: str, system: str, parser: str,
                   formats: Sequence[str], sources: Sequence[str], budgets: Sequence[str]) -> pd.DataFrame:
    """Units with scores (S00, S01, S10, S11) = (1,0,1,0) or (0,1,0,1) at matched budgets:
    both sources' answers correct, exactly one source's evidence eligible."""
    s0, s1 = sources[0], sources[1]
    ans = answers[(answers["dataset"] == dataset) & (answers["system"] == system) & (answers["parser"] == parser)
                  & answers["format"].isin(formats) & answers["answer_budget"].isin(budgets)]
    keys = ["claim_id", "doc_id", "format", "answer_budget", "replicate"]
    a0 = ans[ans["answer_source"] == s0][keys + ["gold_label", "predicted_label", "label_correct"]]
    a1 = ans[ans["answer_source"] == s1][keys + ["predicted_label", "label_correct"]]
    both = a0.merge(a1, on=keys, suffixes=("_0", "_1"))
    both = both[both["label_correct_0"].astype(bool) & both["label_correct_1"].astype(bool)]
    ev = evidence[evidence["dataset"] == dataset]
    e0 = ev[ev["evidence_source"] == s0][["claim_id", "doc_id", "evidence_budget", "eligible"]]
    e1 = ev[ev["evidence_source"] == s1][["claim_id", "doc_id", "evidence_budget", "eligible"]]
    both = both.merge(e0.rename(columns={"evidence_budget": "answer_budget", "eligible": "eligible_0"}),
                      on=["claim_id", "doc_id", "answer_budget"], how="left")
    both = both.merge(e1.rename(columns={"evidence_budget": "answer_budget", "eligible": "eligible_1"}),
                      on=["claim_id", "doc_id", "answer_budget"], how="left")
    both["eligible_0"] = both["eligible_0"].fillna(False).astype(bool)
    both["eligible_1"] = both["eligible_1"].fillna(False).astype(bool)
    both = both[both["eligible_0"] != both["eligible_1"]].copy()
    both["pattern"] = np.where(both["eligible_0"], "1010", "0101")
    out = pd.DataFrame({
        "dataset": dataset, "system": system, "format": both["format"], "budget": both["answer_budget"],
        "replicate": both["replicate"].astype(np.int64), "claim_id": both["claim_id"], "doc_id": both["doc_id"],
        "pattern": both["pattern"], "gold_label": both["gold_label"], "predicted_0": both["predicted_label_0"],
        "predicted_1": both["predicted_label_1"], "eligible_0": both["eligible_0"], "eligible_1": both["eligible_1"],
    })
    order = sorted(range(len(out)), key=lambda i: (out["pattern"].iat[i], claim_sort_key(out["claim_id"].iat[i]),
                                                   out["doc_id"].iat[i], out["format"].iat[i],
                                                   out["budget"].iat[i], int(out["replicate"].iat[i])))
    return out.iloc[order].reset_index(drop=True)


def pattern_examples(traces: pd.DataFrame, greedy: int | None) -> pd.DataFrame:
    """Lowest-id example per dataset x system x pattern: among the greedy observations when
    there are any (else all), the smallest claim id; the conditions where it shows the
    pattern are listed."""
    rows = []
    for (dataset, system, pattern), sub in traces.groupby(["dataset", "system", "pattern"], sort=True):
        pool = sub[sub["replicate"] == greedy] if greedy is not None and (sub["replicate"] == greedy).any() else sub
        first = sort_claims(pool["claim_id"])[0]
        hit = pool[pool["claim_id"] == first]
        conditions = ";".join(f"{r.format}/{r.budget}/rep{r.replicate}/doc{r.doc_id}" if r.doc_id else
                              f"{r.format}/{r.budget}/rep{r.replicate}" for r in hit.itertuples())
        rows.append({"dataset": dataset, "system": system, "pattern": pattern, "claim_id": first,
                     "gold_label": hit["gold_label"].iat[0], "predicted_0": hit["predicted_0"].iat[0],
                     "predicted_1": hit["predicted_1"].iat[0], "n_claims_with_pattern": int(sub["claim_id"].nunique()),
                     "conditions": conditions})
    return pd.DataFrame(rows, columns=["dataset", "system", "pattern", "claim_id", "gold_label", "predicted_0",
                                       "predicted_1", "n_claims_with_pattern", "conditions"])
