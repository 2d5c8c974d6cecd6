"""Synthetic indicator tables for the accounting tests (ANSWER_INDICATORS, EVIDENCE_INDICATORS,
RELEVANT, FAMILIES frames), with effects planted exactly.

Study 2 panels: every claim's answers are identical across formats and budgets within a
seed (so the format effect on E0 is exactly 0), and a planted set of claims is always
answered correctly and has source-1 evidence eligible only at the long budget (source 0
never), which raises E0(long) - E0(short) by the planted amount in every seed.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from evidence_ledger import tables
from evidence_ledger.accounting.stage import study2_accounting
from evidence_ledger.tables.sampling import FAMILIES
from evidence_ledger.tables.scoring import ANSWER_INDICATORS, EVIDENCE_INDICATORS, RELEVANT

FEVER_LABELS = ("SUPPORTS", "REFUTES", "NOT ENOUGH INFO")
SCIFACT_LABELS = ("SUPPORT", "CONTRADICT", "NOINFO")
SOURCES = ("bm25", "bge")
BUDGETS = ("short", "long")
FORMATS = ("codes", "labels")
REPLICATES = (0, 1, 2, 3, 4, 5)


def study2_tables(dataset: str, systems=("qwen3", "llama31"), n_claims: int = 120, planted_points: float = 5.0,
                  seed: int = 7, invalid_share: float = 0.05):
    """(answers, evidence, relevant, families) frames for one dataset and several systems."""
    rng = np.random.default_rng(seed)
    claims = [str(i) for i in range(1, n_claims + 1)]
    scifact = dataset == "scifact"
    labels = SCIFACT_LABELS if scifact else FEVER_LABELS
    gold = {c: labels[int(rng.integers(0, 2 if scifact else 3))] for c in claims}
    docs = {c: ([str(1000 + 3 * i + j) for j in range(3)] if scifact else [""]) for i, c in enumerate(claims)}
    gold_docs = {c: set(d for d in docs[c] if scifact and rng.random() < 0.4) for c in claims}
    n_relevant = {c: (len(gold_docs[c]) + int(rng.random() < 0.2)) if scifact else 1 for c in claims}
    relevant = pd.DataFrame({"dataset": dataset, "claim_id": claims, "gold_label": [gold[c] for c in claims],
                             "n_relevant": [n_relevant[c] for c in claims]})
    # families: consecutive pairs
    families = pd.DataFrame({"dataset": dataset, "claim_id": claims,
                             "family_id": [str(2 * ((int(c) - 1) // 2) + 1) for c in claims]})
    # planted units: (claim, doc) pairs always correct under both sources, eligible for bge/long only
    units = [(c, d) for c in claims for d in docs[c] if (not scifact or d in gold_docs[c])]
    if scifact:
        denom = sum(n_relevant.values()) + 2 * len(units)  # rough P + R
        n_planted = int(np.ceil(planted_points / 100 * denom / 2))
    else:
        n_planted = int(round(planted_points / 100 * n_claims))
    order = rng.permutation(len(units))
    planted = {units[i] for i in order[:n_planted]}

    ev_rows = []
    for c in claims:
        for d in docs[c]:
            is_gold = (not scifact) or d in gold_docs[c]
            base = bool(is_gold and rng.random() < 0.45)
            extra = bool(is_gold and rng.random() < 0.15)
            for src in SOURCES:
                for bud in BUDGETS:
                    if (c, d) in planted:
                        elig = src == "bge" and bud == "long"
                    else:
                        elig = base or (src == "bge" and extra)
                    ev_rows.append({"dataset": dataset, "evidence_source": src, "evidence_budget": bud,
                                    "claim_id": c, "doc_id": d, "eligible": elig, "n_scored": 3,
                                    "unresolved": int(rng.random() < 0.03)})
    evidence = pd.DataFrame(ev_rows)

    ans_rows = []
    for s_i, system in enumerate(systems):
        for rep in REPLICATES:
            for c in claims:
                for d in docs[c]:
                    per_source = {}
                    for src in SOURCES:
                        if (c, d) in planted:
                            pred = gold[c] if not scifact else gold[c]
                        elif rng.random() < invalid_share:
                            pred = "INVALID"
                        else:
                            pred = labels[int(rng.integers(0, 3))]
                        per_source[src] = pred
                    for src in SOURCES:
                        pred = per_source[src]
                        is_gold_doc = (not scifact) or d in gold_docs[c]
                        correct = bool(pred == gold[c] and is_gold_doc)
                        submitted = True if not scifact else pred not in ("NOINFO", "INVALID")
                        for fmt in FORMATS:
                            for bud in BUDGETS:
                                ans_rows.append({
                                    "dataset": dataset, "system": system, "format": fmt, "replicate": rep,
                                    "parser": "strict", "answer_source": src, "answer_budget": bud,
                                    "claim_id": c, "doc_id": d, "gold_label": gold[c], "predicted_label": pred,
                                    "label_correct": correct, "submitted": submitted})
    answers = pd.DataFrame(ans_rows)
    return answers, evidence, relevant, families


def study1_tables(n_claims: int = 200, seed: int = 11, checkpoints=(1, 2, 3, 4),
                  sources=("provider_bm25", "provider_bge")):
    """(answers, evidence, relevant) frames for a FEVEROUS-style Study 1 panel."""
    rng = np.random.default_rng(seed)
    claims = [str(i) for i in range(1, n_claims + 1)]
    gold = {c: FEVER_LABELS[int(rng.choice(3, p=[0.5, 0.4, 0.1]))] for c in claims}
    relevant = pd.DataFrame({"dataset": "feverous", "claim_id": claims, "gold_label": [gold[c] for c in claims],
                             "n_relevant": 1})
    ev_rows = []
    for c in claims:
        e0 = rng.random() < 0.4
        e1 = e0 or rng.random() < 0.25
        for src, e in zip(sources, (e0, e1)):
            ev_rows.append({"dataset": "feverous", "evidence_source": src, "evidence_budget": "full", "claim_id": c,
                            "doc_id": "", "eligible": bool(e),
                            "n_scored": 5, "unresolved": int(rng.random() < 0.05)})
    evidence = pd.DataFrame(ev_rows)
    ans_rows = []
    for k in checkpoints:
        for c in claims:
            for j, src in enumerate(sources):
                p_right = 0.6 + 0.05 * j
                pred = gold[c] if rng.random() < p_right else FEVER_LABELS[int(rng.integers(0, 2))]
                ans_rows.append({"dataset": "feverous", "system": "verifier", "format": "verifier", "replicate": k,
                                 "parser": "none", "answer_source": src, "answer_budget": "full", "claim_id": c,
                                 "doc_id": "", "gold_label": gold[c], "predicted_label": pred,
                                 "label_correct": pred == gold[c], "submitted": True})
    answers = pd.DataFrame(ans_rows)
    return answers, evidence, relevant


def study1_unresolved_flags(evidence: pd.DataFrame, extra_claims=()):
    """UNRESOLVED_FLAGS rows from the evidence indicators' unresolved counts, with the claims in
    ``extra_claims`` flagged too (an unresolved unit met only in the verifier's input window)."""
    rows = []
    for claim, sub in evidence.groupby("claim_id", sort=False):
        counts = {r.evidence_source: int(r.unresolved) for r in sub.itertuples()}
        if claim in extra_claims:
            counts = {k: max(v, 1) for k, v in counts.items()}
        anyu = any(v > 0 for v in counts.values())
        rows.append({"dataset": "feverous", "claim_id": claim, "unresolved_by_source": list(counts.items()),
                     "list_unresolved_by_source": list(counts.items()),
                     "duplicates_by_source": [(k, 0) for k in counts],
                     "any_unresolved": anyu, "both_resolved": not anyu,
                     "any_unresolved_in_list": anyu, "both_resolved_in_list": not anyu})
    return pd.DataFrame(rows)


def write_study2_inputs(root, datasets=("fever", "scifact"), models=("qwen3", "llama31"), n_claims=60,
                         planted=None):
    """Synthetic scoring outputs at the contract paths under ``root``."""
    planted = planted or {}
    for dataset in datasets:
        answers, evidence, relevant, families = study2_tables(dataset, systems=models, n_claims=n_claims,
                                                                  planted_points=planted.get(dataset, 5.0))
        tables.write_table(evidence, root / f"results/scoring/{dataset}/evidence_indicators.parquet",
                           EVIDENCE_INDICATORS)
        tables.write_table(relevant, root / f"results/scoring/{dataset}/relevant.parquet", RELEVANT)
        tables.write_table(families, root / f"results/families/{dataset}/families.parquet", FAMILIES)
        for model in models:
            tables.write_table(answers[answers["system"] == model],
                               root / f"results/scoring/{model}/{dataset}/answer_indicators.parquet",
                               ANSWER_INDICATORS)


def run_study2(root, out, datasets=("fever", "scifact"), models=("qwen3", "llama31"), reference=None):
    """Run the study2_accounting stage function on ``write_study2_inputs`` tables; (outputs, params)."""
    names = {"estimates.parquet": "estimates", "contrasts.tsv": "contrasts", "cells.tsv": "cells",
             "partition.tsv": "partition", "crossed.tsv": "crossed", "invalid_rates.parquet": "invalid_rates",
             "invalid_rates.tsv": "invalid_rates_tsv", "counts.parquet": "counts", "coverage.parquet": "coverage",
             "pattern_traces.parquet": "traces", "pattern_examples.tsv": "examples"}
    outputs = {key: out / fname for fname, key in names.items()}
    params = {"datasets": list(datasets), "models": list(models), "sources": list(SOURCES),
              "budgets": list(BUDGETS), "formats": list(FORMATS), "parser": "strict",
              "sensitivity_parsers": ["lenient"], "greedy_replicate": 0, "seed_replicates": [1, 2, 3, 4, 5]}
    study2_accounting(
        answers=[root / f"results/scoring/{m}/{d}/answer_indicators.parquet" for d in datasets for m in models],
        evidence=[root / f"results/scoring/{d}/evidence_indicators.parquet" for d in datasets],
        relevant=[root / f"results/scoring/{d}/relevant.parquet" for d in datasets],
        families=[root / f"results/families/{d}/families.parquet" for d in datasets],
        reference=reference, **params, **{f"{key}_out": path for key, path in outputs.items()})
    return outputs, params
