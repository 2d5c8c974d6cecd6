"""Study 1's answer and evidence diagnostics for a per-item answer score (KILT's answer metrics), with intervals.

In:  per item ``k``, run ``r`` and source ``a``: ``score[k, r, a]``, the answer score of the
     source-``a`` answer on 0..1 (KILT's accuracy or exact match, 0/1; its token F1 or ROUGE-L,
     continuous); ``evidence[k, r, b]``, the evidence score of the source-``b`` evidence (KILT's
     R-precision), named ``evidence_name``; ``eligible[k, r, b]``, 1 where that evidence qualifies
     for a point (KILT: R-precision 1); the Study 1 draw settings.
Out: ESTIMATES rows (:func:`continuous_metric_estimates`) and a bootstrap job whose rows carry
     the same quantities with paired intervals (:func:`continuous_metric_job`), named for the
     answer score and the evidence score (:func:`continuous_metric_names`; KILT's with ``em`` and
     ``rprec``):

  ``<metric>_0``, ``<metric>_1``, ``<metric>_diff``   mean answer score per source, difference
  ``<evidence>_0``, ``<evidence>_1``, ``<evidence>_diff``   mean evidence score per source, difference
  ``eligibility_0``, ``eligibility_1``, ``eligibility_diff``
                                                       items whose evidence qualifies
  ``eq4_product_a``, ``eq4_covariance_a``              Eq. 4 with ``c_a`` the answer score

In points (x 100), each run's value then the mean over runs, as every Study 1 quantity. These
replace label accuracy, macro-F1 and gold-class parts, which a free-text answer does not have.
Eq. 4 is the same identity with a continuous ``c_a`` (``estimates.eq4_terms``; docs/accounting.md).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from ..resampling.bootstrap import BootstrapJob
from .accuracy import interval_rows
from .estimates import answer_accuracy, eligibility_rate, eq4_terms, estimate_row
from .panel import ClaimIndicators


def continuous_metric_names(metric: str, evidence_name: str) -> tuple[str, ...]:
    """The quantities of :func:`continuous_metric_job`, in its column order."""
    return (f"{metric}_0", f"{metric}_1", f"{metric}_diff", f"{evidence_name}_0", f"{evidence_name}_1",
            f"{evidence_name}_diff", "eligibility_0", "eligibility_1", "eligibility_diff", "eq4_product_0",
            "eq4_product_1", "eq4_covariance_0", "eq4_covariance_1")


def continuous_metric_counts(score: np.ndarray, evidence: np.ndarray, eligible: np.ndarray) -> np.ndarray:
    """(items, runs, 9) float64 per-item values: ``score_0, score_1, evidence_0, evidence_1,
    eligible_0, eligible_1, score_0 * dE, score_1 * dE, 1`` (``dE = eligible_1 - eligible_0``)."""
    eligible = eligible.astype(np.float64)
    dE = eligible[:, :, 1] - eligible[:, :, 0]
    return np.stack([score[:, :, 0], score[:, :, 1], evidence[:, :, 0], evidence[:, :, 1], eligible[:, :, 0],
                     eligible[:, :, 1], score[:, :, 0] * dE, score[:, :, 1] * dE, np.ones_like(dE)],
                    axis=2).astype(np.float64)


def continuous_metric_statistic(tot: np.ndarray) -> np.ndarray:
    """The quantities of :func:`continuous_metric_names` from resampled totals (draws, runs, 9)
    of :func:`continuous_metric_counts`: per run, then averaged over runs (fixed order)."""
    n = tot[:, :, 8]
    score = [100.0 * tot[:, :, a] / n for a in (0, 1)]
    evidence = [100.0 * tot[:, :, 2 + b] / n for b in (0, 1)]
    elig = [100.0 * tot[:, :, 4 + b] / n for b in (0, 1)]
    diff = elig[1] - elig[0]
    product = [score[a] * diff / 100.0 for a in (0, 1)]
    direct = [100.0 * tot[:, :, 6 + a] / n for a in (0, 1)]
    cols = (score + [score[1] - score[0]] + evidence + [evidence[1] - evidence[0]] + elig + [diff] + product
            + [direct[a] - product[a] for a in (0, 1)])
    out = np.empty((tot.shape[0], len(cols)), dtype=np.float64)
    for i, col in enumerate(cols):
        acc = col[:, 0].copy()
        for j in range(1, col.shape[1]):
            acc = acc + col[:, j]
        out[:, i] = acc / col.shape[1]
    return out


def continuous_metric_job(score: np.ndarray, evidence: np.ndarray, eligible: np.ndarray, *, metric: str,
                          evidence_name: str, dataset: str, system: str, parser: str, draws: int, seed: int,
                          tail: float, cluster_of: np.ndarray | None = None) -> BootstrapJob:
    """The bootstrap job of the quantities of :func:`continuous_metric_names` (drawn with the
    other Study 1 intervals by ``resampling.bootstrap.run_jobs``); ``cluster_of``: the cluster
    index of each item (claim families), else items are resampled."""
    counts = continuous_metric_counts(score, evidence, eligible)
    if cluster_of is not None:
        clustered = np.zeros((int(cluster_of.max()) + 1,) + counts.shape[1:], dtype=np.float64)
        np.add.at(clustered, cluster_of, counts)
        counts = clustered
    est = continuous_metric_statistic(counts.sum(axis=0)[None])[0]
    names = continuous_metric_names(metric, evidence_name)

    def finish(drawn: np.ndarray) -> list[dict]:
        return [{"dataset": dataset, "system": system, "parser": parser, "quantity": q, "classes": "", **iv,
                 "tail": tail, "n_draws": draws, "seed": seed, "n_clusters": counts.shape[0]}
                for q, iv in zip(names, interval_rows(drawn, est, tail))]

    return BootstrapJob(counts, continuous_metric_statistic, finish)


def continuous_indicators(units: Sequence[str], replicates: Sequence[int], sources: Sequence[str],
                          score: np.ndarray, eligible: np.ndarray) -> ClaimIndicators:
    """Per-item indicators for ``estimates.eq4_terms``: the answer score as the correctness
    ``c_a`` (continuous), ``eligible`` as the eligibility."""
    K, R, A = score.shape
    return ClaimIndicators(list(units), list(replicates), list(sources), score.astype(np.float64),
                           eligible.astype(np.int64), np.full((K, R, A), "", dtype=object), np.full(K, "", dtype=object),
                           np.zeros(K, dtype=bool))


def continuous_metric_estimates(ind: ClaimIndicators, evidence: np.ndarray, *, metric: str, evidence_name: str,
                                dataset: str, system: str, parser: str, fmt: str, budget: str) -> list[dict]:
    """ESTIMATES rows (population ``all``, replicate-averaged) of the answer score, the evidence
    score and the eligibility per source with their differences, and every Eq. 4 term
    (``eq4_<term>_<a>``, ``estimates.eq4_terms`` with the continuous ``c_a``)."""
    values = {}
    for j in (0, 1):
        values[f"{metric}_{j}"] = answer_accuracy(ind, j)
        values[f"{evidence_name}_{j}"] = float(100 * evidence[:, :, j].mean())
        values[f"eligibility_{j}"] = eligibility_rate(ind, j)
    for name in (metric, evidence_name, "eligibility"):
        values[f"{name}_diff"] = values[f"{name}_1"] - values[f"{name}_0"]
    for j in (0, 1):
        for term, value in eq4_terms(ind, j).items():
            values[f"eq4_{term}_{j}"] = value
    return [estimate_row("study1", "all", dataset, system, parser, quantity, value, fmt=fmt, budget=budget)
            for quantity, value in values.items()]
