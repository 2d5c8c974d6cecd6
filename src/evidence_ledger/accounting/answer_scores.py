"""Study 1's answer and evidence diagnostics for a continuous answer metric (KILT), with intervals.

In:  per item ``k``, run ``r`` and source ``a``: ``score[k, r, a]``, the answer metric of the
     source-``a`` answer on 0..1 (KILT's accuracy or exact match, 0/1; its token F1 or ROUGE-L,
     continuous), and ``rprec[k, r, b]``, the R-precision of the source-``b`` provenance; the
     Study 1 draw settings.
Out: ESTIMATES rows (:func:`continuous_metric_estimates`) and a bootstrap job whose rows carry
     the same quantities with paired intervals (:func:`continuous_metric_job`), named for the
     metric (:func:`continuous_metric_names`):

  ``<metric>_0``, ``<metric>_1``, ``<metric>_diff``   mean answer metric per source, difference
  ``rprec_0``, ``rprec_1``, ``rprec_diff``            mean R-precision per source, difference
  ``eligibility_0``, ``eligibility_1``, ``eligibility_diff``
                                                       items whose provenance reaches R-precision 1
                                                       (KILT's condition for a downstream point)
  ``eq4_product_a``, ``eq4_covariance_a``              Eq. 4 with ``c_a`` the answer metric

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


def continuous_metric_names(metric: str) -> tuple[str, ...]:
    """The quantities of :func:`continuous_metric_job`, in its column order."""
    return (f"{metric}_0", f"{metric}_1", f"{metric}_diff", "rprec_0", "rprec_1", "rprec_diff", "eligibility_0",
            "eligibility_1", "eligibility_diff", "eq4_product_0", "eq4_product_1", "eq4_covariance_0",
            "eq4_covariance_1")


def rprec_eligible(rprec: np.ndarray) -> np.ndarray:
    """0/1 (int64): the provenance reaches R-precision 1, KILT's condition for a downstream point."""
    return (rprec == 1.0).astype(np.int64)


def continuous_metric_counts(score: np.ndarray, rprec: np.ndarray) -> np.ndarray:
    """(items, runs, 9) float64 per-item values: ``score_0, score_1, rprec_0, rprec_1,
    eligible_0, eligible_1, score_0 * dE, score_1 * dE, 1`` (``dE = eligible_1 - eligible_0``)."""
    eligible = rprec_eligible(rprec).astype(np.float64)
    dE = eligible[:, :, 1] - eligible[:, :, 0]
    return np.stack([score[:, :, 0], score[:, :, 1], rprec[:, :, 0], rprec[:, :, 1], eligible[:, :, 0],
                     eligible[:, :, 1], score[:, :, 0] * dE, score[:, :, 1] * dE, np.ones_like(dE)],
                    axis=2).astype(np.float64)


def continuous_metric_statistic(tot: np.ndarray) -> np.ndarray:
    """The quantities of :func:`continuous_metric_names` from resampled totals (draws, runs, 9)
    of :func:`continuous_metric_counts`: per run, then averaged over runs (fixed order)."""
    n = tot[:, :, 8]
    score = [100.0 * tot[:, :, a] / n for a in (0, 1)]
    rprec = [100.0 * tot[:, :, 2 + b] / n for b in (0, 1)]
    elig = [100.0 * tot[:, :, 4 + b] / n for b in (0, 1)]
    diff = elig[1] - elig[0]
    product = [score[a] * diff / 100.0 for a in (0, 1)]
    direct = [100.0 * tot[:, :, 6 + a] / n for a in (0, 1)]
    cols = (score + [score[1] - score[0]] + rprec + [rprec[1] - rprec[0]] + elig + [diff] + product
            + [direct[a] - product[a] for a in (0, 1)])
    out = np.empty((tot.shape[0], len(cols)), dtype=np.float64)
    for i, col in enumerate(cols):
        acc = col[:, 0].copy()
        for j in range(1, col.shape[1]):
            acc = acc + col[:, j]
        out[:, i] = acc / col.shape[1]
    return out


def continuous_metric_job(score: np.ndarray, rprec: np.ndarray, *, metric: str, dataset: str, system: str,
                          parser: str, draws: int, seed: int, tail: float,
                          cluster_of: np.ndarray | None = None) -> BootstrapJob:
    """The bootstrap job of the quantities of :func:`continuous_metric_names` (drawn with the
    other Study 1 intervals by ``resampling.bootstrap.run_jobs``); ``cluster_of``: the cluster
    index of each item (claim families), else items are resampled."""
    counts = continuous_metric_counts(score, rprec)
    if cluster_of is not None:
        clustered = np.zeros((int(cluster_of.max()) + 1,) + counts.shape[1:], dtype=np.float64)
        np.add.at(clustered, cluster_of, counts)
        counts = clustered
    est = continuous_metric_statistic(counts.sum(axis=0)[None])[0]
    names = continuous_metric_names(metric)

    def finish(drawn: np.ndarray) -> list[dict]:
        return [{"dataset": dataset, "system": system, "parser": parser, "quantity": q, "classes": "", **iv,
                 "tail": tail, "n_draws": draws, "seed": seed, "n_clusters": counts.shape[0]}
                for q, iv in zip(names, interval_rows(drawn, est, tail))]

    return BootstrapJob(counts, continuous_metric_statistic, finish)


def continuous_indicators(units: Sequence[str], replicates: Sequence[int], sources: Sequence[str],
                          score: np.ndarray, rprec: np.ndarray) -> ClaimIndicators:
    """Per-item indicators for ``estimates.eq4_terms``: the answer metric as the correctness
    ``c_a`` (continuous), R-precision 1 as the eligibility."""
    K, R, A = score.shape
    return ClaimIndicators(list(units), list(replicates), list(sources), score.astype(np.float64),
                           rprec_eligible(rprec), np.full((K, R, A), "", dtype=object), np.full(K, "", dtype=object),
                           np.zeros(K, dtype=bool))


def continuous_metric_estimates(ind: ClaimIndicators, rprec: np.ndarray, *, metric: str, dataset: str, system: str,
                                parser: str, fmt: str, budget: str) -> list[dict]:
    """ESTIMATES rows (population ``all``, replicate-averaged) of the answer metric, R-precision
    and eligibility per source with their differences, and every Eq. 4 term (``eq4_<term>_<a>``,
    ``estimates.eq4_terms`` with the continuous ``c_a``)."""
    values = {}
    for j in (0, 1):
        values[f"{metric}_{j}"] = answer_accuracy(ind, j)
        values[f"rprec_{j}"] = float(100 * rprec[:, :, j].mean())
        values[f"eligibility_{j}"] = eligibility_rate(ind, j)
    for name in (metric, "rprec", "eligibility"):
        values[f"{name}_diff"] = values[f"{name}_1"] - values[f"{name}_0"]
    for j in (0, 1):
        for term, value in eq4_terms(ind, j).items():
            values[f"eq4_{term}_{j}"] = value
    return [estimate_row("study1", "all", dataset, system, parser, quantity, value, fmt=fmt, budget=budget)
            for quantity, value in values.items()]
