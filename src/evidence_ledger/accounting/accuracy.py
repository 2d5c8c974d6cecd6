"""Answer accuracy and macro-F1 with bootstrap intervals (the paper's answer diagnostics).

In:  ANSWER_INDICATORS frames (``tables.scoring``), claim FAMILIES (Study 2 resampling units)
     and the draw settings of the study's primary protocol.
Out: rows ``{dataset, system, quantity, format, budget, answer_source, estimate, lower,
     upper, ...}``:

* Study 2 answer accuracy per cell (format x source x budget), INVALID counted wrong: per
  sampled seed ``100 * correct / answers`` summed over the cell's units (claims; SciFact:
  claim x retrieved abstract), then averaged over the seeds, as every Study 2 metric. Drawn
  by the Study 2 primary protocol (families and seed indices resampled). ``n_answers`` is the
  cell's own count of answers in one seed (seed-mean rows) or in the greedy run.
* Study 1 accuracy and macro-F1 per source and their source-1 minus source-0 differences
  (and, given the claims' eligibility, eligibility per source, its difference and the Eq. 4
  product and covariance terms), averaged over checkpoints, drawn by the Study 1 paired claim
  protocol (claims resampled, checkpoints not): with the same seed and claim count these are
  exactly the draws of the other Study 1 intervals. Macro-F1 averages F1 over the *gold label set* of the population
  (NOT ENOUGH INFO included when present), a class never predicted scoring 0
  (``estimates.macro_f1``); ``accounting.study1.macro_f1_classes`` may fix the class list.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ..resampling.bootstrap import BootstrapJob, bootstrap_draws, percentile_interval, run_jobs
from .panel import sort_claims


def ratio_statistic(n_pairs: int):
    """Statistic of ``n_pairs`` ratios stored as stats ``[num_0..num_{n-1}, den_0..den_{n-1}]``:
    ``100 * num / den`` per sampled seed, averaged over seeds (fixed left-to-right sum)."""
    def statistic(tot: np.ndarray) -> np.ndarray:
        scores = 100.0 * tot[:, :, :n_pairs] / tot[:, :, n_pairs:2 * n_pairs]
        acc = scores[:, 0, :].copy()
        for j in range(1, scores.shape[1]):
            acc = acc + scores[:, j, :]
        return acc / scores.shape[1]
    return statistic


def interval_rows(draws: np.ndarray, estimates: Sequence[float], tail: float) -> list[dict]:
    """estimate, percentile bounds at ``tail``, bootstrap mean and sd per column of ``draws``."""
    lo, hi = percentile_interval(draws, tail)
    n = draws.shape[0]
    return [{"estimate": float(e), "lower": float(lo[i]), "upper": float(hi[i]),
             "boot_mean": float(draws[:, i].mean()),
             "boot_sd": float(draws[:, i].std(ddof=1)) if n > 1 else float("nan")} for i, e in enumerate(estimates)]


def family_index(claim_ids: pd.Series, families: pd.DataFrame, dataset: str) -> tuple[np.ndarray, list[str]]:
    """Family position of each claim id (families in claim-id order, as ``panel.aggregate_to_families``)."""
    fam = families[families["dataset"] == dataset].set_index("claim_id")["family_id"]
    fam_of = claim_ids.map(fam)
    if fam_of.isna().any():
        raise ValueError(f"{dataset}: claim {claim_ids[fam_of.isna()].iloc[0]!r} has no family")
    fam_ids = sort_claims(fam.reindex(sort_claims(claim_ids.unique())))
    pos = {f: i for i, f in enumerate(fam_ids)}
    return fam_of.map(pos).to_numpy(dtype=np.int64), fam_ids


def study2_accuracy_counts(answers: pd.DataFrame, families: pd.DataFrame, *, dataset: str, system: str, parser: str,
                           formats: Sequence[str], sources: Sequence[str], budgets: Sequence[str],
                           replicates: Sequence[int]) -> tuple[np.ndarray, list[tuple]]:
    """(families, seeds, 2 x cells) counts ``[correct per cell..., answers per cell...]`` and the
    cell list ``(format, source, budget)`` for one Study 2 panel."""
    ans = answers[(answers["dataset"] == dataset) & (answers["system"] == system) & (answers["parser"] == parser)
                  & answers["format"].isin(formats) & answers["answer_source"].isin(sources)
                  & answers["answer_budget"].isin(budgets) & answers["replicate"].isin(replicates)]
    fidx, fam_ids = family_index(ans["claim_id"], families, dataset)
    cells = [(f, s, b) for f in formats for s in sources for b in budgets]
    cpos = {c: i for i, c in enumerate(cells)}
    c = np.array([cpos[x] for x in zip(ans["format"], ans["answer_source"], ans["answer_budget"])], dtype=np.int64)
    r = ans["replicate"].map({x: i for i, x in enumerate(replicates)}).to_numpy(dtype=np.int64)
    K, R, C = len(fam_ids), len(replicates), len(cells)
    counts = np.zeros((K, R, 2 * C), dtype=np.int64)
    np.add.at(counts, (fidx, r, c), ans["label_correct"].to_numpy(dtype=np.int64))
    np.add.at(counts, (fidx, r, C + c), 1)
    return counts, cells


def cell_answers_per_seed(answers: np.ndarray, cells: Sequence[tuple], seeds: Sequence[int]) -> list[int]:
    """The answers of each cell in one seed, from ``answers[seed, cell]``: every sampled seed
    answers the same units, so a cell's count is the same in each; a cell whose seeds differ
    is an error naming the cell and the counts."""
    out = []
    for i, cell in enumerate(cells):
        col = answers[:, i]
        if (col != col[0]).any():
            raise ValueError(f"answer accuracy cell {cell}: the seeds {list(seeds)} have different answer counts "
                             f"{[int(x) for x in col]}; every seed must answer the cell's units")
        out.append(int(col[0]))
    return out


def study2_accuracy_rows(answers: pd.DataFrame, families: pd.DataFrame, *, dataset: str, system: str, parser: str,
                         formats, sources, budgets, seeds: Sequence[int], greedy: int | None, draws: int,
                         seed: int, batch_size: int, tail: float) -> list[dict]:
    """Answer accuracy per cell of one panel: the seed mean with intervals (primary protocol), and
    the greedy value (descriptive, no interval)."""
    counts, cells = study2_accuracy_counts(answers, families, dataset=dataset, system=system, parser=parser,
                                           formats=formats, sources=sources, budgets=budgets, replicates=list(seeds))
    C = len(cells)
    tot = counts.sum(axis=0)
    est = (100.0 * tot[:, :C] / tot[:, C:]).mean(axis=0)
    drawn = bootstrap_draws(counts, ratio_statistic(C), draws=draws, seed=seed, batch_size=batch_size,
                            resample_seeds=True)
    per_seed = cell_answers_per_seed(tot[:, C:], cells, seeds)
    rows = []
    for i, ((f, s, b), iv) in enumerate(zip(cells, interval_rows(drawn, est, tail))):
        rows.append({"dataset": dataset, "system": system, "parser": parser, "quantity": "answer_accuracy",
                     "format": f, "answer_source": s, "budget": b, "replicate": -1, **iv, "tail": tail,
                     "n_draws": draws, "n_clusters": counts.shape[0], "n_answers": per_seed[i]})
    if greedy is not None:
        g_counts, _ = study2_accuracy_counts(answers, families, dataset=dataset, system=system, parser=parser,
                                             formats=formats, sources=sources, budgets=budgets, replicates=[greedy])
        g = g_counts.sum(axis=0)[0]
        for i, (f, s, b) in enumerate(cells):
            rows.append({"dataset": dataset, "system": system, "parser": parser, "quantity": "answer_accuracy",
                         "format": f, "answer_source": s, "budget": b, "replicate": greedy,
                         "estimate": float(100.0 * g[i] / g[C + i]), "lower": np.nan, "upper": np.nan,
                         "boot_mean": np.nan, "boot_sd": np.nan, "tail": np.nan, "n_draws": 0,
                         "n_clusters": g_counts.shape[0], "n_answers": int(g[C + i])})
    return rows


def study1_metric_counts(answers: pd.DataFrame, units: Sequence[str], *, dataset: str, system: str, parser: str,
                         sources: Sequence[str], replicates: Sequence[int],
                         classes: Sequence[str]) -> np.ndarray:
    """(claims, checkpoints, stats) per-claim counts for Study 1 answer metrics. Stats per
    source ``a`` (block of ``1 + 3 * n_classes``): correct, then per class TP, FP, FN."""
    ans = answers[(answers["dataset"] == dataset) & (answers["system"] == system) & (answers["parser"] == parser)
                  & answers["answer_source"].isin(sources) & answers["replicate"].isin(replicates)]
    pos = {c: i for i, c in enumerate(units)}
    ans = ans[ans["claim_id"].isin(pos)]
    k = ans["claim_id"].map(pos).to_numpy(dtype=np.int64)
    r = ans["replicate"].map({x: i for i, x in enumerate(replicates)}).to_numpy(dtype=np.int64)
    a = ans["answer_source"].map({x: i for i, x in enumerate(sources)}).to_numpy(dtype=np.int64)
    gold = ans["gold_label"].to_numpy(dtype=object)
    pred = ans["predicted_label"].to_numpy(dtype=object)
    n_c = len(classes)
    block = 1 + 3 * n_c
    counts = np.zeros((len(units), len(replicates), block * len(sources)), dtype=np.int64)
    np.add.at(counts, (k, r, a * block), ans["label_correct"].to_numpy(dtype=np.int64))
    for j, c in enumerate(classes):
        tp = (gold == c) & (pred == c)
        fp = (gold != c) & (pred == c)
        fn = (gold == c) & (pred != c)
        for off, ind in ((1, tp), (2, fp), (3, fn)):
            np.add.at(counts, (k, r, a * block + 1 + 3 * j + off - 1), ind.astype(np.int64))
    return counts


def study1_evidence_counts(correct: np.ndarray, eligible: np.ndarray) -> np.ndarray:
    """(claims, checkpoints, 4) per-claim counts for the evidence metrics: ``eligible_0``,
    ``eligible_1`` and, per answer source ``a``, ``correct_a * dE`` with ``dE = eligible_1 -
    eligible_0`` (from ``correct[k, r, a]`` and ``eligible[k, r, b]``)."""
    dE = eligible[:, :, 1] - eligible[:, :, 0]
    return np.stack([eligible[:, :, 0], eligible[:, :, 1], correct[:, :, 0] * dE, correct[:, :, 1] * dE],
                    axis=2).astype(np.int64)


def study1_metric_statistic(n_sources: int, n_classes: int, evidence: bool = False):
    """Statistic over Study 1 metric counts (see :func:`study1_metric_counts`), then with
    ``evidence`` the four :func:`study1_evidence_counts` columns, plus a final answers-per-claim
    column: ``[accuracy_0, accuracy_1, macro_f1_0, macro_f1_1, accuracy_diff, macro_f1_diff]``
    and with ``evidence`` also ``[eligibility_0, eligibility_1, eligibility_diff, eq4_product_0,
    eq4_product_1, eq4_covariance_0, eq4_covariance_1]`` in points (Eq. 4: ``E_a = mean(c_a)
    mean(dE) + cov(c_a, dE)``), each per checkpoint then averaged over checkpoints."""
    block = 1 + 3 * n_classes
    ev = n_sources * block

    def statistic(tot: np.ndarray) -> np.ndarray:
        n = tot[:, :, -1]
        acc, f1 = [], []
        for a in range(n_sources):
            base = a * block
            acc.append(100.0 * tot[:, :, base] / n)
            per_class = []
            for j in range(n_classes):
                tp, fp, fn = (tot[:, :, base + 1 + 3 * j + o] for o in range(3))
                d = 2 * tp + fp + fn
                per_class.append(np.where(tp > 0, 2 * tp / np.where(d > 0, d, 1), 0.0))
            f1.append(100.0 * np.mean(per_class, axis=0))
        cols = acc + f1 + [acc[1] - acc[0], f1[1] - f1[0]]
        if evidence:
            elig = [100.0 * tot[:, :, ev] / n, 100.0 * tot[:, :, ev + 1] / n]
            diff = elig[1] - elig[0]
            product = [acc[a] * diff / 100.0 for a in range(2)]
            direct = [100.0 * tot[:, :, ev + 2 + a] / n for a in range(2)]
            cols += elig + [diff] + product + [direct[a] - product[a] for a in range(2)]
        return np.stack([c.mean(axis=1) for c in cols], axis=1)

    return statistic


STUDY1_METRICS = ("accuracy_0", "accuracy_1", "macro_f1_0", "macro_f1_1", "accuracy_diff", "macro_f1_diff")
STUDY1_EVIDENCE_METRICS = ("eligibility_0", "eligibility_1", "eligibility_diff", "eq4_product_0", "eq4_product_1",
                           "eq4_covariance_0", "eq4_covariance_1")


def eligible_by_claim(evidence: pd.DataFrame, units: Sequence[str], *, dataset: str, sources: Sequence[str],
                      n_replicates: int) -> np.ndarray:
    """(claims, checkpoints, sources) 0/1 eligibility of EVIDENCE_INDICATORS rows (one
    evidence list per claim and source, the same for every checkpoint); a claim without a row
    for a source is not eligible."""
    ev = evidence[(evidence["dataset"] == dataset) & evidence["evidence_source"].isin(sources)]
    pos = {c: i for i, c in enumerate(units)}
    ev = ev[ev["claim_id"].isin(pos)]
    eligible = np.zeros((len(units), len(sources)), dtype=np.int64)
    eligible[ev["claim_id"].map(pos).to_numpy(dtype=np.int64),
             ev["evidence_source"].map({s: i for i, s in enumerate(sources)}).to_numpy(dtype=np.int64)] = \
        ev["eligible"].to_numpy(dtype=np.int64)
    return np.ascontiguousarray(np.broadcast_to(eligible[:, None, :], (len(units), n_replicates, len(sources))))


def study1_metric_rows(answers: pd.DataFrame, units: Sequence[str], *, dataset: str, system: str, parser: str,
                       sources: Sequence[str], replicates: Sequence[int], classes: Sequence[str], draws: int,
                       seed: int, batch_size: int, tail: float, eligible: np.ndarray | None = None,
                       cluster_of: np.ndarray | None = None, resample_seeds: bool = False) -> list[dict]:
    """Study 1 accuracy / macro-F1 per source and their differences with paired claim intervals;
    with ``eligible`` (claims x checkpoints x sources, 0/1, in ``units`` order) also the
    eligibility per source, its difference and the Eq. 4 product and covariance terms.

    ``cluster_of`` (optional): the resampling cluster index of each of ``units`` (claim
    families); the claims' counts are summed per cluster and clusters are resampled instead of
    claims. ``resample_seeds``: replicates are drawn with replacement in each draw (sampled
    seeds, Study 2's protocol) instead of averaged as they are (checkpoints)."""
    job = study1_metric_job(answers, units, dataset=dataset, system=system, parser=parser, sources=sources,
                            replicates=replicates, classes=classes, draws=draws, seed=seed, tail=tail,
                            eligible=eligible, cluster_of=cluster_of)
    return run_jobs([job], draws=draws, seed=seed, batch_size=batch_size, resample_seeds=resample_seeds)[0]


def study1_metric_job(answers: pd.DataFrame, units: Sequence[str], *, dataset: str, system: str, parser: str,
                      sources: Sequence[str], replicates: Sequence[int], classes: Sequence[str], draws: int,
                      seed: int, tail: float, eligible: np.ndarray | None = None,
                      cluster_of: np.ndarray | None = None) -> BootstrapJob:
    """The counts, statistic and row builder of :func:`study1_metric_rows` (to draw with the
    other Study 1 intervals: ``resampling.bootstrap.run_jobs``)."""
    if len(sources) != 2:
        raise ValueError("Study 1 answer metrics need exactly two sources")
    counts = study1_metric_counts(answers, units, dataset=dataset, system=system, parser=parser, sources=sources,
                                  replicates=replicates, classes=classes)
    names = STUDY1_METRICS
    if eligible is not None:
        block = 1 + 3 * len(classes)
        correct = counts[:, :, [0, block]]
        counts = np.concatenate([counts, study1_evidence_counts(correct, eligible)], axis=2)
        names = STUDY1_METRICS + STUDY1_EVIDENCE_METRICS
    per_claim = np.ones(counts.shape[:2] + (1,), dtype=np.int64)
    counts = np.concatenate([counts, per_claim], axis=2)
    if cluster_of is not None:
        clustered = np.zeros((int(cluster_of.max()) + 1,) + counts.shape[1:], dtype=np.int64)
        np.add.at(clustered, cluster_of, counts)
        counts = clustered
    stat = study1_metric_statistic(len(sources), len(classes), evidence=eligible is not None)
    est = stat(counts.sum(axis=0)[None].astype(np.float64))[0]

    def finish(drawn: np.ndarray) -> list[dict]:
        return [{"dataset": dataset, "system": system, "parser": parser, "quantity": q, "classes": "|".join(classes),
                 **iv, "tail": tail, "n_draws": draws, "seed": seed, "n_clusters": counts.shape[0]}
                for q, iv in zip(names, interval_rows(drawn, est, tail))]

    return BootstrapJob(counts, stat, finish)
